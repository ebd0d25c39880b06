"""Triage quality on labelled requests: a thin wrapper of ``etki eval triage``.

Usage::

    .venv/bin/python bench/triage_quality.py [PROJECT_DIR ...] [--quiet] [-- EXTRA ...]

The figures (accuracy, macro-F1 with bootstrap intervals, per-verdict figures, clause and
module recall, with and without borderline rows, per engagement and pooled) are those of
``etki eval triage`` (:mod:`etki.evaluation.triage`), which replaced the scoring this
script had. Default: every real engagement and the sample (``--all-realdata``). Each
request is listed (``--per-request``) unless ``--quiet``; arguments after ``--`` go to
the command as they are (``-- --loeo --json``). It adds one line the command does not
print: the wall-clock time of the whole run on this machine.
"""

from __future__ import annotations

import argparse
import sys
import time

from etki.cli import run
from etki.errors import EtkiError
from etki.text import printable


def main(argv: list[str] | None = None) -> int:
    """Command line entry: forward to ``etki eval triage``; returns its exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1 :]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("projects", nargs="*")
    parser.add_argument("--quiet", action="store_true", help="do not list every request")
    args = parser.parse_args(argv)
    command = [
        "eval",
        "triage",
        *(args.projects or ["--all-realdata"]),
        *([] if args.quiet else ["--per-request"]),
        *extra,
    ]
    start = time.perf_counter()
    try:
        code = run(command)
    except EtkiError as exc:
        print(f"etki: error: {printable(str(exc))}", file=sys.stderr)
        return exc.exit_code
    if "--json" not in extra:
        print(f"\nwall clock: {time.perf_counter() - start:.2f} s (etki {' '.join(command)})")
    return code


if __name__ == "__main__":
    sys.exit(main())
