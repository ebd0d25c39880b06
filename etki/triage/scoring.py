"""Lexical relevance: Okapi BM25 over token lists (one job: score documents for a query).

Used for clauses, sentences of clauses, modules and work-item titles. Everything is
precomputed in :class:`BM25Index` so a query costs one dictionary walk per query token.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import compress

K1 = 1.2
"""BM25 term-frequency saturation. 1.2 is the value recommended by Robertson and
Zaragoza, *The Probabilistic Relevance Framework: BM25 and Beyond* (Foundations and
Trends in IR 3(4), 2009, section 3.3: "k1 in 1.2-2.0, b = 0.75"), and Lucene's default."""

B = 0.75
"""BM25 length normalisation, same source as :data:`K1`."""

TITLE_WEIGHT = 3
"""A clause title's tokens are counted this many times: the simple field-weighting
of BM25F (Robertson, Zaragoza and Taylor, *Simple BM25 extension to multiple weighted
fields*, CIKM 2004), where a field weight multiplies its term frequencies. Three: a
heading names the subject of a whole section, so one title word is worth a few body
mentions."""


def query_terms(tokens: Iterable[str]) -> tuple[str, ...]:
    """Distinct query terms in sorted order (a request repeating a word does not count
    it twice; sorting makes float sums independent of text order)."""
    return tuple(sorted(set(tokens)))


class BM25Index:
    """BM25 over ``docs`` (each a sequence of tokens), ``k1``/``b`` as above.

    IDF is the non-negative variant ``ln(1 + (N - df + 0.5) / (df + 0.5))`` (Lucene's
    BM25Similarity), so a term in every document still scores >= 0. A term that occurs
    in no document has :attr:`max_idf` (df = 0), used for coverage of unknown words.
    """

    def __init__(self, docs: Sequence[Sequence[str]], k1: float = K1, b: float = B) -> None:
        self.k1, self.b = k1, b
        self.n = len(docs)
        self.lengths = [len(d) for d in docs]
        self.avgdl = (sum(self.lengths) / self.n) if self.n else 0.0
        self.postings: dict[str, list[tuple[int, int]]] = {}
        for i, doc in enumerate(docs):
            for term, tf in sorted(Counter(doc).items()):
                self.postings.setdefault(term, []).append((i, tf))
        self.max_idf = self._idf(0)
        self.idf_of = {t: self._idf(len(p)) for t, p in self.postings.items()}
        # per-document length normalisation, the same expression scores() used inline
        self._norm = (
            [k1 * (1.0 - b + b * n / self.avgdl) for n in self.lengths] if self.avgdl else []
        )

    def _idf(self, df: int) -> float:
        return math.log(1.0 + (self.n - df + 0.5) / (df + 0.5))

    def idf(self, term: str) -> float:
        """IDF of ``term`` (:attr:`max_idf` for an unseen term)."""
        return self.idf_of.get(term, self.max_idf)

    def scores(self, terms: Sequence[str]) -> list[float]:
        """BM25 score of every document for the distinct ``terms`` (length ``n``)."""
        out = [0.0] * self.n
        if not self.n or self.avgdl == 0:
            return out
        k1_plus = self.k1 + 1.0
        norms = self._norm
        for term in query_terms(terms):
            posting = self.postings.get(term)
            if not posting:
                continue
            idf = self.idf_of[term]
            for i, tf in posting:
                out[i] += idf * tf * k1_plus / (tf + norms[i])
        return out

    def sparse_scores(self, terms: Sequence[str]) -> dict[int, float]:
        """:meth:`scores` of the documents that contain a query term (every other
        document scores 0.0): document index -> score, the same floats."""
        out: dict[int, float] = {}
        if not self.n or self.avgdl == 0:
            return out
        k1_plus = self.k1 + 1.0
        norms = self._norm
        get = out.get
        for term in query_terms(terms):
            posting = self.postings.get(term)
            if not posting:
                continue
            idf = self.idf_of[term]
            for i, tf in posting:
                out[i] = get(i, 0.0) + idf * tf * k1_plus / (tf + norms[i])
        return out

    def coverages(self, terms: Sequence[str]) -> list[float]:
        """:meth:`coverage` of every document at once (length ``n``), via the postings."""
        distinct = query_terms(terms)
        total = sum(self.idf(t) for t in distinct)
        out = [0.0] * self.n
        if total <= 0:
            return out
        for term in distinct:
            posting = self.postings.get(term)
            if not posting:
                continue
            share = self.idf_of[term] / total
            for i, _tf in posting:
                out[i] += share
        return out

    def coverage(self, terms: Sequence[str], doc: Sequence[str] | set[str]) -> float:
        """Share of the query's IDF mass whose terms occur in ``doc``, in [0, 1].

        ``sum(idf(t) for t in terms if t in doc) / sum(idf(t) for t in terms)`` over the
        distinct terms; unseen terms count with :attr:`max_idf`, so a request full of
        words the collection never uses has low coverage. 0.0 for an empty query."""
        distinct = query_terms(terms)
        present = doc if isinstance(doc, set) else set(doc)
        total = sum(self.idf(t) for t in distinct)
        if total <= 0:
            return 0.0
        return sum(self.idf(t) for t in distinct if t in present) / total


