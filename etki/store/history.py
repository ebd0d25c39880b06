"""A case's history, merged from its rows (issue 14 items 3 and 4; issue 32 item 1):
the one merge of its ``case_events`` rows with the ruling audit log that ``etki show``
and the desk's detail pane list, read by the ORM path
(:meth:`etki.store.repository.events.EventStore.case_history`) and by the lean read path
(:mod:`etki.store.lean_case`) alike. Plain values only: no SQLAlchemy, so the lean path
imports it without the ORM.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from etki.domain import CaseEvent, CrTerms, ReviewerEstimate, RulingRecord, Verdict
from etki.errors import NotFoundError

__all__ = ["audit_event", "earlier_ruling", "merge_history", "triaged_text"]

ERASED = "erased"
"""``outcome`` (and ``after``) of an erasure tombstone in the audit log."""

ASSIGN = "assign"
"""``kind`` of the ``case_events`` row of an assignment (``text``: the assignee) and
``action`` of its audit-log row."""
UNASSIGN = "unassign"
"""``kind`` of the ``case_events`` row that ends an assignment (``text``: who had it)."""
ASSIGNED = "assigned"
"""``outcome`` of the audit-log row of an assignment or its end: the history shows the
``case_events`` row instead (:func:`merge_history` skips it)."""

NOTED = "noted"
"""``outcome`` of the audit-log row a note appends (``action`` ``note``, no text: the
note is in ``case_events``), so the wiki projector, which follows the audit log, renders
the case's decision page again with it."""

ESTIMATE = "estimate"
"""``kind`` of the ``case_events`` row of a reviewer's effort estimate and ``action`` of
the audit-log row written with it (issue 35 item 2)."""

ESTIMATED = "estimated"
"""``outcome`` of the audit-log row an estimate appends (``action`` :data:`ESTIMATE`,
``reason`` the figures without the reviewer's words, which are in ``case_events``), so
the wiki projector renders the case's pages again with it."""

CR_TERMS = "cr_terms"
"""``kind`` of the ``case_events`` row of a change request's terms written by the PMO
(issue 35 item 1: assumptions, exclusions, validity date) and ``action`` of the
audit-log row written with it."""

CR_TERMS_WRITTEN = "terms_written"
"""``outcome`` of the audit-log row the terms append (``action`` :data:`CR_TERMS`,
``reason`` their summary without the PMO's words, which are in ``case_events``)."""

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


def triaged_text(engine: str, verdict: object, confidence: float) -> str:
    """The text of a case's ``triaged`` event: ``engine VERSION: VERDICT (confidence
    C)``, ``C`` to two decimals, from its decision row's ``engine_version``,
    ``verdict`` and ``confidence`` (what :func:`merge_history` lists, and what
    ``deleted_case_events`` keeps of a deleted project's case)."""
    return f"engine {engine}: {verdict} (confidence {confidence:.2f})"


def _standin(at: str, reviewer: str, action: str, reason: str) -> CaseEvent:
    """The event an audit row of a note, estimate, terms or assignment stands in for when
    its ``case_events`` row went with its deleted project: kind ``action`` (``note``,
    ``estimate``, ``cr_terms``, ``assign``, ``unassign``); an estimate's figures or the
    terms' summary as the text (the reviewer's words were only in the event); the
    assignee (``reason`` ``to NAME`` / ``from NAME``) as ``after``."""
    if action in (ASSIGN, UNASSIGN):
        assignee = reason.removeprefix("to " if action == ASSIGN else "from ")
        return CaseEvent(at=at, kind=action, actor=reviewer, after=assignee)
    return CaseEvent(at=at, kind=action, actor=reviewer, text=reason)


def merge_history(
    case_id: str,
    case: Sequence[Any] | None,
    audit: Sequence[Sequence[Any]],
    events: Sequence[Sequence[Any]],
) -> list[CaseEvent]:
    """Every event of ``case_id``, oldest first, from its rows: ``case`` (the case's
    ``created_at``, its decision's ``created_at``, ``engine_version``, ``verdict`` and
    ``confidence``; None when the case row is gone), ``audit`` (``at reviewer action
    outcome before after reason`` of its audit rows, by id) and ``events`` (``at kind
    actor text until`` of its ``case_events`` rows, by id). Imported (its ``imported``
    events, or the case's creation time for a case stored before they were written),
    triaged (the engine version and verdict of its decision), then every audit row
    (ruled, amended, denied, conflict, erased) and every other event (viewed, note,
    claim, release, estimate, assign, unassign), merged by time; events of one second
    keep imported and triaged first, then audit rows, then the other events, each in
    the order written. Raises :class:`NotFoundError` when there is no row at all."""
    if case is None and not audit and not events:
        raise NotFoundError(f"no case '{case_id}' in the store")
    out: list[tuple[tuple[str, int, int, int], CaseEvent]] = []
    imported = [ev for ev in events if ev[1] == "imported"]
    if case is not None:
        created, decided, engine, verdict, confidence = case
        if not imported:
            out.append(((created, 0, 0, 0), CaseEvent(at=created, kind="imported")))
        text = triaged_text(engine, verdict, confidence)
        out.append(((decided, 1, 0, 0), CaseEvent(at=decided, kind="triaged", text=text)))
    # a case gone with its deleted project (no row, no events, no tombstone) keeps
    # only its audit rows: they stand in for the events (a trial read "history": []
    # for a case with two assign rows)
    gone = case is None and not events and all(row[3] != ERASED for row in audit)
    for i, (at, reviewer, action, outcome, before, after, reason) in enumerate(audit):
        if outcome in (NOTED, ESTIMATED, CR_TERMS_WRITTEN, ASSIGNED):
            if gone:  # the figures, summary or assignee the audit row keeps
                out.append(((at, 2, 0, i), _standin(at, reviewer, action, reason)))
            continue  # the note, estimate, terms or assignment is its case_events row
        event = audit_event(at, reviewer, action, outcome, before, after, reason)
        out.append(((at, 2, 0, i), event))
    for i, (at, kind, actor, text, until) in enumerate(events):
        if kind == ESTIMATE:
            text = ReviewerEstimate.from_text(text, actor, at).summary()
        elif kind == CR_TERMS:
            text = CrTerms.from_text(text, actor, at).summary()
        if kind in (ASSIGN, UNASSIGN):  # the assignee: a name, not a text to quote
            event = CaseEvent(at=at, kind=kind, actor=actor, after=text)
        else:
            event = CaseEvent(at=at, kind=kind, actor=actor, text=text, until=until)
        out.append(((at, _RANK.get(kind, 2), 1, i), event))
    out.sort(key=lambda pair: pair[0])
    return [ev for _, ev in out]


def earlier_ruling(
    current: RulingRecord,
    ruling: Verdict,
    action: str,
    reviewer: str,
    reason: str,
    ruled_at: str,
    version: int,
) -> RulingRecord:
    """A ruling of ``current``'s case before ``current`` (the committed audit row of a
    lower ``version``): its own ruling, action, reviewer, reason and date, under the
    verdict of the case's frozen decision (``current.verdict``). What
    ``CaseRecord.earlier_rulings`` holds on the ORM path
    (:func:`etki.store.repository.cases.with_earlier_rulings`) and the lean one
    (:mod:`etki.store.lean_case`) alike."""
    return RulingRecord(
        case_id=current.case_id,
        ruling=ruling,
        action=action,
        reviewer=reviewer,
        reason=reason,
        ruled_at=ruled_at,
        verdict=current.verdict,
        version=version,
    )
