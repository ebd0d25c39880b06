"""MCP server (DESIGN.md, "Layout": ``mcp/``): the decision memory and the knowledge index
served to AI assistants over stdio with the official ``mcp`` SDK (``MCPServer``), issue 33.

* :mod:`etki.mcp.server`: wiring and the rules every tool keeps (read-only annotations,
  titles, examples, output schemas, unknown arguments refused, one-sentence errors,
  ``serverInfo.version``);
* :mod:`etki.mcp.search_tools`: ``graph_query``, ``wiki_search``;
* :mod:`etki.mcp.read_tools`: ``read_node``, ``read_page``, ``show_case``;
* :mod:`etki.mcp.decision_tools`: ``decisions``, ``precedents_for_clause``,
  ``disputed_clauses``, ``recent_decisions``, ``triage``;
* :mod:`etki.mcp.resources`: the wiki as ``etki://PROJECT/...`` resources;
* :mod:`etki.mcp.prompts`: ``review_case``, ``clause_history``;
* :mod:`etki.mcp.memory`: the project's port, ruled cases and rankers;
* :mod:`etki.mcp.transport`: stdio, with unreadable lines answered.

Nothing here writes: no tool touches the store or the wiki. Client text inside results
is returned as JSON data, never executed.
"""

from __future__ import annotations

from etki.mcp.server import SERVER_NAME, build_server
from etki.mcp.transport import serve_stdio, unreadable_reply

__all__ = ["SERVER_NAME", "build_server", "serve_stdio", "unreadable_reply"]
