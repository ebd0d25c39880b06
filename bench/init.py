"""``etki init`` of the 10,000- and 100,000-case engagements: time, peak memory, growth.

Each run is the real command (``python -m etki.cli init FOLDER``) in a fresh process on
a fresh SQLite store with the wiki on, so it covers loading and validating the folder
(2,000 clauses, 5,000 modules, 20,000 work items and the requests), building the
knowledge index, triaging every request, the related-context block of every case,
storing them and the wiki projection. Wall time from start to exit; peak memory is the
child's ``ru_maxrss`` (from ``os.wait4``).

Baseline: the 10k run (measured in the same benchmark run); the ratios are the growth
10k -> 100k. Linear growth is a ratio of at most 10 for time; for memory, at most 10
too (a fixed part such as the interpreter and the index makes it much less).

CPU per request: the child's user + system CPU time (``ru_utime + ru_stime``) of the big
run minus that of the small one, divided by the extra requests, so the fixed part
(loading, indexing, the engine and port, the wiki) cancels out; CPU time moves less with
the load than wall time does. Target <= 3 ms (issue 15).

Target: report time and memory, and both grow no worse than linearly.

With ``ETKI_EMBED`` set (the offline model), a first run of the small size on an empty
vector cache gives the model's one-off cost (every contract sentence embedded once per
project); the two measured runs then start from a copy of its cache holding only those
passage vectors, so the CPU per request is what each new request costs with the
embedding on (its query vector, when the engine reads it by meaning) and the noisy
one-off part does not enter the difference.

``ETKI_BENCH_INIT_SIZES=500,2000`` (two request counts, small then big) runs those sizes
of the full engagement instead, a mid-size check that takes minutes, not the 25 of 10k
and 100k.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from bench.common import Context, Figure, ratio

NAME = "init"
DESCRIPTION = "etki init of the 100k-case engagement: time, peak memory, growth from 10k"


def init_once(
    ctx: Context, folder: Path, tag: str, vectors_from: Path | None = None
) -> tuple[float, float, float, int, str]:
    """(seconds, CPU seconds, peak MB, exit code, last output line) of one ``etki
    init``. ``vectors_from``: a scratch folder whose embedding cache files are copied
    in first, without their query rows (see :func:`_passages_only`)."""
    scratch = ctx.scratch(f"init-{tag}")
    if vectors_from is not None:
        for cache in sorted(vectors_from.glob("embeddings-*.sqlite")):
            _passages_only(cache, scratch / cache.name)
    env = dict(
        os.environ,
        ETKI_DB_URL=f"sqlite:///{scratch}/etki.db",
        ETKI_WIKI_DIR=str(scratch / "wiki-{project}"),
        ETKI_REVIEWER="reviewer",
    )
    with open(scratch / "stdout.txt", "wb") as out:
        t = time.perf_counter()
        hwm = scratch / "vmhwm.txt"
        proc = subprocess.Popen(
            [sys.executable, "-c", _REPORT_PEAK, str(hwm), "init", str(folder)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
        _pid, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    text = (scratch / "stdout.txt").read_text(errors="replace").strip().splitlines()
    cpu = usage.ru_utime + usage.ru_stime
    last = text[-1] if text else ""
    try:  # the child's own peak (kB); ru_maxrss would be the bench process's if larger
        peak = int(hwm.read_text().split()[0]) / 1024.0
    except (OSError, ValueError, IndexError):
        peak = usage.ru_maxrss / 1024.0
    return elapsed, cpu, peak, proc.returncode, last


_REPORT_PEAK = """
import atexit, sys
out = sys.argv.pop(1)

def peak():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                open(out, "w").write(line.split(":", 1)[1].strip())

