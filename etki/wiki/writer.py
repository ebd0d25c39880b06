"""Atomic, change-only writes of a rendered wiki tree (DESIGN.md, "Wiki").

* A page is written to a temporary file in its own folder, flushed and ``fsync``-ed, then
  renamed over the target with :func:`os.replace` (atomic on POSIX and Windows), so a
  reader never sees half a page; it is written only when its bytes differ.
* Paths are validated before anything is touched: relative POSIX paths ending in
  ``.md``, no ``..``, no empty or hidden parts, no backslash or NUL, each name at most
  255 UTF-8 bytes; they always stay inside the root.
* Symlinks are never followed out of the root: a symlinked folder inside the tree is an
  error (:class:`UnsafeWikiPath`); a symlink where a page should be is replaced by the
  page (``os.replace`` swaps the link itself, never its target); pruning does not descend
  into symlinked folders and removes only Etki's own ``*.md`` files.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import re
import stat
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import cast

from etki.progress import task
from etki.wiki.paths import DISPUTED, INDEX, NAME_MAX_BYTES, OWNED_DIRS
from etki.wiki.staged import remove_leftovers, write_new_folder

__all__ = [
    "MARK_FILE",
    "Drift",
    "UnsafeWikiPath",
    "WriteReport",
    "diff_tree",
    "drift_tree",
    "owned_files",
    "read_mark",
    "remove_files",
    "remove_pages",
    "sync_tree",
    "validate_relpath",
    "write_file",
    "write_mark",
]

_TMP_PREFIX = ".etki-"
_TMP_SUFFIX = ".tmp"


class UnsafeWikiPath(OSError):
    """A wiki path that would leave the wiki root (``..``, absolute, a symlinked folder)
    or is not a page name Etki writes. An ``OSError`` so best-effort callers that catch
    I/O failures catch it too."""


@dataclass(frozen=True)
class WriteReport:
    """What one sync did. ``written``, ``unchanged`` and ``removed`` are sorted
    wiki-relative POSIX paths; ``root`` is the wiki folder, or ``None`` with ``skipped``
    saying why nothing was done (the wiki is off)."""

    root: Path | None
    written: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    skipped: str | None = None

    @property
    def changed(self) -> bool:
        """True when a file was written or removed."""
        return bool(self.written or self.removed)

    def summary(self) -> str:
        """One line for people: ``3 written, 10 unchanged, 1 removed`` or the skip reason."""
        if self.skipped:
            return self.skipped
        return (
            f"{len(self.written)} written, {len(self.unchanged)} unchanged, "
            f"{len(self.removed)} removed"
        )


_CONTROL = re.compile("[\x00-\x1f\x7f]")


def validate_relpath(relpath: str) -> PurePosixPath:
    """Check a wiki-relative page path and return it as a :class:`PurePosixPath`.

    Raises :class:`UnsafeWikiPath` for an absolute path, ``..``, ``.``, empty or hidden
    parts, a backslash, NUL or other control character, a name over 255 UTF-8 bytes, or
    a name that does not end in ``.md``."""
    _relparts(relpath)
    return PurePosixPath(relpath)


def _relparts(relpath: str) -> tuple[str, ...]:
    """The parts of ``relpath`` after the checks of :func:`validate_relpath` (same
    errors), without building a path object: a full sync checks 19,000 paths, and
    ``PurePosixPath`` cost more than the checks (issue 32 item 4)."""
    if not relpath or relpath[0] == "/" or "\\" in relpath:
        raise UnsafeWikiPath(f"unsafe wiki path {relpath!r}: must be relative POSIX")
    if _CONTROL.search(relpath):
        raise UnsafeWikiPath(f"unsafe wiki path {relpath!r}: control character")
    parts = tuple(relpath.split("/"))
    for part in parts:
        if not part or part[0] == ".":  # "", ".", ".." and hidden names
            raise UnsafeWikiPath(f"unsafe wiki path {relpath!r}: bad part {part!r}")
        size = len(part) if part.isascii() else len(part.encode("utf-8"))
        if size > NAME_MAX_BYTES:
            raise UnsafeWikiPath(f"unsafe wiki path {relpath!r}: name over {NAME_MAX_BYTES} bytes")
    if not parts[-1].endswith(".md"):
        raise UnsafeWikiPath(f"unsafe wiki path {relpath!r}: pages end in .md")
    return parts


def _is_link(path: Path) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False


def _safe_dir(root: Path, parts: Iterable[str], *, create: bool) -> Path | None:
    """The folder ``root/parts...``, created when ``create``; ``None`` when it does not
    exist and ``create`` is false. Raises UnsafeWikiPath when a part is a symlink or not
    a folder."""
    folder = root
    for part in parts:
        folder = folder / part
        try:
            st = os.lstat(folder)
        except FileNotFoundError:
            if not create:
                return None
            os.mkdir(folder)
            continue
        if stat.S_ISLNK(st.st_mode):
            raise UnsafeWikiPath(f"{folder} is a symlink; the wiki never writes through one")
        if not stat.S_ISDIR(st.st_mode):
            raise UnsafeWikiPath(f"{folder} is not a folder")
    return folder


def _read_regular(path: Path) -> bytes | None:
    """The bytes of a regular file at ``path`` (not following a symlink), else None."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _same_bytes(path: Path, data: bytes) -> bool:
    """True when ``path`` is a regular file (not a symlink) holding exactly ``data``; a
    file of another size is not read."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode) or st.st_size != len(data):
        return False
    return _read_regular(path) == data


def _names_in(folder: Path) -> frozenset[str] | None:
    """The names of the entries of ``folder`` (one ``scandir``); None when it cannot be
    listed, so every page is then checked on its own."""
    try:
        with os.scandir(folder) as entries:
            return frozenset(e.name for e in entries)
    except OSError:
        return None


def fsync_dir(folder: Path) -> None:
    """``fsync`` a folder (its entries: renames into it), on POSIX; errors ignored."""
    if os.name != "posix":
        return
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


_TEMP_FLAGS = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
_TEMP_SERIAL = itertools.count()
"""Numbers this process's temporary files (``.etki-{pid}-{n}.tmp``): a name of its own
without ``tempfile``'s random one (a rebuild makes 19,000; ``O_EXCL`` still refuses a
name left by a dead process with the same pid, and the next number is tried)."""


def _write_temp(folder: Path, data: bytes, *, fsync: bool = True) -> str:
    """A new temporary file in ``folder`` holding ``data`` (``fsync``-ed unless told
    not to); its path. Made with mode 0o644 less the umask, as ``open()`` makes a page
    (the wiki is read by other people and tools). A failed write (disk full) raises
    ``OSError`` naming ``folder``."""
    while True:
        tmp = os.path.join(folder, f"{_TMP_PREFIX}{os.getpid()}-{next(_TEMP_SERIAL)}{_TMP_SUFFIX}")
        try:
            fd = os.open(tmp, _TEMP_FLAGS, 0o644)
        except FileExistsError:
            continue
        break
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if fsync:
                os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if exc.filename is None:  # a failed write names no file: name the folder
            raise OSError(exc.errno, exc.strerror, str(folder)) from exc
        raise
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


def _write_atomic(folder: Path, name: str, data: bytes, *, fsync: bool = True) -> None:
    tmp = _write_temp(folder, data, fsync=fsync)
    try:
        os.replace(tmp, folder / name)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` outside the wiki by the wiki's rules (``etki cr export
    --output``): a temporary file in the same folder, ``fsync``-ed, renamed over ``path``
    with :func:`os.replace`, so a symlink at ``path`` is replaced by the file and never
    written through, and a failed write (disk full) leaves ``path`` as it was, with no
    half-written document and no temporary file. Raises ``OSError`` (naming the folder
    for a failed write; ``IsADirectoryError`` for a folder at ``path``)."""
    _write_atomic(path.parent, path.name, data)
    fsync_dir(path.parent)


