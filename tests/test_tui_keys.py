"""Who and where, focus and keys on the reviewer desk (issue 12 items 5 and 6, and three
pieces of item 7), driven with Textual's Pilot on real stores: SQLite files, the real
PostgreSQL on 127.0.0.1:5432 (skipped cleanly when absent), real project folders loaded
with ``init_project`` (sample_project's own etki.yaml, the tdrs engagement from
../shared/realdata). Nothing is mocked; every wait is for a state (workers done).
"""

from __future__ import annotations

import json
import os
import shutil
import unicodedata
from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import Button, Footer, Input, Label, TextArea

from etki.config import Settings
from etki.services import Desk, init_project
from etki.store import CaseFileRepository
from etki_tui.app import EtkiApp
from etki_tui.header import DeskHeader, StatusLine, header_text
from etki_tui.queue.bars import CaseDetail
from etki_tui.queue.pane import CURSOR_MARK, QueueTable
from etki_tui.screens.confirm import ConfirmRuling
from etki_tui.screens.help import HelpScreen
from etki_tui.screens.new_request import NewRequestForm
from tests.conftest import REPO_ROOT, TuiWorld, build_tui_world, tui_clock, tui_project
from tests.pg import Schema
from tests.test_tui_pilot import (
    Recorder,
    current,
    make_app,
    opened,
    press,
    queue_ids,
    settle,
    settled_app,
    shown,
    sync,
    until,
)

FIRST = "req-demo-0a1f3c21"  # IN_SCOPE
SAMPLE = REPO_ROOT / "sample_project"
REALDATA = (
    Path(os.environ["ETKI_REALDATA_DIR"])
    if os.environ.get("ETKI_REALDATA_DIR")
    else next(
        (
            a / "shared" / "realdata"
            for a in REPO_ROOT.parents
            if (a / "shared" / "realdata").is_dir()
        ),
        None,
    )
)
TDRS = REALDATA / "tdrs" if REALDATA is not None else None


def header(app: EtkiApp) -> str:
    """The header line as drawn (surrounding blanks removed)."""
    return shown(app.query_one(DeskHeader), height=1).strip()


def desk_app(desk: Desk, project_id: str, **options: object) -> EtkiApp:
    return EtkiApp(
        desk,
        project_id,
        cursor_blink=False,
        search_delay=3600,
        poll_seconds=0,
        clock=tui_clock,
        preview_delay=0,
        **options,
    )  # type: ignore[arg-type]


def notes(seen: Recorder) -> list[str]:
    return seen.notes()


# --- item 5: who and where ------------------------------------------------------------


@sync
async def test_header_names_reviewer_role_and_sqlite_store(tui_world: TuiWorld) -> None:
    path = tui_world.tmp / "etki.db"
    async with settled_app(tui_world, (160, 40)) as (app, pilot):
        line = header(app)
        assert line == (
            f"Etki — Kentpark e-Services (test) (demo) · reviewer · approver · sqlite {path}"
        )
    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        line = header(app)
        # 72 cells beside the icon: the name gives way to the id, the path keeps its end
        assert line.startswith("Etki — demo · reviewer · approver · sqlite ")
        assert line.endswith("/etki.db") and len(line) <= 72
        assert str(path).endswith(line.rsplit("sqlite ", 1)[1].removeprefix("…"))
        assert not app.query_one("#readonly-banner").display
        assert all(app.screen.active_bindings[key].enabled for key in ("a", "c", "r"))


def test_header_text_shortens_a_long_sqlite_path_from_the_left() -> None:
    from etki.services import Seat

    seat = Seat("Ayşe Yılmaz", "approver", True)
    store = "sqlite /srv/etki/engagements/kentpark-municipality/2026/.etki/etki.db"
    full = header_text("Etki", "Kentpark Municipality e-Services Portal", "demo", seat, store, 200)
    assert full == (
        f"Etki — Kentpark Municipality e-Services Portal (demo) · Ayşe Yılmaz · approver · {store}"
    )
    at80 = header_text("Etki", "Kentpark Municipality e-Services Portal", "demo", seat, store, 72)
    assert at80 == "Etki — demo · Ayşe Yılmaz · approver · sqlite …/2026/.etki/etki.db"
    narrow = header_text("Etki", "x", "demo", seat, store, 50)
    assert narrow == "demo · Ayşe Yılmaz · approver · sqlite …/etki.db"  # title dropped
    long_name = Seat("Bärbel Müller-Şahin von Hohenzollern-Sigmaringen", "viewer", False)
    cut = header_text("Etki", "x", "demo", long_name, store, 60)
    assert cut == "demo · Bärbel Müller-Şahin von … · viewer · sqlite …/etki.db"
    assert len(cut) <= 60


