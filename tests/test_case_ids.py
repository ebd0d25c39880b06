"""Case ids: two requests whose 8-digit ids collide are both stored (issue 7 found a
100k-request engagement storing 99,999 cases), existing ids never change, and an erased
request stays erased."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from etki.config import Settings
from etki.services import init_project
from etki.store import CaseFileRepository
from etki.triage import assign_case_ids, case_id_for

SAMPLE = Path(__file__).resolve().parent.parent / "sample_project"

# Found by a birthday search over "REQ-000000".."REQ-999999" in project "demo": the first
# pair whose SHA-256("demo\0" + id) share their first 8 hex digits.
A, B = "REQ-002046", "REQ-068078"


def test_the_pair_really_collides() -> None:
    def h(rid: str) -> str:
        return hashlib.sha256(f"demo\0{rid}".encode()).hexdigest()

    assert h(A)[:8] == h(B)[:8] == "636eb6d6"
    assert h(A)[:12] != h(B)[:12]


def test_later_request_of_a_colliding_pair_gets_a_longer_id() -> None:
    ids = assign_case_ids("demo", [A, B, "R-3"], {})
    assert ids[A] == "req-demo-636eb6d6"
    assert ids[B] == "req-demo-" + hashlib.sha256(f"demo\0{B}".encode()).hexdigest()[:12]
    assert ids["R-3"] == case_id_for("demo", "R-3")
    # the same when A was stored by an earlier run: B never takes A's id
    again = assign_case_ids("demo", [B], {"req-demo-636eb6d6": A})
    assert again[B] == ids[B]


def test_erased_ids_are_never_handed_out_again() -> None:
    erased = {case_id_for("demo", A): None}
    assert assign_case_ids("demo", [A], erased) == {A: None}
    # B was the longer one and was erased: the walk reaches its tombstone
    long_b = case_id_for("demo", B, 12)
    assert assign_case_ids("demo", [B], {case_id_for("demo", A): A, long_b: None}) == {B: None}


def test_digits_must_be_a_known_length() -> None:
    with pytest.raises(ValueError, match="digits must be one of"):
        case_id_for("demo", "R-1", digits=7)


def _project_with_pair(tmp: Path) -> Path:
    folder = tmp / "project"
    shutil.copytree(SAMPLE, folder)
    with (folder / "requests.jsonl").open("a", encoding="utf-8") as fh:
        for rid, text in (
            (A, "Add a Turkish translation of the invoice page."),
            (B, "The login page shows a white screen after SSO."),
        ):
            fh.write(json.dumps({"id": rid, "title": text, "text": text}) + "\n")
    return folder


def test_init_stores_both_requests_of_a_colliding_pair(tmp_path: Path) -> None:
    folder = _project_with_pair(tmp_path)
    settings = Settings(db_url=f"sqlite:///{tmp_path}/etki.db", wiki_dir=None, reviewer="reviewer")
    repo = CaseFileRepository(settings.db_url)
    summary = init_project(folder, repo, settings, related_context=False)
    cases = {c.request_id: c for c in repo.cases("demo")}
    assert summary.new_cases == summary.requests == len(cases)
    assert cases[A].case_id == "req-demo-636eb6d6"
    assert cases[B].case_id == case_id_for("demo", B, 12)
    assert cases[B].text == "The login page shows a white screen after SSO."
    # a second init stores nothing new and changes no id
    assert init_project(folder, repo, settings, related_context=False).new_cases == 0
    assert {c.request_id: c.case_id for c in repo.cases("demo")} == {
        r: c.case_id for r, c in cases.items()
    }


def test_erasing_the_longer_one_keeps_it_erased(tmp_path: Path) -> None:
    folder = _project_with_pair(tmp_path)
    settings = Settings(db_url=f"sqlite:///{tmp_path}/etki.db", wiki_dir=None, reviewer="reviewer")
    repo = CaseFileRepository(settings.db_url)
    init_project(folder, repo, settings, related_context=False)
    long_b = case_id_for("demo", B, 12)
    repo.erase_case(long_b, "dpo", "data subject request")
    again = init_project(folder, repo, settings, related_context=False)
    assert (again.new_cases, again.erased_skipped) == (0, 1)
    assert "  erased: 1 request of the folder was erased and is not stored again" in again.lines()
    ids = {c.case_id for c in repo.cases("demo")}
    assert long_b not in ids and "req-demo-636eb6d6" in ids
