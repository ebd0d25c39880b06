"""The Hafıza flow: the wiki search, the memory lists and the pages they open."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.message import Message
from textual.widgets import Input
from textual.worker import get_current_worker

from etki.errors import NotFoundError
from etki.wiki.paths import is_case_page
from etki_tui.errors import advice, one_line
from etki_tui.flows.base import could_not_load
from etki_tui.flows.queue_feed import QueueFeedFlow
from etki_tui.hafiza.cards import SHOWN_HITS, hit_prompts
from etki_tui.hafiza.pane import MemoryPane
from etki_tui.heap import collector_paused, keep_loaded
from etki_tui.live import part
from etki_tui.messages import (
    ClauseWanted,
    CrPageWanted,
    DeskFailed,
    MemoryLoaded,
    PageLoaded,
    PageWanted,
    SearchChanged,
    SearchResults,
)
from etki_tui.render import when
from etki_tui.workers import desk_worker

if TYPE_CHECKING:
    from etki.services import Desk


def _search_failed(
    exc: Exception, project_id: str, query: str, seq: int, _width: int
) -> SearchResults | None:
    """:meth:`EtkiApp.search_wiki`'s ``failed``: the error in the hit list, unless a
    newer search cancelled this one (then nothing)."""
    if get_current_worker().is_cancelled:
        return None
    return SearchResults(
        query,
        [],
        project_id=project_id,
        seq=seq,
        error=f"search failed: {one_line(exc)}. {advice(exc)}",
    )


def read_address(
    desk: Desk, project_id: str, address: str, history: str, seq: int = 0
) -> PageLoaded:
    """The :class:`PageLoaded` of a wiki page, or of a search hit's clause section
    (``path#anchor``, issue 33): previewed (``replace``, ``refresh``) it is the section
    alone under its address (small, so the preview holds it whole and counts its
    matches); opened, it is the whole contract page with ``anchor`` set, so the reader
    lands on the clause. Raises ``NotFoundError`` for a missing page or section."""
    from etki.wiki.sections import find_section, split_address

    rel, anchor = split_address(address)
    text = desk.read_page(project_id, rel)
    if not anchor:
        return PageLoaded(address, text, history=history, project_id=project_id, seq=seq)
    section = find_section(rel, text, anchor)
    if section is None:
        raise NotFoundError(f"no clause section '{anchor}' on {rel}")
    if history in ("replace", "refresh"):
        return PageLoaded(address, section.text, history=history, project_id=project_id, seq=seq)
    return PageLoaded(
        rel, text, history=history, project_id=project_id, seq=seq, anchor=section.anchor
    )


class HafizaFlow(QueueFeedFlow):
    """The Hafıza flow: the wiki search, the memory lists and the pages they open."""

    def _warm_search(self, project_id: str, _answer: Message) -> None:
        """After a projection answered: re-read the pages it wrote into the search
        index, off the keys (the next keystroke finds the index warm)."""
        self.desk.warm_wiki_search(project_id)

    @desk_worker("search", failed=_search_failed)
    def search_wiki(
        self, project_id: str, query: str, seq: int, width: int
    ) -> SearchResults | None:
        """Search the wiki for ``query`` (the ranked top entries of the FTS5 index,
        :meth:`Desk.wiki_top`) and lay out their list entries ``width`` cells wide (off
        the event loop: :func:`hit_prompts`). Exclusive: the next keystroke's search
        cancels this one, which then stops at its next poll (SQLite's progress handler,
        a lock wait) and posts nothing; ``seq`` numbers it, so an older answer is never
        shown."""
        worker = get_current_worker()
        found = self.desk.wiki_top(
            project_id, query, limit=SHOWN_HITS, cancelled=lambda: worker.is_cancelled
        )
        if found is None:
            return None
        prompts = (width, hit_prompts(query, found.hits, width))
        if worker.is_cancelled:
            return None
        return SearchResults(
            query, found.hits, project_id=project_id, total=found.total, seq=seq, prompts=prompts
        )

    @desk_worker("memory", coalesce=True, failed=could_not_load("Hafıza"))
    def load_memory(self, project_id: str) -> MemoryLoaded:
        """Read precedents and disputed clauses (DB) and the page lists (wiki)."""
        with collector_paused():  # kept until the next load: frozen once in place
            project = self.desk.project(project_id)
            precedents = self.desk.precedents(project_id)
            disputed = self.desk.disputed(project_id)
            pages = self.desk.wiki_pages(project_id)
            precedent_pages = self.desk.wiki_pages(project_id, "precedents")
            root_pages = self.desk.wiki_pages(project_id, ".")
        top: list[str] = [p for p in ("index.md", "disputed.md") if p in root_pages]
        return MemoryLoaded(
            precedents,
            disputed,
            {c.ref: c for c in project.clauses},
            pages,
            self.desk.wiki_root(project_id) is not None,
            project_id=project_id,
            precedent_pages=precedent_pages,
            top_pages=top,
        )

    @desk_worker(
        "page",
        failed=lambda exc, project_id, path, history="replace", seq=0: PageLoaded(
            path, "", error=one_line(exc), history=history, project_id=project_id, seq=seq
        ),
    )
    def load_page(
        self, project_id: str, path: str, history: str = "replace", seq: int = 0
    ) -> PageLoaded:
        """Read one wiki page (or a clause section, ``path#anchor``: :func:`read_address`)."""
        return read_address(self.desk, project_id, path, history, seq)

    @desk_worker("page-refresh")
    def refresh_page(self, project_id: str, path: str) -> PageLoaded:
        """Read the page Hafıza shows again after the wiki changed (another process
        ruled a case: ``index.md``'s counts, a decision page); the pane lays it out
        again only if its text differs (:meth:`MemoryPane.show_page_soon`). A page that
        cannot be read now posts nothing: the lists, just reloaded, say what is there."""
        return read_address(self.desk, project_id, path, "refresh")

    def _reveal_page(self, _project_id: str, answer: Message) -> None:
        """After :meth:`open_case_page` read a decision page (not after the notice that
        there is none): show it in Hafıza's reader."""
        if isinstance(answer, PageLoaded):
            self.call_from_thread(self._reveal_reader)

    @desk_worker("page", failed=could_not_load("the decision page"), then=_reveal_page)
    def open_case_page(self, project_id: str, case_id: str) -> PageLoaded | DeskFailed:
        """Find and read the decision page of a ruled case (palette jump)."""
        pages = self.desk.wiki_pages(project_id)
        path = next((p for p in pages if p.endswith(f"{case_id}.md")), None)
        if path is None:
            case = self.desk.case(case_id)
            r = case.ruling
            what = (
                f"{case_id} was ruled {r.ruling} by {r.reviewer} at {when(r.ruled_at)}"
                if r is not None
                else f"{case_id} is pending"
            )
            return DeskFailed(
                "its decision page",
                f"{what}; it has no decision page",
                "The wiki may be off or not rebuilt: `python -m etki.wiki rebuild`.",
            )
        return PageLoaded(
            path, self.desk.read_page(project_id, path), history="push", project_id=project_id
        )

    @desk_worker("page", failed=could_not_load("the change-request document"), then=_reveal_page)
    def open_cr_page(self, project_id: str, case_id: str) -> PageLoaded | DeskFailed:
        """Read the change-request page of a case ruled CHANGE_REQUEST (``D``) for
        Hafıza's reader."""
        from etki.wiki.paths import cr_path, has_cr_page

        case = self.desk.case(case_id)
        what = "its change-request document"
        if not has_cr_page(case):
            state = "pending" if case.ruling is None else f"ruled {case.ruling.ruling}"
            return DeskFailed(what, f"{case_id} is {state}, not CHANGE_REQUEST")
        export = f"`etki cr export {case_id} --format md|html` writes it from the database."
        if self.desk.wiki_root(project_id) is None:
            return DeskFailed(what, "the wiki is off (ETKI_WIKI_DIR is empty)", export)
        path = cr_path(case)
        try:
            text = self.desk.read_page(project_id, path)
        except NotFoundError:
            return DeskFailed(
                what,
                f"{path} is not in the wiki yet",
                "`python -m etki.wiki rebuild` writes it; " + export,
            )
        return PageLoaded(path, text, history="push", project_id=project_id)

    @on(SearchResults)
    def _search_results(self, message: SearchResults) -> None:
        if message.project_id and message.project_id != self.project_id:
            return
        if message.seq and message.seq != self._search_seq:
            return  # an older search answered late: a newer query's results stand
        pane = self.desk_part(MemoryPane, message)
        box = self.desk_part("#memory-search", message, Input)
        if pane is not None and box is not None and message.query == box.value:
            pane.set_hits(
                message.query,
                message.hits,
                message.error,
                total=message.total,
                prompts=message.prompts,
            )

    @on(MemoryLoaded)
    def _memory_loaded(self, message: MemoryLoaded) -> None:
        if message.project_id and message.project_id != self.project_id:
            return
        pane = self.desk_part(MemoryPane, message)
        if pane is None:
            self._stale.add("hafiza")  # read again when a Hafıza is shown
            return
        pane.set_memory(
            message.precedents,
            message.disputed,
            message.clauses,
            message.pages,
            message.wiki_on,
            precedent_pages=message.precedent_pages,
            top_pages=message.top_pages,
            wiki_root=self.desk.wiki_root(self.project_id),
        )
        shown = pane.shown_page()
        if shown is not None:  # the wiki may have changed under it: read it again
            self.refresh_page(shown)
        keep_loaded()

    @on(PageLoaded)
    def _page_loaded(self, message: PageLoaded) -> None:
        if message.project_id and message.project_id != self.project_id:
            return
        if message.seq and message.seq != self._page_seq:
            return  # a newer page was asked for: this one would be stale
        pane = self.desk_part(MemoryPane, message)
        if pane is not None:
            # laid out in the pane's own worker: keys never wait for a page's markdown
            pane.show_page_soon(
                message.path,
                message.text,
                message.error,
                history=message.history,
                anchor=message.anchor,
            )

    @on(SearchChanged)
    def _search_changed(self, message: SearchChanged) -> None:
        if self._search_timer is not None:
            self._search_timer.stop()
            self._search_timer = None
        self._pending_search = None
        query = message.query
        if not query.strip():
            self.workers.cancel_group(self, "search")
            self._search_seq += 1  # an answer still on its way is for an older query
            pane = self.desk_part(MemoryPane, message)
            if pane is not None:
                pane.set_hits("", [])
            return
        if message.immediate or self.search_delay <= 0:
            self._search_now(query)
        else:
            self._pending_search = query
            self._search_timer = self.set_timer(self.search_delay, self.flush_search)

    def flush_search(self) -> bool:
        """Run the debounced search now (the timer's job; tests call it instead of
        waiting). False when no search is pending."""
        if self._search_timer is not None:
            self._search_timer.stop()
            self._search_timer = None
        query, self._pending_search = self._pending_search, None
        if not query:
            return False
        self._search_now(query)
        return True

    def _search_now(self, query: str) -> None:
        """Search at once in the exclusive ``search`` worker: starting it cancels the
        one running (it stops at its next poll and posts nothing), and only the newest
        search's answer is shown (``_search_seq``). Keys never wait for a search."""
        self._search_seq += 1
        pane = part(self, MemoryPane)
        self.search_wiki(query, self._search_seq, pane.hit_width() if pane else 30)

    @on(CrPageWanted)
    def _cr_page_wanted(self, message: CrPageWanted) -> None:
        message.stop()
        case_id = self.cr_case_of(message.case_id, message.page, message.otherwise, "D opens")
        if case_id is not None:
            self.open_cr_page(case_id)

    def cr_case_of(
        self, case_id: str | None, page: str | None, otherwise: str, verb: str
    ) -> str | None:
        """The case whose change request ``D`` or ``X`` (``verb``: ``D opens``, ``X
        writes``) is for: ``case_id``, else the case of the wiki ``page`` shown, else
        the one this desk converted last (a notice says so); None after a notice of
        ``otherwise`` when there is none."""
        if case_id is None and page is not None:
            case_id = next(
                (c.case_id for c in self.case_index if is_case_page(page, c.case_id)),
                None,
            )
        if case_id is None and self.last_converted is not None:
            case_id = self.last_converted
            self.notify(
                f"{verb} {case_id}, the change request this desk converted last.",
                markup=False,
                timeout=5,
            )
        if case_id is None:
            self.notify(otherwise or "No change request to open.", markup=False, timeout=5)
        return case_id

    @on(ClauseWanted)
    def _clause_wanted(self, message: ClauseWanted) -> None:
        """A clause link was followed in Hafıza: the whole contract, at the clause."""
        from etki_tui.screens.contract import ContractScreen

        pane = part(self, MemoryPane)
        if pane is not None and message.ref in pane.clauses:
            self.push_screen(ContractScreen(dict(pane.clauses), message.ref))

    @on(PageWanted)
    def _page_wanted(self, message: PageWanted) -> None:
        self._page_seq += 1
        self.load_page(message.path, message.history, self._page_seq)

    def _reveal_reader(self) -> None:
        pane = self.desk_part(MemoryPane, "a palette jump to a decision page")
        if pane is None:  # called from the page thread: the desk may be closing
            return
        self.action_show_tab("hafiza")
        pane.maximize_reader()
