"""Issue 34, a trial of Hafıza on tdrs and talentmap: a search that is a clause number
lists that clause first (then its sub-clauses), in the desk and in ``etki wiki search``
alike.

The real tdrs engagement stored in a SQLite file, its wiki written by the real
projector and searched through its real FTS5 index (and the ``rg`` and Python
backends); Textual's pilot, every wait for a state, never for time."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
from textual.widgets import Input, OptionList

from etki.wiki.clausequery import clause_number, number_rank
from etki.wiki.search import ranked_search
from etki.wiki.sections import split_address
from etki_tui.hafiza.pane import MemoryPane
from tests.conftest import TDRS_DIR, TuiWorld, build_tui_tdrs_world
from tests.test_tui_pilot import make_app, settle, shown, sync, until
from tests.test_wiki_search import ALL_BACKENDS

needs_tdrs = pytest.mark.skipif(not TDRS_DIR.is_dir(), reason="../shared/realdata/tdrs is absent")

CONTRACT_PAGE = "entities/contracts/tdrs-rfq.md"
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


def clause(number: str) -> str:
    """The search address of tdrs-rfq clause ``number``'s section on the contract page."""
    return f"{CONTRACT_PAGE}#tdrs-rfq%23{number}"


def numbers(paths: list[str]) -> list[str]:
    """The clause numbers of hit addresses (``""`` for a hit that is no clause section)."""
    return [split_address(p)[1].rpartition("%23")[2] for p in paths]


@pytest.fixture(scope="module")
def tdrs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TuiWorld]:
    """The real tdrs engagement in a SQLite file, with its wiki (the contract page)."""
    if not TDRS_DIR.is_dir():
        pytest.skip("../shared/realdata/tdrs is absent")
    world = build_tui_tdrs_world(tmp_path_factory.mktemp("tdrs"))
    yield world
    world.repo.dispose()


# --- a clause number as the query ---------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "number"),
    [
        ("5.2", "5.2"),
        (" 5.2. ", "5.2"),
        ("§ 5.2", "5.2"),
        ("§7", "7"),
        ("10.2.3", "10.2.3"),
        ("5.2 login", None),  # words too: an ordinary search
        ("v5.2", None),
        ("5..2", None),
        ("٥.٢", None),  # Arabic-Indic digits: no clause number of a contract here
        ("", None),
    ],
)
def test_what_counts_as_a_clause_number(query: str, number: str | None) -> None:
    assert clause_number(query) == number


def test_the_clause_then_its_sub_clauses_in_page_order_then_the_rest() -> None:
    assert number_rank("tdrs-rfq%235.2", 40, "5.2") == (0, 40)
    assert number_rank("tdrs-rfq%235.2.1", 44, "5.2") == (1, 44)
    assert number_rank("tdrs-rfq%237.2.5", 90, "5.2") == (2, 0)  # holds 5 and 2, no child
    assert number_rank("tdrs-rfq%2315.2", 60, "5.2") == (2, 0)
    assert number_rank("tdrs-rfq%235.20", 61, "5.2") == (2, 0)
    assert number_rank("", 0, "5.2") == (2, 0)  # a page head
    assert number_rank("tdrs-rfq%235.2", 40, None) == (2, 0)


@needs_tdrs
@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_a_clause_number_lists_that_clause_first_on_every_backend(
    tdrs: TuiWorld, backend: str
) -> None:
    """The trial: "5.2" listed 7.2.5, 5.3 and 5.4 before 5.2 (each holds a 5 and a 2 at
    a word start). Now 5.2 comes first; "7.2" (no section of its own: its empty heading
    is merged into 7.2.1) lists 7.2.1 … 7.2.6 in contract order; the hits themselves and
    their count are those of the search before (token-AND), only their order moved."""
    got = ranked_search(tdrs.wiki, "5.2", limit=None, backend=backend)
    assert got.backend == backend
    assert got.hits[0].path == clause("5.2")
    assert numbers([h.path for h in got.hits])[:2] == ["5.2", "7.2.5"]
    words = ranked_search(tdrs.wiki, "5 2", limit=None, backend=backend)
    assert sorted(got.hits) == sorted(words.hits) and got.total == words.total
    sub = ranked_search(tdrs.wiki, "7.2", limit=8, backend=backend)
    assert numbers([h.path for h in sub.hits])[:6] == [f"7.2.{i}" for i in range(1, 7)]
    assert sub.hits == ranked_search(tdrs.wiki, "7.2", limit=8, backend="python").hits


