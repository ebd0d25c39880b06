"""Typed streams and reciprocal rank fusion (one job: keep every node type in view).

A *stream* is one ranking of one node type (``clause``, ``module``, ``workitem``,
``precedent``), each taken top-k on its own, so a type with long, word-rich texts
(clauses) cannot crowd the short ones (modules, precedents) out of a shared top-k: the
idea of graphiti's separate search configs per type.

Streams are fused with **reciprocal rank fusion** (Cormack, Clarke and Büttcher,
*Reciprocal Rank Fusion outperforms Condorcet and individual Rank Learning Methods*,
SIGIR 2009): ``score(d) = sum over streams of 1 / (k + rank(d))`` with ranks from 1 and
``k = 60``, the constant of that paper. With lexical scoring only, each node is in one
stream, so fusion interleaves the types rank by rank; with embeddings configured each
type has a lexical and an embedding stream and fusion also rewards agreement between
them. Ties are broken by the node's best score divided by the best score of its stream
(descending), then type order (:data:`~etki.retrieval.graph.NODE_TYPES`), then id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from etki.retrieval.graph import NODE_TYPES

__all__ = ["RRF_K", "Stream", "fuse"]

RRF_K = 60
"""The RRF constant k (Cormack et al. 2009)."""


@dataclass(frozen=True)
class Stream:
    """One ranking: its ``name`` (``clause/lexical``), its ``node_type`` and the ranked
    (node id, score) ``items``, best first."""

    name: str
    node_type: str
    items: tuple[tuple[str, float], ...]


def fuse(
    streams: Sequence[Stream], k: int = RRF_K, types: Mapping[str, str] | None = None
) -> list[tuple[str, float]]:
    """Fuse ``streams`` by RRF; returns (node id, fused score) best first (see the module
    docstring for ties). ``types`` maps node id -> type for the tie-break (default: the
    type of the stream a node came from)."""
    fused: dict[str, float] = {}
    rel: dict[str, float] = {}
    kind: dict[str, str] = dict(types or {})
    for stream in streams:
        if not stream.items:
            continue
        best = stream.items[0][1] or 1.0
        for rank, (nid, score) in enumerate(stream.items, start=1):
            fused[nid] = fused.get(nid, 0.0) + 1.0 / (k + rank)
            rel[nid] = max(rel.get(nid, 0.0), score / best if best else 0.0)
            kind.setdefault(nid, stream.node_type)
    order = {t: i for i, t in enumerate(NODE_TYPES)}
    ranked = sorted(
        fused,
        key=lambda n: (
            -round(fused[n], 12),
            -round(rel[n], 12),
            order.get(kind.get(n, ""), len(order)),
            n,
        ),
    )
    return [(n, fused[n]) for n in ranked]
