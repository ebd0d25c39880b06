"""The confirmation before a ruling (issue 12 item 6). When the ruling agrees with the
engine, focus starts on the ruling button: Enter there, or ``y`` anywhere outside the
reason box, rules in one key (the reason is optional). An override (the ruling differs
from the engine's verdict) never rules by default: a reason is required, so focus starts
in the reason box — Enter there only moves to the ruling button, an empty reason is
refused and ``y`` does not rule. Escape anywhere closes the dialog and nothing is
recorded."""

from __future__ import annotations

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Static

from etki.domain import ACTIONS, CaseRecord, CaseSummary, RulingRecord
from etki.text import printable
from etki_tui.actions import bindings
from etki_tui.inputs import TypingInput
from etki_tui.live import part
from etki_tui.render import cell, literal, ruled_banner, verdict_text, when

ACTION_VERB: dict[str, str] = {
    "approve": "Approve",
    "convert_to_cr": "Convert to CR",
    "reject": "Reject",
}
"""Button label per ruling action (etki.domain.ACTIONS keys)."""

ACTION_VARIANT: dict[str, str] = {
    "approve": "success",
    "convert_to_cr": "warning",
    "reject": "error",
}


RULED_HINT = "Ruled meanwhile: nothing is recorded here · Enter or Esc: close · A amends it"
"""The dialog's hint once another reviewer ruled the case (the banner says who)."""


