"""Two findings of the PMO trial of issue 35, driven with Textual's Pilot on the real
SQLite fixture project (nothing waits on time, tests/test_tui_pilot.py):

* an archived project opened with ``--project`` says so (header and banner, with how to
  unarchive it) and is read-only for every seat: the footer offers no ruling key, a
  ruling or note key says the project is archived and opens nothing;
* an estimate recorded with ``E`` shows in the detail pane (and the full-screen read) at
  once, and stays after moving away and back: an estimate keeps the case's version, so
  the pane reads the case again rather than keeping its copy.
"""

from __future__ import annotations

from textual.widgets import Footer

from etki_tui.header import StatusLine
from etki_tui.queue.bars import CaseDetail
from etki_tui.screens.confirm import ConfirmRuling
from etki_tui.screens.estimate import EstimateForm
from etki_tui.screens.note import NoteForm
from tests.conftest import TuiWorld
from tests.test_tui_keys import header
from tests.test_tui_pilot import (
    Recorder,
    current,
    fill,
    make_app,
    press,
    settle,
    shown,
    sync,
    until,
)


def _detail(app) -> str:  # noqa: ANN001
    """The detail pane's text, its lines joined (a long Effort line wraps)."""
    body = app.query_one(CaseDetail).query_one("#detail-body")
    return " ".join(shown(body).split())


@sync
async def test_an_archived_project_says_so_and_takes_no_writes(tui_world: TuiWorld) -> None:
    pid = tui_world.project_id
    tui_world.desk.archive_project(pid, "Sözleşme bitti")
    seen = Recorder()
    app = make_app(tui_world)  # the reviewer is an approver of the project
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        assert "ARCHIVED" in header(app)
        # 24 rows: no banner over the list (issue 34: 15 rows at 80x24); the header says
        # ARCHIVED and the status line why and how to undo it (the messages view keeps it)
        banner = app.query_one("#readonly-banner")
        assert not banner.display
        status = app.query_one(StatusLine)
        [(_, _, _, why)] = [e for e in status.entries if e[2] == "READ-ONLY"]
        assert f"Project {pid} is archived: read-only" in why
        assert f"etki project unarchive {pid}, then Ctrl+R" in why
        # from 30 rows the banner has its two lines again
        await pilot.resize_terminal(80, 30)
        await until(pilot, lambda: banner.display, "the banner")
        await settle(pilot)
        assert banner.size.height <= 2  # two lines at 80 columns
        said = " ".join(shown(banner).replace("█", " ").split())
        assert said.startswith(f"ARCHIVED Project {pid} is archived: read-only")
        assert f"etki project unarchive {pid}, then Ctrl+R" in said
        await pilot.resize_terminal(80, 24)
        await until(pilot, lambda: not banner.display, "the banner folded away")
        for key in ("a", "c", "r", "B"):  # no ruling key offered to anyone
            assert key not in app.screen.active_bindings
        footer = shown(app.query_one(Footer))
        assert "Approve" not in footer and "Reject" not in footer
        case_id = current(app)
        assert case_id is not None
        await press(pilot, "a")
        assert not isinstance(app.screen, ConfirmRuling)
        [toast] = [n for n in seen.notes() if n.startswith(f"Project {pid} is archived")]
        assert f"a ruling of {case_id}" in toast and f"etki project unarchive {pid}" in toast
        assert "Correct the input" not in " ".join(seen.notes())
        seen.clear()
        for key, form, what in (("m", NoteForm, "a note"), ("E", EstimateForm, "an estimate")):
            await press(pilot, key)
            assert not isinstance(app.screen, form)
            assert any(
                n.startswith(f"Project {pid} is archived") and what in n for n in seen.notes()
            )
        # unarchived elsewhere: Ctrl+R reads the seat again, and the desk rules again
        tui_world.desk.archive_project(pid, archived=False)
        await press(pilot, "ctrl+r")
        await until(pilot, lambda: not app.archived, "the seat read again")
        assert "ARCHIVED" not in header(app) and not banner.display
        assert "a" in app.screen.active_bindings
    assert tui_world.repo.case(case_id).ruling is None


@sync
async def test_an_estimate_shows_in_the_detail_at_once(tui_world: TuiWorld) -> None:
    seen = Recorder()
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await settle(pilot)
        case_id = current(app)
        assert case_id is not None
        assert "Effort 1–3 person-days" in _detail(app)  # the engine's range
        assert "reviewer's estimate" not in _detail(app)
        await press(pilot, "E")
        assert isinstance(app.screen, EstimateForm)
        await fill(pilot, "#estimate-days", "2,5")
        await fill(pilot, "#estimate-price", "12500 EUR")
        await fill(pilot, "#estimate-reason", "İki geliştirici, Jürgen Weiß")
        await press(pilot, "enter")
        await until(pilot, lambda: any("recorded" in n for n in seen.notes()), "stored")
        now = "Effort 2.5 days, 12,500.00 EUR (reviewer's estimate by reviewer at"
        await until(pilot, lambda: now in _detail(app), "the new estimate")
        assert "engine estimate: 1–3 person-days" in _detail(app)
        await press(pilot, "down", "up")  # away and back: still the estimate
        assert current(app) == case_id and now in _detail(app)
        await press(pilot, "enter")  # the full-screen read shows the same pane
        assert app.screen.maximized is app.query_one(CaseDetail) and now in _detail(app)
