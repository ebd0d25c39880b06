"""The whole tdrs contract readable in Hafıza's reader, and a clause opened at its
heading (issue 34 item 3: a fresh trial found the 70,836-character contract page cut
at 50,000 characters, clauses after 8.3 unreadable; landing on 5.2 showed the page's
top for 1-4 s before the jump, and 9.6.2 landed mid-clause at 120x40).

The real tdrs engagement (``../shared/realdata/tdrs``), stored in real SQLite and its
wiki written by the real projector; Textual's pilot, every wait for a state."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.pilot import Pilot

from etki.wiki.sections import Section, page_sections
from etki_tui.hafiza.contents import PageContents
from etki_tui.hafiza.frontmatter import split_frontmatter
from etki_tui.hafiza.linepage import (
    LINE_PAGE_CHARS,
    LinePage,
    heading_chunks,
    render_page,
    shown_as_lines,
)
from etki_tui.hafiza.pane import MemoryPane
from etki_tui.hafiza.reader import PAGE_TEXT_CHARS, PageReader
from etki_tui.messages import PageWanted
from tests.conftest import TDRS_DIR, build_tui_tdrs_world
from tests.test_tui_hafiza_toc import screen_lines
from tests.test_tui_pilot import make_app, press, settle, sync, until

pytestmark = pytest.mark.skipif(not TDRS_DIR.is_dir(), reason="../shared/realdata/tdrs is absent")

CONTRACT_PAGE = "entities/contracts/tdrs-rfq.md"
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


def sections_of(text: str) -> list[Section]:
    split = page_sections(CONTRACT_PAGE, text)
    assert split is not None
    return split[1]


def section(text: str, ref: str) -> Section:
    """The section of clause ``tdrs-rfq#<ref>``."""
    return next(s for s in sections_of(text) if s.title.startswith(f"tdrs-rfq#{ref} — "))


def test_the_page_renders_to_lines_with_every_clause_heading(tmp_path: Path) -> None:
    """The tdrs contract page is shown as lines (longer than :data:`LINE_PAGE_CHARS`, a
    contract page), a decision page of the same text is not; its parts join back to it,
    each part after the first starts with a heading; rendered at 76 and 116 cells, every
    clause's heading has a line, that line reads the clause's ref, and no line is wider
    than asked, none shows the page's markup (link targets, ``<a id>``, ``**``)."""
    world = build_tui_tdrs_world(tmp_path)
    try:
        text = (world.wiki / CONTRACT_PAGE).read_text(encoding="utf-8")
    finally:
        world.repo.dispose()
    body = split_frontmatter(text)[1]
    assert len(text) > PAGE_TEXT_CHARS and len(body) > LINE_PAGE_CHARS  # the cut the trial hit
    assert shown_as_lines(CONTRACT_PAGE, body)
    assert not shown_as_lines("decisions/DEC-1.md", body)
    chunks = heading_chunks(body)
    assert "".join(chunk for _lv, chunk in chunks) == body
    assert all(chunk.startswith("#") for _lv, chunk in chunks[1:])
    for width in (76, 116):
        page = render_page(body, width)
        for clause in sections_of(text):
            ref = clause.title.split(" — ")[0]
            line = next(h.line for h in page.headings if h.name.startswith(ref + " —"))
            assert page.lines[line].text.startswith(ref), (ref, page.lines[line].text)
        rows = [strip.text for strip in page.lines]
        assert all(strip.cell_length <= width for strip in page.lines)
        assert not [r for r in rows if "](" in r or "<a id" in r or "**" in r]


async def open_at(pilot: Pilot, anchor: str = "") -> tuple[PageReader, list[str]]:
    """Hafıza, the contract page opened (at the clause ``anchor``, as a search hit opens
    it) until its heading is landed on; and what was seen meanwhile: "top" each time the
    page body was on screen at its top before the landing."""
    await press(pilot, "2")
    pane = pilot.app.query_one(MemoryPane)
    reader = pane.reader
    scroll = reader.query_one("#reader-scroll", VerticalScroll)
    curtain = reader.query_one("#reader-curtain")
    seen: list[str] = []

    def landed() -> bool:
        if reader.landed == anchor:
            return True
        body_up = reader.display and reader.path == CONTRACT_PAGE and not curtain.display
        lines = reader.query_one("#memory-lines", LinePage)
        if body_up and scroll.scroll_y == 0 and (lines.display and lines.page.lines):
            seen.append("top")
        return False

    if anchor:
        pane.open_page(f"{CONTRACT_PAGE}#{anchor}")
        await until(pilot, landed, f"the landing on {anchor}")
    else:
        pane.post_message(PageWanted(CONTRACT_PAGE, history="push"))
        await until(pilot, lambda: reader.path == CONTRACT_PAGE, "the contract page")
    return reader, seen


