"""``etki report``: every report of Raporlar, from the DB, as text, CSV or JSON.

    etki report [--project ID] [--format text|csv|json] [--report NAME]

The figures are :meth:`etki.services.Desk.report`'s, the very value the TUI draws, laid
out as tables by :func:`etki.reports.report_tables` (names in
:data:`etki.reports.REPORT_NAMES`). CSV (README, "Reports"): every report as a section
that starts with a marker row ``report,NAME,TITLE``, then its header row and data rows,
an empty row between sections; ``--report NAME`` prints that one table alone (header and
rows, no marker), ready to open in a spreadsheet. Text cells are guarded against
spreadsheet formulas (:func:`etki.reports.csv_cell`). The store is opened read-only.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from etki.console import echo_lines, emit_json

if TYPE_CHECKING:
    from etki.config import Settings

__all__ = ["register"]


def _report(args: argparse.Namespace, settings: Settings) -> int:
    from etki.reports import pick, report_tables, tables_json, text_lines, write_csv
    from etki.services import Desk

    desk = Desk.open(settings, read_only=True, create=False)
    try:
        project_id = desk.chosen_project(args.project)
        report = desk.report(project_id)
    finally:
        desk.close()
    tables = pick(report_tables(report), args.report)
    if args.format == "json":
        emit_json(tables_json(project_id, report, tables), indent=1)
    elif args.format == "csv":
        write_csv(tables, sys.stdout, sections=args.report is None)
    else:
        echo_lines(text_lines(tables))
    return 0


def register(sub: Any) -> None:
    """Add ``report`` to the ``etki`` parser."""
    report = sub.add_parser(
        "report", help="every Raporlar report (age of pending cases, rulings per reviewer, …)"
    )
    report.add_argument("--project", help="project id (default: the only project)")
    report.add_argument("--format", choices=("text", "csv", "json"), default="text")
    report.add_argument(
        "--report",
        metavar="NAME",
        help="only this report (e.g. pending_age, rulings_by_reviewer, cr_effort_by_month; "
        "with csv: one table, no section rows)",
    )
    report.set_defaults(handler=_report)
