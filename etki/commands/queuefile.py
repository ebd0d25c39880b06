"""``etki queue --output FILE [--format csv|xlsx]`` (issue 35 item 3): the listed cases
(the filtered queue, the rows ``--json`` prints) written to a spreadsheet file, with the
CSV writer and the formula guard of ``etki report`` and the desk
(:mod:`etki.tablefile`). Not a command group: used
by :mod:`etki.commands.cases`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from etki.console import echo
from etki.errors import InputError

__all__ = ["QUEUE_FORMATS", "queue_file", "queue_format"]

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
    text cell guarded against formulas (:func:`etki.tablefile.queue_table`,
    :func:`etki.tablefile.table_bytes`)."""
    from etki.tablefile import queue_table, table_bytes, write_export

    title = "cases" if args.all else "cases waiting for a ruling"
    data = table_bytes([queue_table(rows, title)], fmt, sections=False)
    write_export(args.output, data, "report")
    echo(f"{len(rows)} cases written to {args.output}", file=sys.stderr, multiline=False)
