"""Engine creation for SQLite (embedded default) and PostgreSQL.

SQLite is opened in WAL mode with ``busy_timeout`` so that two reviewers' processes can
write the same file without "database is locked" (shared/cases/B15); write transactions
start with ``BEGIN IMMEDIATE`` so a reader never has to upgrade its lock mid-transaction
(the SQLite documentation, "Transaction": a deferred transaction that later writes can
fail with SQLITE_BUSY immediately; an immediate one waits on busy_timeout instead).

PostgreSQL connections have a connect timeout and a ``statement_timeout``
(``ETKI_DB_CONNECT_TIMEOUT``, ``ETKI_DB_STATEMENT_TIMEOUT``, :func:`etki.config.db_timeouts`),
so a server that accepts TCP and never answers, or a statement stuck behind another
session's lock, ends in :class:`~etki.errors.StoreUnavailableError` or
:class:`~etki.errors.StatementTimeoutError` naming ``host:port`` instead of a hang.

Every engine is made with ``hide_parameters=True``: an error never carries the SQL
parameters (client request text, titles, reasons) in its message.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

from sqlalchemy import Engine, create_engine, event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import URL, make_url

from etki.errors import InputError, StatementTimeoutError, StoreMissingError, StoreUnavailableError
from etki.store import failures

SQLITE_BUSY_TIMEOUT_MS = 30_000
SUPPORTED_BACKENDS = ("sqlite", "postgresql")
"""The databases Etki's schema and migrations are written and tested for."""
PSYCOPG_UNLIMITED_CONNECT_S = 130
"""What psycopg waits per address when ``connect_timeout`` is 0 or unset
(``psycopg.conninfo._DEFAULT_CONNECT_TIMEOUT``)."""
_QUERY_CANCELED = "57014"  # SQLSTATE query_canceled (statement_timeout, or a cancel)


def make_engine(
    url: str,
    *,
    read_only: bool = False,
    create: bool = True,
    connect_timeout: float | None = None,
    statement_timeout: float | None = None,
) -> Engine:
    """Create an engine for ``url``. For a SQLite file the parent folder is created.

    ``read_only``: every connection is read-only (SQLite ``mode=ro``, PostgreSQL
    read-only transactions), so the command cannot change the store whatever it runs;
    it implies ``create=False``. ``create=False``: a SQLite file that does not exist is
    refused (:class:`StoreMissingError`, exit 2) and neither it nor its folder is made.
    Storage failures are reported as :class:`~etki.errors.StoreError` naming the file
    (:mod:`etki.store.failures`).

    ``connect_timeout`` and ``statement_timeout`` are seconds (0: no limit) for a
    PostgreSQL URL; None reads ``ETKI_DB_CONNECT_TIMEOUT`` / ``ETKI_DB_STATEMENT_TIMEOUT``
    (:func:`etki.config.db_timeouts`, defaults 10 s and 60 s). A ``connect_timeout`` in
    the URL's query, or a ``statement_timeout`` in its ``options``, wins over them.

    Raises :class:`InputError` for a URL SQLAlchemy cannot parse (the message masks its
    password) or a timeout variable that is not a number of seconds. Connecting later
    raises :class:`StoreUnavailableError` (refused, or no answer within the connect
    timeout) and a statement cancelled by the server's ``statement_timeout`` raises
    :class:`StatementTimeoutError`, both naming ``host:port`` (never the password)."""
    try:
        parsed = make_url(url)
    except Exception as exc:
        raise InputError(
            f"ETKI_DB_URL: cannot parse {failures.mask_password(url)!r}: "
            f"{failures.mask_password(str(exc))}"
        ) from exc
    backend = parsed.get_backend_name()
    if backend not in SUPPORTED_BACKENDS:
        raise InputError(
            f"ETKI_DB_URL: Etki does not store in {backend!r} databases; use "
            "sqlite:///PATH (the default) or postgresql://USER@HOST/DB"
        )
    if backend != "sqlite":
        if connect_timeout is None or statement_timeout is None:
            from etki.config import db_timeouts

            env_connect, env_statement = db_timeouts()
            connect_timeout = env_connect if connect_timeout is None else connect_timeout
            statement_timeout = env_statement if statement_timeout is None else statement_timeout
        if parsed.drivername == "postgresql":
            parsed = parsed.set(drivername="postgresql+psycopg")
        try:
            engine = _postgres_engine(parsed, connect_timeout, statement_timeout)
        except (sa_exc.NoSuchModuleError, ModuleNotFoundError) as exc:
            raise InputError(
                f"ETKI_DB_URL: no PostgreSQL driver {parsed.drivername!r} here "
                f"({type(exc).__name__}); use postgresql:// or "
                "postgresql+psycopg:// (psycopg 3, installed with Etki)"
            ) from exc
        _guard(engine, parsed, read_only)
        return engine
    path = failures.sqlite_path(parsed)
    if path is not None and (read_only or not create) and not path.exists():
        full = "" if path.is_absolute() else f", that is {path.absolute()}"
        named = (
            "ETKI_DB_URL" if os.environ.get("ETKI_DB_URL") else "the default; ETKI_DB_URL is unset"
        )
        raise StoreMissingError(
            str(path),
            f"no Etki store at {path} ({named}{full}): "
            "the file does not exist; run `etki init "
            "PROJECT_DIR` first (nothing was created)"
            + (
                "; a relative store is under the folder a command runs in: run from the "
                "folder `etki init` ran in, or set ETKI_DB_URL"
                if full
                else ""
            ),
        )
    if path is not None and not read_only:
        path.parent.mkdir(parents=True, exist_ok=True)
    if path is not None and read_only:
        engine = create_engine(parsed, creator=_read_only_sqlite(path), hide_parameters=True)
    else:
        engine = create_engine(
            parsed, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}, hide_parameters=True
        )
    _guard(engine, parsed, read_only)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record):  # pragma: no cover - exercised by every test
        dbapi_conn.isolation_level = None  # we emit BEGIN ourselves (below)
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        if not read_only:  # a read-only connection keeps the file's journal mode
            _set_wal(cur)
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
        return sqlite3.connect(
            uri, uri=True, timeout=SQLITE_BUSY_TIMEOUT_MS / 1000, check_same_thread=False
        )

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


