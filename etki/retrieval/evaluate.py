"""Measuring retrieval and triage against labels (one job: honest numbers).

**Retrieval** (:func:`run_retrieval`). Each labelled query has a set of expected node ids.
Eight methods rank nodes for it:

* ``grep``: the plain baseline. The query's folded words of three or more letters that
  are not stopwords of en/tr/de (:data:`etki.triage.normalise.STOPWORDS`) are looked for
  as substrings of each node's folded id, title and text (``grep -i -F`` per word); nodes
  are ranked by how many distinct words they contain, then id. No stemming, no IDF.
* ``find_k``: :meth:`GraphQueryPort.find_k_nodes`.
* ``find_k@ratio``: the same, keeping only nodes scoring at least :data:`RATIO` x the
  best (an adaptive cut, so a query with one clear answer returns few nodes).
* ``find_k+expand``: :meth:`GraphQueryPort.expand` seeded by the top ``seeds`` of
  ``find_k``; its ranking is the subgraph in admission order, its length set by the
  token budget, not by ``k``.
* ``find_k@ratio+expand``: the same from the ``@ratio`` seeds.
* ``adaptive``: ``expand`` with the adaptive cut of
  :data:`~etki.retrieval.port.ADAPTIVE_CUT` (0.3): seeds are the top ``k`` of
  ``find_k`` scoring >= 0.3 x the best, neighbours are kept only if their BFS priority
  is >= 0.3; its length follows the question (the budget only caps it).
* ``streams``: :meth:`GraphQueryPort.typed_streams` (top ``k`` per type, RRF).
* ``streams+expand``: ``expand`` seeded by the top ``seeds`` of the fused streams (one
  seed per node type before any second one).

Only node types the ground truth names are scored (for the files here: ``clause`` and
``module``); other types are removed from a ranking before it is cut at ``k``. Per query:

* recall@k = |expected ∩ top-k| / |expected|;
* precision@k = |expected ∩ top-k| / |top-k|, where |top-k| is what was returned (at
  most k; a method that returns nothing has precision 0);
* reciprocal rank = 1 / rank of the first expected node in the top-k (0 if none).

Figures are means over queries (macro averages). Queries whose labels name no node are
skipped and counted.

**A ruled store** (issue 33 item 6). Once the project's requests are ruled, each one is
also a graph node whose text is the request itself (a ``precedent`` for an override, a
``decision`` for an agreed ruling since issue 33 item 1; the report's last line counts
both), so a labelled request used as its own query would find its own ruled case first
and seed ``expand`` from it. Other requests' ruled cases stay: they are what a ruled
store is, and they compete with the clauses for the seeds of ``expand`` and for the
best score the ``@ratio`` and ``adaptive`` cuts are taken against. For such
a query the methods run on the graph without that case (``ports_without``: a port per
query whose id is the request id of a ruled case; the report's ``ruled`` and
``excluded`` say how many cases were ruled and how many queries ran without their own).
A reviewer's question set has no request ids, so nothing is excluded from it.

The triage evaluation lives in :mod:`etki.evaluation.triage` (``etki eval triage``).

Label files: JSON lines with ``query`` or ``text`` (plus optional ``title``) and either
``expected`` (node ids) or ``labels`` with ``clauses`` (section numbers such as ``2.1``,
refs ``MSA#2.1`` or node ids) and ``modules`` (module ids), and optional ``borderline``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from etki.errors import InputError
from etki.progress import track
from etki.retrieval.graph import RULED_TYPES, RetrievalGraph
from etki.retrieval.port import ADAPTIVE_CUT, SEEDS, GraphQueryPort
from etki.text import fold, words
from etki.triage.engine import CITE_RATIO
from etki.triage.normalise import STOPWORDS

__all__ = [
    "METHODS",
    "EvalQuery",
    "MethodScore",
    "RetrievalReport",
    "grep_rank",
    "load_queries",
    "run_retrieval",
    "score_ranking",
]

METHODS: tuple[str, ...] = (
    "grep",
    "find_k",
    "find_k@ratio",
    "find_k+expand",
    "find_k@ratio+expand",
    "adaptive",
    "streams",
    "streams+expand",
)

RATIO = CITE_RATIO
"""The adaptive cut of the ``@ratio`` methods: keep nodes scoring at least this share
(0.5) of the best one. The number is the engine's own citing rule
(:data:`etki.triage.engine.CITE_RATIO`), taken as it was, not tuned on these queries."""


@dataclass(frozen=True)
class EvalQuery:
    """One labelled query: ``id``, ``text``, ``expected`` node ids, ``borderline``."""

    id: str
    text: str
    expected: tuple[str, ...]
    borderline: bool = False


def json_rows(path: str | Path) -> list[tuple[int, dict[str, Any]]]:
    """``(1-based line, object)`` for each non-blank line of a JSON-lines file. Raises
    :class:`InputError` naming ``file`` or ``file:line`` for a missing file, text that
    is not UTF-8, a line that is not JSON or not a JSON object."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such file")
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise InputError(f"{p}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    out = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{p}:{n}: not a JSON object: {exc.msg}") from exc
        if not isinstance(row, dict):
            raise InputError(f"{p}:{n}: not a JSON object")
        out.append((n, row))
    return out


