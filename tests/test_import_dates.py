"""``submitted_at`` of an imported request (a PMO trial of issue 35: "07.12.2026" was
taken silently and stored as written, so the pending age fell back to the store time):
a day-first dotted date (DIN 5008, Turkish usage) is stored as ISO 8601; any other form
keeps its row, stored, with a note naming the line and the forms read. Real SQLite
store, the real CLI."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from etki.knowledge.intake import day_first_date
from etki.store import CaseFileRepository
from tests.cli_support import run_etki

SAMPLE = Path(__file__).resolve().parents[1] / "sample_project"


def test_day_first_dates_read_as_iso() -> None:
    assert day_first_date("07.12.2026") == "2026-12-07"
    assert day_first_date(" 7.1.2026 14:30 ") == "2026-01-07T14:30:00"
    assert day_first_date("31.02.2026") is None  # no such day
    assert day_first_date("07/12/2026") is None  # order unknown: US reads 12 July


def test_import_reads_day_first_dates_and_keeps_rows_with_unreadable_ones(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    shutil.copytree(SAMPLE, project)
    url = f"sqlite:///{tmp_path}/etki.db"
    env = {**os.environ, "ETKI_DB_URL": url, "ETKI_REVIEWER": "reviewer"}
    env.pop("ETKI_WIKI_DIR", None)
    init = run_etki(["init", "--no-preanalysis", str(project)], env=env, cwd=tmp_path)
    assert init.returncode == 0, init.stderr
    rows = tmp_path / "talepler.csv"
    rows.write_text(
        "id,text,submitted_at\n"
        "T-1,Yeni bir makbuz modülü gerekiyor.,07.12.2026\n"
        "T-2,Taksitli ödeme de olmalı.,07/12/2026\n"
        "T-3,Logo eklensin.,2026-12-01\n",
        "utf-8",
    )
    done = run_etki(["import", str(rows), "--project", "demo"], env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "imported 3 new requests"
    assert (
        "note: talepler.csv: submitted_at read day first (DD.MM.YYYY, as DIN 5008 and "
        "Turkish usage write it) on line 2"
    ) in lines
    assert (
        "note: talepler.csv: submitted_at not read as a date on line 3 ('07/12/2026'): "
        "the request is stored, its age counts from when it was stored; write "
        "YYYY-MM-DD (ISO 8601, a time after it optional) or DD.MM.YYYY"
    ) in lines
    repo = CaseFileRepository(url)
    try:
        stored = {c.request_id: c.submitted_at for c in repo.cases("demo")}
    finally:
        repo.dispose()
    assert stored["T-1"] == "2026-12-07"
    assert stored["T-2"] == "07/12/2026"  # the row kept, its date as written
    assert stored["T-3"] == "2026-12-01"
    shown = run_etki(["queue", "--all", "--json"], env=env, cwd=tmp_path)
    assert {r["request_id"] for r in json.loads(shown.stdout)} >= {"T-1", "T-2", "T-3"}
