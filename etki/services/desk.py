"""The reviewer's desk over one store, the one door the CLI, the TUI and the MCP server
use into the core: :class:`Desk` holds the store, the settings and the desk's caches,
and is composed of its parts, one module each (every method's ``self`` is the desk):

* :mod:`etki.services.desk_intake`: ``etki init``, ``add``, ``import``, the pre-analysis;
* :mod:`etki.services.desk_project`: projects, knowledge index, clauses, work items;
* :mod:`etki.services.desk_cases`: the queue, cases, history, notes, claims, views;
* :mod:`etki.services.desk_assign`: cases assigned to reviewers, the cases that are mine;
* :mod:`etki.services.desk_rulings`: rulings, their wiki projection, dispute resolutions;
* :mod:`etki.services.desk_memory`: clause memory, disputes, the memory beside a verdict;
* :mod:`etki.services.desk_wiki`: the wiki's folder, rebuild, drift, search and pages;
* :mod:`etki.services.desk_admin`: erasure, the seat, the accepted remit, the store label;
* :mod:`etki.services.desk_documents`: the change-request document and the report;
* :mod:`etki.services.desk_estimates`: the reviewer's effort estimate of a case;
* :mod:`etki.services.desk_exports`: the report and the filtered queue as CSV or xlsx;
* :mod:`etki.services.desk_lifecycle`: archive, unarchive and delete a project.
"""

from __future__ import annotations

import contextlib
from functools import cached_property
from typing import TYPE_CHECKING

from etki.approval import ApprovalService
from etki.config import Settings
from etki.services.admin import approval_service
from etki.services.desk_admin import DeskAdmin
from etki.services.desk_assign import DeskAssign
from etki.services.desk_cases import DeskCases
from etki.services.desk_documents import DeskDocuments
from etki.services.desk_estimates import DeskEstimates
from etki.services.desk_exports import DeskExports
from etki.services.desk_intake import DeskIntake
from etki.services.desk_lifecycle import DeskLifecycle
from etki.services.desk_memory import DeskMemory
from etki.services.desk_project import DeskProject
from etki.services.desk_rulings import DeskRulings
from etki.services.desk_wiki import DeskWiki
from etki.store import CaseFileRepository

if TYPE_CHECKING:
    from etki.domain import Project
    from etki.triage.similar import RulingIndex


def _no_projection(case_id: str) -> None:
    """The hook of :meth:`Desk.rule_first`: nothing (the caller projects afterwards)."""
    return None


class Desk(
    DeskIntake,
    DeskAdmin,
    DeskProject,
    DeskCases,
    DeskAssign,
    DeskRulings,
    DeskMemory,
    DeskWiki,
    DeskDocuments,
    DeskEstimates,
    DeskExports,
    DeskLifecycle,
):
    """The reviewer's desk over one store. Thread-safe for reads (each call opens its own
    session); build one per app."""

    def __init__(
        self, settings: Settings | None = None, repo: CaseFileRepository | None = None
    ) -> None:
        self.settings = settings or Settings.from_env()
        self.repo = repo or CaseFileRepository(self.settings.db_url)
        self._projects: dict[str, Project] = {}
        self._project_hashes: dict[str, str] = {}
        self._ruling_indexes: dict[
            str, tuple[tuple[str, tuple[tuple[str, str, int], ...]], RulingIndex]
        ] = {}

    @classmethod
    def open(
        cls, settings: Settings | None = None, *, read_only: bool = False, create: bool = True
    ) -> Desk:
        """A desk over a store opened for one command: ``read_only`` opens it without
        creating, migrating or writing anything (a missing store raises
        ``StoreMissingError``, exit 2); ``create=False`` refuses to create a missing
        one (:class:`etki.store.CaseFileRepository`)."""
        settings = settings or Settings.from_env()
        return cls(
            settings, CaseFileRepository(settings.db_url, read_only=read_only, create=create)
        )

    def close(self) -> None:
        """Finish the wiki projectors' deferred ``fsync`` and stop their threads, then
        release the store's connections (the desk is not used afterwards). A failed
        ``fsync`` was logged when it happened; it does not stop the close."""
        approvals = self.__dict__.get("approvals")
        for projector in (
            approvals.projector if approvals is not None else None,
            self.__dict__.get("_wiki_projector"),
        ):
            if projector is not None:
                with contextlib.suppress(OSError):
                    projector.close()
        self.repo.dispose()

    @cached_property
    def approvals(self) -> ApprovalService:
        """The desk's rulings, with the wiki projector as hook when the wiki is on
        (:func:`approval_service`)."""
        return approval_service(self.repo, self.settings)

    @cached_property
    def _approvals_no_hook(self) -> ApprovalService:
        return ApprovalService(self.repo, self.settings, hook=_no_projection)

    @cached_property
    def _wiki_projector(self):
        from etki.wiki.projection import WikiProjector

        return WikiProjector(self.repo, self.settings)
