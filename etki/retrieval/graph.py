"""The graph retrieval walks (one job: the knowledge index plus the decision memory as
one read-only graph).

Nodes are the knowledge index's nodes (``clause``, ``module``, ``workitem``; see
:mod:`etki.knowledge.index`) plus one node per **ruled case** (issue 33 item 1: every
ruled decision is findable): a ``precedent`` node per overridden one
(:func:`etki.memory.precedents`), id ``precedent:{case_id}``, and a ``decision`` node per
agreed one (the reviewer ruled what the engine proposed: an agreed change request, an
agreed rejection), id ``decision:{case_id}``. Both hold the request's text, the ruling,
the engine's verdict and the reason (:func:`ruled_node`); their attributes the case id,
ruling, verdict, reviewer, date and cited clause refs. Their edges come from the frozen
decision: ``cites`` to every cited clause and ``touches`` to every impacted module, both
with provenance ``derived`` and the weight
:data:`etki.knowledge.provenance.PROVENANCE_WEIGHTS` gives it. Dangling references (a
cited clause the index no longer has) are skipped. ``RetrievalGraph(..., agreed=False)``
leaves the agreed decisions out (the pre-analysis context block keeps its issue-5 form).

Edges are walked both ways. An edge seen from its target carries the *inverse* label
(``depends_on`` seen backwards is ``depended_by``), so intent weights can tell "what X
needs" from "what needs X". The label is the index's own (``KnowledgeIndex.edge_inverses``,
from the project's edge vocabulary) when it declares one, else :data:`INVERSE`.

Nothing here changes the index or the store: the graph is built per port and thrown
away.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

from etki.domain import CaseRecord, Edge
from etki.knowledge.index import KnowledgeIndex, Node
from etki.knowledge.provenance import PROVENANCE_WEIGHTS
from etki.memory import precedents as find_precedents

__all__ = [
    "INVERSE",
    "NODE_TYPES",
    "RULED_TYPES",
    "Hop",
    "RetrievalGraph",
    "inverse_label",
    "node_context",
    "ruled_node",
]

NODE_TYPES: tuple[str, ...] = ("clause", "module", "workitem", "precedent", "decision")
"""Node types, in the order streams, quotas and reports list them."""

RULED_TYPES: tuple[str, ...] = ("precedent", "decision")
"""The node types of ruled cases: overridden (precedent) and agreed (decision)."""

INVERSE: dict[str, str] = {
    "depends_on": "depended_by",
    "touches": "touched_by",
    "cites": "cited_by",
    "part_of": "has_part",
    "covers": "covered_by",
    "maps_to": "mapped_by",
    "excludes": "excluded_by",
    "implements": "implemented_by",
    "relates_to": "relates_to",
    "caused_by": "causes",
    "precedes": "follows",
}
"""Label of an edge walked from its target to its source. Types not listed get
``inverse_{type}``."""

MAX_CONTEXT_CHARS = 600
"""A node's context text (what a model reads and what the token budget counts) is cut to
this many characters: one clause of a real contract can run to pages, and one node must
not eat a whole budget."""


def inverse_label(edge_type: str) -> str:
    """The label of ``edge_type`` walked backwards (see :data:`INVERSE`)."""
    return INVERSE.get(edge_type, f"inverse_{edge_type}")


def node_context(node: Node) -> str:
    """The text a node contributes to a context: ``[type] id: title — text``, whitespace
    collapsed, cut to :data:`MAX_CONTEXT_CHARS` characters (an ellipsis marks a cut)."""
    body = " ".join(node.text.split())
    head = f"[{node.type}] {node.id}: {' '.join(node.title.split())}"
    text = f"{head} — {body}" if body and body != node.title else head
    if len(text) > MAX_CONTEXT_CHARS:
        text = text[: MAX_CONTEXT_CHARS - 1].rstrip() + "…"
    return text


@dataclass(frozen=True)
class Hop:
    """One step from a node: the ``neighbour`` reached, the ``label`` walked (the edge
    type forwards, its inverse backwards), the underlying ``edge`` and whether it was
    walked ``forward``."""

    neighbour: str
    label: str
    edge: Edge
    forward: bool


class RetrievalGraph:
    """The knowledge index plus precedent nodes, walkable both ways.

    ``index``: the project's :class:`KnowledgeIndex`. ``cases``: stored cases (any
    status); the overridden ruled ones become precedent nodes and, unless ``agreed`` is
    False, the agreed ruled ones decision nodes. Deterministic: nodes are sorted by id,
    hops by (label, neighbour).
    """

    def __init__(
        self, index: KnowledgeIndex, cases: Iterable[CaseRecord] = (), *, agreed: bool = True
    ) -> None:
        self.index = index
        nodes: dict[str, Node] = {n.id: n for n in index.nodes}
        edges: list[Edge] = list(index.edges)
        cases = list(cases)
        ruled = find_precedents(cases)
        if agreed:
            ruled += [c for c in cases if c.ruling is not None and not c.ruling.is_override]
        for case in ruled:
            nid, extra = ruled_node(case)
            nodes[nid.id] = nid
            edges.extend(e for e in extra if e.target in nodes)
        self.nodes: tuple[Node, ...] = tuple(nodes[k] for k in sorted(nodes))
        self.edges: tuple[Edge, ...] = tuple(
            sorted(edges, key=lambda e: (e.source, e.target, e.type, e.provenance))
        )
        self._by_id = {n.id: n for n in self.nodes}
        inverses = {**INVERSE, **dict(index.edge_inverses)}
        hops: dict[str, list[Hop]] = {}
        for e in self.edges:
            if e.source not in self._by_id or e.target not in self._by_id:
                continue
            hops.setdefault(e.source, []).append(Hop(e.target, e.type, e, True))
            back = inverses.get(e.type) or inverse_label(e.type)
            hops.setdefault(e.target, []).append(Hop(e.source, back, e, False))
        self._hops = {
            k: tuple(sorted(v, key=lambda h: (h.label, h.neighbour, h.forward)))
            for k, v in hops.items()
        }
        self._walks: dict[str, tuple[tuple[Hop, str, float], ...]] = {}
        self._contexts: dict[str, str] = {}

    @property
    def project_id(self) -> str:
        return self.index.project_id

    @property
    def index_hash(self) -> str:
        """The knowledge index hash (what decisions record as index freshness)."""
        return self.index.hash

    def node(self, node_id: str) -> Node | None:
        """The node with this id, or None."""
        return self._by_id.get(node_id)

    def nodes_of(self, node_type: str) -> tuple[Node, ...]:
        """Nodes of one type, sorted by id."""
        return tuple(n for n in self.nodes if n.type == node_type)

    def hops(self, node_id: str) -> tuple[Hop, ...]:
        """Every edge at ``node_id``, both directions, sorted by (label, neighbour)."""
        return self._hops.get(node_id, ())

    def walk(self, node_id: str) -> tuple[tuple[Hop, str, float], ...]:
        """:meth:`hops` of ``node_id``, each with its neighbour's type and the square root
        of how many of the node's hops have its label (what a BFS step reads), worked
        out on the first call per node and kept (the graph does not change)."""
        found = self._walks.get(node_id)
        if found is None:
            steps = self.hops(node_id)
            fan = Counter(step.label for step in steps)
            found = tuple(
                (step, self._by_id[step.neighbour].type, math.sqrt(fan[step.label]))
                for step in steps
            )
            self._walks[node_id] = found
        return found

    def context(self, node_id: str) -> str:
        """:func:`node_context` of the node ``node_id`` (raises ``KeyError`` for an
        unknown id), kept after the first call."""
        text = self._contexts.get(node_id)
        if text is None:
            text = self._contexts[node_id] = node_context(self._by_id[node_id])
        return text

    def edges_between(self, ids: Sequence[str]) -> tuple[Edge, ...]:
        """Edges whose two ends are both in ``ids``, sorted."""
        keep = set(ids)
        by_source = self._edges_by_source
        found = [i for nid in keep for i in by_source.get(nid, ()) if self.edges[i].target in keep]
        return tuple(self.edges[i] for i in sorted(found))  # the order of ``edges``

    @cached_property
    def _edges_by_source(self) -> dict[str, list[int]]:
        """Source id -> positions of its edges in :attr:`edges` (so a subgraph's edges
        are found from its nodes, not by scanning every edge)."""
        out: dict[str, list[int]] = {}
        for i, e in enumerate(self.edges):
            out.setdefault(e.source, []).append(i)
        return out


def ruled_node(case: CaseRecord) -> tuple[Node, list[Edge]]:
    """The node of one ruled case and its ``cites``/``touches`` edges (see the module
    docstring): ``precedent:{case_id}`` for an override, ``decision:{case_id}`` for an
    agreed ruling. Its text: the request, then ``Ruled R (engine proposed V)`` (``,
    agreed`` for an agreed one) and ``Reason: ...``. Raises ``ValueError`` for a case
    without a ruling."""
    ruling = case.ruling
    if ruling is None:
        raise ValueError(f"{case.case_id} is not ruled")
    kind = "precedent" if ruling.is_override else "decision"
    nid = f"{kind}:{case.case_id}"
    agreed = "" if ruling.is_override else ", agreed"
    text = (
        f"{case.text}\nRuled {ruling.ruling} (engine proposed {ruling.verdict}{agreed}). "
        f"Reason: {ruling.reason}"
    ).strip()
    attrs = {
        "case_id": case.case_id,
        "ruling": ruling.ruling,
        "verdict": ruling.verdict,
        "reviewer": ruling.reviewer,
        "ruled_at": ruling.ruled_at,
        "cited": tuple(case.decision.cited_clauses),
    }
    node = Node(nid, kind, case.title, text, tuple(sorted(attrs.items())))
    weight = PROVENANCE_WEIGHTS["derived"]
    edges = [
        Edge(nid, f"clause:{ref}", "cites", "derived", weight)
        for ref in case.decision.cited_clauses
    ]
    edges += [
        Edge(nid, f"module:{mod}", "touches", "derived", weight)
        for mod in case.decision.impacted_modules
    ]
    return node, edges
