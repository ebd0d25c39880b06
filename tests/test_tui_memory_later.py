"""Hafıza's lists are laid out a batch at a time (issue 12 item 2: no handler holds the
keys up): a rebuild adds the first FIRST_OPTIONS entries at once, with the highlighted
one, and the rest LATER_OPTIONS per refresh; a newer rebuild drops the older one's
batches. Real desk on the ``tui_world`` SQLite store and wiki."""

from __future__ import annotations

from dataclasses import replace

from textual.widgets import OptionList

from etki_tui.widgets.memory import FIRST_OPTIONS, MemoryPane
from tests.conftest import TuiWorld
from tests.test_tui_pilot import make_app, press, settle, sync, until
from tests.test_tui_races import memory_loaded


@sync
async def test_long_memory_lists_arrive_in_batches_and_end_complete(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "2")  # Hafıza
        await settle(pilot)
        pane = app.query_one(MemoryPane)
        entries = pane.query_one("#memory-list", OptionList)
        loaded = memory_loaded(tui_world)
        assert loaded.precedents, "the fixture has an override"
        base = loaded.precedents[0]
        precedents = [replace(base, case_id=f"{base.case_id}-{i:03d}") for i in range(100)]
        pages = [f"decisions/DEC-20260101-{i:04d}.md" for i in range(150)]

        def show(count: int) -> None:
            pane.set_memory(
                precedents[:count],
                loaded.disputed,
                loaded.clauses,
                pages,
                True,
                precedent_pages=loaded.precedent_pages,
                top_pages=loaded.top_pages,
            )

        show(100)
        # the first batch at once, highlighted entry included; not all 200+ entries
        assert FIRST_OPTIONS <= entries.option_count < 150
        assert entries.highlighted_option is not None
        assert entries.highlighted_option.id == f"pre:{precedents[0].case_id}"
        show(60)  # a rebuild while the first one's batches are pending: no duplicate id
        await settle(pilot)
        ids = [o.id for o in entries.options if o.id]
        assert len(ids) == len(set(ids))
        assert sum(1 for i in ids if i.startswith("pre:")) == 60
        assert ids[-1] == f"page:{pages[-1]}"  # the newest decision file, listed last
        assert sum(1 for i in ids if i.startswith("page:decisions/")) == 100  # SHOWN
        # a highlighted entry far down the list is in the first batch, with what follows
        far = f"pre:{precedents[55].case_id}"
        entries.highlighted = entries.get_option_index(far)
        show(60)
        assert entries.highlighted_option is not None and entries.highlighted_option.id == far
        await until(pilot, lambda: entries.option_count > 150, "the later batches")
