"""Precedents, disputed clauses and clause memory from stored cases."""

from __future__ import annotations

from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path

import pytest

from etki import memory
from etki.config import Settings
from etki.domain import deciding_ref
from etki.services import init_project
from etki.store import CaseFileRepository
from etki.store.repository.rows import decision_summary
from tests.factories import frozen_clock, make_decision, make_project, make_request
from tests.pg import fresh_schema


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


def _deciding(case_id: str, verdict: str, cited: tuple[str, ...], deciding: str):  # noqa: ANN202
    """A decision whose classify step names ``deciding`` as its deciding sentence, as
    the engine writes it (etki.triage.engine)."""
    from dataclasses import replace

    from etki.domain import EvidenceStep

    d = make_decision(case_id, verdict, cited)
    step = EvidenceStep(
        "classify",
        f"rule full -> {verdict} (confidence 0.80); deciding sentence: {deciding} "
        "(obligation, role rule: contractor obligation (default))",
    )
    return replace(d, evidence=(*d.evidence, step))


def test_a_ruling_disputes_only_the_clauses_it_is_about(tmp_path):
    """A tdrs trial: an approval and a CR on two cases that both cite the generic 2.1
    ("Scope") besides their own clauses made 2.1 disputed, and with it 25 of 28 pending
    cases. A ruling is about the cited clauses its reason names, else its decisive
    clause, else every cited clause; only rulings about a clause dispute it. The wiki's
    model counts the same way (tests/test_wiki_*: rebuild == projection)."""
    from etki.domain import CaseBrief
    from etki.memory import case_about, ruled_about

    repo = CaseFileRepository(f"sqlite:///{tmp_path}/etki.db")
    repo.save_project(make_project(), "sha256:abc", b"{}\n")
    generic, mine, theirs = "MSA#2.1", "MSA#3.1", "MSA#3.2"
    repo.add_cases(
        "demo",
        [
            (make_request("R1"), _deciding("req-demo-1", "IN_SCOPE", (mine, generic), mine)),
            (make_request("R2"), _deciding("req-demo-2", "IN_SCOPE", (theirs, generic), theirs)),
            (make_request("R3"), _deciding("req-demo-3", "IN_SCOPE", (theirs, generic), theirs)),
            (make_request("R4"), make_decision("req-demo-4", "IN_SCOPE", (generic,))),
        ],
    )
    repo.record_ruling("req-demo-1", "approve", "ayse", "")
    repo.record_ruling("req-demo-2", "convert_to_cr", "jurgen", "new screens: extra work")
    cases = {c.case_id: c for c in repo.cases("demo")}
    assert case_about(cases["req-demo-1"]) == (mine,)
    assert case_about(cases["req-demo-2"]) == (theirs,)
    assert CaseBrief.of(cases["req-demo-2"]).decision.deciding == theirs
    mem = memory.clause_memory(cases.values())
    assert not mem[generic].disputed  # cited by both, about neither
    assert [h[0] for h in mem[generic].history] == ["req-demo-1", "req-demo-2"]  # still shown
    assert memory.disputed_clauses(cases.values()) == []
    # the CR is a correction of 3.2, the clause it is about, not of 2.1
    assert mem[theirs].precedent_count == 1 and mem[theirs].last_correction.reviewer == "jurgen"
    assert mem[generic].precedent_count == 0 and mem[generic].last_correction is None

    # a reason that names the generic clause makes the ruling about it: now disputed
    repo.record_ruling("req-demo-3", "reject", "jurgen", "2.1 excludes this")
    cases = {c.case_id: c for c in repo.cases("demo")}
    assert case_about(cases["req-demo-3"]) == (generic,)
    assert ruled_about((theirs, generic), "see MSA#3.2 and 2.1", theirs) == (theirs, generic)
    # 2.1's rulings about it: REJECT (req-demo-3) alone, so still not disputed ...
    assert not memory.clause_memory(cases.values())[generic].disputed
    correction = memory.clause_memory(cases.values())[generic].last_correction
    assert correction.reason == "2.1 excludes this"  # now a correction of 2.1
    # ... until an approval that names it too
    repo.record_ruling("req-demo-4", "approve", "ayse", "")  # no deciding step: all cited
    cases = {c.case_id: c for c in repo.cases("demo")}
    assert case_about(cases["req-demo-4"]) == (generic,)
    [item] = memory.disputed_clauses(cases.values())
    assert item.ref == generic and item.rulings == ("IN_SCOPE", "REJECT")


@pytest.mark.parametrize("store", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_the_queue_rows_dispute_as_the_full_records_do(tmp_path, store):
    """A fresh helper's trial on tdrs: the desk builds its clause memory from the light
    queue rows, which had no evidence, so every clause a ruled case cites was taken as
    what its ruling is about and 25 of 28 rows read DISPUTED while ``etki dispute list``
    said none. A queue row now carries its decisive clause (read in SQL on SQLite, from
    the JSON text elsewhere): both reads give the same memory."""
    tdrs = Path(__file__).resolve().parents[2] / "shared" / "realdata" / "tdrs"
    if not tdrs.is_dir():
        pytest.skip("../shared/realdata/tdrs is not beside the checkout")
    settings = Settings(db_url=f"sqlite:///{tmp_path}/etki.db", wiki_dir=None, reviewer="ayse")
    with ExitStack() as pg:  # the PostgreSQL schema, dropped at the end
        if store == "sqlite":
            repo = CaseFileRepository(settings.db_url)
        else:  # a fresh schema of tests/pg.py (skipped cleanly when absent)
            schema = pg.enter_context(fresh_schema())
            repo = CaseFileRepository(schema.engine(), clock=frozen_clock)
        try:
            _dispute_parity(repo, settings, tdrs)
        finally:
            repo.dispose()


def _dispute_parity(repo, settings, tdrs):  # noqa: ANN001, ANN202
    init_project(tdrs, repo, settings)
    repo.record_ruling("req-tdrs-fff0605c", "approve", "ayse", "")
    repo.record_ruling(
        "req-tdrs-ba01dfb3", "convert_to_cr", "ayse", "Error banner wording change is new work"
    )
    full = memory.clause_memory(repo.cases("tdrs"))
    light = memory.clause_memory(repo.case_summaries("tdrs"))
    assert full == light
    assert not any(m.disputed for m in full.values())  # two rulings about two clauses
    for case in repo.cases("tdrs"):
        expect = deciding_ref(
            ((e.step, e.detail) for e in case.decision.evidence), case.decision.cited_clauses
        )
        d = case.decision
        other = decision_summary(d.to_json(), d.verdict, d.confidence)  # the PostgreSQL read
        assert other.deciding == expect, case.case_id
    rows = {s.case_id: s.decision.deciding for s in repo.case_summaries("tdrs")}
    assert rows["req-tdrs-ba01dfb3"] == "tdrs-rfq#3.2"
