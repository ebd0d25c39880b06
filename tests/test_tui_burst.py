"""Keys typed in one burst land in the box the focus moved to (issue 34, a later trial):
``Title`` Tab ``body`` sent at once (tmux ``send-keys``, one SSH packet, Textual's own
``pilot.press`` of many keys) put ``body`` in the title, because Textual's Tab binding ran
only after the key came back up from the title box, when the letters after it had been
handed to that box already. Tab and Shift+Tab now move the focus as the app receives them.

Each form is driven two ways at 80x24 on the sample project (tests/conftest.py): every key
of the burst handed to the app before it handles any (:func:`burst`, what a terminal does),
and one ``pilot.press`` call with all the keys. Both wait for the app to settle, never for
time.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from etki_tui.screens.confirm import ConfirmRuling
from etki_tui.screens.cr_export import CrExportForm
from etki_tui.screens.estimate import EstimateForm
from etki_tui.screens.new_request import NewRequestForm
from tests.conftest import TuiWorld
from tests.test_tui_pilot import current, make_app, press, queue_ids, settle, sync, until

Sender = Callable[[Pilot, tuple[str, ...]], Awaitable[None]]


async def burst(pilot: Pilot, keys: tuple[str, ...]) -> None:
    """Hand every key to the app at once, as a terminal's one read of many bytes does
    (the driver's own ``send_message``, no wait between keys), then settle."""
    app = pilot.app
    driver = app._driver
    assert driver is not None
    for key in keys:
        event = events.Key(key, key if len(key) == 1 else None)
        event.set_sender(app)
        driver.send_message(event)
    await settle(pilot)


async def one_press(pilot: Pilot, keys: tuple[str, ...]) -> None:
    """Textual's own ``pilot.press`` with all the keys in one call, then settle."""
    await pilot.press(*keys)
    await settle(pilot)


SENDERS: dict[str, Sender] = {"burst": burst, "press": one_press}


@sync
@pytest.mark.parametrize("how", SENDERS)
async def test_new_request_body_lands_in_the_body(tui_world: TuiWorld, how: str) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "n")
        form = app.screen
        assert isinstance(form, NewRequestForm)
        keys = (*"Kiosk kurulumu", "tab", *"Şube için İstanbul", "tab", *"Jürgen Weiß")
        await SENDERS[how](pilot, keys)
        assert form.query_one("#intake-title", Input).value == "Kiosk kurulumu"
        assert form.query_one("#intake-text", TextArea).text == "Şube için İstanbul"
        assert form.query_one("#intake-by", Input).value == "Jürgen Weiß"
        assert app.focused is form.query_one("#intake-by", Input)
        # Shift+Tab in the same burst goes back, and the keys after it follow it (End:
        # a box that gets the focus selects what it holds, as Textual's Input does)
        await SENDERS[how](pilot, ("shift+tab", "shift+tab", "end", *" (B blok)"))
        assert form.query_one("#intake-title", Input).value == "Kiosk kurulumu (B blok)"
        assert form.query_one("#intake-text", TextArea).text == "Şube için İstanbul"


@sync
@pytest.mark.parametrize("how", SENDERS)
async def test_new_request_enter_after_the_title_moves_on_as_it_arrives(
    tui_world: TuiWorld, how: str
) -> None:
    """Enter in the title, then the text, in one burst: the text lands in the text box
    (it went into the title: the focus moved only once the title's submit came back)."""
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "n")
        form = app.screen
        assert isinstance(form, NewRequestForm)
        await SENDERS[how](pilot, (*"Kiosk kurulumu", "enter", *"Şube için İstanbul"))
        assert form.query_one("#intake-title", Input).value == "Kiosk kurulumu"
        assert form.query_one("#intake-text", TextArea).text == "Şube için İstanbul"


@sync
@pytest.mark.parametrize("how", SENDERS)
async def test_estimate_fields_each_get_their_own_text(tui_world: TuiWorld, how: str) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "E")
        form = app.screen
        assert isinstance(form, EstimateForm)
        keys = (*"2,5", "tab", *"12500 EUR", "tab", *"İki geliştirici")
        await SENDERS[how](pilot, keys)
        assert form.query_one("#estimate-days", Input).value == "2,5"
        assert form.query_one("#estimate-price", Input).value == "12500 EUR"
        assert form.query_one("#estimate-reason", Input).value == "İki geliştirici"


