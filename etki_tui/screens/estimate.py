"""``E`` in the queue: a reviewer's effort estimate of the highlighted case (issue 35
item 2), the desk's form of ``etki estimate CASE --days N [--price ...] --reason``. Three
lines: the person-days, an optional price with its currency (``12500 EUR``) and the
reason; Save checks them as the command does (:func:`etki.domain.parse_estimate`: the
form names the field that is wrong and stays open) and closes with them, the app's
worker records them through the same desk service (audited, in the case's history);
Escape stores nothing."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Static

from etki.domain import parse_estimate
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


class EstimateForm(ModalScreen[EstimateInput | None]):
    """Ask for an estimate of ``case_id``; dismissed with an :class:`EstimateInput`, or
    None (cancelled). ``current``: the estimate in force in words (shown above the
    fields so the reviewer sees what they replace), empty when there is none."""

    BINDINGS = bindings("estimate.cancel")

    def __init__(self, case_id: str, current: str = "", *, cursor_blink: bool = True) -> None:
        super().__init__()
        self.case_id = case_id
        self.current = current
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
            yield Static(Text(now, style="dim"), id="estimate-current", markup=False)
            for ident, label, hint in (
                ("estimate-days", "Person-days", "e.g. 3 or 2.5"),
                ("estimate-price", "Price (optional)", "e.g. 12500 EUR or 86500 TRY"),
                ("estimate-reason", "Reason", "what the estimate rests on"),
            ):
                with Horizontal(classes="estimate-row"):
                    yield Label(label, classes="estimate-label", markup=False)
                    box = TypingInput(placeholder=hint, id=ident)
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
        """Focus on the days."""
        box = part(self, "#estimate-days", Input)
        if box is not None:
            self.set_focus(box)

    def action_cancel(self) -> None:
        """Close the form; nothing is stored."""
        self.dismiss(None)

    @on(Button.Pressed, "#estimate-cancel")
    def _cancel(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted, "#estimate-days")
    @on(Input.Submitted, "#estimate-price")
    def _next(self, event: Input.Submitted) -> None:
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
            parse_estimate(days, reason, price)
        except EtkiError as exc:
            error = part(self, "#estimate-error", Label)
            if error is not None:
                error.update(printable(str(exc).removeprefix("estimate: "), multiline=False))
            field = next(
                (f for f in ("days", "price", "currency", "reason") if f"'{f}'" in str(exc)),
                "days",
            )
            box = part(self, f"#estimate-{'price' if field == 'currency' else field}", Input)
            if box is not None:
                self.set_focus(box)
            return
        self.dismiss(EstimateInput(days, price, reason))
