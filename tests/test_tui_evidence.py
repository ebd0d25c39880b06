"""Issue 34 items 2 and 3 on the real engagements (talentmap, tdrs loaded with
``init_project`` into SQLite): the detail quotes the deciding sentence and the weighed
exclusions first, marks them in the clause and folds a long clause (``w`` shows it
whole); ``l`` opens a cited clause in the whole contract, scrolled to it. Pilot tests
wait for states, never for time; nothing of ours is mocked."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from rich.console import Console
from textual.containers import VerticalScroll
from textual.widgets import OptionList

from etki.domain import ScopeClause
from etki.services import Desk
from etki_tui.app import EtkiApp
from etki_tui.hafiza.pane import MemoryPane
from etki_tui.hafiza.reader import clause_anchors
from etki_tui.queue.bars import CaseDetail
from etki_tui.queue.evidence import (
    DECIDING_STYLE,
    MarkedClause,
    evidence_of,
)
from etki_tui.screens.contract import ContractScreen
from etki_tui.screens.links import LinksScreen
from tests.conftest import TDRS_CITED, TDRS_DIR, TDRS_RULED, TuiWorld, build_tui_tdrs_world
from tests.test_tui_keys import REALDATA, _engagement_desk, desk_app
from tests.test_tui_pilot import current, goto, make_app, press, settle, shown, sync, until

TALENTMAP = REALDATA / "talentmap" if REALDATA is not None else None
TDRS = REALDATA / "tdrs" if REALDATA is not None else None
WEIGHED_CASE = "req-talentmap-cb63d08d"
"""Exports position data to Excel: decided on PWS section 11, whose own exclusion
(“No other hardware, software or property will be provided by the Government.”) the
engine weighed; section 4 (huge) holds the closest exclusion."""


@pytest.fixture(scope="module")
def talentmap_desk(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    desk = _engagement_desk(TALENTMAP, tmp_path_factory.mktemp("talentmap"))
    yield desk
    desk.repo.dispose()


@pytest.fixture(scope="module")
def tdrs_desk(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    desk = _engagement_desk(TDRS, tmp_path_factory.mktemp("tdrs"))
    yield desk
    desk.repo.dispose()


def body(app: EtkiApp) -> list[str]:
    detail = app.query_one(CaseDetail)
    inner = detail.query_one("#detail-body")
    return [line.rstrip() for line in shown(inner, height=inner.virtual_size.height).split("\n")]


def test_the_weighed_exclusion_is_quoted_first_and_the_clause_folded(talentmap_desk: Desk) -> None:
    """Rendered at 80 columns: the Evidence section (deciding clause 11, the weighed
    exclusion of 11 and the closest one of 4, quoted) comes before the clause memory;
    section 4 (hundreds of lines whole) is folded to its marked part."""
    from etki_tui.queue.detail import case_detail

    case = talentmap_desk.repo.case(WEIGHED_CASE)
    clauses = talentmap_desk.clauses("talentmap")
    console = Console(width=80, color_system=None, record=True)

    def lines(whole: bool) -> list[str]:
        console.print(case_detail(case, clauses, {}, whole_clauses=whole))
        return [line.rstrip() for line in console.export_text().split("\n")]

    folded = lines(False)
    evidence = folded.index(next(x for x in folded if x.startswith("Evidence")))
    assert evidence < folded.index("Clause memory")
    section = "\n".join(folded[evidence : folded.index("Clause memory")])
    assert "Deciding    11 TERMS AND CONDITIONS (obligation)" in section
    assert "Weighed     11 TERMS AND CONDITIONS · an exclusion of the clause it rests on" in section
    assert "“No other hardware, software or property will be provided by the" in section
    assert "Exclusion   4 TASKS · closest" in section
    assert any(x.strip().startswith("… ") and "above · w shows" in x for x in folded)
    whole = lines(True)
    assert not any("above · w shows" in x or "below · w shows" in x for x in whole)
    assert len(whole) > len(folded) + 100  # section 4 and 11 whole


def test_marks_are_found_across_markdown_wrapping_and_turkish_letters() -> None:
    """A quoted sentence is marked where the markdown rendering put it (emphasis,
    escapes, wrapping and İ/ı/ş/ß letters differ in form, not in letters); a clipped
    quote is marked to its sentence's end; a long clause is folded around the mark."""
    text = "\n\n".join(
        [f"Paragraph {i} about **nothing** in particular, filling lines." for i in range(30)]
        + [
            (
                "Sistem *İstanbul* şubeleri için ıslak imza ve Größe alanlarını destekler. "
                "Sonraki cümle burada."
            )
        ]
        + [f"Tail {i} paragraph." for i in range(30)]
    )
    view = MarkedClause(
        text,
        [("Sistem İstanbul şubeleri için ıslak imza ve Größe", True, DECIDING_STYLE)],
        whole=False,
    )
    console = Console(width=40, color_system="standard", record=True)
    console.print(view)
    plain = console.export_text(styles=False, clear=False)
    assert "above · w shows" in plain and "below · w shows" in plain
    assert "Paragraph 0 " not in plain and "Tail 29" not in plain
    assert "İstanbul" in plain
    styled = console.export_text(styles=True)
    assert "\x1b[7m" in styled  # reverse video: marked
    # the mark ends with its sentence ("destekler."), not in the next one
    lines = [x for x in plain.split("\n") if x.strip()]
    assert any("destekler." in x for x in lines)


