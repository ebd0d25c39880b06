"""Issue 34, a fresh reviewer's trial on tdrs and talentmap: the selected row in view
after the full-screen read, the banners that keep the list's 15 rows at 80x24, the
whole contract's header at 80 columns, what Hafıza's disputed card and the memory strip
say, and ``w`` keeping the reader's place in the detail."""

from __future__ import annotations

import pytest
from rich.console import Console
from textual.widgets import Static

from etki.domain import Request
from etki.services import Desk, approval_service
from etki_tui.hafiza.pane import MemoryPane
from etki_tui.hafiza.widgets import MemoryList
from etki_tui.queue.bars import CaseDetail
from etki_tui.queue.evidence import evidence_of, evidence_section
from etki_tui.queue.pane import QueuePane, QueueTable
from etki_tui.screens.contract import ContractScreen
from tests.conftest import TuiWorld, tui_decision
from tests.test_tui_disputed import all_detail_lines
from tests.test_tui_evidence import WEIGHED_CASE, _open_clause, body
from tests.test_tui_keys import REALDATA, _engagement_desk, desk_app
from tests.test_tui_pilot import (
    current,
    goto,
    make_app,
    press,
    queue_ids,
    settle,
    shown,
    sync,
    until,
)

TALENTMAP = REALDATA / "talentmap" if REALDATA is not None else None


@pytest.fixture(scope="module")
def talentmap_desk(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    """The real talentmap engagement, initialised into SQLite once for the module."""
    desk = _engagement_desk(TALENTMAP, tmp_path_factory.mktemp("talentmap"))
    yield desk
    desk.repo.dispose()


EXTRA = 24
"""Pending cases added to the fixture's six: more than twice the 15 rows of the list at 80x24."""


def _more_cases(world: TuiWorld) -> None:
    world.repo.add_cases(
        "demo",
        [
            (
                Request(f"X{i}", f"Extra request {i}.", f"Extra request {i}"),
                tui_decision(
                    f"req-demo-x{i:07d}", "IN_SCOPE", ("MSA-2024-01#4.1",), confidence=0.7
                ),
            )
            for i in range(EXTRA)
        ],
    )


def _row_visible(table: QueueTable) -> bool:
    """Whether the cursor's row is inside the table's rows on screen (under the header)."""
    top = int(table.scroll_y)
    rows = table.scrollable_content_region.height - 1
    return top <= table.cursor_row < top + rows


# --- trial item 1: the selected row in view after the read ------------------------------


@sync
async def test_leaving_the_read_scrolls_the_list_to_the_selected_row(tui_world: TuiWorld) -> None:
    _more_cases(tui_world)
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        ids = queue_ids(app)
        assert len(ids) > 16
        table, detail = app.query_one(QueueTable), app.query_one(CaseDetail)
        await press(pilot, "enter")
        await until(pilot, lambda: app.screen.maximized is detail, "the read")
        await press(pilot, *"jjjjjj", *"kkkkk")
        await until(pilot, lambda: current(app) == ids[1], "the second case")
        await press(pilot, "escape")
        await until(pilot, lambda: app.screen.maximized is None, "back to the list")
        await until(pilot, lambda: table.region.height >= 16, "the list's height")
        assert current(app) == ids[1] and _row_visible(table), (table.scroll_y, table.cursor_row)
        assert app.query_one(QueuePane).has_class("-list")
        # z: the detail unfolded (the list shorter), then folded again: still in view
        await press(pilot, *"jjjjjjjjjjjj")
        await press(pilot, "z")
        await until(pilot, lambda: table.region.height < 16, "the detail unfolded")
        await settle(pilot)
        assert _row_visible(table), (table.scroll_y, table.cursor_row)


# --- trial item 3: the whole contract's line at 80 columns ------------------------------


@sync
async def test_the_contract_line_fits_80_columns(talentmap_desk: Desk) -> None:
    app = desk_app(talentmap_desk, "talentmap")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await goto(pilot, WEIGHED_CASE)
        screen = await _open_clause(pilot, app, 1)  # section 4 (5 of 14)
        assert isinstance(screen, ContractScreen)
        line = shown(screen.query_one("#contract-bar")).rstrip()
        assert "…" not in line and line.endswith("of 14)"), line
        keys = screen.active_bindings  # the footer's keys
        assert keys["l"].binding.show and keys["escape"].binding.show
        await pilot.resize_terminal(120, 40)
        await until(
            pilot,
            lambda: "Esc back" in shown(screen.query_one("#contract-bar")),
            "the keys in the line where it has room",
        )


# --- trial item 4: Hafıza's card once the rulings agree again -----------------------------

REF_32 = "MSA-2024-01#3.2"


@sync
async def test_the_disputed_card_says_the_rulings_agree_after_a_resolution(
    tui_world: TuiWorld,
) -> None:
    """3.2 (ayse approved one case, jurgen rejected another) resolved IN_SCOPE by the
    PMO, then jurgen's ruling amended to agree: the card keeps the resolution and says
    the rulings agree, not that they disagree."""
    tui_world.desk.resolve_dispute("demo", REF_32, "in_scope", "3.2 covers the contractors.")
    tui_world.desk.rule("req-demo-9b0f4d68", "approve", reason="per the PMO", amend=True)
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "2")
        pane = app.query_one(MemoryPane)
        assert [d.ref for d in pane.disputed] == [REF_32]
        card = pane.query_one("#memory-card", Static)

        def said() -> str:
            return " ".join(shown(card, card.size.width, card.virtual_size.height or 30).split())

        entries = pane.query_one(MemoryList)
        ids = [entries.get_option_at_index(i).id for i in range(entries.option_count)]
        entries.highlighted = ids.index(
            f"dis:{REF_32}"
        )  # the precedent is gone: no ruling disagrees
        await until(pilot, lambda: REF_32 in said(), "the disputed card")
        text = said()
        assert "Rulings disagree" not in text, text
        assert "Rulings agree: IN_SCOPE · PMO resolution stands: IN_SCOPE" in text, text
        assert "PMO resolution" in text and "3.2 covers the contractors." in text


