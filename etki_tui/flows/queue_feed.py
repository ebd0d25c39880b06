"""The queue feed: reading the queue (load, live poll, reread), its answers, the case
history and events (note, claim), the detail reads and the wiki's catch-up.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual import on

from etki.domain import CaseRecord, CaseSummary, ReviewerEstimate
from etki.errors import EtkiError, NotFoundError
from etki.services import IntakeSummary
from etki.text import plural, printable
from etki_tui.errors import advice, one_line
from etki_tui.flows.base import VIEW_EVERY_S, FlowBase, could_not_load
from etki_tui.heap import collector_paused, keep_loaded
from etki_tui.live import gone
from etki_tui.messages import (
    CaseEventDone,
    CaseOpened,
    ClaimWanted,
    DeskFailed,
    DetailsLoaded,
    DetailsWanted,
    HistoryLoaded,
    NoteWanted,
    QueueLoaded,
    RefreshFailed,
    RulingsIndexed,
    WikiCaughtUp,
)
from etki_tui.queue.pane import QueuePane
from etki_tui.render import VERDICT_SHORT, short_case_id, when
from etki_tui.screens.confirm import ConfirmRuling
from etki_tui.screens.note import NoteForm
from etki_tui.workers import desk_worker


class QueueFeedFlow(FlowBase):
    """The queue feed: reading the queue (load, live poll, reread), its answers, the case"""

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
        assignments = self._read_assignments(project_id)
        resolutions = self.desk.resolution_count(project_id)
        preanalyses = self.desk.preanalysis_mark(project_id)
        known = self.read_projects() if projects else []
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
            assignments=assignments,
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

    def _read_assignments(self, project_id: str) -> dict:
        """The project's assignments in force (empty when they cannot be read: like a
        claim, a courtesy mark, never a reason to fail the queue)."""
        try:
            return self.desk.assignments(project_id)
        except Exception as exc:  # noqa: BLE001
            self.log.warning(f"assignments of {project_id} not read: {exc}")
            return {}

    def read_projects(self) -> list[tuple[str, str]]:
        """The stored projects that are not archived (issue 35) as (id, name), read now
        (the name only, not the knowledge; "" when it cannot be read). Blocking: called
        in a worker (the queue's load) or a thread (the palette's startup)."""
        known: list[tuple[str, str]] = []
        for pid in self.desk.active_project_ids():
            try:
                other = self.desk.project_name(pid)
            except Exception:
                other = ""
            known.append((pid, other))
        return known

    @desk_worker("queue", failed=could_not_load("the queue"))
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

    @desk_worker("poll", failed=lambda exc, project_id: RefreshFailed(project_id, one_line(exc)))
    def poll_queue(self, project_id: str) -> QueueLoaded | None:
        """The live refresh: compare case versions; reload only when something changed."""
        versions = self.desk.versions(project_id)
        if (
            versions == self._versions
            and not self._refresh_failing
            and self._read_claims(project_id) == self._claims
            and self._read_assignments(project_id) == self._assignments
            # a resolution or a pre-analysis saved elsewhere changes no case version
            and self.desk.resolution_count(project_id) == self._resolutions
            and self.desk.preanalysis_mark(project_id) == self._preanalyses
        ):
            return None
        return self._load(project_id, "poll", projects=False)

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

    @desk_worker("project", exclusive=False, then=FlowBase._warm_search)
    def catch_up_wiki(self, project_id: str) -> WikiCaughtUp:
        """Write what the DB holds that the wiki lacks (a ruling killed after its commit,
        or whose projection timed out on the wiki lock, by any process), one projection
        at a time like :meth:`project_ruling`; answers with :class:`WikiCaughtUp`. Keys
        are never blocked: it runs in a thread. Started once the first queue of a project
        is shown (on start and after a project switch)."""
        with self._projecting:
            report, error = self.desk.catch_up_wiki(project_id)
        return WikiCaughtUp(project_id, report, error)

    @on(QueueLoaded)
    def _queue_loaded(self, message: QueueLoaded) -> None:
        self._read_answered()
        if message.project_id != self.project_id:
            return  # a late answer for the project we just left
        changed = bool(self._versions) and message.versions != self._versions
        before, ruled_before = self._versions, self._ruled_before
        self._versions = message.versions
        self._ruled_before = {c.case_id for c in message.cases if c.ruling is not None}
        self._claims = message.claims
        self._assignments = message.assignments
        if message.resolutions is not None:
            self._resolutions = message.resolutions
        new_preanalysis = (
            message.preanalyses is not None and message.preanalyses != self._preanalyses
        )
        first_read = self._preanalyses < 0
        if message.preanalyses is not None:
            self._preanalyses = message.preanalyses
        self.case_index = list(message.cases)
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
            assignments=message.assignments,
            me=message.seat.reviewer if message.seat is not None else None,
        )
        pane.llm_model = self.desk.preanalysis_model()
        added = self._select_added
        if added is not None and added in pane.cases:  # a request added at this desk
            self._select_added = None
            self.goto_case(added)
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
        me = message.seat.reviewer if message.seat is not None else None
        amended = [  # ruled before this read, a newer version now, by someone else
            c
            for c in message.cases
            if c.ruling is not None
            and c.case_id in ruled_before
            and c.version > before.get(c.case_id, c.version)
            and c.ruling.reviewer != me
        ]
        if (by_others or amended) and message.source == "poll":
            self.notify(
                meanwhile_text(by_others, amended),
                title="Queue updated",
                markup=False,
                timeout=6,
            )
        if by_others and message.source == "poll":
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
        elif message.what == "estimate":
            # the price grouped, as the CR document shows it (12,500.00 EUR)
            summary = event.shown() if isinstance(event, ReviewerEstimate) else ""
            text = f"Estimate of {message.case_id} recorded ({summary}): in its history."
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
            if message.record is not None:
                pane.detail_changed(message.record)
            pane.history_changed(message.case_id)
        if message.what in ("note", "estimate"):
            self._mark_stale()
        else:
            self.load_queue("reload")  # the claims the queue shows

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
                f"{said}; {len(intake.refused)} {plural(len(intake.refused), 'row')} refused:\n{shown}"
                + (f"\n… and {more} more" if more > 0 else ""),
                title="Reloaded",
                severity="warning",
                markup=False,
                timeout=10,
            )
            return
        self.notify(f"{said}. Reloaded from the database.", markup=False, timeout=4)


MEANWHILE_SHOWN = 3
"""Cases named in each part of the "meanwhile" status message (the rest are counted;
the queue and ``etki show`` have them all)."""


def meanwhile_text(
    ruled: Sequence[CaseRecord | CaseSummary], amended: Sequence[CaseRecord | CaseSummary]
) -> str:
    """What the status line says of rulings another reviewer made since the last read:
    each case (short id) paired with its ruling and who made it, ``Ruled meanwhile:
    759f6cc6 IN_SCOPE by Mehmet Demir; 6cee39a2 REJECT by Zeynep Kaya.``, then ``Amended
    meanwhile: …`` for a ruled case whose ruling was changed (a fresh trial of issue 34
    read "Ruled meanwhile by Mehmet Demir, Zeynep Kaya: req-…759f6cc6, req-…6cee39a2" as
    if Mehmet ruled the first, and an amendment was not said at all). At most
    :data:`MEANWHILE_SHOWN` of each, then ``and N more``. Names are client text: made
    printable, one line (the line is never markup)."""

    def part(lead: str, cases: Sequence[CaseRecord | CaseSummary]) -> str:
        said = []
        for c in cases[:MEANWHILE_SHOWN]:
            r = c.ruling
            assert r is not None  # the callers pass ruled cases only
            who = printable(r.reviewer, multiline=False)
            verdict = VERDICT_SHORT.get(r.ruling, r.ruling)
            said.append(f"{short_case_id(c.case_id)} {verdict} by {who}")
        more = f"; and {len(cases) - MEANWHILE_SHOWN} more" if len(cases) > MEANWHILE_SHOWN else ""
        return f"{lead}: {'; '.join(said)}{more}."

    parts = []
    if ruled:
        parts.append(part("Ruled meanwhile", ruled))
    if amended:
        parts.append(part("Amended meanwhile", amended))
    return " ".join(parts)
