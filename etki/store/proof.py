"""Compaction after an erasure, and the proof that it worked (issue 11 item 2).

An erasure deletes rows (:meth:`etki.store.CaseFileRepository.erase_case`); the deleted
bytes can stay on disk until the database is compacted, and compaction can be held up
by another connection. Nothing here trusts a command to have worked: every step's own
result is checked, and then the files (SQLite) or the server's own account of the
vacuum (PostgreSQL) are examined. Each thing looked at is a :class:`Place`.

Words searched for (:func:`erased_words`, :func:`unique_words`): the erased text's own
words of 4 or more word characters (longest first, at most :data:`MAX_WORDS`) that the
live rows no longer hold (a word another case or a contract still uses proves nothing).
Each is searched as bytes in every form a store keeps text in (:func:`forms`: NFC and
NFD UTF-8, JSON ``\\uXXXX`` escapes). Places name how many words were searched and how
many were found, never the words (they are the erased text).

SQLite (:func:`compact_sqlite`): ``PRAGMA wal_checkpoint(TRUNCATE)`` returns
``(busy, log frames, checkpointed frames)``; it is complete only when ``busy`` is 0 and
every frame was copied. Another connection's read transaction keeps it from completing
(the frames after that reader's snapshot cannot be copied): the first try does not wait,
then :data:`DEFAULT_WAIT_S` (or the caller's bound) is spent waiting for the reader
through SQLite's busy handler (it returns as soon as the reader ends), then ``VACUUM``
rewrites the file from live rows and a second checkpoint truncates the WAL. Then the main
file, ``-wal``, ``-shm`` and ``-journal`` are scanned (:func:`scan_file`).

PostgreSQL (:func:`compact_postgres`): ``VACUUM (VERBOSE)`` of the case tables (their
TOAST tables included) reports, per table, how many dead row versions it could not
remove yet (``N are dead but not yet removable``) because an older snapshot may still
see them (a ``REPEATABLE READ`` transaction begun before the erasure, say). Until that is
0 for every table the erased rows are still in the table's pages; the sessions holding
such snapshots (``pg_stat_activity.backend_xmin``) are named, waited for within the
bound, and the vacuum is run again. When the server's messages are not in English (the
count cannot be read) the sessions holding a snapshot stand in for it. When the
``pageinspect`` extension is installed and usable, every page of those tables (heap and
TOAST, free space included) is also read with ``get_raw_page`` and searched for the
words; a table whose pages still hold one (a removed row's bytes stay in a page's free
space until the page is rewritten) is rewritten with ``VACUUM FULL`` and read again. The
server's WAL archive and backups are outside what Etki can reach: the report says so.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import re
import time
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine

from etki.store.db import SQLITE_BUSY_TIMEOUT_MS
from etki.text import plural

__all__ = [
    "CASE_TABLES",
    "DEFAULT_WAIT_S",
    "MAX_WORDS",
    "Compaction",
    "Place",
    "compact_postgres",
    "compact_sqlite",
    "erased_words",
    "forms",
    "leftover_places",
    "live_bytes",
    "scan_file",
    "unique_words",
]

DEFAULT_WAIT_S = 10.0
"""How long (seconds) compaction waits, by default, for another connection to end the
transaction that holds it up, before it reports what holds the data (``etki erase
--wait``)."""

MAX_WORDS = 32
"""At most this many words of the erased text are searched for: the longest ones (a
longer word is less likely to occur in anything else). Each costs one pass over each
file."""

CASE_TABLES = (
    "cases",
    "decisions",
    "rulings",
    "audit_log",
    "decision_contexts",
    "case_events",
    "preanalyses",
    "deleted_case_events",
)
"""The tables an erasure deletes from or rewrites (PostgreSQL vacuums these)."""

_WORD = re.compile(r"\w{4,}")
_DEAD = (
    re.compile(r"(\d+) are dead but not yet removable"),  # PostgreSQL 14 and later
    re.compile(r"(\d+) dead row versions cannot be removed yet"),
)  # 13
_VACUUMING = re.compile(r'^vacuuming "([^"]+)"')

Notify = Callable[[str], None]


@dataclass(frozen=True)
class Place:
    """One place an erasure's proof looked at: ``what`` names it (with its file path
    where it has one), ``held`` is True when the erased data (or something that keeps
    it, like an incomplete checkpoint) is still there, ``detail`` says what was checked
    and found, without the erased text."""

    what: str
    held: bool
    detail: str
    step: bool = False
    """True for a step of the compaction (a checkpoint, a vacuum) rather than a place
    that holds data itself."""

    def line(self) -> str:
        """``ok    WHAT: DETAIL`` or ``HELD  WHAT: DETAIL`` (one line for people)."""
        return f"{'HELD' if self.held else 'ok':<5} {self.what}: {self.detail}"


@dataclass(frozen=True)
class Compaction:
    """What compaction did (``places``, in order) and, when it could not finish,
    ``blocker``: what held it up, in words a reviewer can act on."""

    places: tuple[Place, ...]
    blocker: str | None = None


def erased_words(strings: Iterable[str | None]) -> list[str]:
    """The distinct words (runs of 4 or more word characters, NFC) of ``strings``,
    longest first (ties in code-point order), at most :data:`MAX_WORDS`."""
    seen: set[str] = set()
    for s in strings:
        if s:
            seen.update(_WORD.findall(unicodedata.normalize("NFC", s)))
    return sorted(seen, key=lambda w: (-len(w), w))[:MAX_WORDS]


def forms(word: str) -> list[bytes]:
    """The byte forms ``word`` can be stored in: NFC and NFD UTF-8 and, for a
    non-ASCII word, JSON's ``\\uXXXX`` escapes of both (distinct, in that order)."""
    out: list[bytes] = []
    for form in ("NFC", "NFD"):
        s = unicodedata.normalize(form, word)
        for b in (s.encode("utf-8"), json.dumps(s).strip('"').encode("ascii")):
            if b not in out:
                out.append(b)
    return out


