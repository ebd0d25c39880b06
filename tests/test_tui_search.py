"""Hafıza live search (issue 12 item 2): typing never waits on a search, searches run in
an exclusive worker the next keystroke cancels, the results are a ranked top-N of the
FTS5 index that the projector keeps current (no walk of the wiki per search), the
preview always belongs to the highlighted result and snippets are page text.

Real SQLite files, a real wiki written by the real projector, a real SQLite lock held by
another connection to make searches slow; Textual's pilot. Nothing waits on wall-clock
time: each wait is for a state.
"""

from __future__ import annotations

import sqlite3
import sys
import unicodedata
from pathlib import Path

import pytest
from textual import events
from textual.widgets import Input, Markdown, OptionList

from etki.domain import Request
from etki.services import approval_service
from etki.wiki import fts
from etki.wiki.search import ranked_search, search
from etki_tui.hafiza.pane import MemoryPane
from etki_tui.hafiza.reader import READABLE_BODY_CELLS
from etki_tui.messages import PageLoaded, SearchResults
from etki_tui.render import MATCH_STYLE
from tests.conftest import TuiWorld, build_tui_world, tui_decision
from tests.test_tui_pilot import Recorder, make_app, press, settle, shown, sync

EXTRA = (
    (
        Request(
            "R20",
            "Die maximale Größe der Anhänge ist zu klein für Baupläne.",
            "Anhang-Größe im İstanbul-Portal",
        ),
        tui_decision(
            "req-demo-c0c0a001",
            "IN_SCOPE",
            ("MSA-2024-01#4.3",),
            confidence=0.7,
            modules=("receipts",),
        ),
        "approve",
    ),
    (
        Request(
            "R21", "The istanbul office asks for GROESSE in the form title.", "Form title wording"
        ),
        tui_decision(
            "req-demo-c0c0a002",
            "IN_SCOPE",
            ("MSA-2024-01#4.3",),
            confidence=0.7,
            modules=("receipts",),
        ),
        "approve",
    ),
)


def _rule(world: TuiWorld, items: tuple) -> None:
    """Store and rule ``items`` through the real ApprovalService (its projector writes
    the pages and notes them for the search index)."""
    world.repo.add_cases("demo", [(r, d) for r, d, _ in items])
    approvals = approval_service(world.repo, world.settings)
    for _, decision, action in items:
        approvals.rule(decision.case_id, action, reviewer="reviewer")


def _world(tmp: Path) -> TuiWorld:
    world = build_tui_world(tmp)
    _rule(world, EXTRA)
    return world


class _Scandirs:
    """Counts ``os.scandir`` calls under a folder (a real measurement: CPython's audit
    event, raised by every ``os.scandir``), while :attr:`on`."""

    installed: _Scandirs | None = None

    def __init__(self, under: Path) -> None:
        self.under = str(under)
        self.count = 0
        self.on = False
        _Scandirs.installed = self
        if not getattr(_Scandirs, "_hooked", False):
            sys.addaudithook(_Scandirs._hook)  # hooks cannot be removed: one, gated
            _Scandirs._hooked = True  # type: ignore[attr-defined]

    @staticmethod
    def _hook(event: str, args: tuple) -> None:
        me = _Scandirs.installed
        if (
            me is not None
            and me.on
            and event == "os.scandir"
            and args
            and str(args[0]).startswith(me.under)
        ):
            me.count += 1


def _hit_text(wiki: Path, address: str) -> str:
    """The text of a hit: its page, or its clause section (``path#anchor``)."""
    from etki.wiki.sections import find_section, split_address

    rel, anchor = split_address(address)
    text = (wiki / rel).read_text("utf-8")
    section = find_section(rel, text, anchor) if anchor else None
    return text if section is None else section.text


def ranked(wiki: Path, query: str) -> list:
    """The hits of ``etki wiki search`` for ``query`` (Python backend, no cut): what the
    desk's live search lists (issue 33: one search function)."""
    return ranked_search(wiki, query, limit=None, backend="python").hits


