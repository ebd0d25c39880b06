"""Start-up of the command line: ``etki --help`` and ``etki queue`` in a fresh process.

Each round runs the installed ``etki`` console script (what a user types; ``python -m
etki`` where the script is not beside the interpreter) as a subprocess and takes the
CPU time it used (user + system, from ``os.wait4``) and its wall time:

* ``etki --help``;
* ``etki queue`` on the demo engagement (``sample_project/``, 40 cases, initialised
  once into a scratch store, not timed);
* ``etki queue`` on the bench store of ``ctx.size`` with all but 40 cases ruled (10,000
  cases in the full run: the queue lists 40, the clause memory reads every ruled row).

Baseline in the same run: ``python -c pass`` (the interpreter's own start). Target
(issue 15): CPU <= 0.15 s for ``etki --help`` and ``etki queue``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from bench.common import Context, Figure, ms, ratio, stats

NAME = "cli"
DESCRIPTION = "CLI start-up: etki --help, etki queue (CPU of a fresh process)"

SAMPLE = Path(__file__).resolve().parent.parent / "sample_project"
TARGET_S = 0.15
PENDING = 40


def _command() -> list[str]:
    script = Path(sys.executable).parent / "etki"
    return [str(script)] if script.exists() else [sys.executable, "-m", "etki"]


def _run(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run of ``cmd``; raises if it fails."""
    t = time.perf_counter()
    proc = subprocess.Popen(
        cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {err[-400:]}")
    return usage.ru_utime + usage.ru_stime, wall


def run(ctx: Context) -> list[Figure]:
    rounds = 3 if ctx.quick else 7
    etki = _command()
    work = ctx.scratch("cli")
    env = {**os.environ, "ETKI_DB_URL": f"sqlite:///{work / 'demo.db'}", "ETKI_WIKI_DIR": ""}
    subprocess.run([*etki, "init", str(SAMPLE)], env=env, cwd=work, check=True, capture_output=True)
    size = ctx.size.with_cases(ctx.size.cases, ruled=ctx.size.cases - PENDING)
    big = ctx.copy_store(size, "cli-db")
    big_env = {**env, "ETKI_DB_URL": f"sqlite:///{big}"}
    cases = {
        "python -c pass": ([sys.executable, "-c", "pass"], env),
        "etki --help": ([*etki, "--help"], env),
        "etki queue, demo (40 cases)": ([*etki, "queue"], env),
        f"etki queue, {size.cases} cases ({PENDING} pending)": ([*etki, "queue"], big_env),
    }
    cpu: dict[str, list[float]] = {k: [] for k in cases}
    wall: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(rounds):  # interleaved, so a slow spell of the machine hits them all
        for name, (cmd, e) in cases.items():
            c, w = _run(cmd, e, work)
            cpu[name].append(c)
            wall[name].append(w)
    base = stats(ms(cpu["python -c pass"]))
    out = []
    for name in list(cases)[1:]:
        c, w = stats(ms(cpu[name])), stats(ms(wall[name]))
        out.append(
            ctx.emit(
                Figure(
                    NAME,
                    f"{name}: CPU of a fresh process",
                    c.median,
                    c.p95,
                    "ms",
                    c.n,
                    "python -c pass (CPU)",
                    base.median,
                    ratio(c.median, base.median),
                    f"<= {TARGET_S:.2f} s CPU",
                    c.median <= TARGET_S * 1000,
                    note=f"wall median {w.median:.0f} ms",
                )
            )
        )
    return out
