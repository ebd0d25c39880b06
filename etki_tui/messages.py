"""Typed messages of the desk, declared here, in one place.

Two kinds: workers call the desk in a thread and post a *result* message to the app,
whose handlers update the screen on the event loop (workers never touch widgets); and
widgets post *request* messages (the reviewer asked for something) that the app acts on.
Tests watch both with ``run_test(message_hook=...)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from textual.message import Message

from etki.domain import (
    CaseRecord,
    CaseSummary,
    ClauseMemory,
    DisputedClause,
    Preanalysis,
    Report,
    ResolutionOutcome,
    RulingOutcome,
    ScopeClause,
    WorkItem,
)
from etki.services import IntakeSummary, Seat

if TYPE_CHECKING:
    from etki.services import RulingIndex

# --- worker results ---------------------------------------------------------------------


class QueueLoaded(Message):
    """Every case of a project (pending and ruled, in queue order) with the clauses and
    clause memory the detail pane needs, so highlighting a row never blocks on the DB.
    ``versions`` is what the live refresh compares against; ``source`` says why it was
    loaded (``load``, ``poll`` or ``reload``); ``projects`` is (id, name) of every stored
    project, for the palette (empty on a poll). ``rulings`` is the similar-rulings index
    of the ruled cases (:meth:`etki.services.Desk.ruling_index_of`), or None.
    ``knowledge`` is the project's knowledge-index hash at the read (a new one means
    the folder was loaded again: clauses and work items may have changed).
    ``seat`` is who acts and whether they may rule (:meth:`etki.services.Desk.seat`),
    or None when it could not be read. ``intake`` is what re-reading the folder's
    ``requests.jsonl`` stored (source ``reread``, Ctrl+R: an
    :class:`etki.services.IntakeSummary`, or a message when the file could not be
    read), else None."""

    def __init__(
        self,
        project_id: str,
        project_name: str,
        cases: Sequence[CaseRecord | CaseSummary],
        clauses: Mapping[str, ScopeClause],
        memory: Mapping[str, ClauseMemory],
        *,
        versions: Mapping[str, int] | None = None,
        source: str = "load",
        projects: Sequence[tuple[str, str]] = (),
        rulings: RulingIndex | None = None,
        knowledge: str | None = None,
        seat: Seat | None = None,
        intake: IntakeSummary | str | None = None,
        claims: Mapping[str, Any] | None = None,
        resolutions: int | None = None,
        preanalyses: int | None = None,
    ) -> None:
        super().__init__()
        self.resolutions = resolutions
        """How many dispute resolutions the project had at the read (None: not read)."""
        self.preanalyses = preanalyses
        """The project's newest pre-analysis id at the read (None: not read)."""
        self.intake = intake
        self.claims = dict(claims or {})
        """case id -> live claim (a ``claim`` :class:`etki.domain.CaseEvent`)."""
        self.knowledge = knowledge
        self.rulings = rulings
        self.seat = seat
        self.project_id = project_id
        self.project_name = project_name
        self.cases = list(cases)
        self.clauses = dict(clauses)
        self.memory = dict(memory)
        self.versions = dict(versions or {})
        self.source = source
        self.projects = list(projects)

    @property
    def pending(self) -> list[CaseRecord | CaseSummary]:
        """The cases still waiting for a ruling."""
        return [c for c in self.cases if c.ruling is None]


class RulingsIndexed(Message):
    """The similar-rulings index of a project's first queue, read after its rows were
    drawn (:meth:`etki.services.Desk.ruling_index_of`); ``rulings`` None and ``error``
    say why it could not be built."""

    def __init__(
        self, project_id: str, rulings: RulingIndex | None, error: str | None = None
    ) -> None:
        super().__init__()
        self.project_id = project_id
        self.rulings = rulings
        self.error = error


class RefreshFailed(Message):
    """The live refresh could not read the database (it keeps trying)."""

    def __init__(self, project_id: str, message: str) -> None:
        super().__init__()
        self.project_id = project_id
        self.message = message


class RulingCommitted(Message):
    """A ruling was committed (posted as soon as the DB commit is done; the wiki
    projection follows in its own worker and reports with :class:`RulingProjected`).
    ``memory`` is the clause memory after it when known, else empty."""

    def __init__(
        self,
        case_id: str,
        action: str,
        outcome: RulingOutcome,
        memory: Mapping[str, ClauseMemory],
        *,
        amended: bool = False,
    ) -> None:
        super().__init__()
        self.case_id = case_id
        self.action = action
        self.outcome = outcome
        self.memory = dict(memory)
        self.amended = amended
        """The ruling amended an earlier one (``A``)."""


