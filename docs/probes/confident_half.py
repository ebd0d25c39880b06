"""Probe (issue 29, helper eng29f): which evidence kinds put wrong verdicts in the most
confident half, and two rules that might keep them out.

**Diagnosis** (printed first, no rule): per held-out engagement and per evidence kind, n,
right, the kind's LOEO value (``etki.evaluation.confidence.calibrate_by_kind``) and how
many of its answers (and how many wrong ones) fall in the most confident half (a tied
block at the cut counts pro rata, as :func:`etki.evaluation.confidence.top_k_accuracy`).
No request wording is read.

**Rules, written before any figure of them was computed** (commit of this file):

* ``lower_bound`` (evaluation side; the engine's per-kind constants would follow): a
  held-out answer's confidence is the Wilson score *lower* bound (z = 1.96, the
  conventional 95 %) of its kind's right / n on the other engagements, not the
  m-estimate's mean; a kind they never show gets the bound over all their answers.
  Source: E. B. Wilson, "Probable inference, the law of succession, and statistical
  inference", JASA 22 (1927); Agresti & Coull, "Approximate is better than 'exact' for
  interval estimation of binomial proportions", Am. Stat. 52 (1998); ranking by the lower
  bound so that a rate seen on few answers does not outrank an equal rate seen on many:
  E. Miller, "How not to sort by average rating" (2009, a public guide). The principle:
  a kind whose record on the other engagements is short (``named`` 6 of 6 when eqip is
  held out) should not lead the ranking on its mean alone. The value is an under-estimate
  of the chance of being right by design, so ECE is expected to rise (reported).
* ``weighed_conflict`` (engine side): a ``topic`` IN_SCOPE decision whose covering clause
  also holds an exclusion or client-duty sentence (``weighed``, the doubt "the clause it
  rests on also excludes work or gives it to another party") gets kind ``conflict``, as a
  ``named`` decision with ``weighed`` already does. Source: issue 29 item 4 ("an
  exclusion inside the very clause the request matches blocks IN_SCOPE and is shown as
  weighed") and the definition of ``conflict`` in :mod:`etki.triage.sureness` ("an
  exclusion in the very clause that covers the ask"): conflicting evidence is demoted to
  the kind whose LOEO value is set on conflicting evidence. No verdict changes.
* ``both``: the two together.

**Second round, written after the first round's figures were seen and before any figure
of these two was computed** (a second commit of this file). The first round showed that
``topic`` (50 held-out answers, 37 right) fills half of the most confident half and
holds most of its wrong answers, and that the top half cannot beat a tied block's mean:
only a split of ``topic`` into parts that differ *on the other engagements* can move it.

* ``topic_by_rule``: ``topic`` is split by the rule that decided it, each part its own
  kind with its own LOEO value: ``covered`` (an obligation sentence holds at least the
  ``covered`` share of the request), ``partial`` (less), and the ratio rules
  (``exclusion``, ``future_work``). Source: the rule chain's own distinction
  (:mod:`etki.triage.classify`); the general principle that more of the ask found in
  one obligation sentence is stronger evidence than a few shared words. No verdict
  changes; the direction is not imposed (the LOEO fit sets each part's value).
* ``topic_foreign``: a ``topic`` decision of a request written in a language no clause is
  written in (``foreign``, read lexically) is its own kind: what it shares with the
  contract can only be loan words, names and numbers, not the ask's content words.
  Source: the doubt the engine already gives such a request (sureness.py, "a language no
  clause is written in ... could not be read for it") and issue 29 item 6. No verdict
  changes.

**Third round, written after the second round's figures were seen and before any
figure of these two was computed** (a third commit of this file): the two remaining
ideas of the helper's brief, each read from the request's
:class:`etki.triage.classify.Features` at the chain's default
:data:`etki.triage.classify.MIN_COVERAGE` (0.08, "below this share ... nothing in the
contract covers the request"), no label and no wording read:

* ``defect_by_module``: "sure needs two independent sources". A ``defect`` is placed by
  an obligation sentence covering ``MIN_COVERAGE`` of the request *or* a module of the
  delivered system; one placed by a module alone (``incl_cov`` < ``MIN_COVERAGE``, so no
  contract sentence backs it) is its own kind ``defect_module``. Source: the definition
  of ``defect`` in ``sureness.py`` (two ways to be placed) and the principle that a
  sure verdict should rest on contract text a reviewer can read (issue 29 item 4).
* ``mixed_groups``: "a request matched to clauses with different verdict tendencies".
  A ``topic`` or ``named`` decision where the best sentence of at least two of the
  three groups (obligation, exclusion-or-client-duty, future work) each covers
  ``MIN_COVERAGE`` of the request is its own kind ``mixed``. Source: the brief's idea;
  the chain's own threshold for "a sentence matches".

Keep rule for the third round as for the second.

Keep rule for the second round: the same four conditions as above, each variant on its
own against 3.2.3; if both pass, the one with the larger pooled gain is *not* chosen on
these figures: only a variant that passes alone is kept, and if both pass, both are kept
together only if together they pass too.

**Keep rule (written before any figure of them was computed).** Held out (LOEO) over
tdrs, talentmap, eqip and demo, against engine 3.2.3: a variant is kept only if (1) the
pooled most confident half gains at least 2 right answers (of 63); (2) no engagement's
most confident half loses more than 1 right answer; (3) pooled accuracy, macro-F1 and
REJECT recall do not fall (neither rule changes a verdict); (4) the pooled area does not
fall. If both single variants pass, ``both`` is kept when it passes too, else
``weighed_conflict``. Otherwise the engine is unchanged and this probe and a paragraph in
docs/EVAL.md stay. Run from the repository root::

    ETKI_REALDATA_DIR=../shared/realdata .venv/bin/python docs/probes/confident_half.py
    ETKI_REALDATA_DIR=../shared/realdata .venv/bin/python docs/probes/confident_half.py \
        3.2.3 topic_by_rule topic_foreign        # the second round
    ETKI_REALDATA_DIR=../shared/realdata .venv/bin/python docs/probes/confident_half.py \
        3.2.3 defect_by_module mixed_groups      # the third round
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
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
from etki.triage.sureness import Sureness, assess_sureness

Z = 1.96
"""Wilson's z: the two-sided 95 % interval (conventional; fixed before measuring)."""


