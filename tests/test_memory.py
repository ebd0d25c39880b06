"""Precedents, disputed clauses and clause memory from stored cases."""

from __future__ import annotations

from datetime import UTC, datetime

from etki import memory
from etki.store import CaseFileRepository
from tests.factories import make_decision, make_project, make_request


def test_disputed_and_precedents(tmp_path):
    moments = iter(datetime(2026, 11, d, 9, 0, tzinfo=UTC) for d in range(1, 30))
    repo = CaseFileRepository(f"sqlite:///{tmp_path}/etki.db", clock=lambda: next(moments))
    repo.save_project(make_project(), "sha256:abc", b"{}\n")
    repo.add_cases(
        "demo",
        [
            (make_request("R1"), make_decision("req-demo-1", "IN_SCOPE", ("MSA#3.2",))),
            (make_request("R2"), make_decision("req-demo-2", "IN_SCOPE", ("MSA#3.2", "MSA#4.1"))),
            (make_request("R3"), make_decision("req-demo-3", "IN_SCOPE", ("MSA#4.1",))),
            (make_request("R4"), make_decision("req-demo-4", "REJECT", ("MSA#3.2",))),
        ],
    )
    repo.record_ruling("req-demo-1", "approve", "ayse", "")
    repo.record_ruling("req-demo-2", "reject", "jurgen", "hosting is the client's")
    repo.record_ruling("req-demo-3", "approve", "ayse", "")
    cases = repo.cases("demo")

    assert [c.case_id for c in memory.precedents(cases)] == ["req-demo-2"]
    disputed = memory.disputed_clauses(cases)
    assert [d.ref for d in disputed] == ["MSA#3.2", "MSA#4.1"]
    assert disputed[0].rulings == ("IN_SCOPE", "REJECT")
    assert [h[0] for h in disputed[0].history] == ["req-demo-1", "req-demo-2"]

    mem = memory.clause_memory(cases)
    assert mem["MSA#3.2"].precedent_count == 1
    assert mem["MSA#3.2"].last_correction.reviewer == "jurgen"
    assert "MSA#9.1" not in mem  # cited by no ruled case


def test_agreeing_rulings_are_not_disputed(tmp_path):
    repo = CaseFileRepository(f"sqlite:///{tmp_path}/etki.db")
    repo.save_project(make_project(), "sha256:abc", b"{}\n")
    repo.add_cases(
        "demo", [(make_request(f"R{i}"), make_decision(f"req-demo-{i}")) for i in range(3)]
    )
    for i in range(3):
        repo.record_ruling(f"req-demo-{i}", "approve", "ayse", "")
    assert memory.disputed_clauses(repo.cases("demo")) == []
    assert memory.clause_memory(repo.cases("demo"))["MSA#3.2"].precedent_count == 0
