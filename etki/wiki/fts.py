"""SQLite FTS5 index of the wiki: the search backend when ``rg`` is not installed.

Where it lives: one SQLite file *beside* the wiki folder, never inside it —
``<wiki parent>/.<wiki folder name>.search.sqlite3`` (:func:`index_path`) — so
``python -m etki.wiki verify`` and ``rebuild`` never see it, and it does not depend on the
main database (it works the same when ``ETKI_DB_URL`` is PostgreSQL). It is a cache:
deleting it is always safe.

What it holds: per page (same selection as :func:`etki.wiki.search.wiki_files`) its
wiki-relative path, a stamp ``size:mtime_ns:ctime_ns:inode`` and, in an FTS5 table with
the ``trigram`` tokenizer (substring matching, so ``sso`` finds ``SSO-Anmeldung`` as the
matcher does), the page's raw bytes and its folded text (:func:`etki.text.fold`, NUL
written as a space; no token holds either).

How it stays in sync: lazily, by file stat. Every search lists the pages with their
stamps and re-indexes those whose stamp differs from the stored one (new or changed
files), drops the ones that are gone, then queries — so a page written by the HITL hook,
a rebuild or by hand is seen by the next search. The wiki writer replaces files by rename
(new inode) and any rewrite moves mtime/ctime, so a change is never missed. After a
rebuild, :func:`refresh` does the same ahead of time so the first search finds the index
warm. The schema and the Unicode version of the fold are recorded; a mismatch or a
corrupt file rebuilds the index from scratch.

A query: tokens of three or more characters go to ``MATCH`` (a phrase each, AND-ed),
shorter ones to ``instr`` on the folded text; the candidates it returns (a superset) go
through the same matcher as every backend (:func:`etki.wiki.search.match_folded`) for
the exact AND, the best line and the snippet, so the hits equal the other backends'.
"""

from __future__ import annotations

import os
import sqlite3
import unicodedata
from pathlib import Path

from etki.text import fold
from etki.wiki.search import Hit, match_folded, walk_pages

__all__ = ["SCHEMA_VERSION", "drop", "index_path", "refresh", "search_scored"]

SCHEMA_VERSION = "1"
_VERSION = f"{SCHEMA_VERSION}/unicode {unicodedata.unidata_version}"


def index_path(root: Path) -> Path:
    """The index file of the wiki at ``root``: beside the folder, hidden, outside it."""
    root = Path(os.path.abspath(root))
    return root.parent / f".{root.name}.search.sqlite3"


def drop(root: Path) -> bool:
    """Delete the index file of the wiki at ``root`` with its ``-wal``/``-shm``/
    ``-journal`` files (the next FTS5 search builds it again from the pages). Erasure
    calls this: the index holds every page's text, and rows deleted from SQLite can
    survive in free pages. Returns True when a file was removed; raises ``OSError`` when
    one exists and cannot be removed."""
    path = index_path(root)
    removed = False
    for suffix in ("", "-wal", "-shm", "-journal"):
        part = Path(f"{path}{suffix}")
        if part.exists() or part.is_symlink():
            part.unlink()
            removed = True
    return removed