@sync
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_w_folds_and_unfolds_the_cited_clauses(
    talentmap_desk: Desk, size: tuple[int, int]
) -> None:
    app = desk_app(talentmap_desk, "talentmap")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await goto(pilot, WEIGHED_CASE)
        await until(pilot, lambda: any("Evidence" in x for x in body(app)), "the evidence")
        folded = body(app)
        assert any("above · w shows" in x for x in folded)
        evidence = next(i for i, x in enumerate(folded) if x.startswith("Evidence"))
        assert evidence < folded.index("Clause memory") < folded.index("Request")
        await press(pilot, "w")
        await until(pilot, lambda: not any("above · w shows" in x for x in body(app)), "whole")
        await press(pilot, "w")
        await until(pilot, lambda: any("above · w shows" in x for x in body(app)), "folded again")


async def _open_clause(pilot, app: EtkiApp, choice: int) -> ContractScreen:  # noqa: ANN001
    await press(pilot, "l")
    await until(pilot, lambda: isinstance(app.screen, LinksScreen), "the clause list")
    for _ in range(choice):
        await press(pilot, "down")
    await press(pilot, "enter")
    await until(pilot, lambda: isinstance(app.screen, ContractScreen), "the contract")
    screen = app.screen
    assert isinstance(screen, ContractScreen)
    await until(pilot, lambda: screen.landed is not None, "the scroll to the clause")
    return screen


def _on_screen(screen: ContractScreen, ref: str) -> bool:
    """Clause ``ref``'s block starts in the visible part of the contract (at its top,
    unless the contract ends first)."""
    index = next(i for i, c in enumerate(screen.clauses) if c.ref == ref)
    scroll = screen.query_one("#contract-scroll", VerticalScroll)
    block = screen.query_one(f"#clause-{index}")
    top = block.virtual_region.y
    y = scroll.scroll_y
    return block.has_class("-target") and (
        abs(y - top) <= 1 or (y >= scroll.max_scroll_y - 1 and top >= y)
    )


