"""The events part of the store (issue 14 items 3 and 4): a case's events that are not
rulings (``case_events``: imported, viewed, note, claim, release) and the case history,
the one merge of those events with the ruling audit log that the CLI (``etki show``)
and the desk's detail pane both read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, func, select

from etki.domain import CaseEvent, CaseRecord, CrTerms, ReviewerEstimate
from etki.errors import InputError
from etki.store.history import (
    CR_TERMS,
    CR_TERMS_WRITTEN,
    ESTIMATE,
    ESTIMATED,
    NOTED,
    merge_history,
)
from etki.store.models import (
    AuditRow,
    CaseEventRow,
    CaseRow,
    DecisionRow,
    DeletedCaseEventRow,
    RulingRow,
)
from etki.store.repository.base import (
    StoreBase,
    add_event_with_audit,
    event_row,
    iso,
    storable,
)

VIEW_EVERY_S = 3600
"""A reviewer's view of a case is written at most once per this many seconds."""

NOTE_MAX_CHARS = 4000
"""The longest note a reviewer may add."""

CLAIM_MAX_MINUTES = 480
"""The longest claim, in minutes: one working day (8 hours). A claim only says "I am
looking at this case"; nobody looks at one case for longer in one sitting, and a claim
left behind (a reviewer gone home, a desk closed) must free the case by the next working
day at the latest. A longer request is refused (issue 30 item 6)."""


def claim_is_live(until: Any, now: str) -> tuple[Any, ...]:
    """The SQL conditions under which a claim ending at the column ``until`` is live at
    ``now`` (the store's time, ISO text): it ends after ``now`` and no later than
    :data:`CLAIM_MAX_MINUTES` after it. A claim ending further off was dated by a clock
    running ahead of the store's (on SQLite each writer's clock is its own): it binds
    nobody, instead of blocking the case for as long as that clock was ahead (issue 30
    item 6)."""
    moment = datetime.fromisoformat(now.replace("Z", "+00:00"))
    latest = iso(moment + timedelta(minutes=CLAIM_MAX_MINUTES))
    return (until.is_not(None), until > now, until <= latest)


def with_notes(
    conn: Connection, records: list[CaseRecord], project_id: str | None = None
) -> list[CaseRecord]:
    """``records`` with :attr:`~etki.domain.CaseRecord.notes` filled from
    ``case_events`` (kind ``note``, oldest first) and
    :attr:`~etki.domain.CaseRecord.estimate` from the newest ``estimate`` event (issue 35
    item 2) and :attr:`~etki.domain.CaseRecord.cr_terms` from the newest ``cr_terms``
    event (item 1): one query by project when ``project_id`` is given (the records are that
    project's), else by case ids (500 a query). Records without either are returned as
    they are."""
    if not records:
        return records
    e = CaseEventRow.__table__.c
    cols = (
        select(e.case_id, e.kind, e.at, e.actor, e.text)
        .where(e.kind.in_(("note", ESTIMATE, CR_TERMS)))
        .order_by(e.id)
    )
    notes: dict[str, list[CaseEvent]] = {}
    estimates: dict[str, ReviewerEstimate] = {}
    terms: dict[str, CrTerms] = {}
    stmts = (
        [cols.where(e.project_id == project_id)]
        if project_id is not None
        else [
            cols.where(e.case_id.in_([r.case_id for r in records[at : at + 500]]))
            for at in range(0, len(records), 500)
        ]
    )
    for stmt in stmts:
        for case_id, kind, at, actor, text in conn.execute(stmt):
            if kind == ESTIMATE:  # oldest first: the newest one stays
                estimates[case_id] = ReviewerEstimate.from_text(text, actor, at)
                continue
            if kind == CR_TERMS:
                terms[case_id] = CrTerms.from_text(text, actor, at)
                continue
            notes.setdefault(case_id, []).append(
                CaseEvent(at=at, kind="note", actor=actor, text=text)
            )
    if not notes and not estimates and not terms:
        return records
    return [
        replace(
            r,
            notes=tuple(notes.get(r.case_id, ())),
            estimate=estimates.get(r.case_id),
            cr_terms=terms.get(r.case_id),
        )
        if r.case_id in notes or r.case_id in estimates or r.case_id in terms
        else r
        for r in records
    ]


