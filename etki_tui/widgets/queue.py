"""The Queue tab: a table of pending cases and a detail pane for the highlighted one.

The table is updated in place (rows removed or added by case id; the cursor stays on a
sensible row); the detail pane is rendered from data already loaded, so moving the
cursor never waits on the database.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import suppress

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.events import Resize
from textual.message import Message
from textual.widgets import DataTable, Static
from textual.widgets.data_table import RowDoesNotExist

from etki.domain import CaseRecord, ClauseMemory, ScopeClause
from etki_tui.actions import bindings
from etki_tui.render import case_detail, cell, clauses_cell, risk_cell, verdict_text

COLUMNS: tuple[tuple[str, str], ...] = (
    ("case", "Case"), ("title", "Title"), ("verdict", "Verdict"), ("conf", "Conf"),
    ("clauses", "Clauses"), ("risk", "Risk"),
)
_FIXED = {"verdict": 16, "conf": 4, "clauses": 9, "risk": 8}
_MIN_TITLE = 12
_WANT_TITLE = 28
"""Below this title width the case column drops the ``req-{project}-`` prefix."""


def short_case_id(case_id: str) -> str:
    """``req-demo-1a2b3c4d`` -> ``1a2b3c4d`` (the part after the last ``-``)."""
    return case_id.rsplit("-", 1)[-1] if case_id.count("-") >= 2 else case_id


class QueueTable(DataTable[Text]):
    """The pending cases; row keys are case ids."""

    def on_resize(self, event: Resize) -> None:
        """Tell the pane the new width (the event carries it; the compositor's region
        may not be updated yet when a later callback runs)."""
        pane = next((a for a in self.ancestors if isinstance(a, QueuePane)), None)
        if pane is not None:
            pane.fit_titles(event.size.width)


class CaseDetail(VerticalScroll, can_focus=True):
    """Scrollable detail of the highlighted case (focusable so it scrolls by keyboard;
    Enter on a row maximizes it for reading, Escape restores)."""

    ALLOW_MAXIMIZE = True

    def compose(self) -> ComposeResult:
        """One static body."""
        yield Static(Text("No case selected.", style="dim"), id="detail-body", markup=False)

    def show(self, renderable: object) -> None:
        """Replace the content and scroll back to the top."""
        self.query_one("#detail-body", Static).update(renderable)  # type: ignore[arg-type]
        self.scroll_home(animate=False)


class QueuePane(Vertical):
    """Queue table + case detail, with the ruling keys ``a``/``c``/``r``."""

    BINDINGS = bindings("approve", "convert", "reject", "read")

    class RuleRequested(Message):
        """The reviewer asked to rule ``case`` with ``action`` (approve | convert_to_cr |
        reject); the app confirms and runs it."""

        def __init__(self, case: CaseRecord, action: str) -> None:
            super().__init__()
            self.case = case
            self.action = action

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.cases: dict[str, CaseRecord] = {}
        self.clauses: dict[str, ScopeClause] = {}
        self.memory: dict[str, ClauseMemory] = {}
        self._title_width = 20
        self._short_ids = True
        self._table_width = 0
        self._loaded = False

    def compose(self) -> ComposeResult:
        """The table above (or beside) the detail."""
        yield QueueTable(id="queue-table", cursor_type="row", zebra_stripes=True)
        detail = CaseDetail(id="case-detail")
        detail.border_title = "Case"
        yield detail

    def on_mount(self) -> None:
        """Columns now; rows when the queue arrives."""
        table = self.query_one(QueueTable)
        for key, label in COLUMNS:
            table.add_column(label, key=key)
        table.loading = True

    # --- data in ------------------------------------------------------------------------

    @property
    def table(self) -> QueueTable:
        """The queue table."""
        return self.query_one(QueueTable)

    def _cells(self, case: CaseRecord) -> list[Text]:
        d = case.decision
        return [
            cell(short_case_id(case.case_id) if self._short_ids else case.case_id,
                 style="bold"),
            cell(case.title, self._title_width),
            verdict_text(d.verdict),
            Text(f"{d.confidence:.2f}", justify="right", end=""),
            clauses_cell(d.cited_clauses, _FIXED["clauses"]),
            risk_cell(case),
        ]

    def load(self, cases: Iterable[CaseRecord], clauses: Mapping[str, ScopeClause],
             memory: Mapping[str, ClauseMemory]) -> None:
        """Show ``cases`` (the pending queue), in place: rows of cases no longer pending
        are removed, new ones appended; the cursor stays on its case when it can."""
        table = self.table
        table.loading = False
        self.clauses = dict(clauses)
        self.memory = dict(memory)
        fresh = {c.case_id: c for c in cases}
        current = self.current_case_id()
        index = table.cursor_row
        with self.app.batch_update():
            for case_id in [k for k in self.cases if k not in fresh]:
                self._remove(case_id)
            for case_id, case in fresh.items():
                if case_id not in self.cases:
                    table.add_row(*self._cells(case), key=case_id)
                self.cases[case_id] = case
        self._loaded = True
        self.fit_titles()
        if self.screen.focused is None:
            table.focus()
        if current is not None and current in self.cases:
            table.move_cursor(row=table.get_row_index(current), animate=False)
        elif table.row_count:
            table.move_cursor(row=min(max(index, 0), table.row_count - 1), animate=False)
        self.refresh_detail()

    def _remove(self, case_id: str) -> None:
        self.cases.pop(case_id, None)
        with suppress(RowDoesNotExist):
            self.table.remove_row(case_id)

    def remove_case(self, case_id: str, memory: Mapping[str, ClauseMemory] | None = None) -> None:
        """Take one ruled case out of the queue; the cursor stays at the same position
        (so it lands on the next case)."""
        table = self.table
        if memory is not None:
            self.memory = dict(memory)
        index = table.cursor_row
        self._remove(case_id)
        if table.row_count:
            table.move_cursor(row=min(index, table.row_count - 1), animate=False)
        self.refresh_detail()

    def update_memory(self, memory: Mapping[str, ClauseMemory]) -> None:
        """New clause memory (after a ruling): re-render the detail pane."""
        self.memory = dict(memory)
        self.refresh_detail()

    # --- selection ------------------------------------------------------------------------

    def current_case_id(self) -> str | None:
        """The case id under the cursor, or None when the queue is empty."""
        table = self.table
        if not table.row_count:
            return None
        try:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        except Exception:
            return None
        return key.value

    def current_case(self) -> CaseRecord | None:
        """The highlighted case, or None."""
        case_id = self.current_case_id()
        return None if case_id is None else self.cases.get(case_id)

    def refresh_detail(self) -> None:
        """Render the detail pane for the highlighted case."""
        detail = self.query_one(CaseDetail)
        case = self.current_case()
        if case is None:
            detail.border_title = "No pending cases" if self._loaded else "Case"
            message = ("The queue is empty: every case is ruled. Ctrl+R reloads."
                       if self._loaded else "Loading…")
            detail.show(Text(message, style="dim"))
            return
        position = self.table.cursor_row + 1
        detail.border_title = f"Case {position} of {len(self.cases)} · {case.case_id}"
        detail.show(case_detail(case, self.clauses, self.memory))

    @on(DataTable.RowHighlighted, "#queue-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self.refresh_detail()

    @on(DataTable.RowSelected, "#queue-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_read()

    def fit_titles(self, table_width: int | None = None) -> None:
        """Size the title column (and choose full or short case ids) for a table
        ``table_width`` cells wide (default: the last width seen)."""
        if table_width is not None:
            self._table_width = table_width
        table = self.table
        # Always reserve the vertical scrollbar's cells, shown or not, so the widths do
        # not depend on whether the rows happen to overflow at this moment.
        width = self._table_width - table.styles.scrollbar_size_vertical
        if width <= 0:
            return
        padding = 2 * table.cell_padding * len(COLUMNS)
        rest = width - padding - sum(_FIXED.values()) - 1
        full = max((len(k) for k in self.cases), default=17)
        short = max((len(short_case_id(k)) for k in self.cases), default=8)
        short_ids = rest - full < _WANT_TITLE
        title = max(_MIN_TITLE, rest - (short if short_ids else full))
        if title == self._title_width and short_ids == self._short_ids:
            return
        self._title_width, self._short_ids = title, short_ids
        with self.app.batch_update():
            for case_id, case in self.cases.items():
                cells = self._cells(case)
                table.update_cell(case_id, "case", cells[0], update_width=True)
                table.update_cell(case_id, "title", cells[1], update_width=True)

    # --- actions ----------------------------------------------------------------------------

    def _request(self, action: str) -> None:
        case = self.current_case()
        if case is None:
            self.app.notify("The queue is empty: nothing to rule.", severity="warning",
                            markup=False)
            return
        self.post_message(self.RuleRequested(case, action))

    def action_approve(self) -> None:
        """Approve the highlighted case (confirm first)."""
        self._request("approve")

    def action_convert(self) -> None:
        """Convert the highlighted case to a change request (confirm first)."""
        self._request("convert_to_cr")

    def action_read(self) -> None:
        """Toggle the case detail full-screen for reading (Escape also restores)."""
        screen = self.screen
        detail = self.query_one(CaseDetail)
        if screen.maximized is detail:
            screen.minimize()
            self.table.focus()
        else:
            detail.focus()
            screen.maximize(detail, container=False)

    def action_reject(self) -> None:
        """Reject the highlighted case (confirm first)."""
        self._request("reject")
