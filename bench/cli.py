"""Start-up of the command line: what a user types, in a fresh process.

Each round runs the installed ``etki`` / ``etki-tui`` console scripts (``python -m``
where a script is not beside the interpreter) as subprocesses and takes the CPU time
each used (user + system, from ``os.wait4``) and its wall time. Timed, interleaved so
a slow spell of the machine hits them all:

* answers that need no store (issue 32 item 2, target CPU <= 3x ``python -c pass``):
  ``etki --help``, ``etki --version``, ``etki-tui --help``, and two refusals of bad
  input: ``etki rule X cr --amend`` without a reason, ``etki add -`` with an empty
  standard input (exit 2 expected);
* read commands (issue 32 item 1): ``etki queue`` (text and ``--json``), ``etki
  projects``, ``etki dispute list`` and ``etki db current`` on the demo engagement
  (``sample_project/``, 40 cases, initialised once into a scratch store, not timed;
  target <= 5x), and ``etki queue``, ``--json``, an unknown ``--project`` and ``etki
  dispute list`` on the bench store of ``ctx.size`` with all but 40 cases ruled
  (10,000 cases in the full run; target <= 8x); ``etki queue`` through the ORM path
  (``ETKI_LEAN_READ=0``) beside them for comparison (no target).

Baseline in the same run: ``python -c pass`` (the interpreter's own start). Every
command runs once untimed first, so the figures are with bytecode compiled unless
``PYTHONDONTWRITEBYTECODE`` is set (the figure's note says which).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from bench.common import Context, Figure, ms, ratio, stats

NAME = "cli"
DESCRIPTION = "CLI start-up: --help, --version, refusals, etki queue (CPU of a fresh process)"

SAMPLE = Path(__file__).resolve().parent.parent / "sample_project"
PENDING = 40
NO_STORE_RATIO = 3.0
"""Issue 32 item 2: a usage or validation error, --help, --version <= 3x python -c pass."""
DEMO_RATIO = 5.0
"""Issue 32 item 1: read commands on the demo store <= 5x python -c pass."""
BIG_RATIO = 8.0
"""Issue 32 item 1: read commands on the 10k store with 40 pending <= 8x."""


def _command(name: str = "etki") -> list[str]:
    script = Path(sys.executable).parent / name
    return [str(script)] if script.exists() else [sys.executable, "-m", name.replace("-", "_")]


def _run(cmd: list[str], env: dict[str, str], cwd: Path, expect: int = 0) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run of ``cmd`` with an empty standard input;
    raises if it exits other than ``expect``."""
    t = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode != expect:
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
    tui = _command("etki-tui")
    # name -> (command, environment, expected exit code, target ratio)
    cases: dict[str, tuple[list[str], dict[str, str], int, float | None]] = {
        "python -c pass": ([sys.executable, "-c", "pass"], env, 0, None),
        "etki --help": ([*etki, "--help"], env, 0, NO_STORE_RATIO),
        "etki --version": ([*etki, "--version"], env, 0, NO_STORE_RATIO),
        "etki-tui --help": ([*tui, "--help"], env, 0, NO_STORE_RATIO),
        "etki rule X cr --amend (no reason: refused)": (
            [*etki, "rule", "X", "cr", "--amend"],
            env,
            2,
            NO_STORE_RATIO,
        ),
        "etki add - (empty stdin: refused)": ([*etki, "add", "-"], env, 2, NO_STORE_RATIO),
        "etki queue, demo (40 cases)": ([*etki, "queue"], env, 0, DEMO_RATIO),
        "etki queue --json, demo": ([*etki, "queue", "--json"], env, 0, DEMO_RATIO),
        "etki projects, demo": ([*etki, "projects"], env, 0, DEMO_RATIO),
        "etki dispute list, demo": ([*etki, "dispute", "list"], env, 0, DEMO_RATIO),
        "etki db current, demo": ([*etki, "db", "current"], env, 0, DEMO_RATIO),
        "etki queue, demo, ORM path (ETKI_LEAN_READ=0)": (
            [*etki, "queue"],
            {**env, "ETKI_LEAN_READ": "0"},
            0,
            None,
        ),
        f"etki queue, {size.cases} cases ({PENDING} pending)": (
            [*etki, "queue"],
            big_env,
            0,
            BIG_RATIO,
        ),
        f"etki queue --json, {size.cases} cases ({PENDING} pending)": (
            [*etki, "queue", "--json"],
            big_env,
            0,
            BIG_RATIO,
        ),
        f"etki queue --project nope (refused), {size.cases} cases": (
            [*etki, "queue", "--project", "nope"],
            big_env,
            2,
            BIG_RATIO,
        ),
        f"etki dispute list, {size.cases} cases": (
            [*etki, "dispute", "list"],
            big_env,
            0,
            BIG_RATIO,
        ),
        f"etki queue, {size.cases} cases, ORM path (ETKI_LEAN_READ=0)": (
            [*etki, "queue"],
            {**big_env, "ETKI_LEAN_READ": "0"},
            0,
            None,
        ),
    }
    for cmd, e, expect, _ in cases.values():  # untimed: bytecode compiled where allowed
        _run(cmd, e, work, expect)
    cpu: dict[str, list[float]] = {k: [] for k in cases}
    wall: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(rounds):  # interleaved, so a slow spell of the machine hits them all
        for name, (cmd, e, expect, _) in cases.items():
            c, w = _run(cmd, e, work, expect)
            cpu[name].append(c)
            wall[name].append(w)
    base = stats(ms(cpu["python -c pass"]))
    bytecode = (
        "bytecode not written (PYTHONDONTWRITEBYTECODE set)"
        if os.environ.get("PYTHONDONTWRITEBYTECODE")
        else "bytecode compiled"
    )
    out = []
    for name, (_, _, _, target) in list(cases.items())[1:]:
        c, w = stats(ms(cpu[name])), stats(ms(wall[name]))
        r = ratio(c.median, base.median)
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
                    r,
                    "" if target is None else f"<= {target:g}x python -c pass",
                    None if target is None else r is not None and r <= target,
                    note=f"wall median {w.median:.0f} ms; {bytecode}",
                )
            )
        )
    return out
