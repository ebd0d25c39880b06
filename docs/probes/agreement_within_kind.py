"""Probe (issue 29): does the agreement of independent evidence rank answers within a kind?

Engine 3.2.1 gives every answer of one evidence kind the same confidence
(:data:`etki.triage.sureness.KIND_CONFIDENCE`, set leave-one-engagement-out in ``etki
eval triage --loeo``), so the most confident half is cut through a tied block
(``topic``) that counts at its mean accuracy (:func:`etki.evaluation.confidence.top_k_accuracy`).

**Votes.** Each request casts up to nine votes, each for one verdict, read from the
:class:`etki.triage.classify.Features` the engine measured (at the default thresholds,
whatever the fold's settings; no label and no request wording defines them):
defect wording (:func:`etki.triage.classify.is_defect`) -> IN_SCOPE; advice wording
(>= :data:`etki.triage.cues.ADVICE_THRESHOLD`) -> REJECT; administration wording
(``ADMIN_REQUEST``) -> REJECT; new-capability wording -> CHANGE_REQUEST; an obligation /
exclusion-or-client-duty / future-work sentence *names* the ask
(:data:`etki.triage.sureness.NAMED_SHARE`) -> IN_SCOPE / REJECT / CHANGE_REQUEST; a module
of the delivered system matched -> IN_SCOPE; the side whose best sentence covers most of
the request (>= :data:`etki.triage.classify.MIN_COVERAGE`; a tie votes for none) -> its
verdict. ``net`` = votes for the answer's verdict minus votes for another verdict.

**Agreement as confidence.** The agreement of independent votes as the confidence of a
combined decision is the ensemble view (Dietterich, "Ensemble methods in machine
learning", Multiple Classifier Systems 2000; the vote margin of Schapire, Freund,
Bartlett & Lee, "Boosting the margin", Annals of Statistics 1998). Within a kind,
``z`` = ``net`` minus the mean ``net`` of that kind on the *other* engagements (a kind
they never show: their mean over all answers), and the held-out confidence is
``sigmoid(logit(kind value) + beta * z)``: the kind value is the LOEO m-estimate already
used (:func:`etki.evaluation.confidence.calibrate_by_kind`), ``beta`` one number per fold
fitted by maximum likelihood on the other engagements' answers (their kind values and
``z`` from the same fold): a one-parameter logistic calibration with the kind as offset
(Platt, "Probabilistic outputs for support vector machines", 1999). The held-out
engagement's answers enter neither its means, nor its kind values, nor its ``beta``.

**Tie-break (information only; cannot be kept by itself).** The kind value unchanged,
answers of one value ordered by ``z`` (value + 1e-7 x sigmoid(z): reorders nothing
across kinds).

Keep rule: docs/EVAL.md, "Confidence within a kind by evidence agreement", written
before this probe was first run. Run from the repository root::

    ETKI_REALDATA_DIR=../shared/realdata .venv/bin/python docs/probes/agreement_within_kind.py

It prints the held-out figures of 3.2.1 (the "confidence set leave-one-engagement-out"
block of ``etki eval triage --all-realdata --loeo``), of the agreement variant and of the
tie-break, then the rule's checks per fold.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

import etki.triage.engine as engine_module
from etki.evaluation.confidence import (
    UNSEEN,
    ConfidenceFigures,
    calibrate_by_kind,
    confidence_for,
    figures_of,
)
from etki.evaluation.triage import Evaluation, Outcome, evaluate, resolve_sources
from etki.triage import case_id_for
from etki.triage.classify import MIN_COVERAGE, Features, is_defect
from etki.triage.cues import ADVICE_THRESHOLD
from etki.triage.engine import TriageEngine

FEATURES: dict[str, Features] = {}
"""case id -> the features its ``classify`` call read (they do not depend on the
thresholds of the rule chain)."""

_CURRENT: list[str] = [""]


def _stash() -> None:
    original_triage = TriageEngine.triage
    original_classify = engine_module.classify

    def triage(self: TriageEngine, case_id: str, text: str, title: str | None = None) -> Any:
        _CURRENT[0] = case_id
        return original_triage(self, case_id, text, title)

    def classify(f: Features, t: Any = engine_module.DEFAULT_THRESHOLDS) -> Any:
        FEATURES[_CURRENT[0]] = f
        return original_classify(f, t)

    TriageEngine.triage = triage  # type: ignore[method-assign]
    engine_module.classify = classify


def votes(f: Features) -> list[str]:
    """The verdict each vote of the module docstring is cast for."""
    out: list[str] = []
    if is_defect(f):
        out.append("IN_SCOPE")
    if f.advice >= ADVICE_THRESHOLD:
        out.append("REJECT")
    if f.admin_request > 0:
        out.append("REJECT")
    if f.new_capability > 0:
        out.append("CHANGE_REQUEST")
    for named, verdict in (
        (f.incl_named, "IN_SCOPE"),
        (f.against_named, "REJECT"),
        (f.future_named, "CHANGE_REQUEST"),
    ):
        if named:
            out.append(verdict)
    if f.modules > 0:
        out.append("IN_SCOPE")
    cov = {"IN_SCOPE": f.incl_cov, "REJECT": f.against_cov, "CHANGE_REQUEST": f.future_cov}
    best = max(cov.values())
    winners = [v for v, c in cov.items() if c == best]
    if best >= MIN_COVERAGE and len(winners) == 1:
        out.append(winners[0])
    return out


def net(o: Outcome) -> int:
    """Votes for the answer's verdict minus votes for another verdict."""
    vs = votes(FEATURES[case_id_for(o.engagement, "eval\0" + o.row.id)])
    return sum(1 if v == o.verdict else -1 for v in vs)


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def _logit(p: float) -> float:
    return math.log(p / (1.0 - p))


