"""Token-budgeted BFS over the typed edges (one job: grow seeds into a context subgraph).

Two steps, both pure:

1. :func:`collect` walks the graph breadth first from the seeds, hop by hop up to
   ``max_hops``, over every edge in both directions (labels of
   :mod:`etki.retrieval.graph`: ``depends_on``/``depended_by``, ``touches``/``touched_by``,
   ``cites``/``cited_by``, ``part_of``/``has_part``, precedent edges, ...). A **visited
   set** makes every node a candidate once, at its first hop, so duplicates never eat the
   budget. A neighbour's priority is ``parent priority x edge weight (provenance) x intent
   multiplier`` (:data:`INTENT_WEIGHTS`) ``/ sqrt(n)``, where ``n`` is the number of the
   parent's edges with the same label: a hub (a config module everything depends on, a
   module touched by forty work items) shares its weight among its neighbours instead of
   flooding the subgraph. Within a hop the best parent wins (ties: parent id). Seeds start at ``score / best seed score``. Neighbours below
   :data:`MIN_PRIORITY` are not candidates.
2. :func:`pack` admits candidates in a given order under the token budget: seeds first
   (only the total budget limits them), then neighbours while both their type's quota
   (``floor(budget x share)``, :data:`TYPE_SHARES`) and the total budget allow; then one
   *spill* pass offers the budget left to neighbours that only their type quota kept
   out, in the same order. Everything not admitted is reported in ``Subgraph.dropped``
   with its reason (``budget``).

The order is **BFS** (hop, then priority descending, then id) unless a reranker scored
the neighbours: then (``packing = "rerank"``) the first :data:`~etki.retrieval.rerank.MAX_CANDIDATES`
neighbours in BFS order are ordered by reranker score (ties: BFS order) and the rest
follow in BFS order. Seeds are never reranked. Without a reranker, or when it fails, the
same BFS order gives a byte-identical :meth:`Subgraph.to_bytes`.

**Token count**: ``ceil(characters / 4)`` of each node's context text
(:func:`etki.retrieval.graph.node_context`, at most 600 characters), the rule of thumb
OpenAI gives for English text ("one token is roughly 4 characters", OpenAI Help Center,
*What are tokens and how to count them?*). It needs no tokenizer, is the same on every
machine, and over-counts Latin text slightly more often than it under-counts; budgets
are approximate by that much.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from operator import attrgetter
from typing import Any

from etki.domain import Edge
from etki.retrieval.graph import NODE_TYPES, RULED_TYPES, RetrievalGraph

__all__ = [
    "DEFAULT_BUDGET",
    "INTENT_WEIGHTS",
    "MAX_HOPS",
    "MIN_PRIORITY",
    "TOKEN_METHOD",
    "TYPE_SHARES",
    "Candidate",
    "Candidates",
    "DroppedNode",
    "Subgraph",
    "SubgraphNode",
    "bfs_order",
    "collect",
    "count_tokens",
    "pack",
    "rerank_order",
]

DEFAULT_BUDGET = 1500
"""Default token budget of a context subgraph: room for about a dozen nodes of 100-150
tokens each, a small share of any chat model's window."""

MAX_HOPS = 2
"""BFS depth: neighbours and neighbours of neighbours."""

MIN_PRIORITY = 0.1
"""Neighbours whose priority falls below this (a tenth of the best seed's) are not
candidates: two weak hops from a weak seed say nothing."""

TOKEN_METHOD = "ceil(chars/4) of each node's context text (max 600 chars)"
"""How tokens are counted (see the module docstring); recorded in every subgraph."""

TYPE_SHARES: dict[str, float] = {
    "clause": 0.35,
    "module": 0.30,
    "workitem": 0.15,
    "precedent": 0.20,
}
"""Share of the budget each node type may fill before the spill pass (graphrag-style
proportional split). Clauses first: the contract is what a scope ruling rests on;
precedents get a fifth because past human corrections are few but weighty. Agreed
decisions (``decision`` nodes) fill the precedent fifth together with the precedents:
both are ruled cases, and adding them took no budget from the other types."""

