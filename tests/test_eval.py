"""Evaluation (issue 5, item 7): the metrics, the grep baseline, label resolution, the
pre-registered query file and the two ``etki eval`` commands on a real store (the triage
evaluation itself is tested in ``tests/test_triage_eval.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from etki.cli import run
from etki.config import Settings
from etki.errors import InputError
from etki.knowledge import build_index, load_project
from etki.retrieval import RetrievalGraph
from etki.retrieval.evaluate import (
    METHODS,
    grep_rank,
    load_queries,
    score_ranking,
)
from etki.services import init_project
from etki.store import CaseFileRepository
from tests.factories import frozen_clock

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_project"


@pytest.fixture(scope="module")
def graph() -> RetrievalGraph:
    return RetrievalGraph(build_index(load_project(SAMPLE)))


def test_metrics():
    assert score_ranking(["a", "x", "b"], ["a", "b", "c", "d"]) == (0.5, 2 / 3, 1.0)
    assert score_ranking(["x", "a"], ["a"]) == (1.0, 0.5, 0.5)
    assert score_ranking([], ["a"]) == (0.0, 0.0, 0.0)


def test_grep_baseline_is_plain_substring_counting(graph):
    ranked = grep_rank(graph, "the Single Sign-On of staff", 5, {"clause"})
    assert {"clause:MSA-2024-01#3.2", "clause:ANNEX-A#10.2"} == set(ranked[:2])
    assert all(r.startswith("clause:") for r in ranked)
    assert grep_rank(graph, "the and of", 5) == []  # stopwords only: nothing to grep


def test_the_pre_registered_queries(graph):
    rows = [
        json.loads(line)
        for line in (SAMPLE / "queries.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    assert len(rows) >= 24 and len({r["id"] for r in rows}) == len(rows)
    queries, problems = load_queries(SAMPLE / "queries.jsonl", graph)
    assert problems == [] and len(queries) == len(rows)
    assert {r["intent"] for r in rows} == {"lookup", "impact", "why", "next"}


def test_labels_by_section_number(tmp_path, graph):
    path = tmp_path / "labelled.jsonl"
    path.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                {
                    "id": "A",
                    "text": "SSO",
                    "labels": {"clauses": ["3.2", "10.2.0"], "modules": ["portal.auth.sso"]},
                },
                {"id": "B", "text": "x", "labels": {"clauses": ["99.9"], "modules": ["nope"]}},
                {
                    "id": "C",
                    "query": "y",
                    "expected": ["clause:MSA-2024-01#4.1"],
                    "borderline": True,
                },
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    queries, problems = load_queries(path, graph)
    assert [q.id for q in queries] == ["A", "C"]
    assert queries[0].expected == (
        "clause:MSA-2024-01#3.2",
        "clause:ANNEX-A#10.2",
        "module:portal.auth.sso",
    )
    assert queries[1].borderline
    assert problems == [
        "B: no clause numbered 99.9",
        "B: no module nope",
        "B: skipped, no expected node",
    ]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n", encoding="utf-8")
    with pytest.raises(InputError, match="bad.jsonl:1"):
        load_queries(bad, graph)


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> str:
    db = tmp_path_factory.mktemp("eval") / "etki.db"
    repo = CaseFileRepository(f"sqlite:///{db}", clock=frozen_clock)
    init_project(SAMPLE, repo, Settings(db_url="", wiki_dir=None), related_context=False)
    repo.dispose()
    return f"sqlite:///{db}"


def test_eval_retrieval_command(stored, monkeypatch, capsys):
    monkeypatch.setenv("ETKI_DB_URL", stored)
    assert run(["eval", "retrieval", str(SAMPLE / "queries.jsonl"), "--project", "demo"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("retrieval: 32 queries, k=10")
    assert "recall@k" in out[1] and "MRR" in out[1]
    assert [line.split()[0] for line in out[2 : 2 + len(METHODS)]] == list(METHODS)
    assert (
        run(
            [
                "eval",
                "retrieval",
                str(SAMPLE / "queries.jsonl"),
                "--project",
                "demo",
                "--json",
                "--k",
                "5",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["k"] == 5 and [s["method"] for s in data["scores"]] == list(METHODS)
    assert all(0 <= s["recall"] <= 1 and 0 <= s["precision"] <= 1 for s in data["scores"])


def test_eval_triage_command(stored, monkeypatch, capsys):
    monkeypatch.setenv("ETKI_DB_URL", stored)
    assert (
        run(
            [
                "eval",
                "triage",
                str(SAMPLE / "requests.jsonl"),
                "--project",
                "demo",
                "--resamples",
                "50",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("triage evaluation: 1 engagement, 40 labelled requests")
    assert "stored project demo: " in out  # the stored project, not the folder
    assert "accuracy" in out and "macro-F1" in out and "confusion" in out
    with pytest.raises(InputError):
        run(["eval", "triage", str(SAMPLE / "queries.jsonl"), "--project", "demo"])


def test_a_request_runs_without_its_own_ruled_case_of_either_kind(tmp_path):
    """Issue 33 items 1 and 6: agreed rulings are graph nodes too (``decision``), and a
    labelled request's query runs on the graph without its own, whichever kind it is;
    the report counts the ruled nodes of each kind."""
    from etki.commands.retrieval import ports_without_own
    from etki.retrieval.evaluate import EvalQuery, run_retrieval
    from etki.retrieval.port import GraphQueryPort

    repo = CaseFileRepository(f"sqlite:///{tmp_path / 'e.db'}", clock=frozen_clock)
    init_project(SAMPLE, repo, Settings(db_url="", wiki_dir=None))
    agreed, flipped = repo.cases("demo")[:2]
    same = {"IN_SCOPE": "approve", "CHANGE_REQUEST": "convert_to_cr", "REJECT": "reject"}
    repo.record_ruling(agreed.case_id, same[agreed.decision.verdict], "r", "as proposed")
    other = "reject" if flipped.decision.verdict != "REJECT" else "approve"
    repo.record_ruling(flipped.case_id, other, "r", "not as proposed")
    ruled = repo.cases("demo", status="ruled")
    port = GraphQueryPort.from_store(repo, "demo")
    kinds = {c.case_id: port.graph.node(f"decision:{c.case_id}") is not None for c in ruled}
    assert sorted(kinds.values()) == [False, True]  # one agreed decision, one precedent
    clause = next(n.id for n in port.graph.nodes_of("clause"))
    queries = [EvalQuery(c.request_id, c.text, (clause,)) for c in ruled]
    without = ports_without_own(port, ruled, queries, Settings(db_url="", wiki_dir=None))
    for case in ruled:
        graph = without[case.request_id].graph
        own = {f"precedent:{case.case_id}", f"decision:{case.case_id}"}
        assert not any(graph.node(i) for i in own)
        assert len(graph.nodes_of("precedent")) + len(graph.nodes_of("decision")) == 1
    report = run_retrieval(port, queries, k=5, ports_without=without, ruled=len(ruled))
    assert report.excluded == 2 and dict(report.ruled_nodes) == {"precedent": 1, "decision": 1}
    assert "(graph nodes: 1 precedent, 1 decision)" in report.lines()[-1]
    repo.dispose()


def test_a_relative_cut_is_taken_against_the_contracts_own_nodes(tmp_path):
    """Issue 33: ``find_k_nodes(min_ratio=...)`` (find_k@ratio, and the seeds of the
    adaptive cut) keeps nodes scoring at least that share of the best *clause, module or
    work item*; a ruled case scoring best (its text is the query here) neither sets the
    bar nor is dropped. Without ruled nodes the bar is the best score, as before."""
    from etki.retrieval.graph import RULED_TYPES
    from etki.retrieval.port import GraphQueryPort

    repo = CaseFileRepository(f"sqlite:///{tmp_path / 'e.db'}", clock=frozen_clock)
    init_project(SAMPLE, repo, Settings(db_url="", wiki_dir=None))
    unruled = GraphQueryPort.from_store(repo, "demo")
    case = repo.cases("demo")[0]
    repo.record_ruling(case.case_id, "reject", "r", "not ours")
    port = GraphQueryPort.from_store(repo, "demo")
    query = case.text
    full = port.find_k_nodes(query, k=100).nodes
    assert full[0].type in RULED_TYPES  # the ruled case's own words score best
    best = next(n.score for n in full if n.type not in RULED_TYPES)
    cut = port.find_k_nodes(query, k=100, min_ratio=0.5).nodes
    assert [n.id for n in cut] == [n.id for n in full if n.score >= 0.5 * best]
    assert cut[0].id == full[0].id and any(n.type == "clause" for n in cut)
    plain = unruled.find_k_nodes(query, k=100).nodes
    assert [n.id for n in unruled.find_k_nodes(query, k=100, min_ratio=0.5).nodes] == [
        n.id for n in plain if n.score >= 0.5 * plain[0].score
    ]
    repo.dispose()
