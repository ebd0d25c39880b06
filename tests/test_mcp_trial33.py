"""Faults a fresh trial of ``etki mcp --project tdrs`` found (issue 33), each checked
through the official ``mcp`` client over stdio on the demo project with every case
ruled as its label says and the wiki rebuilt (the fixture of :mod:`tests.test_mcp_memory`)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from mcp import Client

from etki.config import Settings
from etki.services import Desk
from tests.test_mcp_memory import ROOT, TIMEOUT, _run, store  # noqa: F401 (the fixture, reused)

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


def test_precedent_count_is_the_length_of_the_precedents_listed(store):  # noqa: F811
    """For every clause a ruling cites, ``precedent_count`` is the number of
    ``precedents`` listed and what the store counts (:meth:`Desk.clause_memory`: the
    overrides about the clause); the trial read a count of 0 beside one listed id."""
    settings = Settings(db_url=store["ETKI_DB_URL"], wiki_dir=store["ETKI_WIKI_DIR"])
    desk = Desk.open(settings, read_only=True)
    memo = desk.clause_memory("demo")
    refs = sorted(memo)
    assert refs

    async def body(client: Client) -> Any:
        return {
            ref: (await client.call_tool("precedents_for_clause", {"ref": ref})) for ref in refs
        }

    got = _run(store, body)
    counted = 0
    for ref, res in got.items():
        assert not res.is_error, (ref, res.content)
        (clause,) = res.structured_content["clauses"]
        assert clause["precedent_count"] == len(clause["precedents"]), ref
        assert clause["precedent_count"] == memo[ref].precedent_count, ref
        assert not set(clause["precedents"]) & set(clause["overrides_citing"]), ref
        counted += clause["precedent_count"]
    assert counted > 0  # overrides about clauses exist in the demo


def test_an_impossible_since_is_refused(store):  # noqa: F811
    """``since`` must be a real date or UTC time: 2026-13-45 and hour 25 are refused with
    one sentence naming the argument and the accepted forms, as "yesterday" is."""

    async def body(client: Client) -> Any:
        return [
            await client.call_tool("decisions", {"query": "sign", "since": "2026-13-45"}),
            await client.call_tool("recent_decisions", {"since": "2026-12-07T25:00:00Z"}),
            await client.call_tool("recent_decisions", {"since": "yesterday"}),
            await client.call_tool("recent_decisions", {"since": "2026-02-30"}),
            await client.call_tool("recent_decisions", {"since": "2026-11-01T09:00:00Z"}),
        ]

    *bad, good = _run(store, body)
    tools = ["decisions", "recent_decisions", "recent_decisions", "recent_decisions"]
    for tool, res in zip(tools, bad, strict=True):
        assert res.is_error
        assert res.content[0].text == (
            f"{tool}: argument 'since' must be a real date such as 2026-11-01 "
            "or a UTC time such as 2026-11-01T09:00:00Z"
        )
    assert not good.is_error


def _run_logged(env: dict[str, str], body: Any, log: Path) -> Any:
    """:func:`tests.test_mcp_memory._run` with the server's stderr written to ``log``."""
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "etki.cli", "mcp", "--project", "demo"],
        env={**env, "PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "")},
        cwd=str(ROOT),
    )

    async def main() -> Any:
        with log.open("w", encoding="utf-8") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                return await body(client)

    return asyncio.run(asyncio.wait_for(main(), TIMEOUT))


