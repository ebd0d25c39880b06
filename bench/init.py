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

Target: report both, and both grow no worse than linearly.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from bench.common import Context, Figure, ratio

NAME = "init"
DESCRIPTION = "etki init of the 100k-case engagement: time, peak memory, growth from 10k"


def init_once(ctx: Context, folder: Path, tag: str) -> tuple[float, float, int, str]:
    """(seconds, peak MB, exit code, last output line) of one ``etki init``."""
    scratch = ctx.scratch(f"init-{tag}")
    env = dict(
        os.environ,
        ETKI_DB_URL=f"sqlite:///{scratch}/etki.db",
        ETKI_WIKI_DIR=str(scratch / "wiki-{project}"),
        ETKI_REVIEWER="reviewer",
    )
    with open(scratch / "stdout.txt", "wb") as out:
        t = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "etki.cli", "init", str(folder)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
        _pid, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    text = (scratch / "stdout.txt").read_text(errors="replace").strip().splitlines()
    return elapsed, usage.ru_maxrss / 1024.0, proc.returncode, (text[-1] if text else "")


def run(ctx: Context) -> list[Figure]:
    small_n, big_n = (50, 500) if ctx.quick else (10_000, 100_000)
    base = ctx.size
    results = {}
    for n in (small_n, big_n):
        folder = ctx.project_folder(base.with_cases(n))
        ctx.log(f"etki init with {n} requests …")
        secs, peak, code, last = init_once(ctx, folder, str(n))
        ctx.log(f"{n}: {secs:.1f} s, peak {peak:.0f} MB, exit {code}; {last}")
        results[n] = (secs, peak, code)
    (ts, ms_, cs), (tb, mb, cb) = results[small_n], results[big_n]
    ok = cs == 0 and cb == 0
    t_growth, m_growth = ratio(tb, ts), ratio(mb, ms_)
    linear = big_n / small_n
    return [
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
