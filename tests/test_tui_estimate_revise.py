"""A PMO trial of issue 35's E (the effort estimate form) in tmux at 80x24 on
sample_project: on a change request already estimated, opened from its page in Hafıza,
E said "In force: 3.5 days, 12500.5 EUR" (the price as typed, while the detail pane,
the toast and the change request say "12,500.50 EUR"), did not say the engine's range
the estimate stands beside, and started with empty fields, so changing the price alone
meant typing the days and the reason again ("field 'days' is ''" otherwise).

Now the form states the estimate in force with its price grouped, the engine's frozen
range below it, starts with the figures and reason in force, records a revision of
one field with the others kept, and refuses saving them unchanged (the same estimate
twice in the history). Driven with Textual's Pilot on the real SQLite fixture
project, waiting for states only."""

from __future__ import annotations

from textual.widgets import Input

from etki.services import approval_service
from etki_tui.hafiza.reader import PageReader
from etki_tui.screens.estimate import EstimateForm
from tests.conftest import TuiWorld
from tests.test_tui_pilot import current, fill, press, settle, settled_app, shown, sync, until

REASON = "İki ekran, Größe ß dahil (Jürgen Weiß)"


def _estimates(world: TuiWorld, case_id: str) -> int:
    return sum(e.kind == "estimate" for e in world.repo.case_history(case_id))


@sync
async def test_e_on_an_estimated_case_in_hafiza_starts_from_the_estimate_in_force(
    tui_world: TuiWorld,
) -> None:
    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        case_id = current(app)
        assert case_id is not None
        approval_service(tui_world.repo, tui_world.settings).rule(
            case_id, "convert_to_cr", reason="Yeni bir yetenek.", reviewer="ayse"
        )
        tui_world.desk.add_estimate(case_id, "3,5", REASON, "12500,50 EUR")
        app.poll_queue()
        await settle(pilot)
        await press(pilot, "D")  # the change request's page, in Hafıza's reader
        reader = app.query_one(PageReader)
        await until(pilot, lambda: reader.path is not None, "the reader")

        await press(pilot, "E")
        form = app.screen
        assert isinstance(form, EstimateForm) and form.case_id == case_id
        engine = tui_world.repo.case(case_id).decision.effort.shown()
        said = shown(form.query_one("#estimate-current"))
        assert " ".join(said.split()) == (
            f"In force: 3.5 days, 12,500.50 EUR: {REASON} Engine's range: {engine}"
        ), said
        values = [
            form.query_one(f"#estimate-{f}", Input).value for f in ("days", "price", "reason")
        ]
        # the price as shown elsewhere, ungrouped as the box takes it (was "12500.5 EUR")
        assert values == ["3.5", "12500.50 EUR", REASON]
        assert app.focused is form.query_one("#estimate-days", Input)

        # saved unchanged: refused on the form, nothing recorded
        await press(pilot, "tab", "tab", "enter")
        assert app.screen is form
        assert "Unchanged" in str(form.query_one("#estimate-error").render())
        assert _estimates(tui_world, case_id) == 1

        # the price alone revised: the days and the reason in force are kept
        await fill(pilot, "#estimate-price", "14000 EUR")
        await press(pilot, "enter", "enter")  # to the reason, then save
        await until(pilot, lambda: _estimates(tui_world, case_id) == 2, "the revision stored")
        est = tui_world.repo.case(case_id).estimate
        assert est is not None
        assert (est.days, est.price, est.currency, est.reason) == ("3.5", "14000", "EUR", REASON)


@sync
async def test_e_without_an_estimate_states_the_engines_range_and_starts_empty(
    tui_world: TuiWorld,
) -> None:
    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        case_id = current(app)
        assert case_id is not None
        await press(pilot, "E")
        form = app.screen
        assert isinstance(form, EstimateForm) and form.held is None
        engine = tui_world.repo.case(case_id).decision.effort.shown()
        said = shown(form.query_one("#estimate-current"))
        assert [line.rstrip() for line in said.splitlines()] == [
            "No estimate yet.",
            f"Engine's range: {engine}",
        ], said
        for field in ("days", "price", "reason"):
            assert form.query_one(f"#estimate-{field}", Input).value == ""
        await press(pilot, "escape")
        await until(pilot, lambda: not isinstance(app.screen, EstimateForm), "closed")
        assert _estimates(tui_world, case_id) == 0


@sync
async def test_e_takes_a_price_as_turkish_and_german_write_it(tui_world: TuiWorld) -> None:
    """A PMO trial of issue 35 typed ``86.500,00 TRY`` and was refused; ``1.500`` reads
    two ways and is refused on the form with the way to write it."""
    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        case_id = current(app)
        assert case_id is not None
        await press(pilot, "E")
        form = app.screen
        assert isinstance(form, EstimateForm)
        await fill(pilot, "#estimate-days", "4,5")
        await fill(pilot, "#estimate-price", "1.500 TRY")
        await fill(pilot, "#estimate-reason", REASON)
        await press(pilot, "enter")
        error = str(form.query_one("#estimate-error").render())
        assert "1500 (1.5 if a decimal was meant)" in error and error.rstrip().endswith(
            "a dot between thousands and a comma before decimals: 1.500,00"
        )
        assert app.focused is form.query_one("#estimate-price", Input)
        await fill(pilot, "#estimate-price", "86.500,00 TRY")
        await press(pilot, "tab", "enter")  # to the reason, then save
        await until(pilot, lambda: _estimates(tui_world, case_id) == 1, "the estimate stored")
        est = tui_world.repo.case(case_id).estimate
        assert est is not None
        assert (est.days, est.price, est.currency) == ("4.5", "86500", "TRY")
