"""Desk workers: one desk call in a thread, answered with one message.

Every blocking call of the desk runs in a Textual thread worker and reports back to the
event loop with a typed message from :mod:`etki_tui.messages`. :func:`desk_worker` writes
that plumbing once, so a worker's body says only what it asks the desk for and which
message answers it, and its ``failed`` says which message answers an error.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from textual import work
from textual.message import Message
from textual.worker import Worker

__all__ = ["DeskApp", "desk_worker"]


class DeskApp(Protocol):
    """What a desk worker needs of its app: the id of the project shown and a way to
    post a message to the event loop from a thread."""

    project_id: str

    def post_message(self, message: Message) -> bool:
        """Queue ``message`` for the app (thread-safe)."""
        ...


A = TypeVar("A", bound=DeskApp)
P = ParamSpec("P")


def desk_worker(
    group: str,
    *,
    exclusive: bool = True,
    failed: Callable[..., Message | None] | None = None,
    then: Callable[..., None] | None = None,
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
    answer once cancelled checks the flag itself.
    """

    def decorate(
        body: Callable[Concatenate[A, str, P], Message | None],
    ) -> Callable[Concatenate[A, P], Worker[None]]:
        @functools.wraps(body)
        def run(app: A, /, *args: P.args, **kwargs: P.kwargs) -> None:
            project_id = app.project_id
            try:
                answer = body(app, project_id, *args, **kwargs)
            except Exception as exc:
                if failed is None:
                    raise
                error = failed(exc, project_id, *args, **kwargs)
                if error is not None:
                    app.post_message(error)
                return
            if answer is not None:
                app.post_message(answer)
                if then is not None:
                    then(app, project_id, answer)

        return work(run, thread=True, exclusive=exclusive, group=group, exit_on_error=False)

    return decorate
