"""The one confirmation before ruling several marked cases as the engine said (issue 14
item 8). It lists every case it will rule (the count, each id, its verdict and title);
each becomes a ruling of its own (its own expected version and audit row), and none
overrides the engine: an override needs a reason per case and is ruled one at a time.
Cases citing a clause disputed now (and not resolved) carry the red ``! DISPUTED`` mark
and the clause numbers, and a line above the list says how many: the clause memory is
shown where the reviewer confirms, as in the single ruling's dialog (a fresh-user trial
bulk-ruled two such cases without a word of it). Focus starts on Cancel; ``y`` or the
ruling button rules them all; Escape closes the dialog and nothing is recorded.

Only cases the engine is sure of are offered (:func:`split_sure`): a marked case it is
not sure of is never ruled in bulk, and the dialog says how many were left for a
careful look (they stay marked)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from etki.domain import CaseRecord, CaseSummary, is_sure
from etki.text import printable
from etki_tui.actions import bindings
from etki_tui.glyphs import UNSURE_MARK
from etki_tui.live import part
from etki_tui.render import DISPUTED, DISPUTED_STYLE, short_ref, verdict_text

C = TypeVar("C", bound=CaseRecord | CaseSummary)


def split_sure(cases: Sequence[C]) -> tuple[list[C], list[C]]:
    """``cases`` as (the ones the engine is sure of, the others), each in the given
    order: B rules the first and leaves the second for a careful look."""
    sure = [c for c in cases if is_sure(c.decision)]
    return sure, [c for c in cases if not is_sure(c.decision)]


class BulkConfirm(ModalScreen[bool]):
    """Ask to rule ``cases`` (pending, in queue order) each as its engine verdict.
    ``disputed``: case id -> the refs it cites that are disputed now (cases not in it
    cite none). ``unsure``: how many marked cases were left out because the engine is
    not sure of them (said in the dialog). Dismisses with True on the ruling button or
    ``y``, False on Cancel/Escape."""

    BINDINGS = bindings("bulk.cancel", "bulk.confirm", "help")

    def __init__(
        self,
        cases: Sequence[CaseRecord | CaseSummary],
        *,
        flash: bool = True,
        disputed: Mapping[str, Sequence[str]] | None = None,
        unsure: int = 0,
    ) -> None:
        super().__init__()
        self.cases = list(cases)
        self.unsure = unsure
        self._flash = flash
        self.disputed = {k: tuple(v) for k, v in (disputed or {}).items() if v}

    def compose(self) -> ComposeResult:
        """The question, one line per case, the buttons and the hint."""
        n = len(self.cases)
        with Vertical(id="bulk-dialog") as dialog:
            dialog.border_title = "Confirm rulings"
            yield Static(
                Text(f"Rule {n} marked case{'s' if n != 1 else ''} as the engine said?", "bold"),
                id="bulk-question",
                markup=False,
            )
            yield Static(
                Text(
                    "Each is its own ruling with its own audit row; none overrides the "
                    "engine (an override needs a reason: rule it alone).",
                    style="dim",
                ),
                id="bulk-explain",
                markup=False,
            )
            if self.unsure:
                left = Text(no_wrap=False, end="")
                left.append(f"{UNSURE_MARK} needs a careful look", style="bold reverse")
                left.append(
                    f" {self.unsure} other marked case{'s' if self.unsure != 1 else ''}: the "
                    "engine is not sure, so B leaves "
                    f"{'them' if self.unsure != 1 else 'it'} marked for a careful look."
                )
                yield Static(left, id="bulk-unsure", markup=False)
            many = sum(1 for c in self.cases if c.case_id in self.disputed)
            if many:
                warning = Text(no_wrap=False, end="")
                warning.append(DISPUTED, style=DISPUTED_STYLE)
                warning.append(
                    f" {many} of them cite{'s' if many == 1 else ''} a clause whose rulings "
                    "disagree: look at those before ruling them as the engine said."
                )
                yield Static(warning, id="bulk-disputed", markup=False)
            with VerticalScroll(id="bulk-list"):
                for case in self.cases:
                    line = Text(no_wrap=True, overflow="ellipsis", end="")
                    line.append(printable(case.case_id, multiline=False), style="bold")
                    line.append("  ")
                    line.append_text(verdict_text(case.decision.verdict, short=True))
                    line.append("  ")
                    refs = self.disputed.get(case.case_id)
                    if refs:
                        line.append(DISPUTED, style=DISPUTED_STYLE)
                        shown = ",".join(printable(short_ref(r), multiline=False) for r in refs)
                        line.append(f" {shown}  ")
                    line.append(printable(case.title, multiline=False))
                    yield Static(line, classes="bulk-case", markup=False)
            with Horizontal(id="bulk-buttons"):
                cancel = Button("Cancel", id="bulk-cancel", variant="default")
                ok = Button(f"Rule all {n}", id="bulk-ok", variant="success")
                if not self._flash:  # steady screenshots: no press flash
                    cancel.active_effect_duration = ok.active_effect_duration = 0
                yield cancel
                yield ok
            yield Static(
                Text(f"y: rule all {n} · Tab: buttons · Esc: cancel · F1: help", style="dim"),
                id="bulk-hint",
                markup=False,
            )
        yield Footer()

    def on_mount(self) -> None:
        """Cancel focused: several rulings are never made by a stray Enter."""
        cancel = part(self, "#bulk-cancel", Button)
        if cancel is not None:
            cancel.focus()

    def action_cancel(self) -> None:
        """Close; nothing is recorded."""
        self.dismiss(False)

    def action_confirm(self) -> None:
        """Rule them all."""
        self.dismiss(True)

    @on(Button.Pressed, "#bulk-cancel")
    def _cancel(self) -> None:
        self.dismiss(False)

    @on(Button.Pressed, "#bulk-ok")
    def _ok(self) -> None:
        self.dismiss(True)
