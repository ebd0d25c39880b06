"""The store's clock (issue 30 item 6): times that order events or expire things come
from the database (PostgreSQL's ``clock_timestamp()``, SQLite's ``'now'``), never from
the writer's clock, and a claim lasts at most ``CLAIM_MAX_MINUTES`` (one working day).

A writer "a year ahead" is this process under ``time_machine.travel``: Python's clock
(``datetime.now``, ``time.time``) jumps a year, as on a machine whose clock is wrong;
PostgreSQL's server clock and SQLite's C-level ``'now'`` do not move. On real SQLite
files and, where the server is there, the PostgreSQL on 127.0.0.1:5432 (skipped with a
reason when absent)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import time_machine

from etki.errors import InputError
from etki.memory import overriding_case
from etki.store import CaseFileRepository
from etki.store.repository.events import CLAIM_MAX_MINUTES
from tests.cli_support import run_etki
from tests.factories import make_decision, make_project, make_request
from tests.pg import fresh_schema

SAMPLE = Path(__file__).resolve().parents[1] / "sample_project"
A_YEAR = timedelta(days=365)


def _moment(stored: str) -> datetime:
    """A stored time (``2026-11-29T12:00:00Z``) as an aware datetime."""
    return datetime.fromisoformat(stored.replace("Z", "+00:00"))


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[CaseFileRepository]:
    """A store on the database's clock (no injected clock) holding the demo project and
    two pending cases, ``req-demo-1`` (verdict IN_SCOPE) and ``req-demo-2``."""
    with ExitStack() as pg:  # the PostgreSQL schema, dropped at the end
        if request.param == "sqlite":
            repo = CaseFileRepository(f"sqlite:///{tmp_path}/etki.db")
        else:
            repo = CaseFileRepository(pg.enter_context(fresh_schema("etki_clock")).engine())
        repo.save_project(make_project(), "sha256:abc", b"{}\n")
        repo.add_cases(
            "demo",
            [
                (make_request("R1", "SSO login fails"), make_decision("req-demo-1")),
                (make_request("R2", "Build a native app"), make_decision("req-demo-2")),
            ],
        )
        yield repo
        repo.dispose()


def a_year_ahead() -> time_machine.travel:
    """This process's clock a year ahead of the real one (and ticking)."""
    return time_machine.travel(datetime.now(UTC) + A_YEAR, tick=True)


def test_a_claim_from_a_writer_a_year_ahead_lasts_its_real_length(store):
    before = store.now()
    with a_year_ahead():
        assert datetime.now(UTC) - before > A_YEAR - timedelta(days=1)  # the travel holds
        held = store.claim("req-demo-1", "ayse", 30)
    after = store.now()
    # the claim starts and ends by the database's clock: 30 minutes, not a year and 30
    assert before - timedelta(seconds=1) <= _moment(held.at) <= after + timedelta(seconds=1)
    assert _moment(held.until) - _moment(held.at) == timedelta(minutes=30)
    assert _moment(held.until) <= after + timedelta(minutes=30, seconds=1)
    live = store.live_claims("demo")
    assert live["req-demo-1"].until == held.until
    [event] = [e for e in store.case_history("req-demo-1") if e.kind == "claim"]
    assert event.until == held.until


def test_a_reader_a_year_ahead_does_not_see_a_live_claim_as_expired(store):
    """Expiry is decided against the database's clock: a reviewer whose clock runs a
    year ahead cannot take over a claim that is live, nor see it gone from the queue."""
    held = store.claim("req-demo-1", "ayse", 30)
    with a_year_ahead():
        assert store.live_claims("demo")["req-demo-1"].actor == "ayse"
        with pytest.raises(InputError, match=f"claimed by ayse until {held.until}"):
            store.claim("req-demo-1", "jurgen", 10)
        with pytest.raises(InputError, match="you hold no claim to release"):
            store.release("req-demo-1", "jurgen")
    assert store.live_claims("demo")["req-demo-1"].actor == "ayse"