def test_a_new_ruling_is_found_by_the_next_search_without_a_walk(tmp_path: Path) -> None:
    world = _world(tmp_path)
    wiki = world.wiki
    first = world.desk.wiki_top("demo", "contractor")
    assert first.synced == "walk"  # no index yet: built by stat, once
    assert world.desk.wiki_top("demo", "contractor").synced == "token"
    # a page nobody projected (no note): a walk would find it, the token path does not
    (wiki / "decisions" / "DEC-handmade.md").write_text("# Hand\n\nzebrafinch\n")
    _rule(
        world,
        (
            (
                Request("R30", "Citizens want a quokka mascot on receipts.", "Quokka mascot"),
                tui_decision(
                    "req-demo-c0c0a030",
                    "IN_SCOPE",
                    ("MSA-2024-01#4.3",),
                    confidence=0.6,
                    modules=("receipts",),
                ),
                "approve",
            ),
        ),
    )
    walks = _Scandirs(wiki)
    walks.on = True
    try:
        found = world.desk.wiki_top("demo", "quokka mascot")
        hand = world.desk.wiki_top("demo", "zebrafinch")
    finally:
        walks.on = False
    assert walks.count == 0  # not one folder of the wiki listed
    assert found.synced == "queued"  # the projector's queued pages were re-read
    # the hits of ``etki wiki search`` (the one search: a contract page as its sections)
    reference = {h.path for h in ranked(wiki, "quokka mascot")}
    assert {h.path for h in found.hits} == reference and found.total == len(reference)
    assert any(
        "req-demo-c0c0a030" in h.path and h.path.startswith("decisions/") for h in found.hits
    )
    assert hand.total == 0 and hand.synced == "token"  # proof that nothing walked
    # the CLI path too keeps to the token now (issue 15): the page nobody projected is
    # found once the index syncs by stat (a rebuild's refresh; a token it has not seen)
    assert search(wiki, "zebrafinch", backend="fts") == []
    assert fts.refresh(wiki) and search(wiki, "zebrafinch", backend="fts")


def test_a_killed_or_unnoted_projection_makes_the_next_search_walk(tmp_path: Path) -> None:
    world = _world(tmp_path)
    wiki = world.wiki
    assert fts.catch_up(wiki) == "walk"
    held = sqlite3.connect(fts.index_path(wiki), isolation_level=None, timeout=5)
    held.execute("BEGIN IMMEDIATE")  # the projector's note cannot get in: it gives up
    try:
        _rule(
            world,
            (
                (
                    Request("R31", "A wombat form is needed.", "Wombat form"),
                    tui_decision(
                        "req-demo-c0c0a031",
                        "IN_SCOPE",
                        ("MSA-2024-01#4.3",),
                        confidence=0.6,
                        modules=("receipts",),
                    ),
                    "approve",
                ),
            ),
        )
    finally:
        held.execute("ROLLBACK")
        held.close()
    found = world.desk.wiki_top("demo", "wombat")
    assert found.synced == "walk"  # the token did not match: synced by stat
    assert any("req-demo-c0c0a031" in h.path for h in found.hits)


def test_folding_finds_what_the_fold_rule_says(tmp_path: Path) -> None:
    world = _world(tmp_path)
    wiki = world.wiki

    def pages(query: str) -> set[str]:
        got = world.desk.wiki_top("demo", query)
        assert got.total == len(got.hits)
        return {h.path for h in got.hits}

    def reference(query: str) -> set[str]:
        return {h.path for h in ranked(wiki, query)}

    size = {"größe", "GRÖSSE", "grosse", unicodedata.normalize("NFD", "GRÖßE"), "GROẞE"}
    city = {
        "İstanbul",
        "istanbul",
        "ISTANBUL",
        "ıstanbul",
        unicodedata.normalize("NFD", "İSTANBUL"),
    }
    for query in size | city | {"GROESSE", "groesse"}:
        assert pages(query) == reference(query), query
    assert len({frozenset(pages(q)) for q in size}) == 1
    assert any("req-demo-c0c0a001" in p for p in pages("größe"))
    assert not any("req-demo-c0c0a002" in p for p in pages("größe"))  # "groesse" ≠ "grosse"
    assert any("req-demo-c0c0a002" in p for p in pages("GROESSE"))
    assert len({frozenset(pages(q)) for q in city}) == 1
    assert {"req-demo-c0c0a001", "req-demo-c0c0a002"} <= {
        p.rsplit("--", 1)[-1].removesuffix(".md") for p in pages("İstanbul")
    }


