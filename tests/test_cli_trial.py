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
    # a trial was told to "reload the queue" on the command line: it names --amend now
    assert (
        f"; to change its ruling, amend it: `etki rule {cid} reject --amend --reason TEXT` "
        "(the earlier ruling stays on record)\n" in again.stderr
    )
    assert "reload the queue" not in again.stderr + late.stderr + stale.stderr
    assert f"look at it again (`etki show {cid}`)" in late.stderr
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


def test_one_day_is_singular_and_the_frozen_label_is_not() -> None:
    from etki.domain import Effort, days_shown

    assert Effort(1, 1).shown() == "1 person-day"
    assert Effort(1, 1).label() == "1–1 person-days"  # stored evidence chains keep it
    assert Effort(1, 2).shown() == "1–2 person-days"
    assert Effort(13, 13).shown() == "13 person-days"
    assert days_shown(0.5) == "0.5 person-days" and days_shown(1.0) == "1 person-day"


def test_report_numbers_read_the_same_in_text_and_csv(world: Path) -> None:
    import csv
    import io

    repo = CaseFileRepository(f"sqlite:///{world}/etki.db")
    crs = [c for c in repo.cases("demo") if c.decision.effort.known][:2]
    repo.dispose()
    for c in crs:
        assert etki(world, "rule", c.case_id, "cr", "--reason", "new work").returncode == 0
    text = etki(world, "report", "--report", "cr_effort_by_month")
    table = etki(world, "report", "--format", "csv", "--report", "cr_effort_by_month")
    rows = list(csv.reader(io.StringIO(table.stdout, newline="")))[1:]
    low = sum(c.decision.effort.low or 0 for c in crs)
    assert rows and rows[0][4] == f"{low:g}" and not rows[0][4].endswith(".0")
    assert [r[4] for r in rows] == [line.split()[4] for line in text.stdout.splitlines()[2:]]


def test_totals_count_open_and_resolved_disputes_apart(world: Path) -> None:
    """Two rulings that read MSA-2024-01#4.8 differently dispute it; a PMO resolution
    moves it from open to resolved in the CLI report and in Raporlar's totals."""
    from etki.config import Settings
    from etki.services import Desk
    from etki_tui.raporlar.pane import _totals

    first, second = "req-demo-e8c73130", "req-demo-f76448de"
    assert etki(world, "rule", first, "approve").returncode == 0
    assert etki(world, "rule", second, "reject", "--reason", "not covered").returncode == 0

    def totals() -> dict[str, str]:
        done = etki(world, "report", "--format", "csv", "--report", "totals")
        return dict(list(csv_rows(done.stdout))[1:])

    assert (totals()["disputed_clauses"], totals()["disputed_resolved"]) == ("1", "0")
    done = etki(
        world, "dispute", "resolve", "4.8", "--verdict", "in_scope", "--reason", "covers it"
    )
    assert done.returncode == 0, done.stderr
    assert (totals()["disputed_clauses"], totals()["disputed_resolved"]) == ("0", "1")
    desk = Desk(Settings.from_env(_env(world)))
    report = desk.report("demo")
    assert (report.disputed, report.disputed_resolved) == (0, 1)
    from rich.console import Console

    console = Console(width=60, record=True)
    console.print(_totals(report))
    lines = console.export_text().splitlines()
    assert any(line.split()[:2] == ["Disputed", "0"] for line in lines)
    assert any(line.split()[:3] == ["Disputed,", "resolved", "1"] for line in lines)
    desk.close()


def csv_rows(text: str) -> list[list[str]]:
    import csv
    import io

    return list(csv.reader(io.StringIO(text, newline="")))


def test_erase_names_requests_jsonl_only_for_a_case_from_the_folder(world: Path) -> None:
    """A case ``etki init`` stored from requests.jsonl gets the note; one ``etki add``
    stored is in no file of the folder: no word about requests.jsonl."""
    from_folder = _pending(world)
    added = etki(world, "add", "--project", "demo", "Kiosk için QR kod ile giriş")
    assert added.returncode == 0, added.stderr
    case_id = added.stdout.split()[1]
    repo = CaseFileRepository(f"sqlite:///{world}/etki.db")
    assert [ev.text for ev in repo.case_history(case_id) if ev.kind == "imported"] == ["etki add"]
    history = repo.case_history(from_folder)
    repo.dispose()
    assert [ev.text for ev in history if ev.kind == "imported"] == ["requests.jsonl (etki init)"]
    listed = json.loads(etki(world, "queue", "--json").stdout)
    request_id = next(r["request_id"] for r in listed if r["case_id"] == from_folder)
    erased = etki(world, "erase", from_folder, "--reason", "KVKK-2026-01")
    assert erased.returncode == 0, erased.stderr
    # plainly: the file still holds the client's text, to be removed by hand; Etki will
    # not store the request again (a trial read the old note as a contradiction)
    note = (
        "note: project demo's requests.jsonl still holds the client's text of this request "
        f"(id {request_id}); `etki init` will not store the erased request again, so Etki "
        "needs nothing more, but the text stays on disk until you edit the file by hand "
        "and delete that row\n"
    )
    assert note in erased.stderr
    assert any(f'"id": "{request_id}"' in ln for ln in (SAMPLE / "requests.jsonl").open())
    erased = etki(world, "erase", case_id, "--reason", "KVKK-2026-02")
    assert erased.returncode == 0, erased.stderr
    assert "requests.jsonl" not in erased.stderr + erased.stdout


def test_cr_export_takes_the_format_from_the_file_ending(world: Path) -> None:
    """Issue 35 trial: ``--output x.docx --format md`` wrote Markdown into x.docx and
    ``--output y.html`` wrote Markdown; the ending gives the format, a contradiction is
    refused before anything is written."""
    cid = _pending(world)
    assert etki(world, "rule", cid, "cr", "--reason", "new work").returncode == 0
    html = world / "out" / "y.html"
    done = etki(world, "cr", "export", cid, "--output", str(html))
    assert done.returncode == 0, done.stderr
    assert html.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    docx = world / "out" / "z.docx"
    done = etki(world, "cr", "export", cid, "--output", str(docx))
    assert done.returncode == 0, done.stderr
    assert docx.read_bytes().startswith(b"PK")  # a Word file is a zip
    bad = world / "out" / "x.docx"
    done = etki(world, "cr", "export", cid, "--output", str(bad), "--format", "md")
    assert done.returncode == 2 and not bad.exists()
    assert "names a .docx file but --format md" in done.stderr
    assert "end the file name with .md" in done.stderr
    # the same rule for etki report and etki queue
    done = etki(world, "report", "--output", str(world / "r.xlsx"), "--format", "csv")
    assert done.returncode == 2 and "names a .xlsx file but --format csv" in done.stderr
    done = etki(world, "queue", "--output", str(world / "q.csv"), "--format", "xlsx")
    assert done.returncode == 2 and "names a .csv file but --format xlsx" in done.stderr