atexit.register(peak)
from etki.cli import main
sys.exit(main(sys.argv[1:]))
"""
"""The child's code: ``etki.cli`` main, then its own peak resident set (``VmHWM`` of
``/proc/self/status``, in kB) written to the file named first. ``ru_maxrss`` of the
child cannot be used: Linux keeps the larger of the pre-exec image across ``exec``,
and the child starts as a copy of the bench process, so after the TUI bench in ``bench
all`` every init read 717 MB (the parent's size) where a lone ``bench init`` read 478."""


def _passages_only(source: Path, target: Path) -> None:
    """Copy the vector cache ``source`` to ``target`` keeping only passage vectors (the
    contract sentences), so a run measured on it still embeds every request."""
    src = sqlite3.connect(source)
    try:
        dst = sqlite3.connect(target)
        src.backup(dst)
        dst.execute("DELETE FROM vectors WHERE kind <> 'passage'")
        dst.commit()
        dst.close()
    finally:
        src.close()


def sizes(ctx: Context) -> tuple[int, int]:
    """(small, big) request counts: ``ETKI_BENCH_INIT_SIZES`` when set (see the module
    docstring; raises ValueError unless it is two counts, small first), else 50/500
    (quick) or 10,000/100,000."""
    wanted = os.environ.get("ETKI_BENCH_INIT_SIZES")
    if not wanted:
        return (50, 500) if ctx.quick else (10_000, 100_000)
    small, big = (int(x) for x in wanted.split(","))
    if not 0 < small < big:
        raise ValueError(f"ETKI_BENCH_INIT_SIZES={wanted!r}: want SMALL,BIG with SMALL < BIG")
    return small, big


def run(ctx: Context) -> list[Figure]:
    small_n, big_n = sizes(ctx)
    base = ctx.size
    results = {}
    figures: list[Figure] = []
    warm: Path | None = None
    if os.environ.get("ETKI_EMBED"):
        # the model's one-off cost (every contract sentence, once per project and model),
        # measured on its own; both runs below start from its passage vectors
        folder = ctx.project_folder(base.with_cases(small_n))
        ctx.log(
            f"etki init with {small_n} requests, ETKI_EMBED={os.environ['ETKI_EMBED']}, cold cache …"
        )
        secs, cpu, _peak, code, last = init_once(ctx, folder, "cold")
        warm = ctx.base / "scratch" / "init-cold"
        figures.append(
            ctx.emit(
                Figure(
                    NAME,
                    f"CPU, embedding on, cold vector cache, {small_n} requests",
                    cpu,
                    None,
                    "s",
                    1,
                    note=f"wall {secs:.1f} s; exit {code}; {last}",
                )
            )
        )
    for n in (small_n, big_n):
        folder = ctx.project_folder(base.with_cases(n))
        ctx.log(f"etki init with {n} requests …")
        secs, cpu, peak, code, last = init_once(ctx, folder, str(n), warm)
        ctx.log(f"{n}: {secs:.1f} s, CPU {cpu:.1f} s, peak {peak:.0f} MB, exit {code}; {last}")
        results[n] = (secs, cpu, peak, code)
    (ts, cpu_s, ms_, cs), (tb, cpu_b, mb, cb) = results[small_n], results[big_n]
    ok = cs == 0 and cb == 0
    t_growth, m_growth = ratio(tb, ts), ratio(mb, ms_)
    linear = big_n / small_n
    per_request = (cpu_b - cpu_s) / (big_n - small_n) * 1000.0
    embedding = (
        f"; ETKI_EMBED={os.environ['ETKI_EMBED']}, contract sentences cached" if warm else ""
    )
    return figures + [
        ctx.emit(
            Figure(
                NAME,
                f"CPU per request, {small_n} -> {big_n} requests",
                per_request,
                None,
                "ms",
                1,
                target="<= 3 ms",
                met=ok and per_request <= 3.0,
                note=f"CPU {cpu_s:.1f} s at {small_n}, {cpu_b:.1f} s at {big_n}; fixed part "
                f"{cpu_s - small_n * per_request / 1000.0:.1f} s{embedding}",
            )
        ),
        ctx.emit(
            Figure(
                NAME,
                f"time, {big_n} requests",
                tb,
                None,
                "s",
                1,
                f"same with {small_n} requests",
                ts,
                t_growth,
                f"growth <= {linear:g}x (linear)",
                ok and (t_growth or 99) <= linear,
                note=f"{tb / big_n * 1000:.1f} ms per request at {big_n}, "
                f"{ts / small_n * 1000:.1f} ms at {small_n}"
                + ("" if ok else f"; EXIT CODES {cs}/{cb}"),
            )
        ),
        ctx.emit(
            Figure(
                NAME,
                f"peak memory, {big_n} requests",
                mb,
                None,
                "MB",
                1,
                f"same with {small_n} requests",
                ms_,
                m_growth,
                f"growth <= {linear:g}x (linear)",
                ok and (m_growth or 99) <= linear,
            )
        ),
    ]
