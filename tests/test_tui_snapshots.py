"""SVG snapshots of every screen and modal of the reviewer desk (pytest-textual-snapshot):
queue, case detail, confirm, conflict notice and banner, filter panel and filter line,
Hafıza search / card / reader / links, Raporlar, help, command palette and the
too-small notice,
at 80x24 and 120x40; a set in the standard 16-colour system; and two with NO_COLOR.

Golden files live under ``snapshots/tui/test_tui_snapshots/`` (see the ``snapshot``
fixture in conftest.py). They are deterministic: the DB clock and the app's clock are
frozen, the UI shows no wall-clock time, the cursor does not blink, buttons do not flash,
toasts do not time out, the live refresh is off (tests poll by hand), searches run on
Enter only, and every worker has finished before the picture is taken. Update with
``pytest tests/test_tui_snapshots.py --snapshot-update`` and look at the pictures.
"""

from __future__ import annotations

import shutil
from collections.abc import Awaitable, Callable, Iterable
from contextlib import chdir
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from etki.services import approval_service
from etki_tui.app import EtkiApp
from tests.conftest import (
    TDRS_DIR,
    TuiWorld,
    build_tui_history_world,
    build_tui_tdrs_world,
    open_tui_world,
    tui_clock,
)
from tests.test_tui_contents import talentmap_contents, talentmap_wiki_world  # noqa: F401
from tests.test_tui_pilot import press, settle, until  # they wait for states, not rounds

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]
Step = str | Callable[[Pilot], Awaitable[None] | None]


def make_app(world: TuiWorld, **kwargs: object) -> EtkiApp:
    # A debounce that never fires by itself: searches run on Enter, once.
    return EtkiApp(
        world.desk,
        world.project_id,
        cursor_blink=False,
        search_delay=3600,
        poll_seconds=0,
        clock=tui_clock,
        preview_delay=0,
        **kwargs,
    )  # type: ignore[arg-type]


def keys(*steps: Step) -> Callable[[Pilot], Awaitable[None]]:
    """A ``run_before`` that waits for the queue, then runs ``steps`` — a key name, or
    ``type:TEXT`` (TEXT put into the focused input at once), or a callable — letting
    every worker finish after each."""

    async def run(pilot: Pilot) -> None:
        await settle(pilot)
        for step in steps:
            if callable(step):
                result = step(pilot)
                if result is not None:
                    await result
            elif step.startswith("type:"):
                field = pilot.app.focused
                assert isinstance(field, Input), f"no input focused for {step!r}"
                field.value = step.removeprefix("type:")
                field.action_end()
            else:
                await press(pilot, step)
            await settle(pilot)

    return run


def _check(
    snap_compare,
    world: TuiWorld,
    size: tuple[int, int],  # noqa: ANN001
    steps: Iterable[Step] = (),
    **app_options: object,
) -> None:
    # from the world's folder, so the header names the store as "sqlite etki.db" (a
    # path under the working directory is shown relative to it), not a temporary path
    with chdir(world.tmp):
        assert snap_compare(
            make_app(world, **app_options), terminal_size=size, run_before=keys(*steps)
        )


def ruled_by_ayse(pilot: Pilot) -> None:
    """Another reviewer rules the highlighted case; the live refresh sees it."""
    app = pilot.app
    assert isinstance(app, EtkiApp)
    approval_service(app.desk.repo, app.desk.settings).rule(
        "req-demo-0a1f3c21", "reject", reason="Out of remit.", reviewer="ayse"
    )
    app.poll_queue()


@pytest.fixture(scope="session")
def _history_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tui-history")
    build_tui_history_world(folder).repo.dispose()
    return folder


@pytest.fixture
def history_world(_history_template: Path, tmp_path: Path):  # noqa: ANN201
    """The fixture project with eight more rulings over five days (for the charts)."""
    shutil.copytree(_history_template, tmp_path, dirs_exist_ok=True)
    world = open_tui_world(tmp_path)
    yield world
    world.repo.dispose()


