"""A deleted project's cases keep their history (issue 35 item 6, migration 0012).

``etki project delete`` writes each case's events to ``deleted_case_events`` in its
transaction; ``etki show`` of such a case (the lean read path and the ORM path,
``ETKI_LEAN_READ=0``) lists what it listed before the deletion, says it is deleted
(when, by whom, why), and a KVKK erasure of the case removes those events with the
rest. Real SQLite files and the real PostgreSQL (skipped cleanly when absent); ``etki``
run in process, and once as a real subprocess.
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
from etki.erasure import erase_case
from etki.services import Desk
from etki.store import CaseFileRepository
from tests.cli_support import run_etki
from tests.factories import make_decision, make_project

AT = "2027-01-10T09:30:00Z"
NOTE = "Çiğdem aradı: İstanbul şubesi QZXNOTE, Straße ß"
REASON = "Sözleşme bitti; Jürgen onayladı"


def _at() -> datetime:
    return datetime(2027, 1, 10, 9, 30, tzinfo=UTC)


@dataclass
class World:
    url: str
    tmp: Path
    repo: CaseFileRepository

    def desk(self) -> Desk:
        return Desk(Settings(db_url=self.url, wiki_dir=None, reviewer="ayse"), self.repo)

    def etki(self, *args: str, lean: bool = True) -> subprocess.CompletedProcess[str]:
        env = {"HOME": str(self.tmp), "ETKI_DB_URL": self.url, "ETKI_REVIEWER": "ayse"}
        if not lean:
            env["ETKI_LEAN_READ"] = "0"  # the ORM path (etki.services.views.case_view)
        return run_etki(list(args), env=env, cwd=self.tmp)

    def kept(self, case_id: str) -> list[tuple[str, str, str]]:
        """``kind, actor, text`` of the case's ``deleted_case_events`` rows, by id."""
        with self.repo.engine.connect() as conn:
            rows = conn.execute(
                text(
                    "SELECT kind, actor, text FROM deleted_case_events WHERE case_id = :c "
                    "ORDER BY id"
                ),
                {"c": case_id},
            )
            return [tuple(r) for r in rows]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def world(request, tmp_path) -> Iterator[World]:
    """The factory project ``demo`` (approvers ayse and jurgen) with three cases:
    ``req-demo-c1`` ruled, ``…-c2`` noted, claimed, estimated, with CR terms and
    assigned, ``…-c3`` untouched; SQLite or a fresh PostgreSQL schema."""
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
                    make_decision(f"req-demo-c{i}", confidence=0.8 - i / 100),
                )
                for i in (1, 2, 3)
            ],
        )
        repo.record_ruling("req-demo-c1", "approve", "ayse", "in the contract, §3.2")
        repo.add_note("req-demo-c2", "Ayşe Yılmaz", NOTE)
        repo.claim("req-demo-c2", "jurgen", 30)
        repo.add_estimate("req-demo-c2", "ayse", parse_estimate("2.5", "İki gün", "12500 EUR"))
        repo.assign("req-demo-c2", "ayse", "jurgen")
        yield World(url, tmp_path, repo)
    finally:
        repo.dispose()


IDS = ("req-demo-c1", "req-demo-c2", "req-demo-c3")