@pytest.mark.postgres
@sync
async def test_header_names_the_postgres_store_without_its_password(
    tmp_path: Path, pg_schema: Schema
) -> None:
    url = (
        f"postgresql+psycopg://postgres:s3cret-pw@127.0.0.1:5432/test"
        f"?options=-csearch_path%3D{pg_schema.name}"
    )
    repo = CaseFileRepository(url, clock=tui_clock)
    try:
        repo.save_project(tui_project(), "sha256:tui", b"{}\n")
        settings = Settings(db_url=url, wiki_dir=None, reviewer="ayse")
        app = desk_app(Desk(settings, repo), "demo")
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            line = header(app)
            assert line.endswith(" · ayse · approver · postgres 127.0.0.1:5432/test")
            screen = "\n".join(shown(w) for w in app.screen.query("*") if w.display)
            assert "s3cret-pw" not in line and "s3cret-pw" not in screen
            assert "search_path" not in line and "postgres:" not in line
    finally:
        repo.dispose()


@pytest.fixture(scope="module")
def sample_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sample_project (its own etki.yaml: three approvers, two viewers) loaded once into
    a SQLite file; tests copy it."""
    if not (SAMPLE / "etki.yaml").is_file():
        pytest.skip("sample_project absent")
    folder = tmp_path_factory.mktemp("sample-store")
    settings = Settings(db_url=f"sqlite:///{folder}/etki.db", wiki_dir=None, reviewer="reviewer")
    repo = CaseFileRepository(settings.db_url)
    init_project(SAMPLE, repo, settings)
    repo.dispose()
    return folder


@pytest.mark.parametrize(
    ("reviewer", "role", "why"),
    [
        pytest.param(
            unicodedata.normalize("NFD", "Bärbel Müller-Şahin"),
            "viewer",
            "are a viewer of demo, not an approver",
            id="viewer-nfd",
        ),
        pytest.param(
            "[bold]mallory[/bold]", "not listed", "are not a reviewer of demo", id="unlisted-markup"
        ),
    ],
)
@sync
async def test_a_non_approver_gets_a_read_only_desk_from_the_start(
    sample_store: Path, tmp_path: Path, reviewer: str, role: str, why: str
) -> None:
    shutil.copytree(sample_store, tmp_path, dirs_exist_ok=True)
    settings = Settings(db_url=f"sqlite:///{tmp_path}/etki.db", wiki_dir=None, reviewer=reviewer)
    repo = CaseFileRepository(settings.db_url)
    name = unicodedata.normalize("NFC", reviewer)
    seen = Recorder()
    app = desk_app(Desk(settings, repo), "demo")
    try:
        async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
            await settle(pilot)
            assert f" · {name} · {role} · " in header(app)  # NFC, literal, never markup
            # 24 rows: no banner over the list (15 rows), READ-ONLY leads the header and
            # the status line says why (the messages view keeps it)
            banner = app.query_one("#readonly-banner")
            assert not banner.display and header(app).startswith("READ-ONLY ")
            assert app.query_one(QueueTable).region.height >= 16  # the header and 15 rows
            status = app.query_one(StatusLine)
            [(_, _, title, why_said)] = [e for e in status.entries if e[2] == "READ-ONLY"]
            assert why_said.startswith(f"You {why}.") and "etki.yaml" in why_said
            assert status.said.startswith(f"READ-ONLY: You {why}.")
            # from 30 rows the banner has its own two lines again, right under the header
            await pilot.resize_terminal(80, 30)
            await until(pilot, lambda: banner.display, "the banner")
            await settle(pilot)
            assert banner.region.y == 1 and not header(app).startswith("READ-ONLY")
            said = " ".join(shown(banner).replace("█", " ").split())  # no border
            assert said.startswith(f"READ-ONLY You {why}.")
            assert "etki.yaml" in said and "etki init PROJECT_DIR --update-reviewers" in said
            assert banner.size.height <= 2  # two lines at 80 columns
            await pilot.resize_terminal(80, 24)
            await until(pilot, lambda: not banner.display, "the banner folded away")
            pending = queue_ids(app)
            assert pending
            for key in ("a", "c", "r"):  # not in the footer: nothing this seat can do
                assert key not in app.screen.active_bindings
            footer = shown(app.query_one(Footer))
            assert "Approve" not in footer and "Reject" not in footer and "Convert" not in footer
            for key in ("a", "c", "r"):
                seen.clear()
                await press(pilot, key)
                await settle(pilot)
                assert not isinstance(app.screen, ConfirmRuling)
                [note] = [n for n in notes(seen) if n.startswith("Read-only desk")]
                assert name in note and "nothing was recorded" in note
                assert "ETKI_REVIEWER" in note and "--update-reviewers" in note
            assert queue_ids(app) == pending
        cases = repo.cases("demo", status=None)
        assert cases and all(c.ruling is None for c in cases)
        assert all(repo.audit_log(c.case_id) == [] for c in cases)  # not even an attempt
    finally:
        repo.dispose()


# --- item 6: focus and keys ------------------------------------------------------------


@sync
async def test_escape_from_the_full_screen_read_returns_focus_to_the_queue(
    tui_world: TuiWorld,
) -> None:
    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        table = app.query_one(QueueTable)
        detail = app.query_one(CaseDetail)
        await press(pilot, "enter")
        assert app.screen.maximized is detail
        assert app.focused is detail
        await press(pilot, "pagedown", "pagedown")
        await until(pilot, lambda: detail.scroll_y > 0, "the reader scrolled")
        await press(pilot, "escape")
        await settle(pilot)
        assert app.screen.maximized is None and app.focused is table
        assert detail.scroll_y == 0  # back at the top: the strip and the verdict show
        await press(pilot, "down")  # the arrows move the queue again, not the detail
        assert current(app) == queue_ids(app)[1]
        await press(pilot, "enter", "enter")  # Enter toggles back too
        await settle(pilot)
        assert app.screen.maximized is None and app.focused is table


@sync
async def test_home_end_j_k_g_G_move_the_queue_cursor(tui_world: TuiWorld) -> None:
    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        ids = queue_ids(app)
        assert len(ids) == 6 and current(app) == ids[0]
        for key, want in (
            ("j", 1),
            ("j", 2),
            ("k", 1),
            ("end", 5),
            ("home", 0),
            ("G", 5),
            ("k", 4),
            ("g", 0),
        ):
            await press(pilot, key)
            await settle(pilot)
            assert current(app) == ids[want], key
            detail = app.query_one(CaseDetail)
            assert f"Case {want + 1} of 6 · {ids[want]}" in str(detail.border_title)
        # a page is the rows the table shows below its header (at least 4 here: its
        # minimum height is 5 lines); it stops at the last and the first row
        page = app.query_one(QueueTable).scrollable_content_region.height - 1
        assert page >= 4
        for key, want in (
            ("pagedown", min(page, 5)),
            ("pagedown", 5),
            ("pageup", max(0, 5 - page)),
            ("pageup", 0),
        ):
            await press(pilot, key)
            await settle(pilot)
            assert current(app) == ids[want], key


def _engagement_desk(folder: Path | None, tmp: Path) -> Desk:
    """A desk on a real engagement folder loaded with ``init_project`` into a SQLite
    store in ``tmp`` (wiki off); skips when the folder is absent."""
    if folder is None or not (folder / "etki.yaml").is_file():
        pytest.skip(f"{folder} absent (set ETKI_REALDATA_DIR)")
    settings = Settings(db_url=f"sqlite:///{tmp}/etki.db", wiki_dir=None, reviewer="reviewer")
    repo = CaseFileRepository(settings.db_url)
    init_project(folder, repo, settings)
    return Desk(settings, repo)


async def _find_keeps(desk: Desk, project: str, query: str, want: set[str]) -> None:
    """Type ``query`` into the queue's find box and check exactly ``want`` is listed,
    and the filter line says so."""
    app = desk_app(desk, project)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        everything = set(queue_ids(app))
        assert len(everything) == len(desk.repo.cases(project))
        await press(pilot, "slash")
        field = app.focused
        assert isinstance(field, Input)
        field.value = query
        await settle(pilot)
        assert set(queue_ids(app)) == want, query
        summary = " ".join(shown(app.query_one("#filter-summary"), 116, 1).split())
        assert f"{len(want)} of {len(everything)}" in summary


@pytest.fixture(scope="module")
def tdrs_world(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    """The tdrs engagement (real contract and requests)."""
    desk = _engagement_desk(TDRS, tmp_path_factory.mktemp("tdrs"))
    yield desk
    desk.repo.dispose()


def _citing(desk: Desk, number: str, project: str = "tdrs") -> set[str]:
    """Pending cases of ``project`` whose stored decision cites clause ``number`` or a
    sub-clause of it, read straight from the store's cases."""
    found = set()
    for case in desk.repo.cases(project):
        numbers = [ref.split("#", 1)[1] for ref in case.decision.cited_clauses]
        if any(n == number or n.startswith(f"{number}.") for n in numbers):
            found.add(case.case_id)
    return found


