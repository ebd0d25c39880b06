"""The resolution form of a disputed clause (``r`` on a disputed card in Hafıza, issue 14
item 6): the PMO chooses the ruling the clause calls for (IN_SCOPE, CR or REJECT) and
writes why ("clause 4.8 covers breakdowns by district"). Save records it as ``etki
dispute resolve`` does (the app runs :meth:`etki.services.Desk.resolve_dispute` in a
worker); Escape or Cancel closes the form and nothing is recorded; with a reason typed
they ask first (:class:`etki_tui.screens.new_request.DiscardTyped`, as the new-request
and import forms do: issue 34, a typed reason went without a word). A verdict and a
reason are required: the form says so and stays open. The clause ref, its title and
the resolution in force are client text, shown literally (``markup=False``)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, RadioSet, Static

from etki.domain import DisputedClause
from etki.text import printable
from etki_tui.actions import bindings
from etki_tui.inputs import TypingInput
from etki_tui.live import part
from etki_tui.screens.new_request import DiscardTyped
from etki_tui.toggles import MarkedRadioButton

CHOICES: tuple[tuple[str, str], ...] = (
    ("IN_SCOPE", "IN_SCOPE: the clause covers it"),
    ("CHANGE_REQUEST", "CR: a change request"),
    ("REJECT", "REJECT: outside the remit"),
)
"""(verdict, the radio button's words), in the order shown."""


@dataclass(frozen=True)
class DisputeResolution:
    """What the form gives back: the clause ``ref``, the ``verdict`` chosen, the
    ``reason`` (stripped, not empty) and ``expected_id``, the id of the resolution in
    force the PMO saw (0: none), so a resolution recorded meanwhile is a conflict."""

    ref: str
    verdict: str
    reason: str
    expected_id: int = 0


class ResolveDisputeForm(ModalScreen[DisputeResolution | None]):
    """The form; dismissed with a :class:`DisputeResolution`, or None (cancelled).
    ``item``: the disputed clause; its resolution in force, if any, is named above the
    choice, which starts empty (Save never re-records it unchosen)."""

    BINDINGS = bindings("resolve.cancel")

    def __init__(self, item: DisputedClause, title: str = "", *, cursor_blink: bool = True):
        super().__init__()
        self.item = item
        self.clause_title = title
        self._cursor_blink = cursor_blink

    def compose(self) -> ComposeResult:
        """The clause, the verdict choice, the reason, the error line and the buttons."""
        with Vertical(id="resolve-dialog") as dialog:
            dialog.border_title = "Resolve a disputed clause"
            head = Text()
            head.append(printable(self.item.ref, multiline=False), style="bold")
            if self.clause_title:
                head.append(" " + printable(self.clause_title, multiline=False))
            head.append("\nrulings disagree: " + " / ".join(self.item.rulings), style="dim")
            if (r := self.item.resolution) is not None:
                state = "in force" if self.item.resolved else "overridden since"
                said = f"{r.verdict} by {r.reviewer}, {r.at} — {r.reason}"
                head.append(f"\nresolution {state}: " + printable(said, multiline=False))
            yield Static(head, id="resolve-clause", markup=False)
            with RadioSet(id="resolve-verdict"):  # nothing chosen: a resolution is a choice
                for verdict, words in CHOICES:
                    yield MarkedRadioButton(words, value=False, id=f"resolve-{verdict}")
            number = self.item.ref.rsplit("#", 1)[-1]  # MSA-2024-01#4.2 -> 4.2
            reason = TypingInput(
                placeholder=printable(f"clause {number} covers …", multiline=False),
                id="resolve-reason",
            )
            reason.cursor_blink = self._cursor_blink
            # framed like every box of the desk's forms, its name in the frame (issue 34
            # item 5: an unframed box read as a line of text, not a place to type)
            reason.border_title = "Reason (required): what the clause covers, and why"
            yield reason
            yield Label("", id="resolve-error", markup=False)
            with Horizontal(id="resolve-buttons"):
                yield Button("Cancel", id="resolve-cancel", variant="default")
                yield Button("Save", id="resolve-save", variant="primary")
            yield Static(
                Text(
                    "↑ ↓ then Space: choose · Tab to the reason · Save records it "
                    "(approvers only) · Esc: cancel",
                    style="dim",
                ),
                id="resolve-hint",
                markup=False,
            )
        yield Footer()

    def on_mount(self) -> None:
        """Focus on the verdict choice."""
        choice = part(self, "#resolve-verdict", RadioSet)
        if choice is not None:
            self.set_focus(choice)

    def action_cancel(self) -> None:
        """Close the form; nothing is recorded. With a reason typed, ask first."""
        box = part(self, "#resolve-reason", Input)
        if box is None or not box.value.strip():
            self.dismiss(None)
            return

        def answered(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)
            else:
                self.set_focus(box)

        self.app.push_screen(DiscardTyped("the resolution"), answered)

    @on(Button.Pressed, "#resolve-cancel")
    def _cancel(self) -> None:
        self.action_cancel()

    def chosen(self) -> str | None:
        """The verdict chosen, None before one is."""
        choice = part(self, "#resolve-verdict", RadioSet)
        pressed = choice.pressed_button if choice is not None else None
        if pressed is None or pressed.id is None:
            return None
        return pressed.id.removeprefix("resolve-")

    @on(Input.Submitted, "#resolve-reason")
    @on(Button.Pressed, "#resolve-save")
    def _save(self) -> None:
        reason = part(self, "#resolve-reason", Input)
        error = part(self, "#resolve-error", Label)
        if reason is None:
            return
        verdict = self.chosen()
        if verdict is None:
            if error is not None:
                error.update("Choose the ruling the clause calls for (IN_SCOPE, CR or REJECT).")
            choice = part(self, "#resolve-verdict", RadioSet)
            if choice is not None:
                self.set_focus(choice)
            return
        if not reason.value.strip():
            if error is not None:
                error.update("The reason is empty: say what the clause covers, and why.")
            self.set_focus(reason)
            return
        seen = self.item.resolution.id if self.item.resolution is not None else 0
        self.dismiss(DisputeResolution(self.item.ref, verdict, reason.value.strip(), seen))
