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
from etki_tui.hafiza.lazypage import READER_FIRST_CHARS, page_parts_to_lay_out
from etki_tui.hafiza.pane import MemoryPane
from etki_tui.hafiza.reader import PAGE_TEXT_CHARS, PageReader, heading_block
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


def test_parts_join_back_and_end_on_a_heading(tmp_path: Path) -> None:
    """The parts the reader lays out one by one give back the page, the first reaches
    as far as asked, and every part but the last ends with a clause heading line (what
    ``Markdown.append`` parses again whole)."""
    world = build_tui_tdrs_world(tmp_path)
    try:
        text = (world.wiki / CONTRACT_PAGE).read_text(encoding="utf-8")
    finally:
        world.repo.dispose()
    assert len(text) > PAGE_TEXT_CHARS  # the cut the trial hit
    for reach in (0, 30_000, len(text) - 100):
        parts = page_parts_to_lay_out(CONTRACT_PAGE, text, reach)
        assert parts is not None and "".join(parts) == text
        assert len(parts[0]) >= max(reach, READER_FIRST_CHARS) or len(parts) == 1
        for piece in parts[:-1]:
            assert piece.endswith("</a>\n") and piece.rsplit("\n", 2)[-2].startswith("## ")
    assert page_parts_to_lay_out("decisions/DEC-1.md", text, 0) is None  # not a contract page


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
        if body_up and scroll.scroll_y == 0 and len(reader.query("MarkdownBlock")) > 1:
            seen.append("top")
        return False

    if anchor:
        pane.open_page(f"{CONTRACT_PAGE}#{anchor}")
        await until(pilot, landed, f"the landing on {anchor}")
    else:
        pane.post_message(PageWanted(CONTRACT_PAGE, history="push"))
        await until(pilot, lambda: reader.path == CONTRACT_PAGE, "the contract page")
    return reader, seen


def heading_on_first_row(reader: PageReader, title: str) -> None:
    scroll = reader.query_one("#reader-scroll", VerticalScroll)
    heading = heading_block(reader.query_one("#memory-page"), title)
    assert heading is not None
    assert heading.region.y == scroll.content_region.y, (heading.region, scroll.content_region)
    row = screen_lines(reader.app)[scroll.content_region.y]
    assert title.split(" — ")[0] in row, row


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
            page = reader.query_one("#memory-page")
            for clause in (late, last):
                assert heading_block(page, clause.title) is not None, clause.title
            toc = [name for _lv, name, _id in page.table_of_contents]
            assert any(n.startswith(last.title.split(" — ")[0] + " —") for n in toc)
            source = page.source
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
            assert heading_block(reader.query_one("#memory-page"), sections_of(text)[-1].title)
    finally:
        world.repo.dispose()


@sync
async def test_the_last_clause_opens_readable(tmp_path: Path) -> None:
    """The contract's last clause opened: on screen, scrolled as far as the page goes
    (it is the page's end) with its heading in view."""
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
            heading = heading_block(reader.query_one("#memory-page"), last.title)
            assert heading is not None
            top = scroll.content_region.y
            assert top <= heading.region.y < top + scroll.content_region.height
            rows = screen_lines(app)[top : top + scroll.content_region.height]
            assert any(last.title.split(" — ")[0] in row for row in rows)
    finally:
        world.repo.dispose()
