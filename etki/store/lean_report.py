"""``etki report`` on the lean read path (issue 32 item 1): what the report is computed
from, read with the plain DB-API SQL of :class:`etki.store.lean.LeanStore` (one set of
queries for SQLite and PostgreSQL), without SQLAlchemy, the ORM or the project's
knowledge.

The ORM path (:meth:`etki.services.Desk.report`) reads every case of the project whole
and decodes every frozen decision. Here the database counts: the ruled cases come back
as counts per (day, reviewer, engine verdict, ruling) (:data:`TALLIES`, O(days x
reviewers) rows), the disputes as the rulings about each clause (:data:`AGREED_ABOUT`,
over ``ruling_refs``, migration 0010: O(clauses) rows). Read row by row are only what
is computed per case: the pending cases (their age, risk and cited clauses), the
change requests (their effort, summed in arrival order as the ORM path sums it), the
rulings with a reason (an override's correction and a reason's clauses are matched in
Python, :mod:`etki.memory`), and the rulings about a clause that has a resolution.
Besides: the reviewers' estimates in force, the project's clause refs in document
order, its resolutions and the store's clock. The selection (``--since``, ``--until``,
``--reviewer``) is applied in the SQL, so every count is of the kept rulings.
:func:`etki.report_parts.report_of_read` computes the figures with the functions of
:mod:`etki.reports`.

A day is a ruling's ``ruled_at[:10]``: the store writes ``ruled_at`` as UTC
``YYYY-MM-DDTHH:MM:SSZ``, so it is the UTC day the ORM path reads. A project with a
ruling row written without the summary (no writer of this schema) is left to the ORM
path (:class:`~etki.store.lean.Fallback`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING

from etki.domain.corrections import refs_basis
from etki.store.lean import ARRIVAL, CHUNK, Fallback, decision_summary, ruling_of
from etki.store.summary import decode_refs

if TYPE_CHECKING:
    from etki.domain import ClauseResolution, ReportCase, ReviewerEstimate, Risk
    from etki.store.lean import LeanStore

__all__ = ["ReportRead", "report_read"]

_RULED = "FROM rulings r WHERE r.project_id = ?"
"""The project's ruled cases; :func:`_kept` adds the selection's conditions."""
REVIEWERS = "SELECT DISTINCT reviewer FROM report_tallies WHERE project_id = ?"
"""Everyone who made a current ruling of the project (``--reviewer`` is matched in
Python against these, :meth:`etki.reports.CaseSelection.names`)."""
MISSING = (
    "SELECT 1 FROM rulings WHERE cited_refs IS NULL OR deciding_text IS NULL "
    "OR verdict IS NULL OR project_id IS NULL LIMIT 1"
)
"""A ruling row without the summary (0008-0010), of any project: none is written by
this schema."""
PENDING = (
    "SELECT c.id, c.title, c.submitted_at, c.created_at, d.verdict, d.confidence, "
    "d.decision_json FROM cases c JOIN decisions d ON d.case_id = c.id "
    "LEFT JOIN rulings r ON r.case_id = c.id "
    "WHERE c.project_id = ? AND c.status = 'pending' AND r.case_id IS NULL "
    f"ORDER BY {ARRIVAL}"
)
"""The pending cases in arrival order (``status``, indexed, as the queue reads them; a
ruling written with it), with the decision's text (risk, cited clauses)."""
TALLIES = (
    "SELECT day, reviewer, verdict, ruling, n FROM report_tallies WHERE project_id = ?"
    "{kept} ORDER BY day, reviewer, verdict, ruling"
)
"""The kept rulings counted per (day, reviewer, engine verdict, ruling): the summary
kept at ruling time (migration 0010)."""
CHANGE_REQUESTS = (
    "SELECT r.case_id, r.ruled_at, r.effort_low, r.effort_high "
    "FROM rulings r JOIN cases c ON c.id = r.case_id WHERE r.project_id = ?{kept} "
    f"AND r.ruling = 'CHANGE_REQUEST' ORDER BY {ARRIVAL}"
)
"""The kept change requests in arrival order (their effort is summed in that order)."""
REASONED = (
    "SELECT r.case_id, r.verdict, r.ruling, r.action, r.reviewer, r.reason, r.ruled_at, "
    "r.version, r.cited_refs, r.deciding_text, r.deciding_ref, r.correction_refs, "
    "r.correction_rule, r.correction_basis {ruled} "
    "AND (r.reason <> '' OR r.ruling <> r.verdict)"
)
"""The kept rulings with a reason, and the overrides: what a reason names is matched in
Python; an override's correction is read as its row keeps it (migration 0011) when it
was computed against the project's refs now, else matched in Python too
(:func:`etki.memory.corrections_by_clause`); in any order (what is computed of them
does not depend on it)."""
AGREED_ABOUT = (
    "SELECT x.ref, MIN(x.ruling), MAX(x.ruling) FROM ruling_refs x "
    "WHERE x.project_id = ? AND x.about = 1{kept} GROUP BY x.ref"
)
"""Per clause, the lowest and highest ruling of the kept rulings without a reason that
are about it (``ruling_refs.about``, :func:`etki.store.summary.about_flag`): two differ
when the rulings disagree."""
ABOUT_RESOLVED = (
    "SELECT x.ref, x.ruling, MAX(x.ruled_at), "
    "MAX(CASE WHEN x.about = 1 THEN x.ruled_at END) FROM ruling_refs x "
    "WHERE x.project_id = ? AND x.ref IN ({refs}){kept} GROUP BY x.ref, x.ruling"
)
"""For the clauses with a resolution: per clause and ruling of the kept rulings citing
it, the newest ``ruled_at`` and the newest of those without a reason that are about it
(NULL: none); a clause absent is cited by no kept ruling."""
ESTIMATES = (
    "SELECT case_id, at, actor, text FROM case_events "
    "WHERE project_id = ? AND kind = 'estimate' ORDER BY id"
)
"""The reviewers' estimates of the project, oldest first (the newest of a case is in
force, as :func:`etki.store.repository.events.with_notes` reads them)."""
AGREED_KEPT = (
    "SELECT ref, MIN(ruling), MAX(ruling) FROM clause_tallies "
    "WHERE project_id = ? AND about > 0 GROUP BY ref"
)
"""Per clause, the lowest and highest ruling of every current ruling of the project about
it, reason or not: the counts kept at ruling time (migration 0013,
:func:`etki.store.summary.clause_counts`), O(clauses) rows. Read instead of
:data:`AGREED_ABOUT` and the reasoned rows' clauses when every ruling is kept (no
selection) and the project has no resolution (their dates need the rows)."""
COUNTED = (
    "SELECT r.correction_refs, r.correction_rule, COUNT(*) {ruled} "
    "AND r.ruling <> r.verdict AND r.correction_basis = ? "
    "GROUP BY r.correction_refs, r.correction_rule"
)
"""The kept overrides whose correction was computed against the project's refs now,
counted per kept correction (refs, rule): the database counts them, not Python."""
STALE = (
    "SELECT r.case_id, r.verdict, r.ruling, r.action, r.reviewer, r.reason, r.ruled_at, "
    "r.version, r.cited_refs, r.deciding_text, r.deciding_ref, r.correction_refs, "
    "r.correction_rule, r.correction_basis {ruled} AND r.ruling <> r.verdict "
    "AND (r.correction_basis IS NULL OR r.correction_basis <> ?)"
)
"""The kept overrides whose correction was not computed against the project's refs now
(:data:`REASONED`'s columns): matched in Python."""
CLAUSE_REFS = "SELECT ref FROM clauses WHERE project_id = ? ORDER BY position"
"""The project's clause refs in document order (:meth:`etki.services.Desk.clauses`)."""
CLOCK = {
    # as etki.store.repository.base.db_time: the database's clock, not this machine's
    "postgresql": "SELECT clock_timestamp()",
    "sqlite": "SELECT strftime('%Y-%m-%dT%H:%M:%f', 'now')",
}

