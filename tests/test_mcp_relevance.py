"""Natural questions through ``etki mcp`` (issue 33 item 4), spawned over stdio and driven
by the official ``mcp`` client on a small real store: a long clause holding the
question's rarer words ranks above short nodes sharing one of its words (per-kind length
normalisation, :mod:`etki.retrieval.lexical`), and an acronym the index links to its
name is read the same way by ``graph_query``, ``decisions`` and ``wiki_search``
(:mod:`etki.retrieval.acronyms`)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from bench.rule_labels import rule_by_labels
from etki.config import Settings
from etki.services import init_project
from etki.store import CaseFileRepository
from tests.factories import frozen_clock

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 120.0  # seconds for a whole session; a hang fails the test instead of the suite

pytestmark = pytest.mark.slow

_DUTIES = (
    "ACF, not the contractor, will be responsible for hosting the deployed system and "
    "obtaining any necessary Authority to Operate (ATO). "
    "The contractor will deliver working software every two weeks, write automated tests "
    "for every feature, keep the documentation of the interfaces current, take part in the "
    "sprint reviews with the product owner, pair with the agency's engineers, report the "
    "progress of each sprint in writing, track defects in the shared issue tracker, keep the "
    "accessibility of every page at the level the agency requires, review the code of every "
    "change with a second engineer, publish the source code in the agency's repository, keep "
    "third-party libraries patched, record the decisions of the team, run usability sessions "
    "with grantees when the product owner asks, and hand over the knowledge of the system at "
    "the end of the period. "
)

CONTRACT = f"""---
id: rfq
title: Reporting System RFQ
---

# Reporting System RFQ

## 2 Scope

### 2.1 Background

The agency collects quarterly reports from grantees through a legacy system.

### 2.2 Expectations

{_DUTIES * 2}

### 2.3 Reports

States report work outcomes of program exiters under the Fiscal Responsibility Act (FRA).

### 2.4 Accessibility

Every page meets Section 508.
"""

MODULES = [
    ("auth.check", "Endpoint reporting whether the session is authorised"),
    ("ci.image", "Build image of the continuous integration runner"),
    *[(f"parsers.p{i}", f"Parser number {i} for quarterly grantee files") for i in range(20)],
]

WORKITEMS = [
    ("WI-001", "Update CI operating system image"),
    *[(f"WI-{i:03d}", f"Fix parser {i} date field") for i in range(2, 25)],
]

REQUESTS = [
    {
        "id": "REQ-1",
        "title": "New work outcomes report",
        "text": "States must start reporting the new Fiscal Responsibility Act work outcomes "
        "of exiters report next quarter.",
        "labels": {"verdict": "CHANGE_REQUEST", "clauses": ["2.3"]},
        "rationale": "A new report after award is a change request.",
    },
    {
        "id": "REQ-2",
        "title": "Date field rejected",
        "text": "The parser rejects a valid date in the quarterly file.",
        "labels": {"verdict": "IN_SCOPE", "clauses": ["2.2"]},
        "rationale": "A defect in delivered software.",
    },
]


def _project(folder: Path) -> Path:
    (folder / "contracts").mkdir(parents=True)
    (folder / "etki.yaml").write_text(
        "id: tiny\nname: Tiny reporting system\nlanguages: [en]\n"
        "reviewers:\n  - name: ayse\n    role: approver\n",
        encoding="utf-8",
    )
    (folder / "contracts" / "rfq.md").write_text(CONTRACT, encoding="utf-8")
    (folder / "modules.yaml").write_text(
        "".join(
            f"- id: {m}\n  path: src/{m.replace('.', '/')}/\n  summary: {s}\n  depends_on: []\n"
            for m, s in MODULES
        ),
        encoding="utf-8",
    )
    (folder / "workitems.yaml").write_text(
        "".join(
            f"- id: {w}\n  title: {t}\n  kind: fix\n  date: '2024-02-05'\n  modules: []\n"
            for w, t in WORKITEMS
        ),
        encoding="utf-8",
    )
    (folder / "requests.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in REQUESTS), encoding="utf-8"
    )
    return folder


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("mcprel")
    project = _project(tmp / "tiny")
    db = tmp / "etki.db"
    settings = Settings(db_url=f"sqlite:///{db}", wiki_dir=str(tmp / "wiki-{project}"))
    repo = CaseFileRepository(settings.db_url, clock=frozen_clock)
    init_project(project, repo, Settings(db_url="", wiki_dir=None))
    ruled, _ = rule_by_labels(repo, settings, project)
    repo.dispose()
    assert ruled == len(REQUESTS)
    return {"ETKI_DB_URL": settings.db_url, "ETKI_WIKI_DIR": str(tmp / "wiki-{project}")}


def _run(env: dict[str, str], body: Any) -> Any:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "etki.cli", "mcp", "--project", "tiny"],
        env={**env, "PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "")},
        cwd=str(ROOT),
    )

    async def main() -> Any:
        async with Client(params) as client:
            return await body(client)

    return asyncio.run(asyncio.wait_for(main(), TIMEOUT))


def test_the_clause_with_the_rare_words_ranks_above_short_nodes_sharing_one(store):
    async def body(client: Client) -> Any:
        found = await client.call_tool(
            "graph_query",
            {"question": "Who is responsible for getting the Authority to Operate?", "k": 10},
        )
        return [n["id"] for n in found.structured_content["nodes"]]

    ids = _run(store, body)
    clause = "clause:rfq#2.2"
    assert clause in ids
    # the work item shares "operating", the module "authorised": one word each
    for short in ("workitem:WI-001", "module:auth.check"):
        if short in ids:
            assert ids.index(clause) < ids.index(short), ids


def test_an_acronym_the_index_links_finds_the_decision_in_every_tool(store):
    async def body(client: Client) -> Any:
        graph = await client.call_tool(
            "graph_query", {"question": "Was the FRA report a change request?", "k": 5}
        )
        decisions = await client.call_tool("decisions", {"query": "FRA", "limit": 5})
        wiki = await client.call_tool("wiki_search", {"query": "FRA", "limit": 5})
        return graph.structured_content, decisions.structured_content, wiki.structured_content

    graph, decisions, wiki = _run(store, body)
    # no ruled case writes "FRA": only the contract (2.3) links it to the name
    name = "Fiscal Responsibility Act"
    ruled = [n for n in graph["nodes"] if n["type"] in ("decision", "precedent")]
    assert any(name in h.get("request", "") for h in ruled + graph["decisions"]), graph
    assert [name in d["request"] for d in decisions["decisions"]][:1] == [True], decisions
    said = [h["path"] for h in wiki["hits"]]
    assert any("new-work-outcomes-report--req-tiny" in p for p in said), said
