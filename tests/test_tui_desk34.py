"""Issue 34 items 1, 6 and 7, by pilot: more queue at 80x24 (the detail hidden by
default under 30 rows, ``z`` toggles it, beside the list from 110 columns), the claim
mark, next/previous case in the full-screen read; the one-line status area and the
messages view; one meaning per key, the read-only footer, keymap clashes and Escape
followed at once by a key (fed through Textual's own parser, and over a real pty)."""

from __future__ import annotations

import os
import pty
import signal
import sys
import time
from pathlib import Path

import pytest
from textual._xterm_parser import XTermParser

from etki.store import CaseFileRepository
from etki_tui.actions import ACTIONS, TAB_CONTEXTS, keymap_clashes
from etki_tui.config import load_config
from etki_tui.glyphs import CLAIM_MARK
from etki_tui.header import StatusLine, one_line
from etki_tui.queue.bars import CaseDetail
from etki_tui.queue.pane import QueuePane, QueueTable
from etki_tui.queue.rows import CLAIM_ROOM
from etki_tui.screens.notice import MessagesScreen
from etki_tui.terminal import separate_escapes, split_escape
from tests.conftest import TuiWorld
from tests.test_tui_pilot import (
    Recorder,
    current,
    make_app,
    press,
    queue_ids,
    settle,
    shown,
    sync,
    until,
)
from tests.test_tui_terminal import CMD, DEADLINE, READY, _env, _read_until, _reap, _winsize

# --- item 1: more queue ------------------------------------------------------------------


@sync
async def test_80x24_starts_with_the_list_alone_and_z_toggles_the_detail(
    tui_world: TuiWorld,
) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        pane, table = app.query_one(QueuePane), app.query_one(QueueTable)
        detail = app.query_one(CaseDetail)
        assert pane.has_class("-list") and not pane.has_class("-beside")
        assert table.region.height >= 16  # the header and 15+ rows
        assert detail.region.height == 2  # a two-line peek
        await press(pilot, "z")
        await until(pilot, lambda: detail.region.height >= 8, "the detail shown")
        assert not pane.has_class("-list") and table.region.height < 16
        await press(pilot, "z")
        await until(pilot, lambda: table.region.height >= 16, "the list alone again")
        # the choice holds when the terminal changes size
        await pilot.resize_terminal(90, 26)
        await settle(pilot)
        assert pane.has_class("-list")


