"""``ApprovalService``: the reviewer's ruling on a case, and the HITL ingest hook.

A ruling is committed to the DB first (optimistic locking, see
:meth:`etki.store.CaseFileRepository.record_ruling`); only after the commit does the
hook project the case into the wiki. Every wiki write is best-effort: an error there is
logged and reported in :class:`RulingOutcome`, never raised into the approval
(DESIGN.md, "Decisions, approval, memory").
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Protocol

from etki.config import Settings
from etki.domain import ACTIONS, CaseRecord, ClauseResolution, RulingOutcome
from etki.errors import InputError, PermissionDeniedError, error_text
from etki.identity import approver_hint, is_listed_approver, reviewer_name
from etki.store import CaseFileRepository

log = logging.getLogger("etki.approval")

WikiHook = Callable[[str], object]
"""Called with a case id after its ruling committed; returns a report or raises."""


class Projector(Protocol):
    """The wiki projector as approval knows it, without importing the wiki
    (:class:`etki.wiki.projection.WikiProjector` is one): the hook, and the catch-up the
    desk runs on start. Both return a write report or raise."""

    def project_case(self, case_id: str, ruled: CaseRecord | None = None) -> object:
        """Project one case after its ruling committed (``ruled``: the case as the
        ruling left it, from the decision in hand, when known)."""

    def catch_up(self, project_id: str) -> object:
        """Write whatever the DB holds that the project's wiki lacks."""

    def close(self) -> None:
        """Finish the deferred work (the pages' ``fsync``); raises ``OSError``."""


def refuse_archived(repo: CaseFileRepository, project_id: str, what: str) -> None:
    """Raise :class:`~etki.errors.ProjectArchivedError` (saying it ``what``, e.g.
    ``takes no rulings``) when ``project_id`` is archived: an archived engagement takes
    no new requests, imports, rulings, notes, estimates, claims or resolutions; reads
    go on (issue 35 item 6). Raises nothing for an active project."""
    from etki.errors import ProjectArchivedError

    if project_id in repo.archived_project_ids():
        raise ProjectArchivedError(project_id, what)


def require_approver(
    repo: CaseFileRepository, case: CaseRecord, reviewer: str, action: str, reason: str
) -> None:
    """Raise :class:`PermissionDeniedError` unless ``reviewer`` is an approver of the
    case's project, names compared in NFC with surrounding white space stripped, case
    kept (:func:`etki.identity.reviewer_name`: ``Ju\u0308rgen`` is ``Jürgen``). A project
    whose ``etki.yaml`` lists no reviewers accepts anyone (an engagement may start from
    its contract alone). A refusal is audited on the case first (outcome ``denied``, with
    ``action`` and ``reason`` as asked), so a refused ruling and a refused erasure leave
    the same trail. The message names no approver: the list is who may act, not
    something to hand whoever asks. Rulings (:meth:`ApprovalService.rule`) and erasure
    (:func:`etki.erasure.erase_case`) both call it."""
    reviewers = repo.project_config(case.project_id).reviewers
    if not reviewers or is_listed_approver(reviewers, reviewer):
        return
    repo.audit_attempt(
        case.case_id,
        reviewer,
        action,
        reason,
        "denied",
        before=case.ruling.ruling if case.ruling else "pending",
    )
    raise PermissionDeniedError(
        f"reviewer '{reviewer_name(reviewer)}' is not an approver of project "
        f"'{case.project_id}'; ask a project approver to list you in etki.yaml, or set "
        f"ETKI_REVIEWER to your approver name{approver_hint(reviewers, reviewer)}"
    )


