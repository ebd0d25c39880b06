"""A search hit on a contract clause opens the whole contract at that clause, and stays
the whole contract in the reader's back/forward history (issue 34 item 3, a trial: after
opening a hit on talentmap's section 4, ``b`` showed the section by itself, its ``t``
contents one heading, "Ⅱ 4 — TASKS"; the whole contract only through ``l``).

The real tdrs engagement, its wiki written by the real projector; Textual's pilot, every
wait for a state, never for time."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Tree

from etki.wiki.sections import find_section, split_address
from etki_tui.hafiza.pane import MemoryPane
from etki_tui.messages import PageWanted
from tests.conftest import TDRS_DIR, build_tui_tdrs_world
from tests.test_tui_hafiza_sections import CONTRACT_PAGE, _search
from tests.test_tui_hafiza_toc import open_contents, screen_lines
from tests.test_tui_pilot import make_app, press, settle, sync, until

needs_tdrs = pytest.mark.skipif(not TDRS_DIR.is_dir(), reason="../shared/realdata/tdrs is absent")


def _on_top(app, pane: MemoryPane, title: str) -> bool:  # noqa: ANN001
    """Whether the reader's first row shows the clause heading ``title`` (its ref and
    dash: the title may be cut at the column's end)."""
    scroll = pane.reader.query_one("#reader-scroll", VerticalScroll)
    return title.split(" — ")[0] + " —" in screen_lines(app)[scroll.content_region.y]


def _clauses(tree: Tree) -> list[str]:
    """The clause entries of the contents (``Ⅱ`` level: one per contract clause)."""
    found: list[str] = []
    stack = list(tree.root.children)
    while stack:
        node = stack.pop()
        found.append(node.label.plain)
        stack.extend(node.children)
    return [label for label in found if label.startswith("Ⅱ ")]


@needs_tdrs
@sync
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_clause_hit_opens_the_whole_contract_and_b_comes_back_to_it(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """Enter on a clause hit: the whole contract page, the clause's heading on the top
    row, ``t`` listing every clause (not the one heading of the section); the history
    holds one entry, the clause's address pinned (the preview took no place of its own).
    Another page opened, ``b``: the whole contract again, landed on the clause, its
    contents whole; ``F``: the other page again."""
    world = build_tui_tdrs_world(tmp_path)
    try:
        wiki = world.wiki
        app = make_app(world, search_delay=0, preview_delay=0)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            pane = app.query_one(MemoryPane)
            await _search(pilot, pane, "login")
            first = pane.hits[0][0]
            rel, anchor = split_address(first)
            assert rel == CONTRACT_PAGE and anchor
            text = (wiki / rel).read_text(encoding="utf-8")
            section = find_section(rel, text, anchor)
            assert section is not None
            reader = pane.reader
            await until(pilot, lambda: reader.path == first, "the hit's preview")
            await press(pilot, "enter")  # the search box: to the list
            if reader.path == first:
                await press(pilot, "enter")  # the list: opens the highlighted hit
            await until(pilot, lambda: reader.path == rel, "the whole contract page")
            await until(pilot, lambda: reader.landed == section.anchor, "landed on the clause")
            await settle(pilot)
            assert reader.text == text
            assert _on_top(app, pane, section.title), screen_lines(app)
            assert reader.history.entries == [(first, True)]
            tree = await open_contents(pilot, pane)
            clauses = _clauses(tree)
            assert len(clauses) > 1 and any(
                c.endswith(section.title.split("#", 1)[1]) for c in clauses
            )
            await press(pilot, "escape")
            await until(pilot, lambda: not reader.show_toc, "the contents closed")

            pane.post_message(PageWanted("index.md", history="push"))
            await until(pilot, lambda: reader.path == "index.md", "another page")
            await settle(pilot)
            assert [e for e, _ in reader.history.entries] == [first, "index.md"]
            await press(pilot, "b")
            await until(pilot, lambda: reader.path == rel, "back at the contract")
            await until(pilot, lambda: reader.landed == section.anchor, "back at the clause")
            await settle(pilot)
            assert reader.text == text  # the whole page, not the section alone
            assert _on_top(app, pane, section.title), screen_lines(app)
            tree = await open_contents(pilot, pane)
            assert _clauses(tree) == clauses
            await press(pilot, "escape")
            await until(pilot, lambda: not reader.show_toc, "the contents closed")
            await press(pilot, "F")
            await until(pilot, lambda: reader.path == "index.md", "forward to the other page")
    finally:
        world.repo.dispose()
