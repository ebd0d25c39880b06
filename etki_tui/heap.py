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
import time
from collections.abc import Callable, Iterator


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
    freed by the idle collector's next thaw (:class:`IdleCollector`) or when the desk
    closes (:func:`release_loaded`)."""
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


class IdleCollector:
    """Full (generation 2) collections run between events, early in input pauses, and
    walk only what is newer than the last one.

    With the loaded data frozen (:func:`keep_loaded`), what is left in the collector's
    oldest generation is what the screen made since: Textual's strips (each with seven
    small caches, most of the objects), segments, contents, messages. CPython starts a
    full collection inside whatever allocation crosses its threshold, so it ran in the
    middle of a key's handler or a frame and the key waited for both: ``python -m
    bench.tui_blocks`` on bench tui's 10k store (stop 25) had 8-9 of them while six
    words were typed, 10-45 ms each, among the longest event-loop blocks.

    While the desk runs, CPython's own trigger is set out of reach (the third threshold
    of :func:`gc.set_threshold`; young collections are as before) and :meth:`tick`,
    every :data:`TICK_S` on the event loop between events, runs the full collection
    itself: as soon as as many young collections have passed as CPython waits for (its
    third threshold, 10 by default), so the garbage held is never more than CPython's;
    and earlier, once no input has come for :data:`IDLE_S`, so a pause (reading the
    results) takes the collection a key would otherwise meet. Measured the same way
    (stop 26): 8 collections of 11-33 ms while the six words were typed, the longest
    block per word 12-34 ms; holding up to 30 or 100 young collections instead made one
    collection of 50 ms and of 130-270 ms (the live strips dominate its walk).

    What survives a full collection is frozen after it (:func:`gc.freeze`, as the loads
    are): the next one walks only what is newer. ``bench tui`` runs (stop 26) had
    26,000-34,000 objects in the oldest generation before typing and a longest block of
    30-74 ms, one with 86,000-88,000 had 93-129 ms; with the freeze the diagnostic's
    collections took 2-9 ms and its longest block per word 10-29 ms. A frozen object that later becomes
    cyclic garbage (a strip dropped from a cache) is freed only by a thaw: once the
    collector has frozen :data:`THAW_AFTER` objects and no input has come for
    :data:`THAW_IDLE_S`, it unfreezes everything, collects and freezes again; that
    collection walks the whole heap (the loaded data too) and is the one long block,
    in a long pause: 175-185 ms over 254,000-286,000 frozen objects on the 10k ruled
    desk. Two ``bench tui`` runs with the freeze: longest block per word at most 28 and
    24 ms idle, 24 and 20 ms with the other core busy.

    :data:`IDLE_S` is longer than a typist's usual gap between two keys (about 240 ms on
    average over 136 million keystrokes: Dhakal et al., *Observations on Typing from 136
    Million Keystrokes*, CHI 2018), so it falls between words and bursts rather than
    inside them; any input event counts (keys, mouse). ``clock``: seconds, monotonic
    (:func:`time.monotonic` by default; tests give their own). Not thread-safe: the
    event loop calls it."""

    TICK_S = 0.2
    """How often :meth:`tick` runs (seconds)."""
    IDLE_S = 0.4
    """Input pause after which any held-back full collection runs (seconds)."""
    THAW_AFTER = 200_000
    """Objects frozen by the collector after which a thaw is due (about what the loads
    of bench tui's 10k desk freeze: a bound of tens of MB on the cyclic garbage frozen
    meanwhile)."""
    THAW_IDLE_S = 5.0
    """Input pause after which a due thaw runs (seconds): reading a case, not typing."""
    THAW_FORCED = 4
    """A thaw runs without a pause once this many times :data:`THAW_AFTER` objects are
    frozen (someone who never stops typing for five seconds: memory stays bounded)."""
    _OUT_OF_REACH = 1 << 30

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._last_input = clock()
        self._holding = False
        self._frozen = 0  # objects frozen by this collector since the last thaw
        self.collections = 0
        """Full collections :meth:`tick` has run (for benchmarks and tests)."""
        self.thaws = 0
        """Thaws :meth:`tick` has run."""

    @property
    def holding(self) -> bool:
        """True between :meth:`start` and :meth:`stop`."""
        return self._holding

    def start(self) -> None:
        """Take over full collections (idempotent). Several collectors may hold at once
        (two desks in one process): CPython's thresholds come back when the last stops."""
        global _holders, _saved_threshold
        if self._holding:
            return
        self._holding = True
        with _pause_lock:
            if _holders == 0:
                _saved_threshold = gc.get_threshold()
                young, middle, _ = _saved_threshold
                gc.set_threshold(young, middle, self._OUT_OF_REACH)
            _holders += 1

    def stop(self) -> None:
        """Give full collections back to CPython, thresholds as they were, once no
        collector holds them (idempotent)."""
        global _holders
        if not self._holding:
            return
        self._holding = False
        with _pause_lock:
            _holders -= 1
            if _holders == 0:
                gc.set_threshold(*_saved_threshold)

    def input_seen(self) -> None:
        """Note that input arrived now (an event handler calls this)."""
        self._last_input = self._clock()

    def tick(self) -> bool:
        """Run the held-back full collection when it is due (see the class); True when
        it ran. Never while the collector is off (:func:`collector_paused`: a load is
        building its data in a worker)."""
        if not self._holding or not gc.isenabled():
            return False  # stopped, or a load has the collector paused (collector_paused):
            # a collection now would walk the data it is building
        quiet = self._clock() - self._last_input
        if self._frozen >= self.THAW_AFTER and (
            quiet >= self.THAW_IDLE_S or self._frozen >= self.THAW_FORCED * self.THAW_AFTER
        ):
            gc.unfreeze()
            gc.collect()
            gc.freeze()  # the loads' data again, and what else lives on
            self._frozen = 0
            self.thaws += 1
            return True
        held = gc.get_count()[2]
        due = held >= max(_saved_threshold[2], 1) or (held > 0 and quiet >= self.IDLE_S)
        if due:
            gc.collect()
            # the survivors, all in the oldest generation now, live on: frozen, the next
            # collection walks what is newer (gc.get_freeze_count() walks every frozen
            # object, 60-70 ms here: the oldest generation alone is counted)
            self._frozen += len(gc.get_objects(generation=2))
            gc.freeze()
            self.collections += 1
        return due


_holders = 0
_saved_threshold: tuple[int, int, int] = gc.get_threshold()