@sync
async def test_the_detail_sits_beside_the_list_from_110_columns(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pane, table = app.query_one(QueuePane), app.query_one(QueueTable)
        detail = app.query_one(CaseDetail)
        assert pane.has_class("-beside") and not pane.has_class("-list")
        assert detail.region.x >= table.region.right - 1 and detail.region.y == table.region.y
        await pilot.resize_terminal(100, 40)  # under 110: stacked, 40 rows: shown
        await until(pilot, lambda: not pane.has_class("-beside"), "stacked")
        await settle(pilot)
        assert detail.region.y > table.region.y and not pane.has_class("-list")


@sync
async def test_j_and_k_step_cases_in_the_full_screen_read(tui_world: TuiWorld) -> None:
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        ids = queue_ids(app)
        detail = app.query_one(CaseDetail)
        await press(pilot, "enter")
        await until(pilot, lambda: app.screen.maximized is detail, "the read")
        assert detail.region.height > 15  # shown although the list was alone
        await press(pilot, "j")
        await until(pilot, lambda: current(app) == ids[1], "the next case")
        assert app.screen.maximized is detail and ids[1] in str(detail.border_title)
        await press(pilot, "j", "k")
        await until(pilot, lambda: current(app) == ids[1], "back one")
        assert app.screen.maximized is detail
        await press(pilot, "escape")
        await until(pilot, lambda: app.screen.maximized is None, "back to the list")
        assert app.query_one(QueuePane).has_class("-list") and detail.region.height == 2


def test_claim_mark_is_one_cell() -> None:
    """A later trial: ``@AY `` cost the titles four cells at 80x24; the mark is one
    cell and a space, the claimant named in the detail's title."""
    assert CLAIM_MARK == "@" and CLAIM_ROOM == 2


@sync
async def test_a_claim_is_a_mark_before_the_id_and_the_title_stays(
    tui_world: TuiWorld,
) -> None:
    first = "req-demo-0a1f3c21"
    tui_world.repo.claim(first, "Ayşe Yılmaz", 30)
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = app.query_one(QueueTable)
        row = " ".join(shown(table).splitlines()[1].split())
        assert row.startswith("@ 0a1f3c21") and "claimed by" not in row
        assert "SSO" in row  # the title's first word is still there
        detail = app.query_one(CaseDetail)
        assert "claimed by Ayşe Yılmaz" in str(detail.border_title)


# --- item 6: the status area ---------------------------------------------------------------


def test_one_line_cuts_and_says_where_the_rest_is() -> None:
    short = one_line("Saved", "Claimed x.", 60).plain
    assert short == "Saved: Claimed x."
    long = one_line("Converted", "line one\nline two\n" + "word " * 40, 60, "L").plain
    assert len(long) <= 60 and long.endswith("… (L: all)") and "line one · line two" in long
    assert one_line("", "[b]x[/b]", 40).plain == "[b]x[/b]"  # literal


@sync
async def test_routine_messages_go_to_the_status_line_and_m_shows_them_whole(
    tui_world: TuiWorld,
) -> None:
    seen = Recorder()
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24), message_hook=seen, notifications=True) as pilot:
        await settle(pilot)
        status = app.query_one(StatusLine)
        await press(pilot, "x")  # claim: a routine confirmation
        await until(pilot, lambda: "Claimed" in status.said, "the status line")
        assert not app.query("Toast")  # no toast over the work
        long = "A change request was drafted.\n" + "\n".join(f"step {i}" for i in range(10))
        app.notify(long, title="Converted", markup=False)
        await until(pilot, lambda: "Converted" in status.said, "the long one")
        assert status.said.endswith("(L: all)") and len(status.said) <= 78
        assert not app.query("Toast")
        app.notify("Look at this.", severity="warning", markup=False)
        await until(pilot, lambda: bool(app.query("Toast")), "a warning toast")
        assert "Converted" in status.said  # a warning does not take the line
        await press(pilot, "L")
        await until(pilot, lambda: isinstance(app.screen, MessagesScreen), "the messages")
        text = " ".join(
            " ".join(shown(w, 76, 20).split()) for w in app.screen.query(".message-entry")
        )
        assert "step 9" in text and "Look at this." in text and "Claimed" in text
        assert text.index("Look at this.") < text.index("step 9")  # newest first
        await press(pilot, "escape")
        await until(pilot, lambda: not isinstance(app.screen, MessagesScreen), "closed")


# --- item 7: keys ----------------------------------------------------------------------------


def test_no_key_means_two_things_across_the_tabs() -> None:
    meaning: dict[str, set[str]] = {}
    for action in ACTIONS.values():
        if action.context in (*TAB_CONTEXTS, "app"):
            for key in action.keys(None):
                meaning.setdefault(key, set()).add(action.label)
    # one meaning per key: Enter reads (queue) or opens (Hafıza), / finds (queue) or
    # searches (the wiki), e exports what the tab shows, l follows a link of what is
    # shown (a cited clause in the queue, a page's link in Hafıza)
    shared = {k: v for k, v in meaning.items() if len(v) > 1}
    assert set(shared) <= {"enter", "slash", "e", "l"}, shared
    assert ACTIONS["dispute.resolve"].key == ACTIONS["dispute.resolve_case"].key == "R"
    assert ACTIONS["page.forward"].key not in {
        a.key for a in ACTIONS.values() if a.id != "page.forward" and a.context == "queue"
    }


