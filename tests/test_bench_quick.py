"""``python -m bench all --quick`` runs (issue 7): every benchmark prints at least one
figure line and the command exits 0. Nothing here looks at a time — speed targets live
in the benchmarks and BENCH.md, never in tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.__main__ import BENCHMARKS

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_bench_all_quick_runs(tmp_path: Path) -> None:
    env = {**os.environ, "ETKI_BENCH_DIR": str(tmp_path)}
    env.pop("ETKI_DB_URL", None)
    env.pop("ETKI_WIKI_DIR", None)
    done = subprocess.run(
        [sys.executable, "-m", "bench", "all", "--quick", "--json", str(tmp_path / "figures.json")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for name in BENCHMARKS:
        assert f"\n[{name}] " in "\n" + done.stdout, f"no figure line from {name}"
    assert (tmp_path / "figures.json").is_file()
