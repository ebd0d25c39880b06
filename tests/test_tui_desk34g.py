"""A fresh reviewer trial of issue 34 (tmux, 80x24 and 120x40, tdrs and talentmap): the
PMO's resolution said once in the detail, a precedent's wiki path folded at ``/`` and
``-`` (never mid-word), the Hafıza card's History rows and reason under their indent,
and the highlighted Hafıza entry's verdict drawn in the highlight's own colour.

Driven with Textual's Pilot on the real talentmap engagement in a SQLite file; every
step waits for a state, never for time.
"""

from __future__ import annotations

import pytest
from rich.console import Console
from textual.widgets import Static

from etki.domain import RulingRecord
from etki.services import Desk, approval_service
from etki_tui.hafiza.pane import MemoryPane
from etki_tui.hafiza.widgets import MemoryList
from etki_tui.queue.memory_strip import correction_lines
from tests.conftest import TuiWorld
from tests.test_tui_evidence import body
from tests.test_tui_keys import REALDATA, _engagement_desk, desk_app
from tests.test_tui_pilot import goto, press, queue_ids, settle, settled_app, shown, sync, until

TALENTMAP = REALDATA / "talentmap" if REALDATA is not None else None
SECTION_4 = "talentmap-pws#4"
PENDING_4 = "req-talentmap-8726578b"  # pending, cites section 4
AMENDED = "req-demo-8a9e3c57"  # ruled IN_SCOPE by ayse in the sample world
RESOLUTION = "Section 4 lists data feeds; new search features are change requests"


@pytest.fixture(scope="module")
def resolved_desk(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    """talentmap with section 4 disputed (Mehmet Demir approved 759f6cc6, Zeynep Kaya
    rejected 6cee39a2, both reasons naming 4) and resolved CR by the PMO, as in the
    trial."""
    desk = _engagement_desk(TALENTMAP, tmp_path_factory.mktemp("talentmap"))
    rulings = approval_service(desk.repo, desk.settings)
    rulings.rule("req-talentmap-759f6cc6", "approve", reviewer="Mehmet Demir", reason="per 4")
    rulings.rule("req-talentmap-6cee39a2", "reject", reviewer="Zeynep Kaya", reason="not in 4")
    desk.resolve_dispute("talentmap", "4", "cr", RESOLUTION)
    yield desk
    desk.repo.dispose()


@sync
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_detail_quotes_the_pmo_resolution_once(
    resolved_desk: Desk, size: tuple[int, int]
) -> None:
    app = desk_app(resolved_desk, "talentmap")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await goto(pilot, PENDING_4)
        await until(pilot, lambda: any("Clause memory" in x for x in body(app)), "the strip")
        text = " ".join(" ".join(body(app)).split())
        assert text.count("PMO: rule CR —") == 1, text  # in the disputed strip
        assert text.count("Section 4 lists data feeds") == 1, text
        memory = text.split("Clause memory", 1)[1]
        assert f"{SECTION_4} ·" in memory and "PMO resolution: see above" in memory, memory


def test_a_precedent_page_path_folds_at_slashes_and_hyphens() -> None:
    """The trial's path wrapped "…req-talentmap-6ce" / "e39a2.md" in the 40-cell side
    pane: every line of it now ends at a ``/`` or ``-`` (or the path's end)."""
    page = (
        "precedents/PRE-bidders-want-to-search-and-filter-projected-vacancies-not-only-"
        "cur--req-talentmap-6cee39a2.md"
    )
    ruling = RulingRecord(
        "req-talentmap-6cee39a2",
        "REJECT",
        "reject",
        "Zeynep Kaya",
        "not in 4",
        "2026-12-08T00:33:53Z",
        "CHANGE_REQUEST",
    )
    console = Console(width=38, record=True, color_system=None)
    console.print(correction_lines(ruling, {ruling.case_id: page}))
    lines = console.export_text().splitlines()
    at = next(i for i, x in enumerate(lines) if "wiki: " in x)
    column = lines[at].index("wiki: ") + len("wiki: ")
    pieces = [x[column:].rstrip() for x in lines[at:] if x.strip()]
    assert "".join(pieces) == page, pieces
    assert all(p.endswith(("/", "-")) for p in pieces[:-1]), pieces
    assert all(x[:column].strip() == "" for x in lines[at + 1 :]), lines  # hanging indent


@sync
async def test_the_hafiza_card_keeps_history_rows_under_their_indent(
    resolved_desk: Desk,
) -> None:
    """At 80x24 a History row's case id and the PMO's reason wrap: their second lines
    start under the first (two cells in), never at column 0."""
    app = desk_app(resolved_desk, "talentmap")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "2")
        pane = app.query_one(MemoryPane)
        await until(pilot, lambda: bool(pane.disputed), "the memory")
        entries = pane.query_one(MemoryList)
        ids = [entries.get_option_at_index(i).id for i in range(entries.option_count)]
        entries.highlighted = ids.index(f"dis:{SECTION_4}")
        card = pane.query_one("#memory-card", Static)

        def lines() -> list[str]:
            height = card.virtual_size.height or 40
            return shown(card, card.size.width, height).split("\n")

        await until(pilot, lambda: any("History" in x for x in lines()), "the card")
        got = lines()
        start = next(i for i, x in enumerate(got) if x.startswith("PMO resolution"))
        said = next(i for i, x in enumerate(got) if x.startswith("R records"))
        history = next(i for i, x in enumerate(got) if x.startswith("History"))
        end = next(i for i, x in enumerate(got) if x.startswith("Clause text"))
        kept = got[start + 1 : said] + got[history + 1 : end]
        assert len(kept) > 5, got  # the rule, the reason, stands, two rulings: some wrap
        assert all(x.startswith("  ") for x in kept), kept
        assert any("req-talentmap-759f6cc6" in x for x in kept)


