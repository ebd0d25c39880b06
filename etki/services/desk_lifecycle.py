"""The desk's projects at the end of an engagement (issue 35 item 6): archive, unarchive
and delete, each audited in the store (:mod:`etki.store.repository.lifecycle`).
:class:`DeskLifecycle` is a part of :class:`etki.services.Desk` (it derives from it).

An archived project is no longer offered (``etki projects`` leaves it out unless
``--all``, the desk's project list skips it, ``etki add``/``import``/``queue`` refuse it)
while its wiki, search, reports and cases stay readable. A deleted project loses its
cases and knowledge from the store; its audit history and its wiki folder stay, and
``etki erase`` still removes one of its cases from that wiki.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from etki.config import Settings
    from etki.store import CaseFileRepository
    from etki.store.repository.lifecycle import DeletedProject


class _Desk(Protocol):
    """What the project methods read of the desk they are part of."""

    repo: CaseFileRepository
    settings: Settings

    def project_ids(self) -> list[str]: ...


class DeskLifecycle:
    """The project-lifecycle methods of :class:`etki.services.Desk` (``self`` is the desk)."""

    def archived_project_ids(self: _Desk) -> list[str]:
        """Ids of the archived projects, sorted."""
        return self.repo.archived_project_ids()

    def active_project_ids(self: _Desk) -> list[str]:
        """Ids of the stored projects that are not archived, sorted: the ones the desk
        offers."""
        archived = set(self.repo.archived_project_ids())
        return [pid for pid in self.project_ids() if pid not in archived]

    def project_list(self: _Desk) -> list[tuple[str, bool]]:
        """``(id, archived)`` of every stored project, sorted by id."""
        archived = set(self.repo.archived_project_ids())
        return [(pid, pid in archived) for pid in self.project_ids()]

    def archive_project(
        self: _Desk, project_id: str, reason: str = "", *, archived: bool = True
    ) -> bool:
        """Archive ``project_id`` (``archived`` false: unarchive it) as the acting
        reviewer, audited with the optional ``reason``. Returns False when it already
        was in that state (nothing written). Raises ``NotFoundError`` for an unknown
        project, ``PermissionDeniedError`` for a reviewer who is not an approver."""
        return self.repo.set_archived(project_id, archived, self.settings.reviewer, reason)

    def delete_project(self: _Desk, project_id: str, reason: str) -> DeletedProject:
        """Delete ``project_id`` from the store as the acting reviewer (an approver of
        the project, with a ``reason``; audited): its cases and knowledge go, its audit
        history and wiki folder stay (the wiki is not rebuilt). Raises ``InputError``
        for an empty reason, ``NotFoundError`` for an unknown project and
        ``PermissionDeniedError`` for a reviewer who is not an approver."""
        return self.repo.delete_project(project_id, self.settings.reviewer, reason)
