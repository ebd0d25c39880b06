"""``etki queue --overdue`` (issue 35 item 3): only the pending cases whose 24h PMO look
is overdue, by the rule ``etki report``'s ``overdue_looks`` counts (its Totals line
says how many). Real stores (the sample project on SQLite and on a fresh PostgreSQL
schema), the real CLI as a subprocess, the lean read path and the ORM path alike.

The sample's requests carry ``submitted_at`` dates long past, so each pending case whose
risk asks for the look is overdue; a request added now with personal-data wording asks
for the look but is not overdue yet; a ruled case leaves the list."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from etki.config import Settings
from etki.services import Desk, init_project
from etki.store import CaseFileRepository
from tests.cli_support import run_etki

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_project"
REVIEWER = "Ayşe Yılmaz"  # an approver of sample_project/etki.yaml
FRESH = "Ayşe'nin T.C. kimlik numarası ve kişisel verileri dışa aktarımda görünüyor"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path}/etki.db"
    else:
        url = request.getfixturevalue("pg_schema").url  # dropped after this fixture
    settings = Settings(db_url=url, wiki_dir=None, reviewer=REVIEWER, related_context=False)
    repo = CaseFileRepository(url)
    try:
        init_project(SAMPLE, repo, settings, related_context=False, preanalyse=False)
    finally:
        repo.dispose()
    yield url


def _etki(url: str, cwd: Path, *args: str, lean: bool = True) -> tuple[int, str, str]:
    env = {"ETKI_DB_URL": url, "ETKI_WIKI_DIR": "", "ETKI_REVIEWER": REVIEWER}
    if not lean:
        env["ETKI_LEAN_READ"] = "0"
    done = run_etki(list(args), env=env, cwd=cwd)
    return done.returncode, done.stdout, done.stderr


def _overdue_in_report(url: str, cwd: Path) -> tuple[list[str], int]:
    """The case ids of ``etki report``'s overdue_looks table and its Totals count."""
    code, out, err = _etki(url, cwd, "report", "--format", "json")
    assert code == 0, err
    reports = json.loads(out)["reports"]
    total = next(r["value"] for r in reports["totals"]["rows"] if r["measure"] == "overdue_looks")
    return [r["case"] for r in reports["overdue_looks"]["rows"]], total


def test_queue_overdue_lists_what_the_report_counts(store_url: str, tmp_path: Path) -> None:
    code, out, err = _etki(store_url, tmp_path, "queue", "--json")
    assert code == 0, err
    every = json.loads(out)
    looks = {r["case_id"] for r in every if r["pmo_look_24h"]}
    assert looks and len(looks) < len(every)  # the filter keeps some, not all

    code, out, err = _etki(store_url, tmp_path, "queue", "--overdue", "--json")
    assert code == 0, err
    overdue = [r["case_id"] for r in json.loads(out)]
    assert set(overdue) == looks  # every look of the sample is long past its 24 h
    in_report, total = _overdue_in_report(store_url, tmp_path)
    assert sorted(in_report) == sorted(overdue) and total == len(overdue)
    # the queue's order is kept (the report sorts by the longest wait)
    assert overdue == [r["case_id"] for r in every if r["case_id"] in looks]
    # the ORM path (the desk) keeps the same cases in the same order as the lean read
    assert _etki(store_url, tmp_path, "queue", "--overdue", "--json", lean=False)[1] == out
    text = _etki(store_url, tmp_path, "queue", "--overdue")[1].splitlines()
    assert [line.split()[0] for line in text] == overdue and all(" 24h " in t for t in text)
    assert all(re.search(r"  look overdue, waiting \d+d( \d+h)?$", t) for t in text), text

    # a look asked just now is not overdue yet: listed by the queue, not by --overdue
    code, out, err = _etki(store_url, tmp_path, "add", "--project", "demo", "--json", FRESH)
    assert code == 0, err
    fresh = json.loads(out)
    assert fresh["decision"]["risk"]["pmo_look_24h"] is True
    listed = json.loads(_etki(store_url, tmp_path, "queue", "--overdue", "--json")[1])
    assert fresh["case_id"] not in {r["case_id"] for r in listed}
    assert len(listed) == len(overdue) and _overdue_in_report(store_url, tmp_path)[1] == total

    # a ruled case leaves it (and the report's count) at once
    settings = Settings(db_url=store_url, wiki_dir=None, reviewer=REVIEWER)
    desk = Desk.open(settings)
    try:
        desk.rule(overdue[0], "approve")
    finally:
        desk.close()
    listed = json.loads(_etki(store_url, tmp_path, "queue", "--overdue", "--json")[1])
    assert [r["case_id"] for r in listed] == overdue[1:]
    assert _overdue_in_report(store_url, tmp_path)[1] == total - 1
    # with --all too: an overdue look is a pending case's
    every_overdue = _etki(store_url, tmp_path, "queue", "--all", "--overdue", "--json")[1]
    assert [r["case_id"] for r in json.loads(every_overdue)] == overdue[1:]

    # with another pick: both must hold, and an empty result says which picks were given
    code, out, _ = _etki(store_url, tmp_path, "queue", "--overdue", "--submitter", "nobody")
    assert code == 0 and out == "no case matches (submitter nobody; 24h look overdue)\n"
