"""The ``remit_category`` rule (engine 3.3.0, issue 29): a request for non-delivery work
(equipment, paper records, staff on site, ...) that the contract puts only in its
exclusion or client-duty sentences is a REJECT, whatever language the request is in;
never sure, the sentence quoted."""

from __future__ import annotations

from pathlib import Path

from etki.domain import Contract, Project, ProjectConfig, ScopeClause
from etki.triage import TriageEngine
from etki.triage.classify import Classification
from etki.triage.contract import Sentence
from etki.triage.normalise import cue_words
from etki.triage.remit_category import apply, outside_categories
from etki.triage.sureness import KIND_CONFIDENCE
from tests.test_triage import CLAUSES, MODULES, WORKITEMS

ARCHIVE = ScopeClause(
    ref="MSA#9",
    contract_id="MSA",
    number="9",
    title="Paper archives",
    text="Scanning or migrating paper archives into the portal is excluded.",
    kind="exclusion",
)


def _engine(*extra: ScopeClause) -> TriageEngine:
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


def _s(text: str, role: str) -> Sentence:
    return Sentence(0, text, role)


def test_a_category_is_outside_only_when_no_obligation_holds_it() -> None:
    excluded = _s("Supply of hardware is excluded.", "exclusion")
    client = _s("The client provides the printers.", "client")
    asked = _s("The Contractor installs the hardware.", "obligation")
    assert outside_categories([excluded, client]) == {"hardware": 0}
    assert outside_categories([excluded, asked]) == {}
    assert outside_categories([_s("Hardware is nice.", "context")]) == {}


def test_only_topic_or_no_evidence_verdicts_are_replaced() -> None:
    words = cue_words("Bitte die Drucker liefern")
    outside = {"hardware": 3}
    for rule in ("covered", "partial", "new_capability", "uncovered"):
        verdict = "CHANGE_REQUEST" if rule in ("new_capability", "uncovered") else "IN_SCOPE"
        result, found = apply(Classification(verdict, 0.5, rule), words, outside)
        assert (result.verdict, result.rule, found) == ("REJECT", "remit_category", ("hardware", 3))
    for rule in ("defect", "named_exclusion", "advice", "administration", "future_work"):
        c = Classification("IN_SCOPE", 0.5, rule)
        assert apply(c, words, outside) == (c, None)
    c = Classification("IN_SCOPE", 0.5, "partial")
    assert apply(c, cue_words("Bitte die Drucker liefern"), {}) == (c, None)


def test_a_turkish_request_meets_the_english_exclusion_by_its_category() -> None:
    """No Turkish word of the request is in the contract; 'taranması' (scanning) is of
    the paper-records category, which clause 9 excludes and no obligation asks for."""
    d = _engine(ARCHIVE).triage("c", "Eski dosyaların taranması ve portala yüklenmesi lazım.")
    assert (d.verdict, d.sure, d.evidence_kind) == ("REJECT", False, "category")
    assert d.confidence == KIND_CONFIDENCE["category"]
    assert d.cited_clauses[0] == "MSA#9"
    assert any("records work" in doubt and "MSA#9 “Scanning" in doubt for doubt in d.doubts)
    assert "MSA#9" in d.reasoning and d.impacted_modules == ()


def test_a_defect_report_or_an_obligation_keeps_its_verdict() -> None:
    engine = _engine(ARCHIVE)
    d = engine.triage("c", "The scanning page crashes with an error when I pay property tax.")
    assert d.verdict == "IN_SCOPE" and d.evidence_kind != "category"
    asked = ScopeClause(
        ref="MSA#10",
        contract_id="MSA",
        number="10",
        title="Archive",
        text="The Contractor digitises the paper permits of the last year.",
    )
    d = _engine(ARCHIVE, asked).triage("c", "Eski dosyaların taranması lazım.")
    assert d.evidence_kind != "category"
