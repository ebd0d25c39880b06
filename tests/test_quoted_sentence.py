"""The evidence quotes the whole sentence a scored part comes from (issue 34 item 2):
sentence boundaries are ``.``, ``!``, ``?`` and the edges of a paragraph, list item,
table cell or heading, never ``;`` or ``:`` (:func:`etki.domain.whole_sentences`,
:func:`etki.domain.quoted_sentence`, :func:`etki.triage.contract.split_whole_units`).
The parts the engine scores stay what they were (split at ``;`` too). A quoted lead-in
ending in ``:`` carries the list under it (:func:`etki.domain.lead_in_list`, engine
3.2.2)."""

from __future__ import annotations

from pathlib import Path

import pytest

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


# --- a lead-in ending in ":" carries its list (engine 3.2.2) ------------------------------

LEAD = "The Contractor will deliver, per sprint, a mix of the following deliverables:"
LISTED_MD = (
    "Intro.\n\nThe Contractor will deliver, per sprint, a mix of the **following**\n"
    "deliverables:\n\n"
    "-   İzin ve [Größe](https://x.org) kayıtları\n\n"
    "-   A wrapped item that goes\n    on the next line\n"
    "    -   a nested · item with a ”quote”\n"
    "-   third\n-   fourth\n-   fifth\n-   sixth\n-   seventh\n-   eighth\n-   ninth\n"
    "-   tenth\n\nAfter the list.\n"
)


def test_a_lead_in_is_quoted_with_its_list_by_one_rule() -> None:
    """The list under a sentence ending in ``:``: at most 8 items, the rest counted,
    a wrapped item joined, a nested one indented, letters kept as written; written after
    the sentence in the quote and read back the same."""
    from etki.domain import EvidenceStep
    from etki.domain.evidence import (
        LISTED_MAX,
        lead_in_list,
        quoted_sentences,
        split_listed,
        with_listed,
    )

    listed = lead_in_list(LEAD, LISTED_MD)
    assert LISTED_MAX == 8
    assert listed == (
        "İzin ve Größe kayıtları",
        "A wrapped item that goes on the next line",
        "  a nested · item with a ”quote”",
        "third",
        "fourth",
        "fifth",
        "sixth",
        "seventh",
        "+3 more",
    )
    quoted = quoted_sentence(LEAD, "", clip, LISTED_MD)
    assert quoted == (
        LEAD + " · İzin ve Größe kayıtları · A wrapped item that goes on the next line"
        ' · · a nested - item with a "quote" · third · fourth · fifth · sixth · seventh'
        " · +3 more"
    )
    assert quoted == with_listed(LEAD, listed)
    text, back = split_listed(quoted)
    assert text == LEAD
    assert back[2] == '  a nested - item with a "quote"' and back[:2] == listed[:2]
    assert back[3:] == listed[3:]
    step = EvidenceStep("sureness", f"sure (named): an obligation names it: c#9 “{quoted}”")
    [quote] = quoted_sentences([step])
    assert (quote.text, quote.listed, quote.clipped) == (LEAD, back, False)
    # not a lead-in, cut, or not in the clause: the sentence alone
    assert quoted_sentence("Intro.", "", clip, LISTED_MD) == "Intro."
    assert lead_in_list(LEAD[:-1] + "…", LISTED_MD) == ()
    assert lead_in_list("Nothing like this:", LISTED_MD) == ()
    assert quoted_sentence(LEAD, "", clip) == LEAD  # no clause text given
    assert split_listed("Reports cover: payments, appointments.") == (
        "Reports cover: payments, appointments.",
        (),
    )


TALENTMAP = Path(__file__).resolve().parents[2] / "shared" / "realdata" / "talentmap"


@pytest.mark.skipif(not TALENTMAP.is_dir(), reason="../shared/realdata/talentmap is absent")
def test_talentmaps_deciding_lead_in_carries_its_deliverables() -> None:
    """talentmap's staging-site request (TM-V-023, “… a mix of the following
    deliverables:” of PWS 9 deciding): the reasoning quotes the sentence and the four
    deliverables under it; the verdict is the one engine 3.2.1 gave."""
    from etki.domain import deciding_step, reasoning_quote
    from etki.knowledge import build_index, load_project
    from etki.triage import TriageEngine, case_id_for

    project = load_project(TALENTMAP)
    engine = TriageEngine(project, build_index(project).hash)
    request = next(r for r in project.requests if "custom, registered domain" in r.text)
    d = engine.triage(case_id_for(project.id, request.id), request.text, request.title)
    assert (d.verdict, d.confidence, d.sure) == ("IN_SCOPE", 0.7095, False)
    assert d.cited_clauses == ("talentmap-pws#9", "talentmap-pws#5", "talentmap-pws#10")
    deciding = deciding_step(d.evidence, d.cited_clauses)
    assert deciding is not None and deciding.ref == "talentmap-pws#9"
    found = reasoning_quote(d.reasoning, deciding.ref)
    assert found is not None
    text, clipped, listed = found
    assert text.endswith("for each sprint with a mix of the following deliverables:")
    assert not clipped
    assert [x[:30] for x in listed] == [
        "Github issues/commits/branches",
        "Screenshot, links, or other do",
        "User research documentation",
        "Summary slide decks or other c",
    ]
    assert len(listed[1]) == 200 and listed[1].endswith("…")
