"""Stored cases, their rulings and the memory of disputed clauses (part of
:mod:`etki.domain`, re-exported there): the full :class:`CaseRecord`, the light queue row
:class:`CaseSummary`, the wiki's row :class:`CaseBrief`, a case's events, and the
resolutions, memory and disputes of clauses.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from etki.domain.decision import Decision, DecisionSummary, Verdict
from etki.domain.disputes import ClauseResolution, DisputedClause  # noqa: F401  (re-exported)
from etki.domain.evidence import (
    deciding_ref,
)

if TYPE_CHECKING:  # field types only: a queue row needs none of these parts (issue 32)
    from etki.domain.crterms import CrTerms
    from etki.domain.estimate import ReviewerEstimate
    from etki.domain.preanalysis import Preanalysis

ACTIONS: dict[str, str] = {
    "approve": "IN_SCOPE",
    "convert_to_cr": "CHANGE_REQUEST",
    "reject": "REJECT",
}
"""Reviewer action -> ruling verdict."""


@dataclass(frozen=True)
class RulingRecord:
    """A reviewer's final word on a case. ``ruled_at`` is ISO-8601 UTC to the second
    (``2026-11-29T12:00:00Z``); ``verdict`` is what the engine had proposed, so
    ``is_override`` needs no second lookup. ``version`` is the case version after it."""

    case_id: str
    ruling: Verdict
    action: str
    reviewer: str
    reason: str
    ruled_at: str
    verdict: Verdict
    version: int = 2

    @property
    def is_override(self) -> bool:
        return self.ruling != self.verdict


@dataclass(frozen=True)
class RulingOutcome:
    """What a ruling did: the committed ``ruling``, the wiki hook's report (or None when
    the wiki is off) and ``wiki_error`` (a one-line message when the projection failed;
    the ruling stands either way)."""

    ruling: RulingRecord
    wiki_report: object | None = None
    wiki_error: str | None = None


@dataclass(frozen=True)
class ResolutionOutcome:
    """What recording a resolution of a disputed clause did: the committed
    ``resolution``, the wiki's write report (None when the wiki is off) and
    ``wiki_error`` (a one-line message when the wiki could not follow; the resolution
    stands either way)."""

    resolution: ClauseResolution
    wiki_report: object | None = None
    wiki_error: str | None = None


@dataclass(frozen=True)
class CaseRecord:
    """The full record of a case: the request, its whole frozen decision (evidence chain
    included) and its ruling (or None). What a case's detail, a ruling, memory and
    reports read; a queue lists the light :class:`CaseSummary` rows instead, the wiki's
    shared pages :class:`CaseBrief` rows. ``title`` is the request title, or the first
    line of the text cut to 80 characters. ``created_at`` is ISO-8601 UTC. All text
    fields are client text: untrusted."""

    case_id: str
    project_id: str
    request_id: str
    title: str
    text: str
    submitted_by: str | None
    submitted_at: str | None
    created_at: str
    version: int
    decision: Decision
    ruling: RulingRecord | None = None
    earlier_rulings: tuple[RulingRecord, ...] = ()
    """The rulings ``ruling`` amended, oldest first (issue 14 item 2): read from the
    audit log's committed rows; empty when the case was ruled once (or is pending)."""
    notes: tuple[CaseEvent, ...] = ()
    """Reviewers' notes on the case (``note`` :class:`CaseEvent` values), oldest first
    (issue 14 item 4). Untrusted text."""
    preanalysis: Preanalysis | None = None
    """The newest saved developer pre-analysis (:class:`Preanalysis`), or None:
    model text, never an input to the decision."""
    estimate: ReviewerEstimate | None = None
    """The reviewer's effort estimate in force (the newest ``estimate`` event, issue 35
    item 2), or None; the decision's effort range stays the engine's."""
    cr_terms: CrTerms | None = None
    """The PMO's change-request terms in force (the newest ``cr_terms`` event, issue 35
    item 1: assumptions, exclusions, validity date), or None when never written."""

    @property
    def status(self) -> str:
        return "pending" if self.ruling is None else "ruled"

    @property
    def engine_read_covering(self) -> bool:
        """Whether the engine proposed IN_SCOPE: it read the clauses its decision cites
        as covering the work, so a change request citing them would hand the client the
        vendor's own argument that the work is free (issue 35, a PMO trial sent the
        warranty clause of a converted in-scope case). Such a change request cites no
        clause of the engine's unless the PMO chooses one (:attr:`cr_clauses`)."""
        return self.decision.verdict == "IN_SCOPE"

    @property
    def cr_clauses(self) -> tuple[str, ...]:
        """The clause refs the client-facing change request cites: those the PMO chose
        (``etki cr edit --clause``, the desk's ``X`` form), else the decision's cited
        clauses, except when the engine read them as covering the work
        (:attr:`engine_read_covering`): then none. A CR the engine proposed and the
        reviewer agreed with cites the engine's clauses."""
        terms = self.cr_terms
        if terms is not None and terms.clauses is not None:
            return terms.clauses
        return () if self.engine_read_covering else tuple(self.decision.cited_clauses)

    @property
    def cr_modules(self) -> tuple[str, ...]:
        """The impacted module ids the client-facing change request names: those the PMO
        chose (``etki cr edit --module``/``--no-modules``: an empty choice names none),
        else the decision's :attr:`~etki.domain.Decision.impacted_modules` (the engine's
        guess, a PMO trial of issue 35 could not correct it)."""
        terms = self.cr_terms
        if terms is not None and terms.modules is not None:
            return terms.modules
        return tuple(self.decision.impacted_modules)

    def cr_clause_hint(self) -> str:
        """A hint for the PMO when the change request cites no clause by default because
        the engine read its clauses as covering the work (:attr:`cr_clauses`): which
        clauses those are and how to cite one (``etki cr edit CASE --clause REF``);
        empty otherwise (clauses chosen, or the engine's cited)."""
        terms = self.cr_terms
        refs = self.decision.cited_clauses
        if not self.engine_read_covering or not refs or (terms and terms.clauses is not None):
            return ""
        return (
            f"it cites no clause: the engine read {', '.join(refs)} as covering the work; "
            f"to cite one: etki cr edit {self.case_id} --clause REF"
        )

    def cr_gaps(self) -> tuple[str, ...]:
        """What the client-facing change request of this case still lacks, in words for
        the PMO (``etki cr export`` warns with them, the desk's ``X`` says them after
        writing): no reviewer's estimate, no validity date, and, when the engine proposed
        REJECT and no clauses were chosen (``etki cr edit --clause``), that the document
        cites the clauses the engine read for its proposal. (An IN_SCOPE proposal's
        clauses are not cited by default, :attr:`cr_clauses`; :meth:`cr_clause_hint`
        says so.) Empty when nothing is missing."""
        terms = self.cr_terms
        gaps = []
        if self.estimate is None:
            gaps.append(
                "no effort estimate (E on the desk, or etki estimate CASE --days N --reason ...)"
            )
        if terms is None or terms.valid_until is None:
            gaps.append("no validity date (etki cr edit CASE --valid-until YYYY-MM-DD)")
        verdict = self.decision.verdict
        chosen = terms is not None and terms.clauses is not None
        if verdict not in ("CHANGE_REQUEST", "IN_SCOPE") and not chosen:
            gaps.append(
                f"it cites the clauses the engine read for {verdict}: check them, or "
                "choose (etki cr edit CASE --clause REF ...)"
            )
        return tuple(gaps)

    @property
    def ruling_history(self) -> tuple[RulingRecord, ...]:
        """Every ruling of the case, oldest first, the one in force last (empty when
        pending)."""
        return (*self.earlier_rulings, self.ruling) if self.ruling is not None else ()


