"""Issue 34 items 2 and 3 on the real engagements (talentmap, tdrs loaded with
``init_project`` into SQLite): the detail quotes the deciding sentence and the weighed
exclusions first, marks them in the clause and folds a long clause (``w`` shows it
whole); ``l`` opens a cited clause in the whole contract, scrolled to it. Pilot tests
wait for states, never for time; nothing of ours is mocked."""

from __future__ import annotations

import pytest
from rich.console import Console
from textual.containers import VerticalScroll

from etki.domain import ScopeClause
from etki.services import Desk
from etki_tui.app import EtkiApp
from etki_tui.queue.bars import CaseDetail
from etki_tui.queue.evidence import (
    DECIDING_STYLE,
    MarkedClause,
    evidence_of,
)
from etki_tui.screens.contract import ContractScreen
from etki_tui.screens.links import LinksScreen
from tests.test_tui_keys import REALDATA, _engagement_desk, desk_app
from tests.test_tui_pilot import current, goto, press, settle, shown, sync, until

TALENTMAP = REALDATA / "talentmap" if REALDATA is not None else None
TDRS = REALDATA / "tdrs" if REALDATA is not None else None
WEIGHED_CASE = "req-talentmap-cb63d08d"
"""Exports position data to Excel: decided on PWS section 11, whose own exclusion
(“No other hardware, software or property will be provided by the Government.”) the
engine weighed; section 4 (huge) holds the closest exclusion."""


