"""The events part of the store (issue 14 items 3 and 4): a case's events that are not
rulings (``case_events``: imported, viewed, note, claim, release) and the case history,
the one merge of those events with the ruling audit log that the CLI (``etki show``)
and the desk's detail pane both read.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from etki.domain import CaseEvent
from etki.errors import InputError, NotFoundError
from etki.identity import current_process
from etki.store.models import AuditRow, CaseEventRow, CaseRow, DecisionRow
from etki.store.repository.base import StoreBase, iso, storable
from etki.store.repository.erasures import ERASED

VIEW_EVERY_S = 3600
"""A reviewer's view of a case is written at most once per this many seconds."""

_RANK = {"imported": 0, "triaged": 1}


def audit_event(
    at: str, reviewer: str, action: str, outcome: str, before: str, after: str, reason: str
) -> CaseEvent:
    """The :class:`CaseEvent` of one audit-log row: a committed ruling is ``ruled``
    (``before`` pending) or ``amended``; ``denied``, ``conflict`` and the erasure
    tombstone (``erased``) keep their outcome as the kind."""
    if outcome == "committed":
        kind = "ruled" if before == "pending" else "amended"
    elif outcome == ERASED:
        kind = "erased"
    else:
        kind = outcome
    return CaseEvent(
        at=at, kind=kind, actor=reviewer, text=reason, action=action, before=before, after=after
    )


class EventStore(StoreBase):
    """Write a case's events and read its whole history."""

    def add_case_event(
        self, case_id: str, kind: str, actor: str, text: str = "", *, until: str | None = None
    ) -> CaseEvent:
        """Append one ``case_events`` row (``kind`` one of ``imported``, ``viewed``,
        ``note``, ``claim``, ``release``) at the clock's time, with the writing process's
        identity. Returns it as a :class:`CaseEvent`. Raises :class:`NotFoundError` for
        an unknown case, :class:`InputError` for another kind or unstorable text."""
        if kind not in ("imported", "viewed", "note", "claim", "release"):
            raise InputError(f"unknown case event '{kind}'")
        storable("the event's actor or text", actor, text)
        now = iso(self.clock())
        with self._write() as s:
            project_id = s.scalar(select(CaseRow.project_id).where(CaseRow.id == case_id))
            if project_id is None:
                raise NotFoundError(f"no case '{case_id}' in the store")
            s.add(
                CaseEventRow(
                    case_id=case_id,
                    project_id=project_id,
                    kind=kind,
                    actor=actor,
                    text=text,
                    at=now,
                    until=until,
                    **current_process().columns(),
                )
            )
        return CaseEvent(at=now, kind=kind, actor=actor, text=text, until=until)

    def record_view(self, case_id: str, actor: str, *, every_s: int = VIEW_EVERY_S) -> bool:
        """Write that ``actor`` opened ``case_id`` on the desk (a ``viewed`` event),
        unless they have a view of it in the last ``every_s`` seconds. Returns whether a
        row was written. Raises :class:`NotFoundError` for an unknown case."""
        storable("the reviewer name", actor)
        moment = self.clock()
        now, since = iso(moment), iso(moment - timedelta(seconds=every_s))
        e = CaseEventRow.__table__.c
        with self._write() as s:
            project_id = s.scalar(select(CaseRow.project_id).where(CaseRow.id == case_id))
            if project_id is None:
                raise NotFoundError(f"no case '{case_id}' in the store")
            recent = s.scalar(
                select(e.id)
                .where(e.case_id == case_id, e.kind == "viewed", e.actor == actor, e.at >= since)
                .limit(1)
            )
            if recent is not None:
                return False
            s.add(
                CaseEventRow(
                    case_id=case_id,
                    project_id=project_id,
                    kind="viewed",
                    actor=actor,
                    text="",
                    at=now,
                    **current_process().columns(),
                )
            )
        return True

    def case_history(self, case_id: str) -> list[CaseEvent]:
        """Every event of ``case_id``, oldest first: imported (its ``imported`` events,
        or the case's creation time for a case stored before they were written),
        triaged (the engine version and verdict of its decision), then every audit row
        (ruled, amended, denied, conflict, erased) and every other ``case_events`` row
        (viewed, note, claim, release), merged by time; events of one second keep
        imported and triaged first, then audit rows, then the other events, each in the
        order written. An erased case still has its history (audit and events outlive
        it; its texts read ``[erased]``). Raises :class:`NotFoundError` when the store
        holds nothing of ``case_id``."""
        a, e = AuditRow.__table__.c, CaseEventRow.__table__.c
        with self.engine.connect() as conn:
            case = conn.execute(
                select(
                    CaseRow.created_at,
                    DecisionRow.created_at,
                    DecisionRow.engine_version,
                    DecisionRow.verdict,
                    DecisionRow.confidence,
                )
                .join_from(CaseRow, DecisionRow, DecisionRow.case_id == CaseRow.id)
                .where(CaseRow.id == case_id)
            ).first()
            audit = conn.execute(
                select(a.at, a.reviewer, a.action, a.outcome, a.before, a.after, a.reason)
                .where(a.case_id == case_id)
                .order_by(a.id)
            ).all()
            events = conn.execute(
                select(e.at, e.kind, e.actor, e.text, e.until)
                .where(e.case_id == case_id)
                .order_by(e.id)
            ).all()
        if case is None and not audit and not events:
            raise NotFoundError(f"no case '{case_id}' in the store")
        out: list[tuple[tuple[str, int, int, int], CaseEvent]] = []
        imported = [ev for ev in events if ev.kind == "imported"]
        if case is not None:
            created, decided, engine, verdict, confidence = case
            if not imported:
                out.append(((created, 0, 0, 0), CaseEvent(at=created, kind="imported")))
            text = f"engine {engine}: {verdict} (confidence {confidence:.2f})"
            out.append(((decided, 1, 0, 0), CaseEvent(at=decided, kind="triaged", text=text)))
        for i, (at, reviewer, action, outcome, before, after, reason) in enumerate(audit):
            event = audit_event(at, reviewer, action, outcome, before, after, reason)
            out.append(((at, 2, 0, i), event))
        for i, (at, kind, actor, text, until) in enumerate(events):
            event = CaseEvent(at=at, kind=kind, actor=actor, text=text, until=until)
            out.append(((at, _RANK.get(kind, 2), 1, i), event))
        out.sort(key=lambda pair: pair[0])
        return [ev for _, ev in out]
