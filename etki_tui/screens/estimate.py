"""``E`` in the queue: a reviewer's effort estimate of the highlighted case (issue 35
item 2), the desk's form of ``etki estimate CASE --days N [--price ...] --reason``. Three
lines: the person-days, an optional price with its currency (``12500 EUR``) and the
reason; Save checks them as the command does (:func:`etki.domain.parse_estimate`: the
form names the field that is wrong and stays open) and closes with them, the app's
worker records them through the same desk service (audited, in the case's history);
Escape stores nothing. Above the fields: the estimate in force (its price as every
other place shows it, ``12,500.00 EUR``) and the engine's frozen range, for reference;
with an estimate in force the fields start with its figures and reason, so a revision
changes only what changed (a PMO trial had to type all three again to change the
price), and saving them unchanged is refused (it would record the same estimate
twice)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Static

from etki.domain import ReviewerEstimate, parse_estimate
from etki.errors import EtkiError
from etki.text import printable
from etki_tui.actions import bindings
from etki_tui.inputs import TypingInput
from etki_tui.live import part


@dataclass(frozen=True)
class EstimateInput:
    """What the form gives back, as typed (checked): ``days``, ``price`` (None when left
    empty; it may carry its currency, ``12500 EUR``) and ``reason``."""

    days: str
    price: str | None
    reason: str


def in_force_words(held: ReviewerEstimate) -> str:
    """The estimate in force as the form states it: ``3.5 days, 12,500.50 EUR: reason``
    (:meth:`ReviewerEstimate.figures`, the price grouped as the detail pane, the toast
    and the change request show it)."""
    return f"{held.figures()}: {held.reason}"


class EstimateForm(ModalScreen[EstimateInput | None]):
    """Ask for an estimate of ``case_id``; dismissed with an :class:`EstimateInput`, or
    None (cancelled). ``held``: the estimate in force (stated above the fields so the
    reviewer sees what they replace, and the fields start with it), None when there is
    none; ``engine``: the engine's frozen range in words (``2.4–5.8 person-days``,
    ``unknown``), empty to leave it out."""

    BINDINGS = bindings("estimate.cancel", "estimate.next")

    NEXT_FROM = ("estimate-days", "estimate-price")
    """The boxes Enter leaves for the next one (``estimate.next``); Enter in the reason
    saves."""

    def __init__(
        self,
        case_id: str,
        held: ReviewerEstimate | None = None,
        engine: str = "",
        *,
        cursor_blink: bool = True,
    ) -> None:
        super().__init__()
        self.case_id = case_id
        self.held = held
        self.current = in_force_words(held) if held is not None else ""
        self.engine = engine
        self._cursor_blink = cursor_blink

    def compose(self) -> ComposeResult:
        """The three fields, the error line, the buttons and a hint."""
        with Vertical(id="estimate-dialog") as dialog:
            dialog.border_title = f"Estimate of {printable(self.case_id, multiline=False)}"
            now = (
                f"In force: {printable(self.current, multiline=False)}"
                if self.current
                else "No estimate yet."
            )
            if self.engine:
                now += f"\nEngine's range: {printable(self.engine, multiline=False)}"
            yield Static(Text(now, style="dim"), id="estimate-current", markup=False)
            held = self.held
            for ident, label, hint, value in (
                ("estimate-days", "Person-days", "e.g. 3 or 2.5", held.days if held else ""),
                (
                    "estimate-price",
                    "Price (optional)",
                    "e.g. 12500 EUR or 86500 TRY",
                    # the price as shown elsewhere, ungrouped as the box takes it back
                    # (a trial saw "12500.5 EUR" for 12,500.50 EUR)
                    (held.price_shown(grouped=False) or "") if held else "",
                ),
                (
                    "estimate-reason",
                    "Reason",
                    "what the estimate rests on",
                    held.reason if held else "",
                ),
            ):
                with Horizontal(classes="estimate-row"):
                    yield Label(label, classes="estimate-label", markup=False)
                    box = TypingInput(value, placeholder=hint, id=ident)
                    box.cursor_blink = self._cursor_blink
                    yield box
            yield Label("", id="estimate-error", markup=False)
            with Horizontal(id="estimate-buttons"):
                yield Button("Cancel", id="estimate-cancel", variant="default")
                yield Button("Save estimate", id="estimate-save", variant="primary")
            yield Static(
                Text(
                    "Audited, in the case's history; the change request uses it · "
                    "Tab: next field · Enter in the reason or Save: store it · Esc: cancel",
                    style="dim",
                ),
                id="estimate-hint",
                markup=False,
            )
        yield Footer()

    def on_mount(self) -> None:
        """Focus on the days, the cursor at the end of what they say."""
        box = part(self, "#estimate-days", Input)
        if box is not None:
            self.set_focus(box)
            box.action_end()

    def action_cancel(self) -> None:
        """Close the form; nothing is stored."""
        self.dismiss(None)

    @on(Button.Pressed, "#estimate-cancel")
    def _cancel(self) -> None:
        self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``next_field`` only from the days or the price: elsewhere Enter is the
        focused widget's (the reason saves, a button presses)."""
        if action == "next_field":
            focused = self.focused
            return focused is not None and focused.id in self.NEXT_FROM
        return True

    def action_next_field(self) -> None:
        """Enter in the days or the price: on to the next box, at once (a priority
        binding, as Tab), so keys typed after it in one burst land there."""
        self.focus_next()

    def _value(self, ident: str) -> str:
        box = part(self, f"#{ident}", Input)
        return box.value.strip() if box is not None else ""

    @on(Input.Submitted, "#estimate-reason")
    @on(Button.Pressed, "#estimate-save")
    def _save(self) -> None:
        days, price, reason = (
            self._value("estimate-days"),
            self._value("estimate-price") or None,
            self._value("estimate-reason"),
        )
        try:
            new = parse_estimate(days, reason, price)
        except EtkiError as exc:
            field = next(
                (f for f in ("days", "price", "currency", "reason") if f"'{f}'" in str(exc)),
                "days",
            )
            self._refuse(str(exc).removeprefix("estimate: "), field)
            return
        old = self.held
        if old is not None and (new.days, new.price, new.currency, new.reason) == (
            old.days,
            old.price,
            old.currency,
            old.reason,
        ):
            self._refuse(
                "Unchanged: this is the estimate in force. Change a figure or the reason, or Esc.",
                "days",
            )
            return
        self.dismiss(EstimateInput(days, price, reason))

    def _refuse(self, problem: str, field: str) -> None:
        """Say ``problem`` on the form and put the focus on ``field`` (``days``,
        ``price``, ``currency`` or ``reason``); the form stays open."""
        error = part(self, "#estimate-error", Label)
        if error is not None:
            error.update(printable(problem, multiline=False))
        box = part(self, f"#estimate-{'price' if field == 'currency' else field}", Input)
        if box is not None:
            self.set_focus(box)
