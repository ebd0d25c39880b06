"""Issue 35 leftovers, item 6: an overdue PMO look's wait reads in days and hours past
a day (``2d 5h``), not in hours (a trial read "overdue 53h" and had to divide by 24):
:func:`etki.domain.waited_words`, the ``waiting`` column of ``etki report``'s
``overdue_looks`` (text, CSV and JSON alike), ``etki queue``'s line of an overdue case,
and the desk's detail pane (its Risk field).

The report's store is :mod:`tests.test_reports_pmo`'s (SQLite file, and PostgreSQL where
the server answers, through its ``store`` fixture), measured at its fixed ``NOW``.
"""

from __future__ import annotations

import io
import re
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from rich.console import Console

from etki.config import Settings
from etki.domain import Risk, waited_words
from etki.reports import report_tables, text_lines
from etki.services import Desk
from tests.cli_support import run_etki
from tests.factories import FROZEN, make_decision
from tests.test_reports_pmo import NOW, _cli_store, _env, _store, store  # noqa: F401


@pytest.mark.parametrize(
    ("hours", "words"),
    [
        (0.0, "0h"),
        (5.9, "5h"),
        (23.99, "23h"),
        (24.0, "1d"),
        (36.0, "1d 12h"),
        (48.2, "2d"),
        (53.0, "2d 5h"),
        (53.9, "2d 5h"),
        (1416.0, "59d"),
        (-1.0, "0h"),
    ],
)
def test_a_wait_reads_in_days_and_hours(hours: float, words: str) -> None:
    assert waited_words(hours) == words


def test_the_report_says_each_overdue_wait_in_days_and_hours(store) -> None:  # noqa: ANN001, F811
    repo, clock = store
    _store(repo, clock)
    settings = Settings(db_url="sqlite://", wiki_dir=None, reviewer="nobody")
    report = Desk(settings, repo).report("demo", now=NOW)
    table = next(t for t in report_tables(report) if t.name == "overdue_looks")
    assert table.columns[2:4] == ("hours_waiting", "waiting")
    # p5 59 days, p4 171 h, p3 84 h, p2 36 h (tests.test_report_export.OVERDUE)
    assert [(row[0], row[2], row[3]) for row in table.rows[:4]] == [
        ("req-demo-p5", 1416.0, "59d"),
        ("req-demo-p4", 171.0, "7d 3h"),
        ("req-demo-p3", 84.0, "3d 12h"),
        ("req-demo-p2", 36.0, "1d 12h"),
    ]
    lines = text_lines([table])
    assert re.search(r"req-demo-p4\s+Some request\.\s+171\s+7d 3h\s+submitted_at", "\n".join(lines))


def test_etki_queue_marks_an_overdue_look_with_its_wait(tmp_path: Path) -> None:
    """``etki queue`` measures at this machine's clock (as ``--overdue`` does): every
    pending case of the store is long overdue then, so each line says its
    wait as days and hours, never a bare count of hours."""
    _cli_store(tmp_path)
    done = run_etki(["queue", "--overdue"], env=_env(tmp_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 7
    for line in lines:
        assert " 24h " in line, line
        assert re.search(r"  look overdue, waiting \d+d( \d{1,2}h)?$", line), line


def _detail_text(case, now) -> str:  # noqa: ANN001
    from etki_tui.queue.detail import case_detail

    console = Console(file=io.StringIO(), width=160, color_system=None)
    console.print(case_detail(case, {}, {}, now=now))
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_the_desks_detail_says_how_long_an_overdue_look_has_waited(tmp_path: Path) -> None:
    from etki.domain import CaseRecord

    looked = replace(make_decision("c1"), risk=Risk("high", ("security",), True))
    case = CaseRecord(
        case_id="req-demo-c1",
        project_id="demo",
        request_id="R1",
        title="Şifre sıfırlama <b>[red]x[/red]",
        text="Passwort zurücksetzen",
        submitted_by=None,
        submitted_at=(FROZEN - timedelta(hours=53, minutes=20)).isoformat(),
        created_at=FROZEN.isoformat(),
        version=1,
        decision=looked,
    )
    text = _detail_text(case, FROZEN)
    assert "24h PMO look overdue, waiting 2d 5h" in text
    assert "[red]x[/red]" in text  # client text literal, markup not read
    within = replace(case, submitted_at=(FROZEN - timedelta(hours=5)).isoformat())
    assert "overdue" not in _detail_text(within, FROZEN)
    assert "24h PMO look" in _detail_text(within, FROZEN)
