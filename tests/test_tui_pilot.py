"""Behaviour of the reviewer desk, driven with Textual's Pilot at 80x24 on a real SQLite
file and a real wiki folder (tests/conftest.py builds the project; nothing is mocked).

Each test watches the typed messages the app sees (``message_hook``) and checks the
database and the wiki afterwards. Nothing waits on wall-clock time: the live refresh is
off (``poll_seconds=0``) and tests call :meth:`EtkiApp.poll_queue` themselves, the
search debounce is flushed explicitly, and the clock is frozen.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest
from rich.text import Text
from textual.app import App
from textual.command import CommandPalette
from textual.content import Content
from textual.geometry import Region
from textual.message import Message
from textual.notifications import Notify
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, Label, OptionList
from textual.worker import WorkerState

from etki.services import approval_service
from etki_tui.__main__ import main
from etki_tui.app import EtkiApp
from etki_tui.config import load_config
from etki_tui.hafiza.pane import MemoryPane
from etki_tui.messages import (
    Copied,
    DeskFailed,
    FilterChanged,
    PageLoaded,
    ProjectSwitched,
    QueueLoaded,
    RuleRequested,
    RulingCommitted,
    RulingConflict,
    RulingFailed,
    SearchResults,
)
from etki_tui.queue.bars import CaseDetail
from etki_tui.queue.filter_screen import FilterPanel
from etki_tui.queue.filters import QueueFilter
from etki_tui.queue.pane import QueuePane, QueueTable
from etki_tui.raporlar.pane import ReportsPane
from etki_tui.screens.confirm import ConfirmRuling
from etki_tui.screens.help import HelpScreen
from etki_tui.screens.notice import NoticeModal, TooSmallScreen
from tests.conftest import (
    REPO_ROOT,
    TuiWorld,
    build_tui_world,
    tui_clock,
    tui_decision,
    tui_project,
)

FIRST = "req-demo-0a1f3c21"  # IN_SCOPE, cites the disputed clause 3.2
SECOND = "req-demo-1b7e9d02"  # REJECT, cites 9.1
HOSTILE = "req-demo-3d5b0f24"  # B01 markup + B03 escapes in title and text


def sync(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async test body in its own event loop (no asyncio plugin needed); the
    signature is kept, so pytest still injects fixtures."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


class Recorder:
    """Collects every message the app sees (``run_test(message_hook=...)``)."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    def __call__(self, message: Message) -> None:
        self.messages.append(message)

    def of(self, kind: type[Message]) -> list[Any]:
        """Messages of ``kind``, each once (a bubbling message is seen at every node)."""
        unique = {id(m): m for m in self.messages if isinstance(m, kind)}
        return list(unique.values())

    def notes(self) -> list[str]:
        return [m.notification.message for m in self.of(Notify)]

    def clear(self) -> None:
        self.messages.clear()


_S = TypeVar("_S", bound=Screen[Any])


def make_app(world: TuiWorld, **kwargs: object) -> EtkiApp:
    # A debounce that never fires by itself: Enter searches at once, tests that want the
    # live search call app.flush_search(); no keystroke starts a search thread.
    options: dict[str, object] = {
        "cursor_blink": False,
        "search_delay": 3600,
        "poll_seconds": 0,
        "clock": tui_clock,
        "preview_delay": 0,
    }
    options.update(kwargs)
    return EtkiApp(world.desk, world.project_id, **options)  # type: ignore[arg-type]


FAILSAFE = 120.0
"""Seconds after which a wait for a state gives up with a message saying what it waited
for: a failsafe against a hang, never a timing assertion (a loaded 2-core machine may
take long; the test only fails if the state never comes)."""


def _raise_app_error(app: App[Any]) -> None:
    if app._exception is not None:
        raise app._exception


