"""``etki-tui`` on 10,000 pending cases, headless (``App.run_test``), in a fresh process.

The child process opens a copy of a store holding 10,000 pending cases (wiki: a copy of
the 10k-decision wiki, so live search has something to search) at 120x40 and measures:

* **first interactive queue**: from entering ``run_test`` (app start) until the queue
  table holds every pending row, the cursor is on the first one and a frame has been
  rendered. Baseline: the DB read the app waits for (``Desk.queue_summaries`` of the
  same store, the listed columns of every case; timed in the same process before the
  app starts. It was the full ``Desk.queue`` while the app read whole cases, whose peak
  memory then also counted in this process's VmHWM);
* **RSS** (``VmRSS``/``VmHWM`` from ``/proc/self/status``) with the queue loaded.
  Baseline: the same process after importing everything, before the app;
* **cursor move**: ``down`` pressed and rendered, repeated; the table's render work is
  counted by wrapping ``DataTable._render_line`` (lines asked for), ``_render_line_in_row``
  (row cache misses) and ``_render_cell`` (cell renders that missed the cell cache) on
  the queue table. "Whole table" would be every row (10,000 x 6 cells); a screenful is
  about 20 rows;
* **ruling a case**: ``a``/``c``/``r`` (the engine's verdict), Confirm, until the row is
  gone; the same counters, and the wall time (includes opening the modal and the DB
  commit; the HITL projection runs afterwards in its own worker and is waited for
  before the next ruling);
* **live search**: in Hafıza, one keystroke completing a query until its results are
  shown in the list, with the app's shipped debounce (``search_delay`` default) and
  with none; baseline: :meth:`Desk.wiki_search` called directly.

Targets: first queue <= 1.5 s, RSS <= 250 MB, keystroke-to-results <= 150 ms, a cursor
move or a ruling never re-renders the whole table.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench.common import Context, Figure, ms, ratio, stats

NAME = "tui"
DESCRIPTION = "etki-tui on 10k pending cases: first queue, RSS, search keystroke, re-renders"

SEARCH_QUERY = "property tax"


def _say(text: str) -> None:
    if os.environ.get("ETKI_BENCH_DEBUG"):
        print(f"[tui child {time.perf_counter():.2f}] {text}", file=sys.stderr, flush=True)


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


class Counters:
    """Call counts of the queue table's render methods (class-level wrappers)."""

    def __init__(self) -> None:
        self.counts = {"lines": 0, "row_misses": 0, "cell_renders": 0}

    def install(self, table_cls: type) -> None:
        from textual.widgets import DataTable

        counts = self.counts
        orig_line = DataTable._render_line
        orig_row = DataTable._render_line_in_row
        orig_cell = DataTable._render_cell

        def _render_line(self, *a, **k):  # type: ignore[no-untyped-def]
            counts["lines"] += 1
            return orig_line(self, *a, **k)

        def _render_line_in_row(self, row_key, line_no, base_style, cursor_location,
                                hover_location):  # type: ignore[no-untyped-def]
            cache_key = (row_key, line_no, base_style, cursor_location, hover_location,
                         self._show_hover_cursor, self._update_count,
                         self._pseudo_class_state)
            if cache_key not in self._row_render_cache:
                counts["row_misses"] += 1
            return orig_row(self, row_key, line_no, base_style, cursor_location,
                            hover_location)

        def _render_cell(self, row_index, column_index, base_style, width, cursor=False,
                         hover=False):  # type: ignore[no-untyped-def]
            before = len(self._cell_render_cache)
            out = orig_cell(self, row_index, column_index, base_style, width, cursor, hover)
            if len(self._cell_render_cache) != before or before == self._cell_render_cache.maxsize:
                counts["cell_renders"] += 1
            return out

        table_cls._render_line = _render_line
        table_cls._render_line_in_row = _render_line_in_row
        table_cls._render_cell = _render_cell

    def take(self) -> dict[str, int]:
        out = dict(self.counts)
        for k in self.counts:
            self.counts[k] = 0
        return out


