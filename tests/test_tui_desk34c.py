"""What was left of issue 34 (and issue 35 item 3), by pilot: queue titles get the width
(the clause numbers and the risk level are left out of a narrow list, the verdict, the
sureness mark, the claim mark and the PMO look stay); an overdue 24h PMO look is marked
in its row and ``look:overdue`` in the find box shows only those."""

from __future__ import annotations

from rich.cells import cell_len

from etki_tui.queue.columns import OPTIONAL, ROOMY_TITLE, fit_columns
from etki_tui.queue.filters import QueueFilter
from etki_tui.queue.pane import QueuePane, QueueTable
from tests.conftest import TuiWorld
from tests.test_tui_pilot import fill, make_app, press, queue_ids, settle, shown, sync

FIRST = "req-demo-0a1f3c21"
"""High risk, 24h look asked, submitted 9 days before the tests' clock: overdue."""
TOKYO = "req-demo-4e6c1a35"
"""Its look is asked through a disputed clause, and it arrived within the 24 hours."""


def drawn(table: QueueTable) -> list[str]:
    """The keys of the columns the table draws, left to right."""
    return [c.key for c in table.ordered_columns if not c.hidden]


# --- item 1: titles get the width -------------------------------------------------------


def test_optional_columns_go_first_where_the_title_would_be_short() -> None:
    """Full width keeps every column; 80 columns and the list beside the detail at 120
    leave out the clause numbers, then the risk level, never more."""
    wide = fit_columns(198, padding=2, full_id=17, short_id=8, extra=0)
    assert wide.hidden == frozenset() and wide.title >= ROOMY_TITLE and not wide.short_ids
    narrow = fit_columns(78, padding=2, full_id=17, short_id=8, extra=0)
    assert narrow.hidden == frozenset(OPTIONAL) and narrow.short_ids and narrow.title >= 36
    middle = fit_columns(95, padding=2, full_id=17, short_id=8, extra=0)
    assert middle.hidden == frozenset({"clauses"}) and middle.title >= ROOMY_TITLE
    # a claim mark takes its room from the title, not from another column
    claimed = fit_columns(78, padding=2, full_id=17, short_id=8, extra=4)
    assert claimed.hidden == narrow.hidden and claimed.title == narrow.title - 4


@sync
async def test_titles_get_the_width_at_80x24_and_beside_the_detail_at_120x40(
    tui_world: TuiWorld,
) -> None:
    for size, least in (((80, 24), 40), ((120, 40), 36)):
        app = make_app(tui_world)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            table = app.query_one(QueueTable)
            assert drawn(table) == ["case", "title", "verdict", "conf", "look"], size
            title = next(c for c in table.ordered_columns if c.key == "title")
            assert title.content_width >= least, (size, title.content_width)
            # nothing scrolls sideways, and the whole of a 33-character title shows
            assert table.virtual_size.width <= table.scrollable_content_region.width
            rows = shown(table).split("\n")
            assert any("Build native iOS and Android apps" in r for r in rows), rows
            # the verdict, the sureness mark and the look stay in the row
            row = next(r for r in rows if "2c4a8e13" in r)
            assert "+ CR" in row and "0.64 ?" in row


@sync
async def test_the_whole_row_comes_back_when_the_list_is_wide(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table, pane = app.query_one(QueueTable), app.query_one(QueuePane)
        await press(pilot, "z")  # the detail folded: the list has the whole width
        await pilot.wait_for_scheduled_animations()
        await settle(pilot)
        assert pane.has_class("-list")
        assert drawn(table) == [
            "case",
            "title",
            "verdict",
            "conf",
            "clauses",
            "risk",
            "look",
        ]
        row = next(r for r in shown(table).split("\n") if "2c4a8e13" in r)
        assert "4.1,4.3+1" in row and "low" in row and "CHANGE_REQUEST" in row
        assert cell_len(row.rstrip()) <= table.size.width


# --- item 4: an overdue look is marked, and found ---------------------------------------


@sync
async def test_an_overdue_look_is_marked_in_its_row(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.query_one(QueueTable)
        assert table.get_cell(FIRST, "look").plain == "!24h"  # waited 9 days
        assert table.get_cell(TOKYO, "look").plain == "24h"  # asked, not due yet
        assert table.get_cell("req-demo-1b7e9d02", "look").plain == ""
        rows = shown(table).split("\n")
        assert "!24h" in next(r for r in rows if FIRST[-8:] in r)


@sync
async def test_look_overdue_in_the_find_box_shows_only_the_overdue_looks(
    tui_world: TuiWorld,
) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "slash")
        await fill(pilot, "#queue-find", "look:overdue")
        await settle(pilot)
        assert queue_ids(app) == [FIRST]
        await fill(pilot, "#queue-find", "look:24h")  # every look asked
        await settle(pilot)
        assert queue_ids(app) == [FIRST, TOKYO]
        await fill(pilot, "#queue-find", "LOOK:late sso")  # other words still search
        await settle(pilot)
        assert queue_ids(app) == [FIRST]
        await press(pilot, "enter")
        assert "look:late" in shown(app.query_one("#filter-summary"), 76, 1).lower()
        # the filter panel's risk choice keeps the same cases
        pane = app.query_one(QueuePane)
        pane.set_filter(QueueFilter(risk="overdue"))
        await settle(pilot)
        assert queue_ids(app) == [FIRST]