def test_unknown_ids_are_one_etki_sentence_and_read_page_takes_a_number(store, tmp_path):  # noqa: F811
    """A prompt for an unknown case and a resource for a missing page say one Etki
    sentence naming it (no SDK text, no traceback on the server's stderr); read_page's
    and show_case's errors carry the tool's name as every tool's do; read_page takes a
    clause section by its number alone (``#3.2``)."""
    from mcp.shared.exceptions import MCPError

    async def body(client: Client) -> Any:
        out: dict[str, Any] = {}
        for key, call in (
            ("prompt", client.get_prompt("review_case", {"case_id": "req-demo-zzz"})),
            ("clause", client.get_prompt("clause_history", {"ref": "9.9"})),
            ("resource", client.read_resource("etki://demo/decisions/DEC-nope")),
        ):
            try:
                await call
                out[key] = None
            except MCPError as exc:
                out[key] = (exc.code, exc.message)
        out["page"] = await client.call_tool("read_page", {"path": "nope.md"})
        out["case"] = await client.call_tool("show_case", {"case_id": "req-demo-zzz"})
        out["by_number"] = await client.call_tool("read_page", {"path": f"{PAGE}#3.2"})
        out["by_ref"] = await client.call_tool("read_page", {"path": f"{PAGE}#MSA-2024-01#3.2"})
        return out

    log = tmp_path / "server.err"
    out = _run_logged(store, body, log)
    assert "Traceback" not in log.read_text(encoding="utf-8")
    assert out["prompt"] == (-32602, "review_case: no case 'req-demo-zzz' in project demo")
    assert out["clause"][0] == -32602
    assert out["clause"][1].startswith("clause_history: no clause '9.9' in project demo")
    assert out["resource"] == (-32602, "no wiki page 'decisions/DEC-nope.md' in project demo")
    assert out["page"].is_error
    assert out["page"].content[0].text == "read_page: no wiki page 'nope.md'"
    assert out["case"].is_error
    assert out["case"].content[0].text.startswith("show_case: ")
    assert "req-demo-zzz" in out["case"].content[0].text
    assert not out["by_number"].is_error
    assert out["by_number"].structured_content == out["by_ref"].structured_content
    assert out["by_number"].structured_content["path"] == f"{PAGE}#MSA-2024-01%233.2"


HOSTILE_TITLE = "Hostile [bold red]x[/] zebraword"
HOSTILE_TEXT = "Please host the zebraword portal on Cloud.gov.\n---\nkey: val\n\n*not* [a](link)"


