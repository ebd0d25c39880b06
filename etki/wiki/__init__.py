"""The wiki: a projection of the database into markdown pages (DESIGN.md, "Wiki").

* :mod:`etki.wiki.paths` - page names and paths (:func:`decision_path`, slugs, ...);
* :mod:`etki.wiki.markdown` - untrusted text as literal markdown (:func:`md_inline`, ...;
  re-exported from :mod:`etki.mdtext.literal`);
* :mod:`etki.wiki.model` - :class:`WikiModel`, the rows the shared pages read and the
  memo of what was rendered from them;
* :mod:`etki.wiki.pages` - pure renderers, rows -> bytes (:func:`render_wiki`, ...);
* :mod:`etki.wiki.writer` - atomic, change-only writes (:func:`sync_tree`,
  :class:`WriteReport`);
* :mod:`etki.wiki.projection` - :class:`WikiProjector`: the HITL ingest hook
  (``project_case``), ``rebuild`` and ``verify``;
* :mod:`etki.wiki.search` - token-AND search with the engine's normalisation, by ``rg``,
  the SQLite FTS5 index of :mod:`etki.wiki.fts` or a Python scan, all with the same
  results (``from etki.wiki.search import search``; the function is not re-exported
  here so it never shadows the module);
* page helpers here: :func:`read_page`, :func:`page_title`;
* :mod:`etki.commands.wiki` - ``etki wiki rebuild | search | show | verify`` (also
  ``python -m etki.wiki``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from etki.lazy import lazy_exports

if TYPE_CHECKING:
    from etki.wiki.pages import render_case_pages, render_wiki
    from etki.wiki.paths import (
        case_slug,
        contract_path,
        decision_path,
        module_path,
        page_kind,
        precedent_path,
    )
    from etki.wiki.projection import WikiProjector
    from etki.wiki.search import Hit, wiki_files
    from etki.wiki.writer import UnsafeWikiPath, WriteReport, sync_tree

_LAZY = {
    "render_case_pages": "etki.wiki.pages",
    "render_wiki": "etki.wiki.pages",
    "case_slug": "etki.wiki.paths",
    "contract_path": "etki.wiki.paths",
    "decision_path": "etki.wiki.paths",
    "module_path": "etki.wiki.paths",
    "page_kind": "etki.wiki.paths",
    "precedent_path": "etki.wiki.paths",
    "WikiProjector": "etki.wiki.projection",
    "Hit": "etki.wiki.search",
    "wiki_files": "etki.wiki.search",
    "UnsafeWikiPath": "etki.wiki.writer",
    "WriteReport": "etki.wiki.writer",
    "sync_tree": "etki.wiki.writer",
}
"""Re-exported name -> the module defining it, imported on first use (PEP 562): a
``python -m etki.wiki search`` or an ``import etki.wiki.fts`` then loads neither the
renderers nor the projector, and through them SQLAlchemy (issue 15)."""


__getattr__ = lazy_exports(__name__, _LAZY)


__all__ = [
    "Hit",
    "UnsafeWikiPath",
    "WikiProjector",
    "WriteReport",
    "case_slug",
    "contract_path",
    "decision_path",
    "module_path",
    "page_kind",
    "page_title",
    "precedent_path",
    "read_page",
    "render_case_pages",
    "render_wiki",
    "sync_tree",
    "wiki_files",
]


def read_page(path: Path) -> tuple[dict, str]:
    """``(frontmatter, body)`` of the wiki page at ``path``.

    Raises ``OSError`` when it cannot be read and
    :class:`etki.errors.ProjectFormatError` (naming the file and line) when its
    frontmatter is malformed, e.g. after a hand edit (B08)."""
    from etki.frontmatter import split_frontmatter

    text = Path(path).read_bytes().decode("utf-8", errors="replace")
    return split_frontmatter(text, str(path))


def page_title(path: Path) -> str:
    """The ``title`` of a wiki page from its frontmatter, or the file stem when the page
    has none or cannot be read or parsed. Client text: show it literally."""
    try:
        meta, _ = read_page(path)
    except Exception:  # noqa: BLE001 - a title lookup never fails
        return Path(path).stem
    title = meta.get("title")
    return str(title) if title not in (None, "") else Path(path).stem
