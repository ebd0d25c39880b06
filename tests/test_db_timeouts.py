"""A PostgreSQL server that does not answer (issue 11 item 5): ``etki queue`` against a
port that accepts TCP and never says a word hung (psycopg's own limit is 130 s per
address, then a raw ``OperationalError``). Now the connect timeout
(``ETKI_DB_CONNECT_TIMEOUT``) and the statement timeout (``ETKI_DB_STATEMENT_TIMEOUT``)
end it with a typed error naming ``host:port``, never the password.

Real processes, a small local socket server (a thread that accepts and never answers),
and the real PostgreSQL on 127.0.0.1:5432 for the statement timeout."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from etki.config import Settings, db_timeouts
from etki.errors import InputError, StoreUnavailableError
from etki.store import CaseFileRepository
from etki.store.db import make_engine
from tests.cli_support import run_etki
from tests.factories import frozen_clock, make_project
from tests.pg import Schema

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "s3cret-Parola"


@pytest.fixture
def psycopg():
    """The PostgreSQL driver (the tests that connect skip without it)."""
    return pytest.importorskip(
        "psycopg", reason="psycopg not installed (pip install 'etki[postgres]')"
    )


class SilentServer:
    """A TCP server on 127.0.0.1 (free port) in a daemon thread: accepts every
    connection, keeps it open and never sends a byte. ``accepted`` counts connections."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self._held: list[socket.socket] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:  # closed by __exit__
                return
            self._held.append(conn)
            self.accepted += 1

    def __enter__(self) -> SilentServer:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.sock.close()
        for conn in self._held:
            conn.close()
        self._thread.join(timeout=5)


def _etki(tmp_path: Path, url: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    """Run ``python -m etki.cli ARGS`` with ``ETKI_DB_URL=url`` and ``env``; the 120 s
    limit only keeps a regression from hanging the suite."""
    full = {**os.environ, "ETKI_DB_URL": url, "ETKI_WIKI_DIR": "", **env}
    return run_etki([*args], env=full, cwd=tmp_path)  # in this process: tests/cli_support.py


@pytest.mark.slow
def test_queue_fails_naming_the_server_that_never_answers(tmp_path, psycopg):
    with SilentServer() as server:
        url = f"postgresql://etki:{PASSWORD}@127.0.0.1:{server.port}/etki"
        done = _etki(tmp_path, url, "queue", ETKI_DB_CONNECT_TIMEOUT="1")
        assert server.accepted >= 1  # it did reach the silent server
    assert done.returncode == 1
    assert done.stdout == ""
    # libpq counts a 1 s connect timeout as 2 s
    assert done.stderr == (
        f"etki: error: the PostgreSQL server at 127.0.0.1:{server.port} did not answer "
        "within 2 s (ETKI_DB_CONNECT_TIMEOUT); check that PostgreSQL runs there and that "
        "ETKI_DB_URL names the right host and port\n"
    )
    assert PASSWORD not in done.stderr


def test_a_refused_connection_names_the_server_and_no_password(tmp_path, psycopg):
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]  # closed again: nothing listens there now
    done = _etki(tmp_path, f"postgresql://etki:{PASSWORD}@127.0.0.1:{port}/etki", "queue")
    assert done.returncode == 1
    assert done.stderr.startswith(
        f"etki: error: the PostgreSQL server at 127.0.0.1:{port} did not accept the connection: "
    )
    assert "Connection refused" in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert PASSWORD not in done.stderr


@pytest.mark.slow
def test_a_connect_timeout_in_the_url_wins(psycopg):
    with SilentServer() as server:
        url = f"postgresql://etki:{PASSWORD}@127.0.0.1:{server.port}/etki?connect_timeout=3"
        engine = make_engine(url, connect_timeout=600, statement_timeout=60)
        with pytest.raises(StoreUnavailableError) as err:
            CaseFileRepository(engine)
    assert err.value.server == f"127.0.0.1:{server.port}"
    assert err.value.reason == "did not answer within 3 s (connect_timeout in ETKI_DB_URL)"
    assert PASSWORD not in str(err.value)