def test_the_order_of_rulings_follows_the_database_not_the_writers_clock(store):
    """A ruling written a year ahead, then an amendment written on time: the history
    keeps them in the order they were committed, and the memory's order of rulings
    (oldest first, by ``ruled_at``) puts the first ruled case first."""
    with a_year_ahead():
        first = store.record_ruling("req-demo-1", "reject", "ayse", "not ours")
    amended = store.record_ruling("req-demo-1", "approve", "jurgen", "it is ours", amend=True)
    second = store.record_ruling("req-demo-2", "approve", "jurgen", "")
    assert first.ruled_at <= amended.ruled_at <= second.ruled_at
    assert _moment(second.ruled_at) <= store.now() + timedelta(seconds=1)
    kinds = [(e.kind, e.actor) for e in store.case_history("req-demo-1")]
    assert kinds[-2:] == [("ruled", "ayse"), ("amended", "jurgen")]
    ruled = sorted(store.cases("demo"), key=lambda c: (c.ruling.ruled_at, c.case_id))
    assert [c.case_id for c in ruled] == ["req-demo-1", "req-demo-2"]


def test_a_resolution_from_a_writer_a_year_ahead_is_overridden_by_a_later_ruling(store):
    """A resolution written a year ahead is still older than a ruling committed after
    it: the later disagreeing ruling overrides it (``ruled_at`` later than its ``at``)."""
    with a_year_ahead():
        resolution = store.record_resolution(
            "demo", "MSA#3.2", "CHANGE_REQUEST", "SSO is a change", "ayse"
        )
    ruling = store.record_ruling("req-demo-1", "approve", "jurgen", "")
    history = [("req-demo-1", ruling.ruling, ruling.reviewer, ruling.ruled_at)]
    assert resolution.at <= ruling.ruled_at
    # overridden, unless both fell in one second (a ruling then counts as one seen)
    expected = "req-demo-1" if ruling.ruled_at > resolution.at else None
    assert overriding_case(history, resolution) == expected


def test_a_claim_longer_than_a_working_day_is_refused(store):
    assert CLAIM_MAX_MINUTES == 480
    assert store.claim("req-demo-1", "ayse", CLAIM_MAX_MINUTES).actor == "ayse"
    with pytest.raises(InputError) as refused:
        store.claim("req-demo-2", "ayse", CLAIM_MAX_MINUTES + 1)
    assert str(refused.value) == (
        "claim: --minutes 481 is out of range; a claim lasts 1 to 480 minutes "
        "(one working day): claim again to extend it"
    )
    assert "req-demo-2" not in store.live_claims("demo")


def test_etki_claim_refuses_a_year_and_dates_a_claim_by_the_store(tmp_path):
    env = {
        **os.environ,
        "ETKI_DB_URL": f"sqlite:///{tmp_path}/etki.db",
        "ETKI_WIKI_DIR": str(tmp_path / "wiki-{project}"),
        "ETKI_REVIEWER": "reviewer",
    }
    assert run_etki(["init", str(SAMPLE)], env=env, cwd=tmp_path).returncode == 0
    queue = run_etki(["queue", "--project", "demo", "--json"], env=env, cwd=tmp_path)
    cid = json.loads(queue.stdout)[0]["case_id"]
    year = run_etki(["claim", cid, "--minutes", str(365 * 24 * 60)], env=env, cwd=tmp_path)
    refusal = (
        "etki: error: claim: --minutes 525600 is out of range; a claim lasts 1 to 480 "
        "minutes (one working day): claim again to extend it\n"
    )
    assert (year.returncode, year.stdout, year.stderr) == (2, "", refusal)
    with a_year_ahead():
        claimed = run_etki(["claim", cid, "--minutes", "20"], env=env, cwd=tmp_path)
    assert claimed.returncode == 0, claimed.stderr
    until = _moment(claimed.stdout.rsplit("until ", 1)[1].strip())
    assert until <= datetime.now(UTC) + timedelta(minutes=20, seconds=1)
