"""``etki queue [--output FILE] [--format csv|xlsx] [--delimiter ,|;]`` (issue 35 item 3): the listed cases
(the filtered queue, the rows ``--json`` prints) written to a spreadsheet file, with the
CSV writer and the formula guard of ``etki report`` and the desk
(:mod:`etki.tablefile`); ``--format csv`` without ``--output`` (or with ``--output -``)
prints the CSV to stdout, as ``etki report --format csv`` does (a trial found the two
disagreeing); xlsx is binary and always needs a file. Not a command group: used by
:mod:`etki.commands.cases`."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from etki.config import CSV_DELIMITERS
from etki.console import echo
from etki.errors import InputError

if TYPE_CHECKING:
    from etki.picks import Pick

__all__ = [
    "force_option",
    "QUEUE_FORMATS",
    "csv_delimiter",
    "delimiter_option",
    "overdue_only",
    "pick_options",
    "queue_file",
    "queue_format",
    "queue_pick",
]

QUEUE_FORMATS = {".csv": "csv", ".xlsx": "xlsx"}
"""The file formats of ``etki queue --output FILE`` (issue 35 item 3), by suffix."""


def delimiter_option(parser: Any) -> None:
    """Add ``--delimiter`` to ``etki report`` and ``etki queue`` (a PMO trial of issue 35:
    Excel in tr-TR and de-DE splits CSV on ``;``, so a comma-separated file opened there
    has each row in one column; with ``;`` fractions are written with a decimal comma,
    :func:`etki.reports.write_csv`, since that Excel read ``0.85`` as text)."""
    parser.add_argument(
        "--delimiter",
        choices=tuple(CSV_DELIMITERS),
        help="the CSV cell separator: , or ; (Excel in Turkish or German; quote ; in the "
        "shell, or write semicolon); with ; decimals are written with a comma (0,85 "
        "12,5), as that Excel reads numbers; default: ETKI_CSV_DELIMITER, else ,",
    )


def force_option(parser: Any) -> None:
    """Add ``--force`` to a command that writes ``--output FILE`` (``etki report``,
    ``etki queue``, ``etki cr export``): without it an existing file is refused, never
    replaced (:func:`etki.tablefile.refuse_existing`)."""
    parser.add_argument(
        "--force", action="store_true", help="replace the --output file when it exists"
    )


def csv_delimiter(args: argparse.Namespace, fmt: str | None, default: str = ",") -> str:
    """The CSV separator ``--delimiter`` asks for (``default``, the setting
    ``ETKI_CSV_DELIMITER``, when not given). Raises :class:`InputError` when it is given
    for a format other than CSV."""
    if args.delimiter is None:
        return default
    if fmt != "csv":
        raise InputError(f"--delimiter {args.delimiter} is for CSV: add --format csv")
    return CSV_DELIMITERS[args.delimiter]


def queue_format(args: argparse.Namespace) -> str | None:
    """The format ``etki queue`` writes (``csv``, ``xlsx``) or None (the terminal's
    text, or ``--json``), checked before the store is opened: ``csv`` goes to the file
    ``--output`` names or to stdout (no ``--output``, or ``-``), ``xlsx`` only to a file.
    Raises :class:`InputError` naming the option."""
    fmt = args.format
    if fmt == "text":
        fmt = None
    if args.output in (None, "-"):
        if fmt == "xlsx":
            raise InputError(
                "--format xlsx writes a binary file: give it with --output FILE.xlsx "
                "(--format csv prints to the terminal)"
            )
        if fmt is not None and args.json:
            raise InputError(f"--json and --format {fmt}: choose one")
        return fmt
    if args.json:
        raise InputError("--json prints to the terminal; --output writes csv or xlsx")
    from pathlib import Path

    from etki.tablefile import output_format, refuse_existing

    # a --format that contradicts the file's ending is refused, as by etki report
    chosen = output_format(args.output, fmt, QUEUE_FORMATS, None)
    if not args.force:  # an existing file is kept unless --force (issue 35 leftovers)
        refuse_existing(Path(args.output).expanduser(), "queue")
    return chosen


def queue_file(rows: list[dict], args: argparse.Namespace, fmt: str, default: str = ",") -> None:
    """The listed cases (``rows``: the ``--json`` rows) written to ``args.output`` as
    CSV (UTF-8 with a BOM, as ``etki report``) or an xlsx workbook: one table, every
    text cell guarded against formulas (:func:`etki.tablefile.queue_table`,
    :func:`etki.tablefile.table_bytes`). Without a file (``--output`` absent or ``-``)
    the CSV goes to stdout as ``etki report --format csv`` prints it (no BOM: a
    terminal or a pipe, not Excel)."""
    from etki.tablefile import queue_table, table_bytes, write_export

    title = "cases" if args.all else "cases waiting for a ruling"
    delimiter = csv_delimiter(args, fmt, default)
    if args.output in (None, "-"):
        from etki.reports import write_csv

        write_csv([queue_table(rows, title)], sys.stdout, sections=False, delimiter=delimiter)
        return
    data = table_bytes([queue_table(rows, title)], fmt, sections=False, delimiter=delimiter)
    write_export(args.output, data, "queue", force=args.force)
    count = f"{len(rows)} case{'' if len(rows) == 1 else 's'}"  # a trial read "1 cases"
    echo(f"{count} written to {args.output}", file=sys.stderr, multiline=False)


def pick_options(parser: Any) -> None:
    """Add ``--mine``, ``--module``, ``--submitter`` and ``--sure``/``--unsure`` (issue 35
    item 5: :class:`etki.picks.Pick`) to the ``etki queue`` parser."""
    parser.add_argument(
        "--mine", action="store_true", help="only the cases claimed by or assigned to you"
    )
    parser.add_argument(
        "--module", metavar="ID", help="only cases impacting module ID or a module below it"
    )
    parser.add_argument(
        "--submitter", metavar="NAME", help="only cases NAME submitted (ayse finds Ayşe Yılmaz)"
    )
    parser.add_argument(
        "--overdue",
        action="store_true",
        help="only pending cases whose 24h PMO look is overdue (as etki report's "
        "overdue_looks counts them)",
    )
    sure = parser.add_mutually_exclusive_group()
    sure.add_argument(
        "--sure", dest="sureness", action="store_const", const="sure", help="engine sure only"
    )
    sure.add_argument(
        "--unsure",
        dest="sureness",
        action="store_const",
        const="unsure",
        help="only the cases that need a careful look",
    )


def queue_pick(args: argparse.Namespace) -> Pick:
    """The :class:`etki.picks.Pick` of the ``etki queue`` options, checked
    before the store is opened: an empty ``--module`` or ``--submitter`` raises
    :class:`InputError` naming the option."""
    from etki.picks import Pick

    for option, value in (("--module", args.module), ("--submitter", args.submitter)):
        if value is not None and not value.strip():
            raise InputError(f"{option}: the value is empty; give a module id or a name")
    return Pick(
        mine=args.mine,
        module=args.module or "",
        submitter=args.submitter or "",
        sureness=args.sureness,
    )


def check_module(typed: str, project: str | None, settings: Any) -> None:
    """Refuse ``etki queue --module TYPED`` when it names no module of ``project`` (of
    every project not archived when None; :func:`etki.picks.module_matches`: an id or
    a prefix of ids, ``payments`` names ``payments.gateway``): :class:`InputError`
    (exit 2) naming the id typed and the nearest known ids
    (:func:`etki.picks.unknown_module`). A PMO trial read ``no case matches (module
    nosuch)`` with exit 0, as for a module no pending case impacts. The ids are read
    by :mod:`etki.store.lean`, else by the desk."""
    from etki.picks import module_matches, unknown_module
    from etki.store.lean import Fallback, lean_call

    try:
        known = lean_call(settings.db_url, "module_ids", project)
    except Fallback:
        from etki.services import Desk

        desk = Desk.open(settings, read_only=True)
        try:
            ids = [project] if project else desk.active_project_ids()
            known = sorted({m.id for pid in ids for m in desk.project(pid).modules})
        finally:
            desk.close()
    if not any(module_matches(typed, mid) for mid in known):
        where = f"project {project}" if project else "the projects stored"
        raise InputError(f"--module: {unknown_module(typed, known, where)}")


def overdue_only(rows: list[tuple[Any, Any]], escalate: bool) -> list[tuple[Any, Any]]:
    """``etki queue --overdue`` (issue 35 item 3): of ``rows`` (``(case, clause memory
    of its project)``, in their order) the pending cases whose 24h PMO look is overdue
    now, by the one rule ``etki report``'s ``overdue_looks`` and the desk's "look
    overdue" risk filter use (:func:`etki.reports.overdue_looks`: the risk the queue
    shows asks for the look, :data:`etki.reports.LOOK_HOURS` hours passed since
    ``submitted_at``, else ``created_at``). Now is this machine's clock in UTC, as
    ``etki report`` measures it."""
    from datetime import UTC, datetime

    from etki.reports import overdue_looks

    now = datetime.now(UTC)
    return [(c, memory) for c, memory in rows if overdue_looks([c], now, memory, escalate)]
