"""The new-request form (``n`` in the queue, issue 14 item 1): a title, the client's text
and who sent it. Add triages and stores it as ``etki add`` does (the app runs
:meth:`etki.services.Desk.add_request` in a worker) and the case appears in the queue;
Escape or Cancel closes the form and nothing is stored; once anything was typed they ask
first (:class:`DiscardTyped`: Enter keeps editing, ``d`` or the Discard button discards,
issue 34 item 5). Every box is framed, its name in the frame, and the focus starts in
the title. The text may not be empty: the form says so and stays open."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Static, TextArea

from etki_tui.actions import bindings
from etki_tui.inputs import TypingInput
from etki_tui.live import part


@dataclass(frozen=True)
class NewRequest:
    """What the form gives back: the client's ``text`` (not empty), a ``title`` and a
    ``submitted_by`` (None when left empty)."""

    text: str
    title: str | None
    submitted_by: str | None


class DiscardTyped(ModalScreen[bool]):
    """Asks before a form's typed text is thrown away: dismissed with True (discard) or
    False (keep editing: Enter, Escape, the focused Keep editing button)."""

    BINDINGS = [*bindings("modal.cancel"), Binding("d", "discard", "Discard", show=False)]

    def __init__(self, what: str) -> None:
        super().__init__(id="discard-typed")
        self.what = what
        """What would be lost, for the question (``the new request``)."""

    def compose(self) -> ComposeResult:
        """The question and the two buttons, Keep editing focused."""
        with Vertical(id="discard-dialog") as dialog:
            dialog.border_title = "Discard what you typed?"
            yield Static(
                Text(f"Close {self.what} and lose what you typed? Nothing was stored."),
                id="discard-question",
                markup=False,
            )
            with Horizontal(id="discard-buttons"):
                yield Button("Discard", id="discard-yes", variant="error")
                yield Button("Keep editing", id="discard-no", variant="primary")
            yield Static(
                Text("Enter or Esc: keep editing · d: discard", style="dim"),
                id="discard-hint",
                markup=False,
            )

    def on_mount(self) -> None:
        """Keep editing focused: Enter never discards."""
        keep = part(self, "#discard-no", Button)
        if keep is not None:
            keep.focus()

    def action_cancel(self) -> None:
        """Escape: back to the form, nothing lost."""
        self.dismiss(False)

    def action_discard(self) -> None:
        """``d``: discard."""
        self.dismiss(True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "discard-yes")


class NewRequestForm(ModalScreen[NewRequest | None]):
    """The form; dismissed with a :class:`NewRequest`, or None (cancelled).
    ``submitter``: the name the submitter box starts with (the acting reviewer)."""

    BINDINGS = bindings("intake.cancel", "intake.next")

    def __init__(self, project_id: str, submitter: str = "", *, cursor_blink: bool = True):
        super().__init__()
        self.project_id = project_id
        self.submitter = submitter
        self._cursor_blink = cursor_blink

    def compose(self) -> ComposeResult:
        """Title, text, submitter, the error line and the buttons."""
        with Vertical(id="intake-dialog") as dialog:
            dialog.border_title = f"New request for {self.project_id}"
            title = TypingInput(placeholder="optional", id="intake-title")
            title.cursor_blink = self._cursor_blink
            title.border_title = "Title"
            yield title
            text = TextArea(id="intake-text", soft_wrap=True, show_line_numbers=False)
            text.cursor_blink = self._cursor_blink
            text.border_title = "the client's text"
            yield text
            who = TypingInput(self.submitter, placeholder="optional", id="intake-by")
            who.cursor_blink = self._cursor_blink
            who.border_title = "Submitted by"
            yield who
            yield Label("", id="intake-error", markup=False)
            with Horizontal(id="intake-buttons"):
                yield Button("Cancel", id="intake-cancel", variant="default")
                yield Button("Add", id="intake-add", variant="primary")
            yield Static(
                Text(
                    "Tab moves between fields · Add triages and stores it · Esc: cancel",
                    style="dim",
                ),
                id="intake-hint",
                markup=False,
            )
        yield Footer()

    def on_mount(self) -> None:
        """Focus on the title."""
        title = part(self, "#intake-title", Input)
        if title is not None:
            self.set_focus(title)

    def typed(self) -> bool:
        """Whether anything was typed: a title, a text, or a submitter other than the
        one the form started with (what a cancel would discard)."""
        text = part(self, "#intake-text", TextArea)
        title = part(self, "#intake-title", Input)
        who = part(self, "#intake-by", Input)
        return bool(
            (text is not None and text.text.strip())
            or (title is not None and title.value.strip())
            or (who is not None and who.value.strip() != self.submitter.strip())
        )

    def action_cancel(self) -> None:
        """Close the form; nothing is stored. With something typed, ask first
        (:class:`DiscardTyped`); keeping it returns to the box that had the focus."""
        if not self.typed():
            self.dismiss(None)
            return
        focused = self.focused

        def answered(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)
            elif focused is not None and focused.is_attached:
                self.set_focus(focused)

        self.app.push_screen(DiscardTyped("the new request"), answered)

    @on(Button.Pressed, "#intake-cancel")
    def _cancel(self) -> None:
        self.action_cancel()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``text_next`` only from the title: elsewhere Enter is the focused widget's
        (a new line in the text, Add in the submitter box, a button)."""
        if action == "text_next":
            focused = self.focused
            return focused is not None and focused.id == "intake-title"
        return True

    def action_text_next(self) -> None:
        """Enter in the title: on to the request text at once (a priority binding, as
        Tab), so the text typed after it in one burst lands there, not in the title."""
        text = part(self, "#intake-text", TextArea)
        if text is not None:
            self.set_focus(text)

    @on(Input.Submitted, "#intake-by")
    @on(Button.Pressed, "#intake-add")
    def _add(self) -> None:
        text = part(self, "#intake-text", TextArea)
        title = part(self, "#intake-title", Input)
        who = part(self, "#intake-by", Input)
        error = part(self, "#intake-error", Label)
        if text is None or title is None or who is None:
            return
        if not text.text.strip():
            if error is not None:
                error.update("The client's text is empty: write or paste the request.")
            self.set_focus(text)
            return
        self.dismiss(
            NewRequest(
                text=text.text,
                title=title.value.strip() or None,
                submitted_by=who.value.strip() or None,
            )
        )
