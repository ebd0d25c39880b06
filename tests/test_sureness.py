"""Sureness (issue 29 items 3 and 4): which kind of evidence decided, whether it is plain
enough to be sure, and why not; each case against the verdict a contract reader would give."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from etki.domain import Contract, Decision, Project, ProjectConfig, ScopeClause
from etki.triage import TriageEngine
from etki.triage.sureness import KIND_CONFIDENCE, KINDS, SURE_KINDS, assess_sureness
from tests.test_triage import CLAUSES, MODULES, WORKITEMS, make_project


@pytest.fixture(scope="module")
def engine() -> TriageEngine:
    return TriageEngine(make_project(), "sha256:test-index")


def _step(d: Decision) -> str:
    return next(e.detail for e in d.evidence if e.step == "sureness")


def test_every_kind_has_one_documented_confidence() -> None:
    assert set(KIND_CONFIDENCE) == set(KINDS)
    assert set(KINDS) > SURE_KINDS
    assert all(0.0 < c < 1.0 for c in KIND_CONFIDENCE.values())


def test_a_defect_report_in_delivered_scope_is_sure(engine: TriageEngine) -> None:
    d = engine.triage("c", "The property tax payment page crashes with an error.")
    assert (d.verdict, d.sure, d.evidence_kind, d.doubts) == ("IN_SCOPE", True, "defect", ())
    assert d.confidence == KIND_CONFIDENCE["defect"]
    assert _step(d).startswith("sure (defect): ")


def test_a_named_exclusion_decides_reject_with_its_sentence(engine: TriageEngine) -> None:
    """Clause 3 excludes native iOS and Android apps: a request for exactly that."""
    d = engine.triage("c", "Build native mobile applications for iOS and Android.")
    assert d.verdict == "REJECT" and d.sure and d.evidence_kind == "exclusion"
    assert d.cited_clauses[0] == "MSA#3"
    assert "MSA#3 “Native mobile applications for iOS and Android" in _step(d)


def test_topic_overlap_alone_is_never_sure(engine: TriageEngine) -> None:
    d = engine.triage("c", "Could the receipt mention the municipality?")
    assert not d.sure and d.evidence_kind in ("topic", "new", "none")
    assert d.doubts and _step(d).startswith("needs a careful look (")


def _engine_with(*extra: ScopeClause) -> TriageEngine:
    project = Project(
        config=ProjectConfig(id="mini", name="Mini", languages=("en",)),
        root=Path("."),
        contracts=(
            Contract(id="MSA", title="MSA", source="msa.md", clauses=(*CLAUSES[:5], *extra)),
        ),
        modules=MODULES,
        workitems=WORKITEMS,
    )
    return TriageEngine(project, "sha256:test-index")


def test_a_lead_in_or_a_label_names_nothing() -> None:
    """A trial: 'The System must:' and a list label 'Cloud deployment' made 'host it in
    your cloud' a sure IN_SCOPE. Neither states what is in or out."""
    lead = ScopeClause(
        ref="MSA#9",
        contract_id="MSA",
        number="9",
        title="System",
        text="The System must:\n\n- Cloud deployment\n- Deployed",
        kind="inclusion",
    )
    d = _engine_with(lead).triage("c", "Please move the system to cloud deployment.")
    assert not (d.sure and d.evidence_kind == "named")
    assert "“The System must:”" not in _step(d) and "“Cloud deployment”" not in _step(d)


def test_an_exclusion_in_the_clause_that_covers_it_is_weighed() -> None:
    sso = ScopeClause(
        ref="MSA#2",
        contract_id="MSA",
        number="2",
        title="Single sign-on for municipal staff",
        text="The Contractor implements single sign-on for municipal staff against the "
        "Active Directory of the Municipality. Other identity providers, domains or user "
        "populations are not included.",
        kind="inclusion",
    )
    clauses = tuple(sso if c.ref == "MSA#2" else c for c in CLAUSES)
    project = replace(
        make_project(),
        contracts=(Contract(id="MSA", title="MSA", source="msa.md", clauses=clauses),),
    )
    d = TriageEngine(project, "sha256:t").triage(
        "c", "Single sign-on for municipal staff should also accept Google logins."
    )
    assert d.verdict == "IN_SCOPE" and not d.sure
    assert any("Other identity providers, domains or user populations" in x for x in d.doubts)


def test_a_foreign_request_says_whether_anything_read_the_contract() -> None:
    unread = assess_sureness(
        "uncovered",
        placed=False,
        obligation=None,
        against=None,
        future=None,
        weighed=None,
        foreign="de",
    )
    assert "no embedding model is set" in unread.doubts[-1]
    read = assess_sureness(
        "uncovered",
        placed=False,
        obligation=None,
        against=None,
        future=None,
        weighed=None,
        foreign="de",
        by_meaning=True,
    )
    assert "read by meaning" in read.doubts[-1]


def test_decisions_of_an_earlier_engine_keep_their_bytes_and_are_not_sure(
    engine: TriageEngine,
) -> None:
    d = engine.triage("c", "The property tax payment page crashes.")
    old = replace(d, sure=False, evidence_kind="", doubts=())
    assert '"sure"' not in old.to_json() and '"evidence_kind"' not in old.to_json()
    again = Decision.from_json(old.to_json())
    assert not again.sure and again.to_dict()["sure"] is False
    assert Decision.from_json(d.to_json()) == d


def test_placed_by_meaning_reads_which_group_is_nearest_not_how_near() -> None:
    from etki.triage.by_meaning import placed_by_meaning

    assert placed_by_meaning({"obligation": (0.84, 3), "against": (0.83, 1)})
    assert not placed_by_meaning({"obligation": (0.82, 3), "against": (0.83, 1)})
    assert not placed_by_meaning({"obligation": (0.80, 3), "admin": (0.81, 0)})
    assert not placed_by_meaning({})  # the model did not read the request
    # a tie goes to the group listed first (obligation)
    assert placed_by_meaning({"against": (0.83, 1), "obligation": (0.83, 3)})
