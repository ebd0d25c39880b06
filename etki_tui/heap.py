"""Keeping the cyclic garbage collector off the data the desk has loaded.

Measured with ``bench tui``'s typing step (10,000 ruled cases and their 16k-page wiki
on the 2-core machine): with the queue, the memory lists and the work items loaded the
heap holds ~300,000 objects the collector tracks, and every full (generation 2)
collection took 280-575 ms; fifteen ran while six words were typed, and they were the
longest event-loop blocks (keys waited behind them). The loaded data lives until the
next load replaces it, so once it is in place it is moved out of the collector's sight
with :func:`gc.freeze` (CPython's tool for long-lived objects, "to avoid unnecessary
collections"); later collections walk only what is new.

Frozen objects are still freed by reference counting when the next load drops them;
only a reference cycle among them would outlive its use. The loaded values are frozen
dataclasses, tuples and strings (no cycles); the widgets on screen at that moment are
few and mostly live as long as the desk.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator


def keep_loaded() -> None:
    """Freeze every object tracked now (:func:`gc.freeze`, which only moves the
    generations' lists: microseconds). Call after a load has put its data in place: the
    first queue, a reload, the memory lists.

    No collection comes first. A load builds its data with the collector paused
    (:func:`collector_paused`), so the young generations hold that data, and collecting
    them walked live objects only to find little: measured on bench tui's 10k store, the
    first queue's ``gc.collect(1)`` took 75-80 ms on the event loop and found ~1,700
    unreachable objects, and the one after the Hafıza memory load was the longest block
    while typing under load (40+ ms, ``python -m bench.tui_blocks``). That little cyclic
    garbage (and any an older generation held, as before) is frozen with the data and
    freed when the desk closes (:func:`release_loaded`)."""
    gc.freeze()


def release_loaded() -> None:
    """Give every frozen object back to the collector (:func:`gc.unfreeze`): the desk
    is closing, so what it froze can be collected, cycles included (a process that
    runs several desks one after another, as the tests do, keeps no dead desk)."""
    gc.unfreeze()


_pause_lock = threading.Lock()
_pauses = 0
_was_enabled = False


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic collection while a load builds its data (in a worker thread): every
    object it allocates lives on, and each full collection meanwhile would walk all of
    them again (measured: 200-790 ms each, a dozen while the 10k queue was read, each
    holding the GIL and so the event loop). Nested and concurrent uses are counted: the
    collector comes back, if it was on, when the last one ends. The caller then freezes
    the data (:func:`keep_loaded`) once it is in place."""
    global _pauses, _was_enabled
    with _pause_lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _pause_lock:
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                gc.enable()