class RulingProjected(Message):
    """The HITL wiki projection of a committed ruling finished (it runs after
    :class:`RulingCommitted`, in its own worker): ``wiki_report`` (None when the wiki is
    off), ``wiki_error`` (a one-line message when the projection failed; the ruling
    stands) and ``memory``, the clause memory after the ruling (None when it could not
    be read), with ``rulings``, the similar-rulings index after it (or None)."""

    def __init__(
        self,
        case_id: str,
        action: str,
        wiki_report: object | None,
        wiki_error: str | None,
        memory: Mapping[str, ClauseMemory] | None,
        rulings: RulingIndex | None = None,
    ) -> None:
        super().__init__()
        self.rulings = rulings
        self.case_id = case_id
        self.action = action
        self.wiki_report = wiki_report
        self.wiki_error = wiki_error
        self.memory = dict(memory) if memory is not None else None


class WikiCaughtUp(Message):
    """The catch-up the desk runs on start (and when it opens another project) finished:
    the wiki of ``project_id`` now holds what the DB holds (rulings whose own projection
    never ran, in any process, are written). ``wiki_report`` is the write report (None
    when the wiki is off), ``wiki_error`` a one-line message when it failed."""

    def __init__(self, project_id: str, wiki_report: object | None, wiki_error: str | None) -> None:
        super().__init__()
        self.project_id = project_id
        self.wiki_report = wiki_report
        self.wiki_error = wiki_error


class DetailsLoaded(Message):
    """Whole cases read for the queue's detail pane (``asked``: the ids requested;
    ``error``: why some could not be read), with ``workitems``, id -> the work items
    their effort bases name (the project has; titles, days and dates to show)."""

    def __init__(
        self,
        records: Sequence[CaseRecord],
        asked: Sequence[str],
        *,
        project_id: str = "",
        error: str | None = None,
        workitems: Mapping[str, WorkItem] | None = None,
    ) -> None:
        super().__init__()
        self.workitems = dict(workitems or {})
        self.records = list(records)
        self.asked = list(asked)
        self.project_id = project_id
        self.error = error


class RulingConflict(Message):
    """Someone ruled the case first (optimistic locking, or the live refresh already
    showed it). ``ruled_by``/``ruled_at``/``ruling`` say who won; nothing was recorded."""

    def __init__(
        self,
        case_id: str,
        ruled_by: str | None,
        ruled_at: str | None,
        ruling: str | None,
        message: str,
        *,
        reason: str = "",
    ) -> None:
        super().__init__()
        self.reason = reason
        """The reason the reviewer typed for the ruling that was not recorded."""
        self.case_id = case_id
        self.ruled_by = ruled_by
        self.ruled_at = ruled_at
        self.ruling = ruling
        self.message = message


class RulingFailed(Message):
    """A ruling was refused (bad input, permission, missing case) or failed.
    ``error`` is the exception's class name, ``advice`` what to do next."""

    def __init__(
        self, case_id: str, action: str, message: str, *, error: str = "", advice: str = ""
    ) -> None:
        super().__init__()
        self.case_id = case_id
        self.action = action
        self.message = message
        self.error = error
        self.advice = advice


class BulkRuled(Message):
    """The marked cases were ruled one by one as the engine said
    (:meth:`etki_tui.app.EtkiApp.rule_marked`): ``committed`` the outcomes of the rulings
    recorded; ``conflicts`` (case id, ruled by, ruled at, ruling) of the cases someone
    else ruled first; ``failed`` (case id, message) of the others refused or failed;
    ``skipped`` the ids not tried after the desk's reviewer was refused (the rest would
    be refused alike); ``unsure`` how many marked cases were left for a careful look
    (the engine is not sure of them: B never rules those)."""

    def __init__(
        self,
        project_id: str,
        committed: Sequence[RulingOutcome],
        conflicts: Sequence[tuple[str, str | None, str | None, str | None]],
        failed: Sequence[tuple[str, str]],
        skipped: Sequence[str] = (),
        *,
        unsure: int = 0,
    ) -> None:
        super().__init__()
        self.project_id = project_id
        self.committed = list(committed)
        self.conflicts = list(conflicts)
        self.failed = list(failed)
        self.skipped = list(skipped)
        self.unsure = unsure


