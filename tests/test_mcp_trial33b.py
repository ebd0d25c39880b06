"""Flaws a second integrator trial of ``etki mcp`` found (issue 33), each checked through
the official ``mcp`` client over stdio on the demo project with every case ruled as its
label says and the wiki rebuilt (the fixture of :mod:`tests.test_mcp_memory`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from etki.retrieval.wikirank import RelevanceRanker
from tests.test_mcp_memory import _run, store  # noqa: F401 (the fixture, reused)
from tests.test_mcp_trial33 import _run_logged

pytestmark = pytest.mark.slow


def test_prompt_arguments_are_checked_in_one_sentence(store, tmp_path):  # noqa: F811
    """An unknown or missing prompt argument is one Etki sentence (as the tools say it),
    with nothing on the server's stderr; every prompt argument has a description."""
    from mcp.shared.exceptions import MCPError

    async def body(client: Client) -> Any:
        out: dict[str, Any] = {}
        for key, name, args in (
            ("extra", "review_case", {"case_id": "x", "x": "y"}),
            ("missing", "review_case", {}),
            ("other", "clause_history", {"ref": "3.2", "\x1b[2J": "1"}),
        ):
            try:
                await client.get_prompt(name, args)
                out[key] = None
            except MCPError as exc:
                out[key] = (exc.code, exc.message)
        out["listed"] = (await client.list_prompts()).prompts
        return out

    log = tmp_path / "server.err"
    out = _run_logged(store, body, log)
    assert log.read_text(encoding="utf-8") == ""
    assert out["extra"] == (-32602, "review_case: unknown argument 'x'; it takes case_id")
    assert out["missing"] == (-32602, "review_case: argument 'case_id' is missing")
    assert out["other"] == (-32602, "clause_history: unknown argument '␛[2J'; it takes ref")
    args = [a for p in out["listed"] for a in p.arguments or []]
    assert {a.name for a in args} == {"case_id", "ref"}
    assert all(a.description for a in args)


def test_echoed_values_are_escaped_and_booleans_are_no_numbers(store):  # noqa: F811
    """A control character in an echoed id is shown as a control picture (as stored text
    is, :func:`etki.text.printable`), never raw; ``k: true`` is refused, not read as 1."""

    async def body(client: Client) -> Any:
        return [
            await client.call_tool("read_node", {"id": "<x>\x1b[2J"}),
            await client.call_tool("graph_query", {"question": "hosting", "k": True}),
            await client.call_tool("wiki_search", {"query": "hosting", "limit": False}),
            await client.call_tool("x\x1b[2J", {}),
        ]

    node, k, limit, tool = _run(store, body)
    assert tool.is_error and tool.content[0].text.startswith("no tool 'x␛[2J'; the tools are ")
    assert node.is_error
    text = node.content[0].text
    assert "\x1b" not in text
    assert text.startswith("read_node: no node '<x>␛[2J' in project demo")
    assert k.is_error and k.content[0].text == "graph_query: argument 'k' must be a whole number"
    assert limit.is_error
    assert limit.content[0].text == "wiki_search: argument 'limit' must be a whole number"


def test_decisions_sharing_no_word_are_none_and_triage_has_no_case_id(store):  # noqa: F811
    """A query sharing no content word with any decision gets none and a note saying so;
    triage stores nothing, so it returns no case id that would resolve nowhere."""

    async def body(client: Client) -> Any:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        return (
            await client.call_tool("decisions", {"query": "Were xylophones quartzite?"}),
            await client.call_tool("decisions", {"query": "single sign-on"}),
            await client.call_tool("triage", {"text": "Please build an iOS app for staff."}),
            tools["triage"].description,
        )

    none, some, triage, described = _run(store, body)
    assert none.structured_content["decisions"] == []
    assert none.structured_content["note"] == (
        "no decision matches 'Were xylophones quartzite?' (a hit shares at least "
        "one content word with the query)"
    )
    assert some.structured_content["decisions"] and "note" not in some.structured_content
    got = triage.structured_content
    assert got["stored"] is False and "case_id" not in got["decision"]
    assert got["decision"]["verdict"] in ("IN_SCOPE", "CHANGE_REQUEST", "REJECT")
    assert "no case id" in described


def _case_of(wiki: Path, path: str) -> str | None:
    text = (wiki / path.partition("#")[0]).read_text(encoding="utf-8")
    front = text[: text.find("\n---", 3) + 1]
    found = re.search(r"^case_id: (\S+)$", front, re.MULTILINE)
    return found.group(1) if found else None


def test_wiki_search_gives_one_hit_per_page_and_case_and_clause_text(store):  # noqa: F811
    """No page, and no ruled case (its decision, precedent and change-request pages),
    takes two slots; a clause found by its number shows the clause's text, not its facts
    line (``Kind inclusion; ...``)."""

    async def body(client: Client) -> Any:
        out = {}
        for query in ("single sign-on for staff", "mobile app", "reports export"):
            out[query] = await client.call_tool("wiki_search", {"query": query, "limit": 10})
        out["3.2"] = await client.call_tool("wiki_search", {"query": "3.2", "limit": 1})
        return out

    got = _run(store, body)
    wiki = Path(store["ETKI_WIKI_DIR"].replace("{project}", "demo"))
    cased = 0
    for query in ("single sign-on for staff", "mobile app", "reports export"):
        hits = got[query].structured_content["hits"]
        paths = [h["path"] for h in hits]
        assert len(paths) == len(set(paths)), query
        cases = [c for c in (_case_of(wiki, p) for p in paths) if c is not None]
        assert len(cases) == len(set(cases)), (query, paths)
        cased += len(cases)
    assert cased > 0
    (clause,) = got["3.2"].structured_content["hits"]
    assert not clause["snippet"].startswith("Kind ")
    page = (wiki / clause["path"].partition("#")[0]).read_text(encoding="utf-8").splitlines()
    assert page[clause["line"] - 1].startswith(clause["snippet"][:40])


def test_an_acronym_matches_its_name_as_a_phrase_not_word_by_word():
    """ "FRA" finds the documents writing "Fiscal Responsibility Act" (or "FRA"), not one
    holding "act" and "responsibility" apart; spelling the name finds the acronym."""
    docs = [
        ("name", "States must report under the new Fiscal Responsibility Act (FRA)."),
        ("short", "Send confirmation emails for FRA report submissions."),
        ("loose", "Any act taken in response to a direction; responsibility stays with us."),
        ("other", "Host the portal on the cloud."),
    ]
    ranker = RelevanceRanker(docs)
    assert {d.id for d in ranker.rank("FRA", 10)} == {"name", "short"}
    spelled = {d.id for d in ranker.rank("Fiscal Responsibility Act", 10)}
    assert {"name", "short"} <= spelled
    assert ranker.rank("zebra", 10) == []
