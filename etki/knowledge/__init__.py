"""Project folder -> knowledge index (DESIGN.md, "Project folder" and "Knowledge index").

* :func:`load_project` reads and validates a project folder into a frozen
  :class:`etki.domain.Project` (raises :class:`etki.errors.ProjectFormatError`).
* :func:`build_index` turns a project into a :class:`KnowledgeIndex` (nodes, typed edges,
  canonical bytes and a content hash recorded by decisions as index freshness).

The parts: ``loader`` (files), ``contracts`` (markdown -> scope clauses), ``links``
(wikilinks), ``vocabulary`` (edge types), ``index`` (the index).
"""

from etki.knowledge.index import KnowledgeIndex, build_index
from etki.knowledge.loader import load_project

__all__ = ["KnowledgeIndex", "build_index", "load_project"]