async def _child(db: str, wiki: str, expected: int, moves: int, rulings: int,
                 searches: int) -> dict:
    from etki.config import Settings
    from etki.services import Desk
    from etki_tui.app import EtkiApp
    from etki_tui.widgets.memory import MemoryPane
    from etki_tui.widgets.queue import QueuePane, QueueTable

    counters = Counters()
    counters.install(QueueTable)
    settings = Settings(db_url=f"sqlite:///{db}", wiki_dir=wiki, reviewer="reviewer")
    # baseline: the DB read the queue waits for (the listed columns of every case)
    probe = Desk(settings)
    a = time.perf_counter()
    probe.queue_summaries("bench", status=None)
    b = time.perf_counter()
    probe.repo.dispose()
    del probe
    import gc

    gc.collect()
    rss_base = _status_kb("VmRSS")
    default_delay = inspect.signature(EtkiApp.__init__).parameters["search_delay"].default

    desk = Desk(settings)
    seen: dict[str, float] = {}

    failures: list[str] = []

    def hook(message: object) -> None:
        name = type(message).__name__
        seen[name] = time.perf_counter()
        if name in ("DeskFailed", "RefreshFailed", "RulingFailed"):
            failures.append(f"{name}: {getattr(message, 'message', '')}")

    async def until(cond, what: str, timeout: float = 300.0) -> None:  # type: ignore[no-untyped-def]
        deadline = time.perf_counter() + timeout
        while not cond():
            if failures:
                raise RuntimeError(f"while waiting for {what}: {failures[-1]}")
            if time.perf_counter() > deadline:
                raise RuntimeError(f"timed out after {timeout:g} s waiting for {what}")
            await asyncio.sleep(0.002)

    async def workers_done(timeout: float = 300.0) -> None:
        """Wait until no worker is pending or running (cancelled ones are fine)."""
        from textual.worker import WorkerState

        deadline = time.perf_counter() + timeout
        while any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in app.workers):
            if time.perf_counter() > deadline:
                raise RuntimeError("timed out waiting for the app's workers")
            await asyncio.sleep(0.005)

    async def frame(pilot) -> None:  # type: ignore[no-untyped-def]
        """Process what is queued (twice: handlers post follow-ups) and paint a frame now,
        without Pilot.pause()'s idle-detection sleeps (>= 20 ms each)."""
        await pilot._wait_for_screen()
        await pilot._wait_for_screen()
        pilot.app.screen._on_timer_update()

    app = EtkiApp(desk, "bench", cursor_blink=False, search_delay=default_delay)
    out: dict = {"db_queue_s": b - a, "rss_base_kb": rss_base, "default_delay": default_delay}
    t0 = time.perf_counter()
    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        pane = app.query_one(QueuePane)
        table = app.query_one(QueueTable)
        _say("app started")
        await until(lambda: pane._loaded and table.row_count >= expected, "the queue")
        _say("queue loaded")
        await frame(pilot)
        out["first_queue_s"] = time.perf_counter() - t0
        out["queue_loaded_msg_s"] = seen.get("QueueLoaded", t0) - t0
        out["rows"] = table.row_count
        out["rss_kb"] = _status_kb("VmRSS")
        out["hwm_kb"] = _status_kb("VmHWM")
        out["visible_rows"] = table.size.height - 1
        await pilot.pause()
        counters.take()
        # cursor moves
        move_t, move_cpu, move_c = [], [], []
        for _ in range(moves):
            c, cpu = time.perf_counter(), time.process_time()
            await pilot.press("down")
            await frame(pilot)
            move_t.append(time.perf_counter() - c)
            move_cpu.append(time.process_time() - cpu)
            move_c.append(counters.take())
        out["move_s"], out["move_cpu_s"], out["move_counts"] = move_t, move_cpu, move_c
        _say("moves done")
        # rulings
        rule_t, rule_c = [], []
        for _ in range(rulings):
            case = pane.current_case()
            assert case is not None
            key = {"IN_SCOPE": "a", "CHANGE_REQUEST": "c", "REJECT": "r"}[case.decision.verdict]
            before = table.row_count
            counters.take()
            c = time.perf_counter()
            await pilot.press(key)
            await frame(pilot)
            _say(f"ruling {case.case_id} with {key}")
            await pilot.click("#confirm-ok")
            _say("confirmed")
            await until(lambda: table.row_count < before, "the ruled row to go")  # noqa: B023
            await frame(pilot)
            rule_t.append(time.perf_counter() - c)
            rule_c.append(counters.take())
            await workers_done()
            await pilot.pause()
        out["rule_s"], out["rule_counts"] = rule_t, rule_c
        _say("rulings done")
        # live search
        app.action_focus_search()
        await workers_done()
        await pilot.pause()
        memory = app.query_one(MemoryPane)
        results: dict[str, list[float]] = {}
        for delay in (default_delay, 0.0):
            app.search_delay = delay
            got: list[float] = []
            for i in range(searches):
                # type all but the last character, let it settle, then time the last one
                search = app.query_one("#memory-search")
                search.value = ""  # type: ignore[attr-defined]
                await workers_done()
                await pilot.pause(max(delay, 0.01) + 0.05)
                query = SEARCH_QUERY if i % 2 == 0 else "emlak vergisi"
                search.value = query[:-1]  # type: ignore[attr-defined]
                search.cursor_position = len(query) - 1  # type: ignore[attr-defined]
                if app.focused is not search:
                    search.focus()
                await pilot.pause(max(delay, 0.01) + 0.05)
                await workers_done()
                await pilot.pause()
                seen.pop("SearchResults", None)
                _say(f"search {query!r} delay {delay}")
                c = time.perf_counter()
                await pilot.press(query[-1])
                await until(lambda: memory.query_text == query  # noqa: B023
                            and "SearchResults" in seen, "search results")
                await frame(pilot)
                got.append(time.perf_counter() - c)
            results[str(delay)] = got
        out["search_s"] = results
    # baseline for search: the desk call alone
    direct = []
    for i in range(searches):
        c = time.perf_counter()
        desk.wiki_search("bench", SEARCH_QUERY if i % 2 == 0 else "emlak vergisi")
        direct.append(time.perf_counter() - c)
    out["search_direct_s"] = direct
    out["hits"] = len(desk.wiki_search("bench", SEARCH_QUERY))
    return out


