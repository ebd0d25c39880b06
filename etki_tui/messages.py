"""Typed messages of the desk, declared here, in one place.

Two kinds: workers call the desk in a thread and post a *result* message to the app,
whose handlers update the screen on the event loop (workers never touch widgets); and
widgets post *request* messages (the reviewer asked for something) that the app acts on.
Tests watch both with ``run_test(message_hook=...)``.

Each message is a dataclass (:func:`message`): its fields are its constructor's
parameters, in order; those after ``_: KW_ONLY`` are keyword-only. Textual's
:class:`~textual.message.Message` is made for this: its ``__init__`` only calls
``__post_init__``, which a dataclass's ``__init__`` calls too, so a message that copies
its arguments in its own ``__post_init__`` calls ``super().__post_init__()`` first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, dataclass_transform

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

_M = TypeVar("_M", bound=Message)


@dataclass_transform(eq_default=False, field_specifiers=(field,))
def message(cls: type[_M]) -> type[_M]:
    """Make the :class:`~textual.message.Message` subclass ``cls`` a dataclass whose
    fields are its constructor's parameters. Equality stays identity (two messages
    with the same values are still two messages: no ``__eq__``, still hashable) and the
    repr stays Textual's (the class name, not every case a message carries)."""
    return dataclass(eq=False, repr=False)(cls)


# --- worker results ---------------------------------------------------------------------


@message
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

    project_id: str
    project_name: str
    cases: Sequence[CaseRecord | CaseSummary]
    clauses: dict[str, ScopeClause]
    memory: dict[str, ClauseMemory]
    _: KW_ONLY
    versions: dict[str, int] = field(default_factory=dict)
    source: str = "load"
    projects: list[tuple[str, str]] = field(default_factory=list)
    rulings: RulingIndex | None = None
    knowledge: str | None = None
    seat: Seat | None = None
    intake: IntakeSummary | str | None = None
    claims: dict[str, Any] = field(default_factory=dict)
    """case id -> live claim (a ``claim`` :class:`etki.domain.CaseEvent`)."""
    assignments: dict[str, Any] = field(default_factory=dict)
    """case id -> the assignment in force (an ``assign`` :class:`etki.domain.CaseEvent`,
    ``after``: the assignee)."""
    resolutions: int | None = None
    """How many dispute resolutions the project had at the read (None: not read)."""
    preanalyses: int | None = None
    """The project's newest pre-analysis id at the read (None: not read)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.cases = list(self.cases)
        self.clauses = dict(self.clauses)
        self.memory = dict(self.memory)
        self.versions = dict(self.versions)
        self.projects = list(self.projects)
        self.claims = dict(self.claims)
        self.assignments = dict(self.assignments)

    @property
    def pending(self) -> list[CaseRecord | CaseSummary]:
        """The cases still waiting for a ruling."""
        return [c for c in self.cases if c.ruling is None]


@message
class RulingsIndexed(Message):
    """The similar-rulings index of a project's first queue, read after its rows were
    drawn (:meth:`etki.services.Desk.ruling_index_of`); ``rulings`` None and ``error``
    say why it could not be built."""

    project_id: str
    rulings: RulingIndex | None
    error: str | None = None


@message
class RefreshFailed(Message):
    """The live refresh could not read the database (it keeps trying)."""

    project_id: str
    message: str


@message
class RulingCommitted(Message):
    """A ruling was committed (posted as soon as the DB commit is done; the wiki
    projection follows in its own worker and reports with :class:`RulingProjected`).
    ``memory`` is the clause memory after it when known, else empty."""

    case_id: str
    action: str
    outcome: RulingOutcome
    memory: dict[str, ClauseMemory]
    _: KW_ONLY
    amended: bool = False
    """The ruling amended an earlier one (``A``)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.memory = dict(self.memory)


@message
class RulingProjected(Message):
    """The HITL wiki projection of a committed ruling finished (it runs after
    :class:`RulingCommitted`, in its own worker): ``wiki_report`` (None when the wiki is
    off), ``wiki_error`` (a one-line message when the projection failed; the ruling
    stands) and ``memory``, the clause memory after the ruling (None when it could not
    be read), with ``rulings``, the similar-rulings index after it (or None)."""

    case_id: str
    action: str
    wiki_report: object | None
    wiki_error: str | None
    memory: dict[str, ClauseMemory] | None
    rulings: RulingIndex | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        self.memory = dict(self.memory) if self.memory is not None else None