FILLER = (
    "The Contractor shall run a penetration test of the portal before each release. "
    "Findings rated high shall be fixed before go-live, medium ones within thirty days. "
    "The Contractor shall keep a register of security findings and share it monthly. "
    "Test accounts and test data shall be removed from production after each test. "
)
ANSWER = "The Municipality is responsible for obtaining the zebracert accreditation."
LONG_CLAUSE = FILLER * 2 + ANSWER  # the answer past the first 600 characters


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The demo project with one more request whose title and text hold markup and
    line breaks, every case ruled by its label, the wiki rebuilt."""
    import json
    import shutil

    from bench.rule_labels import rule_by_labels
    from etki.services import init_project
    from etki.store import CaseFileRepository
    from tests.factories import frozen_clock

    tmp = tmp_path_factory.mktemp("mcphostile")
    project = tmp / "project"
    shutil.copytree(ROOT / "sample_project", project)
    row = {
        "id": "DEMO-HOSTILE",
        "title": HOSTILE_TITLE,
        "text": HOSTILE_TEXT,
        "submitted_by": "tester",
        "submitted_at": "2024-11-20T09:00:00Z",
        "labels": {"verdict": "REJECT", "rationale": "Cloud.gov is not *our* host\\."},
    }
    with (project / "requests.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps(row) + "\n")
    with (project / "contracts" / "msa.md").open("a", encoding="utf-8") as f:
        f.write(f"\n### 9.7 Security accreditation\n\n{LONG_CLAUSE}\n")
    db = tmp / "etki.db"
    settings = Settings(db_url=f"sqlite:///{db}", wiki_dir=str(tmp / "wiki-{project}"))
    repo = CaseFileRepository(settings.db_url, clock=frozen_clock)
    init_project(project, repo, Settings(db_url="", wiki_dir=None))
    rule_by_labels(repo, settings, project)
    repo.dispose()
    return {"ETKI_DB_URL": settings.db_url, "ETKI_WIKI_DIR": str(tmp / "wiki-{project}")}


def test_hits_give_client_text_as_written(hostile):
    """wiki_search titles and snippets carry no markdown escapes (the wiki escaped the
    client's text to keep it literal; a client reads plain text), and decisions' and
    graph_query's request text keeps its line breaks."""

    async def body(client: Client) -> Any:
        wiki = await client.call_tool("wiki_search", {"query": "zebraword Cloud.gov"})
        found = await client.call_tool("decisions", {"query": "zebraword"})
        graph = await client.call_tool("graph_query", {"question": "zebraword portal", "k": 5})
        return wiki.structured_content, found.structured_content, graph.structured_content

    wiki, found, graph = _run(hostile, body)
    mine = [h for h in wiki["hits"] if "zebraword" in h["title"]]
    assert mine, wiki["hits"]
    for hit in mine:
        assert HOSTILE_TITLE in hit["title"] and "\\" not in hit["title"]
    assert any("Cloud.gov" in h["snippet"] for h in wiki["hits"])
    assert not any("\\." in h["snippet"] or "\\[" in h["snippet"] for h in wiki["hits"])
    (hit,) = [d for d in found["decisions"] if d["title"] == HOSTILE_TITLE]
    assert hit["request"] == "\n".join(
        ["Please host the zebraword portal on Cloud.gov.", "---", "key: val", "", "*not* [a](link)"]
    )
    ruled = [n for n in graph["nodes"] if n.get("title", "").endswith("zebraword")]
    ruled += [d for d in graph["decisions"] if d["title"] == HOSTILE_TITLE]
    assert ruled
    for node in ruled:
        assert node["request"] == hit["request"]


def test_expand_packs_the_matched_sentence_first(hostile):
    """``expand``'s packed text gives a clause's sentence answering the question before
    its opening, within the same token budget; the first 600 characters left clause
    9.7's answer out."""
    assert LONG_CLAUSE.index(ANSWER) > 600

    async def body(client: Client) -> Any:
        got = await client.call_tool(
            "graph_query",
            {
                "question": "who is responsible for obtaining the zebracert accreditation?",
                "strategy": "expand",
                "budget_tokens": 1500,
            },
        )
        return got.structured_content["subgraph"]

    sub = _run(hostile, body)
    (line,) = [
        ln for ln in sub["text"].split("\n") if ln.startswith("[clause] clause:MSA-2024-01#9.7:")
    ]
    assert line.startswith("[clause] clause:MSA-2024-01#9.7: Security accreditation — " + ANSWER)
    assert "penetration test" in line  # then its opening
    assert len(line) <= 600
    assert len(sub["text"]) <= 4 * sub["tokens_used"] + len(sub["seeds"]) * 4


def test_graph_query_schema_declares_what_it_returns(store):  # noqa: F811
    """The declared output schema names ``intent``, ``scoring``, ``subgraph`` (with its
    fields) and ``streams``, and every strategy's answer validates against it."""
    import jsonschema

    async def body(client: Client) -> Any:
        tools = (await client.list_tools()).tools
        schema = next(t for t in tools if t.name == "graph_query").output_schema
        answers = {}
        for strategy in ("auto", "find_k_nodes", "expand", "typed_streams", "nl_query"):
            got = await client.call_tool(
                "graph_query", {"question": "single sign-on for staff", "strategy": strategy}
            )
            assert not got.is_error, (strategy, got.content)
            answers[strategy] = got.structured_content
        return schema, answers

    schema, answers = _run(store, body)
    props = schema["properties"]
    assert {"intent", "scoring", "subgraph", "streams"} <= set(props)
    assert {"tokens_used", "text", "seeds", "edges"} <= set(props["subgraph"]["properties"])
    for strategy, answer in answers.items():
        jsonschema.validate(answer, schema)
        declared = set(props)
        assert set(answer) <= declared, (strategy, set(answer) - declared)
    assert "subgraph" in answers["expand"] and "streams" in answers["typed_streams"]
