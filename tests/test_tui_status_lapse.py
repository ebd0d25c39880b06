"""A passing confirmation on the status line leaves it when the reviewer moves on (issue
34 item 3, a fresh trial: "Detail unfolded (z folds it)." stayed on the line for good,
over the Hafıza tab too), while a standing message (a read-only desk's reason) stays.
Real SQLite (the demo world), Textual's pilot, every wait for a state."""

from __future__ import annotations

from etki_tui.header import StatusLine
from tests.conftest import TuiWorld
from tests.test_tui_pilot import make_app, press, settle, sync, until


def test_a_passing_message_lapses_at_the_first_key_after_its_time() -> None:
    line = StatusLine()
    line.say("READ-ONLY", "viewer seat", standing=True)
    line.say("", "Detail unfolded (z folds it).", lasts=3, now=100.0)
    line.lapse(102.0)  # a key within its time: it stays
    assert line.said == "Detail unfolded (z folds it)."
    line.lapse(103.5)  # a key after it: back to the standing reason
    assert line.said == "READ-ONLY: viewer seat"
    line.lapse()  # a standing message stays when the tab changes
    assert line.said == "READ-ONLY: viewer seat"
    # a message said without a time is not standing: once a newer one has lapsed, the
    # line goes back to the standing reason, never to it (issue 35: an old export's
    # message came back after a tab switch)
    line.say("Nothing imported", "a.csv: not UTF-8 text")
    line.lapse()
    assert line.said == "Nothing imported: a.csv: not UTF-8 text"  # stays until the next
    line.say("", "Report refreshed.", lasts=3, now=200.0)
    line.lapse()
    assert line.said == "READ-ONLY: viewer seat"


@sync
async def test_detail_unfolded_leaves_the_line_on_another_tab(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        status = app.query_one(StatusLine)
        await press(pilot, "z")  # 80x24: the detail starts folded; z unfolds it
        await until(pilot, lambda: "Detail unfolded" in status.said, "the confirmation")
        await press(pilot, "2")  # on to Hafıza
        await until(pilot, lambda: status.said == "", "the line cleared")
        await press(pilot, "1")
        await settle(pilot)
        assert status.said == ""  # not back either
        await press(pilot, "z")  # a new confirmation is said again
        await until(pilot, lambda: "Detail folded" in status.said, "the next one")
