"""Files exported before a KVKK erasure (a PMO trial of issue 35): a change-request
document and a queue export written before ``etki erase`` still hold the erased text
(they are outside the store), so erase's output ends saying so, as the README's erasure
section does. Real SQLite store of the sample project, the real CLI."""

from __future__ import annotations

import os
from pathlib import Path

from etki.commands.store import EXPORTS_NOTE
from etki.config import Settings
from etki.services import Desk, init_project
from etki.store import CaseFileRepository
from tests.cli_support import run_etki

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_project"
REVIEWER = "Ayşe Yılmaz"  # an approver of sample_project/etki.yaml


def test_erase_ends_saying_exported_files_are_to_be_deleted_by_hand(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/etki.db"
    repo = CaseFileRepository(url)
    settings = Settings(db_url=url, reviewer=REVIEWER)
    init_project(SAMPLE, repo, settings, related_context=False)
    desk = Desk(settings, repo)
    case = next(c for c in repo.cases("demo", status="pending") if c.request_id == "DEMO-005")
    desk.rule(case.case_id, "convert_to_cr", reason="a new requirement")
    repo.dispose()
    env = {
        **os.environ,
        "ETKI_DB_URL": url,
        "ETKI_REVIEWER": REVIEWER,
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
    }
    env.pop("ETKI_WIKI_DIR", None)
    cr = tmp_path / "cr.md"
    done = run_etki(["cr", "export", case.case_id, "--output", str(cr)], env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    queue = tmp_path / "queue.csv"
    done = run_etki(["queue", "--all", "--output", str(queue)], env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr

    erased = run_etki(["erase", case.case_id, "--reason", "KVKK-42"], env=env, cwd=tmp_path)
    assert erased.returncode == 0, erased.stderr
    lines = erased.stdout.strip().splitlines()
    assert lines[-2] == f"{case.case_id}: erasure proven: no checked place holds it"
    assert lines[-1] == (
        "Files exported before the erasure (change-request documents, queue and report "
        "exports) are outside the store and may still hold the erased text: delete them "
        "by hand."
    )
    assert lines[-1] == EXPORTS_NOTE
    # what the sentence is about: the files still hold the request's text
    first_line = case.text.splitlines()[0]
    assert first_line in cr.read_text("utf-8")
    assert case.case_id in queue.read_text("utf-8-sig")
    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme.split("## Erasure (KVKK/GDPR)", 1)[1].split("\n## ", 1)[0]
    assert "exported before it" in section and "delete them by hand" in section
    assert "etki cr export" in section and "etki queue --output" in section
