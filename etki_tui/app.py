"""``etki-tui``: the reviewer's desk in the terminal.

The app talks to the core only through :class:`etki.services.Desk`. Every desk call runs
in a thread worker (:func:`etki_tui.workers.desk_worker`) and reports back with a typed
message from :mod:`etki_tui.messages`; errors reach the reviewer as a toast or a modal
that says what to do next, never as a traceback. The queue refreshes itself from the
database while it is open (a cheap version poll in a worker), so several reviewers can
work at once. The command line that starts it is :mod:`etki_tui.__main__`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import TypeVar

from rich.console import Group
from rich.text import Text
from textual import events, on
from textual.app import App, ComposeResult, SystemCommand
from textual.command import CommandPalette
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Footer, Input, Static, TabbedContent, TabPane
from textual.worker import get_current_worker

from etki.domain import ACTIONS as RULING_OF
from etki.domain import CaseRecord, CaseSummary, RulingRecord
from etki.errors import ConflictError, EtkiError, NotFoundError, PermissionDeniedError
from etki.memory import open_disputed_refs
from etki.services import Desk, InitSummary, IntakeSummary, Seat
from etki.text import printable
from etki.wiki.paths import is_case_page
from etki_tui.actions import ACTIONS, bindings, key_label
from etki_tui.config import TuiConfig, config_path
from etki_tui.errors import UPDATE_REVIEWERS, advice, one_line
from etki_tui.hafiza.pane import SHOWN_HITS, MemoryPane, hit_prompts
from etki_tui.header import DeskHeader, read_only_banner, short_store
from etki_tui.heap import IdleCollector, collector_paused, keep_loaded, release_loaded
from etki_tui.live import gone, part
from etki_tui.messages import (
    AmendRequested,
    BulkRuled,
    BulkRuleRequested,
    CaseEventDone,
    CaseOpened,
    CaseWanted,
    ClaimWanted,
    Copied,
    CrPageWanted,
    DeskFailed,
    DetailsLoaded,
    DetailsWanted,
    DisputeNotResolved,
    DisputeResolved,
    DisputeResolveWanted,
    HistoryLoaded,
    MemoryLoaded,
    NewRequestWanted,
    NoteWanted,
    PageLoaded,
    PageWanted,
    PreanalysisWanted,
    PreanalysisWritten,
    ProjectSwitched,
    QueueLoaded,
    RefreshFailed,
    ReportLoaded,
    RequestAdded,
    RuleRequested,
    RulingCommitted,
    RulingConflict,
    RulingFailed,
    RulingProjected,
    RulingsIndexed,
    SearchChanged,
    SearchResults,
    TerminalClosed,
    WikiCaughtUp,
)
from etki_tui.providers import DeskCommands
from etki_tui.queue.filter_screen import FilterPanel
from etki_tui.queue.pane import QueueCase, QueuePane
from etki_tui.raporlar.pane import ReportsPane
from etki_tui.render import VERDICT_GLYPH, literal, verdict_text, when
from etki_tui.screens.bulk import BulkConfirm, split_sure
from etki_tui.screens.confirm import ACTION_VERB, ConfirmRuling
from etki_tui.screens.help import HelpScreen
from etki_tui.screens.new_request import NewRequest, NewRequestForm
from etki_tui.screens.note import NoteForm
from etki_tui.screens.notice import MIN_SIZE, NoticeModal, TooSmallScreen
from etki_tui.screens.resolve import DisputeResolution, ResolveDisputeForm
from etki_tui.workers import desk_worker

TABS: dict[str, str] = {"queue": "Queue", "hafiza": "Hafıza", "raporlar": "Raporlar"}
"""Tab pane id -> tab label."""

_W = TypeVar("_W", bound=Widget)


VIEW_EVERY_S = 3600
"""This desk writes a reviewer's view of a case at most once per this many seconds (the
store refuses a second one within the hour too: ``CaseFileRepository.record_view``)."""


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _could_not_load(what: str) -> Callable[..., DeskFailed]:
    """A worker's ``failed``: the error as :class:`DeskFailed` for ``what`` (a toast
    that says what could not be loaded and what to do)."""

    def failed(exc: Exception, *_args: object) -> DeskFailed:
        return DeskFailed(what, one_line(exc), advice(exc))

    return failed


def _ruling_not_recorded(
    exc: Exception,
    _project_id: str,
    case_id: str,
    action: str,
    reason: str,
    _expected_version: int,
    amend: bool = False,
) -> Message:
    """:meth:`EtkiApp.rule_case`'s ``failed``: someone else ruled first
    (:class:`RulingConflict`, with the reason typed, so it is not lost), or the ruling
    failed otherwise (:class:`RulingFailed`)."""
    if isinstance(exc, ConflictError):
        return RulingConflict(
            case_id, exc.ruled_by, exc.ruled_at, exc.ruling, one_line(exc), reason=reason
        )
    return RulingFailed(
        case_id, action, one_line(exc), error=type(exc).__name__, advice=advice(exc)
    )


def _search_failed(
    exc: Exception, project_id: str, query: str, seq: int, _width: int
) -> SearchResults | None:
    """:meth:`EtkiApp.search_wiki`'s ``failed``: the error in the hit list, unless a
    newer search cancelled this one (then nothing)."""
    if get_current_worker().is_cancelled:
        return None
    return SearchResults(
        query,
        [],
        project_id=project_id,
        seq=seq,
        error=f"search failed: {one_line(exc)}. {advice(exc)}",
    )


def _driver_class() -> type | None:
    if os.name != "posix":
        return None
    from etki_tui.terminal import EtkiDriver

    return EtkiDriver


class EtkiApp(App[None]):
    """The desk for one project of a :class:`Desk` (others are a palette away).

    Switches for tests and slow links: ``cursor_blink=False`` also stops the other
    moving parts (button flash, animations) and keeps toasts until dismissed, so
    screenshots are stable; ``search_delay`` is the debounce before a live search
    (default none: a keystroke searches at once, or right after the search running);
    ``preview_delay`` how long the Hafıza list rests on a page before its preview loads;
    ``poll_seconds`` the live-refresh period (0 = off; default from the config file);
    ``clock`` gives "now" for request ages; ``color_system`` (``standard`` for a
    16-colour terminal) picks the ANSI theme. ``config`` is the parsed config file
    (keymap and refresh); its warnings are shown as toasts on start."""

    CSS_PATH = "etki.tcss"
    TITLE = "Etki"
    BINDINGS = bindings(
        "tab.queue",
        "tab.hafiza",
        "tab.raporlar",
        "search",
        "copy",
        "reload",
        "help",
        "palette",
        "quit",
    )
    COMMANDS = App.COMMANDS | {DeskCommands}
    AUTO_FOCUS = "#queue-table"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-medium"), (150, "-wide")]

    def __init__(
        self,
        desk: Desk,
        project_id: str,
        *,
        init_summary: InitSummary | None = None,
        cursor_blink: bool = True,
        search_delay: float = 0.0,
        config: TuiConfig | None = None,
        poll_seconds: float | None = None,
        clock: Callable[[], datetime] | None = None,
        color_system: str | None = None,
        preview_delay: float = 0.15,
        view_delay: float = 0.8,
    ) -> None:
        # NO_COLOR: plain terminal colours with every hue stripped (Textual's NoColor
        # filter) rather than grey levels by luminance, where red text goes dark.
        self.no_color = "NO_COLOR" in os.environ
        super().__init__(driver_class=_driver_class(), ansi_color=True if self.no_color else None)
        self.desk = desk
        self.project_id = project_id
        self.init_summary = init_summary
        self.cursor_blink = cursor_blink
        self.steady = not cursor_blink
        self.search_delay = search_delay
        self.preview_delay = preview_delay
        self.view_delay = view_delay
        """How long the detail pane rests on a case before it counts as opened (the
        reviewer's view is written, the history read); 0: at once (tests)."""
        self._claims: dict = {}
        self._resolutions = -1
        """How many dispute resolutions the last load saw (-1: none yet)."""
        self._preanalyses = -1
        """The newest pre-analysis id the last load saw (-1: none yet)."""
        """The live claims as last loaded (the live refresh compares them too)."""
        self._viewed: dict[str, datetime] = {}
        """case id -> when this desk last wrote the reviewer's view of it."""
        self.config = config or TuiConfig()
        self.keymap: dict[str, str] = dict(self.config.keymap)
        self.poll_seconds = self.config.refresh_seconds if poll_seconds is None else poll_seconds
        self.clock = clock or _utc_now
        self.color_system = color_system
        self.projects: list[tuple[str, str]] = []
        self.case_index: list[QueueCase] = []
        """Every case of the project as last loaded (the palette's case list), with
        this desk's own rulings since (:meth:`_ruled_here`)."""
        self.last_converted: str | None = None
        """The case this desk last ruled (or amended to) CHANGE_REQUEST: ``D`` opens its
        change request when no case ruled CR is highlighted (``c`` takes a case out of
        the queue)."""
        self._versions: dict[str, int] = {}
        self._reads = [0, 0]
        """Queue reads [started (in their threads), answered (handled or failed)]: the
        live refresh waits while they differ (:meth:`_poll_tick`)."""
        self._reads_lock = threading.Lock()
        self._search_timer: Timer | None = None
        self._pending_search: str | None = None
        self._search_seq = 0  # numbers each search; only the newest one's answer shows
        self._tab_focus: str | None = None  # where Hafıza's activation puts the focus once
        self._page_seq = 0  # numbers each page request; only the newest one is shown
        self._stale: set[str] = {"hafiza", "raporlar"}
        self._in_flight: set[str] = set()  # case ids whose ruling is being recorded
        self._refresh_failing = False
        self._too_small: TooSmallScreen | None = None
        self._projecting = threading.Lock()  # one wiki projection at a time
        self._catch_up_due: str | None = None  # project whose wiki catch-up is to start
        self._collector = IdleCollector()  # full GC collections between events
        self.seat: Seat | None = None
        """Who acts on the project shown and whether they may rule (read with the queue)."""
        self._drafts: dict[tuple[str, str], str] = {}
        """(case id, action) -> the reason typed in a confirm dialog closed without
        ruling: given back only to a dialog of the same ruling on the same case (a reason
        written for a CR never pre-fills a Reject, where two Enters would record it)."""
        self.project_name = ""
        self.store = short_store(desk.store_label())
        """Where the store lives, for the header (no user name, no password)."""
        self.sub_title = printable(project_id, multiline=False)

    # --- layout ---------------------------------------------------------------------------

    def _tab_label(self, tab: str) -> str:
        keys = ACTIONS[f"tab.{tab}"].keys(self.keymap)
        return f"{key_label(keys[0])} {TABS[tab]}" if keys else TABS[tab]

    def compose(self) -> ComposeResult:
        """Header, the read-only banner (shown only to a reviewer who may not rule),
        the three tabs and the footer."""
        yield DeskHeader()
        banner = Static("", id="readonly-banner", markup=False)
        banner.display = False
        yield banner
        with TabbedContent(initial="queue", id="tabs"):
            with TabPane(self._tab_label("queue"), id="queue"):
                queue = QueuePane(clock=self.clock, cursor_blink=self.cursor_blink, id="queue-pane")
                queue.view_delay = self.view_delay
                yield queue
            with TabPane(self._tab_label("hafiza"), id="hafiza"):
                yield MemoryPane(
                    cursor_blink=self.cursor_blink,
                    preview_delay=self.preview_delay,
                    id="memory-pane",
                )
            with TabPane(self._tab_label("raporlar"), id="raporlar"):
                yield ReportsPane(id="reports-pane")
        yield Footer()

    def on_unmount(self) -> None:
        """The desk is closing: what it froze out of the collector's walks is given
        back, and full collections to CPython (:mod:`etki_tui.heap`)."""
        self._collector.stop()
        release_loaded()

    async def on_event(self, event: events.Event) -> None:
        """Input events note their time for the idle collector
        (:class:`etki_tui.heap.IdleCollector`); Textual then handles every event."""
        if isinstance(event, events.InputEvent):
            self._collector.input_seen()
        await super().on_event(event)

    def on_mount(self) -> None:
        """Keymap, theme, what ``etki-tui PROJECT_DIR`` loaded, then the queue."""
        if self.keymap:
            self.set_keymap(self.keymap)
        system = self.color_system or (None if self.is_headless else self.console.color_system)
        if system in ("standard", "windows") or self.no_color:
            self.theme = "ansi-dark"
        if self.steady:
            self.animation_level = "none"
        self.query_one("#queue-table").focus()
        for warning in self.config.warnings:
            self.notify(
                printable(warning, multiline=False),
                title="Config",
                severity="warning",
                markup=False,
                timeout=12,
            )
        if self.init_summary is not None:
            s = self.init_summary
            msg = (
                f"Loaded {s.project_id}: {s.requests} requests, {s.new_cases} new case(s) triaged."
            )
            if s.refused:  # rows that cannot be stored; the first one named
                msg += f" {len(s.refused)} request row(s) refused: {s.refused[0]}"
            if s.wiki_error:
                msg += (
                    f" Wiki not updated: {s.wiki_error} — run `python -m etki.wiki "
                    "rebuild` to regenerate it."
                )
            self.notify(
                printable(msg, multiline=False),
                title="Project loaded",
                markup=False,
                severity="warning" if s.wiki_error or s.refused else "information",
            )
        self.load_queue()
        self._catch_up_due = self.project_id  # once the queue is shown (_queue_loaded)
        self._collector.start()
        self.set_interval(IdleCollector.TICK_S, self._collector.tick, name="idle-gc")
        if self.poll_seconds > 0:
            self.set_interval(self.poll_seconds, self._poll_tick, name="live-refresh")
        self._check_size(self.size.width, self.size.height)

    def header_parts(self) -> tuple[str, str, Seat | None, str]:
        """What the header shows besides the title: (project name, project id, seat,
        store); :class:`etki_tui.header.DeskHeader` fits it to its width."""
        return self.project_name, self.project_id, self.seat, self.store

    def _show_who(self) -> None:
        """Header and read-only banner after the seat or the project changed."""
        header = part(self, DeskHeader)
        if header is not None:
            header.update_title()
        banner = part(self, "#readonly-banner", Static)
        if banner is None:  # not composed yet (on_mount's first load shows it), or closing
            return
        self.refresh_bindings()  # the ruling keys are dimmed on a read-only desk
        if self.seat is not None and self.read_only:
            banner.update(read_only_banner(self.seat, self.project_id))
        banner.display = self.read_only

    @property
    def read_only(self) -> bool:
        """Whether the acting reviewer may not rule on this project (a viewer, or not
        listed by a project that lists reviewers); False before the seat is read."""
        return self.seat is not None and not self.seat.may_rule

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity="information",  # noqa: ANN001
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """A toast; with ``cursor_blink=False`` (tests) it stays until dismissed, so a
        screenshot never races its timeout."""
        if self.steady:
            timeout = 3600
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def get_system_commands(self, screen: Screen) -> Sequence[SystemCommand]:
        """Textual's commands minus its key panel (the desk has its own help) and its
        screenshot (it writes a file into the working directory)."""
        return [
            c for c in super().get_system_commands(screen) if c.title not in ("Keys", "Screenshot")
        ]

    def desk_part(
        self, selector: str | type[_W], message: Message | str, expect_type: type[_W] | None = None
    ) -> _W | None:
        """The desk's widget ``selector`` (on the default screen, also under a modal),
        or None when it cannot take ``message``: the desk is closing (Textual removes
        its widgets, children first, while answers already queued are still handled)
        or the widget is gone. The drop is logged (``textual console``) with its reason;
        what the message carried is in the database for the next load. A pane that is
        there but not composed yet is returned: it keeps what it is given and draws it
        on mount."""
        found = part(self, selector, expect_type)
        if found is None:
            what = message if isinstance(message, str) else type(message).__name__
            name = selector if isinstance(selector, str) else selector.__name__
            why = "the desk is closing" if gone(self) else "it is not on the desk"
            self.log.warning(f"{what} dropped: no {name} to show it in ({why})")
        return found

    # --- workers: every desk call runs in a thread and answers with a message -------------
    # (etki_tui.workers: each body returns its answer; ``failed`` answers its errors)

    def _load(self, project_id: str, source: str, *, projects: bool) -> QueueLoaded:
        """:meth:`_read_queue` with the cyclic collector paused (:mod:`etki_tui.heap`),
        counted in :attr:`_reads` (its answer is counted when handled, an error here)."""
        with self._reads_lock:
            self._reads[0] += 1
        try:
            with collector_paused():
                return self._read_queue(project_id, source, projects=projects)
        except BaseException:
            self._read_answered()
            raise

    def _read_answered(self) -> None:
        with self._reads_lock:
            self._reads[1] += 1

    def _poll_tick(self) -> None:
        """The live refresh's tick: a poll, unless a queue read is running or its answer
        is not handled yet — the poll would compare against the versions before it and
        read all 10,000 cases a second time, in a thread beside the first (the exclusive
        poll group cancels a poll only by flag: its thread runs on). Measured with
        ``bench.tui_blocks``: such reads, still running when typing began, held the GIL
        and the paused collector while the keys waited."""
        with self._reads_lock:
            busy = self._reads[0] != self._reads[1]
        if not busy:
            self.poll_queue()

    def _read_queue(self, project_id: str, source: str, *, projects: bool) -> QueueLoaded:
        # light reads: the listed columns of every case (the detail pane reads whole
        # cases on highlight), the clause memory computed from those same rows, and the
        # clauses without the project's modules and work items
        intake: IntakeSummary | str | None = None
        if source == "reread":  # Ctrl+R: the folder's new requests first, then the rows
            try:
                intake = self.desk.reread_requests(project_id)
            except EtkiError as exc:  # the queue still loads; the toast says why
                intake = one_line(exc)
        name = self.desk.project_name(project_id)
        cases = self.desk.queue_summaries(project_id, status=None)
        versions = {c.case_id: c.version for c in cases}
        memory = self.desk.clause_memory_of(cases)
        knowledge = self.desk.index_hash(project_id)
        # the similar-rulings index (reused while unchanged): on a project's first read
        # it follows the rows (load_rulings, once they are drawn): at 10,000 cases its
        # first build is most of the read (the contract's background idf)
        rulings = None if source == "load" else self.desk.ruling_index_of(project_id, cases)
        clauses = self.desk.clauses(project_id)
        try:
            seat = self.desk.seat(project_id)
        except NotFoundError:  # the ruling itself is checked again by ApprovalService
            seat = None
        claims = self._read_claims(project_id)
        resolutions = self.desk.resolution_count(project_id)
        preanalyses = self.desk.preanalysis_mark(project_id)
        known: list[tuple[str, str]] = []
        if projects:
            for pid in self.desk.project_ids():
                try:
                    other = self.desk.project_name(pid)  # not its knowledge: one column
                except Exception:
                    other = ""
                known.append((pid, other))
        return QueueLoaded(
            project_id,
            name,
            cases,
            clauses,
            memory,
            versions=versions,
            source=source,
            projects=known,
            rulings=rulings,
            knowledge=knowledge,
            seat=seat,
            intake=intake,
            claims=claims,
            resolutions=resolutions,
            preanalyses=preanalyses,
        )

    def _read_claims(self, project_id: str) -> dict:
        """The project's live claims (empty when they cannot be read: a claim is a
        courtesy to the others, never a reason to fail the queue)."""
        try:
            return self.desk.claims(project_id)
        except Exception as exc:  # noqa: BLE001
            self.log.warning(f"claims of {project_id} not read: {exc}")
            return {}

    @desk_worker("queue", failed=_could_not_load("the queue"))
    def load_queue(self, project_id: str, source: str = "load") -> QueueLoaded:
        """Read every case, the clauses, the clause memory and the project list."""
        return self._load(project_id, source, projects=True)

    @desk_worker(
        "rulings",
        failed=lambda exc, project_id, cases: RulingsIndexed(project_id, None, one_line(exc)),
    )
    def load_rulings(
        self, project_id: str, cases: Sequence[CaseRecord | CaseSummary]
    ) -> RulingsIndexed:
        """The similar-rulings index of ``cases`` (the first queue's rows), read after
        those rows are drawn (:meth:`Desk.ruling_index_of`)."""
        with collector_paused():
            return RulingsIndexed(project_id, self.desk.ruling_index_of(project_id, cases))

    @desk_worker("intake", exclusive=False, failed=_could_not_load("the new request"))
    def add_request(self, project_id: str, request: NewRequest) -> RequestAdded:
        """Triage and store one new request (:meth:`Desk.add_request`, as ``etki add``)."""
        case = self.desk.add_request(
            project_id,
            request.text,
            title=request.title,
            submitted_by=request.submitted_by,
            source="the desk's new-request form",
            preanalyse=False,  # its own worker follows (_request_added): keys never wait
        )
        return RequestAdded(case, project_id)

    @desk_worker(
        "resolve",
        exclusive=False,
        failed=lambda exc, _project_id, wanted: DisputeNotResolved(
            wanted.ref, one_line(exc), advice(exc)
        ),
    )
    def resolve_dispute(self, project_id: str, wanted: DisputeResolution) -> DisputeResolved:
        """Record the PMO's resolution of a disputed clause (:meth:`Desk.resolve_dispute`,
        as ``etki dispute resolve``: the approver check, the store, then the wiki)."""
        outcome = self.desk.resolve_dispute(
            project_id, wanted.ref, wanted.verdict, wanted.reason, expected_id=wanted.expected_id
        )
        return DisputeResolved(outcome, project_id)

    @desk_worker(
        "preanalyse",
        exclusive=False,
        failed=lambda exc, project_id, case_id: PreanalysisWritten(
            case_id, project_id, None, error=f"{one_line(exc)}. {advice(exc)}"
        ),
    )
    def preanalyse_case(self, project_id: str, case_id: str) -> PreanalysisWritten:
        """Ask the chat model for a new pre-analysis of ``case_id`` and save it
        (:meth:`Desk.preanalyse`: its wiki page follows), then read the case again for
        the detail pane."""
        saved, wiki_error = self.desk.preanalyse(case_id)
        try:
            record = self.desk.case(case_id)
        except Exception:  # noqa: BLE001 - the pane keeps what it had
            record = None
        return PreanalysisWritten(case_id, project_id, saved, record, wiki_error=wiki_error)

    @desk_worker("poll", failed=lambda exc, project_id: RefreshFailed(project_id, one_line(exc)))
    def poll_queue(self, project_id: str) -> QueueLoaded | None:
        """The live refresh: compare case versions; reload only when something changed."""
        versions = self.desk.versions(project_id)
        if (
            versions == self._versions
            and not self._refresh_failing
            and self._read_claims(project_id) == self._claims
            # a resolution or a pre-analysis saved elsewhere changes no case version
            and self.desk.resolution_count(project_id) == self._resolutions
            and self.desk.preanalysis_mark(project_id) == self._preanalyses
        ):
            return None
        return self._load(project_id, "poll", projects=False)

    @desk_worker("rule", exclusive=False, failed=_ruling_not_recorded)
    def rule_case(
        self,
        _project_id: str,
        case_id: str,
        action: str,
        reason: str,
        expected_version: int,
        amend: bool = False,
    ) -> RulingCommitted:
        """Commit a ruling (optimistic locking on the version the reviewer saw; with
        ``amend`` it replaces the case's ruling) and say so at once; the wiki
        projection follows in :meth:`project_ruling`."""
        outcome = self.desk.rule_first(
            case_id, action, reason=reason, expected_version=expected_version, amend=amend
        )
        return RulingCommitted(case_id, action, outcome, {}, amended=amend)

    @desk_worker(
        "history",
        exclusive=False,
        failed=lambda exc, project_id, case_id, **_kw: HistoryLoaded(
            case_id, [], project_id=project_id, error=one_line(exc)
        ),
    )
    def open_case(
        self, project_id: str, case_id: str, *, history: bool = True, view: bool = False
    ) -> HistoryLoaded | None:
        """The detail pane shows ``case_id``: with ``view``, write the reviewer's view
        (at most once an hour: :meth:`Desk.record_view`; a store that cannot take it is
        no reason to fail), then with ``history`` read the case's history for the pane."""
        if view:
            now = self.clock()
            last = self._viewed.get(case_id)
            if last is None or (now - last).total_seconds() >= VIEW_EVERY_S:
                try:
                    self.desk.record_view(case_id)
                    self._viewed[case_id] = now
                except Exception as exc:  # noqa: BLE001 - a view is a courtesy, never a failure
                    self.log.warning(f"view of {case_id} not written: {exc}")
        if not history:
            return None
        return HistoryLoaded(case_id, self.desk.case_history(case_id), project_id=project_id)

    @desk_worker(
        "events",
        exclusive=False,
        failed=lambda exc, project_id, case_id, what, text="": CaseEventDone(
            case_id,
            None,
            what=what,
            project_id=project_id,
            error=one_line(exc),
            advice=advice(exc),
        ),
    )
    def case_event(self, project_id: str, case_id: str, what: str, text: str = "") -> CaseEventDone:
        """Store a note (``what`` ``note``, with ``text``; its wiki page follows), a claim
        or a release on ``case_id`` (:meth:`Desk.add_note`, :meth:`Desk.claim`,
        :meth:`Desk.release_claim`)."""
        if what == "note":
            with self._projecting:  # the note's projection, one at a time like rulings'
                note, error = self.desk.add_note(case_id, text)
            return CaseEventDone(case_id, note, what=what, project_id=project_id, wiki_error=error)
        if what == "release":
            return CaseEventDone(
                case_id, self.desk.release_claim(case_id), what=what, project_id=project_id
            )
        return CaseEventDone(case_id, self.desk.claim(case_id), what=what, project_id=project_id)

    def _warm_search(self, project_id: str, _answer: Message) -> None:
        """After a projection answered: re-read the pages it wrote into the search
        index, off the keys (the next keystroke finds the index warm)."""
        self.desk.warm_wiki_search(project_id)

    @desk_worker("project", exclusive=False, then=_warm_search)
    def project_ruling(self, project_id: str, case_id: str, action: str) -> RulingProjected:
        """The HITL wiki projection of a committed ruling (best-effort, one at a time),
        then the clause memory after it; answers with :class:`RulingProjected`."""
        return self._projected(project_id, case_id, action)

    def _projected(
        self, project_id: str, case_id: str, action: str, *, memory_after: bool = True
    ) -> RulingProjected:
        """Project one committed ruling into the wiki (one projection at a time) and,
        with ``memory_after``, read the clause memory after it (in a worker's thread)."""
        with self._projecting:
            report, error = self.desk.project_ruling(case_id)
        rulings = None
        memory = None
        if memory_after:
            try:
                ruled = self.desk.queue_summaries(project_id, status="ruled")
                memory = self.desk.clause_memory_of(ruled)
                rulings = self.desk.ruling_index_of(project_id, ruled)
            except Exception:
                memory = None
        return RulingProjected(case_id, action, report, error, memory, rulings)

    def _project_marked(self, project_id: str, answer: Message) -> None:
        """After :meth:`rule_marked` answered: project each committed ruling, one at a
        time, the clause memory read after the last; then warm the search index."""
        assert isinstance(answer, BulkRuled)
        done = answer.committed
        for index, outcome in enumerate(done):
            r = outcome.ruling
            self.post_message(
                self._projected(
                    project_id, r.case_id, r.action, memory_after=index == len(done) - 1
                )
            )
        if done:
            self.desk.warm_wiki_search(project_id)

    @desk_worker("rule", exclusive=False, then=_project_marked)
    def rule_marked(
        self, project_id: str, items: list[tuple[str, str, int]], unsure: int = 0
    ) -> BulkRuled:
        """Rule marked cases one by one, ``(case id, action, version seen)`` each, through
        the same checks, optimistic locking and audit as a single ruling
        (:meth:`Desk.rule_first`). A conflict (someone ruled the case meanwhile) or
        another error is reported for that case and the others are still ruled; once
        the reviewer is refused (not an approver any more) the rest are not tried. The
        wiki projections follow in :meth:`_project_marked`. ``unsure``: how many marked
        cases were left out because the engine is not sure of them (said in the answer)."""
        committed = []
        conflicts: list[tuple[str, str | None, str | None, str | None]] = []
        failed: list[tuple[str, str]] = []
        for index, (case_id, action, version) in enumerate(items):
            try:
                committed.append(self.desk.rule_first(case_id, action, expected_version=version))
            except ConflictError as exc:
                conflicts.append((case_id, exc.ruled_by, exc.ruled_at, exc.ruling))
            except PermissionDeniedError as exc:
                failed.append((case_id, one_line(exc)))
                rest = [c for c, _, _ in items[index + 1 :]]
                return BulkRuled(project_id, committed, conflicts, failed, rest, unsure=unsure)
            except Exception as exc:  # that case only: the others are still ruled
                failed.append((case_id, one_line(exc)))
        return BulkRuled(project_id, committed, conflicts, failed, unsure=unsure)

    @desk_worker("project", exclusive=False, then=_warm_search)
    def catch_up_wiki(self, project_id: str) -> WikiCaughtUp:
        """Write what the DB holds that the wiki lacks (a ruling killed after its commit,
        or whose projection timed out on the wiki lock, by any process), one projection
        at a time like :meth:`project_ruling`; answers with :class:`WikiCaughtUp`. Keys
        are never blocked: it runs in a thread. Started once the first queue of a project
        is shown (on start and after a project switch)."""
        with self._projecting:
            report, error = self.desk.catch_up_wiki(project_id)
        return WikiCaughtUp(project_id, report, error)

    @desk_worker(
        "details",
        exclusive=False,
        failed=lambda exc, project_id, case_ids: DetailsLoaded(
            [], case_ids, project_id=project_id, error=one_line(exc)
        ),
    )
    def load_details(self, project_id: str, case_ids: list[str]) -> DetailsLoaded:
        """Read whole cases for the queue's detail pane, and the work items their
        effort bases name."""
        records = self.desk.cases(case_ids)
        basis = {w for r in records for w in r.decision.effort.basis}
        return DetailsLoaded(
            records,
            case_ids,
            project_id=project_id,
            workitems=self.desk.workitems_of(project_id, basis),
        )

    @desk_worker("search", failed=_search_failed)
    def search_wiki(
        self, project_id: str, query: str, seq: int, width: int
    ) -> SearchResults | None:
        """Search the wiki for ``query`` (the ranked top entries of the FTS5 index,
        :meth:`Desk.wiki_top`) and lay out their list entries ``width`` cells wide (off
        the event loop: :func:`hit_prompts`). Exclusive: the next keystroke's search
        cancels this one, which then stops at its next poll (SQLite's progress handler,
        a lock wait) and posts nothing; ``seq`` numbers it, so an older answer is never
        shown."""
        worker = get_current_worker()
        found = self.desk.wiki_top(
            project_id, query, limit=SHOWN_HITS, cancelled=lambda: worker.is_cancelled
        )
        if found is None:
            return None
        prompts = (width, hit_prompts(query, found.hits, width))
        if worker.is_cancelled:
            return None
        return SearchResults(
            query, found.hits, project_id=project_id, total=found.total, seq=seq, prompts=prompts
        )

    @desk_worker("memory", coalesce=True, failed=_could_not_load("Hafıza"))
    def load_memory(self, project_id: str) -> MemoryLoaded:
        """Read precedents and disputed clauses (DB) and the page lists (wiki)."""
        with collector_paused():  # kept until the next load: frozen once in place
            project = self.desk.project(project_id)
            precedents = self.desk.precedents(project_id)
            disputed = self.desk.disputed(project_id)
            pages = self.desk.wiki_pages(project_id)
            precedent_pages = self.desk.wiki_pages(project_id, "precedents")
            root_pages = self.desk.wiki_pages(project_id, ".")
        top = [p for p in ("index.md", "disputed.md") if p in root_pages]
        return MemoryLoaded(
            precedents,
            disputed,
            {c.ref: c for c in project.clauses},
            pages,
            self.desk.wiki_root(project_id) is not None,
            project_id=project_id,
            precedent_pages=precedent_pages,
            top_pages=top,
        )

    @desk_worker(
        "page",
        failed=lambda exc, project_id, path, history="replace", seq=0: PageLoaded(
            path, "", error=one_line(exc), history=history, project_id=project_id, seq=seq
        ),
    )
    def load_page(
        self, project_id: str, path: str, history: str = "replace", seq: int = 0
    ) -> PageLoaded:
        """Read one wiki page."""
        return PageLoaded(
            path,
            self.desk.read_page(project_id, path),
            history=history,
            project_id=project_id,
            seq=seq,
        )

    def _reveal_page(self, _project_id: str, answer: Message) -> None:
        """After :meth:`open_case_page` read a decision page (not after the notice that
        there is none): show it in Hafıza's reader."""
        if isinstance(answer, PageLoaded):
            self.call_from_thread(self._reveal_reader)

    @desk_worker("page", failed=_could_not_load("the decision page"), then=_reveal_page)
    def open_case_page(self, project_id: str, case_id: str) -> PageLoaded | DeskFailed:
        """Find and read the decision page of a ruled case (palette jump)."""
        pages = self.desk.wiki_pages(project_id)
        path = next((p for p in pages if p.endswith(f"{case_id}.md")), None)
        if path is None:
            case = self.desk.case(case_id)
            r = case.ruling
            what = (
                f"{case_id} was ruled {r.ruling} by {r.reviewer} at {when(r.ruled_at)}"
                if r is not None
                else f"{case_id} is pending"
            )
            return DeskFailed(
                "its decision page",
                f"{what}; it has no decision page",
                "The wiki may be off or not rebuilt: `python -m etki.wiki rebuild`.",
            )
        return PageLoaded(
            path, self.desk.read_page(project_id, path), history="push", project_id=project_id
        )

    @desk_worker("page", failed=_could_not_load("the change-request document"), then=_reveal_page)
    def open_cr_page(self, project_id: str, case_id: str) -> PageLoaded | DeskFailed:
        """Read the change-request page of a case ruled CHANGE_REQUEST (``D``) for
        Hafıza's reader."""
        from etki.wiki.paths import cr_path, has_cr_page

        case = self.desk.case(case_id)
        what = "its change-request document"
        if not has_cr_page(case):
            state = "pending" if case.ruling is None else f"ruled {case.ruling.ruling}"
            return DeskFailed(what, f"{case_id} is {state}, not CHANGE_REQUEST")
        export = f"`etki cr export {case_id} --format md|html` writes it from the database."
        if self.desk.wiki_root(project_id) is None:
            return DeskFailed(what, "the wiki is off (ETKI_WIKI_DIR is empty)", export)
        path = cr_path(case)
        try:
            text = self.desk.read_page(project_id, path)
        except NotFoundError:
            return DeskFailed(
                what,
                f"{path} is not in the wiki yet",
                "`python -m etki.wiki rebuild` writes it; " + export,
            )
        return PageLoaded(path, text, history="push", project_id=project_id)

    @desk_worker("report", coalesce=True, failed=_could_not_load("Raporlar"))
    def load_report(self, project_id: str) -> ReportLoaded:
        """Compute the Raporlar counts (pending ages measured at the desk's clock)."""
        return ReportLoaded(self.desk.report(project_id, now=self.clock()), project_id=project_id)

    # --- message handlers (on the event loop) -----------------------------------------------

    @on(QueueLoaded)
    def _queue_loaded(self, message: QueueLoaded) -> None:
        self._read_answered()
        if message.project_id != self.project_id:
            return  # a late answer for the project we just left
        changed = bool(self._versions) and message.versions != self._versions
        self._versions = message.versions
        self._claims = message.claims
        if message.resolutions is not None:
            self._resolutions = message.resolutions
        new_preanalysis = (
            message.preanalyses is not None and message.preanalyses != self._preanalyses
        )
        first_read = self._preanalyses < 0
        if message.preanalyses is not None:
            self._preanalyses = message.preanalyses
        self.case_index = message.cases
        if message.projects:
            self.projects = message.projects
        self.project_name = message.project_name
        self.seat = message.seat
        self.sub_title = printable(
            f"{message.project_name} ({message.project_id})", multiline=False
        )
        self._show_who()
        pane = self.desk_part(QueuePane, message)
        if pane is None:
            return  # closing: the catch-up waits for the next start's first queue
        by_others = pane.load(
            message.cases,
            message.clauses,
            message.memory,
            mine=self._in_flight,
            rulings=message.rulings,
            knowledge=message.knowledge,
            escalate=self.desk.settings.disputed_escalation,
            wiki_on=self.desk.wiki_root(message.project_id) is not None,
            claims=message.claims,
            me=message.seat.reviewer if message.seat is not None else None,
        )
        pane.llm_model = self.desk.preanalysis_model()
        if new_preanalysis and not first_read:
            pane.forget_details()  # the pane reads the case again, with its pre-analysis
        if message.rulings is None and message.source == "load":
            # after the first fill is laid out, so its thread never competes with
            # drawing the queue; the wiki's catch-up follows it (_rulings_indexed)
            self.call_after_refresh(self.load_rulings, message.cases)
        elif self._catch_up_due == message.project_id:
            self._start_catch_up()
        if message.source == "reread":
            self._say_reloaded(message.intake)
        if message.source == "poll" and self._refresh_failing:
            self._refresh_failing = False
            self.notify("Live refresh is back: the queue is up to date.", markup=False, timeout=4)
        if by_others and message.source == "poll":
            names = sorted(
                {
                    printable(c.ruling.reviewer, multiline=False)  # type: ignore[union-attr]
                    for c in by_others
                }
            )
            ids = ", ".join(c.case_id for c in by_others[:3])
            more = f" and {len(by_others) - 3} more" if len(by_others) > 3 else ""
            self.notify(
                f"Ruled meanwhile by {', '.join(names)}: {ids}{more}.",
                title="Queue updated",
                markup=False,
                timeout=6,
            )
            self._warn_open_confirm(by_others)
        if changed or by_others:
            self._mark_stale(search=False)
        if message.source != "poll" or changed:
            keep_loaded()  # the rows stay until the next load: out of the GC's walks

    def _start_catch_up(self) -> None:
        """Start the wiki's catch-up once the first queue of a project is drawn and its
        similar-rulings index read, so its thread (and the projector's imports) never
        compete with either."""
        self._catch_up_due = None
        self.call_after_refresh(self.catch_up_wiki)

    @on(RulingsIndexed)
    def _rulings_indexed(self, message: RulingsIndexed) -> None:
        if message.project_id != self.project_id:
            return  # a late answer for the project we just left
        pane = self.desk_part(QueuePane, message)
        if pane is not None:
            pane.rulings_indexed(message.rulings, message.error)
        keep_loaded()  # the index stays until the next one: out of the GC's walks
        if self._catch_up_due == message.project_id:
            self._start_catch_up()

    def _warn_open_confirm(self, ruled: Sequence[CaseRecord | CaseSummary]) -> None:
        screen = self.screen
        if isinstance(screen, ConfirmRuling):
            for case in ruled:
                if case.case_id == screen.case.case_id and case.ruling is not None:
                    screen.mark_ruled(case.ruling)

    @on(RefreshFailed)
    def _refresh_failed(self, message: RefreshFailed) -> None:
        if message.project_id != self.project_id or self._refresh_failing:
            return
        self._refresh_failing = True
        self.notify(
            f"{message.message}. The desk keeps trying every "
            f"{self.poll_seconds:g} s; Ctrl+R retries now.",
            title="Live refresh paused",
            severity="warning",
            markup=False,
            timeout=10,
        )

    @staticmethod
    def _ruling_text(action: str, case_id: str, ruling) -> str:  # noqa: ANN001
        verb = {
            "approve": "Approved",
            "convert_to_cr": "Converted to CR",
            "reject": "Rejected",
        }.get(action, action)
        return (
            f"{verb} {case_id}: {VERDICT_GLYPH.get(ruling.ruling, '')} "
            f"{ruling.ruling}{' (override, precedent recorded)' if ruling.is_override else ''}"
            f" by {ruling.reviewer}."
        )

    def _cr_draft_text(self, pane: QueuePane, case_id: str, ruling) -> str:  # noqa: ANN001
        """For a conversion to CR: where its change-request draft is (the wiki page the
        projection is about to write, ``etki cr export`` to send it); else ``""``."""
        case = pane.cases.get(case_id)
        if ruling.ruling != "CHANGE_REQUEST" or case is None:
            return ""
        if self.desk.wiki_root(self.project_id) is None:
            return f" Its change-request draft: etki cr export {case_id}."
        from dataclasses import replace

        from etki.wiki.paths import cr_path

        page = cr_path(replace(case, ruling=ruling))
        return f" Its change-request draft: {page} (D opens it; etki cr export {case_id} sends it)."

    @on(RulingCommitted)
    def _ruling_committed(self, message: RulingCommitted) -> None:
        self._in_flight.discard(message.case_id)
        if message.case_id in self._versions:  # our own change: the poll needs no reload
            self._versions[message.case_id] = message.outcome.ruling.version
        ruling = message.outcome.ruling
        text = self._ruling_text(message.action, message.case_id, ruling)
        if message.amended:
            text = f"Amended {message.case_id}: now {ruling.ruling} by {ruling.reviewer}."
        pane = self.desk_part(QueuePane, message)
        if pane is not None and not message.amended:
            text += self._cr_draft_text(pane, message.case_id, ruling)
        self._ruled_here(ruling, pane)
        if pane is not None:  # the queue first, then the projection's thread
            pane.remove_case(message.case_id, message.memory or None)
            self.notify(
                printable(text, multiline=False),
                title="Ruling amended" if message.amended else "Ruling saved",
                markup=False,
            )
            self._mark_stale(search=False)
            if message.amended:  # the ruled rows the A list shows: read them again
                pane.history_changed(message.case_id)
                self.load_queue("reload")
        if message.outcome.wiki_error:  # a desk whose rule() ran the hook itself
            if pane is not None:
                self._wiki_failed(text, message.outcome.wiki_error)
        elif message.outcome.wiki_report is None:
            if gone(self):  # the ruling is saved; the next start's catch-up projects it
                self.log.warning(
                    f"{message.case_id}: wiki projection left to the catch-up (the desk is closing)"
                )
            else:
                self.project_ruling(message.case_id, message.action)

    def _wiki_failed(self, text: str, error: str) -> None:
        if not error.lower().startswith("wiki"):
            error = f"wiki not updated: {error}"
        self.notify(
            printable(
                f"{text} The ruling is saved; {error}. Once that is fixed, "
                "`python -m etki.wiki rebuild` regenerates the wiki.",
                multiline=False,
            ),
            title="Ruling saved — wiki error",
            severity="warning",
            markup=False,
            timeout=10,
        )

    @on(RulingProjected)
    def _ruling_projected(self, message: RulingProjected) -> None:
        pane = self.desk_part(QueuePane, message)
        if pane is None:
            return
        if message.memory is not None:
            pane.update_memory(message.memory, message.rulings)
        if message.wiki_error:
            text = f"{message.case_id} is ruled."
            self._wiki_failed(text, message.wiki_error)
        self._mark_stale()

    @on(WikiCaughtUp)
    def _wiki_caught_up(self, message: WikiCaughtUp) -> None:
        if message.wiki_error:
            detail = message.wiki_error.removeprefix("wiki not caught up: ")
            self.notify(
                printable(
                    f"Wiki of {message.project_id} not caught up with the "
                    f"database: {detail}. Once that is fixed, `python -m "
                    "etki.wiki rebuild` regenerates it.",
                    multiline=False,
                ),
                title="Wiki error",
                severity="warning",
                markup=False,
                timeout=10,
            )
        elif getattr(message.wiki_report, "changed", False) and not gone(self):
            self._mark_stale()  # Hafıza lists the pages written

    @on(CaseOpened)
    def _case_opened(self, message: CaseOpened) -> None:
        message.stop()
        self.open_case(message.case_id, history=message.history, view=message.view)

    @on(HistoryLoaded)
    def _history_loaded(self, message: HistoryLoaded) -> None:
        if message.project_id and message.project_id != self.project_id:
            return
        pane = self.desk_part(QueuePane, message)
        if pane is not None and message.error is None:
            pane.history_loaded(message.case_id, message.events)

    @on(NoteWanted)
    def _note_wanted(self, message: NoteWanted) -> None:
        """``m``: the note form; its text goes to :meth:`case_event`."""
        message.stop()
        case_id = message.case_id

        def done(text: str | None) -> None:
            if text:
                self.case_event(case_id, "note", text)

        self.push_screen(NoteForm(case_id, cursor_blink=self.cursor_blink), done)

    @on(ClaimWanted)
    def _claim_wanted(self, message: ClaimWanted) -> None:
        message.stop()
        self.case_event(message.case_id, "release" if message.release else "claim")

    @on(CaseEventDone)
    def _case_event_done(self, message: CaseEventDone) -> None:
        if gone(self):
            return
        if message.error is not None:
            self.notify(
                printable(f"{message.error}. {message.advice}".strip(), multiline=False),
                title=f"{message.what.capitalize()} not stored",
                severity="error",
                markup=False,
                timeout=10,
            )
            return
        event = message.event
        if message.what == "note":
            text = f"Note added to {message.case_id}: it is in the case's history."
        elif message.what == "claim":
            until = when(getattr(event, "until", "") or "")
            text = f"Claimed {message.case_id} until {until}: the others see it in their queue."
        else:
            text = f"Released {message.case_id}."
        self.notify(printable(text, multiline=False), title="Saved", markup=False, timeout=5)
        if message.wiki_error:
            self._wiki_failed(text, message.wiki_error)
        if message.project_id and message.project_id != self.project_id:
            return
        pane = self.desk_part(QueuePane, message)
        if pane is not None:
            pane.history_changed(message.case_id)
        if message.what == "note":
            self._mark_stale()
        else:
            self.load_queue("reload")  # the claims the queue shows

    @on(AmendRequested)
    def _amend_requested(self, message: AmendRequested) -> None:
        """``A``: pick the new ruling, then confirm it in the amend dialog (a reason is
        required); :meth:`rule_case` commits it with the version the reviewer saw."""
        message.stop()
        case = message.case
        seat = self.seat
        if seat is not None and not seat.may_rule:
            self.notify(
                printable(
                    f"Read-only desk: {seat.reviewer} may not amend rulings on "
                    f"{self.project_id} ({seat.role}); nothing was recorded for "
                    f"{case.case_id}.",
                    multiline=False,
                ),
                title="Not an approver",
                severity="warning",
                markup=False,
                timeout=8,
            )
            return
        if case.case_id in self._in_flight:
            self.notify(
                f"The ruling on {case.case_id} is still being recorded.",
                severity="warning",
                markup=False,
                timeout=3,
            )
            return
        from etki.domain import ACTIONS as RULINGS
        from etki_tui.screens.links import LinksScreen

        current = case.ruling.ruling if case.ruling is not None else "pending"
        choices = [
            (f"{ACTION_VERB[action]} → {ruling}", action) for action, ruling in RULINGS.items()
        ]
        details = [
            "the ruling in force now: the reason is what changes"
            if ruling == current
            else f"instead of {current}"
            for ruling in RULINGS.values()
        ]

        def picked(action: str | None) -> None:
            if action is None:
                self.notify(f"Nothing amended on {case.case_id}.", markup=False, timeout=3)
                return
            dialog = ConfirmRuling(
                case,
                action,
                cursor_blink=self.cursor_blink,
                draft=self._drafts.get((case.case_id, action), ""),
                amend=True,
            )

            def confirmed(reason: str | None) -> None:
                if reason is None:
                    if dialog.draft.strip():
                        self._drafts[(case.case_id, action)] = dialog.draft
                    self.notify(f"Nothing amended on {case.case_id}.", markup=False, timeout=3)
                    return
                self._drop_drafts(case.case_id)
                self._in_flight.add(case.case_id)
                self.rule_case(case.case_id, action, reason, case.version, amend=True)

            self.push_screen(dialog, confirmed)

        self.push_screen(
            LinksScreen(
                choices,
                title=f"New ruling for {printable(case.case_id, multiline=False)}",
                details=details,
            ),
            picked,
        )

    def _drop_drafts(self, case_id: str) -> str:
        """Forget every draft reason of ``case_id`` (it is being ruled, or was ruled
        elsewhere); the newest non-empty one, stripped, or "" (to show it was not
        recorded)."""
        kept = [self._drafts.pop(key) for key in list(self._drafts) if key[0] == case_id]
        return next((text.strip() for text in reversed(kept) if text.strip()), "")

    @on(DetailsWanted)
    def _details_wanted(self, message: DetailsWanted) -> None:
        message.stop()
        self.load_details(message.case_ids)

    @on(DetailsLoaded)
    def _details_loaded(self, message: DetailsLoaded) -> None:
        if message.project_id and message.project_id != self.project_id:
            return
        pane = self.desk_part(QueuePane, message)
        if pane is not None:
            pane.details_loaded(
                message.records, message.asked, message.error, workitems=message.workitems
            )

    @on(RulingConflict)
    def _ruling_conflict(self, message: RulingConflict) -> None:
        self._in_flight.discard(message.case_id)
        if gone(self):  # nothing was recorded; no dialog on a desk that is closing
            self.log.warning(f"RulingConflict on {message.case_id} dropped: the desk is closing")
            return
        who = printable(message.ruled_by or "another reviewer", multiline=False)
        body = Text()
        body.append(f"{message.case_id} was already ruled", style="bold")
        if message.ruling:
            body.append(" ")
            body.append_text(verdict_text(message.ruling, bold=True))
        body.append(f" by {who}")
        if message.ruled_at:
            body.append(f" at {when(message.ruled_at)}")
        body.append(
            ".\n\nYour ruling was not recorded; the queue has been reloaded — look "
            "at it again.\nThe case's decision page is in Hafıza (Ctrl+P, then its id)."
        )
        reason = message.reason.strip() or self._drop_drafts(message.case_id)
        if reason:  # what the reviewer wrote is not lost with the ruling
            body.append("\n\nYour reason, not recorded:\n", style="bold")
            body.append_text(literal(reason))
        self.push_screen(
            NoticeModal("Conflict: already ruled", body, severity="error", id="conflict")
        )
        self.load_queue("reload")
        self._mark_stale()

    @on(RulingFailed)
    def _ruling_failed(self, message: RulingFailed) -> None:
        self._in_flight.discard(message.case_id)
        title = f"{ACTION_VERB.get(message.action, 'Ruling')} not recorded"
        if message.error == PermissionDeniedError.__name__ and not gone(self):
            self.load_queue("reload")  # the reviewer list changed: the banner follows
            body = Group(Text(message.message, style="bold"), Text(""), Text(message.advice))
            self.push_screen(NoticeModal(title, body, severity="error", id="refused"))
            return
        self.notify(
            f"{message.message}. {message.advice}".strip(),
            title=title,
            severity="error",
            markup=False,
            timeout=12,
        )

    @on(DeskFailed)
    def _desk_failed(self, message: DeskFailed) -> None:
        table = self.desk_part("#queue-table", message)
        if table is not None:
            table.loading = False
        self.notify(
            f"{message.message}. {message.advice}".strip(),
            title=f"Could not load {message.what}",
            severity="error",
            markup=False,
            timeout=12,
        )

    @on(SearchResults)
    def _search_results(self, message: SearchResults) -> None:
        if message.project_id and message.project_id != self.project_id:
            return
        if message.seq and message.seq != self._search_seq:
            return  # an older search answered late: a newer query's results stand
        pane = self.desk_part(MemoryPane, message)
        box = self.desk_part("#memory-search", message, Input)
        if pane is not None and box is not None and message.query == box.value:
            pane.set_hits(
                message.query,
                message.hits,
                message.error,
                total=message.total,
                prompts=message.prompts,
            )

    @on(MemoryLoaded)
    def _memory_loaded(self, message: MemoryLoaded) -> None:
        if message.project_id and message.project_id != self.project_id:
            return
        pane = self.desk_part(MemoryPane, message)
        if pane is None:
            self._stale.add("hafiza")  # read again when a Hafıza is shown
            return
        pane.set_memory(
            message.precedents,
            message.disputed,
            message.clauses,
            message.pages,
            message.wiki_on,
            precedent_pages=message.precedent_pages,
            top_pages=message.top_pages,
            wiki_root=self.desk.wiki_root(self.project_id),
        )
        keep_loaded()

    @on(PageLoaded)
    def _page_loaded(self, message: PageLoaded) -> None:
        if message.project_id and message.project_id != self.project_id:
            return
        if message.seq and message.seq != self._page_seq:
            return  # a newer page was asked for: this one would be stale
        pane = self.desk_part(MemoryPane, message)
        if pane is not None:
            # laid out in the pane's own worker: keys never wait for a page's markdown
            pane.show_page_soon(message.path, message.text, message.error, history=message.history)

    @on(ReportLoaded)
    def _report_loaded(self, message: ReportLoaded) -> None:
        if message.project_id and message.project_id != self.project_id:
            return
        pane = self.desk_part(ReportsPane, message)
        if pane is not None:
            pane.show(message.report)

    @on(TerminalClosed)
    def _terminal_closed(self, message: TerminalClosed) -> None:
        self.exit(return_code=0)

    @on(CommandPalette.Opened)
    def _palette_opened(self) -> None:
        if self.steady:
            self.call_after_refresh(self._steady_inputs)

    def _steady_inputs(self) -> None:
        if gone(self):  # a callback: the screens may be gone by now
            return
        for field in self.screen.query(Input):
            field.cursor_blink = False

    # --- UI events ----------------------------------------------------------------------------

    @on(NewRequestWanted)
    def _new_request_wanted(self, message: NewRequestWanted) -> None:
        """The new-request form; its answer goes to :meth:`add_request`."""
        message.stop()
        seat = self.seat
        who = seat.reviewer if seat is not None else ""

        def done(request: NewRequest | None) -> None:
            if request is not None:
                self.add_request(request)

        self.push_screen(NewRequestForm(self.project_id, who, cursor_blink=self.cursor_blink), done)

    @on(DisputeResolveWanted)
    def _dispute_resolve_wanted(self, message: DisputeResolveWanted) -> None:
        """The resolution form of a disputed clause; its answer goes to
        :meth:`resolve_dispute`. A read-only desk refuses (the store would too)."""
        message.stop()
        seat = self.seat
        if seat is not None and not seat.may_rule:
            self.notify(
                printable(
                    f"Read-only desk: {seat.reviewer} may not resolve a disputed clause of "
                    f"{self.project_id} ({seat.role}); nothing was recorded. An approver "
                    f"lists you as approver in etki.yaml and runs `{UPDATE_REVIEWERS}`, "
                    "then Ctrl+R here; or set ETKI_REVIEWER to your approver name.",
                    multiline=False,
                ),
                title="Not an approver",
                severity="warning",
                markup=False,
                timeout=8,
            )
            return
        item, title = message.item, message.title

        def done(wanted: DisputeResolution | None) -> None:
            if wanted is None:
                self.notify(
                    printable(f"Nothing recorded for {item.ref}.", multiline=False),
                    title="Cancelled",
                    markup=False,
                    timeout=3,
                )
                return
            self.resolve_dispute(wanted)

        self.push_screen(ResolveDisputeForm(item, title, cursor_blink=self.cursor_blink), done)

    @on(DisputeResolved)
    def _dispute_resolved(self, message: DisputeResolved) -> None:
        """Say what was recorded; read Hafıza (the card) and the queue (strips, risk) again."""
        res = message.outcome.resolution
        warn = f" ({message.outcome.wiki_error})" if message.outcome.wiki_error else ""
        self.notify(
            printable(f"{res.ref}: DISPUTED-RESOLVED · rule {res.verdict}{warn}", multiline=False),
            title="Resolution recorded",
            severity="warning" if warn else "information",
            markup=False,
            timeout=6,
        )
        if message.project_id != self.project_id:
            return  # recorded for the project shown before a switch
        self._stale.add("raporlar")
        self.load_memory()
        self.load_queue("reload")

    @on(DisputeNotResolved)
    def _dispute_not_resolved(self, message: DisputeNotResolved) -> None:
        self.load_memory()  # a conflict: the card shows the resolution recorded meanwhile
        self.notify(
            printable(f"{message.message}. {message.advice}".strip(), multiline=False),
            title=printable(f"Not recorded: {message.ref}", multiline=False),
            severity="error",
            markup=False,
            timeout=12,
        )

    @on(RequestAdded)
    def _request_added(self, message: RequestAdded) -> None:
        if message.project_id != self.project_id:
            return  # added to the project shown before a switch: its queue is not here
        d = message.case.decision
        self.notify(
            printable(
                f"Added {message.case.case_id}: {d.verdict} ({d.confidence:.2f}). "
                "It is in the queue.",
                multiline=False,
            ),
            title="Request added",
            markup=False,
            timeout=6,
        )
        self.load_queue("reload")
        if self.desk.preanalysis_model() is not None:
            self._start_preanalysis(message.case.case_id)

    def _start_preanalysis(self, case_id: str) -> None:
        """The pre-analysis worker for ``case_id``; the pane says one is being written."""
        pane = self.desk_part(QueuePane, "pre-analysis")
        if pane is not None:
            pane.preanalysing.add(case_id)
            if pane.current_case_id() == case_id:
                pane.refresh_detail()
        self.preanalyse_case(case_id)

    @on(PreanalysisWanted)
    def _preanalysis_wanted(self, message: PreanalysisWanted) -> None:
        """``p``: a new pre-analysis of the case, in a worker; without a model nothing
        is asked and a toast says so."""
        message.stop()
        model = self.desk.preanalysis_model()
        if model is None:
            self.notify(
                "No pre-analysis: no model configured (ETKI_LLM_BASE_URL, ETKI_LLM_MODEL). "
                "Nothing was asked.",
                severity="warning",
                markup=False,
                timeout=6,
            )
            return
        pane = self.desk_part(QueuePane, message)
        if pane is not None and message.case_id in pane.preanalysing:
            self.notify("A pre-analysis of this case is being written.", markup=False, timeout=4)
            return
        self.notify(
            printable(f"Asking {model} for a pre-analysis of {message.case_id}…", multiline=False),
            markup=False,
            timeout=4,
        )
        self._start_preanalysis(message.case_id)

    @on(PreanalysisWritten)
    def _preanalysis_written(self, message: PreanalysisWritten) -> None:
        pane = self.desk_part(QueuePane, message)
        if pane is None:
            return
        if message.project_id != self.project_id:
            pane.preanalysing.discard(message.case_id)
            return
        pane.preanalysis_written(message.record, message.case_id)
        saved = message.preanalysis
        if saved is None:
            self.notify(
                printable(f"No pre-analysis saved: {message.error}", multiline=False),
                title="Pre-analysis",
                severity="error",
                markup=False,
                timeout=8,
            )
        elif saved.status == "ok":
            self.notify(
                printable(f"Pre-analysis of {message.case_id} saved.", multiline=False),
                title="Pre-analysis",
                markup=False,
                timeout=4,
            )
        else:
            self.notify(
                printable(f"The model gave nothing usable: {saved.error}", multiline=False),
                title="Pre-analysis failed (saved as an error)",
                severity="warning",
                markup=False,
                timeout=8,
            )
        if message.wiki_error:
            self.notify(
                printable(
                    f"The pre-analysis is saved; {message.wiki_error}. `python -m etki.wiki "
                    "rebuild` regenerates the wiki.",
                    multiline=False,
                ),
                title="Pre-analysis saved — wiki error",
                severity="warning",
                markup=False,
                timeout=10,
            )

    def _refused_read_only(self, what: str) -> bool:
        """On a read-only desk say that nothing was recorded for ``what`` and how to
        become an approver, and return True; else False."""
        seat = self.seat
        if seat is None or seat.may_rule:
            return False
        self.notify(
            printable(
                f"Read-only desk: {seat.reviewer} may not rule on "
                f"{self.project_id} ({seat.role}); nothing was recorded "
                f"for {what}. To rule, an approver lists you as "
                f"approver in etki.yaml and runs `{UPDATE_REVIEWERS}`, "
                "then Ctrl+R here; or set "
                "ETKI_REVIEWER to your approver name.",
                multiline=False,
            ),
            title="Not an approver",
            severity="warning",
            markup=False,
            timeout=8,
        )
        return True

    @on(BulkRuleRequested)
    def _bulk_rule_requested(self, message: BulkRuleRequested) -> None:
        """One confirmation for the marked cases; each is then ruled as its engine
        verdict by :meth:`rule_marked`."""
        message.stop()
        ids = [c.case_id for c in message.cases]
        if self._refused_read_only(f"the {len(ids)} marked case(s)"):
            return
        pane = self.desk_part(QueuePane, message)
        if pane is None:
            return  # no dialog on a desk that is closing: nothing is ruled
        cases = [
            c
            for c in message.cases
            if c.case_id not in self._in_flight and c.case_id not in pane.ruled_elsewhere
        ]
        if not cases:
            self.notify(
                "The marked cases are already being ruled or were ruled elsewhere.",
                severity="warning",
                markup=False,
                timeout=4,
            )
            return
        # B never rules a case the engine is not sure of: those stay marked for a look
        cases, unsure = split_sure(cases)
        if not cases:
            self.notify(
                f"The engine is not sure of any of the {len(unsure)} marked case(s), so B "
                "rules none of them: they stay marked for a careful look (rule each with "
                "a, c or r).",
                title="Needs a careful look",
                severity="warning",
                markup=False,
                timeout=6,
            )
            return
        verdict_action = {ruling: action for action, ruling in RULING_OF.items()}

        def confirmed(yes: bool | None) -> None:
            if not yes:
                self.notify(
                    f"Nothing recorded for the {len(cases) + len(unsure)} marked case(s); "
                    "they stay marked.",
                    title="Cancelled",
                    markup=False,
                    timeout=3,
                )
                return
            items = [(c.case_id, verdict_action[c.decision.verdict], c.version) for c in cases]
            self._in_flight.update(case_id for case_id, _, _ in items)
            self.rule_marked(items, unsure=len(unsure))

        disputed = {
            c.case_id: refs
            for c in cases
            if (refs := open_disputed_refs(c.decision.cited_clauses, pane.memory))
        }
        self.push_screen(
            BulkConfirm(cases, flash=self.cursor_blink, disputed=disputed, unsure=len(unsure)),
            confirmed,
        )

    @on(BulkRuled)
    def _bulk_ruled(self, message: BulkRuled) -> None:
        """Take the ruled cases out of the queue and say what happened to each."""
        ids = [o.ruling.case_id for o in message.committed]
        ids += [c[0] for c in message.conflicts] + [f[0] for f in message.failed]
        self._in_flight.difference_update([*ids, *message.skipped])
        if message.project_id != self.project_id:
            return
        pane = self.desk_part(QueuePane, message)
        for outcome in message.committed:
            r = outcome.ruling
            if r.case_id in self._versions:  # our own change: the poll needs no reload
                self._versions[r.case_id] = r.version
            self._ruled_here(r, pane)
            if pane is not None:
                pane.remove_case(r.case_id)
        if message.committed:
            listed = ", ".join(
                f"{o.ruling.case_id} {VERDICT_GLYPH.get(o.ruling.ruling, '')} {o.ruling.ruling}"
                for o in message.committed[:5]
            )
            more = f" and {len(message.committed) - 5} more" if len(message.committed) > 5 else ""
            left = (
                f" {message.unsure} marked case(s) the engine is not sure of were left for "
                "a careful look."
                if message.unsure
                else ""
            )
            self.notify(
                printable(
                    f"Ruled {len(message.committed)} case(s) as the engine said, each its "
                    f"own ruling: {listed}{more}.{left}",
                    multiline=False,
                ),
                title="Rulings saved",
                markup=False,
                timeout=6,
            )
            self._mark_stale(search=False)
        if message.conflicts or message.failed or message.skipped:
            body = Text()
            for case_id, who, at, ruling in message.conflicts:
                body.append(f"{case_id} was already ruled", style="bold")
                if ruling:
                    body.append(" ")
                    body.append_text(verdict_text(ruling, bold=True))
                body.append(f" by {printable(who or 'another reviewer', multiline=False)}")
                if at:
                    body.append(f" at {when(at)}")
                body.append(": not ruled by you.\n")
            for case_id, error in message.failed:
                body.append(f"{case_id}: not ruled", style="bold")
                body.append(f" ({printable(error, multiline=False)}).\n")
            if message.skipped:
                body.append(f"Not tried: {', '.join(message.skipped)}.\n", style="bold")
            body.append(
                f"\n{len(message.committed)} other case(s) were ruled. The queue has been "
                "reloaded; the cases not ruled stay in it."
            )
            self.push_screen(
                NoticeModal("Some marked cases not ruled", body, severity="error", id="bulk-report")
            )
            self.load_queue("reload")
            self._mark_stale()

    @on(RuleRequested)
    def _rule_requested(self, message: RuleRequested) -> None:
        case = message.case
        if self._refused_read_only(case.case_id):
            return
        pane = self.desk_part(QueuePane, message)
        if pane is None:
            return  # no dialog on a desk that is closing: nothing is ruled
        seen = pane.ruled_elsewhere.get(case.case_id)
        if seen is not None and seen.ruling is not None:
            r = seen.ruling
            self.post_message(
                RulingConflict(
                    case.case_id,
                    r.reviewer,
                    r.ruled_at,
                    r.ruling,
                    "already ruled (seen by the live refresh)",
                )
            )
            return
        if case.case_id in self._in_flight:
            self.notify(
                f"The ruling on {case.case_id} is still being recorded.",
                severity="warning",
                markup=False,
                timeout=3,
            )
            return

        pane = part(self, QueuePane)
        held = pane.others_claim(case.case_id) if pane is not None else None
        dialog = ConfirmRuling(
            case,
            message.action,
            cursor_blink=self.cursor_blink,
            draft=self._drafts.get((case.case_id, message.action), ""),
            claimed_by=(held.actor, held.until) if held is not None else None,
        )

        def confirmed(reason: str | None) -> None:
            """The modal's answer: None cancels (a typed reason is kept as the case's
            draft for the next dialog), a string (maybe empty) rules."""
            if reason is None:
                kept = dialog.draft.strip()
                self._drafts.pop((case.case_id, message.action), None)
                if kept and dialog.ruled_meanwhile is not None:  # no next try: show it
                    self.notify(
                        printable(
                            f"Nothing recorded for {case.case_id}. Your "
                            f"reason, not recorded: {kept}",
                            multiline=False,
                        ),
                        title="Cancelled",
                        markup=False,
                        timeout=12,
                    )
                    return
                if kept:
                    self._drafts[(case.case_id, message.action)] = dialog.draft
                self.notify(
                    f"Nothing recorded for {case.case_id}."
                    + (" Your reason is kept for the next try." if kept else ""),
                    title="Cancelled",
                    markup=False,
                    timeout=3,
                )
                return
            self._drop_drafts(case.case_id)
            self._in_flight.add(case.case_id)
            self.rule_case(case.case_id, message.action, reason, case.version)

        self.push_screen(dialog, confirmed)

    @on(SearchChanged)
    def _search_changed(self, message: SearchChanged) -> None:
        if self._search_timer is not None:
            self._search_timer.stop()
            self._search_timer = None
        self._pending_search = None
        query = message.query
        if not query.strip():
            self.workers.cancel_group(self, "search")
            self._search_seq += 1  # an answer still on its way is for an older query
            pane = self.desk_part(MemoryPane, message)
            if pane is not None:
                pane.set_hits("", [])
            return
        if message.immediate or self.search_delay <= 0:
            self._search_now(query)
        else:
            self._pending_search = query
            self._search_timer = self.set_timer(self.search_delay, self.flush_search)

    def flush_search(self) -> bool:
        """Run the debounced search now (the timer's job; tests call it instead of
        waiting). False when no search is pending."""
        if self._search_timer is not None:
            self._search_timer.stop()
            self._search_timer = None
        query, self._pending_search = self._pending_search, None
        if not query:
            return False
        self._search_now(query)
        return True

    def _search_now(self, query: str) -> None:
        """Search at once in the exclusive ``search`` worker: starting it cancels the
        one running (it stops at its next poll and posts nothing), and only the newest
        search's answer is shown (``_search_seq``). Keys never wait for a search."""
        self._search_seq += 1
        pane = part(self, MemoryPane)
        self.search_wiki(query, self._search_seq, pane.hit_width() if pane else 30)

    @on(CaseWanted)
    def _case_wanted(self, message: CaseWanted) -> None:
        message.stop()
        self.goto_case(message.case_id)

    def _ruled_here(self, ruling: RulingRecord, pane: QueuePane | None) -> None:
        """This desk's own ruling (single, bulk or amended): the palette's case list and
        the queue's list of every case (``A`` lists the ruled ones) follow it at once,
        without waiting for Ctrl+R; a CR is remembered for ``D``."""
        self.case_index = [
            replace(c, ruling=ruling) if c.case_id == ruling.case_id else c for c in self.case_index
        ]
        if pane is not None:
            pane.ruled_here(ruling)
        if ruling.ruling == "CHANGE_REQUEST":
            self.last_converted = ruling.case_id
        elif self.last_converted == ruling.case_id:
            self.last_converted = None  # amended away from CR: no change request now

    @on(CrPageWanted)
    def _cr_page_wanted(self, message: CrPageWanted) -> None:
        message.stop()
        case_id = message.case_id
        if case_id is None and message.page is not None:
            case_id = next(
                (c.case_id for c in self.case_index if is_case_page(message.page, c.case_id)),
                None,
            )
        if case_id is None and self.last_converted is not None:
            case_id = self.last_converted
            self.notify(
                f"D opens {case_id}, the change request this desk converted last.",
                markup=False,
                timeout=5,
            )
        if case_id is None:
            self.notify(message.otherwise or "No change request to open.", markup=False, timeout=5)
            return
        self.open_cr_page(case_id)

    @on(PageWanted)
    def _page_wanted(self, message: PageWanted) -> None:
        self._page_seq += 1
        self.load_page(message.path, message.history, self._page_seq)

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
        target = {
            "queue": "#queue-table",
            "hafiza": "#memory-list",
            "raporlar": "#reports-pane",
        }.get(pane_id)
        if pane_id == "hafiza" and self._tab_focus is not None:
            target, self._tab_focus = self._tab_focus, None  # asked for by focus_search
        tabs = self.desk_part(TabbedContent, f"focus on {pane_id}")
        if tabs is None or tabs.active != pane_id:
            # a later key chose another tab before this activation was handled: focusing
            # a widget of this tab would switch back to it (quick 2 3 1 ended on Raporlar)
            return
        pane = part(self, f"#{pane_id}")
        focused = self.screen.focused
        if pane is not None and focused is not None and pane in focused.ancestors_with_self:
            return  # the focus is in this tab already (letters typed in the search box)
        widget = self.desk_part(target, f"focus on {pane_id}") if target else None
        if widget is not None:
            widget.focus()

    def _mark_stale(self, *, search: bool = True) -> None:
        self._stale.update({"hafiza", "raporlar"})
        tabs = self.desk_part(TabbedContent, "a refresh of the shown tab")
        box = self.desk_part("#memory-search", "a refresh of the search", Input)
        if tabs is None or box is None:
            return  # stale: read again when a tab is shown
        self._refresh_tab(tabs.active)
        if search and box.value.strip():
            self._search_now(box.value)

    def on_resize(self, event: events.Resize) -> None:
        """Cover the desk with a notice while the terminal is too small."""
        self._check_size(event.size.width, event.size.height)

    def _check_size(self, width: int, height: int) -> None:
        small = width < MIN_SIZE[0] or height < MIN_SIZE[1]
        notice = self._too_small
        if small and notice is None:
            self._too_small = TooSmallScreen(width, height)
            self.push_screen(self._too_small)
        elif small and notice is not None:
            notice.show_size(width, height)
        elif not small and notice is not None:
            self._too_small = None
            if self.screen is notice:
                self.pop_screen()
            else:  # something opened on top meanwhile: leave when it comes back up
                notice.leave_when_resumed = True

    # --- where things are ---------------------------------------------------------------------

    def current_context(self) -> str:
        """The help context of what is on screen: a modal's, or the active tab's."""
        screen = self.screen
        if isinstance(screen, ConfirmRuling):
            return "confirm"
        if isinstance(screen, BulkConfirm):
            return "bulk"
        if isinstance(screen, FilterPanel):
            return "filters"
        if isinstance(screen, NewRequestForm):
            return "intake"
        if isinstance(screen, NoteForm):
            return "note"
        if isinstance(screen, NoticeModal | TooSmallScreen):
            return "app"
        try:
            return self.query_one(TabbedContent).active or "queue"
        except Exception:
            return "queue"

    # --- actions ------------------------------------------------------------------------------

    def action_show_tab(self, tab: str) -> None:
        """Switch to the tab ``tab`` (queue | hafiza | raporlar)."""
        if self.screen.maximized is not None:
            self.screen.minimize()
        tabs = self.query_one(TabbedContent)
        if tabs.active == tab:
            self._focus_tab(tab)
        else:
            tabs.active = tab

    def action_focus_search(self) -> None:
        """Go to Hafıza and put the cursor in the search box (and keep it there: the
        tab's activation, handled after this, focuses the box rather than the list, so
        the letters typed right after ``/`` all land in the box)."""
        self._tab_focus = "#memory-search"
        self.action_show_tab("hafiza")
        # at once (a priority key, see etki_tui.actions): the letters typed right after
        # the / are handed to the box, not to the widget that had the focus
        self.screen.set_focus(self.query_one("#memory-search", Input))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``/`` (a priority key) goes to the wiki search only from the desk itself and
        outside the queue: in a text box it is a character, on a dialog it is nothing,
        and in the queue it is the queue's own find (Textual asks the app's priority
        bindings before the focused pane's)."""
        if action == "focus_search":
            focused = self.screen.focused
            queue = part(self, QueuePane)
            in_queue = (
                queue is not None and focused is not None and queue in focused.ancestors_with_self
            )
            return (
                not isinstance(focused, Input)
                and not in_queue
                and not isinstance(self.screen, ModalScreen)
            )
        return True

    def action_reload(self) -> None:
        """Triage the project folder's new ``requests.jsonl`` rows, then reload the
        queue, memory and reports from the database, and the whole cases of the detail
        pane (what another desk saved without a new version, a pre-analysis, shows
        then); the toast follows the answer (:meth:`_say_reloaded`)."""
        pane = self.desk_part(QueuePane, "reload")
        if pane is not None:
            pane.forget_details()
        self.load_queue("reread")
        self._mark_stale()

    def _say_reloaded(self, intake: IntakeSummary | str | None) -> None:
        """The Ctrl+R toast: what the folder's ``requests.jsonl`` added (or why it could
        not be read), then the reload."""
        if isinstance(intake, str):
            self.notify(
                f"requests.jsonl could not be read: {intake}. Reloaded from the database.",
                severity="warning",
                markup=False,
                timeout=8,
            )
            return
        if intake is None or not (intake.stored or intake.refused):
            self.notify("Reloaded from the database.", markup=False, timeout=2)
            return
        new = len(intake.stored)
        said = f"{new} new request{'s' if new != 1 else ''} from requests.jsonl triaged"
        if intake.refused:
            shown = "\n".join(printable(m, multiline=False) for m in intake.refused[:3])
            more = len(intake.refused) - 3
            self.notify(
                f"{said}; {len(intake.refused)} row(s) refused:\n{shown}"
                + (f"\n… and {more} more" if more > 0 else ""),
                title="Reloaded",
                severity="warning",
                markup=False,
                timeout=10,
            )
            return
        self.notify(f"{said}. Reloaded from the database.", markup=False, timeout=4)

    def action_help(self) -> None:
        """Help for the current screen (pressed again, or Escape, closes it)."""
        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss(None)
            return
        context = self.current_context()
        contexts = (
            [context]
            if context in ("confirm", "filters", "intake", "note", "app")
            else [context, "app"]
        )
        path = self.config.path or config_path(self.desk.settings.config_file)[0]
        self.push_screen(HelpScreen(contexts, self.keymap, path))

    def action_command_palette(self) -> None:
        """The command palette, except while the too-small notice is up."""
        if self._too_small is not None:
            return
        super().action_command_palette()

    def action_copy(self) -> None:
        """Copy the highlighted case id (Queue) or the page path / card id (Hafıza) to
        the clipboard with OSC 52, which works over SSH."""
        tab = self.query_one(TabbedContent).active
        target: tuple[str, str] | None = None
        if tab == "queue":
            case_id = self.query_one(QueuePane).current_case_id()
            target = ("case id", case_id) if case_id else None
        elif tab == "hafiza":
            target = self.query_one(MemoryPane).copy_target()
        if target is None:
            self.notify(
                "Nothing to copy here: highlight a case (Queue) or open a page (Hafıza).",
                markup=False,
                timeout=4,
            )
            return
        what, text = target
        self.copy_to_clipboard(text)
        self.post_message(Copied(text, what))
        self.notify(
            f"{printable(text, multiline=False)} (OSC 52; in tmux it needs "
            "set -g set-clipboard on)",
            title=f"Copied {what}",
            markup=False,
            timeout=4,
        )

    # --- palette commands ---------------------------------------------------------------------

    def palette_runner(self, action_id: str) -> Callable[[], None]:
        """A palette command that runs the action ``action_id`` where it belongs."""

        def run() -> None:
            self.run_defined(action_id)

        return run

    def run_defined(self, action_id: str) -> None:
        """Run the action ``action_id`` in its context (switching tab first)."""
        action = ACTIONS[action_id]
        target: object = self
        if action.context == "queue":
            self.action_show_tab("queue")
            target = self.query_one(QueuePane)
        elif action.context == "hafiza":
            self.action_show_tab("hafiza")
            target = self.query_one(MemoryPane)
        self.call_later(self.run_action, action.action, target)

    def case_jumper(self, case_id: str) -> Callable[[], None]:
        """A palette command that goes to ``case_id``."""

        def run() -> None:
            self.goto_case(case_id)

        return run

    def goto_case(self, case_id: str) -> None:
        """Highlight a pending case in the queue (clearing filters that hide it), or
        open a ruled case's decision page in Hafıza."""
        pane = self.desk_part(QueuePane, f"a jump to {case_id}")
        if pane is None:
            return
        if case_id in pane.cases:
            self.action_show_tab("queue")
            if case_id not in pane.table.row_keys():
                pane.set_filter(pane.filter.cleared())
                self.notify(f"Filters cleared to show {case_id}.", markup=False, timeout=4)
            pane.table.move_cursor(row=pane.table.get_row_index(case_id), animate=False)
            pane.table.focus()
            return
        self.open_case_page(case_id)

    def _reveal_reader(self) -> None:
        pane = self.desk_part(MemoryPane, "a palette jump to a decision page")
        if pane is None:  # called from the page thread: the desk may be closing
            return
        self.action_show_tab("hafiza")
        pane.maximize_reader()

    def project_switcher(self, project_id: str) -> Callable[[], None]:
        """A palette command that opens ``project_id``."""

        def run() -> None:
            self.switch_project(project_id)

        return run

    def switch_project(self, project_id: str) -> None:
        """Show another stored project (late answers for the old one are ignored)."""
        if project_id == self.project_id:
            return
        self.project_id = project_id
        self._versions = {}
        self.case_index = []
        self.last_converted = None
        self._stale = {"hafiza", "raporlar"}
        self._refresh_failing = False
        self.seat = None
        self.project_name = ""
        self.sub_title = printable(project_id, multiline=False)
        self._show_who()
        self.query_one(QueuePane).reset()
        self.query_one(MemoryPane).reset()
        self.query_one(ReportsPane).reset()
        self.action_show_tab("queue")
        self.load_queue()
        self._catch_up_due = project_id
        self.post_message(ProjectSwitched(project_id))
        self.notify(f"Opened project {project_id}.", markup=False, timeout=3)