@pytest.mark.parametrize(
    "query", ["4.4", "9.2", "3.1", "3.1.2", "2.1", "5.1", "tdrs-rfq#2.2", "TDRS-RFQ#3.1.1"]
)
@sync
async def test_find_a_clause_number_matches_the_cases_citing_it(
    tdrs_world: Desk, query: str
) -> None:
    want = _citing(tdrs_world, query.rsplit("#", 1)[-1])
    await _find_keeps(tdrs_world, "tdrs", query, want)


@pytest.fixture(scope="module")
def talentmap_world(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    """The talentmap engagement (a PWS whose sections are whole numbers: #1 ... #12)."""
    folder = REALDATA / "talentmap" if REALDATA is not None else None
    desk = _engagement_desk(folder, tmp_path_factory.mktemp("talentmap"))
    yield desk
    desk.repo.dispose()


@pytest.mark.parametrize("query", ["#4", "talentmap-pws#4", "#1", "#11"])
@sync
async def test_find_a_whole_section_number_after_hash(talentmap_world: Desk, query: str) -> None:
    """talentmap's sections are whole numbers; ``#4`` (or ``talentmap-pws#4``) keeps
    exactly the cases citing section 4 (a fresh reviewer's ``/talentmap-pws#4`` matched
    15 where 14 cite it: the token was matched as text). A bare ``4`` stays a word."""
    want = _citing(talentmap_world, query.rsplit("#", 1)[-1], "talentmap")
    assert want, query
    await _find_keeps(talentmap_world, "talentmap", query, want)


def test_clause_numbers_match_whole_parts_only() -> None:
    from etki_tui.queue.filters import clause_token

    assert clause_token("4.4") == (None, "4.4")
    assert clause_token("MSA-2024-01#4.4") == ("msa-2024-01", "4.4")
    assert clause_token("4") is None and clause_token("v2.0") is None


@sync
async def test_find_clause_number_does_not_match_other_numbers(tmp_path: Path) -> None:
    """4.1 never matches 14.1 or 4.10; 4.1 matches its sub-clause 4.1.2."""
    from etki.domain import Request
    from tests.conftest import tui_decision

    world = build_tui_world(tmp_path, wiki=False)
    world.repo.add_cases(
        "demo",
        [
            (
                Request("X1", "a", "cites 14.1"),
                tui_decision(
                    "req-demo-x0000001", "IN_SCOPE", ("MSA-2024-01#14.1",), confidence=0.7
                ),
            ),
            (
                Request("X2", "b", "cites 4.10"),
                tui_decision(
                    "req-demo-x0000002", "IN_SCOPE", ("MSA-2024-01#4.10",), confidence=0.7
                ),
            ),
            (
                Request("X3", "c", "cites 4.1.2"),
                tui_decision(
                    "req-demo-x0000003", "IN_SCOPE", ("MSA-2024-01#4.1.2",), confidence=0.7
                ),
            ),
        ],
    )
    app = make_app(world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "slash")
        field = app.focused
        assert isinstance(field, Input)
        field.value = "4.1"
        await settle(pilot)
        assert set(queue_ids(app)) == {
            "req-demo-2c4a8e13",
            "req-demo-3d5b0f24",
            "req-demo-x0000003",
        }
    world.repo.dispose()


@sync
async def test_an_agreeing_ruling_confirms_with_y(tui_world: TuiWorld) -> None:
    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        await press(pilot, "a")  # FIRST is IN_SCOPE: approving agrees
        modal = app.screen
        assert isinstance(modal, ConfirmRuling) and not modal.is_override
        assert app.focused is modal.query_one("#confirm-ok")
        await press(pilot, "question_mark")  # ? on the button is help, not reason text
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        await press(pilot, "escape")
        await until(pilot, lambda: app.screen is modal, "the dialog again")
        assert modal.query_one("#confirm-reason", Input).value == ""
        await press(pilot, "y")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmRuling)
        assert FIRST not in queue_ids(app)
    ruling = tui_world.repo.case(FIRST).ruling
    assert ruling is not None and ruling.ruling == "IN_SCOPE" and not ruling.is_override


