"""The wiki projection: read the database, render, write what changed.

This is the one place that writes wiki files (DESIGN.md: "the wiki is always a projection
of the database"). Rows come from :class:`~etki.store.repository.CaseFileRepository`;
pages from the pure renderers in :mod:`etki.wiki.render`; bytes go to disk through
:func:`etki.wiki.writer.sync_tree`. Nothing is ever read back from the wiki to decide
what to render.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from filelock import FileLock, Timeout

from etki.config import Settings
from etki.store.repository import CaseFileRepository
from etki.wiki.render import INDEX, render_case_pages, render_wiki
from etki.wiki.writer import Drift, UnsafeWikiPath, WriteReport, drift_tree, sync_tree

__all__ = ["LOCK_NAME", "WIKI_OFF", "WikiProjector", "wiki_lock"]

WIKI_OFF = "wiki off (ETKI_WIKI_DIR is empty): nothing written"
LOCK_NAME = ".etki-wiki.lock"
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
    never followed out of the wiki)."""
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


class WikiProjector:
    """Projects stored cases into each project's wiki folder
    (``settings.wiki_path(project_id)``; ``None`` there means the wiki is off and every
    method does nothing, saying so in its report)."""

    def __init__(self, repo: CaseFileRepository, settings: Settings) -> None:
        self.repo = repo
        self.settings = settings

    def render(self, project_id: str) -> dict[str, bytes]:
        """The full rendered tree of ``project_id`` from the DB ({relative path: bytes}).
        Raises :class:`etki.errors.NotFoundError` for an unknown project."""
        return render_wiki(self.repo.load_project(project_id), self.repo.cases(project_id))

    def project_case(self, case_id: str) -> WriteReport:
        """The HITL ingest hook, called after a ruling commits: re-render, from the DB,
        every page a ruling on ``case_id`` can change (its decision page, its precedent
        page on an override, the contract pages of its cited clauses, the module pages of
        its impacted modules, ``disputed.md`` and ``index.md``) and write the ones whose
        bytes changed; when the wiki has no ``index.md`` yet, the whole tree is written.
        Reading and writing happen under :func:`wiki_lock`. Does not prune
        (:meth:`rebuild` does).

        Raises :class:`etki.errors.NotFoundError` for an unknown case, ``OSError``
        (including :class:`etki.wiki.writer.UnsafeWikiPath`) when the wiki folder cannot
        be written. Callers that must not fail on the wiki (``ApprovalService``) catch
        and log; the database is never touched here.
        """
        case = self.repo.case(case_id)
        pid = case.project_id
        root = self.settings.wiki_path(pid)
        if root is None:
            return WriteReport(root=None, skipped=WIKI_OFF)
        with wiki_lock(root):
            project, cases = self.repo.load_project(pid), self.repo.cases(pid)
            if (root / INDEX).is_file():
                files = render_case_pages(project, cases, case_id)
            else:  # a wiki never built (or deleted): write all of it, not one case
                files = render_wiki(project, cases)
            return sync_tree(root, files, prune=False)

    def rebuild(self, project_id: str | None = None) -> dict[str, WriteReport]:
        """Re-derive the whole wiki of ``project_id`` (every stored project when None)
        from the DB, write the pages that changed and remove stale files Etki owns.
        Returns ``{project_id: WriteReport}``. Deleting a wiki folder and rebuilding gives
        the same bytes, file for file.

        Raises ``NotFoundError`` for an unknown project and ``OSError`` on I/O failure.
        """
        ids = self.repo.project_ids() if project_id is None else [project_id]
        if project_id is not None:
            self.repo.load_project(project_id)  # NotFoundError before any folder is made
        reports: dict[str, WriteReport] = {}
        for pid in ids:
            root = self.settings.wiki_path(pid)
            if root is None:
                reports[pid] = WriteReport(root=None, skipped=WIKI_OFF)
                continue
            with wiki_lock(root):
                reports[pid] = sync_tree(root, self.render(pid), prune=True)
        return reports

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