def test_a_two_letter_word_ranks_the_pages_where_it_starts_a_word_first(tmp_path: Path) -> None:
    """A trial: "İK" (Turkish for HR) listed pages holding "impacted" and "Bakanlıkla"
    first, in path order. The same pages match (every backend's rule: the token as a
    substring); those where it begins a word come first."""
    import re

    from etki.text import fold

    world = _world(tmp_path)
    hr = (
        Request("R22", "İK ekibi izin raporunu göremiyor.", "İK izin raporu"),
        tui_decision("req-demo-c0c0a003", "IN_SCOPE", ("MSA-2024-01#4.3",), confidence=0.7),
        "approve",
    )
    noise = (
        Request("R23", "Bakanlıkla paylaşılan dosya açılmıyor.", "Dosya paylaşımı"),
        tui_decision("req-demo-c0c0a004", "IN_SCOPE", ("MSA-2024-01#4.3",), confidence=0.7),
        "approve",
    )
    _rule(world, (noise, hr))
    got = world.desk.wiki_top("demo", "İK")
    paths = [h.path for h in got.hits]
    assert paths == [h.path for h in ranked(world.wiki, "İK")]  # the same order too
    starts = [bool(re.search(r"(?<![a-z0-9])ik", fold(_hit_text(world.wiki, p)))) for p in paths]
    assert any(not s for s in starts)  # pages with "ik" only inside a word are found too
    assert starts == sorted(starts, reverse=True), list(zip(paths, starts, strict=True))
    assert any("req-demo-c0c0a003" in p for p in paths[: starts.count(True)])
    assert any("req-demo-c0c0a004" in p for p in paths[starts.count(True) :])
    for hit, starting in zip(got.hits, starts, strict=True):  # and the excerpt shows it
        # (a trial: index.md's read "…etki.wiki rebuild." above its "İK iş" line)
        assert not starting or re.search(r"(?<![a-z0-9])ik", fold(hit.snippet)), hit


def test_snippets_are_page_text_never_slugs(tmp_path: Path) -> None:
    world = _world(tmp_path)
    found = world.desk.wiki_top("demo", "contractor")
    page = next(
        h for h in found.hits if h.path.startswith("decisions/") and "req-demo-9b0f4d68" in h.path
    )
    assert page.title == "SSO for contractor accounts"
    assert "contractor" in page.snippet.lower()
    for hit in found.hits:
        assert ".md" not in hit.snippet and "PRE-" not in hit.snippet, hit
        assert "--req-" not in hit.snippet and "--req-" not in hit.title, hit
    # the old matcher's best line for this page was the frontmatter's slug
    old = next(h for h in search(world.wiki, "contractor", backend="python") if h.path == page.path)
    assert "PRE-sso-for-contractor-accounts" in old.snippet


def test_a_change_request_snippet_is_its_request_not_its_cr_id(tmp_path: Path) -> None:
    """A trial searched "Größe" on talentmap: the change request's entry showed
    "…chriftgrosse-zu-klein-…", its CR id line, though the request's own words hold the
    match. A line whose matches all sit in a slug is the snippet only when no other line
    holds as many words."""
    world = _world(tmp_path)
    _rule(
        world,
        (
            (
                Request("R31", "Die Schriftgröße im Portal ist zu klein.", "Schriftgröße zu klein"),
                tui_decision(
                    "req-demo-c0c0a031", "CHANGE_REQUEST", ("MSA-2024-01#4.3",), confidence=0.6
                ),
                "convert_to_cr",
            ),
        ),
    )
    for query in ("Größe", "GROESSE"):
        found = world.desk.wiki_top("demo", query)
        cr = next(h for h in found.hits if h.path.startswith("change-requests/"))
        assert "Schriftgröße im Portal" in cr.snippet, cr
        assert "schriftgrosse-zu" not in cr.snippet.lower(), cr


