"""The accepted remit (issue 29 item 5): contract sentences a PMO accepted as outside
the contractor's remit (``etki remit accept``), kept in ``remit_statements`` (migration
0006). The store is the source of truth: the project's stored knowledge (its clauses and
knowledge index) is rewritten from the statements in force in the same transaction as
each change, so every later triage reads them and the index hash changes with them.

Every change, and every refused attempt, is audited in ``project_audit`` as a
reviewer-list change is: action ``remit``, outcome ``accepted``, ``revoked`` or
``denied``, the statements in force before and after (``before_json``: ``{"remit":
[...]}``; ``after_json``: ``{"remit": [...], "reason": ...}``, each statement as
``{"ref", "source", "role", "text"}``), the asserted reviewer and the process identity.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import delete, func, select
from sqlalchemy import text as sql_text
from sqlalchemy.orm import Session

from etki.domain import (
    ACCEPTED_REMIT_PREFIX,
    REMIT_CONTRACT_ID,
    RemitStatement,
    ScopeClause,
)
from etki.errors import InputError
from etki.identity import current_process
from etki.store.models import (
    ClauseRow,
    ContractRow,
    ProjectAuditRow,
    ProjectRow,
    RemitStatementRow,
)
from etki.store.repository.base import UNSTORABLE, StoreBase, iso, storable
from etki.store.repository.rows import clause_row
from etki.store.summary import refresh_corrections

REMIT_REASON_CHARS = 4_000
"""Most characters of a revocation's reason (as a dispute resolution's)."""

Rebuild = Callable[[list[RemitStatement], bytes], tuple[Sequence[ScopeClause], bytes, str]]
"""What :meth:`RemitStore.change_remit` calls inside its transaction: given the
statements that will be in force and the stored knowledge index, the accepted-remit
clauses, the new index bytes and their hash (:func:`etki.remit.rebuild_for`)."""


@dataclass(frozen=True)
class RemitChange:
    """What :meth:`RemitStore.change_remit` did: the statements ``accepted`` or
    ``revoked`` by it, and the knowledge index hash before and after."""

    accepted: tuple[RemitStatement, ...]
    revoked: tuple[RemitStatement, ...]
    hash_before: str
    hash_after: str


def _statement_of(row: RemitStatementRow) -> RemitStatement:
    return RemitStatement(
        number=row.number,
        source_ref=row.source_ref,
        role=row.role,
        text=row.text,
        accepted_by=row.accepted_by,
        accepted_at=row.accepted_at,
    )


def remit_json(statements: Sequence[RemitStatement], reason: str | None = None) -> str:
    """The audit form of the statements in force (module docstring)."""
    data: dict[str, object] = {
        "remit": [
            {"ref": s.ref, "source": s.source_ref, "role": s.role, "text": s.text}
            for s in sorted(statements, key=lambda s: s.number)
        ]
    }
    if reason is not None:
        data["reason"] = reason
    return json.dumps(data, ensure_ascii=False, sort_keys=True)


class RemitStore(StoreBase):
    """Accept, revoke and read the accepted remit of a project."""

    def accepted_remit(self, project_id: str) -> list[RemitStatement]:
        """The statements of ``project_id`` in force (not revoked), by number. A
        project that is not stored has none."""
        stmt = (
            select(RemitStatementRow)
            .where(
                RemitStatementRow.project_id == project_id,
                RemitStatementRow.revoked_at.is_(None),
            )
            .order_by(RemitStatementRow.number)
        )
        with self._read() as s:
            return [_statement_of(r) for r in s.scalars(stmt)]

    def _in_force(self, s: Session, project_id: str) -> list[RemitStatementRow]:
        return list(
            s.scalars(
                select(RemitStatementRow)
                .where(
                    RemitStatementRow.project_id == project_id,
                    RemitStatementRow.revoked_at.is_(None),
                )
                .order_by(RemitStatementRow.number)
            )
        )

    def change_remit(
        self,
        project_id: str,
        *,
        accept: Sequence[tuple[str, str, str]] = (),
        revoke: Sequence[int] = (),
        reviewer: str,
        reason: str = "",
        rebuild: Rebuild,
    ) -> RemitChange:
        """Accept the sentences ``accept`` (``(source_ref, role, text)`` each, in the
        order given) or revoke the statements numbered ``revoke``, in one transaction
        with the project's row locked (two changes of one project run one after the
        other): the rows, the project's accepted-remit clauses, its contract entry and
        knowledge index (from ``rebuild``), and one ``project_audit`` row. The caller
        checks who may change it (:func:`etki.remit.change`). Raises
        :class:`InputError` (nothing stored) for a sentence already in force, a number
        not in force, a revocation without a reason, and text that cannot be stored;
        ``NotFoundError`` for an unknown project."""
        if bool(accept) == bool(revoke):
            raise InputError("a remit change accepts or revokes, one of the two")
        reason = reason.strip()
        if revoke and not reason:
            raise InputError("a revocation needs a reason (--reason): why it is in the remit")
        if len(reason) > REMIT_REASON_CHARS:
            raise InputError(
                f"the reason is {len(reason)} characters; at most {REMIT_REASON_CHARS}"
            )
        storable("the reviewer name, reason or remit text", reviewer, reason)
        for ref, role, text in accept:
            storable("the remit text", ref, role, text)
        with self._write() as s:
            project = s.execute(
                select(ProjectRow).where(ProjectRow.id == project_id).with_for_update()
            ).scalar_one_or_none()
            if project is None:
                raise self._no_project(project_id)
            now = iso(self.now(s))  # the store's time, once the project's row is locked
            rows = self._in_force(s, project_id)
            before = [_statement_of(r) for r in rows]
            held = {(r.source_ref, r.text): r for r in rows}
            accepted: list[RemitStatement] = []
            revoked: list[RemitStatement] = []
            if accept:
                top = s.scalar(
                    select(func.max(RemitStatementRow.number)).where(
                        RemitStatementRow.project_id == project_id
                    )
                )
                number = int(top or 0)
                for ref, role, text in accept:
                    if (ref, text) in held:
                        raise InputError(
                            f"the sentence of {ref} “{text[:60]}” is already accepted "
                            f"({_statement_of(held[(ref, text)]).ref}); nothing was stored"
                        )
                    number += 1
                    row = RemitStatementRow(
                        project_id=project_id,
                        number=number,
                        source_ref=ref,
                        role=role,
                        text=text,
                        accepted_by=reviewer,
                        accepted_at=now,
                    )
                    s.add(row)
                    held[(ref, text)] = row
                    accepted.append(_statement_of(row))
            by_number = {r.number: r for r in rows}
            for n in revoke:
                gone = by_number.get(n)
                if gone is None:
                    raise InputError(
                        f"no accepted remit statement {n} in project '{project_id}' "
                        "(see `etki remit list`); nothing was stored"
                    )
                gone.revoked_by, gone.revoked_at, gone.revoked_reason = reviewer, now, reason
                revoked.append(_statement_of(gone))
            s.flush()
            after = [_statement_of(r) for r in self._in_force(s, project_id)]
            clauses, index_bytes, index_hash = rebuild(after, project.index_json.encode("utf-8"))
            hash_before = project.index_hash
            self._write_remit_clauses(s, project_id, clauses)
            project.index_json = index_bytes.decode("utf-8")
            project.index_hash = index_hash
            s.add(
                self._remit_audit_row(
                    project,
                    "accepted" if accept else "revoked",
                    before,
                    after,
                    reviewer,
                    reason,
                    now,
                )
            )
        return RemitChange(tuple(accepted), tuple(revoked), hash_before, index_hash)

    @staticmethod
    def _write_remit_clauses(s: Session, project_id: str, clauses: Sequence[ScopeClause]) -> None:
        """Replace the project's accepted-remit clause rows by ``clauses`` (after every
        other clause) and keep the ``etki.yaml`` contract row only while it has a clause."""
        s.execute(
            delete(ClauseRow).where(
                ClauseRow.project_id == project_id,
                ClauseRow.contract_id == REMIT_CONTRACT_ID,
                ClauseRow.number.startswith(ACCEPTED_REMIT_PREFIX),
            )
        )
        s.flush()
        top = s.scalar(
            select(func.max(ClauseRow.position)).where(ClauseRow.project_id == project_id)
        )
        position = -1 if top is None else int(top)
        for c in clauses:
            position += 1
            s.add(clause_row(project_id, c, position))
        s.flush()
        # overrides' corrections kept against the refs before this change (issue 32)
        refresh_corrections(lambda sql, params: s.execute(sql_text(sql), params), project_id)
        remaining = s.scalar(
            select(func.count())
            .select_from(ClauseRow)
            .where(ClauseRow.project_id == project_id, ClauseRow.contract_id == REMIT_CONTRACT_ID)
        )
        contract = s.get(ContractRow, (project_id, REMIT_CONTRACT_ID))
        if remaining and contract is None:
            top = s.scalar(
                select(func.max(ContractRow.position)).where(ContractRow.project_id == project_id)
            )
            s.add(
                ContractRow(
                    project_id=project_id,
                    id=REMIT_CONTRACT_ID,
                    title="Declared remit",
                    source="etki.yaml",
                    chunking="declared",
                    position=0 if top is None else int(top) + 1,
                )
            )
        elif not remaining and contract is not None:
            s.delete(contract)

    def _remit_audit_row(
        self,
        project: ProjectRow,
        outcome: str,
        before: Sequence[RemitStatement],
        after: Sequence[RemitStatement],
        reviewer: str,
        reason: str,
        at: str,
    ) -> ProjectAuditRow:
        return ProjectAuditRow(
            project_id=project.id,
            action="remit",
            outcome=outcome,
            before_json=remit_json(before),
            after_json=remit_json(after, reason),
            root=project.root,
            reviewer=UNSTORABLE.sub("\ufffd", reviewer),
            at=at,
            **current_process().columns(),
        )

    def audit_remit_denied(self, project_id: str, reviewer: str, asked: str) -> None:
        """Append the ``project_audit`` row of a refused remit change (action ``remit``,
        outcome ``denied``; the statements before and after are those in force: nothing
        changed; ``asked`` as the reason: what was tried, ``accept 1, 3``). NUL and lone
        surrogates in the name are stored as U+FFFD: a refusal is always audited."""
        with self._write() as s:
            project = s.get(ProjectRow, project_id)
            if project is None:
                raise self._no_project(project_id)
            now = [_statement_of(r) for r in self._in_force(s, project_id)]
            s.add(
                self._remit_audit_row(
                    project,
                    "denied",
                    now,
                    now,
                    reviewer,
                    UNSTORABLE.sub("\ufffd", asked),
                    iso(self.now(s)),
                )
            )
