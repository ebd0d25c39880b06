"""Spreadsheets as .xlsx (openpyxl, a kept library): the reports and the queue a PMO
exports, one sheet per table, every cell guarded as the CSV is.

Each text cell is made terminal-safe and one line (:func:`etki.text.printable`, as
:func:`etki.reports.csv_cell` does) and stored as its own text, with the string type and
Excel's quote-prefix style (``quotePrefix``), so no spreadsheet evaluates it, not even
after a user edits the cell: ``=1+1`` reads back as ``=1+1``, a string. The CSV's guard
(a ``'`` written before the text, OWASP "CSV Injection") is not needed in a cell that
carries its type and would show up in its value (a trial read ``'=HYPERLINK(…)``).
Numbers stay numbers (rounded as the CSV's) and None an empty cell. Sheet names
are the table names (at most 31 characters, Excel's limit). The file's creation time is
the one given (``etki report`` gives the report's ``as_of``), not the moment of writing.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, BinaryIO

from etki.reports import Cell, ReportTable, csv_cell
from etki.text import printable

if TYPE_CHECKING:
    from openpyxl.styles import Font
    from openpyxl.worksheet.worksheet import Worksheet

__all__ = ["SHEET_NAME_MAX", "write_xlsx"]

SHEET_NAME_MAX = 31
"""Excel refuses a sheet name of more than 31 characters."""


def write_xlsx(
    tables: Sequence[ReportTable], out: BinaryIO, *, created: datetime | None = None
) -> None:
    """Write ``tables`` to ``out`` as one workbook: a sheet per table, named by the
    table (cut to :data:`SHEET_NAME_MAX`), its title in A1, the header row in row 2
    (bold), the data rows below. ``created`` (aware) is stored as the file's creation
    time (default: now, UTC). Raises ``OSError`` when ``out`` cannot be written."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    book = Workbook()
    for first in list(book.worksheets):  # the empty sheet a new workbook starts with
        book.remove(first)
    book.properties.creator = "etki"
    book.properties.created = (created or datetime.now(UTC)).astimezone(UTC).replace(tzinfo=None)
    bold = Font(bold=True)
    for table in tables:
        sheet = book.create_sheet(table.name[:SHEET_NAME_MAX])
        _put(sheet, 1, [table.title])
        _put(sheet, 2, list(table.columns), font=bold)
        for index, row in enumerate(table.rows, start=3):
            _put(sheet, index, list(row))
    book.save(out)


def _put(sheet: Worksheet, row: int, values: list[Cell], font: Font | None = None) -> None:
    for column, value in enumerate(values, start=1):
        # text: the original (printable, one line), never the CSV guard's leading quote
        safe = printable(value, multiline=False) if isinstance(value, str) else csv_cell(value)
        cell = sheet.cell(row=row, column=column)
        if safe == "":
            continue
        cell.value = safe
        if isinstance(safe, str):  # never a formula, whatever it starts with
            cell.data_type = "s"
            cell.quotePrefix = True
        if font is not None:
            cell.font = font
