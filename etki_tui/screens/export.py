"""``e`` in Raporlar or the queue (issue 35 item 3): the path a report or the listed
cases are exported to; ``X`` on a change request (item 1): the path its document is
written to. One line, filled with a default name in the working directory;
its suffix picks the format (``.csv`` or ``.xlsx``; ``.docx``, ``.html`` or ``.md``); Export (or Enter) closes the form
with the path, the app's worker writes the file; Escape writes nothing."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Static

from etki_tui.inputs import TypingInput
from etki_tui.live import part

SUFFIXES = (".csv", ".xlsx")
"""The file name endings the form accepts by default (they pick the format)."""

CR_SUFFIXES = (".docx", ".html", ".md")
"""The endings of a change request's file (Word, print-ready HTML, Markdown)."""


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