Tally = tuple[str, str, str, str, int]
"""(day, reviewer, engine verdict, ruling, how many kept rulings)."""
ChangeRequest = tuple[str, "float | None", "float | None", "ReviewerEstimate | None"]
"""(ruled_at, effort low, effort high, the reviewer's estimate in force) of a kept CR."""
AboutResolved = tuple[str, str, str, "str | None"]
"""(ref, ruling, newest ruled_at citing it, newest ruled_at about it without a reason)."""


@dataclass(frozen=True)
class ReportRead:
    """What ``etki report`` computes its figures from (:mod:`etki.report_parts`): the
    chosen ``project_id``; ``reviewers``, everyone with a current ruling of it;
    ``matched``, those the ``--reviewer`` named (None: no reviewer given); the
    ``pending`` cases (all, arrival order: the dated window is applied in Python, as
    their age is); and of the kept rulings the ``tallies``, the ``change_requests``,
    the ``reasoned`` rulings (report rows, arrival order), ``agreed_about`` (ref,
    lowest ruling, highest ruling) and ``about_resolved``; the clause refs ``known``
    (document order), the ``resolutions`` (oldest first) and ``now``, the store's
    time; ``corrected``: case id -> the correction (refs, rule) an override's row
    keeps, of the kept overrides whose correction was computed against ``known`` (the
    others are absent: computed from ``reasoned``); ``counted``: (refs, rule, how many
    overrides) of such corrections counted by the database instead (then those
    overrides are in neither ``reasoned`` nor ``corrected``: the unselected report of a
    project without resolutions, whose ``agreed_about`` then comes from
    :data:`AGREED_KEPT` and covers the reasoned rulings too)."""

    project_id: str
    reviewers: tuple[str, ...]
    matched: tuple[str, ...] | None
    pending: list[ReportCase]
    tallies: list[Tally]
    change_requests: list[ChangeRequest]
    reasoned: list[ReportCase]
    agreed_about: list[tuple[str, str, str]]
    about_resolved: list[AboutResolved]
    known: tuple[str, ...]
    resolutions: list[ClauseResolution]
    now: datetime
    corrected: dict[str, tuple[tuple[str, ...], str]]
    counted: tuple[tuple[tuple[str, ...], str, int], ...] = ()


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


