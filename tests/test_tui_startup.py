"""Start-up removes no widget (issue 34: a flake). Textual's ``Pilot._wait_for_screen``
(run by ``run_test`` before a test's first line, and by every ``pilot.pause``) posts a
callback to the app and every widget of the screen and waits for all of them; the app
awaits each widget removal in its own message loop, so removals in that window hold the
wait up (test_too_small_terminal_shows_a_notice_and_blocks_keys timed out there once
after 30 s on a loaded machine). Measured with the probe below: Textual's footer removed
and mounted again all its keys on each bindings change at start-up, with the same keys
(16 removed while run_test waited at 70x20). The desk's footer
(:class:`etki_tui.header.DeskFooter`) recomposes only when its keys change."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App
from textual.widgets import Footer

from tests.conftest import TuiWorld
from tests.test_tui_pilot import make_app, press, settle, sync, until


@sync
@pytest.mark.parametrize("size", [(70, 20), (80, 24), (120, 40)])
async def test_start_up_removes_no_widget(
    tui_world: TuiWorld, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """From the app's start until it has settled, no widget is removed (Textual's
    ``App._prune`` is recorded, not changed)."""
    removed: list[str] = []
    prune = App._prune

    def recorded(self: App[Any], *nodes: Any, parent: Any = None) -> Any:
        removed.extend(repr(n) for n in nodes)
        return prune(self, *nodes, parent=parent)

    monkeypatch.setattr(App, "_prune", recorded)
    app = make_app(tui_world)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert removed == []


@sync
async def test_the_footer_follows_a_change_of_keys(tui_world: TuiWorld) -> None:
    """A change of the keys shown still redraws the footer: Hafıza's keys after ``2``,
    the queue's after ``1``."""
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        footer = app.query_one(Footer)

        def keys() -> list[str]:
            return [str(k.description) for k in footer.query("FooterKey")]

        queue_keys = keys()
        await press(pilot, "2")
        await until(pilot, lambda: keys() != queue_keys, "Hafıza's keys in the footer")
        await press(pilot, "1")
        await until(pilot, lambda: keys() == queue_keys, "the queue's keys again")
