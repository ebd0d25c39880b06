"""The ruling flow: rule or amend one case (the confirm dialog, the draft reasons), its
commit, conflict and failure, and the wiki projection after it. Whether this desk may
rule a case now is asked of :mod:`etki_tui.flows.guard` only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from rich.console import Group
from rich.text import Text
from textual import on
from textual.message import Message

from etki.domain import RulingRecord
from etki.errors import ConflictError, PermissionDeniedError
from etki.text import printable
from etki_tui.errors import advice, one_line
from etki_tui.flows.base import FlowBase
from etki_tui.flows.guard import refusal
from etki_tui.flows.hafiza import HafizaFlow
from etki_tui.live import gone, part
from etki_tui.messages import (
    AmendRequested,
    RuleRequested,
    RulingCommitted,
    RulingConflict,
    RulingFailed,
    RulingProjected,
)
from etki_tui.queue.filters import QueueCase
from etki_tui.queue.pane import QueuePane
from etki_tui.render import VERDICT_GLYPH, literal, verdict_text, when
from etki_tui.screens.confirm import ACTION_VERB, ConfirmRuling
from etki_tui.screens.notice import NoticeModal
from etki_tui.workers import desk_worker


def _ruling_not_recorded(
    exc: Exception,
    _project_id: str,
    case_id: str,
    action: str,
    reason: str,
    _expected_version: int,
    amend: bool = False,
) -> Message:
    """:meth:`EtkiApp.rule_case`'s ``failed``: someone else ruled first
    (:class:`RulingConflict`, with the reason typed, so it is not lost), or the ruling
    failed otherwise (:class:`RulingFailed`)."""
    if isinstance(exc, ConflictError):
        return RulingConflict(
            case_id, exc.ruled_by, exc.ruled_at, exc.ruling, one_line(exc), reason=reason
        )
    return RulingFailed(
        case_id, action, one_line(exc), error=type(exc).__name__, advice=advice(exc)
    )


class RulingFlow(HafizaFlow):
    """The ruling flow: rule or amend one case (the confirm dialog, the draft reasons), its"""

    @desk_worker("rule", exclusive=False, failed=_ruling_not_recorded)
    def rule_case(
        self,
        _project_id: str,
        case_id: str,
        action: str,
        reason: str,
        expected_version: int,
        amend: bool = False,
    ) -> RulingCommitted:
        """Commit a ruling (optimistic locking on the version the reviewer saw; with
        ``amend`` it replaces the case's ruling) and say so at once; the wiki
        projection follows in :meth:`project_ruling`."""
        outcome = self.desk.rule_first(
            case_id, action, reason=reason, expected_version=expected_version, amend=amend
        )
        return RulingCommitted(case_id, action, outcome, {}, amended=amend)

    @desk_worker("project", exclusive=False, then=FlowBase._warm_search)
    def project_ruling(self, project_id: str, case_id: str, action: str) -> RulingProjected:
        """The HITL wiki projection of a committed ruling (best-effort, one at a time),
        then the clause memory after it; answers with :class:`RulingProjected`."""
        return self._projected(project_id, case_id, action)

    def _projected(
        self, project_id: str, case_id: str, action: str, *, memory_after: bool = True
    ) -> RulingProjected:
        """Project one committed ruling into the wiki (one projection at a time) and,
        with ``memory_after``, read the clause memory after it (in a worker's thread)."""
        with self._projecting:
            report, error = self.desk.project_ruling(case_id)
        rulings = None
        memory = None
        if memory_after:
            try:
                ruled = self.desk.queue_summaries(project_id, status="ruled")
                memory = self.desk.clause_memory_of(ruled)
                rulings = self.desk.ruling_index_of(project_id, ruled)
            except Exception:
                memory = None
        return RulingProjected(case_id, action, report, error, memory, rulings)

    @staticmethod
    def _ruling_text(action: str, case_id: str, ruling) -> str:  # noqa: ANN001
        verb = {
            "approve": "Approved",
            "convert_to_cr": "Converted to CR",
            "reject": "Rejected",
        }.get(action, action)
        return (
            f"{verb} {case_id}: {VERDICT_GLYPH.get(ruling.ruling, '')} "
            f"{ruling.ruling}{' (override, precedent recorded)' if ruling.is_override else ''}"
            f" by {ruling.reviewer}."
        )

    def _cr_draft_text(self, pane: QueuePane, case_id: str, ruling) -> str:  # noqa: ANN001
        """For a conversion to CR: where its change-request draft is (the wiki page the
        projection is about to write, ``etki cr export`` to send it); else ``""``."""
        case = pane.cases.get(case_id)
        if ruling.ruling != "CHANGE_REQUEST" or case is None:
            return ""
        if self.desk.wiki_root(self.project_id) is None:
            return f" Its change-request draft: etki cr export {case_id}."
        from dataclasses import replace

        from etki.wiki.paths import cr_path

        page = cr_path(replace(case, ruling=ruling))
        return f" Its change-request draft: {page} (D opens it; etki cr export {case_id} sends it)."

    @on(RulingCommitted)
    def _ruling_committed(self, message: RulingCommitted) -> None:
        self._in_flight.discard(message.case_id)
        if message.case_id in self._versions:  # our own change: the poll needs no reload
            self._versions[message.case_id] = message.outcome.ruling.version
        ruling = message.outcome.ruling
        text = self._ruling_text(message.action, message.case_id, ruling)
        if message.amended:
            text = f"Amended {message.case_id}: now {ruling.ruling} by {ruling.reviewer}."
        pane = self.desk_part(QueuePane, message)
        if pane is not None and not message.amended:
            text += self._cr_draft_text(pane, message.case_id, ruling)
        self._ruled_here(ruling, pane)
        if pane is not None:  # the queue first, then the projection's thread
            pane.remove_case(message.case_id, message.memory or None)
            self.notify(
                printable(text, multiline=False),
                title="Ruling amended" if message.amended else "Ruling saved",
                markup=False,
            )
            self._mark_stale(search=False)
            if message.amended:  # the ruled rows the A list shows: read them again
                pane.history_changed(message.case_id)
                self.load_queue("reload")
        if message.outcome.wiki_error:  # a desk whose rule() ran the hook itself
            if pane is not None:
                self._wiki_failed(text, message.outcome.wiki_error)
        elif message.outcome.wiki_report is None:
            if gone(self):  # the ruling is saved; the next start's catch-up projects it
                self.log.warning(
                    f"{message.case_id}: wiki projection left to the catch-up (the desk is closing)"
                )
            else:
                self.project_ruling(message.case_id, message.action)

    @on(RulingProjected)
    def _ruling_projected(self, message: RulingProjected) -> None:
        pane = self.desk_part(QueuePane, message)
        if pane is None:
            return
        if message.memory is not None:
            pane.update_memory(message.memory, message.rulings)
        if message.wiki_error:
            text = f"{message.case_id} is ruled."
            self._wiki_failed(text, message.wiki_error)
        self._mark_stale()

    @on(AmendRequested)
    def _amend_requested(self, message: AmendRequested) -> None:
        """``A``: pick the new ruling, then confirm it in the amend dialog (a reason is
        required); :meth:`rule_case` commits it with the version the reviewer saw."""
        message.stop()
        case = message.case
        if self._refused(case.case_id, case_id=case.case_id, amend=True):
            return
        from etki.domain import ACTIONS as RULINGS
        from etki_tui.screens.links import LinksScreen

        current = case.ruling.ruling if case.ruling is not None else "pending"
        choices = [
            (f"{ACTION_VERB[action]} → {ruling}", action) for action, ruling in RULINGS.items()
        ]
        details = [
            "the ruling in force now: the reason is what changes"
            if ruling == current
            else f"instead of {current}"
            for ruling in RULINGS.values()
        ]

        def picked(action: str | None) -> None:
            if action is None:
                self.notify(f"Nothing amended on {case.case_id}.", markup=False, timeout=3)
                return
            dialog = ConfirmRuling(
                case,
                action,
                cursor_blink=self.cursor_blink,
                draft=self._drafts.get((case.case_id, action), ""),
                amend=True,
            )

            def confirmed(reason: str | None) -> None:
                if reason is None:
                    if dialog.draft.strip():
                        self._drafts[(case.case_id, action)] = dialog.draft
                    self.notify(f"Nothing amended on {case.case_id}.", markup=False, timeout=3)
                    return
                self._drop_drafts(case.case_id)
                self._in_flight.add(case.case_id)
                self.rule_case(case.case_id, action, reason, case.version, amend=True)

            self.push_screen(dialog, confirmed)

        self.push_screen(
            LinksScreen(
                choices,
                title=f"New ruling for {printable(case.case_id, multiline=False)}",
                details=details,
            ),
            picked,
        )

    def _drop_drafts(self, case_id: str) -> str:
        """Forget every draft reason of ``case_id`` (it is being ruled, or was ruled
        elsewhere); the newest non-empty one, stripped, or "" (to show it was not
        recorded)."""
        kept = [self._drafts.pop(key) for key in list(self._drafts) if key[0] == case_id]
        return next((text.strip() for text in reversed(kept) if text.strip()), "")

    @on(RulingConflict)
    def _ruling_conflict(self, message: RulingConflict) -> None:
        self._in_flight.discard(message.case_id)
        if gone(self):  # nothing was recorded; no dialog on a desk that is closing
            self.log.warning(f"RulingConflict on {message.case_id} dropped: the desk is closing")
            return
        who = printable(message.ruled_by or "another reviewer", multiline=False)
        body = Text()
        body.append(f"{message.case_id} was already ruled", style="bold")
        if message.ruling:
            body.append(" ")
            body.append_text(verdict_text(message.ruling, bold=True))
        body.append(f" by {who}")
        if message.ruled_at:
            body.append(f" at {when(message.ruled_at)}")
        body.append(
            ".\n\nYour ruling was not recorded; the queue has been reloaded — look "
            "at it again.\nThe case's decision page is in Hafıza (Ctrl+P, then its id)."
        )
        reason = message.reason.strip() or self._drop_drafts(message.case_id)
        if reason:  # what the reviewer wrote is not lost with the ruling
            body.append("\n\nYour reason, not recorded:\n", style="bold")
            body.append_text(literal(reason))
        self.push_screen(
            NoticeModal("Conflict: already ruled", body, severity="error", id="conflict")
        )
        self.load_queue("reload")
        self._mark_stale()

    @on(RulingFailed)
    def _ruling_failed(self, message: RulingFailed) -> None:
        self._in_flight.discard(message.case_id)
        title = f"{ACTION_VERB.get(message.action, 'Ruling')} not recorded"
        if message.error == PermissionDeniedError.__name__ and not gone(self):
            self.load_queue("reload")  # the reviewer list changed: the banner follows
            body = Group(Text(message.message, style="bold"), Text(""), Text(message.advice))
            self.push_screen(NoticeModal(title, body, severity="error", id="refused"))
            return
        self.notify(
            f"{message.message}. {message.advice}".strip(),
            title=title,
            severity="error",
            markup=False,
            timeout=12,
        )

    @on(RuleRequested)
    def _rule_requested(self, message: RuleRequested) -> None:
        case = message.case
        if self._refused(case.case_id):
            return
        pane = self.desk_part(QueuePane, message)
        if pane is None:
            return  # no dialog on a desk that is closing: nothing is ruled
        if self._refused(case.case_id, case_id=case.case_id, elsewhere=pane.ruled_elsewhere):
            return

        pane = part(self, QueuePane)
        held = pane.others_claim(case.case_id) if pane is not None else None
        dialog = ConfirmRuling(
            case,
            message.action,
            cursor_blink=self.cursor_blink,
            draft=self._drafts.get((case.case_id, message.action), ""),
            claimed_by=(held.actor, held.until) if held is not None else None,
        )

        def confirmed(reason: str | None) -> None:
            """The modal's answer: None cancels (a typed reason is kept as the case's
            draft for the next dialog), a string (maybe empty) rules."""
            if reason is None:
                kept = dialog.draft.strip()
                self._drafts.pop((case.case_id, message.action), None)
                if kept and dialog.ruled_meanwhile is not None:  # no next try: keep it
                    self._reason_not_recorded(case.case_id, message.action, dialog)
                    return
                if kept:
                    self._drafts[(case.case_id, message.action)] = dialog.draft
                self.notify(
                    f"Nothing recorded for {case.case_id}."
                    + (" Your reason is kept for the next try." if kept else ""),
                    title="Cancelled",
                    markup=False,
                    timeout=3,
                )
                return
            self._drop_drafts(case.case_id)
            self._in_flight.add(case.case_id)
            self.rule_case(case.case_id, message.action, reason, case.version)

        self.push_screen(dialog, confirmed)

    def _reason_not_recorded(self, case_id: str, action: str, dialog: ConfirmRuling) -> None:
        """The reason typed for a case another reviewer ruled meanwhile: kept as the
        draft of an amendment with the same ruling (``A``) and shown, literal and
        selectable (copy with the mouse or Ctrl+C), in a notice that stays until
        closed — not a toast that vanishes (issue 34 item 5); the notice's text is kept
        in the messages view (``L``) too, as plain text, to copy after it is closed."""
        self._drafts[(case_id, action)] = dialog.draft
        ruling = dialog.ruled_meanwhile
        body = Text()
        body.append(f"{case_id} was ruled meanwhile", style="bold")
        if ruling is not None:
            body.append(" ")
            body.append_text(verdict_text(ruling.ruling, bold=True))
            body.append(f" by {printable(ruling.reviewer, multiline=False)}")
            body.append(f" at {when(ruling.ruled_at)}")
        body.append(".\n\nNothing was recorded here. Your reason, not recorded:\n", style="bold")
        body.append_text(literal(dialog.draft.strip()))
        body.append(
            f"\n\nIt is kept: A (amend) with {ACTION_VERB.get(action, action)} starts with it.",
            style="dim",
        )
        status = getattr(self, "status_line", None)
        if status is not None:  # the messages view (L) keeps it, literal, to copy later
            stamp = self.clock().strftime("%H:%M:%S")
            status.keep(stamp, "warning", "Ruled meanwhile: reason kept", body.plain)
        self.push_screen(
            NoticeModal("Ruled meanwhile: reason kept", body, severity="warning", id="reason-kept")
        )

    def _ruled_here(self, ruling: RulingRecord, pane: QueuePane | None) -> None:
        """This desk's own ruling (single, bulk or amended): the palette's case list and
        the queue's list of every case (``A`` lists the ruled ones) follow it at once,
        without waiting for Ctrl+R; a CR is remembered for ``D``."""
        self.case_index = [
            replace(c, ruling=ruling) if c.case_id == ruling.case_id else c for c in self.case_index
        ]
        if pane is not None:
            pane.ruled_here(ruling)
        if ruling.ruling == "CHANGE_REQUEST":
            self.last_converted = ruling.case_id
        elif self.last_converted == ruling.case_id:
            self.last_converted = None  # amended away from CR: no change request now

    def _refused(
        self,
        what: str,
        *,
        case_id: str | None = None,
        elsewhere: Mapping[str, QueueCase] | None = None,
        amend: bool = False,
    ) -> bool:
        """Ask the one guard (:func:`etki_tui.flows.guard.refusal`) whether this desk
        may rule ``what`` now; when not, say why (a toast, or the other reviewer's
        ruling as a :class:`RulingConflict`) and return True."""
        no = refusal(
            self.seat,
            self.project_id,
            what,
            case_id=case_id,
            in_flight=self._in_flight,
            ruled_elsewhere=elsewhere,
            amend=amend,
        )
        if no is None:
            return False
        if no.ruling is not None:
            r = no.ruling
            self.post_message(
                RulingConflict(case_id or what, r.reviewer, r.ruled_at, r.ruling, no.text)
            )
        else:
            self.notify(
                no.text, title=no.title, severity="warning", markup=False, timeout=no.timeout
            )
        return True
