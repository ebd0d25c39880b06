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
written as a space; no token holds either). A contract page's parts too
(:func:`etki.wiki.sections.page_parts`: its head and every clause section, with address
``path#anchor``, first page line, title, folded title, size, text and folded text;
tables ``parts`` and ``partstext``), derived from the page's bytes alone, for the ranked
search's per-clause hits (:mod:`etki.wiki.ftsranked`).

How it stays in sync: by the projector's change token, file stat as the fallback. The
index records the bytes of the wiki's state file (:data:`etki.wiki.writer.MARK_FILE`, the
DB change token the pages reflect) it is current with. The projector, under the wiki
lock, right after it wrote pages and the state file, calls :func:`note_written` with the
pages it rendered: when the index was current with the state file before that write,
those paths are queued (table ``pending``) and the new token recorded, in one short
transaction — no page is read on the ruling's path. A search (:func:`search_scored`, the
unranked path, and :func:`etki.wiki.ftsranked.search_ranked`, the ranked one of ``etki
wiki search`` and the desk's live search; :func:`catch_up` alone) then
reads the state file (one small read), re-indexes only the queued pages whose stamp
changed, and queries: no walk of the wiki. When the token differs (another writer that
did not note, a killed projection, a rebuild: :func:`invalidate`) or the wiki has no
state file, that search syncs by stat once — lists the pages with their stamps,
re-indexes those whose stamp differs from the stored one, drops the ones that are gone —
and records the token it started from. (So a page edited by hand in a projected wiki is
seen after the next projection or rebuild, which ``verify`` asks for anyway: it lists
the edit as ``changed``; the writer replaces files by rename, new inode, and any rewrite
moves mtime/ctime, so a change by stat is never missed.)

The schema and the Unicode version of the fold are recorded; a mismatch or a corrupt file
rebuilds the index from scratch. The file is in WAL mode, so a search reading never holds
up the projector's note (only another writer can, and the note then gives up after
:data:`NOTE_WAIT_S` and leaves the token unmatched: the next search syncs by stat).

A query: tokens of three or more characters go to ``MATCH`` (a phrase each, or its
spellings OR-ed: :func:`etki.text.spellings`; AND-ed), shorter ones to ``instr`` on the
folded text; the candidates it returns (a superset) go
through the same matcher as every backend (on their folded text,
:mod:`etki.wiki.pagematch`) for the exact AND and the best line, so the hits equal the
other backends'; the raw text is read only for the hits returned, for their snippet.
The ranked search (:mod:`etki.wiki.ftsranked`) ranks and cuts in SQLite and reads the
text of the ``limit`` best hits alone. Every step of the desk's search can be cancelled (``cancelled()`` polled by SQLite's progress handler and
while waiting on a lock): a newer keystroke's search never waits for an older one.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import time
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from etki.text import fold, spellings
from etki.wiki.excerpt import page_title
from etki.wiki.pagematch import (
    Cancelled,
    Hit,
    _best_in_folded,
    page_snippet,
    walk_pages,
)
from etki.wiki.sections import page_parts
from etki.wiki.writer import UnsafeWikiPath, read_mark

__all__ = [
    "NOTE_WAIT_S",
    "SCHEMA_VERSION",
    "Cancelled",
    "catch_up",
    "drop",
    "index_path",
    "invalidate",
    "note_written",
    "page_title",
    "refresh",
    "search_scored",
]

SCHEMA_VERSION = "4"
NOTE_WAIT_S = 0.5
"""Seconds :func:`note_written` (on the ruling's path) waits for another writer of the
index (a search re-indexing) before it gives up; the token then stays unmatched and the
next search syncs by stat."""
_LOCK_WAIT_S = 30.0  # a search waits this long at most for another writer (cancellable)
_POLL_OPS = 2000  # SQLite VM steps between two polls of ``cancelled``
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
    db.execute(
        "CREATE TABLE files (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, "
        "stamp TEXT NOT NULL, title TEXT NOT NULL DEFAULT '', "
        "ftitle TEXT NOT NULL DEFAULT '', size INTEGER NOT NULL DEFAULT 0)"
    )
    db.execute("CREATE TABLE pending (path TEXT PRIMARY KEY)")
    db.execute(
        "CREATE VIRTUAL TABLE pages USING fts5(raw UNINDEXED, title, folded, "
        "tokenize = 'trigram case_sensitive 1')"
    )
    # a contract page's parts (etki.wiki.sections): its head (anchor '') and each clause
    # section, for the ranked search's per-clause hits; ``start``: 0-based page line
    db.execute(
        "CREATE TABLE parts (id INTEGER PRIMARY KEY, page INTEGER NOT NULL, "
        "anchor TEXT NOT NULL, address TEXT NOT NULL, start INTEGER NOT NULL, "
        "title TEXT NOT NULL, ftitle TEXT NOT NULL, size INTEGER NOT NULL)"
    )
    db.execute("CREATE INDEX parts_page ON parts (page)")
    db.execute(
        "CREATE VIRTUAL TABLE partstext USING fts5(raw UNINDEXED, folded, "
        "tokenize = 'trigram case_sensitive 1')"
    )
    db.execute("INSERT INTO meta VALUES ('version', ?)", (_VERSION,))


