"""SVG snapshots of the reviewer desk at 80x24 and 120x40 (pytest-textual-snapshot).

Golden files live under ``snapshots/tui/test_tui_snapshots/`` (see the ``snapshot``
fixture in conftest.py). They are deterministic: the DB clock is frozen, the UI shows no
wall-clock time, the cursor does not blink, the search runs once (on Enter) and every
worker has finished before the picture is taken. Update with
``pytest tests/test_tui_snapshots.py --snapshot-update`` and look at the pictures.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

import pytest
from textual.pilot import Pilot

from etki_tui.app import EtkiApp
from tests.conftest import TuiWorld

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


def make_app(world: TuiWorld) -> EtkiApp:
    # A long debounce never fires during a test: searches run on Enter, once.
    return EtkiApp(world.desk, world.project_id, cursor_blink=False, search_delay=60)


def keys(*presses: str) -> Callable[[Pilot], Awaitable[None]]:
    """A ``run_before`` that waits for the queue, presses ``presses`` (``type:TEXT``
    types TEXT) and lets every worker finish after each step."""

    async def settle(pilot: Pilot) -> None:
        for _ in range(2):
            await pilot.pause()
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()

    async def run(pilot: Pilot) -> None:
        await settle(pilot)
        for press in presses:
            if press.startswith("type:"):
                await pilot.press(*press.removeprefix("type:"))
            else:
                await pilot.press(press)
            await settle(pilot)

    return run


def _check(snap_compare, world: TuiWorld, size: tuple[int, int],  # noqa: ANN001
           presses: Iterable[str] = ()) -> None:
    assert snap_compare(make_app(world), terminal_size=size, run_before=keys(*presses))


@pytest.mark.parametrize("size", SIZES)
def test_queue(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """The queue of six pending cases with the first (disputed clause) highlighted."""
    _check(snap_compare, tui_world, size)


@pytest.mark.parametrize("size", SIZES)
def test_detail_disputed(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """The case detail read full-screen (Enter): cited clause 3.2 is ⚠ DISPUTED."""
    _check(snap_compare, tui_world, size, ["enter"])


@pytest.mark.parametrize("size", SIZES)
def test_detail_hostile_text(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """Client markup and escapes shown literally in the detail (B01, B03)."""
    _check(snap_compare, tui_world, size, ["down", "down", "down", "enter"])


@pytest.mark.parametrize("size", SIZES)
def test_confirm_override(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """Reject on an IN_SCOPE verdict: Confirm with no reason is refused."""
    _check(snap_compare, tui_world, size, ["r", "tab", "enter"])


@pytest.mark.parametrize("size", SIZES)
def test_hafiza_search(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """Hafıza with search results for 'contractor' (Enter: search now, go to the list)
    and the first hit's page previewed."""
    _check(snap_compare, tui_world, size, ["2", "type:contractor", "enter"])


@pytest.mark.parametrize("size", SIZES)
def test_hafiza_disputed_card(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """Hafıza's disputed card for clause 3.2, read from the DB."""
    _check(snap_compare, tui_world, size, ["2", "tab", "down"])


@pytest.mark.parametrize("size", SIZES)
def test_raporlar(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """Raporlar: counts and bars from the DB."""
    _check(snap_compare, tui_world, size, ["3"])