def unique_words(words: Sequence[str], live: bytes) -> list[str]:
    """The ``words`` none of whose :func:`forms` occurs in ``live`` (the bytes of every
    live row): those only the erased rows held."""
    return [w for w in words if not any(f in live for f in forms(w))]


def _found(data: bytes | mmap.mmap, words: Sequence[str]) -> int:
    return sum(1 for w in words if any(data.find(f) >= 0 for f in forms(w)))


def scan_file(path: Path, what: str, words: Sequence[str]) -> Place:
    """Search the file at ``path`` for ``words`` (all their :func:`forms`); a missing
    file is a place that holds nothing. Never follows a symlink to read."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return Place(f"{what} {path}", False, "absent")
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            return Place(f"{what} {path}", False, "0 bytes")
        with mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as data:
            hits = _found(data, words)
    finally:
        os.close(fd)
    if hits:
        return Place(
            f"{what} {path}", True, f"{size:,} bytes: {hits} of {len(words)} erased words found"
        )
    return Place(f"{what} {path}", False, f"{size:,} bytes: none of {len(words)} erased words")


def leftover_places(case_id: str, leftovers: Sequence[tuple[str, int, str]]) -> list[Place]:
    """The places of the store's rows for an erased ``case_id`` (issue 30 item 1):
    ``leftovers`` are ``(table, rows, what)`` of every table that still holds something
    of the case (:meth:`etki.store.CaseFileRepository.leftovers`), each a held place
    naming the table; none gives one clean place saying what was looked at."""
    if not leftovers:
        return [
            Place(
                f"rows of {case_id}",
                False,
                "no table holds its text: cases, decisions, rulings, related contexts, "
                "pre-analyses, events and audit reasons all looked at",
            )
        ]
    return [
        Place(
            f"table {table}", True, f"{rows} {plural(rows, 'row')} of {case_id} still hold {what}"
        )
        for table, rows, what in leftovers
    ]


def live_bytes(engine: Engine) -> bytes:
    """Every value of every live row of every table (and, on SQLite, the schema's SQL),
    as bytes (text UTF-8-encoded, blobs as they are), joined by newlines: what the
    store still holds on purpose, so a word found there is not erased text."""
    out: list[bytes] = []

    def add(value: object) -> None:
        if isinstance(value, str):
            out.append(value.encode("utf-8", "surrogatepass"))
        elif isinstance(value, bytes | bytearray | memoryview):
            out.append(bytes(value))
        elif value is not None:
            out.append(str(value).encode("utf-8"))

    raw = engine.raw_connection()
    try:
        cur = raw.cursor()
        if engine.dialect.name == "sqlite":
            cur.execute("SELECT type, name, sql FROM sqlite_master")
            rows = cur.fetchall()
            for _type, _name, sql in rows:
                add(sql)
            tables = [
                n for (kind, n, _s) in rows if kind == "table" and not n.startswith("sqlite_")
            ]
        else:
            cur.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
            )
            tables = [t for (t,) in cur.fetchall()]
        for table in tables:
            quoted = table.replace('"', '""')
            cur.execute(f'SELECT * FROM "{quoted}"')
            for row in cur.fetchall():
                for value in row:
                    add(value)
        cur.close()
        with contextlib.suppress(Exception):
            raw.rollback()
    finally:
        raw.close()
    return b"\n".join(out)


# --- SQLite ---------------------------------------------------------------------------


def _wal_done(row: Sequence[int] | None) -> bool:
    return row is not None and row[0] == 0 and (row[1] == row[2] or row[1] <= 0)


def compact_sqlite(
    engine: Engine, db_path: Path, *, wait_s: float = DEFAULT_WAIT_S, notify: Notify | None = None
) -> Compaction:
    """Checkpoint the WAL into ``db_path``, ``VACUUM`` and truncate the WAL, waiting at
    most ``wait_s`` seconds in all for other connections (``notify`` is told once,
    before the wait, what it waits for). Returns the checkpoint and vacuum as places;
    ``blocker`` says what held compaction up when it did not finish. The connection's
    normal busy timeout (:data:`etki.store.db.SQLITE_BUSY_TIMEOUT_MS`) is restored
    afterwards. Never raises for a busy database (that is a blocker); other ``sqlite3``
    errors propagate."""
    import sqlite3

    places: list[Place] = []
    reader = (
        f"another connection holds a read transaction on {db_path} (an open "
        "etki-tui desk, `etki mcp`, or any other program reading the file)"
    )
    writer = f"another connection holds the write lock on {db_path}"
    deadline = time.monotonic() + max(0.0, wait_s)
    told = False
    raw = engine.raw_connection()
    try:
        cur = raw.cursor()

        def bounded(sql: str, what: str) -> tuple[Sequence[int] | None, bool]:
            """Run ``sql`` without waiting; when busy, wait for the rest of the bound."""
            nonlocal told
            cur.execute("PRAGMA busy_timeout = 0")
            try:
                row = cur.execute(sql).fetchone()
                if "checkpoint" not in sql or _wal_done(row):
                    return row, True
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                row = None
            left = deadline - time.monotonic()
            if left <= 0:
                return row, False
            if notify is not None and not told:
                notify(f"{what}; waiting up to {left:.0f} s for it to end")
                told = True
            cur.execute(f"PRAGMA busy_timeout = {max(1, int(left * 1000))}")
            try:
                row = cur.execute(sql).fetchone()
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                return None, False
            return row, "checkpoint" not in sql or _wal_done(row)

        def checkpoint(label: str) -> bool:
            row, ok = bounded("PRAGMA wal_checkpoint(TRUNCATE)", reader)
            if ok:
                places.append(
                    Place(
                        f"SQLite WAL checkpoint ({label}) of {db_path}",
                        False,
                        "complete: every WAL frame copied into the file, the WAL truncated",
                        step=True,
                    )
                )
            else:
                got = (
                    "busy"
                    if row is None
                    else f"busy={row[0]}, {max(row[2], 0)} of {max(row[1], 0)} WAL frames copied"
                )
                places.append(
                    Place(
                        f"SQLite WAL checkpoint ({label}) of {db_path}",
                        True,
                        f"incomplete ({got})",
                        step=True,
                    )
                )
            return ok

        mode = cur.execute("PRAGMA journal_mode").fetchone()
        wal = bool(mode) and str(mode[0]).lower() == "wal"
        if wal and not checkpoint("before VACUUM"):
            return Compaction(tuple(places), reader)
        _, ok = bounded("VACUUM", writer)
        if not ok:
            places.append(Place(f"SQLite VACUUM of {db_path}", True, "not run (busy)", step=True))
            return Compaction(tuple(places), writer)
        free = cur.execute("PRAGMA freelist_count").fetchone()
        places.append(
            Place(
                f"SQLite VACUUM of {db_path}",
                bool(free and free[0]),
                f"file rewritten from live rows; {free[0] if free else '?'} free pages",
                step=True,
            )
        )
        if wal and not checkpoint("after VACUUM"):
            return Compaction(tuple(places), reader)
        return Compaction(tuple(places))
    finally:
        with contextlib.suppress(Exception):
            raw.cursor().execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        raw.close()


def sqlite_files(db_path: Path) -> list[tuple[Path, str]]:
    """The files of the SQLite database at ``db_path`` with what each is: the database
    file, its WAL, its shared-memory index and its rollback journal."""
    return [
        (db_path, "SQLite database file"),
        (Path(f"{db_path}-wal"), "SQLite WAL"),
        (Path(f"{db_path}-shm"), "SQLite shared-memory file"),
        (Path(f"{db_path}-journal"), "SQLite rollback journal"),
    ]


# --- PostgreSQL -----------------------------------------------------------------------


def _blockers(conn) -> list[tuple[int, str]]:  # noqa: ANN001 - a psycopg connection
    """Other sessions of this database that hold a snapshot (``backend_xmin`` set):
    ``(pid, description)``; a vacuum cannot remove a row version such a snapshot may
    still see."""
    rows = conn.execute(
        "SELECT pid, usename, application_name, state, xact_start FROM pg_stat_activity "
        "WHERE datname = current_database() AND pid <> pg_backend_pid() "
        "AND backend_xmin IS NOT NULL ORDER BY pid"
    ).fetchall()
    out = []
    for pid, user, app, state, since in rows:
        bits = [
            f"user {user}" if user else None,
            f"application {app!r}" if app else None,
            state,
            f"transaction since {since:%Y-%m-%d %H:%M:%S %Z}".strip() if since else None,
        ]
        out.append(
            (int(pid), f"PostgreSQL session pid {pid} (" + ", ".join(b for b in bits if b) + ")")
        )
    return out


def _vacuum(conn, tables: Sequence[str], *, full: bool = False) -> dict[str, int | None]:  # noqa: ANN001
    """``VACUUM (VERBOSE)`` each table; ``{table: dead row versions not yet removable}``
    summed over the table and its TOAST table (None when the message could not be
    read)."""
    notes: list[str] = []

    def on_notice(diag) -> None:  # noqa: ANN001 - psycopg.errors.Diagnostic
        notes.append("\n".join(x for x in (diag.message_primary, diag.message_detail) if x))

    conn.add_notice_handler(on_notice)
    counts: dict[str, int | None] = {}
    try:
        for table in tables:
            notes.clear()
            conn.execute(f'VACUUM ({"FULL, " if full else ""}VERBOSE) "{table}"')
            dead: int | None = None
            for note in notes:
                for pattern in _DEAD:
                    for m in pattern.finditer(note):
                        dead = (dead or 0) + int(m.group(1))
            counts[table] = dead
    finally:
        conn.remove_notice_handler(on_notice)
    return counts


def _lockers(conn, table: str) -> list[str]:  # noqa: ANN001
    """Other sessions holding a lock on ``table``, described like :func:`_blockers`."""
    pids = {
        int(p)
        for (p,) in conn.execute(
            "SELECT DISTINCT pid FROM pg_locks WHERE relation = %s::regclass AND granted "
            "AND pid <> pg_backend_pid()",
            (f'"{table}"',),
        ).fetchall()
    }
    described = dict(_blockers(conn))
    return [described.get(p, f"PostgreSQL session pid {p}") for p in sorted(pids)]


def _pageinspect(conn) -> bool:  # noqa: ANN001
    """True when ``pageinspect``'s ``get_raw_page`` is installed and may be called here
    (it is superuser-only unless granted)."""
    if (
        conn.execute("SELECT count(*) FROM pg_extension WHERE extname = 'pageinspect'").fetchone()[
            0
        ]
        == 0
    ):
        return False
    try:
        with conn.transaction():
            conn.execute(
                "SELECT get_raw_page('cases', 'main', 0) WHERE pg_relation_size('cases') > 0"
            ).fetchall()
        return True
    except Exception:  # noqa: BLE001 - not allowed here: not usable
        return False


def _raw_hits(conn, table: str, words: Sequence[str]) -> tuple[int, int]:  # noqa: ANN001
    """Pages read and erased words found in every page (free space included) of
    ``table`` and its TOAST table."""
    rels = [table]
    toast = conn.execute(
        "SELECT reltoastrelid::regclass::text FROM pg_class "
        "WHERE oid = %s::regclass AND reltoastrelid <> 0",
        (f'"{table}"',),
    ).fetchone()
    if toast:
        rels.append(toast[0])
    chunks: list[bytes] = []
    pages = 0
    for rel in rels:
        n = conn.execute(
            "SELECT pg_relation_size(%s::regclass) / current_setting('block_size')::int", (rel,)
        ).fetchone()[0]
        for blk in range(int(n)):
            chunks.append(
                bytes(conn.execute("SELECT get_raw_page(%s, 'main', %s)", (rel, blk)).fetchone()[0])
            )
            pages += 1
    return pages, _found(b"\x00".join(chunks), words)


def compact_postgres(
    engine: Engine,
    words: Sequence[str],
    *,
    wait_s: float = DEFAULT_WAIT_S,
    notify: Notify | None = None,
    tables: Sequence[str] = CASE_TABLES,
) -> Compaction:
    """Vacuum ``tables`` until no dead row version is left in them, waiting at most
    ``wait_s`` seconds for the sessions whose snapshots keep them (``notify`` is told
    once, before the wait); with ``pageinspect`` usable, also search every page for
    ``words`` and ``VACUUM FULL`` a table whose pages still hold one. Returns a place per
    table (and per page scan); ``blocker`` names the sessions when dead versions are
    left. Database errors other than a missing extension propagate."""
    deadline = time.monotonic() + max(0.0, wait_s)
    places: list[Place] = []
    raw = engine.raw_connection()
    pg = raw.driver_connection
    assert pg is not None  # an open pool connection always has its driver's connection
    auto = pg.autocommit
    with contextlib.suppress(Exception):
        raw.rollback()
    pg.autocommit = True
    try:
        with contextlib.suppress(Exception):  # superuser only: makes the counts readable
            pg.execute("SET lc_messages = 'C'")
        told = False
        while True:
            counts = _vacuum(pg, tables)
            blockers = _blockers(pg)
            unread = any(v is None for v in counts.values())
            left = {t: v for t, v in counts.items() if v}
            if not left and not (unread and blockers):
                break
            if time.monotonic() >= deadline:
                who = "; ".join(d for _, d in blockers) or "an older snapshot"
                for t in tables:
                    dead = counts.get(t)
                    places.append(
                        Place(
                            f"PostgreSQL table {t} (VACUUM)",
                            bool(dead) or (dead is None),
                            f"{dead} dead row versions not yet removable"
                            if dead is not None
                            else "the vacuum's count could not be read (server messages not "
                            "in English); a session holds a snapshot",
                        )
                    )
                return Compaction(
                    tuple(places),
                    f"{who} holds a snapshot older than the "
                    "erasure, so VACUUM cannot remove the erased rows yet",
                )
            pids = {p for p, _ in blockers}
            if notify is not None and not told:
                notify(
                    f"{'; '.join(d for _, d in blockers) or 'an older snapshot'} "
                    "holds a snapshot older than the erasure; waiting up to "
                    f"{max(0.0, deadline - time.monotonic()):.0f} s for it to end"
                )
                told = True
            # wait for the state: the sessions seen holding a snapshot have let go of it
            # (none named: a prepared transaction or a replication slot; look again
            # each second)
            while time.monotonic() < deadline:
                if pids and pids.isdisjoint(p for p, _ in _blockers(pg)):
                    break
                time.sleep(0.2 if pids else min(1.0, max(0.0, deadline - time.monotonic())))
                if not pids:
                    break
        for t in tables:
            dead = counts.get(t)
            places.append(
                Place(
                    f"PostgreSQL table {t} (VACUUM)",
                    False,
                    "0 dead row versions left"
                    if dead is not None
                    else "vacuumed; no session holds an older snapshot",
                )
            )
        # a removed row's bytes can stay in its page's free space (VACUUM frees the
        # space, it does not overwrite it): rewrite each table from its live rows
        ms = max(1000, int((deadline - time.monotonic()) * 1000))
        pg.execute(f"SET lock_timeout = {ms}")
        try:
            for t in tables:
                try:
                    left_full = _vacuum(pg, [t], full=True)[t]
                except Exception as exc:  # noqa: BLE001 - a lock not granted in time
                    if type(exc).__name__ != "LockNotAvailable":
                        raise
                    who = "; ".join(_lockers(pg, t)) or "another session"
                    places.append(
                        Place(
                            f"PostgreSQL table {t} (VACUUM FULL)",
                            True,
                            "not rewritten: its lock was not granted in time",
                            step=True,
                        )
                    )
                    return Compaction(
                        tuple(places),
                        f"{who} holds a lock on table {t}, so VACUUM FULL cannot rewrite it yet",
                    )
                places.append(
                    Place(
                        f"PostgreSQL table {t} (VACUUM FULL)",
                        bool(left_full),
                        "rewritten from its live rows: the pages that held the "
                        "erased rows are gone"
                        + (f" ({left_full} dead row versions copied)" if left_full else ""),
                        step=True,
                    )
                )
        finally:
            pg.execute("RESET lock_timeout")
        if words and _pageinspect(pg):
            for t in tables:
                pages, hits = _raw_hits(pg, t, words)
                places.append(
                    Place(
                        f"PostgreSQL pages of {t} (pageinspect)",
                        bool(hits),
                        f"{pages} pages incl. free space: "
                        + (
                            f"{hits} of {len(words)} erased words found"
                            if hits
                            else f"none of {len(words)} erased words"
                        ),
                    )
                )
        elif words:
            places.append(
                Place(
                    "PostgreSQL pages (pageinspect)",
                    False,
                    "not installed here, so the pages were not read; the "
                    "tables were rewritten instead (`CREATE EXTENSION "
                    "pageinspect` lets erase read every page)",
                )
            )
        return Compaction(tuple(places))
    finally:
        with contextlib.suppress(Exception):
            pg.execute("RESET lc_messages")
        pg.autocommit = auto
        raw.close()