def test_timeouts_come_from_the_environment():
    assert db_timeouts({}) == (10.0, 60.0)
    assert db_timeouts({"ETKI_DB_CONNECT_TIMEOUT": " 2.5 ", "ETKI_DB_STATEMENT_TIMEOUT": "0"}) == (
        2.5,
        0.0,
    )
    with pytest.raises(InputError, match="ETKI_DB_STATEMENT_TIMEOUT: '-5'"):
        Settings.from_env({"ETKI_DB_STATEMENT_TIMEOUT": "-5"})  # every command checks it
    for bad in ("soon", "-1", "nan", "inf"):
        with pytest.raises(
            InputError, match=f"ETKI_DB_CONNECT_TIMEOUT: '{bad}' is not a number of seconds"
        ):
            db_timeouts({"ETKI_DB_CONNECT_TIMEOUT": bad})


def test_a_bad_timeout_is_bad_input(tmp_path):
    done = _etki(
        tmp_path, f"sqlite:///{tmp_path}/etki.db", "queue", ETKI_DB_STATEMENT_TIMEOUT="a minute"
    )
    assert done.returncode == 2
    assert done.stderr == (
        "etki: error: ETKI_DB_STATEMENT_TIMEOUT: 'a minute' is not a "
        "number of seconds; use e.g. 60, or 0 for no limit\n"
    )
    assert not (tmp_path / "etki.db").exists()


@pytest.fixture
def pg_demo(pg_schema: Schema) -> tuple[str, Engine, str]:
    """A migrated PostgreSQL schema holding the demo project: ``(url, admin engine,
    schema)``; the URL reaches the schema through libpq's ``options``."""
    repo = CaseFileRepository(pg_schema.engine(), clock=frozen_clock)
    repo.save_project(make_project(), "sha256:abc", b"{}\n")
    repo.dispose()
    return pg_schema.url, pg_schema.admin, pg_schema.name


@pytest.mark.postgres
def test_every_connection_carries_the_statement_timeout(pg_demo):
    url, _admin, schema = pg_demo
    for seconds, shown in ((60, "1min"), (1.5, "1500ms"), (0, "0")):
        engine = make_engine(url, connect_timeout=10, statement_timeout=seconds)
        with engine.connect() as conn:
            assert conn.exec_driver_sql("SHOW statement_timeout").scalar() == shown
            assert conn.exec_driver_sql("SHOW search_path").scalar() == schema
        engine.dispose()
    own = make_engine(
        f"{url}%20-cstatement_timeout%3D7s", connect_timeout=10, statement_timeout=60
    )  # the URL's options win
    with own.connect() as conn:
        assert conn.exec_driver_sql("SHOW statement_timeout").scalar() == "7s"
    own.dispose()


@pytest.mark.postgres
def test_a_statement_stuck_behind_a_lock_is_cancelled(pg_demo, tmp_path):
    """Another session holds a lock on ``projects``: ``etki queue`` used to wait for it
    for ever; with a 1 s statement timeout it stops, names the server and exits 1, and
    once the lock is gone the same command works."""
    url, admin, schema = pg_demo
    with admin.connect() as holder:
        holder.execute(text(f'LOCK TABLE "{schema}".projects IN ACCESS EXCLUSIVE MODE'))
        stuck = _etki(tmp_path, url, "queue", ETKI_DB_STATEMENT_TIMEOUT="1")
        holder.rollback()
    assert stuck.returncode == 1
    assert stuck.stderr == (
        "etki: error: the PostgreSQL server at 127.0.0.1:5432 cancelled a statement that "
        "ran longer than 1 s (ETKI_DB_STATEMENT_TIMEOUT); another session may hold a lock "
        "it waits for: finish that session, or raise the limit (0: none)\n"
    )
    free = _etki(tmp_path, url, "queue", ETKI_DB_STATEMENT_TIMEOUT="1")
    assert (free.returncode, free.stdout, free.stderr) == (0, "no cases waiting for a ruling\n", "")
