"""The desk's live wiki search (Hafıza): the hits of ``etki wiki search``
(:func:`etki.wiki.search.ranked_search`, the one search: the same hits in the same
order, a contract page as its clause sections ``path#anchor``) with what a list entry
shows — the page's title (a clause section: its heading, ref and title) and an excerpt
of its visible text around the match (:func:`etki.wiki.excerpt.excerpt`).

The FTS5 index answers (:mod:`etki.wiki.ftsranked`: kept current by the projector's
change token, no walk per keystroke); when it cannot be used the same function scans
the pages in Python (``synced`` ``scan``). A newer keystroke's search cancels this one:
``cancelled`` is polled while the index waits for a lock or runs the query and before
each page is read.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from etki.text import fold
from etki.wiki.excerpt import excerpt, page_title
from etki.wiki.pagematch import Cancelled, query_tokens
from etki.wiki.sections import find_section, split_address
from etki.wiki.writer import UnsafeWikiPath, read_page

__all__ = ["Cancelled", "PageHit", "TopHits", "top"]


class PageHit(NamedTuple):
    """One hit of :func:`top`: ``path`` (wiki-relative; a clause section ``path#anchor``),
    ``line`` (1-based page line of the excerpt), ``snippet`` (visible text around the
    match, one printable line) and ``title`` (the page's title; a clause section's
    heading, ``ref — title``). The first three fields are those of
    :class:`etki.wiki.pagematch.Hit`."""

    path: str
    line: int
    snippet: str
    title: str


class TopHits(NamedTuple):
    """A :func:`top` answer: the ``hits`` shown (best first), ``total`` hits in all, and
    ``synced``: how the index was brought up to the wiki first (``"token"``: already
    current, ``"queued"``: the projector's queued pages re-indexed, ``"walk"``: synced
    by stat), ``"scan"`` when the index could not be used, ``"none"`` for no query."""

    hits: list[PageHit]
    total: int
    synced: str


def top(
    root: Path, query: str, limit: int = 100, cancelled: Callable[[], bool] | None = None
) -> TopHits:
    """The ``limit`` best hits of the wiki at ``root`` for ``query``, as ``etki wiki
    search`` ranks them (:func:`etki.wiki.search.ranked_search` on the FTS5 index, the
    Python scan when it cannot be used), each with its title and visible excerpt. Pages
    are read through :func:`etki.wiki.writer.read_page` (never through a symlink); a
    hit whose page cannot be read any more is left out. Raises
    :class:`~etki.wiki.pagematch.Cancelled` when ``cancelled()`` says so."""
    from etki.wiki.search import ranked_search

    tokens = query_tokens(query)
    if not tokens:
        return TopHits([], 0, "none")
    found = ranked_search(root, query, limit=limit, backend="fts", cancelled=cancelled)
    pages: dict[str, str | None] = {}
    shown: list[PageHit] = []
    for hit in found.hits:
        if cancelled is not None and cancelled():
            raise Cancelled
        rel, anchor = split_address(hit.path)
        if rel not in pages:
            try:
                raw = read_page(root, rel)
            except (OSError, UnsafeWikiPath):
                raw = None
            pages[rel] = None if raw is None else raw.decode("utf-8", errors="replace")
        text = pages[rel]
        if text is None:
            continue
        if anchor:
            section = find_section(rel, text, anchor)
            if section is None:
                continue
            line, snippet = excerpt(section.text, fold(section.text), tokens)
            shown.append(PageHit(hit.path, section.start + line, snippet, section.title))
        else:
            line, snippet = excerpt(text, fold(text), tokens)
            shown.append(PageHit(hit.path, line, snippet, page_title(text, rel)))
    synced = found.synced if found.backend == "fts" else "scan"
    return TopHits(shown, found.total, synced)
