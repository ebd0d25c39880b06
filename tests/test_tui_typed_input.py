"""Nothing typed is lost or misplaced (issue 34 item 5): the new-request form starts in
a framed title box (every box framed), asks before Esc or Cancel discards what was
typed, and selects the new case after Add; an override reason typed while another
reviewer rules the case keeps the keys typed after the update and is kept where it can
be copied (a notice that stays until closed, and the draft of an amendment).

Driven with Textual's Pilot at 80x24 and 120x40 on a real SQLite file (tests/conftest.py
and the sample project); every step waits for the app to settle, never for time.
"""

from __future__ import annotations

import pytest
from textual.widgets import Input, TextArea

from etki.services import approval_service
from etki_tui.screens.confirm import ConfirmRuling
from etki_tui.screens.new_request import DiscardTyped, NewRequestForm
from etki_tui.screens.notice import MessagesScreen, NoticeModal
from tests.conftest import TuiWorld
from tests.test_tui_keys import SAMPLE, _engagement_desk, desk_app
from tests.test_tui_pilot import (
    current,
    opened,
    press,
    queue_ids,
    settle,
    settled_app,
    shown,
    sync,
    until,
)

SIZES = [(80, 24), (120, 40)]


@sync
@pytest.mark.parametrize("size", SIZES)
async def test_the_form_starts_in_a_framed_title_and_frames_every_box(
    tui_world: TuiWorld, size: tuple[int, int]
) -> None:
    async with settled_app(tui_world, size) as (app, pilot):
        form = await opened(pilot, "n", NewRequestForm)
        title = form.query_one("#intake-title", Input)
        assert app.focused is title
        for box in (title, form.query_one("#intake-text"), form.query_one("#intake-by")):
            edges = box.styles.border
            assert all(kind not in ("", "none", "hidden") for kind, _ in edges), (box.id, edges)
            assert box.border_title  # the box's name is in its frame
            assert box.region.height >= 3  # a frame above and below what is typed


@sync
@pytest.mark.parametrize("size", SIZES)
async def test_escape_asks_before_discarding_what_was_typed(
    tui_world: TuiWorld, size: tuple[int, int]
) -> None:
    before = len(tui_world.repo.cases("demo"))
    async with settled_app(tui_world, size) as (app, pilot):
        form = await opened(pilot, "n", NewRequestForm)
        await press(pilot, *"Kiosk")  # typed into the title box
        assert form.query_one("#intake-title", Input).value == "Kiosk"
        await press(pilot, "escape")
        assert isinstance(app.screen, DiscardTyped)
        await press(pilot, "enter")  # Keep editing has the focus: nothing is lost
        assert app.screen is form and app.focused is form.query_one("#intake-title", Input)
        await press(pilot, *" kurulumu")  # the keys go on into the same box
        assert form.query_one("#intake-title", Input).value == "Kiosk kurulumu"
        await press(pilot, "escape", "escape")  # Esc on the question keeps editing too
        assert app.screen is form
        await press(pilot, "escape", "d")  # d discards
        assert not isinstance(app.screen, NewRequestForm | DiscardTyped)
        # nothing typed: Esc closes at once
        await press(pilot, "n")
        assert isinstance(app.screen, NewRequestForm)
        await press(pilot, "escape")
        assert not isinstance(app.screen, NewRequestForm | DiscardTyped)
    assert len(tui_world.repo.cases("demo")) == before


@sync
async def test_after_add_the_new_case_is_selected(tmp_path) -> None:  # noqa: ANN001
    desk = _engagement_desk(SAMPLE, tmp_path)
    app = desk_app(desk, "demo")
    before = {c.case_id for c in desk.queue("demo")}
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        first = current(app)
        form = await opened(pilot, "n", NewRequestForm)
        form.query_one("#intake-title", Input).value = "Randevu ekranı"
        form.query_one("#intake-text", TextArea).text = "İstanbul şubesi için randevu ekranı"
        await press(pilot, "tab", "tab", "enter")  # Enter in the submitter box adds
        await until(pilot, lambda: len(queue_ids(app)) == len(before) + 1, "the new case")
        [new] = set(queue_ids(app)) - before
        await until(pilot, lambda: current(app) == new, "the new case selected")
        assert current(app) != first
        assert app.focused is app.query_one("#queue-table")


