"""Faults a fresh trial of ``etki mcp --project tdrs`` found (issue 33), each checked
through the official ``mcp`` client over stdio on the demo project with every case
ruled as its label says and the wiki rebuilt (the fixture of :mod:`tests.test_mcp_memory`)."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

import pytest
from mcp import Client

from tests.test_mcp_memory import _run, store  # noqa: F401 (the fixture, reused)

pytestmark = pytest.mark.slow

PAGE = "entities/contracts/MSA-2024-01.md"


def _number(path: str) -> str:
    """The clause number of a hit's address (``""`` for a hit that is no clause)."""
    _, _, anchor = path.partition("#")
    return unquote(anchor).rpartition("#")[2] if anchor else ""


def test_wiki_search_finds_a_clause_by_its_number_first(store):  # noqa: F811
    """A query that is a clause number alone names that clause (then its sub-clauses in
    contract order), as ``etki wiki search`` and Hafıza rank it; it found nothing."""

    async def body(client: Client) -> Any:
        out = {}
        for query in ("3.2", "§ 3.2", "3"):
            got = await client.call_tool("wiki_search", {"query": query, "limit": 8})
            out[query] = got.structured_content["hits"]
        return out

    found = _run(store, body)
    for query in ("3.2", "§ 3.2"):
        first = found[query][0]
        assert first["path"] == f"{PAGE}#MSA-2024-01%233.2", query
        assert first["title"] == "MSA-2024-01#3.2 — Single sign-on for municipal staff"
        assert first["snippet"]
    numbers = [_number(h["path"]) for h in found["3"]]
    assert numbers[:4] == ["3.1", "3.2", "3.3", "3.4"] or numbers[:5] == [
        "3",
        "3.1",
        "3.2",
        "3.3",
        "3.4",
    ], numbers
