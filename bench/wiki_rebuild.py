"""Full wiki rebuild of 10,000 ruled decisions, against the physical floor.

Each round rebuilds the whole wiki with :meth:`WikiProjector.rebuild` into an empty
folder (read the DB, render or take from the render cache every page, write it
atomically), with a new projector each round (no model or fragment carried over in
memory). Two kinds of round: *cold*, in a fresh parent folder (no render cache beside
the wiki: every page rendered, as the first rebuild of a wiki); *warm*, the wiki folder
deleted but the render cache beside it kept (:mod:`etki.wiki.rendercache`: what a
rebuild of an unchanged DB finds; it renders nothing). The floor, measured in the
same run, is a bare loop writing the same bytes to the same number of files in a fresh
folder (``mkdir`` + ``open(..., "wb").write``), nothing else. Also shown: the split of
one cold rebuild into DB read, render and write, and a rebuild over an up-to-date wiki.

A second floor, for context (issue 32 item 4, helper perf32f): the same loop written
where the warm round writes, right after deleting the tree just written there (the
warm round itself starts from that state). On this ext4 disk creating 19,000 files
right after deleting 19,000 cost 2-3x the system time of creating them in space freed
long ago (``/tmp`` A/B script, BENCH.md); the fresh-folder floor above never pays it.

Byte identity: every round's tree digest (SHA-256 over sorted path + bytes) must be the
same, and equal to the digest the previous benchmark run recorded in the workspace
(``last-run.json``).

Target: rebuild (warm) <= 3x the floor, and byte-identical to the last run.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path

from bench.common import Context, Figure, ms, ratio, settle_disk, stats

NAME = "wiki_rebuild"
DESCRIPTION = "full wiki rebuild of 10k decisions vs a bare write loop (floor)"


def tree_digest(root: Path) -> tuple[str, int, int]:
    """(sha256, files, bytes) of every file under ``root`` (sorted relative paths)."""
    h = hashlib.sha256()
    files = total = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            p = Path(dirpath) / name
            rel = p.relative_to(root).as_posix()
            if rel.startswith("."):  # the lock file
                continue
            data = p.read_bytes()
            h.update(rel.encode() + b"\0" + len(data).to_bytes(8, "big") + data)
            files += 1
            total += len(data)
    return h.hexdigest(), files, total


def bare_write(root: Path, files: dict[str, bytes]) -> None:
    """The floor: the same bytes to the same paths, no checks, no atomic rename."""
    made: set[str] = set()
    for rel, data in files.items():
        folder = os.path.dirname(rel)
        if folder and folder not in made:
            os.makedirs(root / folder, exist_ok=True)
            made.add(folder)
        with open(root / rel, "wb") as fh:
            fh.write(data)


MEMORY_FS = Path("/dev/shm")
"""A RAM-backed folder (tmpfs) where there is one: the rebuild and the floor written there
too, so the CPU overhead shows apart from the disk's."""


def _in_memory(ctx: Context, repo, pid: str, files: dict[str, bytes], rounds: int):
    """(warm rebuild times, floor times) in seconds with both written to
    :data:`MEMORY_FS`, or None where it is absent or not writable. The render cache is
    made there by one untimed rebuild first."""
    from etki.config import Settings
    from etki.wiki.projection import WikiProjector

    if not MEMORY_FS.is_dir() or not os.access(MEMORY_FS, os.W_OK):
        return None
    base = MEMORY_FS / f"etki-bench-{os.getpid()}"
    try:
        settings = Settings(db_url="", wiki_dir=str(base / "{project}"))
        WikiProjector(repo, settings).rebuild(pid)
        warm: list[float] = []
        floor: list[float] = []
        for _ in range(rounds):
            shutil.rmtree(base / pid)
            projector = WikiProjector(repo, settings)
            t = time.perf_counter()
            projector.rebuild(pid)
            warm.append(time.perf_counter() - t)
            shutil.rmtree(base / "floor", ignore_errors=True)
            t = time.perf_counter()
            bare_write(base / "floor", files)
            floor.append(time.perf_counter() - t)
        return warm, floor
    finally:
        shutil.rmtree(base, ignore_errors=True)


