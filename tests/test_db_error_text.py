"""Database errors in warnings and error lines follow the README's rule (issue 30 item 9):
the driver's error class and SQLSTATE, never the SQL, its parameters or request text; and
no message repeats a 100 kB value: it is cut with its length.

Real SQLAlchemy errors from real operations on SQLite and, where the server answers, the
PostgreSQL on 127.0.0.1:5432 (database ``test``); a real ruling whose wiki projection
fails on the database after the ruling committed; the real ``etki`` entry point."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import DBAPIError

from etki.config import Settings
from etki.errors import error_text
from etki.services import Desk, init_project
from etki.store import CaseFileRepository
from tests.cli_support import run_etki
from tests.factories import frozen_clock
from tests.pg import PG_URL

SAMPLE = Path(__file__).resolve().parents[1] / "sample_project"
REVIEWER = "Ayşe Yılmaz"
BIG = "clientwords" * 9310  # 102,410 characters of "request text"


def _failed(url: str) -> DBAPIError:
    """The error of a real statement quoting ``BIG`` on a table that is not there."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            conn.execute(text(f"SELECT '{BIG}' AS said FROM no_such_table_here"))
    except DBAPIError as exc:
        return exc
    finally:
        engine.dispose()
    raise AssertionError("the statement did not fail")


def _no_sql(said: str) -> None:
    assert "SELECT" not in said and "[SQL" not in said and "clientwords" not in said, said[:300]
    assert len(said) < 300, said[:300]


def test_a_real_sqlite_error_is_told_without_its_sql(tmp_path: Path) -> None:
    exc = _failed(f"sqlite:///{tmp_path}/x.db")
    assert "[SQL: SELECT" in str(exc)  # what used to be printed
    said = error_text(exc)
    _no_sql(said)
    assert said == (
        "OperationalError (sqlite3.OperationalError; SQLITE_ERROR; no such table: "
        "no_such_table_here)"
    )


@pytest.mark.postgres
@pytest.mark.usefixtures("pg_schema")  # skips cleanly when the server is absent
def test_a_real_postgresql_error_is_told_by_class_and_sqlstate() -> None:
    said = error_text(_failed(PG_URL))
    _no_sql(said)
    assert said.startswith("ProgrammingError (psycopg.errors.UndefinedTable; SQLSTATE 42P01")


@dataclass
class World:
    backend: str
    repo: CaseFileRepository
    desk: Desk
    drop: object  # a callable taking a table away behind the desk's back


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[World]:
    wiki = str(tmp_path / "wiki-{project}")
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path}/etki.db"
        repo = CaseFileRepository(url, clock=frozen_clock)
        other = create_engine(url)
    else:
        pg = request.getfixturevalue("pg_schema")  # dropped after this fixture
        repo = CaseFileRepository(pg.engine(), clock=frozen_clock)
        url = pg.url
        other = pg.engine()
    settings = Settings(db_url=url, wiki_dir=wiki, reviewer=REVIEWER)
    init_project(SAMPLE, repo, settings, related_context=False)
    desk = Desk(settings, repo)

    def drop() -> None:
        with other.begin() as conn:
            conn.execute(text("ALTER TABLE cases RENAME TO cases_gone"))

    yield World(request.param, repo, desk, drop)
    other.dispose()
    repo.dispose()


def test_wiki_not_updated_after_a_ruling_says_no_sql(world: World) -> None:
    """The ruling commits; the projection then fails on the database (the table it reads
    is gone, as a server gone mid-ruling fails it): the warning names the driver's class
    (and SQLSTATE on PostgreSQL), never the statement."""
    case = next(iter(world.repo.cases("demo", status="pending")))
    world.desk.rule_first(case.case_id, "approve", reason="Covered.")
    world.drop()  # type: ignore[operator]
    report, warning = world.desk.project_ruling(case.case_id)
    assert report is None and warning is not None
    assert warning.startswith("wiki not updated: ")
    _no_sql(warning)
    if world.backend == "sqlite":
        assert "sqlite3.OperationalError" in warning and "no such table: cases" in warning
    else:
        assert "psycopg.errors.UndefinedTable; SQLSTATE 42P01" in warning


def test_long_values_are_cut_with_their_length(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/etki.db"
    repo = CaseFileRepository(url, clock=frozen_clock)
    init_project(SAMPLE, repo, Settings(db_url=url, wiki_dir=None), related_context=False)
    repo.dispose()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "ETKI_DB_URL": url,
        "ETKI_WIKI_DIR": "",
    }
    for query in ("x" * 102400, "req-demo-" + "x" * 102391):  # a short id, a whole one
        done = run_etki(["cr", "export", query], env=env, cwd=tmp_path)
        assert done.returncode == 2, done.stderr[:300]
        assert f"'{query[:200]}…(102400 characters)'" in done.stderr, done.stderr[:300]
        assert len(done.stderr) < 1000, len(done.stderr)
    folder = str(tmp_path / ("p" * 102400))  # a path the system refuses as too long
    done = run_etki(["init", folder], env=env, cwd=tmp_path)
    assert done.returncode != 0 and f"…({len(folder)} characters)" in done.stderr
    assert len(done.stderr) < 1000, len(done.stderr)
    from etki.errors import clip

    assert clip("y" * 102400) == "y" * 200 + "…(102400 characters)"


def test_a_blank_wiki_dir_is_the_wiki_off_not_the_working_directory() -> None:
    """``Settings(wiki_dir="")`` made ``./demo/`` wikis in the working directory (two of
    this stop's tests committed one); blank is off, as ``ETKI_WIKI_DIR=""`` is."""
    assert Settings(db_url="sqlite://", wiki_dir="").wiki_path("demo") is None
    assert Settings(db_url="sqlite://", wiki_dir="  ").wiki_path("demo") is None
    assert Settings(db_url="sqlite://", wiki_dir="w").wiki_path("demo") == Path("w") / "demo"


def test_the_text_between_two_quoted_values_is_not_a_value() -> None:
    """The reviewer-list refusal quotes 'demo' and, a long path later, 'Mallory': the
    span between the two quotes was cut as if it were one long quoted value (found by
    the whole suite after the merge)."""
    from etki.errors import clip_values

    message = "project 'demo' is stored from " + "/x" * 150 + " ; add approver 'Mallory'"
    assert "add approver 'Mallory'" in clip_values(message)
    assert clip_values("q '" + "v" * 300 + "' end").endswith("…(300 characters)' end")
