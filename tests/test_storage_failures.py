"""Storage failures (issue 11 item 8), each attack reproduced for real: a read-only store
(chmod, with root's capabilities dropped when the suite runs as root, where chmod alone
stops nothing), a file of garbage bytes and a damaged database, a store that does not exist,
a PostgreSQL URL with a password, and a disk that is really full (a tiny tmpfs in a user
namespace, and SQLite's own page limit). The CLI is run in real subprocesses."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import event, text

from etki.errors import StoreError, StoreMissingError, StoreUnusableError
from etki.store import CaseFileRepository
from etki.store.db import make_engine
from etki.store.migrate import current_revision, head_revision, upgrade
from tests.factories import frozen_clock, make_decision, make_project, make_request
from tests.pg import PG_URL, Schema

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_project"
PASSWORD = "Pa55-w0rd-7f3c"
"""A password no message may ever show."""


def _env(db_url: str | None, wiki: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ETKI_")}
    env.update(
        {"PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8", "ETKI_REVIEWER": "Ayşe Yılmaz"}
    )
    if db_url is not None:
        env["ETKI_DB_URL"] = db_url
    env["ETKI_WIKI_DIR"] = "" if wiki is None else wiki
    return env


def run(
    cwd: Path,
    *args: str,
    db_url: str | None,
    wiki: str | None = None,
    module: str = "etki.cli",
    prefix: tuple[str, ...] = (),
    stdin: str | None = None,
) -> subprocess.CompletedProcess:
    """``python -m MODULE ARGS`` in ``cwd`` (``prefix`` goes before it, e.g. the
    privilege drop of :func:`reader_prefix`)."""
    argv = [*prefix, "-m", module, *args] if prefix else [sys.executable, "-m", module, *args]
    return subprocess.run(
        argv,
        cwd=cwd,
        env=_env(db_url, wiki),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
        input=stdin if stdin is not None else "",
    )


def _ok_error(done: subprocess.CompletedProcess, code: int) -> str:
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    return done.stderr


def _digest(path: Path) -> tuple[str, int]:
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


def _listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


# --- a stored project, made once ---------------------------------------------------------


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding ``etki.db`` (the sample project, one case ruled) and its wiki
    ``wiki-demo``, made by the real CLI."""
    folder = tmp_path_factory.mktemp("base")
    url, wiki = f"sqlite:///{folder}/etki.db", str(folder / "wiki-{project}")
    assert run(folder, "init", str(SAMPLE), db_url=url, wiki=wiki).returncode == 0
    queue = json.loads(run(folder, "queue", "--json", db_url=url).stdout)
    done = run(
        folder,
        "rule",
        queue[0]["case_id"],
        "approve",
        "--reason",
        "as proposed",
        db_url=url,
        wiki=wiki,
    )
    assert done.returncode == 0, done.stderr
    assert not (folder / "etki.db-wal").exists()  # closed cleanly: one file holds it all
    return folder


@pytest.fixture
def store(base: Path, tmp_path: Path) -> Path:
    """A private copy of :func:`base` (folder with ``etki.db`` and ``wiki-demo``)."""
    folder = tmp_path / "store"
    shutil.copytree(base, folder)
    return folder


READ_COMMANDS: list[tuple[str, tuple[str, ...]]] = [
    ("etki.cli", ("queue",)),
    ("etki.cli", ("queue", "--all", "--json")),
    ("etki.cli", ("projects",)),
    ("etki.cli", ("triage", "--project", "demo", "SSO login fails for staff")),
    ("etki.cli", ("index", "show", "demo")),
    ("etki.cli", ("db", "current")),
    ("etki.cli", ("report", "--project", "demo", "--format", "csv")),
    ("etki.wiki", ("verify",)),
    ("etki.wiki", ("show", "index")),
    ("etki.wiki", ("search", "payment")),
]
"""Commands that only read the store (README, "Read-only commands"), each with
arguments that succeed on the sample store."""