def heading_row(reader: PageReader, title: str) -> int:
    """The row of the reader's scroll the heading ``title`` of the long page starts on."""
    lines = reader.query_one("#memory-lines", LinePage)
    assert lines.display
    line = lines.heading_line(title)
    assert line is not None, title
    return lines.virtual_region.y + line


def heading_on_first_row(reader: PageReader, title: str) -> None:
    """The heading ``title`` stands on the page's first visible row, and that row on
    the screen reads the clause's ref."""
    scroll = reader.query_one("#reader-scroll", VerticalScroll)
    assert scroll.scroll_y == heading_row(reader, title), (scroll.scroll_y, title)
    row = screen_lines(reader.app)[scroll.content_region.y]
    assert title.split(" — ")[0] + " —" in row, row


@sync
async def test_the_whole_contract_is_read(tmp_path: Path) -> None:
    """Opened from its top, the contract page is laid out whole (its later parts while
    it is read): 9.6.2 and the last clause are on the page, in its contents, and their
    text is the page's; nothing says characters were left out."""
    world = build_tui_tdrs_world(tmp_path)
    try:
        text = (world.wiki / CONTRACT_PAGE).read_text(encoding="utf-8")
        last, late = sections_of(text)[-1], section(text, "9.6.2")
        app = make_app(world, search_delay=0, preview_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            reader, _ = await open_at(pilot)
            await until(pilot, lambda: reader.whole_shown, "every part laid out")
            await settle(pilot)
            lines = reader.query_one("#memory-lines", LinePage)
            for clause in (late, last):
                assert lines.heading_line(clause.title) is not None, clause.title
            contents = reader.query_one(PageContents)
            toc = [name for _lv, name, _id in contents.table_of_contents]
            assert any(n.startswith(last.title.split(" — ")[0] + " —") for n in toc)
            source = lines.source
            assert "not shown" not in source
            tail = [ln for ln in last.text.split("\n") if ln.strip() and "|" not in ln][-1]
            assert tail.strip() in source
            assert len(source) >= len(text) - 2_000  # the frontmatter is shown apart
    finally:
        world.repo.dispose()


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ref", ["5.2", "9.6.2"])
@sync
async def test_a_clause_opens_at_its_heading(
    tmp_path: Path, size: tuple[int, int], ref: str
) -> None:
    """Opened at a clause (a search hit, Enter), the reader shows the clause's heading on
    its first row, and the page's top was never on screen before (no jump); 9.6.2 lies
    past the old 50,000-character cut. The rest of the page is laid out afterwards below
    and leaves the heading where it is."""
    world = build_tui_tdrs_world(tmp_path)
    try:
        text = (world.wiki / CONTRACT_PAGE).read_text(encoding="utf-8")
        clause = section(text, ref)
        app = make_app(world, search_delay=0, preview_delay=0)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            reader, seen = await open_at(pilot, clause.anchor)
            assert seen == []  # the page's top never showed before the landing
            await settle(pilot)  # drawn, and the rest of the page laid out below
            assert reader.whole_shown
            heading_on_first_row(reader, clause.title)
            assert reader.query_one(LinePage).heading_line(sections_of(text)[-1].title)
    finally:
        world.repo.dispose()


@sync
async def test_the_last_clause_opens_readable(tmp_path: Path) -> None:
    """The contract's last clause opened: on screen, at its heading or scrolled as far
    as the page goes (it is the page's end) with its heading in view."""
    world = build_tui_tdrs_world(tmp_path)
    try:
        text = (world.wiki / CONTRACT_PAGE).read_text(encoding="utf-8")
        last = sections_of(text)[-1]
        app = make_app(world, search_delay=0, preview_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            reader, seen = await open_at(pilot, last.anchor)
            assert seen == []
            await settle(pilot)
            scroll = reader.query_one("#reader-scroll", VerticalScroll)
            heading = heading_row(reader, last.title)
            # at its heading, or as far as the page goes when its end is nearer
            assert scroll.scroll_y == min(heading, scroll.max_scroll_y)
            assert 0 <= heading - scroll.scroll_y < scroll.content_region.height
            top = scroll.content_region.y
            rows = screen_lines(app)[top : top + scroll.content_region.height]
            assert any(last.title.split(" — ")[0] in row for row in rows)
    finally:
        world.repo.dispose()
