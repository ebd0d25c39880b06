"""Erasure against writes that race it (issue 30 item 1).

PostgreSQL: while ``etki erase`` is inside its transaction (held there by a third
session that locks a row the erasure's last statements must change), a second
connection adds a note or amends the ruling. Before issue 30 the note was committed
beside the erasure and kept its text, the amendment was refused as "already ruled" with
its reason left in ``audit_log``, and the erasure still said it was proven. Now the
writer waits for the erasure (``lock_case``: ``SELECT ... FOR UPDATE``), is refused with
``CaseErasedError`` ("is being erased"), writes nothing, and the proof looks at every
table that can hold the case's text. The threads wait for states (``pg_stat_activity``
of each session, named by its ``application_name``), never for time.

SQLite serialises writers already (``BEGIN IMMEDIATE``); there the proof's table check
and ``etki erase --finish`` are shown on a reason a writer from before issue 30 left.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

import pytest
from sqlalchemy import create_engine, text

from etki.config import Settings
from etki.domain import Request
from etki.erasure import erase_case, finish_erasure
from etki.store import CaseFileRepository
from etki.store.proof import leftover_places
from tests.factories import frozen_clock, make_decision, make_project, make_request
from tests.pg import PG_URL, fresh_schema

VICTIM = "req-demo-victim"
OTHER = "req-demo-other"
PHRASE = "Zümrüt Kaplumbağa ZKV4711"
NOTE = "Notiz über Gießkannenprinzip QRX5529"  # the racing writer's text
MARKERS = (b"ZKV4711", b"QRX5529")
WAIT_S = 60.0
"""Bound on waiting for a state; reached only when something is broken."""


def _until(state: Callable[[], bool], what: str) -> None:
    """Wait until ``state()`` is true (polled on an event, bounded by :data:`WAIT_S`)."""
    tick = threading.Event()
    for _ in range(int(WAIT_S / 0.02)):
        if state():
            return
        tick.wait(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def _seed(repo: CaseFileRepository) -> None:
    """The victim (ruled, with a reason), and another case whose related context names
    the victim's precedent, so the erasure's last statements change that other row."""
    repo.save_project(make_project(), "sha256:abc", b"{}\n")
    repo.add_cases(
        "demo",
        [
            (
                Request(id="R1", title=f"SSO for {PHRASE}", text=f"{PHRASE}: SSO fails"),
                make_decision(VICTIM),
            )
        ],
    )
    repo.record_ruling(VICTIM, "reject", "ayse", "first look")
    block = {
        "format": "etki-related-context/1",
        "nodes": [
            {"id": f"precedent:{VICTIM}", "type": "precedent", "title": f"SSO for {PHRASE}"},
            {"id": "clause:MSA#3.2", "type": "clause", "title": "Single sign-on"},
        ],
        "edges": [{"source": f"precedent:{VICTIM}", "target": "clause:MSA#3.2", "type": "cites"}],
        "dropped": [],
    }
    repo.add_cases(
        "demo",
        [(make_request("R2", "SSO again"), make_decision(OTHER))],
        contexts={OTHER: json.dumps(block, ensure_ascii=False)},
    )


@pytest.fixture
def pg():
    """``(repo_for(name), admin_connection, schema)`` on a fresh schema of the local
    PostgreSQL; each repo's sessions carry ``application_name`` ``name-SCHEMA``."""
    with fresh_schema("etki_race") as schema:
        repos: list[CaseFileRepository] = []

        def repo_for(name: str) -> CaseFileRepository:
            engine = schema.engine(application_name=f"{name}-{schema.name}")
            repo = CaseFileRepository(engine, clock=frozen_clock)
            repos.append(repo)
            return repo

        try:
            yield repo_for, schema.admin, schema.name
        finally:
            for repo in repos:
                repo.dispose()


def _waits_on_a_lock(admin, name: str) -> bool:
    with admin.connect() as conn:
        return bool(
            conn.execute(
                text(
                    "SELECT count(*) FROM pg_stat_activity "
                    "WHERE application_name = :n AND wait_event_type = 'Lock'"
                ),
                {"n": name},
            ).scalar()
        )