@message
class WikiCaughtUp(Message):
    """The catch-up the desk runs on start (and when it opens another project) finished:
    the wiki of ``project_id`` now holds what the DB holds (rulings whose own projection
    never ran, in any process, are written). ``wiki_report`` is the write report (None
    when the wiki is off), ``wiki_error`` a one-line message when it failed."""

    project_id: str
    wiki_report: object | None
    wiki_error: str | None


@message
class DetailsLoaded(Message):
    """Whole cases read for the queue's detail pane (``asked``: the ids requested;
    ``error``: why some could not be read), with ``workitems``, id -> the work items
    their effort bases name (the project has; titles, days and dates to show)."""

    records: list[CaseRecord]
    asked: list[str]
    _: KW_ONLY
    project_id: str = ""
    error: str | None = None
    workitems: dict[str, WorkItem] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.records = list(self.records)
        self.asked = list(self.asked)
        self.workitems = dict(self.workitems)


@message
class RulingConflict(Message):
    """Someone ruled the case first (optimistic locking, or the live refresh already
    showed it). ``ruled_by``/``ruled_at``/``ruling`` say who won; nothing was recorded."""

    case_id: str
    ruled_by: str | None
    ruled_at: str | None
    ruling: str | None
    message: str
    _: KW_ONLY
    reason: str = ""
    """The reason the reviewer typed for the ruling that was not recorded."""


@message
class RulingFailed(Message):
    """A ruling was refused (bad input, permission, missing case) or failed.
    ``error`` is the exception's class name, ``advice`` what to do next."""

    case_id: str
    action: str
    message: str
    _: KW_ONLY
    error: str = ""
    advice: str = ""


@message
class BulkRuled(Message):
    """The marked cases were ruled one by one as the engine said
    (:meth:`etki_tui.app.EtkiApp.rule_marked`): ``committed`` the outcomes of the rulings
    recorded; ``conflicts`` (case id, ruled by, ruled at, ruling) of the cases someone
    else ruled first; ``failed`` (case id, message) of the others refused or failed;
    ``skipped`` the ids not tried after the desk's reviewer was refused (the rest would
    be refused alike); ``unsure`` how many marked cases were left for a careful look
    (the engine is not sure of them: B never rules those)."""

    project_id: str
    committed: list[RulingOutcome]
    conflicts: list[tuple[str, str | None, str | None, str | None]]
    failed: list[tuple[str, str]]
    skipped: list[str] = field(default_factory=list)
    _: KW_ONLY
    unsure: int = 0

    def __post_init__(self) -> None:
        super().__post_init__()
        self.committed = list(self.committed)
        self.conflicts = list(self.conflicts)
        self.failed = list(self.failed)
        self.skipped = list(self.skipped)


@message
class SearchResults(Message):
    """Wiki search hits for ``query`` (path, line, snippet and title, best first), or
    ``error``; ``total`` pages match (``hits`` holds the best ones; None: as many as hit);
    ``seq`` numbers the search (the app shows only its newest); ``prompts`` is (width,
    list entries of the hits) as the worker laid them out."""

    query: str
    hits: list[Any]
    error: str | None = None
    project_id: str = ""
    _: KW_ONLY
    total: int | None = None
    seq: int = 0
    prompts: tuple[int, Sequence[Any]] | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        self.hits = list(self.hits)
        if self.total is None:
            self.total = len(self.hits)


@message
class MemoryLoaded(Message):
    """Precedents and disputed clauses (from the DB) and the wiki page lists."""

    precedents: list[CaseRecord]
    disputed: list[DisputedClause]
    clauses: dict[str, ScopeClause]
    pages: list[str]
    wiki_on: bool
    _: KW_ONLY
    project_id: str = ""
    precedent_pages: list[str] = field(default_factory=list)
    top_pages: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.precedents = list(self.precedents)
        self.disputed = list(self.disputed)
        self.clauses = dict(self.clauses)
        self.pages = list(self.pages)
        self.precedent_pages = list(self.precedent_pages)
        self.top_pages = list(self.top_pages)


@message
class PageLoaded(Message):
    """The text of one wiki page, or ``error``. ``history`` says how the reader files
    it: ``push`` (a new page), ``replace`` (previewing while browsing the list) or
    ``keep`` (back/forward moved already), or ``refresh`` (the page shown, read again
    because the wiki changed: laid out again only if its text differs)."""

    path: str
    text: str
    error: str | None = None
    _: KW_ONLY
    history: str = "replace"
    project_id: str = ""
    seq: int = 0
    """Which page request this answers (the app shows only the newest; 0: always)."""
    anchor: str = ""
    """A clause section's anchor on the page (a search hit ``path#anchor`` opened): the
    reader lands on that clause's heading."""


