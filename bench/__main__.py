"""``python -m bench <name> [--quick]`` and ``python -m bench all [--quick]``.

Benchmarks: cli, triage, wiki_rebuild, hitl, search, expand, tui, init (see each module's
docstring for what is timed, the baseline measured in the same run and the target).
``--quick`` uses small sizes (for CI: it must run; nothing asserts a time).
``--json FILE`` writes every figure, the machine and the load average to FILE.
Generated fixtures are cached under ``$ETKI_BENCH_DIR`` (default ``/tmp/etki-bench``).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
import traceback
from pathlib import Path

from bench.common import Context, Figure, loadavg, machine, to_json

BENCHMARKS = ("cli", "triage", "wiki_rebuild", "hitl", "search", "expand", "tui", "init")


def selected(names: list[str]) -> list[str]:
    """The benchmarks to run, in order: every one of :data:`BENCHMARKS` when ``names``
    holds ``all``, else ``names`` without repeats."""
    return list(BENCHMARKS) if "all" in names else list(dict.fromkeys(names))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("name", choices=("all", *BENCHMARKS), nargs="+")
    p.add_argument("--quick", action="store_true", help="small sizes (CI)")
    p.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    p.add_argument(
        "--workdir",
        metavar="DIR",
        help="fixture cache (default $ETKI_BENCH_DIR or /tmp/etki-bench)",
    )
    args = p.parse_args(argv)
    names = selected(args.name)
    ctx = Context(quick=args.quick, workdir=Path(args.workdir) if args.workdir else None)
    info = machine()
    print(f"# etki bench ({'quick' if args.quick else 'full'}): {', '.join(names)}")
    print(
        f"# machine: {info['nproc']} cpu, {info['cpu']}, Python {info['python']}, "
        f"libyaml {info['libyaml']}, {info['rg'] or 'no rg'}; load {info['loadavg']}"
    )
    failed = []
    started = time.perf_counter()
    timings = {}
    for name in names:
        module = importlib.import_module(f"bench.{name}")
        print(f"## {name}: {module.DESCRIPTION} (load {loadavg()})", flush=True)
        t = time.perf_counter()
        try:
            module.run(ctx)
        except Exception as exc:  # one broken benchmark must not hide the others
            traceback.print_exc()
            ctx.emit(Figure(name, "FAILED", None, None, "", note=f"{type(exc).__name__}: {exc}"))
            failed.append(name)
        timings[name] = round(time.perf_counter() - t, 1)
        print(f"## {name} done in {timings[name]:.1f} s", flush=True)
    total = time.perf_counter() - started
    print(f"# done in {total:.1f} s; load {loadavg()}")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "quick": args.quick,
                    "machine": info,
                    "load_end": loadavg(),
                    "seconds": timings,
                    "figures": to_json(ctx.figures),
                },
                indent=1,
                ensure_ascii=False,
            )
            + "\n"
        )
    if failed:
        print(f"# FAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
