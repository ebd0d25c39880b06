"""What a store failure means, in words a reviewer can act on (issue 11 item 8).

The database drivers report a full disk as ``database or disk is full`` or even ``disk
I/O error``, a file that is no database as ``file is not a database`` and a read-only
file as ``attempt to write a readonly database``, none of them naming the file. The
``handle_error`` hook installed by :func:`install` on every engine of
:func:`etki.store.db.make_engine` turns these into :class:`~etki.errors.StoreError`
subclasses that name the file (or the URL, password masked) and what to do:

| driver report | error | exit |
|---|---|---|
| SQLite ``SQLITE_FULL``; ``SQLITE_IOERR`` on a filesystem with < 1 MiB free; PostgreSQL SQLSTATE 53100 | ``StoreError`` "disk full" | 1 |
| SQLite ``SQLITE_IOERR`` otherwise | ``StoreError`` "disk I/O error" | 1 |
| SQLite ``SQLITE_CORRUPT``, ``SQLITE_NOTADB`` | ``StoreUnusableError`` "not a usable Etki store" | 2 |
| SQLite ``SQLITE_READONLY``, ``SQLITE_CANTOPEN`` in a folder this process cannot write; PostgreSQL SQLSTATE 25006 (read-only transaction) and 42501 (the role may not write) | ``StoreUnusableError`` "read-only" | 2 |
| SQLite ``SQLITE_CANTOPEN`` otherwise | ``StoreUnusableError`` "cannot open" | 2 |

Any other error (busy, constraint, a server that refuses the connection) is left to
SQLAlchemy as before. :func:`location` and :func:`mask_password` are how every message
names a store: never with its password.
"""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

from sqlalchemy import Engine, event
from sqlalchemy.engine import URL

from etki.errors import StoreError, StoreUnusableError

__all__ = [
    "DISK_FULL_FREE_BYTES",
    "free_bytes",
    "install",
    "location",
    "mask_password",
    "sqlite_path",
    "translate",
]

DISK_FULL_FREE_BYTES = 1 << 20
"""Below this many free bytes on the store's filesystem an ``SQLITE_IOERR`` is reported
as a full disk: SQLite reports a failed ``-shm``/``-wal`` allocation (ENOSPC while
growing the shared-memory file, ``SQLITE_IOERR_SHMSIZE``) as an I/O error, and a write
transaction of Etki needs far more than 1 MiB (a project's index alone is larger), so a
filesystem this close to full is the cause."""

_SQLITE_IOERR, _SQLITE_CORRUPT, _SQLITE_FULL, _SQLITE_CANTOPEN = 10, 11, 13, 14
_SQLITE_READONLY, _SQLITE_NOTADB = 8, 26  # primary result codes, sqlite.org/rescode.html
_PG_DISK_FULL, _PG_READ_ONLY = "53100", "25006"  # PostgreSQL SQLSTATE, Appendix A
_PG_NO_PRIVILEGE = "42501"  # insufficient_privilege
_URL_PASSWORD = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^/@\s:]*:)[^@\s]*@")


def mask_password(text: str) -> str:
    """``text`` with the password of every ``scheme://user:password@`` in it replaced by
    ``***`` (for URLs SQLAlchemy could not parse, and driver messages)."""
    return _URL_PASSWORD.sub(r"\g<head>***@", text)


def sqlite_path(url: URL) -> Path | None:
    """The file of a SQLite ``url`` (``~`` expanded, not resolved), or None for an
    in-memory database or another backend."""
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return None
    return Path(url.database).expanduser()


def location(url: URL) -> str:
    """How messages name the store at ``url``: the SQLite file's path, else the URL with
    its password masked (``URL.render_as_string(hide_password=True)``)."""
    path = sqlite_path(url)
    if path is not None:
        return str(path)
    return mask_password(url.render_as_string(hide_password=True))


def free_bytes(path: Path) -> int | None:
    """Bytes free to this process on the filesystem holding ``path`` (the nearest
    existing folder above it): ``f_bavail`` blocks, or ``f_bfree`` for root, which may
    use the reserved blocks; None when it cannot be measured."""
    folder = path if path.is_dir() else path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        st = os.statvfs(folder)
    except OSError:
        return None
    blocks = st.f_bfree if os.geteuid() == 0 else st.f_bavail
    return blocks * st.f_frsize


