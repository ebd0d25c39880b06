"""Defaults that ``etki --help`` shows, in a module that imports nothing: the command
modules read them while the parser is built, and a usage error or ``--help`` must not pay
for :mod:`etki.config` (its dataclasses; issue 32 item 2). The other defaults are in
:mod:`etki.config`."""

from __future__ import annotations

__all__ = ["BOOTSTRAP_RESAMPLES", "SUGGEST_MIN_SCORE"]

SUGGEST_MIN_SCORE = 60.0
"""Least score of an ``etki index suggest`` link suggestion (:mod:`etki.knowledge.enricher`,
which uses it as ``MIN_SCORE``): more than half of a module's name must occur (one of two
name words is not enough; two of three is). Kept here so ``etki --help`` can show it
without importing the knowledge package."""
BOOTSTRAP_RESAMPLES = 2000
"""Default number of bootstrap resamples of ``etki eval`` (:mod:`etki.evaluation.metrics`).
Efron & Tibshirani (1993, ch. 13 and 19) advise at least 1000 for percentile intervals;
2000 keeps the interval ends stable to about two decimals on ~100 requests. Kept here so
``etki --help`` can show it without importing the evaluation package."""
