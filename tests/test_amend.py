"""Amending a ruling (issue 14 item 2): ``ApprovalService.rule(..., amend=True)``, ``etki
rule CASE ACTION --amend --reason``, on real SQLite files and PostgreSQL. The earlier
ruling stays in the audit and the case's history, the ``rulings`` row holds the latest,
precedents and disputed clauses follow it, optimistic locking still holds, and the wiki
projection equals a fresh rebuild byte for byte after each amendment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from etki import memory
from etki.config import Settings
from etki.errors import ConflictError, InputError, PermissionDeniedError
from etki.services import approval_service
from etki.store import CaseFileRepository
from etki.wiki.projection import WikiProjector
from tests.cli_support import run_etki
from tests.factories import Clock, make_decision, make_project, make_request
from tests.test_store import repo as backend_repo  # noqa: F401  (fixture: SQLite, PostgreSQL)
from tests.wiki_support import tree_digest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_project"


def _seed(repo: CaseFileRepository) -> None:
    repo.save_project(make_project(), "sha256:abc", b"{}\n")
    repo.add_cases(
        "demo",
        [
            (make_request("R1", "SSO login fails"), make_decision("req-demo-1")),
            (make_request("R2", "SSO for contractors"), make_decision("req-demo-2")),
            (make_request("R3", "Pay tax"), make_decision("req-demo-3", "CHANGE_REQUEST")),
        ],
    )


def _settings(tmp: Path, wiki: bool = True, reviewer: str = "ayse") -> Settings:
    return Settings(
        db_url="unused", reviewer=reviewer, wiki_dir=str(tmp / "wiki-{project}") if wiki else None
    )


def test_an_amendment_keeps_the_earlier_ruling_on_both_backends(backend_repo, tmp_path):  # noqa: F811
    repo = backend_repo
    _seed(repo)
    svc = approval_service(repo, _settings(tmp_path, wiki=False))
    svc.rule("req-demo-1", "reject", reason="Contractors are not staff.", reviewer="ayse")
    first = repo.case("req-demo-1")
    assert first.version == 2 and first.earlier_rulings == ()
    out = svc.rule(
        "req-demo-1",
        "approve",
        reason="The client showed 3.2 covers them.",
        reviewer="jurgen",
        expected_version=2,
        amend=True,
    )
    assert (out.ruling.ruling, out.ruling.reviewer, out.ruling.version) == (
        "IN_SCOPE",
        "jurgen",
        3,
    )
    case = repo.case("req-demo-1")
    assert case.version == 3 and case.status == "ruled"
    assert case.ruling is not None and case.ruling.ruling == "IN_SCOPE"
    assert case.ruling.reason == "The client showed 3.2 covers them."
    assert [(r.ruling, r.reviewer, r.reason, r.version) for r in case.ruling_history] == [
        ("REJECT", "ayse", "Contractors are not staff.", 2),
        ("IN_SCOPE", "jurgen", "The client showed 3.2 covers them.", 3),
    ]
    rows = [
        (e.action, e.outcome, e.before, e.after, e.version, e.reviewer)
        for e in repo.audit_entries("req-demo-1")
    ]
    assert rows == [
        ("reject", "committed", "pending", "REJECT", 2, "ayse"),
        ("approve", "committed", "REJECT", "IN_SCOPE", 3, "jurgen"),
    ]
    # every read shape carries the history: the list, by id, and the queue's summaries
    assert repo.cases("demo")[0].earlier_rulings == case.earlier_rulings
    assert repo.cases_by_id(["req-demo-1"])[0].earlier_rulings == case.earlier_rulings
    summary = {c.case_id: c for c in repo.case_summaries("demo")}["req-demo-1"]
    assert summary.ruling is not None and summary.ruling.ruling == "IN_SCOPE"


def test_a_stale_version_is_a_conflict_and_audited(backend_repo, tmp_path):  # noqa: F811
    repo = backend_repo
    _seed(repo)
    svc = approval_service(repo, _settings(tmp_path, wiki=False))
    svc.rule("req-demo-1", "reject", reason="no", reviewer="ayse")
    # two approvers saw version 2; jurgen amends first, ayse's amendment is refused
    svc.rule("req-demo-1", "convert_to_cr", reason="a CR", reviewer="jurgen", amend=True)
    with pytest.raises(ConflictError) as caught:
        svc.rule(
            "req-demo-1",
            "approve",
            reason="in scope",
            reviewer="ayse",
            expected_version=2,
            amend=True,
        )
    assert caught.value.ruled_by == "jurgen" and caught.value.ruling == "CHANGE_REQUEST"
    last = repo.audit_entries("req-demo-1")[-1]
    assert (last.outcome, last.action, last.before, last.after, last.reviewer) == (
        "conflict",
        "approve",
        "CHANGE_REQUEST",
        "CHANGE_REQUEST",
        "ayse",
    )
    case = repo.case("req-demo-1")
    assert case.ruling is not None and case.ruling.ruling == "CHANGE_REQUEST"
    assert case.version == 3


def test_pending_ruled_reason_and_approver_rules(tmp_path):
    repo = CaseFileRepository(f"sqlite:///{tmp_path}/etki.db")
    _seed(repo)
    svc = approval_service(repo, _settings(tmp_path, wiki=False))
    with pytest.raises(InputError, match="pending.*rule it instead"):
        svc.rule("req-demo-1", "reject", reason="no", reviewer="ayse", amend=True)
    assert repo.case("req-demo-1").status == "pending"
    svc.rule("req-demo-1", "approve", reviewer="ayse")
    # without --amend a ruled case stays a conflict, as before
    with pytest.raises(ConflictError):
        svc.rule("req-demo-1", "reject", reason="no", reviewer="ayse")
    # an amendment always needs a reason, even one back to the engine's verdict
    with pytest.raises(InputError, match="needs a reason"):
        svc.rule("req-demo-1", "approve", reviewer="ayse", amend=True)
    # approvers only: a viewer's amendment is refused and audited as denied
    with pytest.raises(PermissionDeniedError):
        svc.rule("req-demo-1", "reject", reason="no", reviewer="viewer-vera", amend=True)
    last = repo.audit_entries("req-demo-1")[-1]
    assert (last.outcome, last.before, last.reviewer) == ("denied", "IN_SCOPE", "viewer-vera")
    assert repo.case("req-demo-1").version == 2


def test_precedents_and_disputed_clauses_follow_the_latest_ruling(tmp_path):
    repo = CaseFileRepository(f"sqlite:///{tmp_path}/etki.db")
    _seed(repo)
    svc = approval_service(repo, _settings(tmp_path, wiki=False))
    svc.rule("req-demo-1", "approve", reviewer="ayse")
    svc.rule("req-demo-2", "reject", reason="contractors are not staff", reviewer="ayse")
    ruled = repo.cases("demo", status="ruled")
    assert [c.case_id for c in memory.precedents(ruled)] == ["req-demo-2"]
    assert [d.ref for d in memory.disputed_clauses(ruled)] == ["MSA#3.2"]
    svc.rule("req-demo-2", "approve", reason="3.2 covers them after all", amend=True)
    ruled = repo.cases("demo", status="ruled")
    assert memory.precedents(ruled) == []
    assert memory.disputed_clauses(ruled) == []
    assert memory.clause_memory(ruled)["MSA#3.2"].precedent_count == 0
    # and back: the amendment to REJECT is a precedent again, 3.2 disputed again
    svc.rule("req-demo-2", "reject", reason="no, the contract says staff", amend=True)
    ruled = repo.cases("demo", status="ruled")
    assert [c.case_id for c in memory.precedents(ruled)] == ["req-demo-2"]
    assert [d.ref for d in memory.disputed_clauses(ruled)] == ["MSA#3.2"]


def _rebuilt(tmp: Path, db_url: str) -> dict[str, str]:
    """A fresh rebuild of the same DB in another folder, as digests."""
    settings = Settings(db_url=db_url, wiki_dir=str(tmp / "fresh-{project}"))
    repo = CaseFileRepository(db_url)
    try:
        WikiProjector(repo, settings).rebuild("demo")
    finally:
        repo.dispose()
    return tree_digest(tmp / "fresh-demo")


def test_wiki_follows_amendments_byte_for_byte(tmp_path):
    clock = Clock()
    db_url = f"sqlite:///{tmp_path}/etki.db"
    repo = CaseFileRepository(db_url, clock=clock)
    _seed(repo)
    settings = Settings(db_url=db_url, reviewer="ayse", wiki_dir=str(tmp_path / "wiki-{project}"))
    svc = approval_service(repo, settings)
    svc.rule("req-demo-1", "approve")
    svc.rule("req-demo-2", "reject", reason="Contractors are not staff.")
    assert svc.projector is not None
    svc.projector.flush()
    wiki = tmp_path / "wiki-demo"
    pre = sorted(p.name for p in (wiki / "precedents").glob("*.md"))
    assert len(pre) == 1
    # same day, back to the engine's verdict: the precedent page goes, the history shows
    clock.later(minutes=5)
    out = svc.rule("req-demo-2", "approve", reason="3.2 covers contractors.", amend=True)
    assert out.wiki_error is None
    svc.projector.flush()
    assert not list((wiki / "precedents").glob("*.md"))
    assert tree_digest(wiki) == _rebuilt(tmp_path / "a", db_url)
    page = next(p for p in (wiki / "decisions").glob("*.md") if "req-demo-2" in p.read_text())
    text = page.read_text(encoding="utf-8")
    assert "amended: 1" in text
    history = text.split("## Ruling history", 1)[1].split("## Engine decision", 1)[0]
    assert "1. **REJECT** (reject) by ayse, 2026-11-29T12:00:00Z (amended)" in history
    assert "Reason: Contractors are not staff." in history
    assert "2. **IN\\_SCOPE** (approve) by ayse, 2026-11-29T12:05:00Z (in force)" in history or (
        "2. **IN_SCOPE** (approve) by ayse, 2026-11-29T12:05:00Z (in force)" in history
    )
    # the next day, to an override again: the decision page moves to the new date
    clock.later(days=1)
    svc.rule("req-demo-2", "convert_to_cr", reason="billed as a CR", amend=True)
    svc.projector.flush()
    assert tree_digest(wiki) == _rebuilt(tmp_path / "b", db_url)
    names = sorted(p.name for p in (wiki / "decisions").glob("*.md"))
    assert any(n.startswith("DEC-20261130-") for n in names)
    assert not any(n.startswith("DEC-20261129-") and "2" in n.split("-")[-1] for n in names[1:])
    assert len(list((wiki / "precedents").glob("*.md"))) == 1
    assert WikiProjector(repo, settings).verify("demo") == []


def test_an_amendment_by_another_process_is_caught_up(tmp_path):
    db_url = f"sqlite:///{tmp_path}/etki.db"
    repo = CaseFileRepository(db_url)
    _seed(repo)
    settings = Settings(db_url=db_url, reviewer="ayse", wiki_dir=str(tmp_path / "wiki-{project}"))
    desk_svc = approval_service(repo, settings)
    desk_svc.rule("req-demo-2", "reject", reason="no")
    assert desk_svc.projector is not None
    desk_svc.projector.flush()
    # another process amends without touching the wiki (its projection never ran)
    other = CaseFileRepository(db_url)
    approval_service(other, Settings(db_url=db_url, reviewer="jurgen", wiki_dir=None)).rule(
        "req-demo-2", "approve", reason="in scope after all", amend=True
    )
    other.dispose()
    assert WikiProjector(repo, settings).verify("demo") != []
    desk_svc.projector.catch_up("demo")
    desk_svc.projector.flush()
    assert tree_digest(tmp_path / "wiki-demo") == _rebuilt(tmp_path / "fresh", db_url)
    assert not list((tmp_path / "wiki-demo" / "precedents").glob("*.md"))


def _etki(tmp: Path, *args: str, reviewer: str = "reviewer"):  # noqa: ANN202
    env = {
        **os.environ,
        "ETKI_DB_URL": f"sqlite:///{tmp}/etki.db",
        "ETKI_WIKI_DIR": str(tmp / "wiki-{project}"),
        "ETKI_REVIEWER": reviewer,
    }
    return run_etki(args, env=env, cwd=tmp)


def test_cli_amend(tmp_path):
    import json

    assert _etki(tmp_path, "init", str(SAMPLE)).returncode == 0
    rows = json.loads(_etki(tmp_path, "queue", "--project", "demo", "--json").stdout)
    case = next(r for r in rows if r["verdict"] == "IN_SCOPE")
    cid = case["case_id"]
    pending = _etki(tmp_path, "rule", cid, "reject", "--amend", "--reason", "no")
    assert pending.returncode == 2 and "rule it instead" in pending.stderr
    assert _etki(tmp_path, "rule", cid, "reject", "--reason", "not ours").returncode == 0
    again = _etki(tmp_path, "rule", cid, "approve")
    assert again.returncode == 2 and "already ruled" in again.stderr
    stale = _etki(
        tmp_path, "rule", cid, "approve", "--amend", "--reason", "x", "--expected-version", "1"
    )
    assert stale.returncode == 2
    assert "changed since you saw it: it is at version 2, you saw 1 (now ruled REJECT" in (
        stale.stderr
    )
    done = _etki(
        tmp_path,
        "rule",
        cid,
        "approve",
        "--amend",
        "--reason",
        "in scope",
        "--expected-version",
        "2",
    )
    assert done.returncode == 0, done.stderr
    assert "IN_SCOPE" in done.stdout and "amended from REJECT" in done.stdout
    assert _etki(tmp_path, "wiki", "verify", "--project", "demo").returncode == 0