def wilson_lower(right: int, n: int, z: float = Z) -> float:
    """Wilson score lower bound of a rate from ``right`` of ``n`` (0 when n = 0)."""
    if n == 0:
        return 0.0
    p = right / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - spread) / (1 + z * z / n)


def lower_bound_table(runs: Mapping[str, Sequence[Outcome]], held_out: str) -> dict[str, float]:
    """kind -> Wilson lower bound over the engagements other than ``held_out``."""
    others = [o for e, outs in runs.items() if e != held_out for o in outs]
    counts: dict[str, list[int]] = {}
    for o in others:
        c = counts.setdefault(o.kind, [0, 0])
        c[0] += 1
        c[1] += o.correct
    table = {k: wilson_lower(ok, n) for k, (n, ok) in counts.items()}
    table[UNSEEN] = wilson_lower(sum(o.correct for o in others), len(others))
    return table


def patch_weighed_conflict() -> None:
    """``topic`` IN_SCOPE with a weighed exclusion -> kind ``conflict`` (same doubts)."""

    def assess(rule: str, **kw: Any) -> Sureness:
        s = assess_sureness(rule, **kw)
        if s.kind == "topic" and kw.get("weighed") and rule in ("covered", "partial"):
            from etki.triage.sureness import KIND_CONFIDENCE

            return Sureness("conflict", False, KIND_CONFIDENCE["conflict"], s.doubts)
        return s

    engine_module.assess_sureness = assess  # type: ignore[assignment]


def patch_topic_foreign() -> None:
    """``topic`` of a request in a language no clause is written in -> ``topic_foreign``."""

    def assess(rule: str, **kw: Any) -> Sureness:
        s = assess_sureness(rule, **kw)
        if s.kind == "topic" and kw.get("foreign"):
            return Sureness("topic_foreign", False, s.confidence, s.doubts)
        return s

    engine_module.assess_sureness = assess  # type: ignore[assignment]


