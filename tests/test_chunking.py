"""Chunking (issue 4 items 2 and 3): the structure analyser and its recorded metrics,
sliding windows with overlap, long sections split under a size limit (inheriting
edges), headings in code / setext / ``#1`` / ``3.2.1``, empty parents merged with an
alias."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from etki.knowledge import build_index, load_project
from etki.knowledge.chunking import MAX_CHUNK_CHARS, pack, visible_length, windows
from etki.knowledge.contracts import parse_contract, parse_contract_text
from etki.knowledge.structure import MAX_GAP_CV, analyse_structure

SHARED = Path(__file__).resolve().parents[2] / "shared"
TDRS = SHARED / "realdata" / "tdrs"
SAMPLE = Path(__file__).resolve().parents[1] / "sample_project"


def parse(text: str, **kw):  # type: ignore[no-untyped-def]
    return parse_contract_text(text, path="doc.md", **kw)


# --- the structure analyser -------------------------------------------------------------


def test_metrics_of_evenly_spaced_headings() -> None:
    # 3 sections of 4 non-blank lines each, starting at lines 0, 4, 8
    structure = analyse_structure([True] * 12, [0, 4, 8])
    assert structure.strategy == "by_heading"
    assert dict(structure.metrics) == {
        "headings": 3.0,
        "lines": 12.0,
        "preamble_share": 0.0,
        "largest_share": 0.3333,
        "gap_mean": 4.0,
        "gap_cv": 0.0,
    }


def test_irregular_heading_distances_choose_sliding_window() -> None:
    # ten one-line sections, then one of 30 lines: CV = 2.29 > MAX_GAP_CV, largest 0.75
    starts = list(range(10)) + [10]
    structure = analyse_structure([True] * 40, starts)
    metrics = dict(structure.metrics)
    assert metrics["gap_cv"] == pytest.approx(2.2927, abs=1e-4) and metrics["gap_cv"] > MAX_GAP_CV
    assert metrics["largest_share"] == 0.75
    assert structure.strategy == "sliding_window"
    assert structure.reason.startswith("irregular headings")


def test_one_start_or_a_long_preamble_is_no_structure() -> None:
    assert analyse_structure([True] * 10, [0]).reason == "fewer than 2 section starts"
    long_preamble = analyse_structure([True] * 10, [6, 8])
    assert long_preamble.strategy == "sliding_window"
    assert dict(long_preamble.metrics)["preamble_share"] == 0.6


def test_strategy_and_metrics_are_recorded_per_document(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "contracts").mkdir(parents=True)
    (root / "etki.yaml").write_text("id: p\nname: P\n", encoding="utf-8")
    (root / "contracts" / "a.md").write_text("# A\n\nx\n\n## 1 B\n\ny\n", encoding="utf-8")
    (root / "contracts" / "b.md").write_text(
        "\n\n".join(f"Paragraph {i}." for i in range(7)) + "\n", encoding="utf-8"
    )
    doc = json.loads(build_index(load_project(root)).to_bytes())
    entries = {c["id"]: c for c in doc["contracts"]}
    assert entries["a"]["chunking"] == "by_heading"
    assert entries["a"]["metrics"] == {
        "chunked_clauses": 0.0,
        "chunks": 0.0,
        "gap_cv": 0.0,
        "gap_mean": 2.0,
        "headings": 2.0,
        "largest_share": 0.5,
        "lines": 4.0,
        "preamble_share": 0.0,
    }
    assert entries["b"]["chunking"] == "sliding_window"
    assert entries["b"]["metrics"]["headings"] == 0.0
    assert entries["b"]["metrics"]["windows"] == 2.0


# --- sliding windows with overlap ------------------------------------------------------


def test_windows_helper() -> None:
    assert [(list(own), list(ctx)) for own, ctx in windows(12)] == [
        ([0, 1, 2, 3, 4], []),
        ([5, 6, 7, 8, 9], [4]),
        ([10, 11], [9]),
    ]


def test_sliding_window_chunks_overlap_by_one_block(tmp_path: Path) -> None:
    paragraphs = [f"Paragraph {i} about the portal." for i in range(1, 13)]
    contract = parse("\n\n".join(paragraphs) + "\n")
    assert contract.chunking == "sliding_window"
    w1, w2, w3 = contract.clauses
    assert (w1.overlap, w2.overlap, w3.overlap) == (
        "",
        "Paragraph 5 about the portal.",
        "Paragraph 10 about the portal.",
    )
    assert w2.text.split("\n\n")[0] == "Paragraph 6 about the portal."
    root = tmp_path / "p"
    (root / "contracts").mkdir(parents=True)
    (root / "etki.yaml").write_text("id: p\nname: P\n", encoding="utf-8")
    (root / "contracts" / "doc.md").write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")
    node = build_index(load_project(root)).node("clause:doc#w2")
    assert node is not None and node.get("overlap") == "Paragraph 5 about the portal."


# --- long sections are split under the size limit -------------------------------------


def paragraph(i: int) -> str:
    return f"Paragraph {i} " + " ".join(["requirement"] * 50) + "."


LONG = (
    "---\nid: L\nedges:\n  - {type: requires, target: 'module:core'}\n---\n"
    "# L\n\nIntro.\n\n## 3 Payments [[module:pay]]\n\n"
    + "\n\n".join(paragraph(i) for i in range(1, 4))
    + "\n\nSee [[module:receipts]].\n\n"
    + "\n\n".join(paragraph(i) for i in range(4, 7))
    + "\n\n## 4 Other\n\nShort.\n"
)


def test_pack_keeps_blocks_whole_and_under_the_limit() -> None:
    lines = ["a" * 900, "", "b" * 900, "", "c" * 900, "", "d" * 3000]
    assert pack([(0, 1), (2, 3), (4, 5), (6, 7)], lines) == [(0, 3), (4, 5), (6, 7)]
    assert visible_length("a   b\n\n c") == 5


def test_long_section_is_split_into_chunks_that_inherit_edges() -> None:
    modules = {"core", "pay", "receipts"}
    contract = parse(LONG, module_ids=modules)
    clause = {c.number: c for c in contract.clauses}["3"]
    assert visible_length(clause.text) > MAX_CHUNK_CHARS
    assert len(clause.chunks) == 2
    assert all(visible_length(c.text) <= MAX_CHUNK_CHARS for c in clause.chunks)
    assert "\n\n".join(c.text for c in clause.chunks) == clause.text  # nothing lost
    first, second = clause.chunks
    assert first.text.startswith("Paragraph 1") and second.text.startswith("Paragraph 4")
    assert first.line == 12 and second.line == 20
    got = [{(e.target, e.type, e.provenance) for e in c.edges} for c in clause.chunks]
    inherited = {
        ("module:pay", "covers", "inherited"),  # the section's own heading
        ("module:core", "depends_on", "inherited"),
    }  # frontmatter
    assert got[0] == inherited | {("module:receipts", "covers", "explicit")}
    assert got[1] == inherited
    assert {c.number: len(c.chunks) for c in contract.clauses} == {"l": 0, "3": 2, "4": 0}


def test_chunks_are_index_nodes_with_derived_edges(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "contracts").mkdir(parents=True)
    (root / "etki.yaml").write_text("id: p\nname: P\n", encoding="utf-8")
    (root / "modules.yaml").write_text("- id: core\n- id: pay\n- id: receipts\n", encoding="utf-8")
    (root / "contracts" / "l.md").write_text(LONG, encoding="utf-8")
    index = build_index(load_project(root))
    chunk = index.node("chunk:L#3~2")
    assert chunk is not None and chunk.type == "chunk"
    assert (chunk.title, chunk.get("part"), chunk.get("parts"), chunk.get("clause")) == (
        "Payments (2/2)",
        2,
        2,
        "clause:L#3",
    )
    assert index.node("clause:L#3").get("chunks") == 2  # type: ignore[union-attr]
    out = {(e.target, e.type, e.provenance) for e in index.edges_from("chunk:L#3~2")}
    assert ("clause:L#3", "part_of", "derived") in out
    assert ("module:pay", "covers", "inherited") in out
    assert ("chunk:L#3~2", "precedes", "derived") in {
        (e.target, e.type, e.provenance) for e in index.edges_from("chunk:L#3~1")
    }
    assert json.loads(index.to_bytes())["counts"]["chunks"] == 2


def test_a_long_list_is_split_at_its_items() -> None:
    items = "\n".join(f"- Item {i} " + " ".join(["story"] * 70) for i in range(8))
    contract = parse(f"# A\n\nx\n\n## 1 Stories\n\n{items}\n\n## 2 End\n\ny\n")
    clause = contract.clauses[1]
    assert len(clause.chunks) >= 2
    assert all(visible_length(c.text) <= MAX_CHUNK_CHARS for c in clause.chunks)
    assert all(c.text.startswith("- Item") for c in clause.chunks)


@pytest.mark.skipif(not TDRS.is_dir(), reason="../shared/realdata/tdrs is absent")
def test_tdrs_long_sections_are_split_and_sample_sections_are_not() -> None:
    rfq = parse_contract(TDRS / "contracts" / "tdrs-rfq.md")
    by = {c.number: c for c in rfq.clauses}
    assert len(by["3.2"].chunks) == 4 and len(by["2.2"].chunks) == 2
    assert "ACF, not the contractor" in by["2.2"].chunks[1].text
    assert not by["5.2"].chunks
    sample = load_project(SAMPLE)
    assert not any(c.chunks for c in sample.clauses)


# --- headings and merging -----------------------------------------------------------------


def test_numbered_headings_fences_setext_and_hash_without_space() -> None:
    text = (
        "Title\n=====\n\nIntro.\n\n```\n## 9 Not a heading\n```\n\n#1 not a heading\n\n"
        "## 3 Scope\n\nScope.\n\n### 3.2 Identity\n\nId.\n\n#### 3.2.1 SSO\n\nSSO text.\n\n"
        "Fees\n----\n\nMoney.\n"
    )
    contract = parse(text)
    assert [(c.number, c.title, c.level, c.parent) for c in contract.clauses] == [
        ("title", "Title", 1, None),
        ("3", "Scope", 2, "doc#title"),
        ("3.2", "Identity", 3, "doc#3"),
        ("3.2.1", "SSO", 4, "doc#3.2"),
        ("fees", "Fees", 2, "doc#title"),
    ]
    assert "## 9 Not a heading" in contract.clauses[0].text
    assert "#1 not a heading" in contract.clauses[0].text
    assert "----" not in contract.clauses[4].text


def test_empty_parent_merged_into_first_child_leaves_an_alias(tmp_path: Path) -> None:
    text = (
        "---\nid: SOW\n---\n# SOW\n\nIntro.\n\n## 4 Integrations\n\n"
        "### 4.1 e-Devlet gateway\n\nGateway.\n\n### 4.2 LDAP\n\nLDAP.\n\n"
        "## 5 See\n\nSee [[SOW#4]] and [[SOW#4.0]].\n"
    )
    contract = parse(text)
    by = {c.number: c for c in contract.clauses}
    assert "4" not in by
    assert by["4.1"].title == "Integrations › e-Devlet gateway"
    assert by["4.1"].aliases == ("4",) and by["4.1"].text == "Gateway."
    root = tmp_path / "p"
    (root / "contracts").mkdir(parents=True)
    (root / "etki.yaml").write_text("id: p\nname: P\n", encoding="utf-8")
    (root / "contracts" / "sow.md").write_text(text, encoding="utf-8")
    index = build_index(load_project(root))
    assert index.aliases == (("clause:SOW#4", "clause:SOW#4.1"),)
    assert index.resolve("clause:SOW#4") == "clause:SOW#4.1"
    assert index.node("clause:SOW#4.1").get("aliases") == ("4",)  # type: ignore[union-attr]
    assert {e.target for e in index.edges_from("clause:SOW#5") if e.type == "cites"} == {
        "clause:SOW#4.1"
    }
