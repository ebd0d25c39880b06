"""The knowledge index (DESIGN.md, "Knowledge index"): one normalized JSON document per
project with nodes (clauses, modules, work items) and typed edges. No graph database.

Node ids are stable: ``clause:{contract}#{number}``, ``module:{id}``, ``workitem:{id}``.
Edges carry a canonical type from the edge vocabulary, a provenance and a weight:

| edge | type | provenance | weight |
|---|---|---|---|
| module -> module from ``depends_on`` | ``depends_on`` | ``explicit`` | 1.0 |
| wikilink in a clause's text or heading | typed, or ``covers``/``excludes``/``cites``/``relates_to`` | ``explicit`` | 1.0 |
| work item -> module it changed | ``touches`` | ``mapped`` | 0.8 |
| heading / frontmatter edge on a clause below it | as declared | ``inherited`` | 0.6 |
| clause -> enclosing clause | ``part_of`` | ``derived`` | 0.5 |

Clause link targets written as ``MSA#3.2`` or ``MSA#Fesih`` are resolved here against
every contract: by number (``3.2``; ``3.2.0`` = ``3.2``), by title or title slug, and a
number whose section was merged into its first child (``1.0`` -> ``1.1``) resolves to
that child. A target that names nothing is listed under ``unresolved``, never dropped
silently and never kept as a dangling edge. The same (source, target, type) found twice
keeps its strongest provenance.

:meth:`KnowledgeIndex.to_bytes` is canonical (sorted keys, nodes sorted by id, edges
sorted, UTF-8, LF, one trailing newline), so the same project gives the same bytes, and
:attr:`KnowledgeIndex.hash` (``sha256:`` + 16 hex digits) is what a decision records as
index freshness.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from etki.domain import Edge, Project, ScopeClause
from etki.text import fold, slugify

__all__ = [
    "FORMAT",
    "PROVENANCE_WEIGHTS",
    "ContractEntry",
    "KnowledgeIndex",
    "Node",
    "Unresolved",
    "build_index",
]

FORMAT = "etki-knowledge-index/1"
PROVENANCE_WEIGHTS: dict[str, float] = {"explicit": 1.0, "mapped": 0.8, "inherited": 0.6,
                                        "derived": 0.5}
"""Weight of an edge by provenance; also the order of strength when one edge is found
twice (explicit > mapped > inherited > derived)."""
_RANK = {name: i for i, name in enumerate(PROVENANCE_WEIGHTS)}
_CORE = ("id", "type", "title", "text")


@dataclass(frozen=True)
class Node:
    """A node of the index. ``type`` is ``clause``, ``module`` or ``workitem``;
    ``title`` is what a person reads (clause title, module id, work-item title); ``text``
    what retrieval scores (clause body, module summary, work-item title); ``attrs`` the
    other fields as sorted (name, value) pairs (clause: ``ref contract number kind level
    parent source line``; module: ``path language``; work item: ``kind date
    effort_days``)."""

    id: str
    type: str
    title: str
    text: str = ""
    attrs: tuple[tuple[str, Any], ...] = ()

    @property
    def data(self) -> dict[str, Any]:
        """``attrs`` as a dict."""
        return dict(self.attrs)

    def get(self, name: str, default: Any = None) -> Any:
        """One attribute by name."""
        return self.data.get(name, default)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "title": self.title, "text": self.text,
                **dict(self.attrs)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Node:
        attrs = tuple(sorted((k, v) for k, v in data.items() if k not in _CORE))
        return cls(data["id"], data["type"], data["title"], data.get("text", ""), attrs)


@dataclass(frozen=True)
class Unresolved:
    """A declared link whose target names no node (kept so a person can fix it)."""

    source: str
    target: str
    type: str
    provenance: str


@dataclass(frozen=True)
class ContractEntry:
    """One contract of the index: where it came from and how it was chunked."""

    id: str
    title: str
    source: str
    chunking: str
    clauses: int


def _edge_dict(edge: Edge) -> dict[str, Any]:
    return {"source": edge.source, "target": edge.target, "type": edge.type,
            "provenance": edge.provenance, "weight": edge.weight}


@dataclass(frozen=True)
class KnowledgeIndex:
    """The knowledge index of one project (build it with :func:`build_index`)."""

    project_id: str
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    contracts: tuple[ContractEntry, ...] = ()
    unresolved: tuple[Unresolved, ...] = ()
    edge_types: tuple[tuple[str, str], ...] = ()
    _by_id: dict[str, Node] = field(default_factory=dict, init=False, repr=False,
                                    compare=False, hash=False)
    _out: dict[str, tuple[Edge, ...]] = field(default_factory=dict, init=False, repr=False,
                                              compare=False, hash=False)
    _in: dict[str, tuple[Edge, ...]] = field(default_factory=dict, init=False, repr=False,
                                             compare=False, hash=False)

    def __post_init__(self) -> None:
        out: dict[str, list[Edge]] = {}
        into: dict[str, list[Edge]] = {}
        for edge in self.edges:
            out.setdefault(edge.source, []).append(edge)
            into.setdefault(edge.target, []).append(edge)
        object.__setattr__(self, "_by_id", {n.id: n for n in self.nodes})
        object.__setattr__(self, "_out", {k: tuple(v) for k, v in out.items()})
        object.__setattr__(self, "_in", {k: tuple(v) for k, v in into.items()})

    # -- lookups -----------------------------------------------------------------------

    def node(self, node_id: str) -> Node | None:
        """The node with id ``node_id`` or None."""
        return self._by_id.get(node_id)

    def nodes_of(self, node_type: str) -> tuple[Node, ...]:
        """All nodes of one type (``clause``, ``module``, ``workitem``), sorted by id."""
        return tuple(n for n in self.nodes if n.type == node_type)

    def edges_from(self, node_id: str) -> tuple[Edge, ...]:
        """Edges whose source is ``node_id`` (sorted)."""
        return self._out.get(node_id, ())

    def edges_to(self, node_id: str) -> tuple[Edge, ...]:
        """Edges whose target is ``node_id`` (sorted)."""
        return self._in.get(node_id, ())

    # -- serialisation -----------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready document (see the module docstring)."""
        counts: dict[str, int] = {"clause": 0, "module": 0, "workitem": 0}
        for node in self.nodes:
            counts[node.type] = counts.get(node.type, 0) + 1
        return {
            "format": FORMAT,
            "project": self.project_id,
            "counts": {"clauses": counts["clause"], "modules": counts["module"],
                       "workitems": counts["workitem"], "edges": len(self.edges),
                       "unresolved": len(self.unresolved)},
            "contracts": [vars(c).copy() for c in self.contracts],
            "edge_types": dict(self.edge_types),
            "nodes": [n.to_dict() for n in self.nodes],
            "edges": [_edge_dict(e) for e in self.edges],
            "unresolved": [vars(u).copy() for u in self.unresolved],
        }

    def to_bytes(self) -> bytes:
        """Canonical JSON bytes: sorted keys, UTF-8 (not ASCII-escaped), indent 1, LF,
        exactly one trailing newline."""
        text = json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False, indent=1)
        return (text + "\n").encode("utf-8")

    @cached_property
    def hash(self) -> str:
        """``"sha256:"`` + the first 16 hex digits of sha256(:meth:`to_bytes`)."""
        return "sha256:" + hashlib.sha256(self.to_bytes()).hexdigest()[:16]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> KnowledgeIndex:
        """Inverse of :meth:`to_dict`; raises ValueError for another format."""
        if data.get("format") != FORMAT:
            raise ValueError(f"not a knowledge index of format {FORMAT}")
        return cls(
            project_id=data["project"],
            nodes=tuple(Node.from_dict(n) for n in data["nodes"]),
            edges=tuple(Edge(e["source"], e["target"], e["type"], e["provenance"],
                             e["weight"]) for e in data["edges"]),
            contracts=tuple(ContractEntry(**c) for c in data["contracts"]),
            unresolved=tuple(Unresolved(**u) for u in data["unresolved"]),
            edge_types=tuple(sorted(data["edge_types"].items())),
        )

    @classmethod
    def from_bytes(cls, data: bytes) -> KnowledgeIndex:
        """Inverse of :meth:`to_bytes`."""
        return cls.from_dict(json.loads(data.decode("utf-8")))

    def write(self, path: str | Path) -> bool:
        """Write :meth:`to_bytes` to ``path`` atomically (temp file + rename), only when
        the bytes differ. Returns True when the file was written."""
        path = Path(path)
        data = self.to_bytes()
        if path.is_file() and path.read_bytes() == data:
            return False
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return True


