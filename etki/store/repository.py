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
  its cases, decisions and rulings; it changes the project's reviewers only when asked
  to (``update_reviewers``), and every creation of or attempt to change a reviewer list
  is written to ``project_audit``;
* every audit row carries the asserted reviewer and the process that wrote it (OS user,
  host, pid, program: :func:`etki.identity.current_process`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Engine, delete, func, select, text, update
from sqlalchemy.orm import Session

from etki.domain import (
    ACTIONS,
    BriefDecision,
    CaseBrief,
    CaseRecord,
    CaseSummary,
    Contract,
    Decision,
    DecisionSummary,
    Edge,
    Module,
    Project,
    ProjectConfig,
    Request,
    Reviewer,
    Risk,
    RulingRecord,
    ScopeClause,
    WorkItem,
)
from etki.errors import (
    ConflictError,
    InputError,
    NotFoundError,
    PermissionDeniedError,
    ReviewersChangedError,
)
from etki.frontmatter import unstorable_path
from etki.identity import current_process, is_listed_approver, reviewer_name
from etki.store import proof
from etki.store.db import make_engine
from etki.store.migrate import check_schema, ensure_schema, has_tables, missing_store
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
    ProjectAuditRow,
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


@dataclass(frozen=True)
class ProjectAuditEntry:
    """One row of ``project_audit`` (:class:`etki.store.models.ProjectAuditRow`): a
    project's reviewer list created (``created``), changed (``changed``), or a change
    refused (``refused``: no ``--update-reviewers``; ``denied``: not an approver).
    ``before`` and ``after`` are the stored and the loaded folder's reviewers, sorted by
    name then role; names are client text (``etki.yaml``): untrusted."""

    id: int
    project_id: str
    action: str
    outcome: str
    before: tuple[Reviewer, ...]
    after: tuple[Reviewer, ...]
    root: str
    reviewer: str
    at: str
    os_user: str
    host: str
    pid: int
    program: str


def _reviewer_set(reviewers: Iterable[Reviewer]) -> tuple[Reviewer, ...]:
    """``reviewers`` with normalised names (:func:`etki.identity.reviewer_name`), as a
    sorted tuple: what decides whether two lists grant the same rights (order in
    ``etki.yaml`` does not)."""
    return tuple(sorted({Reviewer(reviewer_name(r.name), r.role) for r in reviewers},
                        key=lambda r: (r.name, r.role)))


def _reviewers_json(reviewers: tuple[Reviewer, ...]) -> str:
    return json.dumps([{"name": r.name, "role": r.role} for r in reviewers],
                      ensure_ascii=False)


def _reviewer_changes(old: tuple[Reviewer, ...], new: tuple[Reviewer, ...]) -> tuple[str, ...]:
    """What turning reviewer list ``old`` into ``new`` changes, one phrase per name:
    ``add approver 'Mallory'``, ``remove viewer 'Vera'``, ``make 'Ayşe' viewer (was
    approver)``; sorted by name."""
    before: dict[str, set[str]] = {}
    after: dict[str, set[str]] = {}
    for r in old:
        before.setdefault(r.name, set()).add(r.role)
    for r in new:
        after.setdefault(r.name, set()).add(r.role)
    out = []
    for name in sorted(before.keys() | after.keys()):
        was, now = before.get(name, set()), after.get(name, set())
        if was == now:
            continue
        if not was:
            out.append(f"add {'/'.join(sorted(now))} {name!r}")
        elif not now:
            out.append(f"remove {'/'.join(sorted(was))} {name!r}")
        else:
            out.append(f"make {name!r} {'/'.join(sorted(now))} (was {'/'.join(sorted(was))})")
    return tuple(out)


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


_DECODER = json.JSONDecoder()


def _json_member(doc: str, key: str, *, last: bool) -> object:
    """The value of the top-level ``key`` of the canonical decision JSON ``doc``
    (compact separators, see :meth:`Decision.to_json`), decoded alone. Inside a JSON
    string every quote is escaped, so ``"key":`` can only be a member name; the
    top-level ``risk`` is the last ``"risk":`` (only ``verdict`` follows it) and
    ``cited_clauses`` the first (only ``assumptions`` strings and ``case_id`` precede
    it). Raises ``ValueError`` when the member is missing."""
    marker = f'"{key}":'
    at = doc.rfind(marker) if last else doc.find(marker)
    if at < 0:
        raise ValueError(key)
    value, _ = _DECODER.raw_decode(doc, at + len(marker))
    return value


def _summary_of_members(refs_json: str | None, risk_json: str | None, verdict: str,
                        confidence: float,
                        risks: dict[tuple[object, ...], Risk]) -> DecisionSummary:
    """A :class:`DecisionSummary` from the ``cited_clauses`` and ``risk`` members of a
    stored decision as JSON text (what SQLite's ``json_extract`` returns)."""
    refs = json.loads(refs_json) if refs_json else []
    risk = json.loads(risk_json) if risk_json else {}
    return _summary(refs, risk, verdict, confidence, risks)


def _summary(refs: list, risk: dict, verdict: str, confidence: float,
             risks: dict[tuple[object, ...], Risk] | None) -> DecisionSummary:
    level = risk.get("level", "low")
    signals = tuple(risk.get("signals", ()))
    look = bool(risk.get("pmo_look_24h", False))
    key = (level, signals, look)
    shared = risks.get(key) if risks is not None else None
    if shared is None:
        shared = Risk(level=level, signals=signals, pmo_look_24h=look)
        if risks is not None:
            risks[key] = shared
    return DecisionSummary(verdict=verdict, confidence=confidence,
                           cited_clauses=tuple(refs), risk=shared)


def decision_summary(decision_json: str, verdict: str, confidence: float,
                     risks: dict[tuple[object, ...], Risk] | None = None) -> DecisionSummary:
    """A :class:`DecisionSummary` from a stored decision's JSON text and its verdict and
    confidence columns: only ``cited_clauses`` and ``risk`` are decoded (falls back to
    the whole document when the text is not the canonical form). ``risks`` shares equal
    :class:`Risk` values between calls."""
    try:
        refs = _json_member(decision_json, "cited_clauses", last=False)
        risk = _json_member(decision_json, "risk", last=True)
        if not isinstance(refs, list) or not isinstance(risk, dict):
            raise ValueError("shape")
    except ValueError:
        whole = json.loads(decision_json)
        refs, risk = whole.get("cited_clauses", []), whole.get("risk", {})
    return _summary(refs, risk, verdict, confidence, risks)


def _project_values(project: Project, root: str, config_json: str, index_hash: str,
                    index_bytes: bytes, loaded_at: str) -> dict[str, object]:
    """The ``projects`` row of ``project`` (every column, ``id`` included)."""
    cfg = project.config
    return {
        "id": cfg.id, "name": cfg.name, "root": root, "config_json": config_json,
        "edge_types_json": json.dumps(list(project.edge_types), ensure_ascii=False),
        "index_hash": index_hash, "index_json": index_bytes.decode("utf-8"),
        "loaded_at": loaded_at,
    }


class CaseFileRepository:
    """The store. Build with a SQLAlchemy URL (``sqlite:///path``,
    ``postgresql://host/db``) or an existing engine. On open the schema is brought to
    the newest migration (:func:`etki.store.migrate.ensure_schema`: created when the
    database is empty, upgraded when it is older; a no-op read when it is current).

    ``clock`` returns the current time (UTC); tests inject a frozen one.

    ``read_only=True`` (commands that only read, see README "Read-only commands"): the
    store is opened read-only (:func:`etki.store.db.make_engine`), never migrated or
    written; a store that does not exist or holds no Etki tables raises
    :class:`~etki.errors.StoreMissingError`, one at an older revision
    :class:`~etki.errors.StoreUnusableError` (:func:`etki.store.migrate.check_schema`),
    and any write method fails with ``StoreUnusableError`` ("read-only").
    ``create=False`` (commands that write to an existing store: ``rule``, ``erase``):
    a missing store is refused the same way instead of being created empty.
    """

    def __init__(self, url_or_engine: str | Engine, *, clock: Clock = utc_now,
                 read_only: bool = False, create: bool = True) -> None:
        self.engine = (
            make_engine(url_or_engine, read_only=read_only, create=create)
            if isinstance(url_or_engine, str) else url_or_engine
        )
        self.clock = clock
        self.read_only = read_only
        if read_only:
            check_schema(self.engine)
            return
        if not create and not has_tables(self.engine):
            raise missing_store(self.engine)
        ensure_schema(self.engine)
        with self._write() as s:  # several processes may open a new store at once
            self._upsert(s, MetaRow, {"key": "schema_version", "value": str(SCHEMA_VERSION)},
                         ("key",), update=False)

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

    def _upsert(self, s: Session, model: type, values: dict[str, object],
                keys: tuple[str, ...], *, update: bool) -> None:
        """Insert ``values`` as a row of ``model``; when a row with the same ``keys``
        exists (committed, or being inserted by a concurrent transaction, which this one
        then waits for), update it to ``values`` (``update``) or leave it alone. One
        ``INSERT ... ON CONFLICT`` on PostgreSQL and SQLite, so two processes storing
        the same row never meet a unique-key violation; a read, then a write, elsewhere."""
        name = self.engine.dialect.name
        if name in ("postgresql", "sqlite"):
            if name == "postgresql":
                from sqlalchemy.dialects.postgresql import insert
            else:
                from sqlalchemy.dialects.sqlite import insert
            stmt = insert(model).values(**values)
            changed = {k: v for k, v in values.items() if k not in keys}
            s.execute(stmt.on_conflict_do_update(index_elements=list(keys), set_=changed)
                      if update and changed else
                      stmt.on_conflict_do_nothing(index_elements=list(keys)))
            return
        row = s.get(model, tuple(values[k] for k in keys))
        if row is None:
            s.add(model(**values))
        elif update:
            for key, value in values.items():
                setattr(row, key, value)
        s.flush()

    def _insert_new(self, s: Session, model: type, values: dict[str, object],
                    keys: tuple[str, ...]) -> bool:
        """Insert ``values`` as a row of ``model`` unless a row with the same ``keys``
        exists (or a concurrent transaction is inserting it: this one waits for it);
        True when this call inserted it. ``INSERT ... ON CONFLICT DO NOTHING RETURNING``
        on PostgreSQL and SQLite (an ORM insert reports no reliable row count)."""
        name = self.engine.dialect.name
        if name in ("postgresql", "sqlite"):
            if name == "postgresql":
                from sqlalchemy.dialects.postgresql import insert
            else:
                from sqlalchemy.dialects.sqlite import insert
            key_columns = [getattr(model, k) for k in keys]
            stmt = (insert(model).values(**values)
                    .on_conflict_do_nothing(index_elements=list(keys))
                    .returning(*key_columns))
            return s.execute(stmt).first() is not None
        if s.get(model, tuple(values[k] for k in keys)) is not None:
            return False
        s.add(model(**values))
        s.flush()
        return True

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()

    # --- projects ----------------------------------------------------------------------

    def save_project(self, project: Project, index_hash: str, index_bytes: bytes, *,
                     update_reviewers: bool = False,
                     actor: str | None = None) -> tuple[str, ...]:
        """Insert or replace ``project``'s knowledge in one transaction; cases stay.

        The folder is stored as an absolute path (``Path.resolve()``). A project already
        stored keeps its reviewers unless ``update_reviewers`` is true: when the folder's
        reviewers (compared as a set of normalised ``(name, role)``, see
        :func:`etki.identity.reviewer_name`) differ from the stored ones, nothing is
        stored and :class:`~etki.errors.ReviewersChangedError` says what would change.
        With ``update_reviewers`` the change needs ``actor`` (the asserted reviewer) to
        be an approver of the *stored* list (anyone when it lists none), else
        :class:`~etki.errors.PermissionDeniedError` ("ask a project approver"; nothing
        stored). Creating a project's list, changing it, and each refusal append a
        :class:`~etki.store.models.ProjectAuditRow` (old and new lists, actor, process
        identity). Returns what changed in the reviewer list (phrases such as ``add
        approver 'Mallory'``; empty when nothing did or the project is new). Raises
        :class:`InputError` for text that cannot be stored."""
        cfg = project.config
        bad = unstorable_path(asdict(project))
        if bad is not None:
            raise InputError(f"project {cfg.id!r}: {'.'.join(map(str, bad))} holds a NUL "
                             "character or a lone surrogate: not text Etki can store")
        config_json = json.dumps(asdict(cfg), sort_keys=True, ensure_ascii=False)
        root = str(Path(project.root).resolve())
        _storable("the project folder's path", root)
        who = reviewer_name(actor or "")
        new_list = _reviewer_set(cfg.reviewers)
        old_list: tuple[Reviewer, ...] = ()
        changes: tuple[str, ...] = ()
        try:
            with self._write() as s:
                # the first statement locks the project's row until commit (or, on a first
                # load, inserts it; a concurrent first load waits for that insert, then
                # finds the row), so two loads of one project run one after the other and
                # the second replaces the first one's knowledge instead of adding to it
                values = _project_values(project, root, config_json, index_hash, index_bytes,
                                         iso(self.clock()))
                created = self._insert_new(s, ProjectRow, values, ("id",))
                row = s.execute(select(ProjectRow).where(ProjectRow.id == cfg.id)
                                .with_for_update()
                                .execution_options(populate_existing=True)).scalar_one()
                outcome = "created" if created else None
                if not created:
                    stored = _config_of(row.config_json).reviewers
                    old_list = _reviewer_set(stored)
                    if old_list != new_list:
                        self._check_reviewer_change(cfg.id, stored, old_list, new_list,
                                                    row.root, root, who, update_reviewers)
                        outcome = "changed"
                        changes = _reviewer_changes(old_list, new_list)
                self._write_project(s, project, row, values)
                if outcome is not None:
                    s.add(self._project_audit_row(cfg.id, outcome, old_list, new_list, root,
                                                  who))
        except (ReviewersChangedError, PermissionDeniedError) as exc:
            outcome = "refused" if isinstance(exc, ReviewersChangedError) else "denied"
            with self._write() as s:
                s.add(self._project_audit_row(cfg.id, outcome, old_list, new_list, root,
                                              who))
            raise
        return changes

    @staticmethod
    def _check_reviewer_change(project_id: str, stored: tuple[Reviewer, ...],
                               old_list: tuple[Reviewer, ...], new_list: tuple[Reviewer, ...],
                               stored_root: str, root: str, who: str,
                               update_reviewers: bool) -> None:
        """Raise unless changing the stored reviewers ``old_list`` to ``new_list`` is
        allowed (see :meth:`save_project`)."""
        if not update_reviewers:
            changes = _reviewer_changes(old_list, new_list)
            where = f"{root}/etki.yaml"
            first = "" if stored_root == root else f" (stored from {stored_root})"
            raise ReviewersChangedError(
                f"project {project_id!r} is already stored{first} with other reviewers "
                f"than {where} lists; loading it would {'; '.join(changes)}. Nothing was "
                "stored. If this change is intended, run `etki init --update-reviewers` "
                "as an approver of the project (the change is audited)", changes)
        if any(r.role == "approver" for r in stored) and not is_listed_approver(stored, who):
            raise PermissionDeniedError(
                f"reviewer {who!r} may not change the reviewers of project {project_id!r}: "
                "only an approver of the stored project can; ask a project approver. "
                "Nothing was stored")

    def _project_audit_row(self, project_id: str, outcome: str, before: tuple[Reviewer, ...],
                           after: tuple[Reviewer, ...], root: str, who: str) -> ProjectAuditRow:
        return ProjectAuditRow(project_id=project_id, action="reviewers", outcome=outcome,
                               before_json=_reviewers_json(before),
                               after_json=_reviewers_json(after), root=root,
                               reviewer=_UNSTORABLE.sub("\ufffd", who), at=iso(self.clock()),
                               **current_process().columns())

    def _write_project(self, s: Session, project: Project, row: ProjectRow,
                       values: dict[str, object]) -> None:
        """The writes of :meth:`save_project` inside its transaction (``row`` locked)."""
        cfg = project.config
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
        """:meth:`store_new_cases`, returning how many cases were new."""
        return len(self.store_new_cases(project_id, items, contexts))

    def store_new_cases(self, project_id: str, items: Iterable[tuple[Request, Decision]],
                        contexts: Mapping[str, str] | None = None) -> list[str]:
        """Store new cases with their decisions in one transaction; cases whose id, or
        whose request id, is already stored are left untouched (a decision is never
        updated). ``contexts`` maps case id -> related-context JSON text, stored with
        the new decision (written once; never read by the engine). Returns the ids of
        the cases this call stored, in the order given. Safe to run from several
        processes at once: the transaction first locks the project's row (``FOR
        UPDATE`` on PostgreSQL; ``BEGIN IMMEDIATE`` already serialises writers on
        SQLite), so the stored ids are read after any concurrent insert of the same
        cases committed, and each case is stored by exactly one caller. Raises
        :class:`NotFoundError` for a project that was never saved."""
        now = iso(self.clock())
        added: list[str] = []
        with self._write() as s:
            if s.execute(select(ProjectRow.id).where(ProjectRow.id == project_id)
                         .with_for_update()).first() is None:
                raise NotFoundError(f"no project '{project_id}' in the store")
            stored = s.execute(select(CaseRow.id, CaseRow.request_id)
                               .where(CaseRow.project_id == project_id)).all()
            existing = {case_id for case_id, _ in stored}
            requests = {request_id for _, request_id in stored}
            existing |= set(s.scalars(select(AuditRow.case_id)  # erased: never stored again
                                      .where(AuditRow.outcome == ERASED)))
            seq = s.scalar(select(func.max(CaseRow.seq))
                           .where(CaseRow.project_id == project_id)) or 0
            for request, decision in items:
                if decision.case_id in existing or request.id in requests:
                    continue
                _storable(f"request {request.id!r}", request.id, request.title, request.text,
                          request.submitted_by, request.submitted_at, request.labels_json)
                existing.add(decision.case_id)
                requests.add(request.id)
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
                added.append(decision.case_id)
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

    def case_summaries(self, project_id: str, *,
                       status: str | None = None) -> list[CaseSummary]:
        """Cases of ``project_id`` as :class:`CaseSummary` (optionally only ``pending``
        or ``ruled``), in the order of :meth:`cases`: one query of the listed columns,
        and of each decision only its cited clauses and risk. For queues of many cases;
        :meth:`case` reads one whole case."""
        # SQLite decodes the two members itself (JSON1 is built in): 17 MB of decision
        # text stay in the database at 10,000 cases; elsewhere they are cut out here
        in_db = self.engine.dialect.name == "sqlite"
        decision_cols = ((func.json_extract(DecisionRow.decision_json, "$.cited_clauses"),
                          func.json_extract(DecisionRow.decision_json, "$.risk"))
                         if in_db else (DecisionRow.decision_json, DecisionRow.decision_json))
        stmt = (select(CaseRow.id, CaseRow.request_id, CaseRow.title, CaseRow.text,
                       CaseRow.submitted_by, CaseRow.submitted_at, CaseRow.created_at,
                       CaseRow.version, DecisionRow.verdict, DecisionRow.confidence,
                       *decision_cols, RulingRow.ruling, RulingRow.action,
                       RulingRow.reviewer, RulingRow.reason, RulingRow.ruled_at,
                       RulingRow.version)
                .join(DecisionRow, DecisionRow.case_id == CaseRow.id)
                .outerjoin(RulingRow, RulingRow.case_id == CaseRow.id)
                .where(CaseRow.project_id == project_id))
        if status is not None:
            stmt = stmt.where(CaseRow.status == status)
        stmt = stmt.order_by(CaseRow.created_at, CaseRow.seq, CaseRow.id)
        with self.engine.connect() as conn:  # Core rows: no ORM bookkeeping per row
            rows = conn.execute(stmt).all()
        risks: dict[tuple[object, ...], Risk] = {}
        out: list[CaseSummary] = []
        for (case_id, request_id, title, text_, submitted_by, submitted_at, created_at,
             version, verdict, confidence, refs_json, risk_json, ruling, action, reviewer,
             reason, ruled_at, ruling_version) in rows:
            record = None
            if ruling is not None:
                record = RulingRecord(case_id=case_id, ruling=ruling, action=action,
                                      reviewer=reviewer, reason=reason, ruled_at=ruled_at,
                                      verdict=verdict, version=ruling_version)
            out.append(CaseSummary(
                case_id=case_id, project_id=project_id, request_id=request_id, title=title,
                text=text_, submitted_by=submitted_by, submitted_at=submitted_at,
                created_at=created_at, version=version,
                decision=(_summary_of_members(refs_json, risk_json, verdict, confidence, risks)
                          if in_db else
                          decision_summary(refs_json, verdict, confidence, risks)),
                ruling=record))
        return out

    def cases_by_id(self, case_ids: Iterable[str]) -> list[CaseRecord]:
        """The whole cases of ``case_ids`` that exist, in the order asked (unknown ids
        are left out)."""
        wanted = list(dict.fromkeys(case_ids))
        found: dict[str, CaseRecord] = {}
        for at in range(0, len(wanted), 500):  # bounded IN lists
            stmt = (select(CaseRow, DecisionRow, RulingRow)
                    .join(DecisionRow, DecisionRow.case_id == CaseRow.id)
                    .outerjoin(RulingRow, RulingRow.case_id == CaseRow.id)
                    .where(CaseRow.id.in_(wanted[at:at + 500])))
            with self._read() as s:
                rows = s.execute(stmt).all()
            for row in rows:
                record = self._record(*row)
                found[record.case_id] = record
        return [found[k] for k in wanted if k in found]

    def project_name(self, project_id: str) -> str:
        """The stored project's name (``etki.yaml`` ``name``), without reading its
        knowledge. Raises :class:`NotFoundError`."""
        with self._read() as s:
            name = s.scalar(select(ProjectRow.name).where(ProjectRow.id == project_id))
        if name is None:
            self._project_row(project_id)  # raises NotFoundError naming the known ones
        return name or ""

    def project_languages(self, project_id: str) -> tuple[str, ...]:
        """The stored project's ``languages`` (``etki.yaml``), without reading its
        knowledge. Raises :class:`NotFoundError`."""
        cfg = json.loads(self._project_row(project_id).config_json)
        return tuple(cfg.get("languages", ())) or ("en",)

    def clauses(self, project_id: str) -> list[ScopeClause]:
        """The stored project's scope clauses in document order, without its modules
        and work items (:meth:`load_project` reads everything)."""
        with self._read() as s:
            rows = s.scalars(select(ClauseRow).where(ClauseRow.project_id == project_id)
                             .order_by(ClauseRow.position)).all()
        return [ScopeClause(
            ref=c.ref, contract_id=c.contract_id, number=c.number, title=c.title,
            text=c.text, kind=c.kind, level=c.level, source=c.source, line=c.line,  # type: ignore[arg-type]
            parent=c.parent, edges=tuple(Edge(**e) for e in json.loads(c.edges_json)),
        ) for c in rows]

    def workitems(self, project_id: str) -> list[WorkItem]:
        """The stored project's work items in file order (``effort_days`` in
        person-days or None), without its contracts and modules."""
        with self._read() as s:
            rows = s.scalars(select(WorkItemRow).where(WorkItemRow.project_id == project_id)
                             .order_by(WorkItemRow.position)).all()
        return [WorkItem(id=w.id, title=w.title, kind=w.kind, date=w.date,
                         modules=tuple(json.loads(w.modules_json)), effort_days=w.effort_days)
                for w in rows]

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
                               outcome="committed", before="pending", after=ruling,
                               **current_process().columns()))
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
                           before=before, after=before, **current_process().columns()))

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

    def audit_entries(self, case_id: str | None = None) -> list[AuditEntry]:
        """Every audit row (of ``case_id`` when given) as :class:`AuditEntry`, oldest
        first: the asserted reviewer with the OS user, host, pid and program beside it."""
        cols = list(AuditRow.__table__.c)
        stmt = select(*cols).order_by(AuditRow.__table__.c.id)
        if case_id is not None:
            stmt = stmt.where(AuditRow.__table__.c.case_id == case_id)
        with self.engine.connect() as conn:
            return [AuditEntry(**dict(r._mapping)) for r in conn.execute(stmt)]

    def project_audit(self, project_id: str | None = None) -> list[ProjectAuditEntry]:
        """Every ``project_audit`` row (of ``project_id`` when given), oldest first, as
        :class:`ProjectAuditEntry`."""
        t = ProjectAuditRow.__table__
        stmt = select(*t.c).order_by(t.c.id)
        if project_id is not None:
            stmt = stmt.where(t.c.project_id == project_id)
        out = []
        with self.engine.connect() as conn:
            for r in conn.execute(stmt):
                row = dict(r._mapping)
                before = tuple(Reviewer(**x) for x in json.loads(row.pop("before_json")))
                after = tuple(Reviewer(**x) for x in json.loads(row.pop("after_json")))
                out.append(ProjectAuditEntry(before=before, after=after, **row))
        return out

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
                           before=before, after=ERASED, **current_process().columns()))
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

    def erasable_text(self, case_id: str) -> list[str]:
        """The client and reviewer text an erasure of ``case_id`` removes: the request's
        title, text, submitter and labels, its ruling's reason and the reasons of its
        audit rows (what :mod:`etki.store.proof` searches the files for afterwards). Empty
        for an unknown case."""
        with self._read() as s:
            case = s.get(CaseRow, case_id)
            if case is None:
                return []
            ruling = s.get(RulingRow, case_id)
            out = [case.title, case.text, case.submitted_by, case.labels_json,
                   ruling.reason if ruling is not None else None]
            out += list(s.scalars(select(AuditRow.reason).where(
                AuditRow.case_id == case_id, AuditRow.reason != ERASED_REASON)))
        return [x for x in out if x]

    def live_bytes(self) -> bytes:
        """Every value of every live row (and on SQLite the schema), as bytes: what the
        store holds on purpose (:func:`etki.store.proof.live_bytes`)."""
        return proof.live_bytes(self.engine)

    def sqlite_path(self) -> Path | None:
        """The absolute path of the SQLite database file, or None (PostgreSQL, or an
        in-memory SQLite database)."""
        if self.engine.dialect.name != "sqlite":
            return None
        database = self.engine.url.database
        if not database or database == ":memory:":
            return None
        return Path(database).expanduser().absolute()

    def compact(self, words: Sequence[str] = (), *, wait_s: float = proof.DEFAULT_WAIT_S,
                notify: Callable[[str], None] | None = None) -> proof.Compaction:
        """Make deleted rows unrecoverable from the database files, as far as the backend
        allows, and check that it happened; ``words`` are the erased text's words only
        the deleted rows held (:func:`etki.store.proof.unique_words`), searched for
        afterwards. Waits at most ``wait_s`` seconds for another connection that holds
        compaction up (``notify`` is told once what it waits for).

        SQLite: checkpoint the WAL into the file, ``VACUUM`` (rewrites the file from live
        rows only) and truncate the WAL to zero bytes, each checkpoint's result checked
        (:func:`etki.store.proof.compact_sqlite`), then search the database file, WAL,
        shared-memory file and journal for ``words``. PostgreSQL: ``VACUUM`` the case
        tables until no dead row version is left, then rewrite them (``VACUUM FULL``) and,
        with ``pageinspect`` usable, search their pages for ``words``
        (:func:`etki.store.proof.compact_postgres`; older copies in the server's WAL
        archive and backups are the operator's to expire). Returns every place checked;
        ``blocker`` says what held compaction up. Raises the driver's error for a
        failure other than a busy database or a lock not granted in time."""
        if self.engine.dialect.name == "sqlite":
            path = self.sqlite_path()
            done = proof.compact_sqlite(self.engine, path or Path(":memory:"),
                                        wait_s=wait_s, notify=notify)
            if path is None:
                return done
            scans = [proof.scan_file(p, what, words) for p, what in proof.sqlite_files(path)]
            return proof.Compaction((*done.places, *scans), done.blocker)
        if self.engine.dialect.name == "postgresql":
            return proof.compact_postgres(self.engine, words, wait_s=wait_s, notify=notify)
        return proof.Compaction(())

    # --- reads for the wiki projection (issue 7) --------------------------------------

    def wiki_token(self, project_id: str) -> tuple[object, ...]:
        """A cheap change token of what the wiki reads of ``project_id``: the project row's
        ``index_hash`` (the hash of the whole knowledge index: clauses, contracts, modules),
        ``name``, ``config_json``, ``root`` and ``edge_types_json`` (a re-load that changes
        what the wiki shows changes one of them; ``loaded_at`` is left out on purpose: on
        SQLite it sits after the large index text and costs milliseconds to reach), then
        the number of its cases and the newest audit-log id (every ruling and erasure
        appends one). Shape: ``(index_hash, name, config_json, root, edge_types_json,
        case_count, max_audit_id)``. Raises :class:`NotFoundError` for an unknown
        project."""
        return self.wiki_poll(project_id, None)[0]

    def wiki_poll(self, project_id: str, after_audit_id: int | None,
                  ) -> tuple[tuple[object, ...], list[tuple[int, str]]]:
        """:meth:`wiki_token` and, unless ``after_audit_id`` is None,
        :meth:`audit_since` of it, read on one connection (the HITL hook's poll).
        Raises :class:`NotFoundError` for an unknown project."""
        p, a, c = ProjectRow.__table__.c, AuditRow.__table__.c, CaseRow.__table__.c
        count_q = (select(func.count()).select_from(CaseRow.__table__)
                   .where(c.project_id == project_id).scalar_subquery())
        audit_q = select(func.max(a.id)).scalar_subquery()
        with self.engine.connect() as conn:
            row = conn.execute(select(p.index_hash, p.name, p.config_json, p.root,
                                      p.edge_types_json, count_q, audit_q)
                               .where(p.id == project_id)).first()
            if row is None:
                raise NotFoundError(f"no project '{project_id}' in the store")
            *head, count, audit = tuple(row)
            rows: list[tuple[int, str]] = []
            if after_audit_id is not None:
                rows = [(int(i), str(x)) for i, x in conn.execute(
                    select(a.id, a.case_id).where(a.id > after_audit_id).order_by(a.id))]
        return (*head, int(count or 0), int(audit or 0)), rows

    def case_project_id(self, case_id: str) -> str:
        """The project id of a stored case. Raises :class:`NotFoundError` naming the
        id."""
        with self.engine.connect() as conn:
            pid = conn.execute(select(CaseRow.__table__.c.project_id)
                               .where(CaseRow.__table__.c.id == case_id)).scalar()
        if pid is None:
            raise NotFoundError(f"no case '{case_id}' in the store")
        return str(pid)

    def project_config(self, project_id: str) -> ProjectConfig:
        """The stored project's ``etki.yaml`` settings (id, name, languages, reviewers,
        thresholds) without reading its knowledge (:meth:`load_project` reads 2,000
        clauses, 5,000 modules and 20,000 work items to give the same object). Raises
        :class:`NotFoundError` for an unknown project."""
        p = ProjectRow.__table__.c
        with self.engine.connect() as conn:
            raw = conn.execute(select(p.config_json).where(p.id == project_id)).scalar()
        if raw is None:
            self._project_row(project_id)  # raises NotFoundError naming the known ones
        return _config_of(raw)

    def wiki_project(self, project_id: str) -> Project:
        """The stored project as far as the wiki reads it: like :meth:`load_project`
        (same config, contracts, clauses, modules, edge types) but without work items
        (``workitems`` is empty) and without clause edges (``edges`` is empty on every
        clause): the wiki renders neither, and they are most of the read. Raises
        :class:`NotFoundError` for an unknown project."""
        row = self._project_row(project_id)
        contracts_t, clauses_t = ContractRow.__table__.c, ClauseRow.__table__.c
        modules_t = ModuleRow.__table__.c
        with self.engine.connect() as conn:
            contracts = conn.execute(select(contracts_t.id, contracts_t.title,
                                            contracts_t.source, contracts_t.chunking)
                                     .where(contracts_t.project_id == project_id)
                                     .order_by(contracts_t.position)).all()
            clauses = conn.execute(select(clauses_t.ref, clauses_t.contract_id,
                                          clauses_t.number, clauses_t.title, clauses_t.text,
                                          clauses_t.kind, clauses_t.level, clauses_t.source,
                                          clauses_t.line, clauses_t.parent)
                                   .where(clauses_t.project_id == project_id)
                                   .order_by(clauses_t.position)).all()
            modules = conn.execute(select(modules_t.id, modules_t.path, modules_t.summary,
                                          modules_t.depends_on_json, modules_t.language)
                                   .where(modules_t.project_id == project_id)
                                   .order_by(modules_t.position)).all()
        by_contract: dict[str, list[ScopeClause]] = {}
        for c in clauses:
            by_contract.setdefault(c[1], []).append(ScopeClause(
                ref=c[0], contract_id=c[1], number=c[2], title=c[3], text=c[4], kind=c[5],
                level=c[6], source=c[7], line=c[8], parent=c[9], edges=()))
        return Project(
            config=_config_of(row.config_json), root=Path(row.root),
            contracts=tuple(Contract(id=c[0], title=c[1], source=c[2],
                                     clauses=tuple(by_contract.get(c[0], ())), chunking=c[3])
                            for c in contracts),
            modules=tuple(Module(id=m[0], path=m[1], summary=m[2],
                                 depends_on=tuple(json.loads(m[3])), language=m[4])
                          for m in modules),
            workitems=(),
            edge_types=tuple(tuple(e) for e in json.loads(row.edge_types_json)),  # type: ignore[misc]
        )

    def audit_since(self, after_id: int) -> list[tuple[int, str]]:
        """``(audit id, case id)`` of every audit row with an id above ``after_id``, oldest
        first (rulings, refused attempts and erasure tombstones of every project)."""
        a = AuditRow.__table__.c
        with self.engine.connect() as conn:
            return [(int(i), str(c)) for i, c in conn.execute(
                select(a.id, a.case_id).where(a.id > after_id).order_by(a.id))]

    def cases_by_ids(self, case_ids: Iterable[str]) -> list[CaseRecord]:
        """The stored cases among ``case_ids`` (ids not stored, e.g. erased, are left out),
        sorted by case id; same records as :meth:`case`, read in one query per 500 ids."""
        ids = sorted(set(case_ids))
        out: list[CaseRecord] = []
        with self.engine.connect() as conn:
            for i in range(0, len(ids), 500):
                stmt = _wiki_case_stmt().where(CaseRow.__table__.c.id.in_(ids[i:i + 500]))
                out.extend(_wiki_record(tuple(r)) for r in conn.execute(stmt))
        return sorted(out, key=lambda c: c.case_id)

    def wiki_case_briefs(self, project_id: str) -> list[CaseBrief]:
        """Every case of ``project_id`` as the :class:`CaseBrief` the wiki's shared pages
        read, without building full decisions (each frozen decision's JSON is parsed and
        dropped at once, so reading 10,000 cases never holds them all). Arrival order as
        :meth:`cases`."""
        c, d, r = CaseRow.__table__.c, DecisionRow.__table__.c, RulingRow.__table__.c
        stmt = (select(c.id, c.title, c.version, d.verdict, d.decision_json, r.ruling,
                       r.action, r.reviewer, r.reason, r.ruled_at, r.version)
                .select_from(CaseRow.__table__.join(DecisionRow.__table__, d.case_id == c.id)
                             .outerjoin(RulingRow.__table__, r.case_id == c.id))
                .where(c.project_id == project_id).order_by(c.created_at, c.seq, c.id))
        out = []
        with self.engine.connect() as conn:
            for cid, title, version, verdict, dj, ruling, action, reviewer, reason, at, rv \
                    in conn.execute(stmt):
                doc = json.loads(dj)
                rec = None
                if ruling is not None:
                    rec = RulingRecord(case_id=cid, ruling=ruling, action=action,
                                       reviewer=reviewer, reason=reason, ruled_at=at,
                                       verdict=verdict, version=rv)
                out.append(CaseBrief(cid, project_id, title,
                                     BriefDecision(doc["verdict"], tuple(doc["cited_clauses"]),
                                                   tuple(doc["impacted_modules"])),
                                     rec, version))
        return out

    def wiki_cases(self, project_id: str) -> list[CaseRecord]:
        """Every case of ``project_id`` as :meth:`cases` gives them (same records, same
        arrival order), read through SQLAlchemy Core rows instead of ORM objects (about
        twice as fast on 10,000 cases; the wiki rebuild reads this way)."""
        c = CaseRow.__table__.c
        stmt = (_wiki_case_stmt().where(c.project_id == project_id)
                .order_by(c.created_at, c.seq, c.id))
        with self.engine.connect() as conn:
            rows = conn.execute(stmt).all()
        return [_wiki_record(tuple(r)) for r in rows]