def test_show_lists_a_deleted_cases_history_as_before_on_both_paths(world) -> None:
    world.desk().set_cr_terms(
        "req-demo-c2", assumptions=["Çiğdem's data"], valid_until="2027-02-01"
    )
    before = {cid: json.loads(world.etki("show", cid, "--json").stdout) for cid in IDS}
    lines = {
        cid: world.etki("show", cid).stdout.split("history (oldest first)\n")[1] for cid in IDS
    }
    assert [e["kind"] for e in before["req-demo-c3"]["history"]] == ["imported", "triaged"]
    assert before["req-demo-c3"]["history"][1]["text"] == "engine test: IN_SCOPE (confidence 0.77)"
    assert [e["kind"] for e in before["req-demo-c2"]["history"]] == [
        "imported",
        "triaged",
        "note",
        "claim",
        "estimate",
        "assign",
        "cr_terms",
    ]
    world.desk().delete_project("demo", REASON)
    removed = {"how": "project_deleted", "project_id": "demo", "by": "ayse", "at": AT}
    for cid in IDS:
        lean = world.etki("show", cid, "--json")
        orm = world.etki("show", cid, "--json", lean=False)
        assert (lean.returncode, orm.returncode) == (0, 0), lean.stderr + orm.stderr
        assert lean.stdout == orm.stdout  # the two paths say the same
        body = json.loads(lean.stdout)
        assert body["case"] is None
        assert body["removed"] == {**removed, "reason": REASON}
        assert body["history"] == before[cid]["history"], cid
        shown = world.etki("show", cid)
        assert shown.stdout == world.etki("show", cid, lean=False).stdout
        head, history = shown.stdout.split("history (oldest first)\n")
        assert (
            head
            == f"{cid}: deleted with its project demo by ayse at {AT} (its history is kept)\n\n"
        )
        assert history == lines[cid]
    note = json.loads(world.etki("show", "req-demo-c2", "--json").stdout)["history"][2]
    assert (note["kind"], note["actor"], note["text"]) == ("note", "Ayşe Yılmaz", NOTE)
    # what the table holds: the head events, then a copy of the case_events rows
    assert world.kept("req-demo-c3") == [
        ("imported", "", ""),
        ("triaged", "", "engine test: IN_SCOPE (confidence 0.77)"),
    ]
    assert [k for k, _a, _t in world.kept("req-demo-c2")][:4] == [
        "imported",
        "triaged",
        "note",
        "claim",
    ]
    # the short id reads the same (one resolver), in a real process too
    env = {**os.environ, "HOME": str(world.tmp), "ETKI_DB_URL": world.url, "ETKI_WIKI_DIR": ""}
    done = subprocess.run(
        [sys.executable, "-m", "etki.cli", "show", "c2", "--json"],
        env=env,
        cwd=world.tmp,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["history"] == before["req-demo-c2"]["history"]


def test_erasing_a_deleted_case_removes_its_kept_history(world) -> None:
    world.desk().delete_project("demo", REASON)
    assert world.kept("req-demo-c2") and world.kept("req-demo-c1")
    assert b"QZXNOTE" in world.repo.live_bytes()
    texts = world.repo.deleted_history_text("req-demo-c2")  # the erasure's words come from
    assert NOTE in texts and not [t for t in texts if t.startswith("engine ")]  # not triaged
    settings = Settings(db_url=world.url, wiki_dir=None)
    done = erase_case(
        world.repo, settings, "req-demo-c2", "KVKK md. 7", reviewer="jurgen", wait_s=5
    )
    assert done.erasure is not None and done.erasure.before == "deleted"
    assert world.kept("req-demo-c2") == []
    assert world.repo.leftovers("req-demo-c2") == []
    assert b"QZXNOTE" not in world.repo.live_bytes()
    assert [p.line() for p in done.places if p.held] == []
    assert world.kept("req-demo-c1")  # the other cases keep theirs
    for lean in (True, False):
        body = json.loads(world.etki("show", "req-demo-c2", "--json", lean=lean).stdout)
        assert body["removed"] == {"how": "erased"}
        # what is left: the tombstone (the note, estimate and assignment audit rows
        # stand for events, as for an erased case of a live project); no events
        assert [(e["kind"], e["text"]) for e in body["history"]] == [("erased", "KVKK md. 7")]
        assert NOTE not in json.dumps(body, ensure_ascii=False)


def test_erasing_a_case_stored_again_removes_its_earlier_lives_history(world) -> None:
    """A project deleted and loaded again holds the same case id: its history lists the
    earlier life's events (the audit log lists its rulings too), and an erasure of the
    stored case removes those kept events as well."""
    world.desk().delete_project("demo", "yanlış yüklendi")
    world.repo.save_project(make_project(), "sha256:abc", b"{}\n")
    world.repo.add_cases(
        "demo", [(Request(id="R2", title="İş 2", text="Çiğdem ß"), make_decision("req-demo-c2"))]
    )
    for lean in (True, False):
        body = json.loads(world.etki("show", "req-demo-c2", "--json", lean=lean).stdout)
        assert body["case"] is not None and body["removed"] is None
        assert [e["text"] for e in body["history"] if e["kind"] == "note"] == [NOTE]
    world.desk().erase("req-demo-c2", "KVKK md. 7", wait_s=5)
    assert world.kept("req-demo-c2") == []
    assert world.repo.leftovers("req-demo-c2") == []
    assert b"QZXNOTE" not in world.repo.live_bytes()