@sync
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_l_opens_the_whole_contract_at_the_clause(
    talentmap_desk: Desk, size: tuple[int, int]
) -> None:
    """Every clause of the PWS in order (not only the cited ones), scrolled to the
    chosen clause; Esc goes back to the queue; l in the contract jumps to another."""
    app = desk_app(talentmap_desk, "talentmap")
    stored = list(talentmap_desk.clauses("talentmap").values())
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await goto(pilot, WEIGHED_CASE)
        case = talentmap_desk.repo.case(WEIGHED_CASE)
        refs = evidence_of(case.decision).refs()
        assert refs[0] == "talentmap-pws#11"
        screen = await _open_clause(pilot, app, 1)  # the second: section 4
        assert screen.landed == refs[1] == "talentmap-pws#4"
        mine = [c.ref for c in stored if c.contract_id == "talentmap-pws"]
        assert [c.ref for c in screen.clauses] == mine and len(mine) > 3
        await until(pilot, lambda: _on_screen(screen, "talentmap-pws#4"), "section 4 on screen")
        await press(pilot, "l")
        await until(pilot, lambda: isinstance(app.screen, LinksScreen), "the clause list")
        await press(pilot, "end")
        await press(pilot, "enter")
        await until(pilot, lambda: screen.landed == mine[-1], "the last clause")
        await until(pilot, lambda: _on_screen(screen, mine[-1]), "the last clause on screen")
        await press(pilot, "escape")
        await until(pilot, lambda: not isinstance(app.screen, ContractScreen), "back")


@sync
async def test_l_on_tdrs_lands_on_a_nested_clause(tdrs_desk: Desk) -> None:
    """tdrs's RFQ has nested clauses (3.1.2); l in the case reader opens the contract at
    the deciding one, and Esc comes back to the reader."""
    app = desk_app(tdrs_desk, "tdrs")
    clauses: dict[str, ScopeClause] = tdrs_desk.clauses("tdrs")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        case = tdrs_desk.repo.case(current(app) or "")
        want = evidence_of(case.decision).refs()[0]
        await press(pilot, "enter")  # the case reader (the detail full-screen)
        detail = app.query_one(CaseDetail)
        await until(pilot, lambda: app.screen.maximized is detail, "the case reader")
        screen = await _open_clause(pilot, app, 0)
        assert screen.landed == want
        assert all(c.contract_id == clauses[want].contract_id for c in screen.clauses)
        await until(pilot, lambda: _on_screen(screen, want), "the clause on screen")
        # issue 34: "Go to which clause?" opens at the clause shown, and fits 80x24 (the
        # last clauses, 9.6.4 and 9.6.5, were below the frame and End highlighted one)
        await press(pilot, "l")
        await until(pilot, lambda: isinstance(app.screen, LinksScreen), "the clause list")
        picker = app.screen
        assert isinstance(picker, LinksScreen)
        options = picker.query_one("#links-list", OptionList)
        refs = [c.ref for c in screen.clauses]
        assert options.highlighted == refs.index(want)
        dialog = picker.query_one("#links-dialog")
        assert options.region.bottom <= dialog.region.bottom - 1  # inside its frame
        assert dialog.region.bottom <= 24 - 1  # above the footer
        await press(pilot, "end")
        assert options.highlighted == len(refs) - 1
        await until(pilot, lambda: options.scroll_y == options.max_scroll_y > 0, "scrolled")
        assert refs[-1].endswith("9.6.5") and "9.6.5" in shown(options)
        await press(pilot, "escape")
        await until(pilot, lambda: app.screen is screen, "the contract again")
        await press(pilot, "escape")  # back in the case reader, still full-screen
        await until(pilot, lambda: not isinstance(app.screen, ContractScreen), "back")
        assert app.screen.maximized is detail


def test_contract_page_is_not_needed_for_uncited_clauses(talentmap_desk: Desk) -> None:
    """The contract screen reads the store's clauses: one the cases never cite is there."""
    from etki_tui.screens.contract import contract_clauses

    clauses = talentmap_desk.clauses("talentmap")
    cited = {r for c in talentmap_desk.repo.cases("talentmap") for r in c.decision.cited_clauses}
    every = contract_clauses(clauses, "talentmap-pws")
    assert {c.ref for c in every} - cited  # some clause no case cites is readable


