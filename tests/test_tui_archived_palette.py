"""A PMO trial of issue 35 item 6: the desk on an archived project offered "Approve (a)",
"Rule marked (B)", "Assign… (T)" and "Import… (i)" in the command palette, and ``i``
opened the import form, refused only on submit. Now the palette offers no write on an
archived project (its read actions stay), ``i`` and ``T`` open nothing and say why, and
the footer leaves them out. Driven with Textual's Pilot on the real SQLite fixture
project, waiting for states only (tests/test_tui_pilot.py)."""

from __future__ import annotations

from dataclasses import replace as dc_replace

import pytest
from textual.command import CommandInput, CommandList, CommandPalette
from textual.widgets import Footer

from etki.errors import ProjectArchivedError
from etki.services import Desk
from etki_tui.messages import PreanalysisWanted
from etki_tui.queue.bars import CaseDetail
from etki_tui.queue.pane import QueuePane
from etki_tui.screens.assign import AssignPicker
from etki_tui.screens.import_file import ImportForm
from tests.conftest import TuiWorld
from tests.test_tui_pilot import Recorder, current, make_app, press, settle, shown, sync, until

WRITES = ("Approve", "Convert", "Reject", "Rule marked", "Amend", "Note", "Claim")
WRITES += ("New", "Import", "Estimate", "Resolve", "Assign", "Pre-analyse")
"""The palette labels of the actions that write (etki_tui.actions.ARCHIVED_HIDDEN)."""


def _hits(app) -> list[str]:  # noqa: ANN001
    """The open palette's hits, as their prompts read."""
    return [str(o.prompt) for o in app.screen.query_one(CommandList).options]


def _detail(app) -> str:  # noqa: ANN001
    """The case detail's text, on one line."""
    detail = app.query_one(CaseDetail)
    return " ".join(shown(detail.query_one("#detail-body"), 116, 400).split())


async def _type(pilot, query: str) -> None:  # noqa: ANN001
    """Set the palette's input to ``query`` (at once, like a paste) and let it search."""
    pilot.app.screen.query_one(CommandInput).value = query
    await settle(pilot)


@sync
async def test_an_archived_projects_palette_and_keys_offer_no_write(tui_world: TuiWorld) -> None:
    pid = tui_world.project_id
    tui_world.desk.archive_project(pid, "Sözleşme bitti")
    seen = Recorder()
    app = make_app(tui_world)
    async with app.run_test(size=(100, 30), message_hook=seen) as pilot:
        await settle(pilot)
        await until(pilot, lambda: app.archived, "the seat read")
        footer = shown(app.query_one(Footer))
        assert "Import" not in footer and "Assign" not in footer
        for key, form, what in (("i", ImportForm, "an import"), ("T", AssignPicker, "assign")):
            await press(pilot, key)
            await settle(pilot)
            assert not isinstance(app.screen, form)
            assert any(
                n.startswith(f"Project {pid} is archived") and what in n for n in seen.notes()
            )
        await press(pilot, "ctrl+p")
        assert CommandPalette.is_open(app)
        await until(pilot, lambda: _hits(app), "the palette's actions")
        offered = _hits(app)  # nothing typed: every action it offers
        assert any(h.startswith("Help") for h in offered)
        for label in WRITES:
            assert not any(h.startswith(label) for h in offered), (label, offered)
        for query in ("approve", "rule marked", "assign", "import", "estimate", "note"):
            await _type(pilot, query)
            hits = _hits(app)
            assert not any(h.startswith(WRITES) for h in hits), (query, hits)
        await _type(pilot, "export queue")  # a read stays offered
        assert any(h.startswith("Export queue") for h in _hits(app)), _hits(app)
        await press(pilot, "escape")
        # unarchived elsewhere: Ctrl+R reads the seat again and the writes come back
        tui_world.desk.archive_project(pid, archived=False)
        await press(pilot, "ctrl+r")
        await until(pilot, lambda: not app.archived, "the seat read again")
        await press(pilot, "ctrl+p")
        await _type(pilot, "import")
        assert any(h.startswith("Import") for h in _hits(app)), _hits(app)


@sync
async def test_p_on_an_archived_project_asks_no_model_and_is_not_offered(
    tui_world: TuiWorld,
) -> None:
    """A second PMO trial: ``p`` (a new developer pre-analysis, which is saved on the
    case) was still offered on an archived project, whose desk is read-only. With a
    model configured (an endpoint that answers nothing: any ask would save an error
    pre-analysis), ``p`` asks nothing and says the project is archived, the footer and
    the palette leave Pre-analyse out, and the desk's service refuses it too."""
    pid = tui_world.project_id
    settings = dc_replace(
        tui_world.settings, llm_base_url="http://127.0.0.1:9/v1", llm_model="yerel-model"
    )
    desk = Desk(settings, tui_world.repo)
    world = dc_replace(tui_world, settings=settings, desk=desk)
    desk.archive_project(pid, "Sözleşme bitti")
    seen = Recorder()
    app = make_app(world)
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await settle(pilot)
        await until(pilot, lambda: app.archived, "the seat read")
        case_id = current(app)
        assert case_id is not None
        pane = app.query_one(QueuePane)
        assert pane.check_action("preanalyse", ()) is False  # not in the footer
        await until(pilot, lambda: "archived and takes no new" in _detail(app), "the pane")
        assert "p asks" not in _detail(app)  # the detail pane does not offer it either
        await press(pilot, "p")
        await settle(pilot)
        assert any(
            n.startswith(f"Project {pid} is archived") and "a pre-analysis" in n
            for n in seen.notes()
        ), seen.notes()
        assert not any("Asking yerel-model" in n for n in seen.notes())
        assert not seen.of(PreanalysisWanted)  # the key itself is refused
        app.post_message(PreanalysisWanted(case_id))  # any other way in: refused too
        await settle(pilot)
        assert tui_world.repo.preanalyses(case_id) == []
        assert case_id not in pane.preanalysing
        await press(pilot, "ctrl+p")
        await _type(pilot, "pre-analy")
        assert not any(h.startswith("Pre-analyse") for h in _hits(app)), _hits(app)
        await press(pilot, "escape")
    with pytest.raises(ProjectArchivedError, match="takes no pre-analyses"):
        desk.preanalyse(case_id)
    assert tui_world.repo.preanalyses(case_id) == []
    desk.archive_project(pid, archived=False)  # active again: Pre-analyse is offered
    app = make_app(world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await until(pilot, lambda: "p asks model yerel-model" in _detail(app), "the offer")
        await press(pilot, "ctrl+p")
        await _type(pilot, "pre-analy")
        assert any(h.startswith("Pre-analyse") for h in _hits(app)), _hits(app)
