"""What was left of issue 34 (and issue 35 item 3), by pilot: queue titles get the width
(the clause numbers and the risk level are left out of a narrow list, the verdict, the
sureness mark, the claim mark and the PMO look stay); an overdue 24h PMO look is marked
in its row and ``look:overdue`` in the find box shows only those; Hafıza's preview never
shows a page under another page's title (a generation token, title and body shown in one
step); Raporlar in two columns from 110 cells."""

from __future__ import annotations

import io
import re

from rich.cells import cell_len
from rich.console import Console
from textual.widgets import Markdown, OptionList
from textual.widgets.markdown import MarkdownBlock

from etki.wiki.sections import find_section
from etki_tui.app import EtkiApp
from etki_tui.hafiza.pane import MemoryPane, split_frontmatter
from etki_tui.queue.columns import OPTIONAL, ROOMY_TITLE, fit_columns
from etki_tui.queue.filters import QueueFilter
from etki_tui.queue.pane import QueuePane, QueueTable
from etki_tui.raporlar.pane import ReportsPane, report_view
from tests.conftest import TuiWorld
from tests.test_tui_pilot import fill, make_app, press, queue_ids, settle, shown, sync, until

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


# --- item 2: Hafıza's preview is race-free -----------------------------------------------


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


def _preview_agrees(app: EtkiApp, pane: MemoryPane) -> str | None:
    """The page the preview shows, after checking that its title and its body belong to
    it: a card is titled "Preview"; a page is titled with its path, and the first heading
    on screen is that page's first heading as stored (never another page's)."""
    preview, reader = pane.query_one("#memory-preview"), pane.reader
    if not reader.display:
        assert preview.border_title == "Preview", preview.border_title
        return None
    assert preview.border_title == reader.path, (preview.border_title, reader.path)
    assert reader.path is not None
    page_path, _, anchor = reader.path.partition("#")
    full = app.desk.read_page(app.project_id, page_path)
    stored = split_frontmatter(full)[1]
    page = reader.query_one("#memory-page", Markdown)
    if anchor:  # a clause hit (``page.md#ref``): the preview is that clause's section
        section = find_section(page_path, full, anchor)
        assert section is not None, reader.path
        levels = {f"MarkdownH{n}" for n in range(1, 7)}
        wanted = next((ln for ln in section.text.splitlines() if ln.startswith("#")), None)
    else:
        levels = {"MarkdownH1"}
        wanted = next((ln for ln in stored.splitlines() if ln.startswith("# ")), None)
    heads = [b for b in page.query(MarkdownBlock) if type(b).__name__ in levels]
    if wanted is not None:
        assert heads, f"no heading on screen for {reader.path}"
        shown_head = _words(heads[0]._content.plain)
        # the heading's anchor (``<a id="…"></a>``) is HTML, not shown
        stated = re.sub(r"<[^>]*>", "", wanted.lstrip("#"))
        assert shown_head == _words(stated), (reader.path, wanted)
    return reader.path


@sync
async def test_the_preview_never_shows_a_page_under_another_title(tui_world: TuiWorld) -> None:
    """The highlight moves through the search results and back faster than their pages
    are read and laid out; after every key the preview is a card, or a page under its own
    title; once the keys stop it is the highlighted entry's page."""
    app = make_app(tui_world, search_delay=0, preview_delay=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "2")
        await settle(pilot)
        pane = app.query_one(MemoryPane)
        await press(pilot, "slash")
        await fill(pilot, "#memory-search", "contractor")
        await until(pilot, lambda: len(pane.hits) >= 3, "three results or more")
        await press(pilot, "enter")  # to the list
        entries = app.query_one("#memory-list", OptionList)
        seen: set[str] = set()
        for key in ["down"] * 4 + ["up"] * 3 + ["down", "up", "down", "down"]:
            await pilot.press(key)  # no settling: pages are still on their way
            shown_now = _preview_agrees(app, pane)
            if shown_now is not None:
                seen.add(shown_now)

        def highlighted_page() -> str:
            option = entries.highlighted_option
            assert option is not None and (option.id or "").startswith("hit:")
            return pane.hits[int((option.id or "").split(":")[1])][0]

        await until(
            pilot,
            lambda: _preview_agrees(app, pane) == highlighted_page(),
            "the highlighted entry's page in the preview",
        )
        await settle(pilot)
        assert _preview_agrees(app, pane) == highlighted_page()


@sync
async def test_a_page_laid_out_for_an_older_highlight_is_dropped(tui_world: TuiWorld) -> None:
    """A page whose load was asked for before the highlight moved (an older generation)
    is never shown, also when it arrives last; a load of a page that is not the
    highlighted entry's is dropped before it is laid out."""
    app = make_app(tui_world, search_delay=0, preview_delay=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "2")
        await settle(pilot)
        pane = app.query_one(MemoryPane)
        await press(pilot, "slash")
        await fill(pilot, "#memory-search", "contractor")
        await until(pilot, lambda: len(pane.hits) >= 2, "two results or more")
        await settle(pilot)
        first, second = pane.hits[0][0], pane.hits[1][0]
        assert _preview_agrees(app, pane) == first
        old = pane.preview_generation
        await press(pilot, "enter", "down")
        await until(pilot, lambda: _preview_agrees(app, pane) == second, "the second page")
        assert pane.preview_generation > old
        text = app.desk.read_page(app.project_id, first)
        await pane.show_page(first, text, generation=old)  # late, for the old highlight
        assert _preview_agrees(app, pane) == second
        pane.show_page_soon(first, text)  # not the highlighted entry's page
        await settle(pilot)
        assert _preview_agrees(app, pane) == second


# --- item 3: Raporlar in two columns from 110 -------------------------------------------


@sync
async def test_raporlar_uses_two_columns_at_120_and_one_below_110(tui_world: TuiWorld) -> None:
    for size, two in (((120, 40), True), ((100, 40), False), ((80, 24), False)):
        app = make_app(tui_world)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await press(pilot, "3")
            pane = app.query_one(ReportsPane)
            await until(pilot, lambda p=pane: p.report is not None, "the report")
            await settle(pilot)
            # the whole body as the pane lays it out for its width (the screen shows
            # only its top: the rest scrolls)
            assert pane.report is not None
            width = pane.scrollable_content_region.width
            console = Console(width=width, file=io.StringIO(), color_system=None)
            with console.capture() as capture:
                console.print(report_view(pane.report, width))
            lines = capture.get().split("\n")
            beside = [ln for ln in lines if "Totals" in ln and "Rulings vs engine" in ln]
            assert bool(beside) == two, (size, lines[:3])
            if two:  # the right half holds the PMO's tables, not blank space
                right = [ln[56:] for ln in lines if ln[56:].strip()]
                assert any("Rulings per reviewer" in ln for ln in right), lines
                assert any("Pending cases by age" in ln for ln in right), lines
                assert len(right) >= 20, len(right)
