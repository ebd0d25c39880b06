"""The layering contracts of ``[tool.importlinter]`` (pyproject.toml), checked by the real
``lint-imports`` over the whole import graph (function-level and type-checking imports
included): the core never imports the TUI or Textual, the markdown-to-text kernel
(``etki.mdtext``) imports nothing of Etki above it, the store imports nothing above
it, the commands and the MCP server use the store only through the desk, the TUI never
imports the store, approval, the lower layers or the wiki projection (its value types
come from ``etki.domain``), ``etki`` is layered exhaustively (the doors ``cli`` >
``commands`` > ``mcp`` > ``services`` > the jobs > the engines and retrieval > the core
areas > knowledge, memory, pre-analysis and the store > ``domain`` > the helpers, so the
lower layers never import the desk, the commands or the MCP server, approval never
imports the wiki, and a new module must be placed in pyproject.toml), ``etki_tui`` is
layered exhaustively (``__main__`` > ``app`` > ``flows`` > the tab folders ``queue`` |
``hafiza`` | ``raporlar``, which never import each other > ``screens`` > the shared
modules), and the modules of ``etki``, ``etki.domain``, ``etki.knowledge``,
``etki.knowledge.contracts``, ``etki.mdtext``, ``etki.wiki``, ``etki.wiki.pages`` and
``etki_tui`` import each other without cycles."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CONTRACTS = (
    "etki never imports etki_tui or textual",
    "etki.mdtext imports nothing of etki but etki.text and etki.lazy",
    "etki.store imports nothing above it",
    "the commands reach the store, rulings and the projector only through the desk",
    "the TUI reaches the core through the desk, its types through etki.domain",
    "etki layers: doors > services > core > domain > helpers",
    "etki_tui layers: __main__ > app > flows > tabs > screens > shared",
    "no import cycles between the modules of a package",
)


def _lint_imports() -> str:
    beside = Path(sys.executable).with_name("lint-imports")
    found = str(beside) if beside.is_file() else shutil.which("lint-imports")
    assert found, "lint-imports is missing: install the test extra (pip install -e '.[test]')"
    return found


def test_import_contracts_are_kept():
    done = subprocess.run(
        [_lint_imports(), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=600,
        check=False,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    for name in CONTRACTS:
        assert f"{name} KEPT" in out, out
    assert f"Contracts: {len(CONTRACTS)} kept, 0 broken." in out, out


KNOWN_CYCLES = [
    # `python -m etki.wiki` must live in the wiki package; its __main__ runs the command
    ("etki.commands", "etki.wiki"),
]


def test_no_other_two_way_imports():
    """The only sibling modules that import each other are the ones named here, each with
    its reason (each is also an ``ignore_imports`` entry of the contracts); a
    new two-way import fails, and so does one of these once it is gone (then drop it)."""
    from tests.import_cycles import sibling_cycles

    assert sorted(sibling_cycles()) == sorted(KNOWN_CYCLES)