class SearchResults(Message):
    """Wiki search hits for ``query`` (path, line, snippet and title, best first), or
    ``error``; ``total`` pages match (``hits`` holds the best ones); ``seq`` numbers the
    search (the app shows only its newest); ``prompts`` is (width, list entries of the
    hits) as the worker laid them out."""

    def __init__(
        self,
        query: str,
        hits: Sequence[Any],
        error: str | None = None,
        project_id: str = "",
        *,
        total: int | None = None,
        seq: int = 0,
        prompts: tuple[int, Sequence[Any]] | None = None,
    ) -> None:
        super().__init__()
        self.query = query
        self.hits = list(hits)
        self.error = error
        self.project_id = project_id
        self.total = len(self.hits) if total is None else total
        self.seq = seq
        self.prompts = prompts


class MemoryLoaded(Message):
    """Precedents and disputed clauses (from the DB) and the wiki page lists."""

    def __init__(
        self,
        precedents: Sequence[CaseRecord],
        disputed: Sequence[DisputedClause],
        clauses: Mapping[str, ScopeClause],
        pages: Sequence[str],
        wiki_on: bool,
        *,
        project_id: str = "",
        precedent_pages: Sequence[str] = (),
        top_pages: Sequence[str] = (),
    ) -> None:
        super().__init__()
        self.precedents = list(precedents)
        self.disputed = list(disputed)
        self.clauses = dict(clauses)
        self.pages = list(pages)
        self.wiki_on = wiki_on
        self.project_id = project_id
        self.precedent_pages = list(precedent_pages)
        self.top_pages = list(top_pages)


class PageLoaded(Message):
    """The text of one wiki page, or ``error``. ``history`` says how the reader files
    it: ``push`` (a new page), ``replace`` (previewing while browsing the list) or
    ``keep`` (back/forward moved already)."""

    def __init__(
        self,
        path: str,
        text: str,
        error: str | None = None,
        *,
        history: str = "replace",
        project_id: str = "",
        seq: int = 0,
    ) -> None:
        super().__init__()
        self.path = path
        self.text = text
        self.error = error
        self.history = history
        self.project_id = project_id
        self.seq = seq
        """Which page request this answers (the app shows only the newest; 0: always)."""


class ReportLoaded(Message):
    """Counts for Raporlar."""

    def __init__(self, report: Report, project_id: str = "") -> None:
        super().__init__()
        self.report = report
        self.project_id = project_id


class DeskFailed(Message):
    """A background read failed; ``what`` names it, ``message`` says why and
    ``advice`` what to do next."""

    def __init__(self, what: str, message: str, advice: str = "") -> None:
        super().__init__()
        self.what = what
        self.message = message
        self.advice = advice


class TerminalClosed(Message):
    """The terminal went away (SIGHUP, SIGTERM or end of input): leave cleanly."""

    def __init__(self, why: str) -> None:
        super().__init__()
        self.why = why


# --- requests from widgets --------------------------------------------------------------


class NewRequestWanted(Message):
    """The reviewer asked for the new-request form (``n`` in the queue)."""


class DisputeResolveWanted(Message):
    """The reviewer asked to resolve the disputed clause ``item`` (``r`` on its card in
    Hafıza, ``R`` on a case citing it in the queue); ``title`` is the clause's number
    and title for the form ("" when unknown). The app checks the seat and opens it."""

    def __init__(self, item: DisputedClause, title: str = "") -> None:
        super().__init__()
        self.item = item
        self.title = title


class DisputeResolved(Message):
    """:meth:`etki.services.Desk.resolve_dispute` recorded ``outcome`` (its resolution and
    the wiki's report or error) for ``project_id``."""

    def __init__(self, outcome: ResolutionOutcome, project_id: str) -> None:
        super().__init__()
        self.outcome = outcome
        self.project_id = project_id


class DisputeNotResolved(Message):
    """Recording a resolution of ``ref`` failed (not an approver, no longer disputed, the
    store): ``message`` says why, ``advice`` what to do; nothing was recorded."""

    def __init__(self, ref: str, message: str, advice: str = "") -> None:
        super().__init__()
        self.ref = ref
        self.message = message
        self.advice = advice


class RequestAdded(Message):
    """:meth:`etki.services.Desk.add_request` stored ``case`` for ``project_id``."""

    def __init__(self, case: CaseRecord, project_id: str) -> None:
        super().__init__()
        self.case = case
        self.project_id = project_id


class RequestsImported(Message):
    """:meth:`etki.services.Desk.import_requests` read the file ``path`` into
    ``project_id``: ``done`` what it did and ``cases`` the new cases (with their
    decisions), or ``error`` (with ``advice``) says why nothing was imported."""

    def __init__(
        self,
        project_id: str,
        path: str,
        done: IntakeSummary | None = None,
        cases: list[CaseRecord] | None = None,
        *,
        error: str = "",
        advice: str = "",
    ) -> None:
        super().__init__()
        self.project_id = project_id
        self.path = path
        self.done = done
        self.cases = cases or []
        self.error = error
        self.advice = advice


