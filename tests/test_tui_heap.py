"""The desk keeps its loaded data out of the cyclic collector's walks while it runs and
gives it back when it closes (etki_tui/heap.py): a real desk on real SQLite files."""

from __future__ import annotations

import gc
import weakref

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


class _Clock:
    """A clock the test moves by hand (seconds)."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class _Node:
    pass


def _old_cycle() -> weakref.ref:
    """A reference cycle in the collector's oldest generation that nothing else holds
    (it was alive through a young collection, then dropped), and a way to see it
    freed."""

    node = _Node()
    node.me = node  # type: ignore[attr-defined]
    gc.collect(1)  # alive: moved on to the oldest generation
    return weakref.ref(node)


def test_full_collections_run_from_the_tick_early_in_a_pause_and_thresholds_come_back() -> None:
    from etki_tui.heap import IdleCollector, collector_paused

    before = gc.get_threshold()
    cadence = max(before[2], 1)  # young collections CPython waits for before a full one
    clock = _Clock()
    idle = IdleCollector(clock)
    idle.THAW_AFTER = 1 << 62  # no thaw until the test asks, however big this process is
    other = IdleCollector(clock)
    idle.start()
    other.start()  # a second desk in the same process
    try:
        assert gc.get_threshold()[:2] == before[:2]
        assert gc.get_threshold()[2] > 10**6  # CPython's own full collections are off
        gc.collect()
        assert idle.tick() is False  # nothing held
        dead = _old_cycle()  # one young collection held
        idle.input_seen()
        clock.now += IdleCollector.IDLE_S / 2
        assert idle.tick() is False  # typing, and fewer than CPython's cadence: held
        assert dead() is not None
        clock.now += IdleCollector.IDLE_S
        assert idle.tick() is True  # a pause: the full collection runs early
        assert dead() is None and gc.get_count()[2] == 0
        assert idle.tick() is False  # nothing held back any more
        idle.input_seen()
        dead = _old_cycle()
        for _ in range(cadence - 1):
            gc.collect(1)  # young collections, as allocation makes them
        assert dead() is not None
        assert idle.tick() is True  # typing on: at CPython's cadence, never later
        assert dead() is None
        assert idle.collections == 2

        dead = _old_cycle()
        clock.now += IdleCollector.IDLE_S * 2
        with collector_paused():  # a load is building its data: no collection walks it
            assert idle.tick() is False
        assert dead() is not None
        assert idle.tick() is True and dead() is None
        # the survivors of a collection are frozen; a thaw frees what died frozen
        gc.unfreeze()
        node = _Node()
        node.me = node  # type: ignore[attr-defined]
        kept = weakref.ref(node)
        gc.collect(1)
        clock.now += IdleCollector.IDLE_S * 2
        assert idle.tick() is True and gc.is_tracked(node)
        assert not any(o is node for g in (0, 1, 2) for o in gc.get_objects(generation=g))
        del node  # a cycle, frozen: no collection walks it
        idle.input_seen()
        for _ in range(cadence):
            gc.collect(1)
        assert idle.tick() is True and kept() is not None
        idle.THAW_AFTER = idle._frozen  # due now; it waits for a long pause
        clock.now += IdleCollector.THAW_IDLE_S / 2
        assert idle.tick() is False and kept() is not None
        clock.now += IdleCollector.THAW_IDLE_S
        assert idle.tick() is True and kept() is None and idle.thaws == 1
        # without a pause once far more is frozen: memory stays bounded
        node = _Node()
        node.me = node  # type: ignore[attr-defined]
        kept = weakref.ref(node)
        alive = [_Node() for _ in range(100)]  # survivors that live on
        gc.collect(1)
        clock.now += IdleCollector.IDLE_S * 2
        assert idle.tick() is True and idle._frozen >= 100  # frozen
        del node
        idle.THAW_AFTER = idle._frozen // IdleCollector.THAW_FORCED
        idle.input_seen()
        assert idle.tick() is True and kept() is None and idle.thaws == 2
        assert all(gc.is_tracked(n) for n in alive)
        gc.unfreeze()
        other.stop()
        assert gc.get_threshold()[2] > 10**6  # the first desk still holds them
    finally:
        idle.stop()
        other.stop()
    assert gc.get_threshold() == before
    assert idle.tick() is False  # stopped: CPython collects again


@sync
async def test_the_desk_holds_full_collections_while_it_runs(tui_world: TuiWorld) -> None:
    before = gc.get_threshold()
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert gc.get_threshold()[2] > 10**6
        await pilot.press("j")
    assert gc.get_threshold() == before
