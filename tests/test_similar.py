"""Memory beside the verdict (issue 10, item 6): similar rulings and the memory verdict.

A real project folder (the sample's contract, modules and work items, with requests
written here), a real SQLite file, rulings through the real services; ``etki triage``
and ``etki eval triage --replay`` as real subprocesses. Nothing is mocked.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import unicodedata
from dataclasses import replace
from pathlib import Path

import pytest

from etki.config import Settings
from etki.domain import Decision, SimilarRuling, memory_sentence
from etki.services import Desk, init_project, stored_triage
from etki.store import CaseFileRepository
from etki.triage import case_id_for
from etki.triage.similar import (
    MAJORITY_SHARE,
    SIMILARITY_MIN,
    RuledRequest,
    RulingIndex,
    memory_verdict,
    request_text,
)
from tests.cli_support import run_etki

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_project"

RECEIPT_TAX = (
    "Receipt download fails",
    "Downloading the PDF receipt after a property tax payment fails with error 500.",
)
RECEIPT_WATER = (
    "Receipt download fails again",
    "Downloading the PDF receipt after a water bill payment fails with error 500.",
)
RECEIPT_QUERY = (
    "Downloading the PDF receipt after an environmental cleaning tax payment fails with error 500."
)
MOBILE = ("Native phone app", "Please build a native iPhone app for the portal.")
TURKISH = (
    "Makbuz indirilemiyor",
    (
        "Emlak vergisi ödemesinden sonra PDF makbuzu İNDİRİLEMİYOR, ekranda hata 500 "
        "görünüyor; vatandaşlar şikâyetçi."
    ),
)
GERMAN = (
    "Straßenlaternen melden",
    (
        "Bürger möchten defekte Straßenlaternen über das Portal melden können; die "
        "Meldung soll an das Bauamt gehen."
    ),
)


def _folder(tmp: Path, requests: list[dict]) -> Path:
    """The sample project folder with ``requests`` as its requests.jsonl."""
    folder = tmp / "project"
    shutil.copytree(SAMPLE, folder)
    with (folder / "requests.jsonl").open("w", encoding="utf-8") as out:
        for row in requests:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return folder


def _requests() -> list[dict]:
    nfd = unicodedata.normalize("NFD", TURKISH[1])
    assert nfd != TURKISH[1]
    return [
        {"id": "M-1", "title": RECEIPT_TAX[0], "text": RECEIPT_TAX[1]},
        {"id": "M-2", "title": RECEIPT_WATER[0], "text": RECEIPT_WATER[1]},
        {"id": "M-3", "title": MOBILE[0], "text": MOBILE[1]},
        {"id": "M-4", "title": TURKISH[0], "text": nfd},  # stored in NFD
        {"id": "M-5", "title": GERMAN[0], "text": GERMAN[1]},
    ]


@pytest.fixture
def world(tmp_path: Path):
    """A stored project (wiki off) and a desk over it."""
    settings = Settings(
        db_url=f"sqlite:///{tmp_path}/etki.db",
        wiki_dir=None,
        reviewer="reviewer",
        related_context=False,
    )
    repo = CaseFileRepository(settings.db_url)
    folder = _folder(tmp_path, _requests())
    init_project(folder, repo, settings)
    return folder, settings, repo, Desk(settings, repo)


def _case(repo: CaseFileRepository, request_id: str) -> str:
    return next(c.case_id for c in repo.cases("demo") if c.request_id == request_id)


def _rule(desk: Desk, repo: CaseFileRepository, request_id: str, action: str) -> str:
    case_id = _case(repo, request_id)
    desk.rule(case_id, action, reason="ruled by the test")
    return case_id


# --- the pure index ----------------------------------------------------------------------


def test_identical_text_is_1_unrelated_is_absent_and_order_is_stable():
    index = RulingIndex(
        [
            RuledRequest("b", None, "receipt download fails with error", "REJECT"),
            RuledRequest("a", None, "receipt download fails with error", "IN_SCOPE"),
            RuledRequest("c", None, "native iphone application", "REJECT"),
        ]
    )
    found = index.similar(None, "receipt download fails with error")
    assert found == (SimilarRuling("a", "IN_SCOPE", 1.0), SimilarRuling("b", "REJECT", 1.0))
    assert index.similar(None, "receipt download fails with error", exclude="a") == (
        SimilarRuling("b", "REJECT", 1.0),
    )
    assert index.similar(None, "") == ()
    assert RulingIndex([]).similar(None, "anything") == ()


def test_similarity_is_in_0_1_rounded_and_thresholded():
    index = RulingIndex([RuledRequest("x", None, "receipt download fails", "IN_SCOPE")])
    every = index.similar(None, "receipt download fails for water bills", threshold=0.0)
    assert len(every) == 1 and 0.0 < every[0].similarity < 1.0
    assert every[0].similarity == round(every[0].similarity, 4)
    kept = index.similar(None, "receipt download fails for water bills")
    assert kept == (every if every[0].similarity >= SIMILARITY_MIN else ())


def test_memory_verdict_needs_two_agreeing_and_two_thirds():
    def s(case_id: str, ruling: str, sim: float) -> SimilarRuling:
        return SimilarRuling(case_id, ruling, sim)  # type: ignore[arg-type]

    assert memory_verdict([]) is None
    assert memory_verdict([s("a", "REJECT", 0.99)]) is None  # one case is an anecdote
    assert memory_verdict([s("a", "REJECT", 0.9), s("b", "REJECT", 0.6)]) == "REJECT"
    split = [s("a", "REJECT", 0.8), s("b", "REJECT", 0.7), s("c", "IN_SCOPE", 0.9)]
    assert MAJORITY_SHARE > 1.5 / 2.4 and memory_verdict(split) is None
    clear = [s("a", "REJECT", 0.8), s("b", "REJECT", 0.8), s("c", "IN_SCOPE", 0.8)]
    assert memory_verdict(clear) == "REJECT"  # exactly two thirds
    assert memory_sentence(tuple(clear), "REJECT") == (
        "reviewers ruled 2 similar requests as REJECT, 1 otherwise"
    )
    assert memory_sentence(tuple(split), None) == (
        "reviewers ruled 3 similar requests: 1 IN_SCOPE, 2 REJECT; no clear ruling"
    )
    assert memory_sentence((), None) == ""


def test_title_that_is_the_first_line_is_not_counted_twice():
    text = "Receipt download fails\nwith error 500"
    assert request_text("Receipt download fails", text) == text
    assert request_text("Receipt download f…", "Receipt download fails badly") == (
        "Receipt download fails badly"
    )
    assert request_text("Receipts", "Download fails") == "Receipts\nDownload fails"
    assert request_text(None, "x") == "x" and request_text("  ", "x") == "x"


def test_turkish_german_and_nfd_text_match_their_other_spellings():
    langs = ("en", "tr", "de")
    index = RulingIndex(
        [
            RuledRequest("tr", None, unicodedata.normalize("NFD", TURKISH[1]), "IN_SCOPE"),
            RuledRequest("de", None, GERMAN[1], "CHANGE_REQUEST"),
        ],
        langs,
    )
    turkish = index.similar(None, TURKISH[1].replace("İNDİRİLEMİYOR", "indirilemiyor"))
    assert [(s.case_id, s.similarity) for s in turkish] == [("tr", 1.0)]
    german = index.similar(
        None,
        GERMAN[1]
        .replace("Straßenlaternen", "STRASSENLATERNEN")
        .replace("möchten", "mo\u0308chten"),
    )
    assert [(s.case_id, s.similarity) for s in german] == [("de", 1.0)]


# --- decisions: JSON -------------------------------------------------------------------------


def test_old_decision_json_loads_and_keeps_its_bytes():
    golden = next((ROOT / "snapshots" / "golden").glob("*.json"))
    stored = golden.read_text(encoding="utf-8").rstrip("\n")
    assert "similar_rulings" not in stored and "memory_verdict" not in stored
    decision = Decision.from_json(stored)
    assert decision.similar_rulings == () and decision.memory_verdict is None
    assert decision.to_json() == stored  # no memory: the bytes it always had
    full = decision.to_dict()
    assert full["similar_rulings"] == [] and full["memory_verdict"] is None
    with_memory = replace(
        decision,
        similar_rulings=(
            SimilarRuling("req-demo-00000001", "REJECT", 0.8123),
            SimilarRuling("req-demo-00000002", "REJECT", 0.61),
        ),
        memory_verdict="REJECT",
    )
    again = Decision.from_json(with_memory.to_json())
    assert again == with_memory
    assert Decision.from_json(with_memory.to_dict()) == with_memory
    assert '"memory_verdict":"REJECT"' in with_memory.to_json()


# --- the store, intake and the desk ----------------------------------------------------------


def test_near_duplicate_lists_the_ruled_cases_with_their_ruling(world):
    folder, settings, repo, desk = world
    tax = _rule(desk, repo, "M-1", "approve")
    water = _rule(desk, repo, "M-2", "convert_to_cr")
    water_ruling = repo.case(water).ruling
    assert water_ruling is not None and water_ruling.ruling == "CHANGE_REQUEST"
    decision = stored_triage(repo, "demo", settings, case_id_for("demo", "q"), RECEIPT_QUERY)
    rulings = {s.case_id: s.ruling for s in decision.similar_rulings}
    assert rulings == {tax: "IN_SCOPE", water: "CHANGE_REQUEST"}
    sims = [s.similarity for s in decision.similar_rulings]
    assert sims == sorted(sims, reverse=True) and all(SIMILARITY_MIN <= x <= 1 for x in sims)
    assert decision.memory_verdict is None  # they disagree
    # a third, agreeing ruling of a near-duplicate: now two of three agree
    more = _folder(
        folder.parent / "more",
        [
            *_requests(),
            {
                "id": "M-6",
                "title": "Receipt download fails once more",
                "text": "Downloading the PDF receipt after a parking fine payment fails with error 500.",
            },
        ],
    )
    init_project(more, repo, settings)
    third = _rule(desk, repo, "M-6", "approve")
    decision = stored_triage(repo, "demo", settings, case_id_for("demo", "q"), RECEIPT_QUERY)
    assert {s.case_id for s in decision.similar_rulings} == {tax, water, third}
    weights = {s.ruling: 0.0 for s in decision.similar_rulings}
    for s in decision.similar_rulings:
        weights[s.ruling] += s.similarity
    expected = "IN_SCOPE" if weights["IN_SCOPE"] >= MAJORITY_SHARE * sum(weights.values()) else None
    assert decision.memory_verdict == expected


def test_verdict_and_confidence_do_not_depend_on_rulings(world):
    folder, settings, repo, desk = world
    texts = [RECEIPT_QUERY, MOBILE[1], TURKISH[1], GERMAN[1]]
    before = [stored_triage(repo, "demo", settings, case_id_for("demo", t), t) for t in texts]
    _rule(desk, repo, "M-1", "reject")  # overrides, so precedents exist too
    _rule(desk, repo, "M-2", "reject")
    _rule(desk, repo, "M-3", "approve")
    _rule(desk, repo, "M-4", "convert_to_cr")
    after = [stored_triage(repo, "demo", settings, case_id_for("demo", t), t) for t in texts]
    assert after[0].similar_rulings and after[0].memory_verdict == "REJECT"
    for b, a in zip(before, after, strict=True):
        assert json.dumps([b.verdict, b.confidence]) == json.dumps([a.verdict, a.confidence])
        # (risk may differ: a clause cited by disagreeing rulings is disputed, which the
        # risk layer signals; it never changes verdict, confidence or effort)
        assert (b.cited_clauses, b.impacted_modules, b.effort) == (
            a.cited_clauses,
            a.impacted_modules,
            a.effort,
        )


def test_intake_freezes_memory_and_the_desk_shows_it_live(world):
    folder, settings, repo, desk = world
    pending = _case(repo, "M-2")
    assert repo.case(pending).decision.similar_rulings == ()  # nothing was ruled at intake
    tax = _rule(desk, repo, "M-1", "reject")
    live = desk.beside(pending)
    assert [(s.case_id, s.ruling) for s in live.similar] == [(tax, "REJECT")]
    assert live.verdict is None  # one case
    assert repo.case(pending).decision.similar_rulings == ()  # written once, never updated
    assert desk.beside(tax).similar == ()  # a case is never similar to itself
    # a request arriving after the ruling gets the memory frozen into its decision
    more = _folder(folder.parent / "more", [*_requests(), {"id": "M-6", "text": RECEIPT_QUERY}])
    init_project(more, repo, settings)
    fresh = repo.case(_case(repo, "M-6")).decision
    assert [(s.case_id, s.ruling) for s in fresh.similar_rulings] == [(tax, "REJECT")]
    assert fresh.to_json().count('"similar_rulings"') == 1
    # the desk's index is reused while the ruled set is unchanged, rebuilt after a ruling
    rows = desk.queue_summaries("demo", status=None)
    first = desk.ruling_index_of("demo", rows)
    assert desk.ruling_index_of("demo", desk.queue_summaries("demo", status=None)) is first
    _rule(desk, repo, "M-3", "reject")
    assert desk.ruling_index_of("demo", desk.queue_summaries("demo", status=None)) is not first


def test_turkish_nfd_request_finds_its_ruled_twin(world):
    folder, settings, repo, desk = world
    turkish = _rule(desk, repo, "M-4", "approve")
    query = TURKISH[1].replace("İNDİRİLEMİYOR", "indirilemiyor")
    decision = stored_triage(
        repo, "demo", settings, case_id_for("demo", "tr"), query, TURKISH[0].upper()
    )
    assert [(s.case_id, s.similarity) for s in decision.similar_rulings][:1] == [(turkish, 1.0)]


# --- the commands ------------------------------------------------------------------------------


def _etki(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "ETKI_DB_URL": f"sqlite:///{tmp}/etki.db",
        "ETKI_WIKI_DIR": "",
        "ETKI_REVIEWER": "reviewer",
        "ETKI_RELATED_CONTEXT": "0",
    }
    return run_etki([*args], env=env, cwd=tmp)  # in this process: tests/cli_support.py


def test_triage_json_has_both_keys(world, tmp_path):
    folder, settings, repo, desk = world
    alone = json.loads(_etki(tmp_path, "triage", "--project", "demo", MOBILE[1], "--json").stdout)
    assert alone["similar_rulings"] == [] and alone["memory_verdict"] is None
    one = _rule(desk, repo, "M-1", "reject")
    two = _rule(desk, repo, "M-2", "reject")
    out = _etki(tmp_path, "triage", "--project", "demo", RECEIPT_QUERY, "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert {s["case_id"] for s in doc["similar_rulings"]} == {one, two}
    assert all(
        s["ruling"] == "REJECT" and 0.5 <= s["similarity"] <= 1 for s in doc["similar_rulings"]
    )
    assert doc["memory_verdict"] == "REJECT"
    text = _etki(tmp_path, "triage", "--project", "demo", RECEIPT_QUERY).stdout
    assert "reviewers ruled 2 similar requests as REJECT" in text and one in text


def test_eval_triage_replay_reports_engine_and_memory(world, tmp_path):
    labelled = tmp_path / "labelled.jsonl"
    rows = [
        {"id": "L1", "text": RECEIPT_TAX[1], "labels": {"verdict": "IN_SCOPE"}},
        {"id": "L2", "text": RECEIPT_WATER[1], "labels": {"verdict": "IN_SCOPE"}},
        {"id": "L3", "text": MOBILE[1], "labels": {"verdict": "REJECT"}},
        {"id": "L4", "text": RECEIPT_QUERY, "labels": {"verdict": "IN_SCOPE"}},
    ]
    labelled.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = _etki(
        tmp_path, "eval", "triage", str(labelled), "--project", "demo", "--replay", "--json"
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["n"] == 4
    by_id = {r["id"]: r for r in doc["rows"]}
    assert by_id["L1"]["similar"] == [] and by_id["L1"]["memory_verdict"] is None
    assert [s[1] for s in by_id["L2"]["similar"]] == ["IN_SCOPE"]  # L1, ruled before it
    assert by_id["L4"]["memory_verdict"] == "IN_SCOPE"  # L1 and L2 agree
    assert doc["memory"]["covered"] == 1 and doc["memory"]["coverage"] == 0.25
    assert doc["memory"]["accuracy"] == 1.0
    engine_right = sum(r["verdict"] == r["label"] for r in doc["rows"])
    assert doc["engine"]["accuracy"] == round(engine_right / 4, 4)
    plain = _etki(tmp_path, "eval", "triage", str(labelled), "--project", "demo", "--replay")
    assert "engine" in plain.stdout and "memory" in plain.stdout
    assert "memory L4: label IN_SCOPE" in plain.stdout


def test_reusing_an_earlier_index_gives_the_same_answers():
    background = ({"receipt": 1.2, "download": 2.0}, 3.0)
    first = [
        RuledRequest("a", "Receipt", RECEIPT_TAX[1], "IN_SCOPE"),
        RuledRequest("b", None, MOBILE[1], "REJECT"),
    ]
    earlier = RulingIndex(first, ("en",), background)
    more = [*first, RuledRequest("c", RECEIPT_WATER[0], RECEIPT_WATER[1], "REJECT")]
    reused = RulingIndex(more, ("en",), background, reuse=earlier)
    fresh = RulingIndex(more, ("en",), background)
    for title, text in (RECEIPT_TAX, RECEIPT_WATER, MOBILE, (None, RECEIPT_QUERY)):
        assert reused.similar(title, text, threshold=0.0) == fresh.similar(
            title, text, threshold=0.0
        )
    # another background: nothing is taken over
    other = RulingIndex(more, ("en",), ({}, 1.0), reuse=earlier)
    assert other.vectors.keys() == fresh.vectors.keys()
    assert (
        other.vectors[("a", "Receipt", RECEIPT_TAX[1])]
        != fresh.vectors[("a", "Receipt", RECEIPT_TAX[1])]
    )
