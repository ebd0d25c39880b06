"""``desk_worker`` (:mod:`etki_tui.workers`): the body's answer is posted, an error is
answered by ``failed``, ``then`` follows the body's answer only, body and ``failed``
see the project shown when the thread started, and a coalescing group runs one thread
at a time, then the newest call made meanwhile."""

from __future__ import annotations

import threading

import pytest
from textual.app import App
from textual.message import Message
from textual.worker import WorkerFailed, WorkerState

from etki.errors import NotFoundError
from etki_tui.workers import desk_worker
from tests.test_tui_pilot import sync


class Answer(Message):
    def __init__(self, project_id: str, n: int) -> None:
        super().__init__()
        self.project_id, self.n = project_id, n


class Failed(Message):
    def __init__(self, project_id: str, n: int, error: str) -> None:
        super().__init__()
        self.project_id, self.n, self.error = project_id, n, error


class Host(App[None]):
    """An app with the desk workers' shape: a project shown, workers that answer."""

    def __init__(self) -> None:
        super().__init__()
        self.project_id = "alpha"
        self.then_calls: list[tuple[str, str, int]] = []
        self.started = threading.Event()
        self.go_on = threading.Event()

    def _after(self, project_id: str, answer: Message) -> None:
        assert isinstance(answer, Answer)
        self.then_calls.append((threading.current_thread().name, project_id, answer.n))

    @desk_worker(
        "ask", failed=lambda exc, project_id, n: Failed(project_id, n, str(exc)), then=_after
    )
    def ask(self, project_id: str, n: int) -> Answer | None:
        if n < 0:
            raise NotFoundError(f"no case {n}")
        return Answer(project_id, n) if n else None

    @desk_worker("bare")
    def bare(self, _project_id: str) -> Answer:
        raise NotFoundError("nothing here")

    @desk_worker("slow", failed=lambda exc, project_id: Failed(project_id, -1, str(exc)))
    def slow(self, _project_id: str) -> Answer:
        self.started.set()
        self.go_on.wait(10)
        raise NotFoundError("late")


class Loads(App[None]):
    """An app with one coalescing worker that waits for the test to let it go on."""

    def __init__(self) -> None:
        super().__init__()
        self.project_id = "alpha"
        self.calls: list[tuple[str, int]] = []
        self.started = threading.Event()
        self.go_on = threading.Event()

    @desk_worker(
        "load", coalesce=True, failed=lambda exc, project_id, n: Failed(project_id, n, str(exc))
    )
    def load(self, project_id: str, n: int) -> Answer:
        self.calls.append((threading.current_thread().name, n))
        self.started.set()
        self.go_on.wait(10)
        if n == 3:
            raise NotFoundError("three")
        return Answer(project_id, n)


def _posted(messages: list[Message]) -> list[tuple[str, str, int]]:
    return [
        (type(m).__name__, m.project_id, m.n) for m in messages if isinstance(m, Answer | Failed)
    ]


@sync
async def test_the_answer_or_the_error_answer_is_posted_and_then_follows_answers_only():
    seen: list[Message] = []
    app = Host()
    async with app.run_test(message_hook=seen.append):
        worker = app.ask(3)
        assert (worker.name, worker.group) == ("ask", "ask")
        await app.workers.wait_for_complete()
        app.ask(-2)
        await app.workers.wait_for_complete()
        app.ask(0)  # None: no answer, no then
        await app.workers.wait_for_complete()
    assert _posted(seen) == [("Answer", "alpha", 3), ("Failed", "alpha", -2)]
    failed = next(m for m in seen if isinstance(m, Failed))
    assert failed.error == "no case -2"
    assert [(p, n) for _, p, n in app.then_calls] == [("alpha", 3)]
    assert app.then_calls[0][0] != threading.main_thread().name  # in the worker's thread


@sync
async def test_an_error_without_failed_ends_only_the_worker():
    seen: list[Message] = []
    app = Host()
    async with app.run_test(message_hook=seen.append):
        worker = app.bare()
        with pytest.raises(WorkerFailed):  # what waiting on it says; nobody waits in the desk
            await worker.wait()
        assert worker.state == WorkerState.ERROR
        assert isinstance(worker.error, NotFoundError)
        assert app.is_running and app.return_code is None
    assert _posted(seen) == []


@sync
async def test_body_and_failed_see_the_project_shown_when_the_thread_started():
    seen: list[Message] = []
    app = Host()
    async with app.run_test(message_hook=seen.append) as pilot:
        app.slow()
        for _ in range(1000):  # the loop starts the thread: let it run until the body has
            if app.started.is_set():
                break
            await pilot.pause(0.01)
        assert app.started.is_set()
        app.project_id = "beta"  # a project switch while the desk call runs
        app.go_on.set()
        await app.workers.wait_for_complete()
    assert _posted(seen) == [("Failed", "alpha", -1)]


@sync
async def test_a_coalescing_group_runs_the_newest_call_after_the_running_one_in_its_thread():
    """load(1) runs; load(2) and load(3) come while it does: no second thread starts,
    2 is dropped, and 3 runs in 1's thread once 1 is done (its error answered by
    ``failed``); after that a call starts a thread of its own again."""
    seen: list[Message] = []
    app = Loads()
    async with app.run_test(message_hook=seen.append) as pilot:
        assert app.load(1) is not None
        for _ in range(1000):
            if app.started.is_set():
                break
            await pilot.pause(0.01)
        assert app.started.is_set()
        assert app.load(2) is None and app.load(3) is None  # kept, not started
        assert len([w for w in app.workers if w.group == "load"]) == 1
        app.go_on.set()
        await app.workers.wait_for_complete()
        assert app.load(4) is not None
        await app.workers.wait_for_complete()
    assert [n for _, n in app.calls] == [1, 3, 4]
    assert app.calls[0][0] == app.calls[1][0]  # 3 ran in 1's thread
    assert _posted(seen) == [("Answer", "alpha", 1), ("Failed", "alpha", 3), ("Answer", "alpha", 4)]
