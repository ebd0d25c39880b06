"""``etki-tui``: the reviewer's desk in the terminal.

The app talks to the core only through :class:`etki.services.Desk`. Every desk call runs
in a thread worker (``exit_on_error=False``) and reports back with a typed message from
:mod:`etki_tui.messages`; errors reach the reviewer as a toast, never as a traceback.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from textual import on, work
from textual.app import App, ComposeResult
from textual.timer import Timer
from textual.widgets import Footer, Header, Input, TabbedContent, TabPane

from etki.config import Settings
from etki.errors import ConflictError, EtkiError, InputError
from etki.services import Desk, InitSummary, init_project
from etki.text import printable
from etki_tui.actions import bindings
from etki_tui.messages import (
    DeskFailed,
    MemoryLoaded,
    PageLoaded,
    QueueLoaded,
    ReportLoaded,
    RulingCommitted,
    RulingConflict,
    RulingFailed,
    SearchResults,
)
from etki_tui.render import VERDICT_GLYPH
from etki_tui.screens.confirm import ACTION_VERB, ConfirmRuling
from etki_tui.widgets.memory import MemoryPane
from etki_tui.widgets.queue import QueuePane
from etki_tui.widgets.reports import ReportsPane

TABS: dict[str, str] = {"queue": "Queue", "hafiza": "Hafıza", "raporlar": "Raporlar"}
"""Tab pane id -> tab label."""


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return printable(text[0] if text else exc.__class__.__name__, multiline=False)


class EtkiApp(App[None]):
    """The desk for one project of a :class:`Desk`.

    ``cursor_blink`` and ``search_delay`` (seconds of debounce before a live search) are
    switches for tests and slow links; ``init_summary`` is shown as a toast on start.
    """

    CSS_PATH = "etki.tcss"
    TITLE = "Etki"
    BINDINGS = bindings("tab.queue", "tab.hafiza", "tab.raporlar", "search", "reload")
    AUTO_FOCUS = "#queue-table"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-medium"), (150, "-wide")]

    def __init__(self, desk: Desk, project_id: str, *, init_summary: InitSummary | None = None,
                 cursor_blink: bool = True, search_delay: float = 0.3) -> None:
        super().__init__()
        self.desk = desk
        self.project_id = project_id
        self.init_summary = init_summary
        self.cursor_blink = cursor_blink
        self.search_delay = search_delay
        self._search_timer: Timer | None = None
        self._stale: set[str] = {"hafiza", "raporlar"}
        self._in_flight: set[str] = set()  # case ids whose ruling is being recorded
        self.sub_title = printable(project_id, multiline=False)

    def compose(self) -> ComposeResult:
        """Header, the three tabs and the footer."""
        yield Header()
        with TabbedContent(initial="queue", id="tabs"):
            with TabPane(TABS["queue"], id="queue"):
                yield QueuePane(id="queue-pane")
            with TabPane(TABS["hafiza"], id="hafiza"):
                yield MemoryPane(cursor_blink=self.cursor_blink, id="memory-pane")
            with TabPane(TABS["raporlar"], id="raporlar"):
                yield ReportsPane(id="reports-pane")
        yield Footer()

    def on_mount(self) -> None:
        """Load the queue; show what ``etki-tui PROJECT_DIR`` loaded, if anything."""
        self.query_one("#queue-table").focus()
        self.load_queue()
        if self.init_summary is not None:
            s = self.init_summary
            msg = (f"Loaded {s.project_id}: {s.requests} requests, "
                   f"{s.new_cases} new case(s) triaged.")
            if s.wiki_error:
                msg += f" Wiki not updated: {s.wiki_error}"
            self.notify(printable(msg, multiline=False), title="Project loaded", markup=False,
                        severity="warning" if s.wiki_error else "information")

    # --- workers: every desk call runs in a thread and answers with a message -------------

    @work(thread=True, exclusive=True, group="queue", exit_on_error=False)
    def load_queue(self) -> None:
        """Read the pending queue, the clauses and the clause memory."""
        try:
            project = self.desk.project(self.project_id)
            cases = self.desk.queue(self.project_id)
            memory = self.desk.clause_memory(self.project_id)
        except Exception as exc:
            self.post_message(DeskFailed("queue", _one_line(exc)))
            return
        self.post_message(QueueLoaded(self.project_id, project.config.name, cases,
                                      {c.ref: c for c in project.clauses}, memory))

    @work(thread=True, exclusive=True, group="rule", exit_on_error=False)
    def rule_case(self, case_id: str, action: str, reason: str, expected_version: int) -> None:
        """Commit a ruling (optimistic locking on the version the reviewer saw)."""
        try:
            outcome = self.desk.rule(case_id, action, reason=reason,
                                     expected_version=expected_version)
        except ConflictError as exc:
            self.post_message(RulingConflict(case_id, exc.ruled_by, exc.ruled_at, exc.ruling,
                                             _one_line(exc)))
            return
        except Exception as exc:
            self.post_message(RulingFailed(case_id, action, _one_line(exc)))
            return
        try:
            memory = self.desk.clause_memory(self.project_id)
        except Exception:
            memory = None
        self.post_message(RulingCommitted(case_id, action, outcome, memory or {}))

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def search_wiki(self, query: str) -> None:
        """Search the wiki for ``query``."""
        try:
            hits = self.desk.wiki_search(self.project_id, query)
        except Exception as exc:
            self.post_message(SearchResults(query, [], error=f"search failed: {_one_line(exc)}"))
            return
        self.post_message(SearchResults(query, hits))

    @work(thread=True, exclusive=True, group="memory", exit_on_error=False)
    def load_memory(self) -> None:
        """Read precedents and disputed clauses (DB) and the decision-file list (wiki)."""
        try:
            project = self.desk.project(self.project_id)
            precedents = self.desk.precedents(self.project_id)
            disputed = self.desk.disputed(self.project_id)
            pages = self.desk.wiki_pages(self.project_id)
        except Exception as exc:
            self.post_message(DeskFailed("Hafıza", _one_line(exc)))
            return
        self.post_message(MemoryLoaded(precedents, disputed, {c.ref: c for c in project.clauses},
                                       pages, self.desk.wiki_root(self.project_id) is not None))

    @work(thread=True, exclusive=True, group="page", exit_on_error=False)
    def load_page(self, path: str) -> None:
        """Read one wiki page."""
        try:
            text = self.desk.read_page(self.project_id, path)
        except Exception as exc:
            self.post_message(PageLoaded(path, "", error=_one_line(exc)))
            return
        self.post_message(PageLoaded(path, text))

    @work(thread=True, exclusive=True, group="report", exit_on_error=False)
    def load_report(self) -> None:
        """Compute the Raporlar counts."""
        try:
            report = self.desk.report(self.project_id)
        except Exception as exc:
            self.post_message(DeskFailed("Raporlar", _one_line(exc)))
            return
        self.post_message(ReportLoaded(report))

    # --- message handlers (on the event loop) -----------------------------------------------

    @on(QueueLoaded)
    def _queue_loaded(self, message: QueueLoaded) -> None:
        self.sub_title = printable(f"{message.project_name} ({message.project_id})",
                                   multiline=False)
        self.query_one(QueuePane).load(message.cases, message.clauses, message.memory)

    @on(RulingCommitted)
    def _ruling_committed(self, message: RulingCommitted) -> None:
        self._in_flight.discard(message.case_id)
        pane = self.query_one(QueuePane)
        pane.remove_case(message.case_id, message.memory or None)
        ruling = message.outcome.ruling
        verb = {"approve": "Approved", "convert_to_cr": "Converted to CR",
                "reject": "Rejected"}.get(message.action, message.action)
        text = (f"{verb} {message.case_id}: {VERDICT_GLYPH.get(ruling.ruling, '')} "
                f"{ruling.ruling}{' (override, precedent recorded)' if ruling.is_override else ''}"
                f" by {ruling.reviewer}.")
        if message.outcome.wiki_error:
            self.notify(printable(f"{text} The ruling is saved, but the wiki was not updated: "
                                  f"{message.outcome.wiki_error}", multiline=False),
                        title="Ruling saved — wiki error", severity="warning", markup=False,
                        timeout=10)
        else:
            wiki = " Decision file written." if message.outcome.wiki_report is not None else ""
            self.notify(printable(text + wiki, multiline=False), title="Ruling saved",
                        markup=False)
        self._mark_stale()

    @on(RulingConflict)
    def _ruling_conflict(self, message: RulingConflict) -> None:
        self._in_flight.discard(message.case_id)
        who = printable(message.ruled_by or "another reviewer", multiline=False)
        at = f" at {message.ruled_at}" if message.ruled_at else ""
        what = f" as {message.ruling}" if message.ruling else ""
        self.notify(f"{message.case_id} was already ruled{what} by {who}{at}. Your ruling was "
                    "not recorded; the queue has been reloaded — look at it again.",
                    title="Conflict: already ruled", severity="error", markup=False,
                    timeout=12)
        self.load_queue()
        self._mark_stale()

    @on(RulingFailed)
    def _ruling_failed(self, message: RulingFailed) -> None:
        self._in_flight.discard(message.case_id)
        self.notify(message.message, title=f"{ACTION_VERB.get(message.action, 'Ruling')} "
                    "not recorded", severity="error", markup=False, timeout=12)

    @on(DeskFailed)
    def _desk_failed(self, message: DeskFailed) -> None:
        self.notify(message.message, title=f"Could not load {message.what}", severity="error",
                    markup=False, timeout=12)

    @on(SearchResults)
    def _search_results(self, message: SearchResults) -> None:
        pane = self.query_one(MemoryPane)
        current = self.query_one("#memory-search", Input).value
        if message.query == current:
            pane.set_hits(message.query, message.hits, message.error)

    @on(MemoryLoaded)
    def _memory_loaded(self, message: MemoryLoaded) -> None:
        self.query_one(MemoryPane).set_memory(message.precedents, message.disputed,
                                              message.clauses, message.pages, message.wiki_on)

    @on(PageLoaded)
    def _page_loaded(self, message: PageLoaded) -> None:
        self.query_one(MemoryPane).show_page(message.path, message.text, message.error)

    @on(ReportLoaded)
    def _report_loaded(self, message: ReportLoaded) -> None:
        self.query_one(ReportsPane).show(message.report)

    # --- UI events ----------------------------------------------------------------------------

    @on(QueuePane.RuleRequested)
    def _rule_requested(self, message: QueuePane.RuleRequested) -> None:
        case = message.case
        if case.case_id in self._in_flight:
            self.notify(f"The ruling on {case.case_id} is still being recorded.",
                        severity="warning", markup=False, timeout=3)
            return

        def confirmed(reason: str | None) -> None:
            """The modal's answer: None cancels, a string (maybe empty) rules."""
            if reason is None:
                self.notify(f"Nothing recorded for {case.case_id}.", title="Cancelled",
                            markup=False, timeout=3)
                return
            self._in_flight.add(case.case_id)
            self.rule_case(case.case_id, message.action, reason, case.version)

        self.push_screen(ConfirmRuling(case, message.action, cursor_blink=self.cursor_blink),
                         confirmed)

    @on(MemoryPane.SearchChanged)
    def _search_changed(self, message: MemoryPane.SearchChanged) -> None:
        if self._search_timer is not None:
            self._search_timer.stop()
            self._search_timer = None
        query = message.query
        if not query.strip():
            self.workers.cancel_group(self, "search")
            self.query_one(MemoryPane).set_hits("", [])
            return
        if message.immediate or self.search_delay <= 0:
            self.search_wiki(query)
        else:
            self._search_timer = self.set_timer(self.search_delay,
                                                lambda: self.search_wiki(query))

    @on(MemoryPane.PageWanted)
    def _page_wanted(self, message: MemoryPane.PageWanted) -> None:
        self.load_page(message.path)

    @on(TabbedContent.TabActivated, "#tabs")
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        pane_id = event.pane.id or ""
        self._refresh_tab(pane_id)
        self._focus_tab(pane_id)

    def _refresh_tab(self, pane_id: str) -> None:
        if pane_id == "hafiza" and "hafiza" in self._stale:
            self._stale.discard("hafiza")
            self.load_memory()
        elif pane_id == "raporlar":
            self._stale.discard("raporlar")
            self.load_report()

    def _focus_tab(self, pane_id: str) -> None:
        target = {"queue": "#queue-table", "hafiza": "#memory-search",
                  "raporlar": "#reports-pane"}.get(pane_id)
        if target:
            self.query_one(target).focus()

    def _mark_stale(self) -> None:
        self._stale.update({"hafiza", "raporlar"})
        active = self.query_one(TabbedContent).active
        self._refresh_tab(active)
        search = self.query_one("#memory-search", Input).value
        if search.strip():
            self.search_wiki(search)

    # --- actions ------------------------------------------------------------------------------

    def action_show_tab(self, tab: str) -> None:
        """Switch to the tab ``tab`` (queue | hafiza | raporlar)."""
        tabs = self.query_one(TabbedContent)
        if tabs.active == tab:
            self._focus_tab(tab)
        else:
            tabs.active = tab

    def action_focus_search(self) -> None:
        """Go to Hafıza and put the cursor in the search box."""
        self.action_show_tab("hafiza")
        self.query_one("#memory-search", Input).focus()

    def action_reload(self) -> None:
        """Reload the queue, memory and reports from the database."""
        self.load_queue()
        self._mark_stale()
        self.notify("Reloaded from the database.", markup=False, timeout=2)


