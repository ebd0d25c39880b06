"""Disputed clauses are impossible to miss on the desk, and the smaller detail-pane and
Raporlar fixes of issue 12 (item 4; item 7: effort, last correction, corrections per
clause, "imported <date>").

Driven with Textual's Pilot at 80x24 on a real SQLite file and a real wiki folder
(tests/conftest.py builds the project; the real tdrs engagement where it helps).
Nothing waits on time: every step waits for the app's workers to settle.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.text import Text
from textual.geometry import Region

from etki.domain import Effort, EvidenceStep, Request, Risk
from etki.memory import correction_clauses
from etki.services import approval_service, init_project
from etki.store import CaseFileRepository
from etki_tui.queue.bars import CaseDetail
from etki_tui.queue.filters import QueueFilter
from etki_tui.queue.pane import QueuePane, QueueTable
from etki_tui.raporlar.pane import ReportsPane
from tests.conftest import (
    REPO_ROOT,
    TuiWorld,
    build_tui_history_world,
    open_tui_world,
    tui_clock,
    tui_decision,
)
from tests.test_tui_pilot import current, fill, goto, make_app, press, settle, shown, sync

FIRST = "req-demo-0a1f3c21"  # IN_SCOPE, cites 3.2 (disputed in the fixture)
SECOND = "req-demo-1b7e9d02"  # REJECT, cites 9.1 (not disputed)
THREE = "req-demo-2c4a8e13"  # cites 4.1, 4.3 and 10.2 (10.2 third)
RECEIPT = "req-demo-5f7d2b46"  # cites 4.3, risk low at triage
TDRS = REPO_ROOT.parent / "shared" / "realdata" / "tdrs"


def rule_two_ways(world: TuiWorld, ref: str, tag: str) -> None:
    """Store two cases citing ``ref`` and rule them differently (through the real
    ApprovalService, as another reviewer's desk would): ``ref`` becomes disputed."""
    first, second = f"req-demo-{tag}0000001", f"req-demo-{tag}0000002"
    world.repo.add_cases(
        "demo",
        [
            (
                Request(f"{tag}1", "Monthly report on this.", f"Report {tag} monthly"),
                tui_decision(first, "IN_SCOPE", (ref,), confidence=0.8),
            ),
            (
                Request(f"{tag}2", "Weekly report on this.", f"Report {tag} weekly"),
                tui_decision(second, "IN_SCOPE", (ref,), confidence=0.8),
            ),
        ],
    )
    approvals = approval_service(world.repo, world.settings)
    approvals.rule(first, "approve", reviewer="ayse")
    approvals.rule(
        second,
        "convert_to_cr",
        reviewer="jurgen",
        reason="Weekly reports go beyond what the contract lists.",
    )


def visible_detail_lines(app) -> list[str]:  # noqa: ANN001
    """The lines of the detail pane's body that are inside its visible window now."""
    detail = app.query_one(CaseDetail)
    body = detail.query_one("#detail-body")
    window = detail.scrollable_content_region
    region = Region(0, int(detail.scroll_y), body.size.width, window.height)
    return ["".join(s.text for s in strip) for strip in body.render_lines(region)]


def all_detail_lines(app) -> list[str]:  # noqa: ANN001
    body = app.query_one(CaseDetail).query_one("#detail-body")
    return shown(body).split("\n")


def screen_segments(app):  # noqa: ANN001, ANN201
    """Every segment on the screen as it is composed now (what the terminal gets)."""
    for strip in app.screen._compositor.render_strips():
        yield from strip


# --- item 4: the disputed mark -----------------------------------------------------------


@sync
async def test_queue_rows_show_the_disputed_glyph_and_word(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.query_one(QueueTable)
        title = table.get_cell(FIRST, "title")
        assert isinstance(title, Text) and title.plain.startswith("! DISPUTED ")
        assert "SSO login" in title.plain  # the title still follows
        assert not table.get_cell(SECOND, "title").plain.startswith("!")
        # the columns still fit at 80 columns: nothing scrolls sideways
        assert table.virtual_size.width <= table.scrollable_content_region.width
        rows = shown(table).split("\n")
        row = next((line for line in rows if "0a1f3c21" in line), None)
        assert row is not None, rows
        # at 80 columns the risk level is left out for the title; the Look column keeps
        # the PMO look, overdue here (the case waited 9 days)
        assert "! DISPUTED" in row and "!24h" in row
        assert "!" not in next(line for line in rows if "1b7e9d02" in line)


@sync
async def test_the_strip_is_on_screen_at_80x24_before_any_clause_text(tui_world: TuiWorld) -> None:
    rule_two_ways(tui_world, "MSA-2024-01#10.2", "d")  # the third clause THREE cites
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await goto(pilot, THREE)
        await settle(pilot)
        visible = visible_detail_lines(app)
        marked = [i for i, line in enumerate(visible) if "! DISPUTED" in line]
        assert marked, visible
        assert "10.2" in visible[marked[0]] and "Availability" in visible[marked[0]]
        assert "disagree" in visible[marked[0]]
        everything = all_detail_lines(app)
        strip_at = next(i for i, line in enumerate(everything) if "! DISPUTED 10.2" in line)
        clause_text_at = next(
            i for i, line in enumerate(everything) if "§ 4.1" in line or "§ 10.2" in line
        )
        assert strip_at < clause_text_at
        # and it is what the terminal shows: inside the detail pane's region on screen
        screen = [
            "".join(s.text for s in strip) for strip in app.screen._compositor.render_strips()
        ]
        region = app.query_one(CaseDetail).region
        assert any("! DISPUTED 10.2" in screen[y] for y in range(region.y, region.bottom))


def _is_red(color) -> bool:  # noqa: ANN001
    r, g, b = color.triplet if color.triplet else (0, 0, 0)
    return r >= 180 and g <= 90 and b <= 120


@sync
async def test_disputed_is_red(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "down")  # the cursor off the disputed row: its own colours show
        await settle(pilot)
        marks = [s for s in screen_segments(app) if "! DISPUTED" in s.text]
        assert len(marks) >= 2  # FIRST's row (and R5's), the detail has none (9.1)
        for seg in marks:
            assert seg.style is not None and seg.style.reverse, seg
            assert _is_red(seg.style.color), seg  # amber before (#ffff00-ish)
        await press(pilot, "up")
        await settle(pilot)
        strip = [s for s in screen_segments(app) if s.text == "! DISPUTED"]
        assert strip and all(_is_red(s.style.color) for s in strip)


@sync
async def test_the_mark_stays_white_on_red_under_the_cursor_and_the_hafiza_highlight(
    tui_world: TuiWorld,
) -> None:
    """A trial at 80x24: on the cursor row the mark took the cursor's colours (blue on
    light, no red), and the highlighted Hafıza entry read red on blue."""

    def marks_on_row(y: int) -> list:  # noqa: ANN202
        strips = list(app.screen._compositor.render_strips())
        return [s for s in strips[y] if s.text.strip() == "! DISPUTED"]

    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.query_one(QueueTable)
        assert table.cursor_key == FIRST  # the disputed row has the cursor
        y = table.region.y + 1 + table.cursor_row  # under the header line
        [mark] = marks_on_row(y)
        # reverse video of red on white: shown white on red, whatever the row's colours
        assert mark.style.reverse and _is_red(mark.style.color), mark
        assert mark.style.bgcolor is not None and not _is_red(mark.style.bgcolor), mark
        app.action_focus_search()
        await settle(pilot)
        entries = app.query_one("#memory-list")
        index = next(i for i, o in enumerate(entries.options) if (o.id or "").startswith("dis:"))
        entries.highlighted = index
        await settle(pilot)
        region = entries.region
        listed = [m for y in range(region.y, region.bottom) for m in marks_on_row(y)]
        assert listed  # the highlighted disputed entry is in view
        for mark in listed:
            assert mark.style.reverse and _is_red(mark.style.color), mark


def test_the_hafiza_card_marks_disputed_in_red(tui_world: TuiWorld) -> None:
    from rich.console import Console

    from etki_tui.hafiza.cards import disputed_card

    [item] = tui_world.desk.disputed("demo")
    console = Console(width=80, color_system="truecolor", force_terminal=True)
    segments = list(
        console.render(disputed_card(item, tui_world.desk.clauses("demo")), console.options)
    )
    [mark] = [s for s in segments if s.text == "! DISPUTED"]
    assert mark.style is not None and mark.style.reverse and mark.style.bold
    assert mark.style.color is not None and mark.style.color.name == "red"  # was yellow


@sync
async def test_no_color_keeps_the_glyph_and_word(
    tui_world: TuiWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.no_color
        assert "! DISPUTED" in visible_detail_lines(app)[1]  # the peek, under the verdict
        assert "! DISPUTED" in shown(app.query_one(QueueTable))
        marks = [seg for seg in screen_segments(app) if seg.text == "! DISPUTED"]
        assert marks and all(seg.style is not None and seg.style.reverse for seg in marks)


@sync
async def test_a_clause_disputed_after_triage_escalates_in_the_risk_column(
    tui_world: TuiWorld,
) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.query_one(QueueTable)
        assert table.get_cell(RECEIPT, "risk").plain == "low"
        three = "req-demo-2c4a8e13"  # cites 4.1, 4.3, 10.2 in that order
        assert table.get_cell(three, "clauses").plain.startswith("4.1,")
        rule_two_ways(tui_world, "MSA-2024-01#4.3", "e")  # 4.3 disputed now, elsewhere
        app.action_reload()
        await settle(pilot)
        assert table.get_cell(RECEIPT, "risk").plain == "high"
        assert table.get_cell(RECEIPT, "look").plain.endswith("24h")
        # the disputed clause comes first: the row names it before the "+N"
        assert table.get_cell(three, "clauses").plain.startswith("4.3,")
        assert table.get_cell(RECEIPT, "title").plain.startswith("! DISPUTED")
        pane = app.query_one(QueuePane)
        pane.set_filter(QueueFilter(risk="high"))  # the filter reads what the column says
        await settle(pilot)
        assert RECEIPT in table.row_keys() and SECOND not in table.row_keys()
        pane.set_filter(QueueFilter(sort="risk"))  # escalated first, like stored high
        await settle(pilot)
        assert table.row_keys().index(RECEIPT) < table.row_keys().index(SECOND)
        pane.set_filter(QueueFilter())
        await settle(pilot)
        await goto(pilot, RECEIPT)
        await press(pilot, "z")  # the whole detail (a two-line peek under 30 rows)
        await settle(pilot)
        top = " ".join(" ".join(visible_detail_lines(app)).split())
        assert "! DISPUTED 4.3 Receipts" in top
        assert "24h PMO look: disputed after triage (LOW then; decision unchanged)" in top
        # the risk line follows the deciding sentence (issue 34 item 2): in the detail,
        # not necessarily in its first window
        whole = " ".join(" ".join(all_detail_lines(app)).split())
        assert "Risk HIGH" in whole and "raised now: 4.3 disputed; LOW at triage" in whole
    stored = tui_world.repo.case(RECEIPT).decision.risk
    assert stored == Risk()  # the frozen decision is not rewritten


@sync
async def test_a_ruling_here_that_makes_a_clause_disputed_marks_the_rows_at_once(
    tui_world: TuiWorld,
) -> None:
    tui_world.repo.add_cases(
        "demo",
        [
            (
                Request("G1", "Receipt shows the wrong date.", "Receipt date"),
                tui_decision("req-demo-g0000001", "IN_SCOPE", ("MSA-2024-01#4.3",), confidence=0.8),
            )
        ],
    )
    approval_service(tui_world.repo, tui_world.settings).rule(
        "req-demo-g0000001", "approve", reviewer="ayse"
    )  # 4.3: one ruling, not disputed
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.query_one(QueueTable)
        assert table.get_cell(THREE, "risk").plain == "low"
        assert not table.get_cell(THREE, "title").plain.startswith("!")
        await goto(pilot, RECEIPT)
        await press(pilot, "r")  # reject an IN_SCOPE verdict: an override, 4.3 disputed
        await fill(pilot, "#confirm-reason", "Crashes on exports are out of 4.3.")
        await press(pilot, "enter", "enter")
        await settle(pilot)
        assert RECEIPT not in table.row_keys()
        assert table.get_cell(THREE, "risk").plain == "high"  # no reload needed
        assert table.get_cell(THREE, "look").plain.endswith("24h")
        assert table.get_cell(THREE, "title").plain.startswith("! DISPUTED")
        # drawn whole: the look is not cut ("high 24" was, trial 3)
        row = next(line for line in shown(table).split("\n") if THREE[-8:] in line)
        assert "24h " in row, row


@sync
async def test_escalation_off_leaves_the_stored_risk(tmp_path: Path) -> None:
    from dataclasses import replace

    from tests.conftest import build_tui_world

    world = build_tui_world(tmp_path)
    world.desk.settings = replace(world.settings, disputed_escalation=False)
    app = make_app(world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.query_one(QueueTable)
        assert table.get_cell("req-demo-4e6c1a35", "risk").plain == "low"  # 3.2, low
        assert table.get_cell("req-demo-4e6c1a35", "title").plain.startswith("! DISPUTED")
    world.repo.dispose()


# --- item 7: effort, last correction, corrections per clause, imported date -----------------


@sync
async def test_effort_with_equal_ends_is_one_figure_and_the_basis_has_titles(
    tui_world: TuiWorld,
) -> None:
    case_id = "req-demo-f0000001"
    tui_world.repo.add_cases(
        "demo",
        [
            (
                Request(
                    "F1",
                    "Add a second card provider.",
                    "Second card provider",
                    "Ayşe",
                    "2026-11-28",
                ),
                tui_decision(
                    case_id,
                    "CHANGE_REQUEST",
                    ("MSA-2024-01#4.1",),
                    confidence=0.7,
                    effort=Effort(13.0, 13.0, ("WI-1", "WI-2", "WI-9")),
                ),
            )
        ],
    )
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await goto(pilot, THREE)
        await settle(pilot)
        assert "Effort 5–8 person-days" in [" ".join(x.split()) for x in all_detail_lines(app)]
        await goto(pilot, case_id)
        await settle(pilot)
        lines = [" ".join(line.split()) for line in all_detail_lines(app)]
        assert "Effort 13 person-days" in lines  # was "13–13 person-days"
        assert "Effort basis (3 comparable work items)" in lines
        assert "- WI-1 SSO login · 3 person-days · 2024-01-01" in lines
        assert "- WI-2 Card payments · 8 person-days · 2024-02-01" in lines
        assert "- WI-9 (not among the project's work items)" in lines


@sync
async def test_last_correction_shows_the_reason_and_the_precedent_page(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert current(app) == FIRST
        text = " ".join(" ".join(all_detail_lines(app)).split())
        assert "last correction: jurgen" in text
        assert "reason: “Contractors are not Staff under 1.2; they need their own CR.”" in text
        found = re.search(r"precedent: req-demo-9b0f4d68 wiki: (precedents/PRE-\S+\.md)", text)
        assert found, text
        assert (tui_world.wiki / found.group(1)).is_file()  # the page it names exists


@sync
async def test_a_long_reason_is_folded(tui_world: TuiWorld) -> None:
    tui_world.repo.add_cases(
        "demo",
        [
            (
                Request("L1", "Long reason case.", "Long reason"),
                tui_decision("req-demo-l0000001", "IN_SCOPE", ("MSA-2024-01#9.1",), confidence=0.7),
            )
        ],
    )
    approval_service(tui_world.repo, tui_world.settings).rule(
        "req-demo-l0000001", "reject", reviewer="ayse", reason="[bold]x[/] " + "ş" * 900
    )
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await goto(pilot, SECOND)  # cites 9.1
        await settle(pilot)
        text = " ".join(" ".join(all_detail_lines(app)).split())
        assert "reason: “[bold]x[/] ş" in text  # literal, not markup
        assert text.count("ş") < 400 and "…”" in text


def test_an_override_counts_on_the_clause_its_reason_names(tmp_path: Path) -> None:
    world = build_tui_history_world(tmp_path)
    repo, approvals = world.repo, approval_service(world.repo, world.settings)
    both = ("MSA-2024-01#4.1", "MSA-2024-01#4.3")
    deciding = EvidenceStep(
        "classify",
        "rule R4 -> IN_SCOPE (confidence 0.70); deciding "
        "sentence: MSA-2024-01#4.3 (obligation, role rule: "
        "shall)",
    )
    reason_case = tui_decision("req-demo-c0000001", "IN_SCOPE", both, confidence=0.7)
    evidence_case = tui_decision("req-demo-c0000002", "IN_SCOPE", both, confidence=0.7)
    from dataclasses import replace

    evidence_case = replace(evidence_case, evidence=(*evidence_case.evidence, deciding))
    repo.add_cases(
        "demo",
        [
            (Request("C1", "Receipts in English.", "Receipt language"), reason_case),
            (Request("C2", "Receipts as XML.", "Receipt XML"), evidence_case),
        ],
    )
    approvals.rule(
        "req-demo-c0000001",
        "convert_to_cr",
        reviewer="jurgen",
        reason="Receipts are §4.3's business, and 4.3 says PDF only.",
    )
    approvals.rule(
        "req-demo-c0000002", "convert_to_cr", reviewer="jurgen", reason="A new format is new work."
    )
    by_id = {c.case_id: c for c in repo.cases("demo")}
    refs = tuple(world.desk.clauses("demo"))
    assert correction_clauses(by_id["req-demo-c0000001"], refs) == (("MSA-2024-01#4.3",), "reason")
    assert correction_clauses(by_id["req-demo-c0000002"], refs) == (
        ("MSA-2024-01#4.3",),
        "evidence",
    )
    # HISTORY's "Outside the remit (9.1)." cites 4.1 only: it counts on 9.1, named
    assert correction_clauses(by_id["req-demo-h0000002"], refs) == (("MSA-2024-01#9.1",), "reason")
    # "Billed separately." names nothing, and the case has no decisive evidence: all cited
    assert correction_clauses(by_id["req-demo-h0000007"], refs) == (both, "cited")
    report = world.desk.report("demo")
    counts = dict(report.corrections_by_clause)
    # before: 4.1 counted all five overrides citing it (h2, h4, h7, c1, c2) and 9.1 none
    assert counts == {
        "MSA-2024-01#4.1": 2,
        "MSA-2024-01#4.3": 3,
        "MSA-2024-01#3.2": 1,
        "MSA-2024-01#9.1": 1,
    }
    rules = dict(report.correction_rules)
    assert rules["MSA-2024-01#4.3"] == (("reason", 1), ("evidence", 1), ("cited", 1))
    assert rules["MSA-2024-01#4.1"] == (("cited", 2),)
    assert rules["MSA-2024-01#9.1"] == (("reason", 1),)
    world.repo.dispose()


def test_a_reason_names_whole_clause_numbers_only(tmp_path: Path) -> None:
    world = build_tui_history_world(tmp_path)
    world.repo.add_cases(
        "demo",
        [
            (
                Request("N1", "x", "x"),
                tui_decision("req-demo-n0000001", "IN_SCOPE", ("MSA-2024-01#4.1",), confidence=0.7),
            )
        ],
    )
    approval_service(world.repo, world.settings).rule(
        "req-demo-n0000001",
        "reject",
        reviewer="ayse",
        reason="See 14.1, 4.1.2 and v4.10: none is a clause of this contract.",
    )
    case = world.repo.case("req-demo-n0000001")
    assert correction_clauses(case, tuple(world.desk.clauses("demo"))) == (
        ("MSA-2024-01#4.1",),
        "cited",
    )
    world.repo.dispose()


@sync
async def test_raporlar_says_which_rule_counted_the_corrections(tmp_path: Path) -> None:
    world = build_tui_history_world(tmp_path)
    app = make_app(world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "3")
        await settle(pilot)
        pane = app.query_one(ReportsPane)
        text = shown(pane.query_one("#report-body"), pane.size.width, 120)
        rows = [" ".join(line.split()) for line in text.split("\n")]
        assert any(re.search(r"MSA-2024-01#9\.1 1 ▒+ by reason$", r) for r in rows), text
        assert any(re.search(r"MSA-2024-01#4\.1 2 ▒+ by all cited$", r) for r in rows), text
        flat = " ".join(text.split())
        assert (
            "An override counts on the clause its reason names; else on the decisive "
            "evidence's clause; else on every clause it cites."
        ) in flat
    world.repo.dispose()


def _stored(tmp_path: Path, folder: Path, project_id: str) -> TuiWorld:
    """``folder`` loaded into a fresh store in ``tmp_path`` (the real ``init_project``,
    cases stamped by the frozen clock), opened as a :class:`TuiWorld`."""
    world = open_tui_world(tmp_path)
    repo = CaseFileRepository(world.settings.db_url, clock=tui_clock)
    init_project(folder, repo, world.settings)
    repo.dispose()
    world.repo.dispose()
    world = open_tui_world(tmp_path)
    world.project_id = project_id
    return world


@pytest.mark.skipif(not TDRS.is_dir(), reason="../shared/realdata/tdrs is absent")
@sync
async def test_tdrs_cases_say_when_they_were_imported(tmp_path: Path) -> None:
    world = _stored(tmp_path, TDRS, "tdrs")
    cases = world.repo.cases("tdrs")
    assert cases and all(not c.submitted_at for c in cases)  # tdrs requests carry no date
    app = make_app(world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.query_one(QueuePane).cases
        # the case line follows the verdict and the deciding sentence (issue 34 item 2,
        # a fresh trial): in the detail, under its first window at 80x24
        head = " ".join(" ".join(all_detail_lines(app)).split())
        assert "imported 2026-11-29 12:00Z" in head  # was "(just now)"
        assert "(just now)" not in head and " old)" not in head
    world.repo.dispose()


SAMPLE = REPO_ROOT / "sample_project"


@pytest.mark.skipif(not (SAMPLE / "etki.yaml").is_file(), reason="sample_project absent")
@sync
async def test_sample_project_effort_of_one_work_item(tmp_path: Path) -> None:
    world = _stored(tmp_path, SAMPLE, "demo")
    one = next(
        c
        for c in world.repo.cases("demo")
        if c.decision.effort.known and c.decision.effort.low == c.decision.effort.high
    )
    [wid] = one.decision.effort.basis
    item = world.desk.workitems("demo")[wid]
    days = f"{one.decision.effort.low:g}"
    app = make_app(world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await goto(pilot, one.case_id)
        await settle(pilot)
        lines = [" ".join(line.split()) for line in all_detail_lines(app)]
        assert f"Effort {days} person-days" in lines  # was "13–13 person-days"
        text = " ".join(lines)
        title = " ".join(item.title.split())
        each = "1 person-day" if item.effort_days == 1 else f"{item.effort_days:g} person-days"
        assert f"- {wid} {title} · {each} · {item.date}" in text
        assert f"{days}–{days}" not in text
    world.repo.dispose()


def test_a_turkish_reason_names_its_clause(tmp_path: Path) -> None:
    import unicodedata

    world = build_tui_history_world(tmp_path)
    world.repo.add_cases(
        "demo",
        [
            (
                Request("T1", "Makbuz", "Makbuz"),
                tui_decision(
                    "req-demo-t0000001",
                    "IN_SCOPE",
                    ("MSA-2024-01#4.1", "MSA-2024-01#4.3"),
                    confidence=0.7,
                ),
            )
        ],
    )
    reason = unicodedata.normalize("NFD", "İADE makbuzu Madde 4.3'ün işi değil; ÖZEL iş.")
    approval_service(world.repo, world.settings).rule(
        "req-demo-t0000001", "convert_to_cr", reviewer="ayse", reason=reason
    )
    case = world.repo.case("req-demo-t0000001")
    assert correction_clauses(case, tuple(world.desk.clauses("demo"))) == (
        ("MSA-2024-01#4.3",),
        "reason",
    )
    world.repo.dispose()
