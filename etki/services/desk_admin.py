"""The desk's administration: erasure, the acting reviewer's seat, the accepted remit
and the store's label. :class:`DeskAdmin` is a part of :class:`etki.services.Desk` (it
derives from it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from etki.services.admin import Seat, store_label

if TYPE_CHECKING:
    from etki.config import Settings
    from etki.domain import RemitStatement
    from etki.erasure import ErasureOutcome
    from etki.remit import ProposalRow
    from etki.store import CaseFileRepository
    from etki.store.repository.remit import RemitChange


class _Desk(Protocol):
    """What the administration methods read of the desk they are part of."""

    repo: CaseFileRepository
    settings: Settings

    def seat(self, project_id: str) -> Seat: ...


class DeskAdmin:
    """The administration methods of :class:`etki.services.Desk` (``self`` is the desk)."""

    # erasure
    def erase(
        self: _Desk,
        case_id: str,
        reason: str,
        *,
        wait_s: float,
        notify: Callable[[str], None] | None = None,
    ) -> ErasureOutcome:
        """:func:`etki.erasure.erase_case` on this desk's store (``etki erase``):
        returns its ``ErasureOutcome``."""
        from etki.erasure import erase_case

        return erase_case(self.repo, self.settings, case_id, reason, wait_s=wait_s, notify=notify)

    def finish_erasure(
        self: _Desk, case_id: str, *, wait_s: float, notify: Callable[[str], None] | None = None
    ) -> ErasureOutcome:
        """:func:`etki.erasure.finish_erasure` (``etki erase --finish``)."""
        from etki.erasure import finish_erasure

        return finish_erasure(self.repo, self.settings, case_id, wait_s=wait_s, notify=notify)

    def seat(self: _Desk, project_id: str) -> Seat:
        """The acting reviewer of this desk on ``project_id``, their role in the stored
        reviewer list and whether they may rule (the same test as
        :func:`etki.approval.require_approver`, names compared by
        :func:`etki.identity.reviewer_name`; nobody may on an archived project, which
        the seat says). A name not listed that spells a listed
        one without its Turkish or German letters carries it as
        :attr:`Seat.did_you_mean`. Raises ``NotFoundError``."""
        from etki.identity import is_listed_approver, reviewer_name, similar_name

        who = reviewer_name(self.settings.reviewer)
        reviewers = self.repo.project_config(project_id).reviewers
        archived = project_id in self.repo.archived_project_ids()
        if not reviewers:
            return Seat(who, "approver", not archived, open=True, archived=archived)
        if is_listed_approver(reviewers, who):
            return Seat(who, "approver", not archived, archived=archived)
        listed = any(reviewer_name(r.name) == who for r in reviewers)
        if listed:
            return Seat(who, "viewer", False, archived=archived)
        guess = similar_name((r.name for r in reviewers), who)
        return Seat(who, "not listed", False, did_you_mean=guess, archived=archived)

    # the accepted remit (etki remit; issue 29 item 5: etki.remit)
    def remit_proposals(self: _Desk, project_id: str) -> list[ProposalRow]:
        """:func:`etki.remit.proposals_of`: the candidate remit statements, numbered in
        contract order, accepted ones marked."""
        from etki.remit import proposals_of

        return proposals_of(self.repo, project_id)

    def remit_accepted(self: _Desk, project_id: str) -> list[RemitStatement]:
        """The accepted remit statements in force, by number (``etki remit list``).
        Raises ``NotFoundError``."""
        self.repo.project_config(project_id)
        return self.repo.accepted_remit(project_id)

    def remit_accept(
        self: _Desk, project_id: str, numbers: Sequence[str] = (), *, every: bool = False
    ) -> RemitChange:
        """:func:`etki.remit.accept` as this desk's reviewer."""
        from etki.remit import accept

        return accept(self.repo, self.settings.reviewer, project_id, numbers, every=every)

    def remit_revoke(
        self: _Desk, project_id: str, numbers: Sequence[str], reason: str
    ) -> RemitChange:
        """:func:`etki.remit.revoke` as this desk's reviewer."""
        from etki.remit import revoke

        return revoke(self.repo, self.settings.reviewer, project_id, numbers, reason)

    def store_label(self: _Desk) -> str:
        """Where this desk's store lives (:func:`store_label` of the open engine's URL:
        no user name, no password)."""
        return store_label(self.repo.engine.url)

    def _require_reviewer(self: _Desk, case_id: str, action: str, writes: str) -> str:
        """The acting reviewer (NFC), when the case's project lists them (any role) or
        lists nobody; else :class:`PermissionDeniedError` ("``action``: reviewer … is not
        a reviewer of this project"; ``action`` a verb phrase, ``add a note``). Notes,
        claims, estimates and change-request terms are for the project's reviewers,
        viewers included. An archived project takes none of them (``writes``: the plural
        noun phrase of what is refused, ``notes``; the
        :class:`~etki.errors.ProjectArchivedError` reads "… is archived and takes no
        notes" and says how to unarchive it). Both phrases are whole English: the trial
        found "takes no edit the change request ofs" built by pluralising a verb."""
        from etki.approval import refuse_archived
        from etki.errors import PermissionDeniedError

        project_id = self.repo.case_project_id(case_id)
        refuse_archived(self.repo, project_id, f"takes no {writes}")
        seat = self.seat(project_id)
        if seat.role == "not listed":
            raise PermissionDeniedError(
                f"{action}: reviewer '{seat.reviewer}' is not a reviewer of this project; "
                "ask a project approver to list you in etki.yaml, or set ETKI_REVIEWER"
            )
        return seat.reviewer
