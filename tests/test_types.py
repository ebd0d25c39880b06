"""The static checks run as tests, by the real tools of the test extra: ``mypy`` over
``etki`` and ``etki_tui`` (configured in ``[tool.mypy]`` of pyproject.toml), and ``ruff
check`` and ``ruff format --check`` over the code, the tests and the benchmarks
(``[tool.ruff]``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=600,
        check=False,
    )


def test_mypy_finds_no_type_errors() -> None:
    done = _run("mypy")
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert out.startswith("Success: no issues found in "), out


def test_ruff_check_is_clean() -> None:
    done = _run("ruff", "check", "--no-cache", "etki", "etki_tui", "tests", "bench")
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "All checks passed!" in out, out


def test_ruff_format_leaves_every_file_as_it_is() -> None:
    """The code is kept in ``ruff format`` style: a file it would change fails here
    (run ``ruff format etki etki_tui tests bench`` to apply it)."""
    done = _run("ruff", "format", "--check", "--no-cache", "etki", "etki_tui", "tests", "bench")
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
