"""The clause-memory strip says what reviewers ruled on similar requests (issue 10,
item 6), live: a ruling made elsewhere shows on the next refresh. Driven with Pilot on
the real SQLite file and wiki of tests/conftest.py (nothing mocked); no SVG snapshot."""

from __future__ import annotations

import os
from pathlib import Path

from rich.text import Text

from etki.domain import Request, SimilarRuling
from etki.services import approval_service
from etki_tui.hafiza.pane import MemoryPane
from etki_tui.messages import PageLoaded
from etki_tui.queue.detail import memory_strip, similar_line
from etki_tui.queue.pane import QueuePane
from etki_tui.screens.links import LinksScreen
from tests.conftest import build_tui_world, tui_decision
from tests.test_tui_pilot import Recorder, goto, make_app, press, settle, shown, sync

RECEIPT = "req-demo-5f7d2b46"  # pending: "Downloading a receipt PDF crashes with error 500."
TWIN_1 = "req-demo-5a000001"
TWIN_2 = "req-demo-5a000002"


def _twins() -> list[tuple[Request, object]]:
    return [
        (
            Request(
                "S1",
                "Downloading a receipt PDF crashes with error 500 again.",
                "Receipt export crashes",
            ),
            tui_decision(TWIN_1, "IN_SCOPE", ("MSA-2024-01#4.3",), confidence=0.7),
        ),
        (
            Request(
                "S2",
                "Downloading a receipt PDF crashes with error 500 today.",
                "Receipt export crashes",
            ),
            tui_decision(TWIN_2, "IN_SCOPE", ("MSA-2024-01#4.3",), confidence=0.7),
        ),
    ]


def _detail(app) -> str:  # noqa: ANN001
    # the words as shown, wherever the detail wraps them (beside the list it is narrow)
    return " ".join(shown(app.query_one("#detail-body"), 110, 80).split())


def _world_with_ruled_twin(tmp_path: Path, action: str, reason: str):  # noqa: ANN202
    """The TUI fixture world plus the two twin requests, the first ruled ``action``
    with ``reason`` by ayse (the second twin is pending and similar to it)."""
    world = build_tui_world(tmp_path)
    world.repo.add_cases("demo", _twins())  # type: ignore[arg-type]
    approval_service(world.repo, world.settings).rule(
        TWIN_1, action, reason=reason, reviewer="ayse"
    )
    return world


