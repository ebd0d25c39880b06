"""The desk's documents: the change-request document of a case and the report of a
project, both rendered from the DB. :class:`DeskDocuments` is a part of
:class:`etki.services.Desk` (it derives from it); the rendering lives in
:mod:`etki.wiki.export` and :mod:`etki.reports`."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from etki.errors import InputError

if TYPE_CHECKING:
    from etki.config import Settings
    from etki.domain import ClauseResolution, Project, Report, ScopeClause
    from etki.reports import CaseSelection
    from etki.store import CaseFileRepository


class _Desk(Protocol):
    """What the document methods read of the desk they are part of."""

    repo: CaseFileRepository
    settings: Settings

    def project(self, project_id: str) -> Project: ...
    def clauses(self, project_id: str) -> dict[str, ScopeClause]: ...
    def resolutions(self, project_id: str) -> list[ClauseResolution]: ...


class DeskDocuments:
    """The document methods of :class:`etki.services.Desk` (``self`` is the desk)."""

    def cr_document(
        self: _Desk, case_id: str, fmt: str = "md", *, internal: bool = False
    ) -> tuple[str, bytes]:
        """The client-facing change request of a case ruled CHANGE_REQUEST (issue 35
        item 1), rendered from the DB whether or not the wiki is on (``etki cr export``,
        the desk's ``X``): ``(file name, bytes)``, ``fmt`` ``md``, ``html`` (print-ready)
        or ``docx`` (Word), see :mod:`etki.wiki.clientcr`; the engine's deliberation
        only in an internal appendix when ``internal``. Raises ``NotFoundError`` for an
        unknown case, :class:`etki.errors.NotAChangeRequestError` for a case whose
        current ruling is not CHANGE_REQUEST, ``InputError`` for an unknown format."""
        from etki.errors import NotAChangeRequestError
        from etki.wiki.export import CLIENT_FORMATS, client_cr, cr_filename
        from etki.wiki.paths import has_cr_page

        if fmt not in CLIENT_FORMATS:
            raise InputError(f"unknown format {fmt!r}: one of {', '.join(CLIENT_FORMATS)}")
        case = self.repo.case(case_id)
        if not has_cr_page(case):
            raise NotAChangeRequestError(
                case_id, case.ruling.ruling if case.ruling is not None else None
            )
        project = self.project(case.project_id)
        return cr_filename(case, fmt), client_cr(project, case, fmt, internal=internal)

    def write_cr_document(
        self: _Desk,
        case_id: str,
        path: str | Path,
        *,
        internal: bool = False,
        overwrite: bool = False,
    ) -> Path:
        """Write the change request of ``case_id`` (:meth:`cr_document`) to ``path``,
        its format by the suffix (``.md``, ``.html``/``.htm``, ``.docx``, any case), as
        the wiki writes a page: its folder made when missing, a temporary file renamed
        over the target (never written through a link; a failed write leaves no
        cut-off file). Returns the path written (absolute). Raises ``InputError`` for
        another suffix or a file that cannot be written, and what :meth:`cr_document`
        raises."""
        from etki.tablefile import DESK_OVERWRITE_HINT, write_export

        suffix = Path(path).suffix.lower()
        fmt = {".md": "md", ".html": "html", ".htm": "html", ".docx": "docx"}.get(suffix)
        if fmt is None:
            raise InputError(f"{path}: end the file name with .docx, .html or .md")
        _name, data = DeskDocuments.cr_document(self, case_id, fmt, internal=internal)
        return write_export(  # an existing file only when the reviewer said so
            path, data, "change request", force=overwrite, hint=DESK_OVERWRITE_HINT
        )

    def report(
        self: _Desk,
        project_id: str,
        *,
        now: datetime | None = None,
        selection: CaseSelection | None = None,
    ) -> Report:
        """Every figure of Raporlar and ``etki report``, computed from the DB by
        :func:`etki.reports.compute_report`; pending ages are measured at ``now``
        (default: the store's clock); ``selection`` keeps only the cases it counts
        (:class:`etki.reports.CaseSelection`). Raises ``NotFoundError`` for an unknown
        project, ``InputError`` when the selection's reviewer names nobody who ruled a
        case of the project (an empty report would read as "no rulings")."""
        from etki.reports import check_reviewer, compute_report

        self.repo.project_name(project_id)  # a clear error for an unknown id
        cases = self.repo.cases(project_id)
        check_reviewer(selection, cases, project_id)
        known = tuple(self.clauses(project_id))
        return compute_report(
            cases,
            known,
            now if now is not None else self.repo.clock(),
            self.resolutions(project_id),
            selection,
            self.settings.disputed_escalation,
        )
