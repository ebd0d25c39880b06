"""The queue pane's rows: its state, the load from the desk, the filter and the table's
rows and widths (the base of :class:`etki_tui.queue.pane.QueuePane`).
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import Input, Static

from etki.domain import (
    CaseEvent,
    CaseRecord,
    ClauseMemory,
    RulingRecord,
    ScopeClause,
    WorkItem,
    is_sure,
)
from etki.memory import current_risk, open_disputed_refs
from etki.services import Desk
from etki.text import printable
from etki_tui.glyphs import ASSIGNED_MARK, CLAIM_MARK, UNSURE_MARK, WARN
from etki_tui.heap import collector_paused
from etki_tui.live import part
from etki_tui.messages import (
    FilterChanged,
)
from etki_tui.queue.bars import MARK, FilterBar
from etki_tui.queue.columns import (
    COLUMNS,
    FIXED,
    SHORT_VERDICT,
    fit_columns,
    look_cell,
    look_state,
)
from etki_tui.queue.detail import clauses_cell, risk_cell, title_cell
from etki_tui.queue.filters import QueueCase, QueueFilter, order
from etki_tui.queue.table import QueueTable
from etki_tui.render import fit, short_case_id, verdict_text

if TYPE_CHECKING:
    from etki.services import Beside, RulingIndex


DETAIL_CACHE = 600
"""Whole cases kept for the detail pane (least recently shown dropped first)."""


DETAIL_WINDOW = (20, 40)
"""Rows before and after the cursor whose whole cases are read with the highlighted one."""


LATER_ROWS = 1000
"""A fill that adds more rows than this leaves their cells to the table, made as the rows
are drawn (:meth:`QueueTable.add_rows_later`): ~22 µs a row, so 1,000 rows made at once
are ~22 ms, under half of the 50 ms an input may wait (issue 12); 10,000 were 0.22 s of
the first queue (measured with timing wrappers on bench tui's pending 10k store). The
columns of such a fill are the layout's widths (:meth:`QueuePane._layout_widths`); a
smaller fill makes its cells at once and measures them."""


CLAIM_ROOM = len(CLAIM_MARK) + 1
"""Cells a claim mark (or, in its place, an assignment's :data:`ASSIGNED_MARK`) takes
before a case id: the mark and a space."""


def conf_cell(conf: str, sure: bool) -> Text:
    """The confidence column: ``0.86  `` when the engine is sure, ``0.58 ?`` when it
    needs a careful look (:data:`~etki_tui.queue.filters.UNSURE_MARK`: a glyph, so it reads
    with NO_COLOR too). The number is right-aligned in its own four cells and the mark
    has a cell of its own, blank when sure, so every number ends in the same column (a
    trial of issue 34: a right-justified cell lost a sure value's trailing blanks, which
    drew ``0.86`` two cells right of ``0.71 ?``)."""
    out = Text(conf.rjust(CONF_NUMBER), no_wrap=True, end="")
    out.append(" ")
    out.append(" " if sure else UNSURE_MARK, style="" if sure else "bold")
    return out


CONF_NUMBER = 4
"""Cells of the confidence number (``0.86``, ``1.00``: two decimals)."""


def _same(a: Text, b: Text) -> bool:
    return a.plain == b.plain and str(a.style) == str(b.style) and a.spans == b.spans


def _utc_now() -> datetime:
    return datetime.now(UTC)


RULING_ACTIONS = frozenset({"approve", "convert", "reject", "amend"})


AMEND_LISTED = 200
"""How many of the newest rulings ``A`` offers to amend."""
"""The queue's actions that record a ruling (what a read-only desk may not do)."""


BULK_ACTION = "bulk_approve"
"""The queue's action that rules the marked cases (refused on a read-only desk too)."""

ARCHIVED_WRITES = {
    "note": "a note",
    "claim": "a claim",
    "estimate": "an estimate",
    "new_request": "a new request",
    "dispute.resolve_case": "a resolution",
    "import": "an import",
    "assign": "an assignment",
    "preanalyse": "a pre-analysis",
}
"""The queue's other writes (binding id -> what the toast says was not recorded): left
out on an archived project, which takes none of them (nor rulings)."""


class QueueRows(Vertical):
    """The queue pane's rows: its state, the load from the desk, the filter and the table's"""

    if TYPE_CHECKING:
        # the case detail's (etki_tui.queue.shown): declared here for the checker only
        def refresh_detail(self) -> None: ...
        def forget_details(self) -> None: ...

    def __init__(
        self,
        *,
        clock: Callable[[], datetime] | None = None,
        cursor_blink: bool = True,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.clock = clock or _utc_now
        self._cursor_blink = cursor_blink
        self.cases: dict[str, QueueCase] = {}
        """Pending cases, in queue order."""
        self.all_cases: list[QueueCase] = []
        """Every case of the project as last loaded, in queue order."""
        self.ruled_elsewhere: dict[str, QueueCase] = {}
        """Cases another reviewer ruled while their row was highlighted (row kept)."""
        self.clauses: dict[str, ScopeClause] = {}
        self.memory: dict[str, ClauseMemory] = {}
        self.whole_clauses = False
        """``w``: the detail pane shows the cited clauses whole, not folded."""
        self.escalate = True
        """``ETKI_DISPUTED_ESCALATION``: a clause disputed since a case's triage raises
        the risk shown for it (:func:`etki_tui.render.current_risk`)."""
        self.workitems: dict[str, WorkItem] = {}
        """Work items by id that the effort bases of the cases read for the detail pane
        name (:meth:`details_loaded`)."""
        self.knowledge: str | None = None
        """The project's knowledge-index hash at the last load."""
        self.rulings_error: str | None = None
        """Why the similar-rulings index could not be built (None: it was, or is coming)."""
        self.wiki_on = False
        """Whether the project has a wiki (the detail pane names precedent pages)."""
        self.llm_model: str | None = None
        """The chat model ``p`` asks for a pre-analysis (None: none configured)."""
        self.preanalysing: set[str] = set()
        """Cases whose pre-analysis is being written."""
        self._by_id: dict[str, QueueCase] = {}
        self.rulings: RulingIndex | None = None
        """The similar-rulings index from the desk (memory beside the verdict)."""
        self._beside: dict[str, Beside] = {}
        self.filter = QueueFilter()
        self._cells: dict[str, list[Text] | None] = {}
        """The rows in the table: case id -> its cells, or None where the table makes
        them as the row is drawn (:data:`LATER_ROWS`)."""
        self._row_state: dict[str, tuple[object, ...]] = {}
        self._layout: tuple[object, ...] | None = None
        self._title_width = 20
        self._mark_room = False
        self._claim_room = False
        """Whether the layout leaves room for the mark before a case id (some case is marked)."""
        self._short_ids = True
        self._short_verdicts = True
        self._hidden: frozenset[str] = frozenset()
        """The optional columns the layout leaves out (:func:`fit_columns`)."""
        self._table_width = 0
        self._loaded = False
        self._details: OrderedDict[str, CaseRecord] = OrderedDict()
        """Whole cases read for the detail pane (LRU, at most DETAIL_CACHE)."""
        self._details_wanted: set[str] = set()
        """Case ids asked for and not answered yet."""
        self._detail_errors: dict[str, str] = {}
        self._awaiting_width = False
        """Loaded before the table had a width: the first fill waits for it."""
        self._shared_cells: dict[tuple[object, ...], Text] = {}
        self.marked: set[str] = set()
        """Pending cases marked for a bulk ruling (Space)."""
        self.histories: dict[str, list[CaseEvent]] = {}
        """case id -> its history as last read (:meth:`history_loaded`), for the
        detail pane's History section."""
        self.view_delay = 0.8
        """How long the detail pane rests on a case before it counts as opened
        (:class:`CaseOpened`: the view is written and the history read); 0: at once."""
        self._opened: str | None = None
        self._open_timer: Timer | None = None
        self.claims: dict[str, CaseEvent] = {}
        """case id -> its live claim (issue 14 item 4), as last loaded."""
        self.assignments: dict[str, CaseEvent] = {}
        """case id -> its assignment in force (``after``: the assignee), as last loaded."""
        self.me: str | None = None
        """The acting reviewer: their own claims are not marked in the queue."""

    @property
    def table(self) -> QueueTable:
        """The queue table."""
        return self.query_one(QueueTable)

    def _cells_for(self, case: QueueCase) -> list[Text]:
        d = case.decision
        case_cell = Text(
            printable(
                short_case_id(case.case_id) if self._short_ids else case.case_id, multiline=False
            ),
            style="bold",
            no_wrap=True,
            end="",
        )
        held = self.others_claim(case.case_id)
        if held is not None:  # another reviewer is on it: a mark, the title stays whole
            case_cell = Text.assemble((CLAIM_MARK, "bold"), " ", case_cell, no_wrap=True, end="")
        elif self.others_assignment(case.case_id) is not None:  # someone else's to rule
            case_cell = Text.assemble((ASSIGNED_MARK, "bold"), " ", case_cell, no_wrap=True, end="")
        if case.case_id in self.marked:
            case_cell = Text.assemble((MARK, "bold reverse"), " ", case_cell, no_wrap=True, end="")
        ruled = self.ruled_elsewhere.get(case.case_id)
        if ruled is not None and ruled.ruling is not None:
            label = (
                f"{WARN} RULED"
                if self._short_verdicts
                else fit(
                    f"{WARN} ruled by {printable(ruled.ruling.reviewer, multiline=False)}",
                    FIXED["verdict"],
                )
            )
            verdict = Text(label, style="bold reverse", no_wrap=True, end="")
        else:
            verdict = self._shared(
                ("verdict", d.verdict, self._short_verdicts),
                lambda: verdict_text(d.verdict, short=self._short_verdicts),
            )
        conf = f"{d.confidence:.2f}"
        sure = is_sure(d)
        risk, _ = current_risk(d, self.memory, self.escalate)
        open_refs = open_disputed_refs(d.cited_clauses, self.memory)  # not resolved
        disputed = bool(open_refs)
        # the disputed clauses first: the row says which clause the "! DISPUTED" is about
        # before the "+N" (a trial: "2.2+2" hid the disputed 3.1.2); else citation order
        refs = (
            (*open_refs, *(r for r in d.cited_clauses if r not in open_refs))
            if open_refs
            else tuple(d.cited_clauses)
        )
        title = case.title
        look = self.look_of(case)
        return [
            case_cell,
            title_cell(title, self._title_width, disputed),
            verdict,
            self._shared(("conf", conf, sure), lambda: conf_cell(conf, sure)),
            self._shared(("clauses", refs), lambda: clauses_cell(refs, FIXED["clauses"])),
            self._shared(
                ("risk", risk.level),
                lambda: risk_cell(case, self.memory, self.escalate),
            ),
            self._shared(("look", look), lambda: look_cell(look)),
        ]

    def look_of(self, case: QueueCase, now: datetime | None = None) -> str:
        """The PMO look of ``case`` as its row shows it (:func:`look_state`: ``""``,
        ``"24h"`` or ``"overdue"`` at ``now``, default the desk's clock). Only a case
        whose risk asks for the look, stored or raised by an open dispute, reads its
        dates (a sync of 10,000 rows asks this of each)."""
        if not case.decision.risk.pmo_look_24h and not (
            self.escalate and self._disputed_state(case)
        ):
            return ""
        return look_state(case, self.memory, self.escalate, now or self.clock())

    def _row_cells(self, case_id: str) -> list[Text]:
        """The cells of the row of ``case_id`` as things stand (the table's cell source
        for rows added without them); its id alone for a case no longer loaded (the
        table draws it while a sync takes the row out: a draw must never raise)."""
        case = self._by_id.get(case_id) or self.cases.get(case_id)
        if case is None:
            return [Text(printable(case_id, multiline=False), end="")]
        return self._cells_for(case)

    def _layout_widths(self, rows: Sequence[QueueCase]) -> dict[str, int]:
        """The widest cell each column can have for ``rows`` in the current layout
        (column key -> cells): the case ids as shown, the title width, the fixed widths
        of the small columns (:data:`FIXED`)."""
        ids = (short_case_id(c.case_id) if self._short_ids else c.case_id for c in rows)
        case = max(
            (
                len(i)
                if i.isascii() and i.isprintable()
                else cell_len(printable(i, multiline=False))
                for i in ids
            ),
            default=0,
        )
        if any(c.case_id in self.marked for c in rows):
            case += len(MARK) + 1
        if any(self._held_elsewhere(c.case_id) for c in rows):
            case += CLAIM_ROOM
        verdict = SHORT_VERDICT if self._short_verdicts else FIXED["verdict"]
        return {
            "case": case,
            "title": self._title_width,
            "verdict": verdict,
            "conf": FIXED["conf"],
            "clauses": FIXED["clauses"],
            "risk": FIXED["risk"],
            "look": FIXED["look"],
        }

    def _claimed(self) -> bool:
        """Whether another reviewer's claim is live on a pending case, or one is
        assigned to another reviewer (its row then shows a claim or assignment mark,
        which takes room from the titles)."""
        return any(
            self._held_elsewhere(k) for k in (*self.claims, *self.assignments) if k in self.cases
        )

    def _held_elsewhere(self, case_id: str) -> bool:
        """Whether ``case_id``'s row shows a claim or an assignment mark."""
        return self.others_claim(case_id) is not None or (
            self.others_assignment(case_id) is not None
        )

    def others_assignment(self, case_id: str) -> CaseEvent | None:
        """The assignment in force of ``case_id`` to another reviewer (as last loaded;
        ``after``: the assignee), or None (unassigned, or assigned to the acting one)."""
        held = self.assignments.get(case_id)
        if held is None or (self.me is not None and held.after == self.me):
            return None
        return held

    def others_claim(self, case_id: str) -> CaseEvent | None:
        """Another reviewer's live claim of ``case_id`` (as last loaded), or None."""
        held = self.claims.get(case_id)
        if held is None or (self.me is not None and held.actor == self.me):
            return None
        return held

    def _disputed_state(self, case: QueueCase) -> tuple[str, ...]:
        """What of the clause memory a row shows: its cited refs disputed now and not
        resolved by a person (a resolved one is no longer marked in the row)."""
        return open_disputed_refs(case.decision.cited_clauses, self.memory)

    def _shared(self, key: tuple[object, ...], make: Callable[[], Text]) -> Text:
        """One ``Text`` per distinct value of the small columns (verdict, confidence,
        clauses, risk), shared by every row showing it: cells are never changed in
        place (a changed row gets new cells), so sharing is safe, and it saves ~40,000
        objects at 10,000 rows."""
        found = self._shared_cells.get(key)
        if found is None:
            found = self._shared_cells[key] = make()
        return found

    def reset(self) -> None:
        """Forget everything (another project is being opened)."""
        self.cases.clear()
        self.all_cases = []
        self.ruled_elsewhere.clear()
        self.marked.clear()
        self.histories.clear()
        self.claims.clear()
        self.assignments.clear()
        self._opened = None
        self.filter = QueueFilter()
        self._loaded = False
        self._awaiting_width = False
        self._cells.clear()
        self._row_state.clear()
        self._details.clear()
        self._details_wanted.clear()
        self._detail_errors.clear()
        self.rulings = None
        self.rulings_error = None
        self.workitems.clear()
        self.knowledge = None
        self._beside.clear()
        table, find = part(self, QueueTable), part(self, "#queue-find", Input)
        if table is None or find is None:
            return  # nothing drawn to clear: composed empty, or being removed
        table.clear()
        table.loading = True
        find.value = ""
        find.display = False
        self._show_filter()
        self.refresh_detail()

    def load(
        self,
        cases: Iterable[QueueCase],
        clauses: Mapping[str, ScopeClause],
        memory: Mapping[str, ClauseMemory],
        *,
        mine: Iterable[str] = (),
        rulings: RulingIndex | None = None,
        knowledge: str | None = None,
        escalate: bool | None = None,
        wiki_on: bool | None = None,
        claims: Mapping[str, CaseEvent] | None = None,
        assignments: Mapping[str, CaseEvent] | None = None,
        me: str | None = None,
    ) -> list[QueueCase]:
        """Show the project's cases (all of them, in queue order; the pending ones are
        listed), in place. Cases ruled since the last load leave the table, except the
        highlighted one when someone else ruled it: its row stays, marked, with a
        banner. ``mine``: case ids this desk is ruling right now (never "someone
        else"). ``escalate`` and ``wiki_on`` replace :attr:`escalate` and
        :attr:`wiki_on` when given; a new ``knowledge`` hash (the folder was loaded
        again) drops the whole cases and work items read so far. Returns the cases other
        reviewers ruled since the last load. Before the pane is composed the cases are
        kept and drawn on mount."""
        if knowledge is not None and knowledge != self.knowledge:
            if self.knowledge is not None:  # clauses and work items may have changed
                self.workitems.clear()
                self.forget_details()
            self.knowledge = knowledge
        if escalate is not None:
            self.escalate = escalate
        if wiki_on is not None:
            self.wiki_on = wiki_on
        if claims is not None:
            self.claims = dict(claims)
        if assignments is not None:
            self.assignments = dict(assignments)
        if me is not None:
            self.me = me
        table = part(self, QueueTable)
        if table is not None:
            table.loading = False
        everything = list(cases)
        fresh = {c.case_id: c for c in everything if c.ruling is None}
        ruled_now = {c.case_id: c for c in everything if c.ruling is not None}
        mine = set(mine)
        current = self.current_case_id()
        by_others: list[QueueCase] = []
        for case_id in self.cases:
            if case_id in fresh or case_id in mine:
                continue
            record = ruled_now.get(case_id)
            if record is None:
                continue  # gone (erased): just drop it
            by_others.append(record)
            if case_id == current:
                self.ruled_elsewhere[case_id] = record
        self.ruled_elsewhere = {
            k: ruled_now.get(k, v)
            for k, v in self.ruled_elsewhere.items()
            if k not in fresh and k == current
        }
        self.all_cases = everything
        self._by_id = {c.case_id: c for c in everything}
        self.cases = fresh
        self.marked &= fresh.keys()  # a case ruled (or erased) meanwhile is no longer marked
        self.clauses = dict(clauses)
        self.memory = dict(memory)
        self._set_rulings(rulings)
        first = not self._loaded
        self._loaded = True
        if first:
            # the real case ids decide the layout: fill the table once, at its width;
            # while it was loading it had none (laid out on the next refresh)
            self._fit_layout()
            if not self._table_width:
                self._awaiting_width = True
                self.call_after_refresh(self._fill_when_laid_out)
        if not self._awaiting_width:
            self._sync()
        else:
            self._show_filter()
        if table is not None and self.screen.focused is None:
            # at once, not through focus()'s deferred callback: a key pressed the moment
            # the rows appear must reach the table (the table could not take focus while
            # it was loading, so nothing has it yet)
            self.screen.set_focus(table)
        return by_others

    def remove_case(self, case_id: str, memory: Mapping[str, ClauseMemory] | None = None) -> None:
        """Take one ruled case out of the queue; the cursor stays at the same position
        (so it lands on the next case)."""
        if memory is not None:
            self.memory = dict(memory)
        self.cases.pop(case_id, None)
        self.ruled_elsewhere.pop(case_id, None)
        self.marked.discard(case_id)
        self._sync()

    def ruled_here(self, ruling: RulingRecord) -> None:
        """This desk ruled a case (single, bulk or amended): :attr:`all_cases` (what
        ``A`` lists, newest ruling first) carries the ruling at once, not after the
        next load."""
        if ruling.case_id not in self._by_id:
            return
        self.all_cases = [
            replace(c, ruling=ruling) if c.case_id == ruling.case_id else c for c in self.all_cases
        ]
        self._by_id = {c.case_id: c for c in self.all_cases}

    def update_memory(
        self, memory: Mapping[str, ClauseMemory], rulings: RulingIndex | None = None
    ) -> None:
        """New clause memory (after a ruling), and the similar-rulings index after it
        when given: re-render the detail pane."""
        before = {k: self._disputed_state(c) for k, c in self.cases.items()}
        self.memory = dict(memory)
        self._set_rulings(rulings)
        if any(self._disputed_state(c) != before[k] for k, c in self.cases.items()):
            self._sync()  # a clause became (or stopped being) disputed: rows change
        else:
            self.refresh_detail()

    def _set_rulings(self, rulings: RulingIndex | None) -> None:
        """Take a new similar-rulings index (None keeps the one there is)."""
        if rulings is not None and rulings is not self.rulings:
            self.rulings = rulings
            self.rulings_error = None
            self._beside.clear()

    def rulings_indexed(self, rulings: RulingIndex | None, error: str | None = None) -> None:
        """The similar-rulings index of the first queue arrived (or ``error``: why it
        could not be built): the detail pane shows the memory beside the case."""
        if rulings is None:
            if self.rulings is None:
                self.rulings_error = error
        else:
            self._set_rulings(rulings)
        self.refresh_detail()

    def beside(self, record: CaseRecord) -> Beside | None:
        """The memory beside ``record`` now (its similar rulings and the ruling they
        support), computed once per case and index; None before the index arrived."""
        if self.rulings is None:
            return None
        found = self._beside.get(record.case_id)
        if found is None:
            found = Desk.beside_with(self.rulings, record)
            self._beside[record.case_id] = found
        return found

    def visible_cases(self) -> list[QueueCase]:
        """The rows the table should show, in display order."""
        now = self.clock()
        esc = self.escalate
        rows = [
            c
            for c in self.all_cases
            if (c.case_id in self.cases and self.filter.matches(c, self.memory, now, escalate=esc))
            or c.case_id in self.ruled_elsewhere
        ]
        if not self.all_cases:  # loaded without the full list (tests, older callers)
            rows = [
                c
                for c in self.cases.values()
                if self.filter.matches(c, self.memory, now, escalate=esc)
            ]
        return order(rows, self.filter.sort, now, memory=self.memory, escalate=esc)

    def _sync(self) -> None:
        """Make the table show :meth:`visible_cases`, in place, cursor on its case."""
        # Filling 10,000 rows allocates ~200,000 objects that all live on: the cyclic
        # GC would walk the whole heap several times meanwhile (about half the time of
        # a first fill), so it waits until the fill is done — through the counted pause
        # a load worker may hold at the same time (a bare gc.enable() here would end it).
        big = len(self._cells) < len(self.cases) - 1000
        with collector_paused() if big else contextlib.nullcontext():
            self._sync_rows()

    def _sync_rows(self) -> None:
        table = part(self, QueueTable)
        if table is None:
            return  # kept: drawn on mount (or nothing to draw into: being removed)
        if bool(self.marked) != self._mark_room or self._claimed() != self._claim_room:
            self._fit_layout()  # the first mark, or the last one gone: titles re-fitted
        current = self.current_case_id()
        index = table.cursor_row
        rows = self.visible_cases()
        wanted = [c.case_id for c in rows]
        wanted_set = set(wanted)
        with self.app.batch_update():
            gone = [k for k in self._cells if k not in wanted_set]
            for case_id in gone:
                self._cells.pop(case_id, None)
                self._row_state.pop(case_id, None)
            table.remove_rows(gone)
            layout = (self._title_width, self._short_ids, self._short_verdicts)
            table.show_columns(self._hidden)
            if self._cells and layout != self._layout:
                # A new column layout changes every row: re-add them all, the column
                # widths measured afresh (they only ever grow until a clear)
                table.clear()
                self._cells.clear()
                self._row_state.clear()
            self._layout = layout
            added: list[tuple[str, list[Text]]] = []
            later = len(rows) - len(self._cells) > LATER_ROWS
            new_later: list[QueueCase] = []
            forget: list[str] = []
            now = self.clock()
            for case in rows:
                # a row's cells depend only on the case (frozen), the column layout and
                # whether someone else ruled it: skip rows where none of that changed
                held = self.others_claim(case.case_id)
                assigned = self.others_assignment(case.case_id)
                state = (
                    layout,
                    case.case_id in self.ruled_elsewhere,
                    self._disputed_state(case),
                    case.case_id in self.marked,
                    held.actor if held is not None else None,
                    assigned.after if assigned is not None else None,
                    self.look_of(case, now),  # a look turns overdue as time passes
                )
                there = case.case_id in self._cells
                if there and self._row_state.get(case.case_id) == state:
                    continue
                self._row_state[case.case_id] = state
                old = self._cells.get(case.case_id)
                if not there and later:
                    new_later.append(case)
                    self._cells[case.case_id] = None
                    continue
                if there and old is None:
                    forget.append(case.case_id)  # the table makes them again when drawn
                    continue
                cells = self._cells_for(case)
                if old is None:
                    added.append((case.case_id, cells))
                else:
                    for (column, _), before, after in zip(COLUMNS, old, cells, strict=True):
                        if not _same(before, after):
                            table.update_cell(
                                case.case_id,
                                column,
                                after,
                                update_width=column in ("case", "title", "verdict", "risk", "look"),
                            )
                self._cells[case.case_id] = cells
            table.add_rows_at_once(added)
            table.add_rows_later([c.case_id for c in new_later], self._layout_widths(new_later))
            table.forget_cells(forget)
            moved = bool(gone or added or new_later) or table.row_keys() != wanted
            if table.row_keys() != wanted:
                table.reorder(wanted)
        if current is not None and current in wanted_set:
            target = table.get_row_index(current)
        else:
            target = min(max(index, 0), len(wanted) - 1)
        if wanted and (table.cursor_row != target or current not in wanted_set):
            table.move_cursor(row=target, animate=False)
        elif wanted and moved:  # same row, other rows around it: once laid out, in view
            table.call_after_refresh(lambda: table.move_cursor(row=table.cursor_row))
        self._show_filter()
        self.refresh_detail()

    def _show_filter(self) -> None:
        bar = part(self, FilterBar)
        if bar is None:
            return  # not composed yet (on_mount shows it) or being removed
        if not self._loaded:
            for summary in bar.query("#filter-summary").results(Static):
                summary.update(Text("Loading the queue…", style="dim", end=""))
            return
        kept = sum(1 for k in self.ruled_elsewhere if k in self._cells)
        bar.show(
            self.filter,
            len(self._cells) - kept,
            len(self.cases),
            kept=kept,
            marked=len(self.marked),
            unsure=sum(
                1 for k in self.marked if (c := self.cases.get(k)) and not is_sure(c.decision)
            ),
        )

    def set_filter(self, flt: QueueFilter) -> None:
        """Apply ``flt`` (and say so with a :class:`FilterChanged`)."""
        if flt == self.filter:
            return
        self.filter = flt
        self._sync()
        self.post_message(FilterChanged(flt, len(self._cells), len(self.cases)))

    def prune_ruled_elsewhere(self) -> None:
        """Drop the rows of cases ruled elsewhere that the cursor has left."""
        current = self.current_case_id()
        stale = [k for k in self.ruled_elsewhere if k != current]
        if stale:
            for k in stale:
                del self.ruled_elsewhere[k]
            self._sync()

    def current_case_id(self) -> str | None:
        """The case id under the cursor, or None when the table is empty (or not
        composed yet, or being removed)."""
        table = part(self, QueueTable)
        return table.cursor_key if table is not None else None

    def current_case(self) -> QueueCase | None:
        """The highlighted case (pending, or ruled elsewhere), or None."""
        case_id = self.current_case_id()
        if case_id is None:
            return None
        return self.cases.get(case_id) or self.ruled_elsewhere.get(case_id)

    def fit_titles(self, table_width: int | None = None) -> None:
        """Size the title column (and choose full or short case ids) for a table
        ``table_width`` cells wide (default: the last width seen)."""
        if table_width is not None:
            self._table_width = table_width
        changed = self._fit_layout()
        if self._loaded and (changed or self._awaiting_width) and self._table_width:
            self._awaiting_width = False
            self._sync()

    def _fill_when_laid_out(self) -> None:
        """The first fill, if the table's resize has not done it yet and the table has a
        width. Without one it waits for the table's first Resize (:meth:`fit_titles`
        fills then): filling after a timeout instead drew the rows at the narrowest
        layout whenever a loaded machine laid the table out late."""
        if not self._awaiting_width:
            return
        self._fit_layout()
        if not self._table_width:
            return
        self._awaiting_width = False
        self._sync()

    def _fit_layout(self) -> bool:
        """Choose the title width, full or short case ids and verdicts for the last
        width seen; True when that changed."""
        table = part(self, QueueTable)
        if table is None:
            return False  # no width before the table is composed
        if not self._table_width:
            self._table_width = table.size.width
        # Always reserve the vertical scrollbar's cells, shown or not, so the widths do
        # not depend on whether the rows happen to overflow at this moment.
        width = self._table_width - table.styles.scrollbar_size_vertical
        if width <= 0:
            return False
        # while a case is marked its id cell starts with the mark: room for it comes out
        # of the titles, or the case column widened past the table (a horizontal
        # scrollbar at 80 columns, and one row fewer; a fresh-user trial)
        self._mark_room = bool(self.marked)
        self._claim_room = self._claimed()
        ids = [c.case_id for c in self.all_cases] or list(self.cases)
        fitted = fit_columns(
            width,
            padding=2 * table.cell_padding,
            full_id=max((len(k) for k in ids), default=17),
            short_id=max((len(short_case_id(k)) for k in ids), default=8),
            extra=(len(MARK) + 1 if self._mark_room else 0)
            + (CLAIM_ROOM if self._claim_room else 0),
        )
        title, short_ids = fitted.title, fitted.short_ids
        short_verdicts = fitted.short_verdicts
        if (title, short_ids, short_verdicts, fitted.hidden) == (
            self._title_width,
            self._short_ids,
            self._short_verdicts,
            self._hidden,
        ):
            return False
        self._hidden = fitted.hidden
        self._title_width, self._short_ids = title, short_ids
        self._short_verdicts = short_verdicts
        return True
