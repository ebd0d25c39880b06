"""The desk's rulings: rule (with or without the wiki hook), project a ruling, catch the
wiki up, and resolve a disputed clause. :class:`DeskRulings` is a part of
:class:`etki.services.Desk` (it derives from it); the checks and the commit are
:class:`etki.approval.ApprovalService`'s."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol

from etki.domain import ResolutionOutcome, RulingOutcome
from etki.errors import error_text

if TYPE_CHECKING:
    from etki.approval import ApprovalService
    from etki.config import Settings
    from etki.store import CaseFileRepository
    from etki.wiki.projection import WikiProjector

log = logging.getLogger("etki.services")


class _Desk(Protocol):
    """What the ruling methods read of the desk they are part of."""

    repo: CaseFileRepository
    settings: Settings

    @property
    def approvals(self) -> ApprovalService: ...
    @property
    def _approvals_no_hook(self) -> ApprovalService: ...
    @property
    def _wiki_projector(self) -> WikiProjector: ...


class DeskRulings:
    """The ruling methods of :class:`etki.services.Desk` (``self`` is the desk)."""

    def rule(
        self: _Desk,
        case_id: str,
        action: str,
        *,
        reason: str = "",
        expected_version: int | None = None,
        amend: bool = False,
    ) -> RulingOutcome:
        """See :meth:`etki.approval.ApprovalService.rule` (``amend``: replace the
        ruling of a ruled case, the earlier one kept in its history)."""
        return self.approvals.rule(
            case_id, action, reason=reason, expected_version=expected_version, amend=amend
        )

    def rule_first(
        self: _Desk,
        case_id: str,
        action: str,
        *,
        reason: str = "",
        expected_version: int | None = None,
        amend: bool = False,
    ) -> RulingOutcome:
        """:meth:`rule` without the HITL hook: the same
        :class:`~etki.approval.ApprovalService` checks and commit, returning as soon as
        the ruling is in the DB (``wiki_report``/``wiki_error`` are None). The caller
        must then run :meth:`project_ruling` for the case (e.g. in a background
        worker), so the wiki still follows every ruling."""
        return self._approvals_no_hook.rule(
            case_id, action, reason=reason, expected_version=expected_version, amend=amend
        )

    def project_ruling(self: _Desk, case_id: str) -> tuple[object | None, str | None]:
        """Run the HITL ingest hook of :meth:`rule` for a case ruled with
        :meth:`rule_first`: ``(report, None)``, ``(None, None)`` when the wiki is off,
        or ``(None, "wiki not updated: …")`` when the projection failed (best-effort,
        logged, never raised — as in :meth:`etki.approval.ApprovalService.rule`)."""
        hook = self.approvals.hook
        if hook is None:
            return None, None
        try:
            return hook(case_id), None
        except Exception as exc:  # best-effort: the ruling has committed
            log.info("wiki projection of %s failed: %s", case_id, exc)  # said once, below
            from etki.errors import error_text

            return None, f"wiki not updated: {error_text(exc)}"

    def catch_up_wiki(self: _Desk, project_id: str) -> tuple[object | None, str | None]:
        """Write whatever the DB holds that the project's wiki lacks (rulings whose own
        projection never ran, was killed or timed out on the wiki lock, in any process),
        with the projector the rulings of this desk use
        (:meth:`etki.wiki.projection.WikiProjector.catch_up`); the desk runs it on start
        in a worker. ``(report, None)``, ``(None, None)`` when the wiki is off or the
        rulings use a custom hook, or ``(None, "wiki not caught up: …")`` when it
        failed (best-effort, logged, never raised)."""
        projector = self.approvals.projector
        if projector is None:
            return None, None
        try:
            return projector.catch_up(project_id), None
        except Exception as exc:  # best-effort, like every wiki write
            log.warning("wiki catch-up of %s failed: %s", project_id, exc)
            return None, f"wiki not caught up: {error_text(exc)}"

    def resolve_dispute(
        self: _Desk,
        project_id: str,
        clause_ref: str,
        verdict: str,
        reason: str,
        *,
        expected_id: int | None = None,
    ) -> ResolutionOutcome:
        """:func:`etki.approval.resolve_dispute` by this desk's reviewer (``etki dispute
        resolve``, the Hafıza form), then the wiki caught up (the resolution changed the
        DB's wiki token: the projector renders the tree again), best-effort like every
        wiki write: a failure is in ``wiki_error``, the resolution stands.
        ``expected_id``: the resolution in force the reviewer saw (0: none; None: no
        check). Raises ``InputError``, ``NotFoundError``, ``PermissionDeniedError``
        (audited), ``ResolutionConflictError``."""
        from etki.approval import resolve_dispute

        resolution = resolve_dispute(
            self.repo,
            self.settings,
            project_id,
            clause_ref,
            verdict,
            reason,
            expected_id=expected_id,
        )
        if self.settings.wiki_path(project_id) is None:
            return ResolutionOutcome(resolution)
        projector = self.approvals.projector or self._wiki_projector
        try:
            return ResolutionOutcome(resolution, projector.catch_up(project_id))
        except Exception as exc:  # best-effort: the resolution has committed
            from etki.errors import error_text

            log.warning("wiki after the resolution of %s failed: %s", clause_ref, exc)
            return ResolutionOutcome(resolution, wiki_error=f"wiki not updated: {error_text(exc)}")
