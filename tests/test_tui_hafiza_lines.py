"""The tdrs contract page read as lines in Hafıza's reader (issue 34 item 3 follow-up:
laid out as 510 Markdown blocks, every key waited 1.5-30 s for Textual to restyle them).

The page is one widget however long (:class:`etki_tui.hafiza.linepage.LinePage`); a
clause opened lands with its heading on the page's first row at 80x24 and 120x40 and
stays there when the width changes; the search words are marked on the lines; a link
clicked on a line is followed. The real tdrs engagement (``../shared/realdata/tdrs``)
stored in real SQLite, its wiki written by the real projector; Textual's pilot, every
wait for a state."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.segment import Segment
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Input

from etki.text import fold
from etki.wiki.sections import Section, page_sections
from etki_tui.hafiza.linepage import HREF_META, LinePage
from etki_tui.hafiza.pane import MemoryPane
from etki_tui.hafiza.reader import PageReader
from tests.conftest import TDRS_DIR, build_tui_tdrs_world
from tests.test_tui_hafiza_toc import screen_lines
from tests.test_tui_pilot import make_app, press, settle, sync, until

pytestmark = pytest.mark.skipif(not TDRS_DIR.is_dir(), reason="../shared/realdata/tdrs is absent")

CONTRACT_PAGE = "entities/contracts/tdrs-rfq.md"
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


def clause(text: str, ref: str) -> Section:
    """The section of clause ``tdrs-rfq#<ref>`` on the contract page ``text``."""
    split = page_sections(CONTRACT_PAGE, text)
    assert split is not None
    return next(s for s in split[1] if s.title.startswith(f"tdrs-rfq#{ref} — "))


def top_row(reader: PageReader) -> str:
    """The screen row of the page's first visible line."""
    scroll = reader.query_one("#reader-scroll", VerticalScroll)
    return screen_lines(reader.app)[scroll.content_region.y]


def on_top(reader: PageReader, title: str) -> bool:
    """The heading ``title`` is the page's first visible line, as recorded and as drawn."""
    scroll = reader.query_one("#reader-scroll", VerticalScroll)
    lines = reader.query_one("#memory-lines", LinePage)
    line = lines.heading_line(title)
    return (
        line is not None
        and scroll.scroll_y == lines.virtual_region.y + line
        and f"{title.split(' — ')[0]} —" in top_row(reader)
    )


