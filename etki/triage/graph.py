"""What the engine reads from the knowledge index (one job: index -> engine inputs).

The engine never reads clauses, modules or work items from the project folder: it reads
them from the :class:`etki.knowledge.KnowledgeIndex` (issue 4, "the engine reads its
clauses and edges from this index"):

* clauses: the ``clause`` nodes in project order (``seq``), with number, title, text
  (the source markdown, node attribute ``markdown``), ``plain`` (the node text: plain
  text for scoring), ``subtitles``, kind, level, parent, source line and ``status``
  (``draft`` scores lower); an index written before ``markdown`` existed holds the
  markdown as node text, and ``plain`` is then computed from it; chunk nodes
  are parts of a clause for retrieval, the engine scores and cites whole clauses;
* modules: the ``module`` nodes in file order, ``depends_on`` from their
  ``depends_on`` edges;
* work items: the ``workitem`` nodes in file order, ``modules`` from their ``touches``
  edges.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from etki.domain import Module, ScopeClause, WorkItem

if TYPE_CHECKING:
    from etki.knowledge import KnowledgeIndex

__all__ = ["EngineGraph", "read_graph"]


@dataclass(frozen=True)
class EngineGraph:
    """The engine's view of an index: ``clauses``, ``modules``, ``workitems`` in project
    order."""

    clauses: tuple[ScopeClause, ...]
    modules: tuple[Module, ...]
    workitems: tuple[WorkItem, ...]


def _bare(node_id: str, prefix: str) -> str:
    return node_id[len(prefix) :] if node_id.startswith(prefix) else node_id


def read_graph(index: KnowledgeIndex) -> EngineGraph:
    """Clauses, modules and work items of ``index`` (see the module docstring)."""
    clauses = []
    for node in index.in_order("clause"):
        parent = node.get("parent")
        markdown = node.get("markdown")
        clauses.append(
            ScopeClause(
                ref=str(node.get("ref")),
                contract_id=str(node.get("contract")),
                number=str(node.get("number")),
                title=node.title,
                text=node.text if markdown is None else str(markdown),
                plain="" if markdown is None else node.text,
                subtitles=tuple((str(t), int(line)) for t, line in node.get("subtitles", ())),
                kind=node.get("kind", "inclusion"),
                level=int(node.get("level", 2)),
                source=str(node.get("source", "")),
                line=int(node.get("line", 0)),
                parent=_bare(parent, "clause:") if parent else None,
                status=node.get("status", "stable"),
                aliases=tuple(node.get("aliases", ())),
            )
        )
    modules = []
    for node in index.in_order("module"):
        deps = tuple(
            _bare(e.target, "module:")
            for e in index.edges_from(node.id)
            if e.type == "depends_on" and e.target.startswith("module:")
        )
        modules.append(
            Module(
                id=_bare(node.id, "module:"),
                path=str(node.get("path") or ""),
                summary=node.text,
                depends_on=deps,
                language=node.get("language"),
            )
        )
    items = []
    for node in index.in_order("workitem"):
        touched = tuple(
            _bare(e.target, "module:")
            for e in index.edges_from(node.id)
            if e.type == "touches" and e.target.startswith("module:")
        )
        effort = node.get("effort_days")
        items.append(
            WorkItem(
                id=_bare(node.id, "workitem:"),
                title=node.title,
                kind=str(node.get("kind", "feature")),
                date=str(node.get("date") or ""),
                modules=touched,
                effort_days=None if effort is None else float(effort),
            )
        )
    return EngineGraph(tuple(clauses), tuple(modules), tuple(items))