@pytest.mark.slow
def test_read_commands_change_no_byte_of_the_store(store: Path) -> None:
    """``mode=ro`` semantics, for any user: after every read command the store's bytes and
    mtime are the same and nothing was logged to write; the only files that may appear
    are SQLite's own ``-shm`` index and an empty ``-wal`` (a reader of a WAL database
    makes them and, being read-only, does not delete them on close)."""
    db = store / "etki.db"
    wal = store / "etki.db-wal"
    before, files = _digest(db), _listing(store)
    url, wiki = f"sqlite:///{db}", str(store / "wiki-{project}")
    for module, args in READ_COMMANDS:
        done = run(store, *args, db_url=url, wiki=wiki, module=module)
        assert done.returncode == 0, (args, done.stderr)
        assert _digest(db) == before, args
        assert set(_listing(store)) - set(files) <= {"etki.db-shm", "etki.db-wal"}, args
        assert not wal.exists() or wal.stat().st_size == 0, args


def test_a_read_only_repository_cannot_write(store: Path) -> None:
    """The guard is SQLite's, not a convention: a write through a read-only repository
    fails as "read-only" naming the file, and the file is untouched (root included)."""
    db = store / "etki.db"
    before = _digest(db)
    repo = CaseFileRepository(f"sqlite:///{db}", read_only=True)
    case = repo.cases("demo", status="pending")[0]
    with pytest.raises(StoreUnusableError) as info:
        repo.record_ruling(
            case.case_id, "approve", "Ayşe Yılmaz", "ok", expected_version=case.version
        )
    repo.dispose()
    assert "read-only" in str(info.value) and str(db) in str(info.value)
    assert info.value.exit_code == 2
    assert _digest(db) == before


# --- a store nobody here may write -------------------------------------------------------


