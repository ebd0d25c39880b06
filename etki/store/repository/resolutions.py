"""The resolutions of disputed clauses (issue 14 item 6): a person's word on what a
disputed clause calls for, kept in ``clause_resolutions`` (migration 0005), append-only.

The newest row of a ``(project_id, clause_ref)`` is the one in force
(:func:`etki.memory.resolutions_in_force`); earlier ones stay as the history. Each row
carries the asserted reviewer and the process that wrote it (OS user, host, pid,
program: :func:`etki.identity.current_process`), like every audit row. A refused
attempt (not an approver) is audited in ``project_audit`` (action ``dispute``, outcome
``denied``: :meth:`ResolutionStore.audit_resolution_denied`).
"""

from __future__ import annotations

from sqlalchemy import func, select

from etki.domain import VERDICTS, ClauseResolution
from etki.errors import InputError, NotFoundError, ResolutionConflictError
from etki.identity import current_process
from etki.store.models import ClauseResolutionRow, ProjectAuditRow, ProjectRow
from etki.store.repository.base import UNSTORABLE, StoreBase, iso, storable
from etki.store.repository.projects import _reviewer_set, _reviewers_json
from etki.store.repository.rows import config_of

RESOLUTION_REASON_CHARS = 4_000
"""Most characters a resolution's reason may have: a sentence or a paragraph, not a
document (the wiki shows it on ``disputed.md`` and on the contract page)."""


def _resolution_of(row: ClauseResolutionRow) -> ClauseResolution:
    return ClauseResolution(
        id=row.id,
        project_id=row.project_id,
        ref=row.clause_ref,
        verdict=row.verdict,  # type: ignore[arg-type]  # a VERDICTS value, checked on write
        reason=row.text,
        reviewer=row.reviewer,
        at=row.at,
    )


class ResolutionStore(StoreBase):
    """Record and read resolutions of disputed clauses."""

    def record_resolution(
        self,
        project_id: str,
        clause_ref: str,
        verdict: str,
        reason: str,
        reviewer: str,
        *,
        expected_id: int | None = None,
    ) -> ClauseResolution:
        """Append a resolution of ``clause_ref`` in ``project_id`` and return it (its
        ``at`` from the repository's clock). ``verdict`` is a ruling (IN_SCOPE,
        CHANGE_REQUEST, REJECT); ``reason`` is required (stripped, at most
        :data:`RESOLUTION_REASON_CHARS` characters). The caller checks who may resolve
        and whether the clause is disputed (:func:`etki.approval.resolve_dispute`).

        Optimistic locking, as rulings have it: ``expected_id`` is the id of the
        clause's resolution in force that the PMO saw (0: none); when another one was
        recorded since, :class:`~etki.errors.ResolutionConflictError` names it and
        nothing is stored (None: no check). The project's row is locked for the
        transaction (``BEGIN IMMEDIATE`` on SQLite, ``FOR UPDATE`` on PostgreSQL), so
        two resolutions of one project are recorded one after the other.
        Raises :class:`InputError` (bad verdict, empty or too long reason, text that
        cannot be stored) and :class:`NotFoundError` (unknown project)."""
        if verdict not in VERDICTS:
            raise InputError(f"unknown verdict '{verdict}'; use one of {', '.join(VERDICTS)}")
        reason = reason.strip()
        if not reason:
            raise InputError("a resolution needs a reason (--reason): what the clause covers")
        if len(reason) > RESOLUTION_REASON_CHARS:
            raise InputError(
                f"the reason is {len(reason)} characters; at most {RESOLUTION_REASON_CHARS}"
            )
        storable("the clause ref, reviewer name or reason", clause_ref, reviewer, reason)
        with self._write() as s:
            locked = s.execute(
                select(ProjectRow.id).where(ProjectRow.id == project_id).with_for_update()
            ).first()
            if locked is None:
                raise NotFoundError(f"no project '{project_id}' in the store")
            now = iso(self.now(s))  # the store's time, once the project's row is locked
            if expected_id is not None:
                newest = s.scalars(
                    select(ClauseResolutionRow)
                    .where(
                        ClauseResolutionRow.project_id == project_id,
                        ClauseResolutionRow.clause_ref == clause_ref,
                    )
                    .order_by(ClauseResolutionRow.id.desc())
                    .limit(1)
                ).first()
                if (newest.id if newest is not None else 0) != expected_id:
                    assert newest is not None  # a newer id than the one seen exists
                    raise ResolutionConflictError(
                        clause_ref, newest.reviewer, newest.at, newest.verdict
                    )
            row = ClauseResolutionRow(
                project_id=project_id,
                clause_ref=clause_ref,
                verdict=verdict,
                text=reason,
                reviewer=reviewer,
                at=now,
                **current_process().columns(),
            )
            s.add(row)
            s.flush()
            return _resolution_of(row)

    def clause_resolutions(self, project_id: str) -> list[ClauseResolution]:
        """Every resolution of ``project_id``, oldest first (by id): the history; the
        last of each clause is in force."""
        stmt = (
            select(ClauseResolutionRow)
            .where(ClauseResolutionRow.project_id == project_id)
            .order_by(ClauseResolutionRow.id)
        )
        with self._read() as s:
            return [_resolution_of(r) for r in s.scalars(stmt)]

    def resolution_count(self, project_id: str) -> int:
        """How many resolutions ``project_id`` has (append-only: a new one changes it)."""
        with self._read() as s:
            n = s.scalar(
                select(func.count())
                .select_from(ClauseResolutionRow)
                .where(ClauseResolutionRow.project_id == project_id)
            )
        return int(n or 0)

    def audit_resolution_denied(self, project_id: str, reviewer: str) -> None:
        """Append the ``project_audit`` row of a refused resolution (action ``dispute``,
        outcome ``denied``; the reviewer list before and after is the stored one: nothing
        changed), with the asserted reviewer and the process identity. NUL and lone
        surrogates in the name are stored as U+FFFD: a refusal is always audited."""
        with self._write() as s:
            project = s.get(ProjectRow, project_id)
            if project is None:
                raise NotFoundError(f"no project '{project_id}' in the store")
            listed = _reviewers_json(_reviewer_set(config_of(project.config_json).reviewers))
            s.add(
                ProjectAuditRow(
                    project_id=project_id,
                    action="dispute",
                    outcome="denied",
                    before_json=listed,
                    after_json=listed,
                    root=project.root,
                    reviewer=UNSTORABLE.sub("\ufffd", reviewer),
                    at=iso(self.now(s)),
                    **current_process().columns(),
                )
            )
