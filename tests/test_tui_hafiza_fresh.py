"""Hafıza's preview and reader stay true to the wiki (a reviewer trial): a page shown is
read again when the desk learns the wiki changed, and a followed link changes the title
with the body, never after it."""

from __future__ import annotations

import re
from typing import Any

from textual import events
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.markdown import MarkdownBlock

from etki.services import approval_service
from etki_tui.hafiza.pane import MemoryPane
from etki_tui.hafiza.reader import PageReader
from etki_tui.queue.pane import QueuePane
from tests.conftest import TuiWorld
from tests.test_tui_pilot import Recorder, current, press, settle, settled_app, sync, until

CONTRACT = "entities/contracts/MSA-2024-01.md"


async def _preview_index(pilot: Any, app: Any) -> tuple[MemoryPane, PageReader]:
    """Hafıza, its list on index.md, the preview showing index.md's page."""
    await press(pilot, "2")
    pane = app.query_one(MemoryPane)
    await until(pilot, lambda: pane.loaded, "Hafıza's lists")
    entries = pane.query_one("#memory-list", OptionList)
    await until(pilot, lambda: "page:index.md" in [o.id for o in entries.options], "index.md")
    entries.focus()
    entries.highlighted = entries.get_option_index("page:index.md")
    reader = pane.reader
    await until(
        pilot,
        lambda: reader.display and reader.path == "index.md" and pane.shown_page() == "index.md",
        "index.md in the preview",
    )
    await settle(pilot)
    return pane, reader


def _cell_texts(reader: PageReader) -> list[str]:
    """The text of every table cell of the page shown."""
    return [str(c.content) for c in reader.query("MarkdownTableContent Static").results(Static)]


@sync
async def test_a_ruling_elsewhere_refreshes_the_page_in_the_preview(tui_world: TuiWorld) -> None:
    """index.md in the preview; another reviewer rules a case (through the store, as
    another process does). The desk's change poll updates the queue and the lists, and
    the preview shows index.md's new counts (pending 5, ruled 3), not the old page; it
    stays on the same page and scroll position."""
    seen = Recorder()
    async with settled_app(tui_world, (120, 24), message_hook=seen) as (app, pilot):
        case_id = app.query_one(QueuePane).current_case_id()
        assert case_id is not None and case_id == current(app)
        pane, reader = await _preview_index(pilot, app)
        index = tui_world.wiki / "index.md"
        before = index.read_text("utf-8")
        assert reader.text == before
        cells = _cell_texts(reader)
        assert cells[cells.index("pending") + 1] == "6" and cells[cells.index("ruled") + 1] == "2"
        scroll = reader.query_one("#reader-scroll")
        assert scroll.max_scroll_y > 2  # the page is longer than the preview
        scroll.scroll_to(y=2, animate=False)
        await until(pilot, lambda: scroll.scroll_y == 2, "the preview scrolled down")
        approval_service(tui_world.repo, tui_world.settings).rule(
            case_id, "approve", reviewer="ayse"
        )
        after = index.read_text("utf-8")
        assert after != before  # the projection rewrote index.md
        app.poll_queue()  # the interval timer's job, without waiting for it
        await settle(pilot)
        said = f"Ruled meanwhile: {case_id.rsplit('-', 1)[-1]} IN_SCOPE by ayse."
        assert any(said in n for n in seen.notes()), seen.notes()
        await until(pilot, lambda: reader.text == after, "index.md read again")
        await settle(pilot)
        assert reader.path == "index.md" and pane.shown_page() == "index.md"
        assert app.query_one("#memory-preview").border_title == "index.md"
        cells = _cell_texts(reader)
        assert cells[cells.index("pending") + 1] == "5" and cells[cells.index("ruled") + 1] == "3"
        assert scroll.scroll_y == 2  # kept where the reviewer was reading
        assert reader.history.label() == "history 1 of 1"  # a refresh is no new visit


@sync
async def test_a_followed_link_changes_the_title_with_the_body(tui_world: TuiWorld) -> None:
    """index.md read full-screen, ``l``, Enter on the contract's link: no block of the
    contract page is ever on screen under index.md's title or history line (a trial:
    the contract body stood under "index.md · history 1 of 1" for ~3 s). Every block
    mounted is checked as it is mounted."""
    wrong: list[tuple[str, str]] = []
    old_blocks: list[MarkdownBlock] = []  # held: their ids stay theirs
    watching = [False]
    checked = [0]  # mounts seen with the contract's blocks on the page

    def check(message: Message) -> None:
        if not watching[0] or not isinstance(message, events.Mount):
            return
        reader = app.query_one(PageReader)
        old = {id(b) for b in old_blocks}
        new = [b for b in reader.query_one("#memory-page").query(MarkdownBlock) if id(b) not in old]
        if not new:
            return
        checked[0] += 1
        title = str(app.query_one("#memory-preview").border_title)
        bar = str(reader.query_one("#reader-bar", Static).content)
        if title != CONTRACT or "history 2 of 2" not in bar:
            wrong.append((title, bar))

    async with settled_app(tui_world, (120, 40), message_hook=check) as (app, pilot):
        pane, reader = await _preview_index(pilot, app)
        await press(pilot, "enter")  # read index.md full-screen
        await until(pilot, lambda: app.screen.maximized is not None, "index.md full-screen")
        await settle(pilot)
        assert reader.path == "index.md" and reader.history.label() == "history 1 of 1"
        await press(pilot, "l")
        links = app.screen.query_one("#links-list", OptionList)
        labels = [str(o.prompt) for o in links.options]
        at = next(i for i, label in enumerate(labels) if CONTRACT in label)
        links.highlighted = at
        old_blocks.extend(reader.query_one("#memory-page").query(MarkdownBlock))
        assert old_blocks
        watching[0] = True
        await press(pilot, "enter")
        contract = (tui_world.wiki / CONTRACT).read_text("utf-8")
        await until(pilot, lambda: reader.text == contract, "the contract page read")
        await settle(pilot)
        watching[0] = False
        assert str(app.query_one("#memory-preview").border_title) == CONTRACT
        assert "history 2 of 2" in str(reader.query_one("#reader-bar", Static).content)
        assert checked[0] > 0, "no block of the contract page was seen mounted"
        assert not wrong, wrong[:3]


@sync
async def test_links_list_names_a_page_linked_by_its_count(tui_world: TuiWorld) -> None:
    """index.md links disputed.md by its count (``[0](disputed.md)``): the links list
    (``l``) names it by the page's title with the count, never a bare "0" (a trial)."""
    from etki_tui.screens.links import LinksScreen

    async with settled_app(tui_world, (120, 40)) as (app, pilot):
        pane, reader = await _preview_index(pilot, app)
        pane.action_page_links()
        await until(pilot, lambda: isinstance(app.screen, LinksScreen), "the links list")
        screen = app.screen
        assert isinstance(screen, LinksScreen)
        labels = {target: label for label, target in screen.links}
        assert "disputed.md" in labels
        assert re.fullmatch(r"Disputed clauses \(\d+\)", labels["disputed.md"]), labels
        assert all(any(ch.isalpha() for ch in label) for label in labels.values()), labels
