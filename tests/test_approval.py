"""ApprovalService on a real SQLite file and a real wiki folder (wired to the wiki as
the desk wires it: :func:`etki.services.approval_service`)."""

from __future__ import annotations

import os
import shlex
import stat
from pathlib import Path

import pytest

from etki.approval import ApprovalService
from etki.config import Settings
from etki.errors import ConflictError, InputError, PermissionDeniedError
from etki.services import approval_service
from etki.store import CaseFileRepository
from tests.factories import frozen_clock, make_decision, make_project, make_request


def _service(tmp_path, wiki: str | None = "wiki-{project}", reviewer: str = "ayse"):
    repo = CaseFileRepository(f"sqlite:///{tmp_path}/etki.db", clock=frozen_clock)
    repo.save_project(make_project(), "sha256:abc", b"{}\n")
    repo.add_cases(
        "demo",
        [
            (make_request("R1", "SSO login fails"), make_decision("req-demo-1")),
            (
                make_request("R2", "Build a native app"),
                make_decision("req-demo-2", "CHANGE_REQUEST"),
            ),
        ],
    )
    settings = Settings(
        db_url="unused", reviewer=reviewer, wiki_dir=None if wiki is None else str(tmp_path / wiki)
    )
    return repo, approval_service(repo, settings)


def test_override_needs_a_reason(tmp_path):
    repo, svc = _service(tmp_path)
    with pytest.raises(InputError, match="overrides.*give a reason"):
        svc.rule("req-demo-1", "reject")
    assert repo.case("req-demo-1").ruling is None
    outcome = svc.rule("req-demo-1", "reject", reason="duplicate of an earlier ticket")
    assert outcome.ruling.is_override and outcome.ruling.reviewer == "ayse"


def test_reviewer_must_be_an_approver(tmp_path):
    repo, _ = _service(tmp_path)
    for who in ("mallory", "viewer-vera"):
        svc = ApprovalService(repo, Settings(db_url="unused", reviewer=who, wiki_dir=None))
        with pytest.raises(PermissionDeniedError, match="not an approver"):
            svc.rule("req-demo-1", "approve")
    assert repo.case("req-demo-1").ruling is None
    assert [(r[1], r[-1]) for r in repo.audit_log("req-demo-1")] == [
        ("mallory", "denied"),
        ("viewer-vera", "denied"),
    ]


def test_second_ruling_is_a_conflict(tmp_path):
    repo, svc = _service(tmp_path)
    seen = repo.case("req-demo-1").version
    svc.rule("req-demo-1", "approve", expected_version=seen)
    with pytest.raises(ConflictError, match="already ruled.*ayse"):
        svc.rule("req-demo-1", "reject", reason="no", expected_version=seen)


def test_approval_writes_the_decision_file(tmp_path):
    repo, svc = _service(tmp_path)
    outcome = svc.rule("req-demo-1", "approve")
    assert outcome.wiki_error is None
    pages = list((tmp_path / "wiki-demo" / "decisions").glob("DEC-20261129-*.md"))
    assert len(pages) == 1
    assert "req-demo-1" in pages[0].read_text(encoding="utf-8")


def test_wiki_off_still_commits(tmp_path):
    repo, svc = _service(tmp_path, wiki=None)
    outcome = svc.rule("req-demo-1", "approve")
    assert outcome.wiki_report is None and outcome.wiki_error is None
    assert repo.case("req-demo-1").ruling.ruling == "IN_SCOPE"
    assert not any(tmp_path.glob("wiki*"))


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through read-only modes")
def test_read_only_wiki_still_commits(tmp_path):
    wiki = tmp_path / "wiki-demo"
    wiki.mkdir()
    wiki.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        repo, svc = _service(tmp_path)
        outcome = svc.rule("req-demo-1", "approve")
        assert outcome.wiki_error is not None
        assert repo.case("req-demo-1").ruling.ruling == "IN_SCOPE"
    finally:
        wiki.chmod(stat.S_IRWXU)


def test_unwritable_wiki_still_commits(tmp_path):
    """The wiki path is a regular file, so no folder can be made there (fails for root
    too): the ruling commits and the error is reported, not raised."""
    (tmp_path / "wiki-demo").write_text("not a folder")
    repo, svc = _service(tmp_path)
    outcome = svc.rule("req-demo-2", "convert_to_cr")
    assert outcome.wiki_error and outcome.wiki_error.startswith("wiki not updated")
    assert repo.case("req-demo-2").ruling.ruling == "CHANGE_REQUEST"
    assert repo.audit_log("req-demo-2")[0][2] == "convert_to_cr"


