"""The evidence text has one owner (issue 31): what :mod:`etki.domain.evidence` writes,
it reads back, for every value a decision can carry."""

from __future__ import annotations

import json

from etki.domain import EvidenceStep
from etki.domain.evidence import (
    DECIDING,
    deciding_clause_text,
    deciding_in_json,
    deciding_ref,
    risk_wording,
    risk_wording_text,
)


def test_the_deciding_clause_is_read_back_longest_ref_first() -> None:
    detail = "rule covered -> IN_SCOPE (confidence 0.70)" + deciding_clause_text(
        "MSA#4.8.1", "obligation", "modal verb"
    )
    assert detail.endswith("; deciding sentence: MSA#4.8.1 (obligation, role rule: modal verb)")
    steps = (("normalise", "x"), ("classify", detail))
    assert deciding_ref(steps, ["MSA#4.8", "MSA#4.8.1"]) == "MSA#4.8.1"
    assert deciding_ref(steps, ["MSA#4.8"]) is None  # 4.8 is not 4.8.1


def test_the_deciding_clause_is_read_from_stored_json_even_when_cut() -> None:
    step = EvidenceStep(
        "classify", "rule defect -> IN_SCOPE" + deciding_clause_text("tdrs-rfq#5.5", "a", "b")
    )
    text = json.dumps({"evidence": [[step.step, step.detail]]}, ensure_ascii=False)
    assert deciding_in_json(text, ["tdrs-rfq#5.5"]) == "tdrs-rfq#5.5"
    cut = text[text.find(DECIDING) :][:40]  # what the queue's SQL cuts out
    assert deciding_in_json(cut, ["tdrs-rfq#5.5"]) == "tdrs-rfq#5.5"
    assert deciding_in_json(None, ["tdrs-rfq#5.5"]) is None


def test_the_risk_wording_round_trips_client_words() -> None:
    words = ("şifre", "Passwort", "yetkisiz erişim", "[red]x[/red]")
    detail = f"medium: {risk_wording_text(words)} -> PMO look within 24h; the risk layer ..."
    assert risk_wording((EvidenceStep("risk", detail),)) == words
    assert risk_wording((EvidenceStep("risk", "low: no security signal"),)) == ()
    assert risk_wording(()) == ()