def top(
    scores: Sequence[float],
    keys: Sequence[str],
    k: int,
    *,
    min_score: float = 0.0,
    min_ratio: float = 0.0,
) -> list[tuple[str, float]]:
    """The ``k`` best ``(key, score)`` pairs with score > ``min_score`` and >=
    ``min_ratio`` x the best score, ordered by score descending then key ascending (a
    total order, so ties never depend on input order)."""
    if len(scores) != len(keys):
        raise ValueError(f"top: {len(scores)} scores for {len(keys)} keys")
    above = float(min_score).__lt__  # above(s) is s > min_score
    if k > 0:
        # Only pairs scoring at least the k-th best score can be among the k best: find
        # that score over plain floats, then sort just those pairs (ties included), which
        # gives the same list as sorting every pair with s > min_score (filters, maps and
        # comparisons run in C; a dense list of 20,000 work items is mostly zeros).
        best = heapq.nlargest(k, filter(above, scores))
        if not best:
            return []
        picked = compress(range(len(scores)), map(best[-1].__le__, scores))
        ranked = sorted([(scores[i], keys[i]) for i in picked], key=lambda p: (-p[0], p[1]))[:k]
    else:
        ranked = sorted(
            compress(zip(scores, keys, strict=True), map(above, scores)),
            key=lambda p: (-p[0], p[1]),
        )
        if not ranked:
            return []
        floor = ranked[0][0] * min_ratio
        return [(key, s) for s, key in ranked[:k] if s >= floor]
    floor = ranked[0][0] * min_ratio
    return [(key, s) for s, key in ranked if s >= floor]


def top_sparse(
    scores: Mapping[int, float], keys: Sequence[str], k: int, *, min_ratio: float = 0.0
) -> list[tuple[str, float]]:
    """:func:`top` of the dense list ``[scores.get(i, 0.0) for i in range(len(keys))]``
    (``min_score`` 0), from the non-zero scores alone (:meth:`BM25Index.sparse_scores`)."""
    if k <= 0:
        return top([scores.get(i, 0.0) for i in range(len(keys))], keys, k, min_ratio=min_ratio)
    positive = [s for s in scores.values() if s > 0.0]
    if not positive:
        return []
    cut = heapq.nlargest(k, positive)[-1] if len(positive) > k else 0.0
    ranked = sorted(
        [(s, keys[i]) for i, s in scores.items() if s > 0.0 and s >= cut],
        key=lambda p: (-p[0], p[1]),
    )[:k]
    floor = ranked[0][0] * min_ratio
    return [(key, s) for s, key in ranked if s >= floor]
