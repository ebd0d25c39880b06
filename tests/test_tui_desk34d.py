"""Issue 34, items left after a later trial: the queue's footer at 80 columns, the
confidence column's alignment, Hafıza's decision titles at 80 columns, the deciding
sentence first in the side detail, a deciding quote cut at a sentence, the mark of a
case assigned to another reviewer. Driven with Textual's Pilot on the sample project
(real SQLite file and wiki folder, tests/conftest.py) at 80x24 and 120x40.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from rich.cells import cell_len
from rich.console import Console
from rich.padding import Padding
from textual.widgets import OptionList
from textual.widgets._footer import FooterKey

from etki.domain import SentenceQuote
from etki.services import Desk
from etki_tui.footer import SPARE, spare_to_drop
from etki_tui.glyphs import ASSIGNED_MARK
from etki_tui.hafiza.cards import decision_label
from etki_tui.queue.bars import CaseDetail
from etki_tui.queue.columns import FIXED
from etki_tui.queue.evidence import cut_whole, shown_quote
from etki_tui.queue.rows import conf_cell
from etki_tui.queue.table import QueueTable
from tests.conftest import TuiWorld
from tests.test_tui_desk34_trial import talentmap_desk  # noqa: F401  (the module fixture)
from tests.test_tui_evidence import WEIGHED_CASE, body
from tests.test_tui_keys import desk_app
from tests.test_tui_pilot import FIRST, SECOND, goto, make_app, press, settle, shown, sync, until

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
        # an approver's seat: R shows where it fits, and at 80 columns gives way first
        # (etki_tui/footer.py SPARE; R still works, the disputed mark names it)
        assert ("R Resolve" in seen) == (size[0] >= 120), seen
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


# --- item 2: sure and unsure confidences right-aligned on the number -----------------------


def test_conf_cell_keeps_the_mark_in_its_own_cell() -> None:
    console = Console(width=FIXED["conf"] + 2, color_system=None)
    options = console.options.update_dimensions(FIXED["conf"] + 2, 1).update(no_wrap=True)
    drawn = [
        "".join(s.text for s in console.render_lines(Padding(cell, (0, 1)), options)[0])
        for cell in (conf_cell("0.86", True), conf_cell("0.64", False))
    ]  # as the queue's table draws a cell (QueueTable._draw_line)
    assert drawn == [" 0.86   ", " 0.64 ? "]  # the number where it is, the mark beside


@sync
@pytest.mark.parametrize("size", SIZES)
async def test_confidences_line_up_on_the_number(
    tui_world: TuiWorld, size: tuple[int, int]
) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        table = app.query_one(QueueTable)
        lines = [shown(table, table.size.width, table.row_count + 1).splitlines()[0]]
        lines += shown(table, table.size.width, table.row_count + 1).splitlines()[1:]
        ends, marks = set(), {}
        for line in lines[1:]:
            found = re.search(r"\b([01]\.\d\d)( [?]|  )", line)
            assert found is not None, line
            ends.add(cell_len(line[: found.end(1)]))
            marks[found.group(2)] = found.end(2)
        assert len(ends) == 1, lines  # every number ends in the same column
        assert set(marks) == {" ?", "  "}  # the fixture has sure and unsure cases
        assert (
            cell_len(lines[0][: lines[0].index("Conf")]) <= min(ends) - 4
        )  # the heading over the numbers


# --- item 4: the deciding sentence first in the detail -----------------------------------


@sync
@pytest.mark.parametrize("size", SIZES)
async def test_the_deciding_sentence_comes_before_the_fields(
    talentmap_desk: Desk,  # noqa: F811
    size: tuple[int, int],
) -> None:
    """The side detail at 120x40 (and the unfolded one at 80x24): under the verdict,
    the deciding sentence and the weighed exclusion, then Sureness, Risk, Effort and
    Modules (before: the four fields came first and pushed the sentence down the
    41-column pane)."""
    app = desk_app(talentmap_desk, "talentmap")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await goto(pilot, WEIGHED_CASE)
        if size[0] < 110:
            await press(pilot, "z")  # the folded peek at 80x24 unfolds
        await until(pilot, lambda: any(x.startswith("Deciding") for x in body(app)), "detail")
        lines = body(app)
        at = {
            name: next(i for i, x in enumerate(lines) if x.startswith(name))
            for name in ("Verdict", "Deciding", "Weighed", "Sureness", "Risk", "Modules")
        }
        assert at["Verdict"] < at["Deciding"] < at["Weighed"] < at["Sureness"], at
        assert at["Sureness"] < at["Risk"] < at["Modules"], at


# --- item 5: a deciding quote cut at a sentence, never mid-word -----------------------------


def test_a_clipped_quote_is_cut_back_to_a_boundary() -> None:
    long = "The Contractor shall host the whole system in its cloud. It shall also migrate the ol"
    assert cut_whole(long) == "The Contractor shall host the whole system in its cloud."
    assert cut_whole("Any data created as a result of the work perfor") == (
        "Any data created as a result of the work"
    )
    quote = SentenceQuote(
        "x#1", "Reports are sent weekly, on Mon", True, "obligation", "", False, ""
    )
    shown_one = shown_quote(quote, None)  # no clause to complete it from
    assert shown_one.text == "Reports are sent weekly, on" and shown_one.clipped


@sync
@pytest.mark.parametrize("size", SIZES)
async def test_the_deciding_quote_ends_at_its_sentence(
    talentmap_desk: Desk,  # noqa: F811
    size: tuple[int, int],
) -> None:
    """The talentmap case decided on PWS section 11: the engine clipped the deciding
    sentence mid-word (“… the work perfor…”); the Evidence section quotes it whole, to
    “… committed to the public domain.”."""
    app = desk_app(talentmap_desk, "talentmap")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await goto(pilot, WEIGHED_CASE)
        await press(pilot, "enter")  # the full-screen read
        await until(pilot, lambda: any(x.startswith("Deciding") for x in body(app)), "detail")
        lines = body(app)
        start = next(i for i, x in enumerate(lines) if x.startswith("Deciding"))
        end = next(i for i, x in enumerate(lines) if x.startswith(("Weighed", "Exclusion")))
        said = " ".join(" ".join(x.split()) for x in lines[start:end])
        assert "the public domain.”" in said, said
        assert "perfor…" not in said, said


# --- item 6: a case assigned to another reviewer is marked ---------------------------------


@sync
@pytest.mark.parametrize("size", SIZES)
async def test_a_case_assigned_to_another_is_marked(
    tui_world: TuiWorld, size: tuple[int, int]
) -> None:
    """ayse assigned FIRST to jurgen and SECOND to me: FIRST's row says ``>`` before its
    id (as a claim says ``@``) and its detail names jurgen on its first line; SECOND,
    mine, has no mark."""
    ayse = Desk(replace(tui_world.settings, reviewer="ayse"), tui_world.repo)
    ayse.assign(FIRST, "jurgen")
    ayse.assign(SECOND, "reviewer")
    app = make_app(tui_world)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        table = app.query_one(QueueTable)
        assert table.get_cell(FIRST, "case").plain == f"{ASSIGNED_MARK} 0a1f3c21"
        assert table.get_cell(SECOND, "case").plain == "1b7e9d02"  # mine: no mark
        lines = shown(table, table.size.width, table.row_count + 1).splitlines()
        row = next(x for x in lines if "0a1f3c21" in x)
        assert row.split()[0] == ASSIGNED_MARK, row  # drawn, within the table's width
        await until(pilot, lambda: any("assigned to jurgen" in x for x in body(app)), "detail")
        head = next(x for x in body(app) if "assigned to jurgen" in x)
        assert head.startswith(f"{ASSIGNED_MARK} assigned to jurgen"), head
        detail = app.query_one(CaseDetail)
        assert "assigned to jurgen" in str(detail.border_title)


# --- item 3: Hafıza's decision titles take the list's width ---------------------------------


def test_decision_titles_start_in_one_column_and_take_the_rest() -> None:
    decided = {
        "req-demo-0a1f3c21": ("Error-report spreadsheets downloaded from history", "IN_SCOPE"),
        "req-demo-1b7e9d02": ("When a file passes validation with no errors", "CHANGE_REQUEST"),
    }
    paths = [f"decisions/DEC-20261207-x--{case}.md" for case in decided]
    for width, words in ((30, False), (44, True)):
        labels = [decision_label(p, decided, width).plain for p in paths]
        starts = {x.index(t[:6]) for x, (t, _) in zip(labels, decided.values(), strict=True)}
        assert len(starts) == 1, labels  # every title starts in the same column
        assert all(cell_len(x) == width for x in labels), labels  # and takes the rest
        assert ("IN_SCOPE" in labels[0]) is words, labels
    narrow = decision_label(paths[0], decided, 30).plain
    assert narrow.startswith("✓ Error-report spreadsheets d"), narrow  # 28 cells of title


@sync
async def test_hafiza_decision_titles_at_80_columns(tui_world: TuiWorld) -> None:
    """At 80x24 Hafıza's list is 30 cells: a decision file's entry is its ruling's glyph
    and the case's title in the rest, 26 of its 28 cells (before: ``✗ REJECT  SSO for
    contracto…``, 16)."""
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "2")
        options = app.query_one("#memory-list", OptionList)
        await until(
            pilot,
            lambda: any(
                (o.id or "").startswith("page:decisions/")
                for o in (options.get_option_at_index(i) for i in range(options.option_count))
            ),
            "the decision files",
        )
        said = [
            str(o.prompt)
            for o in (options.get_option_at_index(i) for i in range(options.option_count))
            if (o.id or "").startswith("page:decisions/")
        ]
        assert any(x.startswith("✗ SSO for contractor accoun") for x in said), said
