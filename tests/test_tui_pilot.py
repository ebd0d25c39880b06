"""Behaviour of the reviewer desk, driven with Textual's Pilot at 80x24 on a real SQLite
file and a real wiki folder (tests/conftest.py builds the project; nothing is mocked).

Each test watches the typed messages the workers post (``message_hook``) and checks the
database and the wiki afterwards.
"""

from __future__ import annotations

import asyncio
import functools
import re
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.geometry import Region
from textual.message import Message
from textual.notifications import Notify
from textual.pilot import Pilot
from textual.widgets import Input, Label, OptionList

from etki.approval import ApprovalService
from etki_tui.app import EtkiApp, main
from etki_tui.messages import RulingCommitted, RulingConflict, SearchResults
from etki_tui.screens.confirm import ConfirmRuling
from etki_tui.widgets.memory import MemoryPane
from etki_tui.widgets.queue import CaseDetail, QueuePane, QueueTable
from etki_tui.widgets.reports import ReportsPane
from tests.conftest import TuiWorld, build_tui_world

FIRST = "req-demo-0a1f3c21"  # IN_SCOPE, cites the disputed clause 3.2
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

    def of(self, kind: type[Message]) -> list[Message]:
        return [m for m in self.messages if isinstance(m, kind)]

    def notes(self) -> list[str]:
        return [m.notification.message for m in self.of(Notify)]  # type: ignore[attr-defined]


def make_app(world: TuiWorld, **kwargs: object) -> EtkiApp:
    options: dict[str, object] = {"cursor_blink": False, "search_delay": 0}
    options.update(kwargs)
    return EtkiApp(world.desk, world.project_id, **options)  # type: ignore[arg-type]


async def settle(pilot: Pilot) -> None:
    """Let workers finish and their messages be handled (twice: handlers may start more)."""
    for _ in range(2):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


def queue_ids(app: EtkiApp) -> list[str]:
    table = app.query_one(QueueTable)
    return [row.key.value for row in table.ordered_rows]  # type: ignore[misc]


def current(app: EtkiApp) -> str | None:
    return app.query_one(QueuePane).current_case_id()


async def goto(pilot: Pilot, case_id: str) -> None:
    app = pilot.app
    while current(app) != case_id:  # type: ignore[arg-type]
        await pilot.press("down")


def decision_files(world: TuiWorld, case_id: str) -> list[Path]:
    return sorted((world.wiki / "decisions").glob(f"*{case_id}.md"))


@sync
async def test_approve_commits_and_writes_the_decision_file(tui_world: TuiWorld) -> None:
    seen = Recorder()
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        assert current(app) == FIRST
        await pilot.press("a")
        assert isinstance(app.screen, ConfirmRuling)
        assert app.focused is not None and app.focused.id == "confirm-cancel"
        await pilot.press("tab", "enter")  # Tab to Confirm, press it
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmRuling)
        [done] = seen.of(RulingCommitted)
        assert done.case_id == FIRST and done.outcome.ruling.ruling == "IN_SCOPE"  # type: ignore[attr-defined]
        assert FIRST not in queue_ids(app)
        assert current(app) == "req-demo-1b7e9d02"  # the next case, same position
        assert any("Approved" in n and FIRST in n for n in seen.notes())
    ruling = tui_world.repo.case(FIRST).ruling
    assert ruling is not None and ruling.ruling == "IN_SCOPE" and ruling.reviewer == "reviewer"
    [page] = decision_files(tui_world, FIRST)
    assert FIRST in page.read_text(encoding="utf-8")


@pytest.mark.parametrize(("key", "ruling"), [("c", "CHANGE_REQUEST"), ("r", "REJECT")],
                         ids=["convert", "reject"])
@sync
async def test_override_needs_a_reason(tui_world: TuiWorld, key: str, ruling: str) -> None:
    seen = Recorder()
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        await pilot.press(key)
        modal = app.screen
        assert isinstance(modal, ConfirmRuling) and modal.is_override
        await pilot.press("tab", "enter")  # Confirm with an empty reason: refused
        await settle(pilot)
        assert app.screen is modal
        error = str(modal.query_one("#confirm-error", Label).content)
        assert "reason is required" in error
        assert app.focused is modal.query_one("#confirm-reason", Input)
        assert tui_world.repo.case(FIRST).ruling is None
        await pilot.press(*"Contractor staff only")
        await pilot.press("enter")  # Enter in the reason box goes to Confirm ...
        assert app.screen is modal and app.focused is not None
        assert app.focused.id == "confirm-ok"
        await pilot.press("enter")  # ... and Enter there rules
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
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        before = queue_ids(app)
        await pilot.press("a", "enter")  # focus starts on Cancel: Enter cancels
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmRuling)
        await pilot.press("r", "shift+tab", *"because", "escape")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmRuling)
        await pilot.press("c", "tab", "escape")  # Escape even with Confirm focused
        await settle(pilot)
        assert queue_ids(app) == before
        assert not seen.of(RulingCommitted)
    assert all(c.ruling is None for c in tui_world.desk.queue("demo"))
    assert len(tui_world.desk.queue("demo")) == 6
    assert not decision_files(tui_world, FIRST)


