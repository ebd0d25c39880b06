"""``python -m bench all --quick`` runs (issue 7): every benchmark prints at least one
figure line and the command exits 0. Nothing here looks at a time — speed targets live
in the benchmarks and BENCH.md, never in tests.

The benchmarks run in groups, one ``python -m bench NAME… --quick`` process each, so
pytest-xdist spreads them over its workers (one serial ``bench all --quick`` was the
suite's longest test, about 4 minutes under load). A group holds the benchmarks that
share a generated fixture (``wiki_rebuild`` and ``search`` read the same all-ruled store),
so it is built once as before. ``all`` is the same command over :data:`BENCHMARKS`
(:func:`bench.__main__.selected`, checked below)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.__main__ import BENCHMARKS, selected

REPO = Path(__file__).resolve().parent.parent

GROUPS = (
    ("cli",),
    ("triage", "expand"),
    ("wiki_rebuild", "search"),
    ("hitl",),
    ("tui",),
    ("init",),
)
"""Every benchmark once; the ones in a group share the group's fixture cache."""


def test_the_groups_hold_every_benchmark_once():
    assert sorted(name for group in GROUPS for name in group) == sorted(BENCHMARKS)


def test_all_selects_every_benchmark_in_order():
    assert selected(["all"]) == list(BENCHMARKS)
    assert selected(["search", "all"]) == list(BENCHMARKS)
    assert selected(["search", "cli", "search"]) == ["search", "cli"]


@pytest.mark.slow
@pytest.mark.parametrize("group", GROUPS, ids="+".join)
def test_bench_quick_runs(group: tuple[str, ...], tmp_path: Path) -> None:
    env = {**os.environ, "ETKI_BENCH_DIR": str(tmp_path)}
    env.pop("ETKI_DB_URL", None)
    env.pop("ETKI_WIKI_DIR", None)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench",
            *group,
            "--quick",
            "--json",
            str(tmp_path / "figures.json"),
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for name in group:
        assert f"\n[{name}] " in "\n" + done.stdout, f"no figure line from {name}"
    assert (tmp_path / "figures.json").is_file()
    written = json.loads((tmp_path / "figures.json").read_text(encoding="utf-8"))
    assert {f["bench"] for f in written["figures"]} == set(group)
