"""The report's values: every figure of Raporlar and ``etki report``, computed from the
store by :func:`etki.reports.compute_report`. Re-exported from :mod:`etki.domain`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from etki.domain.cases import RulingRecord
    from etki.domain.decision import Effort, Risk
    from etki.domain.estimate import ReviewerEstimate
    from etki.domain.evidence import EvidenceStep


@dataclass(frozen=True)
class AgeBucket:
    """Pending cases whose age falls in ``[min_days, max_days)`` (``max_days`` None: no
    upper end), measured at :attr:`Report.as_of` from the request's ``submitted_at``
    when it carries a readable one (``from_submitted``), else from the time the case
    was stored, ``created_at`` (``from_created``). ``label`` is what Raporlar shows
    (``< 1 day``, ``1–3 days``, …)."""

    label: str
    min_days: int
    max_days: int | None
    cases: int = 0
    from_submitted: int = 0
    from_created: int = 0


@dataclass(frozen=True)
class OverdueLook:
    """A pending case whose risk asks for the PMO look within 24 hours and that has
    waited longer: ``hours`` since the request's ``submitted_at`` (else ``created_at``,
    ``basis`` says which) at :attr:`Report.as_of`; ``raised_now`` is True when the look
    comes from a clause disputed since the triage rather than from the frozen decision.
    ``title`` is client text (untrusted)."""

    case_id: str
    title: str
    hours: float
    basis: str
    raised_now: bool = False

    @property
    def waiting(self) -> str:
        """How long it has waited, as people read it (:func:`waited_words`: ``2d 5h``)."""
        return waited_words(self.hours)


def waited_words(hours: float) -> str:
    """A wait of ``hours`` (>= 0) as a PMO reads it: whole hours under a day (``5h``,
    ``0h``), days and the whole hours left past one (``2d 5h`` for 53.9 hours, ``2d``
    for 48.2): a trial read "overdue 53h" and had to divide by 24. Hours are cut, not
    rounded, as a clock counts them."""
    whole = int(max(hours, 0.0))
    days, left = divmod(whole, 24)
    if not days:
        return f"{left}h"
    return f"{days}d {left}h" if left else f"{days}d"


@dataclass(frozen=True)
class ReviewerRulings:
    """The current rulings of one reviewer: how many of each ruling and how many of
    them override the engine's verdict. ``reviewer`` is the stored name (untrusted
    text)."""

    reviewer: str
    in_scope: int = 0
    change_request: int = 0
    reject: int = 0
    overrides: int = 0

    @property
    def total(self) -> int:
        """Every ruling of this reviewer."""
        return self.in_scope + self.change_request + self.reject


@dataclass(frozen=True)
class MonthEffort:
    """The change requests ruled in one month (``yyyy-mm`` of the ruling, UTC): how
    many (``crs``), how many of them carry an effort estimate (``estimated``) and the
    sum of those estimates' ranges, ``low``–``high`` person-days (0.0 when none does).
    The estimate is the reviewer's where one is in force (:attr:`CaseRecord.estimate`,
    its days at both ends; ``reviewer`` counts them, issue 35 item 2), else the
    engine's (:attr:`Decision.effort`, from comparable work items)."""

    month: str
    crs: int
    estimated: int
    low: float
    high: float
    reviewer: int = 0


