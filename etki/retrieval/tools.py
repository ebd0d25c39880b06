"""The whitelist of read-only index tools a model may pick (one job: say what may be
called and check a call against it).

``nl_query`` never runs model-written queries (no Cypher, no SQL, no code): a model may
only name one of :data:`TOOLS` with arguments that pass its JSON schema. The whitelist
is a module constant behind a read-only mapping; nothing a request, a question or a
model says can add, rename or widen a tool: names are compared exactly (no folding, no
prefix matching), unknown argument names are rejected, and every string and number is
bounded. Every tool only reads the retrieval graph.

:func:`validate_call` implements the small JSON-schema subset the schemas use (object
with ``properties``/``required``/``additionalProperties: false``; string with
``minLength``/``maxLength``/``enum``/``pattern``; integer with ``minimum``/``maximum``;
booleans are not integers) and fills in defaults.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from etki.errors import EtkiError
from etki.retrieval.graph import NODE_TYPES

__all__ = ["TOOLS", "ToolCallError", "ToolSpec", "tool_catalogue", "validate_call"]


class ToolCallError(EtkiError):
    """A model's answer is not exactly one valid whitelisted tool call."""


@dataclass(frozen=True)
class ToolSpec:
    """A whitelisted tool: ``name``, one-line ``description``, its JSON ``schema`` (as
    canonical JSON text, so nobody can mutate it) and ``defaults`` for optional args."""

    name: str
    description: str
    schema_json: str
    defaults: tuple[tuple[str, Any], ...] = ()

    @property
    def schema(self) -> dict[str, Any]:
        """A fresh copy of the schema."""
        return json.loads(self.schema_json)


def _spec(
    name: str,
    description: str,
    properties: dict[str, Any],
    required: list[str],
    defaults: dict[str, Any],
) -> ToolSpec:
    schema = {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    return ToolSpec(
        name, description, json.dumps(schema, sort_keys=True), tuple(sorted(defaults.items()))
    )


_QUESTION = {"type": "string", "minLength": 1, "maxLength": 2000}
_NODE_ID = {
    "type": "string",
    "minLength": 3,
    "maxLength": 400,
    "pattern": r"^(clause|module|workitem|precedent|decision):\S+$",
}
_BUDGET = {"type": "integer", "minimum": 100, "maximum": 8000}

TOOLS: Mapping[str, ToolSpec] = MappingProxyType(
    {
        s.name: s
        for s in (
            _spec(
                "find_nodes",
                "Top-k nodes (clauses, modules, work items, precedents, agreed decisions) most "
                "relevant to a question, optionally of one node type.",
                {
                    "question": _QUESTION,
                    "k": {"type": "integer", "minimum": 1, "maximum": 50},
                    "node_type": {"type": "string", "enum": list(NODE_TYPES)},
                },
                ["question"],
                {"k": 10},
            ),
            _spec(
                "expand",
                "A token-budgeted subgraph around the nodes most relevant to a "
                "question: the nodes, their dependencies, work items and precedents.",
                {"question": _QUESTION, "budget_tokens": _BUDGET},
                ["question"],
                {"budget_tokens": 1500},
            ),
            _spec(
                "neighbours",
                "A token-budgeted subgraph around one known node id.",
                {"node_id": _NODE_ID, "budget_tokens": _BUDGET},
                ["node_id"],
                {"budget_tokens": 1500},
            ),
            _spec(
                "get_node",
                "One node by its id (for example clause:MSA#3.2 or module:auth).",
                {"node_id": _NODE_ID},
                ["node_id"],
                {},
            ),
            _spec(
                "typed_streams",
                "The top-k nodes of each node type for a question, fused by "
                "reciprocal rank fusion.",
                {"question": _QUESTION, "k": {"type": "integer", "minimum": 1, "maximum": 20}},
                ["question"],
                {"k": 5},
            ),
        )
    }
)
"""The read-only tools, by name."""


def tool_catalogue() -> str:
    """The whitelist as the canonical JSON text shown to a model: a list of
    ``{name, description, parameters}`` sorted by name. Built only from :data:`TOOLS`,
    so it is the same bytes for every question."""
    return json.dumps(
        [
            {"name": s.name, "description": s.description, "parameters": s.schema}
            for s in sorted(TOOLS.values(), key=lambda s: s.name)
        ],
        sort_keys=True,
        ensure_ascii=False,
    )


def _check(value: Any, schema: Mapping[str, Any], where: str) -> None:
    kind = schema.get("type")
    if kind == "string":
        if not isinstance(value, str):
            raise ToolCallError(f"{where} must be a string")
        if len(value) < schema.get("minLength", 0):
            raise ToolCallError(f"{where} is too short")
        if len(value) > schema.get("maxLength", 10**9):
            raise ToolCallError(f"{where} is longer than {schema['maxLength']} characters")
        if "enum" in schema and value not in schema["enum"]:
            raise ToolCallError(f"{where} must be one of {', '.join(schema['enum'])}")
        if "pattern" in schema and re.search(schema["pattern"], value) is None:
            raise ToolCallError(f"{where} does not look like a node id")
    elif kind == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ToolCallError(f"{where} must be an integer")
        if value < schema.get("minimum", -(10**18)) or value > schema.get("maximum", 10**18):
            raise ToolCallError(
                f"{where} must be between {schema.get('minimum')} and {schema.get('maximum')}"
            )
    else:  # pragma: no cover - the whitelist uses only the kinds above
        raise ToolCallError(f"{where}: unsupported schema type {kind!r}")


def validate_call(name: Any, arguments: Any) -> tuple[str, dict[str, Any]]:
    """Check one call against the whitelist; return ``(name, arguments with defaults)``.

    Raises :class:`ToolCallError` naming what is wrong: an unknown tool (the allowed
    names are listed), arguments that are not an object, a missing required argument,
    an unknown argument, or a value outside its schema."""
    if not isinstance(name, str) or name not in TOOLS:
        shown = name if isinstance(name, str) else type(name).__name__
        raise ToolCallError(
            f"tool {shown[:60]!r} is not allowed; allowed tools: {', '.join(sorted(TOOLS))}"
        )
    spec = TOOLS[name]
    if not isinstance(arguments, dict):
        raise ToolCallError(f"arguments of {name} must be a JSON object")
    schema = spec.schema
    props = schema["properties"]
    for key in arguments:
        if key not in props:
            raise ToolCallError(
                f"{name} has no argument {str(key)[:40]!r}; arguments: {', '.join(sorted(props))}"
            )
    for key in schema["required"]:
        if key not in arguments:
            raise ToolCallError(f"{name} needs the argument {key!r}")
    out = dict(spec.defaults)
    for key, value in arguments.items():
        _check(value, props[key], f"{name}.{key}")
        out[key] = value
    return name, out
