"""Refusals that say what to do, in a real process as a PMO runs them: ``etki assign`` on
an engagement shipped without approvers (tdrs: a later trial of issue 34) names the
etki.yaml field to fill and the command that loads it; ``etki cr edit --clause`` with a
clause the contract does not have (issue 35's trial typed ``99.9``) names the closest
clauses with their titles."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from etki.config import Settings
from etki.domain import Request
from etki.knowledge.loader import load_project
from etki.services import Desk, init_project
from etki.store import CaseFileRepository
from tests.conftest import TDRS_DIR, tui_decision
from tests.factories import frozen_clock

SAMPLE = Path(__file__).resolve().parents[1] / "sample_project"
REVIEWER = "Ayşe Yılmaz"


def _etki(args: list[str], url: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(cwd),
        "ETKI_DB_URL": url,
        "ETKI_WIKI_DIR": "",
        "ETKI_REVIEWER": REVIEWER,
    }
    return subprocess.run(
        [sys.executable, "-m", "etki.cli", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
        timeout=120,
    )


@pytest.mark.skipif(not TDRS_DIR.is_dir(), reason="../shared/realdata/tdrs is absent")
def test_assigning_on_tdrs_as_shipped_names_the_field_and_the_command(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/etki.db"
    repo = CaseFileRepository(url, clock=frozen_clock)
    project = load_project(TDRS_DIR)
    assert project.config.reviewers == ()  # as shipped: nobody listed
    repo.save_project(project, "sha256:tdrs", b"{}\n")
    case = "req-tdrs-0c1a2b3d"
    repo.add_cases(
        "tdrs",
        [
            (
                Request("T1", "Sync sftp uploads.", "Sync"),
                tui_decision(case, "IN_SCOPE", (), confidence=0.7),
            )
        ],
    )
    root = repo.project_root("tdrs")
    repo.dispose()
    done = _etki(["assign", case, "--to", "Ayşe"], url, tmp_path)
    assert done.returncode == 2, done.stderr
    said = done.stderr
    assert "the project lists no approvers" in said
    assert f"under `reviewers:` in {root}/etki.yaml" in said and "`role: approver`" in said
    assert f"`etki init {shlex.quote(root)} --update-reviewers`" in said
    assert "Traceback" not in said


@pytest.fixture()
def cr_case(tmp_path: Path) -> tuple[str, str]:
    """The sample project stored, one CHANGE_REQUEST case converted: (db url, case id)."""
    url = f"sqlite:///{tmp_path}/etki.db"
    repo = CaseFileRepository(url, clock=frozen_clock)
    settings = Settings(db_url=url, wiki_dir=None, reviewer=REVIEWER)
    init_project(SAMPLE, repo, settings, related_context=False)
    case = next(
        c for c in repo.cases("demo", status="pending") if c.decision.verdict == "CHANGE_REQUEST"
    )
    Desk(settings, repo).rule(case.case_id, "convert_to_cr")
    repo.dispose()
    return url, case.case_id


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        # no clause spelled alike: its neighbours in the contract's order, and the span
        (
            "99.9",
            (
                "; did you mean 10.5 (Water billing system), 10.6 (SMS operator and mail "
                "relay), 10.7 (Excluded integrations)? (numbered 1 to 10.7)"
            ),
        ),
        (
            "0.1",
            (
                "; did you mean 1 (Purpose and definitions), 1.1 (Purpose), "
                "1.2 (Definitions)? (numbered 1 to 10.7)"
            ),
        ),
        # spelled alike, of its own section only (a typo)
        (
            "3.21",
            (
                "; did you mean 3.2 (Single sign-on for municipal staff), "
                "3.1 (Citizen login via e-Devlet)?"
            ),
        ),
        # a whole ref typed: whole refs back, of the document the ref names
        ("MSA-2024-01#99", "; did you mean MSA-2024-01#9.4 (Third-party fees), MSA-2024-01#9.5"),
    ],
)
def test_a_clause_the_contract_lacks_is_refused_with_the_closest(
    cr_case: tuple[str, str], tmp_path: Path, typed: str, said: str
) -> None:
    url, case_id = cr_case
    done = _etki(["cr", "edit", case_id, "--clause", typed], url, tmp_path)
    assert done.returncode == 2, done.stderr
    assert f"cr edit: the contract has no clause '{typed}'{said}" in done.stderr, done.stderr
