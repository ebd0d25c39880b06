"""Small defects a fresh trial found (issues 34 and 35), driven with Textual's Pilot on
real SQLite stores: the highlighted row stays in view when other reviewers rule cases
(the row kept with its banner, rows above it gone); ``T`` on an engagement shipped
without approvers (tdrs) says which etki.yaml field to fill and the command; the CR
form's format and appendix read without colour; the queue's summary line fits 80
columns by dropping its least needed parts whole. Nothing waits on time."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.text import Text
from textual.widgets import Checkbox, RadioButton, RadioSet

from etki.config import Settings
from etki.domain import Request
from etki.knowledge.loader import load_project
from etki.services import Desk, approval_service
from etki.store import CaseFileRepository
from etki_tui.glyphs import RADIO_OFF, RADIO_ON, TICKED, UNTICKED
from etki_tui.header import one_line
from etki_tui.queue.bars import FittedLine, Piece
from etki_tui.queue.table import QueueTable
from etki_tui.screens.cr_export import CrExportForm
from tests.conftest import TDRS_DIR, TuiWorld, tui_clock, tui_decision
from tests.test_tui_pilot import Recorder, current, make_app, press, queue_ids, settle, shown, sync


@pytest.fixture
def tui_tdrs_bare(tmp_path: Path) -> Iterator[TuiWorld]:
    """The real tdrs engagement as shipped: its etki.yaml lists no reviewers (skipped
    where ../shared/realdata/tdrs is not beside the clone)."""
    if not TDRS_DIR.is_dir():
        pytest.skip("../shared/realdata/tdrs is absent")
    project = load_project(TDRS_DIR)
    assert project.config.reviewers == ()
    settings = Settings(db_url=f"sqlite:///{tmp_path}/etki.db", wiki_dir=None, reviewer="reviewer")
    repo = CaseFileRepository(settings.db_url, clock=tui_clock)
    repo.save_project(project, "sha256:tdrs", b"{}\n")
    case = tui_decision("req-tdrs-0c1a2b3d", "IN_SCOPE", (), confidence=0.7)
    repo.add_cases("tdrs", [(Request("T1", "Sync sftp uploads.", "Sync"), case)])
    yield TuiWorld(tmp_path, settings, repo, Desk(settings, repo), "tdrs")
    repo.dispose()


def _more_cases(world: TuiWorld, n: int) -> list[str]:
    """``n`` more pending cases of the fixture project (ids in the queue's order)."""
    ids = [f"req-demo-cc{i:06d}" for i in range(n)]
    world.repo.add_cases(
        world.project_id,
        [
            (
                Request(f"C{i}", f"Extra request {i}.", f"Extra {i}"),
                tui_decision(cid, "IN_SCOPE", ("MSA-2024-01#3.2",), confidence=0.9),
            )
            for i, cid in enumerate(ids)
        ],
    )
    return ids


def _cursor_in_view(table: QueueTable) -> bool:
    """The highlighted row is drawn inside the table (line 0 is the header)."""
    y = table.cursor_row + 1
    top = int(table.scroll_y)
    return top + 1 <= y < top + table.scrollable_content_region.height


@sync
async def test_the_highlighted_row_stays_in_view_when_others_rule(tui_world: TuiWorld) -> None:
    _more_cases(tui_world, 30)
    rules = approval_service(tui_world.repo, tui_world.settings)
    for size in ((80, 24), (120, 40)):
        app = make_app(tui_world)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            table = app.query_one(QueueTable)
            await press(pilot, "end")
            await settle(pilot)
            last = current(app)
            assert last is not None and _cursor_in_view(table)
            # ruled elsewhere: its row stays, a banner over the table takes room
            rules.rule(last, "approve", reviewer="ayse")
            app.poll_queue()
            await settle(pilot)
            assert app.query_one("#queue-banner").display and current(app) == last
            assert _cursor_in_view(table), (size, table.cursor_row, table.scroll_y)
            # up one, the ruled row let go; then rows above the cursor ruled too
            await press(pilot, "up")
            await settle(pilot)
            here = current(app)
            ids = queue_ids(app)
            assert here is not None and last not in ids
            for above in ids[ids.index(here) - 8 : ids.index(here) - 2]:
                rules.rule(above, "reject", reason="not ours", reviewer="ayse")
            app.poll_queue()
            await settle(pilot)
            assert current(app) == here and _cursor_in_view(table)
            rules.rule(here, "approve", reviewer="ayse")
            app.poll_queue()
            await settle(pilot)
            assert current(app) == here and _cursor_in_view(table)
        rules = approval_service(tui_world.repo, tui_world.settings)


@sync
async def test_assigning_without_approvers_names_the_field_and_the_command(
    tui_tdrs_bare: TuiWorld,
) -> None:
    seen = Recorder()
    app = make_app(tui_tdrs_bare)
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        await press(pilot, "T")
        await settle(pilot)
        root = tui_tdrs_bare.repo.project_root("tdrs")
        [said] = [n for n in seen.notes() if "approvers" in n]
        assert "the project lists no approvers" in said
        assert f"under `reviewers:` in {root}/etki.yaml" in said and "`role: approver`" in said
        assert f"`etki init {root} --update-reviewers`" in said
        assert "list you in etki.yaml" not in said  # not the advice for an unlisted seat


def _toggle_text(widget: RadioButton | Checkbox) -> str:
    return shown(widget, widget.size.width, 1)


@sync
async def test_the_cr_forms_format_and_appendix_read_without_colour(
    tui_world: TuiWorld, tmp_path: Path
) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        case_id = current(app)
        assert case_id is not None
        approval_service(tui_world.repo, tui_world.settings).rule(
            case_id, "convert_to_cr", reason="Yeni bir yetenek.", reviewer="ayse"
        )
        app.poll_queue()
        await settle(pilot)
        await press(pilot, "X")
        form = app.screen
        assert isinstance(form, CrExportForm)
        buttons = list(form.query_one("#crx-format", RadioSet).query(RadioButton))
        marks = [_toggle_text(b)[1] for b in buttons]
        assert marks == [RADIO_ON, RADIO_OFF, RADIO_OFF]  # Word chosen, by the glyph
        buttons[2].value = True  # Markdown
        await settle(pilot)
        assert [_toggle_text(b)[1] for b in buttons] == [RADIO_OFF, RADIO_OFF, RADIO_ON]
        appendix = form.query_one("#crx-internal", Checkbox)
        assert _toggle_text(appendix)[1] == UNTICKED
        appendix.value = True
        await settle(pilot)
        assert _toggle_text(appendix)[1] == TICKED
        assert "Internal appendix" in _toggle_text(appendix)


def test_a_fitted_line_drops_whole_parts_least_needed_first() -> None:
    pieces = [
        Piece(Text(" FILTER "), 0, ""),
        Piece(Text("1 of 30"), 0, " "),
        Piece(Text("Esc clears"), 2, " · ", Text("Esc")),
        Piece(Text("mine"), 10, " · ", more=True),
        Piece(Text("“error”"), 11, " · ", more=True),
    ]
    line = FittedLine(pieces)
    assert line.fit(80).plain == " FILTER  1 of 30 · Esc clears · mine · “error”"
    assert line.fit(40).plain == " FILTER  1 of 30 · Esc clears · mine · …"
    assert line.fit(30).plain == " FILTER  1 of 30 · Esc clears"  # "…" no longer fits
    assert line.fit(22).plain == " FILTER  1 of 30 · Esc"
    assert line.fit(10).plain == " FILTER  …"  # only what is always shown, cut


def test_the_status_line_is_cut_at_a_word() -> None:
    said = "Claimed req-tdrs-9f639c5f until 2026-12-07 15:07Z: the others see it claimed."
    assert one_line("Saved", said, 80).plain == (
        "Saved: Claimed req-tdrs-9f639c5f until 2026-12-07 15:07Z: the others… (L: all)"
    )
    for width in (78, 70, 60, 50):
        line = one_line("Saved", said, width).plain
        assert len(line) <= width and line.endswith("… (L: all)")
        kept = line.removesuffix("… (L: all)")
        assert f"Saved: {said}".startswith(kept)
        assert f"Saved: {said}"[len(kept)] in " :"  # the word before it is whole


@sync
async def test_the_queue_summary_fits_80_columns_in_whole_parts(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "space", "down", "space", "v")  # two marked, IN_SCOPE only
        await settle(pilot)
        summary = app.query_one("#filter-summary")
        line = shown(summary).rstrip()
        assert line.startswith(" * 2 marked ") and " FILTER " in line, line
        assert line.endswith(("Esc clears", "Esc", "…")), line
        assert " of " in line
        await press(pilot, "/")
        await settle(pilot)
        await press(pilot, *"sso")
        await settle(pilot)
        line = shown(summary).rstrip()  # the find box takes 30 columns of the line
        assert line.startswith(" * 2 marked ") and line.endswith(("Esc clears", "Esc", "…")), line
