"""The bulk flow: ``B`` rules the marked cases the engine is sure of, each its own ruling."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.message import Message

from etki.domain import ACTIONS as RULING_OF
from etki.errors import ConflictError, PermissionDeniedError
from etki.memory import open_disputed_refs
from etki.text import plural, printable
from etki_tui.errors import one_line
from etki_tui.flows.guard import refusal
from etki_tui.flows.ruling import RulingFlow
from etki_tui.messages import (
    BulkRuled,
    BulkRuleRequested,
)
from etki_tui.queue.pane import QueuePane
from etki_tui.render import VERDICT_GLYPH, verdict_text, when
from etki_tui.screens.bulk import BulkConfirm, split_sure
from etki_tui.screens.notice import NoticeModal
from etki_tui.workers import desk_worker


class BulkFlow(RulingFlow):
    """The bulk flow: ``B`` rules the marked cases the engine is sure of, each its own ruling."""

    def _project_marked(self, project_id: str, answer: Message) -> None:
        """After :meth:`rule_marked` answered: project each committed ruling, one at a
        time, the clause memory read after the last; then warm the search index."""
        assert isinstance(answer, BulkRuled)
        done = answer.committed
        for index, outcome in enumerate(done):
            r = outcome.ruling
            self.post_message(
                self._projected(
                    project_id, r.case_id, r.action, memory_after=index == len(done) - 1
                )
            )
        if done:
            self.desk.warm_wiki_search(project_id)

    @desk_worker("rule", exclusive=False, then=_project_marked)
    def rule_marked(
        self, project_id: str, items: list[tuple[str, str, int]], unsure: int = 0
    ) -> BulkRuled:
        """Rule marked cases one by one, ``(case id, action, version seen)`` each, through
        the same checks, optimistic locking and audit as a single ruling
        (:meth:`Desk.rule_first`). A conflict (someone ruled the case meanwhile) or
        another error is reported for that case and the others are still ruled; once
        the reviewer is refused (not an approver any more) the rest are not tried. The
        wiki projections follow in :meth:`_project_marked`. ``unsure``: how many marked
        cases were left out because the engine is not sure of them (said in the answer)."""
        committed = []
        conflicts: list[tuple[str, str | None, str | None, str | None]] = []
        failed: list[tuple[str, str]] = []
        for index, (case_id, action, version) in enumerate(items):
            try:
                committed.append(self.desk.rule_first(case_id, action, expected_version=version))
            except ConflictError as exc:
                conflicts.append((case_id, exc.ruled_by, exc.ruled_at, exc.ruling))
            except PermissionDeniedError as exc:
                failed.append((case_id, one_line(exc)))
                rest = [c for c, _, _ in items[index + 1 :]]
                return BulkRuled(project_id, committed, conflicts, failed, rest, unsure=unsure)
            except Exception as exc:  # that case only: the others are still ruled
                failed.append((case_id, one_line(exc)))
        return BulkRuled(project_id, committed, conflicts, failed, unsure=unsure)

    @on(BulkRuleRequested)
    def _bulk_rule_requested(self, message: BulkRuleRequested) -> None:
        """One confirmation for the marked cases; each is then ruled as its engine
        verdict by :meth:`rule_marked`."""
        message.stop()
        ids = [c.case_id for c in message.cases]
        if self._refused(f"the {len(ids)} marked {plural(len(ids), 'case')}"):
            return
        pane = self.desk_part(QueuePane, message)
        if pane is None:
            return  # no dialog on a desk that is closing: nothing is ruled
        cases = [
            c
            for c in message.cases
            if refusal(
                None,
                self.project_id,
                c.case_id,
                case_id=c.case_id,
                in_flight=self._in_flight,
                ruled_elsewhere=pane.ruled_elsewhere,
            )
            is None
        ]
        if not cases:
            self.notify(
                "The marked cases are already being ruled or were ruled elsewhere.",
                severity="warning",
                markup=False,
                timeout=4,
            )
            return
        # B never rules a case the engine is not sure of: those stay marked for a look
        cases, unsure = split_sure(cases)
        if not cases:
            self.notify(
                f"The engine is not sure of any of the {len(unsure)} marked {plural(len(unsure), 'case')}, so B "
                "rules none of them: they stay marked for a careful look (rule each with "
                "a, c or r).",
                title="Needs a careful look",
                severity="warning",
                markup=False,
                timeout=6,
            )
            return
        verdict_action = {ruling: action for action, ruling in RULING_OF.items()}

        def confirmed(yes: bool | None) -> None:
            if not yes:
                self.notify(
                    f"Nothing recorded for the {len(cases) + len(unsure)} marked "
                    f"{plural(len(cases) + len(unsure), 'case')}; "
                    "they stay marked.",
                    title="Cancelled",
                    markup=False,
                    timeout=3,
                )
                return
            items = [(c.case_id, verdict_action[c.decision.verdict], c.version) for c in cases]
            self._in_flight.update(case_id for case_id, _, _ in items)
            self.rule_marked(items, unsure=len(unsure))

        disputed = {
            c.case_id: refs
            for c in cases
            if (refs := open_disputed_refs(c.decision.cited_clauses, pane.memory))
        }
        self.push_screen(
            BulkConfirm(cases, flash=self.cursor_blink, disputed=disputed, unsure=len(unsure)),
            confirmed,
        )

    @on(BulkRuled)
    def _bulk_ruled(self, message: BulkRuled) -> None:
        """Take the ruled cases out of the queue and say what happened to each."""
        ids = [o.ruling.case_id for o in message.committed]
        ids += [c[0] for c in message.conflicts] + [f[0] for f in message.failed]
        self._in_flight.difference_update([*ids, *message.skipped])
        if message.project_id != self.project_id:
            return
        pane = self.desk_part(QueuePane, message)
        for outcome in message.committed:
            r = outcome.ruling
            if r.case_id in self._versions:  # our own change: the poll needs no reload
                self._versions[r.case_id] = r.version
            self._ruled_here(r, pane)
            if pane is not None:
                pane.remove_case(r.case_id)
        if message.committed:
            listed = ", ".join(
                f"{o.ruling.case_id} {VERDICT_GLYPH.get(o.ruling.ruling, '')} {o.ruling.ruling}"
                for o in message.committed[:5]
            )
            more = f" and {len(message.committed) - 5} more" if len(message.committed) > 5 else ""
            left = (
                f" {message.unsure} marked {plural(message.unsure, 'case')} the engine is not sure "
                f"of {plural(message.unsure, 'was', 'were')} left for a careful look."
                if message.unsure
                else ""
            )
            self.notify(
                printable(
                    f"Ruled {len(message.committed)} {plural(len(message.committed), 'case')} as the engine said, each its "
                    f"own ruling: {listed}{more}.{left}",
                    multiline=False,
                ),
                title="Rulings saved",
                markup=False,
                timeout=6,
            )
            self._mark_stale(search=False)
        if message.conflicts or message.failed or message.skipped:
            body = Text()
            for case_id, who, at, ruling in message.conflicts:
                body.append(f"{case_id} was already ruled", style="bold")
                if ruling:
                    body.append(" ")
                    body.append_text(verdict_text(ruling, bold=True))
                body.append(f" by {printable(who or 'another reviewer', multiline=False)}")
                if at:
                    body.append(f" at {when(at)}")
                body.append(": not ruled by you.\n")
            for case_id, error in message.failed:
                body.append(f"{case_id}: not ruled", style="bold")
                body.append(f" ({printable(error, multiline=False)}).\n")
            if message.skipped:
                body.append(f"Not tried: {', '.join(message.skipped)}.\n", style="bold")
            body.append(
                f"\n{len(message.committed)} other {plural(len(message.committed), 'case')} "
                f"{plural(len(message.committed), 'was', 'were')} ruled. The queue has been "
                "reloaded; the cases not ruled stay in it."
            )
            self.push_screen(
                NoticeModal("Some marked cases not ruled", body, severity="error", id="bulk-report")
            )
            self.load_queue("reload")
            self._mark_stale()
