"""The triage engine on a small hand-made trilingual project (en/tr/de), plus a smoke run
on the real tdrs engagement. No mocks: real Project values, real engine."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import unicodedata
from dataclasses import replace
from pathlib import Path

import pytest

from etki.domain import (
    ClauseMemory,
    Contract,
    Decision,
    Effort,
    Module,
    Project,
    ProjectConfig,
    ScopeClause,
    WorkItem,
)
from etki.triage import ENGINE_VERSION, MODEL_VERSION, TriageEngine, case_id_for
from etki.triage.classify import CEILING, FLOOR, Features, classify
from etki.triage.effort import percentile
from etki.triage.normalise import guess_language, tokens

REPO = Path(__file__).resolve().parent.parent
TDRS = REPO.parent / "shared" / "realdata" / "tdrs"

STEPS = (
    "normalise",
    "score_clauses",
    "exclusion_check",
    "defect_detection",
    "module_match",
    "classify",
    "sureness",
    "effort",
    "risk",
)
MEMORY_NOTE = "clause memory: 3 past PMO corrections — informational, no decision effect"


def _clause(number: str, title: str, text: str, kind: str = "inclusion") -> ScopeClause:
    return ScopeClause(
        ref=f"MSA#{number}", contract_id="MSA", number=number, title=title, text=text, kind=kind
    )  # type: ignore[arg-type]


CLAUSES = (
    _clause(
        "1",
        "Property tax e-payments",
        "The Contractor delivers online payment of property tax by card in the citizen "
        "portal, with a receipt for every payment.",
    ),
    _clause(
        "2",
        "Single sign-on for municipal staff",
        "The Contractor implements single sign-on for municipal staff against the "
        "Active Directory of the Municipality.",
    ),
    _clause(
        "3",
        "Native mobile applications",
        "Native mobile applications for iOS and Android and push notifications are excluded.",
        kind="exclusion",
    ),
    _clause(
        "4",
        "Hosting and operations",
        "The Municipality provides and operates the servers, storage, backups and "
        "monitoring in its own data centre.",
    ),
    _clause(
        "5",
        "Warranty and defect correction",
        "The Contractor corrects defects and bugs in delivered functionality free of "
        "charge for twelve months after acceptance.",
    ),
    _clause(
        "6",
        "Kişisel verilerin korunması (KVKK)",
        "Portal, KVKK kapsamında kişisel verilerin silinmesini ve anonimleştirilmesini "
        "destekler. İade başvurularında aydınlatma metni gösterilir.",
    ),
    _clause(
        "7",
        "Adressprüfung",
        "Das Portal prüft jede Adresse gegen das amtliche Straßenverzeichnis der Stadt; "
        "Umlaute und ß werden dabei korrekt verglichen.",
    ),
    _clause(
        "8",
        "Invoicing",
        "The Contractor invoices monthly; the Municipality pays each invoice within 30 "
        "days of acceptance.",
    ),
)

MODULES = (
    Module(
        "payments.property_tax",
        "src/payments/property_tax.py",
        "Property tax payment page and card checkout",
    ),
    Module("payments.receipts", "src/payments/receipts.py", "Payment receipts"),
    Module("portal.auth.sso", "src/portal/auth/sso.py", "Single sign-on against Active Directory"),
    Module("core.kvkk", "src/core/kvkk.py", "KVKK kişisel veri silme ve anonimleştirme"),
    Module("core.address", "src/core/address.py", "Adressprüfung gegen das Straßenverzeichnis"),
)

WORKITEMS = (
    WorkItem(
        "WI-1", "Property tax card checkout", "feature", "2024-01-10", ("payments.property_tax",)
    ),
    WorkItem(
        "WI-2",
        "Fix rounding on property tax receipts",
        "fix",
        "2024-02-11",
        ("payments.property_tax", "payments.receipts"),
    ),
    WorkItem("WI-3", "Single sign-on login loop", "fix", "2024-03-12", ("portal.auth.sso",)),
    WorkItem("WI-4", "Straßenverzeichnis import", "feature", "2024-04-13", ("core.address",)),
)


def make_project(workitems: tuple[WorkItem, ...] = WORKITEMS) -> Project:
    return Project(
        config=ProjectConfig(id="mini", name="Mini municipal portal", languages=("en", "tr", "de")),
        root=Path("."),
        contracts=(
            Contract(id="MSA", title="Master services agreement", source="msa.md", clauses=CLAUSES),
        ),
        modules=MODULES,
        workitems=workitems,
    )


@pytest.fixture(scope="module")
def engine() -> TriageEngine:
    return TriageEngine(make_project(), "sha256:test-index")


def _core(d: Decision) -> str:
    """The decision fields that memory and risk must never change, as canonical JSON."""
    data = d.to_dict()
    return json.dumps(
        {
            k: data[k]
            for k in ("verdict", "confidence", "cited_clauses", "impacted_modules", "effort")
        },
        sort_keys=True,
    )


# --- identity and determinism ---------------------------------------------------------


def test_case_id_for_format() -> None:
    cid = case_id_for("demo", "DEMO-001")
    digest = hashlib.sha256(b"demo\0DEMO-001").hexdigest()
    assert cid == f"req-demo-{digest[:8]}"
    assert re.fullmatch(r"req-demo-[0-9a-f]{8}", cid)
    assert case_id_for("demo", "DEMO-001") == cid
    assert case_id_for("demo", "DEMO-002") != cid
    assert case_id_for("other", "DEMO-001").startswith("req-other-")


def test_decision_records_versions_and_freshness(engine: TriageEngine) -> None:
    d = engine.triage("req-mini-1", "The property tax payment page crashes after card entry.")
    assert d.case_id == "req-mini-1"
    assert (
        (d.engine_version, d.model_version)
        == (ENGINE_VERSION, MODEL_VERSION)
        == ("3.3.1", "lexical-v1")
    )
    assert d.index_freshness == "sha256:test-index"
    assert Decision.from_json(d.to_json()) == d


REQUESTS = (
    ("The property tax payment page crashes after card entry.", None),
    ("Please build native iOS and Android apps with push notifications.", "Mobile app"),
    ("Can you take over the servers, storage and backups in our data centre?", None),
    ("KİŞİSEL VERİLERİN silinmesi çalışmıyor, KVKK başvurusu bekliyor.", None),
    ("Die Adressprüfung gegen das Straßenverzeichnis funktioniert nicht.", None),
    ("Please add a chatbot that answers citizens' questions.", None),
    ("", None),
)


def test_same_input_gives_byte_identical_json_across_instances(engine: TriageEngine) -> None:
    other = TriageEngine(make_project(), "sha256:test-index")
    for text, title in REQUESTS:
        first = engine.triage("req-mini-x", text, title).to_json()
        assert engine.triage("req-mini-x", text, title).to_json() == first
        assert other.triage("req-mini-x", text, title).to_json() == first


def test_every_stored_float_is_rounded(engine: TriageEngine) -> None:
    for text, title in REQUESTS:
        d = engine.triage("c", text, title)
        assert round(d.confidence, 4) == d.confidence
        for step in d.evidence:
            assert list(step.scores) == sorted(step.scores)
            for _, value in step.scores:
                assert round(value, 4) == value


_HASH_SCRIPT = """
import hashlib, sys
from etki.knowledge import build_index, load_project
from etki.triage import TriageEngine, case_id_for
p = load_project(sys.argv[1]); e = TriageEngine(p, build_index(p).hash)
h = hashlib.sha256()
for r in p.requests:
    h.update(e.triage(case_id_for(p.id, r.id), r.text, r.title).to_json().encode())
