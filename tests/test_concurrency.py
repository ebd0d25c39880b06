"""Several reviewer processes ruling the same cases at once (shared/cases/B15, B16):
every case ends with exactly one ruling, every loser gets a ConflictError, no
"database is locked" reaches anyone, and the audit log holds every attempt."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from etki.store import CaseFileRepository
from etki.store.models import RulingRow
from tests.factories import make_decision, make_project, make_request
from tests.test_store import _postgres_repo

WORKER = Path(__file__).with_name("rule_worker.py")
CASES = 200


def _seed(repo: CaseFileRepository, reviewers: list[str]) -> list[str]:
    repo.save_project(make_project(reviewers=tuple(reviewers)), "sha256:abc", b"{}\n")
    ids = [f"req-demo-{i:04d}" for i in range(CASES)]
    repo.add_cases("demo", [(make_request(f"R{i}"), make_decision(cid))
                            for i, cid in enumerate(ids)])
    return ids


def _race(url: str, repo: CaseFileRepository, processes: int) -> None:
    reviewers = [f"reviewer-{n}" for n in range(processes)]
    ids = _seed(repo, reviewers)
    start = time.time() + 1.5  # a start barrier: every process begins at once
    procs = [subprocess.Popen([sys.executable, str(WORKER), url, who, "approve", str(start),
                               *ids], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for who in reviewers]
    tallies = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        tallies.append(json.loads(out))
    assert [t["errors"] for t in tallies] == [[]] * processes
    assert sum(t["committed"] for t in tallies) == CASES
    assert sum(t["conflict"] for t in tallies) == CASES * (processes - 1)
    with repo._read() as s:
        assert s.scalar(select(func.count()).select_from(RulingRow)) == CASES
    audit = repo.audit_log()
    assert len(audit) == CASES * processes
    assert sum(1 for row in audit if row[-1] == "committed") == CASES
    assert all(c.version == 2 for c in repo.cases("demo"))


@pytest.mark.parametrize("processes", [2, 4, 8])
def test_sqlite_reviewers_race(tmp_path, processes):
    url = f"sqlite:///{tmp_path}/etki.db"
    repo = CaseFileRepository(url)
    _race(url, repo, processes)


@pytest.mark.postgres
@pytest.mark.parametrize("processes", [2, 4, 8])
def test_postgres_reviewers_race(processes):
    repo, admin, schema = _postgres_repo()
    from sqlalchemy import text

    url = repo.engine.url.render_as_string(hide_password=False)
    try:
        # the workers reach the same schema through libpq's options parameter
        _race(f"{url}?options=-csearch_path%3D{schema}", repo, processes)
    finally:
        repo.dispose()
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
