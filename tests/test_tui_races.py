"""Answers that meet a widget at the wrong moment (issue 12 item 3): every result a
worker posts, every request a widget posts, delivered to a desk whose target widget is
not composed yet, has been removed, sits under a modal screen, or is being torn down
while the desk shuts down. The desk keeps running (no exception reaches the app, so a
terminal would not close) and the state is right once the widget is there.

Real SQLite files and a real wiki (the ``tui_world`` fixture); the messages are the
ones the workers post, built from real desk calls. Nothing waits on time: each step
waits for a state (:func:`tests.test_tui_pilot.until`).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rich.text import Text
from textual.message import Message
from textual.widgets import Input, OptionList, Static
from textual.widgets.markdown import MarkdownBlock

from etki.services import approval_service
from etki_tui.app import EtkiApp
from etki_tui.hafiza.pane import MemoryPane
from etki_tui.hafiza.reader import PageReader
from etki_tui.messages import (
    CaseWanted,
    DeskFailed,
    DetailsLoaded,
    MemoryLoaded,
    PageLoaded,
    PageWanted,
    QueueLoaded,
    RuleRequested,
    RulingCommitted,
    RulingConflict,
    RulingFailed,
    RulingProjected,
    SearchChanged,
    SearchResults,
    WikiCaughtUp,
)
from etki_tui.queue.pane import QueuePane
from etki_tui.raporlar.pane import ReportsPane
from etki_tui.screens.confirm import ConfirmRuling
from etki_tui.screens.notice import NoticeModal, TooSmallScreen
from tests.conftest import TuiWorld
from tests.test_tui_pilot import FIRST, SECOND, make_app, press, settle, shown, sync, until

PAGE = "index.md"


# --- the workers' answers, from real desk calls ------------------------------------------


def queue_loaded(app: EtkiApp, source: str = "poll") -> QueueLoaded:
    """What :meth:`EtkiApp.load_queue` / ``poll_queue`` post (same reads)."""
    return app._load(app.project_id, source, projects=source != "poll")


def memory_loaded(world: TuiWorld) -> MemoryLoaded:
    """What :meth:`EtkiApp.load_memory` posts."""
    desk, pid = world.desk, world.project_id
    root = desk.wiki_pages(pid, ".")
    return MemoryLoaded(
        desk.precedents(pid),
        desk.disputed(pid),
        {c.ref: c for c in desk.project(pid).clauses},
        desk.wiki_pages(pid),
        desk.wiki_root(pid) is not None,
        project_id=pid,
        precedent_pages=desk.wiki_pages(pid, "precedents"),
        top_pages=[p for p in ("index.md", "disputed.md") if p in root],
    )


def search_results(world: TuiWorld, query: str) -> SearchResults:
    """What :meth:`EtkiApp.search_wiki` posts."""
    found = world.desk.wiki_top(world.project_id, query, limit=50)
    assert found is not None and found.hits, f"the fixture wiki has pages with {query!r}"
    return SearchResults(query, found.hits, project_id=world.project_id, total=found.total)


def dc_replace_seq(message: SearchResults, seq: int) -> SearchResults:
    """``message`` numbered as the desk's search ``seq`` (only the newest one shows)."""
    return SearchResults(
        message.query, message.hits, message.error, message.project_id, total=message.total, seq=seq
    )


def page_loaded(world: TuiWorld, path: str = PAGE, history: str = "push") -> PageLoaded:
    """What :meth:`EtkiApp.load_page` posts."""
    return PageLoaded(
        path,
        world.desk.read_page(world.project_id, path),
        history=history,
        project_id=world.project_id,
    )


def details_loaded(world: TuiWorld, *case_ids: str) -> DetailsLoaded:
    """What :meth:`EtkiApp.load_details` posts."""
    return DetailsLoaded(
        world.desk.cases(list(case_ids)), list(case_ids), project_id=world.project_id
    )


def report_loaded(world: TuiWorld):  # noqa: ANN201
    from etki_tui.messages import ReportLoaded

    return ReportLoaded(world.desk.report(world.project_id), project_id=world.project_id)


