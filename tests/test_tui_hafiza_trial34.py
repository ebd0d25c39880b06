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
