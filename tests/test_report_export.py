"""Issue 35 item 3: the PMO's data out — ``etki report`` with ``--since/--until/
--reviewer``, the overdue 24h PMO looks, and the report written with ``--output`` as CSV
(UTF-8 with a BOM) and .xlsx (openpyxl), formulas guarded in both.

The store is the one of :mod:`tests.test_reports_pmo` (cases stored and ruled through
the real repository and ApprovalService with its clock set by hand), on a SQLite file and,
where the server answers, PostgreSQL; every expected value is counted by hand from its
:data:`~tests.test_reports_pmo.PENDING` and :data:`~tests.test_reports_pmo.RULED`.
Every ruled case cites ``MSA#3.2`` with rulings that disagree, so that clause is in open
dispute and, with ``ETKI_DISPUTED_ESCALATION`` on (the default), asks for the PMO look on
every pending case that cites it (all of them)."""

from __future__ import annotations

import csv
import io
import json
import unicodedata
from datetime import date
from pathlib import Path

import openpyxl
import pytest

from etki.config import Settings
from etki.errors import InputError
from etki.reports import CaseSelection
from etki.services import Desk
from etki.store import CaseFileRepository
from tests.cli_support import run_etki
from tests.test_reports_pmo import NOW, _cli_store, _env, _store, store  # noqa: F401

# p2 36 h (from created_at), p3 3.5 d, p4 7.125 d, p5 59 d are past 24 h; p1 (6 h),
# p6 (submitted in the future) and p7 (exactly 24 h: not more) are not
OVERDUE = [
    ("req-demo-p5", "created_at"),  # its submitted_at is unreadable
    ("req-demo-p4", "submitted_at"),
    ("req-demo-p3", "submitted_at"),
    ("req-demo-p2", "created_at"),
]


def _desk(repo, escalate: bool = True) -> Desk:  # noqa: ANN001
    settings = Settings(
        db_url="sqlite://", wiki_dir=None, reviewer="nobody", disputed_escalation=escalate
    )
    return Desk(settings, repo)


def test_overdue_looks_are_the_pending_cases_past_24_hours(store) -> None:  # noqa: ANN001, F811
    repo, clock = store
    _store(repo, clock)
    report = _desk(repo).report("demo", now=NOW)
    assert [(o.case_id, o.basis) for o in report.overdue_looks] == OVERDUE
    assert [o.hours for o in report.overdue_looks] == [59 * 24.0, 171.0, 84.0, 36.0]
    assert all(o.raised_now for o in report.overdue_looks)  # by the disputed clause
    # without the escalation no decision asked for the look (their frozen risk is low)
    assert _desk(repo, escalate=False).report("demo", now=NOW).overdue_looks == ()


def test_a_selection_counts_only_its_cases(store) -> None:  # noqa: ANN001, F811
    repo, clock = store
    _store(repo, clock)
    desk = _desk(repo)
    window = CaseSelection(since=date(2026, 11, 1), until=date(2026, 11, 10))
    report = desk.report("demo", now=NOW, selection=window)
    # r3 (11-02), r5 (11-03), r6 (11-04), r7 (11-10, the last day counts); no pending
    # case arrived in the window (p4 on 11-22 is the nearest)
    assert (report.ruled, report.pending) == (4, 0)
    assert report.selection == "since 2026-11-01; until 2026-11-10"
    # the reviewer typed without Turkish letters, the stored name once in NFD
    mine = desk.report("demo", now=NOW, selection=CaseSelection(reviewer="sule"))
    assert (mine.ruled, mine.pending, mine.cases) == (2, 0, 2)
    assert [r.reviewer for r in mine.rulings_by_reviewer] == ["Şule"]
    # the reviewer matched is echoed, not the name as typed (a PMO trial read
    # "reviewer ayse" for Ayşe Yılmaz); in NFC, once, though once stored in NFD
    assert mine.selection == "reviewer Şule"
    assert desk.report("demo", now=NOW, selection=CaseSelection()).cases == 16
    # a word typed begins a word of the name: 'jür' and 'ILK' name Jürgen and İlker
    assert desk.report("demo", now=NOW, selection=CaseSelection(reviewer="jür")).ruled == 2
    assert desk.report("demo", now=NOW, selection=CaseSelection(reviewer="ILK")).ruled == 2
    # a name nobody who ruled has is refused, not reported as "no rulings" (a trial's
    # `--reviewer ayse` printed an empty report and exit 0)
    with pytest.raises(InputError, match="no reviewer of that name ruled a case of demo"):
        desk.report("demo", now=NOW, selection=CaseSelection(reviewer="nobody"))