# --- Hafıza: clause links land on their clause (item 3) ---------------------------------


@sync
async def test_a_precedent_card_l_opens_its_clause_in_the_contract(tui_world: TuiWorld) -> None:
    """Hafıza opens on the first precedent's card; l lists the clauses it cites, Enter
    opens the whole contract from the store (every clause of it) scrolled to the one
    chosen."""
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "2")
        pane = app.query_one(MemoryPane)
        assert "PRECEDENT" in shown(pane.query_one("#memory-card"))
        case = tui_world.repo.case("req-demo-9b0f4d68")
        await press(pilot, "l")
        await until(pilot, lambda: isinstance(app.screen, LinksScreen), "the clause list")
        links = app.screen.links  # type: ignore[attr-defined]
        assert [t for _, t in links] == [
            "clause:" + r for r in case.decision.cited_clauses if r in pane.clauses
        ]
        await press(pilot, "enter")
        await until(pilot, lambda: isinstance(app.screen, ContractScreen), "the contract")
        screen = app.screen
        assert isinstance(screen, ContractScreen)
        want = case.decision.cited_clauses[0]
        await until(pilot, lambda: screen.landed == want, "the clause")
        await until(pilot, lambda: _on_screen(screen, want), "the clause on screen")
        every = [c.ref for c in pane.clauses.values() if c.contract_id == screen.contract_id]
        assert [c.ref for c in screen.clauses] == every


