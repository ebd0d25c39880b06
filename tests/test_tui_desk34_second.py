"""Issue 34, a second reviewer trial: ``w`` folding a clause again lands on its marked
sentence (or its head), Hafıza's contents hidden where the body would be narrow, and the
Verdict line of the narrow side pane on one line."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from etki.services import Desk
from etki_tui.hafiza.pane import MemoryPane
from etki_tui.queue.bars import CaseDetail
from tests.conftest import TuiWorld
from tests.test_tui_desk34_trial import talentmap_desk  # noqa: F401  (the module fixture)
from tests.test_tui_evidence import body
from tests.test_tui_keys import desk_app
from tests.test_tui_pilot import goto, make_app, press, settle, sync, until

# --- item 1: w folds back to the marked sentence ----------------------------------------

LONG_CLAUSE_CASE = "req-talentmap-a27970ef"
"""Decided on PWS section 4 (hundreds of lines whole), its sentence “Provide for searching
or filtering of data …” marked in it; the trial's case."""

HEAD_4 = "§ 4 TASKS"
MARKED = "• Provide for searching or filtering"


def _clause_4(lines: list[str]) -> tuple[int, int, int]:
    """(head, marked line, end) of section 4 in the detail's lines."""
    head = next(i for i, x in enumerate(lines) if x.startswith(HEAD_4))
    end = next(i for i in range(head + 1, len(lines)) if lines[i].startswith("§ "))
    mark = next(i for i in range(head, end) if MARKED in lines[i])
    return head, mark, end


@sync
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("where", ["below", "above"])
async def test_w_folds_back_to_the_marked_sentence(
    talentmap_desk: Desk,  # noqa: F811
    size: tuple[int, int],
    where: str,
) -> None:
    """Read full screen, section 4 unfolded with w, the reader scrolled into a part
    the fold leaves out (below the marked sentence, or above it): w folds it again and
    the view shows section 4 from its head or its marked sentence, that sentence in
    view (before: the same offset, past the clause, in § 1 or further)."""
    app = desk_app(talentmap_desk, "talentmap")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await goto(pilot, LONG_CLAUSE_CASE)
        detail = app.query_one(CaseDetail)
        await press(pilot, "enter")
        await until(pilot, lambda: app.screen.maximized is detail, "the read")
        folded = body(app)
        await press(pilot, "w")
        await until(pilot, lambda: not any("above · w shows" in x for x in body(app)), "whole")
        whole = body(app)
        head, mark, end = _clause_4(whole)
        target = (mark + end) // 2 if where == "below" else head + 2
        while not whole[target].strip() or whole[target] in folded:  # a line folded away
            target += 1
        assert head < target < (end if where == "below" else mark), (head, target, mark, end)
        detail.scroll_to(y=target, animate=False)
        await until(pilot, lambda: int(detail.scroll_y) == target, "scrolled into section 4")
        await press(pilot, "w")
        await until(pilot, lambda: any("above · w shows" in x for x in body(app)), "folded")
        await settle(pilot)
        lines = body(app)
        head, mark, _ = _clause_4(lines)
        top, height = int(detail.scroll_y), detail.scrollable_content_region.height
        assert top in (head, mark), (top, head, mark, lines[top])
        assert top <= mark < top + height, (top, mark, height)


# --- item 3: the Verdict line fits the side pane -----------------------------------------


@sync
async def test_the_verdict_line_fits_the_side_pane(talentmap_desk: Desk) -> None:  # noqa: F811
    """At 120x40 the detail is the 41-column pane beside the list: the Verdict field's
    verdict and confidence are one line, the sureness under them (not a wrapped tail
    of the line); the wide read says it all on one line."""
    app = desk_app(talentmap_desk, "talentmap")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await goto(pilot, LONG_CLAUSE_CASE)
        detail = app.query_one(CaseDetail)
        assert detail.size.width <= 45, detail.size
        await until(pilot, lambda: any(x.startswith("Verdict") for x in body(app)), "the detail")
        lines = body(app)
        at = next(i for i, x in enumerate(lines) if x.startswith("Verdict"))
        assert "IN_SCOPE" in lines[at] and "0.71" in lines[at], lines[at : at + 2]
        # then the sureness, whole on its line in the value column, then the title line
        # and the Evidence heading (the compressed header of f6d8507), no wrapped tail
        assert lines[at + 1].strip() == "needs a careful look", lines[at : at + 2]
        title = talentmap_desk.repo.case(LONG_CLAUSE_CASE).title
        assert lines[at + 2].startswith(title[:20]), lines[at : at + 4]
        assert lines[at + 3].startswith("Evidence"), lines[at : at + 4]
        await press(pilot, "enter")
        await until(pilot, lambda: app.screen.maximized is detail, "the read")
        whole = "IN_SCOPE   confidence 0.71 · needs a careful look"
        await until(pilot, lambda: any(whole in x for x in body(app)), "in full")


# --- item 2: Hafıza's contents hidden where the body would be narrow ---------------------


@sync
async def test_hafiza_contents_start_hidden_beside_a_narrow_body(tui_world: TuiWorld) -> None:
    """At 120x40 the preview beside Hafıza's list is ~73 cells: the contents (29) would
    leave the page 40; they start hidden and t shows them. Read full screen at 120 the
    body has room and they are shown."""
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "2", "slash")
        field = app.focused
        assert isinstance(field, Input)
        field.value = "contractor"
        await press(pilot, "enter")  # the first hit's page, in the preview beside the list
        reader = app.query_one(MemoryPane).reader
        await until(pilot, lambda: reader.display and reader.path is not None, "a page shown")
        assert app.screen.maximized is None
        toc = reader.query_one("#reader-toc")
        assert not reader.show_toc and not toc.display
        await press(pilot, "t")
        await until(pilot, lambda: toc.display, "the contents shown by t")
        await press(pilot, "t")
        await until(pilot, lambda: not toc.display, "hidden again")
