"""A second PMO trial of issue 35: the desk's ``X`` form (the change request to send)
could not choose the clauses the document cites, which ``etki cr edit --clause`` can;
and a Config warning toast covered the form's Export and Cancel buttons.

Now the form lists the clauses (those cited now ticked first, the engine's marked, then
the project's others); what is ticked, once changed, is recorded through the service
``etki cr edit`` uses (audited, in the case's history, the same summary) and the
document cites it. A modal form opening over toasts takes them off the screen (the
newest on the status line, all in the messages view). Driven with Textual's Pilot on
the real SQLite fixture project, waiting for states only."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import RadioButton, RadioSet, SelectionList

from etki.config import Settings
from etki.services import Desk, approval_service
from etki.wiki.clientcr import NO_CLAUSE_CITED
from etki_tui.config import TuiConfig
from etki_tui.header import StatusLine
from etki_tui.screens.cr_export import COVERING_MARK, ENGINE_MARK, CrExportForm
from tests.conftest import TuiWorld
from tests.test_tui_pilot import (
    Recorder,
    current,
    fill,
    goto,
    make_app,
    press,
    settle,
    sync,
    until,
)

SSO, MOBILE, HOSTING = "MSA-2024-01#3.2", "MSA-2024-01#9.1", "MSA-2024-01#10.2"
REASON = "Yeni bir yetenek: Jürgen Weiß'in ekibi için ayrı bir iş (Straße & Çiğdem)."
WARNING = "keymap: 'frobnicate' is not an action id; the key is ignored"


def _options(form: CrExportForm) -> list[str]:
    box = form.query_one("#crx-clauses", SelectionList)
    return [str(box.get_option_at_index(i).value) for i in range(box.option_count)]


@sync
async def test_x_chooses_the_clauses_the_change_request_cites(
    tui_world: TuiWorld, tmp_path: Path
) -> None:
    seen = Recorder()
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        case_id = current(app)
        assert case_id is not None
        case = tui_world.repo.case(case_id)
        assert case.decision.verdict == "IN_SCOPE" and case.decision.cited_clauses == (SSO,)
        approval_service(tui_world.repo, tui_world.settings).rule(
            case_id, "convert_to_cr", reason=REASON, reviewer="ayse"
        )
        app.poll_queue()
        await settle(pilot)

        await press(pilot, "X")
        form = app.screen
        assert isinstance(form, CrExportForm)
        # the engine proposed IN_SCOPE: its clause first, unticked and marked as read
        # covering the work (a CR citing it argues the work is free), then the others
        assert _options(form) == [SSO, "MSA-2024-01#4.1", "MSA-2024-01#4.3", MOBILE, HOSTING]
        assert form.ticked() == () and not form.edited()
        form.query_one("#crx-format", RadioSet).query(RadioButton)[2].value = True  # Markdown
        box = form.query_one("#crx-clauses", SelectionList)
        assert str(box.get_option_at_index(0).prompt).startswith(f"{SSO}{COVERING_MARK} · ")
        assert "engine" not in str(box.get_option_at_index(3).prompt)
        assert box.border_title == "Clauses it cites: none yet (Space: tick)"

        # none ticked is the default: exported, nothing recorded, the document says so
        await fill(pilot, "#crx-path", str(tmp_path / "none.md"))
        await press(pilot, "enter")
        await until(pilot, (tmp_path / "none.md").exists, "the document citing none")
        assert tui_world.repo.case(case_id).cr_terms is None
        assert NO_CLAUSE_CITED in (tmp_path / "none.md").read_text(encoding="utf-8")
        await until(pilot, lambda: not isinstance(app.screen, CrExportForm), "closed")
        await press(pilot, "X")
        form = app.screen
        assert isinstance(form, CrExportForm)
        form.query_one("#crx-format", RadioSet).query(RadioButton)[2].value = True
        box = form.query_one("#crx-clauses", SelectionList)

        # the warranty-like in-scope clause out, two others in (Space on the highlighted)
        box.select(HOSTING)
        box.focus()
        box.highlighted = 3
        await settle(pilot)
        await press(pilot, "space")  # ticks MOBILE
        assert form.ticked() == (MOBILE, HOSTING)
        target = tmp_path / "teklif.md"
        await fill(pilot, "#crx-path", str(target))
        await press(pilot, "enter")
        await until(pilot, target.exists, "the document written")
        terms = tui_world.repo.case(case_id).cr_terms
        assert terms is not None and terms.clauses == (MOBILE, HOSTING)
        history = [e for e in tui_world.repo.case_history(case_id) if e.kind == "cr_terms"]
        assert [(e.actor, e.text) for e in history] == [
            ("reviewer", "0 assumptions, 0 exclusions, no validity date, cites 2 clauses chosen")
        ]
        _name, expected = tui_world.desk.cr_document(case_id, "md")
        assert target.read_bytes() == expected
        text = expected.decode()
        clauses = tui_world.desk.clauses("demo")
        assert clauses[MOBILE].title in text and clauses[HOSTING].title in text
        assert clauses[SSO].title not in text
        teklif = f"written to {target}"
        await until(pilot, lambda: any(teklif in n for n in seen.notes()), "the toast")
        said = next(n for n in seen.notes() if teklif in n)
        assert "terms recorded" in said and "clauses the engine read" not in said

        # next time the chosen ones are ticked and listed first; unchanged: nothing recorded
        await press(pilot, "X")
        again = app.screen
        assert isinstance(again, CrExportForm)
        assert _options(again)[:3] == [MOBILE, HOSTING, SSO]
        assert again.ticked() == (MOBILE, HOSTING) and not again.edited()
        again.query_one("#crx-format", RadioSet).query(RadioButton)[2].value = True
        await fill(pilot, "#crx-path", str(tmp_path / "again.md"))
        await press(pilot, "enter")
        await until(pilot, (tmp_path / "again.md").exists, "the second document")
        assert [e.kind for e in tui_world.repo.case_history(case_id)].count("cr_terms") == 1

        # every one unticked: back to the default, citing none (recorded, audited)
        await until(pilot, lambda: not isinstance(app.screen, CrExportForm), "closed")
        await press(pilot, "X")
        last = app.screen
        assert isinstance(last, CrExportForm)
        last.query_one("#crx-clauses", SelectionList).deselect_all()
        last.query_one("#crx-format", RadioSet).query(RadioButton)[2].value = True
        await fill(pilot, "#crx-path", str(tmp_path / "none-again.md"))
        await press(pilot, "enter")
        await until(pilot, (tmp_path / "none-again.md").exists, "the third document")
        terms = tui_world.repo.case(case_id).cr_terms
        assert terms is not None and terms.clauses is None
        assert NO_CLAUSE_CITED in (tmp_path / "none-again.md").read_text(encoding="utf-8")


@sync
async def test_x_on_an_agreed_cr_ticks_the_engines_clauses(
    tui_world: TuiWorld, tmp_path: Path
) -> None:
    """An agreed change request (the engine proposed CR, the reviewer agreed) cites the
    engine's clauses: ticked and marked ``· engine`` on the form; none ticked is
    refused there (a change request cites what it answers), nothing recorded."""
    agreed = "req-demo-2c4a8e13"  # CHANGE_REQUEST citing 4.1, 4.3 and 10.2
    engine = tui_world.repo.case(agreed).decision.cited_clauses
    assert engine == ("MSA-2024-01#4.1", "MSA-2024-01#4.3", HOSTING)
    app = make_app(tui_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await goto(pilot, agreed)
        approval_service(tui_world.repo, tui_world.settings).rule(
            agreed, "convert_to_cr", reviewer="ayse"
        )
        app.poll_queue()
        await settle(pilot)
        await press(pilot, "X")
        form = app.screen
        assert isinstance(form, CrExportForm) and form.case_id == agreed
        assert form.ticked() == engine and not form.covering
        box = form.query_one("#crx-clauses", SelectionList)
        for i in range(3):
            prompt = str(box.get_option_at_index(i).prompt)
            assert f"{ENGINE_MARK} · " in prompt and COVERING_MARK not in prompt
        assert box.border_title == "Clauses it cites (Space: tick or untick)"
        box.deselect_all()
        await fill(pilot, "#crx-path", str(tmp_path / "agreed.md"))
        await press(pilot, "enter")
        assert app.screen is form
        assert "no clause ticked" in str(form.query_one("#crx-error").render())
        assert app.screen.focused is box
        assert tui_world.repo.case(agreed).cr_terms is None


def test_the_forms_choice_is_what_etki_cr_edit_records(tui_world: TuiWorld) -> None:
    """The desk's choice and the command's are one record: ``etki cr edit --clause 9.1
    --clause 10.2`` on another case writes the same summary and clauses."""
    pending = [c for c in tui_world.desk.queue("demo") if c.decision.verdict == "IN_SCOPE"]
    desk = Desk(Settings(db_url=tui_world.settings.db_url, reviewer="ayse"), tui_world.repo)
    done, _ = desk.set_cr_terms(pending[1].case_id, clauses=["9.1", "10.2"])
    assert done.clauses == (MOBILE, HOSTING)
    [event] = [e for e in desk.case_history(pending[1].case_id) if e.kind == "cr_terms"]
    assert event.text == "0 assumptions, 0 exclusions, no validity date, cites 2 clauses chosen"


@sync
async def test_a_modal_form_takes_the_config_warning_toast_off_its_buttons(
    tui_world: TuiWorld,
) -> None:
    """At 80x24 with a config warning at start (on the status line, no toast): X opens
    the form with Export and Cancel uncovered; the warning is on the status line and
    whole in the messages view. A warning raised while the form is open is shown."""
    app = make_app(tui_world, config=TuiConfig(warnings=(WARNING,)))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        status = app.query_one(StatusLine)
        # said on the status line, not toasted (a fresh trial of issue 34: the toast
        # covered 9 list rows at 80x24)
        await until(pilot, lambda: status.said.startswith("Config: keymap"), "the warning")
        assert not app.query("Toast")
        case_id = current(app)
        assert case_id is not None
        approval_service(tui_world.repo, tui_world.settings).rule(
            case_id, "convert_to_cr", reason=REASON, reviewer="ayse"
        )
        app.poll_queue()
        await settle(pilot)
        await press(pilot, "X")
        assert isinstance(app.screen, CrExportForm)
        await until(pilot, lambda: not app.screen.query("Toast"), "no toast over the form")
        assert any(WARNING in entry[3] for entry in status.entries)  # L shows it whole
        for button in ("#crx-write", "#crx-cancel"):
            region = app.screen.query_one(button).region
            assert region.height == 3 and region.bottom <= 23, (button, region)
        app.notify("Başka bir uyarı", severity="warning", markup=False)
        await until(pilot, lambda: bool(app.screen.query("Toast")), "news over the form")
        await press(pilot, "escape")


@sync
async def test_a_config_problem_read_by_v_does_not_cover_the_views_list(
    tui_world: TuiWorld, tmp_path: Path
) -> None:
    """V reads the config file again; a problem found then is said (kept for L, on the
    status line) without a toast left over the list of saved views it opens."""
    from etki_tui.queue.views import ViewsScreen

    path = tmp_path / "config.yaml"
    path.write_text("views:\n  bozuk: {verdict: MAYBE}\n", encoding="utf-8")
    app = make_app(tui_world, config=TuiConfig(path))  # nothing read at start
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "V")
        await until(pilot, lambda: isinstance(app.screen, ViewsScreen), "the views")
        await settle(pilot)
        assert not app.screen.query("Toast")
        status = app.query_one(StatusLine)
        assert status.said.startswith("Config:") and "bozuk" in status.said
        assert any("'MAYBE'" in entry[3] for entry in status.entries)