@dataclass(frozen=True)
class Report:
    """Counts for Raporlar, all from the DB. ``override_rate`` is overrides / rulings
    (0.0 when nothing is ruled); ``corrections_by_clause`` is (ref, corrections), most
    first, where an override counts on the clause it is about
    (:func:`etki.memory.correction_clauses`: the clause its reason names, else the
    decisive evidence's, else every cited clause); ``correction_rules`` is, per listed
    ref in the same order, (ref, ((rule, n), ...)): which of those rules
    (:data:`etki.memory.CORRECTION_RULES`) counted its corrections;
    ``rulings_by_day`` is (yyyy-mm-dd, rulings, overrides), oldest first.

    For a PMO (:mod:`etki.reports`): ``as_of`` is the moment the pending ages were
    measured at (ISO-8601 UTC); ``pending_age`` the pending cases in the age buckets of
    :data:`etki.reports.AGE_BUCKETS`, in that order; ``rulings_by_reviewer`` the current
    rulings per reviewer, names in folded order (:func:`etki.text.sort_key`: ``İ``/``ı``
    with ``i``, ``Ü`` with ``u``); ``cr_effort_by_month`` the change requests ruled per
    month with their summed effort range, oldest month first.

    ``disputed`` counts the clauses in open dispute (never resolved, or disputed again
    by a later ruling: :attr:`ClauseMemory.open_dispute`), ``disputed_resolved`` those
    whose resolution by a person is in force (:attr:`ClauseMemory.resolved`)."""

    cases: int
    pending: int
    ruled: int
    verdicts: tuple[tuple[str, int], ...]
    rulings: tuple[tuple[str, int], ...]
    overrides: int
    override_rate: float
    precedents: int
    disputed: int
    disputed_resolved: int = 0
    corrections_by_clause: tuple[tuple[str, int], ...] = field(default=())
    rulings_by_day: tuple[tuple[str, int, int], ...] = field(default=())
    correction_rules: tuple[tuple[str, tuple[tuple[str, int], ...]], ...] = field(default=())
    as_of: str = ""
    pending_age: tuple[AgeBucket, ...] = field(default=())
    rulings_by_reviewer: tuple[ReviewerRulings, ...] = field(default=())
    cr_effort_by_month: tuple[MonthEffort, ...] = field(default=())
    overdue_looks: tuple[OverdueLook, ...] = field(default=())
    """Pending cases whose 24h PMO look is overdue (:func:`etki.reports.overdue_looks`),
    oldest first."""
    selection: str = ""
    """The filter the figures were computed under, in words (``since 2026-11-01;
    reviewer Ayşe Yılmaz``); empty for every case of the project."""


class ReportDecision(NamedTuple):
    """What the reports read of a case's frozen decision (``etki report`` on the lean
    read path, :mod:`etki.store.lean_report`; the TUI's report reads whole decisions):
    the engine's ``verdict`` and ``cited_clauses``; for a pending case its ``risk`` (the
    overdue PMO looks; None for a ruled case: no report reads it); for a ruled case its
    ``effort`` range (the change-request effort per month) and, as ``evidence``, only the
    ``classify`` steps naming the deciding sentence (where an override counts as a
    correction, :func:`etki.memory.correction_clauses`: only for a ruling that overrides
    the verdict, the only ones counted so) and its ``deciding`` ref, kept on the ruling's
    row (:func:`etki.store.summary.report_summary`; unknown effort and no steps for a
    pending case: no report reads them). A named tuple: 10,000 of them are made per
    report on the 10k bench store (issue 32 item 1)."""

    verdict: str
    cited_clauses: tuple[str, ...]
    risk: Risk | None
    effort: Effort
    evidence: tuple[EvidenceStep, ...] = ()
    deciding: str | None = None
    """The cited ref of the decisive evidence (:func:`etki.domain.deciding_ref` of
    ``evidence`` among ``cited_clauses``, kept on the ruling's row as ``deciding_ref``;
    None: none, or a pending case): what a ruling is about
    (:func:`etki.memory.case_about_rule`), as :attr:`DecisionSummary.deciding`."""


class ReportCase(NamedTuple):
    """A case as the reports read it (same attribute names as
    :class:`~etki.domain.CaseRecord`, so :func:`etki.reports.compute_report` takes
    either): the request's ``title``, ``submitted_at`` and ``created_at`` (the pending
    ages and overdue looks), a :class:`ReportDecision`, the ruling in force (None:
    pending) and the reviewer's estimate in force. ``title`` is client text
    (untrusted)."""

    case_id: str
    title: str
    submitted_at: str | None
    created_at: str
    decision: ReportDecision
    ruling: RulingRecord | None = None
    estimate: ReviewerEstimate | None = None
