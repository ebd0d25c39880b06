"""Issue 34, talentmap's contents (``t`` in Hafıza's reader) at 80 and 120 columns
(helper desk34keys): every clause of the contract page listed whole, numbered clauses as
``4 — TASKS``, an unnumbered one by its title alone (its ref is the slug of that title:
``performance-work-statement-pws — PERFORMANCE WORK STATEMENT (PWS)`` was cut in the
column beside the page at 120x40, the title said twice).

The real talentmap engagement loaded with ``init_project`` into SQLite with its wiki,
one case approved so the wiki writes the contract page; Textual's pilot, every wait for
a state."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Tree

from etki.services import approval_service, init_project
from etki_tui.hafiza.contents import PageContents, toc_label
from etki_tui.hafiza.pane import MemoryPane
from etki_tui.messages import PageWanted
from tests.conftest import TDRS_DIR, TuiWorld, open_tui_world
from tests.test_tui_hafiza_toc import screen_lines
from tests.test_tui_pilot import make_app, press, settle, sync, until

TALENTMAP_DIR = TDRS_DIR.parent / "talentmap"
CONTRACT_PAGE = "entities/contracts/talentmap-pws.md"
SIZES = [(80, 24), (120, 40)]
HEADINGS = [
    "Contract: talentmap-pws",
    "PERFORMANCE WORK STATEMENT (PWS)",
    "Department of State TalentMAP",
    "1 — OBJECTIVES",
    "2 — BACKGROUND",
    "3 — SCOPE",
    "4 — TASKS",
    "5 — OPERATIONAL REQUIREMENTS",
    "6 — SYSTEM SECURITY",
    "7 — SECURITY CLEARANCES",
    "8 — Travel",
    "9 — Deliverables",
    "10 — Transition",
    "11 — TERMS AND CONDITIONS",
    "12 — INVOICING & PAYMENT",
]
"""The contents of talentmap's PWS as the contents should list them (its clause numbers
and titles, read from ``../shared/realdata/talentmap``), in contract order."""


def test_an_unnumbered_clause_is_listed_by_its_title() -> None:
    """The contract id goes; a ref that is the slug of the clause's own title goes too
    (also a cut slug, and folded Turkish letters); a number or another ref stays."""
    assert toc_label("tdrs-rfq#2.1 — Scope") == "2.1 — Scope"
    assert (
        toc_label("talentmap-pws#performance-work-statement-pws — PERFORMANCE WORK STATEMENT (PWS)")
        == "PERFORMANCE WORK STATEMENT (PWS)"
    )
    assert toc_label("x#iade-sureci — İade Süreci") == "İade Süreci"
    assert toc_label("x#iade — İade süreci ve fatura") == "İade süreci ve fatura"
    assert toc_label("x#scope — Something else") == "scope — Something else"
    assert toc_label("x#4 — 4") == "4 — 4"
    assert toc_label("Contract: tdrs-rfq") == "Contract: tdrs-rfq"


@pytest.fixture
def talentmap_wiki_world(tmp_path: Path) -> Iterator[TuiWorld]:
    """talentmap stored with its wiki on and its first case approved (frozen clock)."""
    if not TALENTMAP_DIR.is_dir():
        pytest.skip("../shared/realdata/talentmap is absent")
    world = open_tui_world(tmp_path)
    init_project(TALENTMAP_DIR, world.repo, world.settings)
    world.project_id = "talentmap"
    first = world.repo.cases("talentmap")[0].case_id
    approval_service(world.repo, world.settings).rule(first, "approve", reviewer="reviewer")
    yield world
    world.repo.dispose()


async def talentmap_contents(pilot: Pilot) -> None:
    """Hafıza, talentmap's contract page read full-screen, its contents open (``t``; at
    120 columns they start shown beside the page, and ``t`` hides them first)."""
    await press(pilot, "2")
    pane = pilot.app.query_one(MemoryPane)
    pane.post_message(PageWanted(CONTRACT_PAGE, history="push"))
    await until(pilot, lambda: pane.reader.path == CONTRACT_PAGE, "the contract page")
    await settle(pilot)
    pane.maximize_reader()
    await settle(pilot)
    await press(pilot, "t")
    if not pane.reader.show_toc:
        await press(pilot, "t")
    await until(pilot, lambda: pane.reader.show_toc, "the contents")
    await settle(pilot)


def drawn_labels(pilot: Pilot) -> list[str]:
    """The contents' rows as drawn on the screen: each row's text after the tree's
    guides, arrow and level numeral."""
    tree = pilot.app.query_one(PageContents).query_one(Tree)
    box = tree.content_region
    lines = screen_lines(pilot.app)[box.y : box.bottom]
    rows = [x[box.x : box.right].lstrip(" ▼▶├└─│").strip() for x in lines]
    return [r.split(" ", 1)[1] for r in rows if r]


@sync
@pytest.mark.parametrize("size", SIZES)
async def test_talentmap_contents_read_whole(
    talentmap_wiki_world: TuiWorld, size: tuple[int, int]
) -> None:
    """Every heading of the contents is drawn whole (no ``…``, nothing past the
    column's edge), in contract order, over the page at 80 columns and beside it at 120."""
    app = make_app(talentmap_wiki_world)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await talentmap_contents(pilot)
        toc = app.query_one(PageContents)
        assert toc.needed_cells() <= toc.size.width, (toc.needed_cells(), toc.size)
        assert drawn_labels(pilot) == HEADINGS
