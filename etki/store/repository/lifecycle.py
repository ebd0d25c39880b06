"""The end of an engagement (issue 35 item 6): a project archived, unarchived or deleted,
each written to ``project_audit`` (no schema change: the state is derived from it).

* ``action`` ``archive``, ``outcome`` ``archived`` or ``unarchived``: the newest such row
  of a project is its state (:data:`etki.store.lean.ARCHIVED_SQL`, one query for SQLite
  and PostgreSQL, read by the lean path and here); ``after_json`` is ``{"reason": TEXT}``.
* ``action`` ``delete``, ``outcome`` ``deleted``: the project's rows are gone (cases and
  everything tied to them, knowledge, resolutions, remit statements, the ``projects``
  row); ``before_json`` keeps the reviewer list it had (who may still erase one of its
  cases) and ``after_json`` ``{"reason": TEXT, "cases": [ids]}`` (ids only, no client
  text). The audit log, ``project_audit`` and ``wiki_folders`` stay, and each case's
  events go to ``deleted_case_events`` (migration 0012: its history as ``etki show``
  lists it, until a KVKK erasure of the case).
* ``outcome`` ``denied``: an attempt by someone who is not an approver (``after_json``
  ``{"reason": TEXT}``, what it gave).
* ``action`` ``delete``, ``outcome`` ``refused``: an approver's deletion refused for its
  input (no reason, or one that cannot be stored): ``after_json`` ``{"reason": TEXT,
  "why": TEXT}``, nothing else changed. Only an unknown project leaves no row.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy import delete, func, insert, select, text
from sqlalchemy.orm import Session

from etki.domain import Reviewer
from etki.errors import InputError, NotFoundError, PermissionDeniedError
from etki.identity import approver_hint, current_process, is_listed_approver, reviewer_name
from etki.store.history import triaged_text
from etki.store.lean import ARCHIVED_SQL
from etki.store.models import (
    AuditRow,
    CaseEventRow,
    CaseRow,
    ClauseResolutionRow,
    ClauseRow,
    ClauseTallyRow,
    ContractRow,
    DecisionContextRow,
    DecisionRow,
    DeletedCaseEventRow,
    ModuleRow,
    PreanalysisRow,
    ProjectAuditRow,
    ProjectRow,
    RemitStatementRow,
    ReportTallyRow,
    RulingRefRow,
    RulingRow,
    WorkItemRow,
)
from etki.store.repository.base import UNSTORABLE, StoreBase, iso, storable
from etki.store.repository.rows import config_of

__all__ = ["DeletedProject", "LifecycleStore", "keep_histories"]


@dataclass(frozen=True)
class DeletedProject:
    """A deleted project as its ``delete`` audit row keeps it: id, the reviewer list it
    had, the ids of the cases it held, who deleted it, when and why (client text)."""

    project_id: str
    reviewers: tuple[Reviewer, ...]
    case_ids: tuple[str, ...]
    reviewer: str
    at: str
    reason: str


class LifecycleStore(StoreBase):
    """Archive, unarchive and delete a project (see the module docstring)."""

    def archived_project_ids(self) -> list[str]:
        """Ids of the archived projects, sorted (:data:`etki.store.lean.ARCHIVED_SQL`)."""
        with self.engine.connect() as conn:
            return [r[0] for r in conn.execute(text(ARCHIVED_SQL))]

    def _lifecycle_row(
        self, s: Session, project_id: str, action: str, outcome: str, after: dict, who: str
    ) -> ProjectAuditRow:
        row = s.get(ProjectRow, project_id)
        reviewers = config_of(row.config_json).reviewers if row is not None else ()
        return ProjectAuditRow(
            project_id=project_id,
            action=action,
            outcome=outcome,
            before_json=json.dumps(
                [{"name": r.name, "role": r.role} for r in reviewers], ensure_ascii=False
            ),
            after_json=json.dumps(after, ensure_ascii=False, sort_keys=True),
            root=row.root if row is not None else "",
            reviewer=UNSTORABLE.sub("\ufffd", who),
            at=iso(self.now(s)),
            **current_process().columns(),
        )

    def _check_actor(
        self, project_id: str, actor: str, action: str, reason: str, *, strict: bool
    ) -> tuple[str, tuple[Reviewer, ...]]:
        """The normalised ``actor`` and the project's reviewers; raises
        ``NotFoundError`` for an unknown project and, after auditing the refusal (with
        the ``reason`` it gave),
        :class:`PermissionDeniedError` for one who is not an approver (``strict``: a
        project listing no approver accepts nobody, else anybody)."""
        with self._read() as s:
            raw = s.scalar(select(ProjectRow.config_json).where(ProjectRow.id == project_id))
        if raw is None:
            raise self._no_project(project_id)
        reviewers = config_of(raw).reviewers
        who = reviewer_name(actor or "")
        listed = any(r.role == "approver" for r in reviewers)
        if is_listed_approver(reviewers, who) or (not strict and not listed):
            return who, reviewers
        with self._write() as s:
            s.add(self._lifecycle_row(s, project_id, action, "denied", {"reason": reason}, who))
        why = (
            "ask a project approver, or set ETKI_REVIEWER to your approver name"
            if listed
            else "the project lists no approver in etki.yaml; list one first"
        )
        raise PermissionDeniedError(
            f"reviewer {who!r} is not an approver of project {project_id!r} and may not "
            f"{action} it; {why}{approver_hint(reviewers, who)}. Nothing was changed"
        )

    def set_archived(self, project_id: str, archived: bool, actor: str, reason: str = "") -> bool:
        """Archive (``archived`` true) or unarchive ``project_id``, audited with ``actor``
        and the optional ``reason``. Returns False (and writes nothing) when the project
        already is in that state. Raises ``NotFoundError`` for an unknown project and
        :class:`PermissionDeniedError` when ``actor`` is not an approver (a project that
        lists no approver accepts anyone, as a ruling does)."""
        storable("the reason", reason)
        who, _ = self._check_actor(project_id, actor, "archive", reason.strip(), strict=False)
        if (project_id in self.archived_project_ids()) == archived:
            return False
        outcome = "archived" if archived else "unarchived"
        with self._write() as s:
            s.add(
                self._lifecycle_row(
                    s, project_id, "archive", outcome, {"reason": reason.strip()}, who
                )
            )
        return True

    def delete_project(self, project_id: str, actor: str, reason: str) -> DeletedProject:
        """Delete ``project_id`` in one transaction: its cases and every row tied to
        them (decisions, related-context blocks, rulings, events, pre-analyses), its
        knowledge (contracts, clauses, modules, work items), disputed-clause
        resolutions, remit statements and the ``projects`` row. The audit log,
        ``project_audit`` and ``wiki_folders`` stay, each case's events are kept in
        ``deleted_case_events`` first (:func:`keep_histories`), and a ``delete`` audit
        row is added (module docstring). ``reason`` is required. Raises ``NotFoundError`` for an
        unknown project (nothing audited), :class:`PermissionDeniedError` when ``actor``
        is not a listed approver (audited ``denied``, checked first) and
        :class:`InputError` for an empty or unstorable reason (audited ``refused``)."""
        reason = reason.strip()
        kept = UNSTORABLE.sub("\ufffd", reason)  # what a refusal audits of it
        who, reviewers = self._check_actor(project_id, actor, "delete", kept, strict=True)
        why = ""
        if not reason:
            why = "give a reason (--reason); it is kept in the audit"
        elif UNSTORABLE.search(reason):
            why = "the reason holds a NUL character or a lone surrogate: not text Etki can store"
        if why:  # a PMO sees every refused deletion of a project, not only the denied
            with self._write() as s:
                s.add(
                    self._lifecycle_row(
                        s, project_id, "delete", "refused", {"reason": kept, "why": why}, who
                    )
                )
            raise InputError(f"project delete: {why}. Nothing was changed")
        with self._write() as s:
            ids = sorted(s.scalars(select(CaseRow.id).where(CaseRow.project_id == project_id)))
            audit = self._lifecycle_row(
                s, project_id, "delete", "deleted", {"reason": reason, "cases": ids}, who
            )
            keep_histories(s, project_id)
            cases = select(CaseRow.id).where(CaseRow.project_id == project_id)
            for model in (
                DecisionContextRow,
                PreanalysisRow,
                CaseEventRow,
                RulingRefRow,
                RulingRow,
                DecisionRow,
            ):
                s.execute(delete(model).where(model.case_id.in_(cases)))
            s.execute(delete(CaseEventRow).where(CaseEventRow.project_id == project_id))
            s.execute(delete(ReportTallyRow).where(ReportTallyRow.project_id == project_id))
            s.execute(delete(ClauseTallyRow).where(ClauseTallyRow.project_id == project_id))
            s.execute(delete(CaseRow).where(CaseRow.project_id == project_id))
            for other in (
                ClauseRow,
                ContractRow,
                ModuleRow,
                WorkItemRow,
                ClauseResolutionRow,
                RemitStatementRow,
            ):
                s.execute(delete(other).where(other.project_id == project_id))
            s.execute(delete(ProjectRow).where(ProjectRow.id == project_id))
            s.add(audit)
        return DeletedProject(project_id, tuple(reviewers), tuple(ids), who, audit.at, reason)

    def deleted_projects(self) -> list[DeletedProject]:
        """Every deletion of a project, oldest first (a project loaded again after its
        deletion and deleted once more appears twice)."""
        t = ProjectAuditRow
        stmt = (
            select(t.project_id, t.before_json, t.after_json, t.reviewer, t.at)
            .where(t.action == "delete", t.outcome == "deleted")
            .order_by(t.id)
        )
        out = []
        with self.engine.connect() as conn:
            for pid, before, after, who, at in conn.execute(stmt):
                data = json.loads(after)
                out.append(
                    DeletedProject(
                        pid,
                        tuple(Reviewer(**x) for x in json.loads(before)),
                        tuple(data.get("cases", ())),
                        who,
                        at,
                        str(data.get("reason", "")),
                    )
                )
        return out

    def deleted_project_of(self, case_id: str) -> DeletedProject:
        """The newest deletion of a project that held ``case_id``. Raises
        ``NotFoundError`` when no deleted project held it."""
        for d in reversed(self.deleted_projects()):
            if case_id in d.case_ids:
                return d
        raise NotFoundError(f"no case '{case_id}'")

    def gone_case_ids_ending(self, tail: str, limit: int = 6) -> list[str]:
        """Up to ``limit`` ids of cases no longer stored, equal to ``tail`` or ending in
        ``-{tail}`` (a short id), sorted: the cases of deleted projects (their ``delete``
        rows list them, touched or not) and the cases the audit log names (an erased
        case's tombstone). What :meth:`etki.services.Desk.case_id_for` falls back to when
        no stored case ends so, so a short id reads a gone case as its whole id does
        (issue 35, a PMO trial). ``tail`` is matched literally."""
        escaped = tail.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        found = {
            cid
            for d in self.deleted_projects()
            for cid in d.case_ids
            if cid == tail or cid.endswith(f"-{tail}")
        }
        with self.engine.connect() as conn:
            stmt = (
                select(AuditRow.case_id)
                .where(
                    (AuditRow.case_id == tail) | AuditRow.case_id.like(f"%-{escaped}", escape="\\")
                )
                .distinct()
                .order_by(AuditRow.case_id)
                .limit(limit + 1)
            )
            found.update(conn.scalars(stmt))
            stored = set(conn.scalars(select(CaseRow.id).where(CaseRow.id.in_(found))))
        return sorted(found - stored)[:limit]

    def deleted_history_text(self, case_id: str) -> list[str]:
        """The texts of the events ``deleted_case_events`` keeps of ``case_id`` (notes,
        import sources, estimates, terms), oldest first, empty ones left out: what an
        erasure of the case removes with them (the words its proof searches the files
        for, as :meth:`~etki.store.repository.erasures.ErasureStore.erasable_text` gives
        those of its ``case_events``). The ``triaged`` line is the engine's words, not
        the client's or a reviewer's: left out. Empty when none is kept."""
        t = DeletedCaseEventRow
        stmt = select(t.text).where(t.case_id == case_id, t.kind != "triaged").order_by(t.id)
        with self.engine.connect() as conn:
            return [x for x in conn.scalars(stmt) if x]

    def erase_deleted_case(self, case_id: str, project_id: str, erased_by: str, reason: str) -> int:
        """The store's part of erasing a case of the deleted project ``project_id`` (its
        rows went with the project): the events ``deleted_case_events`` kept of it are
        deleted (zeroed on SQLite: ``secure_delete``), the ``reason`` of the case's
        earlier audit rows becomes ``[erased]`` and a tombstone audit row is appended as
        :meth:`~etki.store.repository.erasures.ErasureStore.erase_case` writes it
        (``before`` ``deleted``). Returns how many audit rows were redacted."""
        from etki.store.repository.erasures import tombstone

        storable("the erasure's reviewer or reason", erased_by, reason)
        with self._write() as s:
            if self.engine.dialect.name == "sqlite":
                s.execute(text("PRAGMA secure_delete = ON"))
            t = DeletedCaseEventRow
            s.execute(delete(t).where(t.case_id == case_id))
            version = s.scalar(
                select(func.max(AuditRow.version)).where(AuditRow.case_id == case_id)
            )
            redacted = tombstone(
                s,
                case_id,
                erased_by,
                reason,
                before="deleted",
                at=iso(self.clock()),
                version=version or 0,
            )
        return redacted


def keep_histories(s: Session, project_id: str) -> int:
    """Write the events of every case of ``project_id`` to ``deleted_case_events``
    (:class:`~etki.store.models.DeletedCaseEventRow`), inside the deletion's write
    session ``s``, before its rows go: per case (by id) its ``imported`` event (the
    case's ``created_at``; only when it has no ``imported`` event of its own), its
    ``triaged`` event (:func:`etki.store.history.triaged_text` of its decision) and a
    copy of each of its ``case_events`` rows in the order written, so that
    :func:`etki.store.history.merge_history` of these rows and the audit log lists what
    it listed of the stored case. Returns how many rows were written."""
    c, d, e = CaseRow, DecisionRow, CaseEventRow
    heads = s.execute(
        select(c.id, c.created_at, d.created_at, d.engine_version, d.verdict, d.confidence)
        .join(d, d.case_id == c.id)
        .where(c.project_id == project_id)
        .order_by(c.id)
    ).all()
    copied = (e.kind, e.actor, e.text, e.at, e.until, e.os_user, e.host, e.pid, e.program)
    events: dict[str, list[dict]] = {}
    for case_id, *values in s.execute(
        select(e.case_id, *copied)
        .where(e.case_id.in_(select(c.id).where(c.project_id == project_id)))
        .order_by(e.id)
    ):
        events.setdefault(case_id, []).append(
            dict(zip([col.key for col in copied], values, strict=True))
        )
    rows: list[dict] = []
    for case_id, created, decided, engine, verdict, confidence in heads:
        own = events.get(case_id, [])
        head = {"case_id": case_id, "project_id": project_id, "actor": "", "until": None}
        head |= dict.fromkeys(("os_user", "host", "pid", "program"))  # no process wrote them
        if not any(ev["kind"] == "imported" for ev in own):
            rows.append({**head, "kind": "imported", "text": "", "at": created})
        text = triaged_text(engine, verdict, confidence)
        rows.append({**head, "kind": "triaged", "text": text, "at": decided})
        rows += [{"case_id": case_id, "project_id": project_id, **ev} for ev in own]
    if rows:
        s.execute(insert(DeletedCaseEventRow), rows)
    return len(rows)
