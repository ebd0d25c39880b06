"""What the engine reads off one request, step by step: the request as the steps see
it (:class:`Request`), the best-matching sentence and role text of each sentence group
(:class:`Groups`) and the wording cues it matched (:class:`Wording`), with the two
array helpers that find the best of each group. Plain values: the steps that fill them
live in :mod:`etki.triage.engine`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from etki.triage import cues
from etki.triage.normalise import cue_words_as_written

__all__ = ["ROUND", "Groups", "Request", "Wording", "best_by_group", "positions_by_group"]

ROUND = 4
"""Decimals kept for every stored score (the engine rounds with it too)."""


def _round(x: float) -> float:
    return round(float(x), ROUND)


@dataclass(frozen=True)
class Request:
    """One request as the evidence steps read it: ``full`` (title and text), its
    guessed ``lang``, the distinct ``query`` terms (sorted) and the folded cue
    ``words``; :meth:`written` gives the same words as the request spells them."""

    full: str
    lang: str
    query: tuple[str, ...]
    words: tuple[str, ...]

    @cached_property
    def _written(self) -> tuple[str, ...]:
        return cue_words_as_written(self.full)

    def written(self) -> tuple[str, ...]:
        """The cue words as the request writes them (made on first call; only a request
        whose wording is quoted needs them)."""
        return self._written


def positions_by_group(groups: Sequence[str]) -> dict[str, np.ndarray]:
    """Group -> the ascending positions ``k`` with ``groups[k]`` equal to it."""
    out: dict[str, list[int]] = {}
    for k, group in enumerate(groups):
        out.setdefault(group, []).append(k)
    return {g: np.array(ks, dtype=np.intp) for g, ks in out.items()}


def best_by_group(
    values: np.ndarray, positions: Mapping[str, np.ndarray]
) -> dict[str, tuple[float, int]]:
    """Group -> (best value, its position) over ``values`` (the first position on a
    tie), for the groups whose best value is > 0 (:func:`positions_by_group`)."""
    out: dict[str, tuple[float, int]] = {}
    for group, ks in positions.items():
        sub = values[ks]
        j = int(sub.argmax())
        if sub[j] > 0:
            out[group] = (float(sub[j]), int(ks[j]))
    return out


@dataclass(frozen=True)
class Groups:
    """Per sentence group (``obligation``, ``against``, ``future``, ``admin``,
    ``context``): ``best_role`` (BM25 score, role-text index) of the best role text and
    ``best_sent`` (coverage, sentence index) of the best single sentence; a group
    nothing matched is absent."""

    best_role: dict[str, tuple[float, int]]
    best_sent: dict[str, tuple[float, int]]

    def score(self, group: str) -> float:
        """The best role-text score of ``group``, rounded; 0.0 when none matched."""
        return _round(self.best_role[group][0]) if group in self.best_role else 0.0

    def coverage(self, group: str) -> float:
        """The best sentence coverage of ``group``, rounded; 0.0 when none matched."""
        return _round(self.best_sent[group][0]) if group in self.best_sent else 0.0


@dataclass(frozen=True)
class Wording:
    """The wording cues a request matched, each as ((cue, first matched words), ...)
    (:meth:`etki.triage.cues.CueList.hits`)."""

    defect: tuple[tuple[cues.Cue, str], ...]
    advice: tuple[tuple[cues.Cue, str], ...]
    admin_request: tuple[tuple[cues.Cue, str], ...]
    new_capability: tuple[tuple[cues.Cue, str], ...]

    @property
    def strong(self) -> float:
        """Summed weight of the strong defect cues (weight >= 1), rounded."""
        return _round(sum(c.weight for c, _ in self.defect if c.weight >= 1.0))

    @property
    def weak(self) -> float:
        """Summed weight of the weak defect cues (weight < 1), rounded."""
        return _round(sum(c.weight for c, _ in self.defect if c.weight < 1.0))
