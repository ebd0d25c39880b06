"""Issue 34, the contract screen's keys (helper desk34keys): 1/2/q were swallowed on the
whole contract that ``l`` opens from a queue case or a Hafıza page at a clause. The desk's
footer promises ``q Quit`` on every tab and the tabs name their keys; the contract is a
page of the desk (full-screen, nothing to confirm), so there the tab keys close it and
show their tab, and ``q`` quits as on the tabs; its footer says so.

The real tdrs engagement loaded into SQLite; Textual's pilot, every wait for a state."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

import pytest
from textual.widgets import Markdown, TabbedContent

from etki.services import Desk
from etki.wiki.paths import decision_path
from etki_tui.actions import SHARED_KEYS, keymap_clashes
from etki_tui.app import EtkiApp
from etki_tui.hafiza.pane import MemoryPane
from etki_tui.hafiza.reader import clause_anchors
from etki_tui.screens.contract import TAB_KEYS, ContractScreen
from etki_tui.screens.help import HelpScreen
from etki_tui.screens.links import LinksScreen
from tests.conftest import TDRS_CITED, TDRS_DIR, TDRS_RULED, build_tui_tdrs_world
from tests.test_tui_contract_lag import open_from_reader
from tests.test_tui_evidence import TDRS, tdrs_desk  # noqa: F401 (the fixture)
from tests.test_tui_hafiza_toc import screen_lines
from tests.test_tui_keys import desk_app
from tests.test_tui_pilot import make_app, press, settle, sync, until
from tests.test_tui_quit_key import footer_seen

pytestmark = pytest.mark.skipif(
    TDRS is None or not TDRS.is_dir(), reason="../shared/realdata/tdrs is absent"
)

SIZES = [(80, 24), (120, 40)]
TAB_OF = {"1": "queue", "2": "hafiza", "3": "raporlar"}
TAB_LINE = "1 Queue  2 Hafıza  3 Raporlar"
"""The desk's tab line as drawn (the tab keys before their names)."""


def test_the_contract_carries_the_desk_keys_its_help_lists() -> None:
    """The screen's bindings are its own keys plus exactly the desk-wide ones its help
    lists (:data:`SHARED_KEYS`); a keymap giving ``l`` (go to clause) the key ``1``
    clashes with the Queue tab's key there, and is warned of."""
    ids = [b.id for b in ContractScreen.BINDINGS]  # type: ignore[union-attr]
    assert ids == ["contract.close", "contract.clauses", *TAB_KEYS, "help", "leave"]
    assert set(SHARED_KEYS["contract"]) == {*TAB_KEYS, "leave"}
    assert keymap_clashes({"contract.clauses": "1"}) == [("1", "contract.clauses", "tab.queue")]
    assert keymap_clashes({"contract.clauses": "q"}) == [("q", "contract.clauses", "leave")]


def on_tab(app: EtkiApp, tab: str) -> bool:
    """The contract is closed, the desk shows ``tab`` as its own screen (no full-screen
    read left over) and the tab line is drawn."""
    if isinstance(app.screen, ContractScreen) or app.screen.maximized is not None:
        return False
    return app.query_one(TabbedContent).active == tab and any(
        TAB_LINE in row for row in screen_lines(app)
    )


