"""The evidence a reviewer checks is where they look (issue 34 item 2, a fresh trial): at
80x24 the detail's first window shows the verdict and the deciding sentence, quoted
whole, on a disputed case of the real tdrs engagement; the verdict with the sureness
first (the folded two-line peek shows it), the dispute one line under it and told in
full further down, the case id, date and title too (nothing dropped).

Driven with Textual's Pilot on a real SQLite file (the real ``init_project`` of
``../shared/realdata/tdrs``); nothing waits on time.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from etki.services import approval_service
from tests.test_tui_disputed import TDRS, _stored, all_detail_lines, visible_detail_lines
from tests.test_tui_pilot import goto, make_app, press, settle, sync

CASE = "req-tdrs-9f639c5f"
"""IN_SCOPE on tdrs-rfq#2.2; its reasoning quotes 2.2's sentence with four semicolons."""

WHOLE_START = "“OFA expects that the development process will consist of sprint cycles"
"""The deciding sentence's start: the whole sentence, not the part after its last
semicolon (``and allowing the state, territory …``, what engine 3.2.0 quoted)."""


def flat(lines: list[str]) -> str:
    return " ".join(" ".join(lines).split())


@pytest.mark.skipif(not TDRS.is_dir(), reason="../shared/realdata/tdrs is absent")
@sync
async def test_disputed_case_shows_verdict_and_deciding_sentence_first(tmp_path: Path) -> None:
    world = _stored(tmp_path, TDRS, "tdrs")
    approvals = approval_service(world.repo, world.settings)
    # two cases deciding on 2.2 ruled two ways: 2.2 is disputed
    approvals.rule("req-tdrs-3b3fdab1", "approve", reviewer="ayse")
    approvals.rule(
        "req-tdrs-7ddf886b",
        "convert_to_cr",
        reviewer="jürgen",
        reason="2.2 describes the first phases only; this is more than 2.2 asks.",
    )
    assert "tdrs-rfq#2.2" in world.desk.case(CASE).decision.cited_clauses
    app = make_app(world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await goto(pilot, CASE)
        await press(pilot, "z")  # unfold the two-line peek: the detail's own window
        await settle(pilot)
        window = visible_detail_lines(app)
        assert len(window) <= 12, window  # what 80x24 leaves it
        top = flat(window)
        assert flat(window[:1]).startswith("Verdict ✓ IN_SCOPE confidence 0.71 · needs a")
        assert window[1].lstrip().startswith("! DISPUTED 2.2 Expectations"), window
        assert "rulings disagree" in window[1]
        # the deciding sentence, quoted whole (all 8 of its lines), in view
        assert WHOLE_START in top, window
        assert "see and download their data in the system.”" in top, window
        assert top.index("Verdict") < top.index(WHOLE_START)
        # the rest of the header is further down, not dropped
        whole = flat(all_detail_lines(app))
        assert CASE in whole and "imported 2026-11-29 12:00Z" in whole
        assert "rulings disagree: CR / IN_SCOPE" in whole
        assert "see and download their data in the system.”" in whole  # quoted whole
        assert whole.index(WHOLE_START) < whole.index(CASE)
        title = world.desk.case(CASE).title
        assert title in whole  # the mark took the title's line: whole further down
        await press(pilot, "z")  # folded again: the peek gives the verdict, then the mark
        await settle(pilot)
        peek = visible_detail_lines(app)
        assert len(peek) == 2, peek
        assert flat(peek[:1]).startswith("Verdict ✓ IN_SCOPE confidence 0.71 · needs a")
        assert peek[1].lstrip().startswith("! DISPUTED 2.2 Expectations"), peek
    world.repo.dispose()


@pytest.mark.skipif(not TDRS.is_dir(), reason="../shared/realdata/tdrs is absent")
@sync
async def test_beside_the_list_at_120x40_the_sentence_is_whole_too(tmp_path: Path) -> None:
    """At 120x40 the detail sits beside the list (41 columns): the verdict (the
    sureness under it there), the dispute's mark, then the deciding sentence whole in
    its first window."""
    world = _stored(tmp_path, TDRS, "tdrs")
    approvals = approval_service(world.repo, world.settings)
    approvals.rule("req-tdrs-3b3fdab1", "approve", reviewer="ayse")
    approvals.rule("req-tdrs-7ddf886b", "convert_to_cr", reviewer="jürgen", reason="More than 2.2.")
    app = make_app(world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await goto(pilot, CASE)
        await settle(pilot)
        window = visible_detail_lines(app)
        assert window[0].startswith("Verdict") and "✓ IN_SCOPE" in window[0], window
        assert window[1].strip() == "needs a careful look", window
        assert window[2].startswith("! DISPUTED 2.2"), window
        top = flat(window)
        assert WHOLE_START in top and "see and download their data in the system.”" in top
    world.repo.dispose()


@pytest.mark.skipif(not TDRS.is_dir(), reason="../shared/realdata/tdrs is absent")
@sync
async def test_undisputed_case_opens_with_its_verdict_then_its_title(tmp_path: Path) -> None:
    world = _stored(tmp_path, TDRS, "tdrs")
    title = world.desk.case(CASE).title
    app = make_app(world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await goto(pilot, CASE)
        await press(pilot, "z")
        await settle(pilot)
        window = visible_detail_lines(app)
        assert not any("DISPUTED" in line for line in window)
        assert window[0].startswith("Verdict")
        assert window[1].strip().startswith(title[:40])  # one line, cut with "…"
        assert WHOLE_START in flat(window)
        whole = flat(all_detail_lines(app))
        assert title in whole  # the whole title, folded, further down
    world.repo.dispose()


TALENTMAP = TDRS.parent / "talentmap"


@pytest.mark.skipif(not TALENTMAP.is_dir(), reason="../shared/realdata/talentmap is absent")
def test_a_nearest_lead_in_is_quoted_with_its_list(tmp_path: Path) -> None:
    """talentmap's section 4: the nearest sentence a trial saw ends "sourced as
    follows:"; the list under it (nested items their own lines) is quoted after it."""
    from rich.console import Console

    from etki_tui.queue.evidence import evidence_of, evidence_section

    world = _stored(tmp_path, TALENTMAP, "talentmap")
    case = world.desk.case("req-talentmap-84aa766b")
    clauses = world.desk.clauses("talentmap")
    near = evidence_of(case.decision, case.text, clauses).nearest
    assert near is not None and near.text.endswith("will be sourced as follows:")
    console = Console(width=78, color_system=None, record=True)
    for part in evidence_section(case.decision, clauses, request=case.text):
        console.print(part)
    lines = [line.strip() for line in console.export_text().splitlines()]
    at = next(i for i, line in enumerate(lines) if line.endswith("follows:"))
    assert lines[at + 1] == "· Position"
    assert lines[at + 2].startswith("· Provide data about the positions available")
    assert "· Post" in lines[at + 3 :]
    assert lines[-1].endswith("more (w: the whole clause)”")  # bounded: 8 items, the rest counted
    world.repo.dispose()