def test_keymap_clashes_name_the_key_and_the_other_action(tmp_path: Path) -> None:
    assert keymap_clashes({}) == []
    assert keymap_clashes({"reject": "d"}) == [("d", "reject", "filter.disputed")]
    assert keymap_clashes({"page.back": "y"}) == [("y", "page.back", "copy")]
    assert keymap_clashes({"sort": "O"}) == []
    cfg = tmp_path / "config.yaml"
    cfg.write_text("keymap:\n  reject: d\n", encoding="utf-8")
    [warning] = load_config(str(cfg)).warnings
    assert str(cfg) in warning and "'reject' to d" in warning and "'filter.disputed'" in warning


@sync
async def test_a_keymap_clash_is_a_warning_on_the_status_line(
    tui_world: TuiWorld, tmp_path: Path
) -> None:
    """A fresh trial: the clash's toast covered 9 list rows for ~8 s at 80x24. It is
    said on the status line (what clashed first) and kept whole in the messages view;
    no toast."""
    cfg = tmp_path / "config.yaml"
    cfg.write_text("keymap:\n  note: x\n", encoding="utf-8")
    app = make_app(tui_world, config=load_config(str(cfg)))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        status = app.status_line
        assert status is not None
        await until(pilot, lambda: status.said.startswith("Config: keymap binds"), "said")
        assert "'note' to x" in status.said and status.said.endswith("(L: all)")
        [kept] = [e for e in status.entries if e[2] == "Config"]
        assert kept[1] == "warning" and str(cfg) in kept[3] and "'claim'" in kept[3]
        assert not app.query("Toast")


def _keys(data: bytes) -> list[tuple[str, str | None]]:
    parser = XTermParser()
    events = [*parser.feed(separate_escapes(data).decode()), *parser.feed("")]
    return [(e.key, e.character) for e in events]  # type: ignore[attr-defined]


def test_escape_then_a_key_in_one_read_is_two_keys() -> None:
    assert _keys(b"\x1bj") == [("escape", None), ("j", "j")]
    assert _keys(b"\x1b/") == [("escape", None), ("slash", "/")]  # Textual alone: "/"
    assert _keys(b"\x1bb") == [("escape", None), ("b", "b")]  # Textual alone: Ctrl+←
    assert _keys("\x1bş".encode()) == [("escape", None), ("ş", "ş")]
    assert _keys(b"\x1b[A") == [("up", None)]  # sequences stay whole
    assert _keys(b"\x1bOP") == [("f1", None)]
    assert _keys(b"\x1b") == [("escape", "\x1b")]
    # what Textual alone makes of it, and the driver's split of that
    parser = XTermParser()
    [alt] = [*parser.feed("\x1bj"), *parser.feed("")]
    assert alt.key == "alt+j"  # type: ignore[attr-defined]
    pair = split_escape(alt)  # type: ignore[arg-type]
    assert pair is not None and [k.key for k in pair] == ["escape", "j"]


@pytest.mark.skipif(sys.platform != "linux", reason="needs a Linux pty")
def test_escape_then_x_over_a_pty_claims(tui_world: TuiWorld) -> None:
    """The real desk on a pty: Escape and x written in one go are Escape, then x (the
    claim of the highlighted case), not Alt+x (nothing)."""
    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.execve(sys.executable, CMD, _env(tui_world))
        finally:
            os._exit(127)
    try:
        _winsize(fd)
        seen = bytearray()
        assert _read_until(fd, READY, seen, time.monotonic() + DEADLINE)
        os.write(fd, b"\x1bx")
        # read at the real time, as the desk wrote it: the world's repository runs on a
        # frozen clock days behind, and a claim ending more than CLAIM_MAX_MINUTES ahead
        # of the reader's time binds nobody (issue 30 item 6)
        now = CaseFileRepository(tui_world.settings.db_url)
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline and not now.live_claims("demo"):
            _read_until(fd, b"\x00never", seen, time.monotonic() + 0.5)
        assert list(now.live_claims("demo")) == ["req-demo-0a1f3c21"]
        now.dispose()
        os.kill(pid, signal.SIGHUP)
        _read_until(fd, b"", seen, time.monotonic() + 20)
    finally:
        _reap(pid)
        os.close(fd)
