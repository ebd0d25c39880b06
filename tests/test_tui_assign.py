"""The desk's assignments, mine view, module/submitter picks and saved views (issue 35
item 5), driven with Textual's Pilot on the real SQLite fixture project: ``t`` offers the
project's approvers and assigns the highlighted case (audited, in its history); ``M``
keeps the cases claimed by or assigned to me; ``module:`` and ``by:`` in the find box
pick by module and submitter; ``V`` saves the current filter in the config file beside
the keymap and recalls it. Nothing waits on time (tests/test_tui_pilot.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from textual.command import CommandInput, CommandPalette
from textual.widgets import OptionList

from etki.domain import Request
from etki.services import Desk
from etki_tui.config import TuiConfig, load_config, save_view
from etki_tui.flows.assign import AssignDone
from etki_tui.glyphs import CURSOR_MARK
from etki_tui.queue.filters import QueueFilter
from etki_tui.queue.pane import QueuePane
from etki_tui.queue.views import ViewsScreen, filter_of, view_of
from etki_tui.screens.assign import AssignPicker
from tests.conftest import TuiWorld, tui_decision
from tests.test_tui_pilot import (
    Recorder,
    current,
    fill,
    make_app,
    press,
    queue_ids,
    settle,
    shown,
    sync,
    until,
)

SSO = "req-demo-bb000001"
PAY = "req-demo-bb000002"


def _add_cases(world: TuiWorld) -> None:
    """Two pending cases: one impacting auth.sso sent by Ayşe Yılmaz, one impacting
    payments sent by Jörg Weiß."""
    sso = tui_decision(SSO, "IN_SCOPE", ("MSA-2024-01#9.1",), confidence=0.9)
    pay = replace(
        tui_decision(PAY, "CHANGE_REQUEST", ("MSA-2024-01#9.1",), confidence=0.7),
        impacted_modules=("payments.gateway",),
    )
    world.repo.add_cases(
        world.project_id,
        [
            (
                Request("B1", "SSO for staff.", "SSO", "Ayşe Yılmaz"),
                replace(sso, impacted_modules=("auth.sso",)),
            ),
            (Request("B2", "Pay by card.", "Card payments", "Jörg Weiß"), pay),
        ],
    )


# --- pure parts ----------------------------------------------------------------------------


def test_find_tokens_pick_by_module_and_submitter(tui_world: TuiWorld) -> None:
    _add_cases(tui_world)
    every = tui_world.desk.queue_summaries(tui_world.project_id)
    cases = {c.case_id: c for c in every if c.case_id in (SSO, PAY)}  # the fixture's: theirs
    now = tui_world.repo.now()

    def kept(text: str) -> list[str]:
        flt = QueueFilter(text=text)
        return sorted(cid for cid, c in cases.items() if flt.matches(c, {}, now))

    assert kept("module:auth") == [SSO]
    assert kept("MODULE:payments") == [PAY]
    assert kept("by:ayse") == [SSO]
    assert kept("by:jorg module:payments") == [PAY]
    assert kept("by:jorg module:auth") == []
    assert kept("by:weiss card") == [PAY]  # the other words still search the text
    assert QueueFilter(text="by:ayse").active and QueueFilter(mine=True).active


def test_a_view_is_the_filter_it_was_saved_from(tmp_path: Path) -> None:
    flt = QueueFilter(
        verdict="CHANGE_REQUEST", mine=True, sureness="unsure", text=" by:ayşe ", sort="risk"
    )
    fields = view_of(flt)
    assert fields == {
        "mine": True,
        "verdict": "CHANGE_REQUEST",
        "sureness": "unsure",
        "text": "by:ayşe",
        "sort": "risk",
    }
    back, warnings = filter_of(fields)
    assert back == flt.with_(text="by:ayşe") and warnings == []
    odd, warnings = filter_of({"verdict": "MAYBE", "colour": "red", "mine": "yes", "sort": 12})
    assert odd == QueueFilter()
    assert warnings == [
        "verdict 'MAYBE' is not one of IN_SCOPE, CHANGE_REQUEST, REJECT",
        (
            "colour is not a queue filter (known: mine, disputed, verdict, risk, band, age, "
            "sureness, sort, text)"
        ),
        "mine 'yes' is not true or false",
        "sort 12 is not one of queue, oldest, newest, confidence, risk, unsure, sure",
    ]
    # saved beside a keymap with comments: the rest of the file is kept as written
    path = tmp_path / "config.yaml"
    head = "# my desk\nkeymap:\n  approve: Y   # capital\nrefresh_seconds: 5\n"
    path.write_text(head, encoding="utf-8")
    save_view(path, "Ayşe's CRs", fields)
    config = load_config(str(path))
    assert config.warnings == () and config.keymap == {"approve": "Y"}
    assert config.views == {"Ayşe's CRs": fields}
    assert path.read_text(encoding="utf-8").startswith(head)
    save_view(path, "no", {"mine": True})  # added beside it; "no" stays a name
    assert load_config(str(path)).views == {"Ayşe's CRs": fields, "no": {"mine": True}}
    assert path.read_text(encoding="utf-8").count("views:") == 1
    save_view(path, "Ayşe's CRs", None)
    save_view(path, "no", None)
    assert path.read_text(encoding="utf-8") == head


# --- the desk ------------------------------------------------------------------------------


@sync
async def test_t_assigns_the_highlighted_case_to_an_approver(tui_world: TuiWorld) -> None:
    _add_cases(tui_world)
    seen = Recorder()
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        await until(pilot, lambda: SSO in queue_ids(app), "the new cases")
        pane = app.query_one(QueuePane)
        while current(app) != SSO:
            await press(pilot, "down")
        await press(pilot, "T")
        picker = app.screen
        assert isinstance(picker, AssignPicker)
        options = picker.query_one(OptionList)
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert prompts == ["reviewer  (you)", "ayse", "jurgen"]  # approvers only: no vera
        await press(pilot, "down", "enter")
        await until(pilot, lambda: seen.of(AssignDone), "the assignment")
        await settle(pilot)
        assert f"{SSO} is assigned to ayse: it is in their mine view (M)." in seen.notes()
        assert tui_world.desk.assignments(tui_world.project_id)[SSO].after == "ayse"
        # the desk records a view of the highlighted case when it has been on screen a
        # while, which may land before or after the assignment: the last other event
        history = [e.summary() for e in tui_world.desk.case_history(SSO)]
        assert [h for h in history if not h.startswith("viewed by")][-1] == (
            "assigned to ayse by reviewer"
        )
        # again: ayse is marked, and Nobody ends it
        await press(pilot, "T")
        picker = app.screen
        assert isinstance(picker, AssignPicker)
        options = picker.query_one(OptionList)
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert prompts == [
            "reviewer  (you)",
            "ayse  (assigned now)",
            "jurgen",
            "Nobody: end the assignment",
        ]
        await press(pilot, "end", "enter")
        await until(pilot, lambda: len(seen.of(AssignDone)) == 2, "the end of it")
        assert tui_world.desk.assignments(tui_world.project_id) == {}
        assert pane.current_case_id() == SSO


@sync
async def test_m_keeps_my_cases_and_a_view_recalls_it(tui_world: TuiWorld, tmp_path: Path) -> None:
    _add_cases(tui_world)
    tui_world.desk.claim(PAY, 30)  # claimed by me (reviewer)
    ayse = Desk(replace(tui_world.settings, reviewer="ayse"), tui_world.repo)
    ayse.assign(SSO, "reviewer")  # assigned to me by ayse
    path = tmp_path / "etki" / "config.yaml"
    seen = Recorder()
    app = make_app(tui_world, config=TuiConfig(path))
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        pane = app.query_one(QueuePane)
        every = queue_ids(app)
        assert SSO in every and PAY in every and len(every) > 2
        await press(pilot, "M")
        await until(pilot, lambda: sorted(queue_ids(app)) == [SSO, PAY], "my two cases")
        assert pane.filter.mine and "mine" in pane.filter.describe()
        # saved under a Turkish name, in the config file
        await press(pilot, "V")
        assert isinstance(app.screen, ViewsScreen)
        await fill(pilot, "#views-name", "Benim işlerim")
        await press(pilot, "enter")
        assert not isinstance(app.screen, ViewsScreen)
        assert load_config(str(path)).views == {"Benim işlerim": {"mine": True}}
        assert any("Benim işlerim" in n and "saved" in n for n in seen.notes())
        await press(pilot, "M")  # off: every case again
        await until(pilot, lambda: len(queue_ids(app)) == len(every), "every case")
        # recalled: mine again, read afresh
        await press(pilot, "V", "enter")
        await until(pilot, lambda: sorted(queue_ids(app)) == [SSO, PAY], "the view")
        # deleted: Down to the list, then Delete
        await press(pilot, "V", "down", "delete")
        assert load_config(str(path)).views == {}
        # the palette finds the views and the assignment too
        for query, then in (("saved views", ViewsScreen), ("assign", AssignPicker)):
            await press(pilot, "ctrl+p")
            assert CommandPalette.is_open(app)
            app.screen.query_one(CommandInput).value = query
            await settle(pilot)
            await press(pilot, "enter")
            await until(pilot, lambda then=then: isinstance(app.screen, then), query)
            await press(pilot, "escape")


HAND = """\
# the PMO's own views; keep this comment
views:
  benim işlerim:   # mine
    mine: true
  Jörg's CRs:
    verdict: CHANGE_REQUEST
  riskli:
    risk: high
  unsure ones:
    sureness: unsure
  bozuk:
    verdict: MAYBE
    sort: 12
