"""Textual is pinned exactly (issue 31): the SVG snapshots under ``snapshots/tui/`` are
the bytes one Textual release draws, so a range would let a fresh install draw others.
The pin in pyproject.toml must name the release that is installed, so the snapshots
checked here are the ones CI checks."""

from __future__ import annotations

import tomllib
from importlib.metadata import version
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]


def _requirement(name: str) -> Requirement:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    found = [Requirement(r) for r in data["project"]["dependencies"]]
    named = [r for r in found if r.name == name]
    assert len(named) == 1, f"pyproject.toml lists {name} {len(named)} times, not once"
    return named[0]


def test_textual_is_pinned_to_the_installed_release() -> None:
    req = _requirement("textual")
    specs = list(req.specifier)
    assert len(specs) == 1, f"textual must be pinned with one '==', not {req.specifier}"
    assert specs[0].operator == "==", f"textual must be pinned with '==', not {specs[0]}"
    assert specs[0].version == version("textual"), (
        f"pyproject pins textual {specs[0].version}, installed is {version('textual')}"
    )
