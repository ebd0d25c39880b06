"""MCP server (DESIGN.md, "Layout": ``mcp.py``): the decision memory and the knowledge
index served to tools over stdio with the official ``mcp`` SDK (``MCPServer``).

A tiny, read-only tool surface, each tool annotated ``readOnlyHint: true``,
``destructiveHint: false``, ``idempotentHint: true``, ``openWorldHint: false``:

* ``graph_query(question, strategy?, k?, budget_tokens?)``: :meth:`GraphQueryPort.query`
  over the project's knowledge index and precedents. ``strategy`` is ``auto`` (default:
  routed by rule), ``find_k_nodes``, ``expand``, ``nl_query`` or ``typed_streams``;
  ``k`` 1-50 (default 10); ``budget_tokens`` 100-8000 (default 1500). Returns the
  strategy used and why, the nodes, the subgraph summary for ``expand`` (edges, tokens,
  packing, what was dropped), the tool call a model picked and every fallback.
* ``wiki_search(query, limit?)``: :func:`etki.wiki.search.search` over the project's wiki
  (token-AND, the engine's folding); ``limit`` 1-100 (default 20). Returns path, line and
  snippet per page; an empty list when the wiki is off or not built.

Nothing here writes: no tool touches the store or the wiki. The project is the one given
with ``--project``, or the only stored one. The port is rebuilt when the index or the set
of ruled cases changed since the last call, so precedents ruled meanwhile are seen.
Client text inside results (precedent titles) is returned as JSON data, never executed.
"""

from __future__ import annotations

import json
import threading
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError

from etki.config import Settings
from etki.errors import EtkiError, InputError, clip_values

__all__ = ["SERVER_NAME", "build_server", "serve_stdio", "unreadable_reply"]

SERVER_NAME = "etki"
MAX_DROPPED_SHOWN = 50
"""At most this many dropped nodes are listed by id in a ``graph_query`` answer (all are
counted)."""


class _Memory:
    """The project's port, rebuilt when the index hash or the ruled cases change."""

    def __init__(self, settings: Settings, project_id: str | None) -> None:
        from etki.services import Desk

        self.settings = settings
        self.desk = Desk.open(settings, read_only=True)
        stored = self.desk.project_ids()
        if project_id is None:
            if len(stored) != 1:
                raise InputError(
                    "etki mcp: give --project; stored projects: "
                    + (", ".join(stored) or "none (run `etki init PROJECT_DIR`)")
                )
            project_id = stored[0]
        self.desk.project(project_id)  # a clear NotFoundError for an unknown id
        self.project_id = project_id
        self._lock = threading.Lock()
        self._key: tuple[str, tuple[tuple[str, int], ...]] | None = None
        self._port: Any = None

    def port(self) -> Any:
        ruled = self.desk.queue(self.project_id, status="ruled")
        key = (
            self.desk.index_hash(self.project_id),
            tuple(sorted((c.case_id, c.version) for c in ruled)),
        )
        with self._lock:
            if self._port is None or key != self._key:
                self._port = self.desk.graph_port(self.project_id)
                self._key = key
            return self._port


def graph_answer(result: Any) -> dict[str, Any]:
    """The JSON answer of ``graph_query`` for a :class:`QueryResult`."""
    out: dict[str, Any] = {
        "strategy": result.strategy,
        "reason": result.reason,
        "intent": result.intent,
        "scoring": result.scoring,
        "nodes": [
            {"id": n.id, "type": n.type, "title": n.title, "score": n.score} for n in result.nodes
        ],
        "fallbacks": list(result.fallbacks),
    }
    if result.tool_call is not None:
        out["tool_call"] = {"name": result.tool_call[0], "arguments": result.tool_call[1]}
        out["attempts"] = result.attempts
    sub = result.subgraph
    if sub is not None:
        by_type: dict[str, int] = {}
        for d in sub.dropped:
            by_type[d.type] = by_type.get(d.type, 0) + 1
        out["subgraph"] = {
            "packing": sub.packing,
            "intent": sub.intent,
            "budget_tokens": sub.budget_tokens,
            "tokens_used": sub.tokens_used,
            "token_method": sub.token_method,
            "seeds": list(sub.seeds),
            "edges": [{"source": e.source, "target": e.target, "type": e.type} for e in sub.edges],
            "dropped_count": len(sub.dropped),
            "dropped_by_type": by_type,
            "dropped": [{"id": d.id, "reason": d.reason} for d in sub.dropped[:MAX_DROPPED_SHOWN]],
        }
    if result.streams:
        out["streams"] = {name: list(ids) for name, ids in result.streams}
    return out


