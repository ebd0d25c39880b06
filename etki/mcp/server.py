"""The MCP server's wiring (one job: build the ``MCPServer`` and hold its rules), issue 33.

Rules every tool keeps, enforced here rather than per tool:

* read-only: each tool is annotated ``readOnlyHint: true``, ``destructiveHint: false``,
  ``idempotentHint: true``, ``openWorldHint: false``; nothing writes the store or wiki;
* a title, a description with an example and a declared output schema per tool;
* an unknown argument is refused (``additionalProperties: false`` in the input schema,
  and checked on the call, naming the argument and the ones the tool takes);
* the same for a prompt: an unknown, missing or bad prompt argument is one sentence
  (``review_case: unknown argument 'x'; it takes case_id``), nothing on stderr;
* ``true``/``false`` given for an integer argument is refused (``must be a whole
  number``), not read as 1 or 0;
* every value an error echoes is shown escaped (:func:`shown`);
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
from etki.text import printable

__all__ = [
    "SERVER_NAME",
    "add_tools",
    "argument_error",
    "build_server",
    "named",
    "read_only",
    "shown",
]

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
        """``MCPServer`` that refuses unknown arguments and words argument errors, for
        tools and prompts alike."""

        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            tool = self._tool_manager.get_tool(name)
            if tool is None:  # the SDK's "Unknown tool: NAME" echoes the name raw
                known = sorted(t.name for t in self._tool_manager.list_tools())
                raise ToolError(shown(f"no tool '{name[:80]}'; the tools are {', '.join(known)}"))
            props = tool.parameters.get("properties", {})
            problem = unknown_argument(name, arguments, set(props))
            problem = problem or boolean_for_integer(name, arguments, props)
            if problem:
                raise ToolError(problem)
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as exc:
                cause = exc.__cause__
                if isinstance(cause, ValidationError):
                    raise ToolError(argument_error(name, cause)) from None
                if type(cause) is ToolError:  # ours: the sentence alone, no SDK prefix
                    raise ToolError(shown(str(cause))) from None
                raise

        async def get_prompt(
            self, name: str, arguments: dict[str, Any] | None = None, context: Any = None
        ) -> Any:
            from mcp.shared.exceptions import MCPError
            from mcp_types import INVALID_PARAMS

            prompt = self._prompt_manager.get_prompt(name)
            if prompt is None:
                raise MCPError(INVALID_PARAMS, shown(f"no prompt '{name}'"))
            given = arguments or {}
            declared = prompt.arguments or []
            problem = unknown_argument(name, given, {a.name for a in declared})
            missing = [a.name for a in declared if a.required and a.name not in given]
            if not problem and missing:
                problem = f"{name}: argument '{missing[0]}' is missing"
            if problem:
                raise MCPError(INVALID_PARAMS, problem)
            try:
                return await super().get_prompt(name, given, context)
            except ValueError as exc:  # the SDK's wrapping of a validation error
                cause = exc.__cause__.__cause__ if exc.__cause__ else None
                if isinstance(cause, ValidationError):
                    raise MCPError(INVALID_PARAMS, argument_error(name, cause)) from None
                raise MCPError(INVALID_PARAMS, f"{name}: the arguments are not valid") from None

    return EtkiServer


def unknown_argument(name: str, arguments: dict[str, Any], known: set[str]) -> str | None:
    """``NAME: unknown argument 'X'; it takes A, B`` for the first argument of
    ``arguments`` not in ``known`` (its name shown escaped and cut, :func:`shown`), else
    None."""
    for key in arguments:
        if key not in known:
            return (
                f"{name}: unknown argument '{shown(str(key))[:40]}'; "
                f"it takes {', '.join(sorted(known)) or 'none'}"
            )
    return None


def boolean_for_integer(
    name: str, arguments: dict[str, Any], properties: dict[str, Any]
) -> str | None:
    """``NAME: argument 'K' must be a whole number`` when an integer argument is given
    ``true`` or ``false`` (pydantic's lax mode reads ``true`` as 1; JSON Schema's
    ``integer`` does not include booleans), else None."""
    for key, value in arguments.items():
        schema = properties.get(key, {})
        kinds = {schema.get("type")} | {s.get("type") for s in schema.get("anyOf", [])}
        if isinstance(value, bool) and "integer" in kinds and "boolean" not in kinds:
            return f"{name}: argument '{key}' must be a whole number"
    return None


def shown(message: str) -> str:
    """``message`` as an error may send it: values longer than the limit clipped
    (:func:`~etki.errors.clip_values`) and every control character, ESC included, made
    visible as stored text is shown (:func:`etki.text.printable`, one line): an echoed
    id or query can never drive the client's terminal."""
    return printable(clip_values(message), multiline=False)


def named(name: str, exc: EtkiError) -> str:
    """The message of ``exc`` (:func:`shown`) as a tool, prompt or resource says it:
    ``NAME: …``, the prefix added when the message does not start with it already."""
    text = shown(str(exc))
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
