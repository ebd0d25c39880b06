"""Pure parts of the desk: one-line cells cut on grapheme boundaries (B05), client text
made literal and terminal-safe (B01, B03), single-width verdict glyphs, and one
definition per action (bindings with ids)."""

from __future__ import annotations

import unicodedata

import pytest
from rich.cells import cell_len
from rich.text import Text

from etki_tui.actions import ACTIONS, bindings
from etki_tui.render import VERDICT_GLYPH, cell, clauses_cell, fit, graphemes, verdict_text

WIDE = [
    "👍 Onaylandı",
    "🇹🇷 Türkiye ofisi",
    "👩\u200d💻 Geliştirici talebi",
    "Größe prüfen (e + combining: e\u0301)",
    "東京オフィス SSO",
    "Şirket içi SSO girişi",
]


@pytest.mark.parametrize("text", WIDE)
@pytest.mark.parametrize("width", range(1, 24))
def test_fit_never_splits_a_grapheme(text: str, width: int) -> None:
    cut = fit(text, width)
    assert cell_len(cut) <= width
    body = cut.removesuffix("…")
    clusters = [g for g, _ in graphemes(text)]
    rebuilt = ""
    for cluster in clusters:  # the kept part is a whole-grapheme prefix
        if len(rebuilt) >= len(body):
            break
        rebuilt += cluster
    assert rebuilt == body
    if cell_len(text) <= width:
        assert cut == text


def test_flags_and_zwj_sequences_are_one_grapheme() -> None:
    assert [g for g, _ in graphemes("🇹🇷x")] == ["🇹🇷", "x"]
    assert [g for g, _ in graphemes("👩\u200d💻!")] == ["👩\u200d💻", "!"]
    assert [g for g, _ in graphemes("e\u0301")] == ["e\u0301"]


def test_cells_are_literal_one_line_and_safe() -> None:
    text = "[bold]x[/bold] [@click=app.quit]q[/]\n\x1b[31mred\x1b[0m\x07\u202e"
    shown = cell(text, 200)
    assert isinstance(shown, Text) and not shown.spans
    assert shown.plain.startswith("[bold]x[/bold] [@click=app.quit]q[/]")
    assert "\n" not in shown.plain and "\x1b" not in shown.plain and "\x07" not in shown.plain
    assert "\u202e" not in shown.plain


def test_verdict_glyphs_are_single_width_and_carry_the_word() -> None:
    for verdict, glyph in VERDICT_GLYPH.items():
        assert cell_len(glyph) == 1
        assert unicodedata.east_asian_width(glyph) in {"N", "Na"}  # never ambiguous/wide
        assert verdict_text(verdict).plain == f"{glyph} {verdict}"


def test_clause_cell_shows_a_count_of_what_does_not_fit() -> None:
    refs = ("MSA#4.1", "MSA#4.3", "MSA#10.2")
    assert clauses_cell(refs, 9).plain == "4.1,4.3+1"
    assert clauses_cell(refs, 20).plain == "4.1,4.3,10.2"
    assert clauses_cell((), 9).plain == "—"


def test_every_action_is_defined_once_with_an_id() -> None:
    assert len({a.id for a in ACTIONS.values()}) == len(ACTIONS)
    for binding in bindings(*ACTIONS):
        assert binding.id and binding.tooltip and binding.description
        assert not binding.key.startswith(("ctrl+s", "ctrl+j", "ctrl+h", "ctrl+enter"))
    assert {ACTIONS[i].key for i in ("approve", "convert", "reject")} == {"a", "c", "r"}
