"""Issue 34, two leftovers of the reviewer's desk (helper desk34f), on the real tdrs
engagement (``../shared/realdata/tdrs``) at 80x24 and 120x40:

* long clause headings: Hafıza's contents (``t``) cut them at the column's edge, so
  "2.1 — Scope, Expectations, Anticipated Period of Performance, Est…" and "2.3 —
  Anticipated Period of Performance, Estimated Cost, and Ceil…" read alike; the
  highlighted heading is now shown whole under the tree, its later lines under the
  title. The contract's clause lists (``l``) wrap a long title under the title, not
  under the number, and list an unnumbered clause by its title alone.
* the queue's ``z``: unfolded under the list on a short terminal the detail leaves the
  list 3 rows (folded 15); the footer then says ``z List``.

Textual's pilot, every wait for a state; the headings are tdrs's own."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import OptionList, Static, Tree

from etki_tui.hafiza.contents import WHOLE_MAX_LINES, PageContents, hanging
from etki_tui.queue.bars import CaseDetail
from etki_tui.queue.pane import QueuePane, QueueTable
from etki_tui.render import clause_label
from etki_tui.screens.contract import ContractScreen
from etki_tui.screens.links import LinksScreen, link_prompt
from tests.conftest import TDRS_DIR, TuiWorld, build_tui_tdrs_world
from tests.test_tui_contents import talentmap_contents, talentmap_wiki_world
from tests.test_tui_hafiza_toc import open_contents, open_contract_page, screen_lines
from tests.test_tui_pilot import make_app, press, settle, sync, until

__all__ = ["talentmap_wiki_world"]  # the fixture, imported for pytest

pytestmark = pytest.mark.skipif(not TDRS_DIR.is_dir(), reason="../shared/realdata/tdrs is absent")

SIZES = [(80, 24), (120, 40)]
LONG = (
    "7.2.1 — Authorities and Delegations › The TTS Office of Acquisition (OA) is the only "
    "organization…"
)
"""tdrs's longest clause heading as the contents list it (its title ends in … in the
store: an untitled clause named by its first words)."""


def test_hanging_puts_the_later_lines_under_the_title() -> None:
    console = Console(width=200)
    text = hanging(LONG, 74, console)
    assert text.plain.split("\n") == [
        "7.2.1 — Authorities and Delegations › The TTS Office of Acquisition (OA)",
        "        is the only organization…",
    ]
    assert text.spans[0].style == "bold" and text.spans[0].end == len("7.2.1 — ")
    # no number: the later lines indented by 2; Turkish letters kept as they are
    unnumbered = hanging("PERFORMANCE WORK STATEMENT (PWS) İade süreci", 20, console)
    assert unnumbered.plain.split("\n") == [
        "PERFORMANCE WORK",
        "  STATEMENT (PWS)",
        "  İade süreci",
    ]
    # at most WHOLE_MAX_LINES lines, the last cut with …
    cut = hanging("4.2 — " + "word " * 40, 30, console).plain.split("\n")
    assert len(cut) == WHOLE_MAX_LINES and cut[-1].endswith("…")
    assert all(line.startswith("      ") for line in cut[1:])
    # untrusted text shown literally: markup and control characters are not obeyed
    assert hanging("1 — [bold]x[/bold]\x1b[2J", 40, console).plain.startswith("1 — [bold]x[/bold]")


def test_a_numbered_link_hangs_and_an_unnumbered_clause_is_its_title() -> None:
    console = Console(width=40, color_system=None)
    with console.capture() as out:
        console.print(
            link_prompt("2.1 Scope, Expectations, Anticipated Period", "tdrs-rfq#2.1", hang=True)
        )
    assert out.get().rstrip("\n").split("\n") == [
        "2.1 Scope, Expectations, Anticipated".ljust(40),
        "    Period".ljust(40),
        "    tdrs-rfq#2.1".ljust(40),
    ]
    plain = link_prompt("2.1 Scope", "tdrs-rfq#2.1")  # without hang: as before
    assert str(plain) == "2.1 Scope\n  tdrs-rfq#2.1"
    assert clause_label("deadlines-and-response-formats", "Deadlines and response formats") == (
        "Deadlines and response formats"
    )
    assert clause_label("4.2", "Online payments") == "4.2 Online payments"
    assert clause_label("iade-sureci", "İade Süreci") == "İade Süreci"


def _whole(app: object) -> Static:
    return app.query_one("#reader-toc-whole", Static)  # type: ignore[attr-defined]


@sync
@pytest.mark.parametrize("size", SIZES)
async def test_the_highlighted_heading_is_shown_whole_under_the_contents(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """On 7.2.1 (cut in its row with …) the line under the tree shows it whole, its
    second line under the title; moving to 7.2.2 shows that one and the tree keeps its
    height (the panel is as high as the longest cut heading needs)."""
    world = build_tui_tdrs_world(tmp_path)
    try:
        app = make_app(world)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            pane = await open_contract_page(pilot)
            tree = await open_contents(pilot, pane)
            whole = _whole(app)
            await until(pilot, lambda: whole.display, "the whole heading shown")
            for _ in range(80):
                node = tree.cursor_node
                if node is not None and node.label.plain.startswith("Ⅱ 7.2.1 —"):
                    break
                await press(pilot, "down")
            node = tree.cursor_node
            assert node is not None and node.label.plain.endswith("…")
            assert node.label.plain != "Ⅱ " + LONG  # cut in its row
            width = whole.content_region.width
            want = hanging(LONG, width, app.console).plain
            await until(pilot, lambda: str(whole.render()) == want, "7.2.1 whole")
            await settle(pilot)
            lines = screen_lines(app)
            box = whole.content_region
            drawn = [line[box.x : box.right].rstrip() for line in lines[box.y : box.bottom]]
            assert drawn[: len(want.split("\n"))] == want.split("\n")
            assert drawn[1].startswith(" " * len("7.2.1 — ")) and "organization…" in drawn[1]
            heights = (tree.region.height, whole.region.height)
            await press(pilot, "down")
            assert tree.cursor_node is not None
            assert tree.cursor_node.label.plain.startswith("Ⅱ 7.2.2 —")
            await until(
                pilot, lambda: str(whole.render()).startswith("7.2.2 — The CO"), "7.2.2 whole"
            )
            assert (tree.region.height, whole.region.height) == heights
            # Enter still goes to the heading highlighted
            await press(pilot, "enter")
            await until(pilot, lambda: not pane.reader.toc_over, "the page again")
    finally:
        world.repo.dispose()


@sync
@pytest.mark.parametrize("size", SIZES)
async def test_no_whole_heading_line_where_every_heading_fits(
    talentmap_wiki_world: TuiWorld, size: tuple[int, int]
) -> None:
    """talentmap's contents are all whole in their column: no line under the tree."""
    app = make_app(talentmap_wiki_world)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await talentmap_contents(pilot)
        toc = app.query_one(PageContents)
        assert toc.needed_cells() <= toc.size.width
        assert not _whole(app).display
        tree = toc.query_one(Tree)
        assert tree.region.bottom == toc.region.bottom