BATCH_SYNC_MIN = 64
"""From this many pages to write on, :func:`sync_tree` writes every temporary file
first, flushes them all to disk with one ``syncfs`` of the wiki's file system
(:func:`_flush_filesystem`) and only then renames them into place, instead of one
``fsync`` per page (same guarantee, no page is renamed before its bytes are on disk; a
full rebuild of 16,000 pages spends seconds in per-page fsyncs). Even ``os.sync``, which
flushes every dirty page of the machine, stayed the cheaper way while another process
wrote gigabytes: 4,000 pages of 2 kB, ``os.sync`` 0.55-0.74 s against 1.1-1.5 s for
per-file ``fsync`` from 32 threads (BENCH.md, "rebuild and HITL, issue 15")."""


@functools.cache
def _syncfs() -> Callable[[int], int] | None:
    """The C library's ``syncfs(2)`` (Linux), or None where there is none."""
    try:
        import ctypes
        import ctypes.util

        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        call = libc.syncfs
    except (OSError, AttributeError):
        return None
    call.argtypes = [ctypes.c_int]
    call.restype = ctypes.c_int
    return cast("Callable[[int], int]", call)


def _flush_filesystem(folder: Path) -> None:
    """Every written page of the file system holding ``folder`` on disk: ``syncfs(2)``
    on it where the C library has one (Linux), so a rebuild waits for the wiki's disk
    only and not, as ``os.sync()`` does, for every dirty page of the machine (issue 15:
    its cost depended on what else ran); ``os.sync()`` elsewhere or if it fails."""
    call = _syncfs()
    if call is not None:
        with contextlib.suppress(OSError):
            fd = os.open(folder, os.O_RDONLY)
            try:
                if call(fd) == 0:
                    return
            finally:
                os.close(fd)
    os.sync()


