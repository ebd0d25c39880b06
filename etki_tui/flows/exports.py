"""The export flow (issue 35 item 3): ``e`` in Raporlar writes the report shown, ``e``
in the queue the cases it lists now (with its filters and order), to a CSV or .xlsx file
whose path the reviewer types (:class:`etki_tui.screens.export.ExportForm`). The desk
writes it (:meth:`etki.services.Desk.export_report`, :meth:`~etki.services.Desk.
export_queue`: the CLI's tables, formula guard and the wiki writer's rules) in a worker;
the path written, or why not, comes back as a toast. An existing file is replaced only
after :class:`~etki_tui.screens.export.OverwriteConfirm` (default No)."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from textual import on
from textual.message import Message

from etki.domain import Report
from etki.text import printable
from etki_tui.errors import advice, one_line
from etki_tui.flows.bulk import BulkFlow
from etki_tui.queue.pane import QueuePane
from etki_tui.raporlar.pane import ReportsPane
from etki_tui.screens.export import ExportForm, OverwriteConfirm, kept_message
from etki_tui.workers import desk_worker


class ExportDone(Message):
    """An export ended: ``path`` written with ``count`` rows (None for a report), or
    ``error`` (with ``advice``) saying why nothing was written."""

    def __init__(
        self, what: str, path: str, count: int | None = None, error: str = "", advice: str = ""
    ) -> None:
        super().__init__()
        self.what = what
        self.path = path
        self.count = count
        self.error = error
        self.advice = advice


def default_name(what: str, project_id: str, day: datetime) -> str:
    """``etki-report-PROJECT-YYYY-MM-DD.xlsx`` (``what``: report or queue) in the
    working directory; characters a file name cannot hold become ``-``."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in project_id) or "project"
    return f"etki-{what}-{safe}-{day:%Y-%m-%d}.xlsx"


def _failed(exc: Exception, _project_id: str, path: str, *_args: object) -> ExportDone:
    return ExportDone("", path, error=one_line(exc), advice=advice(exc))


class ExportFlow(BulkFlow):
    """The actions ``app.export_report`` and ``app.export_queue`` and their workers."""

    def action_export_report(self) -> None:
        """Ask where to write the report of this project (Raporlar's, once loaded)."""
        self._ask_path("report", "Export the report", self._write_report)

    def action_export_queue(self) -> None:
        """Ask where to write the cases the queue lists now."""
        self._ask_path("queue", "Export the listed cases", self._write_queue)

    def _ask_path(self, what: str, title: str, then: Callable[[str | None, bool], None]) -> None:
        name = default_name(what, self.project_id, self.clock())
        form = ExportForm(title, name, cursor_blink=self.cursor_blink)  # in the working dir

        def chosen(path: str | None) -> None:
            # an existing file is replaced only when the reviewer says so (a trial lost
            # one to a second export); a stat, not a write: the worker still writes
            # (os.path.lexists: a link, even a dangling one, is something there too); the
            # desk writes over it only when told to (overwrite), so a file made meanwhile
            # is refused, never replaced unasked
            if path is not None and os.path.lexists(Path(path).expanduser()):

                def answered(yes: bool | None) -> None:
                    if not yes:  # Keep it: said, a trial was left with no word
                        self.notify(kept_message(path), title="Not exported", markup=False)
                    then(path if yes else None, True)

                self.push_screen(OverwriteConfirm(path), answered)
            else:
                then(path, False)

        self.push_screen(form, chosen)

    def _write_report(self, path: str | None, overwrite: bool) -> None:
        if path is None:
            return
        pane = self.desk_part(ReportsPane, "the report export")
        report = pane.report if pane is not None else None
        self.export_report(path, report, overwrite)

    def _write_queue(self, path: str | None, overwrite: bool) -> None:
        if path is None:
            return
        pane = self.desk_part(QueuePane, "the queue export")
        if pane is None:
            return
        filters = ", ".join(pane.filter.describe()) or "no filter"
        title = f"cases listed in the queue ({filters})"
        self.export_queue(path, pane.table.row_keys(), title, overwrite)

    @desk_worker("export", exclusive=False, failed=_failed)
    def export_report(
        self, project_id: str, path: str, report: Report | None, overwrite: bool = False
    ) -> ExportDone:
        """Write the report (the one shown, else one computed at the desk's clock); an
        existing file only when ``overwrite`` (the reviewer said Replace)."""
        written = self.desk.export_report(
            project_id, path, report=report, now=self.clock(), overwrite=overwrite
        )
        return ExportDone("report", str(written))

    @desk_worker("export", exclusive=False, failed=_failed)
    def export_queue(
        self, project_id: str, path: str, case_ids: list[str], title: str, overwrite: bool = False
    ) -> ExportDone:
        """Write the listed cases ``case_ids`` in their order (over an existing file only
        when ``overwrite``)."""
        written, count = self.desk.export_queue(
            project_id, case_ids, path, title, overwrite=overwrite
        )
        return ExportDone("queue", str(written), count)

    @on(ExportDone)
    def _export_done(self, message: ExportDone) -> None:
        path = printable(message.path, multiline=False)
        if message.error:
            self.notify(
                printable(f"{message.error}. {message.advice}".strip(), multiline=False),
                title="Nothing exported",
                severity="error",
                markup=False,
                timeout=8,
            )
            return
        n = message.count  # a trial read "1 cases"
        what = "Report" if message.what == "report" else f"{n} case{'' if n == 1 else 's'}"
        self.notify(f"{what} written to {path}", title="Exported", markup=False, timeout=6)
