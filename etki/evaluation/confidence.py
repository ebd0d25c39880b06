"""Whether the engine's confidence means something (issue 29, item 2; one job: figures of
confidence against correctness).

Nothing here runs the engine. The pure functions take confidences and correctness as
plain values, so each figure can be checked by hand (``tests/test_confidence_eval.py``);
:func:`confidence_report` applies them to an :class:`~etki.evaluation.triage.Evaluation`.

* **Ranking** (:func:`top_k_accuracy`, :func:`selective_accuracy`,
  :func:`mean_accuracy_over_coverage`): answers ranked by confidence, highest first.
  Answers of equal confidence are *not* ordered by file position: a tied block that the
  cut at ``k`` splits contributes its mean accuracy times the number of places it fills,
  which is the expected accuracy under a uniformly random order within the block. The
  figures are therefore deterministic and a constant confidence scores exactly the
  overall accuracy at every coverage.
* **Reliability** (:data:`BINS`, :func:`reliability`, :func:`expected_calibration_error`):
  fixed bins, chosen in code before any figure was seen; ECE as Naeini, Cooper &
  Hauskrecht 2015 and Guo et al. 2017.
* **Calibration by evidence kind** (:func:`calibrate_by_kind`,
  :func:`calibrate_by_kind_all`): one number per kind of deciding evidence, its accuracy
  smoothed toward the rate of its group (sure kinds or the others; :func:`m_estimate`)
  over the other engagements (leave-one-engagement-out) or over all (the numbers a
  shipped engine may carry as constants).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from etki.evaluation.metrics import Share
from etki.triage.sureness import SURE_KINDS

if TYPE_CHECKING:
    from etki.evaluation.triage import Evaluation, Outcome

__all__ = [
    "BINS",
    "COVERAGES",
    "UNSEEN",
    "CalibrationRow",
    "ConfidenceFigures",
    "ConfidenceReport",
    "LoeoConfidence",
    "ReliabilityBin",
    "Sureness",
    "calibrate_by_kind",
    "calibrate_by_kind_all",
    "calibration_rows",
    "confidence_figures",
    "confidence_for",
    "confidence_report",
    "expected_calibration_error",
    "figures_of",
    "kind_counts",
    "laplace",
    "m_estimate",
    "mean_accuracy_over_coverage",
    "reliability",
    "selective_accuracy",
    "sureness",
    "top_k_accuracy",
]

COVERAGES: tuple[float, ...] = (0.25, 0.50, 0.75)
"""Coverages of :func:`selective_accuracy` in the report (issue 29: the most confident
25 / 50 / 75 %)."""

BINS: tuple[tuple[float, float], ...] = (
    (0.0, 0.5),
    (0.5, 0.6),
    (0.6, 0.7),
    (0.7, 0.8),
    (0.8, 0.9),
    (0.9, 1.0),
)
"""Confidence bins of the reliability table, fixed here before any figure was seen:
``[0, 0.5)``, then tenths ``[0.5, 0.6)`` ... ``[0.8, 0.9)``, and ``[0.9, 1.0]`` (the last
bin holds 1.0). Below 0.5 is one bin: a verdict among three the engine is less than even
about is rare and one bin keeps it readable. Do not edit after seeing results."""

UNSEEN = "(unseen)"
"""Key of a calibration table holding the value of a kind the table never saw: the pooled
smoothed accuracy of the outcomes it was set on (:func:`confidence_for`)."""


# --- ranking ----------------------------------------------------------------------------


def _ranked_blocks(confidences: Sequence[float], correct: Sequence[bool]) -> list[tuple[int, int]]:
    """``(size, correct)`` of each block of equal confidence, highest confidence first."""
    if len(confidences) != len(correct):
        raise ValueError(f"{len(confidences)} confidences but {len(correct)} outcomes")
    blocks: dict[float, list[int]] = {}
    for c, ok in zip(confidences, correct, strict=True):
        b = blocks.setdefault(float(c), [0, 0])
        b[0] += 1
        b[1] += bool(ok)
    return [(blocks[c][0], blocks[c][1]) for c in sorted(blocks, reverse=True)]


def _expected_correct(blocks: Sequence[tuple[int, int]], k: int) -> float:
    """Expected number of correct answers among the first ``k`` of the ranking."""
    total = 0.0
    left = k
    for size, ok in blocks:
        if left <= 0:
            break
        take = min(size, left)
        total += ok if take == size else ok * take / size
        left -= take
    return total


def top_k_accuracy(confidences: Sequence[float], correct: Sequence[bool], k: int) -> float:
    """Accuracy of the ``k`` most confident answers (1 <= ``k`` <= n), ties at the cut
    at their expected accuracy under a random order within the tied block.

    ``confidences[i]`` and ``correct[i]`` describe answer ``i``. Example: confidences
    (0.9, 0.8, 0.8, 0.8), correct (T, T, F, F), k = 2: the 0.9 answer (1 right) and one
    of the three 0.8 answers (mean 1/3) -> (1 + 1/3) / 2 = 2/3. Method: the risk-coverage
    view of selective classification (Geifman & El-Yaniv, "Selective classification for
    deep neural networks", NeurIPS 2017), ties handled as the expectation over orders.
    Raises ``ValueError`` for unequal lengths or ``k`` outside 1..n."""
    n = len(confidences)
    if not 1 <= k <= n:
        raise ValueError(f"k = {k} is outside 1..{n}")
    return _expected_correct(_ranked_blocks(confidences, correct), k) / k


def selective_accuracy(
    confidences: Sequence[float], correct: Sequence[bool], coverage: float
) -> float | None:
    """Accuracy of the most confident ``ceil(coverage * n)`` answers (tie-aware, see
    :func:`top_k_accuracy`), or None for no answers. ``coverage`` in (0, 1]; shapes as
    :func:`top_k_accuracy`. Example: 4 answers, coverage 0.5 -> the top 2. Source:
    selective accuracy at a fixed coverage (Geifman & El-Yaniv 2017, section 2).
    Raises ``ValueError`` for ``coverage`` outside (0, 1] or unequal lengths."""
    if not 0.0 < coverage <= 1.0:
        raise ValueError(f"coverage {coverage} is outside (0, 1]")
    n = len(confidences)
    if n != len(correct):
        raise ValueError(f"{n} confidences but {len(correct)} outcomes")
    if n == 0:
        return None
    k = max(1, math.ceil(round(coverage * n, 9)))
    return top_k_accuracy(confidences, correct, k)


def mean_accuracy_over_coverage(
    confidences: Sequence[float], correct: Sequence[bool]
) -> float | None:
    """The mean over k = 1..n of :func:`top_k_accuracy` (tie-aware): the area under the
    accuracy-coverage curve, or None for no answers.

    Source: Geifman & El-Yaniv 2017 ("Selective classification for deep neural
    networks", NeurIPS); their AURC (area under the risk-coverage curve) with the 0/1
    loss is ``1 -`` this figure. A ranking that carries no information (every answer
    tied, or a random order in expectation) scores exactly the overall accuracy, so the
    gap between this figure and the overall accuracy is the gain of ranking by
    confidence. Example: confidences (0.9, 0.5), correct (T, F):
    (1/1 + 1/2) / 2 = 0.75 against 0.5 at random."""
    n = len(confidences)
    blocks = _ranked_blocks(confidences, correct)
    if n == 0:
        return None
    total = 0.0
    seen = 0  # answers before the current block
    ok_before = 0  # their correct count
    for size, ok in blocks:
        rate = ok / size
        for j in range(1, size + 1):  # k = seen + j cuts this block after j places
            total += (ok_before + rate * j) / (seen + j)
        seen += size
        ok_before += ok
    return total / n


# --- reliability ------------------------------------------------------------------------


@dataclass(frozen=True)
class ReliabilityBin:
    """One bin of :data:`BINS`: ``n`` answers with ``low <= confidence < high`` (``<=
    high`` for the last bin), their ``confidence`` mean and ``accuracy`` (both None when
    ``n`` is 0)."""

    low: float
    high: float
    n: int
    confidence: float | None
    accuracy: float | None

    def label(self, last: bool = False) -> str:
        return f"[{self.low:.2f}, {self.high:.2f}{']' if last else ')'}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "low": self.low,
            "high": self.high,
            "n": self.n,
            "confidence": None if self.confidence is None else round(self.confidence, 4),
            "accuracy": None if self.accuracy is None else round(self.accuracy, 4),
        }


def reliability(
    confidences: Sequence[float],
    correct: Sequence[bool],
    bins: Sequence[tuple[float, float]] = BINS,
) -> tuple[ReliabilityBin, ...]:
    """The reliability table: per bin of ``bins`` (contiguous ``(low, high)`` pairs; the
    last one closed above), the number of answers, their mean confidence and their
    observed accuracy. Source: the reliability diagram (DeGroot & Fienberg 1983; as used
    by Guo, Pleiss, Sun & Weinberger, "On calibration of modern neural networks", ICML
    2017). Example: confidences (0.55, 0.95), correct (T, F) -> bin [0.5, 0.6) n 1,
    confidence 0.55, accuracy 1.0; bin [0.9, 1.0] n 1, confidence 0.95, accuracy 0.0.
    Raises ``ValueError`` for unequal lengths or a confidence outside the bins."""
    if len(confidences) != len(correct):
        raise ValueError(f"{len(confidences)} confidences but {len(correct)} outcomes")
    members: list[list[tuple[float, bool]]] = [[] for _ in bins]
    for c, ok in zip(confidences, correct, strict=True):
        for i, (low, high) in enumerate(bins):
            last = i == len(bins) - 1
            if low <= c < high or (last and c == high):
                members[i].append((float(c), bool(ok)))
                break
        else:
            raise ValueError(f"confidence {c} is outside the bins")
    out = []
    for (low, high), m in zip(bins, members, strict=True):
        n = len(m)
        out.append(
            ReliabilityBin(
                low,
                high,
                n,
                sum(c for c, _ in m) / n if n else None,
                sum(ok for _, ok in m) / n if n else None,
            )
        )
    return tuple(out)


def expected_calibration_error(table: Sequence[ReliabilityBin]) -> float | None:
    """ECE of a reliability table: the sum over bins of ``n_b / n * |accuracy_b -
    confidence_b|`` (Naeini, Cooper & Hauskrecht, "Obtaining well calibrated
    probabilities using Bayesian binning", AAAI 2015; Guo et al. 2017, eq. 3), or None
    when the table is empty. 0 is perfectly calibrated; it is in the units of accuracy.
    Example: the table of :func:`reliability`'s example -> 1/2 * 0.45 + 1/2 * 0.95 =
    0.70."""
    n = sum(b.n for b in table)
    if n == 0:
        return None
    return sum(
        b.n / n * abs(b.accuracy - b.confidence)
        for b in table
        if b.n and b.accuracy is not None and b.confidence is not None
    )


# --- sureness ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Sureness:
    """``sure`` of ``n`` answers marked sure (answers without a mark are not counted),
    the accuracy of the sure ones and of the unsure ones (None when there are none)."""

    n: int
    sure: int
    sure_accuracy: float | None
    unsure_accuracy: float | None

    @property
    def share(self) -> float:
        return self.sure / self.n if self.n else 0.0

    def to_dict(self) -> dict[str, Any]:
        def r(v: float | None) -> float | None:
            return None if v is None else round(v, 4)

        return {
            "n": self.n,
            "sure": self.sure,
            "share": round(self.share, 4),
            "sure_accuracy": r(self.sure_accuracy),
            "unsure_accuracy": r(self.unsure_accuracy),
        }


def sureness(sure: Sequence[bool | None], correct: Sequence[bool]) -> Sureness | None:
    """How the engine's own ``sure`` mark (issue 29, item 3) sorts right from wrong:
    the share of answers marked sure, the accuracy of the sure and of the unsure ones.
    ``sure[i]`` is None when the engine does not mark answer ``i`` (engines before the
    field existed); those are left out, and None is returned when no answer is marked.
    Example: sure (T, T, F, None), correct (T, F, F, T) -> 2 of 3 sure, sure accuracy
    0.5, unsure accuracy 0.0. A plain split of accuracy by a binary flag (no source
    needed). Raises ``ValueError`` for unequal lengths."""
    if len(sure) != len(correct):
        raise ValueError(f"{len(sure)} sure marks but {len(correct)} outcomes")
    marked = [(bool(s), bool(ok)) for s, ok in zip(sure, correct, strict=True) if s is not None]
    if not marked:
        return None
    yes = [ok for s, ok in marked if s]
    no = [ok for s, ok in marked if not s]
    return Sureness(
        len(marked),
        len(yes),
        sum(yes) / len(yes) if yes else None,
        sum(no) / len(no) if no else None,
    )


# --- the figures of one set of answers --------------------------------------------------


@dataclass(frozen=True)
class ConfidenceFigures:
    """Confidence figures of ``n`` answers: overall ``accuracy``; ``selective``
    (coverage, k, tie-aware accuracy of the top k) for each of :data:`COVERAGES`;
    ``area`` (:func:`mean_accuracy_over_coverage`; a random ranking scores
    ``accuracy``); the reliability ``bins`` and their ``ece``; ``reject`` recall (labelled
    REJECT answered REJECT); ``sure`` (:func:`sureness`, None when nothing is marked).
    Figures of no answers are None."""

    n: int
    accuracy: float | None
    selective: tuple[tuple[float, int, float | None], ...]
    area: float | None
    bins: tuple[ReliabilityBin, ...]
    ece: float | None
    reject: Share
    sure: Sureness | None

    def to_dict(self) -> dict[str, Any]:
        def r(v: float | None) -> float | None:
            return None if v is None else round(v, 4)

        return {
            "n": self.n,
            "accuracy": r(self.accuracy),
            "selective_accuracy": [
                {"coverage": c, "k": k, "accuracy": r(a)} for c, k, a in self.selective
            ],
            "mean_accuracy_over_coverage": r(self.area),
            "mean_accuracy_over_coverage_random": r(self.accuracy),
            "reliability": [b.to_dict() for b in self.bins],
            "ece": r(self.ece),
            "reject_recall": self.reject.to_dict(),
            "sure": None if self.sure is None else self.sure.to_dict(),
        }


def confidence_figures(
    confidences: Sequence[float],
    correct: Sequence[bool],
    labels: Sequence[str],
    answers: Sequence[str],
    sure: Sequence[bool | None],
) -> ConfidenceFigures:
    """:class:`ConfidenceFigures` of answers given as equal-length sequences: each
    answer's confidence (0..1), whether it is right, its labelled verdict, the answered
    verdict and the engine's sure mark (None: not marked). Raises ``ValueError`` for
    unequal lengths or a confidence outside 0..1."""
    n = len(confidences)
    if not n == len(correct) == len(labels) == len(answers) == len(sure):
        raise ValueError("confidence figures need sequences of one length")
    table = reliability(confidences, correct)
    return ConfidenceFigures(
        n,
        sum(map(bool, correct)) / n if n else None,
        tuple(
            (
                c,
                max(1, math.ceil(round(c * n, 9))) if n else 0,
                selective_accuracy(confidences, correct, c),
            )
            for c in COVERAGES
        ),
        mean_accuracy_over_coverage(confidences, correct),
        table,
        expected_calibration_error(table),
        Share.of(a == "REJECT" for lab, a in zip(labels, answers, strict=True) if lab == "REJECT"),
        sureness(sure, correct),
    )


class Answer(Protocol):
    """What the figures read of an outcome (:class:`~etki.evaluation.triage.Outcome`)."""

    @property
    def kind(self) -> str: ...

    @property
    def correct(self) -> bool: ...


def figures_of(
    outcomes: Sequence[Outcome], confidences: Sequence[float] | None = None
) -> ConfidenceFigures:
    """:func:`confidence_figures` of outcomes, with their own confidences or with
    ``confidences`` in their place (the leave-one-engagement-out ones)."""
    return confidence_figures(
        [o.confidence for o in outcomes] if confidences is None else list(confidences),
        [o.correct for o in outcomes],
        [o.row.verdict for o in outcomes],
        [o.verdict for o in outcomes],
        [o.sure for o in outcomes],
    )


# --- calibration by evidence kind -------------------------------------------------------


def laplace(correct: int, n: int) -> float:
    """Laplace's rule of succession, ``(correct + 1) / (n + 2)``: the posterior mean of a
    success rate under a uniform prior after ``correct`` successes in ``n`` trials
    (Laplace 1814, *Essai philosophique sur les probabilités*). No trials give 0.5; 3 of
    3 give 0.8, not 1. Raises ``ValueError`` unless 0 <= correct <= n."""
    if not 0 <= correct <= n:
        raise ValueError(f"{correct} correct of {n}")
    return (correct + 1) / (n + 2)


def kind_counts(outcomes: Iterable[Answer]) -> dict[str, tuple[int, int]]:
    """``kind -> (n, correct)`` of ``outcomes``, sorted by kind."""
    counts: dict[str, list[int]] = {}
    for o in outcomes:
        c = counts.setdefault(o.kind, [0, 0])
        c[0] += 1
        c[1] += bool(o.correct)
    return {k: (counts[k][0], counts[k][1]) for k in sorted(counts)}


PRIOR_WEIGHT = 2.0
"""``m`` of the m-estimate (:func:`m_estimate`): the prior counts as two answers, the
same weight Laplace's rule gives its uniform prior, so a kind seen once moves at most a
third of the way from its group's rate to its own result."""


def m_estimate(correct: int, n: int, prior: float, m: float = PRIOR_WEIGHT) -> float:
    """The m-estimate of a success rate, ``(correct + m x prior) / (n + m)`` (Cestnik
    1990, "Estimating probabilities: a crucial task in machine learning", ECAI): the
    posterior mean under a Beta prior of mean ``prior`` worth ``m`` trials. With
    ``prior`` = 1/2 and ``m`` = 2 it is Laplace's rule (:func:`laplace`). Example: 0 of 1
    with prior 0.8 -> 1.6 / 3 = 0.533; 6 of 8 -> 7.6 / 10 = 0.76. Raises ``ValueError``
    unless 0 <= correct <= n, 0 <= prior <= 1 and m > 0."""
    if not 0 <= correct <= n:
        raise ValueError(f"{correct} correct of {n}")
    if not 0.0 <= prior <= 1.0 or not m > 0:
        raise ValueError(f"prior {prior!r} must lie in [0, 1] and m {m!r} be > 0")
    return (correct + m * prior) / (n + m)


def _table(outcomes: Sequence[Answer]) -> dict[str, float]:
    """Per kind, the m-estimate of its accuracy toward the rate of its group (sure kinds,
    or the kinds that need a careful look; :data:`etki.triage.sureness.SURE_KINDS`), each
    group's rate by Laplace's rule: a kind seen a few times borrows strength from the
    kinds it is grouped with instead of from a coin (engine 3.1.0; 3.0.0 used Laplace
    per kind, which put a sure kind seen once wrong at 1/3)."""
    counts = kind_counts(outcomes)
    group: dict[bool, list[int]] = {True: [0, 0], False: [0, 0]}
    for k, (n, ok) in counts.items():
        g = group[k in SURE_KINDS]
        g[0] += n
        g[1] += ok
    prior = {s: laplace(ok, n) for s, (n, ok) in group.items()}
    table = {k: m_estimate(ok, n, prior[k in SURE_KINDS]) for k, (n, ok) in counts.items()}
    table[UNSEEN] = laplace(sum(ok for _, ok in counts.values()), len(outcomes))
    return table


def calibrate_by_kind(
    outcomes_by_engagement: Mapping[str, Sequence[Answer]], held_out: str
) -> dict[str, float]:
    """The confidence of each kind of deciding evidence for engagement ``held_out``, set
    on every *other* engagement: ``kind -> (correct + 2 x g) / (n + 2)`` over the other
    engagements' outcomes of that kind, ``g`` the Laplace rate of its group there
    (:func:`m_estimate`, :func:`_table`), and ``UNSEEN -> `` Laplace's rate over all
    their outcomes (pooled), the value of a kind they never show (:func:`confidence_for`).

    ``outcomes_by_engagement``: engagement id -> outcomes with ``.kind`` (str) and
    ``.correct`` (bool). The outcomes of ``held_out`` are never read, so they cannot
    change its own table (leave-one-engagement-out). Example: others hold the sure kind
    ``defect`` 3 right of 4 and ``partial`` 1 of 2 -> group rates 4/6 and 2/4, defect
    (3 + 8/6) / 6 = 13/18, partial (1 + 1) / 4 = 1/2, unseen 5/8. Raises ``ValueError`` when ``held_out`` is not an engagement of the mapping."""
    if held_out not in outcomes_by_engagement:
        raise ValueError(f"{held_out!r} is not one of the engagements")
    return _table([o for e, outs in outcomes_by_engagement.items() if e != held_out for o in outs])


def calibrate_by_kind_all(
    outcomes_by_engagement: Mapping[str, Sequence[Answer]],
) -> dict[str, float]:
    """:func:`calibrate_by_kind` over every engagement (none held out): the per-kind
    constants a shipped engine may carry. Figures reported with these constants on the
    same engagements are not leave-one-engagement-out and do not count (issue 29)."""
    return _table([o for outs in outcomes_by_engagement.values() for o in outs])


def confidence_for(table: Mapping[str, float], kind: str) -> float:
    """The value of ``kind`` in a calibration table, or its ``UNSEEN`` value."""
    return table[kind] if kind in table else table[UNSEEN]


@dataclass(frozen=True)
class CalibrationRow:
    """One kind: ``n`` and ``correct`` over all engagements, the smoothed accuracy over
    all (``all``), and ``loeo``: held-out engagement -> the value it gets when held
    out."""

    kind: str
    n: int
    correct: int
    all: float
    loeo: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "correct": self.correct,
            "all": round(self.all, 4),
            "loeo": {e: round(v, 4) for e, v in self.loeo.items()},
        }


def calibration_rows(
    outcomes_by_engagement: Mapping[str, Sequence[Answer]],
) -> tuple[CalibrationRow, ...]:
    """One :class:`CalibrationRow` per kind seen on any engagement (sorted), then the
    ``UNSEEN`` row (n and correct of everything)."""
    everything = [o for outs in outcomes_by_engagement.values() for o in outs]
    counts = kind_counts(everything)
    counts[UNSEEN] = (len(everything), sum(bool(o.correct) for o in everything))
    every = calibrate_by_kind_all(outcomes_by_engagement)
    held = {e: calibrate_by_kind(outcomes_by_engagement, e) for e in outcomes_by_engagement}
    return tuple(
        CalibrationRow(k, n, ok, every[k], {e: confidence_for(t, k) for e, t in held.items()})
        for k, (n, ok) in counts.items()
    )


# --- the evaluation's confidence figures ------------------------------------------------


@dataclass(frozen=True)
class LoeoConfidence:
    """Held-out figures with confidence set leave-one-engagement-out: ``tables``
    (held-out id -> its calibration table, set on the others under the held-out's chosen
    settings), figures ``per_engagement`` and ``pooled`` over all held-out answers."""

    tables: dict[str, dict[str, float]]
    per_engagement: dict[str, ConfidenceFigures]
    pooled: ConfidenceFigures

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": "each held-out answer's confidence is the m-estimate of the accuracy "
            "of its evidence kind on the other engagements, under the held-out's chosen "
            "settings; a kind they never show gets their pooled smoothed accuracy",
            "tables": {e: {k: round(v, 4) for k, v in t.items()} for e, t in self.tables.items()},
            "per_engagement": {e: f.to_dict() for e, f in self.per_engagement.items()},
            "pooled": self.pooled.to_dict(),
        }


@dataclass(frozen=True)
class ConfidenceReport:
    """The confidence figures of an evaluation, over its first view (``view``): the
    engine's own confidence ``per_engagement`` and ``pooled``, the ``calibration`` table
    at the main settings, and ``loeo`` (None without ``--loeo``)."""

    view: str
    per_engagement: dict[str, ConfidenceFigures]
    pooled: ConfidenceFigures
    calibration: tuple[CalibrationRow, ...]
    loeo: LoeoConfidence | None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "view": self.view,
            "coverages": list(COVERAGES),
            "bins": [list(b) for b in BINS],
            "ties": "a tied block split by the cut counts at its mean accuracy",
            "engine": {
                "per_engagement": {e: f.to_dict() for e, f in self.per_engagement.items()},
                "pooled": self.pooled.to_dict(),
            },
            "calibration": {
                "method": "m-estimate (correct + 2 g) / (n + 2) per evidence kind, g the "
                "Laplace rate of its group (sure kinds or the others); loeo: on the "
                "other engagements",
                "kinds": {r.kind: r.to_dict() for r in self.calibration},
            },
        }
        if self.loeo is not None:
            data["loeo"] = self.loeo.to_dict()
        return data