@sync
async def test_an_override_never_confirms_by_default(tui_world: TuiWorld) -> None:
    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        await press(pilot, "r")  # REJECT on an IN_SCOPE verdict: an override
        modal = app.screen
        assert isinstance(modal, ConfirmRuling) and modal.is_override
        reason = modal.query_one("#confirm-reason", Input)
        assert app.focused is reason
        await press(pilot, "y")  # typed into the reason box, not a confirmation
        assert reason.value == "y" and app.screen is modal
        reason.value = ""
        await press(pilot, "tab")  # to Cancel
        await press(pilot, "y")  # outside the box: says what is needed, rules nothing
        await settle(pilot)
        assert app.screen is modal and app.focused is reason
        said = str(modal.query_one("#confirm-error", Label).content)
        assert "needs a reason" in said
        await press(pilot, "escape")
        await settle(pilot)
    assert tui_world.repo.case(FIRST).ruling is None


# --- item 7: help, the conflict warning, NO_COLOR ---------------------------------------


@sync
async def test_help_describes_the_queue_order_the_queue_has(tmp_path: Path) -> None:
    """requests.jsonl lists the newest request first: the queue keeps the file's order
    (what help says), and ``o`` sorts oldest first by submission date."""
    folder = tmp_path / "order"
    (folder / "contracts").mkdir(parents=True)
    (folder / "etki.yaml").write_text(
        "id: order\nname: Order test\nreviewers:\n  - name: reviewer\n    role: approver\n",
        encoding="utf-8",
    )
    (folder / "contracts" / "sow.md").write_text(
        "# Statement of work\n\n## 1 Portal\n\nThe contractor builds the citizen portal "
        "with online payments.\n\n## 2 Exclusions\n\nNative mobile apps are out of "
        "scope.\n",
        encoding="utf-8",
    )
    rows = [
        ("R-3", "2026-11-03", "Payments page shows an error"),
        ("R-1", "2026-11-01", "Build a native mobile app"),
        ("R-2", "2026-11-02", "Portal login is slow"),
    ]
    (folder / "requests.jsonl").write_text(
        "".join(
            json.dumps({"id": rid, "title": title, "text": title, "submitted_at": day}) + "\n"
            for rid, day, title in rows
        ),
        encoding="utf-8",
    )
    settings = Settings(db_url=f"sqlite:///{tmp_path}/etki.db", wiki_dir=None, reviewer="reviewer")
    repo = CaseFileRepository(settings.db_url)
    init_project(folder, repo, settings)
    desk = Desk(settings, repo)
    by_request = {c.request_id: c.case_id for c in repo.cases("order")}
    app = desk_app(desk, "order")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert queue_ids(app) == [by_request[r] for r, _, _ in rows]  # the file's order
        await press(pilot, "question_mark")
        await settle(pilot)
        body = " ".join(shown(app.screen.query_one("#help-body"), 96, 80).split())
        assert "Pending cases in queue order: the order they were loaded in" in body
        assert "oldest first, with" not in body
        await press(pilot, "escape", "o")  # queue order -> oldest first
        await settle(pilot)
        assert queue_ids(app) == [by_request[r] for r in ("R-1", "R-2", "R-3")]
    repo.dispose()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@sync
