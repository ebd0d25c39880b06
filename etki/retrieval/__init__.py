"""Retrieval over the knowledge index and the decision memory (DESIGN.md, "Retrieval").

:class:`GraphQueryPort` is the one door: ``find_k_nodes``, ``expand``, ``nl_query`` and
``typed_streams``, routed by :meth:`GraphQueryPort.query`. The parts: ``graph`` (index +
ruled cases: precedents and agreed decisions), ``lexical`` (BM25 with the engine's tokenizer), ``embeddings`` and ``rerank``
(endpoint clients over :mod:`etki.endpoints`), ``expand`` (budgeted BFS), ``streams`` (RRF),
``tools`` and ``nlquery`` (the whitelist and the model loop), ``context`` (pre-analysis
block stored with each decision), ``evaluate`` and ``cli`` (``etki eval``, ``etki mcp``).

Retrieval is never a decision signal: the triage engine does not import this package.
"""

from etki.retrieval.expand import Subgraph
from etki.retrieval.graph import RetrievalGraph
from etki.retrieval.port import GraphQueryPort, QueryResult, ScoredNode

__all__ = ["GraphQueryPort", "QueryResult", "RetrievalGraph", "ScoredNode", "Subgraph"]