@sync
@pytest.mark.parametrize("size", SIZES)
async def test_a_reason_typed_while_another_reviewer_rules_is_kept(
    tui_world: TuiWorld, size: tuple[int, int]
) -> None:
    async with settled_app(tui_world, size) as (app, pilot):
        first = queue_ids(app)[0]
        await press(pilot, "r", *"Nicht im")  # an override: the reason box has the focus
        dialog = app.screen
        assert isinstance(dialog, ConfirmRuling) and dialog.is_override
        approval_service(tui_world.repo, tui_world.settings).rule(first, "approve", reviewer="ayse")
        app.poll_queue()  # the interval timer's job, without waiting for it
        await until(pilot, lambda: dialog.ruled_meanwhile is not None, "the dialog told")
        await press(pilot, *" Umfang")  # keys typed after the update are not dropped
        box = dialog.query_one("#confirm-reason", Input)
        assert box.value == "Nicht im Umfang" and app.focused is box
        await press(pilot, "enter")  # closes: nothing is recorded
        notice = app.screen
        assert isinstance(notice, NoticeModal) and notice.id == "reason-kept"
        said = " ".join(shown(notice.query_one("#notice-body"), 70, 14).split())
        assert "Your reason, not recorded: Nicht im Umfang" in said, said
        assert "was ruled meanwhile ✓ IN_SCOPE by ayse" in said
        assert "A (amend) with Reject starts with it" in said
        await press(pilot, "escape")
        assert not isinstance(app.screen, NoticeModal)
        # a fresh trial: the reason was not in the messages view once the notice closed
        await press(pilot, "L")
        await until(pilot, lambda: isinstance(app.screen, MessagesScreen), "the messages")
        entries = [" ".join(shown(e, 70, 12).split()) for e in app.screen.query(".message-entry")]
        [kept] = [e for e in entries if "Ruled meanwhile: reason kept" in e]
        assert "Your reason, not recorded: Nicht im Umfang" in kept, kept
    ruling = tui_world.repo.case(first).ruling
    assert ruling is not None and ruling.reviewer == "ayse" and ruling.ruling == "IN_SCOPE"


@sync
async def test_the_palette_lists_a_project_stored_while_the_desk_is_open(
    tui_world: TuiWorld,
) -> None:
    """Issue 34 item 8: a project stored by another process after the desk opened was
    not in the palette until Ctrl+R. The palette reads the projects as it opens."""
    from tests.factories import make_project
    from tests.test_tui_pilot import palette

    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        assert "later" not in {pid for pid, _ in app.projects}
        tui_world.repo.save_project(make_project("later"), "sha256:later", b"{}\n")
        await palette(pilot, "switch project later")
        await until(pilot, lambda: app.project_id == "later", "the new project opened")


@sync
@pytest.mark.parametrize("size", SIZES)
async def test_leaving_hafiza_clears_its_search(tui_world: TuiWorld, size: tuple[int, int]) -> None:
    """Issue 34 item 8: an old Hafıza query stayed across tabs and still filtered the
    list when the reviewer came back with another question."""
    async with settled_app(tui_world, size) as (app, pilot):
        await press(pilot, "2", "slash")
        box = app.query_one("#memory-search", Input)
        box.value = "contractor"
        await press(pilot, "enter")  # search now
        pane = app.query_one("#hafiza")
        assert box.value == "contractor"
        await until(pilot, lambda: pane.query_one("#memory-list").option_count > 0, "hits")
        await press(pilot, "1")
        assert box.value == ""
        await press(pilot, "2")
        assert box.value == ""
        memory = app.query_one("MemoryPane")
        assert memory.query_text == "" and memory.hits == []


@sync
@pytest.mark.parametrize("size", SIZES)
async def test_the_preview_of_index_md_shows_no_raw_frontmatter(
    tui_world: TuiWorld, size: tuple[int, int]
) -> None:
    """Issue 34 item 8: ``index.md``'s raw YAML frontmatter filled its short preview.
    The preview shows the page; the opened page (Enter) still has its metadata."""
    from textual.widgets import OptionList

    from etki_tui.hafiza.pane import MemoryPane

    async with settled_app(tui_world, size) as (app, pilot):
        await press(pilot, "2")
        entries = app.query_one("#memory-list", OptionList)
        index = next(i for i, o in enumerate(entries.options) if o.id == "page:index.md")
        entries.focus()
        entries.highlighted = index
        pane = app.query_one(MemoryPane)
        reader = pane.reader
        await until(pilot, lambda: reader.path == "index.md", "the preview of index.md")
        await settle(pilot)
        meta = app.query_one("#memory-meta")
        assert not meta.display
        assert reader.text.startswith("---\n")  # the page has frontmatter, left out
        await press(pilot, "enter")
        await until(pilot, lambda: meta.display, "the opened page's metadata")
        said = " ".join(shown(meta).split())
        assert "Page metadata (frontmatter)" in said and "kind: index" in said


@sync
@pytest.mark.parametrize("size", SIZES)
async def test_hafiza_lists_decision_files_by_ruling_and_title(
    tui_world: TuiWorld, size: tuple[int, int]
) -> None:
    """Issue 34 item 8: decision files were listed by slug (``DEC-20261206-native-…``)."""
    from textual.widgets import OptionList

    async with settled_app(tui_world, size) as (app, pilot):
        await press(pilot, "2")
        entries = app.query_one("#memory-list", OptionList)
        files = [o for o in entries.options if (o.id or "").startswith("page:decisions/")]
        assert files
        ruled = {c.case_id: c for c in tui_world.repo.cases("demo", status="ruled")}
        for option in files:
            case_id = option.id.removesuffix(".md").rpartition("--")[2]
            case = ruled[case_id]
            label = str(option.prompt)
            assert not label.startswith("DEC-"), label
            assert case.ruling is not None
            glyph = {"IN_SCOPE": "✓", "REJECT": "✗", "CHANGE_REQUEST": "+"}[case.ruling.ruling]
            assert label.startswith(glyph + " "), label
            if size[0] >= 100:  # at 80 columns the glyph alone names the ruling
                short = {"CHANGE_REQUEST": "CR"}.get(case.ruling.ruling, case.ruling.ruling)
                assert short in label, label
            assert case.title[:8] in label, (label, case.title)
