"""Schema migrations with Alembic (``etki/store/migrations``, shipped as package data).

* Revision ``0001`` is the schema as first released (what ``create_all`` made before
  migrations existed); later revisions change it step by step, never editing an old one.
* :func:`ensure_schema` runs on every :class:`~etki.store.CaseFileRepository` open: a
  database at head is left alone (one cheap read); an empty one is built by running
  every revision; one made by the first release without Alembic (its tables are there,
  ``alembic_version`` is not) is stamped ``0001`` and upgraded. The work happens in one
  write transaction (``BEGIN IMMEDIATE`` on SQLite, an advisory lock on PostgreSQL), so
  several processes opening a new store at once migrate it exactly once.
* ``etki db upgrade`` (:mod:`etki.commands.store`) calls :func:`upgrade` explicitly and says
  which revision the store went from and to.
* A store opened read-only (commands that only read) is never migrated: :func:`check_schema`
  refuses one that holds no Etki tables (:class:`~etki.errors.StoreMissingError`) or is
  not at the head revision (:class:`~etki.errors.StoreUnusableError`, saying to run
  ``etki db upgrade`` or a write command first).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, inspect, text
from sqlalchemy.exc import DBAPIError

from etki.errors import StoreMissingError, StoreUnusableError
from etki.store.failures import location

if TYPE_CHECKING:
    from alembic.config import Config

__all__ = [
    "FIRST_REVISION",
    "HEAD_REVISION",
    "MIGRATIONS_DIR",
    "check_schema",
    "current_revision",
    "ensure_schema",
    "has_tables",
    "head_revision",
    "missing_store",
    "upgrade",
]

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
FIRST_REVISION = "0001"
"""The schema as first released (before Alembic)."""
_PG_LOCK_KEY = 0x45_54_4B_49  # "ETKI": serialises migrations across PostgreSQL clients


HEAD_REVISION = "0013"
"""The newest shipped revision, written down so that opening a store at the head needs
no Alembic (importing it costs ~0.14 s of every command's start, issue 15);
``tests/test_migrations.py`` checks it against Alembic's own head of ``MIGRATIONS_DIR``.
Bump it with every new revision."""


def _config(connection: Connection | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


@lru_cache(maxsize=1)
def head_revision() -> str:
    """The newest revision id of the shipped migrations, as Alembic reads them from
    ``MIGRATIONS_DIR`` (what :data:`HEAD_REVISION` must equal)."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(_config()).get_current_head()
    assert head is not None
    return head


def _current(connection: Connection) -> str | None:
    """The revision in ``alembic_version`` (None when the table is absent or empty), read
    with one query as Alembic's ``MigrationContext.get_current_revision`` does for a
    linear history. The probe runs in a savepoint when a transaction is open, so a
    missing table does not abort it (PostgreSQL)."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    try:
        row = connection.execute(text("SELECT version_num FROM alembic_version")).first()
    except DBAPIError:  # dropped between the look and the read
        return None
    return None if row is None else str(row[0])


def current_revision(engine: Engine) -> str | None:
    """The revision the database at ``engine`` is stamped with (None: not stamped)."""
    with engine.connect() as conn:
        return _current(conn)


def _is_first_release(connection: Connection) -> bool:
    tables = set(inspect(connection).get_table_names())
    return "cases" in tables and "alembic_version" not in tables


def upgrade(engine: Engine, revision: str = "head") -> tuple[str | None, str]:
    """Bring the database at ``engine`` to ``revision`` in one write transaction and
    return ``(revision before, revision after)``; ``before`` is None for an empty
    database and :data:`FIRST_REVISION` for a first-release one (stamped first)."""
    with engine.connect() as conn:
        conn = conn.execution_options(etki_write=True)
        with conn.begin():
            if conn.dialect.name == "postgresql":
                conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_PG_LOCK_KEY})")
            before = _current(conn)
            from alembic import command

            if before is None and _is_first_release(conn):
                command.stamp(_config(conn), FIRST_REVISION)
                before = FIRST_REVISION
            command.upgrade(_config(conn), revision)
            after = _current(conn)
    assert after is not None
    return before, after


def ensure_schema(engine: Engine) -> None:
    """Make sure the database at ``engine`` is at the head revision (see the module
    docstring); a no-op read when it already is."""
    if current_revision(engine) == HEAD_REVISION:
        return
    upgrade(engine)


def has_tables(engine: Engine) -> bool:
    """Whether the database at ``engine`` holds any table (an empty SQLite file, a new
    PostgreSQL database or schema holds none). One read."""
    with engine.connect() as conn:
        return bool(inspect(conn).get_table_names())


def missing_store(engine: Engine) -> StoreMissingError:
    """The error for a database at ``engine`` that holds no Etki store."""
    where = location(engine.url)
    return StoreMissingError(
        where,
        f"no Etki store in {where} (ETKI_DB_URL): the database "
        "holds no Etki tables; run `etki init PROJECT_DIR` "
        "first",
    )


def check_schema(engine: Engine) -> None:
    """For a store opened read-only: return when the database at ``engine`` is at the
    head revision; raise :class:`StoreMissingError` (exit 2) when it holds no tables and
    :class:`StoreUnusableError` (exit 2) when it needs a migration, which a read-only
    command does not run. Reads only."""
    current = current_revision(engine)
    head = HEAD_REVISION
    if current == head:
        return
    if current is None and not has_tables(engine):
        raise missing_store(engine)
    where = location(engine.url)
    at = f"revision {current}" if current else "the first release's schema (unstamped)"
    raise StoreUnusableError(
        where,
        f"the store {where} is at {at}, and this version of "
        f"Etki reads revision {head}; a command that only reads "
        "does not migrate it: run `etki db upgrade` (or a "
        "write command such as `etki init PROJECT_DIR`) first",
    )
