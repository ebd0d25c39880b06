"""``etki report`` on the lean read path (issue 32 item 1): what the report is computed
from, read with the plain DB-API SQL of :class:`etki.store.lean.LeanStore` (one set of
queries for SQLite and PostgreSQL), without SQLAlchemy, the ORM or the project's
knowledge.

The ORM path (:meth:`etki.services.Desk.report`) reads every case of the project whole
and decodes every frozen decision (``Decision.from_json`` of 10,000 decisions was 2.4 s
of a 6.8 s profile on the 10k bench store). The report needs little of a ruled case's
decision, and its ruling's row keeps that (:mod:`etki.store.summary`, migrations 0008
and 0009): the clauses it cites, its effort range and the text after its deciding
sentence's marker. So here one query reads every case of the project with its ruling
and that summary, and the decision's text only of the pending cases (their risk and
cited clauses: the overdue PMO looks) and of a ruling row without the summary (none
written by this schema). Besides: the reviewers' estimates in force (``case_events``),
the project's clause refs in document order, its resolutions and the store's clock.
The figures are then computed by the same :func:`etki.reports.compute_report` as on
the ORM path, from :class:`etki.domain.ReportCase` rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from etki.store.lean import ARRIVAL, decision_summary, ruling_of
from etki.store.summary import decode_refs, summary_columns

if TYPE_CHECKING:
    from etki.domain import ClauseResolution, ReportCase, ReviewerEstimate, Risk
    from etki.store.lean import LeanStore

__all__ = ["ReportRead", "report_read"]

REPORT_CASES = (
    "SELECT c.id, c.title, c.submitted_at, c.created_at, d.verdict, d.confidence, "
    "r.ruling, r.action, r.reviewer, r.reason, r.ruled_at, r.version, "
    "r.cited_refs, r.deciding_text, r.effort_low, r.effort_high, r.deciding_ref, "
    "CASE WHEN r.case_id IS NULL OR r.cited_refs IS NULL OR r.deciding_text IS NULL "
    "THEN d.decision_json END "
    "FROM cases c JOIN decisions d ON d.case_id = c.id "
    "LEFT JOIN rulings r ON r.case_id = c.id "
    f"WHERE c.project_id = ? ORDER BY {ARRIVAL}"
)
"""Every case of a project in arrival order (as the ORM path's ``repo.cases``), with its
ruling (outer-joined) and the summary its ruling's row keeps; the decision's text only
where the report needs it (pending, or a ruling row without the summary)."""
ESTIMATES = (
    "SELECT case_id, at, actor, text FROM case_events "
    "WHERE project_id = ? AND kind = 'estimate' ORDER BY id"
)
"""The reviewers' estimates of the project, oldest first (the newest of a case is in
force, as :func:`etki.store.repository.events.with_notes` reads them)."""
CLAUSE_REFS = "SELECT ref FROM clauses WHERE project_id = ? ORDER BY position"
"""The project's clause refs in document order (:meth:`etki.services.Desk.clauses`)."""
CLOCK = {
    # as etki.store.repository.base.db_time: the database's clock, not this machine's
    "postgresql": "SELECT clock_timestamp()",
    "sqlite": "SELECT strftime('%Y-%m-%dT%H:%M:%f', 'now')",
}


@dataclass(frozen=True)
class ReportRead:
    """What ``etki report`` computes its figures from: the chosen ``project_id``, its
    ``cases`` (arrival order), its clause refs ``known`` (document order), its
    ``resolutions`` (oldest first) and ``now``, the store's time (the moment the
    pending ages are measured at): the arguments of
    :func:`etki.reports.compute_report`."""

    project_id: str
    cases: list[ReportCase]
    known: tuple[str, ...]
    resolutions: list[ClauseResolution]
    now: datetime


def store_time(store: LeanStore) -> datetime:
    """The database's current time (aware, UTC), as the repository's clock reads it
    (:func:`etki.store.repository.base.db_time`)."""
    value = store.rows(CLOCK[store.dialect])[0][0]
    if isinstance(value, str):  # SQLite: "2026-12-06T19:32:13.123", UTC without a zone
        return datetime.fromisoformat(value).replace(tzinfo=UTC)
    moment: datetime = value
    return moment.astimezone(UTC) if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _estimates(store: LeanStore, project_id: str) -> dict[str, ReviewerEstimate]:
    """case id -> the reviewer's estimate in force (every one decoded, as the ORM path
    does, the newest kept)."""
    found = store.rows(ESTIMATES, [project_id])
    if not found:
        return {}
    from etki.domain import ReviewerEstimate

    return {
        case_id: ReviewerEstimate.from_text(text, actor, at) for case_id, at, actor, text in found
    }


def _cases(store: LeanStore, project_id: str) -> list[ReportCase]:
    """The project's cases as :class:`~etki.domain.ReportCase` rows, arrival order."""
    from etki.domain import DECIDING, Effort, EvidenceStep, ReportCase, ReportDecision

    rows = store.rows(REPORT_CASES, [project_id])
    estimates = _estimates(store, project_id)
    risks: dict[tuple[object, ...], Risk] = {}
    # a ruled row without the summary (none is written by this schema) gets it from its
    # decision, with the function the write path uses
    rows = [
        r if r[6] is None or r[17] is None else (*r[:12], *_summary_row(r[17]), r[17]) for r in rows
    ]
    ruled = [r for r in rows if r[6] is not None]
    cited = iter(decode_refs([r[12] for r in ruled]))
    # the deciding text is read by the corrections alone, which count overrides only
    texts = iter(decode_refs([r[13] for r in ruled if r[6] != r[4]]))
    unknown = Effort(None, None)
    out: list[ReportCase] = []
    for row in rows:
        case_id, title, submitted_at, created_at, verdict, confidence = row[:6]
        ruling = ruling_of(case_id, verdict, *row[6:12])
        if ruling is None:
            summary = decision_summary(row[17], verdict, confidence, risks)
            decision = ReportDecision(verdict, summary.cited_clauses, summary.risk, unknown)
        else:
            steps = (
                tuple(EvidenceStep("classify", DECIDING + rest) for rest in next(texts))
                if ruling.ruling != verdict
                else ()
            )
            decision = ReportDecision(
                verdict, next(cited), None, Effort(row[14], row[15]), steps, row[16]
            )
        out.append(
            ReportCase(
                case_id, title, submitted_at, created_at, decision, ruling, estimates.get(case_id)
            )
        )
    return out


def _summary_row(decision_json: str) -> tuple[Any, ...]:
    """The summary columns of :data:`REPORT_CASES` (``cited_refs`` to ``deciding_ref``)
    from a stored decision (:func:`etki.store.summary.summary_columns`)."""
    found = summary_columns(decision_json)
    names = ("cited_refs", "deciding_text", "effort_low", "effort_high", "deciding_ref")
    return tuple(found[name] for name in names)


def report_read(store: LeanStore, project: str | None) -> ReportRead:
    """What ``etki report [--project ID]`` computes its figures from, read on
    ``store``. Raises ``NotFoundError`` / ``InputError`` for an unknown project or an
    unnamed one among several, with the ORM path's wording
    (:meth:`LeanStore.chosen_project`)."""
    project_id = store.chosen_project(project)
    cases = _cases(store, project_id)
    known = tuple(dict.fromkeys(r[0] for r in store.rows(CLAUSE_REFS, [project_id])))
    resolutions = store.resolutions(project_id)
    return ReportRead(project_id, cases, known, resolutions, store_time(store))