def _root(root: Path, *, create: bool) -> Path | None:
    """The wiki root, created when ``create``; None when it is missing and not
    ``create``. Raises :class:`UnsafeWikiPath` when ``root`` itself is a symlink: Etki
    never writes, prunes or reads through one (a symlinked ``.etki/wiki-demo`` would
    let a rebuild overwrite and delete another folder's files); to keep the wiki
    elsewhere, point ``ETKI_WIKI_DIR`` at that folder itself."""
    if _is_link(root):
        raise UnsafeWikiPath(
            f"wiki folder {root} is a symlink (to {os.readlink(root)}); "
            "Etki never writes or reads through one: set ETKI_WIKI_DIR to "
            "the real folder instead"
        )
    if create:
        root.mkdir(parents=True, exist_ok=True)
    elif not root.is_dir():
        return None
    return root.resolve()


OWNER_FILE = ".etki-wiki.lock"
"""The file that proves a folder is an Etki wiki: the projector's lock file
(:mod:`etki.wiki.projection`), created before any page is written, by the projector and
by :func:`sync_tree`. Etki writes and prunes only a folder that holds it, or an empty
or missing one."""


def _mark_owned(base: Path) -> None:
    """Create :data:`OWNER_FILE` in ``base`` when missing (never through a symlink)."""
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(base / OWNER_FILE, flags, 0o644)
    except OSError as exc:
        if _is_link(base / OWNER_FILE):
            raise UnsafeWikiPath(
                f"{base / OWNER_FILE} is a symlink; the wiki never follows one"
            ) from exc
        raise
    os.close(fd)


MARK_FILE = ".etki-wiki.state"
"""The projection's state file at the wiki root, beside :data:`OWNER_FILE`: the DB change
token the pages reflect, written by :mod:`etki.wiki.projection` after each successful
write (so a projection that never happened is seen and caught up by the next one). A
hidden name: never a page (:func:`validate_relpath` refuses it), never listed by
:func:`owned_files`, never pruned."""

MARK_MAX_BYTES = 1 << 20
"""A state file larger than this (1 MiB; Etki writes about a hundred bytes) is not read:
it is treated as missing."""


