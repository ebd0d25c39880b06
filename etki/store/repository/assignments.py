"""The assignments part of the store (issue 35 item 5): a case handed to a reviewer.

An assignment is its own kind of case event, not a claim: a claim says "I am looking at
this case now" and expires within a working day (:data:`~etki.store.repository.events.
CLAIM_MAX_MINUTES`); an assignment says "this case is yours to rule" and holds until the
case is ruled, handed to someone else or the assignment is ended. Both live in
``case_events`` (no new column, no migration): kind :data:`ASSIGN` with ``text`` the
assignee's name, kind :data:`UNASSIGN` when it ends; the newest of the two decides. Each
is written with an audit-log row (action :data:`ASSIGN`/:data:`UNASSIGN`, outcome
:data:`ASSIGNED`, ``reason`` naming the assignee) in the same transaction, at the store's
time, after the case row is locked, with the writing process's identity beside it.
Whether the acting reviewer may assign, and to whom, is the desk's to check
(:meth:`etki.services.Desk.assign`); the store only refuses a ruled case.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from etki.domain import CaseEvent
from etki.errors import InputError
from etki.store.history import ASSIGN, ASSIGNED, UNASSIGN
from etki.store.models import CaseEventRow, CaseRow
from etki.store.repository.base import StoreBase, add_event_with_audit, iso, storable

__all__ = ["ASSIGN", "ASSIGNED", "UNASSIGN", "AssignmentStore"]


class AssignmentStore(StoreBase):
    """Assign a case to a reviewer, end an assignment, read the live ones."""

    def _assignee(self, s: Session, case_id: str) -> str | None:
        """The assignee of ``case_id`` in the write transaction ``s``: the ``text`` of its
        newest assign/unassign event when that is an assignment, else None."""
        e = CaseEventRow.__table__.c
        row = s.execute(
            select(e.kind, e.text)
            .where(e.case_id == case_id, e.kind.in_((ASSIGN, UNASSIGN)))
            .order_by(e.id.desc())
            .limit(1)
        ).first()
        return row.text if row is not None and row.kind == ASSIGN else None

    def _write_assignment(self, case_id: str, actor: str, kind: str, assignee: str) -> CaseEvent:
        storable("the reviewer names", actor, assignee)
        with self._write() as s:
            case = self.lock_case(s, case_id)
            if case.status != "pending":
                raise InputError(
                    f"case {case_id} is already ruled: there is nothing to assign "
                    "(an approver amends it with `etki rule CASE ACTION --amend`)"
                )
            held = self._assignee(s, case_id)
            if kind == UNASSIGN:
                if held is None:
                    raise InputError(f"case {case_id} is assigned to nobody: nothing to end")
                assignee = held
            now = iso(self.now(s))
            add_event_with_audit(
                s,
                case,
                kind=kind,
                actor=actor,
                text=assignee,
                at=now,
                state="pending",
                reason=f"to {assignee}" if kind == ASSIGN else f"from {assignee}",
                outcome=ASSIGNED,
            )
        return CaseEvent(at=now, kind=kind, actor=actor, after=assignee)

    def assign(self, case_id: str, actor: str, assignee: str) -> CaseEvent:
        """``actor`` assigns the pending case ``case_id`` to ``assignee`` (a name as
        stored in the project's reviewer list; assigning again replaces the assignee).
        Returns the event (``after``: the assignee). Raises :class:`InputError` for a
        ruled case or unstorable names, :class:`NotFoundError` for an unknown case
        (:class:`~etki.errors.CaseErasedError` for one being erased)."""
        return self._write_assignment(case_id, actor, ASSIGN, assignee)

    def unassign(self, case_id: str, actor: str) -> CaseEvent:
        """End the assignment of the pending case ``case_id`` (``after``: who had it).
        Raises :class:`InputError` when it is assigned to nobody or ruled,
        :class:`NotFoundError` for an unknown case."""
        return self._write_assignment(case_id, actor, UNASSIGN, "")

    def live_assignments(self, project_id: str) -> dict[str, CaseEvent]:
        """case id -> the assignment in force (``after``: the assignee, ``actor``: who
        assigned, ``at``: when) of every assigned pending case of ``project_id``, decided
        in SQL from the newest assign/unassign event of each case. Ended assignments and
        those of cases ruled since are absent."""
        e = CaseEventRow.__table__.c
        c = CaseRow.__table__.c
        newest = (
            select(func.max(e.id))
            .where(e.project_id == project_id, e.kind.in_((ASSIGN, UNASSIGN)))
            .group_by(e.case_id)
        )
        pending = select(c.id).where(c.project_id == project_id, c.status == "pending")
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(e.case_id, e.actor, e.at, e.text).where(
                    e.id.in_(newest), e.case_id.in_(pending), e.kind == ASSIGN
                )
            ).all()
        return {
            case_id: CaseEvent(at=at, kind=ASSIGN, actor=actor, after=assignee)
            for case_id, actor, at, assignee in rows
        }