# --- the desk --------------------------------------------------------------------------


async def _type(pilot, text: str) -> None:  # noqa: ANN001
    """Type ``text`` as a fast typist: every key goes to the terminal driver at once,
    without waiting for the app to handle the one before."""
    driver = pilot.app._driver
    for ch in text:
        key = events.Key(ch, ch)
        key.set_sender(pilot.app)
        driver.send_message(key)


async def _to_search(pilot) -> Input:  # noqa: ANN001
    """Open Hafıza and put the cursor in its search box."""
    await pilot.press("2")
    await settle(pilot)
    await pilot.press("slash")
    box = pilot.app.query_one("#memory-search", Input)
    assert pilot.app.focused is box
    return box


async def _until(pilot, cond, what: str, rounds: int = 2000) -> None:  # noqa: ANN001
    """Wait for a state (``cond()`` true), letting the app run between looks."""
    for _ in range(rounds):
        if cond():
            return
        await pilot.pause()
    raise AssertionError(f"never reached: {what}")


@sync
async def test_typing_keeps_every_letter_while_searches_are_stuck_on_a_lock(tmp_path: Path) -> None:
    """(a) and (b): the index is locked by another connection (a real SQLite write
    lock) and a ruling left its token unmatched, so every search must wait for the lock.
    Every letter typed lands in the box, in order, while they wait; each keystroke
    cancels the search before it; once the lock is released only the last query's
    results are shown, and an older answer posted late changes nothing."""
    world = _world(tmp_path)
    wiki = world.wiki
    fts.catch_up(wiki)
    seen = Recorder()
    app = make_app(world, search_delay=0)
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await settle(pilot)
        held = sqlite3.connect(fts.index_path(wiki), isolation_level=None, timeout=5)
        held.execute("BEGIN IMMEDIATE")
        try:
            _rule(
                world,
                (
                    (
                        Request("R32", "GROESSE of the contractor badge.", "Badge"),
                        tui_decision(
                            "req-demo-c0c0a032",
                            "IN_SCOPE",
                            ("MSA-2024-01#4.3",),
                            confidence=0.6,
                            modules=("receipts",),
                        ),
                        "approve",
                    ),
                ),
            )
            box = await _to_search(pilot)
            await _type(pilot, "GROESSE contractor")
            await _until(pilot, lambda: box.value == "GROESSE contractor", "all letters")
            assert not seen.of(SearchResults)  # every search is still waiting on the lock
            searching = [w for w in app.workers if w.group == "search"]
            assert searching and sum(not w.is_cancelled for w in searching) <= 1
        finally:
            held.execute("ROLLBACK")
            held.close()
        pane = app.query_one(MemoryPane)
        await _until(pilot, lambda: pane.query_text == "GROESSE contractor", "results")
        await settle(pilot)
        results = seen.of(SearchResults)
        assert [r.query for r in results] == ["GROESSE contractor"]  # older ones cancelled
        assert box.value == "GROESSE contractor"
        assert any("req-demo-c0c0a032" in path for path, _, _ in pane.hits)
        newest = pane.hits
        app.post_message(
            SearchResults("GROESSE contractor", [("index.md", 1, "stale")], seq=results[0].seq - 1)
        )
        await settle(pilot)
        assert pane.hits == newest  # an older search's answer never replaces it