class EventStore(StoreBase):
    """Write a case's events and read its whole history."""

    def add_case_event(
        self, case_id: str, kind: str, actor: str, text: str = "", *, until: str | None = None
    ) -> CaseEvent:
        """Append one ``case_events`` row (``kind`` one of ``imported``, ``viewed``,
        ``note``, ``claim``, ``release``) at the store's time (:meth:`now`), with the
        writing process's identity. Returns it as a :class:`CaseEvent`. Raises
        :class:`NotFoundError` for an unknown case (:class:`~etki.errors.CaseErasedError`
        for an erased one, also when an erasure held it while this waited:
        :meth:`lock_case`), :class:`InputError` for another kind or unstorable text."""
        if kind not in ("imported", "viewed", "note", "claim", "release"):
            raise InputError(f"unknown case event '{kind}'")
        storable("the event's actor or text", actor, text)
        with self._write() as s:
            project_id = self.lock_case(s, case_id).project_id
            now = iso(self.now(s))
            s.add(event_row(case_id, project_id, kind, actor, now, text=text, until=until))
        return CaseEvent(at=now, kind=kind, actor=actor, text=text, until=until)

    def record_view(self, case_id: str, actor: str, *, every_s: int = VIEW_EVERY_S) -> bool:
        """Write that ``actor`` opened ``case_id`` on the desk (a ``viewed`` event),
        unless they have a view of it in the last ``every_s`` seconds. Returns whether a
        row was written. Raises :class:`NotFoundError` for an unknown case."""
        storable("the reviewer name", actor)
        e = CaseEventRow.__table__.c
        with self._write() as s:
            project_id = self.lock_case(s, case_id).project_id
            moment = self.now(s)
            now, since = iso(moment), iso(moment - timedelta(seconds=every_s))
            recent = s.scalar(
                select(e.id)
                .where(e.case_id == case_id, e.kind == "viewed", e.actor == actor, e.at >= since)
                .limit(1)
            )
            if recent is not None:
                return False
            s.add(event_row(case_id, project_id, "viewed", actor, now))
        return True

    def case_history(self, case_id: str) -> list[CaseEvent]:
        """Every event of ``case_id``, oldest first: imported (its ``imported`` events,
        or the case's creation time for a case stored before they were written),
        triaged (the engine version and verdict of its decision), then every audit row
        (ruled, amended, denied, conflict, erased) and every other ``case_events`` row
        (viewed, note, claim, release, estimate, assign, unassign), merged by time; events of one second keep
        imported and triaged first, then audit rows, then the other events, each in the
        order written. A case of a deleted project lists the events its deletion kept
        (``deleted_case_events``, before any of a later life's) with its audit rows, as
        it did when stored. An erased case still has its history: its audit rows (reasons
        read ``[erased]``) and the tombstone; its events went with it. Raises :class:`NotFoundError` when the store
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
            k = DeletedCaseEventRow.__table__.c  # kept by a deletion of its project
            kept = conn.execute(
                select(k.at, k.kind, k.actor, k.text, k.until)
                .where(k.case_id == case_id)
                .order_by(k.id)
            ).all()
            events = conn.execute(
                select(e.at, e.kind, e.actor, e.text, e.until)
                .where(e.case_id == case_id)
                .order_by(e.id)
            ).all()
        return merge_history(case_id, case, audit, [*kept, *events])

    # --- notes and claims (issue 14 item 4) ------------------------------------------------

    def add_note(self, case_id: str, actor: str, text: str) -> CaseEvent:
        """Add a reviewer's note to a case: a ``note`` event and, in the same
        transaction, an audit-log row (outcome :data:`NOTED`, no text) so the wiki
        projector sees the change and renders the case's page with it. ``text`` is
        stripped; an empty one, one over :data:`NOTE_MAX_CHARS` or unstorable text
        raises :class:`InputError`, an unknown case :class:`NotFoundError`. The case row
        is locked first (:meth:`lock_case`): a note written while an erasure of the case
        runs waits for it and is refused with :class:`~etki.errors.CaseErasedError`
        ("is being erased"), no row of it written."""
        text = text.strip()
        if not text:
            raise InputError(f"note: the text is empty; nothing was added to {case_id}")
        if len(text) > NOTE_MAX_CHARS:
            raise InputError(
                f"note: {len(text):,} characters; a note holds at most {NOTE_MAX_CHARS:,}"
            )
        storable("the note or its author", actor, text)
        now = self._event_with_audit(case_id, actor, "note", NOTED, lambda _at: (text, ""))
        return CaseEvent(at=now, kind="note", actor=actor, text=text)

    def add_estimate(
        self, case_id: str, actor: str, estimate: ReviewerEstimate
    ) -> ReviewerEstimate:
        """Record ``actor``'s effort estimate of ``case_id`` (issue 35 item 2): an
        ``estimate`` event (text :meth:`ReviewerEstimate.to_text`) and, in the same
        transaction, an audit-log row (action and outcome :data:`ESTIMATE`/:data:`ESTIMATED`,
        ``reason`` the figures) so the projector renders the case's pages with it, both at
        the store's time (:meth:`now`) after the case row is locked (:meth:`lock_case`: an
        estimate written while an erasure of the case runs is refused with
        :class:`~etki.errors.CaseErasedError`). ``estimate`` comes validated from
        :func:`etki.domain.parse_estimate`; its ``actor`` and ``at`` are set here. Returns
        the stored estimate. Raises :class:`NotFoundError` for an unknown case,
        :class:`InputError` for unstorable text."""
        storable("the estimate's reason or its author", actor, estimate.reason)

        def stored(at: str) -> tuple[str, str]:
            done = replace(estimate, actor=actor, at=at)
            price = done.price_words()
            return done.to_text(), done.days_words() + (f", {price}" if price else "")

        at = self._event_with_audit(case_id, actor, ESTIMATE, ESTIMATED, stored)
        return replace(estimate, actor=actor, at=at)

    def set_cr_terms(self, case_id: str, actor: str, terms: CrTerms) -> CrTerms:
        """Record ``actor``'s terms of the change request ``case_id`` (issue 35 item 1):
        a ``cr_terms`` event (text :meth:`CrTerms.to_text`, the whole set) and, in the
        same transaction, an audit-log row (action :data:`CR_TERMS`, outcome
        :data:`CR_TERMS_WRITTEN`, ``reason`` the summary), at the store's time after the
        case row is locked (:meth:`lock_case`: refused with
        :class:`~etki.errors.CaseErasedError` while an erasure runs). ``terms`` comes
        validated from :func:`etki.domain.parse_cr_terms`. Returns the stored terms.
        Raises :class:`NotFoundError` for an unknown case, :class:`InputError` for
        unstorable text."""
        storable("the change request's terms or their author", actor, *terms.assumptions)
        storable("the change request's terms", *terms.exclusions)

        def stored(at: str) -> tuple[str, str]:
            done = replace(terms, actor=actor, at=at)
            return done.to_text(), done.summary()

        at = self._event_with_audit(case_id, actor, CR_TERMS, CR_TERMS_WRITTEN, stored)
        return replace(terms, actor=actor, at=at)

    def _event_with_audit(
        self,
        case_id: str,
        actor: str,
        kind: str,
        outcome: str,
        stored: Callable[[str], tuple[str, str]],
    ) -> str:
        """Write a ``kind`` case event by ``actor`` and, in the same transaction, its
        audit row (action ``kind``, ``outcome``, the ruling state before and after
        unchanged), both at the store's time after the case row is locked
        (:meth:`lock_case`). ``stored(at)`` gives the event's text and the audit row's
        reason for that time. Returns the time (ISO 8601). Raises
        :class:`NotFoundError` for an unknown case, :class:`~etki.errors.CaseErasedError`
        while an erasure of it runs."""
        with self._write() as s:
            case = self.lock_case(s, case_id)
            now = iso(self.now(s))
            ruling = s.get(RulingRow, case_id)
            state = ruling.ruling if ruling is not None else "pending"
            text, reason = stored(now)
            add_event_with_audit(
                s,
                case,
                kind=kind,
                actor=actor,
                text=text,
                at=now,
                state=state,
                reason=reason,
                outcome=outcome,
            )
        return now

    def _live_claim(self, conn: Connection, case_id: str, now: str) -> CaseEvent | None:
        """The live claim of ``case_id`` at ``now`` (the store's time, :meth:`now`): its
        newest claim or release event when that is a claim whose ``until`` is after
        ``now``, decided in SQL; None when there is none."""
        e = CaseEventRow.__table__.c
        newest = (
            select(func.max(e.id))
            .where(e.case_id == case_id, e.kind.in_(("claim", "release")))
            .scalar_subquery()
        )
        row = conn.execute(
            select(e.actor, e.at, e.until).where(
                e.id == newest, e.kind == "claim", *claim_is_live(e.until, now)
            )
        ).first()
        if row is None:
            return None
        return CaseEvent(at=row.at, kind="claim", actor=row.actor, until=row.until)

    def claim(self, case_id: str, actor: str, minutes: int) -> CaseEvent:
        """``actor`` claims ``case_id`` for ``minutes`` (1 to :data:`CLAIM_MAX_MINUTES`):
        a ``claim`` event whose ``until`` is that long after the store's time
        (:meth:`now`, the database's clock: a writer whose clock runs ahead cannot make
        a claim outlive its length); claiming again extends one's own claim. Raises
        :class:`InputError` when another reviewer holds a live claim (it names them and
        until when) or for a bad ``minutes``, :class:`NotFoundError` for an unknown
        case."""
        if not 1 <= minutes <= CLAIM_MAX_MINUTES:
            raise InputError(
                f"claim: --minutes {minutes} is out of range; a claim lasts 1 to "
                f"{CLAIM_MAX_MINUTES} minutes (one working day): claim again to extend it"
            )
        storable("the reviewer name", actor)
        with self._write() as s:
            case = self.lock_case(s, case_id)
            project_id, status = case.project_id, case.status
            moment = self.now(s, ordered=False)  # an end, not an order: see _live_claim
            now, until = iso(moment), iso(moment + timedelta(minutes=minutes))
            if status != "pending":
                raise InputError(
                    f"case {case_id} is already ruled: there is nothing to claim "
                    "(an approver amends it with `etki rule CASE ACTION --amend`)"
                )
            held = self._live_claim(s.connection(), case_id, now)
            if held is not None and held.actor != actor:
                raise InputError(
                    f"case {case_id} is claimed by {held.actor} until {held.until}; "
                    "look at another case, or ask them"
                )
            s.add(event_row(case_id, project_id, "claim", actor, now, until=until))
        return CaseEvent(at=now, kind="claim", actor=actor, until=until)

    def release(self, case_id: str, actor: str) -> CaseEvent:
        """End ``actor``'s live claim of ``case_id`` (a ``release`` event). Raises
        :class:`InputError` when they hold none (another reviewer's claim is theirs to
        release; it expires by itself), :class:`NotFoundError` for an unknown case."""
        storable("the reviewer name", actor)
        with self._write() as s:
            project_id = self.lock_case(s, case_id).project_id
            now = iso(self.now(s, ordered=False))
            held = self._live_claim(s.connection(), case_id, now)
            if held is None or held.actor != actor:
                who = f" (claimed by {held.actor} until {held.until})" if held else ""
                raise InputError(f"case {case_id}: you hold no claim to release{who}")
            s.add(event_row(case_id, project_id, "release", actor, now))
        return CaseEvent(at=now, kind="release", actor=actor)

    def live_claims(self, project_id: str) -> dict[str, CaseEvent]:
        """case id -> the live claim (a ``claim`` event whose ``until`` is still ahead,
        not released since) of every claimed pending case of ``project_id``. Expired and
        released claims are absent, and so are claims of cases ruled since (a claim is
        on a case waiting for its ruling: once ruled, there is nothing to race on).
        Whether a claim is live is decided in SQL against the store's time (:meth:`now`),
        never the reader's clock."""
        e = CaseEventRow.__table__.c
        c = CaseRow.__table__.c
        newest = (
            select(func.max(e.id))
            .where(e.project_id == project_id, e.kind.in_(("claim", "release")))
            .group_by(e.case_id)
        )
        pending = select(c.id).where(c.project_id == project_id, c.status == "pending")
        with self.engine.connect() as conn:
            now = iso(self.now(conn))
            rows = conn.execute(
                select(e.case_id, e.actor, e.at, e.until).where(
                    e.id.in_(newest),
                    e.case_id.in_(pending),
                    e.kind == "claim",
                    *claim_is_live(e.until, now),
                )
            ).all()
        return {
            case_id: CaseEvent(at=at, kind="claim", actor=actor, until=until)
            for case_id, actor, at, until in rows
        }
