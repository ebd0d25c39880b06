"""The knowledge index (DESIGN.md, "Knowledge index"): one normalized JSON document per
project with nodes (clauses, their chunks, modules, work items) and typed edges. No graph
database.

Node ids are stable: ``clause:{contract}#{number}``, ``chunk:{contract}#{number}~{k}``
(part k of a clause longer than the chunk size limit), ``module:{id}``,
``workitem:{id}``. Every node has a ``seq`` attribute: its position in the project
(document order for clauses and chunks, file order for modules and work items).

Edges carry a canonical type from the edge vocabulary, a provenance, a weight and the
location they were declared at (``contracts/msa.md:42``, ``modules.yaml:12``; a derived
edge the line of the clause or chunk it comes from):

| edge | type | provenance | weight |
|---|---|---|---|
| module -> module from ``depends_on`` | ``depends_on`` | ``explicit`` | 1.0 |
| wikilink in a clause's text or heading | typed, or ``covers``/``excludes``/``cites``/``relates_to`` | ``explicit`` | 1.0 |
| work item -> module it changed | ``touches`` | ``mapped`` | 0.8 |
| ``edges.yaml`` (accepted links) | as written | ``mapped`` | 0.8 |
| candidate admitted by the validation gate | as written, or by target | ``mapped`` | 0.8 |
| heading / frontmatter edge on a clause or chunk below it | as declared | ``inherited`` | 0.6 |
| clause -> enclosing clause; chunk -> its clause | ``part_of`` | ``derived`` | 0.5 |
| chunk -> the next chunk of the same clause | ``precedes`` | ``derived`` | 0.5 |

Link targets are resolved by :mod:`etki.knowledge.resolve`; a target that names
nothing is listed under ``unresolved`` with its original text and location, never
dropped silently, never guessed and never kept as a dangling edge. Numbers of empty
parents merged into a child are ``aliases`` (``clause:tdrs-rfq#1.0`` ->
``clause:tdrs-rfq#1.1``). The same (source, target, type) found twice keeps its strongest
provenance (explicit > mapped > inherited > derived), then its first location.
Candidate edges go through the validation gate (:mod:`etki.knowledge.gate`); every
check is listed under ``candidates``.

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
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from etki.domain import (
    ACCEPTED_REMIT_PREFIX,
    REMIT_CONTRACT_ID,
    ClauseChunk,
    Edge,
    Project,
    ScopeClause,
    is_accepted_remit,
)
from etki.knowledge.gate import CandidateRecord, LexicalValidator, Validator, run_gate
from etki.knowledge.node import Node
from etki.knowledge.provenance import PROVENANCE_WEIGHTS
from etki.knowledge.resolve import ClauseResolver, resolve_target
from etki.knowledge.vocabulary import EdgeVocabulary

__all__ = [
    "FORMAT",
    "ContractEntry",
    "KnowledgeIndex",
    "Node",
    "Unresolved",
    "build_index",
    "with_accepted_remit",
]

FORMAT = "etki-knowledge-index/1"
"""The format name; fields are only ever added to it, so readers of older files work."""
_RANK = {name: i for i, name in enumerate(PROVENANCE_WEIGHTS)}  # 0 is the strongest


@dataclass(frozen=True)
class Unresolved:
    """A declared link whose target (or source) names no node, kept so a person can fix
    it: ``text`` is how it was written and ``location`` where (``contracts/msa.md:27``)."""

    source: str
    target: str
    type: str
    provenance: str
    location: str = ""
    text: str = ""


@dataclass(frozen=True)
class ContractEntry:
    """One contract of the index: where it came from, how it was chunked and the
    structure analyser's ``metrics`` behind that choice (sorted (name, value) pairs,
    see :mod:`etki.knowledge.structure`) and the ``fallbacks`` its structure was read
    with (``Contract.fallbacks``; written only when there is one, so an index without
    any keeps its bytes and hash)."""

    id: str
    title: str
    source: str
    chunking: str
    clauses: int
    metrics: tuple[tuple[str, float], ...] = ()
    fallbacks: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "title": self.title,
            "source": self.source,
            "chunking": self.chunking,
            "clauses": self.clauses,
            "metrics": dict(self.metrics),
        }
        if self.fallbacks:
            out["fallbacks"] = list(self.fallbacks)
        return out

    def warnings(self) -> list[str]:
        """Where this document's structure was read with a fallback, one line each with
        its file and line: a block split before a heading it swallowed, a heading left
        as text (:mod:`etki.knowledge.blockfix`), or no usable heading structure at all
        (sliding windows). ``etki init`` and ``etki index show`` print them."""
        out = list(self.fallbacks)
        if self.chunking == "sliding_window":
            out.append(
                f"{self.source}:1: no usable heading structure; read as windows of "
                "blocks, not by section (fallback: sliding_window)"
            )
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ContractEntry:
        return cls(
            data["id"],
            data["title"],
            data["source"],
            data["chunking"],
            data["clauses"],
            tuple(sorted((data.get("metrics") or {}).items())),
            tuple(str(f) for f in data.get("fallbacks") or ()),
        )


def _edge_dict(edge: Edge) -> dict[str, Any]:
    return {
        "source": edge.source,
        "target": edge.target,
        "type": edge.type,
        "provenance": edge.provenance,
        "weight": edge.weight,
        "location": edge.location,
    }


def _digest(data: bytes) -> str:
    """:attr:`KnowledgeIndex.hash` of the index whose :meth:`~KnowledgeIndex.to_bytes`
    are ``data``."""
    return "sha256:" + hashlib.sha256(data).hexdigest()[:16]


@dataclass(frozen=True)
class KnowledgeIndex:
    """The knowledge index of one project (build it with :func:`build_index`)."""

    project_id: str
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    contracts: tuple[ContractEntry, ...] = ()
    unresolved: tuple[Unresolved, ...] = ()
    edge_types: tuple[tuple[str, str], ...] = ()
    aliases: tuple[tuple[str, str], ...] = ()
    candidates: tuple[CandidateRecord, ...] = ()
    edge_inverses: tuple[tuple[str, str], ...] = ()
    _by_id: dict[str, Node] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )
    _out: dict[str, tuple[Edge, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        out: dict[str, list[Edge]] = {}
        for edge in self.edges:
            out.setdefault(edge.source, []).append(edge)
        object.__setattr__(self, "_by_id", {n.id: n for n in self.nodes})
        object.__setattr__(self, "_out", {k: tuple(v) for k, v in out.items()})

    # -- lookups -----------------------------------------------------------------------

    def node(self, node_id: str) -> Node | None:
        """The node with id ``node_id`` or None."""
        return self._by_id.get(node_id)

    def nodes_of(self, node_type: str) -> tuple[Node, ...]:
        """All nodes of one type (``clause``, ``chunk``, ``module``, ``workitem``),
        sorted by id."""
        return tuple(n for n in self.nodes if n.type == node_type)

    def in_order(self, node_type: str) -> tuple[Node, ...]:
        """All nodes of one type in project order (their ``seq``)."""
        return tuple(sorted(self.nodes_of(node_type), key=lambda n: n.get("seq", 0)))

    def edges_from(self, node_id: str) -> tuple[Edge, ...]:
        """Edges whose source is ``node_id`` (sorted)."""
        return self._out.get(node_id, ())

    def resolve(self, node_id: str) -> str | None:
        """``node_id`` itself when it is a node, the node an alias stands for
        (``clause:tdrs-rfq#1.0`` -> ``clause:tdrs-rfq#1.1``), else None."""
        if node_id in self._by_id:
            return node_id
        return dict(self.aliases).get(node_id)

    # -- serialisation -----------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready document (see the module docstring)."""
        counts: dict[str, int] = {"clause": 0, "chunk": 0, "module": 0, "workitem": 0}
        for node in self.nodes:
            counts[node.type] = counts.get(node.type, 0) + 1
        return {
            "format": FORMAT,
            "project": self.project_id,
            "counts": {
                "clauses": counts["clause"],
                "chunks": counts["chunk"],
                "modules": counts["module"],
                "workitems": counts["workitem"],
                "edges": len(self.edges),
                "unresolved": len(self.unresolved),
                "candidates": len(self.candidates),
            },
            "contracts": [c.to_dict() for c in self.contracts],
            "edge_types": dict(self.edge_types),
            "edge_inverses": dict(self.edge_inverses),
            "aliases": dict(self.aliases),
            "nodes": [n.to_dict() for n in self.nodes],
            "edges": [_edge_dict(e) for e in self.edges],
            "unresolved": [vars(u).copy() for u in self.unresolved],
            "candidates": [vars(c).copy() for c in self.candidates],
        }

    def to_bytes(self) -> bytes:
        """Canonical JSON bytes: sorted keys, UTF-8 (not ASCII-escaped), indent 1, LF,
        exactly one trailing newline. Also fills :attr:`hash` from them, so a caller
        that needs both serialises once (call this first)."""
        text = json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False, indent=1)
        data = (text + "\n").encode("utf-8")
        self.__dict__.setdefault("hash", _digest(data))  # the cache of cached_property
        return data

    @cached_property
    def hash(self) -> str:
        """``"sha256:"`` + the first 16 hex digits of sha256(:meth:`to_bytes`)."""
        return _digest(self.to_bytes())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> KnowledgeIndex:
        """Inverse of :meth:`to_dict`; fields added after an index was written get their
        defaults. Raises ValueError for another format."""
        if data.get("format") != FORMAT:
            raise ValueError(f"not a knowledge index of format {FORMAT}")
        return cls(
            project_id=data["project"],
            nodes=tuple(Node.from_dict(n) for n in data["nodes"]),
            edges=tuple(
                Edge(
                    e["source"],
                    e["target"],
                    e["type"],
                    e["provenance"],
                    e["weight"],
                    e.get("location", ""),
                )
                for e in data["edges"]
            ),
            contracts=tuple(ContractEntry.from_dict(c) for c in data["contracts"]),
            unresolved=tuple(Unresolved(**u) for u in data["unresolved"]),
            edge_types=tuple(sorted(data["edge_types"].items())),
            aliases=tuple(sorted((data.get("aliases") or {}).items())),
            candidates=tuple(CandidateRecord(**c) for c in data.get("candidates") or ()),
            edge_inverses=tuple(sorted((data.get("edge_inverses") or {}).items())),
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
        except BaseException as exc:
            Path(tmp).unlink(missing_ok=True)
            if isinstance(exc, OSError) and exc.filename is None:
                exc.filename = str(path)  # a full disk names the file (issue 11 item 8)
            raise
        return True


# --- building -------------------------------------------------------------------------


def _clause_node(clause: ScopeClause, seq: int) -> Node:
    attrs: dict[str, Any] = {
        "ref": clause.ref,
        "contract": clause.contract_id,
        "number": clause.number,
        "kind": clause.kind,
        "level": clause.level,
        "parent": f"clause:{clause.parent}" if clause.parent else None,
        "source": clause.source,
        "line": clause.line,
        "seq": seq,
        "status": clause.status,
        "markdown": clause.text,
    }
    if clause.subtitles:
        attrs["subtitles"] = tuple(tuple(pair) for pair in clause.subtitles)
    if clause.aliases:
        attrs["aliases"] = tuple(clause.aliases)
    if clause.overlap:
        attrs["overlap"] = clause.overlap
    if clause.chunks:
        attrs["chunks"] = len(clause.chunks)
    return Node(
        f"clause:{clause.ref}", "clause", clause.title, clause.plain, tuple(sorted(attrs.items()))
    )


def _chunk_node(clause: ScopeClause, chunk: ClauseChunk, k: int, seq: int) -> Node:
    n = len(clause.chunks)
    attrs = {
        "clause": f"clause:{clause.ref}",
        "contract": clause.contract_id,
        "part": k,
        "parts": n,
        "kind": clause.kind,
        "status": clause.status,
        "source": clause.source,
        "line": chunk.line,
        "seq": seq,
        "markdown": chunk.text,
    }
    if chunk.subtitle:
        attrs["subtitle"] = chunk.subtitle
    return Node(
        f"chunk:{clause.ref}~{k}",
        "chunk",
        f"{clause.title} ({k}/{n})",
        chunk.plain,
        tuple(sorted(attrs.items())),
    )


def _derived(source: str, target: str, etype: str, location: str) -> Edge:
    return Edge(source, target, etype, "derived", PROVENANCE_WEIGHTS["derived"], location)


def build_index(project: Project, *, validator: Validator | None = None) -> KnowledgeIndex:
    """Build the knowledge index of a loaded ``project``.

    Nodes and edges: see the module docstring. Candidate edges are checked by
    ``validator`` (default :class:`etki.knowledge.gate.LexicalValidator`, pure and
    deterministic: the same project gives the same :meth:`KnowledgeIndex.to_bytes`);
    a model validator makes network calls and its answers may vary between builds.
    Raises :class:`etki.knowledge.vocabulary.EdgeSignatureError` when an untyped
    candidate's default type does not fit a project vocabulary's signature.
    """
    nodes: dict[str, Node] = {}
    aliases: dict[str, str] = {}
    seq = 0
    for clause in project.clauses:
        seq += 1
        nodes[f"clause:{clause.ref}"] = _clause_node(clause, seq)
        for alias in clause.aliases:
            aliases.setdefault(f"clause:{clause.contract_id}#{alias}", f"clause:{clause.ref}")
        for k, chunk in enumerate(clause.chunks, start=1):
            seq += 1
            nodes[f"chunk:{clause.ref}~{k}"] = _chunk_node(clause, chunk, k, seq)
    for seq, module in enumerate(project.modules, start=1):
        nodes[f"module:{module.id}"] = Node(
            f"module:{module.id}",
            "module",
            module.id,
            module.summary,
            tuple(sorted({"path": module.path, "language": module.language, "seq": seq}.items())),
        )
    for seq, item in enumerate(project.workitems, start=1):
        nodes[f"workitem:{item.id}"] = Node(
            f"workitem:{item.id}",
            "workitem",
            item.title,
            item.title,
            tuple(
                sorted(
                    {
                        "kind": item.kind,
                        "date": item.date,
                        "effort_days": item.effort_days,
                        "seq": seq,
                    }.items()
                )
            ),
        )
    aliases = {a: t for a, t in aliases.items() if a not in nodes}

    found: list[Edge] = []
    unresolved: set[Unresolved] = set()
    for module in project.modules:
        for dep in module.depends_on:
            found.append(
                Edge(
                    f"module:{module.id}",
                    f"module:{dep}",
                    "depends_on",
                    "explicit",
                    PROVENANCE_WEIGHTS["explicit"],
                    module.location,
                )
            )
    for item in project.workitems:
        for mod in item.modules:
            found.append(
                Edge(
                    f"workitem:{item.id}",
                    f"module:{mod}",
                    "touches",
                    "mapped",
                    PROVENANCE_WEIGHTS["mapped"],
                    item.location,
                )
            )
    resolver = ClauseResolver(project.clauses)

    def declared(edge: Edge) -> None:
        source = resolve_target(edge.source, nodes.keys(), resolver)
        target = resolve_target(edge.target, nodes.keys(), resolver)
        if source is None or target is None:
            unresolved.add(
                Unresolved(
                    edge.source, edge.target, edge.type, edge.provenance, edge.location, edge.text
                )
            )
        elif source != target:
            found.append(
                Edge(source, target, edge.type, edge.provenance, edge.weight, edge.location)
            )

    for clause in project.clauses:
        source = f"clause:{clause.ref}"
        where = f"{clause.source}:{clause.line}"
        if clause.parent:
            found.append(_derived(source, f"clause:{clause.parent}", "part_of", where))
        for edge in clause.edges:
            declared(edge)
        for k, chunk in enumerate(clause.chunks, start=1):
            cid = f"chunk:{clause.ref}~{k}"
            here = f"{clause.source}:{chunk.line}"
            found.append(_derived(cid, source, "part_of", here))
            if k > 1:
                found.append(_derived(f"chunk:{clause.ref}~{k - 1}", cid, "precedes", here))
            for edge in chunk.edges:
                declared(edge)
    for edge in project.edges:
        declared(edge)
    vocabulary = EdgeVocabulary.from_pairs(project.edge_types)
    admitted, records = run_gate(
        project,
        nodes,
        resolver,
        vocabulary,
        validator if validator is not None else LexicalValidator(),
    )
    found.extend(admitted)

    best: dict[tuple[str, str, str], Edge] = {}
    for edge in found:
        key = (edge.source, edge.target, edge.type)
        old = best.get(key)
        if old is None or (_RANK[edge.provenance], -edge.weight) < (
            _RANK[old.provenance],
            -old.weight,
        ):
            best[key] = edge
    edges = tuple(sorted(best.values(), key=lambda e: (e.source, e.target, e.type, e.provenance)))
    contracts = tuple(
        ContractEntry(
            c.id, c.title, c.source, c.chunking, len(c.clauses), c.chunking_metrics, c.fallbacks
        )
        for c in sorted(project.contracts, key=lambda c: c.id)
    )
    used = {e.type for e in edges}
    return KnowledgeIndex(
        project_id=project.id,
        nodes=tuple(nodes[k] for k in sorted(nodes)),
        edges=edges,
        contracts=contracts,
        unresolved=tuple(
            sorted(unresolved, key=lambda u: (u.source, u.target, u.type, u.provenance, u.location))
        ),
        edge_types=tuple(sorted(project.edge_types)),
        aliases=tuple(sorted(aliases.items())),
        candidates=tuple(records),
        edge_inverses=tuple(p for p in vocabulary.inverses if p[0] in used),
    )


def with_accepted_remit(index: KnowledgeIndex, clauses: Sequence[ScopeClause]) -> KnowledgeIndex:
    """``index`` with its accepted-remit clauses (:func:`etki.domain.is_accepted_remit`)
    replaced by ``clauses`` (``etki remit accept``, in acceptance order): every other
    node and edge stays as built, the new clause nodes come after every clause and chunk
    of the project (``seq``), and the ``etki.yaml`` contract entry counts the declared
    and the accepted statements (none left: no entry). So the same index with the same
    accepted remit gives the same bytes and hash whether the remit was accepted before
    or after the folder was loaded, and a changed remit gives another hash (the index
    freshness a decision records)."""
    gone = {
        n.id
        for n in index.nodes
        if n.type == "clause"
        and n.get("contract") == REMIT_CONTRACT_ID
        and str(n.get("number", "")).startswith(ACCEPTED_REMIT_PREFIX)
    }
    kept = [n for n in index.nodes if n.id not in gone]
    base = max((int(n.get("seq", 0)) for n in kept if n.type in ("clause", "chunk")), default=0)
    added = [_clause_node(c, base + k) for k, c in enumerate(clauses, start=1)]
    assert all(is_accepted_remit(c) for c in clauses), "accepted remit clauses only"
    nodes = sorted(kept + added, key=lambda n: n.id)
    declared = sum(1 for n in kept if n.type == "clause" and n.get("contract") == REMIT_CONTRACT_ID)
    contracts = [c for c in index.contracts if c.id != REMIT_CONTRACT_ID]
    if declared + len(added):
        old = next((c for c in index.contracts if c.id == REMIT_CONTRACT_ID), None)
        contracts.append(
            ContractEntry(
                REMIT_CONTRACT_ID,
                old.title if old is not None else "Declared remit",
                old.source if old is not None else "etki.yaml",
                "declared",
                declared + len(added),
                old.metrics if old is not None else (),
            )
        )
    return replace(
        index,
        nodes=tuple(nodes),
        edges=tuple(e for e in index.edges if e.source not in gone and e.target not in gone),
        contracts=tuple(sorted(contracts, key=lambda c: c.id)),
    )