def _config_of(config_json: str) -> ProjectConfig:
    """The :class:`ProjectConfig` stored as ``config_json`` (as :meth:`load_project`
    builds it)."""
    cfg = json.loads(config_json)
    return ProjectConfig(
        id=cfg["id"], name=cfg["name"], languages=tuple(cfg.get("languages", ())),
        reviewers=tuple(Reviewer(**r) for r in cfg.get("reviewers", ())),
        thresholds=tuple(tuple(t) for t in cfg.get("thresholds", ())),
    )


def _wiki_case_stmt():  # noqa: ANN202 - a SQLAlchemy Select
    c, d, r = CaseRow.__table__.c, DecisionRow.__table__.c, RulingRow.__table__.c
    return (select(c.id, c.project_id, c.request_id, c.title, c.text, c.submitted_by,
                   c.submitted_at, c.created_at, c.version, d.verdict, d.decision_json,
                   r.ruling, r.action, r.reviewer, r.reason, r.ruled_at, r.version)
            .select_from(CaseRow.__table__.join(DecisionRow.__table__, d.case_id == c.id)
                         .outerjoin(RulingRow.__table__, r.case_id == c.id)))


def _wiki_record(row: tuple) -> CaseRecord:  # type: ignore[type-arg]
    (cid, pid, request_id, title, text_, by, at, created, version, verdict, dj,
     ruling, action, reviewer, reason, ruled_at, rversion) = row
    rec = None
    if ruling is not None:
        rec = RulingRecord(case_id=cid, ruling=ruling, action=action, reviewer=reviewer,
                           reason=reason, ruled_at=ruled_at, verdict=verdict, version=rversion)
    return CaseRecord(case_id=cid, project_id=pid, request_id=request_id, title=title,
                      text=text_, submitted_by=by, submitted_at=at, created_at=created,
                      version=version, decision=Decision.from_json(dj), ruling=rec)

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

