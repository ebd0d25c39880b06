"""SQLite's clock is each writer's own (issue 30 item 6, the gap left).

On SQLite the database's ``'now'`` is read by the writing process from its operating
system clock, so a writer under ``faketime`` (libfaketime moves that clock for one
process, C-level reads included, unlike ``time_machine``) used to store times a year
off: its claim blocked the case for a year, and its rulings and resolutions sorted
before or after the others by its clock, not by when they were committed. Now a SQLite
write is dated in the store's order (never before the last time written; a second after
it when the writer's clock is behind) and a claim ending further off than
``CLAIM_MAX_MINUTES`` binds nobody.

The writer a year off is a real process under Debian's ``faketime`` (skipped with the
reason when it is not installed); everything else runs in this process on the real
clock. Real SQLite files."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from etki.memory import overriding_case
from etki.store import CaseFileRepository
from tests.factories import make_decision, make_project, make_request

FAKETIME = shutil.which("faketime")
pytestmark = pytest.mark.skipif(
    FAKETIME is None, reason="faketime (Debian package faketime) is not installed"
)

WRITER = """\
import sys
from etki.store import CaseFileRepository
repo = CaseFileRepository(sys.argv[1])
what = sys.argv[2]
if what == "claim":
    print(repo.claim("req-demo-1", "ayse", 30).until)
elif what == "rule":
    print(repo.record_ruling(sys.argv[3], "reject", "ayse", "not ours").ruled_at)
else:
    print(repo.record_resolution("demo", "MSA#3.2", "IN_SCOPE", "SSO is ours", "ayse").at)
repo.dispose()
"""


def _off(url: str, shift: str, *args: str) -> str:
    """Run :data:`WRITER` with ``args`` in a process whose clock is ``shift`` off
    (``+365d``, ``-365d``); returns what it printed (the stored time)."""
    assert FAKETIME is not None
    done = subprocess.run(
        [FAKETIME, "-f", shift, sys.executable, "-c", WRITER, url, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _moment(stored: str) -> datetime:
    return datetime.fromisoformat(stored.replace("Z", "+00:00"))


@pytest.fixture
def store(tmp_path: Path) -> tuple[CaseFileRepository, str]:
    url = f"sqlite:///{tmp_path}/etki.db"
    repo = CaseFileRepository(url)
    repo.save_project(make_project(), "sha256:abc", b"{}\n")
    repo.add_cases(
        "demo",
        [
            (make_request(f"R{n}", f"request {n}"), make_decision(f"req-demo-{n}"))
            for n in range(1, 5)
        ],
    )
    return repo, url


def test_a_claim_written_a_year_ahead_blocks_nobody(store) -> None:
    repo, url = store
    until = _off(url, "+365d", "claim")
    assert _moment(until) > datetime.now(UTC) + timedelta(days=300)  # the writer's clock
    # before: "case req-demo-1 is claimed by ayse until <a year from now>"
    assert "req-demo-1" not in repo.live_claims("demo")
    mine = repo.claim("req-demo-1", "jurgen", 10)
    assert repo.live_claims("demo")["req-demo-1"].actor == "jurgen"
    assert _moment(mine.until) <= datetime.now(UTC) + timedelta(minutes=10, seconds=2)
    repo.dispose()


def test_rulings_keep_the_order_they_were_committed_in(store) -> None:
    repo, url = store
    first = repo.record_ruling("req-demo-1", "approve", "jurgen", "").ruled_at
    behind = _off(url, "-365d", "rule", "req-demo-2")
    # before: a year before the ruling committed ahead of it
    assert behind > first
    ahead = _off(url, "+365d", "rule", "req-demo-3")
    last = repo.record_ruling("req-demo-4", "approve", "jurgen", "").ruled_at
    assert first < behind <= ahead < last  # before: last was a year before ahead
    ruled = sorted(repo.cases("demo"), key=lambda c: (c.ruling.ruled_at, c.case_id))
    assert [c.case_id for c in ruled] == [f"req-demo-{n}" for n in range(1, 5)]
    repo.dispose()


def test_a_resolution_written_a_year_ahead_is_overridden_by_a_later_ruling(store) -> None:
    repo, url = store
    at = _off(url, "+365d", "resolve")
    ruling = repo.record_ruling("req-demo-1", "reject", "jurgen", "not ours")
    [resolution] = repo.clause_resolutions("demo")
    assert resolution.at == at and ruling.ruled_at > at
    history = [("req-demo-1", ruling.ruling, ruling.reviewer, ruling.ruled_at)]
    # before: the resolution stood for a year against every later ruling
    assert overriding_case(history, resolution) == "req-demo-1"
    repo.dispose()
