"""The MCP server (issue 5, item 8): ``etki mcp`` in a subprocess over stdio, driven by
the official SDK's client. Every tool is annotated read-only; graph_query answers with
the strategy and why; wiki_search searches the wiki; bad arguments are tool errors; the
store is not written."""

from __future__ import annotations

import asyncio
import hashlib
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from etki.config import Settings
from etki.services import init_project
from etki.store import CaseFileRepository
from tests.factories import frozen_clock

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 60.0  # seconds for a whole session; a hang fails the test instead of the suite


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("mcp")
    db = tmp / "etki.db"
    repo = CaseFileRepository(f"sqlite:///{db}", clock=frozen_clock)
    init_project(ROOT / "sample_project", repo, Settings(db_url="", wiki_dir=None))
    repo.dispose()
    wiki = tmp / "wiki-demo" / "decisions"
    wiki.mkdir(parents=True)
    (wiki / "DEC-20261129-sso.md").write_text(
        "# SSO-Anmeldung für Mitarbeiter\n\nVerdict: IN_SCOPE, clause 3.2 single sign-on.\n",
        encoding="utf-8",
    )
    return {
        "ETKI_DB_URL": f"sqlite:///{db}",
        "ETKI_WIKI_DIR": str(tmp / "wiki-{project}"),
        "db": str(db),
    }


def _run(env: dict[str, str], body: Any) -> Any:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "etki.cli", "mcp", "--project", "demo"],
        env={
            "ETKI_DB_URL": env["ETKI_DB_URL"],
            "ETKI_WIKI_DIR": env["ETKI_WIKI_DIR"],
            "PYTHONPATH": str(ROOT),
            "PATH": os.environ.get("PATH", ""),
        },
        cwd=str(ROOT),
    )

    async def main() -> Any:
        async with Client(params) as client:
            return await body(client)

    return asyncio.run(asyncio.wait_for(main(), TIMEOUT))


def _digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


TOOLS = [
    "decisions",
    "disputed_clauses",
    "graph_query",
    "precedents_for_clause",
    "read_node",
    "read_page",
    "recent_decisions",
    "show_case",
    "triage",
    "wiki_search",
]


def test_tools_are_read_only(store):
    async def body(client: Client) -> Any:
        return (await client.list_tools()).tools

    tools = _run(store, body)
    assert sorted(t.name for t in tools) == TOOLS  # issue 33 added all but two
    for tool in tools:
        ann = tool.annotations
        assert ann is not None and ann.read_only_hint is True
        assert ann.destructive_hint is False and ann.idempotent_hint is True
        assert ann.open_world_hint is False
    graph = next(t for t in tools if t.name == "graph_query")
    props = graph.input_schema["properties"]
    assert set(props) == {"question", "strategy", "k", "budget_tokens"}
    assert graph.input_schema["required"] == ["question"]


def test_graph_query_and_wiki_search_answer(store):
    before = _digest(store["db"])

    async def body(client: Client) -> Any:
        impact = await client.call_tool(
            "graph_query",
            {
                "question": "What depends on the notification dispatcher notify.core?",
                "budget_tokens": 400,
            },
        )
        lookup = await client.call_tool(
            "graph_query", {"question": "staff single sign-on", "strategy": "typed_streams", "k": 4}
        )
        wiki = await client.call_tool("wiki_search", {"query": "sso anmeldung", "limit": 5})
        bad = await client.call_tool("graph_query", {"question": "x", "k": 0})
        bad_strategy = await client.call_tool(
            "graph_query", {"question": "x", "strategy": "drop_tables"}
        )
        return impact, lookup, wiki, bad, bad_strategy

    impact, lookup, wiki, bad, bad_strategy = _run(store, body)
    assert not impact.is_error
    data = impact.structured_content
    assert data["strategy"] == "expand" and "'depends'" in data["reason"]
    assert data["nodes"][0]["id"] == "module:notify.core"
    sub = data["subgraph"]
    assert sub["packing"] == "bfs" and sub["tokens_used"] <= 400
    assert sub["dropped_count"] >= len(sub["dropped"]) and "ceil(chars/4)" in sub["token_method"]
    assert lookup.structured_content["strategy"] == "typed_streams"
    assert len(lookup.structured_content["nodes"]) == 4
    assert wiki.structured_content["wiki"] == "on"
    assert [h["path"] for h in wiki.structured_content["hits"]] == ["decisions/DEC-20261129-sso.md"]
    assert bad.is_error and bad_strategy.is_error
    assert _digest(store["db"]) == before  # nothing was written
