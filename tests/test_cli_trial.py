"""Defects a fresh user's trial found in the ``etki`` command, each checked on a real
SQLite copy of the sample project through :func:`tests.cli_support.run_etki`: the
conflict message of a stale ``--expected-version``, ``--project`` left out with one
project stored, and ``cr export --output FOLDER/``."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from etki.store.repository import CaseFileRepository
from tests.cli_support import run_etki

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_project"


def _env(tmp: Path, reviewer: str = "reviewer") -> dict[str, str]:
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("ETKI_LLM")},
        "ETKI_DB_URL": f"sqlite:///{tmp}/etki.db",
        "ETKI_WIKI_DIR": str(tmp / "wiki-{project}"),
        "ETKI_REVIEWER": reviewer,
    }


@pytest.fixture(scope="module")
def _sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("trial")
    done = run_etki(["init", "--no-preanalysis", str(SAMPLE)], env=_env(tmp), cwd=tmp)
    assert done.returncode == 0, done.stderr
    return tmp


@pytest.fixture
def world(_sample: Path, tmp_path: Path) -> Path:
    src, dst = sqlite3.connect(_sample / "etki.db"), sqlite3.connect(tmp_path / "etki.db")
    src.backup(dst)
    src.close()
    dst.close()
    return tmp_path


def etki(tmp: Path, *args: str, reviewer: str = "reviewer") -> subprocess.CompletedProcess:
    return run_etki(args, env=_env(tmp, reviewer), cwd=tmp)


def _pending(tmp: Path) -> str:
    rows = json.loads(etki(tmp, "queue", "--json").stdout)
    return rows[0]["case_id"]


def test_a_stale_expected_version_names_both_versions(world: Path) -> None:
    cid = _pending(world)
    stale = etki(world, "rule", cid, "reject", "--reason", "no", "--expected-version", "7")
    assert stale.returncode == 2
    assert (
        f"case {cid} changed since you saw it: it is at version 1, you saw 7 (still pending)"
        in stale.stderr
    )
    assert "already ruled" not in stale.stderr
    repo = CaseFileRepository(f"sqlite:///{world}/etki.db")
    last = repo.audit_entries(cid)[-1]
    assert (last.outcome, last.before, last.after) == ("conflict", "pending", "pending")
    assert repo.case(cid).version == 1 and repo.case(cid).ruling is None

    # ruled, then amended by one reviewer: a second amendment from version 2 is stale
    assert etki(world, "rule", cid, "reject", "--reason", "not ours").returncode == 0
    amended = etki(
        world, "rule", cid, "cr", "--amend", "--reason", "a CR", "--expected-version", "2"
    )
    assert amended.returncode == 0, amended.stderr
    late = etki(
        world, "rule", cid, "approve", "--amend", "--reason", "x", "--expected-version", "2"
    )
    assert late.returncode == 2
    ruling = repo.case(cid).ruling
    assert ruling is not None
    assert (
        f"case {cid} changed since you saw it: it is at version 3, you saw 2 (now ruled "
        f"CHANGE_REQUEST by {ruling.reviewer} at {ruling.ruled_at})" in late.stderr
    )
    assert "already ruled" not in late.stderr
    last = repo.audit_entries(cid)[-1]
    assert (last.outcome, last.before) == ("conflict", "CHANGE_REQUEST")
    # ruling a ruled case without --amend still says it was already ruled
    again = etki(world, "rule", cid, "reject", "--reason", "no")
    assert (
        again.returncode == 2 and f"case {cid} was already ruled (CHANGE_REQUEST)" in again.stderr
    )
    repo.dispose()


def test_report_and_dispute_need_no_project_when_one_is_stored(world: Path) -> None:
    # (the pending ages are measured now: the reports compared do not show them)
    for args in (
        ("report", "--report", "totals"),
        ("report", "--format", "csv", "--report", "engine_verdicts"),
        ("dispute", "list", "--json"),
    ):
        given = etki(world, *args, "--project", "demo")
        left_out = etki(world, *args)
        assert given.returncode == 0, given.stderr
        assert (left_out.returncode, left_out.stdout) == (0, given.stdout), left_out.stderr
    resolve = etki(world, "dispute", "resolve", "9.99", "--verdict", "cr", "--reason", "x")
    assert resolve.returncode == 2 and "--project" not in resolve.stderr
    unknown = etki(world, "report", "--project", "nope")
    assert unknown.returncode == 2 and "no project 'nope'" in unknown.stderr


def test_cr_export_to_a_folder_path_ending_with_a_slash(world: Path) -> None:
    cid = _pending(world)
    assert etki(world, "rule", cid, "cr", "--reason", "new work").returncode == 0
    out = world / "x" / "out"
    done = etki(world, "cr", "export", cid, "--format", "html", "--output", f"{out}/")
    assert done.returncode == 0, done.stderr
    written = list(out.iterdir())
    assert len(written) == 1 and written[0].name.startswith("CR-")
    assert written[0].suffix == ".html"
    assert written[0].read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert f"change request written to {written[0]}" in done.stderr
    # a file path whose folder is missing: the folder is made, the file has that name
    target = world / "y" / "cr.md"
    done = etki(world, "cr", "export", cid, "--output", str(target))
    assert done.returncode == 0 and target.is_file()
    # a file where a folder is asked for: a clear refusal, exit 2
    (world / "plain").write_text("x", encoding="utf-8")
    done = etki(world, "cr", "export", cid, "--output", f"{world / 'plain'}/")
    assert done.returncode == 2 and "change request not written" in done.stderr