# --- building -------------------------------------------------------------------------

def _norm_number(number: str) -> str:
    parts = number.split(".")
    while len(parts) > 1 and parts[-1] == "0":
        parts.pop()
    return ".".join(parts)


class _ClauseResolver:
    """Resolves ``clause:{contract}#{number or heading}`` against the loaded clauses."""

    def __init__(self, clauses: Iterable[ScopeClause]) -> None:
        self.by_contract: dict[str, list[ScopeClause]] = {}
        for clause in clauses:
            self.by_contract.setdefault(clause.contract_id, []).append(clause)
        self.folded = {fold(cid): cid for cid in self.by_contract}

    def resolve(self, contract: str, head: str) -> str | None:
        cid = contract if contract in self.by_contract else self.folded.get(fold(contract))
        if cid is None:
            return None
        clauses = self.by_contract[cid]
        head = head.strip()
        norm = _norm_number(head)
        slug = slugify(head)
        tests = (
            lambda c: c.number == head,
            lambda c: _norm_number(c.number) == norm,
            lambda c: fold(c.title) == fold(head)
            or fold(c.title.rsplit(" › ", 1)[-1]) == fold(head),
            lambda c: slugify(c.title) == slug or slugify(c.title).endswith("-" + slug),
            lambda c: _norm_number(c.number).startswith(norm + "."),
        )
        for test in tests:
            for clause in clauses:
                if test(clause):
                    return f"clause:{clause.ref}"
        return None