async def test_the_dialogs_conflict_warning_is_shown_whole(
    tui_world: TuiWorld, size: tuple[int, int]
) -> None:
    from etki.services import approval_service

    async with settled_app(tui_world, size) as (app, pilot):
        modal = await opened(pilot, "a", ConfirmRuling)
        approval_service(tui_world.repo, tui_world.settings).rule(
            FIRST, "reject", reason="Out of remit.", reviewer="ayse"
        )
        app.poll_queue()
        await settle(pilot)
        label = modal.query_one("#confirm-error", Label)
        dialog = modal.query_one("#confirm-dialog")
        assert label.region.right <= dialog.content_region.right  # nothing cut off
        said = " ".join(shown(label).split())
        assert said.startswith("! ALREADY RULED by ayse at 2026-11-29 12:00Z")
        assert said.endswith("Nothing you press here will be recorded; move to another case.")
        assert app.focused is modal.query_one("#confirm-cancel")  # Enter no longer rules
        hint = " ".join(shown(modal.query_one("#confirm-hint")).split())
        assert hint.startswith("Ruled meanwhile: nothing is recorded here")  # no "y: approve"
        assert "y:" not in hint and "Enter or y" not in hint


@sync
async def test_no_color_marks_the_selected_row(
    tui_world: TuiWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        table = app.query_one(QueueTable)
        for row in (0, 1, 3):
            table.move_cursor(row=row, animate=False)
            await settle(pilot)
            lines = shown(table).splitlines()[1:7]  # below the header row
            marked = [i for i, line in enumerate(lines) if line.startswith(CURSOR_MARK)]
            assert marked == [row]
            assert lines[row][1:].lstrip().startswith(queue_ids(app)[row][-8:])
    monkeypatch.delenv("NO_COLOR")
    plain = make_app(tui_world)  # colours on: reverse video and colour are enough
    async with plain.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert CURSOR_MARK not in shown(plain.query_one(QueueTable))


@sync
async def test_no_color_marks_the_highlighted_hafiza_entry(
    tui_world: TuiWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NO_COLOR strips the colours OptionList draws its highlight with: a trial found the
    Hafıza entry only bold. Its first line starts with the queue's cursor mark."""
    from textual.widgets import OptionList

    monkeypatch.setenv("NO_COLOR", "1")
    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        await pilot.press("2")
        await settle(pilot)
        entries = app.query_one("#memory-list", OptionList)
        entries.focus()
        for index in (1, 3):  # a precedent, a disputed clause (the headers are disabled)
            entries.highlighted = index
            await settle(pilot)
            lines = [line.lstrip("┃│ ") for line in shown(entries, height=24).splitlines()]
            marked = [line for line in lines if line.startswith(CURSOR_MARK)]
            assert len(marked) == 1, lines
            prompt = entries.get_option_at_index(index).prompt
            first = str(getattr(prompt, "plain", prompt)).split("\n", 1)[0].strip()
            assert marked[0][1:].strip().startswith(first[:12]), (marked, first)
    monkeypatch.delenv("NO_COLOR")
    plain = make_app(tui_world)  # colours on: the highlight's colours are enough
    async with plain.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        assert CURSOR_MARK not in shown(plain.query_one("#memory-list", OptionList), height=24)


@sync
async def test_a_click_highlights_a_row_and_a_second_click_opens_it(tui_world: TuiWorld) -> None:
    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        table = app.query_one(QueueTable)
        await pilot.click(QueueTable, offset=(4, 0))  # the header: nothing happens
        await settle(pilot)
        assert current(app) == queue_ids(app)[0] and app.screen.maximized is None
        await pilot.click(QueueTable, offset=(4, 3))  # the third row, below the header
        await settle(pilot)
        assert table.cursor_row == 2 and current(app) == queue_ids(app)[2]
        assert app.screen.maximized is None
        plain = table.render_line(5)
        await pilot.hover(QueueTable, offset=(4, 5))  # the pointer over the fifth row
        await settle(pilot)
        assert table.render_line(5) != plain and table.cursor_row == 2  # shown hovered
        await press(pilot, "left")  # a key hides the hover
        assert table.render_line(5) == plain
        await pilot.click(QueueTable, offset=(4, 3))  # the highlighted row: read it
        await settle(pilot)
        assert app.screen.maximized is app.query_one(CaseDetail)


def test_store_label_never_shows_credentials() -> None:
    from etki.services import store_label

    assert (
        store_label("postgresql+psycopg://ayse:s3cret@db.example:6543/etki?sslmode=x")
        == "postgres db.example:6543/etki"
    )
    assert store_label("postgresql://db.example/etki") == "postgres db.example/etki"
    assert store_label("sqlite:///.etki/etki.db") == "sqlite .etki/etki.db"
    assert store_label("sqlite://") == "sqlite (in memory)"
    assert store_label("not a url") == "unknown store"


def test_seat_roles(tui_world: TuiWorld) -> None:
    for who, role, may in (
        ("reviewer", "approver", True),
        ("vera", "viewer", False),
        ("nobody", "not listed", False),
    ):
        seat = Desk(replace(tui_world.settings, reviewer=who), tui_world.repo).seat("demo")
        assert (seat.reviewer, seat.role, seat.may_rule, seat.open) == (who, role, may, False)


@sync
async def test_tab_keys_faster_than_their_activations_end_on_the_last_tab(
    tui_world: TuiWorld,
) -> None:
    """2 3 1 pressed faster than the desk handles the tabs' activations (a fresh
    reviewer's burst in tmux ended on Raporlar 2 times of 3): the activations of
    Hafıza and Raporlar, handled after 1 chose the queue, must not focus their widgets
    (focusing a widget of a hidden tab switches back to it). Reproduced without timing:
    the three switches are made in one turn, so all three activations queue up."""
    from textual.widgets import TabbedContent

    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        tabs = app.query_one(TabbedContent)
        for tab in ("hafiza", "raporlar", "queue"):
            tabs.active = tab
        await settle(pilot)
        assert tabs.active == "queue"
        assert app.focused is not None and app.focused.id == "queue-table"


@sync
async def test_a_late_hafiza_activation_leaves_the_search_box_focused(tui_world: TuiWorld) -> None:
    """Letters typed in the search box while Hafıza's activation is still queued stay
    in the box: the activation does not move the focus to the list ('position' read
    'ition' for a fresh reviewer)."""
    from textual.widgets import TabbedContent

    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        app.query_one(TabbedContent).active = "hafiza"
        box = app.query_one("#memory-search", Input)
        box.focus()  # the reviewer clicked or tabbed into the box before the activation
        await settle(pilot)
        await press(pilot, *"position")
        assert box.value == "position" and app.focused is box


# --- an override reason is never lost ------------------------------------------------------


@sync
async def test_a_cancelled_override_keeps_its_reason_for_the_next_dialog(
    tui_world: TuiWorld,
) -> None:
    """Typed a reason, pressed Esc: the next dialog on that case opens with it (and
    another case's dialog does not); nothing was recorded."""
    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        first = queue_ids(app)[0]
        await press(pilot, "r", *"Kein Vertragsbestandteil", "escape")
        assert not isinstance(app.screen, ConfirmRuling)
        await press(pilot, "r")
        assert app.screen.query_one("#confirm-reason", Input).value == ("Kein Vertragsbestandteil")
        await press(pilot, "escape", "down", "r")
        assert app.screen.query_one("#confirm-reason", Input).value == ""
        await press(pilot, "escape")
    assert tui_world.repo.case(first).ruling is None


@sync
async def test_a_reason_for_one_ruling_never_prefills_another(tui_world: TuiWorld) -> None:
    """A trial: a reason typed for Reject and cancelled came back in the CR dialog of the
    same case, where two Enters would have recorded it. A draft belongs to its ruling."""
    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        first = queue_ids(app)[0]
        await press(pilot, "r", *"abc", "escape")
        await press(pilot, "c")  # convert to CR: another ruling, an empty box
        modal = app.screen
        assert isinstance(modal, ConfirmRuling) and modal.action == "convert_to_cr"
        assert modal.query_one("#confirm-reason", Input).value == ""
        await press(pilot, "escape", "r")  # back to Reject: its draft is there
        assert app.screen.query_one("#confirm-reason", Input).value == "abc"
        await press(pilot, "escape")
    assert tui_world.repo.case(first).ruling is None


@sync
async def test_enter_on_an_empty_reason_stays_and_typing_on_a_button_reaches_the_box(
    tui_world: TuiWorld,
) -> None:
    """A trial: Enter on an empty override reason moved the focus to the buttons and the
    letters typed next were lost; ``y`` there blamed a missing reason that was typed."""
    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        first = queue_ids(app)[0]
        await press(pilot, "r")
        modal = app.screen
        assert isinstance(modal, ConfirmRuling) and modal.is_override
        reason = modal.query_one("#confirm-reason", Input)
        await press(pilot, "enter")  # nothing typed: the box keeps the focus
        assert app.focused is reason and app.screen is modal
        assert "A reason is required" in str(modal.query_one("#confirm-error", Label).content)
        await press(pilot, *"Nicht im Umfang", "enter")  # typed: on to the ruling button
        ok = modal.query_one("#confirm-ok", Button)
        assert app.focused is ok
        await press(pilot, *",4.4")  # letters on the button go on into the reason
        assert app.focused is reason and reason.value == "Nicht im Umfang,4.4"
        await press(pilot, "enter", "y")  # y on an override: says which key rules
        assert app.screen is modal and app.focused is ok
        said = str(modal.query_one("#confirm-error", Label).content)
        assert "Enter on Reject records this one" in said
        await press(pilot, "enter")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmRuling)
    ruling = tui_world.repo.case(first).ruling
    assert ruling is not None and ruling.reason == "Nicht im Umfang,4.4"


@sync
async def test_a_conflicting_ruling_shows_the_reason_that_was_not_recorded(
    tui_world: TuiWorld,
) -> None:
    """Another reviewer ruled while the override dialog was open; the DB refuses this
    one: the conflict notice gives the typed reason back, literally."""
    from etki.services import approval_service
    from etki_tui.screens.notice import NoticeModal

    async with settled_app(tui_world, (120, 40)) as (app, pilot):
        first = queue_ids(app)[0]
        reason = "[bold]İade[/bold] süreci değil"
        await press(pilot, "r", *reason)
        approval_service(tui_world.repo, tui_world.settings).rule(first, "approve", reviewer="ayse")
        await press(pilot, "enter", "enter")  # to the button, then rule: refused by the DB
        modal = app.screen
        assert isinstance(modal, NoticeModal) and modal.id == "conflict"
        said = shown(modal.query_one("#notice-body"), 100, 20)
        assert "Your reason, not recorded:" in said and reason in said
    ruling = tui_world.repo.case(first).ruling
    assert ruling is not None and ruling.reviewer == "ayse"


# --- keys typed faster than the desk handles them ------------------------------------------


def _burst(app: EtkiApp, *keys: str) -> None:
    """Hand ``keys`` to the app at once, as a terminal does when they are typed faster
    than the desk handles them (each goes to the driver; none waits for the app)."""
    from textual import events

    for name in keys:
        char = {"slash": "/", "space": " ", "full_stop": "."}.get(name, name)
        key = events.Key(name, char if len(char) == 1 else None)
        key.set_sender(app)
        app._driver.send_message(key)  # type: ignore[union-attr]


@sync
async def test_backspace_keeps_its_place_among_fast_letters_in_the_find_box(
    tui_world: TuiWorld,
) -> None:
    """x y Backspace z typed in one burst: Backspace deletes the y (it ran after the z
    and deleted it when the box's bindings waited for the key to bubble to the app)."""
    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        await press(pilot, "slash")
        find = app.query_one("#queue-find", Input)
        _burst(
            app,
            "x",
            "y",
            "backspace",
            "z",
            "backspace",
            "backspace",
            "a",
            "b",
            "left",
            "c",
            "end",
            "d",
        )
        await settle(pilot)
        assert find.value == "acbd"


@sync
async def test_letters_right_after_slash_land_in_the_find_box(tui_world: TuiWorld) -> None:
    """'/3.2' in one burst filters the queue by the clause; the digits were handed to
    the table before the box had the focus and switched tabs (tdrs trial)."""
    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        _burst(app, "slash", "3", "full_stop", "2")
        await settle(pilot)
        assert app.query_one("#tabs").active == "queue"
        assert app.query_one("#queue-find", Input).value == "3.2"
        assert app.focused is app.query_one("#queue-find", Input)


@sync
async def test_letters_right_after_slash_land_in_the_wiki_search_box(tui_world: TuiWorld) -> None:
    """In Hafıza, '/GROESSE' with a Backspace in one burst: every letter in the box, in
    order; a '/' typed in the box is a character."""
    async with settled_app(tui_world, (120, 40)) as (app, pilot):
        await press(pilot, "2")
        box = app.query_one("#memory-search", Input)
        assert app.focused is not box
        _burst(app, "slash", *"GROESSX", "backspace", "E", "slash", "a")
        await settle(pilot)
        assert box.value == "GROESSE/a" and app.focused is box
        assert app.query_one("#tabs").active == "hafiza"


# --- the new-request form (issue 14 item 1) -----------------------------------------------


@sync
async def test_n_adds_a_request_that_joins_the_queue_triaged(tmp_path: Path) -> None:
    """n, a title, the text, Add on the sample project: the request is stored as etki add
    stores it (a pending case with the engine's decision for that text and title),
    submitted by the reviewer, and the queue shows it."""
    desk = _engagement_desk(SAMPLE, tmp_path)
    app = desk_app(desk, "demo")
    before = {c.case_id for c in desk.queue("demo")}
    text = "Müşteri paneline İstanbul şubesi için randevu ekranı istiyoruz"
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        form = await opened(pilot, "n", NewRequestForm)
        form.query_one("#intake-title", Input).value = "Randevu [bold]ekranı[/bold]"
        form.query_one("#intake-text", TextArea).text = text
        form.query_one("#intake-add", Button).press()
        await settle(pilot)
        assert not isinstance(app.screen, NewRequestForm)
        after = {c.case_id: c for c in desk.queue("demo")}
        [new] = set(after) - before
        case = after[new]
        assert case.text == text and case.title == "Randevu [bold]ekranı[/bold]"
        assert case.submitted_by == "reviewer"
        alone = desk.triage_text("demo", new, text, case.title)
        assert (case.decision.verdict, case.decision.confidence) == (
            alone.verdict,
            alone.confidence,
        )
        await until(pilot, lambda: new in queue_ids(app), "the new case in the queue")


@sync
async def test_the_form_refuses_an_empty_text_and_escape_stores_nothing(tmp_path: Path) -> None:
    desk = _engagement_desk(SAMPLE, tmp_path)
    app = desk_app(desk, "demo")
    before = len(desk.queue("demo"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        form = await opened(pilot, "n", NewRequestForm)
        form.query_one("#intake-text", TextArea).text = "   \n "
        form.query_one("#intake-add", Button).press()
        await settle(pilot)
        assert app.screen is form
        assert "empty" in str(form.query_one("#intake-error", Label).content)
        await press(pilot, "escape")
        assert not isinstance(app.screen, NewRequestForm)
    assert len(desk.queue("demo")) == before
