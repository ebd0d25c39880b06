"""The case part of the store: cases stored with their frozen decisions, read back in
the three shapes of :mod:`etki.domain` (full record, queue row; the wiki's brief is
:mod:`etki.store.repository.wikiread`'s), rulings and the ruling audit log.

A decision is written once with its case and never updated. A ruling uses optimistic
locking on ``cases.version``: it commits only if the version read is still current, else
:class:`etki.errors.ConflictError` names who ruled and when (shared/cases/B16); the row
keeps the first ruling. Every audit row carries the asserted reviewer and the process
that wrote it (OS user, host, pid, program: :func:`etki.identity.current_process`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace

from sqlalchemy import Connection, case, delete, func, insert, null, select, text, update
from sqlalchemy.orm import Session

from etki.domain import (
    ACTIONS,
    DECIDING,
    CaseRecord,
    CaseSummary,
    Decision,
    Request,
    Risk,
    RulingRecord,
)
from etki.errors import CaseErasedError, ConflictError, InputError, NotFoundError
from etki.identity import current_process
from etki.store.history import earlier_ruling
from etki.store.models import (
    AuditRow,
    CaseEventRow,
    CaseRow,
    ClauseRow,
    DecisionContextRow,
    DecisionRow,
    ProjectRow,
    RulingRefRow,
    RulingRow,
)
from etki.store.repository.base import UNSTORABLE, StoreBase, iso, rowcount, storable
from etki.store.repository.erasures import ERASED
from etki.store.repository.events import with_notes
from etki.store.repository.rows import (
    ARRIVAL,
    RULING_COLUMNS,
    case_of,
    case_select,
    decision_summary,
    ruling_of,
    summary_of_members,
    title_of,
)
from etki.store.summary import (
    CORRECTION_NONE,
    about_flag,
    clause_tally,
    correction_columns,
    ref_rows,
    summary_columns,
    tally,
)


@dataclass(frozen=True)
class AuditEntry:
    """One row of the ruling audit log (:class:`etki.store.models.AuditRow`), oldest
    first by ``id``: the asserted ``reviewer`` and, beside it, the writing process's
    ``os_user``, ``host``, ``pid`` and ``program`` (None on rows written before
    migration 0004). ``reason`` is client-typed text: untrusted."""

    id: int
    case_id: str
    reviewer: str
    action: str
    ruling: str
    reason: str
    at: str
    version: int
    outcome: str
    before: str
    after: str
    os_user: str | None
    host: str | None
    pid: int | None
    program: str | None


def with_earlier_rulings(conn: Connection, records: list[CaseRecord]) -> list[CaseRecord]:
    """``records`` with :attr:`~etki.domain.CaseRecord.earlier_rulings` filled from the
    audit log: the ``committed`` rows of each amended case below its ruling's version,
    oldest first. Only cases whose ruling is past version 2 can have been amended (a
    case is stored at version 1 and its first ruling makes it 2), so a store without
    amendments pays no query; the others are read in one query per 500 ids."""
    amended = [r for r in records if r.ruling is not None and r.ruling.version > 2]
    if not amended:
        return records
    a = AuditRow.__table__.c
    earlier: dict[str, list[RulingRecord]] = {}
    by_id = {r.case_id: r for r in amended}
    ids = list(by_id)
    for at in range(0, len(ids), 500):  # bounded IN lists
        stmt = (
            select(a.case_id, a.after, a.action, a.reviewer, a.reason, a.at, a.version)
            .where(a.case_id.in_(ids[at : at + 500]), a.outcome == "committed")
            .order_by(a.id)
        )
        for case_id, after, action, reviewer, reason, when, version in conn.execute(stmt):
            current = by_id[case_id].ruling
            assert current is not None
            if version >= current.version:
                continue  # the ruling in force (or a row newer than the one read)
            earlier.setdefault(case_id, []).append(
                earlier_ruling(current, after, action, reviewer, reason, when, version)
            )
    return [
        replace(r, earlier_rulings=tuple(earlier[r.case_id])) if r.case_id in earlier else r
        for r in records
    ]


class CaseStore(StoreBase):
    """Cases and their rulings: store new cases, read them (full records or queue
    rows), rule with optimistic locking, and the ruling audit log."""

    def add_cases(
        self,
        project_id: str,
        items: Iterable[tuple[Request, Decision]],
        contexts: Mapping[str, str] | None = None,
    ) -> int:
        """:meth:`store_new_cases`, returning how many cases were new."""
        return len(self.store_new_cases(project_id, items, contexts))

    def store_new_cases(
        self,
        project_id: str,
        items: Iterable[tuple[Request, Decision]],
        contexts: Mapping[str, str] | None = None,
        *,
        source: str | None = None,
        actor: str = "",
    ) -> list[str]:
        """Store new cases with their decisions in one transaction; cases whose id, or
        whose request id, is already stored are left untouched (a decision is never
        updated). ``contexts`` maps case id -> related-context JSON text, stored with
        the new decision (written once; never read by the engine). ``source`` (not
        None): each new case also gets an ``imported`` event naming it, with ``actor``
        (who stored it), in the same transaction (the case history). Returns the ids of
        the cases this call stored, in the order given. Safe to run from several
        processes at once: the transaction first locks the project's row (``FOR
        UPDATE`` on PostgreSQL; ``BEGIN IMMEDIATE`` already serialises writers on
        SQLite), so the stored ids are read after any concurrent insert of the same
        cases committed, and each case is stored by exactly one caller. Raises
        :class:`NotFoundError` for a project that was never saved."""
        added: list[str] = []
        with self._write() as s:
            if (
                s.execute(
                    select(ProjectRow.id).where(ProjectRow.id == project_id).with_for_update()
                ).first()
                is None
            ):
                raise NotFoundError(f"no project '{project_id}' in the store")
            now = iso(self.now(s))  # the store's time, once the project's row is locked
            stored = s.execute(
                select(CaseRow.id, CaseRow.request_id).where(CaseRow.project_id == project_id)
            ).all()
            existing = {case_id for case_id, _ in stored}
            requests = {request_id for _, request_id in stored}
            existing |= set(
                s.scalars(
                    select(AuditRow.case_id).where(  # erased: never stored again
                        AuditRow.outcome == ERASED
                    )
                )
            )
            seq = (
                s.scalar(select(func.max(CaseRow.seq)).where(CaseRow.project_id == project_id)) or 0
            )
            rows: dict[type, list[dict[str, object]]] = {
                CaseRow: [],
                DecisionRow: [],
                CaseEventRow: [],
                DecisionContextRow: [],
            }
            for request, decision in items:
                if decision.case_id in existing or request.id in requests:
                    continue
                storable(
                    f"request {request.id!r}",
                    request.id,
                    request.title,
                    request.text,
                    request.submitted_by,
                    request.submitted_at,
                    request.labels_json,
                )
                existing.add(decision.case_id)
                requests.add(request.id)
                seq += 1
                rows[CaseRow].append(
                    {
                        "id": decision.case_id,
                        "project_id": project_id,
                        "request_id": request.id,
                        "title": title_of(request),
                        "text": request.text,
                        "submitted_by": request.submitted_by,
                        "submitted_at": request.submitted_at,
                        "labels_json": request.labels_json,
                        "created_at": now,
                        "status": "pending",
                        "version": 1,
                        "seq": seq,
                    }
                )
                rows[DecisionRow].append(
                    {
                        "case_id": decision.case_id,
                        "verdict": decision.verdict,
                        "confidence": decision.confidence,
                        "engine_version": decision.engine_version,
                        "decision_json": decision.to_json(),
                        "created_at": now,
                    }
                )
                if source is not None:
                    rows[CaseEventRow].append(
                        dict(
                            case_id=decision.case_id,
                            project_id=project_id,
                            kind="imported",
                            actor=actor,
                            text=source,
                            at=now,
                            **current_process().columns(),
                        )
                    )
                context = (contexts or {}).get(decision.case_id)
                if context is not None:
                    rows[DecisionContextRow].append(
                        {"case_id": decision.case_id, "context_json": context, "created_at": now}
                    )
                added.append(decision.case_id)
            # one multi-row INSERT per table, cases first (the others refer to them),
            # each in the order given: the same rows as adding them one by one
            for model, values in rows.items():
                if values:
                    s.execute(insert(model), values)
        return added

    def decision_context(self, case_id: str) -> str | None:
        """The related-context JSON text stored with the case's decision, or None (a case
        stored without one)."""
        with self._read() as s:
            row = s.get(DecisionContextRow, case_id)
        return row.context_json if row is not None else None

    def cases(
        self,
        project_id: str | None = None,
        *,
        status: str | None = None,
    ) -> list[CaseRecord]:
        """Full records of the cases of ``project_id`` (all projects when None),
        optionally only ``pending`` or ``ruled``, in arrival order (creation time, then
        the order they were added)."""
        stmt = case_select()
        if project_id is not None:
            stmt = stmt.where(CaseRow.project_id == project_id)
        if status is not None:
            stmt = stmt.where(CaseRow.status == status)
        with self.engine.connect() as conn:  # Core rows: no ORM bookkeeping per row
            rows = conn.execute(stmt.order_by(*ARRIVAL)).all()
            records = with_earlier_rulings(conn, [case_of(*r) for r in rows])
            return with_notes(conn, records, project_id)

    def case(self, case_id: str) -> CaseRecord:
        """The full record of one case. Raises :class:`NotFoundError` naming the id."""
        with self.engine.connect() as conn:
            row = conn.execute(case_select().where(CaseRow.id == case_id)).first()
            if row is None:
                raise NotFoundError(f"no case '{case_id}' in the store")
            return with_notes(conn, with_earlier_rulings(conn, [case_of(*row)]))[0]

    def case_ids_ending(self, tail: str, limit: int = 6) -> list[str]:
        """Up to ``limit`` stored case ids equal to ``tail`` or ending in ``-{tail}``
        (the short id the desk shows: ``9f639c5f`` of ``req-tdrs-9f639c5f``), sorted.
        ``tail`` is matched literally (``%`` and ``_`` are no wildcards)."""
        escaped = tail.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        with self.engine.connect() as conn:
            stmt = (
                select(CaseRow.id)
                .where((CaseRow.id == tail) | CaseRow.id.like(f"%-{escaped}", escape="\\"))
                .order_by(CaseRow.id)
                .limit(limit)
            )
            return list(conn.scalars(stmt))

    def cases_by_id(self, case_ids: Iterable[str]) -> list[CaseRecord]:
        """The full records of the stored cases among ``case_ids``, in the order asked
        (repeats once; ids not stored, e.g. erased, are left out), read in one query per
        500 ids."""
        wanted = list(dict.fromkeys(case_ids))
        found: dict[str, CaseRecord] = {}
        with self.engine.connect() as conn:
            for at in range(0, len(wanted), 500):  # bounded IN lists
                stmt = case_select().where(CaseRow.id.in_(wanted[at : at + 500]))
                for row in conn.execute(stmt):
                    record = case_of(*row)
                    found[record.case_id] = record
            records = with_earlier_rulings(conn, [found[k] for k in wanted if k in found])
            records = with_notes(conn, records)
        return records

    def case_summaries(self, project_id: str, *, status: str | None = None) -> list[CaseSummary]:
        """Cases of ``project_id`` as light queue rows, :class:`CaseSummary` (optionally
        only ``pending`` or ``ruled``), in the order of :meth:`cases`: one query of the
        listed columns, and of each decision only its cited clauses, risk and sureness. For queues
        of many cases; :meth:`case` reads one whole record."""
        # SQLite decodes the two members itself (JSON1 is built in): 17 MB of decision
        # text stay in the database at 10,000 cases; elsewhere they are cut out here
        in_db = self.engine.dialect.name == "sqlite"
        # the decisive clause (etki.domain.evidence owns the marker)
        where = func.instr(DecisionRow.decision_json, DECIDING)
        decision_cols = (
            (
                func.json_extract(DecisionRow.decision_json, "$.cited_clauses"),
                func.json_extract(DecisionRow.decision_json, "$.risk"),
                case(
                    (where > 0, func.substr(DecisionRow.decision_json, where, 320)),
                    else_=None,
                ),
                # 1 or 0; NULL for an engine before 3.0.0, which did not say (not sure)
                func.json_extract(DecisionRow.decision_json, "$.sure"),
                func.json_extract(DecisionRow.decision_json, "$.impacted_modules"),
            )
            if in_db
            else (DecisionRow.decision_json, null(), null(), null(), null())  # cut out here
        )
        stmt = (
            select(
                CaseRow.id,
                CaseRow.request_id,
                CaseRow.title,
                CaseRow.text,
                CaseRow.submitted_by,
                CaseRow.submitted_at,
                CaseRow.created_at,
                CaseRow.version,
                DecisionRow.verdict,
                DecisionRow.confidence,
                *decision_cols,
                *RULING_COLUMNS,
            )
            .join(DecisionRow, DecisionRow.case_id == CaseRow.id)
            .outerjoin(RulingRow, RulingRow.case_id == CaseRow.id)
            .where(CaseRow.project_id == project_id)
        )
        if status is not None:
            stmt = stmt.where(CaseRow.status == status)
        stmt = stmt.order_by(*ARRIVAL)
        with self.engine.connect() as conn:  # Core rows: no ORM bookkeeping per row
            rows = conn.execute(stmt).all()
        risks: dict[tuple[object, ...], Risk] = {}
        out: list[CaseSummary] = []
        for (
            case_id,
            request_id,
            title,
            text_,
            submitted_by,
            submitted_at,
            created_at,
            version,
            verdict,
            confidence,
            refs_json,
            risk_json,
            deciding_text,
            sure,
            modules_json,
            *ruling_columns,
        ) in rows:
            out.append(
                CaseSummary(
                    case_id=case_id,
                    project_id=project_id,
                    request_id=request_id,
                    title=title,
                    text=text_,
                    submitted_by=submitted_by,
                    submitted_at=submitted_at,
                    created_at=created_at,
                    version=version,
                    decision=(
                        summary_of_members(
                            refs_json,
                            risk_json,
                            verdict,
                            confidence,
                            risks,
                            deciding_text,
                            sure,
                            modules_json,
                        )
                        if in_db
                        else decision_summary(refs_json, verdict, confidence, risks)
                    ),
                    ruling=ruling_of(case_id, verdict, *ruling_columns),
                )
            )
        return out

    def versions(self, project_id: str) -> dict[str, int]:
        """case_id -> version for a project: a cheap poll to see what changed."""
        with self._read() as s:
            # .all(): dict() of a Result would index it by its keys() (SQLAlchemy 2.1)
            return dict(
                s.execute(
                    select(CaseRow.id, CaseRow.version).where(CaseRow.project_id == project_id)
                ).all()
            )

    # --- rulings -------------------------------------------------------------------------

    def record_ruling(
        self,
        case_id: str,
        action: str,
        reviewer: str,
        reason: str,
        *,
        expected_version: int | None = None,
        amend: bool = False,
    ) -> RulingRecord:
        """Commit a ruling with optimistic locking.

        ``action`` is approve | convert_to_cr | reject. ``expected_version`` is the case
        version the reviewer saw (None: the version read now). Raises
        :class:`ConflictError` when the case was ruled or changed since,
        :class:`NotFoundError` for an unknown case, :class:`CaseErasedError` for one
        erased (or being erased: the case row is locked first, so the ruling waits for
        the erasure; nothing is written, not even an audit row), :class:`InputError` for
        a bad action.

        ``amend``: the case is ruled and this ruling replaces its ruling (issue 14 item
        2). The ``rulings`` row then holds the new ruling; the earlier one stays in the
        audit log, whose new ``committed`` row has ``before`` = the earlier ruling and
        ``after`` = the new one (:meth:`ruling_history` reads them back). The version
        still has to be the one the reviewer saw (``ConflictError`` otherwise: someone
        else ruled or amended meanwhile); amending a pending case raises
        :class:`InputError` (rule it instead).
        """
        if action not in ACTIONS:
            raise InputError(f"unknown action '{action}'; use one of {', '.join(ACTIONS)}")
        storable("the reviewer name or reason", reviewer, reason)
        ruling = ACTIONS[action]
        try:
            with self._write() as s:
                case = self.lock_case(s, case_id)  # an erasure holding it: refused after
                seen = case.version if expected_version is None else expected_version
                current = s.get(RulingRow, case_id)
                if amend and current is None:
                    raise InputError(
                        f"case {case_id} is pending, there is no ruling to amend: rule it "
                        "instead (without --amend)"
                    )
                if current is not None and not amend:  # a ruling stands: amend it instead
                    raise self._conflict(case_id, current)
                if case.version != seen:  # changed (ruled, amended) since it was read
                    raise self._conflict(case_id, current, case.version, seen)
                before = current.ruling if current is not None else "pending"
                done = s.execute(
                    update(CaseRow)
                    .where(CaseRow.id == case_id, CaseRow.version == seen)
                    .values(status="ruled", version=seen + 1)
                )
                if rowcount(done) != 1:  # another writer got there between read and update
                    s.expire_all()
                    now_at = s.scalar(select(CaseRow.version).where(CaseRow.id == case_id))
                    latest = s.get(RulingRow, case_id)
                    if latest is not None and not amend:
                        raise self._conflict(case_id, latest)
                    raise self._conflict(case_id, latest, now_at, seen)
                verdict, decision_json = s.execute(
                    select(DecisionRow.verdict, DecisionRow.decision_json).where(
                        DecisionRow.case_id == case_id
                    )
                ).one()
                # the decision's summary the list of disputed clauses and the report
                # read (issue 32: migrations 0008, 0009)
                summary = summary_columns(decision_json)
                # the store's time, taken once the case's row is updated (locked on
                # PostgreSQL): rulings of a case are ordered as they commit, whatever
                # the writers' clocks say (issue 30 item 6)
                now = iso(self.now(s))
                fields = {
                    "ruling": ruling,
                    "action": action,
                    "reviewer": reviewer,
                    "reason": reason,
                    "ruled_at": now,
                    "version": seen + 1,
                    **summary,
                }
                # the engine's verdict and the project beside the ruling (0010)
                fields["verdict"] = verdict
                fields["project_id"] = case.project_id
                # an override's correction, against the project's refs now (0011)
                fields.update(
                    CORRECTION_NONE
                    if ruling == verdict
                    else correction_columns(
                        summary["cited_refs"],  # type: ignore[arg-type]
                        reason,
                        summary["deciding_text"],  # type: ignore[arg-type]
                        self._clause_refs(s, case.project_id),
                    )
                )
                # the report's counts per day, reviewer, verdict and ruling (0010)
                execute = _executor(s)
                if current is None:
                    s.add(RulingRow(case_id=case_id, **fields))
                else:  # an amendment: the row holds the latest, the audit every one
                    tally(
                        execute,
                        case.project_id,
                        current.ruled_at,
                        current.reviewer,
                        verdict,
                        current.ruling,
                        -1,
                    )
                    # the per-clause counts lose the ruling it replaces (0013)
                    clause_tally(
                        execute,
                        case.project_id,
                        summary["cited_refs"],  # type: ignore[arg-type]
                        current.reason,
                        summary["deciding_ref"],  # type: ignore[arg-type]
                        current.ruling,
                        -1,
                    )
                    for key, value in fields.items():
                        setattr(current, key, value)
                    s.execute(delete(RulingRefRow).where(RulingRefRow.case_id == case_id))
                tally(execute, case.project_id, now, reviewer, verdict, ruling, 1)
                # the per-clause counts of rulings citing and about each clause (0013)
                clause_tally(
                    execute,
                    case.project_id,
                    summary["cited_refs"],  # type: ignore[arg-type]
                    reason,
                    summary["deciding_ref"],  # type: ignore[arg-type]
                    ruling,
                    1,
                )
                # the cited clauses a row each, which the report counts in SQL (0010)
                s.add_all(
                    RulingRefRow(
                        case_id=case_id,
                        ref=ref,
                        project_id=case.project_id,
                        ruling=ruling,
                        reviewer=reviewer,
                        ruled_at=now,
                        about=about_flag(ref, reason, summary["deciding_ref"]),  # type: ignore[arg-type]
                    )
                    for ref in ref_rows(summary["cited_refs"])  # type: ignore[arg-type]
                )
                s.add(
                    AuditRow(
                        case_id=case_id,
                        reviewer=reviewer,
                        action=action,
                        ruling=ruling,
                        reason=reason,
                        at=now,
                        version=seen + 1,
                        outcome="committed",
                        before=before,
                        after=ruling,
                        **current_process().columns(),
                    )
                )
        except ConflictError as exc:
            self.audit_attempt(
                case_id, reviewer, action, reason, "conflict", before=exc.ruling or "pending"
            )
            raise
        return RulingRecord(
            case_id=case_id,
            ruling=ruling,  # type: ignore[arg-type]  # an ACTIONS value, checked by the caller
            action=action,
            reviewer=reviewer,
            reason=reason,
            ruled_at=now,
            verdict=verdict,  # type: ignore[arg-type]  # the stored decision's verdict
            version=seen + 1,
        )

    @staticmethod
    def _clause_refs(s: Session, project_id: str) -> tuple[str, ...]:
        """The project's clause refs in document order (what an override's correction
        is computed against, :func:`etki.store.summary.correction_columns`)."""
        return tuple(
            s.scalars(
                select(ClauseRow.ref)
                .where(ClauseRow.project_id == project_id)
                .order_by(ClauseRow.position)
            )
        )

    def audit_attempt(
        self,
        case_id: str,
        reviewer: str,
        action: str,
        reason: str,
        outcome: str,
        *,
        before: str = "pending",
    ) -> None:
        """Append an audit row for an attempt that did not commit (``conflict`` or
        ``denied``); the case is unchanged, so ``after`` equals ``before``. NUL and lone
        surrogates in the reviewer or reason are stored as U+FFFD: an attempt is always
        audited, unless the case was erased (or is being erased: the case row is locked
        first, :meth:`lock_case`): then :class:`CaseErasedError` is raised and nothing
        is written, since the attempt's reason would outlive the erasure."""
        reviewer, reason = (UNSTORABLE.sub("\ufffd", v) for v in (reviewer, reason))
        with self._write() as s:
            try:
                version = self.lock_case(s, case_id).version
            except CaseErasedError:
                raise  # its reason would outlive the erasure: nothing is written
            except NotFoundError:
                version = 0  # never stored: the attempt is audited all the same
            s.add(
                AuditRow(
                    case_id=case_id,
                    reviewer=reviewer,
                    action=action,
                    ruling=ACTIONS.get(action, action),
                    reason=reason,
                    at=iso(self.now(s)),
                    version=version,
                    outcome=outcome,
                    before=before,
                    after=before,
                    **current_process().columns(),
                )
            )

    def _conflict(
        self,
        case_id: str,
        current: RulingRow | None,
        version: int | None = None,
        seen: int | None = None,
    ) -> ConflictError:
        """The conflict to raise: who ruled (``current``, None while pending) and, when
        the versions were the cause, the case's ``version`` now and the one ``seen``."""
        if current is None:
            return ConflictError(case_id, version=version, seen=seen)
        return ConflictError(
            case_id,
            current.reviewer,
            current.ruled_at,
            current.ruling,
            version=version,
            seen=seen,
        )

    def audit_log(
        self,
        case_id: str | None = None,
    ) -> list[tuple[str, str, str, str, str, int, str]]:
        """Audit rows (case_id, reviewer, action, ruling, at, version, outcome), oldest
        first."""
        stmt = select(
            AuditRow.case_id,
            AuditRow.reviewer,
            AuditRow.action,
            AuditRow.ruling,
            AuditRow.at,
            AuditRow.version,
            AuditRow.outcome,
        ).order_by(AuditRow.id)
        if case_id is not None:
            stmt = stmt.where(AuditRow.case_id == case_id)
        with self._read() as s:
            return [tuple(r) for r in s.execute(stmt).all()]  # type: ignore[misc]

    def audit_entries(self, case_id: str | None = None) -> list[AuditEntry]:
        """Every audit row (of ``case_id`` when given) as :class:`AuditEntry`, oldest
        first: the asserted reviewer with the OS user, host, pid and program beside it."""
        cols = list(AuditRow.__table__.c)
        stmt = select(*cols).order_by(AuditRow.__table__.c.id)
        if case_id is not None:
            stmt = stmt.where(AuditRow.__table__.c.case_id == case_id)
        with self.engine.connect() as conn:
            return [AuditEntry(**dict(r._mapping)) for r in conn.execute(stmt)]


def _executor(s: Session) -> Callable[[str, dict[str, object]], object]:
    """``execute(sql, params)`` of raw SQL in the session ``s`` (its transaction)."""
    return lambda sql, params: s.execute(text(sql), params)