def _disk_full(where: str, path: Path | None, said: str) -> StoreError:
    free = free_bytes(path) if path is not None else None
    room = f"; {free} bytes free on its filesystem" if free is not None else ""
    return StoreError(
        where,
        f"disk full: the store {where} could not be written ({said}"
        f"{room}); free some space there and run the command again "
        "(the transaction that failed was rolled back)",
    )


def _sqlite_error(exc: sqlite3.Error, where: str, path: Path | None) -> StoreError | None:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return None
    name = getattr(exc, "sqlite_errorname", str(code))
    said = f"SQLite {name}: {exc}"
    primary = code & 0xFF
    if primary == _SQLITE_FULL:
        return _disk_full(where, path, said)
    if primary == _SQLITE_IOERR:
        free = free_bytes(path) if path is not None else None
        if free is not None and free < DISK_FULL_FREE_BYTES:
            return _disk_full(where, path, said)
        return StoreError(
            where,
            f"disk I/O error on the store {where} ({said}); check the "
            "disk and the file's folder, then run the command again",
        )
    if primary in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
        return StoreUnusableError(
            where,
            f"{where} is not a usable Etki store: it is not a "
            f"SQLite database or it is damaged ({said}); it "
            "was left as it is: point ETKI_DB_URL at the right "
            "file or restore it from a backup",
        )
    if primary == _SQLITE_READONLY:
        if name == "SQLITE_READONLY_DIRECTORY":
            return StoreUnusableError(
                where,
                f"the folder of {where} is read-only and SQLite "
                f"needs to create {where}-shm beside it to read "
                f"this WAL store ({said}); make the folder "
                "writable, or open the store once with write "
                "access so that its write-ahead log is "
                "checkpointed",
            )
        return StoreUnusableError(
            where,
            f"the store {where} is read-only ({said}): this "
            "command writes to it; give it write access to "
            "the file and its folder (commands that only read, "
            "such as `etki queue`, work on a read-only store)",
        )
    if primary == _SQLITE_CANTOPEN:
        folder = path.parent if path is not None else None
        if folder is not None and folder.is_dir() and not os.access(folder, os.W_OK):
            return StoreUnusableError(
                where,
                f"the folder of the store {where} is read-only "
                f"({said}): this command writes to the store "
                "and SQLite creates its journal beside it; give "
                "write access to the folder (commands that only "
                "read, such as `etki queue`, work as it is)",
            )
        return StoreUnusableError(
            where,
            f"cannot open the store {where} ({said}): check "
            "that it is a file and that its folder exists and "
            "can be read",
        )
    return None


def _postgres_error(exc: BaseException, where: str, password: str | None) -> StoreError | None:
    state = getattr(exc, "sqlstate", None)
    said = mask_password(str(exc)).strip()
    if password:  # a driver message never needs it; never print it
        said = said.replace(password, "***")
    if state == _PG_DISK_FULL:
        return _disk_full(where, None, f"PostgreSQL {state}: {said}")
    if state == _PG_NO_PRIVILEGE:
        return StoreUnusableError(
            where,
            f"the database user of {where} may not write there "
            f"(PostgreSQL {state}: {said}): this command writes; "
            "use a user with write access in ETKI_DB_URL "
            "(commands that only read work as it is)",
        )
    if state == _PG_READ_ONLY:
        return StoreUnusableError(
            where,
            f"the database {where} is read-only (PostgreSQL "
            f"{state}: {said}): "
            "this command writes; point ETKI_DB_URL at a "
            "server that accepts writes (the primary)",
        )
    return None


def translate(exc: BaseException, url: URL) -> StoreError | None:
    """The :class:`StoreError` that says what the driver error ``exc`` of the store at
    ``url`` means (see the module docstring), or None to leave it as it is."""
    where = location(url)
    if isinstance(exc, sqlite3.Error):
        return _sqlite_error(exc, where, sqlite_path(url))
    password = url.password
    return _postgres_error(exc, where, str(password) if password else None)


def install(engine: Engine, url: URL) -> None:
    """Translate ``engine``'s storage failures (module docstring) into
    :class:`StoreError`; ``url`` is the one the engine was made from."""

    @event.listens_for(engine, "handle_error")
    def _on_error(context) -> None:  # pragma: no cover - exercised by the failure tests
        if getattr(context, "is_pre_ping", False):
            return  # a pool pre-ping decides on its own whether to reconnect
        error = translate(context.original_exception, url)
        if error is not None:
            raise error from context.original_exception