class PreanalysisWanted(Message):
    """The reviewer asked for a new pre-analysis of ``case_id`` (``p`` in the queue)."""

    def __init__(self, case_id: str) -> None:
        super().__init__()
        self.case_id = case_id


class PreanalysisWritten(Message):
    """:meth:`etki.services.Desk.preanalyse` saved ``preanalysis`` for ``case_id`` of
    ``project_id`` (``ok`` or ``error``); ``record`` is the case read again with it
    (None when it could not be read), ``wiki_error`` why the wiki was not updated."""

    def __init__(
        self,
        case_id: str,
        project_id: str,
        preanalysis: Preanalysis | None,
        record: CaseRecord | None = None,
        *,
        wiki_error: str | None = None,
        error: str | None = None,
    ) -> None:
        super().__init__()
        self.case_id = case_id
        self.project_id = project_id
        self.preanalysis = preanalysis
        self.record = record
        self.wiki_error = wiki_error
        self.error = error
        """Why nothing was saved (no model, the case is gone, the store failed)."""


class RuleRequested(Message):
    """The reviewer asked to rule ``case`` with ``action`` (approve | convert_to_cr |
    reject); the app confirms and runs it."""

    def __init__(self, case: CaseRecord | CaseSummary, action: str) -> None:
        super().__init__()
        self.case = case
        self.action = action


class BulkRuleRequested(Message):
    """The reviewer asked to rule the marked ``cases`` (queue order) each as the engine
    said; the app confirms once and rules them one by one."""

    def __init__(self, cases: Sequence[CaseRecord | CaseSummary]) -> None:
        super().__init__()
        self.cases = list(cases)


class AmendRequested(Message):
    """The reviewer asked to amend the ruling of the ruled ``case`` (``A``); the app asks
    for the new ruling, confirms (a reason is required) and runs it."""

    def __init__(self, case: CaseRecord | CaseSummary) -> None:
        super().__init__()
        self.case = case


class NoteWanted(Message):
    """``m``: the reviewer wants to add a note to ``case_id``."""

    def __init__(self, case_id: str) -> None:
        super().__init__()
        self.case_id = case_id


class ClaimWanted(Message):
    """``x``: claim ``case_id``, or release it when ``release``."""

    def __init__(self, case_id: str, *, release: bool) -> None:
        super().__init__()
        self.case_id = case_id
        self.release = release


class CaseEventDone(Message):
    """A note, claim, release or estimate was stored (``event``, a
    :class:`etki.domain.CaseEvent`) on ``case_id``; ``wiki_error`` when the case's wiki
    page could not be written; ``record``: the case read again after it, when the
    detail pane shows what was stored (an estimate), else None."""

    def __init__(
        self,
        case_id: str,
        event: object,
        *,
        what: str = "note",
        project_id: str = "",
        wiki_error: str | None = None,
        error: str | None = None,
        advice: str = "",
        record: CaseRecord | None = None,
    ) -> None:
        super().__init__()
        self.case_id = case_id
        self.event = event
        self.what = what
        """``note``, ``claim``, ``release`` or ``estimate``."""
        self.project_id = project_id
        self.wiki_error = wiki_error
        self.error = error
        """Why nothing was stored (``event`` is None then), with ``advice``."""
        self.advice = advice
        self.record = record


class CaseOpened(Message):
    """The detail pane shows ``case_id``: the app reads its history (``history``) and,
    once the pane rested on it, writes the reviewer's view (``view``; at most once an
    hour), in a worker."""

    def __init__(self, case_id: str, *, history: bool = True, view: bool = False) -> None:
        super().__init__()
        self.case_id = case_id
        self.history = history
        self.view = view


class HistoryLoaded(Message):
    """The history of ``case_id`` (:class:`etki.domain.CaseEvent` values, oldest first),
    read for the detail pane; ``error`` when it could not be read."""

    def __init__(
        self, case_id: str, events: list, *, project_id: str = "", error: str | None = None
    ) -> None:
        super().__init__()
        self.case_id = case_id
        self.events = events
        self.project_id = project_id
        self.error = error


class DetailsWanted(Message):
    """The queue needs the whole cases ``case_ids`` (the highlighted one and its
    neighbours) for its detail pane."""

    def __init__(self, case_ids: Sequence[str]) -> None:
        super().__init__()
        self.case_ids = list(case_ids)


