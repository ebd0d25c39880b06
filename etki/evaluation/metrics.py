"""Pure figures of a triage evaluation (one job: numbers from labels and answers).

Nothing here runs the engine; every function takes labels and answers as plain values,
so each figure can be checked by hand (``tests/test_triage_eval.py``).

* **Verdict figures** (:func:`verdict_figures`): accuracy; per verdict precision,
  recall, F1 and support; the confusion matrix (rows: label, columns: answer); macro-F1
  = the mean F1 over the verdicts of :data:`etki.domain.VERDICTS` that occur among the
  labels *or* the answers (a verdict nobody labelled and nobody answered is left out;
  a verdict labelled but never answered counts with F1 0). This is the convention the
  first ``etki eval triage`` used (``run_triage``), kept so figures stay comparable.
* **Bootstrap interval** (:func:`bootstrap`): the percentile bootstrap of Efron &
  Tibshirani, *An Introduction to the Bootstrap* (Chapman & Hall, 1993), ch. 13: draw
  the requests with replacement ``resamples`` times (2000 by default), compute the
  figure on each resample, and take the 2.5th and 97.5th percentiles of those values
  as the 95% interval. With ``strata`` the draw is stratified (each engagement keeps
  its own number of requests), which is how pooled figures are resampled. The random
  generator is Python's :class:`random.Random` seeded with ``seed`` at each call, so
  the interval is a function of the inputs and the seed only (not of call order).
  Percentiles interpolate linearly between order statistics (Hyndman & Fan 1996,
  definition 7; NumPy's default).
* **Clause numbers** (:func:`norm_number`, :func:`clause_hit`): section numbers are
  compared after removing trailing ``.0`` parts (``4.0`` -> ``4``, ``2.1.0`` -> ``2.1``)
  and a trailing dot. A labelled number with a dot (``2.1``) is hit only by a cited
  clause with exactly that number; a labelled number without a dot (``4``, a top-level
  section, as the TalentMAP labels are written) is hit by a cited clause numbered ``4``
  or by any clause whose top-level number is ``4`` (``4.2``, ``4.2.1``). ``4.2`` never
  counts for a label ``4.2.1``, nor ``4.1`` for ``4.2``. A cited clause's numbers are
  its own and its ``aliases`` (numbers of empty parents merged into it by the index).
  ``bench/triage_quality.py`` compared numbers exactly (the first rule alone); the top-level
  rule is added because labels written at section level cannot be matched otherwise.
* **Recall shares** (:class:`Share`): clause recall is the share of requests *with at
  least one labelled clause* where one labelled number is hit; module recall the share of
  requests with at least one labelled module where one labelled module is among the
  impacted modules. Requests without such labels are not counted either way.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from etki.defaults import BOOTSTRAP_RESAMPLES
from etki.domain import VERDICTS

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "ClassFigures",
    "Interval",
    "Share",
    "VerdictFigures",
    "bootstrap",
    "clause_hit",
    "norm_number",
    "percentile",
    "verdict_figures",
]


_INDEX = {v: i for i, v in enumerate(VERDICTS)}
_K = len(VERDICTS)


@dataclass(frozen=True)
class Interval:
    """A point figure with its bootstrap 95% percentile interval (``low`` <= ``high``;
    both are ``value`` when there is nothing to resample)."""

    value: float
    low: float
    high: float

    def to_dict(self) -> dict[str, float]:
        return {
            "value": round(self.value, 4),
            "low": round(self.low, 4),
            "high": round(self.high, 4),
        }

    def text(self) -> str:
        """``0.84 [0.62, 0.97]``."""
        return f"{self.value:.2f} [{self.low:.2f}, {self.high:.2f}]"


@dataclass(frozen=True)
class Share:
    """``hits`` of ``n`` counted requests; ``value`` is None when ``n`` is 0."""

    hits: int
    n: int

    @property
    def value(self) -> float | None:
        return self.hits / self.n if self.n else None

    @classmethod
    def of(cls, outcomes: Iterable[bool | None]) -> Share:
        """From per-request outcomes: True hit, False miss, None not counted."""
        seen = [o for o in outcomes if o is not None]
        return cls(sum(seen), len(seen))

    def to_dict(self) -> dict[str, Any]:
        v = self.value
        return {"hits": self.hits, "n": self.n, "value": None if v is None else round(v, 4)}

    def text(self) -> str:
        """``0.79 23/29`` or ``-`` when nothing was counted."""
        v = self.value
        return "-" if v is None else f"{v:.2f} {self.hits}/{self.n}"


@dataclass(frozen=True)
class ClassFigures:
    """One verdict: ``precision``, ``recall``, ``f1`` (0..1, 0 when undefined),
    ``support`` (requests labelled with it) and ``answered`` (requests the scorer gave
    it to)."""

    verdict: str
    precision: float
    recall: float
    f1: float
    support: int
    answered: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
            "support": self.support,
            "answered": self.answered,
        }


@dataclass(frozen=True)
class VerdictFigures:
    """Verdict figures of ``n`` (label, answer) pairs; see the module docstring.

    ``macro_classes``: the verdicts averaged in ``macro_f1``; ``confusion``: counts
    ``confusion[i][j]`` of label ``VERDICTS[i]`` answered ``VERDICTS[j]``;
    ``never_answered``: verdicts no pair was answered with."""

    n: int
    accuracy: float
    macro_f1: float
    macro_classes: tuple[str, ...]
    per_class: tuple[ClassFigures, ...]
    confusion: tuple[tuple[int, ...], ...]
    never_answered: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "accuracy": round(self.accuracy, 4),
            "macro_f1": round(self.macro_f1, 4),
            "macro_classes": list(self.macro_classes),
            "per_verdict": {c.verdict: c.to_dict() for c in self.per_class},
            "confusion": {
                VERDICTS[i]: {VERDICTS[j]: self.confusion[i][j] for j in range(_K)}
                for i in range(_K)
            },
            "never_answered": list(self.never_answered),
        }


def _codes(labels: Sequence[str], answers: Sequence[str]) -> list[int]:
    if len(labels) != len(answers):
        raise ValueError(f"{len(labels)} labels but {len(answers)} answers")
    try:
        return [_INDEX[a] * _K + _INDEX[b] for a, b in zip(labels, answers, strict=True)]
    except KeyError as exc:
        raise ValueError(
            f"not a verdict: {exc.args[0]!r}; use one of {', '.join(VERDICTS)}"
        ) from None


def _from_counts(
    cells: Sequence[int],
) -> tuple[float, float, list[tuple[float, float, float, int, int]], list[int]]:
    """(accuracy, macro-F1, per class (p, r, f1, support, answered), macro class ids)."""
    n = sum(cells)
    correct = sum(cells[i * _K + i] for i in range(_K))
    per = []
    macro = []
    for i in range(_K):
        tp = cells[i * _K + i]
        support = sum(cells[i * _K + j] for j in range(_K))
        answered = sum(cells[j * _K + i] for j in range(_K))
        p = tp / answered if answered else 0.0
        r = tp / support if support else 0.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        per.append((p, r, f1, support, answered))
        if support or answered:
            macro.append(i)
    macro_f1 = sum(per[i][2] for i in macro) / len(macro) if macro else 0.0
    return (correct / n if n else 0.0), macro_f1, per, macro


def _counts(codes: Iterable[int]) -> list[int]:
    cells = [0] * (_K * _K)
    for c in codes:
        cells[c] += 1
    return cells


def verdict_figures(labels: Sequence[str], answers: Sequence[str]) -> VerdictFigures:
    """Accuracy, macro-F1, per-verdict figures and confusion of ``answers`` against
    ``labels`` (equal-length sequences of verdict names). Raises ``ValueError`` for a
    length mismatch or a name outside :data:`etki.domain.VERDICTS`. Empty input gives
    zeros."""
    cells = _counts(_codes(labels, answers))
    acc, macro_f1, per, macro = _from_counts(cells)
    per_class = tuple(ClassFigures(VERDICTS[i], *per[i]) for i in range(_K))
    confusion = tuple(tuple(cells[i * _K + j] for j in range(_K)) for i in range(_K))
    never = tuple(VERDICTS[i] for i in range(_K) if per[i][4] == 0)
    return VerdictFigures(
        len(labels), acc, macro_f1, tuple(VERDICTS[i] for i in macro), per_class, confusion, never
    )


def percentile(ordered: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of the sorted values ``ordered``, interpolating linearly
    between order statistics (Hyndman & Fan 1996, definition 7). Raises ``ValueError``
    for an empty sequence or ``q`` outside 0..1."""
    if not ordered:
        raise ValueError("percentile of no values")
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"quantile {q} is outside 0..1")
    pos = q * (len(ordered) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def bootstrap(
    labels: Sequence[str],
    answers: Sequence[str],
    *,
    strata: Sequence[Sequence[int]] | None = None,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = 0,
) -> tuple[Interval, Interval]:
    """``(accuracy, macro-F1)`` with 95% percentile-bootstrap intervals (Efron &
    Tibshirani 1993; see the module docstring).

    ``strata``: groups of positions into ``labels`` (each engagement's requests); each
    resample draws every group with replacement to its own size. Default: one group of
    all. ``resamples`` 0 gives the point figures as both ends. Deterministic for a given
    input and ``seed``. Raises ``ValueError`` as :func:`verdict_figures`, or for
    ``resamples`` < 0 or strata that do not cover each position exactly once."""
    codes = _codes(labels, answers)
    acc, f1, _, _ = _from_counts(_counts(codes))
    if resamples < 0:
        raise ValueError(f"resamples must be >= 0, not {resamples}")
    groups = [list(range(len(codes)))] if strata is None else [list(s) for s in strata]
    if sorted(i for g in groups for i in g) != list(range(len(codes))):
        raise ValueError("strata must hold each position exactly once")
    groups = [[codes[i] for i in g] for g in groups if g]
    if resamples == 0 or not codes:
        return Interval(acc, acc, acc), Interval(f1, f1, f1)
    rng = random.Random(seed)
    accs: list[float] = []
    f1s: list[float] = []
    for _ in range(resamples):
        cells = [0] * (_K * _K)
        for g in groups:
            for c in rng.choices(g, k=len(g)):
                cells[c] += 1
        a, f, _, _ = _from_counts(cells)
        accs.append(a)
        f1s.append(f)
    accs.sort()
    f1s.sort()
    return (
        Interval(acc, percentile(accs, 0.025), percentile(accs, 0.975)),
        Interval(f1, percentile(f1s, 0.025), percentile(f1s, 0.975)),
    )


def norm_number(number: str) -> str:
    """A section number for comparison: whitespace and a trailing dot removed, a ref's
    ``contract#`` prefix dropped, trailing ``.0`` parts removed (``"4.0"`` -> ``"4"``,
    ``" 2.1. "`` -> ``"2.1"``, ``"tdrs-rfq#3.1.2"`` -> ``"3.1.2"``; ``"4.10"`` stays)."""
    text = number.strip()
    if "#" in text:
        text = text.rsplit("#", 1)[1]
    parts = [p.strip() for p in text.strip(".").split(".")]
    parts = [p for p in parts if p]
    while len(parts) > 1 and parts[-1] == "0":
        parts.pop()
    return ".".join(parts)


def clause_hit(labelled: Iterable[str], cited_numbers: Iterable[str]) -> bool:
    """Whether one labelled section number is hit by the numbers of the cited clauses
    (the rule of the module docstring: exact after :func:`norm_number`; a label without
    a dot also by any cited number under that top-level section)."""
    cited = {n for n in (norm_number(c) for c in cited_numbers) if n}
    tops = {n.split(".", 1)[0] for n in cited}
    for raw in labelled:
        label = norm_number(raw)
        if not label:
            continue
        if label in cited or ("." not in label and label in tops):
            return True
    return False
