"""Issue 34 item 2 follow-ups (a trial on the real tdrs and talentmap engagements): the
folded two-line peek of a disputed case shows the verdict, not only the dispute and the
title; a resize that changes the layout the size gives re-applies the default fold (a
detail folded at 80x24 and widened to 120x40 left the list the whole width until ``z``);
talentmap's deciding lead-in (“… a mix of the following deliverables:”) is quoted with
its list in the detail. Driven with Textual's Pilot at 80x24 and 120x40 on real SQLite
files loaded by ``init_project`` from ``../shared/realdata``; nothing of ours is mocked,
every step waits for a state."""

from __future__ import annotations

from pathlib import Path

import pytest

from etki_tui.queue.bars import CaseDetail
from etki_tui.queue.pane import QueuePane
from tests.test_tui_disputed import TDRS, _stored
from tests.test_tui_evidence import body
from tests.test_tui_pilot import goto, make_app, press, settle, shown, sync, until

TALENTMAP = TDRS.parent / "talentmap"
needs_tdrs = pytest.mark.skipif(not TDRS.is_dir(), reason="../shared/realdata/tdrs is absent")
needs_talentmap = pytest.mark.skipif(
    not TALENTMAP.is_dir(), reason="../shared/realdata/talentmap is absent"
)
SIZES = [(80, 24), (120, 40)]


# --- a resize re-applies the default fold ------------------------------------------------


async def _resized(pilot, width: int, height: int) -> None:  # noqa: ANN001
    await pilot.resize_terminal(width, height)
    await until(pilot, lambda: pilot.app.size == (width, height), "the new size")
    await settle(pilot)


@needs_talentmap
@sync
async def test_a_folded_detail_widened_to_120x40_is_shown_beside(tmp_path: Path) -> None:
    world = _stored(tmp_path, TALENTMAP, "talentmap")
    app = make_app(world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        pane = app.query_one(QueuePane)
        detail = app.query_one(CaseDetail)
        assert not pane.detail_shown
        await press(pilot, "z", "z")  # unfolded, then folded again: the reviewer's choice
        assert not pane.detail_shown and pane.detail_wanted is False
        await _resized(pilot, 120, 40)
        # the default of 120x40: the detail beside the list, nothing left empty
        assert pane.detail_shown and pane.has_class("-beside")
        assert detail.display and detail.size.height > 30 and detail.size.width > 30
        assert shown(detail).strip(), "the detail is drawn"
        await press(pilot, "z")  # a choice at this size holds at this size
        assert not pane.detail_shown
        await _resized(pilot, 121, 40)
        assert not pane.detail_shown
        await _resized(pilot, 80, 24)  # another layout: its default (folded) again
        assert not pane.detail_shown and pane.detail_wanted is None
        assert detail.size.height == 2
    world.repo.dispose()


@needs_talentmap
@sync
async def test_an_unfolded_detail_narrowed_to_80x24_is_folded(tmp_path: Path) -> None:
    world = _stored(tmp_path, TALENTMAP, "talentmap")
    app = make_app(world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pane = app.query_one(QueuePane)
        assert pane.detail_shown
        await _resized(pilot, 80, 24)
        assert not pane.detail_shown
        await press(pilot, "z")
        assert pane.detail_shown and app.query_one(CaseDetail).size.height > 2
    world.repo.dispose()


# --- talentmap's deciding lead-in with its list, in the desk ------------------------------


@needs_talentmap
@sync
@pytest.mark.parametrize("size", SIZES)
async def test_the_deciding_lead_in_shows_its_deliverables(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    world = _stored(tmp_path, TALENTMAP, "talentmap")
    app = make_app(world)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await goto(pilot, "req-talentmap-20f1fabe")
        await press(pilot, "enter")
        detail = app.query_one(CaseDetail)
        await until(pilot, lambda: app.screen.maximized is detail, "the read")
        await settle(pilot)
        text = body(app)
        start = next(i for i, x in enumerate(text) if x.startswith("Deciding"))
        end = next(i for i, x in enumerate(text) if i > start and "”" in x)
        said = " ".join(" ".join(text[start : end + 1]).split())
        assert "a mix of the following deliverables: · Github issues/commits/branches" in said
        assert "· User research documentation · Summary slide decks" in said
        assert said.endswith("stakeholder briefings”"), said
    world.repo.dispose()