def _create(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute("CREATE TABLE files (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, "
               "stamp TEXT NOT NULL)")
    db.execute("CREATE VIRTUAL TABLE pages USING fts5(raw UNINDEXED, folded, "
               "tokenize = 'trigram case_sensitive 1')")
    db.execute("INSERT INTO meta VALUES ('version', ?)", (_VERSION,))


def _open(path: Path) -> sqlite3.Connection:
    """Open (creating or recreating when outdated or broken) the index at ``path``."""
    for attempt in (1, 2):
        db = sqlite3.connect(path, timeout=30, isolation_level=None)
        try:
            db.execute("PRAGMA synchronous = NORMAL")
            names = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
            if {"meta", "files", "pages"} <= names:
                row = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
                if row is not None and row[0] == _VERSION:
                    return db
            db.execute("BEGIN IMMEDIATE")
            for name in ("pages", "files", "meta"):
                db.execute(f"DROP TABLE IF EXISTS {name}")
            _create(db)
            db.execute("COMMIT")
            return db
        except sqlite3.DatabaseError:
            db.close()
            if attempt == 2:
                raise
            path.unlink(missing_ok=True)  # not a database (or corrupt): it is only a cache
    raise AssertionError("unreachable")


def _stamps(root: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for rel, entry in walk_pages(root):
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        out[rel] = f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}"
    return out


def _sync(db: sqlite3.Connection, root: Path) -> None:
    current = _stamps(root)

    def diff() -> tuple[list[str], list[tuple[str, int]], dict[str, int]]:
        stored = {path: (rowid, stamp) for rowid, path, stamp
                  in db.execute("SELECT id, path, stamp FROM files")}
        changed = [rel for rel, stamp in current.items()
                   if stored.get(rel, (0, ""))[1] != stamp]
        gone = [(path, rowid) for path, (rowid, _) in stored.items() if path not in current]
        return changed, gone, {path: rowid for path, (rowid, _) in stored.items()}

    changed, gone, _ = diff()
    if not changed and not gone:
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        changed, gone, ids = diff()  # again under the write lock: another process may have synced
        for _path, rowid in gone:
            db.execute("DELETE FROM pages WHERE rowid = ?", (rowid,))
            db.execute("DELETE FROM files WHERE id = ?", (rowid,))
        for rel in changed:
            rowid = ids.get(rel)
            if rowid is not None:
                db.execute("DELETE FROM pages WHERE rowid = ?", (rowid,))
            try:
                raw = (root / rel).read_bytes()
            except OSError:
                if rowid is not None:
                    db.execute("DELETE FROM files WHERE id = ?", (rowid,))
                continue
            folded = fold(raw.decode("utf-8", errors="replace")).replace("\0", " ")
            if rowid is None:
                rowid = db.execute("INSERT INTO files (path, stamp) VALUES (?, ?)",
                                   (rel, current[rel])).lastrowid
            else:
                db.execute("UPDATE files SET stamp = ? WHERE id = ?", (current[rel], rowid))
            db.execute("INSERT INTO pages (rowid, raw, folded) VALUES (?, ?, ?)",
                       (rowid, raw, folded))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def refresh(root: Path) -> bool:
    """Bring the index of the wiki at ``root`` up to date with the pages on disk (call
    it after a rebuild so the first search is warm). False when the index cannot be
    used (no FTS5 trigram tokenizer, a read-only folder, a locked or broken file)."""
    try:
        db = _open(index_path(root))
    except (sqlite3.Error, OSError):
        return False
    try:
        _sync(db, Path(root))
        return True
    except (sqlite3.Error, OSError):
        return False
    finally:
        db.close()


def search_scored(root: Path, tokens: list[str]) -> list[tuple[int, str, Hit]] | None:
    """``(-count, path, Hit)`` of every page of the wiki at ``root`` holding all folded
    ``tokens`` (unsorted), after syncing the index; None when the index cannot be used
    (the caller then scans with Python)."""
    root = Path(root)
    try:
        db = _open(index_path(root))
    except (sqlite3.Error, OSError):
        return None
    try:
        _sync(db, root)
        where: list[str] = []
        args: list[str] = []
        long = [t for t in tokens if len(t) >= 3]
        if long:
            where.append("pages MATCH ?")
            args.append(" AND ".join('"' + t.replace('"', '""') + '"' for t in long))
        for t in tokens:
            if len(t) < 3:
                where.append("instr(pages.folded, ?) > 0")
                args.append(t)
        rows = db.execute("SELECT files.path, pages.raw, pages.folded FROM pages "
                          "JOIN files ON files.id = pages.rowid WHERE " + " AND ".join(where),
                          args).fetchall()
    except (sqlite3.Error, OSError):
        return None
    finally:
        db.close()
    scored: list[tuple[int, str, Hit]] = []
    for rel, raw, folded in rows:
        found = match_folded(raw.decode("utf-8", errors="replace"), folded, tokens)
        if found is not None:
            line, count, snippet = found
            scored.append((-count, rel, Hit(rel, line, snippet)))
    return scored