@pytest.mark.postgres
@pytest.mark.parametrize("writer", ["note", "amendment"])
def test_a_write_racing_an_erasure_waits_and_is_refused(pg, writer):
    repo_for, admin, schema = pg
    eraser, other = repo_for("eraser"), repo_for("writer")
    _seed(eraser)
    settings = Settings(db_url="unused", wiki_dir=None, reviewer="ayse")
    blocker_engine = create_engine(PG_URL, connect_args={"options": f"-csearch_path={schema}"})
    blocker = blocker_engine.connect()
    try:
        # hold the erasure inside its transaction, at its last statements: the other
        # case's related context, which names the victim, is locked by a third session
        blocker.begin()
        blocker.execute(
            text("SELECT case_id FROM decision_contexts WHERE case_id = :c FOR UPDATE"),
            {"c": OTHER},
        ).all()
        results: dict[str, object] = {}

        def run(key: str, call: Callable[[], object]) -> None:
            try:
                results[key] = call()
            except Exception as exc:  # noqa: BLE001 - asserted below
                results[key] = exc

        erase = threading.Thread(
            target=run,
            args=("erase", lambda: erase_case(eraser, settings, VICTIM, "KVKK 2026/30", wait_s=60)),
        )
        erase.start()
        _until(lambda: _waits_on_a_lock(admin, f"eraser-{schema}"), "the erasure to be held")
        if writer == "note":
            call: Callable[[], object] = lambda: other.add_note(VICTIM, "jurgen", NOTE)  # noqa: E731
        else:
            call = lambda: other.record_ruling(  # noqa: E731
                VICTIM, "approve", "ayse", NOTE, amend=True
            )
        write = threading.Thread(target=run, args=("write", call))
        write.start()
        # the writer either waits for the erasure (issue 30) or gets through beside it
        _until(
            lambda: not write.is_alive() or _waits_on_a_lock(admin, f"writer-{schema}"),
            "the writer to wait for the erasure or to finish",
        )
        blocker.rollback()
        write.join(WAIT_S)
        erase.join(WAIT_S * 3)
        assert not write.is_alive() and not erase.is_alive()
    finally:
        blocker.close()
        blocker_engine.dispose()

    outcome = results["erase"]
    assert not isinstance(outcome, Exception), outcome
    # nothing of the racing write's text is left in any live row
    live = eraser.live_bytes()
    for marker in MARKERS:
        assert marker not in live, f"{marker!r} outlived the erasure"
    refused = results["write"]
    assert type(refused).__name__ == "CaseErasedError", refused
    assert f"case {VICTIM} is being erased" in str(refused)
    assert "nothing was written" in str(refused)
    # no row of the refused write: the audit keeps the ruling and the tombstone only
    outcomes = [row[6] for row in eraser.audit_log(VICTIM)]
    assert outcomes == ["committed", "erased"]
    assert eraser.leftovers(VICTIM) == []
    assert outcome.complete, [p.line() for p in outcome.places]  # type: ignore[union-attr]
    assert any(p.what == f"rows of {VICTIM}" and not p.held for p in outcome.places)  # type: ignore[union-attr]


@pytest.mark.postgres
def test_a_write_after_the_erasure_is_refused_by_name(pg):
    repo_for, _admin, _schema = pg
    repo = repo_for("after")
    _seed(repo)
    repo.erase_case(VICTIM, "ayse", "KVKK")
    from etki.errors import CaseErasedError

    for write in (
        lambda: repo.add_note(VICTIM, "jurgen", NOTE),
        lambda: repo.record_ruling(VICTIM, "approve", "ayse", NOTE, amend=True),
        lambda: repo.audit_attempt(VICTIM, "mallory", "approve", NOTE, "denied"),
        lambda: repo.add_case_event(VICTIM, "viewed", "jurgen"),
    ):
        with pytest.raises(CaseErasedError, match=f"case {VICTIM} was erased"):
            write()
    assert b"QRX5529" not in repo.live_bytes()
    # the events table is tied to the case: a row for it cannot be written at all
    with pytest.raises(Exception, match="fk_case_events_case_id"), repo.engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO case_events (case_id, project_id, kind, actor, text, at) "
                "VALUES (:c, 'demo', 'note', 'x', :t, '2026-01-01T00:00:00Z')"
            ),
            {"c": VICTIM, "t": NOTE},
        )


def test_the_proof_names_a_table_a_late_writer_left_text_in_and_finish_clears_it(tmp_path):
    """A writer from before issue 30 (it did not wait for the erasure) left a refused
    attempt's reason in the audit log after the erasure: the proof names the table, and
    ``etki erase --finish`` replaces the reason and then proves the erasure."""
    url = f"sqlite:///{tmp_path}/etki.db"
    repo = CaseFileRepository(url, clock=frozen_clock)
    _seed(repo)
    settings = Settings(db_url=url, wiki_dir=None, reviewer="ayse")
    assert erase_case(repo, settings, VICTIM, "KVKK 2026/30", wait_s=10).complete
    with repo.engine.begin() as conn:  # what the old amendment's conflict row was
        conn.execute(
            text(
                "INSERT INTO audit_log (case_id, reviewer, action, ruling, reason, at, "
                "version, outcome, before, after) VALUES (:c, 'ayse', 'approve', "
                "'IN_SCOPE', :r, '2026-01-01T00:00:00Z', 2, 'conflict', 'pending', 'pending')"
            ),
            {"c": VICTIM, "r": NOTE},
        )
    left = repo.leftovers(VICTIM)
    assert [(x.table, x.rows) for x in left] == [("audit_log", 1)]
    (place,) = leftover_places(VICTIM, [(x.table, x.rows, x.what) for x in left])
    assert place.held and place.what == "table audit_log" and "1 row of" in place.detail
    done = finish_erasure(repo, settings, VICTIM, wait_s=10)
    assert done.complete, [p.line() for p in done.places]
    assert repo.leftovers(VICTIM) == []
    assert b"QRX5529" not in (tmp_path / "etki.db").read_bytes()
    repo.dispose()
