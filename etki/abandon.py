"""A blocking call that the caller may stop waiting for (one job: never be held by it).

Python cannot stop a thread that is blocked in a socket read, in DNS resolution or in C
code. What it can do is not wait for it: :func:`run_abandonable` runs the call in a
daemon thread of its own and waits for it until a deadline passes or a ``give_up``
event is set, whichever comes first. Then it stops waiting (the call is *abandoned*),
runs ``on_abandon`` (e.g. shuts the call's socket down so its thread ends soon) and
raises :class:`Abandoned`. A daemon thread never holds up the exit of the process, so
an abandoned call can keep neither the caller nor the interpreter.

Used by the endpoint layer (:func:`etki.endpoints.http.post_json`: one total deadline
per call, whatever the server sends) and by the desk's workers (quitting the desk does
not wait for a model call).
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import time
from collections.abc import Callable
from typing import TypeVar

__all__ = ["GIVE_UP_POLL", "Abandoned", "run_abandonable"]

T = TypeVar("T")

GIVE_UP_POLL = 0.05
"""Seconds between two looks at ``give_up`` while waiting (only when one is given):
the longest a set ``give_up`` goes unnoticed. Python has no wait on two events at
once; 50 ms is below what a person notices after pressing a key."""


class Abandoned(TimeoutError):
    """The caller stopped waiting for a call: its deadline passed (``reason``
    ``"deadline"``) or its ``give_up`` event was set (``"given up"``). The call's thread
    may still be running; its result, when it comes, is dropped."""

    def __init__(self, name: str, reason: str) -> None:
        self.name, self.reason = name, reason
        super().__init__(f"{name}: abandoned ({reason})")


def run_abandonable(
    call: Callable[[], T],
    *,
    name: str,
    timeout: float | None = None,
    give_up: threading.Event | None = None,
    on_abandon: Callable[[], None] | None = None,
) -> T:
    """Run ``call()`` in a daemon thread (named ``name``, with the caller's context
    variables) and return its value, or raise what it raised.

    ``timeout``: seconds to wait at most (None: no deadline). ``give_up``: an event
    that, once set, ends the wait too (looked at every :data:`GIVE_UP_POLL` seconds).
    When either ends the wait first, ``on_abandon()`` runs (its errors are ignored: the
    caller has stopped caring about the call) and :class:`Abandoned` is raised; the
    thread is left to finish on its own and whatever it returns or raises is dropped.
    A ``timeout`` <= 0 abandons the call at once (it is still started)."""
    done = threading.Event()
    box: dict[str, object] = {}

    def runner() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting caller
            box["error"] = exc
        finally:
            done.set()

    thread = threading.Thread(
        target=contextvars.copy_context().run, args=(runner,), name=name, daemon=True
    )
    thread.start()
    end = None if timeout is None else time.monotonic() + timeout
    reason = None
    while not done.is_set():
        left = None if end is None else end - time.monotonic()
        if left is not None and left <= 0:
            reason = "deadline"
            break
        if give_up is not None and give_up.is_set():
            reason = "given up"
            break
        step = left if give_up is None else min(GIVE_UP_POLL, left or GIVE_UP_POLL)
        done.wait(step)
    if reason is not None and not done.is_set():
        if on_abandon is not None:
            with contextlib.suppress(Exception):  # see the docstring
                on_abandon()
        raise Abandoned(name, reason)
    if "error" in box:
        error = box["error"]
        assert isinstance(error, BaseException)
        raise error
    return box["value"]  # type: ignore[return-value]
