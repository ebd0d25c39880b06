"""Schema migrations with Alembic (``etki/store/migrations``, shipped as package data).

* Revision ``0001`` is the schema as first released (what ``create_all`` made before
  migrations existed); later revisions change it step by step, never editing an old one.
* :func:`ensure_schema` runs on every :class:`~etki.store.CaseFileRepository` open: a
  database at head is left alone (one cheap read); an empty one is built by running
  every revision; one made by the first release without Alembic (its tables are there,
  ``alembic_version`` is not) is stamped ``0001`` and upgraded. The work happens in one
  write transaction (``BEGIN IMMEDIATE`` on SQLite, an advisory lock on PostgreSQL), so
  several processes opening a new store at once migrate it exactly once.
* ``etki db upgrade`` (:mod:`etki.store.cli`) calls :func:`upgrade` explicitly and says
  which revision the store went from and to.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, inspect

__all__ = ["FIRST_REVISION", "MIGRATIONS_DIR", "current_revision", "ensure_schema",
           "head_revision", "upgrade"]

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
FIRST_REVISION = "0001"
"""The schema as first released (before Alembic)."""
_PG_LOCK_KEY = 0x45_54_4B_49  # "ETKI": serialises migrations across PostgreSQL clients


def _config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


@lru_cache(maxsize=1)
def head_revision() -> str:
    """The newest revision id of the shipped migrations."""
    head = ScriptDirectory.from_config(_config()).get_current_head()
    assert head is not None
    return head


def _current(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


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
    if current_revision(engine) == head_revision():
        return
    upgrade(engine)
