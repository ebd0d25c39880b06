"""Effort range (one job: person-days from comparable past work items).

Comparable work items are those that share an impacted module with the request, or
whose title is lexically similar to it (BM25 score at least half the best title score).
They are ranked by ``module overlap + title similarity`` (both in [0, 1]) and the best
:data:`MAX_BASIS` that carry ``effort_days`` form the basis. The range is the 25th to
75th percentile of their effort (the interquartile range: the middle half of comparable
past work), by linear interpolation between order statistics (Hyndman and Fan 1996,
definition 7, the default of R and NumPy). With no comparable item carrying effort the
range is unknown: ``Effort(None, None)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from etki.domain import Effort, WorkItem

MAX_BASIS = 10
"""At most this many comparable work items form the basis of a range."""

LOW_PCT, HIGH_PCT = 25.0, 75.0
"""Percentiles of the range (interquartile range)."""


def percentile(values: Sequence[float], pct: float) -> float:
    """The ``pct`` percentile (0..100) of ``values`` by linear interpolation
    (Hyndman-Fan type 7). Raises ``ValueError`` on an empty sequence."""
    if not values:
        raise ValueError("percentile of no values")
    xs = sorted(values)
    rank = (len(xs) - 1) * pct / 100.0
    lo, hi = math.floor(rank), math.ceil(rank)
    return xs[lo] + (xs[hi] - xs[lo]) * (rank - lo)


def estimate(
    workitems: Sequence[WorkItem],
    title_scores: np.ndarray,
    impacted: Sequence[str],
    by_module: Mapping[str, Sequence[int]],
    with_effort: np.ndarray,
) -> Effort:
    """Effort range for a request.

    ``title_scores``: BM25 of each work item's title against the request, a float64
    array in ``workitems`` order (:meth:`etki.triage.modules.ModuleMatcher.workitem_scores`).
    ``impacted``: the request's impacted module ids. ``by_module``: module id ->
    positions of the work items listing it (an index built once per project,
    :attr:`etki.triage.modules.ModuleMatcher.wi_by_module`); ``with_effort``: a bool
    array, True for the work items carrying ``effort_days`` (built once as well,
    :attr:`~etki.triage.modules.ModuleMatcher.wi_with_effort`). Returns an
    :class:`Effort` in person-days rounded to 1 decimal, ``basis`` = the ids used
    (sorted); unknown (None, None) when no comparable item has ``effort_days``.
    Raises ``ValueError`` when ``title_scores`` or ``with_effort`` is not one value per
    work item.
    """
    if not len(title_scores) == len(with_effort) == len(workitems):
        raise ValueError(
            f"estimate: {len(title_scores)} scores and {len(with_effort)} flags "
            f"for {len(workitems)} work items"
        )
    best = float(title_scores.max()) if len(workitems) else 0.0
    wanted = set(impacted)
    ranked: list[tuple[float, str, float]] = []
    sharing = {i for mid in wanted for i in by_module.get(mid, ())}
    for i in sorted(sharing):  # overlap > 0: each lists an impacted module
        wi = workitems[i]
        if wi.effort_days is None:
            continue
        score = float(title_scores[i])
        rank = len(wanted.intersection(wi.modules)) / len(wanted) + (
            score / best if best > 0 else 0.0
        )
        ranked.append((round(rank, 6), wi.id, float(wi.effort_days)))
    if best > 0:  # title-similar items with effort sharing no module: rank = score / best
        similar = (title_scores >= 0.5 * best) & with_effort
        similar[list(sharing)] = False
        near = np.flatnonzero(similar)
        ranks = title_scores[near] / best  # the same IEEE division per item
        if len(near) > MAX_BASIS:
            # only items whose rounded rank can reach the MAX_BASIS-th best one can be
            # chosen (rounding keeps the order; the margin covers its half unit)
            kth = np.partition(ranks, len(ranks) - MAX_BASIS)[len(ranks) - MAX_BASIS]
            keep = ranks >= round(float(kth), 6) - 1e-6
            near, ranks = near[keep], ranks[keep]
        for i, rank in zip(near.tolist(), ranks.tolist(), strict=True):
            wi = workitems[i]
            ranked.append((round(rank, 6), wi.id, float(wi.effort_days)))  # type: ignore[arg-type]  # with_effort
    if not ranked:
        return Effort(None, None)
    ranked.sort(key=lambda r: (-r[0], r[1]))
    chosen = ranked[:MAX_BASIS]
    days = [d for _, _, d in chosen]
    low = round(percentile(days, LOW_PCT), 1)
    high = round(percentile(days, HIGH_PCT), 1)
    return Effort(low, high, tuple(sorted(wid for _, wid, _ in chosen)))
