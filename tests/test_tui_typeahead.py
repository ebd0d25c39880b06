"""Keys typed right after a key that opens a form land in the form (issue 34 item 5).

A trial typed ``n`` and the title in one go (tmux ``send-keys``, one SSH packet): the
form's title stayed empty and the title's ``i`` opened the import form, because ``n``
only asked the app for the form (a message) and the letters after it had already been
handed to the queue's table as commands. The queue's keys that open a form or dialog
now run as the app receives them, and the keys that arrive before the form has its
focus are held and typed into it once it has (:mod:`etki_tui.typeahead`).

Every test sends the opening key and the text in one burst (:func:`burst`: every key
handed to the app before it handles any, as a terminal's one read of many bytes), at
80x24 on the sample project, and asserts the exact text in the form's box and that
nothing happened in the queue (no other form, the filter unchanged). Waits are for a
state, never for time.
"""

from __future__ import annotations

import pytest
from textual.widgets import Input, TextArea

from etki.memory import disputed_refs
from etki_tui.app import EtkiApp
from etki_tui.queue.pane import QueuePane
from etki_tui.screens.confirm import ConfirmRuling
from etki_tui.screens.estimate import EstimateForm
from etki_tui.screens.import_file import ImportForm
from etki_tui.screens.new_request import NewRequestForm
from etki_tui.screens.note import NoteForm
from tests.conftest import TuiWorld
from tests.test_tui_burst import burst
from tests.test_tui_desk34d import footer_visible
from tests.test_tui_pilot import current, make_app, queue_ids, settle, sync

SIZES = [(80, 24), (120, 40)]

TITLE = "Kiosk kurulumu: İstanbul şubesi için ğüöçİı"
"""Turkish letters, and the letters of queue keys (i imports, n adds, r rejects,
s lists similar cases, u, k moves up...) that must all be text here."""


def _stack(app: EtkiApp) -> list[str]:
    return [type(s).__name__ for s in app.screen_stack]


def _queue_unchanged(app: EtkiApp, before: list[str], filter_before: object) -> None:
    pane = app.query_one(QueuePane)
    assert pane.filter == filter_before
    assert queue_ids(app) == before