@sync
@pytest.mark.parametrize("size", SIZES)
async def test_the_contract_clause_list_hangs_long_titles(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """The contract screen's ``l``: 2.1's title wraps under the title, its ref under
    that; the unnumbered clause is listed by its title alone (not its slug first)."""
    world = build_tui_tdrs_world(tmp_path)
    try:
        app = make_app(world)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            clauses = dict(app.query_one(QueuePane).clauses)
            app.push_screen(ContractScreen(clauses, "tdrs-rfq#2.1"))
            await until(pilot, lambda: isinstance(app.screen, ContractScreen), "the contract")
            contract = app.screen
            assert isinstance(contract, ContractScreen)
            await until(pilot, lambda: contract.landed is not None, "landed on 2.1")
            await press(pilot, "l")
            await until(pilot, lambda: isinstance(app.screen, LinksScreen), "the clause list")
            options = app.screen.query_one("#links-list", OptionList)
            await settle(pilot)
            box = options.content_region
            lines = [line[: box.right] for line in screen_lines(app)[box.y : box.bottom]]
            at = next(i for i, line in enumerate(lines) if "2.1 Scope, Expectations," in line)
            left = lines[at].index("2.1 Scope")
            title = left + len("2.1 ")
            assert lines[at + 1][left:title] == "    " and lines[at + 1][title].isalpha()
            assert lines[at + 2][title:].startswith("tdrs-rfq#2.1")
            labels = [link[0] for link in app.screen.links]  # type: ignore[attr-defined]
            assert "Deadlines and response formats" in labels
            assert not any(label.startswith("deadlines-and") for label in labels)
            assert options.highlighted == [r for _, r in app.screen.links].index("tdrs-rfq#2.1")  # type: ignore[attr-defined]
    finally:
        world.repo.dispose()


def _footer(app: object) -> str:
    return screen_lines(app)[-1]  # type: ignore[arg-type]


@sync
async def test_z_says_list_while_the_unfolded_detail_leaves_the_list_three_rows(
    tmp_path: Path,
) -> None:
    """80x24: folded, the list shows 15+ rows and the footer ``z Detail``; z unfolds
    the detail, the list has 3 rows and the footer says ``z List``; z again gives the
    15 rows back and ``z Detail``. Widened to 120x40 the detail sits beside the list
    (every case a row) and the footer says ``z Detail``."""
    world = build_tui_tdrs_world(tmp_path)
    try:
        app = make_app(world)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            pane = app.query_one(QueuePane)
            table = app.query_one(QueueTable)
            detail = app.query_one(CaseDetail)
            assert pane.has_class("-list") and table.region.height - 1 >= 15
            await until(pilot, lambda: " z Detail " in _footer(app), "z Detail")
            await press(pilot, "z")
            await until(pilot, lambda: " z List " in _footer(app), "z List")
            assert table.region.height - 1 == 3 and detail.region.height >= 12
            await press(pilot, "z")
            await until(pilot, lambda: " z Detail " in _footer(app), "z Detail again")
            assert table.region.height - 1 >= 15
            await press(pilot, "z")
            await until(pilot, lambda: " z List " in _footer(app), "z List again")
            await pilot.resize_terminal(120, 40)
            await until(pilot, lambda: pane.has_class("-beside"), "beside")
            await until(pilot, lambda: " z Detail " in _footer(app), "z Detail beside")
            await settle(pilot)
            assert detail.region.x >= table.region.right
            assert table.region.height - 1 >= 30  # the list the whole height
    finally:
        world.repo.dispose()
