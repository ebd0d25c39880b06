"""What a PMO reads of an ended engagement (issue 35 item 6, a PMO trial): ``etki queue``
without ``--project`` says an archived project's pending cases are not offered instead
of "no cases waiting"; ``etki show`` of a deleted project's case says it went with its
project even when nobody touched it, and its history is what it was before the deletion
(the events kept in ``deleted_case_events``), or the estimate, terms and assignment rows
the audit log holds for a project deleted before migration 0012.

Real SQLite files and the real PostgreSQL (skipped cleanly when absent); ``etki`` run in
process on the store.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text

from etki.config import Settings
from etki.domain import Request, parse_estimate
from etki.services import Desk
from etki.store import CaseFileRepository
from tests.cli_support import run_etki
from tests.factories import make_decision, make_project


def _at() -> datetime:
    return datetime(2027, 1, 10, 9, 30, tzinfo=UTC)


@dataclass
class World:
    url: str
    tmp: Path
    repo: CaseFileRepository

    def desk(self) -> Desk:
        return Desk(Settings(db_url=self.url, wiki_dir=None, reviewer="ayse"), self.repo)

    def etki(self, *args: str):  # noqa: ANN201
        env = {"HOME": str(self.tmp), "ETKI_DB_URL": self.url, "ETKI_REVIEWER": "ayse"}
        return run_etki(list(args), env=env, cwd=self.tmp)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def world(request, tmp_path) -> Iterator[World]:
    """The factory project ``demo`` (approvers ayse and jurgen) with three cases, ``req-demo-c1``
    ruled, ``…-c2`` and ``…-c3`` pending, on SQLite or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path}/etki.db"
    else:
        url = request.getfixturevalue("pg_schema").url
    repo = CaseFileRepository(url, clock=_at)
    try:
        repo.save_project(make_project(), "sha256:abc", b"{}\n")
        repo.add_cases(
            "demo",
            [
                (
                    Request(id=f"R{i}", title=f"İş {i}", text="Çiğdem ß"),
                    make_decision(f"req-demo-c{i}"),
                )
                for i in (1, 2, 3)
            ],
        )
        repo.record_ruling("req-demo-c1", "approve", "ayse", "in the contract")
        yield World(url, tmp_path, repo)
    finally:
        repo.dispose()


def test_queue_of_a_store_whose_only_project_is_archived_says_so(world) -> None:
    world.desk().archive_project("demo", "Sözleşme bitti", archived=True)
    done = world.etki("queue")
    assert done.returncode == 0, done.stderr
    assert "no cases waiting" not in done.stdout
    assert done.stdout.splitlines() == [
        "project demo is archived: its 2 pending cases are not offered; etki project unarchive demo"
    ]
    done = world.etki("queue", "--json")
    assert done.returncode == 0 and json.loads(done.stdout) == []  # stdout stays JSON
    assert "project demo is archived: its 2 pending cases are not offered" in done.stderr
    # the desk's path (the ORM) says the same
    from argparse import Namespace

    from etki.commands.cases import _queue_read_desk

    settings = Settings(db_url=world.url, wiki_dir=None, reviewer="ayse")
    read = _queue_read_desk(Namespace(command="queue", project=None, all=False), settings)
    assert read[0] == [] and read[3] == [("demo", 2)]
    world.desk().archive_project("demo", "", archived=False)
    done = world.etki("queue")
    assert "archived" not in done.stdout and "req-demo-c2" in done.stdout


def test_show_of_an_untouched_case_of_a_deleted_project_says_it_was_deleted(world) -> None:
    world.desk().delete_project("demo", "Sözleşme bitti; Jürgen")
    done = world.etki("show", "req-demo-c3")
    assert done.returncode == 0, done.stderr
    assert "req-demo-c3: deleted with its project demo by ayse at 2027-01-10" in done.stdout
    done = world.etki("show", "req-demo-c3", "--json")
    body = json.loads(done.stdout)
    assert body["case"] is None  # its history: what the deletion kept (migration 0012)
    assert [(e["kind"], e["text"]) for e in body["history"]] == [
        ("imported", ""),
        ("triaged", "engine test: IN_SCOPE (confidence 0.80)"),
    ]
    assert body["removed"]["how"] == "project_deleted"
    assert body["removed"]["reason"] == "Sözleşme bitti; Jürgen"
    assert world.etki("show", "req-demo-c99").returncode == 2  # never stored: still unknown


