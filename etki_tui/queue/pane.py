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

import contextlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.console import Group
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.timer import Timer
from textual.widgets import Input, Static

from etki.domain import (
    CaseEvent,
    CaseRecord,
    ClauseMemory,
    DisputedClause,
    RulingRecord,
    ScopeClause,
    WorkItem,
    is_sure,
)
from etki.memory import current_risk, disputed_refs, open_disputed_refs
from etki.services import Desk
from etki.text import printable
from etki_tui.actions import bindings
from etki_tui.glyphs import CURSOR_MARK, UNSURE_MARK, WARN
from etki_tui.heap import collector_paused
from etki_tui.inputs import TypingInput
from etki_tui.live import part
from etki_tui.messages import (
    AmendRequested,
    BulkRuleRequested,
    CaseOpened,
    CaseWanted,
    ClaimWanted,
    CrPageWanted,
    DetailsWanted,
    DisputeResolveWanted,
    FilterChanged,
    NewRequestWanted,
    NoteWanted,
    PreanalysisWanted,
    RuleRequested,
)
from etki_tui.queue.detail import case_detail, clauses_cell, history_section, risk_cell, title_cell
from etki_tui.queue.filters import SORT_SHORT, SORTS, VERDICTS, QueueCase, QueueFilter, cycle, order
from etki_tui.queue.table import QueueTable
from etki_tui.render import fit, ruled_banner, short_case_id, verdict_text, when

if TYPE_CHECKING:
    from etki.services import Beside, RulingIndex

COLUMNS: tuple[tuple[str, str], ...] = (
    ("case", "Case"),
    ("title", "Title"),
    ("verdict", "Verdict"),
    ("conf", "Conf"),
    ("clauses", "Clauses"),
    ("risk", "Risk"),
)
_FIXED = {"verdict": 16, "conf": 6, "clauses": 9, "risk": 8}
"""Widths of the small columns; the confidence's is ``0.58 ?`` (:func:`conf_cell`)."""
_SHORT_VERDICT = 10
"""Verdict column width when narrow: ``+ CR`` stands for ``+ CHANGE_REQUEST``."""
_MIN_TITLE = 12
_WANT_TITLE = 28
"""Below this title width the case column drops the ``req-{project}-`` prefix."""

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

MARK = "*"
"""Drawn before the id of a case marked for a bulk ruling (ASCII: one cell everywhere)."""

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


def conf_cell(conf: str, sure: bool) -> Text:
    """The confidence column: ``0.86  `` when the engine is sure, ``0.58 ?`` when it
    needs a careful look (:data:`~etki_tui.queue.filters.UNSURE_MARK`: a glyph, so it reads
    with NO_COLOR too)."""
    out = Text(conf, justify="right", no_wrap=True, end="")
    out.append(" ")
    out.append(" " if sure else UNSURE_MARK, style="" if sure else "bold")
    return out


def _same(a: Text, b: Text) -> bool:
    return a.plain == b.plain and str(a.style) == str(b.style) and a.spans == b.spans


def _utc_now() -> datetime:
    return datetime.now(UTC)


class CaseDetail(VerticalScroll, can_focus=True):
    """Scrollable detail of the highlighted case (focusable so it scrolls by keyboard;
    Enter on a row maximizes it for reading, Escape restores)."""

    ALLOW_MAXIMIZE = True

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: object = Text("No case selected.", style="dim")

    def compose(self) -> ComposeResult:
        """One static body (what :meth:`show` was given, if it came first)."""
        yield Static(self._shown, id="detail-body", markup=False)  # type: ignore[arg-type]

    def show(self, renderable: object) -> None:
        """Replace the content and scroll back to the top; before the body is composed
        the content is kept and composed with it."""
        self._shown = renderable
        body = part(self, "#detail-body", Static)
        if body is None:
            return
        body.update(renderable)  # type: ignore[arg-type]
        self.scroll_home(animate=False)


