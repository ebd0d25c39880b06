"""The desk's projects and knowledge: the stored projects, their knowledge index,
clauses and work items, and the retrieval port. :class:`DeskProject` is a part of
:class:`etki.services.Desk` (it derives from it)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol

from etki.engines import embedder_for

if TYPE_CHECKING:
    from etki.config import Settings
    from etki.domain import Project, ScopeClause, WorkItem
    from etki.knowledge import KnowledgeIndex
    from etki.retrieval.port import GraphQueryPort
    from etki.store import CaseFileRepository


class _Desk(Protocol):
    """What the project methods read of the desk they are part of."""

    repo: CaseFileRepository
    settings: Settings
    _projects: dict[str, Project]
    _project_hashes: dict[str, str]

    def project_ids(self) -> list[str]: ...
    def archived_project_ids(self) -> list[str]: ...
    def graph_port(self, project_id: str) -> GraphQueryPort: ...


class DeskProject:
    """The project methods of :class:`etki.services.Desk` (``self`` is the desk)."""

    # projects and knowledge
    def project_ids(self: _Desk) -> list[str]:
        """The stored project ids, sorted."""
        return self.repo.project_ids()

    def index_hash(self: _Desk, project_id: str) -> str:
        """The content hash of the project's stored knowledge index. Raises
        ``NotFoundError`` naming the known projects."""
        return self.repo.index_hash(project_id)

    def index_bytes(self: _Desk, project_id: str) -> bytes:
        """The project's stored knowledge index file, as written at ``etki init``.
        Raises ``NotFoundError`` naming the known projects."""
        return self.repo.index_bytes(project_id)

    def knowledge_index(self: _Desk, project_id: str) -> KnowledgeIndex:
        """The project's stored knowledge index, parsed
        (:meth:`~etki.knowledge.KnowledgeIndex.from_bytes`). Raises ``NotFoundError``,
        ``ValueError`` for an index that cannot be read."""
        from etki.knowledge import KnowledgeIndex

        return KnowledgeIndex.from_bytes(self.repo.index_bytes(project_id))

    def graph_port(self: _Desk, project_id: str) -> GraphQueryPort:
        """The retrieval port over the stored project
        (:meth:`etki.retrieval.port.GraphQueryPort.from_store`). Raises ``NotFoundError``."""
        from etki.retrieval.port import GraphQueryPort

        return GraphQueryPort.from_store(
            self.repo,
            project_id,
            self.settings,
            local_embedder=embedder_for(self.settings, project_id),
        )

    def embed_nodes(
        self: _Desk, project_id: str, progress: Callable[[int, int], None] | None = None
    ) -> int:
        """Embed the graph nodes of ``project_id`` with the model of ``ETKI_EMBED`` into
        the project's vector cache file, so that the desk's and the MCP server's first
        ``find_k``/``expand`` embeds nothing
        (:meth:`~etki.retrieval.port.GraphQueryPort.embed_nodes`; ``progress(done,
        total)``); returns the node count, 0 when ``ETKI_EMBED`` is unset. Raises
        ``NotFoundError``, ``EndpointError`` when the model fails."""
        if not self.settings.embed_backend:
            return 0
        return self.graph_port(project_id).embed_nodes(progress)

    def project(self: _Desk, project_id: str) -> Project:
        """The stored project, cached per desk and read again when its stored index hash
        changed (the folder was loaded again, e.g. by ``etki init`` in another shell), so
        a reload picks up a re-init. Raises ``NotFoundError``."""
        current = self.repo.index_hash(project_id)
        cached = self._projects.get(project_id)
        if cached is None or self._project_hashes.get(project_id) != current:
            cached = self.repo.load_project(project_id)
            self._projects[project_id] = cached
            self._project_hashes[project_id] = current
        return cached

    def project_name(self: _Desk, project_id: str) -> str:
        """The project's name without reading its knowledge. Raises ``NotFoundError``."""
        return self.repo.project_name(project_id)

    def chosen_project(self: _Desk, given: str | None) -> str:
        """The project a command works on: ``given`` when it is stored, else the only
        stored project not archived, else the only one (:func:`etki.store.lean.
        pick_project`; README: "With one project stored, ``--project`` may be left
        out"). Raises ``NotFoundError`` naming the known ids for an unknown ``given``,
        :class:`InputError` when none or several are stored and none was given."""
        if given:
            self.repo.project_name(given)  # "no project 'x' in the store; known: ..."
            return given
        from etki.store.lean import pick_project

        return pick_project(self.project_ids(), set(self.archived_project_ids()))

    def clauses(self: _Desk, project_id: str) -> dict[str, ScopeClause]:
        """ref -> clause of the project, without reading modules and work items (the
        cached :meth:`project` when it is already loaded and current)."""
        cached = self._projects.get(project_id)
        if cached is not None and self._project_hashes.get(project_id) == self.repo.index_hash(
            project_id
        ):
            return {c.ref: c for c in cached.clauses}
        return {c.ref: c for c in self.repo.clauses(project_id)}

    def workitems(self: _Desk, project_id: str) -> dict[str, WorkItem]:
        """id -> work item of the project (title, date, ``effort_days`` in person-days),
        read alone (no contracts, modules or index), for the effort basis the detail
        pane shows; the cached :meth:`project`'s when it is loaded and current."""
        cached = self._projects.get(project_id)
        if cached is not None and self._project_hashes.get(project_id) == self.repo.index_hash(
            project_id
        ):
            return {w.id: w for w in cached.workitems}
        return {w.id: w for w in self.repo.workitems(project_id)}

    def workitems_of(self: _Desk, project_id: str, ids: Iterable[str]) -> dict[str, WorkItem]:
        """id -> work item of the project's among ``ids`` (the ones it has): the effort
        basis of the cases a detail pane shows, read by id (not the project's 20,000)."""
        wanted = set(ids)
        if not wanted:
            return {}
        return {w.id: w for w in self.repo.workitems_by_id(project_id, wanted)}
