"""Bulk rulings in the queue (issue 14 item 8), driven with Pilot on a real SQLite file
and a real wiki folder: Space marks cases (a ``*`` before the id, a count in the filter
line), ``B`` rules every marked case as the engine said after one confirmation, each its
own ruling with its own expected version and audit row; a case another connection ruled
before the confirmation is reported alone and the others are still ruled; a read-only
desk refuses as it refuses a single ruling."""

from __future__ import annotations

from dataclasses import replace

from etki.services import Desk, approval_service
from etki.store import CaseFileRepository
from etki_tui.messages import BulkRuled, BulkRuleRequested
from etki_tui.queue.bars import MARK
from etki_tui.queue.pane import QueuePane, QueueTable
from etki_tui.screens.bulk import BulkConfirm
from etki_tui.screens.notice import NoticeModal
from tests.conftest import TuiWorld, tui_clock
from tests.test_tui_pilot import (
    Recorder,
    current,
    decision_files,
    make_app,
    press,
    queue_ids,
    settle,
    shown,
    sync,
)

FIRST = "req-demo-0a1f3c21"  # IN_SCOPE, sure
SECOND = "req-demo-1b7e9d02"  # REJECT, sure
THIRD = "req-demo-5f7d2b46"  # IN_SCOPE, sure (the sixth row)
CR_UNSURE = "req-demo-2c4a8e13"  # CHANGE_REQUEST, needs a careful look (the third row)
HOSTILE_UNSURE = "req-demo-3d5b0f24"  # IN_SCOPE, needs a careful look (the fourth row)
EXPECTED = {FIRST: "IN_SCOPE", SECOND: "REJECT", THIRD: "IN_SCOPE"}
MARK_THREE = ("space", "space", "down", "down", "down", "space")
"""Marks the first, second and sixth rows: the three the engine is sure of."""


def _committed_audit(world: TuiWorld, case_id: str) -> list[tuple]:
    return [row for row in world.repo.audit_log(case_id) if row[6] == "committed"]


@sync
async def test_mark_three_and_rule_them_with_one_confirm(tui_world: TuiWorld) -> None:
    seen = Recorder()
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        assert current(app) == FIRST
        await press(pilot, *MARK_THREE)  # each space marks and moves down
        pane = app.query_one(QueuePane)
        assert pane.marked == {FIRST, SECOND, THIRD}
        table = app.query_one(QueueTable)
        for case_id in (FIRST, SECOND, THIRD):
            assert table.get_cell(case_id, "case").plain.startswith(MARK + " ")
        assert not table.get_cell("req-demo-3d5b0f24", "case").plain.startswith(MARK)
        summary = shown(app.query_one("#filter-summary"), 78, 1)
        assert "3 marked" in summary
        await press(pilot, "B")
        [asked] = seen.of(BulkRuleRequested)
        assert [c.case_id for c in asked.cases] == [FIRST, SECOND, THIRD]
        dialog = app.screen
        assert isinstance(dialog, BulkConfirm)
        assert app.focused is not None and app.focused.id == "bulk-cancel"  # defaults to No
        text = " ".join(shown(w, 70, 1) for w in dialog.query(".bulk-case"))
        assert all(c in text for c in (FIRST, SECOND, THIRD))
        assert "Rule 3 marked cases" in shown(dialog.query_one("#bulk-question"), 70, 1)
        # the clause memory where the reviewer confirms: FIRST cites 3.2, disputed in the
        # fixture (its queue row says so too); the other two cite no disputed clause
        assert dialog.disputed == {FIRST: ("MSA-2024-01#3.2",)}
        warning = shown(dialog.query_one("#bulk-disputed"), 70, 2)
        assert warning.startswith("! DISPUTED 1 of them cites a clause whose rulings disagree")
        lines = [shown(w, 70, 1) for w in dialog.query(".bulk-case")]
        assert "! DISPUTED 3.2" in lines[0] and FIRST in lines[0]
        assert all("DISPUTED" not in line for line in lines[1:])
        await press(pilot, "y")
        await settle(pilot)
        assert not isinstance(app.screen, BulkConfirm)
        [done] = seen.of(BulkRuled)
        assert {o.ruling.case_id: o.ruling.ruling for o in done.committed} == EXPECTED
        assert not done.conflicts and not done.failed
        assert not {FIRST, SECOND, THIRD} & set(queue_ids(app))
        assert pane.marked == set()
        assert "marked" not in shown(app.query_one("#filter-summary"), 78, 1)
    for case_id, ruling in EXPECTED.items():
        record = tui_world.repo.case(case_id)
        assert record.ruling is not None and record.ruling.ruling == ruling
        assert record.ruling.reviewer == "reviewer" and not record.ruling.is_override
        [row] = _committed_audit(tui_world, case_id)  # one audit row per ruling
        assert row[1:4] == (
            "reviewer",
            {"IN_SCOPE": "approve", "REJECT": "reject", "CHANGE_REQUEST": "convert_to_cr"}[ruling],
            ruling,
        )
        assert row[5] == 2  # its own version: 1 seen, 2 after
        [page] = decision_files(tui_world, case_id)  # each projected into the wiki
        assert case_id in page.read_text(encoding="utf-8")
    from etki.wiki.projection import WikiProjector

    assert WikiProjector(tui_world.repo, tui_world.settings).verify("demo") == []


