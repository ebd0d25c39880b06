"""The evidence quotes the whole sentence a scored part comes from (issue 34 item 2):
sentence boundaries are ``.``, ``!``, ``?`` and the edges of a paragraph, list item,
table cell or heading, never ``;`` or ``:`` (:func:`etki.domain.whole_sentences`,
:func:`etki.domain.quoted_sentence`, :func:`etki.triage.contract.split_whole_units`).
The parts the engine scores stay what they were (split at ``;`` too)."""

from __future__ import annotations

from etki.domain.evidence import QUOTE_CHARS, quoted_sentence, whole_sentences
from etki.triage.contract import split_units, split_whole_units
from etki.triage.explain import clip

TDRS_22 = (
    "OFA expects that the development process will consist of sprint cycles,\n"
    "and that the initial phases of the development process will focus on\n"
    "creating a system to securely allow the upload of state, territory, and\n"
    "tribal data; validating the data; storing the data in a database;\n"
    "providing information on the status of the import/validation to the\n"
    "state, territory, and tribal users; and allowing the state, territory,\n"
    "and tribal users to see and download their data in the system.\n"
)
"""Clause 2.2 of the real tdrs RFQ (second paragraph): one sentence, four semicolons."""


def test_a_part_after_a_semicolon_is_quoted_as_its_whole_sentence() -> None:
    units = split_whole_units(TDRS_22)
    last_part, kind, whole = units[-1]
    assert last_part.startswith("and allowing the state, territory,")  # scored alone
    assert kind == "text"
    assert whole.startswith("OFA expects that the development process")
    assert whole.endswith("see and download their data in the system.")
    assert {w for _, _, w in units} == {whole}  # every part names the same sentence
    quoted = quoted_sentence(last_part, whole, clip)
    assert quoted == whole and len(whole) == 480 < QUOTE_CHARS  # whole, no "…"


def test_the_scored_parts_are_unchanged() -> None:
    """The engine still scores each part between semicolons on its own: the verdict
    and confidence cannot change."""
    text = "The Municipality is the data controller; the Contractor acts as processor."
    assert split_units(text) == [
        ("The Municipality is the data controller;", "text"),
        ("the Contractor acts as processor.", "text"),
    ]
    assert [w for _, _, w in split_whole_units(text)] == [text, text]
    assert split_whole_units("One sentence. Another one.") == [
        ("One sentence.", "text", ""),
        ("Another one.", "text", ""),
    ]


def test_a_colon_does_not_end_a_sentence() -> None:
    text = "Reports cover: payments per service, appointments per point. Nothing else."
    assert whole_sentences(text) == [
        "Reports cover: payments per service, appointments per point.",
        "Nothing else.",
    ]


def test_paragraph_and_list_item_edges_end_a_sentence() -> None:
    md = "Lead-in that ends here\n\n- first item; with a part\n- second item\n"
    assert [(t, w) for t, _, w in split_whole_units(md)] == [
        ("Lead-in that ends here", ""),
        ("first item;", "first item; with a part"),
        ("with a part", "first item; with a part"),
        ("second item", ""),
    ]


def test_turkish_letters_are_kept_and_split_the_same() -> None:
    text = "İstanbul şubesi raporları hazırlar; ılık su ısıtıcısı dahil değildir. Başka iş yok!"
    assert whole_sentences(text) == [
        "İstanbul şubesi raporları hazırlar; ılık su ısıtıcısı dahil değildir.",
        "Başka iş yok!",
    ]
    [(first, _, whole), (second, _, _), (third, _, none)] = split_whole_units(text)
    assert first == "İstanbul şubesi raporları hazırlar;"
    assert second == "ılık su ısıtıcısı dahil değildir."
    assert quoted_sentence(second, whole, clip) == whole
    assert (third, none) == ("Başka iş yok!", "")


def test_german_text_is_split_at_sentence_ends_only() -> None:
    text = "Die Wartung der Server ist ausgeschlossen; der Auftraggeber übernimmt sie. Weiß man?"
    assert whole_sentences(text) == [
        "Die Wartung der Server ist ausgeschlossen; der Auftraggeber übernimmt sie.",
        "Weiß man?",
    ]


def test_a_sentence_too_long_to_quote_falls_back_to_its_part() -> None:
    part = "and the part that matched."
    whole = "word " * 150 + "; " + part  # over QUOTE_CHARS
    assert len(whole) > QUOTE_CHARS
    assert quoted_sentence(part, whole, clip) == part
    long_part = "x" * (QUOTE_CHARS + 50)
    cut = quoted_sentence(long_part, "", clip)
    assert len(cut) == QUOTE_CHARS and cut.endswith("…")
    assert quoted_sentence("a  b\n c", "", clip) == "a b c"  # whitespace runs single
