"""Hafıza's lists are laid out a batch at a time (issue 12 item 2: no handler holds the
keys up): a rebuild adds the first FIRST_OPTIONS entries at once, with the highlighted
one, and the rest LATER_OPTIONS per refresh; a newer rebuild drops the older one's
batches. Real desk on the ``tui_world`` SQLite store and wiki."""

from __future__ import annotations

from dataclasses import replace

from textual.widgets import Input, OptionList

from etki_tui.hafiza.pane import FIRST_OPTIONS, MemoryPane
from tests.conftest import TuiWorld
from tests.test_tui_pilot import make_app, press, settle, shown, sync, until
from tests.test_tui_races import memory_loaded, search_results


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


@sync
async def test_typing_past_a_pending_preview_asks_for_it_again(tui_world: TuiWorld) -> None:
    """A trial on tdrs (no precedents, no disputed clauses): the list's first entry is
    index.md; typing a query with no hits, key after key, left the preview on "Loading
    the page…" for ever: each keystroke cancelled the preview the last list had asked
    for, and the next list, highlighting the same entry, asked for nothing. Previews
    are flushed by hand (a delay that never fires by itself)."""
    app = make_app(tui_world, preview_delay=3600)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "2")
        await settle(pilot)
        pane = app.query_one(MemoryPane)
        loaded = memory_loaded(tui_world)
        assert "index.md" in loaded.top_pages
        pane.set_memory([], [], loaded.clauses, loaded.pages, True, top_pages=loaded.top_pages)
        await until(pilot, lambda: pane._pending_preview == "index.md", "index.md's preview")
        assert pane.flush_preview()
        reader = pane.reader
        await until(pilot, lambda: reader.display and reader.path == "index.md", "index.md")
        hits = search_results(tui_world, "contract")
        box = pane.query_one("#memory-search", Input)
        box.value = "contract"
        await settle(pilot)
        pane.set_hits(hits.query, hits.hits)
        first = pane.hits[0][0]
        await until(pilot, lambda: pane._pending_preview == first, "the first hit's preview")
        for typed in ("contractzz", "contractzzz"):
            box.value = typed  # the key's Input.Changed cancels the pending preview ...
            await until(pilot, lambda: pane._pending_preview is None, "the preview cancelled")
            pane.set_hits(typed, [])  # ... and its answer lists no hit: index.md
            await settle(pilot)
            assert pane.query_one("#memory-list", OptionList).highlighted_option.id == (
                "page:index.md"
            )
        assert pane.flush_preview(), "the highlighted index.md asked for its page again"
        await until(pilot, lambda: reader.display and reader.path == "index.md", "index.md")


@sync
async def test_home_in_the_memory_list_shows_the_first_section_header(
    tui_world: TuiWorld,
) -> None:
    """End, then Home: the first entry is highlighted and the header above it is on
    screen (a fresh-user trial: "Precedents (8)" stayed scrolled out of view)."""
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "2")
        await settle(pilot)
        pane = app.query_one(MemoryPane)
        entries = pane.query_one("#memory-list", OptionList)
        loaded = memory_loaded(tui_world)
        base = loaded.precedents[0]
        many = [replace(base, case_id=f"{base.case_id}-{i:03d}") for i in range(30)]
        pane.set_memory(many, loaded.disputed, loaded.clauses, loaded.pages, True)
        await settle(pilot)
        entries.focus()
        await press(pilot, "end")
        assert entries.scroll_y > 0  # the list is longer than the screen
        await press(pilot, "home")
        assert entries.highlighted_option is not None
        assert entries.highlighted_option.id == f"pre:{many[0].case_id}"
        assert entries.scroll_y == 0
        assert "Precedents (30)" in shown(entries).splitlines()[1]  # under the border


@sync
async def test_a_search_answer_lays_out_only_its_hits(tui_world: TuiWorld) -> None:
    """Issue 12 item 2: each answer rebuilt every entry of the memory sections (a new
    Option, visual and measured height per precedent, disputed clause and decision
    file, on the event loop). The sections' Options are now made once per memory load
    and width and given back as they are; a new load makes new ones."""
    app = make_app(tui_world, preview_delay=3600)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "2")
        await settle(pilot)
        pane = app.query_one(MemoryPane)
        entries = pane.query_one("#memory-list", OptionList)
        hits = search_results(tui_world, "contract")
        assert hits.hits

        def section_options() -> dict[str, object]:
            return {
                o.id: o
                for o in entries._options
                if o.id and not o.id.startswith("hit:")  # the memory sections' entries
            }

        pane.set_hits(hits.query, hits.hits)
        await settle(pilot)
        first = section_options()
        assert any(k.startswith("page:") for k in first)
        pane.set_hits(hits.query + " x", hits.hits[:1])  # the next answer
        await settle(pilot)
        again = section_options()
        common = again.keys() & first.keys()  # later batches may still be on their way
        assert any(k.startswith("page:") for k in common)
        assert all(again[k] is first[k] for k in common)  # the same objects: not laid out
        loaded = memory_loaded(tui_world)
        pane.set_memory([], [], loaded.clauses, loaded.pages, True, top_pages=loaded.top_pages)
        await settle(pilot)
        fresh = section_options()
        common = fresh.keys() & first.keys()
        assert common and all(fresh[k] is not first[k] for k in common)
