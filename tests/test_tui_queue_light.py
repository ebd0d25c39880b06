"""The queue's light path (issue 7): summaries instead of whole cases, whole cases read
on highlight, the ruling posted before its wiki projection, the filter count with a row
ruled elsewhere kept, capped Hafıza sections, the fast cut of one-cell text.

Real SQLite files (the ``tui_world`` fixture); no timing here (speed lives in
``bench/tui.py``).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from rich.cells import cell_len
from textual.widgets import OptionList

from etki import memory
from etki.domain import is_sure
from etki.services import approval_service
from etki.store.repository.rows import decision_summary
from etki_tui.hafiza.cards import SHOWN, SHOWN_HITS
from etki_tui.hafiza.pane import MemoryPane
from etki_tui.messages import RulingCommitted, RulingProjected
from etki_tui.queue.bars import CaseDetail
from etki_tui.queue.pane import QueuePane
from etki_tui.render import _ONE_CELL, ELLIPSIS, fit, graphemes
from tests.conftest import TuiWorld, open_tui_world
from tests.test_tui_pilot import FIRST, SECOND, Recorder, make_app, press, settle, shown, sync


def _rule_elsewhere(world: TuiWorld, case_id: str, action: str, reason: str = "") -> None:
    approval_service(world.repo, world.settings).rule(
        case_id, action, reason=reason, reviewer="ayse"
    )


def test_summaries_match_whole_cases(tui_world: TuiWorld) -> None:
    _rule_elsewhere(tui_world, SECOND, "approve", reason="in the contract after all")
    desk, pid = tui_world.desk, tui_world.project_id
    whole = desk.queue(pid, status=None)
    light = desk.queue_summaries(pid, status=None)
    assert [c.case_id for c in light] == [c.case_id for c in whole]
    for s, c in zip(light, whole, strict=True):
        for field in (
            "project_id",
            "request_id",
            "title",
            "text",
            "submitted_by",
            "submitted_at",
            "created_at",
            "version",
            "ruling",
            "status",
        ):
            assert getattr(s, field) == getattr(c, field), field
        d = c.decision
        assert (
            s.decision.verdict,
            s.decision.confidence,
            s.decision.cited_clauses,
            s.decision.risk,
        ) == (d.verdict, d.confidence, d.cited_clauses, d.risk)
        assert s.decision.sure == is_sure(d)  # issue 29: read from the JSON, not parsed
        # the other backends' path: the members cut out of the stored JSON text
        other = decision_summary(d.to_json(), d.verdict, d.confidence)
        assert other == s.decision
    assert [c.case_id for c in desk.queue_summaries(pid)] == [c.case_id for c in desk.queue(pid)]
    assert desk.clause_memory_of(light) == desk.clause_memory(pid) == memory.clause_memory(whole)
    assert desk.clauses(pid) == {c.ref: c for c in desk.project(pid).clauses}
    assert desk.project_name(pid) == desk.project(pid).config.name
    assert [c.case_id for c in desk.cases([SECOND, "req-demo-nope", FIRST])] == [SECOND, FIRST]


def test_decision_summary_falls_back_on_non_canonical_json(tui_world: TuiWorld) -> None:
    case = tui_world.desk.case(FIRST)
    d = case.decision
    spaced = json.dumps(d.to_dict(), indent=2)  # not the compact canonical form
    assert decision_summary(spaced, d.verdict, d.confidence).cited_clauses == d.cited_clauses
    assert decision_summary(spaced, d.verdict, d.confidence).sure is True  # FIRST: sure


def test_sure_in_light_rows_is_the_top_level_member_only(tmp_path: Path) -> None:
    """A client's words that look like the member (``"sure": true`` in a doubt or the
    reasoning, escaped inside JSON strings) never make a row sure; a decision of an
    engine before 3.0.0 (no ``sure`` member) is not sure; a sure one is. Both paths:
    SQLite's json_extract and the cut of the JSON text other backends use."""
    from dataclasses import replace

    from etki.domain import Request
    from etki.store import CaseFileRepository
    from tests.conftest import tui_clock, tui_decision, tui_project

    repo = CaseFileRepository(f"sqlite:///{tmp_path}/etki.db", clock=tui_clock)
    try:
        repo.save_project(tui_project(), "sha256:tui", b"{}\n")
        sly = '"sure": true, "sure":true'
        old = replace(
            tui_decision("req-demo-00000001", "IN_SCOPE", ("MSA-2024-01#3.2",), confidence=0.9),
            reasoning=sly,
        )
        unsure = tui_decision(
            "req-demo-00000002",
            "REJECT",
            ("MSA-2024-01#9.1",),
            confidence=0.6,
            kind="topic",
            doubts=(f"the client wrote {sly}",),
        )
        sure = tui_decision(
            "req-demo-00000003", "REJECT", ("MSA-2024-01#9.1",), confidence=0.6, kind="exclusion"
        )
        assert "sure" in old.to_json() and not is_sure(old)  # only inside a string
        repo.add_cases(
            "demo",
            [(Request(f"S{i}", f"Request {i}."), d) for i, d in enumerate((old, unsure, sure))],
        )
        rows = {c.case_id: c.decision.sure for c in repo.case_summaries("demo")}
        assert rows == {old.case_id: False, unsure.case_id: False, sure.case_id: True}
        for d in (old, unsure, sure):
            assert decision_summary(d.to_json(), d.verdict, d.confidence).sure == is_sure(d)
    finally:
        repo.dispose()