def _clause_node(clause: ScopeClause) -> Node:
    attrs = {"ref": clause.ref, "contract": clause.contract_id, "number": clause.number,
             "kind": clause.kind, "level": clause.level,
             "parent": f"clause:{clause.parent}" if clause.parent else None,
             "source": clause.source, "line": clause.line}
    return Node(f"clause:{clause.ref}", "clause", clause.title, clause.text,
                tuple(sorted(attrs.items())))


def build_index(project: Project) -> KnowledgeIndex:
    """Build the knowledge index of a loaded ``project`` (pure: no I/O, no clock).

    Nodes: every clause, module and work item. Edges: see the module docstring. Clause
    edge targets are resolved here; unknown ones go to ``unresolved``. Deterministic:
    the same project gives the same :meth:`KnowledgeIndex.to_bytes` (and hash).
    """
    nodes: dict[str, Node] = {}
    for clause in project.clauses:
        nodes[f"clause:{clause.ref}"] = _clause_node(clause)
    for module in project.modules:
        nodes[f"module:{module.id}"] = Node(
            f"module:{module.id}", "module", module.id, module.summary,
            tuple(sorted({"path": module.path, "language": module.language}.items())))
    for item in project.workitems:
        nodes[f"workitem:{item.id}"] = Node(
            f"workitem:{item.id}", "workitem", item.title, item.title,
            tuple(sorted({"kind": item.kind, "date": item.date,
                          "effort_days": item.effort_days}.items())))

    found: list[Edge] = []
    unresolved: set[Unresolved] = set()
    for module in project.modules:
        for dep in module.depends_on:
            found.append(Edge(f"module:{module.id}", f"module:{dep}", "depends_on",
                              "explicit", PROVENANCE_WEIGHTS["explicit"]))
    for item in project.workitems:
        for mod in item.modules:
            found.append(Edge(f"workitem:{item.id}", f"module:{mod}", "touches", "mapped",
                              PROVENANCE_WEIGHTS["mapped"]))
    resolver = _ClauseResolver(project.clauses)
    for clause in project.clauses:
        source = f"clause:{clause.ref}"
        if clause.parent:
            found.append(Edge(source, f"clause:{clause.parent}", "part_of", "derived",
                              PROVENANCE_WEIGHTS["derived"]))
        for edge in clause.edges:
            target = _resolve(edge.target, nodes, resolver)
            if target is None:
                unresolved.add(Unresolved(source, edge.target, edge.type, edge.provenance))
                continue
            if target != source:
                found.append(Edge(source, target, edge.type, edge.provenance, edge.weight))

    best: dict[tuple[str, str, str], Edge] = {}
    for edge in found:
        key = (edge.source, edge.target, edge.type)
        old = best.get(key)
        if old is None or (_RANK[edge.provenance], -edge.weight) < (_RANK[old.provenance],
                                                                     -old.weight):
            best[key] = edge
    edges = tuple(sorted(best.values(),
                         key=lambda e: (e.source, e.target, e.type, e.provenance)))
    contracts = tuple(ContractEntry(c.id, c.title, c.source, c.chunking, len(c.clauses))
                      for c in sorted(project.contracts, key=lambda c: c.id))
    return KnowledgeIndex(
        project_id=project.id,
        nodes=tuple(nodes[k] for k in sorted(nodes)),
        edges=edges,
        contracts=contracts,
        unresolved=tuple(sorted(unresolved, key=lambda u: (u.source, u.target, u.type,
                                                           u.provenance))),
        edge_types=tuple(sorted(project.edge_types)),
    )


def _resolve(target: str, nodes: dict[str, Node], resolver: _ClauseResolver) -> str | None:
    if target in nodes:
        return target
    if target.startswith("clause:"):
        contract, sep, head = target[len("clause:"):].partition("#")
        return resolver.resolve(contract, head) if sep else None
    if target.startswith(("module:", "workitem:")):
        return None
    for prefix in ("module:", "workitem:"):
        if prefix + target in nodes:
            return prefix + target
    return None