def require_project_approver(repo: CaseFileRepository, project_id: str, reviewer: str) -> None:
    """Raise :class:`PermissionDeniedError` unless ``reviewer`` is an approver of
    ``project_id``: the test of :func:`require_approver` (names in NFC, stripped; a
    project listing no reviewers accepts anyone) at project level, for a write that
    belongs to no case (a resolution of a disputed clause). A refusal is audited first
    in ``project_audit`` (action ``dispute``, outcome ``denied``:
    :meth:`etki.store.CaseFileRepository.audit_resolution_denied`). Raises
    ``NotFoundError`` for an unknown project."""
    reviewers = repo.project_config(project_id).reviewers
    if not reviewers or is_listed_approver(reviewers, reviewer):
        return
    repo.audit_resolution_denied(project_id, reviewer)
    raise PermissionDeniedError(
        f"reviewer '{reviewer_name(reviewer)}' is not an approver of project "
        f"'{project_id}' and may not resolve a disputed clause; ask a project approver, "
        f"or set ETKI_REVIEWER to your approver name{approver_hint(reviewers, reviewer)}"
    )


def disputed_ref(refs: Iterable[str], wanted: str) -> str:
    """The ref of ``refs`` (the project's disputed clause refs) that ``wanted`` names:
    itself, or the one whose number (after ``#``) it is when exactly one has it
    (``4.8`` for ``MSA#4.8``). Raises :class:`InputError` naming the disputed refs when
    none or several match."""
    refs = sorted(refs)
    wanted = wanted.strip()
    if wanted in refs:
        return wanted
    by_number = [r for r in refs if "#" in r and r.split("#", 1)[1] == wanted]
    if len(by_number) == 1:
        return by_number[0]
    listed = ", ".join(refs) or "none"
    if by_number:
        raise InputError(
            f"clause '{wanted}' is the number of several disputed clauses "
            f"({', '.join(by_number)}); give the whole ref"
        )
    raise InputError(
        f"clause '{wanted}' is not disputed now (its rulings agree, or no ruled case cites "
        f"it): nothing to resolve. Disputed clauses: {listed}"
    )


def resolve_dispute(
    repo: CaseFileRepository,
    settings: Settings,
    project_id: str,
    clause_ref: str,
    verdict: str,
    reason: str,
    *,
    reviewer: str | None = None,
    expected_id: int | None = None,
) -> ClauseResolution:
    """Record a person's resolution of a disputed clause of ``project_id`` (``etki
    dispute resolve``, the Hafıza card's form): ``verdict`` is the ruling the clause
    calls for (IN_SCOPE, CHANGE_REQUEST, REJECT, or the CLI's ``in_scope``/``cr``/
    ``reject``), ``reason`` the PMO's words (required). ``reviewer`` defaults to
    ``settings.reviewer`` and must be an approver of the project
    (:func:`require_project_approver`: a refusal is audited). ``clause_ref`` must name a
    clause disputed now (:func:`disputed_ref`; a resolved one may be resolved again:
    the newest is in force). ``expected_id``: the id of the clause's resolution in
    force the PMO saw (0: none), checked in the write's transaction
    (``ResolutionConflictError`` when another was recorded since; None: no check, as
    the CLI reads it now). Appends to ``clause_resolutions``; never touches a
    decision or a ruling. Raises :class:`InputError`, ``NotFoundError`` and
    :class:`PermissionDeniedError`; the wiki is the caller's (best-effort)."""
    from etki.domain import RESOLUTION_VERDICTS, VERDICTS
    from etki.memory import clause_memory

    who = reviewer_name(reviewer or settings.reviewer)
    refuse_archived(repo, project_id, "takes no resolutions of disputed clauses")
    require_project_approver(repo, project_id, who)
    code = RESOLUTION_VERDICTS.get(verdict.strip().lower(), verdict.strip().upper())
    if code not in VERDICTS:
        raise InputError(
            f"unknown verdict '{verdict}'; use one of {', '.join(RESOLUTION_VERDICTS)}"
        )
    if not reason.strip():
        raise InputError("a resolution needs a reason (--reason): what the clause covers")
    memory = clause_memory(  # the light rows: memory reads cited clauses and rulings only
        repo.case_summaries(project_id, status="ruled"),
        repo.clause_resolutions(project_id),
    )
    ref = disputed_ref((r for r, m in memory.items() if m.disputed), clause_ref)
    return repo.record_resolution(project_id, ref, code, reason, who, expected_id=expected_id)