@sync
async def test_a_case_ruled_by_another_connection_before_confirm_is_reported_alone(
    tui_world: TuiWorld,
) -> None:
    """Three cases marked, the dialog open; meanwhile ayse, through her own connection
    to the same database file, rules the second one. Confirming rules the other two,
    reports the conflict (who won, what) and records no ruling of ours on it: the
    attempt is audited as a conflict."""
    seen = Recorder()
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        await press(pilot, *MARK_THREE, "B")
        assert isinstance(app.screen, BulkConfirm)
        other = CaseFileRepository(tui_world.settings.db_url, clock=tui_clock)
        try:
            approval_service(other, replace(tui_world.settings, wiki_dir=None)).rule(
                SECOND, "reject", reviewer="ayse"
            )
        finally:
            other.dispose()
        await press(pilot, "y")
        await settle(pilot)
        [done] = seen.of(BulkRuled)
        assert sorted(o.ruling.case_id for o in done.committed) == [FIRST, THIRD]
        [(case_id, who, _at, ruling)] = done.conflicts
        assert (case_id, who, ruling) == (SECOND, "ayse", "REJECT")
        notice = app.screen
        assert isinstance(notice, NoticeModal) and notice.id == "bulk-report"
        body = shown(notice.query_one("#notice-body"), 70, 8)
        assert SECOND in body and "ayse" in body and "2 other cases were ruled" in body
        await press(pilot, "enter")
        await settle(pilot)
        assert not {FIRST, SECOND, THIRD} & set(queue_ids(app))
    second = tui_world.repo.case(SECOND).ruling
    assert second is not None and second.reviewer == "ayse"
    outcomes = [(r[1], r[6]) for r in tui_world.repo.audit_log(SECOND)]
    assert outcomes == [("ayse", "committed"), ("reviewer", "conflict")]
    for case_id in (FIRST, THIRD):
        ruling = tui_world.repo.case(case_id).ruling
        assert ruling is not None and ruling.reviewer == "reviewer"
        assert len(_committed_audit(tui_world, case_id)) == 1


@sync
async def test_cancel_records_nothing_and_keeps_the_marks(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "space", "space", "up", "space")  # mark 1, 2; unmark 2
        pane = app.query_one(QueuePane)
        assert pane.marked == {FIRST}
        await press(pilot, "B")
        assert isinstance(app.screen, BulkConfirm)
        await press(pilot, "enter")  # Cancel has the focus
        assert not isinstance(app.screen, BulkConfirm)
        assert pane.marked == {FIRST}
    assert tui_world.repo.case(FIRST).ruling is None
    assert tui_world.repo.audit_log(FIRST) == []


@sync
async def test_nothing_marked_says_how_to_mark(tui_world: TuiWorld) -> None:
    seen = Recorder()
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        await press(pilot, "B")
        assert not isinstance(app.screen, BulkConfirm)
        assert any("Nothing is marked" in n for n in seen.notes())


@sync
async def test_a_read_only_desk_refuses_the_bulk_ruling(tui_world: TuiWorld) -> None:
    """vera is a viewer: marking works (it records nothing), B is dimmed and, pressed,
    says why nothing is ruled, as a, c and r do; no dialog, no audit row."""
    seen = Recorder()
    desk = Desk(replace(tui_world.settings, reviewer="vera"), tui_world.repo)
    app = make_app(replace(tui_world, desk=desk))
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        await press(pilot, "space", "space")
        assert app.query_one(QueuePane).marked == {FIRST, SECOND}
        summary = shown(app.query_one("#filter-summary"), 78, 1)
        assert "2 marked" in summary and "read-only: nothing can be ruled" in summary
        assert "B rules them" not in summary
        assert "B" not in app.screen.active_bindings  # not offered to this seat
        await press(pilot, "B")
        assert not isinstance(app.screen, BulkConfirm)
        assert any("Read-only desk" in n and "vera" in n for n in seen.notes())
        assert not seen.of(BulkRuled)
    for case_id in (FIRST, SECOND):
        assert tui_world.repo.case(case_id).ruling is None
        assert tui_world.repo.audit_log(case_id) == []


@sync
async def test_a_marked_case_ruled_elsewhere_leaves_the_marks_on_the_next_refresh(
    tui_world: TuiWorld,
) -> None:
    """Two cases marked; ayse rules the second from her own connection; the live refresh
    takes it out of the marks (B would not offer it) and the count follows."""
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "space", "space")
        pane = app.query_one(QueuePane)
        assert pane.marked == {FIRST, SECOND}
        other = CaseFileRepository(tui_world.settings.db_url, clock=tui_clock)
        try:
            approval_service(other, replace(tui_world.settings, wiki_dir=None)).rule(
                SECOND, "reject", reviewer="ayse"
            )
        finally:
            other.dispose()
        app.poll_queue()
        await settle(pilot)
        assert pane.marked == {FIRST}
        assert "1 marked" in shown(app.query_one("#filter-summary"), 78, 1)
        assert [c.case_id for c in pane.marked_cases()] == [FIRST]


