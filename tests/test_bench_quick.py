"""``python -m bench all --quick`` runs and every benchmark reports. It asserts no time:
speed targets live in bench/ and BENCH.md only."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAMES = ("triage", "wiki_rebuild", "hitl", "search", "expand", "tui", "init")


def test_bench_all_quick_runs(tmp_path):
    env = {**os.environ, "ETKI_BENCH_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "bench", "all", "--quick",
                           "--workdir", str(tmp_path / "work")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    for name in NAMES:
        assert f"[{name}]" in done.stdout, f"benchmark {name} printed no figure"
