"""Hafıza reader's contents (``t``) on a page with long headings: the real tdrs contract
page (every clause a ``tdrs-rfq#N — title`` heading). A reviewer trial found the column
28 cells wide with entries cut to "tdrs-rfq#2.1 — Sc", Down/Enter not reaching it, and
stray characters at 80x24. Pilot tests (Textual ``run_test``), waiting for states."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Tree

from etki_tui.app import EtkiApp
from etki_tui.hafiza.contents import PageContents, toc_label
from etki_tui.hafiza.linepage import LinePage
from etki_tui.hafiza.pane import MemoryPane
from etki_tui.hafiza.reader import LINE_HEADING_ID
from etki_tui.messages import PageWanted
from tests.conftest import TDRS_DIR, build_tui_tdrs_world
from tests.test_tui_pilot import make_app, press, settle, sync, until

CONTRACT_PAGE = "entities/contracts/tdrs-rfq.md"

pytestmark = pytest.mark.skipif(not TDRS_DIR.is_dir(), reason="../shared/realdata/tdrs is absent")


def screen_lines(app: EtkiApp) -> list[str]:
    """The text of every row of the screen as drawn."""
    return ["".join(s.text for s in strip) for strip in app.screen._compositor.render_strips()]


async def open_contract_page(pilot: Pilot) -> MemoryPane:
    """Hafıza, the tdrs contract page read full-screen, the page focused."""
    app = pilot.app
    await press(pilot, "2")
    pane = app.query_one(MemoryPane)
    pane.post_message(PageWanted(CONTRACT_PAGE, history="push"))
    await until(pilot, lambda: pane.reader.path == CONTRACT_PAGE, "the contract page")
    await settle(pilot)
    pane.maximize_reader()
    await settle(pilot)
    return pane


async def open_contents(pilot: Pilot, pane: MemoryPane) -> Tree:
    """``t`` until the contents are open and focused (at 120 columns they start shown
    beside the page, unfocused: the first ``t`` hides them)."""
    tree = pane.reader.query_one("#reader-toc Tree", Tree)
    await press(pilot, "t")
    if not pane.reader.show_toc:
        await press(pilot, "t")
    await until(pilot, lambda: pilot.app.focused is tree, "the contents focused")
    return tree


def test_toc_label_leaves_out_the_contract_id() -> None:
    assert toc_label("tdrs-rfq#2.1 — Scope of work") == "2.1 — Scope of work"
    assert toc_label("MSA-2024-01#3.2 — Single sign-on") == "3.2 — Single sign-on"
    assert toc_label("Contract: tdrs-rfq") == "Contract: tdrs-rfq"
    assert toc_label("Reason") == "Reason"
    assert toc_label("Ödeme #1 ekranı") == "Ödeme #1 ekranı"  # no id before the #


@sync
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_contents_are_readable_and_keyboard_driven(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """``t`` focuses the contents; entries read "2.1 — Scope…" (cut with … only where
    the column ends); Down moves; Enter puts that clause's heading at the top of the
    page and focuses the page; Esc closes the contents and stays full-screen."""
    world = build_tui_tdrs_world(tmp_path)
    try:
        app = make_app(world)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            pane = await open_contract_page(pilot)
            reader = pane.reader
            preview = pane.query_one("#memory-preview")
            tree = await open_contents(pilot, pane)
            toc = reader.query_one("#reader-toc", PageContents)
            rows = [line for line in screen_lines(app) if "── Ⅱ " in line]
            assert rows, "the contents drawn"
            # an entry ends where the column's blank (or the frame) begins
            entries = [re.split(r"\s{2,}|┃", row.split("── Ⅱ ", 1)[1])[0] for row in rows]
            assert not any(e.startswith("tdrs-rfq#") for e in entries)
            assert "1.2 — Background" in entries and "3.1.2 — Preliminary user stories" in entries
            # a cut entry says so: every long title ends in … within the column
            long = next(e for e in entries if e.startswith("2.1 — Scope"))
            assert long.endswith("…") or long.endswith("Scope")
            assert toc.size.width >= 40  # wide enough for "3.1.2 — Preliminary user stories"
            # Down to 3.2, Enter: the page at its heading, focused
            for _ in range(40):
                node = tree.cursor_node
                if node is not None and node.label.plain.startswith("Ⅱ 3.2 —"):
                    break
                await press(pilot, "down")
            node = tree.cursor_node
            assert node is not None and node.label.plain.startswith("Ⅱ 3.2 — Quality")
            # the long page is shown as lines: the entry names its heading's index
            lines = reader.query_one("#memory-lines", LinePage)
            index = int(node.data["block_id"].removeprefix(LINE_HEADING_ID))
            heading = lines.virtual_region.y + lines.page.headings[index].line
            scroll = reader.query_one("#reader-scroll", VerticalScroll)
            await press(pilot, "enter")
            await until(pilot, lambda: app.focused is scroll, "the page focused")
            await until(pilot, lambda: scroll.scroll_y == heading, "3.2 at the top of the page")
            await settle(pilot)  # drawn
            first_row = screen_lines(app)[scroll.content_region.y]
            assert "tdrs-rfq#3.2 — Quality" in first_row, first_row
            assert app.screen.maximized is preview
            assert "3.2 — Quality Assurance" in "\n".join(screen_lines(app))
            # t again, Esc: closed, still full-screen, the page focused
            await open_contents(pilot, pane)
            await press(pilot, "escape")
            await until(pilot, lambda: not reader.show_toc, "the contents closed")
            assert app.screen.maximized is preview and app.focused is scroll
            assert not any("── Ⅱ " in line for line in screen_lines(app))
    finally:
        world.repo.dispose()


@sync
async def test_no_stray_characters_after_resizing_and_closing(tmp_path: Path) -> None:
    """At 80x24 the open contents take the width over the page; resized to 120x40 and
    back, then closed, the screen shows the page only: every row inside the frame is
    either the page's text or blank, none a remnant of the contents."""
    world = build_tui_tdrs_world(tmp_path)
    try:
        app = make_app(world)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            pane = await open_contract_page(pilot)
            reader = pane.reader
            await open_contents(pilot, pane)
            assert reader.toc_over and not reader.query_one("#reader-scroll").display
            await pilot.resize_terminal(120, 40)
            await settle(pilot)
            await pilot.resize_terminal(80, 24)
            await settle(pilot)
            assert reader.show_toc
            await press(pilot, "t")
            await until(pilot, lambda: not reader.show_toc, "the contents closed")
            scroll = reader.query_one("#reader-scroll")
            assert scroll.display and scroll.size.width >= 70
            lines = screen_lines(app)
            assert not any("── Ⅱ " in line or "▼ Ⅰ" in line for line in lines)
            assert any("Contract: tdrs-rfq" in line for line in lines)
    finally:
        world.repo.dispose()


@sync
async def test_contents_fit_their_column_after_a_resize(tmp_path: Path) -> None:
    """The contents open at 120x40, the terminal resized to 100 columns: the labels
    are cut for the new column and the tree's width follows them, so there is no
    horizontal scroll (a trial: 42 cells of content in a 33-cell column, a scroll bar a
    fresh desk at 100 columns does not have)."""
    world = build_tui_tdrs_world(tmp_path)
    try:
        app = make_app(world)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            pane = await open_contract_page(pilot)
            tree = await open_contents(pilot, pane)
            assert tree.max_scroll_x == 0 and not tree.show_horizontal_scrollbar
            await pilot.resize_terminal(100, 40)
            await settle(pilot)
            assert pane.reader.show_toc
            column = tree.scrollable_content_region.width
            assert tree.virtual_size.width <= column, (tree.virtual_size, column)
            assert tree.max_scroll_x == 0 and not tree.show_horizontal_scrollbar
    finally:
        world.repo.dispose()