EVENT_KINDS: tuple[str, ...] = (
    "imported",
    "triaged",
    "viewed",
    "ruled",
    "amended",
    "denied",
    "conflict",
    "erased",
    "note",
    "claim",
    "release",
    "estimate",
    "cr_terms",
    "assign",
    "unassign",
)
"""The kinds of :class:`CaseEvent`, in the order a history lists events of the same
second: ``imported`` and ``triaged`` first (they happen together when a case is
stored)."""


@dataclass(frozen=True)
class CaseEvent:
    """One event of a case's history (issue 14 item 3), oldest first in
    :meth:`etki.store.CaseFileRepository.case_history`, which merges the audit log and
    the ``case_events`` table:

    * ``imported``: the case was stored; ``text`` names the source (``requests.jsonl
      (etki init)``, ``etki add``, ``file.csv (etki import)``, ``the desk's new-request
      form``; empty for a case stored before sources were kept), ``actor`` who stored it;
    * ``triaged``: the engine's decision; ``text`` is ``engine VERSION: VERDICT
      (confidence C)``, ``actor`` empty;
    * ``viewed``: ``actor`` opened the case on the desk;
    * ``ruled``, ``amended``: a committed ruling (``after``; ``before`` the ruling it
      amended, ``pending`` for the first), ``action`` and ``text`` the reason;
    * ``denied`` (not an approver), ``conflict`` (the case had changed): an attempt that
      recorded nothing, ``action`` what was asked, ``text`` its reason;
    * ``erased``: the erasure tombstone, ``text`` its legal reason;
    * ``note``, ``claim`` (until ``until``), ``release``: a reviewer's note or claim;
    * ``estimate``: a reviewer's effort estimate, ``text`` its figures and reason
      (:meth:`etki.domain.ReviewerEstimate.summary`);
    * ``cr_terms``: the PMO wrote a change request's terms, ``text`` their summary
      (:meth:`etki.domain.CrTerms.summary`).

    ``at`` is ISO-8601 UTC to the second. ``actor`` and ``text`` are untrusted text
    (show them literally); an erased case's audit reasons read ``[erased]``."""

    at: str
    kind: str
    actor: str = ""
    text: str = ""
    action: str = ""
    before: str = ""
    after: str = ""
    until: str | None = None

    def summary(self) -> str:
        """The event in words, without its time and ``text``: ``ruled REJECT (reject) by
        ayse``, ``amended REJECT → IN_SCOPE (approve) by jurgen``, ``refused (not an
        approver): reject by vera``. Untrusted parts are left as they are: the caller
        shows them literally."""
        by = f" by {self.actor}" if self.actor else ""
        if self.kind == "imported":
            return "imported" + by
        if self.kind == "triaged":
            return "triaged"
        if self.kind == "viewed":
            return "viewed" + by
        if self.kind == "ruled":
            return f"ruled {self.after} ({self.action}){by}"
        if self.kind == "amended":
            return f"amended {self.before} → {self.after} ({self.action}){by}"
        if self.kind == "denied":
            return f"refused, not an approver: {self.action}{by} (nothing recorded)"
        if self.kind == "conflict":
            return f"conflict, the case had changed: {self.action}{by} (nothing recorded)"
        if self.kind == "erased":
            return "erased" + by
        if self.kind == "claim":
            return f"claimed{by} until {self.until}" if self.until else "claimed" + by
        if self.kind == "release":
            return "claim released" + by
        if self.kind == "note":
            return "note" + by
        if self.kind == "estimate":
            return "effort estimated" + by
        if self.kind == "cr_terms":
            return "change-request terms written" + by
        if self.kind == "assign":  # after: the assignee (issue 35 item 5)
            return f"assigned to {self.after}{by}"
        if self.kind == "unassign":
            return f"assignment to {self.after} ended{by}"
        if self.kind == "preanalysed":  # the audit row of a saved pre-analysis (issue 14 item 9)
            return "pre-analysis asked for" + by
        return self.kind + by

    def to_dict(self) -> dict[str, Any]:
        """The event as JSON-ready fields (``etki show --json``)."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class CaseSummary:
    """The light queue row of a case: the request fields, a :class:`DecisionSummary` and
    the ruling (or None), read without parsing the decision's evidence chain. The full
    record is :class:`CaseRecord` (same attribute names, so a queue takes either). All
    text fields are client text: untrusted."""

    case_id: str
    project_id: str
    request_id: str
    title: str
    text: str
    submitted_by: str | None
    submitted_at: str | None
    created_at: str
    version: int
    decision: DecisionSummary
    ruling: RulingRecord | None = None

    @property
    def status(self) -> str:
        """``pending`` or ``ruled``."""
        return "pending" if self.ruling is None else "ruled"


@dataclass(frozen=True, slots=True)
class BriefDecision:
    """The fields of a frozen decision that the wiki's shared pages read; ``deciding``:
    the cited ref of its decisive evidence (:func:`deciding_ref`), which
    says what a ruling of the case is about (:func:`etki.memory.ruled_about`)."""

    verdict: str
    cited_clauses: tuple[str, ...]
    impacted_modules: tuple[str, ...]
    deciding: str | None = None


@dataclass(frozen=True, slots=True)
class CaseBrief:
    """The wiki's shared-page row of a case: what ``index.md``, ``disputed.md``, the
    contract and the module pages read (attribute names as in :class:`CaseRecord`, the
    full record, so the page helpers take either). ``version`` is the case version it
    was read at, for the projector's change check; it is left out of equality, so equal
    briefs render equal rows."""

    case_id: str
    project_id: str
    title: str
    decision: BriefDecision
    ruling: RulingRecord | None
    version: int = field(compare=False)

    @classmethod
    def of(cls, case: CaseRecord | CaseBrief) -> CaseBrief:
        """The brief of a full :class:`CaseRecord` (a brief is returned as it is)."""
        if isinstance(case, CaseBrief):
            return case
        d = case.decision
        cited = tuple(d.cited_clauses)
        deciding = deciding_ref(((e.step, e.detail) for e in d.evidence), cited)
        return cls(
            case.case_id,
            case.project_id,
            case.title,
            BriefDecision(d.verdict, cited, tuple(d.impacted_modules), deciding),
            case.ruling,
            case.version,
        )


RESOLUTION_VERDICTS: dict[str, Verdict] = {
    "in_scope": "IN_SCOPE",
    "cr": "CHANGE_REQUEST",
    "reject": "REJECT",
}
"""The words ``etki dispute resolve --verdict`` takes -> the ruling a resolution says the
clause calls for."""


@dataclass(frozen=True)
class ClauseMemory:
    """What past rulings say about one clause: ``precedent_count`` (overrides about it,
    :func:`etki.memory.ruled_about`: its corrections), ``last_correction`` (the newest of
    them or None),
    ``disputed`` (the rulings about it disagree: :func:`etki.memory.ruled_about`),
    ``history`` ((case_id, ruling, reviewer, ruled_at) of every resolved case citing it,
    oldest first) and ``disputing`` (the entries of ``history`` whose ruling is about the
    clause: the rulings a dispute is between).

    ``resolution``: the PMO's resolution in force for the clause (the newest), None when
    there is none; ``overridden_by``: the case whose ruling, made after that resolution,
    disagrees with its verdict (the first such), None when none does. A disputed clause
    is :attr:`resolved` while its resolution stands; :attr:`open_dispute` is what raises
    the risk (:func:`etki.memory.current_risk`, :mod:`etki.triage.risk`)."""

    ref: str
    precedent_count: int = 0
    last_correction: RulingRecord | None = None
    disputed: bool = False
    history: tuple[tuple[str, str, str, str], ...] = ()
    resolution: ClauseResolution | None = None
    overridden_by: str | None = None
    disputing: tuple[tuple[str, str, str, str], ...] = ()
    counted: tuple[tuple[str, str, tuple[str, ...], bool], ...] = ()
    """Why each ruling of ``history`` counts where it does: ``(case_id, rule, refs,
    override)``, ``refs`` the clauses the ruling is about, ``rule`` how they were found
    (a key of :data:`etki.memory.CORRECTION_RULES`: ``reason``, ``evidence``,
    ``cited``; :func:`etki.memory.case_about_rule`) and ``override`` whether the ruling
    differs from the engine's verdict (a precedent), in the order of ``history``."""

    @property
    def resolved(self) -> bool:
        """Disputed, with a resolution no later ruling disagrees with (disputed-resolved)."""
        return self.disputed and self.resolution is not None and self.overridden_by is None

    @property
    def open_dispute(self) -> bool:
        """Disputed and not resolved (never resolved, or re-disputed by a later ruling)."""
        return self.disputed and not self.resolved
