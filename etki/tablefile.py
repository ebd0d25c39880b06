"""Spreadsheet files of tables (issue 35 item 3): the report of a project and the listed
cases of the queue as CSV or .xlsx bytes, and the way they are written, shared by
``etki report --output``, ``etki queue --output`` and the reviewer desk
(:class:`etki.services.desk_exports.DeskExports`). Kept out of :mod:`etki.services` so the
CLI's lean read path imports no store.

The tables are :class:`etki.reports.ReportTable`; CSV is :func:`etki.reports.write_csv`
(UTF-8 with a BOM, so Excel in tr-TR and de-DE reads ş, ı, ü right), .xlsx is
:func:`etki.xlsx.write_xlsx`; both guard every text cell against spreadsheet formulas
(:func:`etki.reports.csv_cell`). A file is written as the wiki writes a page
(:func:`etki.wiki.writer.write_file`: a temporary file renamed into place, never through
a symbolic link).
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from etki.errors import InputError, os_error_message

if TYPE_CHECKING:
    from etki.domain import CaseRecord, CaseSummary, ClauseMemory
    from etki.reports import ReportTable

__all__ = [
    "DESK_OVERWRITE_HINT",
    "EXPORT_FORMATS",
    "OVERWRITE_HINT",
    "QUEUE_COLUMNS",
    "export_format",
    "output_format",
    "queue_row",
    "queue_table",
    "refuse_existing",
    "table_bytes",
    "write_export",
]

EXPORT_FORMATS = {".csv": "csv", ".xlsx": "xlsx"}
"""The spreadsheet formats a file can be exported as, by the suffix of its name."""

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
    "assigned_to",
)
"""The columns of an exported queue (the keys of an ``etki queue --json`` row, in order)."""

_BOM = b"\xef\xbb\xbf"


def export_format(path: str | Path) -> str:
    """``csv`` or ``xlsx``, from the suffix of ``path`` (any case). Raises
    :class:`InputError` naming the file for any other suffix."""
    suffix = Path(path).suffix.lower()
    if suffix not in EXPORT_FORMATS:
        raise InputError(f"{path}: end the file name with " + " or ".join(EXPORT_FORMATS))
    return EXPORT_FORMATS[suffix]


SUFFIX_NAMES = {
    ".csv": "csv",
    ".xlsx": "xlsx",
    ".xls": "xls",
    ".json": "json",
    ".txt": "text",
    ".md": "md",
    ".markdown": "md",
    ".html": "html",
    ".htm": "html",
    ".docx": "docx",
    ".doc": "doc",
    ".pdf": "pdf",
}
"""The format a file's ending names, whatever the command: what ``--format`` may not
contradict (:func:`output_format`; a trial wrote Markdown into ``x.docx``)."""


def output_format(
    output: str | None,
    given: str | None,
    suffixes: Mapping[str, str],
    default: str | None,
    *,
    bare: str | None = None,
) -> str | None:
    """The format a command writes to ``--output OUTPUT`` (``None`` or ``-``: stdout),
    shared by ``etki report``, ``etki queue`` and ``etki cr export``.

    ``given`` is ``--format`` (None when not given), ``suffixes`` maps the endings the
    command writes (``".csv"``, lower case) to its format names, ``default`` is the
    format on stdout without ``--format``, ``bare`` the format of a file name with no
    ending at all (None: a file must end with one of ``suffixes``). A ``--format``
    that contradicts the file's ending (:data:`SUFFIX_NAMES`: ``--format md`` and
    ``x.docx``) is refused. Raises :class:`InputError` naming the option and the file."""
    if output in (None, "-"):
        return given if given is not None else default
    suffix = Path(output).suffix.lower()
    named = SUFFIX_NAMES.get(suffix, suffixes.get(suffix))
    if given is not None:
        if named is not None and named != given:
            ending = next((end for end, name in suffixes.items() if name == given), "")
            raise InputError(
                f"--output {output} names a {suffix} file but --format {given} writes "
                f"{given}: drop --format, or end the file name with {ending or given}"
            )
        return given
    if suffix in suffixes:
        return suffixes[suffix]
    if bare is not None and not suffix:
        return bare
    raise InputError(
        f"--output {output}: say the format with --format, or end the file name with "
        + ", ".join(suffixes)
    )


def table_bytes(
    tables: Sequence[ReportTable],
    fmt: str,
    *,
    sections: bool = True,
    created: datetime | None = None,
    delimiter: str = ",",
) -> bytes:
    """``tables`` as the bytes of a file: ``fmt`` ``csv`` (UTF-8 with a BOM; with
    ``sections`` each table after a marker row, ``delimiter`` between cells:
    :func:`etki.reports.write_csv`) or
    ``xlsx`` (a sheet per table, ``created`` its creation time). Raises
    :class:`InputError` for another format."""
    if fmt == "xlsx":
        from etki.xlsx import write_xlsx

        buffer = io.BytesIO()
        write_xlsx(tables, buffer, created=created)
        return buffer.getvalue()
    if fmt == "csv":
        from etki.reports import write_csv

        text = io.StringIO(newline="")
        write_csv(tables, text, sections=sections, delimiter=delimiter)
        return _BOM + text.getvalue().encode()
    raise InputError(f"unknown format {fmt!r}: one of csv, xlsx")


OVERWRITE_HINT = "add --force to replace it"
"""What the CLI says to do when the file it would write exists (:func:`refuse_existing`)."""

DESK_OVERWRITE_HINT = "export again and answer Replace to write over it"
"""What the desk says when a file appeared after it asked (:func:`refuse_existing`)."""


def refuse_existing(target: Path, what: str, hint: str = OVERWRITE_HINT) -> None:
    """Raise :class:`InputError` naming ``target`` when something is there already (a
    file, a folder, a link, a dangling one too): an export never replaces a file unasked
    (issue 35 leftovers: a second export lost the first). ``hint`` says how to replace
    it (``--force`` on the command line; the desk asks first)."""
    if os.path.lexists(target):
        raise InputError(f"{what} not written: {target} already exists; {hint}")


def write_export(
    path: str | Path,
    data: bytes,
    what: str = "report",
    *,
    force: bool = False,
    hint: str = OVERWRITE_HINT,
) -> Path:
    """``data`` into the file ``path`` as the wiki writes a page (its folder made when
    missing; a temporary file and a rename, never through a link); the path written
    (absolute: a relative ``path`` is in the working directory). An existing ``path``
    is replaced only with ``force`` (``--force``; the desk after asking), else refused
    with ``hint`` (:func:`refuse_existing`).
    Raises :class:`InputError` ("``what`` not written: …") naming the file."""
    from etki.wiki.writer import write_file

    target = Path(path).expanduser()
    if not force:
        refuse_existing(target, what, hint)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_file(target, data)
    except OSError as exc:  # a folder in the way, no permission, disk full
        raise InputError(f"{what} not written: {os_error_message(exc)}") from exc
    return target.absolute()


def queue_row(
    c: CaseRecord | CaseSummary, memory: Mapping[str, ClauseMemory], escalate: bool
) -> dict:
    """One case of ``etki queue --json``. ``risk`` and ``pmo_look_24h`` are the risk as
    the desk shows it now (:func:`etki.memory.current_risk`: a cited clause disputed
    since the triage raises it when ``ETKI_DISPUTED_ESCALATION`` is on); ``risk_raised_by``
    names the clauses that raised it (empty: the stored decision's risk);
    ``risk_at_triage`` is the frozen decision's level; ``sure`` whether the engine is sure
    of its verdict (False for an engine before 3.0.0, which did not say; ``etki show
    --json`` has its doubts); ``disputed_refs`` the refs of the
    cited clauses whose dispute is open now, whether or not escalation is on (a list of
    refs like ``risk_raised_by``; ``etki show --json``'s ``now.disputed_clauses`` gives
    each disputed clause's rulings and resolution)."""
    from etki.domain import is_sure
    from etki.memory import current_risk, open_disputed_refs

    d = c.decision
    risk, raised = current_risk(d, memory, escalate)
    return {
        "case_id": c.case_id,
        "project_id": c.project_id,
        "request_id": c.request_id,
        "title": c.title,
        "submitted_by": c.submitted_by,
        "verdict": d.verdict,
        "confidence": d.confidence,
        "sure": is_sure(d),
        "cited_clauses": list(d.cited_clauses),
        "risk": risk.level,
        "pmo_look_24h": risk.pmo_look_24h,
        "risk_raised_by": list(raised),
        "risk_at_triage": d.risk.level,
        "disputed_refs": list(open_disputed_refs(d.cited_clauses, memory)),
        "status": c.status,
        "version": c.version,
        "created_at": c.created_at,
        "ruling": c.ruling.ruling if c.ruling else None,
    }


def queue_table(rows: Sequence[Mapping[str, Any]], title: str) -> ReportTable:
    """The queue rows (:func:`queue_row` plus ``claimed_by``/``claimed_until`` and
    ``assigned_to``) as one
    table named ``queue``: booleans as ``yes``/``no``, lists joined with ``; ``."""
    from etki.reports import ReportTable

    columns = tuple(rows[0]) if rows else QUEUE_COLUMNS

    def cell(value: object) -> Any:
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, list):
            return "; ".join(str(v) for v in value)
        return value

    return ReportTable(
        name="queue",
        title=title,
        columns=columns,
        rows=tuple(tuple(cell(r[c]) for c in columns) for r in rows),
    )