def ruled(world: TuiWorld, case_id: str, action: str = "reject") -> RulingCommitted:
    """Commit a ruling through the desk (as :meth:`EtkiApp.rule_case` does) and return
    the message that worker posts."""
    case = world.desk.case(case_id)
    outcome = world.desk.rule_first(case_id, action, reason="", expected_version=case.version)
    return RulingCommitted(case_id, action, outcome, {})


def projected(world: TuiWorld, case_id: str, action: str = "reject") -> RulingProjected:
    """Project the committed ruling (as :meth:`EtkiApp.project_ruling` does)."""
    report, error = world.desk.project_ruling(case_id)
    ruled_cases = world.desk.queue_summaries(world.project_id, status="ruled")
    return RulingProjected(
        case_id,
        action,
        report,
        error,
        world.desk.clause_memory_of(ruled_cases),
        world.desk.ruling_index_of(world.project_id, ruled_cases),
    )


def caught_up(world: TuiWorld) -> WikiCaughtUp:
    report, error = world.desk.catch_up_wiki(world.project_id)
    return WikiCaughtUp(world.project_id, report, error)


def elsewhere(world: TuiWorld, case_id: str, action: str = "reject") -> None:
    """Another reviewer rules ``case_id`` (another process, same database)."""
    approval_service(world.repo, world.settings).rule(
        case_id, action, reason="Out of remit.", reviewer="ayse"
    )


def alive(app: EtkiApp) -> None:
    """No exception reached the app (in a terminal, one would have ended it)."""
    assert app._exception is None, repr(app._exception)
    assert app.return_code in (None, 0)


# --- a modal screen that is not built yet --------------------------------------------------


@sync
async def test_a_refresh_meets_the_confirm_dialog_before_it_is_built(tui_world: TuiWorld) -> None:
    """``a`` opens the dialog; the live refresh that finds the case ruled elsewhere is
    handled in the same turn of the app's queue, before the dialog has composed its
    widgets (the two handlers run back to back here, as the queue may run them). The
    dialog keeps the news and shows it once built (NoMatches '#confirm-error' before,
    which ended the app)."""
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        case = tui_world.desk.case(FIRST)
        elsewhere(tui_world, FIRST)
        refresh = queue_loaded(app)
        app._rule_requested(RuleRequested(case, "approve"))
        assert isinstance(app.screen, ConfirmRuling) and not app.screen.children
        app._queue_loaded(refresh)
        await until(pilot, lambda: app.screen.query("#confirm-error"), "the dialog built")
        error = app.screen.query_one("#confirm-error", Static)
        assert "ayse" in shown(error, 70, 2)
        alive(app)


@sync
async def test_two_resizes_before_the_too_small_notice_is_built(tui_world: TuiWorld) -> None:
    """Two shrinking resizes handled back to back: the second reaches the notice the
    first pushed before it is composed (NoMatches '#too-small-body' before); it is
    composed with the last size."""
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app._check_size(50, 12)
        notice = app.screen
        assert isinstance(notice, TooSmallScreen) and not notice.children
        app._check_size(44, 11)
        await until(pilot, lambda: notice.query("#too-small-body"), "the notice built")
        assert "44×11" in shown(notice.query_one("#too-small-body"), 80, 6)
        alive(app)


# --- panes that are not composed yet ------------------------------------------------------


