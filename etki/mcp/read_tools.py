"""The read tools (issue 33 item 2): every id a result holds resolves here.

* ``read_node(id)``: a graph node (``clause:``, ``chunk:``, ``module:``, ``workitem:``,
  ``precedent:``) with its full text and its edges both ways; a ``decision:{case_id}``
  (or a bare case id) as its decision hit;
* ``read_page(path)``: a wiki page, as ``wiki_search`` names it, or a contract page's clause
  section (``path#anchor``, :func:`etki.wiki.sections.find_section`);
* ``show_case(case_id)``: the case as ``etki show --json`` prints it
  (:func:`etki.services.views.case_view`).

Text is bounded (:data:`MAX_TEXT_CHARS`, :data:`MAX_EDGES`); what was cut is said.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from etki.errors import NotFoundError
from etki.mcp.briefs import EtkiTool, check_text, decision_hit
from etki.mcp.memory import ProjectMemory
from etki.retrieval.snippets import node_snippet
from etki.wiki.sections import find_section, split_address

__all__ = ["MAX_EDGES", "MAX_TEXT_CHARS", "tools"]

MAX_TEXT_CHARS = 30000
"""A node's text or a page is returned up to this many characters (``truncated`` says
when it was cut)."""

MAX_EDGES = 100
"""At most this many edges of a node are listed (``edge_count`` counts all)."""

_SKIPPED_ATTRS = frozenset({"markdown", "overlap"})
"""Attributes left out of ``read_node``: the clause text again, as written."""


def _edges(graph: Any, node_id: str) -> list[dict[str, Any]]:
    out = []
    for hop in graph.hops(node_id)[:MAX_EDGES]:
        other = graph.node(hop.neighbour)
        out.append(
            {
                "label": hop.label,
                "id": hop.neighbour,
                "type": other.type if other is not None else "",
                "title": other.title if other is not None else "",
                "direction": "out" if hop.forward else "in",
            }
        )
    return out


def _case_id(node_id: str) -> str | None:
    for prefix in ("decision:", "case:"):
        if node_id.startswith(prefix):
            return node_id[len(prefix) :]
    return node_id if node_id.startswith("req-") else None


def _numbered_section(path: str, text: str, number: str) -> Any:
    """The clause section of page ``path`` whose ref ends in ``#number`` (``2.2`` names
    ``tdrs-rfq#2.2``, anchor ``tdrs-rfq%232.2``), the first such; None when ``number``
    is no clause number or no section has it."""
    from urllib.parse import unquote

    from etki.wiki.clausequery import clause_number
    from etki.wiki.sections import page_sections

    found = clause_number(number)
    split = page_sections(path, text) if found is not None and found == number else None
    if split is None:
        return None
    return next((s for s in split[1] if unquote(s.anchor).endswith(f"#{number}")), None)


def read_node(memory: ProjectMemory, node_id: str) -> dict[str, Any]:
    """``read_node``'s answer for ``node_id`` (see the module docstring). Raises
    ``NotFoundError`` naming the id when nothing has it."""
    graph = memory.port().graph
    node = graph.node(node_id)
    if node is not None and node.type != "decision":  # a decision reads as its case below
        text = node.text
        attrs = {k: v for k, v in node.attrs if k not in _SKIPPED_ATTRS}
        hops = graph.hops(node_id)
        out: dict[str, Any] = {
            "id": node.id,
            "type": node.type,
            "title": node.title,
            "text": text[:MAX_TEXT_CHARS],
            "truncated": len(text) > MAX_TEXT_CHARS,
            "attrs": attrs,
            "edges": _edges(graph, node_id),
            "edge_count": len(hops),
        }
        if node.type == "precedent":
            out["ruling"] = node_snippet(node, (), memory.languages)
            out["case_id"] = node_id.removeprefix("precedent:")
        return out
    case_id = _case_id(node_id)
    if case_id is not None:
        for case in memory.ruled():
            if case.case_id == case_id:
                hit = decision_hit(case, memory.wiki_root() is not None)
                return {
                    "id": hit["id"],
                    "type": "decision",
                    "title": hit["title"],
                    "text": case.text[:MAX_TEXT_CHARS],
                    "truncated": len(case.text) > MAX_TEXT_CHARS,
                    "attrs": {"decision": hit},
                    "edges": [
                        {
                            "label": "cites",
                            "id": f"clause:{ref}",
                            "type": "clause",
                            "title": getattr(graph.node(f"clause:{ref}"), "title", ""),
                            "direction": "out",
                        }
                        for ref in case.decision.cited_clauses
                    ],
                    "edge_count": len(case.decision.cited_clauses),
                }
    raise NotFoundError(
        f"read_node: no node '{node_id[:200]}' in project {memory.project_id} "
        "(ids look like clause:CONTRACT#5.2, chunk:CONTRACT#5.2~1, module:ID, "
        "workitem:ID, precedent:CASE_ID or decision:CASE_ID)"
    )


def tools(memory: ProjectMemory) -> list[EtkiTool]:
    """``read_node``, ``read_page`` and ``show_case`` over ``memory``."""

    def read_node_tool(id: Annotated[str, Field(max_length=500)]) -> dict[str, Any]:  # noqa: A002
        return read_node(memory, check_text("read_node", "id", id))

    def read_page(path: Annotated[str, Field(max_length=500)]) -> dict[str, Any]:
        path = check_text("read_page", "path", path)
        prefix = f"etki://{memory.project_id}/"
        if path.startswith(prefix):
            path = path[len(prefix) :]
        path, anchor = split_address(path)
        if not path.endswith(".md"):
            path += ".md"
        text = memory.desk.read_page(memory.project_id, path)
        title = next((ln[2:].strip() for ln in text.splitlines() if ln.startswith("# ")), path)
        if anchor:
            section = find_section(path, text, anchor) or _numbered_section(path, text, anchor)
            if section is None:
                raise NotFoundError(f"read_page: no clause section '#{anchor}' on '{path}'")
            path, title, text = f"{path}#{section.anchor}", section.title, section.text
        return {
            "path": path,
            "title": title,
            "text": text[:MAX_TEXT_CHARS],
            "truncated": len(text) > MAX_TEXT_CHARS,
        }

    def show_case(case_id: Annotated[str, Field(max_length=200)]) -> dict[str, Any]:
        from etki.services.views import case_view

        case_id = check_text("show_case", "case_id", case_id)
        case_id = _case_id(case_id) or case_id
        view = case_view(memory.desk, case_id)
        project = view.case.project_id if view.case is not None else None
        if project is not None and project != memory.project_id:
            raise NotFoundError(f"show_case: no case '{case_id}' in project {memory.project_id}")
        return view.to_json()

    node_out = {
        "properties": {
            "id": {"type": "string"},
            "type": {"type": "string"},
            "title": {"type": "string"},
            "text": {"type": "string"},
            "truncated": {"type": "boolean"},
            "attrs": {"type": "object"},
            "edges": {"type": "array", "items": {"type": "object"}},
            "edge_count": {"type": "integer"},
            "ruling": {"type": "object"},
        },
        "required": ["id", "type", "title", "text", "truncated", "attrs", "edges"],
    }
    page_out = {
        "properties": {
            "path": {"type": "string"},
            "title": {"type": "string"},
            "text": {"type": "string"},
            "truncated": {"type": "boolean"},
        },
        "required": ["path", "title", "text", "truncated"],
    }
    case_out = {
        "properties": {
            "case_id": {"type": "string"},
            "case": {"type": ["object", "null"]},
            "history": {"type": "array", "items": {"type": "object"}},
        },
        "required": ["case_id", "case", "history"],
    }
    read_node_tool.__name__ = "read_node"
    return [
        EtkiTool(
            "read_node",
            "Read a node by id",
            "Read one node by the id a search gave: a contract clause or a chunk of one "
            "(full text), a module, a work item, a precedent or a decision, with every "
            'edge to and from it. Example: {"id": "clause:tdrs-rfq#5.5"}',
            read_node_tool,
            node_out,
        ),
        EtkiTool(
            "read_page",
            "Read a wiki page",
            "Read one page of the decision wiki by the path wiki_search or a decision "
            "hit gave (or its etki:// resource address); a contract page's clause "
            "section by path#anchor, as wiki_search and the pages' clause links give "
            "it (the anchor as written, the clause ref or its number alone). Example: "
            '{"path": "disputed.md"}; a clause: '
            '{"path": "entities/contracts/tdrs-rfq.md#tdrs-rfq%235.2"} or '
            '{"path": "entities/contracts/tdrs-rfq.md#5.2"}',
            read_page,
            page_out,
        ),
        EtkiTool(
            "show_case",
            "Show a case with its history",
            "One case as `etki show --json` prints it: the request, the engine's frozen "
            "decision with its evidence, the ruling and every earlier one, what changed "
            "since (risk, disputed clauses) and the whole history. Example: "
            '{"case_id": "req-demo-1a2b3c4d"}',
            show_case,
            case_out,
        ),
    ]