class FilterChanged(Message):
    """The queue's filter or sort changed (``filter`` is a
    :class:`etki_tui.queue.filters.QueueFilter`); ``shown``/``pending`` count the rows."""

    def __init__(self, filter: Any, shown: int, pending: int) -> None:
        super().__init__()
        self.filter = filter
        self.shown = shown
        self.pending = pending


class SearchChanged(Message):
    """The Hafıza search text changed (the app debounces and searches in a worker)."""

    def __init__(self, query: str, immediate: bool = False) -> None:
        super().__init__()
        self.query = query
        self.immediate = immediate


class PageWanted(Message):
    """The reader needs a wiki page: the app loads it in a worker. ``history`` as in
    :class:`PageLoaded`."""

    def __init__(self, path: str, history: str = "replace") -> None:
        super().__init__()
        self.path = path
        self.history = history


class ClauseWanted(Message):
    """The reviewer followed a link to clause ``ref``: the pane that holds the project's
    clauses opens the whole contract scrolled to it
    (:class:`etki_tui.screens.contract.ContractScreen`)."""

    def __init__(self, ref: str) -> None:
        super().__init__()
        self.ref = ref


class Copied(Message):
    """``text`` was sent to the clipboard (OSC 52); ``what`` names it."""

    def __init__(self, text: str, what: str) -> None:
        super().__init__()
        self.text = text
        self.what = what


class CaseWanted(Message):
    """The reviewer asked to go to ``case_id`` (a similar ruling of the clause-memory
    strip): the app highlights it when pending, else opens its decision page."""

    def __init__(self, case_id: str) -> None:
        super().__init__()
        self.case_id = case_id


class CrPageWanted(Message):
    """The reviewer asked for a change-request document (``D``): that of ``case_id``
    (ruled CHANGE_REQUEST), or of the case whose wiki ``page`` (a decision, precedent
    or change-request page) is shown in Hafıza; with neither, the change request this
    desk converted last, or else the notice ``otherwise``. The app opens the page in
    Hafıza's reader."""

    def __init__(
        self, case_id: str | None = None, *, page: str | None = None, otherwise: str = ""
    ) -> None:
        super().__init__()
        self.case_id = case_id
        self.page = page
        self.otherwise = otherwise


class ProjectSwitched(Message):
    """The desk now shows ``project_id``."""

    def __init__(self, project_id: str) -> None:
        super().__init__()
        self.project_id = project_id


class EstimateWanted(Message):
    """``E``: the reviewer wants to record an effort estimate of ``case_id`` (issue 35
    item 2; the queue's highlighted case), or of the case whose wiki ``page`` Hafıza
    shows (a case converted with ``c`` leaves the queue; its decision or change-request
    page is where the PMO finds it again), else the change request this desk converted
    last, else the notice ``otherwise``; the app opens the estimate form."""

    def __init__(
        self, case_id: str | None = None, *, page: str | None = None, otherwise: str = ""
    ) -> None:
        super().__init__()
        self.case_id = case_id
        self.page = page
        self.otherwise = otherwise


class CrExportWanted(Message):
    """``X``: write the client-facing change request (issue 35 item 1) of ``case_id``
    (ruled CHANGE_REQUEST), or of the case whose wiki ``page`` Hafıza shows; with
    neither, of the change request this desk converted last, or else the notice
    ``otherwise`` (the same choice as :class:`CrPageWanted`)."""

    def __init__(
        self, case_id: str | None = None, *, page: str | None = None, otherwise: str = ""
    ) -> None:
        super().__init__()
        self.case_id = case_id
        self.page = page
        self.otherwise = otherwise


class CrExported(Message):
    """The change request of ``case_id`` was written to ``path`` (``terms``: the terms
    recorded before, in words, "" when none were; ``wiki_error`` why the wiki did not
    follow them; ``gaps`` what it still lacks), or ``error`` (with ``advice``) says why
    nothing was."""

    def __init__(
        self,
        case_id: str,
        path: str,
        error: str = "",
        advice: str = "",
        *,
        terms: str = "",
        wiki_error: str = "",
        gaps: tuple[str, ...] = (),
    ) -> None:
        super().__init__()
        self.case_id = case_id
        self.path = path
        self.error = error
        self.advice = advice
        self.terms = terms
        self.wiki_error = wiki_error
        self.gaps = gaps
        """What the document still lacks (:meth:`etki.domain.CaseRecord.cr_gaps`)."""
