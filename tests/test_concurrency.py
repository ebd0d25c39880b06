"""Several reviewer processes ruling the same cases at once (shared/cases/B15, B16):
every case ends with exactly one ruling, every loser gets a ConflictError, no
"database is locked" reaches anyone, and the audit log holds every attempt."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import func, select

from etki.store import CaseFileRepository
from etki.store.models import RulingRow
from tests.factories import frozen_clock, make_decision, make_project, make_request

pytestmark = pytest.mark.slow  # processes racing each other (pytest -m "not slow" leaves it out)

WORKER = Path(__file__).with_name("rule_worker.py")
CASES = 200


def _seed(repo: CaseFileRepository, reviewers: list[str]) -> list[str]:
    repo.save_project(make_project(reviewers=tuple(reviewers)), "sha256:abc", b"{}\n")
    ids = [f"req-demo-{i:04d}" for i in range(CASES)]
    repo.add_cases(
        "demo", [(make_request(f"R{i}"), make_decision(cid)) for i, cid in enumerate(ids)]
    )
    return ids


def _race(url: str, repo: CaseFileRepository, processes: int) -> None:
    reviewers = [f"reviewer-{n}" for n in range(processes)]
    ids = _seed(repo, reviewers)
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), url, who, "approve", *ids],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for who in reviewers
    ]
    for p in procs:  # the start barrier: a state (every worker ready), not a time
        assert p.stdout is not None and p.stdout.readline() == "ready\n", p.stderr
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
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
def test_postgres_reviewers_race(processes, pg_schema):
    repo = CaseFileRepository(pg_schema.engine(), clock=frozen_clock)
    try:
        # the workers reach the same schema through libpq's options parameter
        _race(pg_schema.url, repo, processes)
    finally:
        repo.dispose()


# --- concurrent `etki init` (issue 11 item 3) -------------------------------------------

BARRIER = Path(__file__).with_name("cli_barrier.py")
SAMPLE = Path(__file__).resolve().parents[1] / "sample_project"
INITS = 4


def _together(tmp_path: Path, url: str, commands: list[list[str]]) -> list[tuple[int, str, str]]:
    """Run each of ``commands`` (``etki`` arguments) in its own real process, all
    released at once by a barrier (every process has imported Etki and waits for a
    file), on the store at ``url``; returns ``(exit code, stdout, stderr)`` of each."""
    import os

    barrier = tmp_path / "barrier"
    barrier.mkdir()
    env = {**os.environ, "ETKI_DB_URL": url, "ETKI_WIKI_DIR": str(tmp_path / "wiki-{project}")}
    procs = [
        subprocess.Popen(
            [sys.executable, str(BARRIER), str(barrier), str(n), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tmp_path,
        )
        for n, args in enumerate(commands)
    ]
    while len(list(barrier.glob("ready-*"))) < len(procs):  # every process is at the line
        assert all(p.poll() is None for p in procs), [p.communicate() for p in procs]
        time.sleep(0.01)
    (barrier / "go").touch()
    results = []
    for p in procs:
        out, err = p.communicate(timeout=600)
        results.append((p.returncode, out, err))
    return results


def _init_race(tmp_path: Path, url: str) -> None:
    """Start ``INITS`` real ``etki init sample_project`` processes at once on a store
    that does not exist yet; every one must exit 0 without an error, and the store must
    hold exactly one copy of every case, clause and meta row."""
    results = _together(tmp_path, url, [["init", str(SAMPLE)]] * INITS)
    assert [(code, err) for code, _, err in results] == [(0, "")] * INITS
    assert all("project demo" in out for _, out, _ in results)
    requests = [
        json.loads(line)["id"]
        for line in (SAMPLE / "requests.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    repo = CaseFileRepository(url)
    try:
        cases = repo.cases("demo")
        assert sorted(c.request_id for c in cases) == sorted(requests)
        assert len({c.case_id for c in cases}) == len(requests)
        from etki.knowledge import load_project
        from etki.store.models import ClauseRow, MetaRow
        from etki.store.repository.base import STORE_CLOCK_KEY
        from etki.store.repository.wikiread import STORE_ID_KEY

        with repo._read() as s:
            assert s.scalar(select(func.count()).select_from(ClauseRow)) == len(
                load_project(SAMPLE).clauses
            )
            # one row of the project's meta, one of the store's identity (the render
            # cache's key) and one of its last time written (SQLite's order of times),
            # each once however many inits raced
            keys = s.scalars(select(MetaRow.key)).all()
            assert sorted(keys) == sorted({*keys}) and STORE_ID_KEY in keys
            assert len([k for k in keys if k not in (STORE_ID_KEY, STORE_CLOCK_KEY)]) == 1
        # each init's summary counts the cases it stored: together, each case once
        new = [int(out.split("new cases triaged: ")[1].split()[0]) for _, out, _ in results]
        assert sum(new) == len(requests)
        verdicts: Counter[str] = Counter()
        for _, out, _ in results:  # "new cases triaged: 12 (IN_SCOPE 7, REJECT 5)"
            dist = out.split("new cases triaged: ")[1].split("(")[1].split(")")[0]
            if dist != "none":
                verdicts.update({v: int(n) for v, n in (p.split() for p in dist.split(", "))})
        assert verdicts == Counter(c.decision.verdict for c in cases)
    finally:
        repo.dispose()


def test_sqlite_concurrent_init(tmp_path):
    _init_race(tmp_path, f"sqlite:///{tmp_path}/store/etki.db")


@pytest.mark.postgres
def test_postgres_concurrent_init(tmp_path, pg_schema):
    """The attack of issue 11 item 3: 3 of 4 processes died with IntegrityError on
    etki_meta_pkey, projects_pkey or cases_pkey (and printed the request text)."""
    _init_race(tmp_path, pg_schema.url)  # a new, empty schema: no Etki table yet


FIRST_COMMANDS = [
    ["init", str(SAMPLE)],
    ["queue", "--all"],
    ["projects"],
    ["db", "current"],
    ["queue", "--json"],
]
"""Commands that may be the first ones on a new store, all started at once."""


def _first_commands(tmp_path: Path, url: str) -> None:
    """init stores every case; each read command either finds the store (exit 0) or
    says it is not there yet (exit 2, issue 11 item 8: reads never create a store):
    never an internal error, never a race on etki_meta."""
    results = _together(tmp_path, url, FIRST_COMMANDS)
    assert (results[0][0], results[0][2]) == (0, "")
    for (code, _, err), command in zip(results[1:], FIRST_COMMANDS[1:], strict=True):
        assert (code, err) == (0, "") or (
            code == 2
            and (err.startswith("etki: error: no Etki store at") or "holds no Etki tables" in err)
        ), (command, code, err)
    assert "new cases triaged: 40" in results[0][1]
    repo = CaseFileRepository(url)
    try:
        assert len(repo.cases("demo")) == 40
    finally:
        repo.dispose()


def test_sqlite_first_commands_together(tmp_path):
    _first_commands(tmp_path, f"sqlite:///{tmp_path}/etki.db")


@pytest.mark.postgres
def test_postgres_first_commands_together(tmp_path, pg_schema):
    """Issue 11 item 3: any two commands starting on a new database raced on etki_meta."""
    _first_commands(tmp_path, pg_schema.url)  # a new, empty schema: no Etki table yet
