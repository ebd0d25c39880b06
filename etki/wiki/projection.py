"""The wiki projection: read the database, render, write what changed.

This is the one place that writes wiki files (DESIGN.md: "the wiki is always a projection
of the database"). Rows come from :class:`~etki.store.repository.CaseFileRepository`;
pages from the pure renderers in :mod:`etki.wiki.render`; bytes go to disk through
:func:`etki.wiki.writer.sync_tree`. Nothing is ever read back from the wiki to decide
what to render.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from filelock import FileLock, Timeout

from etki.config import Settings
from etki.domain import CaseRecord
from etki.errors import NotFoundError
from etki.store.repository import CaseFileRepository
from etki.wiki.render import (
    INDEX,
    BriefDecision,
    CaseBrief,
    WikiModel,
    render_changed,
    render_model,
)
from etki.wiki.writer import (
    OWNER_FILE,
    Drift,
    UnsafeWikiPath,
    WriteReport,
    drift_tree,
    make_durable,
    remove_pages,
    sync_tree,
)

__all__ = ["LOCK_NAME", "WIKI_OFF", "WikiProjector", "wiki_lock"]

log = logging.getLogger("etki.wiki")

WIKI_OFF = "wiki off (ETKI_WIKI_DIR is empty): nothing written"
LOCK_NAME = OWNER_FILE  # the lock file is also the proof that the folder is a wiki
LOCK_TIMEOUT_S = 30.0


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
            raise UnsafeWikiPath(f"wiki folder {root} is a symlink (to {os.readlink(root)}); "
                                 "Etki never writes or reads through one: set "
                                 "ETKI_WIKI_DIR to the real folder instead")
    try:
        entries = os.listdir(root)
    except FileNotFoundError:
        entries = []
    if entries and LOCK_NAME not in entries:
        raise UnsafeWikiPath(
            f"{root} holds files but is not an Etki wiki (no {LOCK_NAME}): a rebuild would "
            "overwrite and remove them. Point ETKI_WIKI_DIR at a new or empty folder, or "
            "move those files away")
    root.mkdir(parents=True, exist_ok=True)
    path = root / LOCK_NAME
    with contextlib.suppress(FileNotFoundError):
        mode = os.lstat(path).st_mode
        if not stat.S_ISREG(mode):
            raise UnsafeWikiPath(f"{path} is not a regular file; the wiki lock never "
                                 "follows a symlink")
    lock = FileLock(str(path), timeout=timeout, mode=0o644)
    try:
        lock.acquire()
    except Timeout:
        raise TimeoutError(f"the wiki at {root} is locked by another writer "
                           f"(waited {timeout:g} s)") from None
    try:
        yield
    finally:
        lock.release()


AUDIT_WINDOW = 256
"""How far back (in audit-log ids) each refresh looks again: on PostgreSQL an audit id
is taken when a transaction inserts it, so a ruling can commit after a newer id was
already seen; re-reading the recent window (ids already applied are skipped) catches it.
A missed one would still show as a case count or version mismatch (see ``_refresh``)."""


@dataclass
class _Cached:
    """The projector's in-memory view of one project: the model, the token it was read
    at, the audit ids applied (within :data:`AUDIT_WINDOW` of the newest) and the cases
    changed since the last successful write (their pages are rendered again until a
    write succeeds)."""

    model: WikiModel
    head: tuple[object, ...]
    audit_max: int
    versions: dict[str, int] = field(default_factory=dict)
    applied: set[int] = field(default_factory=set)
    unsynced: dict[str, list[CaseBrief]] = field(default_factory=dict)


def _close_all(fds: list[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)
    fds.clear()


class WikiProjector:
    """Projects stored cases into each project's wiki folder
    (``settings.wiki_path(project_id)``; ``None`` there means the wiki is off and every
    method does nothing, saying so in its report).

    A projector keeps, per project, an in-memory :class:`~etki.wiki.render.WikiModel` of
    the rows the shared pages read, loaded on first use (or primed by :meth:`rebuild`) and
    refreshed under the wiki lock from a cheap DB change token before every projection:
    rulings and erasures made by any process (they append to the audit log), new cases
    (the case count) and a re-loaded project (its row) are all seen, so the pages written
    are always those of the DB at that moment. Long-lived instances (the desk's) make a
    ruling's projection cost what the ruling changed; a fresh instance pays one full read.
    """

    def __init__(self, repo: CaseFileRepository, settings: Settings, *,
                 defer_fsync: bool = True) -> None:
        self.repo = repo
        self.settings = settings
        self.defer_fsync = defer_fsync
        """When true (the default), :meth:`project_case` writes its pages atomically
        (temporary file + rename) and ``fsync``-s them on a background thread right after
        returning (:meth:`flush` waits for it), instead of one ``fsync`` per page on the
        ruling's path (on a slow disk those dominate: tens of milliseconds). ``rebuild``
        always writes durably."""
        self._cache: dict[str, _Cached] = {}
        self._flush_guard = threading.Lock()
        self._flusher: threading.Thread | None = None

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
        audit_max = int(head[-1])  # type: ignore[call-overload]
        # audit rows that exist now are reflected in the reads below
        seen = self.repo.audit_since(max(0, audit_max - AUDIT_WINDOW))
        project = self.repo.wiki_project(pid)
        cases: list[CaseRecord] = []
        if full:
            cases = self.repo.wiki_cases(pid)
            model = WikiModel.build(project, cases)
            versions = {c.case_id: c.version for c in cases if c.project_id == pid}
        else:
            model = WikiModel(project)
            versions = {}
            for cid, title, version, verdict, cited, modules, ruling in \
                    self.repo.wiki_case_briefs(pid):
                model.put(CaseBrief(cid, pid, title, BriefDecision(verdict, cited, modules),
                                    ruling))
                versions[cid] = version
        state = _Cached(model, head[:-2], max([audit_max, *(i for i, _ in seen)]),
                        versions=versions, applied={i for i, _ in seen})
        self._cache[pid] = state
        return state, cases

    def project_case(self, case_id: str) -> WriteReport:
        """The HITL ingest hook, called after a ruling commits: re-render, from the DB,
        every page a ruling on ``case_id`` can change (its decision page, its precedent
        page on an override, the contract pages of its cited clauses, the module pages of
        its impacted modules, ``disputed.md`` and ``index.md``), plus the same pages of
        every other case that changed in the DB since this projector last looked (rulings
        and erasures by other processes), and write the ones whose bytes changed; when
        the wiki has no ``index.md`` yet, the whole tree is written. Reading and writing
        happen under :func:`wiki_lock`. Does not prune (:meth:`rebuild` does). Every page
        written is byte-identical to the same page of a full :meth:`rebuild` at that
        moment.

        Raises :class:`etki.errors.NotFoundError` for an unknown case, ``OSError``
        (including :class:`etki.wiki.writer.UnsafeWikiPath`) when the wiki folder cannot
        be written. Callers that must not fail on the wiki (``ApprovalService``) catch
        and log; the database is never touched here.
        """
        # a case never moves between projects: a cached model that holds it knows where
        pid = next((p for p, st in self._cache.items() if case_id in st.model.cases), None)
        if pid is None:
            pid = self.repo.case_project_id(case_id)  # NotFoundError for an unknown case
        root = self.settings.wiki_path(pid)
        if root is None:
            return WriteReport(root=None, skipped=WIKI_OFF)
        with wiki_lock(root):
            if not (root / INDEX).is_file():  # a wiki never built (or deleted): all of it
                return sync_tree(root, self.render(pid), prune=False)
            try:
                state, full = self._refresh(pid, case_id)
                touched = [b for briefs in state.unsynced.values() for b in briefs]
                files = render_changed(state.model, full, touched)
            except BaseException:
                self._cache.pop(pid, None)  # start from the DB again next time
                raise
            if case_id not in state.model.cases:  # erased meanwhile (the model saw it go)
                raise NotFoundError(f"no case '{case_id}' in the store")
            if not self.defer_fsync:
                report = sync_tree(root, files, prune=False)
            else:
                held: list[int] = []
                try:
                    report = sync_tree(root, files, prune=False, durable=False, hold_old=held)
                except BaseException:
                    _close_all(held)
                    raise
                self._flush_later(root, report.written, held)
            # (a failed write keeps state.unsynced: the next projection renders them again)
            state.unsynced.clear()
        return report

    def _flush_later(self, root: Path, written: tuple[str, ...], held: list[int]) -> None:
        """On a background thread, one flush after another (see :meth:`flush`):
        ``fsync`` the pages just written and their folders, then close ``held`` (the
        replaced pages' descriptors, so their blocks are freed there)."""
        if not written and not held:
            return
        with self._flush_guard:
            previous = self._flusher

            def run() -> None:
                if previous is not None:
                    previous.join()
                try:
                    make_durable(root, written)
                except Exception as exc:  # noqa: BLE001 - best-effort, like every wiki write
                    log.warning("wiki fsync under %s failed: %s", root, exc)
                finally:
                    _close_all(held)

            self._flusher = threading.Thread(target=run, name="etki-wiki-fsync", daemon=True)
            self._flusher.start()

    def flush(self) -> None:
        """Wait until every page written by :meth:`project_case` is on disk (its
        deferred ``fsync`` done). Never raises."""
        with self._flush_guard:
            flusher = self._flusher
        if flusher is not None:
            flusher.join()

    def _refresh(self, pid: str, case_id: str) -> tuple[_Cached, list[CaseRecord]]:
        """Bring the cached model of ``pid`` up to the DB; returns it and the full records
        of the cases that changed since the last successful write (``case_id`` always
        among them)."""
        state = self._cache.get(pid)
        head, rows = self.repo.wiki_poll(
            pid, None if state is None else max(0, state.audit_max - AUDIT_WINDOW))
        token, count, audit_max = head[:-2], int(head[-2]), int(head[-1])  # type: ignore[call-overload]
        if state is None:  # first use: one read of what the shared pages need
            state, _ = self._load(pid, full=False)
            changed = {case_id}
        elif state.head != token:  # a re-loaded project: same cases, new clauses/modules
            seen = self.repo.audit_since(max(0, audit_max - AUDIT_WINDOW))
            state = _Cached(state.model.with_project(self.repo.wiki_project(pid)), token,
                            max([audit_max, *(i for i, _ in seen)]), versions=state.versions,
                            applied={i for i, _ in seen}, unsynced=state.unsynced)
            self._cache[pid] = state
            self._resync_all(state)  # re-read every case whose version changed meanwhile
            changed = {case_id} | set(state.unsynced)
        else:
            new = [(i, c) for i, c in rows if i not in state.applied]
            changed = {case_id} | {c for _, c in new} | set(state.unsynced)
            state.applied.update(i for i, _ in new)
            state.audit_max = max([state.audit_max, audit_max, *(i for i, _ in new)])
            floor = state.audit_max - AUDIT_WINDOW
            state.applied = {i for i in state.applied if i > floor}
        full = self._apply(state, changed)
        if len(state.model.cases) != count:  # cases added (or a change we did not see)
            self._resync_all(state)
            full = self.repo.cases_by_ids(state.unsynced)
        return state, [c for c in full if c.project_id == pid]

    def _apply(self, state: _Cached, case_ids: set[str]) -> list[CaseRecord]:
        """Re-read ``case_ids`` and put them into the model (remove the ones gone);
        remember the briefs before and after as unsynced. Returns the records read."""
        model = state.model
        found = self.repo.cases_by_ids(case_ids)
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
    def _note(state: _Cached, case_id: str, old: CaseBrief | None,
              new: CaseBrief | None) -> None:
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
            with wiki_lock(root):
                reports[pid] = sync_tree(root, self.render(pid), prune=True)
        return reports

    def remove_pages(self, project_id: str, select: Callable[[str, bytes], bool],
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
        with wiki_lock(root):
            return remove_pages(root, select)

    def verify(self, project_id: str) -> list[str]:
        """Wiki-relative paths whose bytes differ from a fresh render: changed, missing,
        or extra files Etki owns. Sorted; empty when the wiki matches the DB or is off.
        Reads only. Raises ``NotFoundError`` for an unknown project."""
        return self.drift(project_id).paths()

    def drift(self, project_id: str) -> Drift:
        """Like :meth:`verify`, split into missing, changed and stale files."""
        root = self.settings.wiki_path(project_id)
        files = self.render(project_id)
        if root is None:
            return Drift()
        return drift_tree(root, files)
