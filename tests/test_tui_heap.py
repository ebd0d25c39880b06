"""The desk keeps its loaded data out of the cyclic collector's walks while it runs and
gives it back when it closes (etki_tui/heap.py): a real desk on real SQLite files."""

from __future__ import annotations

import gc

from tests.conftest import TuiWorld
from tests.test_tui_pilot import make_app, settle, sync


def _holds(objects: list[object], wanted: object) -> bool:
    return any(o is wanted for o in objects)


@sync
async def test_loaded_data_is_frozen_while_the_desk_runs_and_released_after(
    tui_world: TuiWorld,
) -> None:
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        pane_cases = list(app.query_one("QueuePane").cases.values())
        assert pane_cases
        assert gc.get_freeze_count() > 0  # the first queue is in place: frozen
        first = pane_cases[0]
        assert gc.is_tracked(first)
        assert not any(_holds(gc.get_objects(generation=g), first) for g in (0, 1, 2))
        app.action_focus_search()
        await settle(pilot)
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0  # closed: everything collectable again
    assert _holds(gc.get_objects(generation=2), first)


def test_the_collector_pause_nests_and_restores_what_was_there() -> None:
    from etki_tui.heap import collector_paused

    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer load is still building
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # it was off: it stays off
    finally:
        gc.enable()
