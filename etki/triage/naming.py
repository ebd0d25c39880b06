"""Naming (one job: how much of each contract sentence a request holds).

A sentence *names* a request's ask when the request holds at least
:data:`etki.triage.sureness.NAMED_SHARE` of the sentence's own IDF mass (its distinct
scoring tokens, its title left out); a lead-in ending in a colon or a sentence of fewer
than :data:`etki.triage.sureness.MIN_NAMING_TERMS` terms names nothing (mass 0). See
:mod:`etki.triage.sureness` for why and where the numbers come from. Built once per
engine; a request costs one array addition per query term.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

from etki.triage.contract import Sentence
from etki.triage.sureness import MIN_NAMING_TERMS


class NamingIndex:
    """Per sentence (same order as ``sentences``): the postings of its terms and its IDF
    mass. ``own_terms[k]``: the distinct scoring tokens of sentence ``k``; ``idf``: the
    IDF of a term (the engine's sentence index)."""

    def __init__(
        self,
        sentences: Sequence[Sentence],
        own_terms: Sequence[tuple[str, ...]],
        idf: Callable[[str], float],
    ) -> None:
        postings: dict[str, list[int]] = {}
        for k, terms in enumerate(own_terms):
            for t in terms:
                postings.setdefault(t, []).append(k)
        self._postings = {t: np.array(ks, dtype=np.intp) for t, ks in postings.items()}
        self._idf = {t: idf(t) for t in postings}
        self._mass = np.array(
            [
                sum(idf(t) for t in terms)
                if len(terms) >= MIN_NAMING_TERMS and not s.text.rstrip().endswith(":")
                else 0.0
                for s, terms in zip(sentences, own_terms, strict=True)
            ]
        )

    def shares(self, query: Iterable[str]) -> np.ndarray:
        """Per sentence, the share of its IDF mass that the distinct, sorted ``query``
        terms hold, in [0, 1] (0 for a sentence that names nothing). The sums run in
        query order, so equal queries give equal floats."""
        held = np.zeros(len(self._mass))
        for t in query:
            ks = self._postings.get(t)
            if ks is not None:
                held[ks] += self._idf[t]
        return np.divide(held, self._mass, out=np.zeros_like(held), where=self._mass > 0)
