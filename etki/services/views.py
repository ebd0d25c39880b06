"""One case as data (one job: the JSON of ``etki show --json``, built in one place), used
by ``etki show`` and by the MCP server's ``show_case`` tool (issue 33 item 2), so the two
always say the same.

Client text (title, request, reasons, notes) is returned as data, never interpreted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from etki.domain import CaseRecord
from etki.domain.caseview import CaseView, gone_of, ruling_dict

if TYPE_CHECKING:
    from etki.services import Desk

__all__ = ["CaseView", "case_view", "ruling_dict"]


def case_view(desk: Desk, case_id: str) -> CaseView:
    """:class:`CaseView` of ``case_id``. Raises ``NotFoundError`` when nothing of it is
    stored (an erased case still has its history; a case of a deleted project has the
    events its deletion kept and its audit rows, and one deleted before migration 0012,
    never ruled nor touched, is named by the deletion's ``project_audit`` row and reads
    as deleted with an empty history)."""
    from etki.errors import NotFoundError
    from etki.memory import case_now

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
        now = case_now(case.decision, memory, desk.settings.disputed_escalation)
    if case is not None:
        return CaseView(case_id, case, now, tuple(history))
    gone, removed = _gone(desk, case_id)
    return CaseView(case_id, case, now, tuple(history), gone, removed)


def _gone(desk: Desk, case_id: str) -> tuple[str, dict[str, Any]]:
    """:func:`etki.domain.caseview.gone_of` of a case the store no longer holds."""
    from etki.errors import NotFoundError

    if case_id in desk.repo.erased_case_ids():
        return gone_of(True, None)
    try:
        gone = desk.repo.deleted_project_of(case_id)
    except NotFoundError:
        return gone_of(True, None)  # pragma: no cover - neither recorded: as before
    return gone_of(False, (gone.project_id, gone.reviewer, gone.at, gone.reason))