@sync
@pytest.mark.parametrize("size", SIZES)
async def test_the_footer_names_the_tab_keys_and_q(
    tdrs_desk: Desk,  # noqa: F811
    size: tuple[int, int],
) -> None:
    """The contract's footer reads, whole at 80 columns: Esc Back, l Go to clause, the
    tab keys as one group, ? Help, q Quit (the desk's footer ends "? Help  q Quit"); its
    help lists the tab keys and q, not the queue's keys."""
    app = desk_app(tdrs_desk, "tdrs")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await open_from_reader(pilot, app, tdrs_desk)
        await settle(pilot)
        keys = "Esc Back · l Go to clause · 1 · 2 · 3 · ? Help · q Quit"
        assert footer_seen(app, size[0]) == keys  # each key wholly inside the width
        assert screen_lines(app)[-1].strip() == (
            "Esc Back  l Go to clause  1 2 3 Tabs  ? Help  q Quit"
        )
        await press(pilot, "question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        await settle(pilot)
        text = "\n".join(screen_lines(app))
        assert "Help — Contract" in text
        for said in ("Go to clause", "Queue — Switch", "Hafıza — Switch", "Quit — Quit"):
            assert said in text, said
        assert "Approve" not in text
        await press(pilot, "escape")
        await until(pilot, lambda: isinstance(app.screen, ContractScreen), "the contract")


@sync
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("key", ["1", "2", "3"])
async def test_a_tab_key_closes_the_contract_and_shows_its_tab(
    tdrs_desk: Desk,  # noqa: F811
    size: tuple[int, int],
    key: str,
) -> None:
    """Opened from the case reader (Enter, l, a clause): the tab key closes the contract
    and the full-screen read, and shows that tab; ``1`` lands in the queue's list with the
    case still highlighted, so ``j`` then moves the list (the key after the tab key goes
    to the tab, not to a screen left behind)."""
    app = desk_app(tdrs_desk, "tdrs")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        first = app.query_one("#queue-table").cursor_row  # type: ignore[attr-defined]
        await open_from_reader(pilot, app, tdrs_desk)
        await press(pilot, key)
        await until(pilot, lambda: on_tab(app, TAB_OF[key]), f"the {TAB_OF[key]} tab")
        if key == "1":
            table = app.query_one("#queue-table")
            assert app.focused is table
            assert table.cursor_row == first  # type: ignore[attr-defined]
            await press(pilot, "j")
            assert table.cursor_row == first + 1  # type: ignore[attr-defined]


@sync
@pytest.mark.parametrize("size", SIZES)
async def test_q_quits_from_the_contract_and_not_from_its_clause_list(
    tdrs_desk: Desk,  # noqa: F811
    size: tuple[int, int],
) -> None:
    """``q`` on the clause list the contract's ``l`` opens (a dialog) does nothing; on
    the contract itself it quits the desk, as on the tabs."""
    app = desk_app(tdrs_desk, "tdrs")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await open_from_reader(pilot, app, tdrs_desk)
        await press(pilot, "l")
        await until(pilot, lambda: isinstance(app.screen, LinksScreen), "the clause list")
        await press(pilot, "q")
        assert isinstance(app.screen, LinksScreen) and app.return_code is None
        await press(pilot, "escape")
        await until(pilot, lambda: isinstance(app.screen, ContractScreen), "the contract")
        await pilot.press("q")
        await until(pilot, lambda: app.return_code is not None, "the desk to quit")
    assert app.return_code == 0


@sync
@pytest.mark.skipif(not TDRS_DIR.is_dir(), reason="../shared/realdata/tdrs is absent")
@pytest.mark.parametrize("size", SIZES)
async def test_from_a_hafiza_page_1_shows_the_queue(tmp_path: Path, size: tuple[int, int]) -> None:
    """Opened from a clause link of a decision page in Hafıza: ``1`` closes the contract
    and shows the queue; ``l`` on the same link again and ``2`` comes back to Hafıza
    with the page still open."""
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
            href = next(
                h
                for h in body.split("](")[1:]
                if "#" in h and unquote(h.split(")", 1)[0].split("#", 1)[1]) == TDRS_CITED[0]
            ).split(")", 1)[0]
            page = pane.reader.query_one("#memory-page", Markdown)

            async def follow() -> ContractScreen:
                page.post_message(Markdown.LinkClicked(page, href))
                await until(pilot, lambda: isinstance(app.screen, ContractScreen), "contract")
                screen = app.screen
                assert isinstance(screen, ContractScreen)
                await until(pilot, lambda: screen.landed == TDRS_CITED[0], "the clause")
                return screen

            await follow()
            await press(pilot, "1")
            await until(pilot, lambda: on_tab(app, "queue"), "the queue tab")
            await press(pilot, "2")
            await until(pilot, lambda: on_tab(app, "hafiza"), "Hafıza")
            await follow()
            await press(pilot, "2")
            await until(pilot, lambda: on_tab(app, "hafiza"), "Hafıza")
            assert pane.reader.path == rel
    finally:
        world.repo.dispose()
