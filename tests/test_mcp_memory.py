"""The memory served to AI assistants (issue 33): ``etki mcp`` spawned over stdio and
driven by the official ``mcp`` client, on the demo project with every case ruled as its
label says (agreed rulings and overrides) and the wiki rebuilt."""

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

from bench.rule_labels import rule_by_labels
from etki import __version__
from etki.config import Settings
from etki.services import init_project
from etki.store import CaseFileRepository
from tests.factories import frozen_clock

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 120.0  # seconds for a whole session; a hang fails the test instead of the suite

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("mcpmem")
    db = tmp / "etki.db"
    settings = Settings(db_url=f"sqlite:///{db}", wiki_dir=str(tmp / "wiki-{project}"))
    repo = CaseFileRepository(settings.db_url, clock=frozen_clock)
    init_project(ROOT / "sample_project", repo, Settings(db_url="", wiki_dir=None))
    ruled, overrides = rule_by_labels(repo, settings, ROOT / "sample_project")
    repo.dispose()
    assert ruled == 40 and 0 < overrides < ruled  # agreed rulings and precedents both
    return {"ETKI_DB_URL": settings.db_url, "ETKI_WIKI_DIR": str(tmp / "wiki-{project}")}


def _run(env: dict[str, str], body: Any) -> Any:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "etki.cli", "mcp", "--project", "demo"],
        env={**env, "PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "")},
        cwd=str(ROOT),
    )

    async def main() -> Any:
        async with Client(params) as client:
            return await body(client)

    return asyncio.run(asyncio.wait_for(main(), TIMEOUT))


def _db_digest(env: dict[str, str]) -> str:
    return hashlib.sha256(
        Path(env["ETKI_DB_URL"].removeprefix("sqlite:///")).read_bytes()
    ).hexdigest()


def test_every_hit_has_text_and_every_id_resolves(store):
    before = _db_digest(store)

    async def body(client: Client) -> Any:
        found = await client.call_tool(
            "graph_query", {"question": "single sign-on for staff", "k": 5}
        )
        data = found.structured_content
        ids = [n["id"] for n in data["nodes"]] + [d["id"] for d in data["decisions"]]
        read = {i: await client.call_tool("read_node", {"id": i}) for i in ids}
        pages = [d["page"] for d in data["decisions"]]
        read_pages = [await client.call_tool("read_page", {"path": p}) for p in pages]
        expand = await client.call_tool(
            "graph_query",
            {
                "question": "what depends on notify.core?",
                "strategy": "expand",
                "budget_tokens": 400,
            },
        )
        return data, read, read_pages, expand.structured_content

    data, read, read_pages, expand = _run(store, body)
    clause = next(n for n in data["nodes"] if n["type"] == "clause")
    assert clause["opening"] and clause["matched"]  # its sentence and its first lines
    assert any("sign-on" in s.lower() or "sso" in s.lower() for s in clause["matched"])
    ruled_nodes = [n for n in data["nodes"] if n["type"] in ("decision", "precedent")]
    rulings = ruled_nodes + data["decisions"]
    assert rulings, "agreed and overridden rulings are found too"
    for hit in rulings:
        assert hit["ruling"] in ("IN_SCOPE", "CHANGE_REQUEST", "REJECT")
        assert hit["reviewer"] == "ayse" and hit["ruled_at"] and hit["reason"]
    cases = [hit["case_id"] for hit in rulings]
    assert len(cases) == len(set(cases)), "a ruled case is listed once"
    for nid, res in read.items():
        assert not res.is_error, (nid, res.content)
        assert res.structured_content["id"] == nid
    assert all(not p.is_error and p.structured_content["text"] for p in read_pages)
    sub = expand["subgraph"]
    assert sub["text"] and len(sub["text"]) <= 4 * sub["tokens_used"] + len(sub["seeds"]) * 4
    assert _db_digest(store) == before  # nothing was written