@needs_tdrs
def test_the_cli_lists_the_clause_first_as_the_desk_does(tdrs: TuiWorld) -> None:
    """``python -m etki.wiki search 5.2`` in a process of its own, on the SQLite store."""
    env = {
        **os.environ,
        "ETKI_DB_URL": tdrs.settings.db_url,
        "ETKI_WIKI_DIR": str(tdrs.tmp / "wiki-{project}"),
        "XDG_CONFIG_HOME": str(tdrs.tmp / "xdg"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "etki.wiki", "search", "5.2", "--project", "tdrs", "--limit", "3"],
        env=env,
        cwd=tdrs.tmp,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = [line.split("\t")[0] for line in done.stdout.splitlines()]
    assert lines == [h.path for h in ranked_search(tdrs.wiki, "5.2", limit=3).hits]
    assert lines[0] == clause("5.2")


@needs_tdrs
@pytest.mark.parametrize("size", SIZES)
@sync
async def test_hafiza_lists_the_clause_first_for_its_number(
    tdrs: TuiWorld, size: tuple[int, int]
) -> None:
    """Typed into Hafıza's search, "5.2" lists clause 5.2 first, highlighted and
    previewed."""
    app = make_app(tdrs, search_delay=0, preview_delay=0)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        pane = app.query_one(MemoryPane)
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("slash")
        app.query_one("#memory-search", Input).value = "5.2"
        await until(pilot, lambda: pane.query_text == "5.2", "the results")
        await settle(pilot)
        assert pane.hits[0][0] == clause("5.2")
        entries = app.query_one("#memory-list", OptionList)
        assert entries.highlighted_option is not None
        assert entries.highlighted_option.id == "hit:0"
        assert "tdrs-rfq#5.2 " in shown(entries)
        reader = pane.reader
        await until(pilot, lambda: reader.path == clause("5.2"), "the clause previewed")


# --- the count of matches follows the search ---------------------------------------------


async def _hafiza_search(pilot, pane: MemoryPane, query: str) -> None:  # noqa: ANN001
    """``query`` typed into Hafıza's search box (the tab shown first), until the list
    shows its answer (an empty query: the memory lists alone)."""
    app = pilot.app
    if not app.query_one("#memory-search", Input).has_focus:
        await pilot.press("slash")
    app.query_one("#memory-search", Input).value = query
    await until(pilot, lambda: pane.query_text == query, f"the list for {query!r}")
    await settle(pilot)


def _bar(pane: MemoryPane) -> str:
    return shown(pane.reader.query_one("#reader-bar"))


@needs_tdrs
@pytest.mark.parametrize("size", SIZES)
@sync
async def test_clearing_the_search_clears_the_count_of_the_page_previewed(
    tdrs: TuiWorld, size: tuple[int, int]
) -> None:
    """The trial: with a page entry highlighted under the results (its preview counting
    the search's matches), clearing the search left the count ("277 matches") and the
    marks; the highlight stays on that page, which is now shown without them. Another
    query marks and counts its own words."""
    app = make_app(tdrs, search_delay=0, preview_delay=0)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        pane = app.query_one(MemoryPane)
        await pilot.press("2")
        await settle(pilot)
        await _hafiza_search(pilot, pane, "data")
        entries = app.query_one("#memory-list", OptionList)
        entries.highlighted = entries.get_option_index("page:index.md")
        reader = pane.reader
        await until(pilot, lambda: pane._previewing == "page:index.md", "the page entry")
        await until(
            pilot,
            lambda: reader.display and reader.path == "index.md" and reader.matches > 0,
            "the page previewed with its matches counted",
        )
        assert f"{reader.matches} match" in _bar(pane)
        await _hafiza_search(pilot, pane, "")
        assert entries.highlighted_option is not None
        assert entries.highlighted_option.id == "page:index.md"
        await until(pilot, lambda: reader.tokens == [], "the page shown without the words")
        await settle(pilot)
        assert reader.path == "index.md" and reader.display
        assert reader.matches == 0 and "match" not in _bar(pane)
        assert not reader.query(".-match")  # no block marked any more
        # a query without hits keeps the highlight on the page: its words are counted
        await _hafiza_search(pilot, pane, "ruling")
        await until(pilot, lambda: reader.tokens == ["ruling"], "the page marking the new word")
        await settle(pilot)
        if reader.path == "index.md":
            assert reader.matches > 0 and f"{reader.matches} match" in _bar(pane)


@needs_tdrs
@pytest.mark.parametrize("size", SIZES)
@sync
async def test_clearing_the_search_clears_the_count_of_an_opened_page(
    tdrs: TuiWorld, size: tuple[int, int]
) -> None:
    """A page opened for reading (a link's page, pinned, read full-screen; Enter back)
    stays in the reader when the list is rebuilt; cleared, the search's count and marks
    leave it too."""
    app = make_app(tdrs, search_delay=0, preview_delay=0)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        pane = app.query_one(MemoryPane)
        await pilot.press("2")
        await settle(pilot)
        await _hafiza_search(pilot, pane, "data")
        reader = pane.reader
        await until(pilot, lambda: reader.path == pane.hits[0][0], "the first hit previewed")
        assert reader.path != "disputed.md"
        pane.open_page("disputed.md")  # as a link followed from the page does
        await until(pilot, lambda: pane.opened == "disputed.md", "the page opened")
        await until(
            pilot, lambda: reader.path == "disputed.md" and reader.matches > 0, "its matches"
        )
        await settle(pilot)
        assert app.screen.maximized is not None
        await pilot.press("enter")  # back from full-screen
        await settle(pilot)
        assert app.screen.maximized is None
        await _hafiza_search(pilot, pane, "")
        await until(pilot, lambda: reader.tokens == [], "the page shown without the words")
        await settle(pilot)
        assert pane.opened == "disputed.md" and reader.path == "disputed.md"
        assert reader.matches == 0 and "match" not in _bar(pane)


# --- R in the footer on a disputed clause ------------------------------------------------


def _footer(app) -> str:  # noqa: ANN001
    """The footer row as drawn (the screen's last row)."""
    return ["".join(s.text for s in strip) for strip in app.screen._compositor.render_strips()][-1]


async def _highlight(pilot, kind: str) -> None:  # noqa: ANN001
    """Hafıza's list focused, the first entry of ``kind`` (``dis``, ``pre``) highlighted."""
    entries = pilot.app.query_one("#memory-list", OptionList)
    entries.focus()
    wanted = next(o.id for o in entries.options if (o.id or "").startswith(f"{kind}:"))
    entries.highlighted = entries.get_option_index(wanted)
    await settle(pilot)


@pytest.mark.parametrize("size", SIZES)
@sync
async def test_r_resolve_is_in_the_footer_on_a_disputed_clause(
    tui_world: TuiWorld, size: tuple[int, int]
) -> None:
    """The trial: "R Resolve" was in no footer at 80x24. On a disputed clause's entry in
    Hafıza (an approver's desk) the footer shows it, at 80x24 too (``q Quit`` gives way
    there, :data:`etki_tui.footer.SPARE`; q still quits); on any other entry it is left
    out, and R there says what to highlight. R on the disputed entry opens the form."""
    from etki_tui.screens.resolve import ResolveDisputeForm
    from tests.test_tui_pilot import Recorder

    seen = Recorder()
    app = make_app(tui_world)
    async with app.run_test(size=size, message_hook=seen) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        await _highlight(pilot, "pre")
        assert "R Resolve" not in _footer(app) and "? Help" in _footer(app)
        await pilot.press("R")
        await settle(pilot)
        assert not isinstance(app.screen, ResolveDisputeForm)
        assert "Highlight a disputed clause" in " ".join(seen.notes())
        await _highlight(pilot, "dis")
        await until(pilot, lambda: "R Resolve" in _footer(app), "R in the footer")
        row = _footer(app)
        assert "? Help" in row and "/ Search" in row and "Palette" in row
        assert ("q Quit" in row) == (size[0] > 80)
        await pilot.press("R")
        await until(pilot, lambda: isinstance(app.screen, ResolveDisputeForm), "the form")
        assert app.screen.item.ref == "MSA-2024-01#3.2"
        await pilot.press("escape")
        await settle(pilot)
        await _highlight(pilot, "pre")
        await until(pilot, lambda: "R Resolve" not in _footer(app), "R out of the footer")


@sync
async def test_r_resolve_is_not_in_a_viewers_footer(tui_world: TuiWorld) -> None:
    """A seat that may not resolve (the reviewer demoted to viewer) is not offered R."""
    from dataclasses import replace as dc_replace

    from etki.domain import Reviewer
    from tests.conftest import tui_project

    project = tui_project()
    demoted = dc_replace(
        project,
        config=dc_replace(
            project.config, reviewers=(Reviewer("ayse"), Reviewer("reviewer", "viewer"))
        ),
    )
    tui_world.repo.save_project(demoted, "sha256:tui", b"{}\n", update_reviewers=True, actor="ayse")
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.read_only
        await pilot.press("2")
        await settle(pilot)
        await _highlight(pilot, "dis")
        assert "R Resolve" not in _footer(app) and "? Help" in _footer(app)