@sync
async def test_panes_keep_what_arrives_before_they_are_composed(tui_world: TuiWorld) -> None:
    """Data given to a pane mounted but not composed yet (the same turn as its mount) is
    kept and drawn when its widgets exist: the queue, Hafıza's lists and page, Raporlar."""
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "3")  # a shown tab: panes laid out there get a width
        await settle(pilot)
        loaded = queue_loaded(app, "load")
        memory = memory_loaded(tui_world)
        page = page_loaded(tui_world)
        hits = search_results(tui_world, "contract")
        report = report_loaded(tui_world)
        host = app.query_one("#raporlar")
        queue, hafiza, reports = (
            QueuePane(id="late-queue"),
            MemoryPane(id="late-memory"),
            ReportsPane(id="late-reports"),
        )
        host.mount(queue, hafiza, reports)  # not awaited: nothing is composed yet
        assert not queue.children and not hafiza.children and not reports.children
        queue.load(loaded.cases, loaded.clauses, loaded.memory, rulings=loaded.rulings)
        hafiza.set_memory(
            memory.precedents,
            memory.disputed,
            memory.clauses,
            memory.pages,
            memory.wiki_on,
            precedent_pages=memory.precedent_pages,
            top_pages=memory.top_pages,
        )
        hafiza.set_hits(hits.query, hits.hits)
        await hafiza.show_page(page.path, page.text, history="push")
        reports.show(report.report)
        await until(
            pilot,
            lambda: queue.is_mounted and hafiza.is_mounted and reports.is_mounted,
            "the panes mounted",
        )
        await settle(pilot)
        pending = [c.case_id for c in loaded.pending]
        await until(pilot, lambda: queue.table.row_keys() == pending, "the rows drawn")
        assert queue.current_case_id() == pending[0]
        entries = hafiza.query_one(OptionList)
        ids = [o.id for o in entries.options if o.id]
        assert f"pre:{memory.precedents[0].case_id}" in ids and "hit:0" in ids
        await until(
            pilot,
            lambda: hafiza.reader.path == PAGE and hafiza.reader.history.position() != "",
            "the page shown",
        )
        body = reports.query_one("#report-body", Static)
        assert "Loading" not in shown(body, 100, 5)
        alive(app)


@sync
async def test_the_reader_keeps_a_page_that_arrives_before_it_is_composed(
    tui_world: TuiWorld,
) -> None:
    """The reader fix of e1d022f: a page and a contents choice given to a reader that is
    mounted but not composed are shown once it is (it raised NoMatches '#reader-toc')."""
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "3")
        await settle(pilot)
        page = page_loaded(tui_world, "disputed.md")
        reader = PageReader(id="late-reader")
        app.query_one("#raporlar").mount(reader)
        reader.fit_toc(120)
        await reader.show(page.path, page.text, history="push")
        await until(
            pilot, lambda: reader.is_mounted and reader.query("#memory-page"), "the reader composed"
        )
        await settle(pilot)
        assert reader.path == "disputed.md" and reader.show_toc
        assert reader.query_one("#reader-toc").display
        await until(
            pilot,
            lambda: any(
                "Disputed clauses" in shown(b, 100, 1) for b in reader.query(MarkdownBlock)
            ),
            "the page's heading drawn",
        )
        alive(app)


# --- panes that are gone ------------------------------------------------------------------

RESULTS: dict[str, Callable[[EtkiApp, TuiWorld], Message]] = {
    "QueueLoaded": lambda app, w: queue_loaded(app),
    "MemoryLoaded": lambda app, w: memory_loaded(w),
    "SearchResults": lambda app, w: search_results(w, "contract"),
    "PageLoaded": lambda app, w: page_loaded(w),
    "DetailsLoaded": lambda app, w: details_loaded(w, FIRST, SECOND),
    "ReportLoaded": lambda app, w: report_loaded(w),
    "RulingCommitted": lambda app, w: ruled(w, SECOND),
    "RulingProjected": lambda app, w: (ruled(w, SECOND), projected(w, SECOND))[1],
    "WikiCaughtUp": lambda app, w: caught_up(w),
    "RulingConflict": lambda app, w: RulingConflict(FIRST, "ayse", None, "REJECT", "ruled"),
    "RulingFailed": lambda app, w: RulingFailed(FIRST, "approve", "disk full"),
    "DeskFailed": lambda app, w: DeskFailed("Hafıza", "no such table", "Run etki init."),
    "SearchChanged": lambda app, w: SearchChanged("contract", immediate=True),
    "PageWanted": lambda app, w: PageWanted(PAGE, history="push"),
    "CaseWanted": lambda app, w: CaseWanted(FIRST),
}
"""Every message the app handles by reaching into a pane, built as its sender does."""


@pytest.mark.parametrize("kind", sorted(RESULTS))
@sync
async def test_an_answer_for_a_pane_that_is_gone_is_dropped(tui_world: TuiWorld, kind: str) -> None:
    """Each pane removed, then the message: the desk keeps running and says why it
    dropped it (nothing to draw into)."""
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        message = RESULTS[kind](app, tui_world)
        for pane in (QueuePane, MemoryPane, ReportsPane):
            await app.query_one(pane).remove()
        app.post_message(message)
        await settle(pilot)
        alive(app)
        if kind == "RulingCommitted":  # the ruling is saved whatever the screen does
            assert tui_world.repo.case(SECOND).ruling is not None