def _norm_number(number: str) -> str:
    parts = number.strip().split(".")
    while len(parts) > 1 and parts[-1] == "0":
        parts.pop()
    return ".".join(parts)


def _clause_ids(graph: RetrievalGraph, label: str) -> list[str]:
    if graph.node(label) is not None:
        return [label]
    if graph.node("clause:" + label) is not None:
        return ["clause:" + label]
    want = _norm_number(label)
    return [
        n.id for n in graph.nodes_of("clause") if _norm_number(str(n.get("number") or "")) == want
    ]


def load_queries(
    path: str | Path,
    graph: RetrievalGraph,
) -> tuple[list[EvalQuery], list[str]]:
    """Labelled queries of ``path`` resolved against ``graph``; returns ``(queries,
    problems)`` where problems name labels that resolve to no node and rows skipped for
    having no expected node. Raises :class:`InputError` for a malformed file."""
    queries: list[EvalQuery] = []
    problems: list[str] = []
    for n, row in json_rows(path):
        qid = str(row.get("id") or f"line {n}")
        text = str(row.get("query") or row.get("text") or "")
        if row.get("title"):
            text = f"{row['title']}\n{text}"
        expected: list[str] = []
        if "expected" in row:
            for nid in row["expected"]:
                (
                    expected.append(nid)
                    if graph.node(nid) is not None
                    else problems.append(f"{qid}: no node {nid}")
                )
        labels = row.get("labels") or {}
        for clause in labels.get("clauses") or ():
            found = _clause_ids(graph, str(clause))
            (
                expected.extend(found)
                if found
                else problems.append(f"{qid}: no clause numbered {clause}")
            )
        for module in labels.get("modules") or ():
            nid = module if str(module).startswith("module:") else f"module:{module}"
            (
                expected.append(nid)
                if graph.node(nid) is not None
                else problems.append(f"{qid}: no module {module}")
            )
        expected = list(dict.fromkeys(expected))
        if not expected:
            problems.append(f"{qid}: skipped, no expected node")
            continue
        queries.append(EvalQuery(qid, text, tuple(expected), bool(row.get("borderline"))))
    return queries, problems


def grep_rank(
    graph: RetrievalGraph, text: str, k: int, types: Iterable[str] | None = None
) -> list[str]:
    """The plain grep baseline (see the module docstring): top ``k`` node ids."""
    stop = frozenset().union(*STOPWORDS.values())
    terms = sorted({w for w in words(text) if len(w) >= 3 and w not in stop})
    keep = set(types) if types is not None else None
    scored = []
    for node in graph.nodes:
        if keep is not None and node.type not in keep:
            continue
        hay = fold(f"{node.id}\n{node.title}\n{node.text}")
        hits = sum(1 for t in terms if t in hay)
        if hits:
            scored.append((-hits, node.id))
    scored.sort()
    return [nid for _, nid in scored[:k]]


def score_ranking(ranked: Sequence[str], expected: Iterable[str]) -> tuple[float, float, float]:
    """``(recall, precision, reciprocal rank)`` of one ranking (already cut at k)."""
    want = set(expected)
    hits = [i for i, nid in enumerate(ranked) if nid in want]
    recall = len(hits) / len(want) if want else 0.0
    precision = len(hits) / len(ranked) if ranked else 0.0
    rr = 1.0 / (hits[0] + 1) if hits else 0.0
    return recall, precision, rr


@dataclass(frozen=True)
class MethodScore:
    """Mean figures of one method: ``recall``, ``precision``, ``mrr``, mean ``returned``
    list length, ``recall_by_type`` ((type, recall over that type's expected nodes)),
    and the per-query ``rows`` (query id, recall, precision, rr, returned)."""

    method: str
    recall: float
    precision: float
    mrr: float
    returned: float
    recall_by_type: tuple[tuple[str, float], ...]
    rows: tuple[tuple[str, float, float, float, int], ...] = ()


