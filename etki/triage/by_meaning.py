"""Reading a request by meaning: the contract's sentences nearest to it in an embedding
model's space, for a request written in a language no clause is written in (lexical
matching cannot see it). It picks the sentences and clauses such a request cites; the
verdict stays lexical (docs/EVAL.md, "One verdict per meaning", says why).

:class:`Embedder` is what the engine needs of a model; :class:`MeaningReader` holds one
project's sentence vectors (embedded on first use) and gives the ``semantic_match``
evidence step and the citations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from etki.domain import EvidenceStep
from etki.triage.explain import clip
from etki.triage.reading import ROUND

__all__ = ["SEMANTIC_GROUPS", "Embedder", "MeaningReader", "placed_by_meaning"]

SEMANTIC_GROUPS = ("obligation", "against", "future", "admin")
"""Sentence groups a request read by meaning can cite (context sentences describe, so
they are never cited)."""


def placed_by_meaning(best: Mapping[str, tuple[float, int]]) -> bool:
    """Whether a request read by meaning lies in an area the contract obliges: the
    nearest of its nearest sentences per group (``best``, as :meth:`MeaningReader.read`
    gives it) is an obligation sentence, not an exclusion, future-work or administrative
    one. False when ``best`` is empty (the model did not read it). A tie goes to the
    group first in :data:`SEMANTIC_GROUPS`.

    What it replaces: a defect report is *placed* when some obligation sentence covers
    part of it lexically (:mod:`etki.triage.sureness`); a request in a language no clause
    is written in shares no word with the contract, so lexically it is never placed
    while its English translation is (issue 29 item 6, one verdict per meaning). No
    threshold: the E5 cosines of a request to its nearest sentences lie close together
    (0.81-0.86 on the visible engagements, docs/EVAL.md), so only which group is
    nearest is read, never how near."""
    if not best:
        return False
    rank = {g: n for n, g in enumerate(SEMANTIC_GROUPS)}
    nearest = min(best, key=lambda g: (-best[g][0], rank.get(g, len(rank))))
    return nearest == "obligation"


class Embedder(Protocol):
    """What the engine needs of an embedding model: a ``name`` (recorded in
    ``model_version``) and ``embed(texts, kind)`` returning one vector (a sequence of
    floats) per text, ``kind`` ``"query"`` or ``"passage"`` (``etki.semantic.Embedder``
    is one). It must give the same vector for the same text every time."""

    name: str

    def embed(self, texts: Sequence[str], kind: Any) -> Sequence[Sequence[float]]: ...


class MeaningReader:
    """The contract's sentences of one project, to be matched by meaning.

    ``embedder``: the model, or None (then :meth:`read` must not be called);
    ``texts``, ``groups``, ``refs``, ``admin``: per sentence, its text, its group
    (``obligation``, ``against``, ``future``, ``admin``, ``context``), its clause's ref
    and whether its role is administrative; all four of one length."""

    def __init__(
        self,
        embedder: Embedder | None,
        texts: Sequence[str],
        groups: Sequence[str],
        refs: Sequence[str],
        admin: Sequence[bool],
    ) -> None:
        self.embedder = embedder
        self.texts = tuple(texts)
        self.groups = tuple(groups)
        self.refs = tuple(refs)
        self.admin = tuple(admin)
        self._vectors: np.ndarray | None = None  # unit rows, embedded on first use

    def read(
        self, text: str, lang: str
    ) -> tuple[EvidenceStep, dict[str, tuple[float, int]], list[int]]:
        """Cosine of the request (an E5 query) to every sentence (passages, embedded
        once): ``(evidence step, {group: (cosine, sentence index)} of the nearest
        sentence per group of :data:`SEMANTIC_GROUPS`, sentence indices of those groups
        by cosine descending)``. Cosines are float64 dot products of the unit vectors,
        summed in a fixed order (numpy ``einsum``, no BLAS threads) and rounded to
        :data:`ROUND` decimals, so they do not depend on the machine's load. On any error
        of the model the maps are empty and the step says why (the lexical reading then
        decides)."""
        assert self.embedder is not None
        name = self.embedder.name
        try:
            if self._vectors is None:
                rows = self.embedder.embed(list(self.texts), "passage")
                matrix = np.asarray(rows, dtype=np.float64).reshape(len(self.texts), -1)
                norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))
                self._vectors = matrix / np.where(norms > 0, norms, 1.0)[:, None]
            q = np.asarray(self.embedder.embed([text], "query")[0], dtype=np.float64)
            qn = float(np.sqrt(np.einsum("i,i->", q, q)))
            sims = np.einsum("ij,j->i", self._vectors, q / (qn or 1.0)) if len(q) else []
        except Exception as exc:  # noqa: BLE001 - any model fault: the lexical path decides
            return (
                EvidenceStep(
                    "semantic_match",
                    f"{name} failed ({type(exc).__name__}: {clip(str(exc), 100)}); read lexically",
                    (),
                ),
                {},
                [],
            )
        best: dict[str, tuple[float, int]] = {}
        keep: list[tuple[float, int]] = []
        for k, sim in enumerate(sims):
            group = self.groups[k]
            if group not in SEMANTIC_GROUPS:
                continue
            cos = round(float(sim), ROUND)
            keep.append((cos, k))
            if group not in best or cos > best[group][0]:
                best[group] = (cos, k)
        order = [k for _, k in sorted(keep, key=lambda x: (-x[0], x[1]))]
        detail = "; ".join(
            f"{g} {self.refs[k]} {c:.4f}"
            for g, (c, k) in sorted(best.items(), key=lambda x: (-x[1][0], x[0]))
        )
        return (
            EvidenceStep(
                "semantic_match",
                f"{name}: request in {lang}, no clause in that language, so sentences are "
                f"matched by meaning; nearest per group: {detail or 'none'}",
                tuple(sorted((g, c) for g, (c, _) in best.items())),
            ),
            best,
            order,
        )

    def cite(
        self,
        group: str | None,
        best: Mapping[str, tuple[float, int]],
        order: Sequence[int],
        *,
        admin: bool,
        limit: int,
    ) -> tuple[str, ...]:
        """Cited refs of a request read by meaning: the clause of the nearest sentence of
        ``group`` (the group the deciding rule rests on; ``admin`` for administration),
        then the clauses of the nearest sentences (not administrative ones, unless
        ``admin``: else procurement text is never cited), at most ``limit``."""
        refs: list[str] = []
        lead = [best[group][1]] if group is not None and group in best else []
        for k in [*lead, *(k for k in order if admin or not self.admin[k])]:
            ref = self.refs[k]
            if ref not in refs:
                refs.append(ref)
            if len(refs) == limit:
                break
        return tuple(refs)