def child_main(argv: list[str]) -> int:
    db, wiki, expected, moves, rulings, searches = argv
    result = asyncio.run(_child(db, wiki, int(expected), int(moves), int(rulings),
                                int(searches)))
    print("BENCH-TUI-JSON " + json.dumps(result), flush=True)
    return 0


def run(ctx: Context) -> list[Figure]:
    from bench.search import wiki_tree

    size = ctx.size.with_cases(ctx.size.cases, ruled=0)
    db = ctx.copy_store(size, "tui-db")
    wiki_src = wiki_tree(ctx)
    wiki = ctx.base / "scratch" / "tui-wiki"
    if wiki.exists():
        shutil.rmtree(wiki)
    shutil.copytree(wiki_src, wiki / "bench")
    moves, rulings, searches = (3, 1, 1) if ctx.quick else (30, 6, 6)
    cmd = [sys.executable, "-m", "bench.tui", "--child", str(db), str(wiki / "{project}"),
           str(size.cases), str(moves), str(rulings), str(searches)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=3600)
    line = next((x for x in done.stdout.splitlines() if x.startswith("BENCH-TUI-JSON ")), None)
    if done.returncode != 0 or line is None:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise RuntimeError("the headless app failed: " + " / ".join(tail))
    r = json.loads(line.split(" ", 1)[1])
    cells_total = r["rows"] * 6
    mv = stats(ms(r["move_s"]))
    mv_cpu = stats(ms(r["move_cpu_s"]))
    mv_cells = max(c["cell_renders"] for c in r["move_counts"])
    mv_lines = max(c["lines"] for c in r["move_counts"])
    ru = stats(ms(r["rule_s"]))
    ru_cells = max(c["cell_renders"] for c in r["rule_counts"])
    ru_lines = max(c["lines"] for c in r["rule_counts"])
    screenful = r["visible_rows"] * 6
    delay = r["default_delay"]
    shipped = stats(ms(r["search_s"][str(delay)]))
    nodelay = stats(ms(r["search_s"]["0.0"]))
    direct = stats(ms(r["search_direct_s"]))
    return [
        ctx.emit(Figure(NAME, f"first interactive queue ({r['rows']} pending rows)",
                        r["first_queue_s"] * 1000, None, "ms", 1,
                        "Desk.queue_summaries DB read alone", r["db_queue_s"] * 1000,
                        ratio(r["first_queue_s"], r["db_queue_s"]), "<= 1.5 s",
                        r["first_queue_s"] <= 1.5,
                        note=f"QueueLoaded posted at {r['queue_loaded_msg_s']:.2f} s")),
        ctx.emit(Figure(NAME, "RSS with the queue loaded", r["rss_kb"] / 1024,
                        r["hwm_kb"] / 1024, "MB", 1, "same process before the app (imports)",
                        r["rss_base_kb"] / 1024, ratio(r["rss_kb"], r["rss_base_kb"]),
                        "<= 250 MB", r["hwm_kb"] / 1024 <= 250.0,
                        note="p95 column = peak (VmHWM)")),
        ctx.emit(Figure(NAME, f"live search keystroke-to-results (shipped debounce "
                        f"{delay:g} s)", shipped.median, shipped.p95, "ms", shipped.n,
                        "Desk.wiki_search direct", direct.median,
                        ratio(shipped.median, direct.median), "<= 150 ms",
                        shipped.p95 <= 150.0, note=f"{r['hits']} hits")),
        ctx.emit(Figure(NAME, "live search keystroke-to-results (no debounce)",
                        nodelay.median, nodelay.p95, "ms", nodelay.n,
                        "Desk.wiki_search direct", direct.median,
                        ratio(nodelay.median, direct.median), "<= 150 ms",
                        nodelay.p95 <= 150.0)),
        ctx.emit(Figure(NAME, "cursor move (down): CPU of the app per move", mv_cpu.median,
                        mv_cpu.p95, "ms", mv_cpu.n, target="never re-renders the whole table",
                        met=mv_cells < cells_total // 2,
                        note=f"max {mv_cells} cell renders, {mv_lines} lines per move; "
                             f"screenful {screenful} cells, whole table {cells_total}; "
                             f"wall press-to-frame through Pilot median {mv.median:.0f} ms, "
                             f"p95 {mv.p95:.0f} ms (includes Pilot's waits)")),
        ctx.emit(Figure(NAME, "ruling a case (key, confirm, row gone)", ru.median, ru.p95,
                        "ms", ru.n, target="never re-renders the whole table",
                        met=ru_cells < cells_total // 2,
                        note=f"max {ru_cells} cell renders, {ru_lines} lines per ruling; "
                             "time includes the modal and the DB commit (the HITL "
                             "projection follows in its own worker)")),
    ]


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        raise SystemExit(child_main(sys.argv[2:]))
    print("use: python -m bench tui", file=sys.stderr)
    raise SystemExit(2)