@dataclass(frozen=True)
class RetrievalReport:
    """Result of :func:`run_retrieval`."""

    k: int
    budget_tokens: int
    seeds: int
    types: tuple[str, ...]
    queries: int
    scores: tuple[MethodScore, ...]
    problems: tuple[str, ...] = ()
    ruled: int = 0
    """Ruled cases of the store (precedents and agreed rulings alike)."""
    excluded: int = 0
    """Queries that ran on the graph without their own ruled case."""
    ruled_nodes: tuple[tuple[str, int], ...] = ()
    """(node type, count) of the ruled-case nodes of the graph read: ``precedent``
    (overrides) and ``decision`` (agreed rulings, graph nodes since issue 33 item 1)."""

    def lines(self) -> list[str]:
        """A plain-text table."""
        head = (
            f"retrieval: {self.queries} queries, k={self.k}, expand budget "
            f"{self.budget_tokens} tokens from {self.seeds} seeds, scored types: "
            f"{', '.join(self.types)}"
        )
        by_type = "  ".join(f"R[{t}]" for t in self.types)
        out = [
            head,
            (f"{'method':<20} {'recall@k':>8} {'prec@k':>8} {'MRR':>6} {'returned':>8}  {by_type}"),
        ]
        for s in self.scores:
            per = "  ".join(
                f"{dict(s.recall_by_type).get(t, 0.0):>{len(t) + 3}.2f}" for t in self.types
            )
            out.append(
                f"{s.method:<20} {s.recall:>8.2f} {s.precision:>8.2f} {s.mrr:>6.2f} "
                f"{s.returned:>8.1f}  {per}"
            )
        nodes = ", ".join(f"{n} {t}" for t, n in self.ruled_nodes)
        out.append(
            f"store: {self.ruled} ruled cases (graph nodes: {nodes or 'none'}); "
            f"{self.excluded} queries ran without their own decision"
            if self.ruled
            else "store: unruled (no precedents)"
        )
        for p in self.problems:
            out.append(f"note: {p}")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "budget_tokens": self.budget_tokens,
            "seeds": self.seeds,
            "types": list(self.types),
            "queries": self.queries,
            "problems": list(self.problems),
            "ruled": self.ruled,
            "excluded": self.excluded,
            "ruled_nodes": dict(self.ruled_nodes),
            "scores": [
                {
                    "method": s.method,
                    "recall": round(s.recall, 4),
                    "precision": round(s.precision, 4),
                    "mrr": round(s.mrr, 4),
                    "returned": round(s.returned, 2),
                    "recall_by_type": dict(s.recall_by_type),
                    "rows": [list(r) for r in s.rows],
                }
                for s in self.scores
            ],
        }


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def run_retrieval(
    port: GraphQueryPort,
    queries: Sequence[EvalQuery],
    *,
    k: int = 10,
    budget_tokens: int = 1500,
    seeds: int = SEEDS,
    problems: Sequence[str] = (),
    ports_without: Mapping[str, GraphQueryPort] | None = None,
    ruled: int = 0,
) -> RetrievalReport:
    """Score every method of :data:`METHODS` on ``queries`` (see the module docstring).
    ``ports_without``: query id -> the port over the graph without that request's own
    ruled case; ``ruled``: how many cases the store has ruled (for the report)."""
    graph = port.graph
    shared = port
    others = ports_without or {}
    types = tuple(
        sorted({n.type for q in queries for e in q.expected if (n := graph.node(e)) is not None})
    )
    keep = set(types)

    def typed(ids: Iterable[str]) -> list[str]:
        return [i for i in ids if (n := graph.node(i)) is not None and n.type in keep]

    rankings: dict[str, list[list[str]]] = {m: [] for m in METHODS}
    for q in track(queries, "eval retrieval: ranking the queries"):
        port = others.get(q.id, shared)
        rankings["grep"].append(grep_rank(graph, q.text, k, keep))
        rankings["find_k"].append(typed(port.find_k_nodes(q.text, k=10 * k).ids)[:k])
        rankings["find_k@ratio"].append(
            typed(port.find_k_nodes(q.text, k=10 * k, min_ratio=RATIO).ids)[:k]
        )
        rankings["find_k+expand"].append(
            typed(port.expand(q.text, budget_tokens=budget_tokens, k_seeds=seeds).ids)
        )
        rankings["find_k@ratio+expand"].append(
            typed(
                port.expand(
                    q.text, budget_tokens=budget_tokens, k_seeds=seeds, seed_ratio=RATIO
                ).ids
            )
        )
        rankings["adaptive"].append(
            typed(
                port.expand(
                    q.text, budget_tokens=budget_tokens, k_seeds=k, cut_ratio=ADAPTIVE_CUT
                ).ids
            )
        )
        rankings["streams"].append(typed(port.typed_streams(q.text, k_per_type=k).ids)[:k])
        rankings["streams+expand"].append(
            typed(
                port.expand(
                    q.text, budget_tokens=budget_tokens, k_seeds=seeds, seed_from="streams"
                ).ids
            )
        )
    scores = []
    for method in METHODS:
        rows = []
        hit_by_type: dict[str, list[int]] = {t: [0, 0] for t in types}
        for q, ranked in zip(queries, rankings[method], strict=True):
            r, p, rr = score_ranking(ranked, q.expected)
            rows.append((q.id, round(r, 4), round(p, 4), round(rr, 4), len(ranked)))
            got = set(ranked)
            for e in q.expected:
                node = graph.node(e)
                assert node is not None
                hit_by_type[node.type][1] += 1
                hit_by_type[node.type][0] += int(e in got)
        scores.append(
            MethodScore(
                method,
                _mean([r[1] for r in rows]),
                _mean([r[2] for r in rows]),
                _mean([r[3] for r in rows]),
                _mean([r[4] for r in rows]),
                tuple((t, round(h / n, 4) if n else 0.0) for t, (h, n) in hit_by_type.items()),
                tuple(rows),
            )
        )
    return RetrievalReport(
        k,
        budget_tokens,
        seeds,
        types,
        len(queries),
        tuple(scores),
        tuple(problems),
        ruled,
        sum(1 for q in queries if q.id in others),
        tuple((t, len(graph.nodes_of(t))) for t in RULED_TYPES),
    )