@sync
@pytest.mark.skipif(not TDRS_DIR.is_dir(), reason="../shared/realdata/tdrs is absent")
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_clause_link_on_a_tdrs_decision_page_lands_on_the_clause(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """The decision page of the ruled tdrs case links its cited clauses to the contract
    page; following one (a click's message, then l) opens the whole RFQ at that clause,
    not the wiki contract page at its top."""
    from textual.widgets import Markdown

    from etki.wiki.paths import decision_path

    world = build_tui_tdrs_world(tmp_path)
    try:
        app = make_app(world)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            app.case_jumper(TDRS_RULED)()
            pane = app.query_one(MemoryPane)
            rel = decision_path(world.repo.case(TDRS_RULED))
            await until(pilot, lambda: pane.reader.path == rel, "the decision page")
            await settle(pilot)
            body = clause_anchors(rel, pane.reader.text, pane.clauses)
            hrefs = [h for h in re.findall(r"\]\(([^)\s]+)\)", body) if "contracts/" in h]
            assert hrefs and all("#" in h for h in hrefs)
            want = TDRS_CITED[1]  # 3.1.2, nested
            href = next(h for h in hrefs if unquote(h.split("#", 1)[1]) == want)
            page = pane.reader.query_one("#memory-page", Markdown)
            page.post_message(Markdown.LinkClicked(page, href))
            await until(pilot, lambda: isinstance(app.screen, ContractScreen), "the contract")
            screen = app.screen
            assert isinstance(screen, ContractScreen)
            await until(pilot, lambda: screen.landed == want, "the clause")
            await until(pilot, lambda: _on_screen(screen, want), "the clause on screen")
            await press(pilot, "escape")
            await until(pilot, lambda: not isinstance(app.screen, ContractScreen), "back")
            await press(pilot, "l")
            await until(pilot, lambda: isinstance(app.screen, LinksScreen), "the links")
            targets = [t for _, t in app.screen.links]  # type: ignore[attr-defined]
            for ref in TDRS_CITED:
                assert "clause:" + ref in targets
            choice = targets.index("clause:" + TDRS_CITED[2])
            for _ in range(choice):
                await press(pilot, "down")
            await press(pilot, "enter")
            await until(pilot, lambda: isinstance(app.screen, ContractScreen), "the contract")
            screen = app.screen
            assert isinstance(screen, ContractScreen)
            await until(pilot, lambda: screen.landed == TDRS_CITED[2], "3.2")
            await until(pilot, lambda: _on_screen(screen, TDRS_CITED[2]), "3.2 on screen")
    finally:
        world.repo.dispose()


def test_clause_link_labels_are_read_back_as_the_wiki_writes_them() -> None:
    """The wiki names a clause ``REF — title`` (escaped as markdown); the reader reads the
    ref back, longest first, and leaves other links alone."""
    from etki.mdtext.literal import md_inline
    from etki.wiki.paths import clause_label, clause_link_ref

    refs = ["MSA#4.8", "MSA#4.8.1", "tdrs-rfq#3.1.2"]
    for ref in refs:
        label = md_inline(clause_label(ref, "Ödeme *ekranı* [İş] — ß"))
        assert clause_link_ref(label, refs) == ref
    assert clause_link_ref("MSA#4.81", refs) is None
    body = (
        "- [MSA#4.8.1 — Pay](../entities/contracts/msa.md) (inclusion)\n"
        "- [MSA#4.8 — Pay](../entities/contracts/msa.md#x) (kept)\n"
        "- [req-1](../decisions/req-1.md)\n"
    )
    out = clause_anchors("decisions/req-2.md", body, refs)
    assert "(../entities/contracts/msa.md#MSA%234.8.1)" in out
    assert "(../entities/contracts/msa.md#x)" in out and "(../decisions/req-1.md)" in out


def test_a_clause_the_engine_quotes_nothing_of_folds_to_its_nearest_sentence() -> None:
    """Issue 34 item 2 (a later trial): the engine decided on TASKS by its role and
    quotes no sentence of it. The fold centres on the sentence sharing the most content
    words with the request (deep in the clause, not its opening), marked like a quote
    and labelled as the nearest sentence, never as the deciding one; ``w`` shows all of
    it. The verdict and the evidence chain are untouched (a display choice)."""
    from dataclasses import replace

    from etki.domain import EvidenceStep, deciding_clause_text
    from etki_tui.queue.evidence import evidence_section, marked_clause_block
    from tests.factories import make_decision

    text = "The Contractor will provide the following services:\n\n" + "\n\n".join(
        [
            f"- Service line {i} covering routine administration, filing and upkeep."
            for i in range(40)
        ]
        + ["- Migrate the legacy payroll archive into the new reporting database each quarter."]
        + [f"- Closing line {i} about meetings and minutes." for i in range(40)]
    )
    clause = ScopeClause("SOW#4", "SOW", "4", "TASKS", text)
    step = EvidenceStep(
        "classify", "IN_SCOPE by rule" + deciding_clause_text("SOW#4", "obligation", "r1")
    )
    decision = replace(make_decision("c1", cited=("SOW#4",)), evidence=(step,))
    request = "Please migrate the payroll archive to the reporting database"
    ev = evidence_of(decision, request, {"SOW#4": clause})
    assert ev.quotes == ()  # no quote invented: the evidence is as the engine wrote it
    assert ev.nearest is not None
    assert ev.nearest.text.startswith("Migrate the legacy payroll archive")
    assert ev.nearest.shared == ("migrate", "payroll", "archive", "reporting", "database")

    console = Console(width=80, color_system="standard", record=True)
    console.print(*evidence_section(decision, {"SOW#4": clause}, request=request))
    console.print(marked_clause_block("SOW#4", clause, ev))
    plain = " ".join(console.export_text(styles=False, clear=False).split())
    label = "nearest sentence (shared words: migrate, payroll, archive, reporting, database)"
    assert "quotes no sentence of it" in plain
    assert plain.count(label) == 2  # in the Evidence section and over the clause
    assert "“Migrate the legacy payroll archive" in plain
    fold = plain.split(label)[2]  # the clause as folded
    assert "Migrate the legacy payroll archive" in fold
    assert "The Contractor will provide the following services" not in fold
    assert "Service line 0 " not in fold and "Closing line 39 " not in fold
    assert "above · w shows" in fold and "below · w shows" in fold
    marked = [x for x in console.export_text(styles=True).split("\n") if "\x1b[7m" in x]
    assert any("payroll" in x for x in marked)  # highlighted like a quote

    whole = Console(width=80, color_system=None, record=True)
    whole.print(marked_clause_block("SOW#4", clause, ev, whole=True))
    shown_whole = whole.export_text()
    assert "Service line 0 " in shown_whole and "Closing line 39 " in shown_whole
    assert "above · w shows" not in shown_whole


def test_no_shared_word_keeps_the_clause_opening() -> None:
    """A request sharing no content word with the clause (stop words and party words
    such as "the", "contractor" do not count): no nearest sentence, the fold shows the
    clause's first lines as before."""
    from dataclasses import replace

    from etki.domain import EvidenceStep, deciding_clause_text
    from etki_tui.queue.evidence import marked_clause_block
    from tests.factories import make_decision

    text = "\n\n".join(f"Paragraph {i} about filing." for i in range(40))
    clause = ScopeClause("SOW#4", "SOW", "4", "TASKS", text)
    step = EvidenceStep("classify", "x" + deciding_clause_text("SOW#4", "obligation", "r1"))
    decision = replace(make_decision("c1", cited=("SOW#4",)), evidence=(step,))
    ev = evidence_of(decision, "The contractor shall do this for us", {"SOW#4": clause})
    assert ev.nearest is None
    console = Console(width=80, color_system=None, record=True)
    console.print(marked_clause_block("SOW#4", clause, ev))
    plain = console.export_text()
    assert "Paragraph 0 " in plain and "nearest sentence" not in plain


def _one_word_case(other_text: str) -> tuple[object, str, dict[str, ScopeClause]]:
    """A decision on SOW#4 by its role (no sentence quoted), a request sharing one
    content word ("archive") with one sentence of it, and the contract's clauses: SOW#4
    and SOW#5 holding ``other_text``."""
    from dataclasses import replace

    from etki.domain import EvidenceStep, deciding_clause_text
    from tests.factories import make_decision

    text = "\n\n".join(
        [f"Paragraph {i} about filing and upkeep." for i in range(20)]
        + ["Keep the archive of signed minutes for the steering board."]
    )
    clauses = {
        "SOW#4": ScopeClause("SOW#4", "SOW", "4", "TASKS", text),
        "SOW#5": ScopeClause("SOW#5", "SOW", "5", "HOSTING", other_text),
    }
    step = EvidenceStep("classify", "x" + deciding_clause_text("SOW#4", "obligation", "r1"))
    decision = replace(make_decision("c1", cited=("SOW#4",)), evidence=(step,))
    return decision, "Please restore the archive we lost yesterday", clauses


def test_one_common_shared_word_gives_no_nearest_sentence() -> None:
    """Issue 34 (a trial): the nearest sentence rested on one weak word. One shared word
    that another clause of the same contract also uses ("archive") is not enough: no
    nearest sentence, the fold keeps the clause's opening."""
    from etki_tui.queue.evidence import marked_clause_block

    decision, request, clauses = _one_word_case("Nightly backups go to the archive store.")
    ev = evidence_of(decision, request, clauses)  # type: ignore[arg-type]
    assert ev.nearest is None
    console = Console(width=80, color_system=None, record=True)
    console.print(marked_clause_block("SOW#4", clauses["SOW#4"], ev))
    plain = console.export_text()
    assert "Paragraph 0 " in plain and "nearest sentence" not in plain
    # and with no other clause to compare, one word is never enough
    alone = {"SOW#4": clauses["SOW#4"]}
    assert evidence_of(decision, request, alone).nearest is None  # type: ignore[arg-type]


def test_one_word_only_this_clause_uses_is_enough() -> None:
    """One shared word that no other clause of the contract holds (the highest IDF a
    word can have in the contract) is shown as the nearest sentence; so is a sentence
    sharing two words however common they are."""
    from etki.services.nearest import nearest_sentence

    decision, request, clauses = _one_word_case("Nightly backups go to the offsite store.")
    ev = evidence_of(decision, request, clauses)  # type: ignore[arg-type]
    assert ev.nearest is not None
    assert ev.nearest.text.startswith("Keep the archive of signed minutes")
    assert ev.nearest.shared == ("archive",)
    two = nearest_sentence(
        "restore the archive of minutes",
        clauses["SOW#4"].plain,
        ("The archive of the minutes is public.",),
    )
    assert two is not None and two.shared == ("archive", "minutes")


NEAREST_CASE = "req-talentmap-6cee39a2"
"""Bidders want to search and filter projected vacancies: decided on PWS section 4 (the
TASKS list, hundreds of lines) by its role, no sentence of it quoted; its sentence on
Projected Vacancies is deep inside."""


@sync
async def test_the_desk_folds_a_real_unquoted_clause_to_its_nearest_sentence(
    talentmap_desk: Desk,
) -> None:
    """On talentmap at 80x24: the detail names the nearest sentence of section 4 with the
    words it shares with the request, the folded clause shows it (not the section's
    opening), and ``w`` shows the section whole."""
    app = desk_app(talentmap_desk, "talentmap")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await goto(pilot, NEAREST_CASE)
        await until(pilot, lambda: any("Evidence" in x for x in body(app)), "the evidence")
        text = " ".join(" ".join(body(app)).split())
        label = "nearest sentence (shared words: projected, vacancies, positions)"
        assert text.count(label) == 2, text
        fold = text.split(label)[2]
        assert "Projected Vacancies (e.g., factors that influence when a position" in fold
        assert "above · w shows" in fold
        await press(pilot, "w")
        await until(pilot, lambda: not any("above · w shows" in x for x in body(app)), "whole")


def test_the_shared_words_are_words_the_request_writes(talentmap_desk: Desk) -> None:
    """Issue 34's trial: talentmap 8726578b (a position listed twice) was shown "nearest
    sentence (shared words: maps)" though the request never says "maps": the engine's
    camelCase split made "TalentMAP" give "map". Every shared word named is now a word of
    the request as it writes it (folded and stemmed only to be compared)."""
    from etki.text import words_as_written

    case = talentmap_desk.case("req-talentmap-8726578b")
    ev = evidence_of(case.decision, case.text, talentmap_desk.clauses("talentmap"))
    assert ev.nearest is not None and ev.nearest.shared == ("Bidders",)
    assert "maps" not in ev.nearest_label()
    written = set(words_as_written(case.text))
    assert set(ev.nearest.shared) <= written


def test_nearest_sentence_folds_turkish_and_german_letters() -> None:
    """The request's and the clause's words meet through the engine's folding: dotted and
    dotless i, ş, ß and umlauts, NFD as NFC; a party word ("Yüklenici") is not shared."""
    import unicodedata

    from etki.services.nearest import nearest_sentence

    clause = (
        "Yüklenici genel destek verir. Yüklenici İADE işlemlerini ve ŞİFRE sıfırlamayı "
        "yürütür. Diğer işler ayrıca konuşulur."
    )
    got = nearest_sentence(unicodedata.normalize("NFD", "iade ve şifre yüklenici"), clause)
    assert got is not None
    assert got.text == "Yüklenici İADE işlemlerini ve ŞİFRE sıfırlamayı yürütür."
    assert got.shared == ("iade", "şifre")  # as the request writes them
    de = nearest_sentence(
        "Die Größe der Prüfungen", "Allgemeines. Die GROESSE gilt. Prufungen der Grösse."
    )
    assert de is not None and de.text == "Prufungen der Grösse."