@sync
@pytest.mark.parametrize("how", SENDERS)
async def test_estimate_enter_moves_on_as_it_arrives(tui_world: TuiWorld, how: str) -> None:
    """A trial in tmux: the figures, then Enter Enter Enter in one burst to save. Enter
    in a box moved the focus only once the box's submit came back, after the later
    Enters had reached the days box too: the focus went past the reason onto Cancel
    and the next Enter dropped the estimate. Now Enter moves on as the app receives
    it: days, price, then Enter in the reason saves."""
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        case_id = current(app)
        assert case_id is not None
        await press(pilot, "E")
        form = app.screen
        assert isinstance(form, EstimateForm)
        keys = (*"2,5", "enter", *"12500 EUR", "enter", *"İki geliştirici", "enter")
        await SENDERS[how](pilot, keys)
        await until(pilot, lambda: tui_world.repo.case(case_id).estimate is not None, "saved")
    est = tui_world.repo.case(case_id).estimate
    assert est is not None
    assert (est.days, est.price, est.currency, est.reason) == (
        "2.5",
        "12500",
        "EUR",
        "İki geliştirici",
    )


@sync
@pytest.mark.parametrize("how", SENDERS)
async def test_estimate_enters_in_a_row_save_the_figures_in_force(
    tui_world: TuiWorld, how: str
) -> None:
    """The trial's keys exactly: on a case with an estimate in force (the form starts
    with it), a new figure and Enter Enter Enter in one burst save it."""
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        case_id = current(app)
        assert case_id is not None
        tui_world.desk.add_estimate(case_id, "3,5", "İki ekran", "12500,50 EUR")
        await press(pilot, "E")
        assert isinstance(app.screen, EstimateForm)
        await SENDERS[how](pilot, (*"4.5", "enter", "enter", "enter"))
        await until(
            pilot,
            lambda: tui_world.repo.case(case_id).estimate.days == "4.5",
            "saved",  # type: ignore[union-attr]
        )
    est = tui_world.repo.case(case_id).estimate
    assert est is not None and (est.price, est.reason) == ("12500.5", "İki ekran")


@sync
@pytest.mark.parametrize("how", SENDERS)
async def test_override_reason_then_tab_to_the_ruling_button(tui_world: TuiWorld, how: str) -> None:
    """An override's reason, Tab Tab to the ruling button and Enter, all in one burst:
    the ruling is recorded with the whole reason (before, Tab and Enter reached the
    reason box as keys of it, and the reason was left unruled)."""
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        first = queue_ids(app)[0]
        await press(pilot, "r")
        dialog = app.screen
        assert isinstance(dialog, ConfirmRuling) and dialog.is_override
        assert app.focused is dialog.query_one("#confirm-reason", Input)
        await SENDERS[how](pilot, (*"Nicht im Umfang", "tab", "tab", "enter"))
        await until(pilot, lambda: tui_world.repo.case(first).ruling is not None, "the ruling")
    ruling = tui_world.repo.case(first).ruling
    assert ruling is not None and ruling.ruling == "REJECT"
    assert ruling.reason == "Nicht im Umfang"


@sync
@pytest.mark.parametrize("how", SENDERS)
async def test_cr_export_valid_until_gets_the_date(tui_world: TuiWorld, how: str) -> None:
    from etki.services import approval_service

    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        case_id = current(app)
        assert case_id is not None
        approval_service(tui_world.repo, tui_world.settings).rule(
            case_id, "convert_to_cr", reason="Yeni ekran: sözleşmede yok", reviewer="ayse"
        )
        app.poll_queue()
        await settle(pilot)
        await press(pilot, "X")
        form = app.screen
        assert isinstance(form, CrExportForm)
        path = form.query_one("#crx-path", Input)
        before = path.value
        valid = form.query_one("#crx-valid", Input)
        valid.value = ""
        # the form opens on the assumptions (the first field a PMO writes): forward over
        # the exclusions and the clause list to "Valid until"
        assert app.focused is form.query_one("#crx-assumptions", TextArea)
        await SENDERS[how](pilot, ("tab", "tab", "tab", *"2027-01-31"))
        assert app.focused is valid and valid.value == "2027-01-31"
        assert path.value == before
        # and forward again into the file box, whose text goes on at its end
        await SENDERS[how](pilot, ("tab", "tab", "end", *".bak"))
        assert app.focused is path and path.value == before + ".bak"
        assert valid.value == "2027-01-31"