def build_server(settings: Settings, project_id: str | None = None) -> Any:
    """An ``MCPServer`` with the two read-only tools for ``project_id`` (or the only
    stored project). Raises :class:`InputError`/``NotFoundError`` for a missing or
    unknown project."""
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations

    memory = _Memory(settings, project_id)
    server = MCPServer(
        SERVER_NAME,
        instructions=(
            f"Read-only retrieval over the scope contract, module graph, work items and "
            f"precedents of project '{memory.project_id}'. Tools never change anything."
        ),
    )
    read_only = ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )

    @server.tool(
        name="graph_query",
        annotations=read_only,
        description="Search the project's knowledge graph (contract clauses, code "
        "modules, work items, precedents). strategy: auto (default), "
        "find_k_nodes, expand, nl_query or typed_streams.",
    )
    def graph_query(
        question: Annotated[str, Field(min_length=1, max_length=4000)],
        strategy: Literal["auto", "find_k_nodes", "expand", "nl_query", "typed_streams"]
        | None = None,
        k: Annotated[int, Field(ge=1, le=50)] = 10,
        budget_tokens: Annotated[int, Field(ge=100, le=8000)] = 1500,
    ) -> dict[str, Any]:
        if not question.strip():
            raise ToolError("question is empty")
        try:
            result = memory.port().query(
                question, k=k, budget_tokens=budget_tokens, strategy=strategy
            )
        except EtkiError as exc:
            raise ToolError(clip_values(str(exc))) from exc
        return graph_answer(result)

    @server.tool(
        name="wiki_search",
        annotations=read_only,
        description="Search the project's decision wiki (token-AND, "
        "case-insensitive); returns path, line and snippet per page.",
    )
    def wiki_search(
        query: Annotated[str, Field(max_length=1000)],
        limit: Annotated[int, Field(ge=1, le=100)] = 20,
    ) -> dict[str, Any]:
        from etki.wiki.search import search

        root = settings.wiki_path(memory.project_id)
        if root is None or not root.is_dir() or not query.strip():
            return {"hits": [], "wiki": "off" if root is None else "empty"}
        hits = search(root, query, limit=limit)
        return {
            "hits": [{"path": h.path, "line": h.line, "snippet": h.snippet} for h in hits],
            "wiki": "on",
        }

    return server


def _lenient(raw: object) -> object:
    """``raw`` read by Python's ``json``, which also reads what the SDK's parser refuses
    (a lone surrogate escape ``\\ud800``); None when it cannot."""
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _request_id(data: object) -> str | int | None:
    """The ``id`` of an unreadable message when it can still be told, so the client's
    waiting request gets its answer; None otherwise."""
    ident = data.get("id") if isinstance(data, dict) else None
    return ident if isinstance(ident, str | int) and not isinstance(ident, bool) else None


def _has_surrogate(data: object) -> bool:
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def unreadable_reply(exc: Exception) -> dict[str, Any] | None:
    """The JSON-RPC error answering a line the SDK's stdio transport could not read as a
    message (it hands the server the exception, and the server answered nothing, so the
    client waited for ever): ``-32700`` "Parse error" for a line that is not JSON (a lone
    surrogate ``\\ud800`` is not Unicode text, so not JSON either), ``-32600`` "Invalid
    Request" for JSON that is no JSON-RPC message; ``id`` the request's when it can be
    read, else null (JSON-RPC 2.0, section 5.1). None for a blank line (nobody waits on it)."""
    errors = exc.errors() if isinstance(exc, ValidationError) else []
    raw: object = errors[0].get("input") if errors else None
    if isinstance(raw, str) and not raw.strip():
        return None
    parse = not errors or errors[0].get("type") == "json_invalid"
    data = _lenient(raw)
    if parse and _has_surrogate(data):
        why = "Parse error: a lone surrogate (such as \\ud800) is not Unicode text"
    elif parse:
        why = "Parse error: the line is not JSON"
    else:
        why = "Invalid Request: JSON, but not a JSON-RPC message"
    return {
        "jsonrpc": "2.0",
        "id": _request_id(data),
        "error": {"code": -32700 if parse else -32600, "message": why},
    }


class _Answering:
    """The read side of the stdio transport as the server sees it: every message passed
    on; an unreadable line (the SDK's exception item) answered with
    :func:`unreadable_reply` through the transport's own writer (so frames never
    interleave) and not passed on."""

    def __init__(self, inner: Any, write: Any) -> None:
        self._inner, self._write = inner, write

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        from mcp.shared.message import SessionMessage
        from mcp_types import jsonrpc_message_adapter

        while True:
            item = await self._inner.receive()
            if not isinstance(item, Exception):
                return item
            reply = unreadable_reply(item)
            if reply is not None:
                message = jsonrpc_message_adapter.validate_python(reply)
                await self._write.send(SessionMessage(message))

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> _Answering:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _Answering:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


async def _serve_stdio(server: Any) -> None:
    """What ``MCPServer.run_stdio_async`` does, with :class:`_Answering` between the
    SDK's stdio transport and the server (the SDK offers no public place for it, so
    its ``_lowlevel_server`` is run here as that method runs it; ``mcp<3``)."""
    from mcp.server.stdio import stdio_server

    lowlevel = server._lowlevel_server
    async with stdio_server() as (read_stream, write_stream):
        await lowlevel.run(
            _Answering(read_stream, write_stream),
            write_stream,
            lowlevel.create_initialization_options(),
        )


def serve_stdio(settings: Settings, project_id: str | None = None) -> None:
    """Run the server over stdin/stdout until the client closes the connection. A line
    that is not a JSON-RPC message is answered with an error (:func:`unreadable_reply`),
    never left unanswered."""
    import anyio

    server = build_server(settings, project_id)
    anyio.run(_serve_stdio, server)