# --- Queue ------------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
def test_queue(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """The queue of six pending cases with the first (disputed clause) highlighted; the
    filter line says nothing is filtered."""
    _check(snap_compare, tui_world, size)


@pytest.mark.parametrize("size", SIZES)
def test_detail_disputed(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """The case detail read full-screen (Enter): cited clause 3.2 is ! DISPUTED."""
    _check(snap_compare, tui_world, size, ["enter"])


@pytest.mark.parametrize("size", SIZES)
def test_queue_detail_toggled(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """z (issue 34 item 1): at 80x24 the detail comes back under the list (the default
    there is the list alone); at 120x40 the detail beside the list goes and the list
    has the whole width."""
    _check(snap_compare, tui_world, size, ["z"])


@pytest.mark.parametrize("size", SIZES)
def test_read_next_case(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """Enter, then j: the full-screen read shows the second case (no Escape, j, Enter)."""
    _check(snap_compare, tui_world, size, ["enter", "j"])


def claimed_by_ayse(pilot: Pilot) -> None:
    """Another reviewer claims the second case; the queue reloads its claims."""
    app = pilot.app
    assert isinstance(app, EtkiApp)
    app.desk.repo.claim("req-demo-1b7e9d02", "Ayşe Yılmaz", 30)
    app.load_queue("reload")


@pytest.mark.parametrize("size", SIZES)
def test_claim_mark(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """Ayşe Yılmaz's claim is @AY before the id; the title stays whole, the detail's
    title names her (highlighted with j)."""
    _check(snap_compare, tui_world, size, [claimed_by_ayse, "j"])


def long_message(pilot: Pilot) -> None:
    """A routine message of ten lines (as a CR conversion's was)."""
    pilot.app.notify(
        "Converted req-demo-2c4a8e13 to a change request.\n"
        + "\n".join(f"Draft line {i}: the effort and the modules." for i in range(1, 10)),
        title="Saved",
        markup=False,
    )


@pytest.mark.parametrize("size", SIZES)
def test_status_line(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """A ten-line routine message is one line over the footer, cut, saying M shows it
    whole; no toast covers the queue."""
    _check(snap_compare, tui_world, size, [long_message])


async def claim_said(pilot: Pilot) -> None:
    """Wait until the claim's confirmation is kept (its worker's answer can come after
    the pilot is idle on a loaded machine), so the messages keep their order."""
    from etki_tui.header import StatusLine

    status = pilot.app.query_one(StatusLine)
    await until(pilot, lambda: any("Claimed" in e[3] for e in status.entries), "the claim")


@pytest.mark.parametrize("size", SIZES)
def test_messages_view(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """L: every message of the session whole, newest first. Beside the list (120
    columns) the detail is folded first (z): what the view is about is the messages,
    and the detail behind it redraws its history when the claim is read back, which
    moved its scrollbar by a cell under load."""
    fold = ["z"] if size[0] >= 110 else []  # under 110 columns it is folded already
    _check(snap_compare, tui_world, size, [*fold, "x", claim_said, long_message, "L"])


@pytest.fixture(scope="session")
def _tdrs_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tui-tdrs")
    build_tui_tdrs_world(folder).repo.dispose()
    return folder


@pytest.fixture
def tdrs_world(_tdrs_template: Path, tmp_path: Path):  # noqa: ANN201
    """The real tdrs engagement with a pending case citing 2.1, 3.1.2 and 3.2."""
    shutil.copytree(_tdrs_template, tmp_path, dirs_exist_ok=True)
    world = open_tui_world(tmp_path)
    world.project_id = "tdrs"
    yield world
    world.repo.dispose()


def scroll_detail_to(prefix: str) -> Callable[[Pilot], None]:
    """A step that scrolls the case detail so its first line starting with ``prefix``
    is at the top."""

    def run(pilot: Pilot) -> None:
        from textual.geometry import Region

        from etki_tui.queue.bars import CaseDetail

        detail = pilot.app.query_one(CaseDetail)
        body = detail.query_one("#detail-body")
        lines = [
            "".join(s.text for s in strip)
            for strip in body.render_lines(Region(0, 0, body.size.width, body.size.height))
        ]
        detail.scroll_to(
            y=next(i for i, line in enumerate(lines) if line.startswith(prefix)), animate=False
        )

    return run


@pytest.mark.skipif(not TDRS_DIR.is_dir(), reason="../shared/realdata/tdrs is absent")
@pytest.mark.parametrize("clause", ["2.1", "3.2"])
@pytest.mark.parametrize("size", SIZES)
def test_detail_real_clauses(
    snap_compare,
    tdrs_world: TuiWorld,
    size: tuple[int, int],  # noqa: ANN001
    clause: str,
) -> None:
    """Real tdrs clauses read full-screen, rendered (issue 12 item 1): 2.1's links as
    their words, 3.2's pipe and HTML tables as rows of cells, paragraphs reflowed; shown
    whole (w: a long clause is otherwise folded, issue 34 item 2)."""
    _check(snap_compare, tdrs_world, size, ["enter", "w", scroll_detail_to(f"§ {clause} ")])


@pytest.mark.parametrize("size", SIZES)
def test_detail_hostile_text(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """Client markup and escapes shown literally in the detail (B01, B03)."""
    _check(snap_compare, tui_world, size, ["down", "down", "down", "enter"])


@pytest.mark.parametrize("size", SIZES)
def test_filter_line(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """Disputed-only, sorted by lowest confidence, live find 'login' open: the filter
    line shows every filter and the count."""
    _check(snap_compare, tui_world, size, ["d", "o", "o", "o", "slash", "type:login"])


@pytest.mark.parametrize("size", SIZES)
def test_find_overdue_looks(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """``look:overdue`` in the find box (issue 35 item 3): only the case whose 24h PMO
    look is overdue, its Look cell ``!24h``; the filter line names the token."""
    _check(snap_compare, tui_world, size, ["slash", "type:look:overdue", "enter"])


@pytest.mark.parametrize("size", SIZES)
def test_filter_sureness(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """The Sureness filter (f, the sixth row) on "needs a careful look", the panel
    closed: the three cases the engine is not sure of, each with ``?`` after its
    confidence, and the filter line saying so (issue 29 item 3)."""
    _check(snap_compare, tui_world, size, ["f", *["down"] * 5, "right", "right", "enter"])


@pytest.mark.parametrize("size", SIZES)
def test_filter_panel(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """The filter and sort panel (f) with verdict IN_SCOPE and risk high chosen (the
    SSO case: MEDIUM at triage, HIGH on the desk since its clause 3.2 is disputed)."""
    _check(snap_compare, tui_world, size, ["f", "right", "down", "right"])


@pytest.mark.parametrize("size", SIZES)
def test_confirm_override(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """Reject on an IN_SCOPE verdict: Confirm with no reason is refused."""
    _check(snap_compare, tui_world, size, ["r", "enter", "enter"])


@pytest.mark.parametrize("size", SIZES)
def test_confirm_agrees(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """Approve on an IN_SCOPE verdict: it agrees, so the Approve button has the focus
    (Enter or y rules) and the reason is optional."""
    _check(snap_compare, tui_world, size, ["a"])


@pytest.mark.parametrize("size", SIZES)
def test_read_only_desk(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """A viewer (vera) opens the desk: the header says vera · viewer and a banner under
    it says the desk is read-only and how to become an approver."""
    from dataclasses import replace

    from etki.services import Desk

    viewer = TuiWorld(
        tmp=tui_world.tmp,
        settings=replace(tui_world.settings, reviewer="vera"),
        repo=tui_world.repo,
        desk=Desk(replace(tui_world.settings, reviewer="vera"), tui_world.repo),
    )
    _check(snap_compare, viewer, size)


@pytest.mark.parametrize("size", SIZES)
def test_ruled_elsewhere_banner(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """Another reviewer ruled the highlighted case: its row stays, marked, with a banner
    saying who and when."""
    _check(snap_compare, tui_world, size, [ruled_by_ayse])


@pytest.mark.parametrize("size", SIZES)
def test_conflict_notice(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """Acting on that case: a conflict notice, nothing recorded."""
    _check(snap_compare, tui_world, size, [ruled_by_ayse, "a"])


# --- Hafıza ------------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
def test_hafiza_search(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """Hafıza with search results for 'contractor' (Enter: search now, go to the list),
    matches highlighted in the snippets and in the first hit's page."""
    _check(snap_compare, tui_world, size, ["2", "slash", "type:contractor", "enter"])


@pytest.mark.parametrize("size", SIZES)
def test_hafiza_disputed_card(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """Hafıza's disputed card for clause 3.2, read from the DB."""
    _check(snap_compare, tui_world, size, ["2", "down"])


@pytest.mark.parametrize("size", SIZES)
def test_hafiza_reader(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """The precedent's wiki page opened in the reader (Enter): full-screen, with its table
    of contents and the history line."""
    _check(snap_compare, tui_world, size, ["2", "enter"])


async def contract_contents(pilot: Pilot) -> None:
    """The tdrs contract page read full-screen, its contents open and focused (``t``;
    at 120 columns they start shown beside the page, and ``t`` hides them first)."""
    from etki_tui.hafiza.pane import MemoryPane
    from etki_tui.messages import PageWanted

    pane = pilot.app.query_one(MemoryPane)
    pane.post_message(PageWanted("entities/contracts/tdrs-rfq.md", history="push"))
    await until(pilot, lambda: pane.reader.path == "entities/contracts/tdrs-rfq.md", "page")
    await settle(pilot)
    pane.maximize_reader()
    await settle(pilot)
    await press(pilot, "t")
    if not pane.reader.show_toc:
        await press(pilot, "t")


@pytest.mark.skipif(not TDRS_DIR.is_dir(), reason="../shared/realdata/tdrs is absent")
@pytest.mark.parametrize("size", SIZES)
def test_hafiza_contract_contents(
    snap_compare, tdrs_world: TuiWorld, size: tuple[int, int]
) -> None:  # noqa: ANN001
    """t on the whole tdrs contract read full-screen: its clauses listed as "2.1 — Scope,
    …" (no repeated contract id), cut with … at the column's end, the highlighted one
    whole on the line(s) under them; over the page at 80 columns, beside it (the page
    keeping 60 cells) at 120."""
    _check(snap_compare, tdrs_world, size, ["2", contract_contents])


@pytest.mark.parametrize("size", SIZES)
def test_hafiza_contents_whole_heading(
    snap_compare, tdrs_world: TuiWorld, size: tuple[int, int]
) -> None:  # noqa: ANN001
    """The contents on 2.1, cut in its row: the lines under the tree show "2.1 — Scope,
    Expectations, Anticipated Period of Performance, Estimated Cost, and Ceiling Amount ›
    Scope" whole, its later lines under the title (issue 34, desk34f)."""
    _check(snap_compare, tdrs_world, size, ["2", contract_contents, *["down"] * 8])


@pytest.mark.parametrize("size", SIZES)
def test_talentmap_contents(snap_compare, talentmap_wiki_world, size) -> None:  # noqa: ANN001, F811
    """t on talentmap's whole contract read full-screen: every clause whole, "4 — TASKS",
    an unnumbered one by its title alone; over the page at 80 columns, beside it at 120."""
    _check(snap_compare, talentmap_wiki_world, size, [talentmap_contents])


@pytest.mark.parametrize("size", SIZES)
def test_hafiza_links(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """l in the reader: the page's wiki links, to follow from the keyboard."""
    _check(snap_compare, tui_world, size, ["2", "enter", "l"])


@pytest.mark.parametrize("size", SIZES)
def test_resolve_dispute_form(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """R on the disputed card of 3.2: the resolution form (no verdict chosen yet, a reason
    typed) over Hafıza."""
    _check(snap_compare, tui_world, size, ["2", "down", "R", "tab", "type:3.2 covers contractors"])


# --- Raporlar, help, palette, too small --------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
def test_raporlar(snap_compare, history_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """Raporlar: verdict bars, rulings and override rate over five days, clauses with
    the most corrections."""
    _check(snap_compare, history_world, size, ["3"])


def test_export_form(
    snap_compare,  # noqa: ANN001
    history_world: TuiWorld,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """e in Raporlar: the export form, its default name in the working directory (the
    project and the day), the whole path it writes to ("Writes to: ~/…": the working
    directory, a tmp folder, made the home folder so the drawing is the same each run),
    the hint saying the ending picks the format, the footer's Esc (issue 35 item 3)."""
    monkeypatch.setenv("HOME", str(history_world.tmp))
    _check(snap_compare, history_world, (80, 24), ["3", "e"])


@pytest.mark.parametrize("size", SIZES)
def test_bulk_marks(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """Space on three cases: * before each marked id, the count in the filter line."""
    _check(snap_compare, tui_world, size, ["space", "space", "space"])


@pytest.mark.parametrize("size", SIZES)
def test_bulk_confirm(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """B with three cases marked, the third one the engine is not sure of: one
    confirmation listing the two sure ones (count, ids, verdicts, titles), a line saying
    one is left for a careful look, focus on Cancel."""
    _check(snap_compare, tui_world, size, ["space", "space", "space", "B"])


def test_assign_picker(snap_compare, tui_world: TuiWorld) -> None:  # noqa: ANN001
    """t on the first case, once ayse has it: the project's approvers (the viewer vera is
    not offered), "you" beside the acting reviewer, "assigned now" beside ayse, and
    Nobody to end it (issue 35 item 5)."""
    tui_world.desk.assign(tui_world.desk.queue(tui_world.project_id)[0].case_id, "ayse")
    _check(snap_compare, tui_world, (80, 24), ["T"])


def test_saved_views(snap_compare, tui_world: TuiWorld) -> None:  # noqa: ANN001
    """V with the mine filter on: the name box (focused: a name typed goes there), what
    it would save, and the saved views of the config file (a Turkish name, each with its
    filters as the filter line says them) (issue 35 item 5)."""
    from etki_tui.config import TuiConfig, save_view

    views = {
        "Benim işlerim": {"mine": True, "sureness": "unsure"},
        "Ödeme CR'ları": {"verdict": "CHANGE_REQUEST", "text": "module:payments", "sort": "risk"},
        "by Jürgen": {"text": "by:jurgen"},
    }
    path = tui_world.tmp / "config.yaml"
    for name, fields in views.items():  # V reads them from the file as it is then
        save_view(path, name, fields)
    _check(snap_compare, tui_world, (80, 24), ["M", "V"], config=TuiConfig(path))


@pytest.mark.parametrize("size", SIZES)
def test_help(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """? on the queue: its keys, what they do and their binding ids."""
    _check(snap_compare, tui_world, size, ["question_mark"])


@pytest.mark.parametrize("size", SIZES)
def test_new_request_form(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """n: the new-request form over the queue, focus in the title, submitter filled in."""
    _check(snap_compare, tui_world, size, ["n", "type:Randevu ekranı"])


@pytest.mark.parametrize("size", SIZES)
def test_new_request_discard(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """A title typed, then Esc: the form asks before discarding it, Keep editing focused
    (issue 34 item 5)."""
    _check(snap_compare, tui_world, size, ["n", "type:Randevu ekranı", "escape"])


@pytest.mark.parametrize("size", SIZES)
def test_reason_kept_notice(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """An override reason typed, another reviewer rules the case, Enter closes the
    dialog: the notice keeps the reason, literal, until closed (issue 34 item 5)."""
    _check(snap_compare, tui_world, size, ["r", "type:Nicht im Umfang", ruled_by_ayse, "enter"])


@pytest.mark.parametrize("size", SIZES)
def test_memory_strip_rulings(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """The disputed case read full-screen at its clause memory: each ruling of 3.2 with
    who, what, which case and why it counts (issue 34 item 4)."""
    _check(snap_compare, tui_world, size, ["enter", scroll_detail_to("Clause memory")])


@pytest.mark.parametrize("size", SIZES)
def test_note_form(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """m: the note form over the queue, a note typed (issue 14 item 4)."""
    _check(snap_compare, tui_world, size, ["m", "type:Called the client"])


def test_import_form(snap_compare, tui_world: TuiWorld) -> None:  # noqa: ANN001
    """i: the import form over the queue at 80x24, what it reads said above the framed
    path box, a path under ~ typed (issue 35 item 4)."""
    _check(snap_compare, tui_world, (80, 24), ["i", "type:~/İndirilenler/talepler.csv"])


def test_estimate_form(snap_compare, tui_world: TuiWorld) -> None:  # noqa: ANN001
    """E: the estimate form over the queue at 80x24, days, a price in lira and a Turkish
    reason typed (issue 35 item 2)."""
    _check(
        snap_compare,
        tui_world,
        (80, 24),
        ["E", "type:4,5", "tab", "type:86500 TRY", "tab", "type:İki geliştirici, Jürgen Weiß"],
    )


@pytest.mark.parametrize("size", SIZES)
def test_confirm_amend(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """A, the newest ruling (REJECT by jurgen), then Approve: the amend dialog, the
    ruling in force shown, a reason required (issue 14 item 2)."""
    _check(snap_compare, tui_world, size, ["A", "enter", "enter"])


@pytest.mark.parametrize("size", SIZES)
def test_palette(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """Ctrl+P with 'sso': the cases whose title has it (pending first), matches marked."""
    _check(snap_compare, tui_world, size, ["ctrl+p", "type:sso"])


@pytest.mark.parametrize(
    "size", [pytest.param((60, 20), id="60x20"), pytest.param((100, 23), id="100x23")]
)
def test_too_small(snap_compare, tui_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """Below 80x24 (too narrow, or one row short) the desk is covered by a notice."""
    _check(snap_compare, tui_world, size)


# --- a 16-colour terminal and NO_COLOR -----------------------------------------------------

STANDARD = [
    pytest.param(["enter"], id="detail"),
    pytest.param(["r", "enter", "enter"], id="confirm"),
    pytest.param([ruled_by_ayse], id="banner"),
    pytest.param(["2", "slash", "type:contractor", "enter"], id="hafiza"),
    pytest.param(["question_mark"], id="help"),
]


@pytest.mark.parametrize("steps", STANDARD)
def test_standard_colours(snap_compare, tui_world: TuiWorld, steps: list[Step]) -> None:  # noqa: ANN001
    """TEXTUAL_COLOR_SYSTEM=standard: the desk switches to the ANSI theme; verdicts,
    risk, disputed clauses and the banner still read by glyph and word."""
    _check(snap_compare, tui_world, (80, 24), steps, color_system="standard")


def test_standard_colours_raporlar(snap_compare, history_world: TuiWorld) -> None:  # noqa: ANN001
    """The charts in 16 colours: agreed and overridden differ by glyph, not only hue."""
    _check(snap_compare, history_world, (80, 24), ["3"], color_system="standard")


@pytest.mark.parametrize(
    "steps", [pytest.param([], id="queue"), pytest.param(["r", "enter", "enter"], id="confirm")]
)
def test_no_color(
    snap_compare,
    tui_world: TuiWorld,
    steps: list[Step],  # noqa: ANN001
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """NO_COLOR: everything in grey levels; meaning survives (✓/+/✗ words, !, OVERRIDE)."""
    monkeypatch.setenv("NO_COLOR", "1")
    _check(snap_compare, tui_world, (80, 24), steps)


def converted(pilot: Pilot) -> None:
    """A step: ayse converts the first demo case to CR (the X form's case)."""
    app = pilot.app
    assert isinstance(app, EtkiApp)
    approval_service(app.desk.repo, app.desk.settings).rule(
        "req-demo-0a1f3c21", "convert_to_cr", reason="Yeni bir yetenek.", reviewer="ayse"
    )
    app.poll_queue()


@pytest.mark.parametrize(
    "steps",
    [
        pytest.param(["E", "type:4,5", "tab", "type:86500 TRY"], id="estimate"),
        pytest.param([converted, "X", *["tab"] * 4], id="cr_format"),
        pytest.param([converted, "X", *["tab"] * 6], id="cr_appendix"),
        pytest.param([converted, "X", *["tab"] * 8], id="cr_export"),
    ],
)
def test_no_color_form_focus(
    snap_compare,
    tui_world: TuiWorld,
    steps: list[Step],  # noqa: ANN001
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """NO_COLOR in the E and X forms: the focused field or button reads without colour
    (a heavy border, or a heavy left edge on the estimate's borderless rows), not by
    bold alone (a PMO trial of issue 35)."""
    monkeypatch.setenv("NO_COLOR", "1")
    _check(snap_compare, tui_world, (80, 24), steps)


# --- issue 34 items 2 and 3: the evidence first, folded clauses, the whole contract ------

TALENTMAP_DIR = TDRS_DIR.parent / "talentmap"
WEIGHED_CASE = "req-talentmap-cb63d08d"
"""Decided on PWS section 11, whose own exclusion the engine weighed; the closest
exclusion is in section 4, which is hundreds of lines long."""


@pytest.fixture(scope="session")
def _talentmap_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from etki.services import init_project

    folder = tmp_path_factory.mktemp("tui-talentmap")
    world = open_tui_world(folder, wiki=False)
    init_project(TALENTMAP_DIR, world.repo, world.settings)
    world.repo.dispose()
    return folder


@pytest.fixture
def talentmap_world(_talentmap_template: Path, tmp_path: Path):  # noqa: ANN201
    """The real talentmap engagement, loaded with ``init_project`` (frozen clock, wiki off)."""
    shutil.copytree(_talentmap_template, tmp_path, dirs_exist_ok=True)
    world = open_tui_world(tmp_path, wiki=False)
    world.project_id = "talentmap"
    yield world
    world.repo.dispose()


def to_case(case_id: str) -> Callable[[Pilot], Awaitable[None]]:
    """A step that moves the queue's cursor down to ``case_id``."""

    async def run(pilot: Pilot) -> None:
        from tests.test_tui_pilot import goto

        await goto(pilot, case_id)

    return run


needs_talentmap = pytest.mark.skipif(
    not TALENTMAP_DIR.is_dir(), reason="../shared/realdata/talentmap is absent"
)


@needs_talentmap
@pytest.mark.parametrize("size", SIZES)
def test_detail_evidence_first(
    snap_compare, talentmap_world: TuiWorld, size: tuple[int, int]
) -> None:  # noqa: ANN001
    """A talentmap case read full-screen: right under the fields, the Evidence section
    quotes the deciding clause (11), the exclusion of 11 the engine weighed and the
    closest exclusion (in section 4), each styled as it is marked in its clause."""
    _check(snap_compare, talentmap_world, size, [to_case(WEIGHED_CASE), "enter"])


@needs_talentmap
@pytest.mark.parametrize("size", SIZES)
def test_detail_folded_clause(
    snap_compare, talentmap_world: TuiWorld, size: tuple[int, int]
) -> None:  # noqa: ANN001
    """The same case scrolled to its cited clauses: section 11 folded to the paragraph
    with its weighed exclusion (underlined), section 4 to the closest exclusion, each
    with the lines left out above and below and the key (w) that shows them."""
    _check(
        snap_compare,
        talentmap_world,
        size,
        [to_case(WEIGHED_CASE), "enter", scroll_detail_to("Cited clauses")],
    )


@needs_talentmap
@pytest.mark.parametrize("size", SIZES)
def test_detail_lead_in_exclusion(
    snap_compare, talentmap_world: TuiWorld, size: tuple[int, int]
) -> None:  # noqa: ANN001
    """A talentmap case whose weighed exclusion is the lead-in “The Contractor will not be
    responsible to perform the following:”: quoted with the two things it excludes, one
    a line, inside the quotation marks (a later trial saw only the lead-in)."""
    _check(
        snap_compare,
        talentmap_world,
        size,
        [to_case("req-talentmap-a27970ef"), "enter", scroll_detail_to("Evidence")],
    )


@needs_talentmap
@pytest.mark.parametrize("size", SIZES)
def test_contract_at_clause(snap_compare, talentmap_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """l, then section 4 (the second entry): the whole PWS from the store, every clause in
    order, scrolled to section 4 and framed."""

    async def landed(pilot: Pilot) -> None:
        from etki_tui.screens.contract import ContractScreen
        from tests.test_tui_pilot import until

        screen = pilot.app.screen
        assert isinstance(screen, ContractScreen)
        await until(pilot, lambda: screen.landed == "talentmap-pws#4", "section 4")

    _check(
        snap_compare, talentmap_world, size, [to_case(WEIGHED_CASE), "l", "down", "enter", landed]
    )


@pytest.mark.skipif(not TDRS_DIR.is_dir(), reason="../shared/realdata/tdrs is absent")
@pytest.mark.parametrize("size", SIZES)
def test_contract_clause_list(snap_compare, tdrs_world: TuiWorld, size: tuple[int, int]) -> None:  # noqa: ANN001
    """l on the tdrs case: the clauses it cites and quotes, the deciding one first."""
    _check(snap_compare, tdrs_world, size, ["l"])


def test_cr_export_form_over_a_config_warning(snap_compare, tui_world: TuiWorld) -> None:  # noqa: ANN001
    """X on a case converted to CR, at 80x24, with a Config warning toasted at start:
    the form whole (assumptions and exclusions side by side, the clauses it cites with
    the engine's marked, the date and format, the file, the appendix box beside Cancel
    and Export) and no toast over it (a second PMO trial of issue 35)."""
    from etki_tui.config import TuiConfig

    warning = "keymap: 'frobnicate' is not an action id; the key is ignored"
    _check(
        snap_compare,
        tui_world,
        (80, 24),
        [converted, "X"],
        config=TuiConfig(warnings=(warning,)),
    )


@pytest.mark.skipif(not TDRS_DIR.is_dir(), reason="../shared/realdata/tdrs is absent")
def test_reader_at_clause(snap_compare, tdrs_world: TuiWorld) -> None:  # noqa: ANN001
    """Hafıza, the tdrs contract page opened at 9.6.2 (past the old 50,000-character
    cut, issue 34 item 3) as a search hit opens it: the heading on the reader's first
    row, the rest of the page laid out below."""

    async def at_clause(pilot: Pilot) -> None:
        from etki_tui.hafiza.pane import MemoryPane

        pane = pilot.app.query_one(MemoryPane)
        anchor = "tdrs-rfq%239.6.2"
        pane.open_page(f"entities/contracts/tdrs-rfq.md#{anchor}")
        await until(pilot, lambda: pane.reader.landed == anchor, "the landing on 9.6.2")
        await until(pilot, lambda: pane.reader.whole_shown, "every part laid out")

    _check(snap_compare, tdrs_world, (80, 24), ["2", at_clause])