# --- trial item 5: the strip and the detail say the same of a deciding clause -------------

NO_QUOTE_CASE = "req-talentmap-8726578b"
"""Decided on PWS section 4 by its role alone: the ``classify`` step names 4 as the
deciding clause (``deciding sentence: talentmap-pws#4 (obligation, …)``), yet no step and
not the reasoning quotes a sentence of it."""


def _plain(renderables: list[object], width: int = 110) -> str:
    console = Console(width=width, record=True, color_system=None)
    for r in renderables:
        console.print(r)
    return " ".join(console.export_text().split())


@sync
async def test_the_strip_and_the_detail_agree_on_a_deciding_clause_without_a_quote(
    talentmap_desk: Desk,
) -> None:
    case = talentmap_desk.repo.case(NO_QUOTE_CASE)
    ev = evidence_of(case.decision)
    assert ev.deciding is not None and ev.deciding.ref == "talentmap-pws#4"
    assert not [q for q in ev.quotes if ev.is_deciding(q)]
    clauses = talentmap_desk.clauses("talentmap")
    said = _plain(evidence_section(case.decision, clauses))
    assert "the evidence decided on it but quotes no sentence of it" in said, said
    talentmap_desk.rule(NO_QUOTE_CASE, "approve")  # no reason: it counts by the evidence
    app = desk_app(talentmap_desk, "talentmap")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await goto(pilot, WEIGHED_CASE)  # cites section 4 too
        text = " ".join(" ".join(all_detail_lines(app)).split())
        assert f"ruled: {NO_QUOTE_CASE}" in text, text
        assert "deciding sentence in" not in text
        assert "counts here: the evidence decided on it" in text, text


# --- trial item 6: w keeps the reader's place ---------------------------------------------


@sync
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_w_keeps_the_reader_at_the_marked_part(
    talentmap_desk: Desk, size: tuple[int, int]
) -> None:
    """In the full-screen read of a case citing section 4 (folded to the part around its
    marked sentence), the reader scrolled to that part: w unfolds the clause and the
    same line stays at the top; w folds it again, and still."""
    app = desk_app(talentmap_desk, "talentmap")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await goto(pilot, WEIGHED_CASE)
        detail = app.query_one(CaseDetail)
        await press(pilot, "enter")
        await until(pilot, lambda: app.screen.maximized is detail, "the read")
        lines = body(app)
        fold = next(i for i, x in enumerate(lines) if "above · w shows" in x)
        anchor = lines[fold + 1]
        assert anchor.strip()
        detail.scroll_to(y=fold + 1, animate=False)
        await until(pilot, lambda: int(detail.scroll_y) == fold + 1, "scrolled to the fold")

        def at_top() -> str:
            return body(app)[int(detail.scroll_y)]

        assert at_top() == anchor
        await press(pilot, "w")
        await until(pilot, lambda: not any("above · w shows" in x for x in body(app)), "whole")
        await settle(pilot)
        assert int(detail.scroll_y) > fold + 1 and at_top() == anchor, (detail.scroll_y, at_top())
        await press(pilot, "w")
        await until(pilot, lambda: any("above · w shows" in x for x in body(app)), "folded")
        await settle(pilot)
        assert at_top() == anchor, (detail.scroll_y, at_top())


# --- trial item 2: the banners keep the list's 15 rows at 80x24 ---------------------------


@sync
async def test_the_ruled_elsewhere_banner_takes_the_peeks_place(tui_world: TuiWorld) -> None:
    _more_cases(tui_world)
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table, detail = app.query_one(QueueTable), app.query_one(CaseDetail)
        banner = app.query_one("#queue-banner", Static)
        assert table.region.height >= 16 and detail.region.height == 2
        first = current(app)
        approval_service(tui_world.repo, tui_world.settings).rule(
            first, "reject", reason="Out of remit.", reviewer="ayse"
        )
        app.poll_queue()
        await until(pilot, lambda: banner.display, "the banner")
        await settle(pilot)
        assert "ALREADY RULED by ayse" in " ".join(shown(banner).split())
        assert banner.region.height >= 2 and banner.region.bottom <= 24
        assert table.region.height >= 16, table.region  # the header and 15 rows
        assert not detail.display or detail.region.height == 0  # the peek gave way
        await press(pilot, "j")  # away from the ruled case: the banner goes, the peek is back
        await until(pilot, lambda: not banner.display, "no banner")
        await until(pilot, lambda: detail.region.height == 2, "the peek again")
        assert table.region.height >= 16