@pytest.mark.parametrize(
    ("typed", "stored", "named"),
    [
        ("ayse", "Ayşe Yılmaz", True),
        ("yil", "Ayşe Yılmaz", True),
        ("AYŞE YILMAZ", "Ayşe Yılmaz", True),
        ("ayse", unicodedata.normalize("NFD", "Ayşe Yılmaz"), True),
        ("ayse kaya", "Ayşe Yılmaz", False),
        ("maz", "Ayşe Yılmaz", False),
        ("strasse", "Jürgen Straße", True),
    ],
)
def test_a_reviewer_is_named_by_the_beginnings_of_their_words(typed, stored, named) -> None:  # noqa: ANN001
    assert CaseSelection(reviewer=typed).names(stored) is named


def test_report_written_as_xlsx_and_csv_with_formulas_guarded(tmp_path: Path) -> None:
    hostile = '=HYPERLINK("http://evil")'
    _cli_store(tmp_path, hostile=hostile)
    env = _env(tmp_path)
    out = tmp_path / "out" / "report.xlsx"
    done = run_etki(["report", "--project", "demo", "--output", str(out)], env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    book = openpyxl.load_workbook(out)
    assert book.sheetnames[0] == "totals" and "overdue_looks" in book.sheetnames
    sheet = book["rulings_by_reviewer"]
    assert [c.value for c in sheet[2]] == [
        "reviewer",
        "rulings",
        "in_scope",
        "change_request",
        "reject",
        "overrides",
    ]
    names = {row[0].value: row for row in sheet.iter_rows(min_row=3)}
    # the name as written (a trial read the CSV guard's ' in the cell): a string with the
    # quote-prefix style, so no spreadsheet evaluates it, even after an edit
    evil = names[hostile]
    assert (evil[0].data_type, evil[0].quotePrefix, evil[1].value) == ("s", True, 1)
    assert not any(str(name).startswith("'") for name in names)
    assert names["Şule"][1].value == 2  # a number stays a number
    csv_file = tmp_path / "report.csv"
    done = run_etki(
        ["report", "--project", "demo", "--output", str(csv_file), "--reviewer", "sule"],
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    raw = csv_file.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # Excel in tr-TR / de-DE reads UTF-8 by its BOM
    rows = list(csv.reader(io.StringIO(raw[3:].decode(), newline="")))
    assert ["reviewer", "rulings", "in_scope", "change_request", "reject", "overrides"] in rows
    assert ["Şule", "2", "0", "1", "1", "0"] in rows and not any("İlker" in r for r in rows)


def test_csv_separated_by_semicolons_for_turkish_and_german_excel(tmp_path: Path) -> None:
    """A PMO trial of issue 35: Excel in tr-TR and de-DE splits CSV on ``;`` and showed
    each comma-separated row in one column. ``--delimiter ';'`` writes what it splits,
    read back by the csv module; the formula guard still holds (a name that starts with
    ``;=`` cannot become a formula cell)."""
    hostile = ";=1+1"
    _cli_store(tmp_path, hostile=hostile)
    csv_file = tmp_path / "report.csv"
    args = ["report", "--project", "demo", "--report", "rulings_by_reviewer"]
    done = run_etki(
        [*args, "--output", str(csv_file), "--delimiter", ";"], env=_env(tmp_path), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    raw = csv_file.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    text = raw[3:].decode()
    assert text.splitlines()[0] == (
        '"reviewer";"rulings";"in_scope";"change_request";"reject";"overrides"'
    )
    rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=";"))
    assert ["Şule", "2", "0", "1", "1", "0"] in rows
    assert [r[:2] for r in rows if r[0].endswith(hostile)] == [["'" + hostile, "1"]]
    # the default stays the comma; a word spares the shell's quotes
    done = run_etki(
        [*args, "--format", "csv", "--delimiter", "semicolon"], env=_env(tmp_path), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith('"reviewer";"rulings"')
    done = run_etki([*args, "--format", "csv"], env=_env(tmp_path), cwd=tmp_path)
    assert done.stdout.splitlines()[0].startswith('"reviewer","rulings"')
    # ETKI_CSV_DELIMITER sets it for the CLI and the desk's exports (Raporlar, the queue)
    env = {**_env(tmp_path), "ETKI_CSV_DELIMITER": "semicolon"}
    done = run_etki([*args, "--format", "csv"], env=env, cwd=tmp_path)
    assert done.stdout.splitlines()[0].startswith('"reviewer";"rulings"')
    settings = Settings.from_env(env)
    repo = CaseFileRepository(env["ETKI_DB_URL"])
    try:
        desk = Desk(settings, repo)
        desk.export_report("demo", tmp_path / "desk.csv", now=NOW)
        cases = [c.case_id for c in desk.queue_summaries("demo")]
        desk.export_queue("demo", cases, tmp_path / "queue.csv", "cases")
    finally:
        repo.dispose()
    report = (tmp_path / "desk.csv").read_bytes()[3:].decode()
    rows = list(csv.reader(io.StringIO(report, newline=""), delimiter=";"))
    assert ["Şule", "2", "0", "1", "1", "0"] in rows
    queue = (tmp_path / "queue.csv").read_bytes()[3:].decode()
    table = list(csv.reader(io.StringIO(queue, newline=""), delimiter=";"))
    assert table[0][:2] == ["case_id", "project_id"] and len(table) == 1 + len(cases)
    bad = run_etki(args, env={**env, "ETKI_CSV_DELIMITER": "tab"}, cwd=tmp_path)
    assert bad.returncode == 2 and "ETKI_CSV_DELIMITER is 'tab': write , or ;" in bad.stderr


def test_semicolon_csv_writes_decimals_with_a_comma(tmp_path: Path) -> None:
    """Issue 35 leftovers: ``;`` is for Excel in tr-TR and de-DE, whose decimal mark is
    the comma; a ``0.3333`` there is text, not a number. With ``;`` every fraction
    (shares, days, hours, a confidence) is written bare with a decimal comma, read back
    from the file; whole numbers and text are as with ``,``; the comma CSV keeps the
    point. The same for ``etki queue`` and the desk's exports (ETKI_CSV_DELIMITER)."""
    _cli_store(tmp_path)
    env = _env(tmp_path)
    for delimiter in (",", ";"):
        out = tmp_path / f"report{delimiter == ';'}.csv"
        done = run_etki(
            ["report", "--project", "demo", "--output", str(out), "--delimiter", delimiter],
            env=env,
            cwd=tmp_path,
        )
        assert done.returncode == 0, done.stderr
    comma = (tmp_path / "reportFalse.csv").read_bytes()[3:].decode()
    semi = (tmp_path / "reportTrue.csv").read_bytes()[3:].decode()
    assert '"override_rate";0,3333\r\n' in semi and '"override_rate",0.3333\r\n' in comma
    rows = list(csv.reader(io.StringIO(semi, newline=""), delimiter=";"))
    assert ["2026-10", "2", "2", "0", "5", "9,5", "0"] in rows  # low/high days
    assert ["IN_SCOPE", "10", "0,625"] in rows and ["REJECT", "2", "0,125"] in rows
    plain = list(csv.reader(io.StringIO(comma, newline="")))
    assert len(rows) == len(plain)
    hours = [row[2] for row in rows if row[:1] == ["req-demo-p5"]]
    assert len(hours) == 1 and hours[0].count(",") == 1  # hours waiting, 0.1 h
    for got, want in zip(rows, plain, strict=True):  # only the decimal mark differs
        if got[:1] == ["report"] or got[:1] and got[0].startswith("req-demo-p"):
            continue  # the title's as-of and the hours waiting: read at each run's now
        assert got == [cell.replace(".", ",") if _decimal(cell) else cell for cell in want]
    # the queue (confidence) from the CLI and from the desk
    done = run_etki(
        ["queue", "--all", "--output", "q.csv", "--delimiter", "semicolon"], env=env, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    table = list(
        csv.reader(io.StringIO((tmp_path / "q.csv").read_bytes()[3:].decode()), delimiter=";")
    )
    at = table[0].index("confidence")
    assert {row[at] for row in table[1:]} == {"0,8"}  # make_decision's 0.8
    settings = Settings.from_env({**env, "ETKI_CSV_DELIMITER": ";"})
    repo = CaseFileRepository(env["ETKI_DB_URL"])
    try:
        desk = Desk(settings, repo)
        desk.export_report("demo", tmp_path / "desk.csv", now=NOW)
        cases = [c.case_id for c in desk.queue_summaries("demo", status=None)]
        desk.export_queue("demo", cases, tmp_path / "dq.csv", "cases")
    finally:
        repo.dispose()
    desk_rows = list(
        csv.reader(io.StringIO((tmp_path / "desk.csv").read_bytes()[3:].decode()), delimiter=";")
    )
    assert ["override_rate", "0,3333"] in desk_rows
    queue = list(
        csv.reader(io.StringIO((tmp_path / "dq.csv").read_bytes()[3:].decode()), delimiter=";")
    )
    assert {row[at] for row in queue[1:]} == {"0,8"} and len(queue) == 17
    help_text = run_etki(["report", "--help"], env=env, cwd=tmp_path).stdout
    assert "decimals are written with a comma" in " ".join(help_text.split())


def _decimal(cell: str) -> bool:
    try:
        return "." in cell and float(cell) == float(cell)
    except ValueError:
        return False


def test_json_says_its_selection(tmp_path: Path) -> None:
    _cli_store(tmp_path)
    done = run_etki(
        ["report", "--project", "demo", "--format", "json", "--since", "2026-11-12"],
        env=_env(tmp_path),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["selection"] == "since 2026-11-12"
    totals = {r["measure"]: r["value"] for r in data["reports"]["totals"]["rows"]}
    assert totals["ruled"] == 2  # r4 (11-15) and r9 (11-12)
    # the reviewer matched is echoed (the CLI's own read path), not "reviewer sule"
    done = run_etki(
        ["report", "--project", "demo", "--format", "json", "--reviewer", "sule"],
        env=_env(tmp_path),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["selection"] == "reviewer Şule"


@pytest.mark.parametrize(
    "args, message",
    [
        (("--since", "1.11.2026"), "--since: '1.11.2026' is not a day; give it as YYYY-MM-DD"),
        (("--since", "2026-11-30", "--until", "2026-11-01"), "is after --until"),
        (("--format", "xlsx"), "--format xlsx writes a file"),
        (("--output", "report.pdf"), "end the file name with .csv, .xlsx, .json, .txt"),
        (("--format", "json", "--delimiter", ";"), "--delimiter ; is for CSV"),
    ],
)
def test_bad_options_are_refused_before_the_store_opens(tmp_path: Path, args, message) -> None:  # noqa: ANN001
    """Exit 2 with the option named, whether or not a store exists (none here)."""
    done = run_etki(["report", *args], env=_env(tmp_path), cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert not (tmp_path / "etki.db").exists()


def test_an_export_never_replaces_a_file_unasked(tmp_path: Path) -> None:
    """Issue 35 leftovers: ``etki report --output`` and ``etki queue --output`` wrote
    over an existing file without asking. Refused (exit 2, the file named, ``--force``
    said) before the store is read, the file kept; ``--force`` replaces it. The desk's
    exports refuse too unless told to overwrite (the desk asks first: its Replace)."""
    _cli_store(tmp_path)
    env = _env(tmp_path)
    for command, name, what in (("report", "r.csv", "report"), ("queue", "q.xlsx", "queue")):
        target = tmp_path / name
        target.write_bytes(b"Jurgen's Stra\xc3\x9fe\n")
        args = [command, "--output", str(target)] + (["--project", "demo"] * (command == "report"))
        refused = run_etki(args, env=env, cwd=tmp_path)
        assert refused.returncode == 2, refused.stderr
        said = f"{what} not written: {target} already exists; add --force to replace it"
        assert said in refused.stderr
        assert target.read_bytes() == b"Jurgen's Stra\xc3\x9fe\n"
        done = run_etki([*args, "--force"], env=env, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert target.read_bytes() != b"Jurgen's Stra\xc3\x9fe\n"
    settings = Settings.from_env(env)
    repo = CaseFileRepository(env["ETKI_DB_URL"])
    try:
        desk = Desk(settings, repo)
        target = tmp_path / "r.csv"
        before = target.read_bytes()
        with pytest.raises(InputError, match="already exists; export again and answer Replace"):
            desk.export_report("demo", target, now=NOW)
        with pytest.raises(InputError, match="already exists"):
            desk.export_queue("demo", [], target, "cases")
        assert target.read_bytes() == before
        desk.export_queue("demo", [], target, "cases", overwrite=True)
        assert target.read_bytes().startswith(b'\xef\xbb\xbf"case_id"')
    finally:
        repo.dispose()
