"""The desk's intake: ``etki init``, ``add``, ``import``, the developer pre-analysis,
reading the folder's requests again and ``etki triage``. :class:`DeskIntake` is a part
of :class:`etki.services.Desk` (it derives from it); the work is done by
:mod:`etki.services.intake` and :mod:`etki.services.preanalysis`."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from etki.engines import stored_triage
from etki.services.intake import (
    InitSummary,
    IntakeSummary,
    add_request,
    import_requests,
    init_project,
    store_requests,
)
from etki.services.preanalysis import (
    FROM_REREAD,
    PreanalysisRun,
    preanalyse_case,
    preanalyse_cases,
)

if TYPE_CHECKING:
    from etki.approval import ApprovalService
    from etki.config import Settings
    from etki.domain import CaseRecord, Decision, Preanalysis, Project
    from etki.store import CaseFileRepository

log = logging.getLogger("etki.services")


class _Desk(Protocol):
    """What the intake methods read of the desk they are part of."""

    repo: CaseFileRepository
    settings: Settings

    @property
    def approvals(self) -> ApprovalService: ...
    def project(self, project_id: str) -> Project: ...
    def catch_up_wiki(self, project_id: str) -> tuple[object | None, str | None]: ...


class DeskIntake:
    """The intake methods of :class:`etki.services.Desk` (``self`` is the desk)."""

    # intake
    def init_project(
        self: _Desk,
        path: str | Path,
        *,
        related_context: bool | None = None,
        update_reviewers: bool = False,
        preanalyse: bool | None = None,
    ) -> InitSummary:
        """:func:`init_project` on this desk's store (``etki init``)."""
        return init_project(
            path,
            self.repo,
            self.settings,
            related_context=related_context,
            update_reviewers=update_reviewers,
            preanalyse=preanalyse,
        )

    def add_request(
        self: _Desk,
        project_id: str,
        text: str,
        *,
        title: str | None = None,
        submitted_by: str | None = None,
        source: str = "etki add",
        preanalyse: bool | None = None,
    ) -> CaseRecord:
        """:func:`add_request`: triage and store one new request (``etki add``;
        ``source`` names where it came from in the case's history)."""
        return add_request(
            self.repo,
            project_id,
            self.settings,
            text,
            title=title,
            submitted_by=submitted_by,
            source=source,
            preanalyse=preanalyse,
        )

    def import_requests(
        self: _Desk,
        project_id: str,
        path: str | Path,
        fmt: str | None = None,
        *,
        preanalyse: bool | None = None,
    ) -> IntakeSummary:
        """:func:`import_requests`: a file of requests triaged and stored (``etki
        import``)."""
        return import_requests(
            self.repo, project_id, self.settings, path, fmt, preanalyse=preanalyse
        )

    # the developer pre-analysis
    def preanalysis_model(self: _Desk) -> str | None:
        """The chat model a pre-analysis would be asked of (``ETKI_LLM_MODEL``), or
        None when none is configured (both ``ETKI_LLM_BASE_URL`` and
        ``ETKI_LLM_MODEL`` are needed)."""
        s = self.settings
        return s.llm_model if s.llm_base_url and s.llm_model else None

    def preanalyse(self: _Desk, case_id: str) -> tuple[Preanalysis, str | None]:
        """Write a new pre-analysis of ``case_id`` (:func:`preanalyse_case`; ``etki
        preanalyse``, ``p`` on the desk), then project the case's wiki pages with the
        projector the rulings use (best-effort, as after a ruling): ``(saved, None)`` or
        ``(saved, "wiki not updated: …")``. Raises
        :class:`PreanalysisUnavailableError` without a model, ``NotFoundError`` for an
        unknown case, :class:`~etki.errors.ProjectArchivedError` on an archived project
        (nothing is asked: it takes no writes, issue 35 item 6)."""
        from etki.approval import refuse_archived

        refuse_archived(self.repo, self.repo.case_project_id(case_id), "takes no pre-analyses")
        saved = preanalyse_case(self.repo, self.settings, case_id)
        projector = self.approvals.projector
        if projector is None:
            return saved, None
        try:
            projector.project_case(case_id)
        except Exception as exc:  # best-effort, like every wiki write
            log.info("wiki projection of %s failed: %s", case_id, exc)
            from etki.errors import error_text

            return saved, f"wiki not updated: {error_text(exc)}"
        return saved, None

    def preanalyse_missing(self: _Desk, project_id: str) -> PreanalysisRun:
        """A pre-analysis for every case of ``project_id`` that has none yet
        (:func:`preanalyse_cases`, stopping once the model looks down; ``etki
        preanalyse --project ID --missing``), then the wiki caught up (best-effort).
        Raises :class:`PreanalysisUnavailableError` without a model and
        ``NotFoundError`` for an unknown project, ``ProjectArchivedError`` for an
        archived one."""
        from etki.approval import refuse_archived

        self.repo.project_config(project_id)
        refuse_archived(self.repo, project_id, "takes no pre-analyses")
        run = preanalyse_cases(
            self.repo, self.settings, self.repo.cases_without_preanalysis(project_id)
        )
        if run.written or run.failed:
            self.catch_up_wiki(project_id)
        return run

    def preanalyses(self: _Desk, case_id: str) -> list[Preanalysis]:
        """Every saved pre-analysis of ``case_id``, oldest first (the newest is on
        :attr:`CaseRecord.preanalysis`)."""
        return self.repo.preanalyses(case_id)

    def reread_requests(self: _Desk, project_id: str) -> IntakeSummary | None:
        """Read the project folder's ``requests.jsonl`` again and :func:`store_requests`
        the rows not stored yet (the TUI's Ctrl+R; ``etki init`` does the same for new
        rows at the next launch). None when the folder or the file is not there any more
        (the store keeps where the project was loaded from, ``projects.root``). A bad row
        is refused alone (``IntakeSummary.refused``, ``requests.jsonl:LINE: field: …``);
        the contract and the other knowledge files are not read again (that is ``etki
        init``). Raises :class:`ProjectFormatError` for a file that cannot be read as a
        whole, ``NotFoundError`` for an unknown project."""
        from etki.knowledge.loader import read_requests_jsonl

        file = Path(self.project(project_id).root) / "requests.jsonl"
        if not file.is_file():
            return None
        requests, refused = read_requests_jsonl(file, self.settings.max_request_chars)
        return store_requests(
            self.repo,
            project_id,
            self.settings,
            requests,
            refused,
            source=FROM_REREAD,
        )

    def triage_text(
        self: _Desk, project_id: str, case_id: str, text: str, title: str | None = None
    ) -> Decision:
        """:func:`stored_triage`: triage ``text`` against the stored project, nothing
        stored (``etki triage``). Raises ``NotFoundError`` for an unknown project."""
        return stored_triage(self.repo, project_id, self.settings, case_id, text, title)
