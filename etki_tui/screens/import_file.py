"""``i`` in the queue (issue 35 item 4): import a file of requests from a path the
reviewer types, as ``etki import FILE`` does. :class:`ImportForm` asks for the path
(one framed box; ``~`` is the home folder); Import checks it before anything is read
(:func:`etki.services.import_path`: a folder, a missing or unreadable file, an ending
that names no format are said on the form, which stays open) and closes with the
file; the app's worker imports it through the desk (:meth:`etki.services.Desk.
import_requests`: the same reader and triage as the CLI, a row that cannot be read is
refused alone). Escape closes the form; once a path was typed it asks first
(:class:`etki_tui.screens.new_request.DiscardTyped`). :class:`ImportResult` then lists
what the import did: the counts, each new case with its verdict and sureness, each
refused row with its line and why, as the CLI prints them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Static

from etki.domain import CaseRecord
from etki.errors import InputError
from etki.services import IMPORT_ENDINGS, IntakeSummary, import_format, import_path
from etki.text import plural, printable
from etki_tui.actions import bindings
from etki_tui.inputs import TypingInput
from etki_tui.live import part
from etki_tui.screens.new_request import DiscardTyped


class ImportForm(ModalScreen[Path | None]):
    """Ask for the requests file to import into ``project_id``; dismissed with the
    checked path (``~`` expanded), or None (cancelled)."""

    BINDINGS = bindings("import.cancel")

    DEFAULT_CSS = """
    ImportForm { align: center middle; }
    #import-dialog {
        width: 72; max-width: 100%; height: auto; max-height: 100%;
        border: thick $primary; border-title-align: left; background: $surface;
        padding: 0 1;
    }
    #import-about { margin-top: 1; }
    #import-path { border-title-align: left; border-title-color: $text-muted; }
    #import-error { width: 100%; color: $error; text-style: bold; height: auto; min-height: 1; }
    #import-buttons { height: auto; align-horizontal: right; }
    #import-buttons Button { margin-left: 2; }
    """

    def __init__(self, project_id: str, *, cursor_blink: bool = True) -> None:
        super().__init__()
        self.project_id = project_id
        self._cursor_blink = cursor_blink

    def compose(self) -> ComposeResult:
        """What is read, the path box, the error line, the buttons and a hint."""
        with Vertical(id="import-dialog") as dialog:
            dialog.border_title = (
                f"Import requests into {printable(self.project_id, multiline=False)}"
            )
            yield Static(
                Text(
                    "A file of requests as etki import reads it: CSV (comma, semicolon or "
                    "tab; UTF-8, cp1254 or cp1252), JSON Lines, or a GitHub issues "
                    "export (.json). Each request is triaged and stored; a row that "
                    "cannot be read is refused alone.",
                    style="dim",
                ),
                id="import-about",
                markup=False,
            )
            box = TypingInput(placeholder="~/Downloads/requests.csv", id="import-path")
            box.cursor_blink = self._cursor_blink
            box.border_title = "File"
            yield box
            yield Label("", id="import-error", markup=False)
            with Horizontal(id="import-buttons"):
                yield Button("Cancel", id="import-cancel", variant="default")
                yield Button("Import", id="import-read", variant="primary")
            yield Static(
                Text("~ is your home folder · Enter or Import: read it · Esc: cancel", style="dim"),
                id="import-hint",
                markup=False,
            )
        yield Footer()

    def on_mount(self) -> None:
        """Focus on the path."""
        box = part(self, "#import-path", Input)
        if box is not None:
            self.set_focus(box)

    def typed(self) -> str:
        """The path as typed (white space around it dropped)."""
        box = part(self, "#import-path", Input)
        return box.value.strip() if box is not None else ""

    def action_cancel(self) -> None:
        """Close the form; nothing is read. With a path typed, ask first."""
        if not self.typed():
            self.dismiss(None)
            return

        def answered(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)
            else:
                box = part(self, "#import-path", Input)
                if box is not None:
                    self.set_focus(box)

        self.app.push_screen(DiscardTyped("the import"), answered)

    @on(Button.Pressed, "#import-cancel")
    def _cancel(self) -> None:
        self.action_cancel()

    def _refuse(self, problem: str) -> None:
        error = part(self, "#import-error", Label)
        if error is not None:
            error.update(printable(problem, multiline=False))
        box = part(self, "#import-path", Input)
        if box is not None:
            self.set_focus(box)

    @on(Input.Submitted, "#import-path")
    @on(Button.Pressed, "#import-read")
    def _read(self) -> None:
        try:
            file = import_path(self.typed())
        except InputError as exc:
            self._refuse(str(exc).removeprefix("import: ").rstrip(".") + ".")
            return
        try:
            import_format(file)
        except InputError:
            self._refuse(f"End the file name with {IMPORT_ENDINGS}: the ending picks the format.")
            return
        self.dismiss(file)


def import_counts(done: IntakeSummary) -> str:
    """The counts of an import in one sentence: ``Imported 2 new requests; 1
    refused.`` (already stored and erased ones named when there are any)."""
    line = f"Imported {len(done.stored)} new {plural(len(done.stored), 'request')}"
    if done.already:
        line += f"; {done.already} already stored (left as they are)"
    if done.erased:
        line += f"; {done.erased} of erased cases (not stored again)"
    if done.refused:
        line += f"; {len(done.refused)} refused"
    return line + "."


def import_lines(done: IntakeSummary, cases: Sequence[CaseRecord]) -> list[Text]:
    """What an import did, as ``etki import`` prints it: the counts; the notes on how
    the file was read; each new case (id, request id, verdict, sure or unsure,
    title); each refused row (``FILE:LINE: why``). Client text is shown literally."""
    out = [Text(import_counts(done), style="bold")]
    out += [Text(printable(f"Note: {note}", multiline=False), style="dim") for note in done.notes]
    if cases:
        out.append(Text(""))
        out.append(Text("New cases (in the queue now):", style="bold"))
    for case in cases:
        d = case.decision
        row = Text(f"{case.case_id}  {printable(case.request_id, multiline=False)}  ")
        row.append(f"{d.verdict:<14} ", style="bold")
        row.append("sure    " if d.sure else "unsure  ", style="" if d.sure else "dim")
        row.append(printable(case.title, multiline=False))
        out.append(row)
    if done.refused:
        out.append(Text(""))
        out.append(Text("Refused (line and why; the other rows were stored):", style="bold"))
        out += [Text(printable(m, multiline=False)) for m in done.refused]
    return out


class ImportResult(ModalScreen[None]):
    """What an import of ``name`` did (:func:`import_lines`), scrolling; Enter or
    Escape closes it."""

    BINDINGS = bindings("notice.close")

    DEFAULT_CSS = """
    ImportResult { align: center middle; }
    #import-result {
        width: 100; max-width: 100%; height: auto; max-height: 100%;
        border: thick $primary; border-title-align: left; background: $surface;
        padding: 0 1;
    }
    #import-result.-refused { border: thick $warning; }
    #import-lines { height: auto; max-height: 20; }
    #import-result-hint { margin-top: 1; }
    """

    def __init__(self, name: str, done: IntakeSummary, cases: Sequence[CaseRecord]) -> None:
        super().__init__()
        self.name_shown = printable(name, multiline=False)
        self.done = done
        self.cases = list(cases)

    def compose(self) -> ComposeResult:
        """The lines and a hint."""
        with Vertical(id="import-result", classes="-refused" if self.done.refused else "") as box:
            box.border_title = f"Imported from {self.name_shown}"
            with VerticalScroll(id="import-lines"):
                for line in import_lines(self.done, self.cases):
                    yield Static(line, markup=False)
            yield Static(
                Text("↑ ↓ scroll · Enter or Esc: close", style="dim"),
                id="import-result-hint",
                markup=False,
            )

    def on_mount(self) -> None:
        """The list has the focus, so the arrows scroll it."""
        lines = part(self, "#import-lines", VerticalScroll)
        if lines is not None:
            lines.focus()

    def action_close(self) -> None:
        """Close the list."""
        self.dismiss(None)