# --- command line ---------------------------------------------------------------------------

class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:
        """One line, exit 2, no usage dump."""
        raise InputError(message)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="etki-tui", description="Etki reviewer desk: triage queue, Hafıza "
                "(memory) and Raporlar (reports) for one project.")
    p.add_argument("project_dir", nargs="?", metavar="PROJECT_DIR",
                   help="project folder to load (only new requests are triaged), then open")
    p.add_argument("--project", metavar="ID", help="id of a stored project to open")
    return p


def choose_project(desk: Desk, project_dir: str | None,
                   project: str | None) -> tuple[str, InitSummary | None]:
    """Which project to open, loading ``project_dir`` first when given (idempotent:
    only requests not stored yet are triaged). Raises :class:`InputError` with a
    message that says what to do."""
    if project_dir:
        folder = Path(project_dir)
        if not folder.is_dir():
            raise InputError(f"no such project folder: {project_dir}")
        summary = init_project(folder, desk.repo, desk.settings)
        if project and project != summary.project_id:
            raise InputError(f"--project {project} does not match the folder's id "
                             f"'{summary.project_id}'")
        return summary.project_id, summary
    ids = desk.project_ids()
    if project:
        if project not in ids:
            known = ", ".join(ids) or "none"
            raise InputError(f"no project '{project}' in the store (known: {known}); "
                             "load it with: etki-tui PROJECT_DIR")
        return project, None
    if not ids:
        raise InputError("no project in the store yet. Start with: etki-tui PROJECT_DIR "
                         "(for example: etki-tui sample_project), or etki init PROJECT_DIR")
    return ids[0], None