@pytest.mark.parametrize("kind", sorted(RESULTS))
@sync
async def test_an_answer_while_the_desk_shuts_down(tui_world: TuiWorld, kind: str) -> None:
    """The message is still queued when the desk closes (its widgets are removed,
    children first, while the app handles it): the desk closes cleanly. ``run_test``
    re-raises any exception the app saw, so leaving the block is the assertion."""
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "2")  # Hafıza, so its reader and lists are all in use
        await settle(pilot)
        message = RESULTS[kind](app, tui_world)
        app.post_message(message)
        app.post_message(page_loaded(tui_world, "disputed.md", "replace"))
    alive(app)


@sync
async def test_answers_under_a_modal_reach_the_desk_beneath(tui_world: TuiWorld) -> None:
    """With a notice on top, the queue, Hafıza and Raporlar answers still reach their
    panes on the desk beneath (the app queries its default screen, not the modal)."""
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.push_screen(NoticeModal("Note", Text("on top"), id="on-top"))
        await until(pilot, lambda: isinstance(app.screen, NoticeModal), "the notice up")
        elsewhere(tui_world, SECOND, "approve")
        for message in (
            queue_loaded(app),
            memory_loaded(tui_world),
            page_loaded(tui_world),
            report_loaded(tui_world),
            details_loaded(tui_world, FIRST),
        ):
            app.post_message(message)
        await settle(pilot)
        alive(app)
        assert isinstance(app.screen, NoticeModal)
        assert SECOND not in app.query_one(QueuePane).table.row_keys()
        assert app.query_one(MemoryPane).reader.path == PAGE
        assert app.query_one(ReportsPane).report is not None


@sync
async def test_a_search_typed_into_a_removed_box_is_dropped(tui_world: TuiWorld) -> None:
    """A search answer whose box is gone is dropped instead of raising on
    '#memory-search', and a later search still runs and answers (the search numbering
    of issue 12 item 2 replaced the one-search slot this test first guarded)."""
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await app.query_one("#memory-search", Input).remove()
        app._search_seq += 1
        app.post_message(dc_replace_seq(search_results(tui_world, "contract"), app._search_seq))
        await settle(pilot)
        alive(app)
        before = app._search_seq
        app._search_now("contract")  # what the next keystroke's search does
        await settle(pilot)
        alive(app)
        assert app._search_seq == before + 1
        assert not [w for w in app.workers if w.group == "search" and w.is_running]


@sync
async def test_a_ruling_key_before_the_queue_arrives_says_it_is_loading(
    tui_world: TuiWorld,
) -> None:
    """a/c/r pressed while the queue is still loading said "The queue is empty" on a
    project with 28 pending cases (fresh-user trial); it says the queue is loading."""
    from tests.test_tui_pilot import Recorder

    seen = Recorder()
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        pane = app.query_one(QueuePane)
        pane.reset()  # as on a project switch: the new queue has not arrived yet
        pane.action_approve()
        await pilot.pause()
        alive(app)
        said = seen.notes()
        assert said and said[-1] == "The queue is still loading: nothing was ruled."
    assert tui_world.repo.case("req-demo-0a1f3c21").ruling is None


# --- a burst of keys and resizes on a real engagement ----------------------------------------

BURST = [
    "1",
    "2",
    "3",
    "2",
    "1",
    "3",
    "2",
    "1",
    "j",
    "k",
    "G",
    "g",
    "enter",
    "escape",
    "question_mark",
    "escape",
    "2",
    "t",
    "l",
    "escape",
    "b",
    "n",
    "3",
    "1",
    "2",
    "slash",
    "x",
    "escape",
    "1",
]
"""The keys a fresh-user trial sent at once (tmux send-keys, no pause) to a desk on the
tdrs engagement before it spun at 100% CPU for ten minutes (py-bt: Screen._on_resize ->
update_classes -> update_styles): tab switches while a tab's focus was being set, the
full-screen read, help, the reader's contents/links/history keys and the search box."""
SIZES = ((60, 20), (200, 50), (80, 24), (40, 12), (120, 40))
"""The resizes that followed the burst, as fast as tmux could send them."""


