"""``CaseFileRepository``: every read and write of the store goes through here.

Shapes: projects, clauses, modules and work items go in as the loader's
:class:`etki.domain.Project` and come out the same way; cases come out as
:class:`etki.domain.CaseRecord` (request + frozen decision + ruling).

Rules kept here:

* a decision is written once with its case and never updated;
* a ruling uses optimistic locking on ``cases.version``: it commits only if the version
  read is still current, else :class:`etki.errors.ConflictError` names who ruled and when
  (shared/cases/B16); the row keeps the first ruling;
* re-loading a project replaces its knowledge (clauses, modules, work items) and keeps
  its cases, decisions and rulings.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Engine, delete, func, select, text, update
from sqlalchemy.orm import Session

from etki.domain import (
    ACTIONS,
    CaseRecord,
    Contract,
    Decision,
    Edge,
    Module,
    Project,
    ProjectConfig,
    Request,
    Reviewer,
    RulingRecord,
    ScopeClause,
    WorkItem,
)
from etki.errors import ConflictError, InputError, NotFoundError
from etki.frontmatter import unstorable_path
from etki.store.db import make_engine
from etki.store.migrate import ensure_schema
from etki.store.models import (
    SCHEMA_VERSION,
    AuditRow,
    CaseRow,
    ClauseRow,
    ContractRow,
    DecisionContextRow,
    DecisionRow,
    MetaRow,
    ModuleRow,
    ProjectRow,
    RulingRow,
    WorkItemRow,
)

Clock = Callable[[], datetime]

ERASED = "erased"
"""``outcome`` (and ``after``) of an erasure tombstone in the audit log."""
ERASED_REASON = "[erased]"
"""What an erasure leaves of the ``reason`` of the erased case's earlier audit rows."""


_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def _storable(what: str, *values: str | None) -> None:
    """Raise :class:`InputError` when a value holds NUL or a lone surrogate: PostgreSQL
    cannot store NUL at all and neither backend can encode a lone surrogate, so both
    refuse the same input the same way (the loaders already reject it with file and
    line; this guards every other way in)."""
    if any(v is not None and _UNSTORABLE.search(v) for v in values):
        raise InputError(f"{what} holds a NUL character or a lone surrogate: not text "
                         "Etki can store; remove it")


@dataclass(frozen=True)
class Erasure:
    """What :meth:`CaseFileRepository.erase_case` removed: the case and project ids,
    the ruling the case had (``pending`` when none), how many audit rows had their
    reason replaced by ``[erased]`` and how many other cases' related-context blocks were scrubbed of it.
    Holds no client text."""

    case_id: str
    project_id: str
    before: str
    audit_rows_redacted: int
    contexts_scrubbed: int


