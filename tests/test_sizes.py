"""The size ratchet (issue 31): no module over 800 lines and no class over 40 methods of
its own, so a newcomer can read a part in one sitting.

What is still above is listed in :data:`ALLOWED_LINES` and :data:`ALLOWED_METHODS` with
the size it had when the ratchet was set. The lists only shrink: a listed part may not
grow past its figure, and once it is within the limit its entry must go (the test says
so), so it cannot grow back. A new part over the limit fails at once.

Lines are newline characters (``wc -l``); methods are the ``def`` and ``async def``
statements directly in a class body (inherited ones count where they are defined).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("etki", "etki_tui")
MAX_LINES = 800
MAX_METHODS = 40

ALLOWED_LINES: dict[str, int] = {}
"""Modules still over :data:`MAX_LINES`: path -> lines when the ratchet was set."""

ALLOWED_METHODS: dict[str, int] = {}
"""Classes still over :data:`MAX_METHODS`: ``path::class`` -> methods when it was set."""


def _modules() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def _sizes() -> tuple[dict[str, int], dict[str, int]]:
    lines: dict[str, int] = {}
    methods: dict[str, int] = {}
    for path in _modules():
        rel = path.relative_to(ROOT).as_posix()
        src = path.read_text(encoding="utf-8")
        lines[rel] = src.count("\n")
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.ClassDef):
                own = sum(isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)) for b in node.body)
                methods[f"{rel}::{node.name}"] = own
    return lines, methods


def _check(sizes: dict[str, int], allowed: dict[str, int], limit: int, what: str) -> list[str]:
    problems = []
    for name, size in sorted(sizes.items()):
        cap = allowed.get(name)
        if cap is None and size > limit:
            problems.append(f"{name}: {size} {what}, over the limit of {limit}")
        elif cap is not None and size > cap:
            problems.append(f"{name}: {size} {what}, grew past its allowance of {cap}")
        elif cap is not None and size <= limit:
            problems.append(
                f"{name}: {size} {what}, within the limit now: remove it from the allowance"
            )
    problems += [
        f"{name}: listed in the allowance but not found (moved? remove or rename the entry)"
        for name in sorted(set(allowed) - set(sizes))
    ]
    return problems


@pytest.fixture(scope="module")
def sizes() -> tuple[dict[str, int], dict[str, int]]:
    return _sizes()


def test_no_module_over_the_line_limit(sizes: tuple[dict[str, int], dict[str, int]]) -> None:
    assert _check(sizes[0], ALLOWED_LINES, MAX_LINES, "lines") == []


def test_no_class_over_the_method_limit(sizes: tuple[dict[str, int], dict[str, int]]) -> None:
    assert _check(sizes[1], ALLOWED_METHODS, MAX_METHODS, "methods") == []


def test_the_check_catches_growth_and_stale_entries() -> None:
    """The checker itself: growth, a new part over the limit and a stale entry fail."""
    allowed = {"a.py": 900, "b.py": 900, "gone.py": 900}
    got = _check({"a.py": 901, "b.py": 700, "c.py": 801}, allowed, 800, "lines")
    assert got == [
        "a.py: 901 lines, grew past its allowance of 900",
        "b.py: 700 lines, within the limit now: remove it from the allowance",
        "c.py: 801 lines, over the limit of 800",
        "gone.py: listed in the allowance but not found (moved? remove or rename the entry)",
    ]
