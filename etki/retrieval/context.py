"""Pre-analysis: the related-context block stored with each new decision (issue 5,
item 6).

For every request triaged by ``etki init``, :func:`related_contexts` runs
``expand(query=request)`` over the project's graph (the knowledge index plus the
precedents already in the store) and returns one JSON block per case, which the store
writes once beside the decision (:meth:`CaseFileRepository.add_cases`, table
``decision_contexts``).

It is **context, never a decision signal**: it runs after the engine has decided, the
engine never reads it, and the decision bytes are the same with it on or off (a test
proves it). Without model endpoints the block is deterministic: the same request, index
and precedents give the same bytes. With ``ETKI_EMBED_*``/``ETKI_RERANK_BASE_URL`` set
it records which scoring and packing were used and any fallback.

Block (``format`` ``etki-related-context/1``, canonical JSON: sorted keys, UTF-8,
compact): ``strategy``, ``intent``, ``scoring``, ``packing``, ``seeds_from``, ``index_hash``,
``budget_tokens``, ``tokens_used``, ``token_method``, ``nodes`` (id, type, title, hop,
via, parent, priority; admission order), ``edges`` (source, target, type), ``dropped``
(id, reason), ``fallbacks`` and a ``note``. The request text itself is not copied in.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from typing import Any

from etki.config import Settings
from etki.domain import CaseRecord, Decision, Project, Request
from etki.knowledge.index import KnowledgeIndex
from etki.retrieval.graph import RetrievalGraph
from etki.retrieval.port import GraphQueryPort

__all__ = ["CONTEXT_BUDGET", "FORMAT", "context_json", "related_context", "related_contexts"]

log = logging.getLogger("etki.retrieval.context")

FORMAT = "etki-related-context/1"

CONTEXT_BUDGET = 800
"""Token budget of a stored block: enough for the seeds and their closest neighbours
(about 8-15 nodes), small enough to show beside a decision."""

NOTE = "context only: retrieval never changes the verdict, confidence or evidence"


def related_context(
    port: GraphQueryPort,
    text: str,
    title: str | None = None,
    budget_tokens: int = CONTEXT_BUDGET,
    seed_from: str = "find_k",
) -> dict[str, Any]:
    """The block for one request (see the module docstring). ``seed_from``: ``find_k``
    (default) or ``streams`` (typed streams, one seed per node type first; see
    :meth:`GraphQueryPort.expand`)."""
    question = f"{title}\n{text}" if title else text
    if not question.strip():
        question = "(empty request)"
    result = port.expand(question, budget_tokens=budget_tokens, seed_from=seed_from)
    sub = result.subgraph
    assert sub is not None
    return {
        "format": FORMAT,
        "note": NOTE,
        "strategy": result.strategy,
        "intent": result.intent,
        "scoring": result.scoring,
        "packing": sub.packing,
        "seeds_from": seed_from,
        "index_hash": port.graph.index_hash,
        "budget_tokens": sub.budget_tokens,
        "tokens_used": sub.tokens_used,
        "token_method": sub.token_method,
        "nodes": [
            {
                "id": n.id,
                "type": n.type,
                "title": n.title,
                "hop": n.hop,
                "via": n.via,
                "parent": n.parent,
                "priority": n.priority,
            }
            for n in sub.nodes
        ],
        "edges": [{"source": e.source, "target": e.target, "type": e.type} for e in sub.edges],
        "dropped": [{"id": d.id, "reason": d.reason} for d in sub.dropped],
        "fallbacks": list(result.fallbacks),
    }


def context_json(block: dict[str, Any]) -> str:
    """Canonical JSON text of a block."""
    return json.dumps(block, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def context_port(
    project: Project,
    index: KnowledgeIndex,
    cases: Iterable[CaseRecord],
    settings: Settings | None = None,
) -> GraphQueryPort | None:
    """The port :func:`related_contexts` reads: ``index`` plus the precedents among
    ``cases`` (not the agreed decisions: the stored block keeps its issue-5 form). Build it once and pass it to every call of an ``etki init`` (building it
    costs seconds on a large index). Best-effort: any failure is logged and gives None."""
    try:
        return GraphQueryPort(
            RetrievalGraph(index, cases, agreed=False),
            languages=project.config.languages,
            settings=settings,
        )
    except Exception as exc:  # context is optional: it must never break triage or init
        log.warning("related context not built: %s: %s", type(exc).__name__, exc)
        return None


def related_contexts(
    project: Project,
    index: KnowledgeIndex,
    cases: Iterable[CaseRecord],
    fresh: Sequence[tuple[Request, Decision]],
    settings: Settings | None = None,
    *,
    port: GraphQueryPort | None = None,
) -> dict[str, str] | None:
    """Case id -> context JSON for the ``fresh`` (request, decision) pairs, over
    ``index`` and the precedents among ``cases`` (or over ``port`` when given, see
    :func:`context_port`). Best-effort: any failure is logged and gives None (no
    blocks), never an exception into ``etki init``."""
    if not fresh:
        return {}
    if port is None:
        port = context_port(project, index, cases, settings)
        if port is None:
            return None
    try:
        return {
            decision.case_id: context_json(related_context(port, request.text, request.title))
            for request, decision in fresh
        }
    except Exception as exc:  # context is optional: it must never break triage or init
        log.warning("related context not built: %s: %s", type(exc).__name__, exc)
        return None