@sync
async def test_a_mark_never_widens_the_queue_past_the_screen(tui_world: TuiWorld) -> None:
    """At 80x24 the first mark makes room for itself out of the titles (a fresh-user
    trial: the case column widened past the table, a horizontal scrollbar took a row,
    and stayed after the marked cases were ruled); unmarking gives the room back."""
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.query_one(QueueTable)

        def columns() -> int:  # the columns drawn (a narrow layout leaves some out)
            return sum(
                c.content_width + 2 * table.cell_padding
                for c in table.ordered_columns
                if not c.hidden
            )

        room = table.size.width
        unmarked = [c.content_width for c in table.ordered_columns]
        before = columns()
        assert before <= room and not table.show_horizontal_scrollbar
        await press(pilot, "space")  # marks the highlighted case, moves to the next
        lines = shown(table).splitlines()
        assert lines[1].lstrip().startswith(f"{MARK} "), lines[:3]
        # the mark's two cells came out of the titles: the table is no wider than before
        marked = [c.content_width for c in table.ordered_columns]
        assert marked[0] == unmarked[0] + len(MARK) + 1
        assert marked[1] == unmarked[1] - (len(MARK) + 1)
        assert columns() == before and not table.show_horizontal_scrollbar
        await press(pilot, "up", "space")  # unmarked again
        assert not app.query_one(QueuePane).marked
        assert [c.content_width for c in table.ordered_columns] == unmarked
        assert not table.show_horizontal_scrollbar


@sync
async def test_b_rules_only_the_cases_the_engine_is_sure_of(tui_world: TuiWorld) -> None:
    """Four rows marked, two of them ones the engine is not sure of (``?`` after the
    confidence): the filter line says B rules the two sure ones, the confirmation lists
    only those and says two are left for a careful look; after it the two unsure cases
    are still pending, still marked, and the result says so."""
    seen = Recorder()
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        await press(pilot, "space", "space", "space", "space")  # rows 1-4
        pane = app.query_one(QueuePane)
        assert pane.marked == {FIRST, SECOND, CR_UNSURE, HOSTILE_UNSURE}
        table = app.query_one(QueueTable)
        assert table.get_cell(CR_UNSURE, "conf").plain == "0.64 ?"
        assert table.get_cell(FIRST, "conf").plain == "0.86  "
        assert "B rules the 2 sure" in shown(app.query_one("#filter-summary"), 78, 1)
        await press(pilot, "B")
        dialog = app.screen
        assert isinstance(dialog, BulkConfirm)
        assert [c.case_id for c in dialog.cases] == [FIRST, SECOND]
        assert "Rule 2 marked cases" in shown(dialog.query_one("#bulk-question"), 70, 1)
        left = shown(dialog.query_one("#bulk-unsure"), 70, 2)
        assert left.startswith("? needs a careful look 2 other marked cases")
        lines = " ".join(shown(w, 70, 1) for w in dialog.query(".bulk-case"))
        assert CR_UNSURE not in lines and HOSTILE_UNSURE not in lines
        await press(pilot, "y")
        await settle(pilot)
        [done] = seen.of(BulkRuled)
        assert sorted(o.ruling.case_id for o in done.committed) == [FIRST, SECOND]
        assert done.unsure == 2
        assert any("2 marked cases the engine is not sure of were left" in n for n in seen.notes())
        assert pane.marked == {CR_UNSURE, HOSTILE_UNSURE}
        assert {CR_UNSURE, HOSTILE_UNSURE} <= set(queue_ids(app))
        # at 80 columns the note is the short one, beside the count it must not push out
        assert "? all unsure: B rules none · All " in shown(app.query_one("#filter-summary"), 78, 1)
    for case_id in (CR_UNSURE, HOSTILE_UNSURE):
        assert tui_world.repo.case(case_id).ruling is None
        assert tui_world.repo.audit_log(case_id) == []


@sync
async def test_b_with_only_unsure_cases_marked_rules_none(tui_world: TuiWorld) -> None:
    """Only cases the engine is not sure of are marked: no dialog, nothing recorded,
    the marks stay and a warning says why."""
    seen = Recorder()
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        await press(pilot, "down", "down", "space", "space")  # rows 3 and 4
        pane = app.query_one(QueuePane)
        assert pane.marked == {CR_UNSURE, HOSTILE_UNSURE}
        await press(pilot, "B")
        assert not isinstance(app.screen, BulkConfirm)
        assert any("not sure of any of the 2 marked cases" in n for n in seen.notes())
        assert not seen.of(BulkRuled)
        assert pane.marked == {CR_UNSURE, HOSTILE_UNSURE}
    for case_id in (CR_UNSURE, HOSTILE_UNSURE):
        assert tui_world.repo.case(case_id).ruling is None
        assert tui_world.repo.audit_log(case_id) == []
