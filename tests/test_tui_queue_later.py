"""A big fill leaves its rows' cells to the table (issue 15: the first queue at 10k):
QueueTable.add_rows_later makes a row's cells when it is drawn or read, and the queue
pane hands a fill of more than LATER_ROWS rows over that way. The rows shown, read and
changed are the same as a fill that makes every cell at once. Real widgets in a real
app; the pane test runs the real desk on the ``tui_world`` SQLite store and wiki."""

from __future__ import annotations

from dataclasses import replace

import pytest
from rich.text import Text
from textual.app import App, ComposeResult

from etki_tui.queue.bars import MARK, CaseDetail
from etki_tui.queue.pane import QueuePane
from etki_tui.queue.rows import LATER_ROWS
from etki_tui.queue.table import QueueTable
from etki_tui.render import short_case_id
from tests.conftest import TuiWorld
from tests.test_tui_pilot import make_app, press, settle, shown, sync, until
from tests.test_tui_races import queue_loaded


class OneTable(App[None]):
    CSS = "QueueTable { height: 10; }"  # a header and nine rows

    def compose(self) -> ComposeResult:
        yield QueueTable()


@sync
async def test_rows_added_later_make_their_cells_only_when_drawn_or_read() -> None:
    app = OneTable()
    asked: list[str] = []
    label = {"k0": "zero"}

    def cells(key: str) -> list[Text]:
        asked.append(key)
        return [Text(key), Text(label.get(key, f"title of {key}"))]

    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(QueueTable)
        table.add_column("Case", key="case")
        table.add_column("Title", key="title")
        with pytest.raises(RuntimeError):
            table.add_rows_later(["k0"], {})  # nothing could make the cells
        table.cell_source = cells
        keys = [f"k{i}" for i in range(5000)]
        table.add_rows_later(keys, {"case": 5, "title": 14})
        await until(pilot, lambda: "k8" in shown(table), "the first rows drawn")
        assert table.row_count == 5000
        assert set(asked) == {f"k{i}" for i in range(9)}  # the nine rows on screen
        assert table.rows_made == 9
        lines = shown(table).splitlines()
        assert lines[1].split() == ["k0", "zero"] and lines[9].split()[:3] == ["k8", "title", "of"]
        assert [c.content_width for c in table.ordered_columns] == [5, 14]
        # a row read is made then, once; the others stay unmade
        assert table.get_row("k4321")[1].plain == "title of k4321"
        assert table.get_cell("k4321", "case").plain == "k4321"
        assert asked.count("k4321") == 1 and table.rows_made == 10
        # a changed row is made again when drawn
        label["k0"] = "zero, now a much longer title"
        table.forget_cells(["k0", "not-a-row"])
        await until(pilot, lambda: "much longer" in shown(table), "the row made again")
        assert asked.count("k0") == 2
        # ... and its wider cell widened its column
        assert table.ordered_columns[1].content_width == len("zero, now a much longer title")
        with pytest.raises(ValueError, match="already exists"):
            table.add_rows_later(["k1"], {})
        table.move_cursor(row=4999)
        await until(pilot, lambda: "k4999" in shown(table), "the last rows drawn")
        assert table.rows_made < 30  # two screenfuls and the row read, of 5,000


def _many(cases, count: int):  # noqa: ANN001, ANN202
    """``count`` pending cases made from the fixture's own (new ids, same content)."""
    pending = [c for c in cases if c.ruling is None]
    return [
        replace(pending[i % len(pending)], case_id=f"{pending[i % len(pending)].case_id}-{i:05d}")
        for i in range(count)
    ]


@sync
async def test_a_big_fill_shows_the_same_rows_and_makes_a_screenful(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pane, table = app.query_one(QueuePane), app.query_one(QueueTable)
        loaded = queue_loaded(app, "load")
        many = _many(loaded.cases, LATER_ROWS + 500)
        pane.load(many, loaded.clauses, loaded.memory, rulings=loaded.rulings)
        await settle(pilot)
        assert table.row_count == len(many)
        assert table.rows_made < 3 * table.size.height  # not 1,500
        # every row reads as the cells the pane makes for it, wherever it is
        for case in (many[0], many[700], many[-1]):
            got = [c.plain for c in table.get_row(case.case_id)]
            assert got == [c.plain for c in pane._cells_for(case)]
        first = table.row_keys()[0]
        # full ids, or (beside the detail from 110 columns) the short ones
        assert first in shown(table) or short_case_id(first) in shown(table)
        # these copies are not in the store: the detail pane says so once, and no
        # details worker is started again on every redraw (settle above would not end)
        detail = app.query_one(CaseDetail)
        body = detail.query_one("#detail-body")
        said = " ".join(shown(body).split())  # beside the list: a narrower detail
        assert "Could not read this case: it is no longer in the store" in said
        # a row that changes is drawn changed: mark one far down the queue
        await press(pilot, "end")
        far = table.cursor_key
        assert far is not None
        await press(pilot, "space")
        await until(
            pilot,
            lambda: table.get_row(far)[0].plain.startswith(MARK),
            "the marked row drawn with its mark",
        )
        await press(pilot, "end")
        assert f"{MARK} " in shown(table)