@pytest.fixture(scope="module")
def talentmap_desk(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    desk = _engagement_desk(TALENTMAP, tmp_path_factory.mktemp("talentmap"))
    yield desk
    desk.repo.dispose()


@pytest.fixture(scope="module")
def tdrs_desk(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    desk = _engagement_desk(TDRS, tmp_path_factory.mktemp("tdrs"))
    yield desk
    desk.repo.dispose()


def body(app: EtkiApp) -> list[str]:
    detail = app.query_one(CaseDetail)
    inner = detail.query_one("#detail-body")
    return [line.rstrip() for line in shown(inner, height=inner.virtual_size.height).split("\n")]


def test_the_weighed_exclusion_is_quoted_first_and_the_clause_folded(talentmap_desk: Desk) -> None:
    """Rendered at 80 columns: the Evidence section (deciding clause 11, the weighed
    exclusion of 11 and the closest one of 4, quoted) comes before the clause memory;
    section 4 (hundreds of lines whole) is folded to its marked part."""
    from etki_tui.queue.detail import case_detail

    case = talentmap_desk.repo.case(WEIGHED_CASE)
    clauses = talentmap_desk.clauses("talentmap")
    console = Console(width=80, color_system=None, record=True)

    def lines(whole: bool) -> list[str]:
        console.print(case_detail(case, clauses, {}, whole_clauses=whole))
        return [line.rstrip() for line in console.export_text().split("\n")]

    folded = lines(False)
    evidence = folded.index(next(x for x in folded if x.startswith("Evidence")))
    assert evidence < folded.index("Clause memory")
    section = "\n".join(folded[evidence : folded.index("Clause memory")])
    assert "Deciding    11 TERMS AND CONDITIONS (obligation)" in section
    assert "Weighed     11 TERMS AND CONDITIONS · an exclusion of the clause it rests on" in section
    assert "“No other hardware, software or property will be provided by the" in section
    assert "Exclusion   4 TASKS · closest" in section
    assert any(x.strip().startswith("… ") and "line(s) above" in x for x in folded)
    whole = lines(True)
    assert not any("line(s) above" in x or "line(s) below" in x for x in whole)
    assert len(whole) > len(folded) + 100  # section 4 and 11 whole


def test_marks_are_found_across_markdown_wrapping_and_turkish_letters() -> None:
    """A quoted sentence is marked where the markdown rendering put it (emphasis,
    escapes, wrapping and İ/ı/ş/ß letters differ in form, not in letters); a clipped
    quote is marked to its sentence's end; a long clause is folded around the mark."""
    text = "\n\n".join(
        [f"Paragraph {i} about **nothing** in particular, filling lines." for i in range(30)]
        + [
            (
                "Sistem *İstanbul* şubeleri için ıslak imza ve Größe alanlarını destekler. "
                "Sonraki cümle burada."
            )
        ]
        + [f"Tail {i} paragraph." for i in range(30)]
    )
    view = MarkedClause(
        text,
        [("Sistem İstanbul şubeleri için ıslak imza ve Größe", True, DECIDING_STYLE)],
        whole=False,
    )
    console = Console(width=40, color_system="standard", record=True)
    console.print(view)
    plain = console.export_text(styles=False, clear=False)
    assert "line(s) above" in plain and "line(s) below" in plain
    assert "Paragraph 0 " not in plain and "Tail 29" not in plain
    assert "İstanbul" in plain
    styled = console.export_text(styles=True)
    assert "\x1b[7m" in styled  # reverse video: marked
    # the mark ends with its sentence ("destekler."), not in the next one
    lines = [x for x in plain.split("\n") if x.strip()]
    assert any("destekler." in x for x in lines)


@sync
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_w_folds_and_unfolds_the_cited_clauses(
    talentmap_desk: Desk, size: tuple[int, int]
) -> None:
    app = desk_app(talentmap_desk, "talentmap")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await goto(pilot, WEIGHED_CASE)
        await until(pilot, lambda: any("Evidence" in x for x in body(app)), "the evidence")
        folded = body(app)
        assert any("line(s) above" in x for x in folded)
        evidence = next(i for i, x in enumerate(folded) if x.startswith("Evidence"))
        assert evidence < folded.index("Clause memory") < folded.index("Request")
        await press(pilot, "w")
        await until(pilot, lambda: not any("line(s) above" in x for x in body(app)), "whole")
        await press(pilot, "w")
        await until(pilot, lambda: any("line(s) above" in x for x in body(app)), "folded again")


async def _open_clause(pilot, app: EtkiApp, choice: int) -> ContractScreen:  # noqa: ANN001
    await press(pilot, "l")
    await until(pilot, lambda: isinstance(app.screen, LinksScreen), "the clause list")
    for _ in range(choice):
        await press(pilot, "down")
    await press(pilot, "enter")
    await until(pilot, lambda: isinstance(app.screen, ContractScreen), "the contract")
    screen = app.screen
    assert isinstance(screen, ContractScreen)
    await until(pilot, lambda: screen.landed is not None, "the scroll to the clause")
    return screen


def _on_screen(screen: ContractScreen, ref: str) -> bool:
    """Clause ``ref``'s block starts in the visible part of the contract (at its top,
    unless the contract ends first)."""
    index = next(i for i, c in enumerate(screen.clauses) if c.ref == ref)
    scroll = screen.query_one("#contract-scroll", VerticalScroll)
    block = screen.query_one(f"#clause-{index}")
    top = block.virtual_region.y
    y = scroll.scroll_y
    return block.has_class("-target") and (
        abs(y - top) <= 1 or (y >= scroll.max_scroll_y - 1 and top >= y)
    )


@sync
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_l_opens_the_whole_contract_at_the_clause(
    talentmap_desk: Desk, size: tuple[int, int]
) -> None:
    """Every clause of the PWS in order (not only the cited ones), scrolled to the
    chosen clause; Esc goes back to the queue; l in the contract jumps to another."""
    app = desk_app(talentmap_desk, "talentmap")
    stored = list(talentmap_desk.clauses("talentmap").values())
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await goto(pilot, WEIGHED_CASE)
        case = talentmap_desk.repo.case(WEIGHED_CASE)
        refs = evidence_of(case.decision).refs()
        assert refs[0] == "talentmap-pws#11"
        screen = await _open_clause(pilot, app, 1)  # the second: section 4
        assert screen.landed == refs[1] == "talentmap-pws#4"
        mine = [c.ref for c in stored if c.contract_id == "talentmap-pws"]
        assert [c.ref for c in screen.clauses] == mine and len(mine) > 3
        await until(pilot, lambda: _on_screen(screen, "talentmap-pws#4"), "section 4 on screen")
        await press(pilot, "l")
        await until(pilot, lambda: isinstance(app.screen, LinksScreen), "the clause list")
        await press(pilot, "end")
        await press(pilot, "enter")
        await until(pilot, lambda: screen.landed == mine[-1], "the last clause")
        await until(pilot, lambda: _on_screen(screen, mine[-1]), "the last clause on screen")
        await press(pilot, "escape")
        await until(pilot, lambda: not isinstance(app.screen, ContractScreen), "back")


@sync
async def test_l_on_tdrs_lands_on_a_nested_clause(tdrs_desk: Desk) -> None:
    """tdrs's RFQ has nested clauses (3.1.2); the contract opens at the deciding one."""
    app = desk_app(tdrs_desk, "tdrs")
    clauses: dict[str, ScopeClause] = tdrs_desk.clauses("tdrs")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        case = tdrs_desk.repo.case(current(app) or "")
        want = evidence_of(case.decision).refs()[0]
        screen = await _open_clause(pilot, app, 0)
        assert screen.landed == want
        assert all(c.contract_id == clauses[want].contract_id for c in screen.clauses)
        await until(pilot, lambda: _on_screen(screen, want), "the clause on screen")


def test_contract_page_is_not_needed_for_uncited_clauses(talentmap_desk: Desk) -> None:
    """The contract screen reads the store's clauses: one the cases never cite is there."""
    from etki_tui.screens.contract import contract_clauses

    clauses = talentmap_desk.clauses("talentmap")
    cited = {r for c in talentmap_desk.repo.cases("talentmap") for r in c.decision.cited_clauses}
    every = contract_clauses(clauses, "talentmap-pws")
    assert {c.ref for c in every} - cited  # some clause no case cites is readable
