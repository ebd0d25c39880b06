"""``etki queue --output FILE [--format csv|xlsx]`` (issue 35 item 3): the listed cases
(the filtered queue, the rows ``--json`` prints) written to a spreadsheet file, with the
CSV writer and the formula guard of ``etki report`` (:func:`etki.reports.write_csv`,
:func:`etki.xlsx.write_xlsx`, :func:`etki.reports.csv_cell`). Not a command group: used
by :mod:`etki.commands.cases`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from etki.console import echo
from etki.errors import InputError

__all__ = ["QUEUE_COLUMNS", "QUEUE_FORMATS", "queue_file", "queue_format"]

QUEUE_FORMATS = {".csv": "csv", ".xlsx": "xlsx"}
"""The file formats of ``etki queue --output FILE`` (issue 35 item 3), by suffix."""


def queue_format(args: argparse.Namespace) -> str | None:
    """The file format ``etki queue`` writes (``csv``, ``xlsx``) or None (the terminal),
    checked before the store is opened. Raises :class:`InputError` naming the option."""
    fmt = args.format
    if fmt == "text":
        fmt = None
    if args.output is None:
        if fmt is not None:
            raise InputError(f"--format {fmt} writes a file: give it with --output FILE")
        return None
    if args.json:
        raise InputError("--json prints to the terminal; --output writes csv or xlsx")
    if fmt is None:
        suffix = Path(args.output).suffix.lower()
        if suffix not in QUEUE_FORMATS:
            raise InputError(
                f"--output {args.output}: say the format with --format csv|xlsx, or end the "
                "file name with " + ", ".join(QUEUE_FORMATS)
            )
        fmt = QUEUE_FORMATS[suffix]
    return fmt


def queue_file(rows: list[dict], args: argparse.Namespace, fmt: str) -> None:
    """The listed cases (``rows``: the ``--json`` rows) written to ``args.output`` as
    CSV (UTF-8 with a BOM, as ``etki report``) or an xlsx workbook: one table, every
    text cell guarded against formulas (:func:`etki.reports.csv_cell`)."""
    import io

    from etki.commands.reports import _write
    from etki.reports import ReportTable, write_csv

    columns = tuple(rows[0]) if rows else QUEUE_COLUMNS

    def cell(value: object) -> Any:
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, list):
            return "; ".join(str(v) for v in value)
        return value

    table = ReportTable(
        name="queue",
        title="cases" if args.all else "cases waiting for a ruling",
        columns=columns,
        rows=tuple(tuple(cell(r[c]) for c in columns) for r in rows),
    )
    if fmt == "xlsx":
        from etki.xlsx import write_xlsx

        buffer = io.BytesIO()
        write_xlsx([table], buffer)
        _write(args.output, buffer.getvalue())
    else:
        text = io.StringIO(newline="")
        write_csv([table], text, sections=False)
        _write(args.output, b"\xef\xbb\xbf" + text.getvalue().encode())
    echo(f"{len(rows)} cases written to {args.output}", file=sys.stderr, multiline=False)


QUEUE_COLUMNS = (
    "case_id",
    "project_id",
    "request_id",
    "title",
    "submitted_by",
    "verdict",
    "confidence",
    "sure",
    "cited_clauses",
    "risk",
    "pmo_look_24h",
    "risk_raised_by",
    "risk_at_triage",
    "disputed_refs",
    "status",
    "version",
    "created_at",
    "ruling",
    "claimed_by",
    "claimed_until",
)
"""The columns of ``etki queue --output`` (the keys of a ``--json`` row, in order)."""
