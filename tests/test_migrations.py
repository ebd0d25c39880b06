"""Schema migrations with Alembic (issue 6, item 7): a database made by the first
released schema (``create_all`` of etki 0.1.0, no ``alembic_version``) is upgraded by
``etki db upgrade`` without losing a row, on SQLite and PostgreSQL; migrations and
models agree; a fresh store is built by the migrations and stamped at head."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from contextlib import ExitStack
from dataclasses import asdict
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, inspect, select, text
from sqlalchemy.orm import Session

from etki.config import Settings
from etki.erasure import erase_case
from etki.store import CaseFileRepository
from etki.store.db import make_engine
from etki.store.migrate import FIRST_REVISION, current_revision, head_revision, upgrade
from etki.store.models import Base
from tests import first_release_models as v1
from tests.factories import make_decision, make_project
from tests.pg import fresh_schema

HOSTILE = "Şirket içi SSO: \"no\" 'yes' \x1b[31m [bold]x[/bold] \u202e ters 👩‍💻 \\ %s ?"


class _Store:
    """An empty database: a SQLite file, or a fresh PostgreSQL schema."""

    def __init__(self, kind: str, tmp: Path) -> None:
        self.kind = kind
        self._pg = ExitStack()  # the PostgreSQL schema, dropped by close()
        if kind == "sqlite":
            self.url = f"sqlite:///{tmp}/etki.db"
        else:
            self.url = self._pg.enter_context(fresh_schema("etki_mig")).url
        self.engine: Engine = make_engine(self.url)

    def close(self) -> None:
        self.engine.dispose()
        self._pg.close()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request, tmp_path):
    s = _Store(request.param, tmp_path)
    yield s
    s.close()


def _first_release_rows(engine: Engine) -> None:
    """What etki 0.1.0 stored: a project with its knowledge, three cases (one ruled, one
    lost a race, one pending), their decisions, a ruling, audit rows and the meta row."""
    v1.Base.metadata.create_all(engine)
    with Session(engine) as s, s.begin():
        s.add(v1.MetaRow(key="schema_version", value="1"))
        s.add(
            v1.ProjectRow(
                id="demo",
                name="Demo — İade",
                root="/srv/demo",
                config_json=json.dumps(asdict(make_project().config)),
                edge_types_json="[]",
                index_hash="sha256:abc",
                index_json='{"nodes": []}',
                loaded_at="2026-01-01T00:00:00Z",
            )
        )
        s.flush()
        s.add(
            v1.ContractRow(
                project_id="demo",
                id="MSA",
                title="Master",
                source="c/msa.md",
                chunking="by_heading",
                position=0,
            )
        )
        s.add(
            v1.ClauseRow(
                project_id="demo",
                ref="MSA#3.2",
                contract_id="MSA",
                number="3.2",
                title="SSO",
                text=HOSTILE,
                kind="inclusion",
                level=2,
                source="c/msa.md",
                line=12,
                parent=None,
                edges_json="[]",
                position=0,
            )
        )
        s.add(
            v1.ModuleRow(
                project_id="demo",
                id="auth.sso",
                path="auth/sso",
                summary="SSO",
                depends_on_json="[]",
                language=None,
                position=0,
            )
        )
        s.add(
            v1.WorkItemRow(
                project_id="demo",
                id="WI-1",
                title="SSO",
                kind="feature",
                date="2024-01-01",
                modules_json='["auth.sso"]',
                effort_days=2.5,
                position=0,
            )
        )
        for i, status in enumerate(("ruled", "ruled", "pending"), 1):
            s.add(
                v1.CaseRow(
                    id=f"req-demo-{i}",
                    project_id="demo",
                    request_id=f"R{i}",
                    title=f"{HOSTILE} {i}",
                    text=f"{HOSTILE}\nline 2 of {i}",
                    submitted_by="Kübra" if i == 1 else None,
                    submitted_at="2026-01-02" if i == 1 else None,
                    labels_json='["sso"]' if i == 2 else None,
                    created_at="2026-01-02T00:00:00Z",
                    status=status,
                    version=2 if status == "ruled" else 1,
                    seq=i,
                )
            )
        s.flush()
        for i in (1, 2, 3):
            s.add(
                v1.DecisionRow(
                    case_id=f"req-demo-{i}",
                    verdict="IN_SCOPE",
                    confidence=0.75,
                    engine_version="1.0",
                    decision_json=make_decision(f"req-demo-{i}").to_json(),
                    created_at="2026-01-02T00:00:00Z",
                )
            )
        for i in (1, 2):
            s.add(
                v1.RulingRow(
                    case_id=f"req-demo-{i}",
                    ruling="IN_SCOPE",
                    action="approve",
                    reviewer="ayse",
                    reason=HOSTILE,
                    ruled_at="2026-01-03T00:00:00Z",
                    version=2,
                )
            )
        s.flush()
        s.add(
            v1.AuditRow(
                case_id="req-demo-1",
                reviewer="ayse",
                action="approve",
                ruling="IN_SCOPE",
                reason=HOSTILE,
                at="2026-01-03T00:00:00Z",
                version=2,
                outcome="committed",
                before="pending",
                after="IN_SCOPE",
            )
        )
        s.add(
            v1.AuditRow(
                case_id="req-demo-1",
                reviewer="jurgen",
                action="reject",
                ruling="REJECT",
                reason="late",
                at="2026-01-03T00:00:01Z",
                version=2,
                outcome="conflict",
                before="IN_SCOPE",
                after="IN_SCOPE",
            )
        )


def _snapshot(engine: Engine) -> dict[str, list[dict]]:
    """Every row of every first-release table, by table, in primary-key order."""
    out: dict[str, list[dict]] = {}
    with engine.connect() as conn:
        for table in v1.Base.metadata.sorted_tables:
            cols = [c.name for c in table.columns]
            pk = list(table.primary_key.columns)
            rows = conn.execute(select(*[table.c[c] for c in cols]).order_by(*pk)).all()
            out[table.name] = [dict(zip(cols, r, strict=True)) for r in rows]
    return out


def _diff(engine: Engine, metadata) -> list:
    with engine.connect() as conn:
        return compare_metadata(MigrationContext.configure(conn), metadata)


def _etki(url: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "ETKI_DB_URL": url, "ETKI_WIKI_DIR": ""}
    return subprocess.run(
        [sys.executable, "-m", "etki.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_first_release_database_upgrades_without_losing_a_row(store, tmp_path):
    _first_release_rows(store.engine)
    before = _snapshot(store.engine)
    assert sum(len(rows) for rows in before.values()) == 16
    assert current_revision(store.engine) is None

    done = _etki(store.url, "db", "upgrade")
    assert done.returncode == 0, done.stderr
    expected = f"database schema upgraded from {FIRST_REVISION} to {head_revision()}"
    assert done.stdout.strip() == expected
    assert _snapshot(store.engine) == before  # every row, every value
    assert current_revision(store.engine) == head_revision()
    assert _diff(store.engine, Base.metadata) == []  # the schema is the models' schema
    assert inspect(store.engine).get_foreign_keys("audit_log") == []

    again = _etki(store.url, "db", "upgrade")
    assert again.stdout.strip() == f"database schema already at {head_revision()}"
    current = _etki(store.url, "db", "current")
    assert current.stdout.strip() == f"{head_revision()} (head)"

    # the upgraded store works: read, rule, erase (the audit log outlives the case)
    repo = CaseFileRepository(store.engine)
    assert [c.case_id for c in repo.cases("demo")] == ["req-demo-1", "req-demo-2", "req-demo-3"]
    assert repo.case("req-demo-1").ruling.reason == HOSTILE
    repo.record_ruling("req-demo-3", "approve", "ayse", "ok")
    erase_case(
        repo, Settings(db_url=store.url, wiki_dir=None, reviewer="ayse"), "req-demo-2", "KVKK"
    )
    assert [r[-1] for r in repo.audit_log()] == ["committed", "conflict", "committed", "erased"]


def test_migration_0001_is_the_first_released_schema(store):
    upgrade(store.engine, FIRST_REVISION)
    assert current_revision(store.engine) == FIRST_REVISION
    assert _diff(store.engine, v1.Base.metadata) == []
    # and the comparison does see what changed since: the later revisions' work
    changes = {op[0] for op in _diff(store.engine, Base.metadata)}
    assert {"add_table", "remove_fk"} <= changes


def test_a_fresh_store_is_built_by_the_migrations(store):
    repo = CaseFileRepository(store.engine)
    assert current_revision(store.engine) == head_revision()
    assert _diff(store.engine, Base.metadata) == []
    before = current_revision(store.engine)
    CaseFileRepository(store.engine)  # opening again changes nothing
    assert current_revision(store.engine) == before
    assert upgrade(store.engine) == (head_revision(), head_revision())
    repo.dispose()


def test_processes_opening_a_new_store_at_once_migrate_it_once(tmp_path):
    url = f"sqlite:///{tmp_path}/etki.db"
    start = time.time() + 1.0
    code = (
        "import sys, time\n"
        "from etki.store import CaseFileRepository\n"
        "while time.time() < float(sys.argv[2]): time.sleep(0.001)\n"
        "CaseFileRepository(sys.argv[1]).project_ids()\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, url, str(start)], stderr=subprocess.PIPE, text=True
        )
        for _ in range(4)
    ]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    engine = make_engine(url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).all() == [
            (head_revision(),)
        ]
    assert _diff(engine, Base.metadata) == []
    engine.dispose()


def _audit_rows(engine: Engine) -> list[dict]:
    with engine.connect() as conn:
        return [dict(r._mapping) for r in conn.execute(text("SELECT * FROM audit_log ORDER BY id"))]


def _downgrade(engine: Engine, revision: str) -> None:
    from alembic import command
    from alembic.config import Config

    from etki.store.migrate import MIGRATIONS_DIR

    with engine.connect() as conn:
        conn = conn.execution_options(etki_write=True)
        with conn.begin():
            config = Config()
            config.set_main_option("script_location", str(MIGRATIONS_DIR))
            config.attributes["connection"] = conn
            command.downgrade(config, revision)


def test_migration_0004_adds_who_ran_it_beside_every_older_audit_row(store):
    """Issue 11 item 9: rows written before 0004 keep every value and get NULL (unknown)
    OS user, host, pid and program; rows written after carry them; ``project_audit``
    exists; the revision downgrades and upgrades again without losing a row."""
    import getpass
    import socket

    _first_release_rows(store.engine)
    assert upgrade(store.engine, "0003") == (FIRST_REVISION, "0003")
    old = _audit_rows(store.engine)
    assert len(old) == 2 and "os_user" not in old[0]

    assert upgrade(store.engine) == ("0003", head_revision())
    assert _diff(store.engine, Base.metadata) == []
    migrated = _audit_rows(store.engine)
    identity = ("os_user", "host", "pid", "program")
    assert [{k: v for k, v in r.items() if k not in identity} for r in migrated] == old
    assert {(r["os_user"], r["host"], r["pid"], r["program"]) for r in migrated} == {
        (None, None, None, None)
    }  # not guessed
    assert "project_audit" in inspect(store.engine).get_table_names()

    repo = CaseFileRepository(store.engine)
    repo.record_ruling("req-demo-3", "approve", "ayse", "ok")
    new = repo.audit_entries("req-demo-3")[-1]
    assert (new.reviewer, new.pid, new.host) == ("ayse", os.getpid(), socket.gethostname())
    assert new.os_user == getpass.getuser() or new.os_user.startswith("uid ")
    assert repo.audit_entries("req-demo-1")[0].os_user is None
    # a project re-loaded with the same reviewers adds no reviewer-list row
    project = repo.load_project("demo")
    repo.save_project(project, "sha256:abc", b'{"nodes": []}')
    assert repo.project_audit("demo") == []
    repo.dispose()

    _downgrade(store.engine, "0003")
    assert _audit_rows(store.engine) == old + [
        {k: v for k, v in asdict(new).items() if k not in identity}
    ]
    assert "project_audit" not in inspect(store.engine).get_table_names()
    assert upgrade(store.engine) == ("0003", head_revision())
    assert _diff(store.engine, Base.metadata) == []


def test_the_written_head_revision_is_alembics_head() -> None:
    """Opening a store compares its revision with ``HEAD_REVISION`` (no Alembic import on
    the way, issue 15); it must be the head Alembic reads from the migrations folder."""
    from etki.store.migrate import HEAD_REVISION, head_revision

    assert head_revision() == HEAD_REVISION


def test_migration_0007_ties_events_to_their_case_and_records_wiki_folders(store):
    """Issue 30: events and pre-analyses left without their case (an erasure before
    0007, or a write that raced one) are deleted, the others kept; both tables then
    refuse a row for a case that is not stored; ``wiki_folders`` exists; the revision
    downgrades and upgrades again."""
    _first_release_rows(store.engine)
    assert upgrade(store.engine, "0006") == (FIRST_REVISION, "0006")
    insert = text(
        "INSERT INTO case_events (case_id, project_id, kind, actor, text, at) "
        "VALUES (:c, 'demo', 'note', 'ayse', :t, '2026-01-01T00:00:00Z')"
    )
    with store.engine.begin() as conn:
        conn.execute(insert, {"c": "req-demo-1", "t": "kept"})
        conn.execute(insert, {"c": "req-demo-gone", "t": "a racing note QRX5529"})
        conn.execute(
            text(
                "INSERT INTO preanalyses (case_id, model, prompt_version, status, body_json, "
                "created_at) VALUES ('req-demo-gone', 'm', 'p1', 'ok', '{}', "
                "'2026-01-01T00:00:00Z')"
            )
        )
    assert upgrade(store.engine) == ("0006", head_revision())
    assert _diff(store.engine, Base.metadata) == []
    with store.engine.connect() as conn:
        events = conn.execute(text("SELECT case_id, text FROM case_events")).all()
        assert [tuple(r) for r in events] == [("req-demo-1", "kept")]
        assert conn.execute(text("SELECT count(*) FROM preanalyses")).scalar() == 0
    with pytest.raises(Exception, match="(?i)foreign key"), store.engine.begin() as conn:
        conn.execute(insert, {"c": "req-demo-gone", "t": "again"})
    assert "wiki_folders" in inspect(store.engine).get_table_names()
    _downgrade(store.engine, "0006")
    assert "wiki_folders" not in inspect(store.engine).get_table_names()
    assert upgrade(store.engine) == ("0006", head_revision())
    assert _diff(store.engine, Base.metadata) == []


def test_migration_0008_fills_each_ruling_with_its_decisions_summary(store):
    """Issue 32 item 1: ``rulings.cited_refs`` and ``rulings.deciding_ref`` hold the
    clauses a ruled case's decision cites and the clause of its decisive evidence.
    A ruling writes them in its transaction; a store ruled before 0008 gets them from the
    migration, equal to what a ruling writes and to what the ORM reads of the full
    record (:func:`etki.memory.ruled_row`): a decisive clause that is cited, one that
    is not (no deciding ref), none at all, no cited clause, Turkish refs and a decision
    stored in a non-canonical JSON form. Pending cases have no ruling row to fill. The
    revision downgrades and upgrades again."""
    from etki.memory import ruled_row
    from tests.factories import make_request
    from tests.test_memory import _deciding

    repo = CaseFileRepository(store.engine)
    repo.save_project(make_project(), "sha256:abc", b"{}\n")
    decisions = [
        _deciding("req-demo-a", "IN_SCOPE", ("MSA#3.2", "MSA#4.1"), "MSA#4.1"),
        _deciding("req-demo-b", "REJECT", ("MSA#3.2",), "MSA#7.7"),  # not cited
        make_decision("req-demo-c", "CHANGE_REQUEST", ("Sözleşme-İ#2.1", "MSA#3.2")),
        make_decision("req-demo-d", "REJECT", ()),
        _deciding("req-demo-e", "IN_SCOPE", ("MSA#4.1", "MSA#4.10"), "MSA#4.10"),
        make_decision("req-demo-f", "IN_SCOPE", ("MSA#3.2",)),  # stays pending
    ]
    repo.add_cases("demo", [(make_request(d.case_id), d) for d in decisions])
    for d in decisions[:5]:
        repo.record_ruling(d.case_id, "convert_to_cr", "ayse", "")
    with store.engine.begin() as conn:  # one decision not in the canonical form
        stored = conn.execute(
            text("SELECT decision_json FROM decisions WHERE case_id = 'req-demo-e'")
        ).scalar_one()
        conn.execute(
            text("UPDATE decisions SET decision_json = :j WHERE case_id = 'req-demo-e'"),
            {"j": json.dumps(json.loads(stored), indent=2)},
        )
    select_all = text("SELECT case_id, cited_refs, deciding_ref FROM rulings ORDER BY case_id")
    with store.engine.connect() as conn:
        written = [tuple(r) for r in conn.execute(select_all)]
    expected = [
        ("req-demo-a", '["MSA#3.2","MSA#4.1"]', "MSA#4.1"),
        ("req-demo-b", '["MSA#3.2"]', None),
        ("req-demo-c", '["Sözleşme-İ#2.1","MSA#3.2"]', None),
        ("req-demo-d", "[]", None),
        ("req-demo-e", '["MSA#4.1","MSA#4.10"]', "MSA#4.10"),
    ]
    assert written == expected
    compact = (",", ":")
    by_orm = {
        c.case_id: (json.dumps(list(row[5]), ensure_ascii=False, separators=compact), row[6])
        for c in repo.cases("demo", status="ruled")
        for row in [ruled_row(c)]
    }
    assert by_orm == {case_id: (cited, deciding) for case_id, cited, deciding in expected}
    repo.dispose()

    _downgrade(store.engine, "0007")
    assert "cited_refs" not in {c["name"] for c in inspect(store.engine).get_columns("rulings")}
    assert upgrade(store.engine) == ("0007", head_revision())
    assert _diff(store.engine, Base.metadata) == []
    with store.engine.connect() as conn:
        assert [tuple(r) for r in conn.execute(select_all)] == expected


def test_migration_0009_fills_each_ruling_with_what_the_report_reads(store):
    """Issue 32 item 1: ``rulings.effort_low``, ``effort_high`` and ``deciding_text``
    hold the effort range of a ruled case's decision and what follows its deciding
    sentence's marker in its ``classify`` steps (``etki report`` reads them instead of
    every decision). A ruling writes them in its transaction; a store ruled before 0009
    gets them from the migration, equal to what a ruling writes and to the full record
    the ORM reads: a known and an unknown range, a decisive clause cited or not, two
    classify steps, none, Turkish text and a non-canonical JSON form. The revision
    downgrades and upgrades again."""
    from dataclasses import replace

    from etki.domain import DECIDING, Effort, EvidenceStep
    from tests.factories import make_request
    from tests.test_memory import _deciding

    repo = CaseFileRepository(store.engine)
    repo.save_project(make_project(), "sha256:abc", b"{}\n")
    twice = _deciding("req-demo-c", "CHANGE_REQUEST", ("Sözleşme-İ#2.1",), "Sözleşme-İ#2.1")
    twice = replace(
        twice, evidence=(*twice.evidence, EvidenceStep("classify", f"x; {DECIDING}MSA#9 “ö”"))
    )
    decisions = [
        _deciding("req-demo-a", "IN_SCOPE", ("MSA#3.2", "MSA#4.1"), "MSA#4.1"),
        replace(
            _deciding("req-demo-b", "REJECT", ("MSA#3.2",), "MSA#7.7"),  # not cited
            effort=Effort(None, None),
        ),
        twice,
        replace(make_decision("req-demo-d", "REJECT", ()), effort=Effort(2, 5.5)),
        make_decision("req-demo-f", "IN_SCOPE", ("MSA#3.2",)),  # stays pending
    ]
    repo.add_cases("demo", [(make_request(d.case_id), d) for d in decisions])
    for d in decisions[:4]:
        repo.record_ruling(d.case_id, "convert_to_cr", "ayse", "")
    with store.engine.begin() as conn:  # one decision not in the canonical form
        stored = conn.execute(
            text("SELECT decision_json FROM decisions WHERE case_id = 'req-demo-a'")
        ).scalar_one()
        conn.execute(
            text("UPDATE decisions SET decision_json = :j WHERE case_id = 'req-demo-a'"),
            {"j": json.dumps(json.loads(stored), indent=2)},
        )
    select_all = text(
        "SELECT case_id, effort_low, effort_high, deciding_text FROM rulings ORDER BY case_id"
    )
    with store.engine.connect() as conn:
        written = [tuple(r) for r in conn.execute(select_all)]
    rule = " (obligation, role rule: contractor obligation (default))"
    expected = [
        ("req-demo-a", 1.0, 3.0, _compact(["MSA#4.1" + rule])),
        ("req-demo-b", None, None, _compact(["MSA#7.7" + rule])),
        ("req-demo-c", 1.0, 3.0, _compact(["Sözleşme-İ#2.1" + rule, "MSA#9 “ö”"])),
        ("req-demo-d", 2.0, 5.5, "[]"),
    ]
    assert written == expected
    by_orm = {
        c.case_id: (
            c.decision.effort.low,
            c.decision.effort.high,
            [e.detail.split(DECIDING, 1)[1] for e in c.decision.evidence if DECIDING in e.detail],
        )
        for c in repo.cases("demo", status="ruled")
    }
    assert by_orm == {cid: (lo, hi, json.loads(t)) for cid, lo, hi, t in expected}
    repo.dispose()

    _downgrade(store.engine, "0008")
    assert "effort_low" not in {c["name"] for c in inspect(store.engine).get_columns("rulings")}
    assert upgrade(store.engine) == ("0008", head_revision())
    assert _diff(store.engine, Base.metadata) == []
    with store.engine.connect() as conn:
        assert [tuple(r) for r in conn.execute(select_all)] == expected


def _compact(values: list[str]) -> str:
    return json.dumps(values, ensure_ascii=False, separators=(",", ":"))


def test_migration_0010_fills_the_report_summaries(store):
    """Issue 32 item 1: ``report_tallies`` (current rulings per project, day, reviewer,
    engine verdict and ruling), ``rulings.verdict`` and ``ruling_refs`` (each cited ref
    of a ruling, a row each) are written with each ruling and amendment; a store ruled
    before 0010 gets them from the migration, equal to what the rulings wrote. The
    revision downgrades and upgrades again."""
    from tests.factories import make_request

    repo = CaseFileRepository(store.engine)
    repo.save_project(make_project(), "sha256:abc", b"{}\n")
    decisions = [
        make_decision("req-demo-a", "IN_SCOPE", ("MSA#3.2", "MSA#4.1")),
        make_decision("req-demo-b", "CHANGE_REQUEST", ("MSA#3.2",)),
        make_decision("req-demo-c", "REJECT", ()),
        make_decision("req-demo-d", "IN_SCOPE", ("Sözleşme-İ#2.1",)),
        make_decision("req-demo-e", "IN_SCOPE", ("MSA#3.2",)),  # stays pending
    ]
    repo.add_cases("demo", [(make_request(d.case_id), d) for d in decisions])
    repo.record_ruling("req-demo-a", "approve", "Ayşe", "")
    repo.record_ruling("req-demo-b", "approve", "Ayşe", "not new")
    repo.record_ruling("req-demo-b", "convert_to_cr", "Jürgen", "new after all", amend=True)
    repo.record_ruling("req-demo-c", "reject", "Jürgen", "")
    repo.record_ruling("req-demo-d", "reject", "Ayşe", "§2.1")
    repo.dispose()
    tallies = text(
        "SELECT project_id, substr(day, 1, 4), reviewer, verdict, ruling, n "
        "FROM report_tallies ORDER BY reviewer, verdict, ruling"
    )
    refs = text("SELECT case_id, ref FROM ruling_refs ORDER BY case_id, ref")
    verdicts = text("SELECT case_id, verdict FROM rulings ORDER BY case_id")
    with store.engine.connect() as conn:
        year = conn.execute(text("SELECT substr(MIN(ruled_at), 1, 4) FROM rulings")).scalar()
        written = [[tuple(r) for r in conn.execute(q)] for q in (tallies, refs, verdicts)]
    assert written == [
        [
            ("demo", year, "Ayşe", "IN_SCOPE", "IN_SCOPE", 1),
            ("demo", year, "Ayşe", "IN_SCOPE", "REJECT", 1),
            ("demo", year, "Jürgen", "CHANGE_REQUEST", "CHANGE_REQUEST", 1),
            ("demo", year, "Jürgen", "REJECT", "REJECT", 1),
        ],
        [
            ("req-demo-a", "MSA#3.2"),
            ("req-demo-a", "MSA#4.1"),
            ("req-demo-b", "MSA#3.2"),
            ("req-demo-d", "Sözleşme-İ#2.1"),
        ],
        [
            ("req-demo-a", "IN_SCOPE"),
            ("req-demo-b", "CHANGE_REQUEST"),
            ("req-demo-c", "REJECT"),
            ("req-demo-d", "IN_SCOPE"),
        ],
    ]
    _downgrade(store.engine, "0009")
    assert "report_tallies" not in inspect(store.engine).get_table_names()
    assert "verdict" not in {c["name"] for c in inspect(store.engine).get_columns("rulings")}
    assert upgrade(store.engine) == ("0009", head_revision())
    assert _diff(store.engine, Base.metadata) == []
    with store.engine.connect() as conn:
        assert [[tuple(r) for r in conn.execute(q)] for q in (tallies, refs, verdicts)] == written


def test_migration_0011_keeps_each_overrides_correction(store):
    """Issue 32 item 1: an override's ruling row keeps the clauses it counts as a
    correction on, the rule and the basis (the project's refs then); a ruling that is
    not an override keeps none, also after an amendment makes it agree with the engine.
    They equal :func:`etki.memory.correction_clauses` of the full record against the
    project's refs: a reason naming an uncited clause by number (§9.1), one naming a
    cited one (Turkish text), a decisive clause not cited, none of these (every cited
    clause). A store ruled before 0011 gets the same from the migration; the revision
    downgrades and upgrades again."""
    from etki.domain.corrections import refs_basis
    from etki.memory import correction_clauses
    from tests.factories import make_request
    from tests.test_memory import _deciding

    repo = CaseFileRepository(store.engine)
    repo.save_project(make_project(), "sha256:abc", b"{}\n")
    decisions = [
        make_decision("req-demo-a", "IN_SCOPE", ("MSA#3.2", "MSA#4.1")),
        _deciding("req-demo-b", "IN_SCOPE", ("MSA#3.2",), "MSA#9.1"),  # not cited
        make_decision("req-demo-c", "REJECT", ("MSA#3.2", "MSA#4.1")),
        make_decision("req-demo-d", "IN_SCOPE", ("MSA#4.1",)),
        make_decision("req-demo-e", "IN_SCOPE", ("MSA#3.2",)),
        make_decision("req-demo-f", "IN_SCOPE", ("MSA#3.2",)),  # stays pending
    ]
    repo.add_cases("demo", [(make_request(d.case_id), d) for d in decisions])
    repo.record_ruling("req-demo-a", "reject", "Ayşe", "§9.1 dışlıyor, İşte")
    repo.record_ruling("req-demo-b", "convert_to_cr", "Ayşe", "")
    repo.record_ruling("req-demo-c", "approve", "Jürgen", "")
    repo.record_ruling("req-demo-d", "reject", "Jürgen", "MSA#4.1 ödeme değil")
    repo.record_ruling("req-demo-e", "reject", "Ayşe", "no")
    repo.record_ruling("req-demo-e", "approve", "Ayşe", "yes after all", amend=True)
    known = ("MSA#3.2", "MSA#4.1", "MSA#9.1")
    select_all = text(
        "SELECT case_id, correction_refs, correction_rule, correction_basis FROM rulings "
        "ORDER BY case_id"
    )
    with store.engine.connect() as conn:
        written = [tuple(r) for r in conn.execute(select_all)]
    basis = refs_basis(known)
    assert written == [
        ("req-demo-a", '["MSA#9.1"]', "reason", basis),
        ("req-demo-b", '["MSA#9.1"]', "evidence", basis),
        ("req-demo-c", '["MSA#3.2","MSA#4.1"]', "cited", basis),
        ("req-demo-d", '["MSA#4.1"]', "reason", basis),
        ("req-demo-e", None, None, None),
    ]
    by_orm = {
        c.case_id: correction_clauses(c, known)
        for c in repo.cases("demo", status="ruled")
        if c.ruling is not None and c.ruling.is_override
    }
    assert by_orm == {
        cid: (tuple(json.loads(refs)), rule) for cid, refs, rule, _ in written if refs
    }
    repo.dispose()

    _downgrade(store.engine, "0010")
    assert "correction_refs" not in {
        c["name"] for c in inspect(store.engine).get_columns("rulings")
    }
    assert upgrade(store.engine) == ("0010", head_revision())
    assert _diff(store.engine, Base.metadata) == []
    with store.engine.connect() as conn:
        assert [tuple(r) for r in conn.execute(select_all)] == written


def test_migration_0012_keeps_a_deleted_projects_case_histories(store):
    """Issue 35 item 6: ``deleted_case_events`` is created empty on a store at 0011 (a
    project deleted before took its events with it); a deletion after it keeps each
    case's events there (the head events and a copy of the ``case_events`` rows, client
    text as written), which a downgrade drops with the table; the revision downgrades and
    upgrades again and matches the models."""
    from tests.factories import make_request

    _first_release_rows(store.engine)
    assert upgrade(store.engine, "0011") == (FIRST_REVISION, "0011")
    assert "deleted_case_events" not in inspect(store.engine).get_table_names()
    assert upgrade(store.engine) == ("0011", head_revision())
    assert _diff(store.engine, Base.metadata) == []
    count = text("SELECT count(*) FROM deleted_case_events")
    with store.engine.connect() as conn:
        assert conn.execute(count).scalar() == 0
    repo = CaseFileRepository(store.engine)
    repo.save_project(make_project("kvkk"), "sha256:abc", b"{}\n")
    repo.add_cases("kvkk", [(make_request("R1"), make_decision("req-kvkk-a", "REJECT"))])
    repo.add_note("req-kvkk-a", "Ayşe", HOSTILE)
    repo.delete_project("kvkk", "ayse", "Sözleşme bitti")
    select_kept = text(
        "SELECT case_id, project_id, kind, actor, text FROM deleted_case_events ORDER BY id"
    )
    with store.engine.connect() as conn:
        kept = [tuple(r) for r in conn.execute(select_kept)]
    assert kept == [
        ("req-kvkk-a", "kvkk", "imported", "", ""),
        ("req-kvkk-a", "kvkk", "triaged", "", "engine test: REJECT (confidence 0.80)"),
        ("req-kvkk-a", "kvkk", "note", "Ayşe", HOSTILE),
    ]
    assert [(e.kind, e.text) for e in repo.case_history("req-kvkk-a")] == [
        (k, t) for _c, _p, k, _a, t in kept
    ]
    repo.dispose()
    _downgrade(store.engine, "0011")
    assert "deleted_case_events" not in inspect(store.engine).get_table_names()
    assert upgrade(store.engine) == ("0011", head_revision())
    assert _diff(store.engine, Base.metadata) == []
