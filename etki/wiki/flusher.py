"""The HITL hook's deferred ``fsync``: one long-lived thread per projector.

:meth:`etki.wiki.projection.WikiProjector.project_case` writes a ruling's pages
atomically (temporary file + rename) without ``fsync`` and hands them to a
:class:`Flusher`, whose thread makes them durable (:func:`make_durable`)
and then closes the descriptors of the pages they replaced, one job after another in the
order they came. Starting a thread per ruling cost about 6 % of a ruling's projection
(issue 32 item 5); this thread is started on the first job and waits for the next.

Shutdown: :meth:`Flusher.close` waits for every job and stops the thread; a process that
exits without closing still runs every pending job first (an ``atexit`` hook flushes
every live flusher), so a ruling's pages are never left unsynced by a clean exit. A
failed ``fsync`` is logged when it happens (``etki.wiki``, warning) and raised by the
next :meth:`Flusher.flush` or :meth:`Flusher.close`.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import threading
import weakref
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from etki.wiki.writer import fsync_dir

__all__ = ["Flusher", "make_durable"]

log = logging.getLogger("etki.wiki")

_LIVE: weakref.WeakSet[Flusher] = weakref.WeakSet()
"""Every flusher with a thread, for the exit hook."""


@dataclass(frozen=True)
class _Job:
    root: Path
    written: tuple[str, ...]
    held: tuple[int, ...]


def _close_all(fds: tuple[int, ...] | list[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def make_durable(root: Path, relpaths: Iterable[str]) -> None:
    """``fsync`` the pages at ``relpaths`` (wiki-relative, as in a :class:`~etki.wiki.writer.WriteReport`)
    under ``root`` and then their folders, so pages written with
    ``sync_tree(..., durable=False)`` survive a power loss. A page that is gone (replaced
    or removed since) is skipped; symlinks are not followed. Every page is tried; then
    the first failure (a page that cannot be opened or ``fsync``-ed, e.g. ``EIO``) is
    raised as ``OSError`` naming the page."""
    folders: dict[str, Path] = {}
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    failed: list[OSError] = []
    for rel in relpaths:
        path = root / rel
        folders[str(path.parent)] = path.parent
        try:
            fd = os.open(path, flags)
        except FileNotFoundError:
            continue
        except OSError as exc:
            failed.append(exc)
            continue
        try:
            os.fsync(fd)
        except OSError as exc:
            failed.append(OSError(exc.errno, exc.strerror, str(path)))
        finally:
            os.close(fd)
    for folder in folders.values():
        fsync_dir(folder)
    if failed:
        raise failed[0]


class Flusher:
    """A queue of pages to make durable and the one daemon thread that works it.

    Thread-safe. :meth:`submit` never blocks on the disk; :meth:`flush` waits until
    every job submitted before it is done; :meth:`close` flushes and stops the thread
    (a later :meth:`submit` starts a new one)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._jobs: deque[_Job] = deque()
        self._busy = False
        self._stop = False
        self._thread: threading.Thread | None = None
        self._errors: list[OSError] = []

    def submit(self, root: Path, written: tuple[str, ...], held: list[int]) -> None:
        """Queue ``written`` (wiki-relative paths under ``root``) to be ``fsync``-ed
        with their folders, then ``held`` (descriptors of the replaced pages, taken
        over: the caller must not close them) to be closed. Nothing to do: nothing
        queued."""
        if not written and not held:
            return
        job = _Job(root, tuple(written), tuple(held))
        held.clear()
        with self._cond:
            self._jobs.append(job)
            if self._thread is None:
                self._stop = False
                self._thread = threading.Thread(
                    target=self._run, name="etki-wiki-fsync", daemon=True
                )
                self._thread.start()
                _LIVE.add(self)
            self._cond.notify_all()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._jobs and not self._stop:
                    self._cond.wait()
                if not self._jobs:  # stopped, and nothing left
                    return
                job = self._jobs.popleft()
                self._busy = True
            error: OSError | None = None
            try:
                make_durable(job.root, job.written)
            except OSError as exc:
                error = exc
                log.warning("wiki fsync under %s failed: %s", job.root, exc)
            finally:
                _close_all(job.held)
                with self._cond:
                    self._busy = False
                    if error is not None:
                        self._errors.append(error)
                    self._cond.notify_all()

    def flush(self) -> None:
        """Wait until every job submitted so far is done. Raises the first ``OSError``
        of an ``fsync`` that failed since the last :meth:`flush` (the page it names may
        not survive a power loss; ``python -m etki.wiki rebuild`` writes it again)."""
        with self._cond:
            while self._jobs or self._busy:
                if self._thread is None or not self._thread.is_alive():
                    break  # (a thread killed with the interpreter: nothing will come)
                self._cond.wait()
            errors, self._errors = self._errors, []
        if errors:
            raise errors[0]

    def close(self) -> None:
        """Flush, then stop the thread. Raises as :meth:`flush`."""
        with self._cond:
            self._stop = True
            thread, self._thread = self._thread, None
            self._cond.notify_all()
        if thread is not None:
            thread.join()
        _LIVE.discard(self)
        with self._cond:
            errors, self._errors = self._errors, []
        if errors:
            raise errors[0]


@atexit.register
def _flush_at_exit() -> None:
    """Finish every pending ``fsync`` before the interpreter ends (daemon threads are
    stopped without running what they hold). Errors are logged by the thread."""
    for flusher in list(_LIVE):
        with contextlib.suppress(OSError):
            flusher.close()