@sync
async def test_the_highlighted_entry_draws_its_verdict_in_the_highlight_colour(
    resolved_desk: Desk,
) -> None:
    """The trial read a green ✓ IN_SCOPE on Hafıza's blue highlight: the highlighted
    entry's words are drawn in the highlight's own foreground (the other entries keep
    their verdict colours)."""
    app = desk_app(resolved_desk, "talentmap")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "2")
        pane = app.query_one(MemoryPane)
        await until(pilot, lambda: bool(pane.disputed), "the memory")
        entries = pane.query_one(MemoryList)
        row = entries.get_component_rich_style("option-list--option-highlighted")
        await until(pilot, lambda: entries.highlighted is not None, "a highlighted entry")
        drawn = [list(entries.render_line(y)) for y in range(entries.size.height)]

        def verdict_colours(highlighted: bool) -> set[object]:
            return {
                seg.style.color
                for line in drawn
                for seg in line
                if any(word in seg.text for word in ("IN_SCOPE", "REJECT", "CR"))
                and seg.style is not None
                and (seg.style.bgcolor == row.bgcolor) == highlighted
            }

        assert verdict_colours(True) == {row.color}
        assert verdict_colours(False) and row.color not in verdict_colours(False)


@sync
async def test_the_status_pairs_each_case_with_who_ruled_it_and_says_amendments(
    tui_world: TuiWorld,
) -> None:
    """The trial read "Ruled meanwhile by Mehmet Demir, Zeynep Kaya: req-…759f6cc6,
    req-…6cee39a2" as if Mehmet ruled the first: each case (short id) now has its ruling
    and who made it; an amendment made meanwhile (jurgen changes ayse's ruling of a
    case no longer in the queue) is said too."""
    async with settled_app(tui_world, (120, 40)) as (app, pilot):
        first, second = queue_ids(app)[:2]
        rulings = approval_service(tui_world.repo, tui_world.settings)
        rulings.rule(first, "approve", reviewer="ayse", reason="per 3.2")
        rulings.rule(second, "reject", reviewer="jurgen", reason="not in 3.2")
        rulings.rule(AMENDED, "reject", reviewer="jurgen", reason="per the PMO", amend=True)
        app.poll_queue()  # the interval timer's job, without waiting for it
        status = app.status_line
        assert status is not None

        def said() -> list[str]:
            return [e[3] for e in status.entries if e[2] == "Queue updated"]

        await until(pilot, lambda: bool(said()), "the status")
        short = [c.rsplit("-", 1)[-1] for c in (first, second, AMENDED)]
        assert said() == [
            (
                f"Ruled meanwhile: {short[0]} IN_SCOPE by ayse; {short[1]} REJECT by jurgen. "
                f"Amended meanwhile: {short[2]} REJECT by jurgen."
            )
        ]


def _footer_keys(app) -> list[str]:  # noqa: ANN001
    """The keys the active screen's footer shows, as drawn (``q Quit``)."""
    from textual.widgets import Footer

    footer = app.screen.query_one(Footer)
    return [" ".join(shown(k).split()) for k in footer.query("FooterKey") if k.display]


@sync
async def test_the_reason_kept_notice_has_its_own_footer_and_the_queue_keeps_its_own(
    tui_world: TuiWorld,
) -> None:
    """The trial at 120 columns: with the "reason kept" notice up, the footer showed the
    queue's a/c/r without "q Quit". The notice now has its own footer (Esc OK, ? Help)
    and, once it is closed, the queue's footer is the one it had before the dialog."""
    from etki_tui.screens.confirm import ConfirmRuling
    from etki_tui.screens.notice import NoticeModal

    async with settled_app(tui_world, (120, 40)) as (app, pilot):
        before = _footer_keys(app)
        assert "q Quit" in before
        first = queue_ids(app)[0]
        await press(pilot, "r", *"Nicht im")
        dialog = app.screen
        assert isinstance(dialog, ConfirmRuling)
        approval_service(tui_world.repo, tui_world.settings).rule(first, "approve", reviewer="ayse")
        app.poll_queue()
        await until(pilot, lambda: dialog.ruled_meanwhile is not None, "the dialog told")
        await press(pilot, "enter")
        await until(pilot, lambda: isinstance(app.screen, NoticeModal), "the notice")
        await settle(pilot)
        assert _footer_keys(app) == ["Esc OK", "? Help"]
        await press(pilot, "escape")
        await until(pilot, lambda: not isinstance(app.screen, NoticeModal), "closed")
        await settle(pilot)
        assert _footer_keys(app) == before


@sync
async def test_slash_on_raporlar_goes_to_the_wiki_search(tui_world: TuiWorld) -> None:
    """Raporlar's footer offers "/ Search": it puts the cursor in Hafıza's search box."""
    from textual.widgets import Input

    async with settled_app(tui_world, (120, 40)) as (app, pilot):
        await press(pilot, "3")
        await until(pilot, lambda: "/ Search" in _footer_keys(app), "Raporlar's footer")
        await press(pilot, "slash")
        await until(pilot, lambda: isinstance(app.focused, Input), "the search box")
        assert app.focused is app.query_one("#memory-search", Input)
