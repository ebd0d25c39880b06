"""The desk's wiki: its folder, rebuild and drift, the live search and its pages.
:class:`DeskWiki` is a part of :class:`etki.services.Desk` (it derives from it); the
projection is :mod:`etki.wiki.projection`'s, the search :mod:`etki.wiki.live`'s."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from etki.errors import NotFoundError

if TYPE_CHECKING:
    from etki.config import Settings
    from etki.wiki.live import TopHits
    from etki.wiki.projection import WikiProjector

log = logging.getLogger("etki.services")


class _Desk(Protocol):
    """What the wiki methods read of the desk they are part of."""

    settings: Settings

    @property
    def _wiki_projector(self) -> WikiProjector: ...
    def wiki_root(self, project_id: str) -> Path | None: ...


class DeskWiki:
    """The wiki methods of :class:`etki.services.Desk` (``self`` is the desk)."""

    # wiki
    def wiki_root(self: _Desk, project_id: str) -> Path | None:
        """The project's wiki folder, None when the wiki is off."""
        return self.settings.wiki_path(project_id)

    def wiki_rebuild(self: _Desk, project_id: str | None = None) -> dict:
        """Re-derive the wiki of ``project_id`` (every project when None) from the DB:
        project id -> report (:meth:`etki.wiki.projection.WikiProjector.rebuild`)."""
        return self._wiki_projector.rebuild(project_id)

    def wiki_drift(self: _Desk, project_id: str):
        """The files of the project's wiki that differ from a fresh render, as
        :meth:`etki.wiki.projection.WikiProjector.drift` lists them (``missing``,
        ``changed``, ``stale``)."""
        return self._wiki_projector.drift(project_id)

    def wiki_top(
        self: _Desk,
        project_id: str,
        query: str,
        *,
        limit: int = 100,
        cancelled: Callable[[], bool] | None = None,
    ) -> TopHits | None:
        """The desk's live search: the ``limit`` best hits of the project's wiki for
        ``query``, as ``etki wiki search`` ranks them (a contract page as its clause
        sections, ``path#anchor``), as a :class:`etki.wiki.live.TopHits` (``hits`` of
        :class:`etki.wiki.live.PageHit` — address, line, snippet of the visible text,
        title; a clause section's title is its heading — best first; ``total`` hits;
        ``synced`` how the FTS5 index caught up: ``token``/``queued`` without a walk of
        the wiki, ``walk`` by stat, ``scan`` when the index could not be used and the
        pages were scanned): :func:`etki.wiki.live.top`. An empty answer when the wiki
        is off or missing or the query has no words. ``cancelled`` is polled (a newer
        keystroke's search took over): then None is returned."""
        from etki.wiki import live

        root = self.wiki_root(project_id)
        if root is None or not root.is_dir() or not query.strip():
            return live.TopHits([], 0, "none")
        try:
            return live.top(root, query, limit, cancelled)
        except live.Cancelled:
            return None

    def warm_wiki_search(self: _Desk, project_id: str) -> str | None:
        """Bring the project's wiki search index up to the wiki's change token now
        (:func:`etki.wiki.fts.catch_up`; the desk runs it in a worker after a projection
        and on start, so the next keystroke finds it warm). None when the wiki is off
        or the index cannot be used; never raises."""
        from etki.wiki import fts

        root = self.wiki_root(project_id)
        if root is None or not root.is_dir():
            return None
        try:
            return fts.catch_up(root)
        except Exception as exc:  # noqa: BLE001 - a cache: the next search syncs itself
            log.info("wiki search index of %s not warmed: %s", project_id, exc)
            return None

    def wiki_pages(self: _Desk, project_id: str, folder: str = "decisions") -> list[str]:
        """Relative paths of the wiki pages under ``folder``, sorted."""
        root = self.wiki_root(project_id)
        if root is None or not (root / folder).is_dir():
            return []
        return sorted(p.relative_to(root).as_posix() for p in (root / folder).glob("*.md"))

    def read_page(self: _Desk, project_id: str, relpath: str) -> str:
        """The text of a wiki page. Raises ``NotFoundError`` for a path outside the wiki
        or a missing page."""
        root = self.wiki_root(project_id)
        if root is None:
            raise NotFoundError("the wiki is off (ETKI_WIKI_DIR is empty)")
        target = (root / relpath).resolve()
        if not target.is_relative_to(root.resolve()) or not target.is_file():
            raise NotFoundError(f"no wiki page '{relpath}'")
        return target.read_text(encoding="utf-8")