def _kept(
    since: date | None,
    until: date | None,
    matched: tuple[str, ...] | None,
    day: str = "substr(r.ruled_at, 1, 10)",
    reviewer: str = "r.reviewer",
) -> tuple[str, list[object]]:
    """The conditions (``AND ...``) and parameters that keep the rulings of the
    selection: ruled on a ``day`` of the window (both ends included), by a
    ``reviewer`` named (the columns' expressions)."""
    sql, params = "", list[object]()
    if since is not None:
        sql += f" AND {day} >= ?"
        params.append(since.isoformat())
    if until is not None:
        sql += f" AND {day} <= ?"
        params.append(until.isoformat())
    if matched is not None:
        sql += f" AND {reviewer} IN ({', '.join('?' * len(matched)) or 'NULL'})"
        params.extend(matched)
    return sql, params


def _pending(store: LeanStore, project_id: str, estimates: dict) -> list[ReportCase]:
    """The pending cases as :class:`~etki.domain.ReportCase` rows, arrival order."""
    from etki.domain import Effort, ReportCase, ReportDecision

    risks: dict[tuple[object, ...], Risk] = {}
    unknown = Effort(None, None)
    out = []
    for case_id, title, submitted, created, verdict, confidence, text in store.rows(
        PENDING, [project_id]
    ):
        summary = decision_summary(text, verdict, confidence, risks)
        decision = ReportDecision(verdict, summary.cited_clauses, summary.risk, unknown)
        out.append(
            ReportCase(case_id, title, submitted, created, decision, None, estimates.get(case_id))
        )
    return out


Corrected = dict[str, tuple[tuple[str, ...], str]]
"""case id -> the correction an override's row keeps: (refs, rule)."""


def _reasoned(
    store: LeanStore, query: str, params: list[object], basis: str
) -> tuple[list[ReportCase], Corrected]:
    """The kept rulings with a reason, and the overrides, as report rows (cited
    clauses, the decisive clause; of an override whose kept correction is not of
    ``basis``, the deciding sentence's text its correction is computed from), and the
    corrections kept of ``basis`` (:data:`Corrected`)."""
    from etki.domain import DECIDING, Effort, EvidenceStep, ReportCase, ReportDecision

    rows = store.rows(query, params)
    cited = decode_refs([r[8] for r in rows])
    fresh = [r for r in rows if r[2] != r[1] and r[13] == basis]
    corrected = dict(
        zip(
            (r[0] for r in fresh),
            zip(decode_refs([r[11] for r in fresh]), (r[12] for r in fresh), strict=True),
            strict=True,
        )
    )
    stale = [r for r in rows if r[2] != r[1] and r[0] not in corrected]
    texts = dict(zip((r[0] for r in stale), decode_refs([r[9] for r in stale]), strict=True))
    unknown = Effort(None, None)
    out = []
    for row, refs in zip(rows, cited, strict=True):
        case_id, verdict = row[0], row[1]
        ruling = ruling_of(case_id, verdict, *row[2:8])
        steps = tuple(EvidenceStep("classify", DECIDING + rest) for rest in texts.get(case_id, ()))
        decision = ReportDecision(verdict, refs, None, unknown, steps, row[10])
        out.append(ReportCase(case_id, "", None, "", decision, ruling, None))
    return out, corrected