@sync
async def test_n_then_the_title_in_one_burst(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        ids, filt = queue_ids(app), app.query_one(QueuePane).filter
        await burst(pilot, ("n", *TITLE))
        form = app.screen
        assert isinstance(form, NewRequestForm), _stack(app)
        assert form.query_one("#intake-title", Input).value == TITLE
        assert _stack(app) == ["Screen", "NewRequestForm"]  # no import form under it
        await burst(pilot, ("tab", *"Şube için"))
        await burst(pilot, ("escape",))
        await burst(pilot, ("d",))  # discard, back to the queue
        assert _stack(app) == ["Screen"]
        _queue_unchanged(app, ids, filt)


@sync
async def test_n_title_tab_text_in_one_burst(tui_world: TuiWorld) -> None:
    """The whole form in one burst from the queue: each box gets its own text."""
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await burst(pilot, ("n", *"Kiosk", "tab", *"Jürgen Weiß wants it", "tab", *"Ayşe"))
        form = app.screen
        assert isinstance(form, NewRequestForm), _stack(app)
        assert form.query_one("#intake-title", Input).value == "Kiosk"
        assert form.query_one("#intake-text", TextArea).text == "Jürgen Weiß wants it"
        assert form.query_one("#intake-by", Input).value.endswith("Ayşe")


@sync
async def test_override_reason_right_after_the_ruling_key(tui_world: TuiWorld) -> None:
    """``r`` on a case the engine did not reject opens the override dialog: the reason
    typed in the same burst is in its reason box, and no key reached the queue."""
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        ids, filt = queue_ids(app), app.query_one(QueuePane).filter
        reason = "Nicht im Umfang: İş kapsamı dışı, sözleşme 4.2"
        await burst(pilot, ("r", *reason))
        dialog = app.screen
        assert isinstance(dialog, ConfirmRuling) and dialog.is_override, _stack(app)
        assert dialog.query_one("#confirm-reason", Input).value == reason
        assert _stack(app) == ["Screen", "ConfirmRuling"]
        await burst(pilot, ("escape",))
        assert _stack(app) == ["Screen"]
        _queue_unchanged(app, ids, filt)
        assert tui_world.repo.case(ids[0]).ruling is None


@sync
async def test_estimate_figures_right_after_e(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await burst(pilot, ("E", *"2,5", "tab", *"12500 EUR"))
        form = app.screen
        assert isinstance(form, EstimateForm), _stack(app)
        assert form.query_one("#estimate-days", Input).value == "2,5"
        assert form.query_one("#estimate-price", Input).value == "12500 EUR"


@sync
async def test_note_right_after_m(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await burst(pilot, ("m", *"Müşteri aradı, iki ekran istiyor"))
        form = app.screen
        assert isinstance(form, NoteForm), _stack(app)
        assert form.query_one("#note-text", Input).value == "Müşteri aradı, iki ekran istiyor"


@sync
async def test_import_path_right_after_i(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await burst(pilot, ("i", *"~/İndirilenler/istekler.csv"))
        form = app.screen
        assert isinstance(form, ImportForm), _stack(app)
        assert form.query_one("#import-path", Input).value.endswith("~/İndirilenler/istekler.csv")


@sync
async def test_find_right_after_slash(tui_world: TuiWorld) -> None:
    """``/`` and the words in one burst: all in the find box, none a queue key."""
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await burst(pilot, ("slash", *"sso 4.2 kiosk"))
        find = app.query_one("#queue-find", Input)
        assert app.focused is find and find.value == "sso 4.2 kiosk"
        assert _stack(app) == ["Screen"]
        assert app.query_one(QueuePane).filter.text == "sso 4.2 kiosk"


@sync
async def test_keys_after_a_form_that_does_not_open_are_not_queue_keys(
    tui_world: TuiWorld,
) -> None:
    """``X`` on a pending case opens nothing (only a case ruled CR has a change request;
    the status line says why): the letters typed after it were meant for the form, so
    they are not run as queue keys (``i`` would open the import form, ``v`` change the
    filter) but dropped, and the status line says so."""
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        ids, filt = queue_ids(app), app.query_one(QueuePane).filter
        await burst(pilot, ("X", *"iv"))
        assert _stack(app) == ["Screen"]
        _queue_unchanged(app, ids, filt)
        status = app.status_line
        assert status is not None and "2 keys typed after X went nowhere" in status.said
        await burst(pilot, ("v",))  # the next key is a queue key again
        assert app.query_one(QueuePane).filter != filt


# --- the footer says only what works where the focus is ------------------------------------


@sync
@pytest.mark.parametrize("size", SIZES)
async def test_a_text_box_is_not_told_keys_it_types(
    tui_world: TuiWorld, size: tuple[int, int]
) -> None:
    """In an override's reason box ``?`` is a question mark: the footer names Help by
    F1, the key that opens it there."""
    app = make_app(tui_world)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await burst(pilot, ("r",))
        assert isinstance(app.screen, ConfirmRuling)
        assert isinstance(app.focused, Input)
        seen = footer_visible(app)
        assert "F1 Help" in seen and "? Help" not in seen, seen
        await pilot.press("question_mark")  # with its character, as a terminal sends it
        await settle(pilot)
        assert app.focused.value == "?" and isinstance(app.screen, ConfirmRuling)


@sync
@pytest.mark.parametrize("size", SIZES)
async def test_resolve_is_in_the_queue_footer_of_a_seat_that_may_resolve(
    tui_world: TuiWorld, size: tuple[int, int]
) -> None:
    """An approver's queue footer names ``R Resolve`` on every case where it fits (the seat decides,
    not the highlighted case, so moving the cursor never redraws the footer); on a case
    citing no disputed clause ``R`` says why nothing opens."""
    app = make_app(tui_world)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        pane = app.query_one(QueuePane)

        def cites_disputed() -> bool:
            case = pane.current_case()
            assert case is not None
            return bool(disputed_refs(case.decision.cited_clauses, pane.memory))

        assert cites_disputed()
        seen = footer_visible(app)
        assert "q Quit" in seen and "? Help" in seen, seen
        assert ("R Resolve" in seen) == (size[0] >= 120), seen  # gives way first at 80
        for _ in queue_ids(app):
            if not cites_disputed():
                break
            await burst(pilot, ("down",))
        assert not cites_disputed()
        assert footer_visible(app) == seen
        await burst(pilot, ("R",))
        assert _stack(app) == ["Screen"]
        assert "cites no disputed clause" in app.status_line.said  # type: ignore[union-attr]


@sync
@pytest.mark.parametrize("size", SIZES)
async def test_the_reader_footer_names_next_and_previous(
    tui_world: TuiWorld, size: tuple[int, int]
) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        first = queue_ids(app)[0]
        await burst(pilot, ("enter",))
        seen = footer_visible(app)
        assert "j Next" in seen and "k Prev" in seen and "? Help" in seen, seen
        await burst(pilot, ("j",))
        assert current(app) == queue_ids(app)[1]
        await burst(pilot, ("k",))
        assert current(app) == first
