"""The clause-memory strip reads at a glance (issue 34 item 4): it lists the rulings of
each cited clause (who, what, which case), says why each counts where it does (a
precedent whose reason names 4.1 counts toward 4.1, not toward the 4.3 its case also
cites), and keeps the PMO's standing resolution after the rulings agree again.

Driven with Textual's Pilot at 80x24 and 120x40 on a real SQLite file and a real wiki
folder (tests/conftest.py); every step waits for the app to settle, never for time.
"""

from __future__ import annotations

import pytest

from etki.domain import Request
from etki.services import approval_service
from tests.conftest import TuiWorld, tui_decision
from tests.test_tui_disputed import all_detail_lines
from tests.test_tui_pilot import goto, make_app, settle, sync

RECEIPT = "req-demo-5f7d2b46"  # pending, cites MSA-2024-01#4.3 only
ABOUT_41 = "req-demo-s41000001"  # cites 4.1 and 4.3; its reason names 4.1
ABOUT_43 = "req-demo-s43000002"  # cites 4.3; its reason names 4.3
REF = "MSA-2024-01#4.3"


def rule_around_43(world: TuiWorld) -> None:
    """Two ruled cases citing 4.3, ruled at another desk (the real ApprovalService): an
    override whose reason names 4.1 (a precedent of 4.1 only) and an approval whose
    reason names 4.3 (jurgen's)."""
    world.repo.add_cases(
        "demo",
        [
            (
                Request("s41", "Export the receipts to the ledger.", "Ledger export"),
                tui_decision(ABOUT_41, "IN_SCOPE", ("MSA-2024-01#4.1", REF), confidence=0.7),
            ),
            (
                Request("s43", "Print receipts in Turkish.", "Turkish receipts"),
                tui_decision(ABOUT_43, "IN_SCOPE", (REF,), confidence=0.8),
            ),
        ],
    )
    approvals = approval_service(world.repo, world.settings)
    approvals.rule(ABOUT_41, "convert_to_cr", reviewer="ayse", reason="clause 4.1 lists no ledger")
    approvals.rule(ABOUT_43, "approve", reviewer="jurgen", reason="4.3 covers receipts")


@sync
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_strip_lists_its_rulings_and_why_each_counts(
    tui_world: TuiWorld, size: tuple[int, int]
) -> None:
    rule_around_43(tui_world)
    app = make_app(tui_world)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await goto(pilot, RECEIPT)
        await settle(pilot)
        text = " ".join(" ".join(all_detail_lines(app)).split())
        assert f"{REF} · 0 precedents · 2 ruled" in text, text
        # who, what, which case; newest first, the ruling about the clause first
        about = f"ruled: {ABOUT_43} ✓ IN_SCOPE · jurgen"
        other = f"ruled: {ABOUT_41} + CHANGE_REQUEST · ayse"
        assert about in text and other in text, text
        assert text.index(about) < text.index(other)
        assert "counts here: the reason names it" in text
        # the precedent counts toward the clause its reason names, and the strip says so
        assert "precedent of 4.1 (the reason names 4.1); only cites 4.3" in text