def fit_beta(offsets: Sequence[float], zs: Sequence[float], ys: Sequence[bool]) -> float:
    """Maximum-likelihood ``beta`` of ``P(right) = sigmoid(offset + beta * z)`` (Newton's
    method in one dimension from 0; 50 steps at most)."""
    beta = 0.0
    for _ in range(50):
        grad = hess = 0.0
        for a, z, y in zip(offsets, zs, ys, strict=True):
            p = _sigmoid(a + beta * z)
            grad += (float(y) - p) * z
            hess += p * (1.0 - p) * z * z
        if hess <= 0:
            break
        step = grad / hess
        beta += step
        if abs(step) < 1e-10:
            break
    return beta


def fold(
    runs: Mapping[str, Sequence[Outcome]], held_out: str
) -> tuple[dict[str, float], dict[str, float], float]:
    """(kind table, mean net per kind with UNSEEN, beta), all set on the engagements
    other than ``held_out``."""
    kinds = calibrate_by_kind(runs, held_out)
    others = [o for e, outs in runs.items() if e != held_out for o in outs]
    by_kind: dict[str, list[int]] = {}
    for o in others:
        by_kind.setdefault(o.kind, []).append(net(o))
    means = {k: sum(v) / len(v) for k, v in by_kind.items()}
    means[UNSEEN] = sum(net(o) for o in others) / len(others)
    beta = fit_beta(
        [_logit(confidence_for(kinds, o.kind)) for o in others],
        [net(o) - means[o.kind] for o in others],
        [o.correct for o in others],
    )
    return kinds, means, beta


def z_of(o: Outcome, means: Mapping[str, float]) -> float:
    return net(o) - means.get(o.kind, means[UNSEEN])


Variants = dict[str, tuple[dict[str, ConfidenceFigures], ConfidenceFigures]]


