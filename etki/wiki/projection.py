"""The wiki projection: read the database, render, write what changed.

This is the one place that writes wiki files (DESIGN.md: "the wiki is always a projection
of the database"). Rows come from :class:`~etki.store.repository.CaseFileRepository`;
pages from the pure renderers in :mod:`etki.wiki.pages`; bytes go to disk through
:func:`etki.wiki.writer.sync_tree`. Nothing is ever read back from the wiki to decide
what to render. After each write the search index is told which pages changed
(:func:`etki.wiki.fts.note_written`; a full sync forgets its token first,
:func:`etki.wiki.fts.invalidate`), so the desk's search never walks the wiki.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from filelock import FileLock, Timeout

from etki.config import DEFAULT_WIKI_LOCK_TIMEOUT, Settings
from etki.domain import CaseBrief, CaseRecord, ClauseResolution
from etki.errors import NotFoundError
from etki.memory import resolutions_in_force
from etki.progress import task
from etki.store.repository import CaseFileRepository
from etki.wiki import fts, rendercache, staged
from etki.wiki.flusher import Flusher
from etki.wiki.model import WikiModel
from etki.wiki.pages import (
    page_keys,
    render_changed,
    render_model,
    stale_case_pages,
)
from etki.wiki.paths import INDEX
from etki.wiki.rendercache import RenderCache
from etki.wiki.writer import (
    MARK_FILE,
    OWNER_FILE,
    Drift,
    UnsafeWikiPath,
    WriteReport,
    drift_tree,
    read_mark,
    remove_files,
    remove_pages,
    sync_tree,
    write_mark,
)

__all__ = ["LOCK_NAME", "MARK_NAME", "WIKI_OFF", "WikiProjector", "wiki_lock", "wiki_mark"]

log = logging.getLogger("etki.wiki")

WIKI_OFF = "wiki off (ETKI_WIKI_DIR is empty): nothing written"
LOCK_NAME = OWNER_FILE  # the lock file is also the proof that the folder is a wiki
MARK_NAME = MARK_FILE  # the DB change token the wiki reflects (see _Mark)
LOCK_TIMEOUT_S = DEFAULT_WIKI_LOCK_TIMEOUT  # settings.wiki_lock_timeout overrides it


@contextlib.contextmanager
def wiki_lock(root: Path, timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    """Hold an exclusive cross-process lock on the wiki at ``root``
    (``root/.etki-wiki.lock``, a :class:`filelock.FileLock`: ``flock`` on POSIX,
    ``msvcrt`` locking on Windows) while reading the DB and writing.

    Two reviewers ruling at the same time each render from the DB *inside* the lock, so
    the last writer always wrote the newest state: the wiki never ends on an older
    snapshot (B15, B16). A process killed while holding it releases it (the OS drops the
    lock with the descriptor). Raises ``OSError`` (:class:`filelock.Timeout` is a
    ``TimeoutError``) when the lock is not free within ``timeout`` seconds, and
    :class:`UnsafeWikiPath` when the lock file is a symlink or not a regular file (it is
    never followed out of the wiki) or the wiki folder itself is a symlink.

    Ownership: Etki writes (and so prunes) only a folder it can prove is its own wiki:
    one that is missing or empty, or that already holds the lock file, which Etki
    creates before it writes any page (every wiki an earlier version wrote has it). A
    folder with other files and no lock file — ``ETKI_WIKI_DIR`` pointed at somebody's
    documents — raises :class:`UnsafeWikiPath` and nothing in it changes."""
    with contextlib.suppress(FileNotFoundError):
        if stat.S_ISLNK(os.lstat(root).st_mode):
            raise UnsafeWikiPath(
                f"wiki folder {root} is a symlink (to {os.readlink(root)}); "
                "Etki never writes or reads through one: set "
                "ETKI_WIKI_DIR to the real folder instead"
            )
    try:
        entries = os.listdir(root)
    except FileNotFoundError:
        entries = []
    if entries and LOCK_NAME not in entries:
        raise UnsafeWikiPath(
            f"{root} holds files but is not an Etki wiki (no {LOCK_NAME}): a rebuild would "
            "overwrite and remove them. Point ETKI_WIKI_DIR at a new or empty folder, or "
            "move those files away"
        )
    root.mkdir(parents=True, exist_ok=True)
    path = root / LOCK_NAME
    with contextlib.suppress(FileNotFoundError):
        mode = os.lstat(path).st_mode
        if not stat.S_ISREG(mode):
            raise UnsafeWikiPath(
                f"{path} is not a regular file; the wiki lock never follows a symlink"
            )
    lock = FileLock(str(path), timeout=timeout, mode=0o644)
    try:
        lock.acquire()
    except Timeout:
        raise TimeoutError(
            f"the wiki at {root} is locked by another writer (waited {timeout:g} s)"
        ) from None
    try:
        yield
    finally:
        lock.release()


AUDIT_WINDOW = 256
"""How far back (in audit-log ids) each refresh looks again: on PostgreSQL an audit id
is taken when a transaction inserts it, so a ruling can commit after a newer id was
already seen; re-reading the recent window (ids already applied are skipped) catches it.
A missed one would still show as a case count or version mismatch (see ``_refresh``)."""


@lru_cache(maxsize=8)  # the same project row on every ruling: hashed once
def _head_digest(head: tuple[object, ...]) -> str:
    """sha256 (hex) of the project part of :meth:`CaseFileRepository.wiki_token`
    (index hash, name, config, root, edge types, resolution count: a new resolution of a
    disputed clause reads like a re-load, and the tree is rendered again)."""
    text = json.dumps([str(x) for x in head], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class _Mark:
    """What the wiki's pages reflect, kept in the wiki as :data:`MARK_NAME` and written
    after every successful write (``rebuild``, a projection, a catch-up): the project
    id, the digest of the project row read (:func:`_head_digest`), its case count, the
    newest audit-log id and, among the :data:`AUDIT_WINDOW` ids below it, those that were
    not committed when the DB was read (``missing``: on PostgreSQL a lower id can commit
    later; on SQLite it is empty). Every ruling and erasure appends an audit row, so the
    audit rows above ``audit`` or in ``missing`` are exactly the changes the pages lack
    (a ruling killed after its commit, or one whose projection timed out on the lock).

    Bytes: one line of JSON with sorted keys (``{"audit": 41, "cases": 60, "head":
    "…", "missing": [], "project": "demo", "version": 1}``); a function of the DB
    state only, so a wiki brought up to date by projections holds the same file as a
    fresh rebuild."""

    project: str
    head: str
    cases: int
    audit: int
    missing: tuple[int, ...] = ()

    VERSION = 12
    """The renderers' output version: bumped whenever a page's bytes change for the same
    DB rows, so a wiki an earlier version wrote is re-rendered whole by the next write
    (its mark no longer parses). 2: clause text in its display form and ``disputed.md``
    without a table (issue 12). 3: no U+26A0 on the pages (a terminal multiplexer draws
    it two cells wide where the reader lays it out as one; the word DISPUTED says it).
    4: change-request pages, linked from their decision pages and ``index.md`` (issue 14);
    decision pages end with "The saved pre-analysis" (issue 14 item 9). 5: a decision
    page's effort names one figure when both ends are equal and lists the work items it
    rests on with titles, days and dates (issue 12 item 7). 6: one day is ``1 person-day``
    (singular) on the decision and change-request pages. 7: ``disputed.md`` says a clause
    is disputed also when the rulings contradict the PMO's resolution (issue 14 item 6).
    8: the rulings on contract, module and index pages are list items, not a six-column table
    (unreadable at 80 columns, issue 12). 9: a clause is disputed by the rulings about it
    (:func:`etki.memory.ruled_about`), not by every ruling of a case citing it.
    10: a clause's precedent count on the contract page counts its overrides by the same rule.
    11: every contract's page, whole, links anchored (#33). 12: CR page price grouped (#35)."""

    @property
    def floor(self) -> int:
        """Audit ids at or below this are taken as reflected (older than the window)."""
        return max(0, self.audit - AUDIT_WINDOW)

    def lagging(self, rows: list[tuple[int, str]]) -> set[str]:
        """Case ids of the audit ``rows`` ((id, case id)) the pages do not reflect."""
        low, top, gaps = self.floor, self.audit, set(self.missing)  # (once, not per row)
        return {c for i, c in rows if i > low and (i > top or i in gaps)}

    @classmethod
    def of(cls, project_id: str, token: tuple[object, ...], seen: set[int]) -> _Mark:
        """The mark of pages rendered from a read made after ``token`` (a
        :meth:`CaseFileRepository.wiki_token`) and after the audit rows ``seen`` (ids;
        every committed id in the window must be among them)."""
        audit = int(token[-1])  # type: ignore[call-overload]  # wiki_token ends in two ints
        floor = max(0, audit - AUDIT_WINDOW)
        return cls(
            project_id,
            _head_digest(token[:-2]),
            int(token[-2]),  # type: ignore[call-overload]  # wiki_token ends in two ints
            audit,
            tuple(sorted(set(range(floor + 1, audit + 1)).difference(seen))),
        )

    def to_bytes(self) -> bytes:
        return (
            json.dumps(
                {
                    "audit": self.audit,
                    "cases": self.cases,
                    "head": self.head,
                    "missing": list(self.missing),
                    "project": self.project,
                    "version": self.VERSION,
                },
                sort_keys=True,
                separators=(", ", ": "),
            )
            + "\n"
        ).encode("utf-8")

    @classmethod
    def parse(cls, data: bytes | None, project_id: str) -> _Mark | None:
        """The mark in ``data``, or None when it is missing, not this version's, of
        another project or malformed in any way (the caller then syncs everything)."""
        if data is None:
            return None
        try:
            doc = json.loads(data.decode("utf-8"))
            mark = cls(
                doc["project"], doc["head"], doc["cases"], doc["audit"], tuple(doc["missing"])
            )
            ok = (
                doc["version"] == cls.VERSION
                and mark.project == project_id
                and isinstance(mark.head, str)
                and type(mark.cases) is int
                and type(mark.audit) is int
                and all(type(i) is int for i in mark.missing)
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            return None
        return mark if ok else None


def wiki_mark(repo: CaseFileRepository, project_id: str) -> bytes:
    """The bytes of :data:`MARK_NAME` in a wiki that reflects the DB as it is now (what a
    :meth:`WikiProjector.rebuild` writes when nothing changes meanwhile). Raises
    :class:`etki.errors.NotFoundError` for an unknown project."""
    token = repo.wiki_token(project_id)
    seen = repo.audit_since(max(0, int(token[-1]) - AUDIT_WINDOW))  # type: ignore[call-overload]  # wiki_token ends in two ints
    return _Mark.of(project_id, token, {i for i, _ in seen}).to_bytes()


@dataclass
class _Cached:
    """The projector's in-memory view of one project: the model, the token it was read
    at, the audit ids applied (within :data:`AUDIT_WINDOW` of the newest) and the cases
    changed since the last successful write (their pages are rendered again until a
    write succeeds); ``mark`` is what pages rendered from a full read of this model
    reflect (set by ``_load`` only)."""

    model: WikiModel
    head: tuple[object, ...]
    audit_max: int
    versions: dict[str, int] = field(default_factory=dict)
    applied: set[int] = field(default_factory=set)
    unsynced: dict[str, list[CaseBrief]] = field(default_factory=dict)
    mark: _Mark | None = None


def _had_pages(full: list[CaseRecord]) -> list[CaseBrief]:
    """Briefs of the earlier rulings of the amended cases among ``full``: the pages a
    case had under them (a precedent an amendment back to the engine's verdict ended,
    a decision page that moved to the new ruling's date, a change request amended
    away) are known from the DB, also to a fresh projector that never saw them."""
    out: list[CaseBrief] = []
    for record in full:
        if record.earlier_rulings:
            brief = CaseBrief.of(record)
            out += [replace(brief, ruling=r) for r in record.earlier_rulings]
    return out


def _with_removed(report: WriteReport, removed: list[str]) -> WriteReport:
    """``report`` with the paths ``removed`` beside the pages it wrote."""
    gone = tuple(sorted({*report.removed, *removed}))
    return replace(report, removed=gone) if removed else report


def _close_all(fds: list[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)
    fds.clear()


class WikiProjector:
    """Projects stored cases into each project's wiki folder
    (``settings.wiki_path(project_id)``; ``None`` there means the wiki is off and every
    method does nothing, saying so in its report).

    A projector keeps, per project, an in-memory :class:`~etki.wiki.model.WikiModel` of
    the rows the shared pages read, loaded on first use (or primed by :meth:`rebuild`) and
    refreshed under the wiki lock from a cheap DB change token before every projection:
    rulings and erasures made by any process (they append to the audit log), new cases
    (the case count) and a re-loaded project (its row) are all seen, so the pages written
    are always those of the DB at that moment. Long-lived instances (the desk's) make a
    ruling's projection cost what the ruling changed; a fresh instance pays one full read.
    """

    def __init__(
        self, repo: CaseFileRepository, settings: Settings, *, defer_fsync: bool = True
    ) -> None:
        self.repo = repo
        self.settings = settings
        self.defer_fsync = defer_fsync
        """When true (the default), :meth:`project_case` writes its pages atomically
        (temporary file + rename) and ``fsync``-s them on the projector's one background
        thread right after returning (:meth:`flush` waits for it, :meth:`close` stops
        it), instead of one ``fsync`` per page on the ruling's path (on a slow disk those dominate: tens of milliseconds). ``rebuild``
        always writes durably."""
        self._cache: dict[str, _Cached] = {}
        self.render_counts: dict[str, tuple[int, int]] = {}
        """project id -> (pages taken from the render cache, pages rendered) by its last
        full sync (:meth:`rebuild`, or a projection that had to sync everything)."""
        self._flusher = Flusher()
        self._folders: set[tuple[str, Path]] = set()

    def _record_folder(self, project_id: str, root: Path) -> None:
        """Write down in the store, once per projector, that ``project_id``'s wiki is
        written into ``root`` (:meth:`~etki.store.CaseFileRepository.record_wiki_folder`,
        issue 30 item 2), before anything is written there: an erasure finds the case's
        pages in it whatever ``ETKI_WIKI_DIR`` it runs with. A store opened read-only
        (``python -m etki.wiki rebuild``) records it on a connection of its own (one that
        may not be written refuses a folder it does not know: ``StoreUnusableError``)."""
        if (project_id, root) in self._folders:
            return
        self.repo.record_wiki_folder(project_id, root)
        self._folders.add((project_id, root))

    def render(self, project_id: str) -> dict[str, bytes]:
        """The full rendered tree of ``project_id`` from the DB ({relative path: bytes}).
        Raises :class:`etki.errors.NotFoundError` for an unknown project."""
        state, cases = self._load(project_id)
        return render_model(state.model, cases)

    def _load(self, pid: str, *, full: bool = True) -> tuple[_Cached, list[CaseRecord]]:
        """Read the whole project from the DB into a fresh cached model (kept for the
        next projection); returns it and the full records read (none when ``full`` is
        false: then only what the shared pages read is loaded, a fraction of the memory
        and time)."""
        head = self.repo.wiki_token(pid)
        audit_max = int(head[-1])  # type: ignore[call-overload]  # wiki_token ends in two ints
        # audit rows that exist now are reflected in the reads below
        seen = self.repo.audit_since(max(0, audit_max - AUDIT_WINDOW))
        project = self.repo.wiki_project(pid)
        resolutions = self._resolutions(pid)
        cases: list[CaseRecord] = []
        if full:
            cases = self.repo.cases(pid)
            model = WikiModel.build(project, cases, resolutions)
            versions = {c.case_id: c.version for c in cases if c.project_id == pid}
        else:
            briefs = self.repo.wiki_case_briefs(pid)
            model = WikiModel.build(project, briefs, resolutions)
            versions = {b.case_id: b.version for b in briefs}
        state = _Cached(
            model,
            head[:-2],
            max([audit_max, *(i for i, _ in seen)]),
            versions=versions,
            applied={i for i, _ in seen},
            mark=_Mark.of(pid, head, {i for i, _ in seen}),
        )
        self._cache[pid] = state
        return state, cases

    def _resolutions(self, pid: str) -> dict[str, ClauseResolution]:
        """The resolutions of disputed clauses in force in ``pid`` (read after the token,
        like the rest of the model: a newer one changes the token again)."""
        return resolutions_in_force(self.repo.clause_resolutions(pid))

    def project_case(self, case_id: str, ruled: CaseRecord | None = None) -> WriteReport:
        """The HITL ingest hook, called after a ruling commits: re-render, from the DB,
        every page a ruling on ``case_id`` can change (its decision page, its precedent
        page on an override, the contract pages of its cited clauses, the module pages of
        its impacted modules, ``disputed.md`` and ``index.md``), plus the same pages of
        every other case that changed in the DB since this projector last looked or that
        the wiki does not reflect yet (see :meth:`catch_up`: a ruling whose own
        projection never ran or failed, in any process), and write the ones whose bytes
        changed. When the wiki cannot show what it reflects (no ``index.md`` or no
        :data:`MARK_NAME`: never built, deleted, or written by an older Etki), was
        written from another load of the project or a newer DB, or misses an erasure,
        the whole tree is synced as :meth:`rebuild` does. Reading and writing happen
        under :func:`wiki_lock` (``settings.wiki_lock_timeout`` seconds at most).
        Every page written is byte-identical to the same page of a full :meth:`rebuild`
        at that moment.

        ``ruled``: the case as the first ruling on it left it, from the decision in hand
        (:class:`~etki.approval.ApprovalService` builds it from the record it read and the
        committed ruling). It is applied as it is, without reading the case again, when
        the DB poll shows that ruling as the case's only change this projector has not
        applied and no other change of the case within the audit window (a note or a
        pre-analysis saved meanwhile is one): else the case is read from the DB as
        without it.

        Raises :class:`etki.errors.NotFoundError` for an unknown case, ``OSError``
        (including :class:`etki.wiki.writer.UnsafeWikiPath`, and ``TimeoutError`` when
        the lock is not free in time) when the wiki folder cannot be written. Callers
        that must not fail on the wiki (``ApprovalService``) catch and log; the database
        is written only to record the wiki folder, once per projector
        (:meth:`_record_folder`).
        """
        # a case never moves between projects: a cached model that holds it knows where
        pid = next((p for p, st in self._cache.items() if case_id in st.model.cases), None)
        if pid is None:
            pid = self.repo.case_project_id(case_id)  # NotFoundError for an unknown case
        root = self.settings.wiki_path(pid)
        if root is None:
            return WriteReport(root=None, skipped=WIKI_OFF)
        self._record_folder(pid, root)
        given = {case_id: ruled} if ruled is not None and ruled.case_id == case_id else {}
        with wiki_lock(root, self.settings.wiki_lock_timeout):
            return self._project(pid, root, frozenset({case_id}), given)

    def catch_up(self, project_id: str) -> WriteReport:
        """Write whatever the DB holds that the wiki of ``project_id`` lacks, as the next
        :meth:`project_case` would (the desk runs this on start, in a worker): the wiki's
        :data:`MARK_NAME` names the DB change it reflects; the pages of every case
        changed since (rulings killed after their commit, projections that timed out on
        the lock or failed) are rendered from the DB and written where their bytes
        differ, with ``index.md`` and ``disputed.md``; a wiki without a usable mark is
        synced whole (written where bytes differ, stale pages pruned), as
        :meth:`rebuild`. A wiki that is up to date costs one small file read and one DB
        poll, and nothing is written. Returns the :class:`WriteReport` (``skipped`` when
        the wiki is off).

        Raises :class:`etki.errors.NotFoundError` for an unknown project and ``OSError``
        (``TimeoutError`` after ``settings.wiki_lock_timeout`` seconds on the lock) when
        the wiki cannot be written."""
        self.repo.project_config(project_id)  # NotFoundError before any folder is made
        root = self.settings.wiki_path(project_id)
        if root is None:
            return WriteReport(root=None, skipped=WIKI_OFF)
        self._record_folder(project_id, root)
        with wiki_lock(root, self.settings.wiki_lock_timeout):
            return self._project(project_id, root, frozenset())

    def _project(
        self,
        pid: str,
        root: Path,
        wanted: frozenset[str],
        given: dict[str, CaseRecord] | None = None,
    ) -> WriteReport:
        """Under the wiki lock: bring the wiki at ``root`` up to the DB, with the pages of
        the cases ``wanted`` rendered whatever the mark says (see :meth:`project_case`;
        ``given``: records in hand of just-ruled cases, by id)."""
        old = read_mark(root)
        mark = _Mark.parse(old, pid)
        if mark is None or not (root / INDEX).is_file():  # never built, deleted, or older
            return self._sync_all(pid, root, wanted)
        state = self._cache.get(pid)
        after = (
            mark.floor if state is None else min(mark.floor, max(0, state.audit_max - AUDIT_WINDOW))
        )
        try:
            head, rows = self.repo.wiki_poll(pid, after)
            if (
                _head_digest(head[:-2]) != mark.head  # another load of the project
                or int(head[-1]) < mark.audit  # type: ignore[call-overload]  # wiki_token ends in two ints
            ):
                return self._sync_all(pid, root, wanted)  # (a DB older than the wiki)
            lag = mark.lagging(rows)
            if (
                not wanted
                and not lag
                and int(head[-2]) == mark.cases  # type: ignore[call-overload]  # wiki_token ends in two ints
                and (state is None or not state.unsynced)
            ):
                return WriteReport(root=root)  # up to date: nothing to write
            in_hand = self._in_hand(state, given or {}, rows)
            state, full, gone = self._refresh(pid, set(wanted) | lag, head, rows, in_hand)
            if gone & lag:  # an erasure the wiki never saw: its pages must be pruned
                return self._sync_all(pid, root, wanted)
            touched = [b for briefs in state.unsynced.values() for b in briefs]
            files = render_changed(state.model, full, touched)
            # a page a changed case no longer has (an amendment ended its precedent or
            # change request, or moved its decision page to the new ruling's date)
            had = [*touched, *_had_pages(full)]
            stale = [p for p in stale_case_pages(state.model, had) if p not in files]
        except BaseException:
            self._cache.pop(pid, None)  # start from the DB again next time
            raise
        unknown = sorted(c for c in wanted if c not in state.model.cases)
        if unknown:  # erased meanwhile (the model saw it go)
            raise NotFoundError(f"no case '{unknown[0]}' in the store")
        new = _Mark.of(pid, head, {i for i, _ in rows}).to_bytes()
        if not self.defer_fsync:
            report = sync_tree(root, files, prune=False)
            report = _with_removed(report, remove_files(root, stale))
            if new != old:
                write_mark(root, new)
        else:
            held: list[int] = []
            try:
                report = sync_tree(root, files, prune=False, durable=False, hold_old=held)
                report = _with_removed(report, remove_files(root, stale))
                if new != old:
                    write_mark(root, new, durable=False)
            except BaseException:
                _close_all(held)
                raise
            self._flusher.submit(
                root, (*report.written, MARK_NAME) if new != old else report.written, held
            )
        # the search index (etki.wiki.fts) learns which pages to re-read: no wiki walk
        fts.note_written(root, [*files, *report.removed], old, new)
        # (a failed write keeps state.unsynced and the old mark: the next one renders them)
        state.unsynced.clear()
        return report

    def _sync_all(self, pid: str, root: Path, wanted: frozenset[str]) -> WriteReport:
        """Under the wiki lock: render the whole tree from the DB, write the pages whose
        bytes differ, prune stale ones, then write the mark (durably). Raises
        :class:`NotFoundError` when a case of ``wanted`` is not in the project."""
        state, _ = self._load(pid, full=False)
        with task(f"wiki {pid}: rendering pages"):  # a bar on a terminal only
            files = self._render_all(pid, root, state)
        fts.invalidate(root)  # many pages change: the next search syncs by stat
        report = sync_tree(root, files, prune=True)
        assert state.mark is not None
        if read_mark(root) != (new := state.mark.to_bytes()):
            write_mark(root, new)
        unknown = sorted(c for c in wanted if c not in state.model.cases)
        if unknown:
            raise NotFoundError(f"no case '{unknown[0]}' in the store")
        return report

    def _render_all(self, pid: str, root: Path, state: _Cached) -> dict[str, bytes]:
        """Under the wiki lock: the full tree of the freshly loaded ``state`` (briefs
        only), taking from the render cache beside the wiki (:mod:`etki.wiki.rendercache`)
        every page whose key (:func:`etki.wiki.pages.page_keys`) is unchanged and
        rendering the others from records read for them alone; what was rendered is
        kept for the next time. :attr:`render_counts` says how many of each. Without a
        store identity, or when a case changed between the reads (its record no longer
        matches its brief), everything is rendered from one full read instead."""
        model = state.model
        store = self.repo.store_id()
        ruled = [cid for cid, b in model.cases.items() if b.ruling is not None]
        if store is None:
            return self._render_fresh(pid, model, ruled)
        salt = hashlib.sha256(
            f"{store}\0{_head_digest(state.head)}\0{_Mark.VERSION}".encode()
        ).hexdigest()
        keys, owner = page_keys(model, salt, self.repo.wiki_case_stamps(pid))
        with RenderCache.open(root) as cache:
            known = cache.lookup(keys)
            missing = sorted({owner[p] for p in owner if p not in known})
            records = self.repo.cases_by_id(missing)
            if len(records) != len(missing) or any(
                model.cases.get(r.case_id) != CaseBrief.of(r) for r in records
            ):  # changed since the briefs were read: the keys are not theirs
                return self._render_fresh(pid, model, ruled)
            files = render_model(model, records, known)
            if files.keys() == keys.keys() and self.repo.wiki_token(pid)[:-2] == state.head:
                cache.store({p: (keys[p], b) for p, b in files.items() if p not in known}, files)
            self.render_counts[pid] = (cache.hits, len(files) - cache.hits)
        return files

    def _render_fresh(self, pid: str, model: WikiModel, ruled: list[str]) -> dict[str, bytes]:
        """The full tree of ``model`` rendered from the records of ``ruled`` read now
        (a case changed since ``model`` was read makes the model newer, as a full
        :meth:`_load` would have read it)."""
        records = self.repo.cases_by_id(ruled)
        for rec in records:
            if model.cases.get(rec.case_id) != (brief := CaseBrief.of(rec)):
                model.put(brief)
        for cid in set(ruled) - {r.case_id for r in records}:
            model.remove(cid)  # erased meanwhile
        files = render_model(model, records)
        self.render_counts[pid] = (0, len(files))
        return files

    def flush(self) -> None:
        """Wait until every page written by :meth:`project_case` is on disk (its
        deferred ``fsync`` done by the projector's :class:`~etki.wiki.flusher.Flusher`
        thread). Raises the first ``OSError`` of an ``fsync`` that failed since the
        last flush (also logged when it happened)."""
        self._flusher.flush()

    def close(self) -> None:
        """Flush, then stop the fsync thread (the projector may still be used: the
        next projection starts it again). Raises as :meth:`flush`. A process that
        exits without it still flushes (:mod:`etki.wiki.flusher`)."""
        self._flusher.close()

    @staticmethod
    def _in_hand(
        state: _Cached | None, given: dict[str, CaseRecord], rows: list[tuple[int, str]]
    ) -> dict[str, CaseRecord]:
        """The records of ``given`` that are the case as the DB holds it now: a first
        ruling (no earlier one) whose audit row is the only row of the case among the
        polled ``rows`` that this projector has not applied, and none of the case's
        rows in the window was applied before (so nothing written between the approval's
        read and its commit was seen by another projection of this one). Needs the
        model already loaded (``state``)."""
        if state is None or not given:
            return {}
        floor = state.audit_max - AUDIT_WINDOW
        fresh: dict[str, int] = {}
        seen: set[str] = set()
        for i, c in rows:
            if c in given:
                if i in state.applied or i <= floor:
                    seen.add(c)
                else:
                    fresh[c] = fresh.get(c, 0) + 1
        return {
            c: rec
            for c, rec in given.items()
            if rec.ruling is not None
            and not rec.earlier_rulings
            and rec.version == rec.ruling.version
            and rec.project_id == state.model.project.id
            and fresh.get(c) == 1
            and c not in seen
        }

    def _refresh(
        self,
        pid: str,
        case_ids: set[str],
        head: tuple[object, ...],
        rows: list[tuple[int, str]],
        held: dict[str, CaseRecord] | None = None,
    ) -> tuple[_Cached, list[CaseRecord], set[str]]:
        """Bring the cached model of ``pid`` up to the DB, given a fresh
        :meth:`CaseFileRepository.wiki_poll` (``head``, and ``rows``: the audit rows
        since at most this projector's window floor); returns it, the full records of
        the cases that changed since the last successful write (``case_ids`` always
        among them) and the ids of ``case_ids`` that are not in the store (erased).
        ``held``: records in hand that are the DB's (:meth:`_in_hand`): not read again."""
        state = self._cache.get(pid)
        token, count, audit_max = head[:-2], int(head[-2]), int(head[-1])  # type: ignore[call-overload]  # wiki_token ends in two ints
        if state is None:  # first use: one read of what the shared pages need
            state, _ = self._load(pid, full=False)
            changed = set(case_ids)
        elif state.head != token:  # a re-loaded project: same cases, new clauses/modules
            seen = self.repo.audit_since(max(0, audit_max - AUDIT_WINDOW))
            state = _Cached(
                state.model.with_project(self.repo.wiki_project(pid), self._resolutions(pid)),
                token,
                max([audit_max, *(i for i, _ in seen)]),
                versions=state.versions,
                applied={i for i, _ in seen},
                unsynced=state.unsynced,
            )
            self._cache[pid] = state
            self._resync_all(state)  # re-read every case whose version changed meanwhile
            changed = set(case_ids) | set(state.unsynced)
        else:
            floor = state.audit_max - AUDIT_WINDOW
            new = [(i, c) for i, c in rows if i > floor and i not in state.applied]
            changed = set(case_ids) | {c for _, c in new} | set(state.unsynced)
            state.applied.update(i for i, _ in new)
            state.audit_max = max([state.audit_max, audit_max, *(i for i, _ in new)])
            floor = state.audit_max - AUDIT_WINDOW
            state.applied = {i for i in state.applied if i > floor}
        full = self._apply(state, changed, held or {})
        gone = set(case_ids) - {c.case_id for c in full}
        if len(state.model.cases) != count:  # cases added (or a change we did not see)
            self._resync_all(state)
            full = self.repo.cases_by_id(sorted(state.unsynced))
        return state, [c for c in full if c.project_id == pid], gone

    def _apply(
        self, state: _Cached, case_ids: set[str], held: dict[str, CaseRecord] | None = None
    ) -> list[CaseRecord]:
        """Re-read ``case_ids`` (those in ``held`` are taken from it) and put them into
        the model (remove the ones gone); remember the briefs before and after as
        unsynced. Returns the records read or held."""
        model = state.model
        held = {c: r for c, r in (held or {}).items() if c in case_ids}
        rest = sorted(case_ids - held.keys())
        found = [
            *(self.repo.cases_by_id(rest) if rest else []),
            *(held[c] for c in sorted(held)),
        ]
        seen = set()
        for rec in found:
            seen.add(rec.case_id)
            if rec.project_id != model.project.id:
                continue
            brief = CaseBrief.of(rec)
            state.versions[rec.case_id] = rec.version
            old = model.put(brief)
            self._note(state, rec.case_id, old, brief)
        for cid in case_ids - seen:
            state.versions.pop(cid, None)
            old = model.remove(cid)
            if old is not None:
                self._note(state, cid, old, None)
        return found

    @staticmethod
    def _note(state: _Cached, case_id: str, old: CaseBrief | None, new: CaseBrief | None) -> None:
        briefs = state.unsynced.setdefault(case_id, [])
        for b in (old, new):
            if b is not None and b not in briefs:
                briefs.append(b)
        if not briefs:
            state.unsynced.pop(case_id, None)

    def _resync_all(self, state: _Cached) -> None:
        """Compare every case version of the project with the model; re-read those that
        differ, add the new ones and remove the gone ones (about 10 ms on 10,000 cases:
        only after cases were added, a project re-load, or a change the audit log did
        not show)."""
        model = state.model
        versions = self.repo.versions(model.project.id)
        stale = {cid for cid in model.cases if cid not in versions}
        stale |= {cid for cid, v in versions.items() if state.versions.get(cid) != v}
        if stale:
            self._apply(state, stale)

    def rebuild(self, project_id: str | None = None) -> dict[str, WriteReport]:
        """Re-derive the whole wiki of ``project_id`` (every stored project when None)
        from the DB, write the pages that changed and remove stale files Etki owns.
        Returns ``{project_id: WriteReport}``. Deleting a wiki folder and rebuilding gives
        the same bytes, file for file.

        Raises ``NotFoundError`` for an unknown project and ``OSError`` on I/O failure.
        """
        ids = self.repo.project_ids() if project_id is None else [project_id]
        if project_id is not None:
            self.repo.project_config(project_id)  # NotFoundError before any folder is made
        reports: dict[str, WriteReport] = {}
        for pid in ids:
            root = self.settings.wiki_path(pid)
            if root is None:
                reports[pid] = WriteReport(root=None, skipped=WIKI_OFF)
                continue
            self._record_folder(pid, root)
            with wiki_lock(root, self.settings.wiki_lock_timeout), staged.no_collection():
                reports[pid] = self._sync_all(pid, root, frozenset())
        return reports

    def remove_pages(
        self,
        project_id: str,
        select: Callable[[str, bytes], bool],
    ) -> list[str]:
        """Under :func:`wiki_lock`, remove the files of ``project_id``'s wiki for which
        ``select(relpath, bytes)`` is true (:func:`etki.wiki.writer.remove_pages`; it
        writes nothing, so it works on a full disk). Erasure calls it before the rebuild
        so the erased case's pages are gone even when the rebuild cannot write, and after
        a failed rebuild for the pages that still hold erased text; ``rebuild`` puts back
        any page the DB still has. Returns the removed paths (empty when the wiki is
        off); raises ``OSError`` as :func:`wiki_lock` and the removal do."""
        root = self.settings.wiki_path(project_id)
        if root is None or not (root.is_dir() or root.is_symlink()):
            return []  # (a symlinked root is refused by the lock, never entered)
        with wiki_lock(root, self.settings.wiki_lock_timeout):
            return remove_pages(root, select)

    def drop_render_cache(self, project_id: str) -> bool:
        """Delete the render cache beside ``project_id``'s wiki
        (:func:`etki.wiki.rendercache.drop`: it holds the text of every page; erasure
        calls this): at once, then again under :func:`wiki_lock`, so a projection that
        read the DB before the erasure and was writing meanwhile cannot leave an erased
        case's page in it. Returns True when a file was removed (False when the wiki is
        off or has none); raises ``OSError`` as the removal and :func:`wiki_lock` do
        (the first removal is done by then)."""
        root = self.settings.wiki_path(project_id)
        if root is None:
            return False
        removed = rendercache.drop(root)
        if root.is_dir():  # no wiki folder: no projection writes (the lock would make one)
            with wiki_lock(root, self.settings.wiki_lock_timeout):
                removed = rendercache.drop(root) or removed
        return removed

    def verify(self, project_id: str) -> list[str]:
        """Wiki-relative paths whose bytes differ from a fresh render: changed, missing,
        or extra files Etki owns. Sorted; empty when the wiki matches the DB or is off.
        Reads only. Never reads the render cache (:mod:`etki.wiki.rendercache`): every
        page is rendered from the DB, so a cache that went wrong shows here as the
        pages a rebuild wrote from it. Raises ``NotFoundError`` for an unknown project."""
        return self.drift(project_id).paths()

    def drift(self, project_id: str) -> Drift:
        """Like :meth:`verify`, split into missing, changed and stale files."""
        root = self.settings.wiki_path(project_id)
        files = self.render(project_id)
        if root is None:
            return Drift()
        return drift_tree(root, files)
