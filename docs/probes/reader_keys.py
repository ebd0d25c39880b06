"""How fast the desk answers keys with the tdrs contract page open in Hafıza's reader
(issue 34 item 3 follow-up, helper desk34lag: a trial saw keys answered 1-15 s late).

The real tdrs engagement (``../shared/realdata/tdrs``) stored as the TUI tests store it
(:func:`tests.conftest.build_tui_tdrs_world`), the desk at 80x24 in Textual's pilot, the
contract page opened in Hafıza and waited for until every part is laid out and the app
is idle; then each key of :data:`KEYS` pressed and timed until the app is idle again
(every worker finished, every message handled: :func:`tests.test_tui_pilot.settle`).
Prints per-key ms, p50 and max, the widgets on the screen, the load average and whether
the package's bytecode was compiled before the run. Run from the repository root:

    XDG_CONFIG_HOME=$PWD/.xdg .venv/bin/python docs/probes/reader_keys.py [ROUNDS]
"""

from __future__ import annotations

import asyncio
import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

CONTRACT_PAGE = "entities/contracts/tdrs-rfq.md"
KEYS = ["j", "j", "k", "pagedown", "pagedown", "pageup", "tab", "shift+tab", "1", "2", "end"]
"""Reading keys, a focus move there and back, the queue tab and back to Hafıza, End."""


def compiled() -> str:
    """Whether etki_tui's modules had bytecode before this run (``yes``/``no``)."""
    root = Path(__file__).resolve().parents[2] / "etki_tui" / "hafiza" / "__pycache__"
    return "yes" if root.is_dir() and any(root.glob("reader.*.pyc")) else "no"


async def run(rounds: int) -> None:
    """Open the page, press :data:`KEYS` ``rounds`` times, print the figures."""
    from textual.containers import VerticalScroll

    from etki_tui.hafiza.pane import MemoryPane
    from etki_tui.messages import PageWanted
    from tests.conftest import build_tui_tdrs_world
    from tests.test_tui_pilot import make_app, settle, until

    with tempfile.TemporaryDirectory() as tmp:
        world = build_tui_tdrs_world(Path(tmp))
        try:
            app = make_app(world, search_delay=0, preview_delay=0)
            async with app.run_test(size=(80, 24)) as pilot:
                await settle(pilot)
                await pilot.press("2")
                await settle(pilot)
                pane = app.query_one(MemoryPane)
                reader = pane.reader
                start = time.perf_counter()
                pane.post_message(PageWanted(CONTRACT_PAGE, history="push"))
                await until(pilot, lambda: reader.path == CONTRACT_PAGE, "the page")
                await until(pilot, lambda: reader.whole_shown, "every part laid out")
                await settle(pilot)
                opened = (time.perf_counter() - start) * 1000
                reader.query_one("#reader-scroll", VerticalScroll).focus()
                await settle(pilot)
                before = (len(app.screen.query("*")), len(reader.query("MarkdownBlock")))
                profile = cProfile.Profile() if os.environ.get("PROBE_PROFILE") else None
                if profile is not None:
                    profile.enable()
                times: list[tuple[str, float]] = []
                for _ in range(rounds):
                    for key in KEYS:
                        t0 = time.perf_counter()
                        await pilot.press(key)
                        await settle(pilot)
                        times.append((key, (time.perf_counter() - t0) * 1000))
                if profile is not None:
                    profile.disable()
                    pstats.Stats(profile).sort_stats("cumulative").print_stats(40)
                widgets, blocks = before
        finally:
            world.repo.dispose()
    for key, ms in times:
        print(f"  {key:10} {ms:8.1f} ms")
    values = [ms for _k, ms in times]
    print(
        f"opened whole in {opened:.0f} ms; keys: n={len(values)} "
        f"p50={statistics.median(values):.1f} ms max={max(values):.1f} ms; "
        f"widgets on screen {widgets} once open (markdown blocks {blocks}); "
        f"load {' '.join(f'{x:.1f}' for x in os.getloadavg())}; bytecode compiled before: "
        f"{COMPILED}"
    )


COMPILED = compiled()

if __name__ == "__main__":
    asyncio.run(run(int(sys.argv[1]) if len(sys.argv) > 1 else 1))
