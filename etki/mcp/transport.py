"""The stdio transport of ``etki mcp`` (one job: serve over stdin/stdout and answer every
line, even one the SDK cannot read)."""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from etki.config import Settings

__all__ = ["serve_stdio", "unreadable_reply"]


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

    from etki.mcp.server import build_server

    server = build_server(settings, project_id)
    anyio.run(_serve_stdio, server)