@sync
async def test_the_queue_updates_in_place(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        before = queue_ids(app)
        target = before[2]  # a CHANGE_REQUEST verdict: converting agrees, no reason
        await goto(pilot, target)
        table = app.query_one(QueueTable)
        rows_before = {k: table.get_row(k) for k in before if k != target}
        await pilot.press("c", "tab", "enter")
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
    seen = Recorder()
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        assert current(app) == FIRST
        # another reviewer rules the highlighted case behind the app's back
        ApprovalService(tui_world.repo, tui_world.settings).rule(
            FIRST, "reject", reason="out of remit", reviewer="ayse")
        await pilot.press("a", "tab", "enter")
        await settle(pilot)
        [conflict] = seen.of(RulingConflict)
        assert conflict.ruled_by == "ayse" and conflict.ruling == "REJECT"  # type: ignore[attr-defined]
        assert not seen.of(RulingCommitted)
        note = " ".join(seen.notes())
        assert "already ruled" in note and "ayse" in note and "reloaded" in note
        assert FIRST not in queue_ids(app)  # the reload took the ruled case out
        assert app.is_running
    ruling = tui_world.repo.case(FIRST).ruling
    assert ruling is not None and ruling.ruling == "REJECT" and ruling.reviewer == "ayse"
    assert len(tui_world.repo.audit_log(FIRST)) >= 1


def _segments(widget, width: int, height: int):  # noqa: ANN001, ANN202
    for strip in widget.render_lines(Region(0, 0, width, height)):
        yield from strip


@sync
async def test_client_markup_and_escapes_are_shown_literally(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await goto(pilot, HOSTILE)
        await pilot.pause()
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
        await pilot.press("a")  # the confirm modal shows the title literally too
        assert isinstance(app.screen, ConfirmRuling)
        title = app.screen.query_one("#confirm-title")
        shown = "".join(s.text for s in _segments(title, title.size.width, title.size.height))
        assert "[@click=app.quit]x[/]" in shown and "\x1b" not in shown
        await pilot.press("escape")
        assert app.is_running
    assert tui_world.repo.case(HOSTILE).ruling is None


@sync
async def test_wide_characters_keep_cells_one_line(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.query_one(QueueTable)
        from rich.cells import cell_len

        cell = table.get_cell("req-demo-4e6c1a35", "title")
        assert isinstance(cell, Text)
        assert cell.plain.endswith("…") and "\n" not in cell.plain
        assert cell_len(cell.plain) <= app.query_one(QueuePane)._title_width
        assert "\U0001f1f9" not in cell.plain or "🇹🇷" in cell.plain  # no half flag


@sync
async def test_hafiza_live_search_is_debounced(tui_world: TuiWorld) -> None:
    seen = Recorder()
    app = make_app(tui_world, search_delay=0.2)
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        assert app.focused is app.query_one("#memory-search", Input)
        await pilot.press(*"contractor")
        await pilot.pause(0.5)
        await settle(pilot)
        results = seen.of(SearchResults)
        assert [r.query for r in results] == ["contractor"]  # type: ignore[attr-defined]
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
            await pilot.press("2")
            await settle(pilot)
            pane = app.query_one(MemoryPane)
            assert [c.case_id for c in pane.precedents] == ["req-demo-9b0f4d68"]
            assert [d.ref for d in pane.disputed] == ["MSA-2024-01#3.2"]
            assert pane.pages == [] and not pane.wiki_on
            await pilot.press(*"contractor")
            await settle(pilot)
            assert pane.hits == []
            await pilot.press("tab")  # to the list; the first precedent is previewed
            await settle(pilot)
            card = pane.query_one("#memory-card")
            shown = "".join(s.text for s in _segments(card, card.size.width, 6))
            assert "PRECEDENT" in shown and "req-demo-9b0f4d68" in shown
            # rule a case: the ruling commits with the wiki off
            await pilot.press("1")
            await settle(pilot)
            await pilot.press("a", "tab", "enter")
            await settle(pilot)
        assert world.repo.case(FIRST).ruling is not None
        assert not any(tmp_path.glob("wiki*"))
    finally:
        world.repo.dispose()


@sync
async def test_raporlar_refreshes_after_a_ruling(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        reports = app.query_one(ReportsPane)
        assert reports.report is not None and reports.report.ruled == 2
        await pilot.press("1")
        await settle(pilot)
        await pilot.press("a", "tab", "enter")
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        assert reports.report.ruled == 3 and reports.report.pending == 5


@sync
async def test_enter_reads_the_case_full_screen(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        detail = app.query_one(CaseDetail)
        assert app.screen.maximized is detail and app.focused is detail
        await pilot.press("escape")
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


@pytest.mark.parametrize("argv", [["--project", "nope"], [str(Path("/nonexistent/folder"))],
                                  ["--bogus"]], ids=["unknown-project", "no-folder", "bad-flag"])
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
    from etki_tui.app import choose_project

    settings = Settings(db_url=f"sqlite:///{tmp_path}/etki.db",
                        wiki_dir=str(tmp_path / "wiki-{project}"), reviewer="reviewer")
    desk = Desk(settings)
    project_id, summary = choose_project(desk, str(SAMPLE), None)
    assert summary is not None and summary.new_cases > 0
    again, second = choose_project(desk, str(SAMPLE), None)
    assert again == project_id and second is not None and second.new_cases == 0
    assert choose_project(desk, None, None) == (project_id, None)
    seen = Recorder()
    app = EtkiApp(desk, project_id, init_summary=summary, cursor_blink=False, search_delay=0)
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        ids = queue_ids(app)
        assert len(ids) == summary.new_cases
        first = current(app)
        case = desk.case(first)  # type: ignore[arg-type]
        if case.decision.verdict == "IN_SCOPE":
            await pilot.press("a", "tab", "enter")  # Cancel -> Confirm, press
        else:  # an override: Cancel -> reason box, type, Enter -> Confirm, press
            await pilot.press("a", "shift+tab", *"sample check", "enter", "enter")
        await settle(pilot)
        assert seen.of(RulingCommitted) and first not in queue_ids(app)
    assert desk.case(first).ruling is not None  # type: ignore[arg-type,union-attr]
    assert list((tmp_path / f"wiki-{project_id}" / "decisions").glob(f"*{first}.md"))
    desk.repo.dispose()
