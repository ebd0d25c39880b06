"""The change-request flows of the desk (issue 35 items 1 and 2): ``X`` asks for the
change request's terms, format, internal appendix and file
(:class:`etki_tui.screens.cr_export.CrExportForm`: the clauses it cites among them),
records changed terms as ``etki cr edit`` does (:meth:`etki.services.Desk.set_cr_terms`) and writes the client-facing
change request of a case ruled CR to the .docx, .html or .md file
(:meth:`etki.services.Desk.write_cr_document`, the document ``etki cr export`` writes,
atomically); ``E`` opens the estimate form
(:class:`etki_tui.screens.estimate.EstimateForm`) and records what it gives through
:meth:`etki.services.Desk.add_estimate`, as ``etki estimate`` does. Both run in a
worker; the path written, the estimate stored, or why not, comes back as a toast."""

from __future__ import annotations

import os
from pathlib import Path

from textual import on

from etki.text import printable
from etki.wiki.export import cr_filename
from etki.wiki.paths import has_cr_page
from etki_tui.errors import advice, one_line
from etki_tui.flows.exports import ExportFlow
from etki_tui.messages import CaseEventDone, CrExported, CrExportWanted, EstimateWanted
from etki_tui.queue.pane import QueuePane
from etki_tui.screens.cr_export import CrExportForm, CrExportInput
from etki_tui.screens.estimate import EstimateForm, EstimateInput
from etki_tui.screens.export import OverwriteConfirm, kept_message
from etki_tui.workers import desk_worker


def _export_failed(
    exc: Exception, _project_id: str, case_id: str, given: CrExportInput, *_rest: object
) -> CrExported:
    return CrExported(case_id, given.path, error=one_line(exc), advice=advice(exc))


def _estimate_failed(
    exc: Exception, project_id: str, case_id: str, _given: EstimateInput
) -> CaseEventDone:
    return CaseEventDone(
        case_id,
        None,
        what="estimate",
        project_id=project_id,
        error=one_line(exc),
        advice=advice(exc),
    )


