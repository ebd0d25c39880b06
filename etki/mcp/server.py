"""The MCP server's wiring (one job: build the ``MCPServer`` and hold its rules), issue 33.

Rules every tool keeps, enforced here rather than per tool:

* read-only: each tool is annotated ``readOnlyHint: true``, ``destructiveHint: false``,
  ``idempotentHint: true``, ``openWorldHint: false``; nothing writes the store or wiki;
* a title, a description with an example and a declared output schema per tool;
* an unknown argument is refused (``additionalProperties: false`` in the input schema,
  and checked on the call, naming the argument and the ones the tool takes);
* a bad argument is answered with one Etki sentence naming the tool, the argument and
  what is wrong (:func:`argument_error`), never the validator's own text or URL;
* ``serverInfo.version`` is Etki's version (``etki --version``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from etki.config import Settings
from etki.errors import EtkiError, clip_values
from etki.mcp.briefs import EtkiTool

__all__ = ["SERVER_NAME", "add_tools", "argument_error", "build_server", "named", "read_only"]

SERVER_NAME = "etki"


def read_only() -> Any:
    """The annotations of every Etki tool (read-only, idempotent, closed world)."""
    from mcp.types import ToolAnnotations

    return ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )


def _what(err: dict[str, Any]) -> str:
    kind, ctx = err.get("type", ""), err.get("ctx") or {}
    if kind == "missing":
        return "is missing"
    if kind in ("greater_than_equal", "greater_than"):
        return f"must be at least {ctx.get('ge', ctx.get('gt'))}"
    if kind in ("less_than_equal", "less_than"):
        return f"must be at most {ctx.get('le', ctx.get('lt'))}"
    if kind == "string_too_long":
        return f"is longer than {ctx.get('max_length')} characters"
    if kind == "string_too_short":
        return "is empty" if ctx.get("min_length") == 1 else "is too short"
    if kind == "literal_error":
        return f"must be one of {ctx.get('expected')}"
    if kind.startswith("int_") or kind == "int_type":
        return "must be a whole number"
    if kind.startswith("string_"):
        return "must be text"
    if kind.startswith("bool"):
        return "must be true or false"
    return "is not valid"


def argument_error(tool: str, exc: ValidationError) -> str:
    """One sentence for the first problem of ``exc``: ``TOOL: argument 'NAME' must be at
    least 1`` (the value given is never echoed: it is the caller's data)."""
    errors = exc.errors()
    if not errors:
        return f"{tool}: the arguments are not valid"
    err = errors[0]
    loc = [str(p) for p in err.get("loc", ()) if not isinstance(p, int)]
    name = loc[0] if loc else "?"
    return f"{tool}: argument '{name}' {_what(dict(err))}"


def _server_class() -> Any:
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    class EtkiServer(MCPServer):
        """``MCPServer`` that refuses unknown arguments and words argument errors."""

        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            tool = self._tool_manager.get_tool(name)
            if tool is not None:
                known = set(tool.parameters.get("properties", {}))
                for key in arguments:
                    if key not in known:
                        raise ToolError(
                            f"{name}: unknown argument '{clip_values(str(key))[:40]}'; "
                            f"it takes {', '.join(sorted(known)) or 'none'}"
                        )
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as exc:
                cause = exc.__cause__
                if isinstance(cause, ValidationError):
                    raise ToolError(argument_error(name, cause)) from None
                if type(cause) is ToolError:  # ours: the sentence alone, no SDK prefix
                    raise ToolError(str(cause)) from None
                raise

    return EtkiServer


def named(name: str, exc: EtkiError) -> str:
    """The message of ``exc`` (values clipped) as a tool, prompt or resource says it:
    ``NAME: …``, the prefix added when the message does not start with it already."""
    text = clip_values(str(exc))
    return text if text.startswith(f"{name}: ") else f"{name}: {text}"


def _etki_errors(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``fn`` with an :class:`EtkiError` it raises turned into the tool error the client
    reads: ``NAME: message`` (:func:`named`), as every tool words it."""
    from mcp.server.mcpserver.exceptions import ToolError

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except EtkiError as exc:
            raise ToolError(named(name, exc)) from None

    return run


def add_tools(server: Any, tools: list[EtkiTool]) -> None:
    """Register ``tools`` on ``server`` with :func:`read_only` annotations, a closed
    input schema and their declared output schema."""
    for t in tools:
        server.add_tool(
            _etki_errors(t.fn, t.name),
            name=t.name,
            title=t.title,
            description=t.description,
            annotations=read_only(),
            structured_output=True,
        )
        registered = server._tool_manager.get_tool(t.name)
        registered.parameters["additionalProperties"] = False
        registered.fn_metadata.output_schema = {"type": "object", **t.output}


def build_server(settings: Settings, project_id: str | None = None) -> Any:
    """An ``MCPServer`` with Etki's read-only tools, resources and prompts for
    ``project_id`` (or the only stored project). Raises :class:`InputError` or
    ``NotFoundError`` for a missing or unknown project."""
    from etki import __version__
    from etki.mcp import decision_tools, prompts, read_tools, resources, search_tools
    from etki.mcp.memory import ProjectMemory

    memory = ProjectMemory(settings, project_id)
    server = _server_class()(
        SERVER_NAME,
        title="Etki decision memory",
        version=__version__,
        instructions=(
            f"Read-only memory of project '{memory.project_id}': its scope contract, "
            "modules, work items, every ruled request (agreed and overridden) and the "
            "decision wiki. Search with graph_query, decisions or wiki_search; read "
            "any id a result gives with read_node, read_page or show_case. Tools never "
            "change anything."
        ),
    )
    add_tools(server, search_tools.tools(memory))
    add_tools(server, read_tools.tools(memory))
    add_tools(server, decision_tools.tools(memory))
    resources.register(server, memory)
    prompts.register(server, memory)
    return server
