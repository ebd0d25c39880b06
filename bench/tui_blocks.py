"""Where the Hafıza event loop blocks while typing: a diagnostic, not a benchmark.

``python -m bench.tui_blocks DB WIKI_TEMPLATE [PROJECT]`` opens the desk on a store (for
example a copy of bench tui's all-ruled 10k store and its wiki), types bench tui's
words key by key (:func:`bench.tui._typing`) and prints, per word, the last key to its
results and the longest event-loop block; then every full (generation 2) garbage
collection that ran while typing (``gc.callbacks``) and, for each block over
``ETKI_BLOCK_MS`` (default 50), the stack of the main thread (and the innermost frames of
every other thread) caught by a watchdog thread that wakes every 10 ms and looks at how
long ago the loop last ticked.
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
import threading
import time
import traceback


def _lines(frame: object, depth: int) -> list[str]:
    """The innermost ``depth`` frames of a stack, one ``path:line name`` each."""
    return [
        f"{f.filename.rsplit('site-packages/', 1)[-1]}:{f.lineno} {f.name}"
        for f in traceback.extract_stack(frame)  # type: ignore[arg-type]
    ][-depth:]


def main(argv: list[str]) -> int:
    from textual.worker import WorkerState

    from bench.tui import TYPED_WORDS, _typing
    from etki.config import Settings
    from etki.services import Desk
    from etki_tui.app import EtkiApp
    from etki_tui.hafiza.pane import MemoryPane

    db, wiki, project = (argv + ["bench"])[:3]
    limit = float(os.environ.get("ETKI_BLOCK_MS", "50")) / 1000
    beat = [time.perf_counter()]
    on = threading.Event()
    main_id = threading.get_ident()
    stacks: list[list[str]] = []
    collections: list[tuple[float, int]] = []
    started = [0.0]

    def watchdog() -> None:
        seen = 0.0
        while True:
            time.sleep(0.01)
            if on.is_set() and time.perf_counter() - beat[0] > limit and beat[0] != seen:
                seen = beat[0]
                frames = sys._current_frames()
                lines = _lines(frames.get(main_id), 14)
                # what the other threads run meanwhile: a worker holding the GIL in a
                # long C call keeps the loop from its next tick as surely as the loop's
                # own work does
                for ident, other in frames.items():
                    if ident not in (main_id, threading.get_ident()):
                        lines += [f"  [thread {ident}]", *("    " + x for x in _lines(other, 5))]
                stacks.append(lines)

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        elif on.is_set() and info["generation"] == 2:
            collections.append(((time.perf_counter() - started[0]) * 1000, info["collected"]))

    async def ticker() -> None:
        while True:
            beat[0] = time.perf_counter()
            await asyncio.sleep(0.005)

    async def run() -> None:
        tick = asyncio.get_running_loop().create_task(ticker())
        desk = Desk(Settings(db_url=f"sqlite:///{db}", wiki_dir=wiki, reviewer="reviewer"))
        app = EtkiApp(desk, project, cursor_blink=False, search_delay=0.0)
        seen: dict[str, float] = {}

        async def until(cond, what: str, timeout: float = 300.0) -> None:  # noqa: ANN001
            deadline = time.perf_counter() + timeout
            while not cond():
                if time.perf_counter() > deadline:
                    raise RuntimeError(f"timed out waiting for {what}")
                await asyncio.sleep(0.002)

        async def workers_done(timeout: float = 900.0) -> None:
            while any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in app.workers):
                await asyncio.sleep(0.005)

        def hook(message: object) -> None:
            seen[type(message).__name__] = time.perf_counter()

        async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
            await workers_done()
            app.action_focus_search()
            await workers_done()
            await pilot.pause()
            on.set()
            got = await _typing(
                app, pilot, app.query_one(MemoryPane), seen, until, workers_done, TYPED_WORDS
            )
            on.clear()
        tick.cancel()
        for word, result, block in zip(TYPED_WORDS, got["results_s"], got["block_s"], strict=True):
            print(f"{word!r}: results {result * 1000:.0f} ms, longest block {block * 1000:.0f} ms")

    gc.callbacks.append(on_gc)
    threading.Thread(target=watchdog, daemon=True).start()
    asyncio.run(run())
    print(
        "full collections while typing (ms, objects collected):",
        [(round(ms), n) for ms, n in collections],
    )
    for stack in stacks:
        print("--- a block over", int(limit * 1000), "ms:")
        print("\n".join(stack))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
