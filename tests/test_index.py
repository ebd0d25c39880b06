"""etki.knowledge.index: nodes, typed edges, canonical bytes and the content hash."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest

from etki.knowledge import KnowledgeIndex, build_index, load_project

TDRS = Path(__file__).resolve().parents[2] / "shared" / "realdata" / "tdrs"

CONTRACT = """---
id: MSA
edges:
  - {type: needs, target: "module:core"}
---
# MSA

Intro.

## 1 Purpose

### 1.1 Why

Because.

### 1.2 Terms

Terms.

## 3 Identity [[module:auth]]

### 3.2 SSO

Staff sign in via [[ANNEX#Directory|the directory annex]], see [[#1.0]] and [[WI-1]].
Broken: [[MSA#99]] and [[nowhere]].
"""
ANNEX = """# Annex

Intro.

## 10 Directory

Directory text, cites [[MSA#3.2]].
"""


def make(root: Path) -> Path:
    (root / "contracts").mkdir(parents=True)
    (root / "etki.yaml").write_text("id: demo\nname: Demo\n", encoding="utf-8")
    (root / "contracts" / "msa.md").write_text(CONTRACT, encoding="utf-8")
    (root / "contracts" / "annex.md").write_text(ANNEX, encoding="utf-8")
    (root / "modules.yaml").write_text(
        "- id: core\n- id: auth\n  depends_on: [core]\n  summary: Login\n", encoding="utf-8"
    )
    (root / "workitems.yaml").write_text(
        "- id: WI-1\n  title: Login page\n  modules: [auth, auth]\n  effort_days: 2\n",
        encoding="utf-8",
    )
    return root


@pytest.fixture()
def index(tmp_path: Path) -> KnowledgeIndex:
    return build_index(load_project(make(tmp_path / "p")))


def edges_of(index: KnowledgeIndex, source: str) -> set[tuple[str, str, str, float]]:
    return {(e.target, e.type, e.provenance, e.weight) for e in index.edges_from(source)}


def test_nodes_have_stable_ids(index: KnowledgeIndex) -> None:
    ids = [n.id for n in index.nodes]
    assert ids == sorted(ids)
    assert set(ids) == {
        "clause:MSA#msa",
        "clause:MSA#1.1",
        "clause:MSA#1.2",
        "clause:MSA#3.2",
        "clause:annex#annex",
        "clause:annex#10",
        "module:core",
        "module:auth",
        "workitem:WI-1",
    }
    clause = index.node("clause:MSA#3.2")
    assert clause is not None and clause.type == "clause"
    assert (clause.get("ref"), clause.get("number"), clause.get("source")) == (
        "MSA#3.2",
        "3.2",
        "contracts/msa.md",
    )
    assert clause.title == "Identity › SSO" and clause.get("parent") == "clause:MSA#msa"
    module = index.node("module:auth")
    assert module is not None and (module.title, module.text) == ("auth", "Login")
    item = index.node("workitem:WI-1")
    assert item is not None and item.get("effort_days") == 2.0


def test_edges_types_provenance_and_weights(index: KnowledgeIndex) -> None:
    assert edges_of(index, "module:auth") == {("module:core", "depends_on", "explicit", 1.0)}
    assert edges_of(index, "workitem:WI-1") == {("module:auth", "touches", "mapped", 0.8)}
    assert edges_of(index, "clause:MSA#3.2") == {
        ("clause:annex#10", "cites", "explicit", 1.0),  # resolved by heading title
        ("clause:MSA#1.1", "cites", "explicit", 1.0),  # 1.0 was merged into 1.1
        ("workitem:WI-1", "relates_to", "explicit", 1.0),
        ("module:auth", "covers", "explicit", 1.0),  # on "3 Identity", merged into 3.2
        ("module:core", "depends_on", "inherited", 0.6),  # frontmatter, alias "needs"
        ("clause:MSA#msa", "part_of", "derived", 0.5),
    }
    assert edges_of(index, "clause:annex#10") >= {("clause:MSA#3.2", "cites", "explicit", 1.0)}
    assert ("clause:MSA#msa", "part_of", "derived", 0.5) in edges_of(index, "clause:MSA#1.2")
    keys = [(e.source, e.target, e.type, e.provenance) for e in index.edges]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    types = {e.type for e in index.edges}
    assert types <= {canonical for _, canonical in index.edge_types}


def test_unresolved_links_are_listed_not_dropped(index: KnowledgeIndex) -> None:
    assert [(u.source, u.target) for u in index.unresolved] == [
        ("clause:MSA#3.2", "clause:MSA#99"),
        ("clause:MSA#3.2", "nowhere"),
    ]
    targets = {e.target for e in index.edges}
    assert "nowhere" not in targets and "clause:MSA#99" not in targets


def test_bytes_are_canonical_and_hash_is_their_digest(index: KnowledgeIndex) -> None:
    data = index.to_bytes()
    assert data.endswith(b"}\n") and not data.endswith(b"\n\n") and b"\r" not in data
    doc = json.loads(data)
    assert json.dumps(doc, sort_keys=True, ensure_ascii=False, indent=1).encode() + b"\n" == data
    assert doc["counts"] == {
        "clauses": 6,
        "chunks": 0,
        "modules": 2,
        "workitems": 1,
        "edges": len(index.edges),
        "unresolved": 2,
        "candidates": 0,
    }
    assert [c["chunking"] for c in doc["contracts"]] == ["by_heading", "by_heading"]
    assert re.fullmatch(r"sha256:[0-9a-f]{16}", index.hash)
    assert index.hash == "sha256:" + hashlib.sha256(data).hexdigest()[:16]
    assert KnowledgeIndex.from_bytes(data).to_bytes() == data


def test_same_project_same_bytes_wherever_it_lives(tmp_path: Path) -> None:
    first = build_index(load_project(make(tmp_path / "a")))
    again = build_index(load_project(tmp_path / "a"))
    elsewhere = build_index(load_project(make(tmp_path / "deeper" / "b")))
    assert first.to_bytes() == again.to_bytes() == elsewhere.to_bytes()
    assert first.hash == again.hash == elsewhere.hash
    assert str(tmp_path).encode() not in first.to_bytes()


def test_any_change_changes_the_hash(tmp_path: Path) -> None:
    root = make(tmp_path / "p")
    before = build_index(load_project(root)).hash
    path = root / "contracts" / "annex.md"
    path.write_text(ANNEX.replace("Directory text", "Directory text."), encoding="utf-8")
    assert build_index(load_project(root)).hash != before


def test_write_only_when_bytes_change(index: KnowledgeIndex, tmp_path: Path) -> None:
    target = tmp_path / "out" / "index-demo.json"
    assert index.write(target) is True
    assert target.read_bytes() == index.to_bytes()
    assert index.write(target) is False
    assert [p.name for p in target.parent.iterdir()] == ["index-demo.json"]


@pytest.mark.skipif(not TDRS.is_dir(), reason="../shared/realdata/tdrs is absent")
def test_tdrs_index_is_deterministic(tmp_path: Path) -> None:
    first = build_index(load_project(TDRS))
    copy = tmp_path / "tdrs"
    shutil.copytree(TDRS, copy)
    second = build_index(load_project(copy))
    assert first.to_bytes() == second.to_bytes() and first.hash == second.hash
    counts = json.loads(first.to_bytes())["counts"]
    assert (counts["modules"], counts["workitems"]) == (248, 200)
    assert counts["clauses"] == len(load_project(TDRS).clauses)
    assert first.unresolved == ()
    depends = [e for e in first.edges if e.type == "depends_on"]
    assert len(depends) == 774 and all(e.provenance == "explicit" for e in depends)
    touches = [e for e in first.edges if e.type == "touches"]
    assert touches and all(e.provenance == "mapped" for e in touches)
    assert first.node("clause:tdrs-rfq#3.1.2") is not None


TALENTMAP = TDRS.parent / "talentmap"


def test_clause_nodes_score_plain_text_and_keep_the_markdown(tmp_path: Path) -> None:
    root = make(tmp_path / "p")
    (root / "contracts" / "pws.md").write_text(
        '1. TASKS\n--------\n\nThe [<span class="underline">portal</span>](https://x.org)\n'
        "is *built*.\n\n### Key Personnel\n\nA lead.\n\n2. BILLING\n----------\n\nMonthly.\n",
        encoding="utf-8",
    )
    index = build_index(load_project(root))
    node = index.node("clause:pws#1")
    assert node is not None and node.title == "TASKS"
    assert node.text == "The portal is built.\nKey Personnel\nA lead."
    assert node.get("markdown").startswith('The [<span class="underline">portal</span>]')
    assert node.get("subtitles") == (("Key Personnel", 7),)
    assert index.node("clause:pws#key-personnel") is None
    again = KnowledgeIndex.from_bytes(index.to_bytes())
    assert again.to_bytes() == index.to_bytes()
    from etki.triage.graph import read_graph  # the engine's view carries both texts

    clause = next(c for c in read_graph(again).clauses if c.ref == "pws#1")
    assert clause.text == node.get("markdown") and clause.plain == node.text
    assert clause.subtitles == (("Key Personnel", 7),)
    old = json.loads(index.to_bytes())  # an index written before "markdown" existed
    for raw in old["nodes"]:
        if raw["id"] == "clause:pws#1":
            raw["text"] = raw.pop("markdown")
    clause = next(c for c in read_graph(KnowledgeIndex.from_dict(old)).clauses if c.ref == "pws#1")
    assert clause.plain == "The portal is built.\nKey Personnel\nA lead."


@pytest.mark.skipif(
    not (TDRS.is_dir() and TALENTMAP.is_dir()), reason="../shared/realdata is absent"
)
def test_real_indexes_hold_no_markup_words() -> None:
    from etki.retrieval.lexical import node_tokens

    for root in (TDRS, TALENTMAP):
        index = build_index(load_project(root))
        words: set[str] = set()
        for node in index.nodes_of("clause") + index.nodes_of("chunk"):
            words.update(
                node_tokens(node, ["en"]) if node.type == "clause" else node.text.lower().split()
            )
            assert "<" not in node.text and "](" not in node.text, node.id
        assert not words & {"span", "https", "http", "underline", "www"}, root.name
    pws = build_index(load_project(TALENTMAP))
    chunk = pws.node("chunk:talentmap-pws#5~1")
    assert chunk is not None and chunk.get("subtitle") == "Personnel"
    assert [n.get("number") for n in pws.in_order("clause")][2:] == [str(n) for n in range(1, 13)]
