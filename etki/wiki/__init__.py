"""The wiki: a projection of the database into markdown pages (DESIGN.md, "Wiki").

* :mod:`etki.wiki.paths` - page names and paths (:func:`decision_path`, slugs, ...);
* :mod:`etki.wiki.markdown` - untrusted text as literal markdown (:func:`md_inline`, ...);
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

from etki.frontmatter import split_frontmatter
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