def read_mark(root: Path) -> bytes | None:
    """The bytes of :data:`MARK_FILE` under ``root``, or None when it (or ``root``) is
    missing, is not a regular file (a symlink is never followed) or is larger than
    :data:`MARK_MAX_BYTES`. Raises :class:`UnsafeWikiPath` when ``root`` is a
    symlink."""
    _refuse_linked_root(root)
    flags = (
        os.O_RDONLY
        | getattr(os, "O_NOFOLLOW", 0)
        | getattr(os, "O_NONBLOCK", 0)
        | getattr(os, "O_BINARY", 0)
    )
    try:
        fd = os.open(root / MARK_FILE, flags)
    except OSError:  # missing, a symlink (ELOOP)
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MARK_MAX_BYTES:
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _refuse_linked_root(root: Path) -> None:
    """Raise :class:`UnsafeWikiPath` when ``root`` is a symlink (one ``lstat``; the
    cheap form of :func:`_root`'s check for the state file, read and written on every
    ruling)."""
    if _is_link(root):
        raise UnsafeWikiPath(
            f"wiki folder {root} is a symlink (to {os.readlink(root)}); "
            "Etki never writes or reads through one: set ETKI_WIKI_DIR to "
            "the real folder instead"
        )


MARK_IN_PLACE_MAX = 4096
"""Up to this many bytes (one page) :func:`write_mark` rewrites the state file in place."""


def write_mark(root: Path, data: bytes, *, durable: bool = True) -> None:
    """Make :data:`MARK_FILE` under ``root`` hold ``data``, ``fsync``-ed when ``durable``
    (else the caller passes ``MARK_FILE`` to :func:`etki.wiki.flusher.make_durable`).

    An existing state file (a regular file with one link, never a symlink) is rewritten
    in place with one ``pwrite`` at offset 0 (then cut to length): on ext4, renaming a
    new file over an existing one costs about 2 ms (the file system writes the new
    blocks out first, ``auto_da_alloc``) against about 0.05 ms in place, and this runs
    on every ruling's path. A killed writer cannot leave a mix: one write of at most
    :data:`MARK_IN_PLACE_MAX` bytes is not split by a signal, and a file cut short of
    the truncation holds the old tail after the new object, which is malformed JSON, so
    the projector syncs the whole wiki. Otherwise (missing, a symlink, a hard link,
    larger data) a new file is written and renamed into place (a symlink is replaced,
    never followed). Raises :class:`UnsafeWikiPath` when ``root`` is a symlink,
    ``OSError`` on I/O failure."""
    _refuse_linked_root(root)
    path = root / MARK_FILE
    flags = (
        os.O_WRONLY
        | getattr(os, "O_NOFOLLOW", 0)
        | getattr(os, "O_NONBLOCK", 0)
        | getattr(os, "O_BINARY", 0)
    )
    fd = -1
    with contextlib.suppress(OSError):  # missing, a symlink (ELOOP), a FIFO (ENXIO)
        fd = os.open(path, flags)
    if fd >= 0:
        try:
            st = os.fstat(fd)
            if (
                stat.S_ISREG(st.st_mode)
                and st.st_nlink == 1
                and hasattr(os, "pwrite")
                and len(data) <= MARK_IN_PLACE_MAX
                and os.pwrite(fd, data, 0) == len(data)
            ):  # (short: renamed below)
                if st.st_size > len(data):
                    os.ftruncate(fd, len(data))
                if durable:
                    os.fsync(fd)
                return
        finally:
            os.close(fd)
    base = _root(root, create=True)
    assert base is not None
    _write_atomic(base, MARK_FILE, data, fsync=durable)
    if durable:
        fsync_dir(base)


def read_page(root: Path, relpath: str) -> bytes | None:
    """The bytes of the wiki page ``relpath`` under ``root``, or None when it is
    missing. Never follows a symlink: raises :class:`UnsafeWikiPath` when the root, a
    folder on the way or the page itself is one (or the path leaves the wiki)."""
    parts = validate_relpath(relpath).parts
    base = _root(root, create=False)
    if base is None:
        return None
    folder = _safe_dir(base, parts[:-1], create=False)
    if folder is None:
        return None
    page = folder / parts[-1]
    if _is_link(page):
        raise UnsafeWikiPath(
            f"{page} is a symlink; Etki never reads through one (run rebuild to put the page back)"
        )
    return _read_regular(page)