async def until(pilot: Pilot, condition: Callable[[], object], what: str) -> None:
    """Wait until ``condition()`` holds, letting the app handle its messages between
    looks (``pilot.pause()``). Raises with ``what`` after :data:`FAILSAFE` seconds, or at
    once with the app's own exception if it crashed meanwhile."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + FAILSAFE
    while not condition():
        _raise_app_error(pilot.app)
        if loop.time() > give_up:
            raise AssertionError(f"still waiting for {what} after {FAILSAFE:g} s")
        await pilot.pause()
    _raise_app_error(pilot.app)


def _busy(app: App[Any]) -> list[str]:
    """What the app still has to do: workers not finished, messages queued or being
    handled by any node of any screen (or the app), after-refresh callbacks waiting.
    Read from Textual's own bookkeeping, never changed (a handler being awaited is
    finished by the ``pilot.pause()`` before the read: the app's turn in it comes after
    the handler). A key press or a worker's answer
    travels app -> screen -> widget, one hop per turn of the event loop; on a loaded
    machine ``pilot.pause()`` can return before the last hop (it stops when the process
    looks idle), so "nothing left to do" is read here, not assumed."""
    left = [
        f"worker {w.name}"
        for w in app.workers
        if w.state in (WorkerState.PENDING, WorkerState.RUNNING)
    ]
    for screen in app.screen_stack:
        if screen._callbacks:
            left.append(f"{screen!r}: {len(screen._callbacks)} after-refresh callbacks")
    nodes = [app, *(n for screen in app.screen_stack for n in screen.walk_children(with_self=True))]
    for node in nodes:
        if node.message_queue_size or node._next_callbacks:
            left.append(f"{node!r}: messages")
    return left


async def settle(pilot: Pilot) -> None:
    """Wait for the state "nothing left to do" (:func:`_busy`): every worker finished
    and every message handled, including what their handlers started (a page load after
    a list load, and so on). No fixed number of rounds: a loaded machine may need more
    (:data:`FAILSAFE` bounds a hang)."""
    app = pilot.app
    loop = asyncio.get_running_loop()
    give_up = loop.time() + FAILSAFE
    while True:
        await app.workers.wait_for_complete()
        await pilot.pause()
        _raise_app_error(app)
        left = _busy(app)
        if not left:
            return
        if loop.time() > give_up:
            raise AssertionError(f"still busy after {FAILSAFE:g} s: {left[:5]}")


async def press(pilot: Pilot, *keys: str) -> None:
    """Press ``keys`` one at a time, each handled (and what it started finished: a
    dialog pushed, a worker's answer shown) before the next (:func:`settle`). Textual's
    own ``pilot.press`` sends the next key once the process looks idle, which on a
    loaded machine can be before the last key's effect (a Tab meant for the dialog
    reaching the queue, "/" focusing the search box after the letters typed into it)."""
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


@contextlib.asynccontextmanager
async def settled_app(
    world: TuiWorld, size: tuple[int, int], **run: Any
) -> AsyncIterator[tuple[EtkiApp, Pilot]]:
    """The desk of ``world`` (:func:`make_app`) running at ``size`` (columns, rows) once
    it has settled (:func:`settle`): ``async with settled_app(world, (80, 24)) as (app,
    pilot):``. ``run`` goes to ``App.run_test`` (``message_hook=...``)."""
    app = make_app(world)
    async with app.run_test(size=size, **run) as pilot:
        await settle(pilot)
        yield app, pilot


async def opened(pilot: Pilot, key: str, kind: type[_S]) -> _S:
    """Press ``key`` (:func:`press`) and return the screen it opened, asserting it is a
    ``kind`` (a dialog, a form)."""
    await press(pilot, key)
    screen = pilot.app.screen
    assert isinstance(screen, kind), screen
    return screen


def queue_ids(app: EtkiApp) -> list[str]:
    return app.query_one(QueueTable).row_keys()


def current(app: EtkiApp) -> str | None:
    return app.query_one(QueuePane).current_case_id()


def shown(widget, width: int | None = None, height: int | None = None) -> str:  # noqa: ANN001
    """The text a widget renders (all lines joined)."""
    width = width or widget.size.width
    height = height or widget.size.height
    return "\n".join(
        "".join(s.text for s in strip) for strip in widget.render_lines(Region(0, 0, width, height))
    )


async def goto(pilot: Pilot, case_id: str) -> None:
    """Press Down until ``case_id`` is highlighted, each press handled before the next
    look (under load a look can come before the key reached the table: pressing again
    then would skip the case)."""
    app = pilot.app
    rows = queue_ids(app)
    if case_id not in rows:
        raise AssertionError(f"{case_id} not in the queue")
    while current(app) != case_id:
        if rows.index(current(app) or rows[0]) > rows.index(case_id):  # type: ignore[arg-type]
            raise AssertionError(f"{case_id} is above the cursor")
        await press(pilot, "down")
        await settle(pilot)


async def fill(pilot: Pilot, selector: str, text: str) -> None:
    """Put ``text`` into the input ``selector`` of the current screen at once (like a
    paste: one Changed message), with the focus there. Typing key by key costs a pause
    per key; the tests that are about keystrokes press keys."""
    field = pilot.app.screen.query_one(selector, Input)
    field.focus()
    field.value = text
    field.action_end()
    await settle(pilot)


async def palette(pilot: Pilot, query: str) -> None:
    """Open the command palette with ``query`` typed (set at once, like a paste) and
    pick the best hit."""
    from textual.command import CommandInput

    await press(pilot, "ctrl+p")
    assert CommandPalette.is_open(pilot.app)
    pilot.app.screen.query_one(CommandInput).value = query
    await settle(pilot)
    await press(pilot, "enter")  # the best hit is highlighted already
    await settle(pilot)


def decision_files(world: TuiWorld, case_id: str) -> list[Path]:
    return sorted((world.wiki / "decisions").glob(f"*{case_id}.md"))


@sync
async def test_approve_commits_and_writes_the_decision_file(tui_world: TuiWorld) -> None:
    seen = Recorder()
    async with settled_app(tui_world, (80, 24), message_hook=seen) as (app, pilot):
        assert current(app) == FIRST
        await press(pilot, "a")
        assert isinstance(app.screen, ConfirmRuling)
        # agrees with the engine: focus starts on the ruling button (issue 12 item 6)
        assert app.focused is not None and app.focused.id == "confirm-ok"
        [asked] = seen.of(RuleRequested)
        assert asked.case.case_id == FIRST and asked.action == "approve"
        await press(pilot, "enter")  # one key rules
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmRuling)
        [done] = seen.of(RulingCommitted)
        assert done.case_id == FIRST and done.outcome.ruling.ruling == "IN_SCOPE"  # type: ignore[attr-defined]
        assert FIRST not in queue_ids(app)
        assert current(app) == "req-demo-1b7e9d02"  # the next case, same position
        assert any("Approved" in n and FIRST in n for n in seen.notes())
        app.poll_queue()  # our own ruling is no news: the live refresh reloads nothing
        await settle(pilot)
        assert not [m for m in seen.of(QueueLoaded) if m.source == "poll"]
    ruling = tui_world.repo.case(FIRST).ruling
    assert ruling is not None and ruling.ruling == "IN_SCOPE" and ruling.reviewer == "reviewer"
    [page] = decision_files(tui_world, FIRST)
    assert FIRST in page.read_text(encoding="utf-8")


@sync
async def test_converting_to_cr_says_where_its_draft_is(tui_world: TuiWorld) -> None:
    """Issue 14 item 5: the case leaves the queue when it is converted, so the toast
    names its change-request page (the path the wiki holds once projected)."""
    from etki.wiki.paths import cr_path

    cr_case = "req-demo-2c4a8e13"  # the engine says CHANGE_REQUEST: c agrees
    seen = Recorder()
    async with settled_app(tui_world, (120, 40), message_hook=seen) as (app, pilot):
        await goto(pilot, cr_case)
        await press(pilot, "c")
        assert isinstance(app.screen, ConfirmRuling)
        await press(pilot, "y")
        await settle(pilot)
        notes = seen.notes()
    case = tui_world.repo.case(cr_case)
    page = cr_path(case)
    assert (tui_world.wiki / page).is_file()
    assert any(page in n and f"etki cr export {cr_case}" in n for n in notes), notes


@pytest.mark.parametrize(
    ("key", "ruling"), [("c", "CHANGE_REQUEST"), ("r", "REJECT")], ids=["convert", "reject"]
)
@sync
async def test_override_needs_a_reason(tui_world: TuiWorld, key: str, ruling: str) -> None:
    seen = Recorder()
    async with settled_app(tui_world, (80, 24), message_hook=seen) as (app, pilot):
        await press(pilot, key)
        modal = app.screen
        assert isinstance(modal, ConfirmRuling) and modal.is_override
        assert app.focused is modal.query_one("#confirm-reason", Input)  # typing is next
        await press(pilot, "enter", "enter")  # to the button, press: empty reason, refused
        await settle(pilot)
        assert app.screen is modal
        error = str(modal.query_one("#confirm-error", Label).content)
        assert "reason is required" in error
        assert app.focused is modal.query_one("#confirm-reason", Input)
        assert tui_world.repo.case(FIRST).ruling is None
        await fill(pilot, "#confirm-reason", "Contractor staff only")
        await press(pilot, "enter")  # Enter in the reason box goes to Confirm ...
        assert app.screen is modal and app.focused is not None
        assert app.focused.id == "confirm-ok"
        await press(pilot, "enter")  # ... and Enter there rules
        await settle(pilot)
        assert seen.of(RulingCommitted)
        assert FIRST not in queue_ids(app)
    stored = tui_world.repo.case(FIRST).ruling
    assert stored is not None and stored.ruling == ruling
    assert stored.reason == "Contractor staff only"
    assert decision_files(tui_world, FIRST)
    assert list((tui_world.wiki / "precedents").glob(f"*{FIRST}.md"))


@sync
async def test_cancel_and_escape_commit_nothing(tui_world: TuiWorld) -> None:
    seen = Recorder()
    async with settled_app(tui_world, (80, 24), message_hook=seen) as (app, pilot):
        before = queue_ids(app)
        await press(pilot, "a", "shift+tab", "enter")  # back to Cancel: Enter cancels
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmRuling)
        await press(pilot, "r", *"ok", "escape")  # typed a reason, then Esc
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmRuling)
        await press(pilot, "c", "tab", "escape")  # Escape even with Confirm focused
        await settle(pilot)
        assert queue_ids(app) == before
        assert not seen.of(RulingCommitted)
    assert all(c.ruling is None for c in tui_world.desk.queue("demo"))
    assert len(tui_world.desk.queue("demo")) == 6
    assert not decision_files(tui_world, FIRST)


@sync
async def test_the_queue_updates_in_place(tui_world: TuiWorld) -> None:
    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        before = queue_ids(app)
        target = before[2]  # a CHANGE_REQUEST verdict: converting agrees, no reason
        await goto(pilot, target)
        table = app.query_one(QueueTable)
        rows_before = {k: table.get_row(k) for k in before if k != target}
        await press(pilot, "c", "enter")  # agrees: Confirm is focused
        await settle(pilot)
        after = queue_ids(app)
        assert after == [k for k in before if k != target]
        assert table.cursor_row == 2 and current(app) == before[3]
        assert {k: table.get_row(k) for k in after} == rows_before  # other rows untouched
        detail = app.query_one(CaseDetail)
        assert before[3] in str(detail.border_title)
    assert tui_world.repo.case(target).ruling.ruling == "CHANGE_REQUEST"  # type: ignore[union-attr]


@sync
async def test_a_second_ruling_is_a_conflict(tui_world: TuiWorld) -> None:
    """The confirm dialog was open when another reviewer ruled: the DB refuses the
    second ruling (optimistic locking) and the desk says who and when in a modal."""
    seen = Recorder()
    async with settled_app(tui_world, (80, 24), message_hook=seen) as (app, pilot):
        assert current(app) == FIRST
        await press(pilot, "a")
        assert isinstance(app.screen, ConfirmRuling)
        # another reviewer rules the highlighted case behind the app's back
        approval_service(tui_world.repo, tui_world.settings).rule(
            FIRST, "reject", reason="out of remit", reviewer="ayse"
        )
        app.poll_queue()  # the live refresh notices while the dialog is open ...
        await settle(pilot)
        warning = " ".join(shown(app.screen.query_one("#confirm-error")).split())
        assert "ALREADY RULED by ayse" in warning
        await press(pilot, "tab", "enter")  # ... and confirming anyway is refused by the DB
        await settle(pilot)
        [conflict] = seen.of(RulingConflict)
        assert conflict.ruled_by == "ayse" and conflict.ruling == "REJECT"
        assert not seen.of(RulingCommitted)
        modal = app.screen
        assert isinstance(modal, NoticeModal) and modal.id == "conflict"
        text = " ".join(shown(modal.query_one("#notice-body")).split())
        assert "already ruled" in text and "ayse" in text and "not recorded" in text
        assert "REJECT" in text and "2026-11-29 12:00Z" in text
        await press(pilot, "enter")  # OK closes it
        await settle(pilot)
        assert not isinstance(app.screen, NoticeModal)
        assert app.is_running
        # the reload found the case ruled by ayse while it is highlighted: banner, kept row
        pane = app.query_one(QueuePane)
        assert FIRST in pane.ruled_elsewhere
        assert "ayse" in shown(app.query_one("#queue-banner"), 78, 3)
    ruling = tui_world.repo.case(FIRST).ruling
    assert ruling is not None and ruling.ruling == "REJECT" and ruling.reviewer == "ayse"
    assert len(tui_world.repo.audit_log(FIRST)) >= 1


def _etki_rule(
    world: TuiWorld, case_id: str, verdict: str, reviewer: str, reason: str
) -> subprocess.CompletedProcess[str]:
    """A second reviewer process: ``etki rule CASE VERDICT --reason ...``."""
    env = {
        **os.environ,
        "ETKI_DB_URL": world.settings.db_url,
        "ETKI_WIKI_DIR": str(world.tmp / "wiki-{project}"),
        "ETKI_REVIEWER": reviewer,
        "PYTHONPATH": str(REPO_ROOT),
    }
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "from etki.cli import main; main()",
            "rule",
            case_id,
            verdict,
            "--reason",
            reason,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


@sync
async def test_another_process_rules_the_highlighted_case(tui_world: TuiWorld) -> None:
    """Two reviewers at once: a second process (`etki rule`) rules the case under the
    cursor. The live refresh keeps its row with a banner saying who and when; the other
    rows stay untouched and the cursor stays; acting on it is a clear conflict."""
    seen = Recorder()
    async with settled_app(tui_world, (80, 24), message_hook=seen) as (app, pilot):
        await goto(pilot, SECOND)
        table = app.query_one(QueueTable)
        before = queue_ids(app)
        rows_before = {k: table.get_row(k) for k in before if k != SECOND}
        done = _etki_rule(tui_world, SECOND, "reject", "ayse", "agreed, out of scope")
        assert done.returncode == 0, done.stderr
        app.poll_queue()  # the interval timer's job, without waiting for it
        await settle(pilot)
        polled = [m for m in seen.of(QueueLoaded) if m.source == "poll"]
        assert len(polled) == 1
        assert current(app) == SECOND and queue_ids(app) == before  # row kept, cursor kept
        assert {k: table.get_row(k) for k in before if k != SECOND} == rows_before
        banner = app.query_one("#queue-banner")
        assert banner.display
        text = " ".join(shown(banner, 78, 3).split())
        assert "ALREADY RULED by ayse at" in text and "✗ REJECT" in text
        assert table.get_cell(SECOND, "verdict").plain == "! RULED"  # 80 wide: short
        said = f"Ruled meanwhile: {SECOND.rsplit('-', 1)[-1]} REJECT by ayse."
        assert any(said in n for n in seen.notes()), seen.notes()
        await press(pilot, "r")  # acting on it: a conflict, no dialog, nothing written
        await settle(pilot)
        [conflict] = seen.of(RulingConflict)
        assert conflict.case_id == SECOND and conflict.ruled_by == "ayse"
        assert not seen.of(RulingCommitted)
        assert isinstance(app.screen, NoticeModal)
        await press(pilot, "escape")
        await settle(pilot)
        await press(pilot, "down")  # leaving the row lets it go, in place
        await settle(pilot)
        assert SECOND not in queue_ids(app)
        assert current(app) == before[2]
        assert {k: table.get_row(k) for k in queue_ids(app)} == dict(rows_before)
    ruling = tui_world.repo.case(SECOND).ruling
    assert ruling is not None and ruling.reviewer == "ayse" and ruling.ruling == "REJECT"


@sync
async def test_live_refresh_updates_rows_in_place(tui_world: TuiWorld) -> None:
    """A case ruled elsewhere (not highlighted) leaves, a new case arrives: both in place,
    the cursor stays on its case, the untouched rows are the same cell objects."""
    seen = Recorder()
    async with settled_app(tui_world, (80, 24), message_hook=seen) as (app, pilot):
        await goto(pilot, "req-demo-2c4a8e13")
        table = app.query_one(QueueTable)
        cells = {k: table.get_row(k) for k in queue_ids(app)}
        app.poll_queue()  # nothing changed: no reload at all
        await settle(pilot)
        assert not [m for m in seen.of(QueueLoaded) if m.source == "poll"]
        approval_service(tui_world.repo, tui_world.settings).rule(
            "req-demo-5f7d2b46", "approve", reviewer="jurgen"
        )
        from etki.domain import Request

        tui_world.repo.add_cases(
            "demo",
            [
                (
                    Request("R9", "Please add a dark mode.", "Dark mode for the portal"),
                    tui_decision(
                        "req-demo-6a8e3c57", "CHANGE_REQUEST", ("MSA-2024-01#9.1",), confidence=0.66
                    ),
                )
            ],
        )
        app.poll_queue()
        await settle(pilot)
        ids = queue_ids(app)
        assert "req-demo-5f7d2b46" not in ids and ids[-1] == "req-demo-6a8e3c57"
        assert current(app) == "req-demo-2c4a8e13"
        for key in ids[:-1]:
            assert table.get_row(key) == cells[key]
        assert "6 pending" in shown(app.query_one("#filter-summary"), 70, 1)


@sync
async def test_reload_picks_up_a_reinit(tui_world: TuiWorld) -> None:
    """The desk caches the project; Ctrl+R after the folder was loaded again (a new
    index hash) shows the new clause text."""
    async with settled_app(tui_world, (120, 40)) as (app, pilot):
        project = tui_project()
        from dataclasses import replace as dc_replace

        contract = project.contracts[0]
        clauses = tuple(
            dc_replace(c, title="Single sign-on (amended)") if c.number == "3.2" else c
            for c in contract.clauses
        )
        project = dc_replace(project, contracts=(dc_replace(contract, clauses=clauses),))
        tui_world.repo.save_project(project, "sha256:tui-2", b"{}\n")
        await press(pilot, "ctrl+r")
        await settle(pilot)
        body = app.query_one("#detail-body")
        # beside the list from 110 columns: the detail wraps sooner
        assert "Single sign-on (amended)" in " ".join(shown(body, 100, 40).split())


def _segments(widget, width: int, height: int):  # noqa: ANN001, ANN202
    for strip in widget.render_lines(Region(0, 0, width, height)):
        yield from strip


@sync
async def test_client_markup_and_escapes_are_shown_literally(tui_world: TuiWorld) -> None:
    async with settled_app(tui_world, (120, 40)) as (app, pilot):
        await goto(pilot, HOSTILE)
        table = app.query_one(QueueTable)
        title_cell = table.get_cell(HOSTILE, "title")
        assert isinstance(title_cell, Text) and title_cell.plain.startswith("[bold]ACİL[/bold]")
        assert "\x1b" not in title_cell.plain and "\n" not in title_cell.plain
        detail = app.query_one(CaseDetail)
        body = detail.query_one("#detail-body")
        segments = list(_segments(body, body.size.width, body.size.height))
        text = "".join(s.text for s in segments)
        assert "[bold]ACİL[/bold]" in text
        assert "[@click=app.quit]şuraya[/]" in text
        assert "[link=https://evil.example/login]" in text
        assert "[red]mallory[/red]" in text
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]", text)
        assert "␛[2J" in text  # the escape is shown as a visible placeholder
        for segment in segments:  # no style, link or action came from the client's text
            style = segment.style
            if style is not None:
                assert not style.link and "@click" not in (style.meta or {})
        await press(pilot, "a")  # the confirm modal shows the title literally too
        assert isinstance(app.screen, ConfirmRuling)
        title = app.screen.query_one("#confirm-title")
        shown = "".join(s.text for s in _segments(title, title.size.width, title.size.height))
        assert "[@click=app.quit]x[/]" in shown and "\x1b" not in shown
        await press(pilot, "escape")
        assert app.is_running
    assert tui_world.repo.case(HOSTILE).ruling is None


@sync
async def test_wide_characters_keep_cells_one_line(tui_world: TuiWorld) -> None:
    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        table = app.query_one(QueueTable)
        from rich.cells import cell_len

        cell = table.get_cell("req-demo-4e6c1a35", "title")
        assert isinstance(cell, Text)
        assert cell.plain.endswith("…") and "\n" not in cell.plain
        assert cell_len(cell.plain) <= app.query_one(QueuePane)._title_width
        assert "\U0001f1f9" not in cell.plain or "🇹🇷" in cell.plain  # no half flag


@sync
async def test_hafiza_live_search_is_debounced(tui_world: TuiWorld) -> None:
    """Ten keystrokes, one search: every keystroke restarts the debounce timer, and only
    its firing searches. The timer is fired by hand (``flush_search``) so the test never
    depends on how fast keys arrive."""
    seen = Recorder()
    app = make_app(tui_world, search_delay=3600)
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        await press(pilot, "2")
        await settle(pilot)
        assert app.focused is app.query_one("#memory-list", OptionList)  # digits stay keys
        await press(pilot, "slash")
        assert app.focused is app.query_one("#memory-search", Input)
        await press(pilot, *"contr")
        await settle(pilot)
        assert not seen.of(SearchResults)  # nothing searched while typing
        assert app._pending_search == "contr"  # one pending search, the last text
        assert app.flush_search()
        assert not app.flush_search()  # and only one
        await settle(pilot)
        results = seen.of(SearchResults)
        assert [r.query for r in results] == ["contr"]
        pane = app.query_one(MemoryPane)
        assert pane.hits and any("req-demo-9b0f4d68" in path for path, _, _ in pane.hits)
        entries = app.query_one("#memory-list", OptionList)
        assert entries.highlighted_option is not None
        assert entries.highlighted_option.id == "hit:0"
        assert pane.query_one("#memory-page").display  # the page preview is shown


@sync
async def test_hafiza_cards_work_with_the_wiki_off(tmp_path: Path) -> None:
    world = build_tui_world(tmp_path, wiki=False)
    app = make_app(world)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await press(pilot, "2", "slash")
            await settle(pilot)
            pane = app.query_one(MemoryPane)
            assert [c.case_id for c in pane.precedents] == ["req-demo-9b0f4d68"]
            assert [d.ref for d in pane.disputed] == ["MSA-2024-01#3.2"]
            assert pane.pages == [] and not pane.wiki_on
            await fill(pilot, "#memory-search", "contractor")
            await press(pilot, "enter")  # search now, then the list
            await settle(pilot)
            assert pane.query_text == "contractor" and pane.hits == []
            card = pane.query_one("#memory-card")
            shown = "".join(s.text for s in _segments(card, card.size.width, 6))
            assert "PRECEDENT" in shown and "req-demo-9b0f4d68" in shown
            # rule a case: the ruling commits with the wiki off
            await press(pilot, "1")
            await settle(pilot)
            await press(pilot, "a", "enter")
            await settle(pilot)
        assert world.repo.case(FIRST).ruling is not None
        assert not any(tmp_path.glob("wiki*"))
    finally:
        world.repo.dispose()


@sync
async def test_raporlar_refreshes_after_a_ruling(tui_world: TuiWorld) -> None:
    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        await press(pilot, "3")
        await settle(pilot)
        reports = app.query_one(ReportsPane)
        assert reports.report is not None and reports.report.ruled == 2
        await press(pilot, "1")
        await settle(pilot)
        await press(pilot, "a", "enter")
        await settle(pilot)
        await press(pilot, "3")
        await settle(pilot)
        assert reports.report.ruled == 3 and reports.report.pending == 5


@sync
async def test_enter_reads_the_case_full_screen(tui_world: TuiWorld) -> None:
    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        await press(pilot, "enter")
        detail = app.query_one(CaseDetail)
        assert app.screen.maximized is detail and app.focused is detail
        await press(pilot, "escape")
        assert app.screen.maximized is None


# --- the command line -------------------------------------------------------------------


@pytest.fixture
def tui_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ETKI_DB_URL", f"sqlite:///{tmp_path}/cli.db")
    monkeypatch.setenv("ETKI_WIKI_DIR", str(tmp_path / "wiki-{project}"))
    monkeypatch.setenv("ETKI_REVIEWER", "reviewer")
    return tmp_path


def test_cli_with_an_empty_store_says_how_to_start(tui_env: Path, capsys) -> None:  # noqa: ANN001
    assert main([]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "etki-tui PROJECT_DIR" in err


@pytest.mark.parametrize(
    "argv",
    [["--project", "nope"], [str(Path("/nonexistent/folder"))], ["--bogus"]],
    ids=["unknown-project", "no-folder", "bad-flag"],
)
def test_cli_bad_input_is_one_line_and_exit_2(tui_env: Path, capsys, argv: list[str]) -> None:  # noqa: ANN001
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert len(captured.err.strip().splitlines()) == 1
    assert captured.err.startswith("etki-tui: ") and "Traceback" not in captured.err


def test_cli_malformed_project_folder(tui_env: Path, capsys) -> None:  # noqa: ANN001
    folder = tui_env / "broken"
    folder.mkdir()
    (folder / "etki.yaml").write_text("id: [unclosed\n", encoding="utf-8")
    assert main([str(folder)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


SAMPLE = Path(__file__).resolve().parent.parent / "sample_project"


@pytest.mark.skipif(not (SAMPLE / "etki.yaml").is_file(), reason="sample_project absent")
@sync
async def test_sample_project_opens_and_rules(tmp_path: Path) -> None:
    """The README's first command, end to end: load sample_project into an empty store
    (only new requests are triaged on a second run), open the queue at 80x24, approve."""
    from etki.config import Settings
    from etki.services import Desk
    from etki_tui.__main__ import choose_project

    settings = Settings(
        db_url=f"sqlite:///{tmp_path}/etki.db",
        wiki_dir=str(tmp_path / "wiki-{project}"),
        reviewer="reviewer",
    )
    desk = Desk(settings)
    project_id, summary = choose_project(desk, str(SAMPLE), None)
    assert summary is not None and summary.new_cases > 0
    again, second = choose_project(desk, str(SAMPLE), None)
    assert again == project_id and second is not None and second.new_cases == 0
    assert choose_project(desk, None, None) == (project_id, None)
    seen = Recorder()
    app = EtkiApp(
        desk, project_id, init_summary=summary, cursor_blink=False, search_delay=0, preview_delay=0
    )
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        # counts in words, never "case(s)" (a PMO trial of issue 35)
        assert "Loaded demo: 40 requests, 40 new cases triaged." in seen.notes()
        ids = queue_ids(app)
        assert len(ids) == summary.new_cases
        first = current(app)
        case = desk.case(first)  # type: ignore[arg-type]
        if case.decision.verdict == "IN_SCOPE":
            await press(pilot, "a", "enter")  # agrees: focus on Confirm, Enter rules
        else:  # an override: Cancel -> reason box, type, Enter -> Confirm, press
            await press(pilot, "a")
            await fill(pilot, "#confirm-reason", "sample check")
            await press(pilot, "enter", "enter")
        await settle(pilot)
        assert seen.of(RulingCommitted) and first not in queue_ids(app)
    assert desk.case(first).ruling is not None  # type: ignore[arg-type,union-attr]
    assert list((tmp_path / f"wiki-{project_id}" / "decisions").glob(f"*{first}.md"))
    desk.repo.dispose()


# --- filters and sort (item 6) ------------------------------------------------------------


@sync
async def test_filter_keys_post_filter_changes_and_keep_the_cursor(tui_world: TuiWorld) -> None:
    seen = Recorder()
    async with settled_app(tui_world, (80, 24), message_hook=seen) as (app, pilot):
        summary = app.query_one("#filter-summary")
        assert "All 6 pending" in shown(summary, 76, 1)
        await goto(pilot, "req-demo-5f7d2b46")  # IN_SCOPE
        await press(pilot, "v")  # verdict: IN_SCOPE
        await settle(pilot)
        [changed] = seen.of(FilterChanged)
        assert changed.filter == QueueFilter(verdict="IN_SCOPE") and changed.shown == 3
        assert queue_ids(app) == [FIRST, HOSTILE, "req-demo-5f7d2b46"]
        assert current(app) == "req-demo-5f7d2b46"  # the cursor stayed on its case
        text = shown(summary, 76, 1)
        assert "FILTER" in text and "IN_SCOPE" in text and "3 of 6" in text
        await press(pilot, "d")  # disputed only: cases citing 3.2
        await settle(pilot)
        assert queue_ids(app) == [FIRST]
        assert "! disputed" in shown(summary, 76, 1)
        await press(pilot, "escape")  # clears the filters, keeps the sort
        await settle(pilot)
        assert len(queue_ids(app)) == 6 and seen.of(FilterChanged)[-1].filter == QueueFilter()
        await press(pilot, "o", "o", "o")  # sort: lowest confidence first
        await settle(pilot)
        assert seen.of(FilterChanged)[-1].filter.sort == "confidence"
        confidences = [tui_world.desk.case(k).decision.confidence for k in queue_ids(app)]
        assert confidences == sorted(confidences)
        assert "lowest conf" in shown(app.query_one("#filter-sort"), 20, 1)
        await press(pilot, "escape")  # no filter active: Escape does nothing here
        await settle(pilot)
        assert seen.of(FilterChanged)[-1].filter.sort == "confidence"


@sync
async def test_slash_filters_the_queue_live(tui_world: TuiWorld) -> None:
    seen = Recorder()
    async with settled_app(tui_world, (80, 24), message_hook=seen) as (app, pilot):
        await press(pilot, "slash")
        find = app.query_one("#queue-find", Input)
        assert find.display and app.focused is find
        await press(pilot, *"sso")
        await settle(pilot)
        assert queue_ids(app) == [FIRST, "req-demo-4e6c1a35"]
        assert [m.filter.text for m in seen.of(FilterChanged)] == ["s", "ss", "sso"]
        await fill(pilot, "#queue-find", "9.1")  # a clause number
        await settle(pilot)
        assert queue_ids(app) == [SECOND]
        await press(pilot, "enter")  # keep the filter, back to the table
        assert not find.display and app.focused is app.query_one(QueueTable)
        assert "“9.1”" in shown(app.query_one("#filter-summary"), 76, 1)
        await press(pilot, "slash", "escape")  # Escape in the box clears the text
        await settle(pilot)
        assert len(queue_ids(app)) == 6 and not find.display


@sync
async def test_filter_panel_changes_apply_at_once(tui_world: TuiWorld) -> None:
    seen = Recorder()
    async with settled_app(tui_world, (80, 24), message_hook=seen) as (app, pilot):
        await press(pilot, "f")
        assert isinstance(app.screen, FilterPanel)
        await press(pilot, "down", "right")  # risk: high → none was high at triage,
        await settle(pilot)  # the two citing 3.2 (disputed since) are high now (issue 12)
        assert seen.of(FilterChanged)[-1].filter.risk == "high"
        assert queue_ids(app) == [FIRST, "req-demo-4e6c1a35"]
        await press(pilot, "right", "down", "down", "right")  # risk medium; conf < 0.60
        await settle(pilot)
        assert seen.of(FilterChanged)[-1].filter == QueueFilter(risk="medium", band="low")
        await press(pilot, "x")  # reset in the panel
        await settle(pilot)
        assert seen.of(FilterChanged)[-1].filter == QueueFilter()
        await press(pilot, "down", "right", "right")  # from Confidence to Age: > 7 days
        await settle(pilot)
        assert queue_ids(app) == [FIRST]  # the only request with a date, 9 days old
        await press(pilot, "enter")
        await settle(pilot)
        assert not isinstance(app.screen, FilterPanel)
        assert "> 7 days old" in shown(app.query_one("#filter-summary"), 76, 1)
        await press(pilot, "z")  # the detail (hidden by default under 30 rows)
        await settle(pilot)
        # the case line (with the age) follows the verdict, the evidence and the
        # disputed strip (FIRST cites the disputed 3.2; issue 34 item 2)
        detail = " ".join(shown(app.query_one("#detail-body"), 76, 12).split())
        assert "(9d old)" in detail


# --- keymap and help (item 4) ---------------------------------------------------------------


@sync
async def test_keymap_from_the_config_file_remaps_by_binding_id(
    tui_world: TuiWorld, tmp_path: Path
) -> None:
    cfg = tmp_path / "config.yaml"
    cfg.write_text(
        "keymap:\n  approve: A\n  reject: ctrl+s\n  nonsense.id: z\nrefresh_seconds: 0\n",
        encoding="utf-8",
    )
    config = load_config(str(cfg))
    seen = Recorder()
    app = make_app(tui_world, config=config, poll_seconds=None)
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        assert app.poll_seconds == 0
        status = app.status_line
        assert status is not None  # config warnings: status line and messages view
        notes = " ".join(e[3] for e in status.entries if e[2] == "Config")
        assert "unknown binding id nonsense.id" in notes  # a warning, not a crash
        assert "ctrl+s" in notes and "reject" in notes  # refused, default kept
        await press(pilot, "a")  # the old key no longer approves
        await settle(pilot)
        assert not seen.of(RuleRequested)
        await press(pilot, "A")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmRuling) and app.screen.action == "approve"
        await press(pilot, "escape")
        await press(pilot, "r")  # reject kept its default key
        assert isinstance(app.screen, ConfirmRuling) and app.screen.action == "reject"
        await press(pilot, "escape")
        await settle(pilot)
        footer = " ".join(" ".join(shown(k, 30, 1).split()) for k in app.query("FooterKey"))
        assert "A Approve" in footer and "a Approve" not in footer
        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        # tall enough for every entry: the path is the help's last line
        body = " ".join(shown(app.screen.query_one("#help-body"), 96, 200).split())
        assert "A Approve" in body and "[approve *]" in body
        # the path is named; a long one (a deep temporary directory) wraps in the pane
        assert str(cfg) in "".join(body.split())


@sync
async def test_help_shows_the_keys_of_the_current_screen(tui_world: TuiWorld) -> None:
    async with settled_app(tui_world, (120, 40)) as (app, pilot):
        await press(pilot, "f1")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen) and help_screen.contexts == ["queue", "app"]
        body = " ".join(shown(help_screen.query_one("#help-body"), 96, 240).split())
        for piece in (
            "a Approve",
            "c Convert to CR",
            "r Reject",
            "/ Find",
            "f Filter",
            "Ctrl+P Palette",
            "? / F1 Help",
            "y Copy",
            "[filter.verdict]",
        ):
            assert piece in body, piece
        await press(pilot, "escape")
        await press(pilot, "2", "f1")
        assert isinstance(app.screen, HelpScreen) and app.screen.contexts[0] == "hafiza"
        await press(pilot, "f1")  # pressed again: closes
        await press(pilot, "1", "a", "f1")  # in the confirm dialog: its own help
        assert isinstance(app.screen, HelpScreen) and app.screen.contexts == ["confirm"]
        await press(pilot, "escape")
        assert isinstance(app.screen, ConfirmRuling)
        await press(pilot, "escape")
        await settle(pilot)
    assert tui_world.repo.case(FIRST).ruling is None


# --- command palette (item 5) -----------------------------------------------------------


@sync
async def test_palette_jumps_to_a_case_by_id_or_title_words(tui_world: TuiWorld) -> None:
    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        await press(pilot, "v", "v")  # a filter that hides the target
        await settle(pilot)
        await palette(pilot, "5f7d2b46")
        assert current(app) == "req-demo-5f7d2b46"
        assert app.query_one(QueuePane).filter == QueueFilter()  # cleared to show it
        await palette(pilot, "native android")  # title words
        assert current(app) == SECOND


@sync
async def test_palette_runs_actions_and_opens_ruled_cases(tui_world: TuiWorld) -> None:
    seen = Recorder()
    async with settled_app(tui_world, (80, 24), message_hook=seen) as (app, pilot):
        await press(pilot, "3")
        await settle(pilot)
        await palette(pilot, "approve")  # from Raporlar
        assert isinstance(app.screen, ConfirmRuling) and app.screen.case.case_id == FIRST
        assert app.query_one("#tabs").active == "queue"
        await press(pilot, "escape")
        await settle(pilot)
        await palette(pilot, "9b0f4d68")  # a ruled case
        [page] = [m for m in seen.of(PageLoaded) if m.history == "push"]
        assert page.path.endswith("req-demo-9b0f4d68.md") and page.error is None
        assert app.query_one("#tabs").active == "hafiza"
        assert app.screen.maximized is app.query_one("#memory-preview")


@sync
async def test_palette_switches_project(tui_world: TuiWorld) -> None:
    from etki.domain import Request

    tui_world.repo.save_project(tui_project("other"), "sha256:other", b"{}\n")
    tui_world.repo.add_cases(
        "other",
        [
            (
                Request("O1", "Other project request.", "Only case of the other project"),
                tui_decision(
                    "req-other-00000001", "IN_SCOPE", ("MSA-2024-01#3.2",), confidence=0.9
                ),
            )
        ],
    )
    seen = Recorder()
    async with settled_app(tui_world, (80, 24), message_hook=seen) as (app, pilot):
        assert [p for p, _ in app.projects] == ["demo", "other"]
        await palette(pilot, "switch other")
        [switched] = seen.of(ProjectSwitched)
        assert switched.project_id == "other" and app.project_id == "other"
        assert queue_ids(app) == ["req-other-00000001"]
        assert "(other)" in app.sub_title
        await press(pilot, "2")
        await settle(pilot)
        assert app.query_one(MemoryPane).precedents == []


# --- Hafıza reader (item 8) ------------------------------------------------------------------


@sync
async def test_search_highlights_turkish_words_in_list_and_page(tui_world: TuiWorld) -> None:
    """The hostile case (title '[bold]ACİL[/bold] fatura itirazı …') is ruled, so its
    decision page exists; searching 'acil ITIRAZI' (dotless/dotted i mixed) finds it and
    highlights 'ACİL' and 'itirazı' in the original spelling, in the list and the page."""
    approval_service(tui_world.repo, tui_world.settings).rule(HOSTILE, "approve", reviewer="ayse")
    async with settled_app(tui_world, (120, 40)) as (app, pilot):
        await press(pilot, "2", "slash")
        await fill(pilot, "#memory-search", "acil ITIRAZI")
        await press(pilot, "enter")
        await settle(pilot)
        pane = app.query_one(MemoryPane)
        assert pane.hits and pane.hits[0][0].endswith(f"{HOSTILE}.md")
        first = pane.query_one("#memory-list", OptionList).get_option("hit:0")
        prompt = first.prompt  # laid out by the search worker, as Textual content
        assert isinstance(prompt, Content)
        marked = {
            prompt.plain[sp.start : sp.end]
            for sp in prompt.spans
            if getattr(sp.style, "reverse", False)
        }
        assert marked & {"ACİL", "itirazı"}
        reader = pane.reader
        assert reader.path == pane.hits[0][0] and reader.matches >= 2
        from textual.widgets.markdown import MarkdownBlock

        found = set()
        for block in reader.query(MarkdownBlock):
            content = getattr(block, "_content", None)
            for span in getattr(content, "spans", []):
                if "reverse" in str(span.style):
                    found.add(content.plain[span.start : span.end])
        assert "ACİL" in found and "itirazı" in found


@sync
async def test_reader_toc_history_and_links(tui_world: TuiWorld) -> None:
    seen = Recorder()
    async with settled_app(tui_world, (80, 24), message_hook=seen) as (app, pilot):
        await press(pilot, "2")  # the list has focus, on the first precedent's card
        await settle(pilot)
        pane = app.query_one(MemoryPane)
        reader = pane.reader
        assert not reader.display and "PRECEDENT" in shown(pane.query_one("#memory-card"))
        await press(pilot, "enter")  # open its page: full-screen, contents hidden at 80
        await settle(pilot)
        assert not pane.reader.show_toc  # the body beside them would be 47 cells
        await press(pilot, "t")
        precedent = pane.precedent_page("req-demo-9b0f4d68")
        assert precedent is not None and reader.path == precedent
        assert app.screen.maximized is pane.query_one("#memory-preview")
        assert reader.show_toc and reader.history.entries == [(precedent, True)]
        toc = reader.query_one("#reader-toc")
        assert toc.display
        assert "Reason" in [name for _, name, _ in toc.table_of_contents]
        # follow the page's link to the decision file from the keyboard: l, Enter
        from textual.widgets import Markdown

        from etki_tui.screens.links import LinksScreen

        target = next(p for p in pane.pages if p.endswith("req-demo-9b0f4d68.md"))
        await press(pilot, "l")
        assert isinstance(app.screen, LinksScreen)
        assert target in [p for _, p in app.screen.links]
        for _ in range([p for _, p in app.screen.links].index(target)):
            await press(pilot, "down")
        await press(pilot, "enter")
        await settle(pilot)
        assert reader.path == target and reader.history.position() == "2/2"
        page = reader.query_one("#memory-page", Markdown)
        await press(pilot, "b")
        await settle(pilot)
        assert reader.path == precedent and reader.history.position() == "1/2"
        await press(pilot, "F")
        await settle(pilot)
        assert reader.path == target
        page.post_message(Markdown.LinkClicked(page, "https://evil.example/x"))
        await settle(pilot)
        assert reader.path == target  # never left the wiki
        assert any("outside the wiki" in n for n in seen.notes())
        await press(pilot, "t")  # the reviewer's choice sticks
        assert not reader.show_toc
        await press(pilot, "y")  # copies the page's path
        assert app.clipboard == str(tui_world.wiki / target)
        await press(pilot, "escape")
        assert app.screen.maximized is None


@sync
async def test_copy_sends_the_case_id(tui_world: TuiWorld) -> None:
    seen = Recorder()
    async with settled_app(tui_world, (80, 24), message_hook=seen) as (app, pilot):
        await press(pilot, "y")
        assert app.clipboard == FIRST
        [copied] = seen.of(Copied)
        assert copied.text == FIRST and copied.what == "case id"
        await press(pilot, "2")  # a precedent card: its case id
        await settle(pilot)
        await press(pilot, "y")
        assert app.clipboard == "req-demo-9b0f4d68"


# --- small terminals, errors, quiet background (items 10, 11) -----------------------------


@sync
async def test_too_small_terminal_shows_a_notice_and_blocks_keys(tui_world: TuiWorld) -> None:
    seen = Recorder()
    async with settled_app(tui_world, (70, 20), message_hook=seen) as (app, pilot):
        assert isinstance(app.screen, TooSmallScreen)
        assert "70×20" in " ".join(shown(app.screen.query_one("#too-small-body"), 60, 8).split())
        await press(pilot, "a", "2", "ctrl+p")  # nothing happens behind the notice
        await settle(pilot)
        assert isinstance(app.screen, TooSmallScreen) and not seen.of(RuleRequested)
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert not isinstance(app.screen, TooSmallScreen)
        await pilot.resize_terminal(80, 23)
        await settle(pilot)
        assert isinstance(app.screen, TooSmallScreen)


@sync
async def test_service_errors_become_toasts_with_advice(tui_world: TuiWorld) -> None:
    from sqlalchemy.exc import OperationalError

    def broken(*_: object, **__: object) -> None:
        raise OperationalError("SELECT 1", {}, Exception("database is locked"))

    seen = Recorder()
    app = make_app(tui_world)
    tui_world.desk.queue_summaries = broken  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        [failed] = seen.of(DeskFailed)
        assert "database is locked" in failed.message and "ETKI_DB_URL" in failed.advice
        assert any("Ctrl+R" in n for n in seen.notes())
        assert app.is_running and not app.query_one(QueueTable).loading


@sync
async def test_an_approver_removed_meanwhile_is_refused_in_a_modal(tui_world: TuiWorld) -> None:
    """The desk opened for an approver; another approver then makes them a viewer
    (``etki init --update-reviewers``). Their next ruling is refused by the
    ApprovalService in a modal, nothing is stored, and the desk turns read-only. (A
    viewer from the start never gets this far: tests/test_tui_keys.py.)"""
    from dataclasses import replace as dc_replace

    from etki.domain import Reviewer

    seen = Recorder()
    async with settled_app(tui_world, (80, 24), message_hook=seen) as (app, pilot):
        assert app.seat is not None and app.seat.may_rule
        project = tui_project()
        demoted = dc_replace(
            project,
            config=dc_replace(
                project.config, reviewers=(Reviewer("ayse"), Reviewer("reviewer", "viewer"))
            ),
        )
        tui_world.repo.save_project(
            demoted, "sha256:tui", b"{}\n", update_reviewers=True, actor="ayse"
        )
        await press(pilot, "a", "enter")  # agrees with the engine: Enter rules
        await settle(pilot)
        [failed] = seen.of(RulingFailed)
        assert failed.error == "PermissionDeniedError" and "approver" in failed.advice
        assert isinstance(app.screen, NoticeModal) and app.screen.id == "refused"
        await press(pilot, "enter")
        await settle(pilot)
        assert app.is_running
        assert app.seat is not None and not app.seat.may_rule  # reloaded after the refusal
        # 24 rows: READ-ONLY leads the header (the banner has its lines from 30 rows)
        assert app.read_only_in_header and not app.query_one("#readonly-banner").display
    assert tui_world.repo.case(FIRST).ruling is None


@sync
async def test_background_work_never_prints(
    tui_world: TuiWorld, capfd: pytest.CaptureFixture[str]
) -> None:
    """Log records and warnings from worker threads go to Textual's log while the desk
    runs, never to the terminal (they would tear the screen)."""
    import logging
    import warnings as warnings_module

    from etki_tui.__main__ import quiet_logging

    def noisy(*args: object, **kwargs: object) -> object:
        logging.getLogger("etki.wiki").warning("LOUD-LOG from a worker")
        logging.getLogger("sqlalchemy.engine").error("LOUD-LIB from a worker")
        warnings_module.warn("LOUD-WARNING from a worker", stacklevel=1)
        return original(*args, **kwargs)

    original = tui_world.desk.report
    tui_world.desk.report = noisy  # type: ignore[method-assign]
    app = make_app(tui_world)
    capfd.readouterr()
    with quiet_logging():
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await press(pilot, "3")
            await settle(pilot)
            assert app.query_one(ReportsPane).report is not None
    out, err = capfd.readouterr()
    assert "LOUD" not in out and "LOUD" not in err
    assert logging.getLogger("etki").handlers == []  # restored afterwards


@sync
async def test_live_refresh_failures_are_said_once_and_recover(tui_world: TuiWorld) -> None:
    from sqlalchemy.exc import OperationalError

    seen = Recorder()
    app = make_app(tui_world)
    real = tui_world.desk.versions
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)

        def down(*_: object) -> dict[str, int]:
            raise OperationalError("SELECT", {}, Exception("server closed the connection"))

        tui_world.desk.versions = down  # type: ignore[method-assign]
        for _ in range(3):  # three failed polls, one toast
            app.poll_queue()
            await settle(pilot)
        assert sum("Live refresh paused" in m.notification.title for m in seen.of(Notify)) == 1
        assert app.is_running and len(queue_ids(app)) == 6
        tui_world.desk.versions = real  # type: ignore[method-assign]
        app.poll_queue()
        await settle(pilot)
        assert any("Live refresh is back" in n for n in seen.notes())