class FilterBar(Horizontal):
    """One line that always says what the queue shows: the filters, the count and the
    sort order; ``/`` opens the live find box in it."""

    def __init__(self, *, cursor_blink: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self._cursor_blink = cursor_blink

    def compose(self) -> ComposeResult:
        """The (hidden until ``/``) find box, the summary and the sort order."""
        find = TypingInput(
            placeholder="find (id, title, text, clause)", id="queue-find", select_on_focus=False
        )
        find.cursor_blink = self._cursor_blink
        find.display = False
        yield find
        yield Static("", id="filter-summary", markup=False)
        yield Static("", id="filter-sort", markup=False)

    def show(
        self,
        flt: QueueFilter,
        shown: int,
        pending: int,
        *,
        kept: int = 0,
        marked: int = 0,
        unsure: int = 0,
    ) -> None:
        """Render the summary for ``flt`` with ``shown`` of ``pending`` rows, plus
        ``kept`` rows of cases ruled elsewhere that stay listed (said explicitly, so the
        count matches the rows on screen), and how many cases are ``marked`` for a
        bulk ruling (said first: it is what B would rule), ``unsure`` of them ones the
        engine is not sure of (B leaves them)."""
        find = part(self, "#queue-find", Input)
        summary = part(self, "#filter-summary", Static)
        order_line = part(self, "#filter-sort", Static)
        if find is None or summary is None or order_line is None:
            return  # not composed yet (the pane shows it on mount) or being removed
        out = Text(no_wrap=True, overflow="ellipsis", end="")
        if marked:
            out.append(f" {MARK} {marked} marked ", style="bold reverse")
            if getattr(self.app, "read_only", False):  # B would only refuse
                out.append(" read-only: nothing can be ruled · ", style="dim")
            elif unsure == marked:
                out.append(f" {UNSURE_MARK} all need a careful look: B rules none · ", style="dim")
            elif unsure:
                out.append(f" B rules the {marked - unsure} sure · ", style="dim")
            else:
                out.append(" B rules them · ", style="dim")
        parts = flt.describe()
        finding = find.display
        if finding and flt.text.strip():
            parts = parts[:-1]  # the find box itself shows the text
        if flt.active:
            out.append(" FILTER ", style="bold reverse")
            out.append(f" {shown} of {pending}", style="bold")
            if kept:
                out.append(f" + {kept} ruled elsewhere", style="bold")
            # the way out before the details: a narrow line (the find box beside it at
            # 80 columns) cuts the filters' description, never the hint
            out.append(" · Esc clears", style="dim")
            if parts:
                out.append(" · " + " · ".join(parts))
        else:
            out.append(f"All {pending} pending", style="bold")
            if kept:
                out.append(f" + {kept} ruled elsewhere", style="bold")
            out.append(" · f filter · / find", style="dim")
        summary.update(out)
        sort = Text(
            f"sort: {SORT_SHORT.get(flt.sort, flt.sort)}",
            no_wrap=True,
            end="",
            style="dim" if flt.sort == "queue" else "bold",
        )
        order_line.update(sort)
        # the default order needs no word while the find box takes the line's room
        # (at 80 columns the count and "Esc clears" would be cut for it)
        order_line.display = not (finding and flt.sort == "queue")


RULING_ACTIONS = frozenset({"approve", "convert", "reject", "amend"})
AMEND_LISTED = 200
"""How many of the newest rulings ``A`` offers to amend."""
"""The queue's actions that record a ruling (what a read-only desk may not do)."""
BULK_ACTION = "bulk_approve"
"""The queue's action that rules the marked cases (refused on a read-only desk too)."""


class QueuePane(Vertical):
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
        "filter.verdict",
        "filter.disputed",
        "sort",
        "filter.clear",
        "similar",
        "mark",
        "bulk_approve",
        "cr_document",
        "preanalyse",
        "dispute.resolve_case",
    )

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
        """Whether the layout leaves room for the mark before a case id (some case is marked)."""
        self._short_ids = True
        self._short_verdicts = True
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
        self.me: str | None = None
        """The acting reviewer: their own claims are not marked in the queue."""

    def compose(self) -> ComposeResult:
        """The filter line, then the table above (or beside) the banner and detail."""
        yield FilterBar(cursor_blink=self._cursor_blink, id="queue-filterbar")
        with Vertical(id="queue-main"):
            yield QueueTable(id="queue-table", on_width=self.fit_titles)
            with Vertical(id="queue-side"):
                banner = Static("", id="queue-banner", markup=False)
                banner.display = False
                yield banner
                detail = CaseDetail(id="case-detail")
                detail.border_title = "Case"
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

    def _maximized_changed(self, before: object, after: object) -> None:
        """Leaving the full-screen read (Escape, Enter, a tab key): the focus goes back
        to the queue, where it was before Enter, unless something else took it, and the
        pane back to its top, where the disputed strip and the verdict are (a trial: it
        kept the reader's scroll, the strip out of sight until the row changed)."""
        detail, table = part(self, CaseDetail), part(self, QueueTable)
        if detail is None or table is None:
            return  # the pane is being removed
        if before is detail and after is None:
            detail.scroll_home(animate=False)
            if self.screen.focused in (detail, None):
                table.focus()

    # --- data in ------------------------------------------------------------------------

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
        if case.case_id in self.marked:
            case_cell = Text.assemble((MARK, "bold reverse"), " ", case_cell, no_wrap=True, end="")
        ruled = self.ruled_elsewhere.get(case.case_id)
        if ruled is not None and ruled.ruling is not None:
            label = (
                f"{WARN} RULED"
                if self._short_verdicts
                else fit(
                    f"{WARN} ruled by {printable(ruled.ruling.reviewer, multiline=False)}",
                    _FIXED["verdict"],
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
        held = self.others_claim(case.case_id)
        title = case.title
        if held is not None:  # another reviewer is on it: said before the title
            title = f"claimed by {printable(held.actor, multiline=False)} · {title}"
        return [
            case_cell,
            title_cell(title, self._title_width, disputed),
            verdict,
            self._shared(("conf", conf, sure), lambda: conf_cell(conf, sure)),
            self._shared(("clauses", refs), lambda: clauses_cell(refs, _FIXED["clauses"])),
            self._shared(
                ("risk", risk.level, risk.pmo_look_24h),
                lambda: risk_cell(case, self.memory, self.escalate),
            ),
        ]

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
        of the small columns (:data:`_FIXED`)."""
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
        verdict = _SHORT_VERDICT if self._short_verdicts else _FIXED["verdict"]
        return {
            "case": case,
            "title": self._title_width,
            "verdict": verdict,
            "conf": _FIXED["conf"],
            "clauses": _FIXED["clauses"],
            "risk": _FIXED["risk"],
        }

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

    # --- the in-place update ---------------------------------------------------------

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
        if bool(self.marked) != self._mark_room:
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
            for case in rows:
                # a row's cells depend only on the case (frozen), the column layout and
                # whether someone else ruled it: skip rows where none of that changed
                held = self.others_claim(case.case_id)
                state = (
                    layout,
                    case.case_id in self.ruled_elsewhere,
                    self._disputed_state(case),
                    case.case_id in self.marked,
                    held.actor if held is not None else None,
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
                                update_width=column in ("case", "title", "verdict", "risk"),
                            )
                self._cells[case.case_id] = cells
            table.add_rows_at_once(added)
            table.add_rows_later([c.case_id for c in new_later], self._layout_widths(new_later))
            table.forget_cells(forget)
            if table.row_keys() != wanted:
                table.reorder(wanted)
        if current is not None and current in wanted_set:
            target = table.get_row_index(current)
        else:
            target = min(max(index, 0), len(wanted) - 1)
        if wanted and (table.cursor_row != target or current not in wanted_set):
            table.move_cursor(row=target, animate=False)
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

    # --- selection ------------------------------------------------------------------------

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

    def refresh_detail(self) -> None:
        """Render the banner and the detail pane for the highlighted case (nothing
        before the pane is composed: its first fill renders them, nor while it is being
        removed)."""
        detail = part(self, CaseDetail)
        banner = part(self, "#queue-banner", Static)
        table = part(self, QueueTable)
        if detail is None or banner is None or table is None:
            return
        case = self.current_case()
        ruled = self.ruled_elsewhere.get(case.case_id) if case is not None else None
        banner.display = ruled is not None and ruled.ruling is not None
        if ruled is not None and ruled.ruling is not None:
            banner.update(ruled_banner(ruled.ruling))
        if case is None:
            if not self._loaded:
                detail.border_title = "Case"
                detail.show(Text("Loading…", style="dim"))
            elif not self.cases:
                detail.border_title = "No pending cases"
                detail.show(
                    Text(
                        "The queue is empty: every case is ruled. Ctrl+R reloads; "
                        "the queue also refreshes by itself.",
                        style="dim",
                    )
                )
            else:
                detail.border_title = "Nothing matches the filter"
                detail.show(
                    Text(
                        f"No pending case matches the filter ({len(self.cases)} "
                        "hidden). Esc clears the filters; f changes them.",
                        style="dim",
                    )
                )
            return
        position = table.cursor_row + 1
        detail.border_title = (
            f"Case {position} of {table.row_count} · {printable(case.case_id, multiline=False)}"
        )
        record = self.detail_record(case)
        self._want_details(case.case_id, record is None)
        self._case_shown(case.case_id)
        if record is not None:
            beside = self.beside(record)
            detail.show(
                Group(
                    case_detail(
                        record,
                        self.clauses,
                        self.memory,
                        now=self.clock(),
                        similar=beside.similar if beside is not None else (),
                        similar_unknown=(
                            None
                            if beside is not None
                            else f"not read: {self.rulings_error}"
                            if self.rulings_error
                            else "reading…"
                        ),
                        memory_verdict=beside.verdict if beside is not None else None,
                        escalate=self.escalate,
                        workitems=self.workitems,
                        precedents=self._precedent_pages(record),
                        cr_page=self._cr_page(record),
                        llm_model=self.llm_model,
                        preanalysing=case.case_id in self.preanalysing,
                    ),
                    history_section(self.histories.get(case.case_id)),
                )
            )
        elif case.case_id in self._detail_errors:
            error = printable(self._detail_errors[case.case_id], multiline=False)
            detail.show(Text(f"Could not read this case: {error}. Ctrl+R reloads.", style="dim"))
        else:
            detail.show(Text("Loading…", style="dim"))

    # --- the case's history (issue 14 item 3) ------------------------------------------

    def _case_shown(self, case_id: str) -> None:
        """The detail pane shows ``case_id``: ask for its history at once
        (:class:`CaseOpened`), and once the pane rested there :attr:`view_delay`
        seconds, for the reviewer's view to be written (moving on before that writes
        none: scrolling past a case is not opening it)."""
        if case_id == self._opened:
            return
        self._opened = case_id
        if self._open_timer is not None:
            self._open_timer.stop()
            self._open_timer = None
        now = self.view_delay <= 0
        self.post_message(CaseOpened(case_id, view=now))
        if now:
            return

        def rested() -> None:
            self._open_timer = None
            if self.current_case_id() == case_id:
                self.post_message(CaseOpened(case_id, history=False, view=True))

        self._open_timer = self.set_timer(self.view_delay, rested)

    def history_loaded(self, case_id: str, events: list[CaseEvent]) -> None:
        """The history of ``case_id`` was read: keep it and re-render when shown."""
        self.histories[case_id] = events
        if self.current_case_id() == case_id:
            self.refresh_detail()

    def history_changed(self, case_id: str) -> None:
        """Something was written to ``case_id``'s history (a ruling, an amendment): read
        it again when it is shown next (at once when it is shown now)."""
        self.histories.pop(case_id, None)
        if self._opened == case_id:
            self._opened = None
            if self.current_case_id() == case_id:
                self._opened = case_id
                self.post_message(CaseOpened(case_id))

    def _precedent_pages(self, record: CaseRecord) -> dict[str, str]:
        """Case id -> wiki page (``precedents/PRE-….md``) of the last corrections the
        clause memory of ``record``'s cited clauses names; empty with the wiki off."""
        if not self.wiki_on:
            return {}
        from etki.wiki.paths import precedent_path

        pages: dict[str, str] = {}
        for ref in record.decision.cited_clauses:
            mem = self.memory.get(ref)
            last = mem.last_correction if mem is not None else None
            if last is None or last.case_id in pages:
                continue
            case = self._by_id.get(last.case_id)
            if case is not None:
                pages[last.case_id] = precedent_path(case)
        return pages

    def _cr_page(self, record: CaseRecord) -> str | None:
        """The change-request page of ``record`` when it is ruled CHANGE_REQUEST
        (``change-requests/CR-….md``; ``""`` with the wiki off), else None."""
        from etki.wiki.paths import cr_path, has_cr_page

        if not has_cr_page(record):
            return None
        return cr_path(record) if self.wiki_on else ""

    # --- whole cases for the detail pane ---------------------------------------------------

    def detail_record(self, case: QueueCase) -> CaseRecord | None:
        """The whole case behind a listed one when it has been read (and is still at
        the listed version), else None."""
        if isinstance(case, CaseRecord):
            return case
        record = self._details.get(case.case_id)
        if record is None or record.version != case.version:
            return None
        self._details.move_to_end(case.case_id)
        return record

    def forget_details(self) -> None:
        """Drop the whole cases and the histories read for the pane (Ctrl+R): the next
        highlight reads them again, with what changed without a new version (a
        pre-analysis, a view or a note written by another desk); the highlighted case's
        history is read again at once."""
        self._details.clear()
        self._detail_errors.clear()
        current = self.current_case_id()
        reread = current is not None and self._opened == current
        shown = self.histories.get(current) if reread and current is not None else None
        self.histories.clear()
        if reread and current is not None:
            if shown is not None:  # shown until the new read replaces it: no jump
                self.histories[current] = shown
            self.post_message(CaseOpened(current))

    def _remember_detail(self, record: CaseRecord) -> None:
        self._details[record.case_id] = record
        self._details.move_to_end(record.case_id)
        self._detail_errors.pop(record.case_id, None)
        while len(self._details) > DETAIL_CACHE:
            self._details.popitem(last=False)

    def _want_details(self, case_id: str, missing: bool) -> None:
        """Ask (once) for the whole cases of the rows around the cursor that are not
        read yet, when the highlighted one is missing or the cursor nears the edge of
        what is read."""
        table = self.table
        index = table.cursor_row
        keys = table.row_keys()
        before, after = DETAIL_WINDOW
        window = keys[max(0, index - before) : index + after]
        near = set(window[max(0, min(index, before) - 5) : min(index, before) + 15])

        def unread(key: str | None) -> bool:
            if key is None or key in self._details_wanted or key in self._detail_errors:
                return False
            case = self.cases.get(key) or self.ruled_elsewhere.get(key)
            return case is not None and self.detail_record(case) is None

        if not (missing and unread(case_id)) and not any(unread(k) for k in near):
            return
        ids = [k for k in window if unread(k)]
        if missing and unread(case_id) and case_id not in ids:
            ids.insert(0, case_id)
        if ids:
            self._details_wanted.update(ids)
            self.post_message(DetailsWanted(ids))

    def details_loaded(
        self,
        records: Iterable[CaseRecord],
        asked: Iterable[str],
        error: str | None = None,
        *,
        workitems: Mapping[str, WorkItem] | None = None,
    ) -> None:
        """Whole cases read for the detail pane (``error``: why the ``asked`` ids could
        not be read) and the work items their effort bases name; re-render the pane
        when the highlighted case is among them."""
        self.workitems.update(workitems or {})
        asked = set(asked)
        self._details_wanted -= asked
        got = set()
        for record in records:
            self._remember_detail(record)
            got.add(record.case_id)
        # A case asked for and not read without an error is gone from the store (erased
        # since the queue was read): said, not asked for again on every redraw (that
        # started a details worker per refresh, for ever)
        for key in asked - got:
            self._detail_errors[key] = error or "it is no longer in the store"
        if self.current_case_id() in asked:
            self.refresh_detail()

    @on(QueueTable.RowHighlighted, "#queue-table")
    def _highlighted(self, event: QueueTable.RowHighlighted) -> None:
        event.stop()
        if self.ruled_elsewhere and self.current_case_id() not in self.ruled_elsewhere:
            self.call_after_refresh(self.prune_ruled_elsewhere)
        self.refresh_detail()

    @on(QueueTable.RowSelected, "#queue-table")
    def _selected(self, event: QueueTable.RowSelected) -> None:
        event.stop()
        self.action_read()

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
        padding = 2 * table.cell_padding * len(COLUMNS)
        short_verdicts = width < 110
        fixed = sum(_FIXED.values()) - (_FIXED["verdict"] - _SHORT_VERDICT if short_verdicts else 0)
        # while a case is marked its id cell starts with the mark: room for it comes out
        # of the titles, or the case column widened past the table (a horizontal
        # scrollbar at 80 columns, and one row fewer; a fresh-user trial)
        self._mark_room = bool(self.marked)
        rest = width - padding - fixed - 1 - (len(MARK) + 1 if self._mark_room else 0)
        ids = [c.case_id for c in self.all_cases] or list(self.cases)
        full = max((len(k) for k in ids), default=17)
        short = max((len(short_case_id(k)) for k in ids), default=8)
        short_ids = rest - full < _WANT_TITLE
        title = max(_MIN_TITLE, rest - (short if short_ids else full))
        if (title, short_ids, short_verdicts) == (
            self._title_width,
            self._short_ids,
            self._short_verdicts,
        ):
            return False
        self._title_width, self._short_ids = title, short_ids
        self._short_verdicts = short_verdicts
        return True

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
            active = self.screen.active_bindings.get(event.key)
            if (
                active is not None
                and active.node is self
                and not active.enabled
                and active.binding.action in (*RULING_ACTIONS, BULK_ACTION)
            ):
                event.stop()
                if active.binding.action == BULK_ACTION:
                    self.action_bulk_approve()
                else:
                    self._request(active.binding.action)
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
        the ruling keys are dimmed in the footer (None: shown, disabled) on a read-only
        desk, whose reviewer may not rule."""
        if action == "clear_filters":
            return self.filter.active
        if action == "find":  # a priority key: in a text box it is a character
            return not isinstance(self.screen.focused, Input)
        if action in RULING_ACTIONS or action == BULK_ACTION:
            return None if getattr(self.app, "read_only", False) else True
        return True

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
            detail.focus()
            screen.maximize(detail, container=False)

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

    def action_cr_document(self) -> None:
        """Open the highlighted case's change-request document in the reader, when its
        ruling is CHANGE_REQUEST; else the one this desk converted last (the app
        knows it), or say why there is none."""
        case = self.current_case()
        if case is None:
            self.post_message(CrPageWanted(otherwise="No case is highlighted."))
            return
        r = case.ruling
        if r is None or r.ruling != "CHANGE_REQUEST":
            state = "pending" if r is None else f"ruled {r.ruling}"
            # the app opens the change request this desk converted last, if any
            # (a case converted with c leaves the queue), else says this
            self.post_message(
                CrPageWanted(
                    otherwise=printable(
                        f"{case.case_id} is {state}: only a case converted to a change "
                        "request (c) has a change-request document.",
                        multiline=False,
                    )
                )
            )
            return
        self.post_message(CrPageWanted(case.case_id))

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