def owned_files(root: Path) -> list[str]:
    """Wiki-relative paths of the files Etki owns under ``root``: ``index.md``,
    ``disputed.md``, every ``*.md`` under ``decisions/``, ``precedents/`` and
    ``entities/`` (symlinked folders are not entered), and leftover ``.etki-*.tmp``
    files of an interrupted write (also those at the top, from ``index.md`` or
    ``disputed.md``). Sorted; empty when ``root`` does not exist."""
    base = _root(root, create=False)
    if base is None:
        return []
    found: list[str] = []
    for name in (INDEX, DISPUTED):
        p = base / name
        if p.is_file() or _is_link(p):
            found.append(name)
    with os.scandir(base) as entries:  # a write of index.md/disputed.md killed midway
        found.extend(
            e.name
            for e in entries
            if e.name.startswith(_TMP_PREFIX)
            and e.name.endswith(_TMP_SUFFIX)
            and (e.is_file(follow_symlinks=False) or e.is_symlink())
        )
    for top in OWNED_DIRS:
        start = base / top
        if _is_link(start) or not start.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(start, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if not _is_link(Path(dirpath) / d))
            rel_dir = Path(dirpath).relative_to(base).as_posix()
            for fname in filenames:
                ours = fname.endswith(".md") and not fname.startswith(".")
                temp = fname.startswith(_TMP_PREFIX) and fname.endswith(_TMP_SUFFIX)
                if ours or temp:
                    found.append(f"{rel_dir}/{fname}")
    return sorted(found)


def _write_fresh_folders(
    base: Path, checked: Mapping[str, tuple[str, ...]], files: Mapping[str, bytes], *, durable: bool
) -> dict[str, list[str]]:
    """Write each top-level folder of ``files`` that does not exist yet in one piece
    (:func:`etki.wiki.staged.write_new_folder`: pages written directly into a hidden
    folder, which is then renamed into place; POSIX only). Returns {folder: its pages}."""
    if os.name != "posix":
        return {}
    remove_leftovers(base)  # of a write killed midway (the caller holds the wiki lock)
    tops: dict[str, list[str]] = {}
    for rel in sorted(files):
        parts = checked[rel]
        if len(parts) > 1:
            tops.setdefault(parts[0], []).append(rel)
    fresh = {top: rels for top, rels in tops.items() if not os.path.lexists(base / top)}
    flush = _flush_filesystem if durable else None
    if not fresh:
        return fresh
    with task("wiki: writing pages", sum(map(len, fresh.values()))) as advance:
        for top, rels in fresh.items():
            pages = [(checked[rel][1:], files[rel]) for rel in rels]
            write_new_folder(base, top, pages, flush=flush, advance=advance)
    return fresh


