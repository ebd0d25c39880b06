"""The slope of the read commands per stored case (issue 32 item 1: "show the 1k -> 10k
-> 100k figures").

    python -m bench.slope 1000 10000 100000 [--rounds 5] [--workdir DIR]

For each size, the bench store of that many cases with all but 40 ruled (built once by
:meth:`bench.common.Context.store`, cached under ``$ETKI_BENCH_DIR``; the build time is
printed), then ``etki queue``, ``queue --json``, ``dispute list``, ``dispute list
--json``, ``projects``, ``db current``, ``show`` of a pending case and ``report``, each
run as a fresh process once untimed, then ``--rounds`` times interleaved with ``python
-c pass``. Prints the CPU medians (user + system, ``os.wait4``), the ratio to ``python -c
pass`` of the same size's run, the load average and whether bytecode was compiled, and
at the end the CPU per stored case between consecutive sizes. Nothing asserts a time.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import time
from pathlib import Path

from bench.cli import PENDING, _command, _run
from bench.common import Context, loadavg
from bench.generate import FULL

READS: tuple[tuple[str, list[str]], ...] = (
    ("queue", ["queue"]),
    ("queue --json", ["queue", "--json"]),
    ("dispute list", ["dispute", "list"]),
    ("dispute list --json", ["dispute", "list", "--json"]),
    ("projects", ["projects"]),
    ("db current", ["db", "current"]),
    ("show (a pending case)", ["show", "{pending}"]),
    ("report", ["report"]),
)


def measure(ctx: Context, cases: int, rounds: int) -> dict[str, float]:
    """CPU medians (ms) of :data:`READS` and ``python -c pass`` on the store of ``cases``."""
    size = FULL.with_cases(cases, ruled=cases - PENDING)
    t = time.perf_counter()
    db = ctx.store(size)
    print(f"# {cases} cases: store {db} ready in {time.perf_counter() - t:.1f} s", flush=True)
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        pending = conn.execute("SELECT id FROM cases WHERE status = 'pending' LIMIT 1").fetchone()
    env = {**os.environ, "ETKI_DB_URL": f"sqlite:///{db}", "ETKI_WIKI_DIR": ""}
    etki = _command()
    runs = {"python -c pass": [sys.executable, "-c", "pass"]}
    for name, args in READS:
        runs[name] = [*etki, *(a.replace("{pending}", pending[0]) for a in args)]
    work = ctx.scratch("slope")
    for cmd in runs.values():  # untimed: bytecode compiled where allowed
        _run(cmd, env, work)
    cpu: dict[str, list[float]] = {k: [] for k in runs}
    for _ in range(rounds):
        for name, cmd in runs.items():
            cpu[name].append(_run(cmd, env, work)[0] * 1000)
    return {k: statistics.median(v) for k, v in cpu.items()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.slope", description=__doc__)
    p.add_argument("sizes", type=int, nargs="+", help="stored cases, e.g. 1000 10000 100000")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--workdir", help="fixture cache (default $ETKI_BENCH_DIR or /tmp/etki-bench)")
    args = p.parse_args(argv)
    ctx = Context(quick=False, workdir=Path(args.workdir) if args.workdir else None)
    compiled = "not written" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "compiled"
    figures: dict[int, dict[str, float]] = {}
    for cases in args.sizes:
        start = loadavg()
        figures[cases] = got = measure(ctx, cases, args.rounds)
        base = got["python -c pass"]
        print(f"## {cases} cases; load {start} -> {loadavg()}; bytecode {compiled}")
        for name, value in got.items():
            print(f"{name:28s} {value:8.0f} ms  {value / base:6.2f}x")
    sizes = sorted(figures)
    for a, b in zip(sizes, sizes[1:], strict=False):
        print(f"## CPU per stored case, {a} -> {b}")
        for name in figures[a]:
            per = (figures[b][name] - figures[a][name]) / (b - a) * 1000
            print(f"{name:28s} {per:8.1f} µs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
