"""One case as data (one job: the JSON of ``etki show --json``, built in one place), used
by ``etki show`` and by the MCP server's ``show_case`` tool (issue 33 item 2), so the two
always say the same.

Client text (title, request, reasons, notes) is returned as data, never interpreted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from etki.domain import CaseEvent, CaseRecord, RulingRecord

if TYPE_CHECKING:
    from etki.services import Desk

__all__ = ["CaseView", "case_view", "ruling_dict"]


def ruling_dict(r: RulingRecord) -> dict[str, Any]:
    """One ruling as ``etki show --json`` writes it: ``ruling action reviewer reason
    ruled_at version override``."""
    return {
        "ruling": r.ruling,
        "action": r.action,
        "reviewer": r.reviewer,
        "reason": r.reason,
        "ruled_at": r.ruled_at,
        "version": r.version,
        "override": r.is_override,
    }


@dataclass(frozen=True)
class CaseView:
    """A case as ``etki show`` reads it: ``case`` (None when erased), ``now`` (what the
    desk shows beside the frozen decision: ``risk``, ``pmo_look_24h``, ``risk_signals``,
    ``risk_raised_by``, ``disputed_clauses``, the risk as ``etki queue`` shows it, from
    :meth:`etki.services.Desk.clause_memory` and :func:`etki.memory.current_risk`; empty
    when erased) and ``history`` (every
    event, oldest first)."""

    case_id: str
    case: CaseRecord | None
    now: dict[str, Any]
    history: tuple[CaseEvent, ...]
    gone: str = ""
    """Why ``case`` is None, a sentence for ``etki show`` ("" when it is there):
    ``erased (only its audit trail is kept)`` after a KVKK erasure, or ``deleted with
    its project demo by NAME at TIME (only its audit trail is kept)`` when its project
    was deleted (``etki project delete``) and the case was not erased since (a trial
    read "erased" for a deletion)."""
    removed: dict[str, Any] | None = None
    """Why ``case`` is None, for ``etki show --json`` (None when it is there):
    ``{"how": "erased"}`` after a KVKK erasure (its rows and wiki pages removed), or
    ``{"how": "project_deleted", "project_id", "by", "at", "reason"}`` when it went with its
    project (``etki project delete``: the wiki keeps its pages). An erasure wins: a
    case of a deleted project erased since reads ``erased``."""

    def to_json(self) -> dict[str, Any]:
        """The body of ``etki show --json``: ``case_id``, ``case`` (or None; its
        ``reviewer_estimate`` the estimate in force, issue 35 item 2; ``cr_terms`` the
        change request's terms in force, item 1), ``removed`` (:attr:`removed`: null
        for a case that is there; erased or deleted with its project otherwise) and
        ``history``."""
        body: dict[str, Any] = {"case_id": self.case_id, "case": None, "removed": self.removed}
        case = self.case
        if case is not None:
            body["case"] = {
                "case_id": case.case_id,
                "project_id": case.project_id,
                "request_id": case.request_id,
                "title": case.title,
                "text": case.text,
                "submitted_by": case.submitted_by,
                "submitted_at": case.submitted_at,
                "created_at": case.created_at,
                "status": case.status,
                "version": case.version,
                "decision": case.decision.to_dict(),
                "ruling": ruling_dict(case.ruling) if case.ruling else None,
                "ruling_history": [ruling_dict(r) for r in case.ruling_history],
                "reviewer_estimate": case.estimate.to_dict() if case.estimate else None,
                "cr_terms": case.cr_terms.to_dict() if case.cr_terms else None,
                "now": self.now,
            }
        body["history"] = [e.to_dict() for e in self.history]
        return body


def case_view(desk: Desk, case_id: str) -> CaseView:
    """:class:`CaseView` of ``case_id``. Raises ``NotFoundError`` when nothing of it is
    stored (an erased case still has its history; a case of a deleted project, never
    ruled nor touched, is named by the deletion's ``project_audit`` row and reads as
    deleted with an empty history)."""
    from etki.errors import NotFoundError
    from etki.memory import current_risk, disputed_refs

    try:
        history = desk.case_history(case_id)
    except NotFoundError as missing:
        # an untouched case of a deleted project has no row left but the deletion's
        # project_audit row names it (a trial read "no case ... in the store")
        try:
            desk.repo.deleted_project_of(case_id)
        except NotFoundError:
            raise missing from None  # nothing of it is stored
        history = []
    try:
        case: CaseRecord | None = desk.case(case_id)
    except NotFoundError:
        case = None  # erased: the audit and the events outlive it
    now: dict[str, Any] = {}
    if case is not None:  # what the desk shows beside the frozen decision (a trial: the
        # desk read "raised now: 9 disputed" where `etki show` said only "risk low")
        # the clause memory and the risk as the queue reads them (one read, one function)
        memory = desk.clause_memory(case.project_id)
        risk, raised = current_risk(case.decision, memory, desk.settings.disputed_escalation)
        now = {
            "risk": risk.level,
            "pmo_look_24h": risk.pmo_look_24h,
            "risk_signals": list(risk.signals),
            "risk_raised_by": list(raised),
            "disputed_clauses": [
                {
                    "ref": ref,
                    "resolved": memory[ref].resolved,
                    "rulings": sorted({r for _, r, _, _ in memory[ref].disputing}),
                }
                for ref in disputed_refs(case.decision.cited_clauses, memory)
            ],
        }
    if case is not None:
        return CaseView(case_id, case, now, tuple(history))
    gone, removed = _gone(desk, case_id)
    return CaseView(case_id, case, now, tuple(history), gone, removed)


def _gone(desk: Desk, case_id: str) -> tuple[str, dict[str, Any]]:
    """:attr:`CaseView.gone` and :attr:`CaseView.removed` of a case the store no
    longer holds: a tombstone of an erasure wins over a deletion of its project (KVKK
    erasure of a deleted project's case is recorded as an erasure)."""
    from etki.errors import NotFoundError

    kept = "(only its audit trail is kept)"
    erased = (f"erased {kept}", {"how": "erased"})
    if case_id in desk.repo.erased_case_ids():
        return erased
    try:
        gone = desk.repo.deleted_project_of(case_id)
    except NotFoundError:
        return erased  # pragma: no cover - neither recorded: as before
    return (
        f"deleted with its project {gone.project_id} by {gone.reviewer} at {gone.at} {kept}",
        {
            "how": "project_deleted",
            "project_id": gone.project_id,
            "by": gone.reviewer,
            "at": gone.at,
            "reason": gone.reason,
        },
    )
