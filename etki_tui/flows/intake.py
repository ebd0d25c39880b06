"""The intake flow: a new request, a file of requests (``i``), a pre-analysis and a
dispute's resolution."""

from __future__ import annotations

from pathlib import Path

from textual import on

from etki.text import printable
from etki_tui.errors import UPDATE_REVIEWERS, advice, one_line
from etki_tui.flows.base import could_not_load
from etki_tui.flows.documents import DocumentFlow
from etki_tui.messages import (
    DisputeNotResolved,
    DisputeResolved,
    DisputeResolveWanted,
    NewRequestWanted,
    PreanalysisWanted,
    PreanalysisWritten,
    RequestAdded,
    RequestsImported,
)
from etki_tui.queue.pane import QueuePane
from etki_tui.screens.import_file import ImportForm, ImportResult, import_counts
from etki_tui.screens.new_request import NewRequest, NewRequestForm
from etki_tui.screens.resolve import DisputeResolution, ResolveDisputeForm
from etki_tui.workers import desk_worker


def _import_failed(exc: Exception, project_id: str, path: Path) -> RequestsImported:
    return RequestsImported(project_id, str(path), error=one_line(exc), advice=advice(exc))


class IntakeFlow(DocumentFlow):
    """The intake flow: a new request, a file of requests, a pre-analysis and a
    dispute's resolution."""

    def action_import_requests(self) -> None:
        """``i`` (and the palette's "Import…"): ask for the requests file; what the form
        gives is read by :meth:`import_file`. Nothing opens on an archived project."""
        if self.refused_archived("an import"):
            return

        def chosen(path: Path | None) -> None:
            if path is not None:
                self.notify(
                    printable(f"Importing {path.name}…", multiline=False), markup=False, timeout=3
                )
                self.import_file(path)

        self.push_screen(ImportForm(self.project_id, cursor_blink=self.cursor_blink), chosen)

    @desk_worker("intake", exclusive=False, failed=_import_failed)
    def import_file(self, project_id: str, path: Path) -> RequestsImported:
        """Import ``path`` into the project shown (:meth:`Desk.import_requests`, as
        ``etki import``: the same reader, triage and history, a bad row refused alone),
        then read the new cases for their verdicts. No pre-analysis is asked here
        (``p`` on a case asks): the reviewer gets the result at once."""
        done = self.desk.import_requests(project_id, path, preanalyse=False)
        cases = self.desk.cases(list(done.stored)) if done.stored else []
        return RequestsImported(project_id, str(path), done, list(cases))

    @on(RequestsImported)
    def _requests_imported(self, message: RequestsImported) -> None:
        """Nothing imported: a toast says why. Else the queue is read again (the first
        new case selected) and :class:`ImportResult` lists what the import did. Either
        way the status line, which said "Importing …", now says how it ended (a trial
        saw "Importing…" stay after a refused import)."""
        name = Path(message.path).name
        if message.error or message.done is None:
            status = getattr(self, "status_line", None)
            if status is not None:
                # the file by its name (the toast and L keep the whole path): the why fits
                said = message.error.replace(message.path, name)
                status.say("Nothing imported", said if name in said else f"{name}: {said}")
            self.notify(
                printable(f"{message.error}. {message.advice}".strip(), multiline=False),
                title="Nothing imported",
                severity="error",
                markup=False,
                timeout=10,
            )
            return
        self.notify(  # routine: the status line (and the messages view) says it
            printable(f"{name}: {import_counts(message.done)}", multiline=False),
            title="Import done",
            markup=False,
        )
        if message.project_id == self.project_id and message.done.stored:
            self._select_added = message.done.stored[0]  # selected once the queue has it
            self._stale.add("raporlar")
            self.load_queue("reload")
        self.push_screen(ImportResult(Path(message.path).name, message.done, message.cases))

    @desk_worker("intake", exclusive=False, failed=could_not_load("the new request"))
    def add_request(self, project_id: str, request: NewRequest) -> RequestAdded:
        """Triage and store one new request (:meth:`Desk.add_request`, as ``etki add``)."""
        case = self.desk.add_request(
            project_id,
            request.text,
            title=request.title,
            submitted_by=request.submitted_by,
            source="the desk's new-request form",
            preanalyse=False,  # its own worker follows (_request_added): keys never wait
        )
        return RequestAdded(case, project_id)

    @desk_worker(
        "resolve",
        exclusive=False,
        failed=lambda exc, _project_id, wanted: DisputeNotResolved(
            wanted.ref, one_line(exc), advice(exc)
        ),
    )
    def resolve_dispute(self, project_id: str, wanted: DisputeResolution) -> DisputeResolved:
        """Record the PMO's resolution of a disputed clause (:meth:`Desk.resolve_dispute`,
        as ``etki dispute resolve``: the approver check, the store, then the wiki)."""
        outcome = self.desk.resolve_dispute(
            project_id, wanted.ref, wanted.verdict, wanted.reason, expected_id=wanted.expected_id
        )
        return DisputeResolved(outcome, project_id)

    @desk_worker(
        "preanalyse",
        exclusive=False,
        failed=lambda exc, project_id, case_id: PreanalysisWritten(
            case_id, project_id, None, error=f"{one_line(exc)}. {advice(exc)}"
        ),
    )
    def preanalyse_case(self, project_id: str, case_id: str) -> PreanalysisWritten:
        """Ask the chat model for a new pre-analysis of ``case_id`` and save it
        (:meth:`Desk.preanalyse`: its wiki page follows), then read the case again for
        the detail pane."""
        saved, wiki_error = self.desk.preanalyse(case_id)
        try:
            record = self.desk.case(case_id)
        except Exception:  # noqa: BLE001 - the pane keeps what it had
            record = None
        return PreanalysisWritten(case_id, project_id, saved, record, wiki_error=wiki_error)

    @on(NewRequestWanted)
    def _new_request_wanted(self, message: NewRequestWanted) -> None:
        """The new-request form; its answer goes to :meth:`add_request`."""
        message.stop()
        seat = self.seat
        who = seat.reviewer if seat is not None else ""

        def done(request: NewRequest | None) -> None:
            if request is not None:
                self.add_request(request)

        self.push_screen(NewRequestForm(self.project_id, who, cursor_blink=self.cursor_blink), done)

    @on(DisputeResolveWanted)
    def _dispute_resolve_wanted(self, message: DisputeResolveWanted) -> None:
        """The resolution form of a disputed clause; its answer goes to
        :meth:`resolve_dispute`. A read-only desk refuses (the store would too)."""
        message.stop()
        seat = self.seat
        if seat is not None and not seat.may_rule:
            self.notify(
                printable(
                    f"Read-only desk: {seat.reviewer} may not resolve a disputed clause of "
                    f"{self.project_id} ({seat.role}); nothing was recorded. An approver "
                    f"lists you as approver in etki.yaml and runs `{UPDATE_REVIEWERS}`, "
                    "then Ctrl+R here; or set ETKI_REVIEWER to your approver name.",
                    multiline=False,
                ),
                title="Not an approver",
                severity="warning",
                markup=False,
                timeout=8,
            )
            return
        item, title = message.item, message.title

        def done(wanted: DisputeResolution | None) -> None:
            if wanted is None:
                self.notify(
                    printable(f"Nothing recorded for {item.ref}.", multiline=False),
                    title="Cancelled",
                    markup=False,
                    timeout=3,
                )
                return
            self.resolve_dispute(wanted)

        self.push_screen(ResolveDisputeForm(item, title, cursor_blink=self.cursor_blink), done)

    @on(DisputeResolved)
    def _dispute_resolved(self, message: DisputeResolved) -> None:
        """Say what was recorded; read Hafıza (the card) and the queue (strips, risk) again."""
        res = message.outcome.resolution
        warn = f" ({message.outcome.wiki_error})" if message.outcome.wiki_error else ""
        self.notify(
            printable(f"{res.ref}: DISPUTED-RESOLVED · rule {res.verdict}{warn}", multiline=False),
            title="Resolution recorded",
            severity="warning" if warn else "information",
            markup=False,
            timeout=6,
        )
        if message.project_id != self.project_id:
            return  # recorded for the project shown before a switch
        self._stale.add("raporlar")
        self.load_memory()
        self.load_queue("reload")

    @on(DisputeNotResolved)
    def _dispute_not_resolved(self, message: DisputeNotResolved) -> None:
        self.load_memory()  # a conflict: the card shows the resolution recorded meanwhile
        self.notify(
            printable(f"{message.message}. {message.advice}".strip(), multiline=False),
            title=printable(f"Not recorded: {message.ref}", multiline=False),
            severity="error",
            markup=False,
            timeout=12,
        )

    @on(RequestAdded)
    def _request_added(self, message: RequestAdded) -> None:
        if message.project_id != self.project_id:
            return  # added to the project shown before a switch: its queue is not here
        d = message.case.decision
        self.notify(
            printable(
                f"Added {message.case.case_id}: {d.verdict} ({d.confidence:.2f}). "
                "It is in the queue.",
                multiline=False,
            ),
            title="Request added",
            markup=False,
            timeout=6,
        )
        self._select_added = message.case.case_id  # selected once the queue has it
        self.load_queue("reload")
        if self.desk.preanalysis_model() is not None:
            self._start_preanalysis(message.case.case_id)

    def _start_preanalysis(self, case_id: str) -> None:
        """The pre-analysis worker for ``case_id``; the pane says one is being written."""
        pane = self.desk_part(QueuePane, "pre-analysis")
        if pane is not None:
            pane.preanalysing.add(case_id)
            if pane.current_case_id() == case_id:
                pane.refresh_detail()
        self.preanalyse_case(case_id)

    @on(PreanalysisWanted)
    def _preanalysis_wanted(self, message: PreanalysisWanted) -> None:
        """``p``: a new pre-analysis of the case, in a worker; without a model nothing
        is asked and a toast says so; on an archived project nothing is asked either
        (it takes no writes; the key and the palette do not offer it)."""
        message.stop()
        if self.refused_archived("a pre-analysis"):
            return
        model = self.desk.preanalysis_model()
        if model is None:
            self.notify(
                "No pre-analysis: no model configured (ETKI_LLM_BASE_URL, ETKI_LLM_MODEL). "
                "Nothing was asked.",
                severity="warning",
                markup=False,
                timeout=6,
            )
            return
        pane = self.desk_part(QueuePane, message)
        if pane is not None and message.case_id in pane.preanalysing:
            self.notify("A pre-analysis of this case is being written.", markup=False, timeout=4)
            return
        self.notify(
            printable(f"Asking {model} for a pre-analysis of {message.case_id}…", multiline=False),
            markup=False,
            timeout=4,
        )
        self._start_preanalysis(message.case_id)

    @on(PreanalysisWritten)
    def _preanalysis_written(self, message: PreanalysisWritten) -> None:
        pane = self.desk_part(QueuePane, message)
        if pane is None:
            return
        if message.project_id != self.project_id:
            pane.preanalysing.discard(message.case_id)
            return
        pane.preanalysis_written(message.record, message.case_id)
        saved = message.preanalysis
        if saved is None:
            self.notify(
                printable(f"No pre-analysis saved: {message.error}", multiline=False),
                title="Pre-analysis",
                severity="error",
                markup=False,
                timeout=8,
            )
        elif saved.status == "ok":
            self.notify(
                printable(f"Pre-analysis of {message.case_id} saved.", multiline=False),
                title="Pre-analysis",
                markup=False,
                timeout=4,
            )
        else:
            self.notify(
                printable(f"The model gave nothing usable: {saved.error}", multiline=False),
                title="Pre-analysis failed (saved as an error)",
                severity="warning",
                markup=False,
                timeout=8,
            )
        if message.wiki_error:
            self.notify(
                printable(
                    f"The pre-analysis is saved; {message.wiki_error}. `python -m etki.wiki "
                    "rebuild` regenerates the wiki.",
                    multiline=False,
                ),
                title="Pre-analysis saved — wiki error",
                severity="warning",
                markup=False,
                timeout=10,
            )