def sync_tree(
    root: Path,
    files: Mapping[str, bytes],
    *,
    prune: bool,
    durable: bool = True,
    hold_old: list[int] | None = None,
) -> WriteReport:
    """Make the wiki at ``root`` hold ``files`` ({relative path: bytes}).

    Every path is validated first (:func:`validate_relpath`), then each page whose bytes
    differ (or that is missing, or a symlink) is written atomically; ``index.md`` and
    ``disputed.md`` are written last, after the pages they link to. With ``prune``, files
    Etki owns (:func:`owned_files`) that are not in ``files`` are removed, then empty
    folders under ``decisions/``, ``precedents/`` and ``entities/``. ``root`` is created
    when missing. A top-level folder not there yet is written whole, directly into a
    hidden folder renamed into place (:mod:`etki.wiki.staged`, which says why that is safe).

    With ``durable=False`` the writes are just as atomic (temporary file + rename, so a
    reader or a killed process never sees half a page) but nothing is ``fsync``-ed: the
    caller makes them durable later with :func:`etki.wiki.flusher.make_durable` on the written paths (the
    HITL hook does that off the ruling's path; a power loss before it can leave a page
    old or empty, never torn, and ``rebuild`` restores it from the DB).

    ``hold_old`` (POSIX only; with ``durable=False``): a list that receives an open
    read-only descriptor of each page about to be replaced, so the old page's blocks
    are freed when the caller closes it, not inside ``os.replace`` (freeing a few MB of
    an old ``disputed.md`` costs milliseconds); the caller must close every descriptor
    it gets, also when this raises. Readers and the tree never see the old file again.

    Raises :class:`UnsafeWikiPath` for a bad path or a symlinked folder in the tree, and
    ``OSError`` for any I/O failure (read-only folder, disk full); pages renamed into
    place before the failure stay, each one whole (with :data:`BATCH_SYNC_MIN` or more
    pages to write, a failure while writing the temporary files leaves every page as it
    was).
    """
    checked = {rel: _relparts(rel) for rel in files}
    base = _root(root, create=True)
    assert base is not None
    _mark_owned(base)
    written: list[str] = []
    touched: dict[str, Path] = {}
    fresh = _write_fresh_folders(base, checked, files, durable=durable)
    for rels in fresh.values():
        written.extend(rels)
        touched[str(base)] = base
    last = (INDEX, DISPUTED)
    skip = {rel for rels in fresh.values() for rel in rels}
    order = sorted(rel for rel in files if rel not in last and rel not in skip)
    order += [r for r in last if r in files]
    unchanged: list[str] = []
    changed: list[tuple[str, Path, str]] = []
    folders: dict[tuple[str, ...], Path] = {}  # each folder checked (and made) once
    per_folder = Counter(checked[rel][:-1] for rel in order)
    present: dict[tuple[str, ...], frozenset[str] | None] = {}
    for rel in order:
        parts = checked[rel]
        folder = folders.get(parts[:-1])
        if folder is None:
            folder = _safe_dir(base, parts[:-1], create=True)
            assert folder is not None
            folders[parts[:-1]] = folder
            # many pages into one folder (a rebuild): list it once, so a page not there
            # costs no lstat; a few (a ruling's pages in a folder of thousands): lstat them
            many = per_folder[parts[:-1]] >= BATCH_SYNC_MIN
            present[parts[:-1]] = _names_in(folder) if many else None
        names = present[parts[:-1]]
        target = folder / parts[-1]
        if names is not None and parts[-1] not in names:
            changed.append((rel, folder, parts[-1]))
            continue
        if _same_bytes(target, files[rel]):
            unchanged.append(rel)
            continue
        changed.append((rel, folder, parts[-1]))
    hold = hold_old if hold_old is not None and os.name == "posix" and not durable else None
    with task("wiki: writing pages", len(changed)) as advance:  # a bar on a terminal only
        if len(changed) < BATCH_SYNC_MIN or not hasattr(os, "sync") or not durable:
            for rel, folder, name in changed:
                if hold is not None:
                    with contextlib.suppress(OSError):
                        hold.append(os.open(folder / name, os.O_RDONLY | os.O_NOFOLLOW))
                _write_atomic(folder, name, files[rel], fsync=durable)
                written.append(rel)
                touched[str(folder)] = folder
                advance()
        else:
            temps: list[str] = []
            try:
                for rel, folder, _name in changed:
                    temps.append(_write_temp(folder, files[rel], fsync=False))
                    advance()
                _flush_filesystem(base)  # every temporary file's bytes are on disk first
                for (rel, folder, name), tmp in zip(changed, temps, strict=True):
                    os.replace(tmp, folder / name)
                    written.append(rel)
                    touched[str(folder)] = folder
            except BaseException:
                for tmp in temps[len(written) :]:
                    with contextlib.suppress(OSError):
                        os.unlink(tmp)
                raise
    for folder in touched.values() if durable else ():  # the renames, once per folder
        fsync_dir(folder)
    removed: list[str] = []
    if prune:
        for rel in owned_files(base):
            if rel in files:
                continue
            os.unlink(base / rel)
            removed.append(rel)
        _remove_empty_dirs(base)
    return WriteReport(
        root=root,
        written=tuple(sorted(written)),
        unchanged=tuple(sorted(unchanged)),
        removed=tuple(sorted(removed)),
    )


def remove_pages(root: Path, select: Callable[[str, bytes], bool]) -> list[str]:
    """Remove every file Etki owns under ``root`` (:func:`owned_files`) for which
    ``select(relpath, bytes)`` is true (``bytes`` is empty for a symlink, which is
    removed itself, never its target), then the folders left empty. Writes nothing, so
    it works on a full disk. Returns the removed paths, sorted; raises ``OSError`` when
    a file cannot be removed (the ones removed before stay removed)."""
    base = _root(root, create=False)
    if base is None:
        return []
    removed: list[str] = []
    for rel in owned_files(base):
        data = _read_regular(base / rel) or b""
        if select(rel, data):
            os.unlink(base / rel)
            removed.append(rel)
    if removed:
        _remove_empty_dirs(base)
    return removed


