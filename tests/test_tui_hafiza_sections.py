"""Hafıza's live search over clause sections (issue 33: the contract page searched clause
by clause, as ``etki wiki search`` and MCP ``wiki_search`` do; issue 34 item 8: a preview
said "0 matches" for "login" on the contract page the search had listed: its matches
all lay past the preview's cut).

The real tdrs engagement, its wiki written by the real projector; Textual's pilot, every
wait for a state, never for time."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Input, OptionList

from etki.text import fold
from etki.wiki.pagematch import match_text, query_tokens
from etki.wiki.search import ranked_search
from etki.wiki.sections import find_section, split_address
from etki_tui.hafiza.cards import SHOWN_HITS
from etki_tui.hafiza.linepage import LinePage
from etki_tui.hafiza.pane import MemoryPane
from etki_tui.hafiza.preview import PREVIEW_TEXT_CHARS
from etki_tui.render import count_matches, match_spans
from tests.conftest import TDRS_DIR, build_tui_tdrs_world
from tests.test_tui_hafiza_toc import screen_lines
from tests.test_tui_pilot import make_app, settle, shown, sync, until

needs_tdrs = pytest.mark.skipif(not TDRS_DIR.is_dir(), reason="../shared/realdata/tdrs is absent")

CONTRACT_PAGE = "entities/contracts/tdrs-rfq.md"


async def _search(pilot, pane: MemoryPane, query: str) -> None:  # noqa: ANN001
    """Hafıza, ``query`` in its search box, until its results are listed."""
    await pilot.press("2")
    await settle(pilot)
    await pilot.press("slash")
    pilot.app.query_one("#memory-search", Input).value = query
    await until(pilot, lambda: pane.query_text == query, "the results")
    await settle(pilot)


@needs_tdrs
@sync
async def test_clause_sections_are_hits_previewed_alone_and_opened_at_the_clause(
    tmp_path: Path,
) -> None:
    """The desk lists the hits of ``etki wiki search`` (the one search function: the same
    addresses in the same order), a clause section titled with its heading (ref and
    title) and marked ``clause``; its preview is the section, whose matches are counted
    (before: the whole 70 KB page cut at 8,000 characters, "0 matches" for "login");
    Enter opens the whole contract page landed on that clause's heading."""
    world = build_tui_tdrs_world(tmp_path)
    try:
        wiki = world.wiki
        expect = ranked_search(wiki, "login", limit=SHOWN_HITS, backend="python").hits
        assert any("#" in h.path for h in expect)
        app = make_app(world, search_delay=0, preview_delay=0)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            pane = app.query_one(MemoryPane)
            await _search(pilot, pane, "login")
            assert [h[0] for h in pane.hits] == [h.path for h in expect]
            first = pane.hits[0][0]
            rel, anchor = split_address(first)
            assert rel == CONTRACT_PAGE and anchor
            text = (wiki / rel).read_text(encoding="utf-8")
            section = find_section(rel, text, anchor)
            assert section is not None
            assert pane.hit_titles[0] == section.title
            assert section.title.startswith("tdrs-rfq#")
            entry = shown(app.query_one("#memory-list", OptionList))
            assert section.title[:30] in entry and "clause" in entry
            assert "login" in fold(pane.hits[0][2])  # the snippet holds the match
            reader = pane.reader
            await until(pilot, lambda: reader.display and reader.path == first, "the preview")
            await until(pilot, lambda: reader.matches > 0, "the matches counted")
            assert reader.text == section.text  # the section alone
            assert f"{reader.matches} match" in shown(reader.query_one("#reader-bar"))
            await pilot.press("enter")  # from the search box: opens the highlighted hit
            if reader.path != rel:
                pane.open_option("hit:0")
            await until(pilot, lambda: reader.path == rel, "the whole contract page")
            await until(pilot, lambda: reader.landed == section.anchor, "landed on the clause")
            await settle(pilot)
            assert reader.text == text
            lines = reader.query_one("#memory-lines", LinePage)  # a long page: lines
            heading = lines.heading_line(section.title)
            scroll = reader.query_one("#reader-scroll", VerticalScroll)
            assert heading is not None and scroll.scroll_y > 0
            assert scroll.scroll_y == lines.virtual_region.y + heading
            top = scroll.content_region.y
            rows = screen_lines(app)
            assert section.title.split(" — ")[0] + " —" in rows[top], rows[top]
            assert reader.matches > 0  # the search words marked on the whole page too
    finally:
        world.repo.dispose()


CASES = [  # (page text, query): the search finds each; the counter must count each
    ("It runs a Python/Django app with Login.gov integration.", "login"),
    ("It runs a Python/Django app with Login.gov integration.", "LOGIN.GOV"),
    ("İSTANBUL ofisi ve ıSTANBUL yazımı", "istanbul"),
    (unicodedata.normalize("NFD", "İADE süreci"), "iade surecı"),
    ("Die Straße und die GRÖSSE", "strasse größe"),
    ("Die Straße und die Größe", "GROESSE"),
    ("STRAẞENKARTE", "straßenkarte"),
]


@pytest.mark.parametrize(("text", "query"), CASES)
def test_the_match_counter_folds_and_splits_as_the_search(text: str, query: str) -> None:
    """The reader's counter (:func:`match_spans`, :func:`count_matches`) takes the words
    the search takes (:func:`query_tokens`: ``Login.gov`` -> ``login``, ``gov``) folded
    as the search folds them: a line the search matches has a match for every word."""
    tokens = query_tokens(query)
    assert match_text(text, tokens) is not None, query  # the search finds the line
    shown = unicodedata.normalize("NFC", text)
    for token in tokens:
        assert match_spans(shown, [token]), (text, token)
    assert count_matches(text, tokens) == len(match_spans(shown, tokens)) > 0


@needs_tdrs
@sync
async def test_matches_past_the_preview_cut_are_said(tmp_path: Path) -> None:
    """A page whose only matches lie past the preview's cut (the tdrs contract page for
    "login" before it was searched clause by clause): the bar says how many, and where
    to read them, instead of a bare "0 matches"."""
    world = build_tui_tdrs_world(tmp_path)
    try:
        app = make_app(world, search_delay=0, preview_delay=0)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("2")
            await settle(pilot)
            pane = app.query_one(MemoryPane)
            reader = pane.reader
            text = (world.wiki / CONTRACT_PAGE).read_text(encoding="utf-8")
            assert fold(text).find("login") > PREVIEW_TEXT_CHARS
            expected = count_matches(text, ["login"])
            reader.display = True
            await reader.show(
                CONTRACT_PAGE, text, tokens=["login"], limit=PREVIEW_TEXT_CHARS, meta=False
            )
            await settle(pilot)
            bar = shown(reader.query_one("#reader-bar"), width=200)
            assert reader.matches == 0 and reader.hidden_matches == expected > 0
            assert f"0 matches · {expected} more past the part shown" in bar, bar
    finally:
        world.repo.dispose()