@sync
async def test_letters_typed_right_after_slash_from_another_tab_all_land(tmp_path: Path) -> None:
    """(a): ``/`` on Raporlar switches to Hafıza and puts the cursor in the search box;
    the tab's activation, handled after that, used to move the focus to the list, so
    the letters typed next went to the list and were lost ("GROESSE" read "ESSE")."""
    world = _world(tmp_path)
    app = make_app(world, search_delay=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        await pilot.press("slash")
        await _type(pilot, "GROESSE")
        box = app.query_one("#memory-search", Input)
        await _until(
            pilot,
            lambda: box.value == "GROESSE" or len(box.value) >= 7 or not box.has_focus,
            "the letters or the focus gone",
        )
        await settle(pilot)
        assert app.focused is box and box.value == "GROESSE"
        pane = app.query_one(MemoryPane)
        await _until(pilot, lambda: pane.query_text == "GROESSE", "its results")
        assert any("req-demo-c0c0a002" in path for path, _, _ in pane.hits)


@sync
async def test_keys_are_handled_while_a_page_is_laid_out(tmp_path: Path) -> None:
    """(a) typing never waits on the reader: a page's markdown (here a long one, read
    full-screen) is laid out in the pane's own worker, so a key pressed right after the
    page arrived reaches the box before the layout is done. The app's message queue
    used to wait for the whole layout (up to 1.4 s), every key behind it."""
    world = _world(tmp_path)
    order: list[str] = []

    def hook(message) -> None:  # noqa: ANN001
        if isinstance(message, Input.Changed) and message.value == "q" and "key" not in order:
            order.append("key")
        elif isinstance(message, Markdown.TableOfContentsUpdated) and "layout" not in order:
            order.append("layout")  # posted when the page's blocks are all mounted

    app = make_app(world)
    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        box = await _to_search(pilot)
        await settle(pilot)
        order.clear()
        big = "# Big page\n\n" + "\n\n".join(
            f"Paragraph {i} about receipts and the staff sign-in." for i in range(1500)
        )
        app.post_message(PageLoaded("index.md", big, history="push"))
        await _type(pilot, "q")
        await _until(pilot, lambda: box.value == "q" and "layout" in order, "key and page")
        assert order == ["key", "layout"]


@sync
async def test_the_preview_follows_the_highlight_when_results_change(tmp_path: Path) -> None:
    """(c): the preview shows the highlighted result's page; when new results come, the
    old page is not left on screen — at once a card with the new hit's title and
    excerpt — and the page that is then shown is the highlighted one's. The preview
    delay (shipped 0.15 s) is fired by hand (``flush_preview``) so nothing depends on
    timing."""
    world = _world(tmp_path)
    app = make_app(world, search_delay=0, preview_delay=3600)
    async with app.run_test(size=(120, 40)) as pilot:
        box = await _to_search(pilot)
        pane = app.query_one(MemoryPane)
        entries = app.query_one("#memory-list", OptionList)

        def highlighted_path() -> str | None:
            option = entries.highlighted_option
            if option is None or not (option.id or "").startswith("hit:"):
                return None
            return pane.hits[int(option.id.split(":")[1])][0]

        box.value = "contractor"
        await _until(pilot, lambda: pane.query_text == "contractor", "first results")
        assert pane.flush_preview()
        await settle(pilot)
        first = highlighted_path()
        assert first is not None and pane.reader.display and pane.reader.path == first
        box.value = "größe"
        await _until(pilot, lambda: pane.query_text == "größe", "new results")
        await settle(pilot)
        now = highlighted_path()
        assert now is not None and now != first
        assert not pane.reader.display  # never the old page: the new hit's card
        assert pane.hit_titles[0] in shown(pane.query_one("#memory-card"))
        assert pane.flush_preview()
        await settle(pilot)
        assert pane.reader.display and pane.reader.path == highlighted_path() == now
        # a late answer for a page that is no longer highlighted is never shown
        app.post_message(PageLoaded(first, "# Old\n\nstale", history="replace"))
        await settle(pilot)
        assert pane.reader.path == now


@sync
async def test_down_and_up_in_the_search_box_move_through_the_results(tmp_path: Path) -> None:
    """Down in the search box goes to the results and moves the highlight to the second
    hit (the first was highlighted already); Up from the box moves it back up; the
    preview follows; Escape goes to the list with the text kept."""
    world = _world(tmp_path)
    app = make_app(world, search_delay=0, preview_delay=0)
    async with app.run_test(size=(120, 40)) as pilot:
        box = await _to_search(pilot)
        pane = app.query_one(MemoryPane)
        entries = app.query_one("#memory-list", OptionList)
        box.value = "contractor"
        await _until(pilot, lambda: pane.query_text == "contractor", "the results")
        await settle(pilot)
        assert len(pane.hits) >= 2
        assert entries.highlighted_option.id == "hit:0"
        await press(pilot, "down")
        assert app.focused is entries and entries.highlighted_option.id == "hit:1"
        assert pane.reader.path == pane.hits[1][0]
        box.focus()
        await press(pilot, "up")
        assert app.focused is entries and entries.highlighted_option.id == "hit:0"
        box.focus()
        await press(pilot, "escape")
        assert app.focused is entries and box.value == "contractor"


@sync
async def test_a_long_query_shows_its_start_once_the_box_is_left(tmp_path: Path) -> None:
    """At 80x24 the search box is ~30 cells: a trial read only the last words of a long
    query while reading the results. Left, the box shows the start; back in it, the
    cursor (at the end) is in view again; a search that finds nothing names every word."""
    world = _world(tmp_path)
    app = make_app(world, search_delay=0)
    query = "grantee file upload validation error report spreadsheet"
    async with app.run_test(size=(80, 24)) as pilot:
        box = await _to_search(pilot)
        pane = app.query_one(MemoryPane)
        for key in query:
            await pilot.press("space" if key == " " else key)
        await _until(pilot, lambda: pane.query_text == query, "the results")
        await settle(pilot)
        assert box.scroll_offset.x > 0  # typing: the end (the cursor) is in view
        await press(pilot, "escape")
        assert app.focused is not box
        await _until(pilot, lambda: box.scroll_offset.x == 0, "the box scrolled to its start")
        assert "grantee file" in shown(box, height=3)
        entries = app.query_one("#memory-list", OptionList)
        prompts = [str(getattr(o.prompt, "plain", o.prompt)) for o in entries.options]
        assert f"  no page has all of: {query}" in prompts
        box.focus()
        await _until(pilot, lambda: box.scroll_offset.x > 0, "the cursor in view again")


@sync
async def test_hafiza_entries_show_title_and_text_not_the_slug(tmp_path: Path) -> None:
    """(d) in the desk: each hit reads as its page's title and an excerpt of its text."""
    world = _world(tmp_path)
    app = make_app(world, search_delay=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await _to_search(pilot)
        pane = app.query_one(MemoryPane)
        app.query_one("#memory-search", Input).value = "contractor"
        await _until(pilot, lambda: pane.query_text == "contractor", "results")
        await settle(pilot)
        text = shown(app.query_one("#memory-list", OptionList))
        assert "SSO for contractor accounts" in text
        assert "PRE-sso-for" not in text and "--req-demo" not in text


# --- the reader (issue 12 item 7) -------------------------------------------------------


@pytest.mark.parametrize("columns", [120, 100])
@sync
async def test_reader_contents_stay_beside_the_body_and_the_bar_says_history(
    tmp_path: Path, columns: int
) -> None:
    """The contents tree keeps to its column (a long heading used to widen it over the
    page body); the column takes the cells its headings need while the page keeps a
    readable line (issue 34 trial: entries cut to ~20 cells), so at 120 columns every
    heading is whole and at 100 the precedent's title is cut with an ellipsis (it used
    to be cropped without a sign); the history line says what it counts."""
    world = build_tui_world(tmp_path)
    app = make_app(world)
    async with app.run_test(size=(columns, 40)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("enter")  # the precedent's page, full-screen, with contents
        await settle(pilot)
        reader = app.query_one(MemoryPane).reader
        toc = reader.query_one("#reader-toc")
        tree = toc.query_one("Tree")
        body = reader.query_one("#reader-scroll")
        assert toc.display
        assert tree.region.right <= toc.region.right < body.region.x
        await _until(pilot, lambda: tree.root.children, "the contents")
        headings = {block: name for _, name, block in toc.table_of_contents}

        def labels() -> list[tuple[str, str]]:
            """(heading, its label in the tree) of every entry."""
            out, stack = [], list(tree.root.children)
            while stack:
                node = stack.pop()
                stack.extend(node.children)
                if node.data:
                    name = headings[node.data["block_id"]]
                    out.append((name, node.label.plain.split(" ", 1)[1]))
            return out

        assert body.region.width >= READABLE_BODY_CELLS
        cut = [(name, label) for name, label in labels() if label != name]
        assert bool(cut) == (columns < 120), cut
        assert all(label.endswith("…") and name.startswith(label[:-1]) for name, label in cut)
        assert all(tree.render_line(y).cell_length <= tree.size.width for y in range(5))
        assert not tree.virtual_size.width > tree.size.width  # nothing cropped at the edge
        bar = shown(reader.query_one("#reader-bar"))
        assert "◀b back · history 1 of 1 · forward F▶" in bar and "page 1/1" not in bar
        await pilot.press("l")
        await settle(pilot)
        await pilot.press("enter")  # follow the first link: a second page in the history
        await settle(pilot)
        assert "history 2 of 2" in shown(reader.query_one("#reader-bar"))


def test_the_desk_search_without_a_usable_index_reads_pages_but_never_a_symlink(
    tmp_path: Path,
) -> None:
    """When the FTS5 index cannot be used (here: a folder stands where its file goes)
    the desk's search answers from the plain search with text excerpts; a page that is
    a symlink planted in the wiki is never read through (its outside text is not
    shown), with the index (rebuilt from a file that is not a database) or without."""
    from etki.wiki import fts

    world = build_tui_world(tmp_path)
    try:
        root = world.desk.wiki_root(world.project_id)
        assert root is not None and root.is_dir()
        fts.index_path(root).write_bytes(b"not a database " * 64)
        outside = tmp_path / "outside.md"
        outside.write_text("# Secret\n\ncontractor SECRET-OUTSIDE-TEXT\n", encoding="utf-8")
        (root / "decisions" / "planted.md").symlink_to(outside)
        rebuilt = world.desk.wiki_top(world.project_id, "contractor")
        assert rebuilt is not None and rebuilt.synced == "walk" and rebuilt.hits
        assert not any("SECRET" in h.snippet for h in rebuilt.hits)
        fts.index_path(root).unlink()
        fts.index_path(root).mkdir()
        found = world.desk.wiki_top(world.project_id, "contractor")
        assert found is not None and found.synced == "scan"
        assert found.hits and all(h.snippet for h in found.hits)
        assert not any("SECRET" in h.snippet for h in found.hits)
    finally:
        world.repo.dispose()


@sync
async def test_a_match_in_a_table_cell_is_counted_and_highlighted(tmp_path: Path) -> None:
    """index.md holds 'disputed' only in tables (its counts, the last rulings): the
    reader's line counts those matches and the cells show them ('0 matches' on a page
    the search had listed, trial of issue 12)."""
    from textual.widgets import Static

    world = _world(tmp_path)
    app = make_app(world, search_delay=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pane = app.query_one(MemoryPane)
        await _to_search(pilot)
        app.query_one("#memory-search", Input).value = "disputed"
        await _until(pilot, lambda: pane.query_text == "disputed", "results")
        await settle(pilot)
        assert "index.md" in [path for path, _line, _snippet in pane.hits]
        pane.open_page("index.md")
        reader = pane.reader
        await _until(pilot, lambda: reader.path == "index.md" and reader.matches, "the page")

        def lit_cells() -> list[Static]:
            cells = reader.query("MarkdownTableContent Static").results(Static)
            return [c for c in cells if any(MATCH_STYLE in str(s.style) for s in c.content.spans)]

        # the tables' cells mount after the page text: wait for them, not for time
        await _until(pilot, lambda: bool(lit_cells()), "the lit cells")
        lit = lit_cells()
        assert lit and reader.matches >= len(lit)
        assert f"{reader.matches} match" in shown(reader.query_one("#reader-bar"))