class DocumentFlow(ExportFlow):
    """``X`` (the change request to send) and ``E`` (an effort estimate)."""

    @on(CrExportWanted)
    def _cr_export_wanted(self, message: CrExportWanted) -> None:
        """The form before the change request of the case ``X`` was for is written: its
        terms (those in force to start with), the format, the internal appendix and the
        file (:class:`CrExportForm`); an existing file is replaced only once the
        reviewer says so."""
        message.stop()
        case_id = self.cr_case_of(message.case_id, message.page, message.otherwise, "X writes")
        if case_id is None:
            return
        name = f"CR-{''.join(ch if ch.isalnum() or ch in '-_.' else '-' for ch in case_id)}.docx"
        try:  # one case by id: the terms in force, for the form to start from
            case = self.desk.case(case_id)
            terms, engine = case.cr_terms, case.decision.cited_clauses
            cited: tuple[str, ...] | None = case.cr_clauses
            covering = case.engine_read_covering
            if has_cr_page(case):  # the client's number, as etki cr export names it
                name = cr_filename(case, "docx")
        except Exception:  # noqa: BLE001 - the worker says why, if the case is gone
            terms, engine, cited, covering = None, (), None, False
        pane = self.desk_part(QueuePane, "the clauses of the change request")
        known = dict(pane.clauses) if pane is not None else {}
        if not known:  # the queue not read yet: the project's clauses alone
            try:
                known = self.desk.clauses(self.project_id)
            except Exception:  # noqa: BLE001 - the form lists the cited refs alone
                known = {}
        form = CrExportForm(
            case_id,
            name,  # in the working directory
            terms,
            self.clock().date().isoformat(),
            engine=engine,
            cited=cited,
            covering=covering,
            known=known,
            cursor_blink=self.cursor_blink,
        )

        def write(given: CrExportInput | None, overwrite: bool) -> None:
            if given is not None:
                self.write_cr(case_id, given, overwrite)

        def chosen(given: CrExportInput | None) -> None:
            # as every export: an existing file is replaced only when the reviewer says so
            # (the desk refuses one made meanwhile: overwrite only after Replace)
            if given is not None and os.path.lexists(Path(given.path).expanduser()):

                def answered(yes: bool | None) -> None:
                    if not yes:  # Keep it: said on the status line
                        self.notify(kept_message(given.path), title="Not exported", markup=False)
                    write(given if yes else None, True)

                self.push_screen(OverwriteConfirm(given.path), answered)
            else:
                write(given, False)

        self.push_screen(form, chosen)

    @desk_worker("export", exclusive=False, failed=_export_failed)
    def write_cr(
        self, project_id: str, case_id: str, given: CrExportInput, overwrite: bool = False
    ) -> CrExported:
        """Record the terms when they changed (:meth:`Desk.set_cr_terms`, as ``etki cr
        edit``: audited, in the history; the case's pages follow, one projection at a
        time like rulings'), then write the change request of ``case_id`` to the path
        given (:meth:`Desk.write_cr_document`, ``internal`` as ``--internal``)."""
        wiki_error = None
        if given.terms is not None:
            terms = given.terms
            with self._projecting:
                _done, wiki_error = self.desk.set_cr_terms(
                    case_id,
                    assumptions=list(terms.assumptions),
                    exclusions=list(terms.exclusions),
                    valid_until=terms.valid_until or "",
                    # the clauses ticked, or [] for the decision's: etki cr edit
                    # --clause REF ... / --engine-clauses
                    clauses=list(terms.clauses) if terms.clauses is not None else [],
                )
        written = self.desk.write_cr_document(
            case_id, given.path, internal=given.internal, overwrite=overwrite
        )
        said = f"terms recorded ({given.terms.summary()})" if given.terms is not None else ""
        gaps = self.desk.case(case_id).cr_gaps()  # as etki cr export warns
        return CrExported(case_id, str(written), terms=said, wiki_error=wiki_error or "", gaps=gaps)

    @on(CrExported)
    def _cr_exported(self, message: CrExported) -> None:
        if message.error:
            self.notify(
                printable(f"{message.error}. {message.advice}".strip(), multiline=False),
                title="Change request not written",
                severity="error",
                markup=False,
                timeout=8,
            )
            return
        terms = f"; {message.terms}" if message.terms else ""
        warn = f" ({message.wiki_error})" if message.wiki_error else ""
        gaps = f". Check before sending: {'; '.join(message.gaps)}" if message.gaps else ""
        self.notify(
            printable(
                f"{message.case_id} written to {message.path}{terms}{warn}{gaps}", multiline=False
            ),
            title="Change request exported",
            severity="warning" if warn or gaps else "information",
            markup=False,
            timeout=10 if gaps else 6,
        )

    @on(EstimateWanted)
    def _estimate_wanted(self, message: EstimateWanted) -> None:
        """``E``: the estimate form; what it gives goes to :meth:`record_estimate`."""
        message.stop()
        case_id = message.case_id
        if case_id is None:  # from Hafıza: the case of the page shown, or the last CR
            case_id = self.cr_case_of(None, message.page, message.otherwise, "E estimates")
            if case_id is None:
                return
        try:  # one case by id, as X reads it: the estimate in force, for the form to say
            # (the queue's rows carry no estimate, and a converted case has left the queue)
            record = self.desk.case(case_id)
            held, engine = record.estimate, record.decision.effort.shown()
        except Exception:  # noqa: BLE001 - the save says why, if the case is gone
            held, engine = None, ""

        def done(given: EstimateInput | None) -> None:
            if given is not None:
                self.record_estimate(case_id, given)

        form = EstimateForm(case_id, held, engine, cursor_blink=self.cursor_blink)
        self.push_screen(form, done)

    @desk_worker("events", exclusive=False, failed=_estimate_failed)
    def record_estimate(self, project_id: str, case_id: str, given: EstimateInput) -> CaseEventDone:
        """Record the estimate (:meth:`Desk.add_estimate`: audited, in the history; the
        case's pages follow, one projection at a time like rulings'), then read the case
        again (an estimate keeps the case's version, so the pane's copy would stay)."""
        with self._projecting:
            done, error = self.desk.add_estimate(case_id, given.days, given.reason, given.price)
        try:  # the case again, with the estimate: the detail pane shows it at once
            record = self.desk.case(case_id)
        except Exception:  # noqa: BLE001 - stored; the pane reads it on the next Ctrl+R
            record = None
        return CaseEventDone(
            case_id, done, what="estimate", project_id=project_id, wiki_error=error, record=record
        )
