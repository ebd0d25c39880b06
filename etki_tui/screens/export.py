"""``e`` in Raporlar or the queue (issue 35 item 3): the path a report or the listed
cases are exported to; ``X`` on a change request (item 1): the path its document is
written to. One line, filled with a default name in the working directory; its suffix
picks the format (``.csv`` or ``.xlsx``; ``.docx``, ``.html`` or ``.md``); Export (or
Enter) closes the form with the path, the app's worker writes the file; Escape writes
nothing. When the file exists, :class:`OverwriteConfirm` asks first (a trial lost a file
to a second export), defaulting to No."""

from __future__ import annotations

import os
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Static

from etki.text import printable
from etki_tui.inputs import TypingInput
from etki_tui.live import part

SUFFIXES = (".csv", ".xlsx")
"""The file name endings the form accepts by default (they pick the format)."""

CR_SUFFIXES = (".docx", ".html", ".md")
"""The endings of a change request's file (Word, print-ready HTML, Markdown)."""


def shown_path(path: str) -> str:
    """Where ``path`` (as typed: ``~`` expanded, a relative one under the working
    directory) is written, made absolute and with the home folder shortened to ``~``
    (``~/work/etki-report.xlsx``); terminal-safe (:func:`etki.text.printable`). A PMO
    trial saw only the bare file name and could not tell where the file goes."""
    whole = os.path.abspath(Path(path.strip()).expanduser())
    home = os.path.expanduser("~")
    if home not in ("", "/", "~") and (whole == home or whole.startswith(home + os.sep)):
        whole = "~" + whole[len(home) :]
    return printable(whole, multiline=False)


def kept_message(path: str) -> str:
    """The status line's passing message after "Keep it" on :class:`OverwriteConfirm`
    (a trial was left with no word): ``Kept the existing file ~/x/report.csv``."""
    return f"Kept the existing file {shown_path(path)}"


