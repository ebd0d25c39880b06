"""The desk shows the declared remit (issue 10 item 4) with the contract's clauses,
labelled as the PMO's statements and always literally: a statement holding Rich markup
(``[bold]x[/]``) and an ANSI escape shows as written, the escape as a visible
placeholder. Driven with Textual's Pilot on a real project folder and a real SQLite
store (the wiki is off: the cards come from the DB)."""

from __future__ import annotations

import re
from pathlib import Path

from etki.config import Settings
from etki.services import Desk
from etki_tui.__main__ import choose_project
from etki_tui.app import EtkiApp
from etki_tui.hafiza.pane import MemoryPane
from etki_tui.queue.bars import CaseDetail
from tests.remit_support import (
    ETKI_YAML,
    REQUEST_TRAINING,
    REQUEST_WEBSITE,
    line_of,
    write_remit_project,
)
from tests.test_tui_pilot import _segments, current, goto, press, settle, sync

REQUESTS = (
    ("R-1", "Website news", REQUEST_WEBSITE),
    ("R-2", "Personel eğitimi", REQUEST_TRAINING),
    ("R-3", "Eğitim videosu", "Belediye personelinin eğitimi için video hazırlar mısınız?"),
    ("R-4", "İK eğitimi", "İnsan Kaynakları Müdürlüğü belediye personelinin eğitimini istiyor."),
)


def _text(widget, height: int = 200) -> tuple[str, list]:  # noqa: ANN001
    segments = list(_segments(widget, widget.size.width, height))
    return "".join(s.text for s in segments), segments


def _literal(text: str, segments: list) -> None:
    assert "[bold]x[/]" in text  # the markup is text, not style
    assert "␛[2J" in text  # the escape shows as a visible placeholder
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", text)
    for segment in segments:  # no link or action came from the statement
        if segment.style is not None:
            assert not segment.style.link and "@click" not in (segment.style.meta or {})


@sync
async def test_cited_remit_statements_show_literally_and_labelled(tmp_path: Path) -> None:
    root = write_remit_project(tmp_path / "lib", requests=REQUESTS)
    settings = Settings(db_url=f"sqlite:///{tmp_path}/etki.db", wiki_dir=None, reviewer="reviewer")
    desk = Desk(settings)
    try:
        project_id, _ = choose_project(desk, str(root), None)
        assert desk.wiki_root(project_id) is None  # the wiki is off: nothing written
        cases = {c.request_id: c for c in desk.queue(project_id)}
        for rid in ("R-2", "R-3", "R-4"):
            assert "etki.yaml#out-2" in cases[rid].decision.cited_clauses, rid
        assert "etki.yaml#out-1" in cases["R-1"].decision.cited_clauses
        # overrides (precedents) citing out-1 and out-2; two rulings disagree on out-2
        desk.rule(cases["R-1"].case_id, "approve", reason="press office asked us")
        desk.rule(cases["R-3"].case_id, "reject")
        desk.rule(cases["R-4"].case_id, "approve", reason="HR pays for it")
        label = f"PMO's declared remit (etki.yaml scope.out, line {line_of(ETKI_YAML, 'Belediye')})"
        app = EtkiApp(
            desk, project_id, cursor_blink=False, search_delay=3600, poll_seconds=0, preview_delay=0
        )
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await goto(pilot, cases["R-2"].case_id)
            await settle(pilot)
            assert current(app) == cases["R-2"].case_id
            await press(pilot, "enter")  # read full-screen: the detail beside is narrow
            await settle(pilot)
            body = app.query_one(CaseDetail).query_one("#detail-body")
            text, segments = _text(body)
            assert "§ out-2 Declared remit (out) 2  [exclusion]  etki.yaml#out-2" in text
            assert label in text
            assert "[bold]x[/] ␛[2J Belediye personelinin eğitimi İnsan Kaynakları" in text
            _literal(text, segments)

            await press(pilot, "escape")  # back from the full-screen read
            await settle(pilot)
            await press(pilot, "2")  # Hafıza: the precedent and the disputed card
            await settle(pilot)
            pane = app.query_one(MemoryPane)
            assert {c.case_id for c in pane.precedents} == {
                cases["R-1"].case_id,
                cases["R-4"].case_id,
            }
            assert [d.ref for d in pane.disputed] == ["etki.yaml#out-2"]
            entries = pane.query_one("#memory-list")
            card = pane.query_one("#memory-card")
            entries.highlighted = entries.get_option_index(f"pre:{cases['R-1'].case_id}")
            await settle(pilot)
            text, _ = _text(card, 30)
            assert "etki.yaml#out-1 Declared remit (out) 1 · PMO's declared remit" in text
            entries.highlighted = entries.get_option_index("dis:etki.yaml#out-2")
            await settle(pilot)
            text, segments = _text(card, 30)
            assert "out-2 Declared remit (out) 2 [exclusion]" in text and label in text
            _literal(text, segments)
            assert app.is_running
    finally:
        desk.repo.dispose()
