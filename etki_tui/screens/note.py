"""``m`` in the queue: a reviewer's note on the highlighted case (issue 14 item 4). One
line of text; Add (or Enter) stores it as ``etki note`` does, through the app's worker;
an empty note is refused in the form; Escape stores nothing."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Static

from etki.text import printable
from etki_tui.actions import bindings
from etki_tui.inputs import TypingInput
from etki_tui.live import part


class NoteForm(ModalScreen[str | None]):
    """Ask for a note on ``case_id``; dismissed with its text, or None (cancelled)."""

    BINDINGS = bindings("note.cancel")

    def __init__(self, case_id: str, *, cursor_blink: bool = True) -> None:
        super().__init__()
        self.case_id = case_id
        self._cursor_blink = cursor_blink

    def compose(self) -> ComposeResult:
        """The text box, the error line, the buttons and a hint."""
        with Vertical(id="note-dialog") as dialog:
            dialog.border_title = f"Note on {printable(self.case_id, multiline=False)}"
            box = TypingInput(placeholder="what you found, who you called…", id="note-text")
            box.cursor_blink = self._cursor_blink
            yield box
            yield Label("", id="note-error", markup=False)
            with Horizontal(id="note-buttons"):
                yield Button("Cancel", id="note-cancel", variant="default")
                yield Button("Add note", id="note-add", variant="primary")
            yield Static(
                Text(
                    "Enter or Add: store it (the case's history and wiki page) · Esc: cancel",
                    style="dim",
                ),
                id="note-hint",
                markup=False,
            )
        yield Footer()

    def on_mount(self) -> None:
        """Focus on the text box."""
        box = part(self, "#note-text", Input)
        if box is not None:
            self.set_focus(box)

    def action_cancel(self) -> None:
        """Close the form; nothing is stored."""
        self.dismiss(None)

    @on(Button.Pressed, "#note-cancel")
    def _cancel(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted, "#note-text")
    @on(Button.Pressed, "#note-add")
    def _add(self) -> None:
        box = part(self, "#note-text", Input)
        if box is None:
            return
        if not box.value.strip():
            error = part(self, "#note-error", Label)
            if error is not None:
                error.update("The note is empty: write what you want to keep.")
            self.set_focus(box)
            return
        self.dismiss(box.value.strip())
