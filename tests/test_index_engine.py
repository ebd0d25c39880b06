"""The engine reads its clauses and edges from the knowledge index (issue 4, done
criterion), and draft clauses score lower and are named in the decision (item 6)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from etki.knowledge import KnowledgeIndex, build_index, load_project
from etki.triage import TriageEngine
from etki.triage.engine import DRAFT_WEIGHT
from etki.triage.graph import read_graph

SAMPLE = Path(__file__).resolve().parents[1] / "sample_project"

STABLE = """---
id: MSA
---
# MSA

The Contractor delivers the municipal portal.

## 4 Services

The portal services.

### 4.1 Parking permits

The Contractor shall build online parking permit applications with document upload.

### 4.2 Invoicing

The Contractor invoices monthly.
"""
AMENDMENT = """---
id: AMD
status: draft
---
# Amendment 1

Pending signature.

## 1 Dog licences

The Contractor shall build online dog licence applications with vaccination records.

## 2 Parking permits

The Contractor shall build online parking permit applications with document upload.
"""


def make(root: Path) -> Path:
    (root / "contracts").mkdir(parents=True)
    (root / "etki.yaml").write_text("id: d\nname: D\n", encoding="utf-8")
    (root / "modules.yaml").write_text(
        "- id: permits\n  summary: Parking permit applications\n"
        "- id: licences\n  summary: Dog licences\n  depends_on: [permits]\n",
        encoding="utf-8",
    )
    (root / "workitems.yaml").write_text(
        "- id: W1\n  title: Parking permit form\n  modules: [permits]\n  effort_days: 3\n",
        encoding="utf-8",
    )
    (root / "contracts" / "msa.md").write_text(STABLE, encoding="utf-8")
    (root / "contracts" / "amd.md").write_text(AMENDMENT, encoding="utf-8")
    return root


def test_the_engine_view_of_the_sample_index_is_the_project() -> None:
    project = load_project(SAMPLE)
    graph = read_graph(build_index(project))
    assert graph.clauses == tuple(replace(c, edges=(), chunks=()) for c in project.clauses)
    assert [(m.id, m.path, m.summary, set(m.depends_on)) for m in graph.modules] == [
        (m.id, m.path, m.summary, set(m.depends_on)) for m in project.modules
    ]
    assert [(w.id, w.title, w.effort_days, set(w.modules)) for w in graph.workitems] == [
        (w.id, w.title, w.effort_days, set(w.modules)) for w in project.workitems
    ]


def test_the_engine_reads_clause_text_from_the_index_not_the_folder(tmp_path: Path) -> None:
    project = load_project(project_dir := make(tmp_path / "p"))
    index = build_index(project)
    data = json.loads(index.to_bytes())
    for node in data["nodes"]:
        if node["id"] == "clause:MSA#4.1":
            # the node text is the plain text, attribute markdown the source text
            node["text"] = node["markdown"] = (
                "The Contractor shall run a helpdesk hotline for citizens."
            )
    edited = KnowledgeIndex.from_dict(data)
    request = "Please run a helpdesk hotline for citizens."
    before = TriageEngine(project, index).triage("c", request)
    after = TriageEngine(project, edited).triage("c", request)
    assert "MSA#4.1" not in before.cited_clauses
    assert after.cited_clauses[0] == "MSA#4.1"
    assert (before.index_freshness, after.index_freshness) == (index.hash, edited.hash)
    assert project_dir.is_dir()


def test_the_engine_reads_work_item_edges_from_the_index(tmp_path: Path) -> None:
    project = load_project(make(tmp_path / "p"))
    index = build_index(project)
    request = "The parking permit form crashes on upload."
    assert TriageEngine(project, index).triage("c", request).effort.basis == ("W1",)
    data = json.loads(index.to_bytes())
    data["edges"] = [e for e in data["edges"] if e["type"] != "touches"]
    data["nodes"] = [
        n if n["id"] != "workitem:W1" else {**n, "title": "Unrelated", "text": "Unrelated"}
        for n in data["nodes"]
    ]
    cut = TriageEngine(project, KnowledgeIndex.from_dict(data)).triage("c", request)
    assert cut.effort.basis == ()


def test_a_string_freshness_still_builds_the_engine_from_an_index(tmp_path: Path) -> None:
    project = load_project(make(tmp_path / "p"))
    engine = TriageEngine(project, "sha256:given")
    assert engine.triage("c", "x").index_freshness == "sha256:given"
    assert [c.ref for c in engine.graph.clauses] == [c.ref for c in project.clauses]


def test_draft_clause_scores_lower_and_the_decision_says_so(tmp_path: Path) -> None:
    project = load_project(make(tmp_path / "p"))
    engine = TriageEngine(project, build_index(project))
    # the same text as a stable and as a draft clause: the stable one wins, at 2x
    d = engine.triage("c", "Please add online parking permit applications with document upload.")
    scores = dict(next(e for e in d.evidence if e.step == "score_clauses").scores)
    assert scores["MSA#4.1"] == pytest.approx(scores["AMD#2"] / DRAFT_WEIGHT, rel=1e-3)
    assert d.cited_clauses == ("MSA#4.1", "AMD#2")  # the draft only as the second citation
    draft_step = next(e for e in d.evidence if e.step == "draft_clauses")
    assert draft_step.scores == (("AMD#2", DRAFT_WEIGHT),)
    stable_only = engine.triage("c", "How is invoicing done, monthly?")
    assert "draft_clauses" not in [e.step for e in stable_only.evidence]
    assert not any("Draft clause" in a for a in stable_only.assumptions)
    # only a draft covers dog licences: it is found, cited and flagged
    dog = engine.triage(
        "c", "Please build online dog licence applications with vaccination records."
    )
    assert dog.cited_clauses[0] == "AMD#1"
    step = next(e for e in dog.evidence if e.step == "draft_clauses")
    assert step.scores == (("AMD#1", DRAFT_WEIGHT),)
    assert "pending amendment" in step.detail
    assert "Draft clause AMD#1 is adopted as written." in dog.assumptions
    assert dog.reasoning.endswith(
        "AMD#1 is a draft (a pending amendment), so this ruling "
        "rests on text that is not yet binding."
    )
    steps = [e.step for e in dog.evidence]
    assert steps.index("classify") < steps.index("draft_clauses") < steps.index("effort")