def _open(path: Path, timeout: float = 30.0) -> sqlite3.Connection:
    """Open (creating or recreating when outdated or broken) the index at ``path``;
    ``timeout`` seconds of SQLite's own busy wait per statement."""
    for attempt in (1, 2):
        db = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA synchronous = NORMAL")
            names = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
            if names >= _TABLES:
                row = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
                if row is not None and row[0] == _VERSION:
                    return db
            with contextlib.suppress(sqlite3.OperationalError):  # another opener holds it
                db.execute("PRAGMA journal_mode = WAL")
            db.execute("BEGIN IMMEDIATE")
            names = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
            if names >= _TABLES:  # made meanwhile
                row = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
                if row is not None and row[0] == _VERSION:
                    db.execute("COMMIT")
                    return db
            for name in ("partstext", "parts", "pages", "pending", "files", "meta"):
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


_TABLES = frozenset({"meta", "files", "pages", "pending", "parts", "partstext"})


def _never() -> bool:
    return False


def _stamp(st: os.stat_result) -> str:
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}"


def _stamps(root: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for rel, entry in walk_pages(root):
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        out[rel] = _stamp(st)
    return out


def _page_stamp(root: Path, rel: str) -> str | None:
    """The stamp of page ``rel`` when it is one :func:`walk_pages` would list (a regular
    ``*.md`` file, no hidden part, no symlink on the way), else None. A few ``lstat``
    calls, no walk."""
    parts = rel.split("/")
    if not rel.endswith(".md") or any(not p or p.startswith(".") for p in parts):
        return None
    path = Path(root)
    try:
        for part in parts[:-1]:
            path = path / part
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                return None
        st = os.lstat(path / parts[-1])
    except OSError:
        return None
    return _stamp(st) if stat.S_ISREG(st.st_mode) else None


def _token(root: Path) -> str | None:
    """The wiki's change token (the state file's bytes, hex), or None without one."""
    try:
        data = read_mark(Path(root))
    except OSError:
        return None
    return None if data is None else data.hex()


def _stored_token(db: sqlite3.Connection) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE key = 'mark'").fetchone()
    return None if row is None else row[0]


def _set_token(db: sqlite3.Connection, token: str | None) -> None:
    if token is None:
        db.execute("DELETE FROM meta WHERE key = 'mark'")
    else:
        db.execute("INSERT OR REPLACE INTO meta VALUES ('mark', ?)", (token,))


def _begin(
    db: sqlite3.Connection, cancelled: Callable[[], bool], wait: float = _LOCK_WAIT_S
) -> None:
    """``BEGIN IMMEDIATE``, retried while another writer holds the index (at most
    ``wait`` seconds), polling ``cancelled`` between tries (raises :class:`Cancelled`)."""
    deadline = time.monotonic() + wait
    while True:
        if cancelled():
            raise Cancelled
        try:
            db.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as exc:
            text = str(exc)
            if ("locked" not in text and "busy" not in text) or time.monotonic() > deadline:
                raise
        time.sleep(0.01)


def _put(db: sqlite3.Connection, root: Path, rel: str, rowid: int | None, stamp: str) -> None:
    """(Re-)index page ``rel`` (inside a write transaction): its old row goes, its
    current bytes come in; a page that cannot be read is dropped."""
    if rowid is not None:
        _delete(db, rowid, keep_file=True)
    try:
        raw = (root / rel).read_bytes()
    except OSError:
        if rowid is not None:
            _delete(db, rowid)
        return
    text = raw.decode("utf-8", errors="replace")
    folded = fold(text).replace("\0", " ")
    title = page_title(text, rel)
    ftitle = fold(title)
    if rowid is None:
        rowid = db.execute(
            "INSERT INTO files (path, stamp, title, ftitle, size) VALUES (?, ?, ?, ?, ?)",
            (rel, stamp, title, ftitle, len(raw)),
        ).lastrowid
    else:
        db.execute(
            "UPDATE files SET stamp = ?, title = ?, ftitle = ?, size = ? WHERE id = ?",
            (stamp, title, ftitle, len(raw), rowid),
        )
    db.execute(
        "INSERT INTO pages (rowid, raw, title, folded) VALUES (?, ?, ?, ?)",
        (rowid, raw, ftitle, folded),
    )
    for part in page_parts(rel, text):
        pid = db.execute(
            "INSERT INTO parts (page, anchor, address, start, title, ftitle, size) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (rowid, part.anchor, part.address, part.start, part.title, part.ftitle, part.size),
        ).lastrowid
        db.execute(
            "INSERT INTO partstext (rowid, raw, folded) VALUES (?, ?, ?)",
            (pid, part.text.encode("utf-8"), part.folded),
        )


def _delete(db: sqlite3.Connection, rowid: int, keep_file: bool = False) -> None:
    """Remove page ``rowid``'s text and parts from the index (and its ``files`` row
    unless ``keep_file``), inside the caller's write transaction."""
    db.execute("DELETE FROM pages WHERE rowid = ?", (rowid,))
    db.execute(
        "DELETE FROM partstext WHERE rowid IN (SELECT id FROM parts WHERE page = ?)", (rowid,)
    )
    db.execute("DELETE FROM parts WHERE page = ?", (rowid,))
    if not keep_file:
        db.execute("DELETE FROM files WHERE id = ?", (rowid,))


def _sync(
    db: sqlite3.Connection,
    root: Path,
    cancelled: Callable[[], bool] = _never,
    token: str | None = None,
) -> None:
    """Sync by stat (walk the wiki), then record ``token`` (read before the walk) as the
    change token the index is current with, and empty the queue."""
    current = _stamps(root)

    def diff() -> tuple[list[str], list[tuple[str, int]], dict[str, int]]:
        stored = {
            path: (rowid, stamp)
            for rowid, path, stamp in db.execute("SELECT id, path, stamp FROM files")
        }
        changed = [rel for rel, stamp in current.items() if stored.get(rel, (0, ""))[1] != stamp]
        gone = [(path, rowid) for path, (rowid, _) in stored.items() if path not in current]
        return changed, gone, {path: rowid for path, (rowid, _) in stored.items()}

    changed, gone, _ = diff()
    queued = db.execute("SELECT 1 FROM pending LIMIT 1").fetchone() is not None
    if not changed and not gone and not queued and _stored_token(db) == token:
        return
    _begin(db, cancelled)
    try:
        changed, gone, ids = diff()  # again under the write lock: another process may have synced
        for _path, rowid in gone:
            _delete(db, rowid)
        for rel in changed:
            _put(db, root, rel, ids.get(rel), current[rel])
        db.execute("DELETE FROM pending")
        _set_token(db, token)
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _current(db: sqlite3.Connection, root: Path, cancelled: Callable[[], bool]) -> str:
    """Bring the index up to the wiki by its change token: ``"token"`` (already current),
    ``"queued"`` (re-indexed the pages the projector queued whose stamp changed, a few
    ``lstat`` calls and no walk) or ``"walk"`` (the token differs or the wiki has none:
    synced by stat)."""
    token = _token(root)
    if token is not None and _stored_token(db) == token:
        if db.execute("SELECT 1 FROM pending LIMIT 1").fetchone() is None:
            return "token"
        _begin(db, cancelled)
        try:
            if _stored_token(db) == token:  # again under the write lock
                stored = {
                    path: (rowid, stamp)
                    for rowid, path, stamp in db.execute(
                        "SELECT id, path, stamp FROM files WHERE path IN (SELECT path FROM pending)"
                    )
                }
                for (rel,) in db.execute("SELECT path FROM pending").fetchall():
                    rowid, old = stored.get(rel, (None, ""))
                    stamp = _page_stamp(root, rel)
                    if stamp is None:
                        if rowid is not None:
                            _delete(db, rowid)
                    elif stamp != old:
                        _put(db, root, rel, rowid, stamp)
                db.execute("DELETE FROM pending")
                db.execute("COMMIT")
                return "queued"
            db.execute("ROLLBACK")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    _sync(db, root, cancelled, token)
    return "walk"


def refresh(root: Path) -> bool:
    """Bring the index of the wiki at ``root`` up to date with the pages on disk, by
    stat (call it after a rebuild so the first search is warm). False when the index
    cannot be used (no FTS5 trigram tokenizer, a read-only folder, a locked or broken
    file)."""
    try:
        db = _open(index_path(root))
    except (sqlite3.Error, OSError):
        return False
    try:
        _sync(db, Path(root), token=_token(Path(root)))
        return True
    except (sqlite3.Error, OSError):
        return False
    finally:
        db.close()


def catch_up(root: Path) -> str | None:
    """Bring the index of the wiki at ``root`` up to its change token, as the next
    the next search would (the desk calls it after a projection and on start, in a
    worker, so the next keystroke finds it warm): ``"token"``, ``"queued"`` or
    ``"walk"`` (see :func:`_current`), or None when the index cannot be used."""
    try:
        db = _open(index_path(root))
    except (sqlite3.Error, OSError):
        return None
    try:
        return _current(db, Path(root), _never)
    except (sqlite3.Error, OSError, Cancelled):
        return None
    finally:
        db.close()


def note_written(root: Path, paths: Iterable[str], old: bytes | None, new: bytes) -> bool:
    """The projector's note, under the wiki lock right after it wrote pages and the
    state file: ``paths`` (wiki-relative) are the pages it rendered (written or found
    unchanged), ``old``/``new`` the state file's bytes before and after. When the index
    was current with ``old``, the paths are queued and ``new`` becomes its token (one
    short transaction; no page is read here). Otherwise nothing changes: the token stays
    unmatched and the next search syncs by stat. Best-effort and quick: no index file,
    an outdated schema, a writer holding it longer than :data:`NOTE_WAIT_S` or any
    SQLite error returns False and never raises."""
    if old is None:
        return False
    with _current_index(root) as db:
        if db is None:
            return False
        # no fsync (WAL): a note lost to a power cut leaves the old token, which no
        # longer matches the state file, so the next search syncs by stat
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute("BEGIN IMMEDIATE")
        try:
            noted = _stored_token(db) == old.hex()
            if noted:
                db.executemany("INSERT OR IGNORE INTO pending VALUES (?)", ((p,) for p in paths))
                _set_token(db, new.hex())
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return noted
    return False


def invalidate(root: Path) -> bool:
    """Forget the change token of the index of the wiki at ``root`` (the projector calls
    it before a full sync: many pages change, and a process killed midway must not leave
    a token that looks current), so the next search syncs by stat. Best-effort like
    :func:`note_written`; True when a token was removed."""
    with _current_index(root) as db:
        if db is None:
            return False
        return db.execute("DELETE FROM meta WHERE key = 'mark'").rowcount > 0
    return False


@contextlib.contextmanager
def _current_index(root: Path) -> Iterator[sqlite3.Connection | None]:
    """The index of the wiki at ``root`` opened for a short best-effort write (autocommit,
    a busy wait of :data:`NOTE_WAIT_S`), or None when there is no index file, its schema
    is not this version's or SQLite fails to open it. A ``sqlite3.Error`` inside the
    block is swallowed (the block's caller then returns its fallback); the connection
    is always closed."""
    path = index_path(root)
    if not path.is_file():
        yield None
        return
    try:
        db = sqlite3.connect(path, timeout=NOTE_WAIT_S, isolation_level=None)
    except sqlite3.Error:
        yield None
        return
    try:
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
        except sqlite3.Error:
            row = None
        try:
            yield db if row is not None and row[0] == _VERSION else None
        except sqlite3.Error:
            return
    finally:
        db.close()


# --- queries ---------------------------------------------------------------------------------


def _phrase(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _where(tokens: list[str], table: str = "pages") -> tuple[str, list[str], bool]:
    """The SQL condition (and its arguments) of the pages that may hold every token: a
    token whose spellings (:func:`etki.text.spellings`) all have three or more
    characters goes to ``MATCH`` (its spellings OR-ed), any other to ``instr`` on the
    folded text (the trigram tokenizer cannot match shorter text); the third value says
    whether ``MATCH`` is used."""
    where: list[str] = []
    args: list[str] = []
    match: list[str] = []
    for t in tokens:
        forms = spellings(t)
        if all(len(f) >= 3 for f in forms):
            match.append(_phrase(t) if len(forms) == 1 else f"({' OR '.join(map(_phrase, forms))})")
        else:
            where.append("(" + " OR ".join([f"instr({table}.folded, ?) > 0"] * len(forms)) + ")")
            args += forms
    if match:
        where.insert(0, f"{table} MATCH ?")
        args.insert(0, " AND ".join(match))
    return " AND ".join(where), args, bool(match)


def json_list(values: list[int]) -> str:
    """``values`` as a JSON array (for ``json_each`` in SQL)."""
    return "[" + ",".join(str(int(v)) for v in values) + "]"


def _snapshot(
    root: Path, cancelled: Callable[[], bool] | None = None
) -> tuple[sqlite3.Connection, str] | None:
    """The index of the wiki at ``root`` brought up to the wiki's change token
    (:func:`catch_up`'s rule: no walk while the projector keeps it current) and inside
    a read transaction (``BEGIN``): one snapshot for the reads that follow, so a
    concurrent sync cannot split them; with how it was synced (``token``, ``queued``,
    ``walk``: :func:`_current`). None when the index cannot be opened or synced (the
    caller falls back); else the caller closes the connection.

    ``cancelled`` (the desk's live search): polled while waiting for another writer of
    the index and, through SQLite's progress handler, while the caller's queries run;
    when it returns True, :class:`Cancelled` is raised (the sync of queued pages is
    never cut halfway: a transaction either lands or is rolled back)."""
    stop = cancelled or _never
    try:
        db = _open(index_path(root), timeout=0.05 if cancelled is not None else 30.0)
    except (sqlite3.Error, OSError):
        return None
    try:
        synced = _current(db, root, stop)
        if stop():
            raise Cancelled
        db.execute("BEGIN")
        if cancelled is not None:
            db.set_progress_handler(lambda: 1 if stop() else 0, _POLL_OPS)
    except (sqlite3.Error, OSError, UnsafeWikiPath):
        db.close()
        return None
    except BaseException:
        db.close()
        raise
    return db, synced


def search_scored(
    root: Path, tokens: list[str], limit: int | None = None
) -> list[tuple[int, str, Hit]] | None:
    """``(-count, path, Hit)`` of the pages of the wiki at ``root`` holding all folded
    ``tokens``, sorted by (most tokens on one line first, path), at most ``limit`` of
    them; None when the index cannot be used (the caller then scans with Python).

    The index is first brought up to the wiki's change token (:func:`catch_up`'s rule:
    no walk while the projector keeps it current; a wiki without a state file, or with a
    token the index has not seen, is synced by stat). The candidates' folded text alone
    decides the hits and their order; the raw text is read back only for the hits
    returned, for their snippet."""
    snap = _snapshot(Path(root))
    if snap is None:
        return None
    db = snap[0]
    try:
        where, args, _ = _where(tokens)
        ranked: list[tuple[int, str, int, int, str]] = []  # (-count, path, rowid, index, first)
        for rowid, rel, folded in db.execute(
            "SELECT files.id, files.path, pages.folded FROM pages "  # noqa: S608
            "JOIN files ON files.id = pages.rowid WHERE " + where,
            args,
        ):
            best = _best_in_folded(folded, tokens)
            if best is not None:
                index, _, count, first = best
                ranked.append((-count, rel, rowid, index, first))
        ranked.sort()
        shown = ranked if limit is None else ranked[:limit]
        raws = dict(
            db.execute(
                "SELECT rowid, raw FROM pages WHERE rowid IN (SELECT value FROM json_each(?))",
                (json_list([r[2] for r in shown]),),
            )
        )
    except (sqlite3.Error, OSError, UnsafeWikiPath):
        return None
    finally:
        db.close()
    scored: list[tuple[int, str, Hit]] = []
    for minus, rel, rowid, index, first in shown:
        # fold keeps line breaks where they are, and a 0x0A byte is a line break however
        # the bytes around it decode: only the one line is decoded
        lines = _decoded_lines(raws[rowid], index)
        scored.append((minus, rel, Hit(rel, index + 1, page_snippet(lines, index, first))))
    return scored


def _decoded_lines(raw: bytes, index: int) -> list[str]:
    """The first ``index + 1`` lines of page bytes ``raw``, each decoded alone (a 0x0A
    byte is a line break however the bytes around it decode), for
    :func:`~etki.wiki.pagematch.page_snippet`."""
    return [b.decode("utf-8", errors="replace") for b in raw.split(b"\n", index + 1)[: index + 1]]