def test_one_projector_serves_every_ruling_and_sees_other_services(tmp_path):
    """The service keeps one projector (its model stays warm between rulings); rulings
    made through a second service (another desk) end up in the wiki the first one
    writes, byte-identical to a fresh rebuild."""
    from etki.wiki.projection import WikiProjector

    repo, svc = _service(tmp_path)
    assert svc.projector is not None and svc.hook == svc.projector.project_case
    other_repo = CaseFileRepository(f"sqlite:///{tmp_path}/etki.db", clock=frozen_clock)
    other = approval_service(
        other_repo,
        Settings(db_url="unused", reviewer="ayse", wiki_dir=str(tmp_path / "wiki-{project}")),
    )
    svc.rule("req-demo-1", "approve")
    other.hook = None  # another desk whose hook never ran
    other.rule("req-demo-2", "convert_to_cr")
    repo.add_cases("demo", [(make_request("R3", "Export crashes"), make_decision("req-demo-3"))])
    assert svc.rule("req-demo-3", "approve").wiki_error is None
    svc.projector.flush()
    settings = Settings(db_url="unused", wiki_dir=str(tmp_path / "wiki-{project}"))
    assert (
        WikiProjector(CaseFileRepository(f"sqlite:///{tmp_path}/etki.db"), settings).verify("demo")
        == []
    )
    assert approval_service(repo, Settings(db_url="unused", wiki_dir=None)).projector is None
    # approval itself never builds a projector: only services wires the wiki in
    assert (
        ApprovalService(repo, Settings(db_url="unused", wiki_dir=str(tmp_path / "w"))).projector
        is None
    )
    other_repo.dispose()


# --- identity (issue 11, item 9) -------------------------------------------------------


def test_a_refusal_names_no_approver(tmp_path):
    repo, _ = _service(tmp_path)
    svc = ApprovalService(repo, Settings(db_url="unused", reviewer="mallory", wiki_dir=None))
    with pytest.raises(PermissionDeniedError) as err:
        svc.rule("req-demo-1", "approve")
    message = str(err.value)
    assert "ask a project approver" in message and "'mallory'" in message
    assert "ayse" not in message and "jurgen" not in message


def test_an_nfd_reviewer_matches_its_nfc_approver_both_ways(tmp_path):
    nfc, nfd = "J\u00fcrgen", "Ju\u0308rgen"
    repo = CaseFileRepository(f"sqlite:///{tmp_path}/etki.db", clock=frozen_clock)
    # a list stored before names were normalised may hold the NFD spelling
    repo.save_project(make_project(reviewers=(nfc,)), "sha256:a", b"{}\n")
    repo.save_project(make_project("nfd", reviewers=(nfd,)), "sha256:b", b"{}\n")
    repo.add_cases("demo", [(make_request("R1"), make_decision("req-demo-1"))])
    repo.add_cases("nfd", [(make_request("R1"), make_decision("req-nfd-1"))])
    from_env = Settings.from_env({"ETKI_REVIEWER": f" {nfd}\t", "ETKI_WIKI_DIR": ""})
    assert from_env.reviewer == nfc
    assert ApprovalService(repo, from_env).rule("req-demo-1", "approve").ruling.reviewer == nfc
    svc = ApprovalService(repo, Settings(db_url="unused", reviewer=nfc, wiki_dir=None))
    assert svc.rule("req-nfd-1", "approve").ruling.reviewer == nfc
    # case is kept: a differently cased name is another name (etki.identity)
    repo.add_cases("demo", [(make_request("R2"), make_decision("req-demo-2"))])
    with pytest.raises(PermissionDeniedError):
        ApprovalService(
            repo, Settings(db_url="unused", reviewer="j\u00fcrgen", wiki_dir=None)
        ).rule("req-demo-2", "approve")


def test_changing_reviewers_needs_the_flag_and_an_approver(tmp_path):
    from etki.errors import ReviewersChangedError

    repo = CaseFileRepository(f"sqlite:///{tmp_path}/etki.db", clock=frozen_clock)
    repo.save_project(make_project(), "sha256:a", b"{}\n", actor="ayse")
    wider = make_project(reviewers=("ayse", "jurgen", "mallory"))
    with pytest.raises(ReviewersChangedError, match="add approver 'mallory'") as err:
        repo.save_project(wider, "sha256:b", b"{}\n", actor="ayse")
    assert err.value.changes == ("add approver 'mallory'",)
    # the command as it runs, with the project's folder (etki init takes PROJECT_DIR)
    root = str(Path(wider.root).resolve())
    assert f"`etki init {shlex.quote(root)} --update-reviewers`" in str(err.value)
    with pytest.raises(PermissionDeniedError, match="ask a project approver"):
        repo.save_project(wider, "sha256:b", b"{}\n", update_reviewers=True, actor="mallory")
    assert repo.index_hash("demo") == "sha256:a"  # nothing stored by either
    narrower = make_project(reviewers=("jurgen",))
    assert repo.save_project(
        narrower, "sha256:c", b"{}\n", update_reviewers=True, actor="ayse"
    ) == ("remove approver 'ayse'",)
    assert [a.outcome for a in repo.project_audit("demo")] == [
        "created",
        "refused",
        "denied",
        "changed",
    ]
    # a stored list without any approver cannot lock everyone out of fixing it
    repo.save_project(make_project("view", reviewers=()), "sha256:d", b"{}\n")
    assert repo.save_project(
        make_project("view"), "sha256:e", b"{}\n", update_reviewers=True, actor="anyone"
    ) == ("add approver 'ayse'", "add approver 'jurgen'")
