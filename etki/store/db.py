"""Engine creation for SQLite (embedded default) and PostgreSQL.

SQLite is opened in WAL mode with ``busy_timeout`` so that two reviewers' processes can
write the same file without "database is locked" (shared/cases/B15); write transactions
start with ``BEGIN IMMEDIATE`` so a reader never has to upgrade its lock mid-transaction
(the SQLite documentation, "Transaction": a deferred transaction that later writes can
fail with SQLITE_BUSY immediately; an immediate one waits on busy_timeout instead).

Every engine is made with ``hide_parameters=True``: an error never carries the SQL
parameters (client request text, titles, reasons) in its message.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

from etki.errors import InputError

SQLITE_BUSY_TIMEOUT_MS = 30_000


def make_engine(url: str) -> Engine:
    """Create an engine for ``url``. For a SQLite file the parent folder is created.

    Raises :class:`InputError` for a URL SQLAlchemy cannot parse."""
    try:
        parsed = make_url(url)
    except Exception as exc:
        raise InputError(f"ETKI_DB_URL: cannot parse {url!r}: {exc}") from exc
    if parsed.get_backend_name() != "sqlite":
        if parsed.drivername == "postgresql":
            parsed = parsed.set(drivername="postgresql+psycopg")
        return create_engine(parsed, pool_pre_ping=True, hide_parameters=True)
    database = parsed.database
    if database and database != ":memory:":
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(parsed, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
                           hide_parameters=True)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record):  # pragma: no cover - exercised by every test
        dbapi_conn.isolation_level = None  # we emit BEGIN ourselves (below)
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        cur.execute("PRAGMA journal_mode = WAL")
        cur.execute("PRAGMA synchronous = NORMAL")
        cur.execute("PRAGMA foreign_keys = ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn):  # pragma: no cover - exercised by every test
        immediate = conn.get_execution_options().get("etki_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine
