"""``etki mcp`` and ``etki eval``: the MCP server and the measurements.

    etki mcp [--project ID]                           MCP server over stdio
    etki eval retrieval QUERIES.jsonl --project ID    recall@k, precision@k, MRR
    etki eval triage [FILE_OR_PROJECT_DIR ...] [--all-realdata] [--project ID] [--loeo] ...
                                                      per engagement and pooled figures
                                                      (:mod:`etki.commands.evaluation`)

The retrieval evaluation reads the project as stored by ``etki init`` (``ETKI_DB_URL``) and the
endpoints of ``ETKI_EMBED_*``/``ETKI_RERANK_BASE_URL``/``ETKI_LLM_*`` when set (the
figures then say which scoring was used). ``--exclude-borderline`` drops rows marked
``"borderline": true``. ``--json`` prints the report as JSON. Exit codes as ``etki``:
0 ok, 2 bad input.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from etki.config import Settings


__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add ``mcp`` and ``eval`` to the ``etki`` parser."""
    mcp = subparsers.add_parser("mcp", help="serve the read-only decision memory over MCP (stdio)")
    mcp.add_argument("--project", help="project id (default: the only stored project)")
    mcp.set_defaults(handler=run_mcp)

    ev = subparsers.add_parser("eval", help="measure retrieval or triage against labels")
    sub = ev.add_subparsers(dest="eval_command", required=True)
    ret = sub.add_parser("retrieval", help="recall@k, precision@k, MRR of every method")
    ret.add_argument("queries")
    ret.add_argument("--project", required=True)
    ret.add_argument("--k", type=int, default=10, help="cut-off k (default 10)")
    ret.add_argument(
        "--budget", type=int, default=1500, help="token budget of expand (default 1500)"
    )
    ret.add_argument("--seeds", type=int, default=5, help="seeds of expand (default 5)")
    ret.add_argument("--exclude-borderline", action="store_true")
    ret.add_argument("--per-query", action="store_true", help="print every query's figures")
    ret.add_argument("--json", action="store_true")
    ret.set_defaults(handler=run_eval_retrieval)
    from etki.commands.evaluation import add_parser as add_triage

    add_triage(sub)


def run_mcp(args: argparse.Namespace, settings: Settings) -> int:
    """``etki mcp``: serve until stdin closes."""
    from etki.mcp import serve_stdio

    serve_stdio(settings, args.project)
    return 0


def ports_without_own(port, ruled, queries, settings: Settings) -> dict:  # noqa: ANN001
    """Query id -> a port over ``port``'s index and the ``ruled`` cases less the one
    whose request id is the query's id (issue 33 item 6: a request must not find its
    own decision); only for queries that have one."""
    from etki.retrieval.graph import RetrievalGraph
    from etki.retrieval.port import GraphQueryPort

    out = {}
    ids = {q.id for q in queries}
    for case in ruled:
        if case.request_id in ids:
            rest = [c for c in ruled if c.case_id != case.case_id]
            graph = RetrievalGraph(port.graph.index, rest)
            out[case.request_id] = GraphQueryPort(
                graph, languages=port.scorer.languages, settings=settings
            )
    return out


def run_eval_retrieval(args: argparse.Namespace, settings: Settings) -> int:
    """``etki eval retrieval``."""
    from etki.console import echo_lines, emit_json
    from etki.errors import InputError
    from etki.retrieval.evaluate import load_queries, run_retrieval
    from etki.services import Desk

    if args.k < 1 or args.budget < 0 or args.seeds < 1:
        raise InputError("eval retrieval: --k and --seeds must be >= 1, --budget >= 0")
    port = Desk.open(settings, read_only=True).graph_port(args.project)
    queries, problems = load_queries(args.queries, port.graph)
    if args.exclude_borderline:
        queries = [q for q in queries if not q.borderline]
    if not queries:
        raise InputError(f"{args.queries}: no query names a node of project {args.project}")
    ruled = Desk.open(settings, read_only=True).queue(args.project, status="ruled")
    report = run_retrieval(
        port,
        queries,
        k=args.k,
        budget_tokens=args.budget,
        seeds=args.seeds,
        problems=problems,
        ports_without=ports_without_own(port, ruled, queries, settings),
        ruled=len(ruled),
    )
    if args.json:
        emit_json(report.to_dict(), indent=1, sort_keys=True)
        return 0
    echo_lines(report.lines())
    if args.per_query:
        for score in report.scores:
            echo_lines(["", f"{score.method}: query recall precision rr returned"])
            echo_lines(
                f"  {qid:<14} {r:.2f} {p:.2f} {rr:.2f} {n}" for qid, r, p, rr, n in score.rows
            )
    return 0
