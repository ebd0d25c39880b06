"""What every part of the repository shares: the engine, its sessions, the clock (the
database's, :meth:`StoreBase.now`), the
guard against text no backend can store, the insert-or-update of one row, and the
project row with its knowledge read back (:meth:`StoreBase._read_project`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

from sqlalchemy import Connection, CursorResult, Engine, Result, func, select, text
from sqlalchemy.orm import Session

from etki.domain import Project, ScopeClause
from etki.errors import CaseErasedError, InputError, NotFoundError
from etki.identity import current_process
from etki.store.history import ERASED
from etki.store.models import (
    AuditRow,
    CaseEventRow,
    CaseRow,
    ClauseRow,
    ContractRow,
    ModuleRow,
    ProjectRow,
    WorkItemRow,
)
from etki.store.repository.rows import (
    CLAUSE_COLUMNS,
    MODULE_COLUMNS,
    WORKITEM_COLUMNS,
    clause_of,
    config_of,
    contract_of,
    edge_types_of,
    module_of,
    workitem_of,
)

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """This machine's wall clock in UTC. Not the store's clock: every stored time that
    orders events or expires something comes from :meth:`StoreBase.now` (issue 30
    item 6); this one is for what is shown, never stored."""
    return datetime.now(UTC)


_DB_TIME = {
    # clock_timestamp(), not now(): now() is the start of the transaction, frozen
    # however long it runs, so a time taken late in a long transaction would sort
    # before one committed meanwhile
    "postgresql": "SELECT clock_timestamp()",
    # SQLite runs in the writer's process: its 'now' is the operating system's clock
    # (gettimeofday), the one time an embedded database has
    "sqlite": "SELECT strftime('%Y-%m-%dT%H:%M:%f', 'now')",
}


def db_time(conn: Connection) -> datetime:
    """The database's current time (aware, UTC) read on ``conn``: ``clock_timestamp()``
    on PostgreSQL (the server's clock, advancing inside a transaction), SQLite's
    ``strftime(..., 'now')`` (milliseconds); another backend falls back to this
    machine's clock."""
    query = _DB_TIME.get(conn.dialect.name)
    if query is None:
        return utc_now()
    value = conn.execute(text(query)).scalar_one()
    if isinstance(value, str):  # SQLite: "2026-12-06T19:32:13.123", UTC without a zone
        return datetime.fromisoformat(value).replace(tzinfo=UTC)
    moment = cast(datetime, value)
    return moment.astimezone(UTC) if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


STORE_CLOCK_KEY = "store_clock"
"""``meta`` key of the last time a SQLite write transaction took (:func:`store_order`),
``2026-11-29T12:00:00Z``."""


def store_order(conn: Connection, moment: datetime) -> datetime:
    """``moment`` (this SQLite writer's clock) put in the store's order, inside its write
    transaction on ``conn``: when it falls before the last time written (the ``meta``
    row :data:`STORE_CLOCK_KEY`; a second's resolution, as times are stored), this
    writer's clock is behind the store's, so the write is dated one second after that
    last time instead; the result is written back as the last time. Times that order
    rulings, amendments, resolutions and events thus follow the order the writes were
    committed in whatever each writer's clock says (issue 30 item 6). A writer whose
    clock ran ahead dates the writes after it ahead too (a second apart), until the
    real time passes its mark: the order stays true, the dates are its."""
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    from etki.store.models import MetaRow

    last = conn.execute(select(MetaRow.value).where(MetaRow.key == STORE_CLOCK_KEY)).scalar()
    stamp = iso(moment)
    if last is not None and stamp < last:
        moment = datetime.fromisoformat(last.replace("Z", "+00:00")) + timedelta(seconds=1)
        stamp = iso(moment)
    if stamp != last:
        conn.execute(
            sqlite_insert(MetaRow)
            .values(key=STORE_CLOCK_KEY, value=stamp)
            .on_conflict_do_update(index_elements=["key"], set_={"value": stamp})
        )
    return moment


def iso(moment: datetime) -> str:
    """ISO-8601 UTC to the second: ``2026-11-29T12:00:00Z``."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
"""NUL and lone surrogates: text neither backend can store."""


def storable(what: str, *values: str | None) -> None:
    """Raise :class:`InputError` when a value holds NUL or a lone surrogate: PostgreSQL
    cannot store NUL at all and neither backend can encode a lone surrogate, so both
    refuse the same input the same way (the loaders already reject it with file and
    line; this guards every other way in)."""
    if any(v is not None and UNSTORABLE.search(v) for v in values):
        raise InputError(
            f"{what} holds a NUL character or a lone surrogate: not text Etki can store; remove it"
        )


def rowcount(result: Result[Any]) -> int:
    """How many rows the ``UPDATE`` or ``DELETE`` that gave ``result`` matched."""
    return cast(CursorResult[Any], result).rowcount


def event_row(
    case_id: str,
    project_id: str,
    kind: str,
    actor: str,
    at: str,
    *,
    text: str = "",
    until: str | None = None,
) -> CaseEventRow:
    """A ``case_events`` row: ``kind`` of ``case_id`` (of ``project_id``) by ``actor`` at
    ``at`` (ISO 8601, the store's time), with ``text`` and ``until`` (a claim's end), and
    the writing process's identity (:func:`current_process`)."""
    return CaseEventRow(
        case_id=case_id,
        project_id=project_id,
        kind=kind,
        actor=actor,
        text=text,
        at=at,
        until=until,
        **current_process().columns(),
    )


def add_event_with_audit(
    s: Session,
    case: CaseRow,
    *,
    kind: str,
    actor: str,
    text: str,
    at: str,
    state: str,
    reason: str,
    outcome: str,
) -> None:
    """Add to the write transaction ``s`` a ``kind`` case event of ``case`` (a row
    :meth:`StoreBase.lock_case` locked) by ``actor`` with ``text``, and its audit-log
    row: action ``kind``, ``reason`` and ``outcome``, the ruling ``state`` before and
    after unchanged, the case's version. Both rows carry the time ``at`` (ISO 8601,
    the store's time) and the writing process's identity (:func:`current_process`)."""
    s.add(event_row(case.id, case.project_id, kind, actor, at, text=text))
    s.add(
        AuditRow(
            case_id=case.id,
            reviewer=actor,
            action=kind,
            ruling=state,
            reason=reason,
            at=at,
            version=case.version,
            outcome=outcome,
            before=state,
            after=state,
            **current_process().columns(),
        )
    )


def _dialect_insert(dialect: str, model: type) -> Any:
    """``INSERT`` into ``model`` in the form of ``dialect`` (``postgresql`` or
    ``sqlite``), which has ``ON CONFLICT``."""
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as postgresql_insert

        return postgresql_insert(model)
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(model)


class StoreBase:
    """The engine and clock the parts of :class:`~etki.store.CaseFileRepository` share,
    with their sessions. Set up by the repository's constructor: ``clock`` is
    :meth:`db_clock` unless a test injected one (a frozen clock)."""

    engine: Engine
    clock: Clock
    read_only: bool
    url: str | None

    def db_clock(self) -> datetime:
        """The database's current time (aware, UTC), read on a connection of its own
        (:func:`db_time`): the repository's ``clock`` unless a test injects one."""
        with self.engine.connect() as conn:
            return db_time(conn)

    def now(self, s: Session | Connection | None = None, *, ordered: bool = True) -> datetime:
        """The store's time (aware, UTC): the injected ``clock`` when a test set one,
        else the database's (:func:`db_time`), read on ``s`` when given (inside a write
        transaction, after its locks are held: times follow the order writers commit
        in). Every stored time that orders events or expires something is taken here,
        never from the writer's clock (issue 30 item 6: a machine a year ahead must
        neither block the others for a year nor reorder rulings).

        On SQLite the database's clock is the writing process's own (``faketime`` moves
        it), so inside a write transaction (``BEGIN IMMEDIATE``: writers one at a time)
        the time is put in the store's order (:func:`store_order`): never before the
        last time written. ``ordered=False`` is for a time that only expires something
        (a claim's start and end; their bound is checked by the reader,
        :data:`~etki.store.repository.events.CLAIM_MAX_MINUTES`)."""
        if self.clock != self.db_clock or s is None:
            return self.clock()
        conn = s.connection() if isinstance(s, Session) else s
        moment = db_time(conn)
        if (
            ordered
            and conn.dialect.name == "sqlite"
            and conn.get_execution_options().get("etki_write")
        ):
            return store_order(conn, moment)
        return moment

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

    def lock_case(self, s: Session, case_id: str) -> CaseRow:
        """The ``cases`` row of ``case_id``, locked for the rest of the write transaction
        ``s`` (issue 30 item 1): every writer of a case's text (notes, events, claims,
        rulings and amendments, refused attempts, pre-analyses) and the erasure take it
        first, so an erasure and a write never interleave. PostgreSQL: ``SELECT ... FOR
        UPDATE`` (a writer waits for an erasure holding the row, then finds it gone);
        SQLite: the write transaction is ``BEGIN IMMEDIATE`` already, so writers are
        serialised whole and the read is enough.

        Raises :class:`CaseErasedError` when the case was erased (a tombstone in the
        audit log), ``during`` True when the case was there before the lock was granted
        (an erasure removed it while this waited); :class:`NotFoundError` for a case
        that was never stored."""
        stmt = (
            select(CaseRow).where(CaseRow.id == case_id).execution_options(populate_existing=True)
        )
        seen = False
        if self.engine.dialect.name == "postgresql":
            seen = s.scalar(select(CaseRow.id).where(CaseRow.id == case_id)) is not None
            stmt = stmt.with_for_update()
        case = s.scalars(stmt).first()
        if case is not None:
            return case
        gone = s.scalar(
            select(func.count())
            .select_from(AuditRow)
            .where(AuditRow.case_id == case_id, AuditRow.outcome == ERASED)
        )
        if gone or seen:
            raise CaseErasedError(case_id, during=seen)
        raise NotFoundError(f"no case '{case_id}' in the store")

    def _upsert(
        self,
        s: Session,
        model: type,
        values: dict[str, object],
        keys: tuple[str, ...],
        *,
        update: bool,
    ) -> None:
        """Insert ``values`` as a row of ``model``; when a row with the same ``keys``
        exists (committed, or being inserted by a concurrent transaction, which this one
        then waits for), update it to ``values`` (``update``) or leave it alone. One
        ``INSERT ... ON CONFLICT`` on PostgreSQL and SQLite, so two processes storing
        the same row never meet a unique-key violation; a read, then a write, elsewhere."""
        name = self.engine.dialect.name
        if name in ("postgresql", "sqlite"):
            stmt = _dialect_insert(name, model).values(**values)
            changed = {k: v for k, v in values.items() if k not in keys}
            s.execute(
                stmt.on_conflict_do_update(index_elements=list(keys), set_=changed)
                if update and changed
                else stmt.on_conflict_do_nothing(index_elements=list(keys))
            )
            return
        row = s.get(model, tuple(values[k] for k in keys))
        if row is None:
            s.add(model(**values))
        elif update:
            for key, value in values.items():
                setattr(row, key, value)
        s.flush()

    def _insert_new(
        self, s: Session, model: type, values: dict[str, object], keys: tuple[str, ...]
    ) -> bool:
        """Insert ``values`` as a row of ``model`` unless a row with the same ``keys``
        exists (or a concurrent transaction is inserting it: this one waits for it);
        True when this call inserted it. ``INSERT ... ON CONFLICT DO NOTHING RETURNING``
        on PostgreSQL and SQLite (an ORM insert reports no reliable row count)."""
        name = self.engine.dialect.name
        if name in ("postgresql", "sqlite"):
            key_columns = [getattr(model, k) for k in keys]
            stmt = (
                _dialect_insert(name, model)
                .values(**values)
                .on_conflict_do_nothing(index_elements=list(keys))
                .returning(*key_columns)
            )
            return s.execute(stmt).first() is not None
        if s.get(model, tuple(values[k] for k in keys)) is not None:
            return False
        s.add(model(**values))
        s.flush()
        return True

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()

    # --- the project row -----------------------------------------------------------------

    def _no_project(self, project_id: str) -> NotFoundError:
        """The error for a project that is not stored, naming the ones that are."""
        with self._read() as s:
            ids = list(s.scalars(select(ProjectRow.id).order_by(ProjectRow.id)))
        known = ", ".join(ids) or "none yet (run `etki init PROJECT_DIR`)"
        return NotFoundError(f"no project '{project_id}' in the store; known: {known}")

    def _project_row(self, project_id: str) -> ProjectRow:
        """The ``projects`` row of ``project_id``. Raises :class:`NotFoundError`."""
        with self._read() as s:
            row = s.get(ProjectRow, project_id)
        if row is None:
            raise self._no_project(project_id)
        return row

    def _read_project(
        self, project_id: str, *, whole: bool, workitems: bool | None = None
    ) -> Project:
        """The stored :class:`Project` of ``project_id`` (without requests): ``whole``
        with its work items and the clauses' edges, else without either (``workitems``
        and every clause's ``edges`` empty); ``workitems`` (default: ``whole``) reads
        the work items either way. Raises :class:`NotFoundError`."""
        row = self._project_row(project_id)
        clause_columns = (*CLAUSE_COLUMNS, ClauseRow.edges_json) if whole else CLAUSE_COLUMNS
        with self.engine.connect() as conn:
            contracts = conn.execute(
                select(ContractRow.id, ContractRow.title, ContractRow.source, ContractRow.chunking)
                .where(ContractRow.project_id == project_id)
                .order_by(ContractRow.position)
            ).all()
            clauses = conn.execute(
                select(*clause_columns)
                .where(ClauseRow.project_id == project_id)
                .order_by(ClauseRow.position)
            ).all()
            modules = conn.execute(
                select(*MODULE_COLUMNS)
                .where(ModuleRow.project_id == project_id)
                .order_by(ModuleRow.position)
            ).all()
            items = (
                conn.execute(
                    select(*WORKITEM_COLUMNS)
                    .where(WorkItemRow.project_id == project_id)
                    .order_by(WorkItemRow.position)
                ).all()
                if (whole if workitems is None else workitems)
                else []
            )
        by_contract: dict[str, list[ScopeClause]] = {}
        for c in clauses:
            clause = clause_of(*c)
            by_contract.setdefault(clause.contract_id, []).append(clause)
        return Project(
            config=config_of(row.config_json),
            root=Path(row.root),
            contracts=tuple(
                contract_of(*c, clauses=tuple(by_contract.get(c[0], ()))) for c in contracts
            ),
            modules=tuple(module_of(*m) for m in modules),
            workitems=tuple(workitem_of(*w) for w in items),
            edge_types=edge_types_of(row.edge_types_json),
        )