def _set_wal(cur) -> None:  # noqa: ANN001 - a sqlite3 cursor
    """``PRAGMA journal_mode = WAL`` on a new connection. The mode is kept in the file, so
    once a store is in WAL this only reads it. Switching a new file needs an exclusive
    lock, and SQLite answers "database is locked" at once instead of calling the busy
    handler when several processes open a new store together (seen in CI: 4 processes,
    test_processes_opening_a_new_store_at_once_migrate_it_once); so it is retried, at
    most for the busy timeout, until one of them has switched the file."""
    import sqlite3
    import time

    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            if cur.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal":
                return
            cur.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.005)  # the other opener holds the lock for a few milliseconds


def _query_value(url: URL, key: str) -> str | None:
    value = url.query.get(key)
    if isinstance(value, tuple):  # a repeated parameter (several hosts)
        return ",".join(value) if value else None
    return value


def server_of(url: URL) -> str:
    """``host:port`` of a PostgreSQL URL as libpq resolves it: the URL's host and port,
    else its ``host``/``port`` query parameters (a socket folder, or ``h1:p1,h2:p2`` for
    several hosts), else ``PGHOST``/``PGPORT``, else the local socket and 5432. Never
    the user or password."""
    port = url.port or _query_value(url, "port") or os.environ.get("PGPORT") or 5432
    if url.host:
        return f"[{url.host}]:{port}" if ":" in url.host else f"{url.host}:{port}"
    host = _query_value(url, "host") or os.environ.get("PGHOST") or "local socket"
    if ":" in host and not host.startswith("/"):  # host:port pairs already
        return host
    return f"{host}:{port}"


def _libpq_connect_seconds(value: str | int) -> int:
    """The connect timeout libpq and psycopg apply for ``value`` (whole seconds; 1 counts
    as 2; 0 or less: psycopg's :data:`PSYCOPG_UNLIMITED_CONNECT_S`)."""
    try:
        seconds = int(float(value))
    except ValueError:
        return PSYCOPG_UNLIMITED_CONNECT_S
    return PSYCOPG_UNLIMITED_CONNECT_S if seconds <= 0 else max(2, seconds)


def _postgres_engine(url: URL, connect_timeout: float, statement_timeout: float) -> Engine:
    connect_args: dict[str, object] = {}
    in_url = _query_value(url, "connect_timeout")
    own = max(1, math.ceil(connect_timeout)) if in_url is None and connect_timeout > 0 else 0
    if own:
        connect_args["connect_timeout"] = own
    connect_s = _libpq_connect_seconds(in_url if in_url is not None else own)
    connect_source = (
        "connect_timeout in ETKI_DB_URL" if in_url is not None else "ETKI_DB_CONNECT_TIMEOUT"
    )
    options = _query_value(url, "options") or os.environ.get("PGOPTIONS") or ""
    own_statement_limit = "statement_timeout" not in options
    statement_ms = max(1, round(statement_timeout * 1000)) if statement_timeout > 0 else 0
    engine = create_engine(url, pool_pre_ping=True, hide_parameters=True, connect_args=connect_args)
    server = server_of(url)
    secret = url.password

    if own_statement_limit and statement_ms:

        @event.listens_for(engine, "connect")
        def _statement_timeout(dbapi_conn, _record) -> None:
            # the SQLAlchemy documentation's recipe for a per-connection SET (autocommit,
            # so no transaction is left open); a SET rather than the start-up ``options``
            # parameter, which PgBouncer refuses unless told to ignore it
            autocommit = dbapi_conn.autocommit
            dbapi_conn.autocommit = True
            cur = dbapi_conn.cursor()
            cur.execute(f"SET statement_timeout = {statement_ms}")
            cur.close()
            dbapi_conn.autocommit = autocommit

    @event.listens_for(engine, "handle_error")
    def _typed(ctx) -> Exception | None:  # noqa: ANN001 - sqlalchemy ExceptionContext
        if ctx.is_pre_ping:  # a stale pooled connection: SQLAlchemy reconnects
            return None
        orig = ctx.original_exception
        if getattr(orig, "sqlstate", None) == _QUERY_CANCELED and "statement timeout" in str(orig):
            return StatementTimeoutError(
                server, statement_ms / 1000 if own_statement_limit and statement_ms else None
            )
        if ctx.connection is None and isinstance(ctx.sqlalchemy_exception, sa_exc.OperationalError):
            detail = " ".join(str(orig).split())
            if secret:
                detail = detail.replace(secret, "***")
            if "timeout expired" in detail:
                return StoreUnavailableError(
                    server,
                    f"did not answer within {connect_s} s ({connect_source})",
                    "check that PostgreSQL runs there and that ETKI_DB_URL names the right "
                    "host and port",
                )
            return StoreUnavailableError(server, f"did not accept the connection: {detail[:400]}")
        return None

    return engine