def _quiet_logging() -> None:
    """Route the core's log records away from the terminal (they would tear the screen);
    they still reach ``textual console`` when it runs."""
    from textual.logging import TextualHandler

    root = logging.getLogger("etki")
    root.handlers[:] = [TextualHandler()]
    root.setLevel(logging.WARNING)
    root.propagate = False


def main(argv: Sequence[str] | None = None) -> int:
    """``etki-tui [PROJECT_DIR] [--project ID]``. Exit codes: 0 ok, 2 bad input,
    1 internal error; errors are one line on stderr."""
    try:
        args = _parser().parse_args(argv)
        settings = Settings.from_env()
        desk = Desk(settings)
        if args.project_dir and Path(args.project_dir).is_dir():  # errors stay one line
            print(f"etki-tui: loading {args.project_dir} …", flush=True)
        project_id, summary = choose_project(desk, args.project_dir, args.project)
    except EtkiError as exc:
        print(f"etki-tui: {_one_line(exc)}", file=sys.stderr)
        return 2 if isinstance(exc, InputError) else exc.exit_code
    except Exception as exc:  # never a traceback
        print(f"etki-tui: internal error: {_one_line(exc)}", file=sys.stderr)
        return 1
    _quiet_logging()
    EtkiApp(desk, project_id, init_summary=summary).run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