def utc_now() -> datetime:
    """The wall clock in UTC (the default clock; tests pass a frozen one)."""
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    """ISO-8601 UTC to the second: ``2026-11-29T12:00:00Z``."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _title_of(request: Request) -> str:
    if request.title and request.title.strip():
        return request.title.strip()
    first = request.text.strip().splitlines()[0] if request.text.strip() else request.id
    return first if len(first) <= 80 else first[:79].rstrip() + "…"


class CaseFileRepository:
    """The store. Build with a SQLAlchemy URL (``sqlite:///path``,
    ``postgresql://host/db``) or an existing engine. On open the schema is brought to
    the newest migration (:func:`etki.store.migrate.ensure_schema`: created when the
    database is empty, upgraded when it is older; a no-op read when it is current).

    ``clock`` returns the current time (UTC); tests inject a frozen one.
    """

    def __init__(self, url_or_engine: str | Engine, *, clock: Clock = utc_now) -> None:
        self.engine = (
            make_engine(url_or_engine) if isinstance(url_or_engine, str) else url_or_engine
        )
        self.clock = clock
        ensure_schema(self.engine)
        with self._write() as s:
            if s.get(MetaRow, "schema_version") is None:
                s.add(MetaRow(key="schema_version", value=str(SCHEMA_VERSION)))

    # --- sessions ----------------------------------------------------------------------

    @contextmanager
    def _read(self) -> Iterator[Session]:
        with Session(self.engine, expire_on_commit=False) as s:
            yield s

    @contextmanager
    def _write(self) -> Iterator[Session]:
        """A write transaction (``BEGIN IMMEDIATE`` on SQLite), committed on success."""
        with self.engine.connect() as conn:
            conn = conn.execution_options(etki_write=True)
            with conn.begin(), Session(bind=conn, expire_on_commit=False) as s:
                yield s
                s.flush()

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()

    # --- projects ----------------------------------------------------------------------

    def save_project(self, project: Project, index_hash: str, index_bytes: bytes) -> None:
        """Insert or replace ``project``'s knowledge in one transaction; cases stay."""
        cfg = project.config
        bad = unstorable_path(asdict(project))
        if bad is not None:
            raise InputError(f"project {cfg.id!r}: {'.'.join(map(str, bad))} holds a NUL "
                             "character or a lone surrogate: not text Etki can store")
        config_json = json.dumps(asdict(cfg), sort_keys=True, ensure_ascii=False)
        with self._write() as s:
            row = s.get(ProjectRow, cfg.id)
            values = {
                "name": cfg.name, "root": str(project.root), "config_json": config_json,
                "edge_types_json": json.dumps(list(project.edge_types), ensure_ascii=False),
                "index_hash": index_hash, "index_json": index_bytes.decode("utf-8"),
                "loaded_at": iso(self.clock()),
            }
            if row is None:
                s.add(ProjectRow(id=cfg.id, **values))
            else:
                for key, value in values.items():
                    setattr(row, key, value)
            for model in (ClauseRow, ContractRow, ModuleRow, WorkItemRow):
                s.execute(delete(model).where(model.project_id == cfg.id))
            s.flush()
            for pos, contract in enumerate(project.contracts):
                s.add(ContractRow(project_id=cfg.id, id=contract.id, title=contract.title,
                                  source=contract.source, chunking=contract.chunking,
                                  position=pos))
            for pos, c in enumerate(project.clauses):
                s.add(ClauseRow(
                    project_id=cfg.id, ref=c.ref, contract_id=c.contract_id, number=c.number,
                    title=c.title, text=c.text, kind=c.kind, level=c.level, source=c.source,
                    line=c.line, parent=c.parent, position=pos,
                    edges_json=json.dumps([asdict(e) for e in c.edges], ensure_ascii=False),
                ))
            for pos, m in enumerate(project.modules):
                s.add(ModuleRow(project_id=cfg.id, id=m.id, path=m.path, summary=m.summary,
                                depends_on_json=json.dumps(list(m.depends_on)),
                                language=m.language, position=pos))
            for pos, w in enumerate(project.workitems):
                s.add(WorkItemRow(project_id=cfg.id, id=w.id, title=w.title, kind=w.kind,
                                  date=w.date, modules_json=json.dumps(list(w.modules)),
                                  effort_days=w.effort_days, position=pos))

    def project_ids(self) -> list[str]:
        """Ids of every stored project, sorted."""
        with self._read() as s:
            return list(s.scalars(select(ProjectRow.id).order_by(ProjectRow.id)))

    def index_hash(self, project_id: str) -> str:
        """The knowledge-index hash recorded when the project was last loaded."""
        return self._project_row(project_id).index_hash

    def index_bytes(self, project_id: str) -> bytes:
        """The knowledge index (canonical JSON bytes) as built at load time."""
        return self._project_row(project_id).index_json.encode("utf-8")

    def _project_row(self, project_id: str) -> ProjectRow:
        with self._read() as s:
            row = s.get(ProjectRow, project_id)
        if row is None:
            known = ", ".join(self.project_ids()) or "none yet (run `etki init PROJECT_DIR`)"
            raise NotFoundError(f"no project '{project_id}' in the store; known: {known}")
        return row

    def load_project(self, project_id: str) -> Project:
        """Rebuild the :class:`Project` stored for ``project_id`` (without requests).

        Raises :class:`NotFoundError` when it was never loaded."""
        row = self._project_row(project_id)
        cfg = json.loads(row.config_json)
        config = ProjectConfig(
            id=cfg["id"], name=cfg["name"], languages=tuple(cfg.get("languages", ())),
            reviewers=tuple(Reviewer(**r) for r in cfg.get("reviewers", ())),
            thresholds=tuple(tuple(t) for t in cfg.get("thresholds", ())),
        )
        with self._read() as s:
            contracts = s.scalars(select(ContractRow).where(ContractRow.project_id == project_id)
                                  .order_by(ContractRow.position)).all()
            clauses = s.scalars(select(ClauseRow).where(ClauseRow.project_id == project_id)
                                .order_by(ClauseRow.position)).all()
            modules = s.scalars(select(ModuleRow).where(ModuleRow.project_id == project_id)
                                .order_by(ModuleRow.position)).all()
            items = s.scalars(select(WorkItemRow).where(WorkItemRow.project_id == project_id)
                              .order_by(WorkItemRow.position)).all()
        by_contract: dict[str, list[ScopeClause]] = {}
        for c in clauses:
            by_contract.setdefault(c.contract_id, []).append(ScopeClause(
                ref=c.ref, contract_id=c.contract_id, number=c.number, title=c.title,
                text=c.text, kind=c.kind, level=c.level, source=c.source, line=c.line,  # type: ignore[arg-type]
                parent=c.parent, edges=tuple(Edge(**e) for e in json.loads(c.edges_json)),
            ))
        return Project(
            config=config, root=Path(row.root),
            contracts=tuple(Contract(id=c.id, title=c.title, source=c.source,
                                     clauses=tuple(by_contract.get(c.id, ())),
                                     chunking=c.chunking) for c in contracts),
            modules=tuple(Module(id=m.id, path=m.path, summary=m.summary,
                                 depends_on=tuple(json.loads(m.depends_on_json)),
                                 language=m.language) for m in modules),
            workitems=tuple(WorkItem(id=w.id, title=w.title, kind=w.kind, date=w.date,
                                     modules=tuple(json.loads(w.modules_json)),
                                     effort_days=w.effort_days) for w in items),
            edge_types=tuple(tuple(e) for e in json.loads(row.edge_types_json)),  # type: ignore[misc]
        )

    # --- cases ---------------------------------------------------------------------------

    def add_cases(self, project_id: str, items: Iterable[tuple[Request, Decision]],
                  contexts: Mapping[str, str] | None = None) -> int:
        """Store new cases with their decisions in one transaction; cases whose id is
        already stored are left untouched (a decision is never updated). ``contexts``
        maps case id -> related-context JSON text, stored with the new decision (written
        once; never read by the engine). Returns how many were new."""
        now = iso(self.clock())
        added = 0
        with self._write() as s:
            existing = set(s.scalars(select(CaseRow.id).where(CaseRow.project_id == project_id)))
            existing |= set(s.scalars(select(AuditRow.case_id)  # erased: never stored again
                                      .where(AuditRow.outcome == ERASED)))
            seq = s.scalar(select(func.max(CaseRow.seq))
                           .where(CaseRow.project_id == project_id)) or 0
            for request, decision in items:
                if decision.case_id in existing:
                    continue
                _storable(f"request {request.id!r}", request.id, request.title, request.text,
                          request.submitted_by, request.submitted_at, request.labels_json)
                existing.add(decision.case_id)
                seq += 1
                s.add(CaseRow(
                    id=decision.case_id, project_id=project_id, request_id=request.id,
                    title=_title_of(request), text=request.text,
                    submitted_by=request.submitted_by, submitted_at=request.submitted_at,
                    labels_json=request.labels_json, created_at=now, status="pending",
                    version=1, seq=seq,
                ))
                s.flush()
                s.add(DecisionRow(
                    case_id=decision.case_id, verdict=decision.verdict,
                    confidence=decision.confidence, engine_version=decision.engine_version,
                    decision_json=decision.to_json(), created_at=now,
                ))
                context = (contexts or {}).get(decision.case_id)
                if context is not None:
                    s.add(DecisionContextRow(case_id=decision.case_id, context_json=context,
                                             created_at=now))
                added += 1
        return added

    def decision_context(self, case_id: str) -> str | None:
        """The related-context JSON text stored with the case's decision, or None (a case
        stored without one)."""
        with self._read() as s:
            row = s.get(DecisionContextRow, case_id)
        return row.context_json if row is not None else None

    def cases(self, project_id: str | None = None, *, status: str | None = None) -> list[CaseRecord]:
        """Cases of ``project_id`` (all projects when None), optionally only ``pending``
        or ``ruled``, in arrival order (creation time, then the order they were added)."""
        stmt = (select(CaseRow, DecisionRow, RulingRow)
                .join(DecisionRow, DecisionRow.case_id == CaseRow.id)
                .outerjoin(RulingRow, RulingRow.case_id == CaseRow.id))
        if project_id is not None:
            stmt = stmt.where(CaseRow.project_id == project_id)
        if status is not None:
            stmt = stmt.where(CaseRow.status == status)
        stmt = stmt.order_by(CaseRow.created_at, CaseRow.seq, CaseRow.id)
        with self._read() as s:
            rows = s.execute(stmt).all()
        return [self._record(c, d, r) for c, d, r in rows]

    def case(self, case_id: str) -> CaseRecord:
        """One case. Raises :class:`NotFoundError` naming the id."""
        stmt = (select(CaseRow, DecisionRow, RulingRow)
                .join(DecisionRow, DecisionRow.case_id == CaseRow.id)
                .outerjoin(RulingRow, RulingRow.case_id == CaseRow.id)
                .where(CaseRow.id == case_id))
        with self._read() as s:
            row = s.execute(stmt).first()
        if row is None:
            raise NotFoundError(f"no case '{case_id}' in the store")
        return self._record(*row)

    def versions(self, project_id: str) -> dict[str, int]:
        """case_id -> version for a project: a cheap poll to see what changed."""
        with self._read() as s:
            # .all(): dict() of a Result would index it by its keys() (SQLAlchemy 2.1)
            return dict(s.execute(select(CaseRow.id, CaseRow.version)
                                  .where(CaseRow.project_id == project_id)).all())

    def count_cases(self, project_id: str) -> int:
        with self._read() as s:
            return s.scalar(select(func.count()).select_from(CaseRow)
                            .where(CaseRow.project_id == project_id)) or 0

    @staticmethod
    def _record(c: CaseRow, d: DecisionRow, r: RulingRow | None) -> CaseRecord:
        ruling = None
        if r is not None:
            ruling = RulingRecord(case_id=c.id, ruling=r.ruling, action=r.action,  # type: ignore[arg-type]
                                  reviewer=r.reviewer, reason=r.reason, ruled_at=r.ruled_at,
                                  verdict=d.verdict, version=r.version)  # type: ignore[arg-type]
        return CaseRecord(
            case_id=c.id, project_id=c.project_id, request_id=c.request_id, title=c.title,
            text=c.text, submitted_by=c.submitted_by, submitted_at=c.submitted_at,
            created_at=c.created_at, version=c.version,
            decision=Decision.from_json(d.decision_json), ruling=ruling,
        )

    # --- rulings -------------------------------------------------------------------------

    def record_ruling(self, case_id: str, action: str, reviewer: str, reason: str,
                      *, expected_version: int | None = None) -> RulingRecord:
        """Commit a ruling with optimistic locking.

        ``action`` is approve | convert_to_cr | reject. ``expected_version`` is the case
        version the reviewer saw (None: the version read now). Raises
        :class:`ConflictError` when the case was ruled or changed since,
        :class:`NotFoundError` for an unknown case, :class:`InputError` for a bad action.
        """
        if action not in ACTIONS:
            raise InputError(f"unknown action '{action}'; use one of {', '.join(ACTIONS)}")
        _storable("the reviewer name or reason", reviewer, reason)
        now = iso(self.clock())
        ruling = ACTIONS[action]
        try:
            with self._write() as s:
                case = s.get(CaseRow, case_id)
                if case is None:
                    raise NotFoundError(f"no case '{case_id}' in the store")
                seen = case.version if expected_version is None else expected_version
                current = s.get(RulingRow, case_id)
                if current is not None or case.version != seen:
                    raise self._conflict(case_id, current)
                done = s.execute(update(CaseRow)
                                 .where(CaseRow.id == case_id, CaseRow.version == seen)
                                 .values(status="ruled", version=seen + 1))
                if done.rowcount != 1:  # another writer got there between read and update
                    raise self._conflict(case_id, s.get(RulingRow, case_id))
                verdict = s.scalar(select(DecisionRow.verdict)
                                   .where(DecisionRow.case_id == case_id))
                s.add(RulingRow(case_id=case_id, ruling=ruling, action=action,
                                reviewer=reviewer, reason=reason, ruled_at=now,
                                version=seen + 1))
                s.add(AuditRow(case_id=case_id, reviewer=reviewer, action=action,
                               ruling=ruling, reason=reason, at=now, version=seen + 1,
                               outcome="committed", before="pending", after=ruling))
        except ConflictError as exc:
            self.audit_attempt(case_id, reviewer, action, reason, "conflict",
                               before=exc.ruling or "pending")
            raise
        return RulingRecord(case_id=case_id, ruling=ruling, action=action,  # type: ignore[arg-type]
                            reviewer=reviewer, reason=reason, ruled_at=now,
                            verdict=verdict, version=seen + 1)  # type: ignore[arg-type]

    def audit_attempt(self, case_id: str, reviewer: str, action: str, reason: str,
                      outcome: str, *, before: str = "pending") -> None:
        """Append an audit row for an attempt that did not commit (``conflict`` or
        ``denied``); the case is unchanged, so ``after`` equals ``before``. NUL and lone
        surrogates in the reviewer or reason are stored as U+FFFD: an attempt is always
        audited."""
        reviewer, reason = (_UNSTORABLE.sub("\ufffd", v) for v in (reviewer, reason))
        with self._write() as s:
            version = s.scalar(select(CaseRow.version).where(CaseRow.id == case_id)) or 0
            s.add(AuditRow(case_id=case_id, reviewer=reviewer, action=action,
                           ruling=ACTIONS.get(action, action), reason=reason,
                           at=iso(self.clock()), version=version, outcome=outcome,
                           before=before, after=before))

    def _conflict(self, case_id: str, current: RulingRow | None) -> ConflictError:
        if current is None:
            return ConflictError(case_id)
        return ConflictError(case_id, current.reviewer, current.ruled_at, current.ruling)

    def audit_log(self, case_id: str | None = None,
                  ) -> list[tuple[str, str, str, str, str, int, str]]:
        """Audit rows (case_id, reviewer, action, ruling, at, version, outcome), oldest
        first."""
        stmt = select(AuditRow.case_id, AuditRow.reviewer, AuditRow.action, AuditRow.ruling,
                      AuditRow.at, AuditRow.version, AuditRow.outcome).order_by(AuditRow.id)
        if case_id is not None:
            stmt = stmt.where(AuditRow.case_id == case_id)
        with self._read() as s:
            return [tuple(r) for r in s.execute(stmt).all()]  # type: ignore[misc]

    # --- erasure (KVKK/GDPR) -----------------------------------------------------------

    def erased_case_ids(self) -> set[str]:
        """Ids of every erased case (they have a tombstone in the audit log)."""
        with self._read() as s:
            return set(s.scalars(select(AuditRow.case_id).where(AuditRow.outcome == ERASED)))

    def erase_case(self, case_id: str, erased_by: str, reason: str) -> Erasure:
        """Erase a case for KVKK/GDPR in one write transaction: delete its related-context
        block, ruling, decision and the case row (request text, title, submitter,
        labels); replace the ``reason`` of its earlier audit rows (free text that may quote
        the request) with ``[erased]`` (who, what, when and the outcome stay); drop the erased case's
        precedent node from other cases' related-context blocks; and append a tombstone
        audit row (``action`` ``erase``, ``outcome`` ``erased``, ``reason`` the erasure's
        reason) that holds no request text. On SQLite the deleted pages are zeroed
        (``secure_delete``); call :meth:`compact` afterwards so no old copy stays in the
        file or its WAL. A tombstoned case id is never stored again by :meth:`add_cases`.

        Raises :class:`NotFoundError` for an unknown (or already erased) case."""
        _storable("the erasure's reviewer or reason", erased_by, reason)
        now = iso(self.clock())
        with self._write() as s:
            if self.engine.dialect.name == "sqlite":
                s.execute(text("PRAGMA secure_delete = ON"))
            case = s.get(CaseRow, case_id)
            if case is None:
                gone = s.scalar(select(func.count()).select_from(AuditRow).where(
                    AuditRow.case_id == case_id, AuditRow.outcome == ERASED))
                raise NotFoundError(f"no case '{case_id}' in the store"
                                    + (" (it was erased)" if gone else ""))
            ruling = s.get(RulingRow, case_id)
            before = ruling.ruling if ruling is not None else "pending"
            project_id, version = case.project_id, case.version
            erased_strings = [x for x in (case.title, case.text) if x and x.strip()]
            s.execute(delete(DecisionContextRow).where(DecisionContextRow.case_id == case_id))
            s.execute(delete(RulingRow).where(RulingRow.case_id == case_id))
            s.execute(delete(DecisionRow).where(DecisionRow.case_id == case_id))
            s.execute(delete(CaseRow).where(CaseRow.id == case_id))
            redacted = s.execute(update(AuditRow)
                                 .where(AuditRow.case_id == case_id,
                                        AuditRow.reason != ERASED_REASON, AuditRow.reason != "")
                                 .values(reason=ERASED_REASON)).rowcount
            scrubbed = self._scrub_contexts(s, project_id, case_id, erased_strings)
            s.add(AuditRow(case_id=case_id, reviewer=erased_by, action="erase", ruling=before,
                           reason=reason, at=now, version=version, outcome=ERASED,
                           before=before, after=ERASED))
        return Erasure(case_id=case_id, project_id=project_id, before=before,
                       audit_rows_redacted=redacted, contexts_scrubbed=scrubbed)

    @staticmethod
    def _scrub_contexts(s: Session, project_id: str, case_id: str,
                        erased_strings: list[str]) -> int:
        """Drop the erased case's node (``precedent:{case_id}``) and everything that
        names it (edges, dropped entries, children) from the related-context blocks of
        the project's other cases; a block that still holds the erased title or text
        after that is deleted whole (context is optional). Returns how many changed."""
        node_id = f"precedent:{case_id}"
        rows = s.scalars(select(DecisionContextRow)
                         .join(CaseRow, CaseRow.id == DecisionContextRow.case_id)
                         .where(CaseRow.project_id == project_id)).all()
        changed = 0
        for row in rows:
            raw = row.context_json
            if node_id not in raw and case_id not in raw and not any(
                    x in raw for x in erased_strings):
                continue
            changed += 1
            try:
                block = _without(json.loads(raw), {node_id, case_id})
                new = json.dumps(block, sort_keys=True, ensure_ascii=False,
                                 separators=(",", ":"))
            except ValueError:
                new = None
            if new is None or any(x in new for x in (node_id, *erased_strings)):
                s.delete(row)
            else:
                row.context_json = new
        return changed

    def compact(self) -> None:
        """Make deleted rows unrecoverable from the database files, as far as the backend
        allows: on SQLite checkpoint the WAL into the file, ``VACUUM`` (rewrites the file
        from live rows only) and truncate the WAL to zero bytes; on PostgreSQL ``VACUUM``
        the case tables (dead row versions become free space; older copies in the
        server's WAL archive and backups are the operator's to expire)."""
        if self.engine.dialect.name == "sqlite":
            raw = self.engine.raw_connection()
            try:
                cur = raw.cursor()
                cur.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                cur.execute("VACUUM")
                cur.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                cur.close()
            finally:
                raw.close()
            return
        if self.engine.dialect.name == "postgresql":
            with self.engine.connect() as conn:
                conn = conn.execution_options(isolation_level="AUTOCOMMIT")
                conn.exec_driver_sql("VACUUM cases, decisions, rulings, audit_log, "
                                     "decision_contexts")


def _without(value: object, ids: set[str]) -> object:
    """``value`` (parsed JSON) with every list item removed that is, or is a mapping with
    a value that is, one of ``ids``."""
    if isinstance(value, dict):
        return {k: _without(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [_without(v, ids) for v in value
                if not ((isinstance(v, str) and v in ids)
                        or (isinstance(v, dict)
                            and any(isinstance(x, str) and x in ids for x in v.values())))]
    return value
