"""``etki report``: every report of Raporlar, from the DB, as text, CSV, JSON or .xlsx.

    etki report [--project ID] [--format text|csv|json|xlsx] [--report NAME]
                [--since YYYY-MM-DD] [--until YYYY-MM-DD] [--reviewer NAME] [--output FILE]
                [--delimiter ,|;]

The figures are :meth:`etki.services.Desk.report`'s, the very value the TUI draws, laid
out as tables by :func:`etki.reports.report_tables` (names in
:data:`etki.reports.REPORT_NAMES`). CSV (README, "Reports"): every report as a section
that starts with a marker row ``report,NAME,TITLE``, then its header row and data rows,
an empty row between sections; ``--report NAME`` prints that one table alone (header and
rows, no marker), ready to open in a spreadsheet; ``--delimiter ';'`` separates cells with
``;`` for Excel in tr-TR and de-DE, and then writes decimals with a comma (``0,85``). .xlsx (:mod:`etki.xlsx`): a sheet per
report. Text cells are guarded against spreadsheet formulas in both
(:func:`etki.reports.csv_cell`). ``--since/--until/--reviewer`` count only the cases of
:class:`etki.reports.CaseSelection`. ``--output FILE`` writes the file the way the wiki
writes a page (a temporary file renamed into place, never through a symbolic link);
its suffix (``.csv``, ``.xlsx``, ``.json``, ``.txt``) gives the format when ``--format``
is not given; .xlsx is written only to a file. The store is opened read-only.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from etki.commands.queuefile import csv_delimiter, delimiter_option, force_option
from etki.console import echo, echo_lines, emit_json
from etki.errors import InputError

if TYPE_CHECKING:
    from etki.config import Settings
    from etki.domain import Report
    from etki.reports import CaseSelection

__all__ = ["register"]

SUFFIX_FORMATS = {".csv": "csv", ".xlsx": "xlsx", ".json": "json", ".txt": "text"}
"""The format ``--output FILE`` implies when ``--format`` is not given."""


def _format(args: argparse.Namespace) -> str:
    """The output format, checked before the store is opened (a ``--format`` that
    contradicts the file's ending is refused: :func:`etki.tablefile.output_format`)."""
    from etki.tablefile import output_format

    chosen = output_format(args.output, args.format, SUFFIX_FORMATS, "text") or "text"
    if chosen == "xlsx" and args.output in (None, "-"):
        raise InputError("--format xlsx writes a file: give it with --output FILE.xlsx")
    return chosen


def _report(args: argparse.Namespace, settings: Settings) -> int:
    from etki.reports import CaseSelection

    fmt = _format(args)
    delimiter = csv_delimiter(args, fmt, settings.csv_delimiter)
    selection = CaseSelection(
        since=CaseSelection.day(args.since, "--since") if args.since else None,
        until=CaseSelection.day(args.until, "--until") if args.until else None,
        reviewer=args.reviewer or None,
    )
    if selection.since and selection.until and selection.since > selection.until:
        raise InputError(f"--since {selection.since} is after --until {selection.until}")
    if args.output not in (None, "-") and not args.force:  # said before the store opens
        from pathlib import Path

        from etki.tablefile import refuse_existing

        refuse_existing(Path(args.output).expanduser(), "report")
    from etki.reports import pick, report_tables, tables_json, text_lines, write_csv

    project_id, report = _compute(args, settings, selection)
    tables = pick(report_tables(report), args.report)
    to_file = args.output not in (None, "-")
    if fmt == "xlsx":
        from datetime import datetime

        from etki.tablefile import table_bytes

        as_of = datetime.fromisoformat(report.as_of.replace("Z", "+00:00"))
        _write(args, table_bytes(tables, "xlsx", created=as_of))
    elif fmt == "json":
        if to_file:
            import json

            data = tables_json(project_id, report, tables)
            _write(args, json.dumps(data, indent=1, ensure_ascii=False).encode() + b"\n")
        else:
            emit_json(tables_json(project_id, report, tables), indent=1)
    elif fmt == "csv":
        if to_file:  # UTF-8 with a BOM: Excel in tr-TR and de-DE then reads ş, ı, ü right
            from etki.tablefile import table_bytes

            sections = args.report is None
            _write(args, table_bytes(tables, "csv", sections=sections, delimiter=delimiter))
        else:
            write_csv(tables, sys.stdout, sections=args.report is None, delimiter=delimiter)
    else:
        lines = text_lines(tables)
        if report.selection:
            lines = [f"selection: {report.selection}", "", *lines]
        if to_file:
            _write(args, ("\n".join(lines) + "\n").encode())
        else:
            echo_lines(lines)
    if to_file:
        echo(f"report written to {args.output}", file=sys.stderr, multiline=False)
    return 0


def _compute(
    args: argparse.Namespace, settings: Settings, selection: CaseSelection
) -> tuple[str, Report]:
    """The chosen project and its report: read by :mod:`etki.store.lean_report` (plain
    SQL, no SQLAlchemy; the summary each ruling's row keeps instead of every decision,
    issue 32 item 1), or by the desk (:meth:`etki.services.Desk.report`) when that path
    cannot answer as it would (:class:`etki.store.lean.Fallback`). Both compute it with
    :func:`etki.reports.compute_report`'s functions
    (:func:`etki.reports.report_of_read` on the lean path)."""
    from etki.store.lean import Fallback, lean_call
    from etki.store.lean_report import report_read

    try:
        read = lean_call(
            settings.db_url,
            report_read,
            args.project,
            selection.since,
            selection.until,
            selection.names if selection.reviewer else None,
        )
    except Fallback:
        from etki.services import Desk

        desk = Desk.open(settings, read_only=True, create=False)
        try:
            project_id = desk.chosen_project(args.project)
            return project_id, desk.report(project_id, selection=selection)
        finally:
            desk.close()
    from etki.reports import check_reviewer_names, report_of_read

    check_reviewer_names(selection, read.reviewers, read.project_id)
    return read.project_id, report_of_read(read, selection, settings.disputed_escalation)


def _write(args: argparse.Namespace, data: bytes) -> None:
    """``data`` into the file ``--output`` names as the wiki writes a page (temporary
    file and rename, never through a link); an existing one only with ``--force``.
    Raises :class:`InputError` naming the file."""
    from etki.tablefile import write_export

    write_export(args.output, data, "report", force=args.force)


def register(sub: Any) -> None:
    """Add ``report`` to the ``etki`` parser."""
    report = sub.add_parser(
        "report", help="every Raporlar report (age of pending cases, rulings per reviewer, …)"
    )
    report.add_argument("--project", help="project id (default: the only project)")
    report.add_argument(
        "--format",
        choices=("text", "csv", "json", "xlsx"),
        help="default: from the --output suffix (.csv, .xlsx, .json, .txt), else text",
    )
    report.add_argument(
        "--report",
        metavar="NAME",
        help="only this report (e.g. pending_age, rulings_by_reviewer, cr_effort_by_month, "
        "overdue_looks; with csv: one table, no section rows)",
    )
    report.add_argument(
        "--since",
        metavar="YYYY-MM-DD",
        help="count rulings made on or after this day (UTC) and pending cases that "
        "arrived on or after it",
    )
    report.add_argument("--until", metavar="YYYY-MM-DD", help="the same, on or before this day")
    report.add_argument(
        "--reviewer",
        metavar="NAME",
        help="only the cases this reviewer ruled (ş, ı, ü may be typed as s, i, u)",
    )
    report.add_argument(
        "--output",
        metavar="FILE",
        help="write the report to FILE (its suffix gives the format); - or none: stdout. "
        "An existing FILE is not replaced without --force",
    )
    force_option(report)
    delimiter_option(report)
    report.set_defaults(handler=_report)