@message
class ReportLoaded(Message):
    """Counts for Raporlar."""

    report: Report
    project_id: str = ""


@message
class DeskFailed(Message):
    """A background read failed; ``what`` names it, ``message`` says why and
    ``advice`` what to do next."""

    what: str
    message: str
    advice: str = ""


@message
class TerminalClosed(Message):
    """The terminal went away (SIGHUP, SIGTERM or end of input): leave cleanly."""

    why: str


# --- requests from widgets --------------------------------------------------------------


class NewRequestWanted(Message):
    """The reviewer asked for the new-request form (``n`` in the queue)."""


@message
class DisputeResolveWanted(Message):
    """The reviewer asked to resolve the disputed clause ``item`` (``r`` on its card in
    Hafıza, ``R`` on a case citing it in the queue); ``title`` is the clause's number
    and title for the form ("" when unknown). The app checks the seat and opens it."""

    item: DisputedClause
    title: str = ""


@message
class DisputeResolved(Message):
    """:meth:`etki.services.Desk.resolve_dispute` recorded ``outcome`` (its resolution and
    the wiki's report or error) for ``project_id``."""

    outcome: ResolutionOutcome
    project_id: str


@message
class DisputeNotResolved(Message):
    """Recording a resolution of ``ref`` failed (not an approver, no longer disputed, the
    store): ``message`` says why, ``advice`` what to do; nothing was recorded."""

    ref: str
    message: str
    advice: str = ""


@message
class RequestAdded(Message):
    """:meth:`etki.services.Desk.add_request` stored ``case`` for ``project_id``."""

    case: CaseRecord
    project_id: str


@message
class RequestsImported(Message):
    """:meth:`etki.services.Desk.import_requests` read the file ``path`` into
    ``project_id``: ``done`` what it did and ``cases`` the new cases (with their
    decisions), or ``error`` (with ``advice``) says why nothing was imported."""

    project_id: str
    path: str
    done: IntakeSummary | None = None
    cases: list[CaseRecord] = field(default_factory=list)
    _: KW_ONLY
    error: str = ""
    advice: str = ""


@message
class PreanalysisWanted(Message):
    """The reviewer asked for a new pre-analysis of ``case_id`` (``p`` in the queue)."""

    case_id: str


@message
class PreanalysisWritten(Message):
    """:meth:`etki.services.Desk.preanalyse` saved ``preanalysis`` for ``case_id`` of
    ``project_id`` (``ok`` or ``error``); ``record`` is the case read again with it
    (None when it could not be read), ``wiki_error`` why the wiki was not updated."""

    case_id: str
    project_id: str
    preanalysis: Preanalysis | None
    record: CaseRecord | None = None
    _: KW_ONLY
    wiki_error: str | None = None
    error: str | None = None
    """Why nothing was saved (no model, the case is gone, the store failed)."""


@message
class RuleRequested(Message):
    """The reviewer asked to rule ``case`` with ``action`` (approve | convert_to_cr |
    reject); the app confirms and runs it."""

    case: CaseRecord | CaseSummary
    action: str


@message
class BulkRuleRequested(Message):
    """The reviewer asked to rule the marked ``cases`` (queue order) each as the engine
    said; the app confirms once and rules them one by one."""

    cases: list[CaseRecord | CaseSummary]

    def __post_init__(self) -> None:
        super().__post_init__()
        self.cases = list(self.cases)


@message
class AmendRequested(Message):
    """The reviewer asked to amend the ruling of the ruled ``case`` (``A``); the app asks
    for the new ruling, confirms (a reason is required) and runs it."""

    case: CaseRecord | CaseSummary


@message
class NoteWanted(Message):
    """``m``: the reviewer wants to add a note to ``case_id``."""

    case_id: str


@message
class ClaimWanted(Message):
    """``x``: claim ``case_id``, or release it when ``release``."""

    case_id: str
    _: KW_ONLY
    release: bool


@message
class CaseEventDone(Message):
    """A note, claim, release or estimate was stored (``event``, a
    :class:`etki.domain.CaseEvent`) on ``case_id``; ``wiki_error`` when the case's wiki
    page could not be written; ``record``: the case read again after it, when the
    detail pane shows what was stored (an estimate), else None."""

    case_id: str
    event: object
    _: KW_ONLY
    what: str = "note"
    """``note``, ``claim``, ``release`` or ``estimate``."""
    project_id: str = ""
    wiki_error: str | None = None
    error: str | None = None
    """Why nothing was stored (``event`` is None then), with ``advice``."""
    advice: str = ""
    record: CaseRecord | None = None


