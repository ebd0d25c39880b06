"""``q`` quits the desk (issue 34, a later trial: ``q`` did nothing and no footer said
Ctrl+Q): from the Queue, Hafıza and Raporlar when no text box has the focus; a letter in
a text box (the queue's find, Hafıza's search, a form) and nothing on a dialog. The
footer shows ``q Quit`` where it fits; ``q`` means nothing else anywhere (the help closes
with Esc). Driven with Textual's Pilot on the sample project at 80x24 and 120x40.
"""

from __future__ import annotations

import pytest
from textual.widgets import Input

from etki_tui.actions import ACTIONS, TAB_CONTEXTS
from etki_tui.screens.help import HelpScreen
from etki_tui.screens.new_request import NewRequestForm
from tests.conftest import TuiWorld
from tests.test_tui_pilot import make_app, press, settle, shown, sync, until

SIZES = [(80, 24), (120, 40)]


def footer_seen(app, width: int) -> str:  # noqa: ANN001
    """The footer keys wholly inside the terminal's ``width``, as they read."""
    keys = [k for k in app.screen.query("FooterKey") if k.display and k.region.right <= width]
    return " · ".join(" ".join(shown(k, k.region.width, 1).split()) for k in keys)


def test_q_means_quit_and_nothing_else() -> None:
    users = sorted(a.id for a in ACTIONS.values() if "q" in list(a.keys(None)))
    assert users == ["leave"]
    assert ACTIONS["leave"].context == "app" and ACTIONS["quit"].keys() == ["ctrl+q"]


@sync
@pytest.mark.parametrize("tab", ["1", "2", "3"])
async def test_q_quits_from_each_tab(tui_world: TuiWorld, tab: str) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, tab)
        assert not isinstance(app.focused, Input)
        await pilot.press("q")
        await until(pilot, lambda: app.return_code is not None, "the desk to quit")
    assert app.return_code == 0
    assert len(TAB_CONTEXTS) == 3


@sync
async def test_q_is_a_letter_while_typing_and_nothing_on_a_dialog(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "slash", *"qr")  # the queue's find
        box = app.focused
        assert isinstance(box, Input) and box.value == "qr"
        await press(pilot, "escape", "2", "slash", "q")  # Hafıza's search
        assert app.query_one("#memory-search", Input).value == "q"
        await press(pilot, "escape", "1", "n", *"Kiosk q")  # a form's box
        form = app.screen
        assert isinstance(form, NewRequestForm)
        assert form.query_one("#intake-title", Input).value == "Kiosk q"
        await press(pilot, "tab", "tab", "tab", "tab")  # a button has the focus
        assert not isinstance(app.focused, Input)
        await press(pilot, "q")
        assert app.screen is form and app.return_code is None
        await press(pilot, "escape", "d", "question_mark")  # the help: q does not close it
        assert isinstance(app.screen, HelpScreen)
        await press(pilot, "q")
        assert isinstance(app.screen, HelpScreen) and app.return_code is None
        await press(pilot, "escape")
        assert not isinstance(app.screen, HelpScreen)
        await press(pilot, "ctrl+q")  # Ctrl+Q from anywhere
        await until(pilot, lambda: app.return_code is not None, "the desk to quit")


@sync
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("tab", ["2", "3"])
async def test_the_footer_says_q_quit(tui_world: TuiWorld, size: tuple[int, int], tab: str) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, tab)
        said = footer_seen(app, size[0])
        assert "q Quit" in said, said


@sync
@pytest.mark.parametrize("size", SIZES)
async def test_the_hafiza_reader_footer_says_q_quit(
    tui_world: TuiWorld, size: tuple[int, int]
) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, "2", "enter")
        said = footer_seen(app, size[0])
        assert "q Quit" in said and "? Help" in said, said


@sync
async def test_the_queue_footer_says_q_quit_at_120(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        said = footer_seen(app, 120)
        assert "q Quit" in said, said