@pytest.mark.parametrize("size", SIZES)
@sync
async def test_a_clause_lands_on_the_top_row_and_stays_there(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """3.2 (a cited clause, its memory and decisions below it) opened: its heading is the
    first row of the page, drawn; the page is one widget, no Markdown blocks; the
    terminal resized to the other size (the lines rendered again for the page's new
    width, the contents beside it at 120 columns), the same heading is
    still the first row; Down moves the page a row, Up puts the heading back."""
    world = build_tui_tdrs_world(tmp_path)
    try:
        text = (world.wiki / CONTRACT_PAGE).read_text(encoding="utf-8")
        section = clause(text, "3.2")
        app = make_app(world, search_delay=0, preview_delay=0)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await press(pilot, "2")
            pane = app.query_one(MemoryPane)
            reader = pane.reader
            pane.open_page(f"{CONTRACT_PAGE}#{section.anchor}")
            await until(pilot, lambda: reader.landed == section.anchor, "the landing on 3.2")
            await settle(pilot)
            assert on_top(reader, section.title), top_row(reader)
            assert not reader.query("MarkdownBlock")  # the page is lines, one widget
            assert len(reader.query("*")) < 80
            lines = reader.query_one("#memory-lines", LinePage)
            before = lines.page.width
            await pilot.resize_terminal(*(120, 40) if size == (80, 24) else (80, 24))

            def rendered_again() -> bool:
                return lines.page.width == lines.size.width != before

            await until(pilot, rendered_again, "the lines rendered for the new width")
            await settle(pilot)
            assert on_top(reader, section.title), top_row(reader)
            await press(pilot, "down")
            assert not on_top(reader, section.title)
            await press(pilot, "up")
            assert on_top(reader, section.title), top_row(reader)
    finally:
        world.repo.dispose()


@sync
async def test_search_words_are_marked_on_the_lines(tmp_path: Path) -> None:
    """Opened from a search for "login" (a clause hit), the whole page's lines mark every
    "login": the bar counts them, each marked piece of a line folds to "login", and a
    marked one is on the screen (reverse video, :data:`etki_tui.render.MATCH_STYLE`)."""
    world = build_tui_tdrs_world(tmp_path)
    try:
        app = make_app(world, search_delay=0, preview_delay=0)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            pane = app.query_one(MemoryPane)
            await _search(pilot, pane, "login")
            reader = pane.reader
            first = pane.hits[0][0]
            assert first.startswith(f"{CONTRACT_PAGE}#")
            pane.open_page(first)
            await until(pilot, lambda: reader.landed is not None, "the landing on the hit")
            await settle(pilot)
            lines = reader.query_one("#memory-lines", LinePage)
            marked = [
                seg.text
                for strip in lines.page.lines
                for seg in strip
                if seg.style is not None and seg.style.reverse and seg.style.bold
            ]
            whole = "\n".join(strip.text for strip in lines.page.lines)
            assert marked and all(fold(m) == "login" for m in marked)
            assert len(marked) == fold(whole).count("login") == reader.matches
            assert f"{reader.matches} match" in "\n".join(screen_lines(app))
    finally:
        world.repo.dispose()


@sync
async def test_a_link_clicked_on_a_line_opens_its_page(tmp_path: Path) -> None:
    """The first decision linked under a cited clause (``case req-…``), its line scrolled
    to the top and clicked where the link is drawn: the reader opens that decision page
    (inside the wiki)."""
    world = build_tui_tdrs_world(tmp_path)
    try:
        text = (world.wiki / CONTRACT_PAGE).read_text(encoding="utf-8")
        section = clause(text, "3.2")
        app = make_app(world, search_delay=0, preview_delay=0)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await press(pilot, "2")
            pane = app.query_one(MemoryPane)
            reader = pane.reader
            pane.open_page(f"{CONTRACT_PAGE}#{section.anchor}")
            await until(pilot, lambda: reader.landed == section.anchor, "the landing on 3.2")
            await settle(pilot)
            lines = reader.query_one("#memory-lines", LinePage)
            scroll = reader.query_one("#reader-scroll", VerticalScroll)
            y, x, href = next(
                (y, x, str(seg.style.meta.get(HREF_META)))
                for y in range(len(lines.page.lines))
                for x, seg in _cells(lines, y)
                if seg.style is not None and seg.style.meta.get(HREF_META)
            )
            assert href.startswith("../../decisions/DEC-")
            # no terminal hyperlink anywhere (a terminal would open it in a browser)
            assert not [
                seg
                for strip in lines.page.lines
                for seg in strip
                if seg.style is not None and seg.style.link
            ]
            scroll.scroll_to(y=lines.virtual_region.y + y, animate=False)  # its line on top
            await until(pilot, lambda: scroll.scroll_y == lines.virtual_region.y + y, "scrolled")
            await settle(pilot)
            offset = (lines.content_region.x + x, scroll.content_region.y)
            assert "req-tdrs-" in top_row(reader)
            await pilot.click(offset=offset)
            want = "decisions/" + href.rsplit("/", 1)[1]
            await until(pilot, lambda: reader.path == want, "the decision page")
    finally:
        world.repo.dispose()


async def _search(pilot: Pilot, pane: MemoryPane, query: str) -> None:
    """Hafıza, ``query`` in its search box, until its results are listed."""
    await press(pilot, "2", "slash")
    pilot.app.query_one("#memory-search", Input).value = query
    await until(pilot, lambda: pane.query_text == query, "the results")
    await settle(pilot)


def _cells(lines: LinePage, y: int) -> list[tuple[int, Segment]]:
    """(cell where it starts, segment) of each segment of line ``y`` of ``lines``."""
    out: list[tuple[int, Segment]] = []
    x = 0
    for seg in lines.page.lines[y]:
        out.append((x, seg))
        x += seg.cell_length
    return out


@sync
async def test_a_page_read_again_while_it_opens_still_lands_on_its_clause(tmp_path: Path) -> None:
    """The contract page opened at 3.2 and, before it stood there, read again because it
    changed on disk (the pane's ``refresh``; CI under load saw the landing on 3.2 never
    come at 120x40): the page shown is the new text, at clause 3.2, its heading on the
    first row — not at the scroll row the first landing had reached. The reader is
    asked directly (as the pane's ``refresh`` asks it: ``keep_scroll``, no anchor)."""
    world = build_tui_tdrs_world(tmp_path)
    try:
        text = (world.wiki / CONTRACT_PAGE).read_text(encoding="utf-8")
        section = clause(text, "3.2")
        app = make_app(world, search_delay=0, preview_delay=0)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await press(pilot, "2")
            pane = app.query_one(MemoryPane)
            reader = pane.reader
            await reader.show(CONTRACT_PAGE, text, history="push", anchor=section.anchor)
            # its lines render in a worker thread (~0.25 s): the landing has not come yet
            assert reader.landed is None
            changed = text + "\nA line written while the page opened.\n"
            await reader.show(CONTRACT_PAGE, changed, history="keep", keep_scroll=True)

            def read_again_and_settled() -> bool:
                return reader.text == changed and reader.whole_shown and not reader._landing

            await until(pilot, read_again_and_settled, "the page read again and placed")
            await settle(pilot)
            assert reader.landed == section.anchor
            assert on_top(reader, section.title), top_row(reader)
    finally:
        world.repo.dispose()
