"""``A`` on the desk amends a ruling, and the detail pane lists the case's history (issue
14 items 2 and 3), driven with Pilot on a real SQLite file and a real wiki folder."""

from __future__ import annotations

from rich.console import Console
from textual.widgets import Input, Label

from etki.wiki.projection import WikiProjector
from etki_tui.messages import AmendRequested, CaseEventDone, HistoryLoaded, RulingCommitted
from etki_tui.queue.bars import CaseDetail
from etki_tui.queue.pane import QueuePane
from etki_tui.screens.confirm import ConfirmRuling
from etki_tui.screens.links import LinksScreen
from etki_tui.screens.note import NoteForm
from tests.conftest import TuiWorld
from tests.test_tui_pilot import (
    FIRST,
    SECOND,
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

REJECTED = "req-demo-9b0f4d68"  # ruled REJECT by jurgen: an override, a precedent


def _text(renderable: object, width: int = 100) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


@sync
async def test_amend_picks_a_ruled_case_and_needs_a_reason(tui_world: TuiWorld) -> None:
    seen = Recorder()
    app = make_app(tui_world, view_delay=0)
    async with app.run_test(size=(100, 30), message_hook=seen) as pilot:
        await settle(pilot)
        await press(pilot, "A")
        picker = app.screen
        assert isinstance(picker, LinksScreen) and picker.title_text == "Amend which ruling?"
        assert [target for _, target in picker.links] == [REJECTED, "req-demo-8a9e3c57"]
        assert "REJECT by jurgen" in picker.links[0][0]
        await press(pilot, "enter")  # the newest ruling first: REJECTED
        [asked] = seen.of(AmendRequested)
        assert asked.case.case_id == REJECTED
        rulings = app.screen
        assert isinstance(rulings, LinksScreen)
        assert [t for _, t in rulings.links] == ["approve", "convert_to_cr", "reject"]
        await press(pilot, "enter")  # Approve → IN_SCOPE
        dialog = app.screen
        assert isinstance(dialog, ConfirmRuling) and dialog.amend and dialog.needs_reason
        assert dialog.query_one("#confirm-dialog").border_title == "Amend ruling"
        lines = " ".join(
            " ".join(shown(w).split()) for w in dialog.query(".confirm-line").results()
        )
        assert "Ruled now" in lines and "REJECT" in lines and "jurgen" in lines
        assert "AMENDMENT — a reason is required" in lines
        assert app.focused is dialog.query_one("#confirm-reason", Input)
        await press(pilot, "enter", "enter")  # to the button, then an empty reason
        error = str(dialog.query_one("#confirm-error", Label).render())
        assert "A reason is required" in error
        assert isinstance(app.screen, ConfirmRuling)
        await fill(pilot, "#confirm-reason", "The client showed 3.2 covers contractors.")
        await press(pilot, "enter", "enter")
        await until(pilot, lambda: seen.of(RulingCommitted), "the amendment committed")
        await settle(pilot)
        [done] = seen.of(RulingCommitted)
        assert done.amended and done.outcome.ruling.ruling == "IN_SCOPE"
        assert any("Amended" in n and REJECTED in n for n in seen.notes())
    case = tui_world.repo.case(REJECTED)
    assert case.ruling is not None and case.ruling.ruling == "IN_SCOPE"
    assert case.ruling.reason == "The client showed 3.2 covers contractors."
    assert [r.ruling for r in case.ruling_history] == ["REJECT", "IN_SCOPE"]
    assert not list((tui_world.wiki / "precedents").glob("*.md"))  # no override left
    assert WikiProjector(tui_world.repo, tui_world.settings).verify("demo") == []


@sync
async def test_escape_in_the_amend_dialog_records_nothing(tui_world: TuiWorld) -> None:
    seen = Recorder()
    app = make_app(tui_world, view_delay=0)
    async with app.run_test(size=(100, 30), message_hook=seen) as pilot:
        await settle(pilot)
        await press(pilot, "A", "enter", "down", "down", "enter")  # REJECTED → Reject
        dialog = app.screen
        assert isinstance(dialog, ConfirmRuling) and dialog.amend
        await fill(pilot, "#confirm-reason", "only the reason changes")
        await press(pilot, "escape")
        assert not isinstance(app.screen, ConfirmRuling)
        assert not seen.of(RulingCommitted)
    assert tui_world.repo.case(REJECTED).version == 2


@sync
async def test_the_detail_pane_lists_the_history_and_writes_the_view(
    tui_world: TuiWorld,
) -> None:
    seen = Recorder()
    app = make_app(tui_world, view_delay=0)
    async with app.run_test(size=(100, 30), message_hook=seen) as pilot:
        await settle(pilot)
        assert current(app) == FIRST
        await until(
            pilot,
            lambda: FIRST in app.query_one(QueuePane).histories,
            "the history of the highlighted case",
        )
        await settle(pilot)
        events = app.query_one(QueuePane).histories[FIRST]
        assert [e.kind for e in events] == ["imported", "triaged", "viewed"]
        assert events[-1].actor == "reviewer"
        text = _text(app.query_one(CaseDetail)._shown)
        history = text.split("History", 1)[1]
        assert "imported" in history and "triaged — engine test: IN_SCOPE" in history
        assert "viewed by reviewer" in history
        # moving away and back within the hour writes no second view
        await press(pilot, "down", "up")
        await settle(pilot)
        assert len(seen.of(HistoryLoaded)) >= 2
    views = [e for e in tui_world.repo.case_history(FIRST) if e.kind == "viewed"]
    assert len(views) == 1


@sync
async def test_m_adds_a_note_to_the_highlighted_case(tui_world: TuiWorld) -> None:
    seen = Recorder()
    app = make_app(tui_world, view_delay=0)
    async with app.run_test(size=(100, 30), message_hook=seen) as pilot:
        await settle(pilot)
        assert current(app) == FIRST
        await press(pilot, "m")
        form = app.screen
        assert isinstance(form, NoteForm) and app.focused is form.query_one("#note-text")
        await press(pilot, "enter")  # empty: refused in the form
        assert isinstance(app.screen, NoteForm)
        assert "empty" in str(form.query_one("#note-error", Label).render())
        await fill(pilot, "#note-text", "Called Ayşe: the loop is [bold]only[/bold] on Edge")
        await press(pilot, "enter")
        await until(pilot, lambda: seen.of(CaseEventDone), "the note stored")
        await settle(pilot)
        [done] = seen.of(CaseEventDone)
        assert done.error is None and done.what == "note"
        await until(
            pilot,
            lambda: any(
                e.kind == "note" for e in app.query_one(QueuePane).histories.get(FIRST, [])
            ),
            "the history with the note",
        )
        text = _text(app.query_one(CaseDetail)._shown)
        assert "note by reviewer — Called Ayşe: the loop is [bold]only[/bold] on Edge" in text
        await press(pilot, "m", "escape")  # Escape stores nothing
        assert len(seen.of(CaseEventDone)) == 1
    [note] = tui_world.repo.case(FIRST).notes
    assert note.actor == "reviewer" and note.text.startswith("Called Ayşe")


@sync
async def test_x_claims_and_releases_and_others_claims_show_in_the_queue(
    tui_world: TuiWorld,
) -> None:
    seen = Recorder()
    app = make_app(tui_world, view_delay=0)
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        await settle(pilot)
        await press(pilot, "x")
        await until(pilot, lambda: seen.of(CaseEventDone), "the claim stored")
        await settle(pilot)
        claims = tui_world.repo.live_claims("demo")
        assert claims[FIRST].actor == "reviewer"
        pane = app.query_one(QueuePane)
        assert not pane._cells[FIRST][0].plain.startswith("@")  # one's own: not marked
        # another reviewer claims the second case; the live refresh shows it
        tui_world.repo.claim(SECOND, "ayse", 30)
        app.poll_queue()
        await settle(pilot)
        # a mark before the id (issue 34 item 1); the title stays whole
        assert pane._cells[SECOND][0].plain.startswith("@ ")
        assert not pane._cells[SECOND][1].plain.startswith("claimed by")
        await press(pilot, "x")  # on FIRST again: released
        await until(pilot, lambda: len(seen.of(CaseEventDone)) == 2, "the release stored")
        await settle(pilot)
        assert seen.of(CaseEventDone)[-1].what == "release"
    claims = tui_world.repo.live_claims("demo")
    assert FIRST not in claims and claims[SECOND].actor == "ayse"


@sync
async def test_ruling_a_case_another_reviewer_claimed_warns_and_starts_on_cancel(
    tui_world: TuiWorld,
) -> None:
    """Trial finding: a claim shown in the queue did not reach the ruling. The dialog
    says whose claim it is and starts on Cancel (Enter does not rule); y still rules,
    since a claim is a courtesy, not a lock."""
    tui_world.repo.claim(FIRST, "ayse", 30)
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "a")  # FIRST agrees with IN_SCOPE: no reason needed
        dialog = app.screen
        assert isinstance(dialog, ConfirmRuling)
        assert dialog.claimed_by is not None and dialog.claimed_by[0] == "ayse"
        text = dialog.query_one("#confirm-claimed").render()
        assert "CLAIMED by ayse until" in str(text)
        assert app.focused is not None and app.focused.id == "confirm-cancel"
        await press(pilot, "enter")  # Cancel: nothing ruled
        assert not isinstance(app.screen, ConfirmRuling)
        assert tui_world.repo.case(FIRST).ruling is None
        await press(pilot, "a", "y")  # y rules anyway
        await settle(pilot)
    ruling = tui_world.repo.case(FIRST).ruling
    assert ruling is not None and ruling.ruling == "IN_SCOPE"