@dataclass(frozen=True)
class _Relabelled:
    kind: str
    correct: bool


def by_rule_table(runs: Mapping[str, Sequence[Outcome]], held_out: str) -> dict[str, float]:
    """:func:`calibrate_by_kind` with ``topic`` split by rule (``topic:RULE``)."""
    return calibrate_by_kind(
        {e: [_Relabelled(topic_rule_kind(o), o.correct) for o in outs] for e, outs in runs.items()},
        held_out,
    )


def topic_rule_kind(o: Outcome) -> str:
    return f"topic:{o.rule}" if o.kind == "topic" else o.kind


def _features(o: Outcome) -> Any:
    from agreement_within_kind import FEATURES

    from etki.triage import case_id_for

    return FEATURES[case_id_for(o.engagement, "eval\0" + o.row.id)]


def defect_module_kind(o: Outcome) -> str:
    from etki.triage.classify import MIN_COVERAGE

    if o.kind == "defect" and _features(o).incl_cov < MIN_COVERAGE:
        return "defect_module"
    return o.kind


def mixed_kind(o: Outcome) -> str:
    from etki.triage.classify import MIN_COVERAGE

    if o.kind in ("topic", "named"):
        f = _features(o)
        if sum(c >= MIN_COVERAGE for c in (f.incl_cov, f.against_cov, f.future_cov)) >= 2:
            return "mixed"
    return o.kind


def relabelled_table(kind_of: Callable[[Outcome], str]) -> Table:
    def table(runs: Mapping[str, Sequence[Outcome]], held_out: str) -> dict[str, float]:
        return calibrate_by_kind(
            {e: [_Relabelled(kind_of(o), o.correct) for o in outs] for e, outs in runs.items()},
            held_out,
        )

    return table


def run() -> Evaluation:
    def stored(project_id: str) -> Any:
        raise SystemExit(f"the probe reads project folders only, not {project_id}")

    engs = resolve_sources(
        [],
        project=None,
        all_realdata=True,
        realdata_dir=os.environ.get("ETKI_REALDATA_DIR"),
        stored=stored,
    )
    return evaluate(engs, loeo=True)


KIND_OF: list[Callable[[Outcome], str]] = [lambda o: o.kind]
"""How a held-out answer's kind is read (``topic_by_rule`` reads ``topic:RULE``)."""

Table = Callable[[Mapping[str, Sequence[Outcome]], str], dict[str, float]]


def held_out(
    ev: Evaluation, table_of: Table
) -> tuple[dict[str, ConfidenceFigures], ConfidenceFigures]:
    assert ev.loeo is not None
    per: dict[str, ConfidenceFigures] = {}
    allo: list[Outcome] = []
    allc: list[float] = []
    for e in ev.engagements:
        table = table_of(ev.loeo.calibration_runs[e.id], e.id)
        held = ev.loeo.outcomes[e.id]
        conf = [confidence_for(table, KIND_OF[0](o)) for o in held]
        per[e.id] = figures_of(held, conf)
        allo += held
        allc += conf
    return per, figures_of(allo, allc)


