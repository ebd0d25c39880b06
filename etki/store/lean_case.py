"""``etki show`` on the lean read path (issue 32 item 1): one case, its history, its
ruling and the clause memory of the clauses it cites, read with the plain DB-API SQL of
:class:`etki.store.lean.LeanStore` (one set of queries for SQLite and PostgreSQL),
without SQLAlchemy or the ORM.

It reads what the ORM path reads for the same output
(:func:`etki.services.views.case_view`): the case row with its decision and ruling, its
audit rows, ``case_events`` rows and the ``deleted_case_events`` rows a deletion of its
project kept (the history, the earlier rulings, the estimate and the change request's
terms in force), and for the ``now`` lines only the ruled cases
citing one of the case's clauses (:meth:`LeanStore.ruled_citing`: the memory of a clause
depends on the cases citing it alone) and the project's resolutions. The request's
pre-analysis is not read: ``etki show`` does not print it. A case no longer stored is
named by its erasure tombstone or its project's deletion row, as on the ORM path.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from etki.errors import InputError, NotFoundError
from etki.store.history import ERASED, merge_history

if TYPE_CHECKING:
    from etki.domain import CaseEvent, CaseRecord, CaseSummary, ClauseResolution
    from etki.store.lean import LeanStore

__all__ = ["MAX_SHORT_ID", "ShowRead", "resolve_case_id", "show_read"]

MAX_SHORT_ID = 1000
"""Longest text :func:`resolve_case_id` looks up as a short id (a case id is
``req-{project}-{8 hex}``); a longer one names no case (and SQLite refuses a LIKE
pattern over 50,000 bytes)."""

CASE = (
    "SELECT c.id, c.project_id, c.request_id, c.title, c.text, c.submitted_by, "
    "c.submitted_at, c.created_at, c.version, d.verdict, d.decision_json, "
    "r.ruling, r.action, r.reviewer, r.reason, r.ruled_at, r.version, "
    "d.created_at, d.engine_version, d.confidence "
    "FROM cases c JOIN decisions d ON d.case_id = c.id "
    "LEFT JOIN rulings r ON r.case_id = c.id WHERE c.id = ?"
)
"""The case, its decision and its ruling (outer-joined), and what its history's
``triaged`` line says."""
AUDIT = (
    "SELECT at, reviewer, action, outcome, before, after, reason, version "
    "FROM audit_log WHERE case_id = ? ORDER BY id"
)
EVENTS = "SELECT at, kind, actor, text, until FROM case_events WHERE case_id = ? ORDER BY id"
KEPT_EVENTS = (
    "SELECT at, kind, actor, text, until FROM deleted_case_events WHERE case_id = ? ORDER BY id"
)
"""The events a deletion of the case's project kept (migration 0012), listed before
its ``case_events`` rows as the ORM path does."""
IDS_ENDING = "SELECT id FROM cases WHERE id = ? OR id LIKE ? ESCAPE '\\' ORDER BY id LIMIT {limit}"
AUDIT_IDS_ENDING = (
    "SELECT DISTINCT case_id FROM audit_log WHERE case_id = ? OR case_id LIKE ? "
    "ESCAPE '\\' ORDER BY case_id LIMIT {limit}"
)
DELETIONS = (
    "SELECT project_id, after_json, reviewer, at FROM project_audit "
    "WHERE action = 'delete' AND outcome = 'deleted' ORDER BY id"
)
"""Every deletion of a project, oldest first (``after_json`` lists its case ids)."""
STORED = "SELECT count(*) FROM cases WHERE id = ?"
ERASED_ONE = "SELECT count(*) FROM audit_log WHERE case_id = ? AND outcome = ?"


def resolve_case_id(
    text: str,
    ending: Callable[[str], list[str]],
    gone_ending: Callable[[str], list[str]],
) -> str:
    """The stored case id ``text`` names (:meth:`etki.services.Desk.case_id_for`, the
    lean path alike): itself when it is one or holds a ``-``, else the one stored case
    id ending in ``-{text}`` (``ending``), else the one gone case id ending so
    (``gone_ending``: of a deleted project, or erased). Raises ``InputError`` naming the
    candidates when several end so, ``NotFoundError`` when none does."""
    if "-" in text or not text:
        return text
    found = ending(text) if len(text) <= MAX_SHORT_ID else []
    if not found and len(text) <= MAX_SHORT_ID:
        found = gone_ending(text)
    if text in found:
        return text
    if not found:
        raise NotFoundError(
            f"no case '{text}' in the store (a short id is all of the part after a "
            "case id's last '-': 1a2b3c4d for req-demo-1a2b3c4d, as the desk's queue "
            "shows it; `etki queue` lists the whole ids)"
        )
    if len(found) > 1:
        raise InputError(
            f"case id {text!r} is short for more than one case: "
            + ", ".join(found[:5])
            + (", …" if len(found) > 5 else "")
            + "; give the whole id"
        )
    return found[0]


def _like(tail: str) -> str:
    """The LIKE pattern of ids ending in ``-{tail}``, ``tail`` taken literally."""
    return "%-" + tail.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


@dataclass(frozen=True)
class ShowRead:
    """What ``etki show`` reads of one case: its whole id, ``case`` (None when no longer
    stored), ``history`` (oldest first), ``ruled`` and ``resolutions`` (what the clause
    memory of its cited clauses is computed from, by the caller: the store imports
    nothing above it), and for a case gone ``erased`` and ``deletion`` (:func:`etki.
    domain.caseview.gone_of`)."""

    case_id: str
    case: CaseRecord | None
    history: list[CaseEvent]
    ruled: list[CaseSummary]
    resolutions: list[ClauseResolution]
    erased: bool = False
    deletion: tuple[str, str, str, str] | None = None


class _Reads:
    """The queries of :func:`show_read` on one :class:`LeanStore`."""

    def __init__(self, store: LeanStore) -> None:
        self.store = store

    def ending(self, tail: str, limit: int = 6) -> list[str]:
        rows = self.store.rows(IDS_ENDING.format(limit=limit), [tail, _like(tail)])
        return [r[0] for r in rows]

    def deletions(self) -> list[tuple[str, list[str], str, str, str]]:
        out = []
        for pid, after, who, at in self.store.rows(DELETIONS):
            data = json.loads(after)
            out.append((pid, list(data.get("cases", ())), who, at, str(data.get("reason", ""))))
        return out

    def gone_ending(self, tail: str, limit: int = 6) -> list[str]:
        found = {
            cid
            for _pid, ids, *_ in self.deletions()
            for cid in ids
            if cid == tail or cid.endswith(f"-{tail}")
        }
        rows = self.store.rows(AUDIT_IDS_ENDING.format(limit=limit + 1), [tail, _like(tail)])
        found.update(r[0] for r in rows)
        stored = {cid for cid in found if self.store.rows(STORED, [cid])[0][0]}
        return sorted(found - stored)[:limit]

    def deletion_of(self, case_id: str) -> tuple[str, str, str, str] | None:
        for pid, ids, who, at, reason in reversed(self.deletions()):
            if case_id in ids:
                return pid, who, at, reason
        return None


def _record(row: Any, audit: list[Any], events: list[Any]) -> CaseRecord:
    """The :class:`CaseRecord` of a :data:`CASE` row as the ORM path builds it, its
    earlier rulings, notes, estimate and terms from its ``audit`` and ``events`` rows."""
    from etki.domain import CaseEvent, CaseRecord, CrTerms, Decision, ReviewerEstimate
    from etki.store.history import CR_TERMS, ESTIMATE, earlier_ruling
    from etki.store.lean import ruling_of

    case_id, project_id, request_id, title, text, by, at, created, version = row[:9]
    verdict, decision_json = row[9:11]
    ruling = ruling_of(case_id, verdict, *row[11:17])
    record = CaseRecord(
        case_id=case_id,
        project_id=project_id,
        request_id=request_id,
        title=title,
        text=text,
        submitted_by=by,
        submitted_at=at,
        created_at=created,
        version=version,
        decision=Decision.from_json(decision_json),
        ruling=ruling,
        preanalysis=None,  # not read: `etki show` does not print it
    )
    if ruling is not None and ruling.version > 2:  # as with_earlier_rulings
        earlier = tuple(
            earlier_ruling(ruling, after, action, reviewer, reason, when, v)
            for when, reviewer, action, outcome, _before, after, reason, v in audit
            if outcome == "committed" and v < ruling.version
        )
        if earlier:
            record = replace(record, earlier_rulings=earlier)
    notes: list[CaseEvent] = []
    estimate = terms = None
    for when, kind, actor, body, _until in events:  # as with_notes: the newest stays
        if kind == ESTIMATE:
            estimate = ReviewerEstimate.from_text(body, actor, when)
        elif kind == CR_TERMS:
            terms = CrTerms.from_text(body, actor, when)
        elif kind == "note":
            notes.append(CaseEvent(at=when, kind="note", actor=actor, text=body))
    if notes or estimate or terms:
        record = replace(record, notes=tuple(notes), estimate=estimate, cr_terms=terms)
    return record


def show_read(store: LeanStore, text: str) -> ShowRead:
    """What ``etki show TEXT`` prints, read on ``store``: ``text`` made the whole id
    (:func:`resolve_case_id`), then the case. Raises ``NotFoundError`` / ``InputError``
    with the ORM path's wording."""
    reads = _Reads(store)
    case_id = resolve_case_id(text, reads.ending, reads.gone_ending)
    found = store.rows(CASE, [case_id])
    audit = store.rows(AUDIT, [case_id])
    events = store.rows(EVENTS, [case_id])
    kept = store.rows(KEPT_EVENTS, [case_id])
    row = found[0] if found else None
    deletion = None
    if row is None and not audit and not events and not kept:
        deletion = reads.deletion_of(case_id)
        if deletion is None:
            raise NotFoundError(f"no case '{case_id}' in the store")
        history = []
    else:
        head = None if row is None else (row[7], row[17], row[18], row[9], row[19])
        history = merge_history(case_id, head, [a[:7] for a in audit], [*kept, *events])
    if row is None:
        erased = bool(store.rows(ERASED_ONE, [case_id, ERASED])[0][0])
        if not erased and deletion is None:
            deletion = reads.deletion_of(case_id)
        return ShowRead(case_id, None, history, [], [], erased, deletion)
    case = _record(row, audit, events)
    cited = set(case.decision.cited_clauses)
    ruled = store.ruled_citing(case.project_id, cited, {})
    resolutions = store.resolutions(case.project_id)
    return ShowRead(case_id, case, history, ruled, resolutions)