def _in_view(outcomes: Sequence[Outcome], view: str) -> list[Outcome]:
    return [o for o in outcomes if view == "all" or not o.row.borderline]


def confidence_report(ev: Evaluation) -> ConfidenceReport:
    """The :class:`ConfidenceReport` of ``ev`` over its first view.

    Under ``--loeo``, each held-out engagement's answers are those under its chosen
    settings, and each answer's confidence is replaced by
    ``calibrate_by_kind(outcomes under those settings, held_out)[kind]``: the other
    engagements' outcomes under the same settings, never its own."""
    view = ev.views[0]
    own = {e.id: _in_view(ev.outcomes[e.id], view) for e in ev.engagements}
    per = {e: figures_of(outs) for e, outs in own.items()}
    pooled = figures_of([o for outs in own.values() for o in outs])
    loeo = None
    if ev.loeo is not None:
        lo = ev.loeo
        tables: dict[str, dict[str, float]] = {}
        held_per: dict[str, ConfidenceFigures] = {}
        all_held: list[Outcome] = []
        all_conf: list[float] = []
        for e in ev.engagements:
            runs = {g: _in_view(outs, view) for g, outs in lo.calibration_runs[e.id].items()}
            table = tables[e.id] = calibrate_by_kind(runs, e.id)
            held = _in_view(lo.outcomes[e.id], view)
            conf = [confidence_for(table, o.kind) for o in held]
            held_per[e.id] = figures_of(held, conf)
            all_held += held
            all_conf += conf
        loeo = LoeoConfidence(tables, held_per, figures_of(all_held, all_conf))
    return ConfidenceReport(view, per, pooled, calibration_rows(own), loeo)
