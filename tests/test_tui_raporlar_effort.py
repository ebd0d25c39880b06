"""A fresh PMO trial of issue 35: Raporlar's change-request effort per month read
``6–6 days`` for a single estimate of 6 days. Driven with Textual's Pilot on the real
SQLite fixture project, waiting for states only."""

from __future__ import annotations

import io

from rich.console import Console

from etki.services import approval_service
from etki_tui.raporlar.pane import ReportsPane, effort_days, report_view
from tests.conftest import TuiWorld
from tests.test_tui_pilot import current, make_app, press, settle, sync, until


def test_effort_days_says_one_figure_for_equal_ends() -> None:
    assert effort_days(6, 6) == "6 days"
    assert effort_days(1, 1) == "1 day"
    assert effort_days(2.5, 2.5) == "2.5 days"
    assert effort_days(5, 8) == "5–8 days"


@sync
async def test_raporlar_shows_a_single_estimate_as_one_figure(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        case_id = current(app)
        assert case_id is not None
        approval_service(tui_world.repo, tui_world.settings).rule(
            case_id, "convert_to_cr", reason="Yeni bir yetenek (Jürgen Weiß).", reviewer="ayse"
        )
        tui_world.desk.add_estimate(case_id, "6", "Altı gün: iki ekran.")
        app.poll_queue()
        await settle(pilot)
        await press(pilot, "3")
        pane = app.query_one(ReportsPane)
        await until(pilot, lambda: pane.report is not None, "the report")
        await settle(pilot)
        report = pane.report
        assert report is not None
        months = [m for m in report.cr_effort_by_month if m.estimated]
        assert months and all(m.low == m.high for m in months), months
        console = Console(width=120, file=io.StringIO(), color_system=None)
        with console.capture() as capture:
            console.print(report_view(report, 120))
        text = capture.get()
        assert "6–6" not in text
        rows = [line for line in text.splitlines() if " CR " in line]
        assert any(" 1 CR 6 days 1 reviewer's " in " ".join(r.split()) for r in rows), rows