def diagnosis(ev: Evaluation, table_of: Table) -> None:
    assert ev.loeo is not None
    total: dict[str, list[float]] = {}
    for e in ev.engagements:
        table = table_of(ev.loeo.calibration_runs[e.id], e.id)
        held = ev.loeo.outcomes[e.id]
        conf = [confidence_for(table, KIND_OF[0](o)) for o in held]
        k = math.ceil(len(held) / 2)
        share: dict[int, float] = {}
        filled = 0
        for c in sorted(set(conf), reverse=True):
            block = [i for i, v in enumerate(conf) if v == c]
            take = min(len(block), max(0, k - filled))
            filled += take
            for i in block:
                share[i] = take / len(block)
        print(f"  {e.id} held out (top half {k}):")
        rows: dict[str, list[float]] = {}
        for i, o in enumerate(held):
            r = rows.setdefault(KIND_OF[0](o), [0, 0, 0.0, 0.0, conf[i]])
            r[0] += 1
            r[1] += o.correct
            r[2] += share[i]
            r[3] += share[i] * (not o.correct)
        for kind, (n, ok, ins, wr, c) in sorted(rows.items(), key=lambda x: -x[1][4]):
            print(
                f"    {kind:<16} value {c:.3f}  n {int(n):>2}  right {int(ok):>2}"
                f"  in top half {ins:5.2f}  wrong there {wr:5.2f}"
            )
            t = total.setdefault(kind, [0, 0, 0.0, 0.0])
            for j, v in enumerate((n, ok, ins, wr)):
                t[j] += v
    print("  pooled:")
    for kind, (n, ok, ins, wr) in sorted(total.items(), key=lambda x: -x[1][2]):
        print(
            f"    {kind:<16} n {int(n):>3}  right {int(ok):>3}  in top half {ins:5.2f}"
            f"  wrong there {wr:5.2f}"
        )


def _row(name: str, f: ConfidenceFigures, macro_f1: float) -> str:
    def p(v: Any) -> str:
        return "   -" if v is None else f"{v:.2f}"

    sel = "  ".join(f"{p(a):>6}" for _, _, a in f.selective)
    half = next(a for c, _, a in f.selective if c == 0.5) or 0.0
    answers = math.ceil(0.5 * f.n)
    return (
        f"{name:<12}{f.n:>4}  {p(f.accuracy):>8}  {macro_f1:>8.2f}  {sel}  {p(f.area):>5}"
        f"  {p(f.ece):>5}  {f.reject.hits}/{f.reject.n}   {half * answers:5.2f}/{answers}"
    )


def report(name: str, ev: Evaluation, table_of: Table) -> None:
    assert ev.loeo is not None
    per, pooled = held_out(ev, table_of)
    f1 = {e.id: ev.loeo.held_out[e.id]["all"].verdict.macro_f1 for e in ev.engagements}
    print(f"\n== {name}: held out, all rows, confidence set leave-one-engagement-out")
    print(
        "engagement     n  accuracy  macro-F1  top25%  top50%  top75%   area    ECE  REJECT"
        "   top-half right"
    )
    for e in ev.engagements:
        print(_row(e.id, per[e.id], f1[e.id]))
    print(_row("pooled", pooled, ev.loeo.pooled["all"].verdict.macro_f1))
    print(" kinds in the most confident half:")
    diagnosis(ev, table_of)


def main() -> None:
    which = sys.argv[1:] or ["3.2.3", "lower_bound", "weighed_conflict", "both"]
    third = {"defect_by_module": defect_module_kind, "mixed_groups": mixed_kind}
    if set(third) & set(which):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from agreement_within_kind import _stash

        _stash()
    base = run() if {"3.2.3", "lower_bound", "topic_by_rule", *third} & set(which) else None
    if base is not None:
        if "3.2.3" in which:
            report("3.2.3 (m-estimate per kind)", base, calibrate_by_kind)
        if "lower_bound" in which:
            report("lower_bound", base, lower_bound_table)
        if "topic_by_rule" in which:
            KIND_OF[0] = topic_rule_kind
            report("topic_by_rule", base, by_rule_table)
            KIND_OF[0] = lambda o: o.kind
        for name, kind_of in third.items():
            if name in which:
                KIND_OF[0] = kind_of
                report(name, base, relabelled_table(kind_of))
                KIND_OF[0] = lambda o: o.kind
    if "topic_foreign" in which:
        patch_topic_foreign()
        report("topic_foreign", run(), calibrate_by_kind)
        engine_module.assess_sureness = assess_sureness
    if {"weighed_conflict", "both"} & set(which):
        patch_weighed_conflict()
        ev = run()
        if "weighed_conflict" in which:
            report("weighed_conflict", ev, calibrate_by_kind)
        if "both" in which:
            report("both", ev, lower_bound_table)


if __name__ == "__main__":
    main()