print(h.hexdigest())
"""


@pytest.mark.skipif(not TDRS.is_dir(), reason="shared/realdata/tdrs not present")
def test_decisions_do_not_depend_on_hash_seed() -> None:
    """Set and dict order must never leak into a decision: two processes with different
    PYTHONHASHSEED values give the same bytes for every tdrs request."""
    digests = set()
    for seed in ("1", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run(
            [sys.executable, "-c", _HASH_SCRIPT, str(TDRS)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        digests.add(out.stdout.strip())
    assert len(digests) == 1


def test_nfc_and_nfd_input_give_the_same_tokens_and_decision(engine: TriageEngine) -> None:
    for text, lang in (
        ("İade başvurusu: KİŞİSEL VERİLER silinmiyor", "tr"),
        ("Die Größe der Straßenverzeichnis-Prüfung", "de"),
        ("Café naïve résumé export", "en"),
    ):
        nfd = unicodedata.normalize("NFD", text)
        assert nfd != text
        assert tokens(nfd, lang) == tokens(text, lang)
        assert guess_language(nfd, ("en",)) == guess_language(text, ("en",)) == lang
        assert engine.triage("c", nfd).to_json() == engine.triage("c", text).to_json()


# --- languages ----------------------------------------------------------------------


def test_turkish_dotted_and_dotless_i_fold_together() -> None:
    variants = ("İADE", "IADE", "iade", "ıade", "I\u0307ADE")
    assert len({tokens(v, "tr") for v in variants}) == 1
    # inflected forms share the stem: veri / verileri / verilerin
    assert tokens("veri", "tr") == tokens("verileri", "tr") == tokens("VERİLERİN", "tr")


def test_turkish_request_matches_its_turkish_clause(engine: TriageEngine) -> None:
    upper = engine.triage("c", "KİŞİSEL VERİLERİN SİLİNMESİ talebimiz KVKK'ya göre işlenmedi")
    ascii_ = engine.triage("c", "kisisel verilerin silinmesi talebimiz kvkk ya gore islenmedi")
    assert upper.cited_clauses[0] == "MSA#6"
    assert ascii_.cited_clauses == upper.cited_clauses
    assert "core.kvkk" in upper.impacted_modules
    assert "personal_data" in upper.risk.signals and upper.risk.pmo_look_24h
    assert dict(upper.extra)["language"] == "tr"


def test_german_sharp_s_and_umlauts_match_their_clause(engine: TriageEngine) -> None:
    proper = engine.triage(
        "c", "Die Adressprüfung gegen das Straßenverzeichnis funktioniert nicht mehr."
    )
    shouted = engine.triage(
        "c", "DIE ADRESSPRUFUNG GEGEN DAS STRASSENVERZEICHNIS FUNKTIONIERT NICHT MEHR."
    )
    assert proper.cited_clauses[0] == "MSA#7"
    # the same decision; only the quoted wording is each request's own spelling
    assert "“funktioniert nicht”, “nicht mehr”" in proper.to_json()
    assert shouted.to_json() == proper.to_json().replace(
        "“funktioniert nicht”, “nicht mehr”", "“FUNKTIONIERT NICHT”, “NICHT MEHR”"
    )
    assert proper.verdict == "IN_SCOPE"  # a defect in a covered area
    assert "core.address" in proper.impacted_modules
    assert dict(proper.extra)["language"] == "de"


def test_evidence_quotes_the_wording_as_the_request_writes_it(engine: TriageEngine) -> None:
    text = "Güvenlik açığı: ŞİFRE sıfırlama sayfası ÇALIŞMIYOR, Größe der Datei"
    d = engine.triage("c", text)
    steps = {s.step: s.detail for s in d.evidence}
    assert "“ŞİFRE”" in steps["risk"] and "“Güvenlik”" in steps["risk"]
    assert "“ÇALIŞMIYOR”" in steps["defect_detection"]
    assert "guvenlik" not in d.to_json() and "calismiyor" not in d.to_json()
    nfd = unicodedata.normalize("NFD", text)
    assert engine.triage("c", nfd).to_json() == d.to_json()  # quoted in NFC either way


# --- verdicts -------------------------------------------------------------------------


def test_defect_in_covered_area_is_in_scope(engine: TriageEngine) -> None:
    d = engine.triage(
        "c", "The property tax payment page crashes after card entry; citizens cannot pay."
    )
    assert d.verdict == "IN_SCOPE"
    assert dict(d.extra)["rule"] == "defect"
    assert d.cited_clauses[0] == "MSA#1"
    assert "MSA#5" in d.cited_clauses  # the warranty clause puts defects in scope
    assert d.impacted_modules[0] == "payments.property_tax"
    assert "defect" in d.reasoning


def test_exclusion_beats_inclusion(engine: TriageEngine) -> None:
    """The request also matches the payment inclusion clause, but the exclusion clause
    matches it better: REJECT, citing the exclusion first."""
    d = engine.triage(
        "c",
        "Please build native mobile applications for iOS and Android "
        "so citizens can pay property tax by card with push notifications.",
    )
    assert d.verdict == "REJECT"
    assert d.cited_clauses[0] == "MSA#3"
    assert d.impacted_modules == ()
    assert d.effort == Effort(None, None)
    check = next(e for e in d.evidence if e.step == "exclusion_check")
    assert dict(check.scores)["against"] > dict(check.scores)["obligation"]


def test_work_the_contract_gives_the_client_is_rejected(engine: TriageEngine) -> None:
    d = engine.triage(
        "c",
        "Can your team operate our servers, storage and backups in the data centre from now on?",
    )
    assert d.verdict == "REJECT"
    assert d.cited_clauses[0] == "MSA#4"


def test_contract_administration_is_rejected(engine: TriageEngine) -> None:
    d = engine.triage("c", "Our invoice for March was returned; please resubmit the invoice.")
    assert d.verdict == "REJECT"
    assert dict(d.extra)["rule"] == "administration"
    assert d.cited_clauses == ("MSA#8",)


def test_new_capability_no_clause_covers_is_a_change_request(engine: TriageEngine) -> None:
    d = engine.triage("c", "Please add a chatbot that answers citizens' questions.")
    assert d.verdict == "CHANGE_REQUEST"
    assert d.effort.known is False


def test_covered_request_is_in_scope(engine: TriageEngine) -> None:
    d = engine.triage(
        "c", "Municipal staff need single sign-on against the Active Directory of the Municipality."
    )
    assert d.verdict == "IN_SCOPE"
    assert d.cited_clauses[0] == "MSA#2"


def test_empty_request_does_not_raise(engine: TriageEngine) -> None:
    d = engine.triage("c", "")
    assert d.verdict == "CHANGE_REQUEST"
    assert d.cited_clauses == ()


def test_evidence_chain_has_every_step_in_order(engine: TriageEngine) -> None:
    d = engine.triage("c", "The property tax payment page crashes.")
    assert tuple(e.step for e in d.evidence) == STEPS
    assert d.assumptions and all(a.endswith(".") for a in d.assumptions)
    assert d.reasoning.endswith(".")


def test_confidence_is_bounded(engine: TriageEngine) -> None:
    for text, title in REQUESTS:
        assert 0.0 <= engine.triage("c", text, title).confidence <= 1.0
    grid = (0.0, 0.05, 0.3, 1.0, 5.0, 50.0)
    for a in grid:
        for b in grid:
            for cov in (0.0, 0.1, 0.3, 1.0):
                for f in (
                    Features(incl=a, against=b, incl_cov=cov, against_cov=cov),
                    Features(incl=a, future=b, incl_cov=cov, future_cov=cov, foreign=True),
                    Features(defect_strong=a, incl=b, incl_cov=cov, modules=1),
                    Features(advice=a, admin_request=1, admin=b, incl=a),
                ):
                    c = classify(f)
                    assert FLOOR <= c.confidence <= CEILING
                    assert 0.0 <= c.confidence <= 1.0


# --- effort -------------------------------------------------------------------------


def test_effort_unknown_when_no_work_item_carries_effort(engine: TriageEngine) -> None:
    d = engine.triage("c", "The property tax payment page crashes after card entry.")
    assert d.effort == Effort(None, None)
    assert d.effort.label() == "unknown"


def test_effort_range_from_comparable_work_items() -> None:
    items = (
        replace(WORKITEMS[0], effort_days=2.0),
        replace(WORKITEMS[1], effort_days=4.0),
        WorkItem(
            "WI-5",
            "Property tax instalment plans",
            "feature",
            "2024-05-01",
            ("payments.property_tax",),
            6.0,
        ),
        WorkItem(
            "WI-6",
            "Property tax refund flow",
            "feature",
            "2024-06-01",
            ("payments.property_tax",),
            10.0,
        ),
        replace(WORKITEMS[2], effort_days=40.0),  # single sign-on: not comparable
        WORKITEMS[3],  # no effort
    )
    d = TriageEngine(make_project(items), "h").triage(
        "c", "The property tax payment page crashes after card entry."
    )
    assert d.impacted_modules[0] == "payments.property_tax"
    # 25th/75th percentile of [2, 4, 6, 10] by linear interpolation: 3.5 and 7.0
    assert (d.effort.low, d.effort.high) == (3.5, 7.0)
    assert d.effort.basis == ("WI-1", "WI-2", "WI-5", "WI-6")
    assert d.effort.label() == "3.5–7 person-days"


def test_percentile_matches_the_textbook_values() -> None:
    assert percentile([1, 2, 3, 4], 25) == 1.75
    assert percentile([1, 2, 3, 4], 75) == 3.25
    assert percentile([5], 25) == 5
    with pytest.raises(ValueError):
        percentile([], 50)


# --- memory and risk ------------------------------------------------------------------


def test_clause_memory_is_a_note_that_changes_no_decision_field(engine: TriageEngine) -> None:
    text = "The property tax payment page crashes after card entry."
    plain = engine.triage("c", text)
    cited = plain.cited_clauses[0]
    remembered = engine.with_memory({cited: ClauseMemory(cited, precedent_count=3)})
    built = TriageEngine(
        make_project(), "sha256:test-index", memory={cited: ClauseMemory(cited, precedent_count=3)}
    )
    for other in (remembered, built):
        d = other.triage("c", text)
        assert _core(d) == _core(plain)
        assert d.risk == plain.risk
        assert d.evidence[:-1] == plain.evidence
        assert d.evidence[-1].step == "memory"
        assert d.evidence[-1].detail == MEMORY_NOTE
        assert d.evidence[-1].scores == ((cited, 3.0),)
    # memory of a clause the decision does not cite adds nothing
    quiet = engine.with_memory({"MSA#3": ClauseMemory("MSA#3", precedent_count=5)})
    assert quiet.triage("c", text).to_json() == plain.to_json()


def test_disputed_clause_escalates_risk_only_when_enabled(engine: TriageEngine) -> None:
    text = "Municipal staff need single sign-on against the Active Directory."
    plain = engine.triage("c", text)
    ref = plain.cited_clauses[0]
    memory = {ref: ClauseMemory(ref, precedent_count=1, disputed=True)}
    on = engine.with_memory(memory, disputed_escalation=True).triage("c", text)
    off = engine.with_memory(memory, disputed_escalation=False).triage("c", text)
    assert plain.risk.signals == () and plain.risk.pmo_look_24h is False
    assert on.risk.signals == ("disputed_clause",)
    assert on.risk.pmo_look_24h is True and on.risk.level == "high"
    assert off.risk == plain.risk
    for d in (on, off):
        assert _core(d) == _core(plain)
        assert [e.step for e in d.evidence[-2:]] == ["memory", "memory"]
        assert d.evidence[-2].detail == (
            "clause memory: 1 past PMO corrections — informational, no decision effect"
        )
    assert on.evidence[-1].detail == (
        f"clause memory: {ref} is disputed, past rulings on it "
        "disagree — escalated to the risk layer; no decision effect"
    )
    assert "note only" in off.evidence[-1].detail


def test_memory_computed_from_ruled_cases_changes_no_decision_field(engine: TriageEngine) -> None:
    """Clause memory as the desk builds it (``etki.memory.clause_memory`` over ruled
    cases): one override and one approval on the cited clause = 1 precedent, disputed."""
    from etki.domain import CaseRecord, RulingRecord
    from etki.memory import clause_memory

    text = "The property tax payment page crashes after card entry."
    plain = engine.triage("req-mini-new", text)
    ref = plain.cited_clauses[0]

    def ruled(case_id: str, ruling: str, when: str) -> CaseRecord:
        decision = engine.triage(case_id, text)
        return CaseRecord(
            case_id,
            "mini",
            case_id,
            "t",
            text,
            None,
            None,
            when,
            2,
            decision,
            RulingRecord(
                case_id,
                ruling,
                "approve",
                "ayse",
                "r",
                when,  # type: ignore[arg-type]
                decision.verdict,
            ),
        )

    memory = clause_memory(
        [
            ruled("req-mini-a", "IN_SCOPE", "2026-11-01T10:00:00Z"),
            ruled("req-mini-b", "CHANGE_REQUEST", "2026-11-02T10:00:00Z"),
        ]
    )
    assert memory[ref].precedent_count == 1 and memory[ref].disputed
    n = len(plain.evidence)
    for escalation in (True, False):
        d = engine.with_memory(memory, escalation).triage("req-mini-new", text)
        assert _core(d) == _core(plain)
        assert d.evidence[: n - 1] == plain.evidence[:-1]  # only risk and memory may differ
        notes = [e for e in d.evidence[n:] if e.scores[0][0] == ref]
        assert [e.step for e in d.evidence[n:]] == ["memory"] * len(d.evidence[n:])
        assert notes[0].detail == (
            "clause memory: 1 past PMO corrections — informational, no decision effect"
        )
        assert "is disputed" in notes[1].detail
        assert ("disputed_clause" in d.risk.signals) is escalation


def test_risk_signals_from_wording(engine: TriageEngine) -> None:
    sec = engine.triage("c", "The single sign-on leaks the session token and password.")
    assert sec.risk.signals == ("security",) and sec.risk.pmo_look_24h
    assert sec.risk.level == "medium"
    both = engine.triage("c", "Passwords and personal data (GDPR) of citizens are exposed.")
    assert both.risk.signals == ("security", "personal_data") and both.risk.level == "high"
    de = engine.triage("c", "Personenbezogene Daten werden ohne DSGVO-Löschung gespeichert.")
    assert "personal_data" in de.risk.signals
    calm = engine.triage("c", "Please add a chatbot that answers citizens' questions.")
    assert calm.risk.signals == () and calm.risk.level == "low" and not calm.risk.pmo_look_24h


# --- the real engagement ---------------------------------------------------------------


@pytest.mark.skipif(not TDRS.is_dir(), reason="shared/realdata/tdrs not present")
def test_tdrs_thirty_requests_give_valid_decisions() -> None:
    """Shape of the 30 real decisions (speed lives in bench/triage.py, not here)."""
    from etki.knowledge import build_index, load_project

    project = load_project(TDRS)
    engine = TriageEngine(project, build_index(project).hash)
    decisions = [
        engine.triage(case_id_for(project.id, r.id), r.text, r.title) for r in project.requests
    ]
    assert len(decisions) == 30
    refs = {c.ref for c in project.clauses}
    modules = {m.id for m in project.modules}
    for d in decisions:
        assert set(d.cited_clauses) <= refs
        assert set(d.impacted_modules) <= modules
        assert d.effort == Effort(None, None)  # tdrs work items carry no effort_days
