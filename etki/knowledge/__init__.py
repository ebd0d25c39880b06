"""Project folder -> knowledge index (DESIGN.md, "Project folder" and "Knowledge index").

* :func:`load_project` reads and validates a project folder into a frozen
  :class:`etki.domain.Project` (raises :class:`etki.errors.ProjectFormatError`).
* :func:`build_index` turns a project into a :class:`KnowledgeIndex` (nodes, typed edges,
  canonical bytes and a content hash recorded by decisions as index freshness).

The parts, one job each: ``loader`` (files), ``contracts`` (markdown -> scope clauses),
``structure`` (by_heading or sliding_window, with metrics), ``chunking`` (size limit,
windows with overlap), ``links`` (wikilinks), ``resolve`` (link targets -> node ids,
never guessed), ``vocabulary`` + ``default_vocabulary.yaml`` (edge types, inverses,
signatures, en/tr/de aliases), ``edgesfile`` (accepted links, ``edges.yaml``), ``gate``
+ ``verdict`` (candidate edges checked lexically or by a model over
:mod:`etki.endpoints`), ``matching`` (fuzzy
keywords), ``enricher`` (suggested clause -> module links), ``lint`` (index problems),
``provenance`` (edge weights), ``node`` and ``index`` (the index). The command ``etki
index build|show|lint|suggest`` is :mod:`etki.commands.index`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from etki.lazy import lazy_exports

if TYPE_CHECKING:
    from etki.knowledge.index import KnowledgeIndex, build_index
    from etki.knowledge.loader import load_project

_LAZY = {
    "KnowledgeIndex": "etki.knowledge.index",
    "build_index": "etki.knowledge.index",
    "load_project": "etki.knowledge.loader",
}
"""Re-exported name -> the module defining it, imported on first use (PEP 562): a
part such as :mod:`etki.knowledge.plaintext`, which every clause read from the store
uses, then loads neither the index builder nor the loader (0.2 s of imports, measured
with ``python -X importtime``; issue 15)."""


__getattr__ = lazy_exports(__name__, _LAZY)


__all__ = ["KnowledgeIndex", "build_index", "load_project"]
