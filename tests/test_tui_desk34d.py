"""Issue 34, items left after a later trial: the queue's footer at 80 columns, the
confidence column's alignment, Hafıza's decision titles at 80 columns, the deciding
sentence first in the side detail, a deciding quote cut at a sentence, the mark of a
case assigned to another reviewer. Driven with Textual's Pilot on the sample project
(real SQLite file and wiki folder, tests/conftest.py) at 80x24 and 120x40.
"""

from __future__ import annotations

import pytest
from textual.widgets._footer import FooterKey

from etki_tui.footer import SPARE, spare_to_drop
from tests.conftest import TuiWorld
from tests.test_tui_pilot import make_app, settle, shown, sync, until

SIZES = [(80, 24), (120, 40)]


def footer_visible(app) -> list[str]:  # noqa: ANN001
    """The footer keys a reader sees whole: left of the palette key (docked over the
    right end) and inside the terminal, each as it reads (``? Help``)."""
    keys = [k for k in app.screen.query(FooterKey) if k.display]
    palette = [k for k in keys if k.has_class("-command-palette")]
    edge = palette[0].region.x if palette else app.size.width
    return [
        " ".join(shown(k, k.region.width, 1).split())
        for k in keys
        if not k.has_class("-command-palette") and k.region.right <= edge and k.region.width
    ]


# --- item 1: the queue's footer at 80 columns -------------------------------------------


def test_spare_keys_leave_only_while_the_keys_overflow() -> None:
    keys = [("approve", 11), ("filters", 10), ("find", 8), ("help", 8)]
    assert spare_to_drop(keys, 40) == frozenset()
    assert spare_to_drop(keys, 36) == {"filters"}
    assert spare_to_drop(keys, 20) == {"filters", "find"}  # no more to drop
    assert SPARE[0] == "filters"


@sync
@pytest.mark.parametrize("size", SIZES)
async def test_the_queue_footer_shows_help_and_quit(
    tui_world: TuiWorld, size: tuple[int, int]
) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        seen = footer_visible(app)
        for key in ("a Approve", "c Convert to CR", "r Reject", "z Detail", "? Help", "q Quit"):
            assert key in seen, seen
        if size[0] >= 120:  # room for every key
            assert "/ Find" in seen and "f Filter" in seen, seen


@sync
async def test_the_queue_footer_follows_a_resize(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "f Filter" in footer_visible(app)
        await pilot.resize_terminal(80, 24)
        await until(pilot, lambda: "q Quit" in footer_visible(app), "q Quit at 80 columns")
        assert "? Help" in footer_visible(app)
        await pilot.resize_terminal(120, 40)
        await until(pilot, lambda: "f Filter" in footer_visible(app), "f Filter back at 120")