"""
"""The trial's file, written by hand while the desk ran: four views and an invalid one."""


@sync
async def test_v_saves_the_name_typed_and_keeps_the_views_written_meanwhile(
    tui_world: TuiWorld, tmp_path: Path
) -> None:
    """The PMO trial at 80x24: the desk started before the config file existed; the
    PMO then wrote four views (and an invalid one) by hand. V lists them (read again),
    says what is wrong with the invalid one, and takes the name typed at once (the
    focus is on the name box); saving keeps every view, comment and line, and a view
    another desk saves meanwhile is kept by the next save too."""
    path = tmp_path / "etki" / "config.yaml"
    seen = Recorder()
    app = make_app(tui_world, config=TuiConfig(path))  # nothing read at start
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        path.parent.mkdir()
        path.write_text(HAND, encoding="utf-8")
        await press(pilot, "V")
        dialog = app.screen
        assert isinstance(dialog, ViewsScreen)
        assert dialog.focused is dialog.query_one("#views-name")
        listed = dialog.query_one(OptionList)
        names = [listed.get_option_at_index(i).id for i in range(listed.option_count)]
        assert names == ["benim işlerim", "Jörg's CRs", "riskli", "unsure ones"]
        assert any(
            "'bozuk': verdict 'MAYBE' is not one of IN_SCOPE, CHANGE_REQUEST, REJECT; "
            "sort 12 is not one of" in n
            for n in seen.notes()
        )
        await press(pilot, "M")  # typed into the name box, not the mine filter
        await press(pilot, "y", "space", "v", "i", "e", "w", "enter")
        assert not isinstance(app.screen, ViewsScreen)
        text = path.read_text(encoding="utf-8")
        assert text == HAND + "  My view: {}\n"
        assert any("My view" in n and "saved" in n for n in seen.notes())
        # another desk saves one; this desk's next save keeps it
        save_view(path, "other desk", {"verdict": "REJECT"})
        await press(pilot, "V")
        await fill(pilot, "#views-name", "Jörg'ün işleri")
        await press(pilot, "enter")
        views = load_config(str(path)).views
        assert set(views) == {
            "benim işlerim",
            "Jörg's CRs",
            "riskli",
            "unsure ones",
            "My view",
            "other desk",
            "Jörg'ün işleri",
        }
        assert path.read_text(encoding="utf-8").startswith(HAND)


@sync
async def test_no_color_marks_the_highlighted_approver(
    tui_world: TuiWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NO_COLOR strips the highlight's colours and every name is bold: a PMO trial of
    issue 35 could not tell which approver Enter would pick. The highlighted one starts
    with the cursor mark, and only it."""
    _add_cases(tui_world)
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await until(pilot, lambda: SSO in queue_ids(app), "the new cases")
        await press(pilot, "T")
        picker = app.screen
        assert isinstance(picker, AssignPicker)
        options = picker.query_one(OptionList)
        for index, name in ((0, "reviewer"), (1, "ayse"), (2, "jurgen")):
            options.highlighted = index
            await settle(pilot)
            lines = shown(options).splitlines()
            marked = [line for line in lines if line.lstrip().startswith(CURSOR_MARK)]
            assert len(marked) == 1, lines
            assert marked[0].lstrip()[1:].strip().startswith(name), lines
            others = [line.strip() for line in lines if line.strip() and line not in marked]
            assert len(others) == 2 and not any(CURSOR_MARK in line for line in others)
