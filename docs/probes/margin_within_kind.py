"""Probe (issue 29): does the margin of the winning verdict rank answers within a kind?

Engine 3.2.0 gives every answer of one evidence kind the same confidence
(:data:`etki.triage.sureness.KIND_CONFIDENCE`, set leave-one-engagement-out in ``etki
eval triage --loeo``), so "the most confident half" is cut through a block of ties
(``topic``, 49 of 125 answers) and the cut counts that block at its mean accuracy
(:func:`etki.evaluation.confidence.top_k_accuracy`).

**Margin.** Each verdict has a side of the contract that speaks for it: IN_SCOPE the
obligation sentences, REJECT the exclusion and client-duty sentences, CHANGE_REQUEST the
future-work and change-request sentences. The engine already measures, per side, the
share of the request's IDF mass its best sentence holds (``obligation_coverage``,
``against_coverage``, ``future_coverage`` of the ``classify`` evidence step, each in
[0, 1]). The margin of an answer is the coverage of its verdict's side minus the best
coverage of the two other sides: the best-versus-second-best margin, the classic
measure of how clearly a multiclass decision was won (Scheffer, Decomain & Wrobel,
"Active hidden Markov models for information extraction", IDA 2001, the "margin" of
margin sampling; Settles, "Active learning literature survey", 2009, section 3.1;
Schapire, Freund, Bartlett & Lee, "Boosting the margin", Annals of Statistics 1998, for
the margin as a confidence of a vote). Coverage is a share of the request, so the margin
is comparable between requests, where BM25 scores are not. No label and no request
wording is read to define it.

**Primary (the variant that may be kept; rule written before measuring, first commit of
branch eng29rank).** Within each kind, answers split in two at the median margin of
that kind's answers on the *other* engagements (``>=`` median: the wider half); each
half's confidence is the m-estimate (Cestnik 1990, m = 2, as the kinds themselves) of
its accuracy on the other engagements, toward the kind's own leave-one-engagement-out
value (:func:`etki.evaluation.confidence.calibrate_by_kind`). A kind the others never
show keeps their pooled value. The held-out engagement's answers enter neither its
median nor its rates.

**Tie-break (for information only; cannot be kept by itself).** The kind's value
unchanged, answers of one value ordered by margin (the value plus 1e-7 x (margin + 1) /
2, which reorders nothing across kinds).

Run from the repository root::

    ETKI_REALDATA_DIR=../shared/realdata .venv/bin/python docs/probes/margin_within_kind.py

Result (docs/EVAL.md, "Confidence within a kind by the verdict's margin"): the primary
variant met the rule by about one answer (pooled top half 0.74 -> 0.76, accuracy and
macro-F1 unchanged) but lowered the top 25 % and 75 % and demo's top half, and the reliable
half of ``topic`` was the narrow one on every fold; not kept, engine unchanged (3.2.0).

It prints the held-out figures of 3.2.0 (``etki eval triage --all-realdata --loeo``, the
"confidence set leave-one-engagement-out" block: the same numbers) and of both variants.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from etki.domain import Decision
from etki.evaluation.confidence import (
    UNSEEN,
    ConfidenceFigures,
    calibrate_by_kind,
    confidence_for,
    figures_of,
    m_estimate,
)
from etki.evaluation.triage import Evaluation, Outcome, evaluate, resolve_sources
from etki.triage import case_id_for
from etki.triage.engine import TriageEngine

SIDE = {
    "IN_SCOPE": "obligation_coverage",
    "REJECT": "against_coverage",
    "CHANGE_REQUEST": "future_coverage",
}
"""The coverage that speaks for each verdict (the ``classify`` step's values)."""

COVERAGES: dict[str, dict[str, float]] = {}
"""case id -> the three side coverages of its ``classify`` step (they do not depend on
the thresholds of the rule chain, only the verdict does)."""


def _stash() -> None:
    original = TriageEngine.triage

    def triage(self: TriageEngine, case_id: str, text: str, title: str | None = None) -> Decision:
        decision = original(self, case_id, text, title)
        step = next(s for s in decision.evidence if s.step == "classify")
        values = dict(step.scores)
        COVERAGES[case_id] = {v: float(values[v]) for v in SIDE.values()}
        return decision

    TriageEngine.triage = triage  # type: ignore[method-assign]


def margin(o: Outcome) -> float:
    """Coverage of the answer's side minus the best coverage of the other two."""
    cov = COVERAGES[case_id_for(o.engagement, "eval\0" + o.row.id)]
    own = SIDE[o.verdict]
    return round(cov[own] - max(v for k, v in cov.items() if k != own), 4)


def split_table(
    runs: Mapping[str, Sequence[Outcome]], held_out: str
) -> tuple[dict[str, float], dict[str, float], dict[tuple[str, bool], float]]:
    """(kind table, median margin per kind, (kind, wide half) -> confidence), all set on
    the engagements other than ``held_out``."""
    kinds = calibrate_by_kind(runs, held_out)
    others = [o for e, outs in runs.items() if e != held_out for o in outs]
    by_kind: dict[str, list[Outcome]] = {}
    for o in others:
        by_kind.setdefault(o.kind, []).append(o)
    medians = {k: statistics.median(margin(o) for o in outs) for k, outs in by_kind.items()}
    halves: dict[tuple[str, bool], float] = {}
    for k, outs in by_kind.items():
        for wide in (True, False):
            part = [o for o in outs if (margin(o) >= medians[k]) == wide]
            halves[(k, wide)] = m_estimate(sum(o.correct for o in part), len(part), kinds[k])
    return kinds, medians, halves


def variants(ev: Evaluation) -> dict[str, tuple[dict[str, ConfidenceFigures], ConfidenceFigures]]:
    """Held-out figures per engagement and pooled, under 3.2.0's kind values, the
    primary (kind x margin half) and the tie-break."""
    assert ev.loeo is not None
    out: dict[str, tuple[dict[str, ConfidenceFigures], ConfidenceFigures]] = {}
    confs: dict[str, dict[str, list[float]]] = {"3.2.0": {}, "primary": {}, "tie-break": {}}
    held_all: list[Outcome] = []
    for e in ev.engagements:
        runs = ev.loeo.calibration_runs[e.id]
        held = ev.loeo.outcomes[e.id]
        kinds, medians, halves = split_table(runs, e.id)
        base = [confidence_for(kinds, o.kind) for o in held]
        confs["3.2.0"][e.id] = base
        confs["primary"][e.id] = [
            halves[(o.kind, margin(o) >= medians[o.kind])] if o.kind in medians else kinds[UNSEEN]
            for o in held
        ]
        confs["tie-break"][e.id] = [
            c + 1e-7 * (margin(o) + 1) / 2 for c, o in zip(base, held, strict=True)
        ]
        held_all += held
    for name, per in confs.items():
        figs = {e.id: figures_of(ev.loeo.outcomes[e.id], per[e.id]) for e in ev.engagements}
        pooled = figures_of(held_all, [c for e in ev.engagements for c in per[e.id]])
        out[name] = (figs, pooled)
    return out


def _row(name: str, f: ConfidenceFigures, macro_f1: float) -> str:
    def p(v: Any) -> str:
        return "   -" if v is None else f"{v:.2f}"

    sel = "  ".join(f"{p(a):>6}" for _, _, a in f.selective)
    return (
        f"{name:<12}{f.n:>4}  {p(f.accuracy):>8}  {macro_f1:>8.2f}  {sel}  {p(f.area):>5}"
        f"  {p(f.ece):>5}  {f.reject.hits}/{f.reject.n}"
    )


def main() -> None:
    _stash()

    def stored(project_id: str) -> Any:
        raise SystemExit(f"the probe reads project folders only, not {project_id}")

    engs = resolve_sources(
        [],
        project=None,
        all_realdata=True,
        realdata_dir=os.environ.get("ETKI_REALDATA_DIR"),
        stored=stored,
    )
    ev = evaluate(engs, loeo=True)
    assert ev.loeo is not None
    f1 = {e.id: ev.loeo.held_out[e.id]["all"].verdict.macro_f1 for e in ev.engagements}
    pooled_f1 = ev.loeo.pooled["all"].verdict.macro_f1
    head = "engagement     n  accuracy  macro-F1  top25%  top50%  top75%   area    ECE  REJECT"
    for name, (per, pooled) in variants(ev).items():
        print(f"\n== {name}: confidence set leave-one-engagement-out, held out, all rows")
        print(head)
        for e in ev.engagements:
            print(_row(e.id, per[e.id], f1[e.id]))
        print(_row("pooled", pooled, pooled_f1))
    print("\nmedian margin per kind, set on the other engagements (held out -> kind: median)")
    for e in ev.engagements:
        _, medians, halves = split_table(ev.loeo.calibration_runs[e.id], e.id)
        print(
            f"  {e.id}: "
            + ", ".join(
                f"{k} {m:+.3f} ({halves[(k, True)]:.2f}/{halves[(k, False)]:.2f})"
                for k, m in sorted(medians.items())
            )
        )


if __name__ == "__main__":
    main()