def run(ctx: Context) -> list[Figure]:
    from etki.config import Settings
    from etki.store import CaseFileRepository
    from etki.wiki.pages import render_wiki
    from etki.wiki.projection import WikiProjector
    from etki.wiki.writer import sync_tree

    size = ctx.size
    db = ctx.copy_store(size, "wiki-rebuild-db")
    repo = CaseFileRepository(f"sqlite:///{db}")
    pid = "bench"
    rounds = 2 if ctx.quick else 3
    files = render_wiki(repo.wiki_project(pid), repo.cases(pid))
    times: list[float] = []
    digests: list[str] = []
    floor: list[float] = []
    cpu_cold: list[float] = []
    cpu_warm: list[float] = []
    cpu_floor: list[float] = []
    cpu_floor_del: list[float] = []  # the floor written right after deleting a fresh tree
    nfiles = nbytes = 0
    for i in range(rounds):
        root = ctx.scratch(f"wiki-rebuild-{i % 2}")
        projector = WikiProjector(repo, Settings(db_url="", wiki_dir=str(root / "{project}")))
        settle_disk()
        t, c = time.perf_counter(), time.process_time()
        projector.rebuild(pid)
        times.append(time.perf_counter() - t)
        cpu_cold.append(time.process_time() - c)
        digest, nfiles, nbytes = tree_digest(root / pid)
        digests.append(digest)
        ctx.log(
            f"rebuild {i + 1}/{rounds}: {times[-1]:.2f} s, {nfiles} files, {nbytes / 1e6:.1f} MB"
        )
    # warm: the render cache beside the wiki kept, the wiki folder itself deleted; each
    # round is followed by a round of the floor (the same bytes) from the same state
    warm: list[float] = []
    for i in range(rounds):
        root = ctx.base / "scratch" / f"wiki-rebuild-{(rounds - 1) % 2}"
        shutil.rmtree(root / pid)
        projector = WikiProjector(repo, Settings(db_url="", wiki_dir=str(root / "{project}")))
        settle_disk()
        t, c = time.perf_counter(), time.process_time()
        projector.rebuild(pid)
        warm.append(time.perf_counter() - t)
        cpu_warm.append(time.process_time() - c)
        digests.append(tree_digest(root / pid)[0])
        taken, rendered = projector.render_counts[pid]
        ctx.log(f"warm rebuild {i + 1}/{rounds}: {warm[-1]:.2f} s, {rendered} pages rendered")
        floor_root = ctx.scratch(f"wiki-floor-{i % 2}")
        settle_disk()
        t, c = time.perf_counter(), time.process_time()
        bare_write(floor_root, files)
        floor.append(time.perf_counter() - t)
        cpu_floor.append(time.process_time() - c)
        # the same floor from the warm round's own disk state: the tree just written
        # at that place deleted first (what the warm round itself starts from)
        shutil.rmtree(root / pid)
        settle_disk()
        c = time.process_time()
        bare_write(root / pid, files)
        cpu_floor_del.append(time.process_time() - c)
        shutil.rmtree(root / pid)  # the next round deletes a tree of its own too: a wiki
        WikiProjector(repo, Settings(db_url="", wiki_dir=str(root / "{project}"))).rebuild(pid)
    memory_pair = _in_memory(ctx, repo, pid, files, rounds)
    # split of one rebuild (the reads WikiProjector.rebuild does)
    t0 = time.perf_counter()
    project, cases = repo.wiki_project(pid), repo.cases(pid)
    t1 = time.perf_counter()
    files = render_wiki(project, cases)
    t2 = time.perf_counter()
    root = ctx.scratch("wiki-split")
    sync_tree(root, files, prune=True)
    t3 = time.perf_counter()
    again = sync_tree(root, files, prune=True)
    t4 = time.perf_counter()
    # a rebuild over an up-to-date wiki
    projector = WikiProjector(
        repo,
        Settings(db_url="", wiki_dir=str(ctx.base / "scratch" / "wiki-rebuild-0" / "{project}")),
    )
    t5 = time.perf_counter()
    projector.rebuild(pid)
    t6 = time.perf_counter()
    repo.dispose()

    same_in_run = len(set(digests)) == 1
    previous = ctx.remember(f"wiki_rebuild.digest.{size.key()}", digests[0])
    if previous is None:
        vs_last = "first run (digest recorded)"
    elif previous == digests[0]:
        vs_last = "identical to last run"
    else:
        vs_last = "DIFFERENT from last run"
    identical = same_in_run and previous in (None, digests[0])
    r, f, w = stats(ms(times)), stats(ms(floor)), stats(ms(warm))
    out = [
        ctx.emit(
            Figure(
                NAME,
                f"full rebuild, render cache warm ({len(cases)} cases, {nfiles} files, "
                f"{nbytes / 1e6:.1f} MB)",
                w.median,
                w.p95,
                "ms",
                w.n,
                "bare write loop, same bytes and files",
                f.median,
                ratio(w.median, f.median),
                "<= 3x floor",
                (ratio(w.median, f.median) or 99) <= 3.0,
                note=f"{rendered} pages rendered, {taken} from the cache",
            )
        ),
    ]
    if memory_pair is not None:
        mw, mf = stats(ms(memory_pair[0])), stats(ms(memory_pair[1]))
        out.append(
            ctx.emit(
                Figure(
                    NAME,
                    f"full rebuild, render cache warm, both in memory ({MEMORY_FS}, tmpfs)",
                    mw.median,
                    mw.p95,
                    "ms",
                    mw.n,
                    "bare write loop in memory",
                    mf.median,
                    ratio(mw.median, mf.median),
                    note="context: the CPU part, no disk (DB read, model, cache, rename)",
                )
            )
        )
    cc, cw, cf = stats(ms(cpu_cold)), stats(ms(cpu_warm)), stats(ms(cpu_floor))
    cd = stats(ms(cpu_floor_del))
    out.append(
        ctx.emit(
            Figure(
                NAME,
                "CPU of a full rebuild, warm, vs the floor written from the same disk state "
                "(the tree just written there deleted first)",
                cw.median,
                cw.p95,
                "ms",
                cw.n,
                "CPU of the bare write loop after deleting the tree just written",
                cd.median,
                ratio(cw.median, cd.median),
                note="context: creating 19,000 files right after deleting 19,000 costs the "
                "kernel (system time) several times what it costs into a folder deleted "
                "long ago; the warm round starts so, the fresh-folder floor does not",
            )
        )
    )
    for label, got, target, limit in (
        ("cold (every page rendered)", cc, "<= 8x floor CPU", 8.0),
        ("warm (render cache)", cw, "<= 3x floor CPU", 3.0),
    ):
        out.append(
            ctx.emit(
                Figure(
                    NAME,
                    f"CPU of a full rebuild, {label} (process time, user + system)",
                    got.median,
                    got.p95,
                    "ms",
                    got.n,
                    "CPU of the bare write loop",
                    cf.median,
                    ratio(got.median, cf.median),
                    target,
                    (ratio(got.median, cf.median) or 99) <= limit,
                    note="issue 32 item 4; not moved by the load on other cores",
                )
            )
        )
    out += [
        ctx.emit(
            Figure(
                NAME,
                "full rebuild, cold (no render cache: every page rendered)",
                r.median,
                r.p95,
                "ms",
                r.n,
                "bare write loop, same bytes and files",
                f.median,
                ratio(r.median, f.median),
            )
        ),
        ctx.emit(
            Figure(
                NAME,
                "byte-identical",
                None,
                None,
                "",
                len(digests),
                target="identical to last run",
                met=identical,
                note=f"{'same' if same_in_run else 'DIFFERENT'} in all rounds; "
                f"{vs_last}; sha256 {digests[0][:16]}",
            )
        ),
        ctx.emit(
            Figure(
                NAME,
                "split: DB read / render / write",
                (t1 - t0) * 1000,
                None,
                "ms",
                1,
                note=f"read {(t1 - t0):.2f} s, render {(t2 - t1):.2f} s, "
                f"write (sync_tree) {(t3 - t2):.2f} s, "
                f"re-sync unchanged {(t4 - t3):.2f} s "
                f"({len(again.unchanged)} unchanged)",
            )
        ),
        ctx.emit(
            Figure(
                NAME,
                "rebuild over an up-to-date wiki",
                (t6 - t5) * 1000,
                None,
                "ms",
                1,
                "bare write loop",
                f.median,
                ratio((t6 - t5) * 1000, f.median),
            )
        ),
    ]
    return out
