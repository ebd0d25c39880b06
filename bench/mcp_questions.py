"""Ask a reviewer's questions through the MCP server as an assistant does (issue 33, the
hand-judged check): spawn ``etki mcp --project ID`` over stdio with the official ``mcp``
client, call ``graph_query`` (k 5) and ``wiki_search`` (limit 5) for each question of a
question file (``docs/questions/ID.jsonl``: JSON lines with ``id`` and ``query``), and
print the top 5 of each with the text a hit carries, for a person to judge.

    python -m bench.mcp_questions PROJECT_ID QUESTIONS.jsonl [--first N] [--json OUT]
    (ETKI_DB_URL, ETKI_WIKI_DIR as for ``etki mcp``)

Reads only; the server is the installed ``etki`` of this interpreter.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

TOP = 5
"""Hits shown per tool and question."""


def _line(hit: dict[str, Any]) -> str:
    """One hit as a line: type, id and the first text it carries."""
    said = (hit.get("matched") or [""])[0] or hit.get("reason") or hit.get("summary") or ""
    return f"{hit['type']:<9} {hit['id'][:60]:<60} {' '.join(str(said).split())[:110]}"


async def ask(project: str, questions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each question with the structured answers of ``graph_query`` and ``wiki_search``."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    env = {k: v for k, v in os.environ.items() if k.startswith("ETKI_") or k == "PATH"}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "etki.cli", "mcp", "--project", project], env=env
    )
    out = []
    async with Client(params) as client:
        for q in questions:
            graph = await client.call_tool("graph_query", {"question": q["query"], "k": TOP})
            wiki = await client.call_tool("wiki_search", {"query": q["query"], "limit": TOP})
            out.append({"q": q, "graph": graph.structured_content, "wiki": wiki.structured_content})
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("project")
    p.add_argument("questions", type=Path)
    p.add_argument("--first", type=int, default=10, help="ask the first N questions (10)")
    p.add_argument("--json", type=Path, help="also write the answers to this file")
    args = p.parse_args()
    rows = [json.loads(x) for x in args.questions.read_text(encoding="utf-8").splitlines() if x]
    answers = asyncio.run(ask(args.project, rows[: args.first]))
    if args.json:
        args.json.write_text(json.dumps(answers, ensure_ascii=False, indent=1), encoding="utf-8")
    for a in answers:
        print(f"\n## {a['q']['id']} {a['q']['query']}")
        print("  graph_query:")
        for hit in a["graph"]["nodes"][:TOP]:
            print("   ", _line(hit))
        print("  wiki_search:")
        for hit in a["wiki"]["hits"][:TOP]:
            print(f"    {hit['path'][:70]:<70} {' '.join(hit['snippet'].split())[:100]}")


if __name__ == "__main__":
    main()
