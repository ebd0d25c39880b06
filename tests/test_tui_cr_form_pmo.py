"""A fresh PMO trial of issue 35 on the desk's ``X`` form (the change request to send):
a new assumption typed into a box holding terms ran onto the last one's end
("…erişim sağlarYeni varsayım"); the clause list's title said "none yet" after a clause
was ticked; and a ticked box looked like an unticked one without colour (``▐X▌`` both).
Driven with Textual's Pilot on the form itself (a real :class:`CrExportForm` in a small
host app), waiting for states only."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.widgets import SelectionList, TextArea

from etki.domain import CrTerms, ScopeClause
from etki_tui.screens.cr_export import CrExportForm
from tests.test_tui_pilot import press, settle, sync, until

OLD = "Müşteri test ortamına erişim sağlar"
NEW = "Yeni varsayım"
CLAUSES = {
    f"MSA#{n}": ScopeClause(
        ref=f"MSA#{n}", contract_id="MSA", number=n, title=f"Bölüm {n} (Straße)", text="x"
    )
    for n in ("1", "2", "3")
}


class Host(App[None]):
    """Opens the form over an empty screen."""

    def __init__(self, form: CrExportForm) -> None:
        super().__init__()
        self.form = form

    def on_mount(self) -> None:
        self.push_screen(self.form)


def _form(terms: CrTerms | None, cited: tuple[str, ...] = ()) -> CrExportForm:
    return CrExportForm(
        "req-demo-1",
        "CR-req-demo-1.md",
        terms,
        "2026-01-01",
        cited=cited,
        covering=True,
        known=CLAUSES,
        cursor_blink=False,
    )


async def _opened(pilot: Any, form: CrExportForm) -> None:
    await until(pilot, lambda: pilot.app.screen is form and form.focused is not None, "form")
    await settle(pilot)


@sync
async def test_a_new_assumption_goes_on_a_line_of_its_own() -> None:
    form = _form(CrTerms(assumptions=(OLD,)))
    async with Host(form).run_test(size=(80, 24)) as pilot:
        await _opened(pilot, form)
        box = form.query_one("#crx-assumptions", TextArea)
        assert form.focused is box
        assert box.cursor_location == (1, 0) and box.document.get_line(1) == ""
        # nothing typed: nothing changed, and no blank term would be saved
        assert not form.edited() and form.new_terms() is None
        await pilot.press(*NEW)
        await until(pilot, lambda: NEW in box.text, "the typed assumption")
        terms = form.new_terms()
        assert terms is not None and terms.assumptions == (OLD, NEW)


@sync
async def test_an_empty_assumptions_box_stays_empty() -> None:
    form = _form(None)
    async with Host(form).run_test(size=(80, 24)) as pilot:
        await _opened(pilot, form)
        box = form.query_one("#crx-assumptions", TextArea)
        assert box.text == "" and box.cursor_location == (0, 0)


def _boxes(box: SelectionList[str]) -> list[str]:
    return [box.render_line(y).text[:3] for y in range(box.option_count)]


@sync
async def test_the_clause_title_and_boxes_follow_the_ticks() -> None:
    form = _form(None)
    async with Host(form).run_test(size=(80, 24)) as pilot:
        await _opened(pilot, form)
        box = form.query_one("#crx-clauses", SelectionList)
        assert box.border_title == "Clauses it cites: none yet (Space: tick)"
        assert _boxes(box) == ["▐ ▌"] * 3
        box.focus()
        box.highlighted = 1
        await settle(pilot)
        await press(pilot, "space")
        await until(pilot, lambda: form.ticked() == ("MSA#2",), "the tick")
        await settle(pilot)
        assert box.border_title == "Clauses it cites (Space: tick or untick)"
        assert _boxes(box) == ["▐ ▌", "▐X▌", "▐ ▌"]  # differs without colour
        await press(pilot, "space")
        await until(pilot, lambda: form.ticked() == (), "the untick")
        await settle(pilot)
        assert box.border_title == "Clauses it cites: none yet (Space: tick)"
        assert _boxes(box) == ["▐ ▌"] * 3