@pytest.mark.slow
@sync
async def test_a_key_burst_with_resizes_on_tdrs_settles_and_keeps_answering(tmp_path) -> None:  # noqa: ANN001
    """The trial's burst and resizes, each key and size handed over without waiting for
    the app, on the real tdrs engagement with its wiki on: the desk settles (no worker or
    message left, the failsafe bounds a spin), is drawn at the last size, and still
    answers keys (``1`` shows the queue, ``down`` moves its cursor)."""
    from etki.config import Settings
    from etki.services import Desk, init_project
    from etki.store import CaseFileRepository
    from tests.conftest import TDRS_DIR
    from tests.test_tui_pilot import current

    if not (TDRS_DIR / "etki.yaml").is_file():
        pytest.skip(f"{TDRS_DIR} absent")
    settings = Settings(
        db_url=f"sqlite:///{tmp_path}/etki.db", wiki_dir=str(tmp_path / "wiki"), reviewer="reviewer"
    )
    repo = CaseFileRepository(settings.db_url)
    init_project(TDRS_DIR, repo, settings)
    app = EtkiApp(Desk(settings, repo), "tdrs", cursor_blink=False, poll_seconds=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for key in BURST:
            await pilot.press(key)
        for width, height in SIZES:
            await pilot.resize_terminal(width, height)
        await settle(pilot)
        alive(app)
        assert app.size == (120, 40)
        await press(pilot, "escape", "escape", "1")
        assert app.query_one("#tabs").active == "queue"
        before = current(app)
        await press(pilot, "down")
        assert current(app) != before
        alive(app)


@sync
async def test_rows_are_drawn_at_their_widths_from_the_first_frame() -> None:
    """The first frame drawn after rows arrive shows them whole, and so does every later
    one: the table measures its columns as the rows come in. (Textual's DataTable
    measured them when idle and kept a frame drawn before that: the first row stayed
    ``0a1f  ! DI…`` under a wider header on a loaded machine, CI,
    tests/test_tui_disputed.py.)"""
    from textual.app import App, ComposeResult

    from etki_tui.queue.pane import QueueTable

    class OneTable(App[None]):
        CSS = "QueueTable { height: 6; }"  # a fixed height, as in the queue pane

        def compose(self) -> ComposeResult:
            yield QueueTable()

    app = OneTable()
    async with app.run_test(size=(80, 8)) as pilot:
        table = app.query_one(QueueTable)
        table.add_column("Case", key="case")
        table.add_column("Title", key="title")
        await until(pilot, lambda: table.size.width > 0, "a laid-out table")
        table.add_rows_at_once([("a", [Text("0a1f3c21"), Text("! DISPUTED SSO login")])])
        early = shown(table)  # no idle time in between
        assert "0a1f3c21" in early and "! DISPUTED SSO login" in early, early
        await pilot.pause()
        later = shown(table)
        assert "0a1f3c21" in later and "! DISPUTED SSO login" in later, later


@sync
async def test_the_scrollbar_follows_a_view_scrolled_as_the_rows_came_back() -> None:
    """Two rows (no scrollbar), then 40 with the cursor moved to row 28 in the same turn
    (a find cleared far down the queue): the thumb is where the view is, not at the top
    (trial of stop 20)."""
    from textual.app import App, ComposeResult

    from etki_tui.queue.pane import QueueTable

    class OneTable(App[None]):
        CSS = "QueueTable { height: 10; }"

        def compose(self) -> ComposeResult:
            yield QueueTable()

    app = OneTable()
    async with app.run_test(size=(80, 12)) as pilot:
        table = app.query_one(QueueTable)
        table.add_column("Case", key="case")
        table.add_rows_at_once([(f"k{i}", [Text(f"case {i}")]) for i in range(2)])
        await settle(pilot)
        assert not table.show_vertical_scrollbar
        table.clear()
        table.add_rows_at_once([(f"k{i}", [Text(f"case {i}")]) for i in range(40)])
        table.move_cursor(row=28)
        await settle(pilot)
        assert table.scroll_y > 0 and table.show_vertical_scrollbar
        assert table.vertical_scrollbar.position == table.scroll_y
