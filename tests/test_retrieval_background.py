"""Background counts half in the graph's lexical ranking (issue 33: background sections
crowded the answering clause out of a question's top 5). A clause whose role is
``context`` (:func:`etki.triage.contract.clause_roles`) scores
:data:`~etki.retrieval.lexical.CONTEXT_WEIGHT` (the engine's DRAFT_WEIGHT, 0.5) times its
BM25 score; an ``admin`` or scope clause is not weighted. A real project folder, a real
SQLite store made by ``etki init``, the port the commands and the MCP server read."""

from __future__ import annotations

from pathlib import Path

import pytest

from etki.cli import run
from etki.config import Settings
from etki.retrieval.lexical import CONTEXT_WEIGHT, context_clauses, node_tokens
from etki.services import Desk
from etki.triage.engine import DRAFT_WEIGHT
from etki.triage.scoring import BM25Index

CONTRACT = """\
# Booking portal statement of work

## 1 Background

The booking portal of the sports halls is hosted by an old vendor; its hosting
contract ends this year. Booking data lives in spreadsheets.

## 2 Scope

### 2.1 Payments

The contractor shall build online card payments for hall bookings.

### 2.2 Servers

The client hosts the new booking portal on its own servers.

## 3 Invoicing

The contractor shall invoice the booking portal work monthly.
"""


@pytest.fixture
def port(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root = tmp_path / "halls"
    (root / "contracts").mkdir(parents=True)
    (root / "etki.yaml").write_text("id: halls\nname: Halls\n", encoding="utf-8")
    (root / "contracts" / "sow.md").write_text(CONTRACT, encoding="utf-8")
    monkeypatch.setenv("ETKI_DB_URL", f"sqlite:///{tmp_path / 'halls.db'}")
    monkeypatch.setenv("ETKI_WIKI_DIR", "")
    assert run(["init", str(root)]) == 0
    desk = Desk.open(Settings.from_env(), read_only=True)
    return desk.graph_port("halls")


def test_the_weight_is_the_engines_draft_weight():
    assert CONTEXT_WEIGHT == DRAFT_WEIGHT == 0.5


def test_only_background_clauses_are_weighted(port):
    assert context_clauses(port.graph) == {"clause:sow#1"}
    scorer = port.scorer
    weight = dict(zip(scorer.ids, scorer.weight.tolist(), strict=True))
    assert weight["clause:sow#1"] == 0.5
    # scope and admin (invoicing) clauses keep their BM25 score
    assert weight["clause:sow#2.1"] == weight["clause:sow#2.2"] == weight["clause:sow#3"] == 1.0


def test_a_background_clause_scores_half_its_bm25(port):
    scorer = port.scorer
    question = "Who hosts the booking portal?"
    docs = [node_tokens(port.graph.node(nid), scorer.languages) for nid in scorer.ids]
    plain = BM25Index([tuple(t for t in d if t not in scorer.stop) for d in docs]).array(
        scorer.terms(question)
    )
    unweighted = dict(zip(scorer.ids, plain.tolist(), strict=True))
    got = scorer.scores(question)
    # unweighted, the background led; weighted, the answering clause leads
    assert unweighted["clause:sow#1"] > unweighted["clause:sow#2.2"] > got["clause:sow#1"]
    assert got["clause:sow#1"] == pytest.approx(0.5 * unweighted["clause:sow#1"])
    assert got["clause:sow#2.2"] == pytest.approx(unweighted["clause:sow#2.2"])


def test_the_answering_clause_comes_before_the_background(port):
    ids = port.find_k_nodes("Who hosts the booking portal?", k=5, node_type="clause").ids
    assert ids[0] == "clause:sow#2.2"
    assert ids.index("clause:sow#1") > 0
    streams = port.typed_streams("Who hosts the booking portal?", k_per_type=5)
    clause_stream = dict(streams.streams)["clause/lexical"]
    assert clause_stream[0] == "clause:sow#2.2"


def test_a_background_clause_that_alone_matches_is_still_found(port):
    ids = port.find_k_nodes("Where are the spreadsheets kept?", k=5).ids
    assert ids[0] == "clause:sow#1"


def test_wiki_search_weighs_a_background_section_as_the_graph_does(tmp_path, monkeypatch):
    """issue 33: ``wiki_search`` ranks each clause section of a contract page on its own;
    a background section counts CONTEXT_WEIGHT there too (the graph scorer's set, one
    rule), so the answering section comes first; other pages keep their score."""
    from etki.mcp.memory import ProjectMemory

    root = tmp_path / "halls"
    (root / "contracts").mkdir(parents=True)
    (root / "etki.yaml").write_text("id: halls\nname: Halls\n", encoding="utf-8")
    (root / "contracts" / "sow.md").write_text(CONTRACT, encoding="utf-8")
    monkeypatch.setenv("ETKI_DB_URL", f"sqlite:///{tmp_path / 'halls.db'}")
    monkeypatch.setenv("ETKI_WIKI_DIR", str(tmp_path / "wiki-{project}"))
    assert run(["init", str(root)]) == 0
    memory = ProjectMemory(Settings.from_env(), "halls")
    found = memory.wiki_ranker()
    assert found is not None
    ranker = found[0]
    page = "entities/contracts/sow.md"
    weight = dict(zip(ranker.ids, ranker.weight.tolist(), strict=True))
    assert weight[f"{page}#sow%231"] == CONTEXT_WEIGHT
    assert {w for i, w in weight.items() if i != f"{page}#sow%231"} == {1.0}
    hits = [d.id for d in ranker.rank("Who hosts the booking portal?", 5)]
    assert hits[0] == f"{page}#sow%232.2"
    assert f"{page}#sow%231" in hits[1:]
    # alone matching, background is still found first
    assert ranker.rank("Where are the spreadsheets kept?", 5)[0].id == f"{page}#sow%231"


@pytest.mark.slow
def test_the_served_wiki_search_puts_the_answer_before_the_background(tmp_path, monkeypatch):
    """The same through ``etki mcp`` spawned over stdio and the official ``mcp`` client."""
    import asyncio
    import os
    import sys

    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    root = tmp_path / "halls"
    (root / "contracts").mkdir(parents=True)
    (root / "etki.yaml").write_text("id: halls\nname: Halls\n", encoding="utf-8")
    (root / "contracts" / "sow.md").write_text(CONTRACT, encoding="utf-8")
    env = {
        "ETKI_DB_URL": f"sqlite:///{tmp_path / 'halls.db'}",
        "ETKI_WIKI_DIR": str(tmp_path / "wiki-{project}"),
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert run(["init", str(root)]) == 0
    repo_root = Path(__file__).resolve().parents[1]
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "etki.cli", "mcp", "--project", "halls"],
        env={**env, "PYTHONPATH": str(repo_root), "PATH": os.environ.get("PATH", "")},
        cwd=str(repo_root),
    )

    async def main() -> list[str]:
        async with Client(params) as client:
            found = await client.call_tool(
                "wiki_search", {"query": "Who hosts the booking portal?", "limit": 5}
            )
            return [h["path"] for h in found.structured_content["hits"]]

    paths = asyncio.run(asyncio.wait_for(main(), 120.0))
    page = "entities/contracts/sow.md"
    assert paths[0] == f"{page}#sow%232.2"
    assert paths.index(f"{page}#sow%231") > 0