def test_a_deleted_cases_history_keeps_its_estimate_terms_and_assignments(world) -> None:
    desk, repo = world.desk(), world.repo
    repo.assign("req-demo-c2", "ayse", "jurgen")
    repo.assign("req-demo-c2", "ayse", "Ayşe Yılmaz")
    repo.add_estimate("req-demo-c2", "ayse", parse_estimate("2.5", "İki gün", "12500 EUR"))
    desk.set_cr_terms("req-demo-c2", assumptions=["Çiğdem's data"], valid_until="2027-02-01")
    live = [e.to_dict() for e in desk.case_history("req-demo-c2")]
    desk.delete_project("demo", "bitti")
    done = world.etki("show", "req-demo-c2", "--json")
    history = json.loads(done.stdout)["history"]
    assert history == live  # as listed before the deletion (migration 0012)
    assert [e["kind"] for e in history[:2]] == ["imported", "triaged"]
    assert history[2]["after"] == "jurgen" and history[3]["after"] == "Ayşe Yılmaz"
    assert history[4]["text"] == "2.5 days, 12,500.00 EUR: İki gün"  # the words kept too
    assert history[5]["kind"] == "cr_terms" and history[5]["text"]
    # a project deleted before 0012 kept no events: its audit rows stand in for them
    with world.repo.engine.begin() as conn:
        conn.execute(text("DELETE FROM deleted_case_events"))
    history = json.loads(world.etki("show", "req-demo-c2", "--json").stdout)["history"]
    assert [(e["kind"], e["actor"], e.get("after") or None) for e in history] == [
        (e["kind"], e["actor"], e.get("after") or None)
        for e in live
        if e["kind"] not in ("imported", "triaged")
    ]
    shown = world.etki("show", "req-demo-c2").stdout
    assert "deleted with its project demo" in shown and "jurgen" in shown


def _etki_process(world: World, *args: str) -> subprocess.CompletedProcess[str]:
    """``etki ARGS`` in a real ``python -m etki.cli`` subprocess on the world's store."""
    env = {
        **os.environ,
        "HOME": str(world.tmp),
        "ETKI_DB_URL": world.url,
        "ETKI_REVIEWER": "ayse",
        "ETKI_WIKI_DIR": "",
    }
    return subprocess.run(
        [sys.executable, "-m", "etki.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=world.tmp,
        check=False,
        timeout=120,
    )


def test_a_short_id_reads_a_gone_case_as_its_whole_id(world) -> None:
    """A PMO trial: ``etki show c3`` of a case whose project was deleted said "no case
    'c3'" while ``etki show req-demo-c3`` read it. The short id now names the gone case
    (deleted with its project, touched or not, or erased) and every command reads it as
    the whole id: show prints the same, a write is refused the same way."""
    desk = world.desk()
    desk.erase("req-demo-c1", "KVKK: talep sahibi silinmesini istedi", wait_s=0)
    desk.delete_project("demo", "Sözleşme bitti; Jürgen")
    for short, whole in (("c3", "req-demo-c3"), ("c1", "req-demo-c1")):
        by_short = _etki_process(world, "show", short)
        by_whole = _etki_process(world, "show", whole)
        assert (by_short.returncode, by_whole.returncode) == (0, 0), by_short.stderr
        assert by_short.stdout == by_whole.stdout
        as_json = json.loads(_etki_process(world, "show", short, "--json").stdout)
        assert as_json["case_id"] == whole and as_json["case"] is None
    assert "deleted with its project demo by ayse" in _etki_process(world, "show", "c3").stdout
    # a write on the short id: the refusal of the whole id, never "no case 'c3'"
    by_short = world.etki("note", "c3", "Çiğdem aradı")
    by_whole = world.etki("note", "req-demo-c3", "Çiğdem aradı")
    assert by_short.returncode == by_whole.returncode != 0
    assert by_short.stderr == by_whole.stderr and "no case 'c3'" not in by_short.stderr
    assert world.etki("show", "c99").returncode == 2  # never stored: still unknown


def test_a_short_id_of_a_project_loaded_again_names_the_stored_case(world) -> None:
    """A project deleted and loaded again holds the same case ids: the short id names
    the stored case, not the gone one."""
    world.desk().delete_project("demo", "yanlış yüklendi")
    world.repo.save_project(make_project(), "sha256:abc", b"{}\n")
    world.repo.add_cases(
        "demo", [(Request(id="R2", title="İş 2", text="Çiğdem ß"), make_decision("req-demo-c2"))]
    )
    shown = world.etki("show", "c2", "--json")
    assert shown.returncode == 0, shown.stderr
    body = json.loads(shown.stdout)
    assert body["case"] is not None and body["case"]["case_id"] == "req-demo-c2"