_BASE: dict[str, float] = {
    "covers": 1.0,
    "covered_by": 1.0,
    "excludes": 1.0,
    "excluded_by": 1.0,
    "implements": 1.0,
    "implemented_by": 1.0,
    "maps_to": 0.8,
    "mapped_by": 0.8,
    "cites": 0.8,
    "cited_by": 0.8,
    "touches": 0.6,
    "touched_by": 0.6,
    "relates_to": 0.6,
    "depends_on": 0.5,
    "depended_by": 0.4,
    "part_of": 0.5,
    "has_part": 0.3,
    "caused_by": 0.5,
    "causes": 0.5,
    "precedes": 0.5,
    "follows": 0.5,
    "precedent": 0.8,
    "*": 0.4,
}

INTENT_WEIGHTS: dict[str, dict[str, float]] = {
    "lookup": _BASE,
    "why": {
        **_BASE,
        "caused_by": 1.0,
        "precedent": 1.0,
        "causes": 0.7,
        "part_of": 0.6,
        "depends_on": 0.3,
        "depended_by": 0.2,
        "touches": 0.4,
        "touched_by": 0.4,
        "precedes": 0.3,
        "follows": 0.3,
    },
    "impact": {
        **_BASE,
        "depended_by": 1.0,
        "depends_on": 0.7,
        "covers": 0.8,
        "covered_by": 0.8,
        "maps_to": 0.7,
        "mapped_by": 0.7,
        "touches": 0.5,
        "touched_by": 0.5,
        "cites": 0.3,
        "cited_by": 0.3,
        "part_of": 0.2,
        "has_part": 0.2,
        "precedent": 0.5,
        "causes": 0.7,
    },
    "next": {
        **_BASE,
        "precedes": 1.0,
        "follows": 0.4,
        "touched_by": 0.7,
        "touches": 0.5,
        "depended_by": 0.6,
        "depends_on": 0.4,
        "part_of": 0.3,
        "has_part": 0.3,
    },
}
"""Multiplier per walked label and question intent (``intent`` of
:mod:`etki.retrieval.intent`), all in (0, 1] so a priority never grows along a path.
``precedent`` applies to any hop into or out of a ruled-case node, a precedent or an
agreed decision (:data:`~etki.retrieval.graph.RULED_TYPES`; instead of the label's own), ``*`` to labels not listed. ``maps_to``/``mapped_by`` (a clause-module mapping
found by matching, :mod:`etki.knowledge.enricher`) weigh a little below ``covers``, an
explicit statement: a judgement, not measured (no index here has such edges yet).
Against ``lookup``, "why" boosts ``caused_by`` and
precedents to the top weight, "impact" boosts ``depended_by``/``depends_on``, and "what
next" boosts ``precedes``."""


def count_tokens(text: str) -> int:
    """Tokens of ``text`` by the module's method: ``ceil(len(text) / 4)``."""
    return math.ceil(len(text) / 4)


@dataclass(frozen=True)
class Candidate:
    """A node reached by the walk: ``hop`` (0 = seed), ``priority``, ``via`` (the label
    walked, ``seed`` for seeds), ``parent`` (the node it was reached from, "" for seeds)
    and its ``tokens``."""

    id: str
    type: str
    title: str
    hop: int
    priority: float
    via: str
    parent: str
    tokens: int


@dataclass(frozen=True)
class Candidates:
    """Result of :func:`collect`: ``seeds`` and ``neighbours`` (BFS order) and the
    ``intent`` whose weights were used."""

    intent: str
    seeds: tuple[Candidate, ...]
    neighbours: tuple[Candidate, ...]


@dataclass(frozen=True)
class SubgraphNode:
    """An admitted node (a :class:`Candidate` that fit)."""

    id: str
    type: str
    title: str
    hop: int
    priority: float
    via: str
    parent: str
    tokens: int


