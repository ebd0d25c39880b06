"""The store on real SQLite files and, where the server is there, real PostgreSQL."""

from __future__ import annotations

from contextlib import ExitStack

import pytest

from etki.errors import ConflictError, NotFoundError
from etki.store import CaseFileRepository
from tests.factories import frozen_clock, make_decision, make_project, make_request
from tests.pg import fresh_schema


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def repo(request, tmp_path):
    if request.param == "sqlite":
        r = CaseFileRepository(f"sqlite:///{tmp_path}/etki.db", clock=frozen_clock)
        yield r
        r.dispose()
        return
    with fresh_schema() as pg:
        r = CaseFileRepository(pg.engine(), clock=frozen_clock)
        yield r
        r.dispose()


def _seed(repo: CaseFileRepository) -> None:
    repo.save_project(make_project(), "sha256:abc", b'{"nodes": []}\n')
    repo.add_cases(
        "demo",
        [
            (make_request("R1"), make_decision("req-demo-1")),
            (make_request("R2", "Pay tax"), make_decision("req-demo-2", "CHANGE_REQUEST")),
        ],
    )


def test_project_round_trips(repo):
    project = make_project()
    repo.save_project(project, "sha256:abc", b"{}\n")
    back = repo.load_project("demo")
    assert back.config == project.config
    assert back.clauses == project.clauses
    assert back.modules == project.modules
    assert back.workitems == project.workitems
    assert repo.index_hash("demo") == "sha256:abc"


def test_unknown_project_names_the_known_ones(repo):
    _seed(repo)
    with pytest.raises(NotFoundError, match="no project 'nope'.*demo"):
        repo.load_project("nope")


def test_decision_is_written_once(repo):
    _seed(repo)
    again = make_decision("req-demo-1", "REJECT")
    assert repo.add_cases("demo", [(make_request("R1"), again)]) == 0
    assert repo.case("req-demo-1").decision.verdict == "IN_SCOPE"
    assert repo.case("req-demo-1").decision == make_decision("req-demo-1")


def test_ruling_bumps_version_and_writes_audit(repo):
    _seed(repo)
    r = repo.record_ruling("req-demo-2", "approve", "ayse", "covered by 4.1")
    assert (r.ruling, r.verdict, r.is_override, r.version) == (
        "IN_SCOPE",
        "CHANGE_REQUEST",
        True,
        2,
    )
    case = repo.case("req-demo-2")
    assert (case.status, case.version, case.ruling.reason) == ("ruled", 2, "covered by 4.1")
    assert repo.audit_log() == [
        ("req-demo-2", "ayse", "approve", "IN_SCOPE", "2026-11-29T12:00:00Z", 2, "committed")
    ]
    assert [c.case_id for c in repo.cases("demo", status="pending")] == ["req-demo-1"]


def test_lost_update_is_a_conflict(repo):
    """shared/cases/B16: A and B both read version 1; A commits; B gets a conflict and
    the row keeps A's ruling at version 2."""
    _seed(repo)
    seen_a = repo.case("req-demo-1").version
    seen_b = repo.case("req-demo-1").version
    repo.record_ruling("req-demo-1", "approve", "ayse", "SSO düzeltildi", expected_version=seen_a)
    with pytest.raises(ConflictError) as err:
        repo.record_ruling(
            "req-demo-1", "reject", "jurgen", "yetersiz bilgi", expected_version=seen_b
        )
    assert err.value.ruled_by == "ayse" and "reload" in str(err.value)
    case = repo.case("req-demo-1")
    assert (case.ruling.ruling, case.ruling.reason, case.version) == (
        "IN_SCOPE",
        "SSO düzeltildi",
        2,
    )
    assert [row[-1] for row in repo.audit_log("req-demo-1")] == ["committed", "conflict"]


def test_unknown_case_and_action(repo):
    _seed(repo)
    with pytest.raises(NotFoundError):
        repo.record_ruling("req-demo-x", "approve", "ayse", "")
    with pytest.raises(Exception, match="unknown action"):
        repo.record_ruling("req-demo-1", "approve!", "ayse", "")


def test_sqlite_file_is_wal(tmp_path):
    repo = CaseFileRepository(f"sqlite:///{tmp_path}/sub/dir/etki.db")
    with repo.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    assert (tmp_path / "sub" / "dir" / "etki.db").exists()


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def test_an_error_never_carries_the_sql_parameters(backend, tmp_path):
    """Issue 11 item 3: an IntegrityError printed the request text among the SQL
    parameters. Every engine Etki makes hides them (``hide_parameters``)."""
    from sqlalchemy.exc import IntegrityError

    from etki.store.models import CaseRow

    secret = "Gizli müşteri talebi: ACME wants SSO by Friday"
    with ExitStack() as stack:
        if backend == "sqlite":
            url = f"sqlite:///{tmp_path}/etki.db"
        else:
            url = stack.enter_context(fresh_schema()).url
        repo = CaseFileRepository(url)  # the engine of etki.store.db.make_engine
        try:
            _seed(repo)
            row = {
                "id": "req-demo-1",
                "project_id": "demo",
                "request_id": "R9",
                "title": secret,
                "text": secret,
                "created_at": "2026-11-29T12:00:00Z",
                "status": "pending",
                "version": 1,
                "seq": 9,
            }
            with pytest.raises(IntegrityError) as err, repo.engine.begin() as conn:
                conn.execute(CaseRow.__table__.insert(), row)
            assert "req-demo-1" in str(err.value) or "UNIQUE" in str(err.value)
            assert secret not in str(err.value)
            assert "SQL parameters hidden" in str(err.value)
        finally:
            repo.dispose()
