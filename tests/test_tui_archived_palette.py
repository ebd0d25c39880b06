"""A PMO trial of issue 35 item 6: the desk on an archived project offered "Approve (a)",
"Rule marked (B)", "Assign… (T)" and "Import… (i)" in the command palette, and ``i``
opened the import form, refused only on submit. Now the palette offers no write on an
archived project (its read actions stay), ``i`` and ``T`` open nothing and say why, and
the footer leaves them out. Driven with Textual's Pilot on the real SQLite fixture
project, waiting for states only (tests/test_tui_pilot.py)."""

from __future__ import annotations

from textual.command import CommandInput, CommandList, CommandPalette
from textual.widgets import Footer

from etki_tui.screens.assign import AssignPicker
from etki_tui.screens.import_file import ImportForm
from tests.conftest import TuiWorld
from tests.test_tui_pilot import Recorder, make_app, press, settle, shown, sync, until

WRITES = ("Approve", "Convert", "Reject", "Rule marked", "Amend", "Note", "Claim")
WRITES += ("New", "Import", "Estimate", "Resolve", "Assign")
"""The palette labels of the actions that write (etki_tui.actions.ARCHIVED_HIDDEN)."""


def _hits(app) -> list[str]:  # noqa: ANN001
    """The open palette's hits, as their prompts read."""
    return [str(o.prompt) for o in app.screen.query_one(CommandList).options]


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
