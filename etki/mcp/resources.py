"""The wiki served as MCP resources (issue 33 item 5): ``etki://PROJECT/PATH`` for every
page, ``PATH`` the page's path in the wiki without ``.md`` (``etki://tdrs/decisions/
DEC-20261129-hosting``, ``etki://tdrs/disputed``).

The pages present when the server starts are listed (``resources/list``, at most
:data:`MAX_LISTED`); templates per folder (``resources/templates/list``) read any page,
also one projected later. Every read goes through :meth:`etki.services.Desk.read_page`,
which refuses a path outside the wiki. Pages are markdown, read-only.
"""

from __future__ import annotations

import functools
from typing import Any

from etki.errors import EtkiError, clip_values
from etki.mcp.memory import ProjectMemory

__all__ = ["FOLDERS", "MAX_LISTED", "register"]

MAX_LISTED = 500
"""At most this many pages are listed as resources (every page can be read)."""

FOLDERS: tuple[str, ...] = (
    "decisions",
    "precedents",
    "change-requests",
    "entities/contracts",
    "entities/modules",
)
"""The wiki's page folders, one resource template each."""


def _reader(memory: ProjectMemory, folder: str) -> Any:
    """The read function of ``folder``'s pages: a page's text; a missing page (or one
    outside the wiki) raises ``ResourceNotFoundError`` (``-32602``) with one sentence
    naming it, not the SDK's "Error creating resource" and a traceback."""

    def read(name: str) -> str:
        from mcp.server.mcpserver.exceptions import ResourceNotFoundError

        from etki.mcp.server import shown

        rel = f"{folder}/{name}" if folder else name
        rel = rel if rel.endswith(".md") else rel + ".md"
        try:
            return memory.desk.read_page(memory.project_id, rel)
        except EtkiError:
            raise ResourceNotFoundError(
                shown(f"no wiki page '{clip_values(rel)[:300]}' in project {memory.project_id}")
            ) from None

    return read


def register(server: Any, memory: ProjectMemory) -> None:
    """Add the wiki's resources and resource templates of ``memory``'s project."""
    from mcp.server.mcpserver.resources import FunctionResource

    pid = memory.project_id
    for folder in FOLDERS:
        kind = folder.rsplit("/", 1)[-1]
        server.resource(
            f"etki://{pid}/{folder}/{{name}}",
            name=f"{kind}-page",
            title=f"Wiki {kind} page",
            description=f"A page of the decision wiki's {folder}/ folder, by file name "
            "without .md.",
            mime_type="text/markdown",
        )(_reader(memory, folder))
    root = memory.wiki_root()
    if root is None or not root.is_dir():
        return
    pages = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md") if p.is_file())
    read = _reader(memory, "")
    for rel in pages[:MAX_LISTED]:
        stem = rel.removesuffix(".md")
        server.add_resource(
            FunctionResource(
                uri=f"etki://{pid}/{stem}",
                name=stem,
                title=stem.rsplit("/", 1)[-1],
                description=f"Wiki page {rel} of project {pid}",
                mime_type="text/markdown",
                fn=functools.partial(read, rel),
            )
        )
