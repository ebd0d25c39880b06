"""``etki report`` on the lean read path (issue 32 item 1, :mod:`etki.store.lean_report`)
gives the report the ORM path gives (:meth:`etki.services.Desk.report`, and the command
with ``ETKI_LEAN_READ=0``), on SQLite and PostgreSQL: a store with an agreed ruling, an
override whose reason names clauses and hostile text, an amended override, a change
request with a reviewer's estimate and one without, a second reviewer, a resolved
dispute, an erased case, a hostile pending request; a ruling row without the
summary (the ORM path answers). Compared as values at one fixed moment (the pending
ages and overdue looks depend on it) and as printed text, JSON and CSV, for every
selection (``--since``, ``--until``, ``--reviewer``, none), and as the command prints
them (the moment masked)."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from sqlalchemy import text

from etki.config import Settings
from etki.domain import Report
from etki.errors import InputError
from etki.reports import (
    REPORT_NAMES,
    CaseSelection,
    check_reviewer_names,
    report_of_read,
    report_tables,
    tables_json,
    text_lines,
    write_csv,
)
from etki.services import Desk, init_project
from etki.store import CaseFileRepository
from etki.store.lean import lean_call
from etki.store.lean_report import report_read
from tests.cli_support import run_etki
from tests.conftest import REPO_ROOT

SAMPLE = REPO_ROOT / "sample_project"
REVIEWER = "Ayşe Yılmaz"
SECOND = "Jürgen Weiß"
HOSTILE = "[bold red]x[/] \x1b[2J \u202eİSTANBUL ıi ß Straße\nline two\t=HYPERLINK(1)"
NOW = datetime(2027, 1, 15, 9, 30, 7, tzinfo=UTC)
"""A fixed moment for the pending ages and the overdue looks."""
TIMED = ("pending_age", "overdue_looks")
"""The reports whose figures depend on the moment the command runs."""


def _settings(url: str, reviewer: str = REVIEWER) -> Settings:
    return Settings(db_url=url, wiki_dir=None, reviewer=reviewer, related_context=False)


def _fill(url: str, resolve: bool = True) -> None:
    """The sample project at ``url`` with rulings of every kind (module docstring); the
    dispute resolved when ``resolve``."""
    repo = CaseFileRepository(url)
    try:
        init_project(SAMPLE, repo, _settings(url), related_context=False, preanalyse=False)
        desk = Desk(_settings(url), repo)
        other = Desk(_settings(url, SECOND), repo)
        cases = repo.cases("demo")
        verdict = {c.case_id: c.decision.verdict for c in cases}
        # two cases citing MSA-2024-01#4.8 (engine IN_SCOPE), ruled apart: a dispute
        first, disputing = "req-demo-e8c73130", "req-demo-f76448de"
        ids = [c.case_id for c in cases if c.case_id not in (first, disputing)]
        desk.rule(first, "approve")
        other.rule(disputing, "convert_to_cr", reason="district breakdowns are new work")
        agreed, overridden, amended, cr, bare_cr, erased, second, third = ids[:8]
        agree = {"IN_SCOPE": "approve", "CHANGE_REQUEST": "convert_to_cr"}
        desk.rule(agreed, agree.get(verdict[agreed], "reject"), reason="as the engine says")
        other_way = "reject" if verdict[overridden] != "OUT_OF_SCOPE" else "approve"
        desk.rule(overridden, other_way, reason=f"per §4.8 and MSA-2024-01#5.2: {HOSTILE}")
        desk.rule(
            amended,
            "reject" if verdict[amended] != "OUT_OF_SCOPE" else "approve",
            reason="not ours",
        )
        desk.rule(amended, "convert_to_cr", reason="amended: 14.8 is new work", amend=True)
        desk.rule(cr, "convert_to_cr", reason="district breakdowns are new work")
        desk.add_estimate(cr, "12.5", "two screens " + HOSTILE, price="12500 EUR")
        desk.add_estimate(cr, "4.5", "one screen after all")
        desk.rule(
            bare_cr, "convert_to_cr", reason="" if verdict[bare_cr] == "CHANGE_REQUEST" else "cr"
        )
        other.rule(second, "reject", reason=HOSTILE)  # a reason: it may override
        other.rule(third, agree.get(verdict[third], "reject"), reason="agreed")
        desk.rule(erased, "reject", reason="to be erased")
        desk.erase(erased, "KVKK request", wait_s=5)
        if resolve:
            desk.resolve_dispute("demo", "MSA-2024-01#4.8", "CHANGE_REQUEST", "new, " + HOSTILE)
        desk.add_request("demo", HOSTILE, title=HOSTILE, submitted_by=HOSTILE)
    finally:
        repo.dispose()


def _without_summary(url: str) -> None:
    """One ruling row made as by a writer without the summary (0008-0010)."""
    repo = CaseFileRepository(url)
    try:
        with repo.engine.begin() as conn:
            conn.execute(
                text(
                    "UPDATE rulings SET cited_refs = NULL, deciding_ref = NULL, "
                    "effort_low = NULL, effort_high = NULL, deciding_text = NULL, "
                    "verdict = NULL WHERE case_id = (SELECT MIN(case_id) FROM rulings)"
                )
            )
    finally:
        repo.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request, tmp_path) -> Iterator[str]:
    url = (
        f"sqlite:///{tmp_path}/etki.db"
        if request.param == "sqlite"
        else request.getfixturevalue("pg_schema").url
    )
    _fill(url)
    yield url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def unresolved_url(request, tmp_path) -> Iterator[str]:
    """As :func:`store_url`, without the resolution."""
    url = (
        f"sqlite:///{tmp_path}/etki.db"
        if request.param == "sqlite"
        else request.getfixturevalue("pg_schema").url
    )
    _fill(url, resolve=False)
    yield url


def _printed(project_id: str, report) -> tuple[str, str, str]:  # noqa: ANN001
    """``report`` as ``etki report`` prints it: text, JSON and CSV."""
    tables = report_tables(report)
    out = io.StringIO()
    write_csv(tables, out)
    data = json.dumps(tables_json(project_id, report, tables), indent=1, ensure_ascii=False)
    return "\n".join(text_lines(tables)), data, out.getvalue()


def _selections(today: date) -> list[CaseSelection]:
    return [
        CaseSelection(),
        CaseSelection(since=today),
        CaseSelection(until=date(2020, 1, 1)),
        CaseSelection(since=date(2020, 1, 1), until=today, reviewer="ayse"),
        CaseSelection(reviewer="JURGEN weiss"),
        CaseSelection(reviewer="nobody"),
    ]


def _lean(url: str, selection: CaseSelection, now: datetime = NOW) -> Report:
    """The lean path's report of ``selection`` at ``now`` (the command's calls)."""
    read = lean_call(
        url,
        report_read,
        None,
        selection.since,
        selection.until,
        selection.names if selection.reviewer else None,
    )
    check_reviewer_names(selection, read.reviewers, read.project_id)
    return report_of_read(replace(read, now=now), selection)


def test_the_lean_report_equals_the_orm_report(store_url) -> None:
    settings = _settings(store_url)
    repo = CaseFileRepository(store_url)
    try:
        desk = Desk(settings, repo)
        read = lean_call(store_url, report_read, None)
        assert read.project_id == "demo"
        assert abs((read.now - repo.clock()).total_seconds()) < 120
        assert read.tallies and read.reasoned and read.agreed_about  # the summaries read
        today = read.now.date()
        for selection in _selections(today):
            try:
                orm = desk.report("demo", now=NOW, selection=selection)
            except InputError as exc:
                with pytest.raises(InputError) as lean_error:
                    _lean(store_url, selection)
                assert str(lean_error.value) == str(exc)
                continue
            lean = _lean(store_url, selection)
            assert lean == orm, selection
            assert _printed("demo", lean) == _printed("demo", orm)
        whole = desk.report("demo", now=NOW)
        assert whole.ruled == 9 and whole.overrides >= 2 and whole.pending
        assert any(m.reviewer for m in whole.cr_effort_by_month)  # an estimate counted
        assert whole.corrections_by_clause and whole.disputed_resolved
        assert len(whole.rulings_by_reviewer) == 2
    finally:
        repo.dispose()


_MOMENT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def _run(args: list[str], url: str, cwd: Path, lean: bool) -> tuple[int, str, str]:
    env = {"ETKI_DB_URL": url, "ETKI_WIKI_DIR": "", "ETKI_REVIEWER": REVIEWER}
    if not lean:
        env["ETKI_LEAN_READ"] = "0"
    done = run_etki(args, env=env, cwd=cwd)
    return done.returncode, _MOMENT.sub("MOMENT", done.stdout), done.stderr


def test_etki_report_prints_what_the_orm_path_prints(store_url, tmp_path) -> None:
    """The command on both paths: every report that does not depend on the moment, in
    text, CSV and JSON, under each selection; the whole JSON with its moment masked;
    ``--output``; the refusals of an unknown reviewer and project."""
    today = datetime.now(UTC).date().isoformat()
    names = [n for n in REPORT_NAMES if n not in TIMED]
    runs: list[list[str]] = [
        ["report", "--format", "json", "--report", "rulings_by_reviewer"],
        ["report", "--reviewer", "nobody"],
        ["report", "--project", "nope"],
    ]
    for fmt in ("text", "csv", "json"):
        for name in names:
            runs.append(["report", "--format", fmt, "--report", name])
    for selection in (["--since", today], ["--until", "2020-01-01"], ["--reviewer", "ayse"]):
        runs.append(["report", "--format", "csv", "--report", "corrections", *selection])
        runs.append(["report", "--format", "text", "--report", "totals", *selection])
    for args in runs:
        assert _run(args, store_url, tmp_path, True) == _run(args, store_url, tmp_path, False), args
    # the whole report: the moment and the hours waited (measured at it) masked
    whole = []
    for lean in (True, False):
        code, out, err = _run(["report", "--format", "json"], store_url, tmp_path, lean)
        data = json.loads(out)
        for row in data["reports"]["overdue_looks"]["rows"]:
            row["hours_waiting"] = None
        whole.append((code, data, err))
    assert whole[0] == whole[1]
    for lean, name in ((True, "lean.csv"), (False, "orm.csv")):
        args = ["report", "--report", "corrections", "--output", str(tmp_path / name)]
        assert _run(args, store_url, tmp_path, lean)[0] == 0
    lean_rows = list(csv.reader(io.StringIO((tmp_path / "lean.csv").read_text("utf-8-sig"))))
    assert lean_rows == list(csv.reader(io.StringIO((tmp_path / "orm.csv").read_text("utf-8-sig"))))
    assert len(lean_rows) > 1


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def test_corrections_and_effort_read_from_the_ruling_rows(backend, request, tmp_path) -> None:
    """The parts of a decision only the report reads, from the ruling's row: an
    override whose decisive evidence names a clause of the project the decision does not
    cite counts on that clause (the ``deciding_text`` kept, not a ref cut out against the
    cited clauses), one whose reason names a clause by number counts on it, and the
    engine's effort range (known, unknown) sums per month as the ORM path sums it."""
    from etki.domain import Effort
    from tests.factories import make_decision, make_project, make_request
    from tests.test_memory import _deciding

    url = (
        f"sqlite:///{tmp_path}/etki.db"
        if backend == "sqlite"
        else request.getfixturevalue("pg_schema").url
    )
    repo = CaseFileRepository(url)
    try:
        repo.save_project(make_project(), "sha256:abc", b"{}\n")
        decisions = [
            _deciding("req-demo-a", "IN_SCOPE", ("MSA#3.2",), "MSA#9.1"),  # uncited
            _deciding("req-demo-b", "IN_SCOPE", ("MSA#4.1", "MSA#3.2"), "MSA#4.1"),
            make_decision("req-demo-c", "CHANGE_REQUEST", ("MSA#4.1",)),
            replace(
                make_decision("req-demo-d", "IN_SCOPE", ("MSA#3.2",)), effort=Effort(None, None)
            ),
            make_decision("req-demo-e", "IN_SCOPE", ("MSA#3.2",)),  # stays pending
        ]
        repo.add_cases("demo", [(make_request(d.case_id), d) for d in decisions])
        repo.record_ruling("req-demo-a", "reject", "ayse", "not ours")
        repo.record_ruling("req-demo-b", "reject", "jurgen", "§9.1 excludes it")
        repo.record_ruling("req-demo-c", "convert_to_cr", "ayse", "")
        repo.record_ruling("req-demo-d", "convert_to_cr", "ayse", "new work")
        orm = Desk(_settings(url, "ayse"), repo).report("demo", now=NOW)
        lean = _lean(url, CaseSelection())
        assert lean == orm
        assert dict(lean.correction_rules)["MSA#9.1"] == (("reason", 1), ("evidence", 1))
        (month,) = lean.cr_effort_by_month
        assert (month.crs, month.estimated, month.low, month.high) == (2, 1, 1.0, 3.0)
    finally:
        repo.dispose()