def test_agreed_rulings_are_graph_nodes(store):
    """Issue 33 item 1: an agreed change request and an agreed rejection are nodes of the
    graph (type ``decision``), found by ``graph_query`` with their ruling's text."""

    async def body(client: Client) -> Any:
        found = {}
        listed = await client.call_tool("recent_decisions", {"limit": 100})
        for ruling in ("CHANGE_REQUEST", "REJECT"):
            agreed = [
                d
                for d in listed.structured_content["decisions"]
                if d["ruling"] == ruling and not d["override"]
            ]
            assert agreed, f"the demo store has an agreed {ruling}"
            hit = agreed[0]
            query = await client.call_tool("graph_query", {"question": hit["request"], "k": 10})
            read = await client.call_tool("read_node", {"id": hit["id"]})
            found[ruling] = (hit, query.structured_content, read)
        return found

    for ruling, (hit, answer, read) in _run(store, body).items():
        nodes = {n["id"]: n for n in answer["nodes"]}
        assert hit["id"] == f"decision:{hit['case_id']}"
        node = nodes.get(hit["id"])
        assert node is not None, (ruling, list(nodes))
        assert node["type"] == "decision"  # not a precedent: the reviewer agreed
        assert node["verdict"] == node["ruling"] == ruling and node["override"] is False
        assert node["reviewer"] == "ayse" and node["ruled_at"] and node["reason"]
        assert node["request"]
        assert not read.is_error and read.structured_content["type"] == "decision"


def test_wiki_search_puts_the_decision_before_the_modules_listing_it(store):
    """Issue 33 item 4: a module page lists the titles of the decisions touching it; a
    question in a decision's words finds the decision's own page first, not the
    module pages that list it (their listing is anchor text, weighted zero)."""

    async def body(client: Client) -> Any:
        listed = await client.call_tool("recent_decisions", {"limit": 100})
        out = []
        for hit in listed.structured_content["decisions"]:
            found = await client.call_tool("wiki_search", {"query": hit["title"], "limit": 5})
            out.append((hit, found.structured_content["hits"]))
        return out

    firsts = []
    for hit, hits in _run(store, body):
        assert hits, hit["title"]
        firsts.append(hits[0]["path"])
        module_ranks = [i for i, h in enumerate(hits) if h["path"].startswith("entities/modules/")]
        own = [i for i, h in enumerate(hits) if hit["case_id"] in h["path"]]
        if own and module_ranks:
            assert own[0] < module_ranks[0], (hit["title"], [h["path"] for h in hits])
    assert not any(p.startswith("entities/modules/") or p == "index.md" for p in firsts)


def test_decision_memory_tools(store):
    async def body(client: Client) -> Any:
        agreed = await client.call_tool("decisions", {"query": "mobile app", "limit": 50})
        crs = await client.call_tool(
            "decisions", {"query": "mobile app", "ruling": "CHANGE_REQUEST"}
        )
        recent = await client.call_tool("recent_decisions", {"limit": 3})
        by_number = await client.call_tool("precedents_for_clause", {"ref": "3.2"})
        numbered = await client.call_tool("graph_query", {"question": "3.2", "k": 3})
        disputed = await client.call_tool("disputed_clauses", {})
        triage = await client.call_tool(
            "triage", {"text": "Please also build a native iOS app for citizens."}
        )
        after = await client.call_tool("recent_decisions", {"limit": 100})
        return agreed, crs, recent, by_number, numbered, disputed, triage, after

    agreed, crs, recent, by_number, numbered, disputed, triage, after = _run(store, body)
    hits = agreed.structured_content["decisions"]
    assert agreed.structured_content["ruled_cases"] == 40
    assert any(not h["override"] for h in hits), "a ruling the reviewer agreed with is found"
    assert all(h["ruling"] == "CHANGE_REQUEST" for h in crs.structured_content["decisions"])
    assert len(recent.structured_content["decisions"]) == 3
    clauses = by_number.structured_content["clauses"]
    assert [c["id"] for c in clauses] == ["clause:MSA-2024-01#3.2"]
    assert numbered.structured_content["nodes"][0]["id"] == "clause:MSA-2024-01#3.2"
    assert isinstance(disputed.structured_content["disputed"], list)
    assert triage.structured_content["stored"] is False
    assert triage.structured_content["decision"]["verdict"] in ("CHANGE_REQUEST", "REJECT")
    assert len(after.structured_content["decisions"]) == 40  # triage stored nothing