class ExportForm(ModalScreen[str | None]):
    """Ask where to write a file (``title`` says what); dismissed with the path typed
    (white space around it dropped), or None (cancelled). The path must end in one of
    ``suffixes`` (default :data:`SUFFIXES`, any case): the form says so and stays open
    otherwise."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", key_display="Esc", tooltip="Write nothing")]

    DEFAULT_CSS = """
    ExportForm { align: center middle; }
    #export-dialog {
        width: 72; max-width: 100%; height: auto; max-height: 100%;
        border: thick $primary; border-title-align: left; background: $surface;
        padding: 0 1;
    }
    #export-path { border: none; height: 1; margin-top: 1; }
    #export-error { width: 100%; color: $error; text-style: bold; height: auto; min-height: 1; }
    #export-buttons { height: auto; align-horizontal: right; }
    #export-buttons Button { margin-left: 2; }
    """

    def __init__(
        self,
        title: str,
        default: str,
        *,
        cursor_blink: bool = True,
        suffixes: tuple[str, ...] = SUFFIXES,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.default = default
        self._cursor_blink = cursor_blink
        self.suffixes = suffixes

    def _endings(self) -> str:
        """``.xlsx or .csv`` / ``.docx, .html or .md``: the accepted endings in words."""
        ends = list(self.suffixes) if self.suffixes != SUFFIXES else [".xlsx", ".csv"]
        return ", ".join(ends[:-1]) + f" or {ends[-1]}" if len(ends) > 1 else ends[0]

    def compose(self) -> ComposeResult:
        """The path box, the error line, the buttons and a hint."""
        with Vertical(id="export-dialog") as dialog:
            dialog.border_title = self.title_text
            ends = [f"file{e}" for e in self.suffixes]
            box = TypingInput(
                self.default,
                placeholder=", ".join(ends[:-1]) + f" or {ends[-1]}",
                id="export-path",
            )
            if self.suffixes == SUFFIXES:
                box.placeholder = "file.xlsx or file.csv"
            box.cursor_blink = self._cursor_blink
            yield box
            yield Static(self._where(self.default), id="export-where", markup=False)
            yield Label("", id="export-error", markup=False)
            with Horizontal(id="export-buttons"):
                yield Button("Cancel", id="export-cancel", variant="default")
                yield Button("Export", id="export-write", variant="primary")
            yield Static(
                Text(
                    f"The name's ending picks the format: {self._endings()}"
                    + (" (UTF-8)" if self.suffixes == SUFFIXES else "")
                    + " · Enter or Export: write it · Esc: cancel",
                    style="dim",
                ),
                id="export-hint",
                markup=False,
            )
        yield Footer()

    @staticmethod
    def _where(typed: str) -> Text:
        """The line under the path box: the whole path the file is written to."""
        if not typed.strip():
            return Text("Writes to: (type a file name)", style="dim")
        return Text(f"Writes to: {shown_path(typed)}", style="dim")

    @on(Input.Changed, "#export-path")
    def _typed(self, event: Input.Changed) -> None:
        where = part(self, "#export-where", Static)
        if where is not None:
            where.update(self._where(event.value))

    def on_mount(self) -> None:
        """Focus on the path, the cursor at its end."""
        box = part(self, "#export-path", Input)
        if box is not None:
            self.set_focus(box)
            box.action_end()

    def action_cancel(self) -> None:
        """Close the form; nothing is written."""
        self.dismiss(None)

    @on(Button.Pressed, "#export-cancel")
    def _cancel(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted, "#export-path")
    @on(Button.Pressed, "#export-write")
    def _write(self) -> None:
        box = part(self, "#export-path", Input)
        if box is None:
            return
        path = box.value.strip()
        problem = ""
        if not path:
            example = "report.xlsx" if self.suffixes == SUFFIXES else f"file{self.suffixes[0]}"
            problem = f"Type the file to write, e.g. {example}."
        elif Path(path).suffix.lower() not in self.suffixes:
            problem = f"End the file name with {self._endings()} (it picks the format)."
        if problem:
            error = part(self, "#export-error", Label)
            if error is not None:
                error.update(problem)
            self.set_focus(box)
            return
        self.dismiss(path)


class OverwriteConfirm(ModalScreen[bool]):
    """Ask whether to replace the existing file ``path`` (shown literally). Dismisses
    with True on Replace or ``y``, False on Keep, ``n`` or Escape. Focus starts on
    Keep: a stray Enter never overwrites a file."""

    BINDINGS = [
        Binding("escape,n", "keep", "Keep it", key_display="Esc/n", tooltip="Write nothing"),
        Binding("y", "replace", "Replace", tooltip="Replace the file"),
    ]

    DEFAULT_CSS = """
    OverwriteConfirm { align: center middle; }
    #overwrite-dialog {
        width: 72; max-width: 100%; height: auto; max-height: 100%;
        border: thick $warning; border-title-align: left; background: $surface;
        padding: 0 1;
    }
    #overwrite-buttons { height: auto; align-horizontal: right; margin-top: 1; }
    #overwrite-buttons Button { margin-left: 2; }
    """

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    def compose(self) -> ComposeResult:
        """The question with the path, the buttons and a hint."""
        with Vertical(id="overwrite-dialog") as dialog:
            dialog.border_title = "Replace the file?"
            question = Text(no_wrap=False, end="")
            question.append(printable(self.path, multiline=False), style="bold")
            question.append(" exists. Replace it with this export?")
            yield Static(question, id="overwrite-question", markup=False)
            with Horizontal(id="overwrite-buttons"):
                yield Button("Keep it", id="overwrite-keep", variant="default")
                yield Button("Replace", id="overwrite-replace", variant="warning")
            yield Static(
                Text("y: replace · n or Esc: keep it, write nothing", style="dim"),
                id="overwrite-hint",
                markup=False,
            )
        yield Footer()

    def on_mount(self) -> None:
        """Keep focused: the default is No."""
        keep = part(self, "#overwrite-keep", Button)
        if keep is not None:
            keep.focus()

    @on(Button.Pressed, "#overwrite-keep")
    def action_keep(self) -> None:
        """Close; nothing is written."""
        self.dismiss(False)

    @on(Button.Pressed, "#overwrite-replace")
    def action_replace(self) -> None:
        """Close; the export replaces the file."""
        self.dismiss(True)
