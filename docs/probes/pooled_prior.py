"""Probe (issue 29, helper eng29h): smooth each evidence kind's held-out confidence toward
the pooled accuracy of *all* answers of the training folds, not toward its group's rate.

**Rule, written and committed before any figure of it was computed.** For a held-out
engagement, over the other engagements' answers (the training folds of
leave-one-engagement-out): ``p_all`` = right / n over all their answers (every kind
pooled, the raw rate); each kind's confidence is the m-estimate
``(right_k + m * p_all) / (n_k + m)`` (Cestnik 1990, "Estimating probabilities: a
crucial task in machine learning", ECAI; equivalently the posterior mean under a Beta
prior of mean ``p_all`` worth ``m`` answers), and a kind they never show gets ``p_all``
(the m-estimate of 0 of 0). **m = 2**, fixed in advance: the small value Cestnik and
Džeroski use (Cestnik 1990; Džeroski, Cestnik & Petrovski 1993, "Using the m-estimate in
rule induction"), and the weight Laplace's rule gives its prior. m = 1 and m = 4 are
printed beside it for sensitivity only; they are not candidates and no m is chosen on
these figures. Engine 3.3.0's rule, for comparison: the same m = 2, but toward the
Laplace rate of the kind's *group* (sure kinds or the others,
:func:`etki.evaluation.confidence.calibrate_by_kind`). The principle: a kind seen a few
times on the training folds (``category`` 1 answer with demo held out; ``named`` 6 with
eqip held out) should sit near what the engine's answers are right on the whole, not
near a group rate that is itself set on few sure answers. No verdict changes.

**Keep rule (written with the rule).** Held out (LOEO) over tdrs, talentmap, eqip and
demo, ``etki eval triage --all-realdata --loeo`` (all rows), against engine 3.3.0: m = 2
is kept only if (1) the pooled most confident half's accuracy *rises*; (2) pooled
macro-F1 does not fall; (3) pooled REJECT recall does not fall; (4) pooled ECE (the
reliability table's expected calibration error, :data:`etki.evaluation.confidence.BINS`)
does not rise. (2) and (3) hold by construction (no verdict changes) and are checked
anyway. If kept, the evaluation's calibration (``_table``) takes the rule, and the engine's
shipped ``KIND_CONFIDENCE`` follows (ENGINE_VERSION bumped, golden re-frozen). Otherwise
the engine is unchanged and this probe and a paragraph in docs/EVAL.md stay. Run from the
repository root::

    ETKI_REALDATA_DIR=../shared/realdata .venv/bin/python docs/probes/pooled_prior.py

**Result (added after measuring):** not kept. Pooled LOEO top half 46.46 -> 46.15 of 63
(falls); ECE 0.131 -> 0.128; macro-F1 and REJECT recall unchanged. Figures and the why in
docs/EVAL.md ("Smoothing each kind toward the pooled accuracy of all answers").
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from confident_half import Table, report, run  # noqa: E402

from etki.evaluation.confidence import UNSEEN, calibrate_by_kind, kind_counts  # noqa: E402
from etki.evaluation.triage import Outcome  # noqa: E402

M = 2.0
"""The pre-registered m (Cestnik 1990; Džeroski et al. 1993). Not chosen on data."""


def pooled_prior_table(m: float) -> Table:
    """kind -> (right_k + m p_all) / (n_k + m) over the engagements other than the held-out
    one, ``p_all`` their pooled raw accuracy; ``UNSEEN`` -> ``p_all``."""

    def table(runs: Mapping[str, Sequence[Outcome]], held_out: str) -> dict[str, float]:
        others = [o for e, outs in runs.items() if e != held_out for o in outs]
        p_all = sum(bool(o.correct) for o in others) / len(others)
        out = {k: (ok + m * p_all) / (n + m) for k, (n, ok) in kind_counts(others).items()}
        out[UNSEEN] = p_all
        return out

    return table


def main() -> None:
    ev = run()
    report("3.3.0 (m = 2 toward the group's Laplace rate)", ev, calibrate_by_kind)
    report(f"pooled_prior m = {M:g} (pre-registered)", ev, pooled_prior_table(M))
    for m in (1.0, 4.0):
        report(f"pooled_prior m = {m:g} (sensitivity only)", ev, pooled_prior_table(m))


if __name__ == "__main__":
    main()
