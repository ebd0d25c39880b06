"""The desk's spreadsheet exports (issue 35 item 3): the report of a project and the
listed cases of the queue written to a CSV or .xlsx file, for the reviewer desk as
``etki report --output`` and ``etki queue --output`` write them (the tables, the
formula guard and the writer's rules are :mod:`etki.tablefile`'s).

:class:`DeskExports` is a part of :class:`etki.services.Desk` (it derives from it).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from etki.tablefile import (
    DESK_OVERWRITE_HINT,
    export_format,
    queue_row,
    queue_table,
    table_bytes,
    write_export,
)

if TYPE_CHECKING:
    from etki.config import Settings
    from etki.domain import CaseEvent, CaseSummary, ClauseMemory, Report
    from etki.reports import CaseSelection

__all__ = ["DeskExports"]


class _Desk(Protocol):
    """What the export methods read of the desk they are part of."""

    settings: Settings

    def report(
        self,
        project_id: str,
        *,
        now: datetime | None = None,
        selection: CaseSelection | None = None,
    ) -> Report: ...
    def queue_summaries(
        self, project_id: str, status: str | None = "pending"
    ) -> list[CaseSummary]: ...
    def clause_memory_of(
        self, cases: list, project_id: str | None = None
    ) -> dict[str, ClauseMemory]: ...
    def claims(self, project_id: str) -> dict[str, CaseEvent]: ...
    def assignments(self, project_id: str) -> dict[str, CaseEvent]: ...


class DeskExports:
    """The export methods of :class:`etki.services.Desk` (``self`` is the desk)."""

    def export_report(
        self: _Desk,
        project_id: str,
        path: str | Path,
        *,
        report: Report | None = None,
        now: datetime | None = None,
        overwrite: bool = False,
    ) -> Path:
        """Write every table of the project's report (:func:`etki.reports.report_tables`)
        to ``path``: CSV (a section per report) or .xlsx (a sheet per report), by its
        suffix. ``report``: the one already computed (Raporlar's, so the file holds what
        the screen shows), else :meth:`report` at ``now``. An existing file is replaced
        only with ``overwrite`` (the reviewer said so). Returns the path written.
        Raises :class:`InputError` for a suffix other than ``.csv``/``.xlsx`` or a file
        that cannot be written, ``NotFoundError`` for an unknown project."""
        from etki.reports import report_tables

        fmt = export_format(path)
        if report is None:
            report = self.report(project_id, now=now)
        as_of = datetime.fromisoformat(report.as_of.replace("Z", "+00:00"))
        delimiter = self.settings.csv_delimiter  # ETKI_CSV_DELIMITER: ; for tr-TR/de-DE Excel
        data = table_bytes(report_tables(report), fmt, created=as_of, delimiter=delimiter)
        return write_export(path, data, "report", force=overwrite, hint=DESK_OVERWRITE_HINT)

    def export_queue(
        self: _Desk,
        project_id: str,
        case_ids: Sequence[str],
        path: str | Path,
        title: str,
        *,
        overwrite: bool = False,
    ) -> tuple[Path, int]:
        """Write the cases ``case_ids`` of the project (the queue as listed, in that
        order; ids no longer stored are left out) to ``path`` as one table titled
        ``title``, its columns :data:`etki.tablefile.QUEUE_COLUMNS` (the rows of ``etki queue --json``,
        the risk as the desk shows it), CSV or .xlsx by the suffix. Returns the path
        written and the number of cases; an existing file is replaced only with
        ``overwrite``. Raises :class:`InputError` for another suffix, a file that cannot
        be written or one that exists."""
        fmt = export_format(path)
        every = self.queue_summaries(project_id, status=None)
        memory = self.clause_memory_of([c for c in every if c.ruling is not None], project_id)
        claims = self.claims(project_id)
        assignments = self.assignments(project_id)
        by_id = {c.case_id: c for c in every}
        rows = []
        for case_id in case_ids:
            case = by_id.get(case_id)
            if case is None:
                continue
            row = queue_row(case, memory, self.settings.disputed_escalation)
            held = claims.get(case_id)
            row["claimed_by"] = held.actor if held else None
            row["claimed_until"] = held.until if held else None
            given = assignments.get(case_id)
            row["assigned_to"] = given.after if given else None
            rows.append(row)
        data = table_bytes(
            [queue_table(rows, title)], fmt, sections=False, delimiter=self.settings.csv_delimiter
        )
        written = write_export(path, data, "queue", force=overwrite, hint=DESK_OVERWRITE_HINT)
        return written, len(rows)