def test_show_case_is_etki_show_json(store):
    import json
    import subprocess

    async def body(client: Client) -> Any:
        recent = await client.call_tool("recent_decisions", {"limit": 1})
        case_id = recent.structured_content["decisions"][0]["case_id"]
        return case_id, await client.call_tool("show_case", {"case_id": case_id})

    case_id, shown = _run(store, body)
    cli = subprocess.run(
        [sys.executable, "-m", "etki.cli", "show", case_id, "--json"],
        env={**store, "PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "")},
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
        timeout=120,
    )
    assert shown.structured_content == json.loads(cli.stdout)


def test_hygiene_resources_prompts_and_version(store):
    async def body(client: Client) -> Any:
        tools = (await client.list_tools()).tools
        empty = await client.call_tool("wiki_search", {"query": "  "})
        unknown = await client.call_tool("graph_query", {"question": "sso", "bogus": 1})
        bad = await client.call_tool("graph_query", {"question": "sso", "k": "many"})
        since = await client.call_tool("recent_decisions", {"since": "last week"})
        nothing = await client.call_tool("read_node", {"id": "clause:nope#9.9"})
        resources = (await client.list_resources()).resources
        templates = (await client.list_resource_templates()).resource_templates
        decision = next(r for r in resources if "/decisions/" in str(r.uri))
        page = await client.read_resource(str(decision.uri))
        prompts = (await client.list_prompts()).prompts
        recent = await client.call_tool("recent_decisions", {"limit": 1})
        prompt = await client.get_prompt(
            "review_case", {"case_id": recent.structured_content["decisions"][0]["case_id"]}
        )
        wiki = await client.call_tool("wiki_search", {"query": "who pays for the mobile app?"})
        return (
            client.server_info,
            tools,
            empty,
            unknown,
            bad,
            since,
            nothing,
            templates,
            page,
            prompts,
            prompt,
            wiki,
        )

    init, tools, empty, unknown, bad, since, nothing, templates, page, prompts, prompt, wiki = _run(
        store, body
    )
    assert init is not None and init.version == __version__
    for tool in tools:
        assert tool.title and "Example:" in (tool.description or "")
        assert tool.output_schema and tool.output_schema["type"] == "object"
        assert tool.input_schema.get("additionalProperties") is False
        assert tool.annotations is not None and tool.annotations.read_only_hint is True
    assert empty.is_error and empty.content[0].text == "wiki_search: query is empty"
    assert unknown.is_error and "unknown argument 'bogus'" in unknown.content[0].text
    assert (
        bad.is_error and bad.content[0].text == "graph_query: argument 'k' must be a whole number"
    )
    assert "http" not in bad.content[0].text and "pydantic" not in bad.content[0].text
    assert since.is_error and "argument 'since'" in since.content[0].text
    assert nothing.is_error and "no node 'clause:nope#9.9'" in nothing.content[0].text
    assert "etki://demo/decisions/{name}" in [t.uri_template for t in templates]
    assert page.contents[0].text.startswith("---")
    assert {p.name for p in prompts} == {"review_case", "clause_history"}
    assert "Past rulings" in prompt.messages[0].content.text
    hits = wiki.structured_content["hits"]
    assert wiki.structured_content["wiki"] == "on" and hits  # not token-AND any more
    assert all(h["snippet"] for h in hits)


def test_wiki_search_finds_an_uncited_clause_as_its_own_section(store):
    """A contract page holds the whole contract; search returns each clause section as
    a hit of its own (``path#anchor``, titled ``ref — title``, the snippet its matched
    sentence at the right page line), and read_page reads that section by the address
    the hit gave or by the clause ref. MSA-2024-01#2.3 is cited by no ruling."""
    page = "entities/contracts/MSA-2024-01.md"

    async def body(client: Client) -> Any:
        found = await client.call_tool(
            "wiki_search", {"query": "Who writes and translates the content itself?", "limit": 5}
        )
        hit = found.structured_content["hits"][0]
        read = await client.call_tool("read_page", {"path": hit["path"]})
        by_ref = await client.call_tool("read_page", {"path": f"{page}#MSA-2024-01#2.3"})
        whole = await client.call_tool("read_page", {"path": page})
        missing = await client.call_tool("read_page", {"path": f"{page}#MSA-2024-01%239.9"})
        return hit, read, by_ref, whole, missing

    hit, read, by_ref, whole, missing = _run(store, body)
    assert hit["path"] == f"{page}#MSA-2024-01%232.3"
    assert hit["title"] == "MSA-2024-01#2.3 — Content management"
    assert (
        hit["snippet"] == "Writing and translating the content itself is the Municipality's task."
    )
    root = Path(store["ETKI_WIKI_DIR"].replace("{project}", "demo"))
    lines = (root / page).read_text(encoding="utf-8").split("\n")
    assert hit["snippet"] in lines[hit["line"] - 1]
    section = read.structured_content
    assert not read.is_error and section["path"] == hit["path"]
    assert section["title"] == hit["title"]
    assert section["text"].startswith('## MSA-2024-01#2.3 — Content management <a id="')
    assert "Writing and translating the content itself" in section["text"]
    assert "## MSA-2024-01#2.4" not in section["text"]  # the section alone, not what follows
    assert section["text"] in whole.structured_content["text"]
    assert by_ref.structured_content == section
    assert missing.is_error
    assert missing.content[0].text == (
        f"read_page: no clause section '#MSA-2024-01%239.9' on '{page}'"
    )