def reader_prefix() -> tuple[str, ...]:
    """The argv prefix that runs Python as a process chmod stops: none needed for an
    ordinary user; as root, ``setpriv`` with every capability dropped (root without
    CAP_DAC_OVERRIDE is held to the owner's permission bits like anyone). Skips with the
    reason when root cannot drop them here."""
    if os.geteuid() != 0:
        return (sys.executable,)
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip(
            "running as root, where chmod does not stop writes, and setpriv "
            "(util-linux) is not installed to drop root's capabilities"
        )
    prefix = (setpriv, "--bounding-set=-all", "--inh-caps=-all", "--", sys.executable)
    probe = subprocess.run(
        [*prefix, "-c", "print(open('/proc/self/status').read())"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if probe.returncode != 0 or "CapEff:\t0000000000000000" not in probe.stdout:
        pytest.skip(
            "running as root, where chmod does not stop writes, and the "
            f"capabilities cannot be dropped here: {probe.stderr.strip()[-200:]}"
        )
    return prefix


@pytest.fixture
def read_only_store(base: Path, tmp_path: Path) -> Iterator[Path]:
    """A copy of the stored project in a folder that is read-only (``0555``, the file
    ``0444``, the wiki too)."""
    folder = tmp_path / "store"
    shutil.copytree(base, folder)
    for path in sorted(folder.rglob("*"), reverse=True):
        path.chmod(0o555 if path.is_dir() else 0o444)
    folder.chmod(0o555)
    yield folder
    for path in [folder, *folder.rglob("*")]:
        path.chmod(stat.S_IRWXU | path.stat().st_mode)


@pytest.mark.slow
def test_read_commands_work_on_a_read_only_store(read_only_store: Path) -> None:
    """The attack: chmod the SQLite file and its folder read-only (the commands
    run as a process chmod stops, :func:`reader_prefix`). Every read command
    still answers (before, each open ran a write transaction and failed); a command that
    writes says the store is read-only and names it; nothing changes."""
    prefix = reader_prefix()
    db = read_only_store / "etki.db"
    before, files = _digest(db), _listing(read_only_store)
    url, wiki = f"sqlite:///{db}", str(read_only_store / "wiki-{project}")
    for module, args in READ_COMMANDS:
        done = run(read_only_store, *args, db_url=url, wiki=wiki, module=module, prefix=prefix)
        assert done.returncode == 0, (args, done.stderr)
    queue = run(read_only_store, "queue", "--json", db_url=url, prefix=prefix)
    assert len(json.loads(queue.stdout)) == 39
    case = json.loads(queue.stdout)[0]["case_id"]
    rule = run(read_only_store, "rule", case, "approve", db_url=url, prefix=prefix)
    err = _ok_error(rule, 2)
    assert "read-only" in err and str(db) in err
    assert _digest(db) == before and _listing(read_only_store) == files


def test_mcp_serves_a_read_only_store(read_only_store: Path) -> None:
    """``etki mcp`` (read-only by design) answers over a read-only store."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    prefix = reader_prefix()
    db = read_only_store / "etki.db"
    before = _digest(db)
    params = StdioServerParameters(
        command=prefix[0],
        args=[*prefix[1:], "-m", "etki.cli", "mcp"],
        env=_env(f"sqlite:///{db}", str(read_only_store / "wiki-{project}")),
        cwd=str(read_only_store),
    )

    async def main() -> object:
        async with Client(params) as client:
            return await client.call_tool("graph_query", {"question": "single sign-on"})

    result = asyncio.run(asyncio.wait_for(main(), 120))
    assert not result.is_error and "nodes" in json.dumps(result.structured_content)
    assert _digest(db) == before


def test_an_older_store_opened_read_only_says_to_upgrade(tmp_path: Path) -> None:
    """A read command never migrates: a store at an older revision is refused with what
    to run, left at its revision; after `etki db upgrade` the same command works."""
    db = tmp_path / "etki.db"
    engine = make_engine(f"sqlite:///{db}")
    upgrade(engine, "0002")
    engine.dispose()
    before = _digest(db)
    url = f"sqlite:///{db}"
    err = _ok_error(run(tmp_path, "queue", db_url=url), 2)
    assert "revision 0002" in err and "etki db upgrade" in err and str(db) in err
    assert _digest(db) == before
    assert run(tmp_path, "db", "upgrade", db_url=url).returncode == 0
    done = run(tmp_path, "queue", db_url=url)
    assert done.returncode == 0 and "no cases waiting" in done.stdout
    engine = make_engine(url, read_only=True)
    assert current_revision(engine) == head_revision()
    engine.dispose()


# --- a store that does not exist ---------------------------------------------------------

MISSING_COMMANDS: list[tuple[str, tuple[str, ...]]] = [
    *READ_COMMANDS,
    ("etki.cli", ("queue", "--project", "demo")),
    ("etki.cli", ("rule", "req-demo-12345678", "approve")),
    ("etki.cli", ("erase", "req-demo-12345678", "--reason", "KVKK")),
    ("etki.cli", ("mcp",)),
    ("etki.cli", ("eval", "retrieval", "queries.jsonl", "--project", "demo")),
    ("etki.cli", ("eval", "triage", "labels.jsonl", "--project", "demo")),
    ("etki.wiki", ("rebuild",)),
    ("etki.wiki", ("show", "req-demo-12345678")),
    # the desk without a folder to load: a trial's `etki-tui --project tdrs` in /tmp made
    # /tmp/.etki/etki.db, and `etki queue` there then said "no cases waiting"
    ("etki_tui", ("--project", "demo")),
    ("etki_tui", ()),
]


@pytest.mark.parametrize(
    ("module", "args"),
    MISSING_COMMANDS,
    ids=[" ".join((m.split(".")[-1], *a[:2])) or m for m, a in MISSING_COMMANDS],
)
def test_a_missing_store_is_refused_and_not_created(
    tmp_path: Path, module: str, args: tuple[str, ...]
) -> None:
    """The attack: `ETKI_DB_URL=sqlite:///typo/etki.db etki queue`, and the default
    store in an empty folder. Exit 2 naming the path and `etki init`; no file or folder
    is created (before, an empty store was made and the command reported success)."""
    (tmp_path / "queries.jsonl").write_text(
        '{"id": "q1", "question": "sso", "relevant": ["x"]}\n', encoding="utf-8"
    )
    (tmp_path / "labels.jsonl").write_text(
        '{"id": "r1", "text": "sso", "label": "IN_SCOPE"}\n', encoding="utf-8"
    )
    files = _listing(tmp_path)
    for url in ("sqlite:///typo/etki.db", None):  # None: the default .etki/etki.db
        done = run(
            tmp_path, *args, db_url=url, wiki=str(tmp_path / "wiki-{project}"), module=module
        )
        err = _ok_error(done, 2)
        assert ("typo/etki.db" if url else ".etki/etki.db") in err
        assert "etki init PROJECT_DIR" in err
        # a trial ran `etki queue` inside the project folder after `etki init` elsewhere
        assert "run from the folder `etki init` ran in, or set ETKI_DB_URL" in err
        assert _listing(tmp_path) == files


def test_a_read_only_repository_never_creates_the_store(tmp_path: Path) -> None:
    """The same refusal in-process (the MCP server and the wiki CLI open stores so),
    for read-only and for existing-only opens; neither the file nor its folder appears."""
    url = f"sqlite:///{tmp_path}/typo/etki.db"
    for kwargs in ({"read_only": True}, {"create": False}):
        with pytest.raises(StoreMissingError) as info:
            CaseFileRepository(url, **kwargs)
        assert info.value.exit_code == 2 and str(tmp_path / "typo" / "etki.db") in str(info.value)
        assert not (tmp_path / "typo").exists()


def test_an_empty_file_is_no_store(tmp_path: Path) -> None:
    """A 0-byte file (say, `touch etki.db`) is not taken for a store by a read command
    and stays 0 bytes."""
    db = tmp_path / "etki.db"
    db.touch()
    err = _ok_error(run(tmp_path, "projects", db_url=f"sqlite:///{db}"), 2)
    assert str(db) in err and "no Etki tables" in err and "etki init" in err
    assert db.read_bytes() == b""
    assert _listing(tmp_path) == ["etki.db"]


# --- a corrupt store ----------------------------------------------------------------------


def _commands_on(folder: Path, url: str) -> list[subprocess.CompletedProcess]:
    wiki = str(folder / "wiki-{project}")
    return [
        run(folder, "queue", "--all", db_url=url, wiki=wiki),
        run(folder, "projects", db_url=url, wiki=wiki),
        run(folder, "verify", db_url=url, wiki=wiki, module="etki.wiki"),
        run(folder, "init", str(SAMPLE), db_url=url, wiki=wiki),
    ]


def test_a_file_of_garbage_is_named_and_left_alone(tmp_path: Path) -> None:
    """The attack: garbage bytes where the store should be. Every command, `init`
    included, names the file and says it is not a usable store (exit 2); the bytes stay."""
    db = tmp_path / "etki.db"
    db.write_bytes(hashlib.sha512(b"etki").digest() * 2048)  # 128 KiB, not a database
    before = _digest(db)
    for done in _commands_on(tmp_path, f"sqlite:///{db}"):
        err = _ok_error(done, 2)
        assert str(db) in err and "not a usable Etki store" in err
        assert "file is not a database" in err
    assert _digest(db) == before


def test_a_damaged_store_is_named_and_left_alone(store: Path) -> None:
    """A real store with its pages after the first overwritten (a torn copy): SQLite's
    "database disk image is malformed" now names the file."""
    db = store / "etki.db"
    data = bytearray(db.read_bytes())
    page = int.from_bytes(data[16:18], "big")  # the page size, header offset 16
    data[page:] = hashlib.sha512(b"torn").digest() * ((len(data) - page) // 64)
    db.write_bytes(bytes(data))
    before = _digest(db)
    for done in _commands_on(store, f"sqlite:///{db}"):
        err = _ok_error(done, 2)
        assert str(db) in err and "not a usable Etki store" in err
    assert _digest(db) == before


# --- PostgreSQL URLs with a password ----------------------------------------------------


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed when the block ends: nothing listens there


@pytest.mark.slow
def test_a_postgres_password_is_never_printed(tmp_path: Path) -> None:
    """The attack: a PostgreSQL URL with a password, to a closed port and unparsable;
    neither the error nor anything else printed shows the password."""
    pytest.importorskip("psycopg")
    port = _closed_port()
    urls = [
        f"postgresql://etki:{PASSWORD}@127.0.0.1:{port}/etki",
        f"postgresql+psycopg://etki:{PASSWORD}@127.0.0.1:{port}/etki?connect_timeout=5",
        f"postgresql://etki:{PASSWORD}@[::1/etki",
    ]
    for url in urls:
        for args in (("queue",), ("init", str(SAMPLE)), ("db", "current")):
            done = run(tmp_path, *args, db_url=url)
            assert done.returncode != 0
            assert PASSWORD not in done.stderr + done.stdout, (url, args, done.stderr)
    err = _ok_error(run(tmp_path, "queue", db_url=urls[2]), 2)
    assert "etki:***@" in err  # the URL is named, masked


@pytest.mark.postgres
def test_postgres_read_commands_are_read_only_and_mask_the_password(
    tmp_path: Path, pg_schema: Schema
) -> None:
    """On the real server (trust auth ignores the password): an empty schema is no store
    for a read command (exit 2, the URL named with ``***``, nothing created); after `etki
    init` the read commands answer, and a read-only session refuses a write."""
    url = f"postgresql://postgres:{PASSWORD}@127.0.0.1:5432/test?options=-csearch_path%3D{pg_schema.name}"
    err = _ok_error(run(tmp_path, "queue", db_url=url), 2)
    assert "postgres:***@127.0.0.1:5432/test" in err and "etki init PROJECT_DIR" in err
    assert PASSWORD not in err
    probe = make_engine(url)
    with probe.connect() as conn:
        assert (
            conn.execute(
                text("SELECT count(*) FROM information_schema.tables WHERE table_schema = :s"),
                {"s": pg_schema.name},
            ).scalar()
            == 0
        )
    assert run(tmp_path, "init", str(SAMPLE), db_url=url).returncode == 0
    done = run(tmp_path, "queue", "--json", db_url=url)
    assert done.returncode == 0 and len(json.loads(done.stdout)) == 40
    repo = CaseFileRepository(url, read_only=True)
    case = repo.cases("demo")[0]
    with pytest.raises(StoreUnusableError) as info:
        repo.record_ruling(
            case.case_id, "approve", "Ayşe Yılmaz", "ok", expected_version=case.version
        )
    repo.dispose()
    assert "read-only" in str(info.value) and PASSWORD not in str(info.value)
    assert CaseFileRepository(url).case(case.case_id).ruling is None
    probe.dispose()


# --- a full disk ----------------------------------------------------------------------------


def test_sqlite_full_names_the_file(tmp_path: Path) -> None:
    """SQLite's own limit (``PRAGMA max_page_count``) makes a real SQLITE_FULL: the write
    fails as "disk full" naming the file, the transaction is rolled back, and what was
    stored before is still there."""
    db = tmp_path / "etki.db"
    repo = CaseFileRepository(f"sqlite:///{db}", clock=frozen_clock)
    repo.save_project(make_project(), "sha256:1", b"{}")
    repo.dispose()
    pages = db.stat().st_size // 4096
    engine = make_engine(f"sqlite:///{db}")

    @event.listens_for(engine, "connect")
    def _cap(dbapi_conn, _record):
        dbapi_conn.execute(f"PRAGMA max_page_count = {pages + 2}")

    repo = CaseFileRepository(engine, clock=frozen_clock)
    big = [
        (make_request(f"r{i}", "x" * 20_000), make_decision(f"req-demo-{i:08x}")) for i in range(20)
    ]
    with pytest.raises(StoreError) as info:
        repo.add_cases("demo", big)
    assert "disk full" in str(info.value) and str(db) in str(info.value)
    assert info.value.exit_code == 1
    assert repo.project_ids() == ["demo"] and repo.cases("demo") == []
    repo.dispose()


def _unshare_ok() -> bool:
    probe = shutil.which("unshare") and subprocess.run(
        ["unshare", "-Urm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
        capture_output=True,
        timeout=30,
    )
    return bool(probe) and probe.returncode == 0


def _full_disk(
    tmp_path: Path,
    size: str,
    *args: str,
    db_url: str | None = None,
) -> tuple[Path, subprocess.CompletedProcess]:
    """Run ``etki ARGS`` with ``tmp_path/disk`` a real tmpfs of ``size`` (mounted in a
    user namespace); skips where that is not allowed."""
    if not _unshare_ok():
        pytest.skip("cannot mount a tmpfs in a user namespace here (unshare -Urm)")
    disk = tmp_path / "disk"
    disk.mkdir()
    quoted = " ".join(f"'{a}'" for a in args)
    script = (
        f"mount -t tmpfs -o size={size} tmpfs {disk} && exec {sys.executable} -m etki.cli {quoted}"
    )
    done = subprocess.run(
        ["unshare", "-Urm", "sh", "-c", script],
        cwd=tmp_path,
        env=_env(db_url or f"sqlite:///{disk}/etki.db", None),
        capture_output=True,
        text=True,
        timeout=300,
    )
    return disk, done


@pytest.mark.parametrize("size", ["20k", "300k"])
def test_init_on_a_full_disk_says_disk_full(tmp_path: Path, size: str) -> None:
    """The attack: the store on a filesystem that fills up (a real tmpfs of 20 KiB or
    300 KiB, mounted in a user namespace). 20 KiB fails growing the ``-shm`` file, which
    SQLite calls "disk I/O error"; 300 KiB fails in the write-ahead log (SQLITE_FULL).
    Both now read "disk full" and name the file; exit 1, no traceback."""
    disk, done = _full_disk(tmp_path, size, "init", str(SAMPLE))
    err = _ok_error(done, 1)
    assert f"disk full: the store {disk / 'etki.db'}" in err
    assert "0 bytes free" in err


def test_a_file_write_on_a_full_disk_names_the_file(tmp_path: Path) -> None:
    """ENOSPC on a file Etki writes (the knowledge index): "disk full" and the file."""
    disk, done = _full_disk(
        tmp_path,
        "8k",
        "index",
        "build",
        str(SAMPLE),
        "--output",
        str(tmp_path / "disk" / "index.json"),
        db_url=f"sqlite:///{tmp_path}/etki.db",
    )
    err = _ok_error(done, 1)
    assert f"disk full: cannot write {disk / 'index.json'}" in err


# --- found by the fresh-user trial of stop 17 ------------------------------------------------


def test_a_write_in_a_read_only_folder_says_read_only(store: Path, tmp_path: Path) -> None:
    """The store file is writable, its folder is not (SQLite cannot create the journal
    beside it: ``SQLITE_CANTOPEN``): a command that writes says the folder is read-only,
    exit 2 (before: "check that its folder exists and can be read", wrong advice)."""
    prefix = reader_prefix()
    folder = tmp_path / "ro"
    shutil.copytree(store, folder)
    db = folder / "etki.db"
    for extra in ("etki.db-wal", "etki.db-shm"):
        (folder / extra).unlink(missing_ok=True)
    folder.chmod(0o555)
    try:
        url = f"sqlite:///{db}"
        queue = run(folder, "queue", "--json", db_url=url, prefix=prefix)
        assert queue.returncode == 0, queue.stderr
        case = json.loads(queue.stdout)[0]["case_id"]
        err = _ok_error(
            run(folder, "rule", case, "approve", "--reason", "ok", db_url=url, prefix=prefix), 2
        )
        assert "read-only" in err and str(db) in err, err
        assert "can be read" not in err
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize(
    ("url", "says"),
    [
        (f"mysql://u:{PASSWORD}@127.0.0.1/db", "does not store in 'mysql' databases"),
        (f"postgresql+nosuchdriver://u:{PASSWORD}@127.0.0.1/db", "no PostgreSQL driver"),
    ],
)
def test_an_unsupported_database_url_is_bad_input(tmp_path: Path, url: str, says: str) -> None:
    """A URL of a database Etki does not store in, or a driver that is not installed,
    is exit 2 naming ETKI_DB_URL (before: internal error ModuleNotFoundError); never the
    password."""
    err = _ok_error(run(tmp_path, "queue", db_url=url), 2)
    assert "ETKI_DB_URL" in err and says in err and PASSWORD not in err
    assert _listing(tmp_path) == []


@pytest.mark.postgres
def test_a_database_user_without_write_access_is_told_so(tmp_path: Path, pg_schema: Schema) -> None:
    """A PostgreSQL role that may only read (SELECT): read commands answer; a ruling
    is exit 2 saying the user may not write (before: internal error
    ProgrammingError InsufficientPrivilege); nothing is stored."""
    import uuid

    from sqlalchemy import create_engine

    url = f"postgresql://postgres@127.0.0.1:5432/test?options=-csearch_path%3D{pg_schema.name}"
    assert run(tmp_path, "init", str(SAMPLE), db_url=url).returncode == 0
    role = f"etki_ro_{uuid.uuid4().hex[:8]}"
    admin = create_engine(PG_URL)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE ROLE "{role}" LOGIN'))
        conn.execute(text(f'GRANT USAGE ON SCHEMA "{pg_schema.name}" TO "{role}"'))
        conn.execute(text(f'GRANT SELECT ON ALL TABLES IN SCHEMA "{pg_schema.name}" TO "{role}"'))
    try:
        ro_url = (
            f"postgresql://{role}:{PASSWORD}@127.0.0.1:5432/test"
            f"?options=-csearch_path%3D{pg_schema.name}"
        )
        queue = run(tmp_path, "queue", "--json", db_url=ro_url)
        assert queue.returncode == 0, queue.stderr
        case = json.loads(queue.stdout)[0]["case_id"]
        err = _ok_error(run(tmp_path, "rule", case, "approve", "--reason", "ok", db_url=ro_url), 2)
        assert "may not write" in err and PASSWORD not in err, err
        repo = CaseFileRepository(url)
        assert repo.case(case).ruling is None
        repo.dispose()
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP OWNED BY "{role}"'))
            conn.execute(text(f'DROP ROLE "{role}"'))
        admin.dispose()
