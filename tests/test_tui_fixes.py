"""The desk's fixes after a fresh user's trial: the reader's body always belongs to the
page it names (opened from outside Hafıza), ``D`` in Hafıza and on the desk's last
conversion, the ``A`` list and the palette following the desk's own rulings, Ctrl+R
re-reading the detail pane's History."""

from __future__ import annotations

from etki.services import approval_service
from etki.wiki.paths import cr_path
from etki_tui.widgets.memory import MemoryPane
from etki_tui.widgets.queue import QueuePane
from etki_tui.widgets.reader import PageReader
from tests.conftest import TuiWorld
from tests.test_tui_pilot import Recorder, current, make_app, press, settle, sync, until


def _reader_shows(app, rel: str) -> bool:  # noqa: ANN001
    """The preview shows the page ``rel``: the reader (not a card) with its text, and the
    preview's title names it."""
    pane = app.query_one(MemoryPane)
    reader = pane.query_one(PageReader)
    box = pane.query_one("#memory-cardbox")
    preview = pane.query_one("#memory-preview")
    return (
        reader.path == rel
        and reader.display
        and not box.display
        and str(preview.border_title) == rel
    )


@sync
async def test_a_page_opened_from_the_queue_keeps_its_body_when_hafiza_loads(
    tui_world: TuiWorld,
) -> None:
    """D on a case another reviewer converted opens its change-request page; Hafıza's
    lists, loaded as its tab is first shown, highlight their first entry (a precedent
    card) without replacing the page: the preview's title and body are the page's."""
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        case_id = current(app)
        assert case_id is not None
        approval_service(tui_world.repo, tui_world.settings).rule(
            case_id, "convert_to_cr", reason="A new capability.", reviewer="ayse"
        )
        app.poll_queue()
        await settle(pilot)
        assert case_id in app.query_one(QueuePane).ruled_elsewhere
        rel = cr_path(tui_world.repo.case(case_id))
        await press(pilot, "D")
        pane = app.query_one(MemoryPane)
        await until(pilot, lambda: pane.loaded, "Hafıza's lists")
        await settle(pilot)
        assert pane.precedents, "the world has a precedent card to highlight"
        assert _reader_shows(app, rel)
        assert pane.reader.text == (tui_world.wiki / rel).read_text(encoding="utf-8")