@message
class CaseOpened(Message):
    """The detail pane shows ``case_id``: the app reads its history (``history``) and,
    once the pane rested on it, writes the reviewer's view (``view``; at most once an
    hour), in a worker."""

    case_id: str
    _: KW_ONLY
    history: bool = True
    view: bool = False


@message
class HistoryLoaded(Message):
    """The history of ``case_id`` (:class:`etki.domain.CaseEvent` values, oldest first),
    read for the detail pane; ``error`` when it could not be read."""

    case_id: str
    events: list
    _: KW_ONLY
    project_id: str = ""
    error: str | None = None


@message
class DetailsWanted(Message):
    """The queue needs the whole cases ``case_ids`` (the highlighted one and its
    neighbours) for its detail pane."""

    case_ids: list[str]

    def __post_init__(self) -> None:
        super().__post_init__()
        self.case_ids = list(self.case_ids)


@message
class FilterChanged(Message):
    """The queue's filter or sort changed (``filter`` is a
    :class:`etki_tui.queue.filters.QueueFilter`); ``shown``/``pending`` count the rows."""

    filter: Any
    shown: int
    pending: int


@message
class SearchChanged(Message):
    """The Hafıza search text changed (the app debounces and searches in a worker)."""

    query: str
    immediate: bool = False


@message
class PageWanted(Message):
    """The reader needs a wiki page: the app loads it in a worker. ``history`` as in
    :class:`PageLoaded`."""

    path: str
    history: str = "replace"


@message
class ClauseWanted(Message):
    """The reviewer followed a link to clause ``ref``: the pane that holds the project's
    clauses opens the whole contract scrolled to it
    (:class:`etki_tui.screens.contract.ContractScreen`)."""

    ref: str


@message
class Copied(Message):
    """``text`` was sent to the clipboard (OSC 52); ``what`` names it."""

    text: str
    what: str


@message
class CaseWanted(Message):
    """The reviewer asked to go to ``case_id`` (a similar ruling of the clause-memory
    strip): the app highlights it when pending, else opens its decision page."""

    case_id: str


@message
class CaseOrPageWanted(Message):
    """What the requests about one case's change request share (:class:`CrPageWanted`,
    :class:`EstimateWanted`, :class:`CrExportWanted`): ``case_id``, else the case whose
    wiki ``page`` Hafıza shows, else the change request this desk converted last, else
    the notice ``otherwise``. Never posted itself; Textual dispatches a message by its
    own class, so a handler of one of the three never sees the others."""

    case_id: str | None = None
    _: KW_ONLY
    page: str | None = None
    otherwise: str = ""


@message
class CrPageWanted(CaseOrPageWanted):
    """The reviewer asked for a change-request document (``D``): that of ``case_id``
    (ruled CHANGE_REQUEST), or of the case whose wiki ``page`` (a decision, precedent
    or change-request page) is shown in Hafıza; with neither, the change request this
    desk converted last, or else the notice ``otherwise``. The app opens the page in
    Hafıza's reader."""


@message
class ProjectSwitched(Message):
    """The desk now shows ``project_id``."""

    project_id: str


@message
class EstimateWanted(CaseOrPageWanted):
    """``E``: the reviewer wants to record an effort estimate of ``case_id`` (issue 35
    item 2; the queue's highlighted case), or of the case whose wiki ``page`` Hafıza
    shows (a case converted with ``c`` leaves the queue; its decision or change-request
    page is where the PMO finds it again), else the change request this desk converted
    last, else the notice ``otherwise``; the app opens the estimate form."""


@message
class CrExportWanted(CaseOrPageWanted):
    """``X``: write the client-facing change request (issue 35 item 1) of ``case_id``
    (ruled CHANGE_REQUEST), or of the case whose wiki ``page`` Hafıza shows; with
    neither, of the change request this desk converted last, or else the notice
    ``otherwise`` (the same choice as :class:`CrPageWanted`)."""


@message
class CrExported(Message):
    """The change request of ``case_id`` was written to ``path`` (``terms``: the terms
    recorded before, in words, "" when none were; ``wiki_error`` why the wiki did not
    follow them; ``gaps`` what it still lacks), or ``error`` (with ``advice``) says why
    nothing was."""

    case_id: str
    path: str
    error: str = ""
    advice: str = ""
    _: KW_ONLY
    terms: str = ""
    wiki_error: str = ""
    gaps: tuple[str, ...] = ()
    """What the document still lacks (:meth:`etki.domain.CaseRecord.cr_gaps`)."""
