"""The queue pane's case detail: what the highlighted case shows, its history, and the
whole cases read for it (between the rows and the keys of the pane).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from rich.console import Group
from rich.text import Text
from textual import on
from textual.widgets import Static

from etki.domain import (
    CaseEvent,
    CaseRecord,
    WorkItem,
)
from etki.text import printable
from etki_tui.live import part
from etki_tui.messages import (
    CaseOpened,
    DetailsWanted,
)
from etki_tui.queue.bars import CaseDetail
from etki_tui.queue.detail import case_detail, history_section
from etki_tui.queue.filters import QueueCase
from etki_tui.queue.rows import DETAIL_CACHE, DETAIL_WINDOW, QueueRows
from etki_tui.queue.table import QueueTable
from etki_tui.render import ruled_banner

if TYPE_CHECKING:
    pass


class QueueShown(QueueRows):
    """The queue pane's case detail: what the highlighted case shows, its history, and the"""

    if TYPE_CHECKING:
        # the pane's key (etki_tui.queue.pane): declared here for the checker only
        def action_read(self) -> None: ...

    def _no_module(self) -> str:
        """For a filter whose ``module:`` token names no module of the desk's project:
        a sentence naming it and the nearest ids (:func:`etki.picks.unknown_module`, as
        ``etki queue --module`` refuses it; a PMO trial of issue 35 read only "nothing
        matches" for a typo); else empty. Read only when nothing matches."""
        from etki.picks import module_matches, unknown_module
        from etki_tui.queue.filters import pick_token

        typed = [
            v
            for t in self.filter.text.split()
            if (p := pick_token(t))
            for f, v in [p]
            if f == "module"
        ]
        desk, pid = getattr(self.app, "desk", None), getattr(self.app, "project_id", "")
        if not typed or desk is None or not pid:
            return ""
        try:
            known = [m.id for m in desk.project(pid).modules]
        except Exception:  # noqa: BLE001 - a hint only: the store's error is said elsewhere
            return ""
        for value in typed:
            if not any(module_matches(value, mid) for mid in known):
                said = unknown_module(value, known, f"project {pid}")
                return f" {said[0].upper()}{said[1:]}{'' if said.endswith('?') else '.'}"
        return ""

    def refresh_detail(self) -> None:
        """Render the banner and the detail pane for the highlighted case (nothing
        before the pane is composed: its first fill renders them, nor while it is being
        removed)."""
        detail = part(self, CaseDetail)
        banner = part(self, "#queue-banner", Static)
        table = part(self, QueueTable)
        if detail is None or banner is None or table is None:
            return
        self.refresh_bindings()  # keys that apply to one case only (R) follow the cursor
        case = self.current_case()
        ruled = self.ruled_elsewhere.get(case.case_id) if case is not None else None
        banner.display = ruled is not None and ruled.ruling is not None
        # folded, the banner takes the peek's place (etki.tcss): the list keeps its rows
        self.set_class(banner.display, "-ruled")
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
                        f"hidden). Esc clears the filters; f changes them.{self._no_module()}",
                        style="dim",
                    )
                )
            return
        position = table.cursor_row + 1
        detail.border_title = (
            f"Case {position} of {table.row_count} · {printable(case.case_id, multiline=False)}"
        )
        held = self.others_claim(case.case_id)
        if held is not None:  # the row says @ (CLAIM_MARK); here, who
            detail.border_title += f" · claimed by {printable(held.actor, multiline=False)}"
        assigned = self.others_assignment(case.case_id)
        if held is None and assigned is not None:  # the row says > (ASSIGNED_MARK)
            detail.border_title += f" · assigned to {printable(assigned.after, multiline=False)}"
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
                        whole_clauses=self.whole_clauses,
                        archived=bool(getattr(self.app, "archived", False)),
                        claimed_by=held.actor if held is not None else None,
                        assigned_to=assigned.after if assigned is not None else None,
                    ),
                    history_section(self.histories.get(case.case_id)),
                )
            )
        elif case.case_id in self._detail_errors:
            error = printable(self._detail_errors[case.case_id], multiline=False)
            detail.show(Text(f"Could not read this case: {error}. Ctrl+R reloads.", style="dim"))
        else:
            detail.show(Text("Loading…", style="dim"))

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

    def detail_changed(self, record: CaseRecord) -> None:
        """``record`` was read again after a change that keeps its version (an
        estimate): it replaces the pane's copy, shown at once when highlighted."""
        self._remember_detail(record)
        if self.current_case_id() == record.case_id:
            self.refresh_detail()

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