def test_fit_cuts_one_cell_text_by_index_like_graphemes() -> None:
    chars = [chr(c) for c in range(0x20, 0x2B0) if _ONE_CELL.fullmatch(chr(c))]
    assert len(chars) > 600
    for ch in chars:
        assert cell_len(ch) == 1 and graphemes(ch) == [(ch, 1)], hex(ord(ch))
    rng = random.Random(7)
    for _ in range(500):
        text = "".join(rng.choice(chars) for _ in range(rng.randint(0, 40)))
        width = rng.randint(1, 30)
        out = fit(text, width)
        # the grapheme path's answer, spelled out
        want = (
            text
            if cell_len(text) <= width
            else "".join(g for g, _ in graphemes(text)[: width - 1]) + ELLIPSIS
        )
        assert out == want and cell_len(out) <= width
    assert fit("é" + "\u0301" * 3 + "abcdef", 4) == "é\u0301\u0301\u0301ab…"  # slow path


@sync
async def test_ruling_leaves_the_queue_before_the_projection(tui_world: TuiWorld) -> None:
    seen = Recorder()
    app = make_app(tui_world)
    order: list[str] = []

    def hook(message: object) -> None:
        seen(message)  # type: ignore[arg-type]
        if isinstance(message, RulingCommitted | RulingProjected):
            order.append(type(message).__name__)

    async with app.run_test(size=(80, 24), message_hook=hook) as pilot:
        await settle(pilot)
        await press(pilot, "a", "enter")  # agrees: Confirm is focused
        await settle(pilot)
        assert FIRST not in app.query_one(QueuePane).table.row_keys()
        assert order and order[0] == "RulingCommitted" and "RulingProjected" in order
        [projected] = seen.of(RulingProjected)
        assert projected.wiki_error is None and projected.wiki_report is not None
        assert projected.memory is not None and FIRST in {
            h[0] for m in projected.memory.values() for h in m.history
        }
    assert list((tui_world.wiki / "decisions").glob(f"*{FIRST}.md"))


