"""Engine creation for SQLite (embedded default) and PostgreSQL.

SQLite is opened in WAL mode with ``busy_timeout`` so that two reviewers' processes can
write the same file without "database is locked" (shared/cases/B15); write transactions
start with ``BEGIN IMMEDIATE`` so a reader never has to upgrade its lock mid-transaction
(the SQLite documentation, "Transaction": a deferred transaction that later writes can
fail with SQLITE_BUSY immediately; an immediate one waits on busy_timeout instead).
"""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

from etki.errors import InputError, StoreMissingError
from etki.store import failures

SQLITE_BUSY_TIMEOUT_MS = 30_000


def make_engine(url: str, *, read_only: bool = False, create: bool = True) -> Engine:
    """Create an engine for ``url``. For a SQLite file the parent folder is created.

    ``read_only``: every connection is read-only (SQLite ``mode=ro``, PostgreSQL
    read-only transactions), so the command cannot change the store whatever it runs;
    it implies ``create=False``. ``create=False``: a SQLite file that does not exist is
    refused (:class:`StoreMissingError`, exit 2) and neither it nor its folder is made.
    Storage failures are reported as :class:`~etki.errors.StoreError` naming the file
    (:mod:`etki.store.failures`). Raises :class:`InputError` for a URL SQLAlchemy
    cannot parse (the message masks its password)."""
    try:
        parsed = make_url(url)
    except Exception as exc:
        raise InputError(f"ETKI_DB_URL: cannot parse {failures.mask_password(url)!r}: "
                         f"{failures.mask_password(str(exc))}") from exc
    if parsed.get_backend_name() != "sqlite":
        if parsed.drivername == "postgresql":
            parsed = parsed.set(drivername="postgresql+psycopg")
        engine = create_engine(parsed, pool_pre_ping=True)
        _guard(engine, parsed, read_only)
        return engine
    path = failures.sqlite_path(parsed)
    if path is not None and (read_only or not create) and not path.exists():
        full = "" if path.is_absolute() else f", that is {path.absolute()}"
        raise StoreMissingError(str(path), f"no Etki store at {path} (ETKI_DB_URL{full}): "
                                           "the file does not exist; run `etki init "
                                           "PROJECT_DIR` first (nothing was created)")
    if path is not None and not read_only:
        path.parent.mkdir(parents=True, exist_ok=True)
    if path is not None and read_only:
        engine = create_engine(parsed, creator=_read_only_sqlite(path))
    else:
        engine = create_engine(parsed, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000})
    _guard(engine, parsed, read_only)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record):  # pragma: no cover - exercised by every test
        dbapi_conn.isolation_level = None  # we emit BEGIN ourselves (below)
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        if not read_only:  # a read-only connection keeps the file's journal mode
            cur.execute("PRAGMA journal_mode = WAL")
        cur.execute("PRAGMA synchronous = NORMAL")
        cur.execute("PRAGMA foreign_keys = ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn):  # pragma: no cover - exercised by every test
        immediate = conn.get_execution_options().get("etki_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


# --- read-only engines and storage failures (issue 11 item 8) ---------------------------

def _read_only_sqlite(path: Path):
    """A connection factory opening ``path`` with SQLite's ``mode=ro`` URI: the driver
    refuses every write (``SQLITE_READONLY``), creates nothing, migrates nothing.

    A WAL store whose folder this process cannot write and that has no ``-shm`` file
    (the last writer closed cleanly, so the log is checkpointed into the file) is opened
    ``immutable=1`` as well: SQLite would otherwise need to create the ``-shm`` file to
    read it (``SQLITE_READONLY_DIRECTORY``); with no ``-shm`` and a folder nobody here can
    write there is no log to read."""
    import sqlite3

    base = path.resolve().as_uri() + "?mode=ro"
    shm = path.with_name(path.name + "-shm")

    def connect():  # decided per connection: a long-lived reader (etki mcp) sees a writer
        uri = base
        if not os.access(path.parent, os.W_OK) and not shm.exists():
            uri += "&immutable=1"
        return sqlite3.connect(uri, uri=True, timeout=SQLITE_BUSY_TIMEOUT_MS / 1000,
                               check_same_thread=False)

    return connect


def _guard(engine: Engine, url, read_only: bool) -> None:
    """Storage failures of ``engine`` become :class:`~etki.errors.StoreError` (see
    :mod:`etki.store.failures`); with ``read_only`` every PostgreSQL transaction is
    ``READ ONLY`` (the server refuses a write, SQLSTATE 25006)."""
    failures.install(engine, url)
    if read_only and engine.dialect.name == "postgresql":
        @event.listens_for(engine, "connect")
        def _read_only(dbapi_conn, _record):  # pragma: no cover - PostgreSQL tests
            dbapi_conn.read_only = True
