"""Whether the engine is sure, on the desk (issue 29 item 3), driven with Pilot on a real
SQLite file: the ``?`` after the confidence of a case that needs a careful look (also
with NO_COLOR), the Sureness line of the detail (the doubts quote client text: shown
literally), the Sureness filter of the panel and the sort by sureness (``o``). B's
part is in tests/test_tui_bulk.py.

The fixture (tests/conftest.py PENDING): the engine is sure of R1, R2 and R6 and not of
R3, R4 (whose doubt quotes ``[bold]ACİL[/bold]``) and R5."""

from __future__ import annotations

import pytest

from etki_tui.messages import FilterChanged
from etki_tui.queue.filter_screen import ChoiceRow, FilterPanel
from etki_tui.queue.filters import QueueFilter
from etki_tui.queue.pane import QueueTable
from tests.conftest import UNSURE_DOUBT, TuiWorld
from tests.test_tui_pilot import Recorder, goto, make_app, press, queue_ids, settle, shown, sync

SURE = ["req-demo-0a1f3c21", "req-demo-1b7e9d02", "req-demo-5f7d2b46"]
UNSURE = ["req-demo-2c4a8e13", "req-demo-3d5b0f24", "req-demo-4e6c1a35"]
QUEUE_ORDER = [SURE[0], SURE[1], UNSURE[0], UNSURE[1], UNSURE[2], SURE[2]]


def _detail(app) -> str:  # noqa: ANN001
    return " ".join(shown(app.query_one("#detail-body"), 100, 30).split())


@sync
async def test_rows_mark_the_cases_that_need_a_careful_look(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.query_one(QueueTable)
        marks = {k: table.get_cell(k, "conf").plain for k in QUEUE_ORDER}
        assert marks == {
            SURE[0]: "0.86  ",
            SURE[1]: "0.91  ",
            UNSURE[0]: "0.64 ?",
            UNSURE[1]: "0.58 ?",
            UNSURE[2]: "0.71 ?",
            SURE[2]: "0.77  ",
        }
        # the table as drawn: no horizontal scrollbar for the wider column at 80 columns
        assert not table.show_horizontal_scrollbar


@sync
async def test_the_mark_reads_without_colour(
    tui_world: TuiWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        lines = shown(app.query_one(QueueTable)).splitlines()
        row = next(line for line in lines if "Also accept water" in line or "2c4a8e13" in line)
        assert "0.64 ?" in row
        sure_row = next(line for line in lines if "1b7e9d02" in line)
        assert "0.91" in sure_row and "?" not in sure_row


@sync
async def test_the_detail_says_sure_or_needs_a_careful_look(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await goto(pilot, SURE[1])
        detail = _detail(app)
        assert (
            "Sureness sure: a contract sentence takes what it asks for out of the "
            "contractor's remit" in detail
        )
        await goto(pilot, UNSURE[0])
        assert "Sureness needs a careful look: it asks for something new and no clause" in (
            _detail(app)
        )
        await goto(pilot, UNSURE[1])  # the doubt quotes client markup: shown literally
        assert f"needs a careful look: {UNSURE_DOUBT[:40]}" in _detail(app)


@sync
async def test_the_filter_panel_keeps_sure_or_unsure_cases(tui_world: TuiWorld) -> None:
    seen = Recorder()
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        await press(pilot, "f")
        assert isinstance(app.screen, FilterPanel)
        await press(pilot, *["down"] * 5)  # verdict, risk, disputed, confidence, age
        row = app.focused
        assert isinstance(row, ChoiceRow) and row.field == "sureness"
        await press(pilot, "right")  # engine sure
        assert seen.of(FilterChanged)[-1].filter == QueueFilter(sureness="sure")
        assert queue_ids(app) == [SURE[0], SURE[1], SURE[2]]
        await press(pilot, "right")  # needs a careful look
        assert seen.of(FilterChanged)[-1].filter == QueueFilter(sureness="unsure")
        assert queue_ids(app) == UNSURE
        assert "[needs a careful look]" in shown(row, 76, 1)
        await press(pilot, "enter")
        await settle(pilot)
        summary = shown(app.query_one("#filter-summary"), 78, 1)
        assert "3 of 6" in summary and "needs a careful look" in summary
        await press(pilot, "escape")  # clears it
        assert queue_ids(app) == QUEUE_ORDER


@sync
async def test_sort_puts_unsure_or_sure_cases_first(tui_world: TuiWorld) -> None:
    seen = Recorder()
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        await press(pilot, *["o"] * 5)  # oldest, newest, confidence, risk, unsure first
        assert seen.of(FilterChanged)[-1].filter.sort == "unsure"
        assert queue_ids(app) == UNSURE + SURE  # queue order within each group
        assert "unsure first" in shown(app.query_one("#filter-sort"), 20, 1)
        await press(pilot, "o")
        assert seen.of(FilterChanged)[-1].filter.sort == "sure"
        assert queue_ids(app) == SURE + UNSURE
        await press(pilot, "o")  # wraps to the queue order
        assert queue_ids(app) == QUEUE_ORDER


@sync
async def test_the_sort_row_shows_its_choice_at_80_columns(tui_world: TuiWorld) -> None:
    """Seven sort orders are wider than the panel at 80 columns: the first ones give
    way to ``…`` so the chosen one is always in view."""
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, *["o"] * 6, "f")  # sort: sure first (the last choice)
        await press(pilot, *["down"] * 6)
        row = app.focused
        assert isinstance(row, ChoiceRow) and row.field == "sort"
        text = shown(row)
        assert "[sure first]" in text and "… " in text and "queue order" not in text
        await press(pilot, "right")  # wraps to queue order: the head shows again
        text = shown(row)
        assert "[queue order]" in text and "…" not in text.split("]")[0]
        assert text.rstrip().endswith("…")  # more choices to the right
