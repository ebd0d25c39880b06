"""Desk workers: one desk call in a thread, answered with one message.

Every blocking call of the desk runs in a Textual thread worker and reports back to the
event loop with a typed message from :mod:`etki_tui.messages`. :func:`desk_worker` writes
that plumbing once, so a worker's body says only what it asks the desk for and which
message answers it, and its ``failed`` says which message answers an error.

A worker whose body waits on a model endpoint (:data:`ABANDONED_ON_EXIT`: ``p``'s
pre-analysis) never holds up quitting: its body runs in a daemon thread of its own
(:func:`etki.abandon.run_abandonable`) that the worker stops waiting for once it is
cancelled (Textual cancels every worker when the app exits), so the executor thread the
app's exit joins is free at once and the process ends; the body's late answer is
dropped. The other workers (rulings, notes, loads) are waited for as before: a ruling
pressed just before quitting is written, not cut off. No answer is posted to an app that
has stopped running.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from textual import work
from textual.message import Message
from textual.worker import Worker, get_current_worker

from etki.abandon import Abandoned, run_abandonable

__all__ = ["ABANDONED_ON_EXIT", "DeskApp", "desk_worker"]

ABANDONED_ON_EXIT = frozenset({"preanalyse"})
"""The worker groups whose bodies wait on a model endpoint, which quitting the desk does
not wait for (the module docstring). Their bodies write nothing a reviewer asked for but
a pre-analysis, which can be asked for again."""


class DeskApp(Protocol):
    """What a desk worker needs of its app: the id of the project shown and a way to
    post a message to the event loop from a thread."""

    project_id: str

    @property
    def is_running(self) -> bool:
        """True while the app runs (its answers are wanted)."""
        ...

    def post_message(self, message: Message) -> bool:
        """Queue ``message`` for the app (thread-safe)."""
        ...


A = TypeVar("A", bound=DeskApp)
P = ParamSpec("P")


@dataclass
class _Slot:
    """A coalescing group's state on one app: a body is running in a thread, and the
    arguments of the newest call made meanwhile (None: none)."""

    running: bool = False
    pending: tuple[tuple, dict] | None = None


_SLOTS_LOCK = threading.Lock()


def _slot(app: object, group: str) -> _Slot:
    slots: dict[str, _Slot] = app.__dict__.setdefault("desk_worker_slots", {})
    return slots.setdefault(group, _Slot())


def desk_worker(
    group: str,
    *,
    exclusive: bool = True,
    coalesce: bool = False,
    failed: Callable[..., Message | None] | None = None,
    then: Callable[..., None] | None = None,
    abandon_on_exit: bool | None = None,
) -> Callable[
    [Callable[Concatenate[A, str, P], Message | None]], Callable[Concatenate[A, P], Worker[None]]
]:
    """Make a method a thread worker of ``group`` (Textual's ``@work(thread=True,
    exit_on_error=False)``: an error never ends the app) that posts its answer.

    The method is written as ``body(app, project_id, *args)`` and called as
    ``app.method(*args)``: ``project_id`` is the project shown when the worker's thread
    starts, read once, so an answer that comes back after a project switch names the
    project it is for. The body returns the message to post, or None to post nothing.
    When it raises, ``failed(exc, project_id, *args, **kwargs)`` gives the message that
    answers the error instead (None: nothing); without ``failed`` the error ends the
    worker silently, as any error does. ``then(app, project_id, answer)``, when given,
    runs in the thread after the body's own answer (not an error's) is posted: work
    that must not delay the answer.

    ``exclusive``: starting the worker cancels the group's running one. Cancelling a
    thread only flags it (``get_current_worker().is_cancelled``); a body that must not
    answer once cancelled checks the flag itself — the cancelled thread runs on.

    ``coalesce``: a call made while the group's body is still running (cancelled or
    not) starts no second thread; the newest such call's arguments are kept, and the
    running thread runs the body again with them once it is done (the call returns
    None). For loads that read everything (Hafıza's lists, Raporlar): two at once only
    compete for the GIL and keep the collector paused longer (:mod:`etki_tui.heap`),
    and the first one's answer is stale anyway. Measured in ``bench.tui_blocks`` (10k
    ruled cases): two loads were still running when typing began, so every keystroke
    waited behind them. A coalescing body must not depend on being cancelled.

    ``abandon_on_exit``: the body runs in a daemon thread that the worker stops waiting
    for once it is cancelled (then nothing answers, not even ``failed``), so quitting
    never waits for it; None: when ``group`` is in :data:`ABANDONED_ON_EXIT`. Only for
    bodies that may be cut off at the process's exit. Whatever the kind, an answer is
    posted only while ``app.is_running``.
    """
    abandons = group in ABANDONED_ON_EXIT if abandon_on_exit is None else abandon_on_exit

    def decorate(
        body: Callable[Concatenate[A, str, P], Message | None],
    ) -> Callable[Concatenate[A, P], Worker[None]]:
        def call(app: A, project_id: str, args: tuple, kwargs: dict) -> Message | None:
            if not abandons:
                return body(app, project_id, *args, **kwargs)
            worker = get_current_worker()
            return run_abandonable(
                lambda: body(app, project_id, *args, **kwargs),
                name=f"{body.__name__} ({group} worker body)",
                give_up=worker.cancelled_event,
            )

        def answer(app: A, args: tuple, kwargs: dict) -> None:
            project_id = app.project_id
            try:
                reply = call(app, project_id, args, kwargs)
            except Abandoned:
                return  # cancelled (the app is quitting): nobody waits for the answer
            except Exception as exc:
                if failed is None:
                    raise
                error = failed(exc, project_id, *args, **kwargs)
                if error is not None and app.is_running:
                    app.post_message(error)
                return
            if reply is not None and app.is_running:
                app.post_message(reply)
                if then is not None:
                    then(app, project_id, reply)

        @functools.wraps(body)
        def run(app: A, /, *args: P.args, **kwargs: P.kwargs) -> None:
            if not coalesce:
                answer(app, args, kwargs)
                return
            slot = _slot(app, group)
            call: tuple[tuple, dict] | None = (args, kwargs)
            try:
                while call is not None:
                    answer(app, *call)
                    with _SLOTS_LOCK:
                        call, slot.pending = slot.pending, None
                        slot.running = call is not None
            finally:
                with _SLOTS_LOCK:  # an error ended the loop: the next call starts afresh
                    slot.running = False

        # A description of our own: without one, Textual's @work builds it from the repr
        # of every argument, on the event loop, at each call. load_rulings is handed the
        # 10k cases of the first queue; their dataclass reprs cost 4% of its main-thread
        # time (py-spy of the first queue at 10k, bench tui's pending store).
        started = work(
            run,
            thread=True,
            exclusive=exclusive,
            group=group,
            exit_on_error=False,
            description=f"{body.__name__} ({group} worker)",
        )
        if not coalesce:
            return started

        @functools.wraps(body)
        def start(app: A, /, *args: P.args, **kwargs: P.kwargs) -> Worker[None] | None:
            slot = _slot(app, group)
            with _SLOTS_LOCK:
                if slot.running:
                    slot.pending = (args, kwargs)
                    return None
                slot.running = True
            try:
                return started(app, *args, **kwargs)
            except BaseException:
                with _SLOTS_LOCK:
                    slot.running = False
                raise

        return start  # type: ignore[return-value]

    return decorate
