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
from collections.abc import Iterable, Mapping, Sequence
from itertools import compress

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
    title_scores: Sequence[float] | Mapping[int, float],
    impacted: Sequence[str],
    by_module: Mapping[str, Sequence[int]] | None = None,
) -> Effort:
    """Effort range for a request.

    ``title_scores``: BM25 of each work item's title against the request (same order as
    ``workitems``), or only the non-zero ones (position -> score,
    :meth:`etki.triage.modules.ModuleMatcher.workitem_sparse`). ``impacted``: the
    request's impacted module ids. ``by_module``: optional module id -> positions of the
    work items listing it (an index built once per project,
    :attr:`etki.triage.modules.ModuleMatcher.wi_by_module`): only those and the
    title-similar items are looked at, with the same result. Returns an
    :class:`Effort` in person-days rounded to 1 decimal, ``basis`` = the ids used
    (sorted); unknown (None, None) when no comparable item has ``effort_days``.
    """
    sparse = title_scores if isinstance(title_scores, Mapping) else None
    if sparse is not None and by_module is None:
        title_scores = [sparse.get(i, 0.0) for i in range(len(workitems))]
        sparse = None
    dense: Sequence[float] = title_scores  # type: ignore[assignment]  # a list when not sparse
    best = max(sparse.values(), default=0.0) if sparse is not None else max(dense, default=0.0)
    wanted = set(impacted)
    ranked: list[tuple[float, str, float]] = []
    pairs: Iterable[tuple[WorkItem, float]]
    if by_module is None:
        pairs = zip(workitems, dense, strict=True)
    else:  # only items that can be comparable: title-similar or sharing a module
        half = 0.5 * best
        if best <= 0:
            picked: set[int] = set()
        elif sparse is not None:
            picked = {i for i, s in sparse.items() if s >= half}
        else:  # a C-level pass over the dense scores
            picked = set(compress(range(len(dense)), map(half.__le__, dense)))
        for mid in wanted:
            picked.update(by_module.get(mid, ()))
        pairs = (
            (workitems[i], sparse.get(i, 0.0) if sparse is not None else dense[i])
            for i in sorted(picked)
        )
    for wi, score in pairs:
        similar = best > 0 and score >= 0.5 * best
        overlap = len(wanted.intersection(wi.modules)) / len(wanted) if wanted else 0.0
        if not (similar or overlap > 0) or wi.effort_days is None:
            continue
        rank = overlap + (score / best if best > 0 else 0.0)
        ranked.append((round(rank, 6), wi.id, float(wi.effort_days)))
    if not ranked:
        return Effort(None, None)
    ranked.sort(key=lambda r: (-r[0], r[1]))
    chosen = ranked[:MAX_BASIS]
    days = [d for _, _, d in chosen]
    low = round(percentile(days, LOW_PCT), 1)
    high = round(percentile(days, HIGH_PCT), 1)
    return Effort(low, high, tuple(sorted(wid for _, wid, _ in chosen)))
