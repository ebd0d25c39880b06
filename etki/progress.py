"""Progress of long work, and the log level of the command line (issue 32 item 6).

This module owns both; nothing else in Etki draws a bar or reads ``ETKI_LOG_LEVEL``.

**Progress.** Long work anywhere in the core (the wiki rebuild writing pages, ``etki
init`` triaging a large engagement's requests, embedding a contract's graph nodes, an
``etki eval`` run) reports through :func:`task` or :func:`track`. They cost nothing and
write nothing unless the command turned progress on with :func:`enable`, which it does
only when stderr is a terminal and the output is not ``--json``: in a pipe, under a test
or from the MCP server there is no bar and no escape code, and :mod:`rich` is not even
imported. On a terminal the bar is a :class:`rich.progress.Progress` on stderr
(description, bar, ``done/total``, elapsed time), removed when the work ends
(``transient``), so the command's own summary lines stay as they were. Tasks may nest
(a rebuild per project): they share one live display. A description is our own text,
never client text, and is shown without markup.

**Log level.** :func:`log_level` reads ``ETKI_LOG_LEVEL`` (a name: ``DEBUG``, ``INFO``,
``WARNING``, ``ERROR`` or ``CRITICAL``, any case; unset or empty means ``WARNING``) and
``-v`` (``INFO``) / ``-vv`` (``DEBUG``) on the ``etki`` command; the more verbose of the
two wins. A bad value is an :class:`etki.errors.InputError` naming the variable, the
value and the allowed names (exit 2, one line). Records go to stderr through
:func:`etki.console.configure_logging`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

from etki.errors import InputError

__all__ = ["LEVELS", "LOG_LEVEL_VAR", "enable", "enabled", "log_level", "task", "track"]

LOG_LEVEL_VAR = "ETKI_LOG_LEVEL"
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
"""The names ``ETKI_LOG_LEVEL`` accepts (any case)."""

T = TypeVar("T")

_state: dict[str, Any] = {"on": False, "live": None, "depth": 0}


def enable(on: bool | None = None, *, json: bool = False) -> bool:
    """Turn progress display on or off for this process and return whether it is on:
    ``on`` None means "when stderr is a terminal"; ``json`` (the command prints JSON)
    always turns it off. The ``etki`` command calls it once after parsing its
    arguments; a library caller that never calls it gets no display."""
    if on is None:
        try:
            on = sys.stderr.isatty()
        except (AttributeError, ValueError):  # closed or replaced stream
            on = False
    _state["on"] = bool(on) and not json
    return _state["on"]


def enabled() -> bool:
    """Whether :func:`task` draws a bar (see :func:`enable`)."""
    return bool(_state["on"])


def _noop(advance: int = 1, *, total: int | None = None) -> None:
    return None


@contextlib.contextmanager
def task(description: str, total: int | None = None) -> Iterator[Callable[..., None]]:
    """Report one piece of long work: yields ``advance(n=1, *, total=None)`` to call as
    units of work are done (``total`` may be given or corrected on the way; None:
    unknown, an indeterminate bar). A no-op callable when progress is off
    (:func:`enable`). ``description`` is shown literally (no Rich markup)."""
    if not _state["on"]:
        yield _noop
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    outer = _state["live"] is None
    if outer:
        _state["live"] = Progress(
            TextColumn("{task.description}", markup=False),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        _state["live"].start()
    live = _state["live"]
    tid = live.add_task(description, total=total)

    def advance(n: int = 1, *, total: int | None = None) -> None:
        if total is not None:
            live.update(tid, total=total)
        live.advance(tid, n)

    try:
        yield advance
    finally:
        live.remove_task(tid)
        if outer:
            live.stop()
            _state["live"] = None


def track(items: Iterable[T], description: str, total: int | None = None) -> Iterator[T]:
    """``items`` one by one, advancing a :func:`task` after each (``total`` from
    ``len(items)`` when it has one)."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with task(description, total) as advance:
        for item in items:
            yield item
            advance()


def log_level(env: Mapping[str, str] | None = None, verbose: int = 0) -> int:
    """The :mod:`logging` level for the command: ``ETKI_LOG_LEVEL`` from ``env``
    (``os.environ`` when None) and ``verbose`` (the count of ``-v``), the more verbose
    winning. Raises :class:`~etki.errors.InputError` for a value that is no level name."""
    raw = (os.environ if env is None else env).get(LOG_LEVEL_VAR, "")
    name = raw.strip().upper()
    if name and name not in LEVELS:
        shown = raw if len(raw) <= 40 else raw[:40] + "…"
        raise InputError(
            f"{LOG_LEVEL_VAR}={shown!r} is not a log level; use one of {', '.join(LEVELS)}"
        )
    level = getattr(logging, name) if name else logging.WARNING
    if verbose >= 2:
        level = min(level, logging.DEBUG)
    elif verbose == 1:
        level = min(level, logging.INFO)
    return int(level)
