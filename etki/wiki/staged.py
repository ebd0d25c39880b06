"""Direct writes into a wiki folder the write itself creates (issue 32 item 4).

When :func:`etki.wiki.writer.sync_tree` finds that a top-level folder of the wiki
(``decisions/``, ``precedents/``, ``entities/``) does not exist yet (a first projection,
a rebuild into an empty or deleted wiki), it writes that whole folder with
:func:`write_new_folder`: a fresh hidden folder ``.etki-{pid}-{n}.dir`` beside it, every
page written straight into it (no temporary file and rename per page), then the folder
renamed into place in one step. A temporary file + rename per page was 18 % of a cold
10k-case rebuild.

Why direct writes are safe there (the writer's rules hold):

* *Nothing half-written is visible.* Readers find pages by their wiki paths; the hidden
  folder is not one (its name starts with a dot, which no wiki path has, and
  :func:`etki.wiki.writer.owned_files` and the search index never enter it). Its pages
  appear all at once, complete, when the folder is renamed to its real name, and (with
  ``durable``) only after their bytes are on disk (``syncfs``).
* *Never through a symlink.* The folder is made by ``mkdir`` here, so no link can be in it
  from before; each subfolder is made by ``mkdir`` (which fails on anything already there)
  and each page opened with ``O_CREAT | O_EXCL | O_NOFOLLOW`` (which fails on anything
  already there, a symlink included). The rename refuses a target that appeared meanwhile
  and is not an empty folder (``ENOTEMPTY``/``ENOTDIR``/``EEXIST``); the caller holds the
  wiki lock, so no other projection writes there.
* *A failure leaves nothing.* Any error removes the hidden folder (never following a link)
  and re-raises; a process killed midway leaves a hidden ``.etki-*.dir`` that the next
  write of the wiki removes (:func:`remove_leftovers`).
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import os
import shutil
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

__all__ = [
    "STAGE_PREFIX",
    "STAGE_SUFFIX",
    "no_collection",
    "remove_leftovers",
    "write_new_folder",
]

STAGE_PREFIX = ".etki-"
STAGE_SUFFIX = ".dir"
_SERIAL = itertools.count()
_PAGE_FLAGS = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def _stage(base: Path) -> Path:
    while True:
        path = base / f"{STAGE_PREFIX}{os.getpid()}-{next(_SERIAL)}{STAGE_SUFFIX}"
        try:
            os.mkdir(path, 0o755)
        except FileExistsError:
            continue
        return path


def _write(path: str, data: bytes) -> None:
    fd = os.open(path, _PAGE_FLAGS, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def write_new_folder(
    base: Path,
    top: str,
    pages: Sequence[tuple[tuple[str, ...], bytes]],
    *,
    flush: Callable[[Path], None] | None,
    advance: Callable[[], object] | None = None,
) -> None:
    """Create ``base/top`` holding ``pages`` (``(path parts below top, bytes)``; the
    last part is the file name) as described in the module docstring. ``flush`` (the
    writer's ``syncfs``) is called on the hidden folder before the rename when the
    write must be durable; None skips it. ``advance`` is called after each page (a
    progress bar). The caller has checked that ``base/top``
    does not exist and holds the wiki lock. Raises ``OSError`` (naming the folder for a
    failed write, e.g. a full disk) after removing the hidden folder; ``base/top`` is
    then still missing."""
    stage = _stage(base)
    try:
        made: set[tuple[str, ...]] = {()}
        for parts, data in pages:
            folder = parts[:-1]
            if folder not in made:
                for n in range(1, len(folder) + 1):
                    if folder[:n] not in made:
                        os.mkdir(stage.joinpath(*folder[:n]), 0o755)
                        made.add(folder[:n])
            try:
                _write(os.path.join(stage, *parts), data)
            except OSError as exc:
                if exc.filename is None:  # a failed write names no file: name the folder
                    raise OSError(exc.errno, exc.strerror, str(base / top)) from exc
                raise
            if advance is not None:
                advance()  # the progress bar (etki.progress.task)
        if flush is not None:
            flush(stage)
        os.rename(stage, base / top)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise


def remove_leftovers(base: Path) -> list[str]:
    """Remove hidden ``.etki-*.dir`` folders of a write that was killed midway from the
    wiki root ``base`` (call it under the wiki lock: no write of this wiki is running
    then). A symlink with such a name is unlinked, never followed. Returns the removed
    names, sorted."""
    removed: list[str] = []
    with os.scandir(base) as entries:
        for e in entries:
            if e.name.startswith(STAGE_PREFIX) and e.name.endswith(STAGE_SUFFIX):
                if e.is_symlink() or not e.is_dir(follow_symlinks=False):
                    with contextlib.suppress(OSError):
                        os.unlink(e.path)
                else:
                    shutil.rmtree(e.path, ignore_errors=True)
                removed.append(e.name)
    return sorted(removed)


@contextlib.contextmanager
def no_collection() -> Iterator[None]:
    """Python's cyclic garbage collector paused for the ``with`` block (restored as it
    was after it, also on error). A full rebuild allocates millions of objects it keeps
    (the model, 19,000 pages); the collector walks them again and again without freeing
    any: about a tenth of a warm 10k rebuild's CPU (issue 32 item 4, BENCH.md).
    Reference counting still frees everything else at once."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
