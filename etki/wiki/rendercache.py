"""The wiki's render cache: page bytes kept from one write to the next, keyed by what
each page was rendered from, so a rebuild of a wiki whose DB rows did not change
renders nothing (issue 15; BENCH.md, "rebuild and HITL").

Where it lives: one SQLite file *beside* the wiki folder, never inside it —
``<wiki parent>/.<wiki folder name>.render.sqlite3`` (:func:`cache_path`), the rule of
the search index (:func:`etki.wiki.fts.index_path`) — so ``python -m etki.wiki verify``
and ``rebuild`` never see it, and it does not depend on the main database (the same
with PostgreSQL). It is only a cache: a missing, unreadable, locked, corrupt or
outdated file is silently treated as empty (a corrupt one is deleted and made again)
and the pages are rendered; deleting it is always safe.

What it holds: per wiki-relative page path, the key it was rendered under and its
bytes. The keys are made by :func:`etki.wiki.pages.page_keys` (a digest of the store's
identity, the project as read, the renderers' VERSION and the case stamps the page
reads); a page whose key differs is rendered again and its row replaced.

Who writes: the projector, under the wiki lock (:func:`etki.wiki.projection.wiki_lock`),
so one writer at a time; SQLite's own locking (WAL, a busy timeout) covers any other
opener. ``verify`` never reads it (it compares the wiki with a fresh render). Erasure
deletes the file under the wiki lock (:func:`drop`): it holds the text of every page,
and rows deleted from SQLite can survive in free pages.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path

__all__ = ["SCHEMA_VERSION", "RenderCache", "cache_path", "drop"]

log = logging.getLogger("etki.wiki")

SCHEMA_VERSION = "1"
_SUFFIXES = ("", "-wal", "-shm", "-journal")
_BUSY_S = 5.0  # SQLite's busy wait for another opener (the wiki lock keeps writers apart)
_CHUNK = 500  # paths per IN list


def cache_path(root: Path) -> Path:
    """The cache file of the wiki at ``root``: beside the folder, hidden, outside it."""
    root = Path(os.path.abspath(root))
    return root.parent / f".{root.name}.render.sqlite3"


def drop(root: Path) -> bool:
    """Delete the cache file of the wiki at ``root`` with its ``-wal``/``-shm``/
    ``-journal`` files. Returns True when a file was removed; raises ``OSError`` when
    one exists and cannot be removed. Call it under the wiki lock (a projection
    writing meanwhile could put an erased case's page back)."""
    path = cache_path(root)
    removed = False
    for suffix in _SUFFIXES:
        part = Path(f"{path}{suffix}")
        if part.exists() or part.is_symlink():
            part.unlink()
            removed = True
    return removed


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=_BUSY_S, isolation_level=None)
    try:
        db.execute("PRAGMA synchronous = NORMAL")
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
        if {"meta", "pages"} <= names:
            row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if row is not None and row[0] == SCHEMA_VERSION:
                return db
        with contextlib.suppress(sqlite3.OperationalError):  # another opener holds it
            db.execute("PRAGMA journal_mode = WAL")
        db.execute("BEGIN IMMEDIATE")
        db.execute("DROP TABLE IF EXISTS pages")
        db.execute("DROP TABLE IF EXISTS meta")
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute(
            "CREATE TABLE pages (path TEXT PRIMARY KEY, key TEXT NOT NULL, data BLOB NOT NULL)"
        )
        db.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
        db.execute("COMMIT")
        return db
    except BaseException:
        db.close()
        raise


class RenderCache:
    """One open render cache (see the module docstring), used by the projector under the
    wiki lock for one write, then closed. Every method swallows SQLite and I/O errors
    (logged at debug level): a lookup then finds nothing and a store keeps nothing.

    ``hits`` and ``misses`` count the pages :meth:`lookup` found with the key asked and
    those it did not (a rebuild of an unchanged wiki has ``misses == 0``)."""

    def __init__(self, db: sqlite3.Connection | None) -> None:
        self._db = db
        self.hits = 0
        self.misses = 0

    @classmethod
    @contextlib.contextmanager
    def open(cls, root: Path) -> Iterator[RenderCache]:
        """The cache of the wiki at ``root`` for the ``with`` block (created when
        missing; a corrupt file is deleted and made again; when it cannot be opened at
        all, a cache that finds and keeps nothing). Never raises for the cache's
        sake."""
        path = cache_path(root)
        db = None
        for attempt in (1, 2):
            try:
                db = _connect(path)
                break
            except sqlite3.DatabaseError as exc:  # not a database, corrupt
                log.debug("render cache %s unusable (%s)", path, exc)
                if attempt == 1:
                    with contextlib.suppress(OSError):
                        drop(root)
            except (sqlite3.Error, OSError) as exc:  # locked, read-only folder, ...
                log.debug("render cache %s not opened (%s)", path, exc)
                break
        cache = cls(db)
        try:
            yield cache
        finally:
            if db is not None:
                db.close()

    def lookup(self, keys: Mapping[str, str]) -> dict[str, bytes]:
        """The cached bytes of the pages in ``keys`` ({path: key}) stored under exactly
        that key ({path: bytes}); the others are misses."""
        found: dict[str, bytes] = {}
        if self._db is not None and keys:
            paths = list(keys)
            try:
                for at in range(0, len(paths), _CHUNK):
                    part = paths[at : at + _CHUNK]
                    marks = ",".join("?" * len(part))
                    for path, key, data in self._db.execute(
                        f"SELECT path, key, data FROM pages WHERE path IN ({marks})", part
                    ):
                        if keys.get(path) == key:
                            found[path] = bytes(data)
            except sqlite3.Error as exc:
                log.debug("render cache lookup failed (%s): rendering", exc)
                found = {}
        self.hits += len(found)
        self.misses += len(keys) - len(found)
        return found

    def store(
        self,
        pages: Mapping[str, tuple[str, bytes]],
        keep: Collection[str] | None = None,
    ) -> None:
        """Keep ``pages`` ({path: (key, bytes)}), replacing the rows of those paths, in
        one transaction; with ``keep`` (every path of a full render), also delete the
        rows of every other path (pages the wiki no longer has)."""
        if self._db is None or (not pages and keep is None):
            return
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                if keep is not None:
                    keep = set(keep)
                    gone = [(p,) for (p,) in db.execute("SELECT path FROM pages") if p not in keep]
                    db.executemany("DELETE FROM pages WHERE path = ?", gone)
                db.executemany(
                    "INSERT OR REPLACE INTO pages (path, key, data) VALUES (?, ?, ?)",
                    [(p, k, d) for p, (k, d) in pages.items()],
                )
                db.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            log.debug("render cache store failed (%s): nothing kept", exc)
