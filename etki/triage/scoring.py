"""Lexical relevance: Okapi BM25 over token lists (one job: score documents for a query).

Used for clauses, sentences of clauses, modules and work-item titles. Everything is
precomputed in :class:`BM25Index` so a query costs one array addition per query token.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import compress

import numpy as np

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

    The postings are numpy arrays: for each term, the positions of the documents holding
    it and that term's share of each one's score (``idf * tf * (k1 + 1) / (tf + norm)``,
    fixed once the index is built), so a query adds one array per query term. The
    terms are added in sorted order, one IEEE addition per term and document as a loop
    over the postings would do, so the scores are the same floats to the last bit.
    """

    def __init__(self, docs: Sequence[Sequence[str]], k1: float = K1, b: float = B) -> None:
        self.k1, self.b = k1, b
        self.n = len(docs)
        lengths = [len(d) for d in docs]
        self.avgdl = (sum(lengths) / self.n) if self.n else 0.0
        postings: dict[str, list[tuple[int, int]]] = {}
        for i, doc in enumerate(docs):
            for term, tf in sorted(Counter(doc).items()):
                postings.setdefault(term, []).append((i, tf))
        self.max_idf = self._idf(0)
        self.idf_of = {t: self._idf(len(p)) for t, p in postings.items()}
        # term -> (start, end) of its postings in the flat arrays below
        self._span: dict[str, tuple[int, int]] = {}
        flat: list[tuple[int, int]] = []
        for term, posting in postings.items():
            self._span[term] = (len(flat), len(flat) + len(posting))
            flat.extend(posting)
        self._doc = np.array([i for i, _ in flat], dtype=np.intp)
        tfs = np.array([f for _, f in flat], dtype=np.float64)
        idf = np.repeat(
            np.array([self.idf_of[t] for t in postings], dtype=np.float64),
            [len(p) for p in postings.values()],
        )
        if self.avgdl:
            norm = k1 * (1.0 - b + b * np.array(lengths, dtype=np.float64) / self.avgdl)
            # the expression a per-posting loop evaluates, in the same order
            self._part = idf * tfs * (k1 + 1.0) / (tfs + norm[self._doc])
        else:
            self._part = np.zeros(len(flat))

    def _idf(self, df: int) -> float:
        return math.log(1.0 + (self.n - df + 0.5) / (df + 0.5))

    def idf(self, term: str) -> float:
        """IDF of ``term`` (:attr:`max_idf` for an unseen term)."""
        return self.idf_of.get(term, self.max_idf)

    def array(self, terms: Iterable[str]) -> np.ndarray:
        """BM25 score of every document for the distinct ``terms``: a float64 array of
        length ``n`` (0.0 for a document holding no query term)."""
        out = np.zeros(self.n)
        if not self.n or self.avgdl == 0:
            return out
        for term in query_terms(terms):
            span = self._span.get(term)
            if span is not None:
                docs = self._doc[span[0] : span[1]]
                out[docs] += self._part[span[0] : span[1]]
        return out

    def scores(self, terms: Sequence[str]) -> list[float]:
        """:meth:`array` as a list of floats (length ``n``)."""
        return self.array(terms).tolist()

    def coverage_array(self, terms: Sequence[str]) -> np.ndarray:
        """:meth:`coverage` of every document at once, via the postings: a float64 array
        of length ``n``."""
        distinct = query_terms(terms)
        total = sum(self.idf(t) for t in distinct)
        out = np.zeros(self.n)
        if total <= 0:
            return out
        for term in distinct:
            span = self._span.get(term)
            if span is not None:
                out[self._doc[span[0] : span[1]]] += self.idf_of[term] / total
        return out

    def coverages(self, terms: Sequence[str]) -> list[float]:
        """:meth:`coverage_array` as a list of floats (length ``n``)."""
        return self.coverage_array(terms).tolist()

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


def top_array(
    scores: np.ndarray, keys: Sequence[str], k: int, *, min_ratio: float = 0.0
) -> list[tuple[str, float]]:
    """:func:`top` of the float64 array ``scores`` (``min_score`` 0, e.g.
    :meth:`BM25Index.array`), the scores as Python floats: the k-th best score is found
    over the array, and only the pairs scoring at least that much are sorted."""
    if k <= 0:
        return top(scores.tolist(), keys, k, min_ratio=min_ratio)
    if len(scores) != len(keys):
        raise ValueError(f"top_array: {len(scores)} scores for {len(keys)} keys")
    positive = np.flatnonzero(scores > 0.0)
    if not len(positive):
        return []
    values = scores[positive]
    if len(values) > k:
        # the k-th best positive score; partitioning the whole array instead is ~60x
        # slower on a mostly-zero one (measured: 8 ms vs 0.12 ms on 27,000 floats)
        cut = np.partition(values, len(values) - k)[len(values) - k]
        positive = positive[values >= cut]
    pairs = [(scores[i], keys[i]) for i in positive.tolist()]
    ranked = sorted(pairs, key=lambda p: (-p[0], p[1]))[:k]
    floor = ranked[0][0] * min_ratio
    return [(key, float(s)) for s, key in ranked if s >= floor]
