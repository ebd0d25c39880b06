"""The status line shows the newest message, never an older one brought back (a PMO
trial of issue 35 at 80x24: after "Keep it" on the Replace question of a second CR
export and a switch to Raporlar, the line said the first export's "Change request
exported: …" again). A warning toast that a modal form took off the screen is said on
the line as the passing message it was, not as one that stays. Textual's Pilot, waiting
for states only."""

from __future__ import annotations

from pathlib import Path

from etki_tui.screens.cr_export import CrExportForm
from etki_tui.screens.export import OverwriteConfirm
from tests.conftest import TuiWorld
from tests.test_cr_client import _convert_highlighted
from tests.test_tui_pilot import Recorder, fill, opened, press, settle, settled_app, sync, until


@sync
async def test_a_kept_export_and_a_tab_switch_bring_back_no_old_message(
    tui_world: TuiWorld, tmp_path: Path
) -> None:
    seen = Recorder()
    async with settled_app(tui_world, (80, 24), message_hook=seen) as (app, pilot):
        case_id = await _convert_highlighted(pilot, app, tui_world)
        target = tmp_path / "cr.docx"
        await opened(pilot, "X", CrExportForm)
        await fill(pilot, "#crx-path", str(target))
        await press(pilot, "enter")
        await until(pilot, target.exists, "the change request written")
        said = f"{case_id} written to {target}"
        await until(pilot, lambda: any(said in n for n in seen.notes()), "the export's message")

        await opened(pilot, "X", CrExportForm)  # takes the export's warning toast off
        await fill(pilot, "#crx-path", str(target))
        await press(pilot, "enter")
        await until(pilot, lambda: isinstance(app.screen, OverwriteConfirm), "the question")
        await press(pilot, "n")  # Keep it
        await until(
            pilot, lambda: not isinstance(app.screen, (OverwriteConfirm, CrExportForm)), "kept"
        )
        kept = app.status_line
        assert kept is not None  # Keep it is said, as a passing message
        await until(pilot, lambda: kept.said.startswith("Not exported"), "the kept message")
        assert kept.entries[-1][2:] == ("Not exported", f"Kept the existing file {target}")
        await press(pilot, "3")  # Raporlar
        await settle(pilot)
        status = app.status_line
        assert status is not None
        assert "Change request exported" not in status.said
        assert said not in status.said
        # still kept whole for the messages view (L)
        assert any(said in e[3] for e in status.entries)
