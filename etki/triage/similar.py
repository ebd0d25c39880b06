"""Memory beside the verdict: the nearest ruled requests of a project and the ruling
they support. Pure (no I/O, no clock): the same ruled cases and request give the same
answer, byte for byte.

The result is *informational*. It is computed after the engine's decision and attached
to it (``Decision.similar_rulings``, ``Decision.memory_verdict``); the engine never
reads it, so verdict and confidence stay a function of the request, the contract and
the index (DESIGN.md, "Triage engine": the clause-memory rule).

Similarity
    Cosine of TF-IDF vectors of the two requests' text (title, when it is not just the
    first line of the text, then the text), over the engine's own scoring tokens
    (:func:`etki.triage.normalise.tokens`: NFC, case-folded with Turkish İ/ı and German
    ß handled, stopwords out, stemmed, language guessed per request among the
    project's languages). Term weight ``(1 + ln tf) * idf`` with
    ``idf = ln((1 + N) / (1 + df)) + 1``: sublinear tf and smoothed idf as in Manning,
    Raghavan and Schütze, *Introduction to Information Retrieval* (2008), sections 6.2.2
    and 6.4.1 (the smoothed form is scikit-learn's ``TfidfVectorizer(smooth_idf=True,
    sublinear_tf=True)``). Weights are non-negative, so the cosine lies in [0, 1].

    The document frequencies come from a *background* collection, the project's
    contract clauses (``N`` clauses), not from the ruled requests themselves: with
    idf over the ruled set, every new ruling on a topic would lower the weight of that
    topic's words, so the more often reviewers ruled on something, the less similar its
    next occurrence would look — the opposite of a memory. Over the contract, words the
    contract uses everywhere ("system", "portal") weigh little, and words it never uses
    weigh most; the similarity of two requests is then a function of the two texts and
    the contract only, stable while rulings accumulate. With no background every word
    weighs the same (plain sublinear-tf cosine).

Threshold (:data:`SIMILARITY_MIN` = 0.5)
    Take two requests whose weight vectors have the same length and which give the
    same weights to the terms they share. Their cosine is then exactly the share of
    each one's (squared) TF-IDF mass that lies on shared terms. 0.5 therefore reads
    "at least half of what each request weighs is what the other says too": more
    shared than not. It is a property of the measure, not a value fitted to labelled
    requests; no labelled file was read to choose it.

Memory verdict (:func:`memory_verdict`)
    Among the similar rulings (at most :data:`MAX_SIMILAR`), a ruling is supported
    when at least :data:`MIN_SUPPORT` (2) of them carry it — one past case is an
    anecdote, two that agree are a pattern — and it holds at least
    :data:`MAJORITY_SHARE` (two thirds, the usual "clear" or qualified majority) of
    their summed similarity. Otherwise there is no memory verdict (None).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from etki.domain import VERDICTS, SimilarRuling
from etki.triage.normalise import guess_language, tokens

__all__ = [
    "MAJORITY_SHARE",
    "MAX_SIMILAR",
    "MIN_SUPPORT",
    "SIMILARITY_MIN",
    "Beside",
    "RuledRequest",
    "RulingIndex",
    "background_idf",
    "memory_verdict",
    "request_text",
]

SIMILARITY_MIN = 0.5
"""Least cosine for a ruled case to count as similar (see the module docstring:
half the TF-IDF mass shared; not fitted to labelled requests)."""

MAX_SIMILAR = 5
"""At most this many similar rulings are listed (a reviewer reads five at a glance)."""

MIN_SUPPORT = 2
"""Least number of similar rulings that must agree for a memory verdict."""

MAJORITY_SHARE = 2 / 3
"""Least share of the similar rulings' summed similarity the memory verdict must hold
(a two-thirds, "clear" majority)."""

ELLIPSIS = "…"


def request_text(title: str | None, text: str) -> str:
    """The text a request is compared by: ``title`` and ``text`` joined by a newline,
    or ``text`` alone when there is no title or the title is only the first line of
    the text (a stored case without a title keeps that line, cut to 80 characters with
    ``…``, as its title; :func:`etki.store.repository.rows.title_of`)."""
    head = (title or "").strip()
    if not head:
        return text
    stem = head[:-1].rstrip() if head.endswith(ELLIPSIS) else head
    if text.strip().startswith(stem):
        return text
    return f"{head}\n{text}"


@dataclass(frozen=True)
class RuledRequest:
    """A ruled case as the index needs it: ``case_id``, the request's ``title`` (or
    None) and ``text`` (untrusted client text, only tokenised), and the reviewer's
    latest ``ruling`` (a verdict)."""

    case_id: str
    title: str | None
    text: str
    ruling: str


@dataclass(frozen=True)
class Beside:
    """What the memory says beside one decision: ``similar`` (sorted by similarity
    descending, then case id) and ``verdict`` (:func:`memory_verdict` of them)."""

    similar: tuple[SimilarRuling, ...] = ()
    verdict: str | None = None

    @property
    def empty(self) -> bool:
        """True when no ruled case is similar."""
        return not self.similar


def memory_verdict(similar: Sequence[SimilarRuling]) -> str | None:
    """The ruling ``similar`` supports, or None (rule in the module docstring: at least
    :data:`MIN_SUPPORT` cases carry it and it holds at least :data:`MAJORITY_SHARE` of
    the summed similarity)."""
    total = sum(s.similarity for s in similar)
    if total <= 0:
        return None
    for verdict in VERDICTS:
        mine = [s for s in similar if s.ruling == verdict]
        weight = sum(s.similarity for s in mine)
        if len(mine) >= MIN_SUPPORT and weight >= MAJORITY_SHARE * total - 1e-12:
            return verdict
    return None


def _weights(toks: Iterable[str], idf: dict[str, float], unseen: float) -> dict[str, float]:
    counts = Counter(toks)
    return {t: (1.0 + math.log(n)) * idf.get(t, unseen) for t, n in sorted(counts.items())}


def _norm(vec: dict[str, float]) -> float:
    return math.sqrt(math.fsum(w * w for _, w in sorted(vec.items())))


def background_idf(
    texts: Iterable[str], languages: Sequence[str] = ("en",)
) -> tuple[dict[str, float], float]:
    """Smoothed idf of every token of ``texts`` (the background collection, e.g. the
    contract's clauses as ``title + "\n" + text``), and the idf of a token none of them
    has: ``({token: ln((1 + N) / (1 + df)) + 1}, ln(1 + N) + 1)``. Pure; order-free."""
    langs = tuple(languages) or ("en",)
    df: Counter[str] = Counter()
    n = 0
    for text in texts:
        n += 1
        df.update(set(tokens(text, guess_language(text, langs))))
    return ({t: math.log((1 + n) / (1 + d)) + 1.0 for t, d in df.items()}, math.log(1 + n) + 1.0)


class RulingIndex:
    """A TF-IDF index over the ruled requests of one project.

    ``ruled``: the ruled cases (any order; the index sorts them by case id, so the
    result does not depend on how they were read). ``languages``: the project's
    languages, the preference order of :func:`guess_language`. ``background``: the
    output of :func:`background_idf` (the contract's clauses); None weighs every token
    the same. Building costs one tokenisation per ruled request; a query one walk over
    the postings of its terms.

    ``reuse``: an earlier index of the same project; the vectors of requests it holds
    with the same title and text are taken from it instead of tokenising again (exact:
    a request's vector depends only on its text and the background, never on the other
    rulings). Ignored when its background or languages differ.
    """

    def __init__(
        self,
        ruled: Iterable[RuledRequest],
        languages: Sequence[str] = ("en",),
        background: tuple[dict[str, float], float] | None = None,
        *,
        reuse: RulingIndex | None = None,
    ) -> None:
        self.languages = tuple(languages) or ("en",)
        docs = sorted({r.case_id: r for r in ruled}.values(), key=lambda r: r.case_id)
        self.case_ids = [r.case_id for r in docs]
        self.rulings = [r.ruling for r in docs]
        self.background = background
        self.idf, self.unseen = background if background is not None else ({}, 1.0)
        old: dict[tuple[str, str | None, str], tuple[dict[str, float], float]] = {}
        if (
            reuse is not None
            and reuse.background is background
            and reuse.languages == self.languages
        ):
            old = reuse.vectors
        self.vectors: dict[tuple[str, str | None, str], tuple[dict[str, float], float]] = {}
        self.postings: dict[str, list[tuple[int, float]]] = {}
        self.norms: list[float] = []
        for i, r in enumerate(docs):
            key = (r.case_id, r.title, r.text)
            known = old.get(key)
            if known is None:
                vec = _weights(self._tokens(r.title, r.text), self.idf, self.unseen)
                known = (vec, _norm(vec))
            self.vectors[key] = known
            vec, norm = known
            self.norms.append(norm)
            for term, w in vec.items():
                self.postings.setdefault(term, []).append((i, w))

    def __len__(self) -> int:
        return len(self.case_ids)

    def _tokens(self, title: str | None, text: str) -> tuple[str, ...]:
        full = request_text(title, text)
        return tokens(full, guess_language(full, self.languages))

    def similar(
        self,
        title: str | None,
        text: str,
        *,
        exclude: str | None = None,
        threshold: float = SIMILARITY_MIN,
        limit: int = MAX_SIMILAR,
    ) -> tuple[SimilarRuling, ...]:
        """Ruled cases whose similarity to the request (``title``, ``text``) is at
        least ``threshold``, at most ``limit``, sorted by similarity (rounded to 4
        decimals) descending, then case id. ``exclude`` leaves one case out (the case
        itself, when it is ruled). An empty request is similar to nothing."""
        if not self.case_ids:
            return ()
        query = _weights(self._tokens(title, text), self.idf, self.unseen)
        qnorm = _norm(query)
        if qnorm == 0.0:
            return ()
        dots: dict[int, float] = {}
        get = dots.get
        postings = self.postings
        for term, w in query.items():  # sorted terms: the sums are added in one fixed order
            for i, dw in postings.get(term, ()):
                dots[i] = get(i, 0.0) + w * dw
        found = []
        for i, dot in dots.items():
            if self.case_ids[i] == exclude or self.norms[i] == 0.0:
                continue
            cosine = min(1.0, dot / (qnorm * self.norms[i]))
            score = round(cosine, 4)
            if score >= threshold:
                found.append(
                    SimilarRuling(
                        self.case_ids[i],
                        self.rulings[i],  # type: ignore[arg-type]  # stored Verdicts
                        score,
                    )
                )
        found.sort(key=lambda s: (-s.similarity, s.case_id))
        return tuple(found[:limit])

    def beside(self, title: str | None, text: str, *, exclude: str | None = None) -> Beside:
        """:meth:`similar` with the default threshold and limit, and the
        :func:`memory_verdict` of what it found."""
        found = self.similar(title, text, exclude=exclude)
        return Beside(found, memory_verdict(found))
