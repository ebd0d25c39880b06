"""The Queue tab: the filter line, a table of pending cases and a detail pane for the
highlighted one.

The table (:class:`~etki_tui.queue.table.QueueTable`) is updated in place,
dolphie-style, inside ``batch_update()``: rows that are no longer wanted are removed by
key, only the cells that changed are updated, new cases are added with their case id as
the row key (in one batch: :meth:`QueueTable.add_rows_at_once`), and the cursor stays on
its case.

The queue holds light :class:`~etki.store.repository.CaseSummary` rows (the listed
columns; 10,000 cases load in a fraction of a second). The detail pane needs the whole
case: it is read on highlight, in a worker, for a window of rows around the cursor
(:class:`~etki_tui.messages.DetailsWanted`), and kept in a bounded cache, so moving the
cursor never waits on the database; until it arrives the pane says "Loading…".

When the live refresh finds that another reviewer ruled the highlighted case, its row
stays (marked) with a banner saying who and when, until the cursor moves away.

Space marks cases for a bulk ruling (:data:`MARK` before the id, a count in the filter
line); ``B`` asks the app to rule every marked case as the engine said
(:class:`~etki_tui.messages.BulkRuleRequested`), each its own ruling.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Static

from etki.domain import (
    CaseRecord,
    DisputedClause,
)
from etki.memory import disputed_refs
from etki.text import printable
from etki_tui.actions import ACTIONS, bindings
from etki_tui.glyphs import CURSOR_MARK
from etki_tui.header import archived_text
from etki_tui.live import part
from etki_tui.messages import (
    AmendRequested,
    BulkRuleRequested,
    CaseWanted,
    ClaimWanted,
    CrExportWanted,
    CrPageWanted,
    DisputeResolveWanted,
    EstimateWanted,
    NewRequestWanted,
    NoteWanted,
    PreanalysisWanted,
    RuleRequested,
)
from etki_tui.queue.filters import SORTS, VERDICTS, QueueCase, QueueFilter, cycle
from etki_tui.queue.layout import QueueLayout
from etki_tui.queue.table import QueueTable
from etki_tui.render import short_case_id, when

if TYPE_CHECKING:
    pass


from etki_tui.queue.bars import MARK, CaseDetail, FilterBar
from etki_tui.queue.rows import (
    AMEND_LISTED,
    ARCHIVED_WRITES,
    BULK_ACTION,
    COLUMNS,
    RULING_ACTIONS,
)

__all__ = [
    "COLUMNS",
    "MARK",
    "CURSOR_MARK",
    "CaseDetail",
    "FilterBar",
    "QueueCase",
    "QueuePane",
    "QueueTable",
    "short_case_id",
]


class QueuePane(QueueLayout):
    """Filter line + queue table + case detail, with the ruling keys ``a``/``c``/``r``
    and the filter keys."""

    BINDINGS = bindings(
        "approve",
        "convert",
        "reject",
        "amend",
        "note",
        "claim",
        "read",
        "find",
        "filters",
        "new_request",
        "import",
        "filter.verdict",
        "filter.disputed",
        "sort",
        "filter.clear",
        "similar",
        "clauses.whole",
        "clause.open",
        "mark",
        "bulk_approve",
        "cr_document",
        "cr_export",
        "estimate",
        "preanalyse",
        "dispute.resolve_case",
        "export.queue",
        "assign",
        "filter.mine",
        "views",
        "detail.toggle",
        "queue.down",
        "queue.up",
    )

    def compose(self) -> ComposeResult:
        """The filter line, the ruled-elsewhere banner (hidden until needed), then the
        table above (or beside) the detail."""
        yield FilterBar(cursor_blink=self._cursor_blink, id="queue-filterbar")
        # over the list, not in the detail's column: said with the detail hidden too
        banner = Static("", id="queue-banner", markup=False)
        banner.display = False
        yield banner
        with Vertical(id="queue-main"):
            yield QueueTable(id="queue-table", on_width=self.fit_titles)
            with Vertical(id="queue-side"):
                detail = CaseDetail(id="case-detail")
                detail.border_title = "Case"
                detail.step = self._step_case
                yield detail

    def on_mount(self) -> None:
        """Columns now; rows when the queue arrives, or, if it arrived before the pane
        was composed (kept by :meth:`load`), once the table has its width."""
        table = part(self, QueueTable)
        if table is None:
            return  # removed while it was being built
        for key, label in COLUMNS:
            table.add_column(label, key=key)
        table.cell_source = self._row_cells
        # no loading overlay on the table: it would keep the table from being laid out
        # (no width) until the queue arrives, and the first fill needs its width; the
        # detail pane says "Loading…" meanwhile
        if self._loaded:
            self._awaiting_width = True
            self.call_after_refresh(self._fill_when_laid_out)
        self._show_filter()
        self.watch(self.screen, "maximized", self._maximized_changed, init=False)

    # --- find box ---------------------------------------------------------------------------

    @on(Input.Changed, "#queue-find")
    def _find_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.set_filter(self.filter.with_(text=event.value))

    @on(Input.Submitted, "#queue-find")
    def _find_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._close_find(keep=True)

    def _close_find(self, *, keep: bool) -> None:
        find = self.query_one("#queue-find", Input)
        if not keep:
            find.value = ""
            self.set_filter(self.filter.with_(text=""))
        find.display = False
        self.table.focus()
        self._show_filter()

    def on_key(self, event) -> None:  # noqa: ANN001
        """Escape in the find box clears it; Up/Down move the cursor while finding. On a
        read-only desk a ruling key (dimmed in the footer, so its binding does not run)
        still says why nothing was ruled."""
        find = self.query_one("#queue-find", Input)
        if self.screen.focused is not find:
            refused = self._refused_write_key(event.key)
            if refused is not None:
                event.stop()
                self.app.notify(
                    archived_text(getattr(self.app, "project_id", ""), refused),
                    title="Archived project",
                    severity="warning",
                    markup=False,
                    timeout=8,
                )
                return
            if event.key in ACTIONS["dispute.resolve_case"].keys(getattr(self.app, "keymap", None)):
                event.stop()  # R left out here (check_action): say why, or who may
                self.action_resolve_dispute()
                return
            action = self._refused_ruling_key(event.key)
            if action is not None:
                event.stop()
                if action == BULK_ACTION:
                    self.action_bulk_approve()
                else:
                    self._request(action)
            return
        if event.key == "escape":
            event.stop()
            event.prevent_default()
            self._close_find(keep=False)
        elif event.key in ("down", "up"):
            event.stop()
            event.prevent_default()
            if event.key == "down":
                self.table.action_cursor_down()
            else:
                self.table.action_cursor_up()

    # --- actions ----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Escape clears filters only when some are active (else it does what it did);
        the ruling keys are left out of the footer on a read-only desk, whose reviewer
        may not rule, and the other writes on an archived project (the footer shows only
        what works for this seat)."""
        if action == "clear_filters":
            return self.filter.active
        if action == "find":  # a priority key: in a text box it is a character
            return not isinstance(self.screen.focused, Input)
        if action == "resolve_dispute":
            # in the footer on a seat that may resolve (issue 34: R was nowhere to be
            # seen); not per highlighted case, so moving the cursor never redraws the
            # footer (tests/test_tui_startup.py). On a case citing no disputed clause R
            # says so; on a read-only desk :meth:`on_key` says why nothing opens
            return not getattr(self.app, "read_only", False) and not getattr(
                self.app, "archived", False
            )
        if action in RULING_ACTIONS or action == BULK_ACTION:
            return not getattr(self.app, "read_only", False)
        return not (getattr(self.app, "archived", False) and action in self._archived_actions())

    @staticmethod
    def _archived_actions() -> dict[str, str]:
        """Action -> what the toast says, of :data:`ARCHIVED_WRITES`."""
        return {ACTIONS[i].action: what for i, what in ARCHIVED_WRITES.items()}

    def _refused_write_key(self, key: str) -> str | None:
        """On an archived project, what a write ``key`` would have recorded (``a
        note``; its binding does not run), or None."""
        if not getattr(self.app, "archived", False):
            return None
        keymap = getattr(self.app, "keymap", None)
        for action_id, what in ARCHIVED_WRITES.items():
            if key in ACTIONS[action_id].keys(keymap):
                return what
        return None

    def _refused_ruling_key(self, key: str) -> str | None:
        """On a read-only desk, the ruling action ``key`` is bound to (hidden from the
        footer, so its binding does not run), or None: pressed anyway, it still says
        why nothing was ruled."""
        if not getattr(self.app, "read_only", False):
            return None
        keymap = getattr(self.app, "keymap", None)
        for action_id in ("approve", "convert", "reject", "amend", "bulk_approve"):
            action = ACTIONS[action_id]
            if key in action.keys(keymap):
                return action.action
        return None

    def _request(self, action: str) -> None:
        case = self.current_case()
        if case is None:
            if not self._loaded:
                what = "The queue is still loading: nothing was ruled."
            elif self.cases:
                what = "Nothing matches the filter: nothing to rule."
            else:
                what = "The queue is empty: nothing to rule."
            self.app.notify(what, severity="warning", markup=False, timeout=4)
            return
        self.post_message(RuleRequested(case, action))

    def action_approve(self) -> None:
        """Approve the highlighted case (confirm first)."""
        self._request("approve")

    def action_convert(self) -> None:
        """Convert the highlighted case to a change request (confirm first)."""
        self._request("convert_to_cr")

    def action_reject(self) -> None:
        """Reject the highlighted case (confirm first)."""
        self._request("reject")

    def action_toggle_mark(self) -> None:
        """Mark the highlighted pending case for a bulk ruling, or unmark it, and move
        to the next row."""
        case = self.current_case()
        if case is None or case.case_id not in self.cases:
            what = (
                "This case is already ruled: it cannot be marked."
                if case is not None
                else "No case to mark."
            )
            self.app.notify(what, severity="warning", markup=False, timeout=3)
            return
        if case.case_id in self.marked:
            self.marked.discard(case.case_id)
        else:
            self.marked.add(case.case_id)
        self._sync()
        self.table.action_cursor_down()

    def marked_cases(self) -> list[QueueCase]:
        """The marked pending cases, in queue order."""
        return [c for c in self.cases.values() if c.case_id in self.marked]

    def action_bulk_approve(self) -> None:
        """Ask the app to rule every marked case as the engine said (one confirmation)."""
        cases = self.marked_cases()
        if not cases:
            self.app.notify(
                "Nothing is marked: Space marks the highlighted case, then B rules the "
                "marked ones as the engine said.",
                severity="warning",
                markup=False,
                timeout=5,
            )
            return
        self.post_message(BulkRuleRequested(cases))

    def action_note(self) -> None:
        """Add a note to the highlighted case (the app opens the form)."""
        case = self.current_case()
        if case is None:
            self.app.notify("No case highlighted: nothing to note.", markup=False, timeout=4)
            return
        self.post_message(NoteWanted(case.case_id))

    def action_claim(self) -> None:
        """Claim the highlighted case, or release it when the claim is yours."""
        case = self.current_case()
        if case is None:
            self.app.notify("No case highlighted: nothing to claim.", markup=False, timeout=4)
            return
        held = self.claims.get(case.case_id)
        mine = held is not None and self.me is not None and held.actor == self.me
        self.post_message(ClaimWanted(case.case_id, release=mine))

    def action_amend(self) -> None:
        """Amend a ruling: the highlighted case when someone else ruled it, else one
        picked from the project's ruled cases, newest ruling first (the app then asks
        for the new ruling and confirms it)."""
        case = self.current_case()
        if case is not None and case.ruling is not None:
            self.post_message(AmendRequested(case))
            return
        ruled = sorted(
            (c for c in self.all_cases if c.ruling is not None),
            key=lambda c: (c.ruling.ruled_at if c.ruling else "", c.case_id),
            reverse=True,
        )
        if not ruled:
            self.app.notify(
                "No ruled case in this project: nothing to amend (a, c and r rule a pending case).",
                markup=False,
                timeout=4,
            )
            return
        from etki_tui.screens.links import LinksScreen

        more = len(ruled) - AMEND_LISTED
        ruled = ruled[:AMEND_LISTED]  # an OptionList of 10,000 entries is built slowly
        by_id = {c.case_id: c for c in ruled}
        links = [
            (
                f"{c.case_id}  {c.ruling.ruling} by {c.ruling.reviewer} at {when(c.ruling.ruled_at)}",
                c.case_id,
            )
            for c in ruled
            if c.ruling is not None
        ]
        details = [(c.title or c.text)[:70] for c in ruled]

        def chosen(case_id: str | None) -> None:
            if case_id and case_id in by_id:
                self.post_message(AmendRequested(by_id[case_id]))

        title = "Amend which ruling?"
        if more > 0:
            title += f" (the {AMEND_LISTED} newest; older ones: etki rule --amend)"
        self.app.push_screen(LinksScreen(links, title=title, details=details), chosen)

    def action_read(self) -> None:
        """Toggle the case detail full-screen for reading (Escape also restores)."""
        screen = self.screen
        detail = self.query_one(CaseDetail)
        if screen.maximized is detail:
            screen.minimize()
            self.table.focus()
        else:
            self._reading_from_list = not self.detail_shown
            self.remove_class("-list")  # read from the list alone: shown while it is read
            detail.focus()
            screen.maximize(detail, container=False)

    def action_toggle_whole_clauses(self) -> None:
        """Show the cited clauses whole, or folded again (issue 34 item 2), the view kept
        where the reader was (a trial: ``w`` jumped back to the top, away from the marked
        sentence): the line at the top before stays at the top
        (:meth:`CaseDetail.keep_place`)."""
        self.whole_clauses = not self.whole_clauses
        detail = part(self, CaseDetail)
        place = detail.place() if detail is not None else None
        self.refresh_detail()
        if detail is not None and place is not None:
            detail.call_after_refresh(detail.keep_place, place)

    def action_open_clause(self) -> None:
        """Pick one of the clauses the highlighted case cites or its evidence quotes
        (deciding first) and read it in the whole contract (:class:`ContractScreen`),
        scrolled to it."""
        from etki_tui.queue.evidence import evidence_of
        from etki_tui.screens.contract import ContractScreen, clause_choices
        from etki_tui.screens.links import LinksScreen

        case = self.current_case()
        record = self.detail_record(case) if case is not None else None
        if record is None:
            self.app.notify("No case is highlighted.", markup=False, timeout=3)
            return
        d = record.decision
        links = clause_choices([*evidence_of(d).refs(), *d.cited_clauses], self.clauses)
        if not links:
            self.app.notify(
                "This case cites no clause of the stored contract.", markup=False, timeout=4
            )
            return
        clauses = dict(self.clauses)

        def chosen(ref: str | None) -> None:
            if ref is not None:
                self.app.push_screen(ContractScreen(clauses, ref))

        self.app.push_screen(
            LinksScreen(
                links, title="Read which clause?", details=[r for _, r in links], hang=True
            ),
            chosen,
        )

    def action_similar(self) -> None:
        """Pick one of the highlighted case's similar rulings and go to it (its
        decision page in Hafıza)."""
        case = self.current_case()
        record = self.detail_record(case) if case is not None else None
        beside = self.beside(record) if record is not None else None
        if beside is None or not beside.similar:
            self.app.notify("No ruled case reads like this one.", markup=False, timeout=4)
            return
        from etki_tui.screens.links import LinksScreen

        links = [
            (f"{s.case_id}  {s.ruling}  similarity {s.similarity:.2f}", s.case_id)
            for s in beside.similar
        ]
        wanted = {s.case_id for s in beside.similar}
        by_id = {c.case_id: c for c in self.all_cases if c.case_id in wanted}
        known = [by_id.get(s.case_id) for s in beside.similar]
        details = [
            (c.title or c.text)[:70] if c is not None else "(not in this queue view)" for c in known
        ]

        def chosen(case_id: str | None) -> None:
            if case_id:
                self.post_message(CaseWanted(case_id))

        self.app.push_screen(
            LinksScreen(links, title="Similar ruled cases", details=details), chosen
        )

    def action_cr_document(self, export: bool = False) -> None:
        """Open the highlighted case's change-request document in the reader, when its
        ruling is CHANGE_REQUEST (with ``export``: ask where to write the client-facing
        one); else the one this desk converted last (the app knows it), or say why
        there is none."""
        wanted = CrExportWanted if export else CrPageWanted
        case = self.current_case()
        if case is None:
            self.post_message(wanted(otherwise="No case is highlighted."))
            return
        r = case.ruling
        if r is None or r.ruling != "CHANGE_REQUEST":
            state = "pending" if r is None else f"ruled {r.ruling}"
            # the app takes the change request this desk converted last, if any
            # (a case converted with c leaves the queue), else says this
            self.post_message(
                wanted(
                    otherwise=printable(
                        f"{case.case_id} is {state}: only a case converted to a change "
                        "request (c) has a change-request document.",
                        multiline=False,
                    )
                )
            )
            return
        self.post_message(wanted(case.case_id))

    def action_cr_export(self) -> None:
        """Ask where to write the client-facing change request of the highlighted case
        (as :meth:`action_cr_document` chooses the case)."""
        self.action_cr_document(export=True)

    def action_estimate(self) -> None:
        """Record an effort estimate of the highlighted case (the app opens the form)."""
        case = self.current_case()
        if case is None:
            self.app.notify("No case highlighted: nothing to estimate.", markup=False, timeout=4)
            return
        self.post_message(EstimateWanted(case.case_id))

    def action_find(self) -> None:
        """Open the live find box."""
        if self.screen.maximized is not None:
            self.screen.minimize()
        find = self.query_one("#queue-find", Input)
        find.display = True
        find.value = self.filter.text
        # at once, not after the queued keys (Widget.focus waits its turn): the letters
        # typed right after / are handed to the box, not to the table as commands
        self.screen.set_focus(find)
        find.action_end()
        self._show_filter()

    def action_preanalyse(self) -> None:
        """Ask for a new pre-analysis of the highlighted case (the app runs it in a
        worker; without a model it only says so)."""
        case = self.current_case()
        if case is None:
            self.app.notify("No case is highlighted: nothing to pre-analyse.", markup=False)
            return
        self.post_message(PreanalysisWanted(case.case_id))

    def preanalysis_written(self, record: CaseRecord | None, case_id: str) -> None:
        """A pre-analysis of ``case_id`` was saved (``record``: the case read again with
        it, or None): keep the record for the pane and show it if highlighted."""
        self.preanalysing.discard(case_id)
        if record is not None:
            self._remember_detail(record)
        if self.current_case_id() == case_id:
            self.refresh_detail()

    def action_resolve_dispute(self) -> None:
        """Ask for the resolution form of the first disputed clause the highlighted case
        cites (the strip's first line); the app checks the seat and opens it."""
        case = self.current_case()
        refs = disputed_refs(case.decision.cited_clauses, self.memory) if case else ()
        if not refs:
            self.app.notify(
                "The highlighted case cites no disputed clause: nothing to resolve.",
                markup=False,
                timeout=4,
            )
            return
        mem = self.memory[refs[0]]
        clause = self.clauses.get(refs[0])
        item = DisputedClause(
            mem.ref, mem.history, mem.resolution, mem.overridden_by, mem.disputing
        )
        title = f"{clause.number} {clause.title}" if clause is not None else ""
        self.post_message(DisputeResolveWanted(item, title))

    def _step_case(self, by: int) -> None:
        """The next (``by`` 1) or previous (-1) case, from the detail (the reader)."""
        if by > 0:
            self.action_cursor_down()
        else:
            self.action_cursor_up()

    def action_new_request(self) -> None:
        """Ask the app for the new-request form."""
        self.post_message(NewRequestWanted())

    def action_filters(self) -> None:
        """Open the filter and sort panel."""
        from etki_tui.queue.filter_screen import FilterPanel

        def done(result: QueueFilter | None) -> None:
            if result is not None:
                self.set_filter(result)

        self.app.push_screen(FilterPanel(self.filter, self.set_filter), done)

    def action_cycle_verdict(self) -> None:
        """All → IN_SCOPE → CHANGE_REQUEST → REJECT → all."""
        self.set_filter(self.filter.with_(verdict=cycle(self.filter.verdict, VERDICTS)))

    def action_toggle_disputed(self) -> None:
        """Only cases citing a disputed clause, or all."""
        self.set_filter(self.filter.with_(disputed_only=not self.filter.disputed_only))

    def action_cycle_sort(self) -> None:
        """The next sort order."""
        self.set_filter(self.filter.with_(sort=cycle(self.filter.sort, list(SORTS))))

    def action_clear_filters(self) -> None:
        """Show every pending case again (the sort stays)."""
        find = self.query_one("#queue-find", Input)
        if find.value:
            find.value = ""
        self.set_filter(self.filter.cleared())
        self.app.notify("Filters cleared: every pending case is shown.", markup=False, timeout=3)