def remove_files(root: Path, relpaths: Iterable[str]) -> list[str]:
    """Remove the pages ``relpaths`` (wiki-relative; each validated by
    :func:`validate_relpath`, never followed through a symlinked folder) that exist
    under ``root``, then their folders if that left them empty. Pages that are not
    there are skipped. The projector uses it for a case page the case no longer has
    (a ruling amended away from CR) without walking the wiki. Returns the removed
    paths, sorted; raises :class:`UnsafeWikiPath` for a bad path and ``OSError`` when a
    file cannot be removed."""
    wanted = sorted(set(relpaths))
    if not wanted:
        return []
    checked = [validate_relpath(rel) for rel in wanted]
    base = _root(root, create=False)
    if base is None:
        return []
    removed: list[str] = []
    for rel, path in zip(wanted, checked, strict=True):
        folder = _safe_dir(base, path.parts[:-1], create=False)
        if folder is None:
            continue
        target = folder / path.parts[-1]
        if not (target.is_file() or _is_link(target)):
            continue
        os.unlink(target)
        removed.append(rel)
        for up in range(len(path.parts) - 1, 0, -1):  # the folders it leaves empty
            try:
                os.rmdir(base.joinpath(*path.parts[:up]))
            except OSError:
                break
    return removed


def _remove_empty_dirs(base: Path) -> None:
    for top in OWNED_DIRS:
        start = base / top
        if _is_link(start) or not start.is_dir():
            continue
        for dirpath, _dirnames, _files in sorted(
            os.walk(start, topdown=False, followlinks=False), key=lambda t: -len(t[0])
        ):
            with contextlib.suppress(OSError):  # not empty: fine
                os.rmdir(dirpath)


@dataclass(frozen=True)
class Drift:
    """How a wiki folder differs from a fresh render (sorted wiki-relative paths):
    ``missing`` pages (absent, or a symlink where a page should be), ``changed`` pages
    (bytes differ: a hand edit, or a page from an older state) and ``stale`` files Etki
    owns that the render does not have (pages of erased cases, leftover ``.etki-*.tmp``
    files of an interrupted write)."""

    missing: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    stale: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.missing or self.changed or self.stale)

    def paths(self) -> list[str]:
        """Every differing path, sorted."""
        return sorted((*self.missing, *self.changed, *self.stale))

    def lines(self) -> list[str]:
        """``missing: PATH`` / ``changed: PATH`` / ``stale: PATH``, in path order."""
        kinds = {
            **dict.fromkeys(self.missing, "missing"),
            **dict.fromkeys(self.changed, "changed"),
            **dict.fromkeys(self.stale, "stale"),
        }
        return [f"{kinds[p]}: {p}" for p in sorted(kinds)]


def drift_tree(root: Path, files: Mapping[str, bytes]) -> Drift:
    """Compare the folder at ``root`` with ``files`` ({relative path: bytes}). Reads
    only; never follows a symlinked folder (a page behind one counts as missing)."""
    base = _root(root, create=False)
    if base is None:
        return Drift(missing=tuple(sorted(files)))
    missing: list[str] = []
    changed: list[str] = []
    for rel in files:
        parts = validate_relpath(rel).parts
        try:
            folder = _safe_dir(base, parts[:-1], create=False)
        except UnsafeWikiPath:
            folder = None
        data = None if folder is None else _read_regular(folder / parts[-1])
        if data is None:
            missing.append(rel)
        elif data != files[rel]:
            changed.append(rel)
    stale = [rel for rel in owned_files(base) if rel not in files]
    return Drift(tuple(sorted(missing)), tuple(sorted(changed)), tuple(sorted(stale)))


def diff_tree(root: Path, files: Mapping[str, bytes]) -> list[str]:
    """Wiki-relative paths where the folder at ``root`` differs from ``files``: pages
    whose bytes differ or that are missing (or a symlink), and owned files that should
    not be there. Sorted. Reads only; never follows a symlinked folder
    (:func:`drift_tree` says which kind each one is)."""
    return drift_tree(root, files).paths()
