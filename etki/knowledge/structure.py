"""The structure analyser: does a document have usable heading structure? (issue 4 item 2)

It looks at where sections start (headings and the pseudo-headings the contract parser
accepts) in the document's non-blank lines and computes, per document:

| metric | meaning |
|---|---|
| ``headings`` | number of section starts |
| ``lines`` | non-blank lines of the body |
| ``preamble_share`` | share of non-blank lines before the first section start |
| ``largest_share`` | share of non-blank lines in the largest section |
| ``gap_mean`` | mean distance, in non-blank lines, from one section start to the next (the last one to the end) |
| ``gap_cv`` | coefficient of variation of those distances (population standard deviation / mean): 0 for evenly spaced headings |

The strategy is ``by_heading`` when all of these hold, else ``sliding_window``:

* at least :data:`MIN_HEADINGS` section starts;
* at most :data:`MAX_PREAMBLE_SHARE` of the text before the first one;
* in a document longer than :data:`LONG_DOCUMENT_LINES` non-blank lines, no section holds
  more than :data:`MAX_LARGEST_SHARE` of it;
* ``gap_cv`` at most :data:`MAX_GAP_CV`.

The thresholds: two starts are the least that divide a text; a preamble or one section
over half / three quarters of the text means the headings structure only a corner of it.
:data:`MAX_GAP_CV` is 2.0, twice the messiest real document measured: the tdrs
engagement's RFQ gives 0.99 and the sample contracts 0.33 and 0.35. Only
headings bunched together with one or two distances dwarfing the rest (a list of bold
labels above long unstructured text) reach it; for n gaps the CV is at most
sqrt(n - 1), so it needs at least five sections to trip.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "LONG_DOCUMENT_LINES",
    "MAX_GAP_CV",
    "MAX_LARGEST_SHARE",
    "MAX_PREAMBLE_SHARE",
    "MIN_HEADINGS",
    "Structure",
    "analyse_structure",
]

MIN_HEADINGS = 2
MAX_PREAMBLE_SHARE = 0.5
MAX_LARGEST_SHARE = 0.75
LONG_DOCUMENT_LINES = 60
MAX_GAP_CV = 2.0
ROUND = 4


@dataclass(frozen=True)
class Structure:
    """The analyser's verdict: ``strategy`` (``by_heading`` or ``sliding_window``),
    ``reason`` (the first rule that failed, or ``"usable heading structure"``) and
    ``metrics`` (sorted (name, value) pairs, see the module docstring)."""

    strategy: str
    reason: str
    metrics: tuple[tuple[str, float], ...]

    @property
    def usable(self) -> bool:
        return self.strategy == "by_heading"


def _r(x: float) -> float:
    return round(float(x), ROUND)


def analyse_structure(
    nonblank: Sequence[bool], starts: Sequence[int], ends: Sequence[int] | None = None
) -> Structure:
    """Analyse a document whose lines are non-blank where ``nonblank`` is True and whose
    sections start at the 0-based line indexes ``starts`` (ascending). ``ends`` (same
    length) are where the sections end (default: the next start, the last one at the end
    of the text); lines between an end and the next start belong to no section.
    Pure and deterministic."""
    prefix = [0]
    for flag in nonblank:
        prefix.append(prefix[-1] + (1 if flag else 0))
    total = prefix[-1]
    count = len(starts)
    if ends is None:
        ends = [*starts[1:], len(nonblank)]

    def between(a: int, b: int) -> int:
        a, b = max(0, min(a, len(nonblank))), max(0, min(b, len(nonblank)))
        return prefix[b] - prefix[a] if b > a else 0

    sizes = [between(s, e) for s, e in zip(starts, ends, strict=True)]
    nexts = [*starts[1:], len(nonblank)] if starts else []
    gaps = [between(s, n) for s, n in zip(starts, nexts, strict=True)]
    preamble = between(0, starts[0]) if starts else total
    mean = sum(gaps) / len(gaps) if gaps else 0.0
    cv = (
        math.sqrt(sum((g - mean) ** 2 for g in gaps) / len(gaps)) / mean
        if gaps and mean > 0
        else 0.0
    )
    metrics = {
        "headings": float(count),
        "lines": float(total),
        "preamble_share": _r(preamble / total) if total else 0.0,
        "largest_share": _r(max(sizes, default=0) / total) if total else 0.0,
        "gap_mean": _r(mean),
        "gap_cv": _r(cv),
    }
    if count < MIN_HEADINGS or total == 0:
        reason = f"fewer than {MIN_HEADINGS} section starts"
    elif metrics["preamble_share"] > MAX_PREAMBLE_SHARE:
        reason = f"more than {MAX_PREAMBLE_SHARE:.0%} of the text before the first heading"
    elif total > LONG_DOCUMENT_LINES and metrics["largest_share"] > MAX_LARGEST_SHARE:
        reason = f"one section holds more than {MAX_LARGEST_SHARE:.0%} of the text"
    elif metrics["gap_cv"] > MAX_GAP_CV:
        reason = f"irregular headings (gap_cv {metrics['gap_cv']} > {MAX_GAP_CV})"
    else:
        return Structure("by_heading", "usable heading structure", tuple(sorted(metrics.items())))
    return Structure("sliding_window", reason, tuple(sorted(metrics.items())))