def report_read(
    store: LeanStore,
    project: str | None,
    since: date | None = None,
    until: date | None = None,
    names: Callable[[str], bool] | None = None,
) -> ReportRead:
    """What ``etki report [--project ID]`` computes its figures from, read on
    ``store``, of the rulings made on a day from ``since`` to ``until`` (UTC, both
    included; None: open) by a reviewer ``names`` says yes to (None: everyone; pending
    cases are then still read, the caller leaves them out). Raises ``NotFoundError`` /
    ``InputError`` for an unknown project or an unnamed one among several, with the
    ORM path's wording (:meth:`LeanStore.chosen_project`), and :class:`Fallback` for a
    ruling row without the summary."""
    project_id = store.chosen_project(project)
    if store.rows(MISSING):
        raise Fallback("a ruling row without the summary")
    reviewers = tuple(sorted(r[0] for r in store.rows(REVIEWERS, [project_id])))
    matched = None if names is None else tuple(n for n in reviewers if names(n))
    kept, extra = _kept(since, until, matched)
    ruled = _RULED + kept
    params = [project_id, *extra]
    estimates = _estimates(store, project_id)
    tallies = [
        (day, reviewer, verdict, ruling, int(n))
        for day, reviewer, verdict, ruling, n in store.rows(
            TALLIES.format(kept=_kept(since, until, matched, "day", "reviewer")[0]), params
        )
    ]
    crs = [
        (ruled_at, low, high, estimates.get(case_id))
        for case_id, ruled_at, low, high in store.rows(CHANGE_REQUESTS.format(kept=kept), params)
    ]
    known = tuple(dict.fromkeys(r[0] for r in store.rows(CLAUSE_REFS, [project_id])))
    basis = refs_basis(known)
    resolutions = store.resolutions(project_id)
    about_resolved: list[AboutResolved] = []
    counted: tuple[tuple[tuple[str, ...], str, int], ...] = ()
    if since is None and until is None and matched is None and not resolutions:
        # every ruling kept: the per-clause counts kept at ruling time answer the
        # disputes, the database counts the current corrections (issue 32 item 1)
        reasoned, corrected = _reasoned(store, STALE.format(ruled=ruled), [*params, basis], basis)
        agreed = [tuple(r) for r in store.rows(AGREED_KEPT, [project_id])]
        groups = store.rows(COUNTED.format(ruled=ruled), [*params, basis])
        refs = decode_refs([g[0] for g in groups])
        counted = tuple((r, g[1], int(g[2])) for r, g in zip(refs, groups, strict=True))
    else:
        reasoned, corrected = _reasoned(store, REASONED.format(ruled=ruled), params, basis)
        kept_x = _kept(since, until, matched, "substr(x.ruled_at, 1, 10)", "x.reviewer")[0]
        agreed = [tuple(r) for r in store.rows(AGREED_ABOUT.format(kept=kept_x), params)]
        resolved_refs = sorted({r.ref for r in resolutions})
        for at in range(0, len(resolved_refs), CHUNK):
            chunk = resolved_refs[at : at + CHUNK]
            query = ABOUT_RESOLVED.format(refs=", ".join("?" * len(chunk)), kept=kept_x)
            about_resolved += [tuple(r) for r in store.rows(query, [project_id, *chunk, *extra])]
    return ReportRead(
        project_id,
        reviewers,
        matched,
        _pending(store, project_id, estimates),
        tallies,
        crs,
        reasoned,
        agreed,
        about_resolved,
        known,
        resolutions,
        store_time(store),
        corrected,
        counted,
    )
