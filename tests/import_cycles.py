"""Two-way imports between sibling modules of Etki's packages, over the whole import graph
(function-level and type-checking imports included; grimp, installed with import-linter).

usage: python tests/import_cycles.py     one ``cycle: A <-> B`` line per pair, exit 0

Runs on any checkout (it needs no ``[tool.importlinter]`` section), so a before/after of
the layering can be compared; :func:`sibling_cycles` is what tests/test_layers.py checks.
"""

from __future__ import annotations

import sys
from pathlib import Path

PACKAGES = (
    "etki",
    "etki.domain",
    "etki.knowledge",
    "etki.knowledge.contracts",
    "etki.mdtext",
    "etki.wiki",
    "etki.wiki.pages",
    "etki.retrieval",
    "etki.triage",
    "etki.store",
    "etki.store.repository",
    "etki.evaluation",
    "etki_tui",
)


def sibling_cycles() -> list[tuple[str, str]]:
    """Sorted ``(a, b)`` pairs of children of one of :data:`PACKAGES` that import each
    other (a package counts with everything under it)."""
    import grimp

    graph = grimp.build_graph("etki", "etki_tui")
    found = []
    for package in PACKAGES:
        kids = sorted(graph.find_children(package))
        for i, a in enumerate(kids):
            for b in kids[i + 1 :]:
                if graph.direct_import_exists(
                    importer=a, imported=b, as_packages=True
                ) and graph.direct_import_exists(importer=b, imported=a, as_packages=True):
                    found.append((a, b))
    return found


if __name__ == "__main__":
    sys.path.insert(0, str(Path.cwd()))
    for a, b in sibling_cycles():
        print(f"cycle: {a} <-> {b}")
