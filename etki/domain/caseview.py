"""One case as data: :class:`CaseView`, the body of ``etki show --json`` built in one place
(issue 33 item 2), which ``etki show``, the MCP server's ``show_case`` tool
(:func:`etki.services.views.case_view`) and the lean read path (``etki show`` without the
ORM, issue 32 item 1) all make, so they always say the same.

Client text (title, request, reasons, notes) is returned as data, never interpreted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from etki.domain import CaseEvent, CaseRecord, RulingRecord

__all__ = ["CaseView", "gone_of", "ruling_dict"]


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
    its project demo by NAME at TIME (its history is kept)`` when its project was
    deleted (``etki project delete``: its events kept in ``deleted_case_events``
    beside its audit rows) and the case was not erased since (a trial read "erased"
    for a deletion)."""
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


def gone_of(erased: bool, deletion: tuple[str, str, str, str] | None) -> tuple[str, dict[str, Any]]:
    """:attr:`CaseView.gone` and :attr:`CaseView.removed` of a case the store no longer
    holds: ``erased`` (it has an erasure tombstone), ``deletion`` (``project id,
    reviewer, at, reason`` of the newest deletion of a project that held it, or None).
    A tombstone of an erasure wins over a deletion of its project (KVKK erasure of a
    deleted project's case is recorded as an erasure); neither recorded reads erased."""
    if erased or deletion is None:
        return "erased (only its audit trail is kept)", {"how": "erased"}
    project_id, by, at, reason = deletion
    return (
        f"deleted with its project {project_id} by {by} at {at} (its history is kept)",
        {"how": "project_deleted", "project_id": project_id, "by": by, "at": at, "reason": reason},
    )