class ApprovalService:
    """Approve, convert to CR or reject a case.

    ``hook`` is the HITL ingest hook, called after each commit (None: nothing is
    projected). This module never builds one: :func:`etki.services.approval_service`
    wires the wiki projector in (and passes it as ``projector``), so approval does not
    depend on the wiki.
    """

    def __init__(
        self,
        repo: CaseFileRepository,
        settings: Settings,
        *,
        hook: WikiHook | None = None,
        projector: Projector | None = None,
    ) -> None:
        self.repo = repo
        self.settings = settings
        self.projector = projector
        """The :class:`~etki.wiki.projection.WikiProjector` whose ``project_case`` is the
        hook, when :func:`etki.services.approval_service` wired it (None with a custom
        hook or the wiki off). It lives as long as the service and keeps its in-memory
        model between rulings, so a ruling projects in milliseconds; it still sees every
        change made by other processes (it polls the DB's change token)."""
        self.hook = hook

    def rule(
        self,
        case_id: str,
        action: str,
        *,
        reason: str = "",
        reviewer: str | None = None,
        expected_version: int | None = None,
        amend: bool = False,
    ) -> RulingOutcome:
        """Commit ``action`` (approve | convert_to_cr | reject) on ``case_id``.

        ``amend`` (``etki rule … --amend``, ``A`` on the desk): replace the ruling of an
        already ruled case; the earlier ruling stays in the audit log and the case's
        ruling history (:meth:`CaseFileRepository.record_ruling`). An amendment always
        needs a reason, is for approvers only (as every ruling) and still holds
        ``expected_version``: amending a ruling someone else just amended is a
        ``ConflictError``. Amending a pending case raises :class:`InputError` (rule it
        instead); ruling a ruled case without ``amend`` stays a ``ConflictError``.

        ``reviewer`` defaults to ``settings.reviewer`` (``ETKI_REVIEWER`` or the OS user);
        it is normalised (:func:`etki.identity.reviewer_name`) before it is checked and
        stored. Every attempt's audit row also records the OS user, host, pid and program
        of this process.
        A reason is required when the ruling differs from the engine's verdict.
        Raises :class:`InputError` (bad action, missing reason;
        :class:`~etki.errors.ProjectArchivedError` when the case's project is
        archived, nothing written), ``NotFoundError``,
        :class:`PermissionDeniedError` and ``ConflictError`` (already ruled); never a wiki
        error.
        """
        if action not in ACTIONS:
            raise InputError(f"unknown action '{action}'; use one of {', '.join(ACTIONS)}")
        who = reviewer_name(reviewer or self.settings.reviewer)
        case = self.repo.case(case_id)
        refuse_archived(self.repo, case.project_id, "takes no rulings")
        require_approver(self.repo, case, who, action, reason)
        reason = reason.strip()
        if amend and case.ruling is None:
            raise InputError(
                f"case {case_id} is pending, there is no ruling to amend: rule it instead "
                "(without --amend)"
            )
        if amend and not reason:
            raise InputError(
                f"amending the ruling {case.ruling.ruling if case.ruling else ''} of "
                f"{case_id} needs a reason (--reason): the earlier ruling stays on record"
            )
        if ACTIONS[action] != case.decision.verdict and not reason:
            raise InputError(
                f"ruling {ACTIONS[action]} overrides the engine's verdict "
                f"{case.decision.verdict} on {case_id}: give a reason (--reason)"
            )
        version = case.version if expected_version is None else expected_version
        ruling = self.repo.record_ruling(
            case_id, action, who, reason, expected_version=version, amend=amend
        )
        if self.hook is None:
            return RulingOutcome(ruling)
        try:
            if self.projector is not None and self.hook == self.projector.project_case:
                # the decision in hand: the case as this ruling left it (the projector
                # checks it is the DB's before it uses it instead of reading the case)
                after = replace(case, ruling=ruling, version=ruling.version)
                report = self.projector.project_case(case_id, after)
            else:
                report = self.hook(case_id)
        except Exception as exc:  # best-effort: the ruling has committed
            log.info("wiki projection of %s failed: %s", case_id, exc)  # said once, below
            return RulingOutcome(ruling, wiki_error=f"wiki not updated: {error_text(exc)}")
        return RulingOutcome(ruling, wiki_report=report)