@dataclass(frozen=True)
class DroppedNode:
    """A candidate left out, with its ``tokens`` and ``reason`` (``budget``)."""

    id: str
    type: str
    hop: int
    priority: float
    tokens: int
    reason: str


@dataclass(frozen=True)
class Subgraph:
    """A packed context subgraph.

    ``nodes`` in admission order (seeds first); ``edges`` among them (sorted);
    ``tokens_used`` <= ``budget_tokens`` (tokens by :data:`TOKEN_METHOD`);
    ``used_by_type`` and ``quotas`` as (type, tokens) pairs; ``dropped`` every candidate
    left out; ``packing`` is ``bfs`` or ``rerank``.
    """

    intent: str
    packing: str
    budget_tokens: int
    tokens_used: int
    seeds: tuple[str, ...]
    nodes: tuple[SubgraphNode, ...]
    edges: tuple[Edge, ...]
    dropped: tuple[DroppedNode, ...]
    quotas: tuple[tuple[str, int], ...]
    used_by_type: tuple[tuple[str, int], ...]
    token_method: str = TOKEN_METHOD

    @property
    def node_ids(self) -> tuple[str, ...]:
        return tuple(n.id for n in self.nodes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (floats rounded to 4 decimals where they were computed)."""
        return json.loads(self.to_bytes())

    def to_bytes(self) -> bytes:
        """Canonical JSON bytes: sorted keys, UTF-8, compact, no trailing newline."""
        data = asdict(self)
        return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode(
            "utf-8"
        )


def _r(x: float) -> float:
    return round(float(x), 4)


def collect(
    graph: RetrievalGraph,
    seeds: Sequence[tuple[str, float]],
    intent: str = "lookup",
    *,
    max_hops: int = MAX_HOPS,
    min_priority: float = MIN_PRIORITY,
) -> Candidates:
    """Walk from ``seeds`` ((node id, score) pairs; unknown ids are ignored) and return
    every candidate in BFS order (see the module docstring). Pure and deterministic."""
    weights = INTENT_WEIGHTS.get(intent, INTENT_WEIGHTS["lookup"])
    other = weights["*"]
    precedent = weights.get("precedent", other)
    known = [(nid, s) for nid, s in seeds if graph.node(nid) is not None]
    best = max((s for _, s in known), default=0.0)
    visited: set[str] = set()
    seed_cands: list[Candidate] = []
    for nid, score in known:
        if nid in visited:
            continue
        visited.add(nid)
        node = graph.node(nid)
        assert node is not None
        prio = score / best if best > 0 else 1.0
        seed_cands.append(
            Candidate(
                nid,
                node.type,
                node.title,
                0,
                _r(prio),
                "seed",
                "",
                count_tokens(graph.context(nid)),
            )
        )
    frontier = list(seed_cands)
    neighbours: list[Candidate] = []
    for hop in range(1, max_hops + 1):
        found: dict[str, tuple[float, str, str]] = {}
        for parent in frontier:
            from_precedent = parent.type in RULED_TYPES
            for step, target_type, root_fan in graph.walk(parent.id):
                if step.neighbour in visited:
                    continue
                # an edge at a precedent has the precedent weight, others their label's
                if from_precedent or target_type in RULED_TYPES:
                    mult = precedent
                else:
                    mult = weights.get(step.label, other)
                prio = parent.priority * step.edge.weight * mult / root_fan
                if prio < min_priority:
                    continue
                old = found.get(step.neighbour)
                if old is None or prio > old[0] or (prio == old[0] and parent.id < old[2]):
                    found[step.neighbour] = (prio, step.label, parent.id)
        level = []
        for nid, (prio, label, parent_id) in found.items():
            node = graph.node(nid)
            assert node is not None
            level.append(
                Candidate(
                    nid,
                    node.type,
                    node.title,
                    hop,
                    _r(prio),
                    label,
                    parent_id,
                    count_tokens(graph.context(nid)),
                )
            )
        level.sort(key=lambda c: (-c.priority, c.id))
        visited.update(found)
        neighbours.extend(level)
        frontier = level
        if not frontier:
            break
    return Candidates(intent, tuple(seed_cands), tuple(neighbours))


def bfs_order(cands: Candidates) -> tuple[Candidate, ...]:
    """Neighbours in BFS order (hop, priority descending, id): what :func:`collect`
    returns."""
    return cands.neighbours


def rerank_order(cands: Candidates, scores: Sequence[float]) -> tuple[Candidate, ...]:
    """Neighbours with the first ``len(scores)`` (in BFS order) ordered by reranker score
    descending (ties: BFS order), the rest after them in BFS order."""
    head = list(cands.neighbours[: len(scores)])
    ranked = sorted(range(len(head)), key=lambda i: (-scores[i], i))
    return tuple(head[i] for i in ranked) + cands.neighbours[len(scores) :]


def _bfs_sorted(cands: list[Candidate]) -> list[Candidate]:
    """``cands`` sorted by (hop, priority descending, id): three stable C-level sorts
    (a descending sort keeps ties in order too), the order one sort by that key gives."""
    out = sorted(cands, key=attrgetter("id"))
    out.sort(key=attrgetter("priority"), reverse=True)
    out.sort(key=attrgetter("hop"))
    return out


_POOL = {"decision": "precedent"}
"""Types that fill another type's share: agreed decisions fill the precedents'
(:data:`TYPE_SHARES`)."""


def _use(used: dict[str, int], c: Candidate) -> None:
    """Count ``c``'s tokens against its type's share (its pool's, :data:`_POOL`)."""
    key = _POOL.get(c.type, c.type)
    used[key] = used.get(key, 0) + c.tokens


def pack(
    graph: RetrievalGraph,
    cands: Candidates,
    budget_tokens: int,
    order: Sequence[Candidate] | None = None,
    *,
    packing: str = "bfs",
    shares: Mapping[str, float] | None = None,
) -> Subgraph:
    """Admit ``cands`` under ``budget_tokens`` (see the module docstring). ``order``: the
    neighbours in the order to try (default BFS); ``packing`` names it in the result."""
    shares = TYPE_SHARES if shares is None else shares
    budget = max(0, int(budget_tokens))
    quotas = {t: math.floor(budget * shares.get(t, 0.0)) for t in NODE_TYPES}
    used = dict.fromkeys(NODE_TYPES, 0)
    total = 0
    admitted: list[Candidate] = []
    dropped: list[Candidate] = []
    for c in cands.seeds:
        if total + c.tokens <= budget:
            admitted.append(c)
            total += c.tokens
            _use(used, c)
        else:
            dropped.append(c)
    waiting: list[Candidate] = []
    for c in cands.neighbours if order is None else order:
        if total + c.tokens > budget:
            dropped.append(c)
        elif used.get(_POOL.get(c.type, c.type), 0) + c.tokens > quotas.get(
            _POOL.get(c.type, c.type), 0
        ):
            waiting.append(c)
        else:
            admitted.append(c)
            total += c.tokens
            _use(used, c)
    for c in waiting:  # spill: the budget left goes to what only a quota kept out
        if total + c.tokens <= budget:
            admitted.append(c)
            total += c.tokens
            _use(used, c)
        else:
            dropped.append(c)
    ids = [c.id for c in admitted]
    return Subgraph(
        intent=cands.intent,
        packing=packing,
        budget_tokens=budget,
        tokens_used=total,
        seeds=tuple(c.id for c in cands.seeds if c.id in set(ids)),
        nodes=tuple(
            SubgraphNode(c.id, c.type, c.title, c.hop, c.priority, c.via, c.parent, c.tokens)
            for c in admitted
        ),
        edges=graph.edges_between(ids),
        dropped=tuple(
            DroppedNode(c.id, c.type, c.hop, c.priority, c.tokens, "budget")
            for c in _bfs_sorted(dropped)
        ),
        quotas=tuple((t, quotas[t]) for t in NODE_TYPES),
        used_by_type=tuple((t, used.get(t, 0)) for t in NODE_TYPES),
    )