class ConfirmRuling(ModalScreen[str | None]):
    """Ask to confirm ``action`` on ``case``. Dismisses with the reason ("" when none
    is needed) on Confirm, or ``None`` on Cancel/Escape.

    ``amend`` (``A``, issue 14 item 2): the case is ruled and ``action`` replaces its
    ruling. The dialog says so and shows the ruling in force; like an override it
    never rules by default: a reason is required and ``y`` does not rule."""

    BINDINGS = bindings("modal.cancel", "modal.confirm", "help")

    def __init__(
        self,
        case: CaseRecord | CaseSummary,
        action: str,
        *,
        cursor_blink: bool = True,
        draft: str = "",
        amend: bool = False,
        claimed_by: tuple[str, str | None] | None = None,
    ) -> None:
        super().__init__()
        self.claimed_by = claimed_by
        """(reviewer, until) of another reviewer's live claim of the case, or None: the
        dialog says so and starts on Cancel (a claim is a courtesy, not a lock)."""
        self.amend = amend
        """Amend the case's ruling instead of ruling a pending case."""
        self.draft = draft
        """The reason box's text: the draft typed the last time the dialog was closed
        without ruling at first, then what is typed (kept when Cancel or Esc closes it,
        so the caller can give it back next time)."""
        self.case = case
        self.action = action
        self.ruling = ACTIONS[action]
        self.is_override = self.ruling != case.decision.verdict
        self.needs_reason = self.is_override or amend
        """A reason is required (an override, or any amendment): nothing rules by
        default."""
        self._cursor_blink = cursor_blink
        self.ruled_meanwhile: RulingRecord | None = None
        """Another reviewer's ruling of the case, seen while the dialog was open."""

    def compose(self) -> ComposeResult:
        """The question, the case, verdict vs ruling, reason box and buttons."""
        verb = ACTION_VERB[self.action]
        with Vertical(id="confirm-dialog") as dialog:
            dialog.border_title = "Amend ruling" if self.amend else "Confirm ruling"
            question = Text(
                "Amend the ruling of case " if self.amend else f"{verb} case ", style="bold"
            )
            question.append_text(cell(self.case.case_id, style="bold"))
            question.append("?", style="bold")
            yield Static(question, id="confirm-question", markup=False)
            title = literal(self.case.title)
            title.no_wrap = False
            yield Static(title, id="confirm-title", markup=False)
            line = Text("Engine verdict  ")
            line.append_text(verdict_text(self.case.decision.verdict))
            line.append(f"  (confidence {self.case.decision.confidence:.2f})")
            yield Static(line, classes="confirm-line", markup=False)
            current = self.case.ruling
            if self.amend and current is not None:
                line = Text("Ruled now       ")
                line.append_text(verdict_text(current.ruling))
                line.append(f"  by {printable(current.reviewer, multiline=False)}")
                line.append(f" at {when(current.ruled_at)}", style="dim")
                yield Static(line, classes="confirm-line", markup=False)
            line = Text("New ruling      " if self.amend else "Your ruling     ")
            line.append_text(verdict_text(self.ruling, bold=True))
            if self.amend:
                line.append(
                    "  AMENDMENT — a reason is required"
                    + (" (overrides the engine)" if self.is_override else ""),
                    style="bold",
                )
            else:
                line.append(
                    "  OVERRIDE — a reason is required"
                    if self.is_override
                    else "  agrees with the engine",
                    style="bold" if self.is_override else "dim",
                )
            yield Static(line, classes="confirm-line", markup=False)
            if self.claimed_by is not None:
                who, until = self.claimed_by
                claim = Text("! CLAIMED by ", style="bold reverse")
                claim.append(printable(who, multiline=False), style="bold reverse")
                claim.append(
                    f" until {when(until)}: they may be ruling it now" if until else "",
                    style="bold",
                )
                yield Static(claim, id="confirm-claimed", classes="confirm-line", markup=False)
            reason = TypingInput(
                self.draft,
                placeholder="Reason (required for an amendment)"
                if self.amend
                else "Reason (required for an override)"
                if self.is_override
                else "Reason (optional)",
                id="confirm-reason",
                select_on_focus=False,
            )
            reason.cursor_blink = self._cursor_blink
            yield reason
            yield Label(
                ruled_banner(self.ruled_meanwhile) if self.ruled_meanwhile else "",
                id="confirm-error",
                markup=False,
            )
            with Horizontal(id="confirm-buttons"):
                cancel = Button("Cancel", id="confirm-cancel", variant="default")
                label = f"Amend: {verb}" if self.amend else verb
                ok = Button(label, id="confirm-ok", variant=ACTION_VARIANT[self.action])  # type: ignore[arg-type]  # Button variant names
                if not self._cursor_blink:  # steady screenshots: no press flash either
                    cancel.active_effect_duration = ok.active_effect_duration = 0
                yield cancel
                yield ok
            hint = (
                RULED_HINT
                if self.ruled_meanwhile
                else "Type the reason · Enter: to the button · Enter again: amend · Esc: cancel"
                if self.amend
                else "Type the reason · Enter: to the button · Enter again: rule · Esc: cancel"
                if self.is_override
                else f"y: {verb[:1].lower() + verb[1:]} anyway · Enter: Cancel · Esc: cancel"
                if self.claimed_by is not None
                else f"Enter or y: {verb[:1].lower() + verb[1:]} · Tab: reason or Cancel · Esc: cancel"
            )
            yield Static(Text(hint + " · F1: help", style="dim"), id="confirm-hint", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        """The ruling button when the ruling agrees with the engine, the reason box on
        an override (typing is the next step; nothing is ruled before a reason is typed
        and the button pressed)."""
        first = (
            part(self, "#confirm-cancel", Button)
            if self.ruled_meanwhile  # the live refresh told before the dialog was drawn
            else part(self, "#confirm-reason", Input)
            if self.needs_reason
            else part(self, "#confirm-cancel", Button)
            if self.claimed_by is not None  # someone else is on it: no one-key ruling
            else part(self, "#confirm-ok", Button)
        )
        if first is not None:  # None: the desk closed while the dialog was being built
            first.focus()

    def mark_ruled(self, ruling: RulingRecord) -> None:
        """Another reviewer ruled this case while the dialog was open: say so, and put
        the focus on Cancel (Enter no longer goes to the ruling button) — unless the
        reviewer is typing in the reason box: it keeps the focus, so the keys typed
        after the update land there (issue 34 item 5: they were dropped), and Enter
        there closes the dialog. The live refresh can tell before the dialog is
        composed (it is pushed in the same turn): the ruling is kept and composed into
        it."""
        self.ruled_meanwhile = ruling
        label = part(self, "#confirm-error", Label)
        if label is not None:
            label.update(ruled_banner(ruling))
        cancel = part(self, "#confirm-cancel", Button)
        box = part(self, "#confirm-reason", Input)
        if cancel is not None and (box is None or self.focused is not box):
            cancel.focus()
        hint = part(self, "#confirm-hint", Static)
        if hint is not None:  # the hint no longer offers a one-key ruling
            hint.update(Text(RULED_HINT + " · F1: help", style="dim"))

    @property
    def reason(self) -> str:
        """The reason typed so far, stripped."""
        return self.query_one("#confirm-reason", Input).value.strip()

    def action_cancel(self) -> None:
        """Close without ruling (the typed reason stays in :attr:`draft`)."""
        self._keep_draft()
        self.dismiss(None)

    def _keep_draft(self) -> None:
        box = part(self, "#confirm-reason", Input)
        if box is not None:
            self.draft = box.value

    def action_confirm(self) -> None:
        """``y``: rule at once when the ruling agrees with the engine; on an override
        say what is needed instead (it never rules by default)."""
        if self.needs_reason:
            verb = f"Amend: {ACTION_VERB[self.action]}" if self.amend else ACTION_VERB[self.action]
            if self.reason:  # the reason is there: say which key rules, go to it
                self._say(
                    f"y rules only a ruling that agrees with the engine: Enter on "
                    f"{verb} records this one."
                )
                self.query_one("#confirm-ok", Button).focus()
                return
            self._say(
                "y does not amend: an amendment needs a reason, then the Amend button."
                if self.amend
                else "y rules only when you agree with the engine: this override needs a "
                "reason, then the ruling button."
            )
            self.query_one("#confirm-reason", Input).focus()
            return
        self._confirm()

    @on(Button.Pressed, "#confirm-cancel")
    def _cancel(self) -> None:
        self._keep_draft()
        self.dismiss(None)

    @on(Button.Pressed, "#confirm-ok")
    def _confirm(self) -> None:
        if self.needs_reason and not self.reason:
            self._say(self._reason_required())
            self.query_one("#confirm-reason", Input).focus()
            return
        self.dismiss(self.reason)

    @on(Input.Submitted, "#confirm-reason")
    def _reason_entered(self) -> None:
        """Enter in the reason box moves to the ruling button (it never rules by
        itself); with a reason required and none typed it stays, and says so (a trial:
        the focus moved on and the next letters typed were lost). Once the case was
        ruled meanwhile it closes the dialog (the typed reason kept in :attr:`draft`)."""
        if self.ruled_meanwhile is not None:
            self.action_cancel()
            return
        if self.needs_reason and not self.reason:
            self._say(self._reason_required())
            return
        self.query_one("#confirm-ok", Button).focus()

    def _reason_required(self) -> str:
        return (
            "A reason is required: the earlier ruling stays on record beside it."
            if self.amend
            else "A reason is required: this ruling overrides the engine's verdict."
        )

    def _say(self, message: str) -> None:
        label = part(self, "#confirm-error", Label)
        if label is not None:
            label.update(Text(message, style="bold"))

    def on_key(self, event: events.Key) -> None:
        """A letter typed while a button has the focus goes to the reason box (the
        reviewer was writing the reason: nothing typed is lost, also after another
        reviewer's ruling moved the focus). Space and Enter still press the button;
        ``y`` is the one-key ruling (:meth:`action_confirm`) and ``?`` the help, never
        text."""
        focused = self.focused
        char = event.character
        if (
            not isinstance(focused, Button)
            or not event.is_printable
            or char is None
            or char in (" ", "y", "?")
        ):
            return
        box = part(self, "#confirm-reason", Input)
        if box is None:
            return
        event.stop()
        event.prevent_default()
        box.focus()
        box.insert_text_at_cursor(char)
