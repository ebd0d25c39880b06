"""``etki eval triage``'s confidence figures (issue 29, item 2): selective accuracy with
ties at the cut, the area under the accuracy-coverage curve, reliability bins and ECE,
sureness, Laplace calibration per kind of evidence and its leave-one-engagement-out
exclusion, each against values computed by hand in the comments; then the figures on real
engines and the command's output."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest

from etki.evaluation.confidence import (
    BINS,
    UNSEEN,
    calibrate_by_kind,
    calibrate_by_kind_all,
    calibration_rows,
    confidence_figures,
    confidence_for,
    confidence_report,
    expected_calibration_error,
    kind_counts,
    laplace,
    m_estimate,
    mean_accuracy_over_coverage,
    reliability,
    selective_accuracy,
    sureness,
    top_k_accuracy,
)
from etki.evaluation.report import WIDTH
from etki.evaluation.triage import (
    LabelledRow,
    evaluate,
    outcome_of,
    resolve_sources,
)
from etki.triage.classify import Thresholds
from tests.test_triage_eval import CR, IS, RJ, cli, no_store, rows_for, write_project

T, F = True, False


# --- ranking: ties at the cut -----------------------------------------------------------

# Five answers: one at 0.9 (right), a tied block of three at 0.8 (one right), one at 0.3
# (right). Overall accuracy 3/5.
CONF = [0.9, 0.8, 0.8, 0.8, 0.3]
OK = [T, T, F, F, T]


def test_selective_accuracy_counts_a_tied_block_at_its_mean():
    # 25%: k = ceil(1.25) = 2 -> the 0.9 answer (1 right) + 1 place of the 0.8 block,
    #      which is right 1/3 of the time -> (1 + 1/3) / 2 = 2/3
    assert selective_accuracy(CONF, OK, 0.25) == pytest.approx(2 / 3)
    # 50%: k = ceil(2.5) = 3 -> 1 + 2 * 1/3 = 5/3 right of 3 -> 5/9
    assert selective_accuracy(CONF, OK, 0.50) == pytest.approx(5 / 9)
    # 75%: k = ceil(3.75) = 4 -> 1 + the whole block (1) = 2 of 4 -> 1/2
    assert selective_accuracy(CONF, OK, 0.75) == pytest.approx(1 / 2)
    # 100%: everything -> 3/5
    assert selective_accuracy(CONF, OK, 1.0) == pytest.approx(3 / 5)
    assert top_k_accuracy(CONF, OK, 1) == 1.0
    assert selective_accuracy([], [], 0.5) is None


def test_ties_are_never_broken_by_file_order():
    # the same answers in every order give the same figures (to the last bit: the sums
    # are taken per block, highest confidence first, whatever the input order)
    pairs = list(zip(CONF, OK, strict=True))
    expected = [selective_accuracy(CONF, OK, c) for c in (0.25, 0.5, 0.75)]
    area = mean_accuracy_over_coverage(CONF, OK)
    rng = random.Random(7)
    for _ in range(20):
        rng.shuffle(pairs)
        conf = [c for c, _ in pairs]
        ok = [o for _, o in pairs]
        assert [selective_accuracy(conf, ok, c) for c in (0.25, 0.5, 0.75)] == expected
        assert mean_accuracy_over_coverage(conf, ok) == area
    # "right one first" and "right one last" in the tied block: the same 2/3, where a
    # file-order tie-break would give 1.0 and 0.5
    assert top_k_accuracy([0.9, 0.8, 0.8, 0.8], [T, T, F, F], 2) == pytest.approx(2 / 3)
    assert top_k_accuracy([0.9, 0.8, 0.8, 0.8], [T, F, F, T], 2) == pytest.approx(2 / 3)


def test_ranking_input_errors():
    with pytest.raises(ValueError):
        top_k_accuracy(CONF, OK, 0)
    with pytest.raises(ValueError):
        top_k_accuracy(CONF, OK, 6)
    with pytest.raises(ValueError):
        selective_accuracy(CONF, OK, 0.0)
    with pytest.raises(ValueError):
        selective_accuracy(CONF, OK[:4], 0.5)


def test_mean_accuracy_over_coverage_by_hand():
    # top-k accuracies of CONF/OK for k = 1..5 (ties at their mean):
    #   k=1: 1/1; k=2: (1 + 1/3)/2 = 2/3; k=3: (1 + 2/3)/3 = 5/9; k=4: 2/4 = 1/2;
    #   k=5: 3/5. Mean = (1 + 2/3 + 5/9 + 1/2 + 3/5) / 5; over 90:
    #   (90 + 60 + 50 + 45 + 54) / 90 = 299/90, / 5 = 299/450 = 0.6644...
    assert mean_accuracy_over_coverage(CONF, OK) == pytest.approx(299 / 450)
    # a ranking that says nothing (all tied) scores the overall accuracy, 3/5
    assert mean_accuracy_over_coverage([0.5] * 5, OK) == pytest.approx(3 / 5)
    # right answer first: (1/1 + 1/2) / 2 = 0.75; wrong one first: (0 + 1/2) / 2 = 0.25
    assert mean_accuracy_over_coverage([0.9, 0.5], [T, F]) == pytest.approx(0.75)
    assert mean_accuracy_over_coverage([0.5, 0.9], [T, F]) == pytest.approx(0.25)
    assert mean_accuracy_over_coverage([], []) is None


# --- reliability and ECE ----------------------------------------------------------------


def test_the_bins_are_the_pre_registered_ones():
    assert BINS == ((0.0, 0.5), (0.5, 0.6), (0.6, 0.7), (0.7, 0.8), (0.8, 0.9), (0.9, 1.0))


def test_reliability_bins_and_ece_by_hand():
    conf = [0.2, 0.5, 0.55, 0.65, 0.9, 1.0, 0.45]
    ok = [F, T, F, T, T, T, T]
    table = reliability(conf, ok)
    # [0, .5):   0.2 F, 0.45 T   -> n 2, mean conf 0.325, accuracy 0.5, gap 0.175
    # [.5, .6):  0.5 T, 0.55 F   -> n 2, mean conf 0.525, accuracy 0.5, gap 0.025
    #            (0.5 is the lower edge: it falls in [.5, .6), not [0, .5))
    # [.6, .7):  0.65 T          -> n 1, 0.65, 1.0, gap 0.35
    # [.7, .8), [.8, .9): empty
    # [.9, 1.]:  0.9 T, 1.0 T    -> n 2, 0.95, 1.0, gap 0.05 (1.0 is in the closed last bin)
    assert [b.n for b in table] == [2, 2, 1, 0, 0, 2]
    assert [b.confidence for b in table] == pytest.approx([0.325, 0.525, 0.65, None, None, 0.95])
    assert [b.accuracy for b in table] == [0.5, 0.5, 1.0, None, None, 1.0]
    # ECE = 2/7 * 0.175 + 2/7 * 0.025 + 1/7 * 0.35 + 2/7 * 0.05
    #     = (0.35 + 0.05 + 0.35 + 0.10) / 7 = 0.85 / 7 = 0.12142...
    assert expected_calibration_error(table) == pytest.approx(0.85 / 7)
    assert table[0].label() == "[0.00, 0.50)" and table[-1].label(last=True) == "[0.90, 1.00]"
    assert expected_calibration_error(reliability([], [])) is None
    with pytest.raises(ValueError):
        reliability([1.01], [T])
    with pytest.raises(ValueError):
        reliability([-0.1], [T])


def test_perfect_calibration_has_ece_zero():
    # four answers at 0.75, three right: accuracy 0.75 = mean confidence 0.75
    assert expected_calibration_error(reliability([0.75] * 4, [T, T, T, F])) == pytest.approx(0.0)


# --- sureness and REJECT recall ---------------------------------------------------------


def test_sureness_by_hand():
    # marked: (T,T), (T,F), (F,F); the unmarked one is left out
    s = sureness([T, T, F, None], [T, F, F, T])
    assert s is not None
    assert (s.n, s.sure, s.share) == (3, 2, pytest.approx(2 / 3))
    assert s.sure_accuracy == 0.5 and s.unsure_accuracy == 0.0
    assert sureness([None, None], [T, F]) is None  # an engine without the mark
    everything_sure = sureness([T, T], [T, F])
    assert everything_sure is not None and everything_sure.unsure_accuracy is None


def test_confidence_figures_of_plain_values():
    f = confidence_figures(
        [0.9, 0.6, 0.4, 0.4],
        [T, T, F, T],
        [RJ, IS, RJ, CR],
        [RJ, IS, IS, CR],
        [None, None, None, None],
    )
    # REJECT recall: 2 labelled REJECT (1st, 3rd), the 1st answered REJECT -> 1/2
    assert (f.reject.hits, f.reject.n) == (1, 2)
    assert f.accuracy == 0.75 and f.sure is None
    # top 25%: k = 1 -> 1.0; 50%: k = 2 -> 1.0; 75%: k = 3 -> (2 + 1 * 1/2) / 3 = 5/6
    assert [k for _, k, _ in f.selective] == [1, 2, 3]
    assert [a for _, _, a in f.selective] == pytest.approx([1.0, 1.0, 5 / 6])
    data = f.to_dict()
    assert data["mean_accuracy_over_coverage_random"] == 0.75
    assert data["reject_recall"] == {"hits": 1, "n": 2, "value": 0.5}


# --- calibration by kind ----------------------------------------------------------------


@dataclass(frozen=True)
class A:
    kind: str
    correct: bool


ENGS = {
    "a": [A("defect", T), A("defect", T), A("defect", F), A("partial", T)],
    "b": [A("defect", T), A("partial", F), A("partial", F), A("exclusion", T)],
    "c": [A("defect", F), A("defect", F), A("defect", F), A("novel", T)],
}


def test_laplace_rule_of_succession():
    assert laplace(0, 0) == 0.5  # nothing seen: even
    assert laplace(3, 3) == 0.8  # (3 + 1) / (3 + 2), never 1
    assert laplace(1, 4) == pytest.approx(1 / 3)  # (1 + 1) / (4 + 2)
    with pytest.raises(ValueError):
        laplace(3, 2)


def test_m_estimate_shrinks_toward_the_prior():
    assert m_estimate(0, 1, 0.8) == pytest.approx(1.6 / 3)  # one wrong answer: 0.53
    assert m_estimate(6, 8, 0.8) == pytest.approx(7.6 / 10)
    assert m_estimate(0, 0, 0.7) == pytest.approx(0.7)  # nothing seen: the prior
    assert m_estimate(3, 3, 0.5) == laplace(3, 3)  # prior 1/2 worth 2: Laplace
    for bad in ((3, 2, 0.5), (1, 2, 1.5), (1, 2, -0.1)):
        with pytest.raises(ValueError):
            m_estimate(*bad)
    with pytest.raises(ValueError):
        m_estimate(1, 2, 0.5, m=0)


def test_calibrate_by_kind_holds_out_one_engagement():
    table = calibrate_by_kind(ENGS, "c")
    # a + b: the sure kinds (defect, exclusion) 4 right of 5 -> group rate 5/7; the others
    # (partial) 1 of 3 -> 2/5. defect 3 of 4 -> (3 + 2 x 5/7) / 6 = 31/42; exclusion 1 of
    # 1 -> (1 + 10/7) / 3 = 17/21; partial 1 of 3 -> (1 + 2 x 2/5) / 5 = 9/25; pooled 5 of
    # 8 -> 6/10 (Laplace), which is what c's "novel" (never seen on a or b) gets
    assert table == pytest.approx(
        {"defect": 31 / 42, "partial": 9 / 25, "exclusion": 17 / 21, UNSEEN: 6 / 10}
    )
    assert confidence_for(table, "novel") == pytest.approx(0.6)
    assert confidence_for(table, "defect") == pytest.approx(31 / 42)
    # a held out: b + c: sure 2 of 5 -> 3/7, others 1 of 3 -> 2/5; defect 1 of 4 ->
    # (1 + 6/7) / 6 = 13/42; exclusion 1 of 1 -> 13/21; partial 0 of 2 -> (4/5) / 4 = 1/5;
    # novel 1 of 1 -> (9/5) / 3 = 3/5; pooled 3 of 8 -> 4/10
    assert calibrate_by_kind(ENGS, "a") == pytest.approx(
        {"defect": 13 / 42, "partial": 1 / 5, "exclusion": 13 / 21, "novel": 3 / 5, UNSEEN: 4 / 10}
    )
    with pytest.raises(ValueError):
        calibrate_by_kind(ENGS, "nope")


def test_the_held_out_engagements_outcomes_never_change_its_calibration():
    before = calibrate_by_kind(ENGS, "c")
    for c_outcomes in (
        [],  # nothing
        [A("defect", T)] * 50,  # every defect right, many of them
        [A("partial", F), A("exclusion", F), A("brand-new", T)],  # other kinds
        [A(o.kind, not o.correct) for o in ENGS["c"]],  # every answer flipped
    ):
        assert calibrate_by_kind({**ENGS, "c": c_outcomes}, "c") == before
    # ... while another engagement's outcomes do change it
    assert calibrate_by_kind({**ENGS, "a": [A("defect", F)]}, "c") != before


def test_calibrate_by_kind_all_and_the_table_rows():
    # all three: sure kinds 4 of 8 and the others 2 of 4, both group rates 1/2, so each
    # kind gets Laplace's value: defect 3 right of 7 (a 2, b 1, c 0) -> 4/9; partial 1
    # of 3 -> 2/5; exclusion 1 of 1 -> 2/3; novel 1 of 1 -> 2/3; pooled 6 of 12 -> 7/14
    every = calibrate_by_kind_all(ENGS)
    assert every == pytest.approx(
        {"defect": 4 / 9, "partial": 2 / 5, "exclusion": 2 / 3, "novel": 2 / 3, UNSEEN: 7 / 14}
    )
    assert kind_counts(ENGS["a"]) == {"defect": (3, 2), "partial": (1, 1)}
    rows = {r.kind: r for r in calibration_rows(ENGS)}
    assert list(rows) == ["defect", "exclusion", "novel", "partial", UNSEEN]
    assert (rows["defect"].n, rows["defect"].correct) == (7, 3)
    assert rows["defect"].all == pytest.approx(4 / 9)
    # the held-out columns are calibrate_by_kind's values (unseen kinds: the pooled one)
    # (b held out: a + c, sure kinds = defect 2 of 6 -> rate 3/8, defect (2 + 6/8) / 8)
    assert rows["defect"].loeo == pytest.approx({"a": 13 / 42, "b": 11 / 32, "c": 31 / 42})
    # novel is seen only on c: with c held out it gets a + b's pooled 6/10
    assert rows["novel"].loeo["c"] == pytest.approx(6 / 10)
    assert (rows[UNSEEN].n, rows[UNSEEN].correct) == (12, 6)


# --- the outcome carries confidence, sureness and kind ----------------------------------


def _decision(**attrs):
    base = {
        "verdict": IS,
        "confidence": 0.72,
        "cited_clauses": (),
        "impacted_modules": (),
        "extra": (("language", "en"), ("rule", "partial")),
        "engine_version": "x",
        "model_version": "y",
    }
    return SimpleNamespace(**{**base, **attrs})


def test_outcome_reads_sure_and_evidence_kind_when_the_engine_has_them():
    eng = SimpleNamespace(id="e")
    row = LabelledRow("R", "text", None, IS)
    old = outcome_of(eng, {}, row, _decision())  # type: ignore[arg-type]
    assert (old.confidence, old.sure, old.kind, old.correct) == (0.72, None, "partial", True)
    new = outcome_of(
        eng,
        {},
        row,
        _decision(sure=True, evidence_kind="exclusion_sentence"),  # type: ignore[arg-type]
    )
    assert (new.sure, new.kind) == (True, "exclusion_sentence")
    empty = outcome_of(eng, {}, row, _decision(sure=False, evidence_kind=""))  # type: ignore[arg-type]
    assert (empty.sure, empty.kind) == (False, "partial")  # empty kind: the rule
    assert {"confidence", "sure", "kind"} <= set(new.to_dict())


# --- on real engines --------------------------------------------------------------------


@pytest.fixture
def two(tmp_path: Path) -> tuple[Path, Path]:
    return (
        write_project(tmp_path / "alpha", "alpha", rows_for(IS)),
        write_project(tmp_path / "beta", "beta", rows_for(CR)),
    )


def test_loeo_confidence_is_set_on_the_other_engagement_under_the_chosen_settings(two):
    alpha, beta = two
    strict = Thresholds(covered=0.99, min_coverage=0.99)
    engs = resolve_sources(
        [str(alpha), str(beta)],
        project=None,
        all_realdata=False,
        realdata_dir=None,
        stored=no_store,
    )
    ev = evaluate(engs, resamples=0, loeo=True, grid=(Thresholds(), strict))
    assert ev.loeo is not None
    report = confidence_report(ev)
    assert report.loeo is not None
    for held, other in (("alpha", "beta"), ("beta", "alpha")):
        runs = ev.loeo.calibration_runs[held]
        # the other engagement's outcomes under the held-out's chosen settings ...
        expected = calibrate_by_kind_all({other: runs[other]})
        assert report.loeo.tables[held] == pytest.approx(expected)
        # ... give each held-out answer its confidence (never the engine's own)
        held_outs = ev.loeo.outcomes[held]
        conf = [confidence_for(expected, o.kind) for o in held_outs]
        f = report.loeo.per_engagement[held]
        assert f.area == pytest.approx(
            mean_accuracy_over_coverage(conf, [o.correct for o in held_outs])
        )
    # the engine's own block uses the engine's confidences
    own = ev.outcomes["alpha"]
    assert report.per_engagement["alpha"].area == pytest.approx(
        mean_accuracy_over_coverage([o.confidence for o in own], [o.correct for o in own])
    )
    assert report.pooled.n == report.loeo.pooled.n == 8


def test_command_prints_the_confidence_block(two, capsys):
    alpha, beta = two
    code, out, err = cli(
        capsys,
        str(alpha),
        str(beta),
        "--resamples",
        "20",
        "--loeo",
        "--calibration",
        "--per-request",
    )
    assert code == 0, err
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= WIDTH
    assert "confidence (engine's own), all rows" in lines
    assert "confidence set leave-one-engagement-out, held out, all rows" in lines
    assert "reliability, pooled" in lines and "reliability, alpha" in lines
    head = lines.index("confidence (engine's own), all rows")
    table = next(i for i in range(head, len(lines)) if lines[i].startswith("engagement"))
    assert lines[table].split() == [
        "engagement",
        "n",
        "accuracy",
        "top",
        "25%",
        "top",
        "50%",
        "top",
        "75%",
        "area",
        "ECE",
        "REJECT",
        "recall",
    ]
    assert [lines[table + i].split()[0] for i in (1, 2, 3)] == ["alpha", "beta", "pooled"]
    assert any(line.startswith("calibration by evidence kind") for line in lines)
    assert any(line.startswith("(unseen)") for line in lines)


def test_command_json_has_the_confidence_figures(two, capsys):
    alpha, beta = two
    code, out, err = cli(capsys, str(alpha), str(beta), "--resamples", "20", "--loeo", "--json")
    assert code == 0, err
    conf = json.loads(out)["confidence"]
    assert conf["view"] == "all" and conf["coverages"] == [0.25, 0.5, 0.75]
    pooled = conf["engine"]["pooled"]
    assert pooled["n"] == 8 and len(pooled["reliability"]) == len(BINS)
    assert [s["coverage"] for s in pooled["selective_accuracy"]] == [0.25, 0.5, 0.75]
    assert set(conf["loeo"]["tables"]) == {"alpha", "beta"}
    assert UNSEEN in conf["calibration"]["kinds"]
    req = json.loads(out)["engagements"][0]["requests"][0]
    assert {"confidence", "sure", "kind"} <= set(req)
