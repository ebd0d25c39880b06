"""Issue 34 item 3 follow-up (helper desk34lag): ``l`` opens the whole contract at the
clause, never showing its top first (a trial saw the top for 0.5-0.8 s, then a jump),
and a key the contract screen does not own reaches the app (the tabs, quit).

The real tdrs engagement loaded with ``init_project`` into SQLite; Textual's pilot,
every wait for a state."""

from __future__ import annotations

import pytest
from textual.containers import VerticalScroll

from etki.services import Desk
from etki_tui.app import EtkiApp
from etki_tui.queue.bars import CaseDetail
from etki_tui.queue.evidence import evidence_of
from etki_tui.screens.contract import ContractScreen
from etki_tui.screens.links import LinksScreen
from tests.test_tui_evidence import TDRS, tdrs_desk  # noqa: F401 (the fixture)
from tests.test_tui_hafiza_toc import screen_lines
from tests.test_tui_keys import desk_app
from tests.test_tui_pilot import current, press, settle, sync, until

pytestmark = pytest.mark.skipif(
    TDRS is None or not TDRS.is_dir(), reason="../shared/realdata/tdrs is absent"
)


def clause_at_top(screen: ContractScreen, ref: str) -> bool:
    """Clause ``ref``'s block starts on the contract's first visible row (or the
    contract is scrolled to its end with the block in view), and its number is on
    that row of the screen as drawn."""
    index = next(i for i, c in enumerate(screen.clauses) if c.ref == ref)
    scroll = screen.query_one("#contract-scroll", VerticalScroll)
    block = screen.query_one(f"#clause-{index}")
    top, y = block.virtual_region.y, scroll.scroll_y
    return abs(y - top) <= 1 or (y >= scroll.max_scroll_y - 1 and top >= y)


async def open_from_reader(pilot, app: EtkiApp, desk: Desk) -> tuple[str, list[str]]:  # noqa: ANN001
    """The case reader of the first case, ``l``, the deciding clause chosen; waits for
    the landing and returns the clause's ref and what was seen meanwhile: ``top`` each
    time the contract was uncovered with the clause not at its top."""
    case = desk.repo.case(current(app) or "")
    want = evidence_of(case.decision).refs()[0]
    await press(pilot, "enter")
    detail = app.query_one(CaseDetail)
    await until(pilot, lambda: app.screen.maximized is detail, "the case reader")
    await press(pilot, "l")
    await until(pilot, lambda: isinstance(app.screen, LinksScreen), "the clause list")
    seen: list[str] = []

    def landed() -> bool:
        screen = app.screen
        if not isinstance(screen, ContractScreen):
            return False
        scroll = screen.query_one("#contract-scroll")
        if scroll.styles.opacity > 0 and not clause_at_top(screen, want):
            seen.append("top")
        return screen.landed == want

    await pilot.press("enter")
    await until(pilot, landed, "the landing on the clause")
    return want, seen


@sync
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_l_shows_the_clause_first(tdrs_desk: Desk, size: tuple[int, int]) -> None:  # noqa: F811
    """From the case reader, ``l`` opens the contract unseen ("Opening the contract at
    …") until the clause stands at the top: it is never drawn elsewhere, and once
    uncovered the clause's number is on the first row of the contract."""
    app = desk_app(tdrs_desk, "tdrs")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        want, seen = await open_from_reader(pilot, app, tdrs_desk)
        assert seen == []
        screen = app.screen
        assert isinstance(screen, ContractScreen)
        assert screen.query_one("#contract-scroll").styles.opacity == 1
        await settle(pilot)
        scroll = screen.query_one("#contract-scroll", VerticalScroll)
        row = screen_lines(app)[scroll.content_region.y]
        number = next(c.number for c in screen.clauses if c.ref == want)
        assert number in row, row