def test_without_resolutions_the_kept_counts_answer(unresolved_url) -> None:
    """The unselected report of a project without resolutions reads the disputes from
    the per-clause counts kept at ruling time and has the database count the current
    corrections (no reasoned row read): the same report as the ORM path, printed too,
    after an amendment and an erasure, and once the kept corrections are stale (a
    clause a reason names gone: those overrides are read and matched again)."""
    url = unresolved_url
    repo = CaseFileRepository(url)
    try:
        desk = Desk(_settings(url), repo)
        read = lean_call(url, report_read, None)
        assert read.counted and not read.reasoned and not read.corrected
        assert sum(n for _refs, _rule, n in read.counted) >= 2  # the overrides, counted
        for selection in _selections(read.now.date()):
            try:
                orm = desk.report("demo", now=NOW, selection=selection)
            except InputError:
                continue
            assert _lean(url, selection) == orm, selection
            assert _printed("demo", _lean(url, selection)) == _printed("demo", orm)
        whole = desk.report("demo", now=NOW)
        assert whole.disputed and whole.corrections_by_clause  # both answered from counts
        with repo.engine.begin() as conn:  # the reason "per §4.8 and MSA-2024-01#5.2"
            conn.execute(
                text("DELETE FROM clauses WHERE project_id = 'demo' AND ref = 'MSA-2024-01#5.2'")
            )
        stale = lean_call(url, report_read, None)
        assert stale.reasoned and not stale.counted and not stale.corrected
        orm = desk.report("demo", now=NOW)
        assert _lean(url, CaseSelection()) == orm
        assert _printed("demo", _lean(url, CaseSelection())) == _printed("demo", orm)
    finally:
        repo.dispose()