@sync
async def test_strip_shows_similar_rulings_and_follows_new_ones(tmp_path: Path) -> None:
    world = _world_with_ruled_twin(tmp_path, "convert_to_cr", "A new export format.")
    app = make_app(world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await goto(pilot, RECEIPT)
        await settle(pilot)
        text = _detail(app)
        assert "reviewers ruled 1 similar request: 1 CHANGE_REQUEST; no clear ruling" in text
        assert TWIN_1 in text and TWIN_2 not in text  # the pending twin is no ruling
        # another reviewer rules the second twin: the next refresh shows the majority
        approval_service(world.repo, world.settings).rule(
            TWIN_2, "convert_to_cr", reason="Same as the first.", reviewer="jurgen"
        )
        app.poll_queue()
        await settle(pilot)
        await goto(pilot, RECEIPT)
        text = _detail(app)
        assert "reviewers ruled 2 similar requests as CHANGE_REQUEST" in text
        assert TWIN_1 in text and TWIN_2 in text
        assert "beside the verdict" in text
    # the strip is information only: nothing about the pending case changed
    case = world.repo.case(RECEIPT)
    assert case.ruling is None and case.decision.verdict == "IN_SCOPE"


@sync
async def test_s_opens_a_similar_ruling_in_hafiza(tmp_path: Path) -> None:
    world = _world_with_ruled_twin(tmp_path, "reject", "Out of remit.")
    seen = Recorder()
    app = make_app(world)
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await settle(pilot)
        await goto(pilot, RECEIPT)
        await settle(pilot)
        await press(pilot, "s")
        await settle(pilot)
        assert isinstance(app.screen, LinksScreen)
        assert app.screen.links[0][1] == TWIN_1
        await press(pilot, "enter")
        await settle(pilot)
        pages = [m.path for m in seen.of(PageLoaded)]
        assert pages and pages[-1].startswith("decisions/") and pages[-1].endswith(f"{TWIN_1}.md")
        assert app.query_one(MemoryPane).reader.path == pages[-1]
        # nothing similar: a note, no dialog
        await press(pilot, "1")
        await settle(pilot)
        pane = app.query_one(QueuePane)
        pane.table.move_cursor(row=pane.table.get_row_index("req-demo-1b7e9d02"))
        await settle(pilot)
        assert pane.current_case_id() == "req-demo-1b7e9d02"
        await press(pilot, "s")
        await settle(pilot)
        assert not isinstance(app.screen, LinksScreen)
        assert "No ruled case reads like this one." in seen.notes()


@sync
async def test_no_similar_ruling_adds_no_line(tmp_path: Path) -> None:
    world = build_tui_world(tmp_path)
    app = make_app(world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await goto(pilot, RECEIPT)
        await settle(pilot)
        assert "similar request" not in _detail(app)


def test_similar_line_is_literal_text() -> None:
    """Stored ids go in as plain text: markup-looking characters are not interpreted."""
    odd = SimilarRuling("[bold]req[/bold]\x1b[31m", "REJECT", 0.75)
    line = similar_line([odd, SimilarRuling("req-demo-2", "REJECT", 0.6)], "REJECT")
    assert isinstance(line, Text)
    assert "[bold]req[/bold]" in line.plain and "\x1b" not in line.plain
    assert line.plain.startswith("≈ reviewers ruled 2 similar requests as REJECT")
    assert "0.75" in line.plain and "\n  req-demo-2 ✗ REJECT  similarity 0.60" in line.plain
    assert similar_line([], None).plain == ""
    strip = memory_strip(["MSA-2024-01#4.3"], {}, [odd], None)
    assert len(strip.renderables) == 2


@sync
async def test_first_queue_is_drawn_before_the_similar_rulings_index(tmp_path: Path) -> None:
    """Issue 15 (first queue at 10,000 cases): the first read posts the rows without
    the similar-rulings index, which a worker builds after they are drawn; until it
    arrives the strip says so instead of showing no similar rulings."""
    from etki_tui.messages import DetailsLoaded, QueueLoaded, RulingsIndexed

    world = _world_with_ruled_twin(tmp_path, "convert_to_cr", "A new export format.")
    seen = Recorder()
    app = make_app(world)
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await settle(pilot)
        first = seen.of(QueueLoaded)[0]
        assert first.source == "load" and first.rulings is None
        indexed = seen.of(RulingsIndexed)
        assert len(indexed) == 1 and indexed[0].error is None
        ruled = [c.case_id for c in first.cases if c.ruling is not None]
        assert indexed[0].rulings.case_ids == sorted(ruled) and TWIN_1 in ruled
        assert seen.messages.index(indexed[0]) > seen.messages.index(first)
        await goto(pilot, RECEIPT)
        await settle(pilot)
        assert "reviewers ruled 1 similar request" in _detail(app)
        assert "reading…" not in _detail(app)
        # the detail read brings the work items its effort basis names, and only those
        record = next(r for m in seen.of(DetailsLoaded) for r in m.records if r.case_id == RECEIPT)
        named = set(record.decision.effort.basis)
        message = next(m for m in seen.of(DetailsLoaded) if record in m.records)
        got = message.workitems
        every_named = {w for r in message.records for w in r.decision.effort.basis}
        assert named and named <= set(got) and set(got) == every_named
        assert all(got[w] == world.desk.workitems("demo")[w] for w in named)


def test_strip_says_when_similar_rulings_are_not_known_yet() -> None:
    from rich.console import Console

    def text(strip) -> str:  # noqa: ANN001
        console = Console(width=80, record=True, file=open(os.devnull, "w"))  # noqa: SIM115
        console.print(strip)
        return console.export_text()

    strip = memory_strip(["MSA-2024-01#4.3"], {}, [], None, similar_unknown="reading…")
    assert "≈ similar past rulings: reading…" in text(strip)
    # an error in their place, never a bare "nothing similar"
    strip = memory_strip(["MSA-2024-01#4.3"], {}, [], None, similar_unknown="not read: locked")
    assert "similar past rulings: not read: locked" in text(strip)


def test_workitems_by_id_reads_the_named_ones_in_file_order(tmp_path: Path) -> None:
    world = build_tui_world(tmp_path)
    every = list(world.desk.workitems("demo"))
    assert len(every) >= 2
    wanted = [every[-1], every[0], "WI-not-there"]
    got = world.repo.workitems_by_id("demo", wanted)
    assert [w.id for w in got] == [every[0], every[-1]]  # file order; unknown left out
    assert world.desk.workitems_of("demo", []) == {}