@sync
async def test_a_wiki_error_after_the_commit_is_a_toast(
    tui_world: TuiWorld, tmp_path: Path
) -> None:
    blocked = tmp_path / "wiki-is-a-file"
    blocked.write_text("not a folder\n")
    world = open_tui_world(tmp_path)
    from dataclasses import replace as dc_replace

    from etki.services import Desk

    settings = dc_replace(world.settings, wiki_dir=str(blocked / "{project}"))
    desk = Desk(settings, world.repo)
    seen = Recorder()
    from etki_tui.app import EtkiApp

    app = EtkiApp(
        desk,
        world.project_id,
        cursor_blink=False,
        search_delay=3600,
        poll_seconds=0,
        preview_delay=0,
    )
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        await press(pilot, "a", "enter")  # agrees: Confirm is focused
        await settle(pilot)
        assert seen.of(RulingCommitted) and FIRST not in app.query_one(QueuePane).table.row_keys()
        [projected] = seen.of(RulingProjected)
        assert projected.wiki_error and projected.wiki_error.startswith("wiki not updated")
        notes = [m.notification for m in seen.messages if type(m).__name__ == "Notify"]
        assert any("wiki error" in n.title and "ruling is saved" in n.message for n in notes)
    assert world.repo.case(FIRST).ruling is not None
    world.repo.dispose()


@sync
async def test_detail_is_read_on_highlight(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pane = app.query_one(QueuePane)
        assert all(type(c).__name__ == "CaseSummary" for c in pane.cases.values())
        body = app.query_one(CaseDetail).query_one("#detail-body")
        first = tui_world.desk.case(FIRST)
        assert first.title[:20] in shown(body, 100, 60)
        await press(pilot, "down")
        await settle(pilot)
        second = tui_world.desk.case(pane.current_case_id())  # type: ignore[arg-type]
        assert second.title[:20] in shown(body, 100, 60)


@sync
async def test_the_count_says_a_ruled_row_is_kept(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pane = app.query_one(QueuePane)
        await press(pilot, "v")  # a filter: IN_SCOPE only (FIRST is IN_SCOPE)
        await settle(pilot)
        rows = pane.table.row_count
        assert pane.current_case_id() == FIRST
        _rule_elsewhere(tui_world, FIRST, "reject", reason="Out of remit.")
        app.poll_queue()
        await settle(pilot)
        assert FIRST in pane.ruled_elsewhere and pane.table.row_count == rows
        line = shown(app.query_one("#filter-summary"))  # as drawn, fitted to its width
        assert f" {rows - 1} of {len(pane.cases)} + 1 ruled elsewhere" in line


@sync
async def test_hafiza_lists_at_most_shown_entries(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.action_focus_search()
        await settle(pilot)
        pane = app.query_one(MemoryPane)
        hits = [
            (f"decisions/DEC-20250101-p{i:03}.md", 3, "property tax line")
            for i in range(SHOWN + 25)
        ]
        pane.set_hits("property tax", hits)
        entries = app.query_one("#memory-list", OptionList)
        ids = [o.id for o in entries.options if o.id and o.id.startswith("hit:")]
        assert len(ids) == SHOWN_HITS == 50  # the ranked top: hits have their own cap
        prompts = [str(o.prompt) for o in entries.options]
        assert any(f"Search results ({SHOWN + 25})" in p for p in prompts)
        assert any(f"{SHOWN + 25 - 50} more hits" in p for p in prompts)


@sync
async def test_the_preview_follows_when_the_list_settles(tui_world: TuiWorld) -> None:
    """With the shipped preview delay, results are listed first and the first hit's
    page is asked for by the timer (fired by hand here: no waiting in tests)."""
    from etki_tui.messages import PageWanted

    seen = Recorder()
    app = make_app(tui_world, preview_delay=3600)
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await settle(pilot)
        await press(pilot, "2")
        await settle(pilot)
        await press(pilot, "slash", *"contr", "enter")
        await settle(pilot)
        pane = app.query_one(MemoryPane)
        assert pane.hits and not seen.of(PageWanted)
        assert pane.flush_preview() and not pane.flush_preview()
        await settle(pilot)
        [wanted] = seen.of(PageWanted)
        assert wanted.path == pane.hits[0][0] and pane.reader.path == wanted.path
