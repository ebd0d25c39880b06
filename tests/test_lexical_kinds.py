"""Per-kind length normalisation (:class:`etki.retrieval.lexical.KindNormalisedBM25`) and
the one acronym rule (:mod:`etki.retrieval.acronyms`), issue 33 item 4."""

from __future__ import annotations

import numpy as np
import pytest

from etki.retrieval.acronyms import acronyms, linked, merged
from etki.retrieval.lexical import KindNormalisedBM25
from etki.retrieval.wikirank import RelevanceRanker
from etki.triage.scoring import BM25Index

DOCS = [
    ["host", "system", "acf", "author", "oper"] + ["deliver", "sprint", "review"] * 20,
    ["updat", "ci", "oper", "system", "imag"],
    ["fix", "parser", "date"],
    ["fix", "login", "page"],
]


def test_one_kind_scores_as_bm25_to_the_last_bit():
    terms = ["author", "oper", "system"]
    plain = BM25Index(DOCS).array(terms)
    kinds = KindNormalisedBM25(DOCS, ["x"] * len(DOCS)).array(terms)
    assert np.array_equal(plain, kinds)


def test_a_long_clause_holding_the_rare_words_beats_a_short_node_sharing_one():
    terms = ["author", "oper"]
    plain = BM25Index(DOCS).array(terms)
    assert plain[1] > plain[0]  # one avgdl: the 5-word work item wins on "oper" alone
    by_kind = KindNormalisedBM25(DOCS, ["clause", "workitem", "workitem", "workitem"])
    scores = by_kind.array(terms)
    assert scores[0] > scores[1] > 0
    # IDF is over all documents, as before
    assert by_kind.idf_of == BM25Index(DOCS).idf_of


def test_kinds_must_match_documents():
    with pytest.raises(ValueError, match="2 kinds for 4 documents"):
        KindNormalisedBM25(DOCS, ["a", "b"])


def test_linked_reads_acronyms_and_names_both_ways():
    table = acronyms(["Reports under the Fiscal Responsibility Act (FRA) are due."])
    assert table == {"fra": ("fiscal", "responsibility", "act")}
    assert linked("Was the FRA report agreed?", table) == (
        (("fiscal", "responsibility", "act"),),
        (),
    )
    assert linked("the FISCAL responsibility act", table) == ((), ("fra",))
    # a word that merely contains the acronym or part of the name links nothing
    assert linked("fragile fiscal policy", table) == ((), ())


def test_the_project_table_reaches_a_ranker_whose_documents_never_link_the_two():
    docs = [("d1", "States must report the Fiscal Responsibility Act outcomes."), ("d2", "Login")]
    alone = RelevanceRanker(docs)
    assert alone.rank("FRA", 5) == []
    shared = RelevanceRanker(docs, acronym_table={"fra": ("fiscal", "responsibility", "act")})
    assert [d.id for d in shared.rank("FRA", 5)] == ["d1"]


def test_merged_keeps_the_first_pair():
    assert merged({"it": ("information", "technology")}, {"it": ("x", "y"), "a": ("b",)}) == {
        "it": ("information", "technology"),
        "a": ("b",),
    }
