"""Run an Etki command line inside the test process.

A real subprocess costs a Python start and every import again (about a second on a
loaded two-core machine) per call; most command-line tests only need what the command
prints and returns. :func:`run_etki` gives them the same :class:`subprocess.CompletedProcess`
a subprocess would, from the command's own ``main``: the environment replaced and the
working directory changed for the call (and put back), stdout and stderr captured as
text, ``SystemExit`` read as the exit code, the root logger put back as it was.

What stays a real subprocess (and must): a command's start-up itself (console script,
``python -m``), its encoding on a C locale, signals and kills, anything taking file
locks or racing other processes (an ``fcntl`` lock is per process: two commands in one
process would never contend), and end-to-end runs that stand for a user at a shell.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

__all__ = ["run_etki"]


@contextlib.contextmanager
def _environment(env: Mapping[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def _root_logger_kept() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        logging.captureWarnings(False)


@contextlib.contextmanager
def _stdin(text: str) -> Iterator[None]:
    saved = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        yield
    finally:
        sys.stdin = saved


def _etki_main(argv: list[str]) -> int | None:
    from etki.cli import main

    main(argv)
    return 0


def _wiki_main(argv: list[str]) -> int | None:
    from etki.commands.wiki import main

    return main(argv)


MAINS: dict[str, Callable[[list[str]], int | None]] = {"etki": _etki_main, "etki.wiki": _wiki_main}
"""Program -> its ``main`` (``etki`` is ``etki.cli.main``; ``etki.wiki`` is what
``python -m etki.wiki`` runs)."""


def run_etki(
    args: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path | str,
    program: str = "etki",
    input: str = "",
) -> subprocess.CompletedProcess[str]:
    """Run ``program`` (a key of :data:`MAINS`) with ``args`` in this process, with
    ``env`` as the whole environment and ``cwd`` as the working directory for the call.
    Returns the exit code (``SystemExit``'s, 0 when ``main`` returns None or 0), stdout
    and stderr as text; ``input`` is what the command reads on stdin. Any other exception propagates: the command let it escape, which
    is a failure to see, not an exit code."""
    out, err = io.StringIO(), io.StringIO()
    code: int
    with (
        _environment(env),
        contextlib.chdir(cwd),
        _root_logger_kept(),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        _stdin(input),
    ):
        try:
            returned = MAINS[program](list(args))
            code = int(returned or 0)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if isinstance(exc.code, str):
                print(exc.code, file=sys.stderr)
    return subprocess.CompletedProcess([program, *args], code, out.getvalue(), err.getvalue())