def variants(ev: Evaluation) -> tuple[Variants, dict[str, dict[str, float]]]:
    """Held-out figures per engagement and pooled under 3.2.1's kind values, the
    agreement variant and the tie-break; and the rule's checks per fold."""
    assert ev.loeo is not None
    confs: dict[str, dict[str, list[float]]] = {"3.2.1": {}, "agreement": {}, "tie-break": {}}
    checks: dict[str, dict[str, float]] = {}
    held_all: list[Outcome] = []
    for e in ev.engagements:
        runs = ev.loeo.calibration_runs[e.id]
        held = ev.loeo.outcomes[e.id]
        kinds, means, beta = fold(runs, e.id)
        base = [confidence_for(kinds, o.kind) for o in held]
        zs = [z_of(o, means) for o in held]
        confs["3.2.1"][e.id] = base
        confs["agreement"][e.id] = [
            _sigmoid(_logit(c) + beta * z) for c, z in zip(base, zs, strict=True)
        ]
        confs["tie-break"][e.id] = [c + 1e-7 * _sigmoid(z) for c, z in zip(base, zs, strict=True)]
        acc: dict[str, list[bool]] = {}
        for o in held:
            acc.setdefault(o.kind, []).append(o.correct)
        kind_acc = {k: sum(v) / len(v) for k, v in acc.items()}
        raised = [o.correct - kind_acc[o.kind] for o, z in zip(held, zs, strict=True) if z > 0]
        lowered = [o.correct - kind_acc[o.kind] for o, z in zip(held, zs, strict=True) if z < 0]
        checks[e.id] = {
            "beta": beta,
            "raised_n": len(raised),
            "raised_sum": sum(raised),
            "lowered_n": len(lowered),
            "lowered_sum": sum(lowered),
        }
        held_all += held
    out: Variants = {}
    for name, per in confs.items():
        figs = {e.id: figures_of(ev.loeo.outcomes[e.id], per[e.id]) for e in ev.engagements}
        pooled = figures_of(held_all, [c for e in ev.engagements for c in per[e.id]])
        out[name] = (figs, pooled)
    return out, checks


def _row(name: str, f: ConfidenceFigures, macro_f1: float) -> str:
    def p(v: Any) -> str:
        return "   -" if v is None else f"{v:.2f}"

    sel = "  ".join(f"{p(a):>6}" for _, _, a in f.selective)
    half = next(a for c, _, a in f.selective if c == 0.5) or 0.0
    answers = math.ceil(0.5 * f.n)
    return (
        f"{name:<12}{f.n:>4}  {p(f.accuracy):>8}  {macro_f1:>8.2f}  {sel}  {p(f.area):>5}"
        f"  {p(f.ece):>5}  {f.reject.hits}/{f.reject.n}"
        f"   {half * answers:5.2f}/{answers}"
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
    head = (
        "engagement     n  accuracy  macro-F1  top25%  top50%  top75%   area    ECE  REJECT"
        "   top-half right"
    )
    table, checks = variants(ev)
    for name, (per, pooled) in table.items():
        print(f"\n== {name}: confidence set leave-one-engagement-out, held out, all rows")
        print(head)
        for e in ev.engagements:
            print(_row(e.id, per[e.id], f1[e.id]))
        print(_row("pooled", pooled, pooled_f1))
    print("\nrule (4) per fold: beta; held-out answers raised (z > 0) / lowered (z < 0):")
    print("  n and sum of (correct - their kind's held-out accuracy)")
    for eid, c in checks.items():
        print(
            f"  {eid:<10} beta {c['beta']:+.3f}   raised {c['raised_n']:>3} {c['raised_sum']:+6.2f}"
            f"   lowered {c['lowered_n']:>3} {c['lowered_sum']:+6.2f}"
        )
    print("\nheld-out accuracy by net votes (pooled over folds; n right/n)")
    by_net: dict[int, list[bool]] = {}
    for e in ev.engagements:
        for o in ev.loeo.outcomes[e.id]:
            by_net.setdefault(net(o), []).append(o.correct)
    for k in sorted(by_net):
        v = by_net[k]
        print(f"  net {k:+d}: {sum(v)}/{len(v)}")
    print("\nheld-out accuracy by kind and sign of z (pooled over folds; right/n: z<0, 0, z>0)")
    by_kind: dict[str, list[list[int]]] = {}
    for e in ev.engagements:
        _, means, _ = fold(ev.loeo.calibration_runs[e.id], e.id)
        for o in ev.loeo.outcomes[e.id]:
            z = z_of(o, means)
            cell = by_kind.setdefault(o.kind, [[0, 0], [0, 0], [0, 0]])[
                0 if z < 0 else (1 if z == 0 else 2)
            ]
            cell[0] += o.correct
            cell[1] += 1
    for kind, cells in sorted(by_kind.items()):
        print(f"  {kind:<16} " + "   ".join(f"{r}/{n}" for r, n in cells))


if __name__ == "__main__":
    main()
