"""The Hafıza tab: wiki search with live results (matched words highlighted), precedent
and disputed cards read from the DB (they work with the wiki off), the wiki pages, and a
reader with a table of contents and back/forward history.

Left: a search box over one keyboard list with sections (search results, precedents,
disputed clauses, wiki pages, decision files). Right: the preview of the highlighted
entry — a card rendered from the DB, or the wiki page in the reader. Enter opens the
entry in the reader full-screen; Escape comes back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.events import Resize
from textual.timer import Timer
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from etki.domain import CaseRecord, DisputedClause, ScopeClause
from etki.wiki.search import query_tokens
from etki_tui.actions import ACTIONS, bindings
from etki_tui.hafiza.cards import (
    CLAUSE_TARGET,
    SHOWN,
    SHOWN_HITS,
    _header,
    card_clause_links,
    disputed_card,
    hit_fields,
    hit_prompt,
    hit_prompts,
    hit_title,
    memory_options,
    page_clause_links,
    precedent_card,
)
from etki_tui.hafiza.preview import PreviewShown
from etki_tui.hafiza.reader import PageReader, split_frontmatter
from etki_tui.hafiza.widgets import MemoryList, Preview
from etki_tui.inputs import TypingInput
from etki_tui.live import part
from etki_tui.messages import (
    ClauseWanted,
    CrExportWanted,
    CrPageWanted,
    DisputeResolveWanted,
    EstimateWanted,
    PageWanted,
    SearchChanged,
)
from etki_tui.render import (
    literal,
)

__all__ = [
    "MemoryPane",
    "disputed_card",
    "hit_fields",
    "hit_prompts",
    "precedent_card",
    "split_frontmatter",
]


SHOWN_WHILE_SEARCHING = 5
"""While search results are listed, the sections below them (precedents, disputed
clauses, decision files) list this many entries each: the list is rebuilt on every
search answer as the reviewer types, and measuring 300 unchanged entries each time
holds the keys up. Clearing the search lists
:data:`SHOWN` again."""


FIRST_OPTIONS = 60
"""Entries a list rebuild lays out at once (more when the highlighted one is further
down); the rest follow :data:`LATER_OPTIONS` at a time, one batch per refresh. OptionList
measures every entry it is given on the event loop: the memory lists' ~300 entries (100
precedents of two lines, 100 disputed clauses, 100 decision files) took 40+ ms in one
handler with the other core busy (``python -m bench.tui_blocks``, 10k ruled cases), a key
held up behind them; 60 entries are more than a 120x40 list shows."""

LATER_OPTIONS = 60
"""Entries added per refresh after the first :data:`FIRST_OPTIONS`."""


class MemoryPane(PreviewShown):
    """Hafıza: search, cards, pages and the reader."""

    BINDINGS = bindings(
        "page.open",
        "page.back",
        "page.forward",
        "page.toc",
        "page.links",
        "page.cr_document",
        "page.cr_export",
        "page.estimate",
        "dispute.resolve",
    )

    def __init__(
        self, *, cursor_blink: bool = True, preview_delay: float = 0.15, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self._cursor_blink = cursor_blink
        self.preview_delay = preview_delay
        """Seconds the highlight rests on a page entry before its preview is read and
        rendered (0: at once). New search results are shown first; the Markdown
        preview (a few hundred ms for a big page) follows when the list settles."""
        self._preview_timer: Timer | None = None
        self._pending_preview: str | None = None
        self.wanted: str | None = None
        """The page the preview belongs to: that of the highlighted entry (None for a
        card). A preview that arrives for another page is dropped, never shown."""
        self.hits: list[tuple[str, int, str]] = []
        self.hit_titles: list[str] = []
        self._prompts: tuple[int, list[Content]] | None = None
        """(width, entries) of :attr:`hits` as the search worker laid them out."""
        self.total = 0
        """How many hits (pages, clause sections) hold every word of the search (``hits``
        holds the best)."""
        self.query_text = ""
        self.search_error: str | None = None
        self.precedents: list[CaseRecord] = []
        self.disputed: list[DisputedClause] = []
        self.clauses: dict[str, ScopeClause] = {}
        self.pages: list[str] = []
        self.precedent_pages: list[str] = []
        self.top_pages: list[str] = []
        self.wiki_on = True
        self.wiki_root: Path | None = None
        self.loaded = False
        self._previewing: str | None = None
        self._card_target: tuple[str, str] | None = None  # (what, text) for copy
        self._page_waiting: tuple[str, str, str | None, str] | None = None
        """(path, text, error, history) of a page given before the pane was composed."""
        self.opened: str | None = None
        """The page opened for reading (pinned: Enter, a link, back/forward, or from
        outside Hafıza — ``D``, the palette) that the reviewer has not moved the list's
        highlight away from since. A list rebuilt meanwhile (the memory loaded when the
        tab is first shown, a search, a resize) highlights an entry without previewing
        it: the reader keeps the opened page, title and body."""
        self._placed: str | None = None
        """The entry :meth:`_rebuild` put the highlight on (its highlight event comes
        later, not from the reviewer)."""
        self._on_dispute = False
        """A disputed clause's entry is highlighted (the footer shows ``R``)."""
        self._fill = 0
        self._memory_version = 0
        """Counts memory loads (:meth:`set_memory`, :meth:`reset`): the key of
        :meth:`_memory_options`' entries."""
        self._memory_cache: tuple[tuple[int, int, int], list[Option | None]] | None = None
        """Numbers the list rebuilds: a batch of a rebuild that a newer one replaced is
        dropped (:meth:`_add_later`)."""

    def compose(self) -> ComposeResult:
        """Search box and list on the left, preview on the right."""
        with Vertical(id="memory-left"):
            search = TypingInput(
                placeholder="Search the wiki (all words)", id="memory-search", select_on_focus=False
            )
            search.cursor_blink = self._cursor_blink
            search.border_title = "Search"
            yield search
            entries = MemoryList(id="memory-list", markup=False)
            entries.border_title = "Memory"
            yield entries
        with Preview(id="memory-preview") as preview:
            preview.border_title = "Preview"
            with VerticalScroll(id="memory-cardbox", can_focus=True):
                yield Static(Text("Loading…", style="dim"), id="memory-card", markup=False)
            reader = PageReader(id="memory-reader")
            reader.display = False
            yield reader

    def on_mount(self) -> None:
        """Re-fit the reader when it is maximized or restored; draw what was given
        before the pane was composed (the lists, then the page)."""
        self.watch(self.screen, "maximized", self._maximized_changed, init=False)
        if self.loaded or self.query_text.strip():
            self._rebuild()
        if self._page_waiting is not None:
            path, text, error, history = self._page_waiting
            self._page_waiting = None
            self.call_later(self.show_page, path, text, error, history=history)

    def _maximized_changed(self, _: object) -> None:
        self.call_after_refresh(self._fit_reader)

    @property
    def reader(self) -> PageReader:
        return self.query_one(PageReader)

    @property
    def tokens(self) -> list[str]:
        """The folded words of the current search (what gets highlighted)."""
        return query_tokens(self.query_text) if self.query_text.strip() else []

    # --- data in -----------------------------------------------------------------------

    def set_hits(
        self,
        query: str,
        hits: Sequence[Any],
        error: str | None = None,
        *,
        total: int | None = None,
        prompts: tuple[int, Sequence[Content]] | None = None,
    ) -> None:
        """Show search results for ``query`` (best first; ``total`` pages match, default
        ``len(hits)``); the first hit is highlighted and the preview follows it at once
        (a card with its title and excerpt until its page is read), never staying on a
        page of the results before. ``prompts``: (width, :func:`hit_prompts`) built
        off the event loop; used while the list still has that width."""
        self.query_text = query
        self.hits = [hit_fields(h) for h in hits]
        self.hit_titles = [hit_title(h) for h in hits]
        self._prompts = (prompts[0], list(prompts[1])) if prompts is not None else None
        self.total = len(self.hits) if total is None else max(total, len(self.hits))
        self.search_error = error
        if self._previewing and self._previewing.startswith("hit:"):
            self._previewing = None  # the hit list changed: preview the new first hit
        self._rebuild(prefer="hit:0")

    def set_memory(
        self,
        precedents: Sequence[CaseRecord],
        disputed: Sequence[DisputedClause],
        clauses: Mapping[str, ScopeClause],
        pages: Sequence[str],
        wiki_on: bool,
        *,
        precedent_pages: Sequence[str] = (),
        top_pages: Sequence[str] = (),
        wiki_root: Path | None = None,
    ) -> None:
        """Show precedents, disputed clauses and wiki pages."""
        self._previewing = None  # the data behind the preview may have changed
        self.precedents = list(precedents)
        self.disputed = list(disputed)
        self.clauses = dict(clauses)
        reader = part(self, PageReader)
        if reader is not None:
            reader.clause_refs = frozenset(self.clauses)
        self.pages = list(pages)
        self.precedent_pages = list(precedent_pages)
        self.top_pages = list(top_pages)
        self.wiki_on = wiki_on
        self.wiki_root = wiki_root
        self.loaded = True
        self._memory_version += 1
        self._rebuild()

    def reset(self) -> None:
        """Forget everything (another project is being opened)."""
        self.hits, self.query_text, self.search_error = [], "", None
        self.hit_titles, self.total, self.wanted = [], 0, None
        self.precedents, self.disputed, self.pages = [], [], []
        self.precedent_pages, self.top_pages = [], []
        self.loaded = False
        self._memory_version += 1
        self._previewing = None
        self._page_waiting = None
        self.opened = self._placed = None
        self._cancel_preview()
        reader = part(self, PageReader)
        search = part(self, "#memory-search", Input)
        entries = part(self, "#memory-list", OptionList)
        if reader is None or search is None or entries is None:
            return  # nothing drawn to clear: composed empty, or being removed
        reader.clear()
        search.value = ""
        entries.clear_options()
        self.show_card(Text("Loading…", style="dim"))

    def _width(self) -> int:
        entries = self.query_one("#memory-list", OptionList)
        width = entries.scrollable_content_region.width
        return max(12, (width or 32) - 2)

    def hit_width(self) -> int:
        """Cells a search hit's entry is fitted to now (:func:`hit_prompts`); 30 before
        the list is composed."""
        return self._width() if part(self, "#memory-list", OptionList) is not None else 30

    def on_resize(self, event: Resize) -> None:
        """Re-fit the one-line entries to the new width."""
        self.call_after_refresh(self._rebuild)

    def _fit_reader(self) -> None:
        preview, reader = part(self, "#memory-preview"), part(self, PageReader)
        if preview is not None and reader is not None:  # a callback: may come late
            reader.fit_toc(preview.size.width)

    def precedent_page(self, case_id: str) -> str | None:
        """The wiki page of the precedent ``case_id``, if there is one."""
        return next((p for p in self.precedent_pages if p.endswith(f"{case_id}.md")), None)

    def _rebuild(self, prefer: str | None = None) -> None:
        entries = part(self, "#memory-list", OptionList)
        if entries is None:
            return  # kept: on_mount lists it (or nothing to list into: being removed)
        keep = entries.highlighted_option.id if entries.highlighted_option else None
        width = self._width()
        tokens = self.tokens
        options: list[Option | None] = []
        if self.query_text.strip():
            options.append(_header("Search results", self.total))
            if self.search_error:
                options.append(Option(literal(self.search_error, style="italic"), disabled=True))
            elif not self.hits:
                words = " ".join(self.query_text.split())[:300]  # the box may hide its start
                options.append(
                    Option(literal(f"  no page has all of: {words}", style="dim"), disabled=True)
                )
            shown = self.hits[:SHOWN_HITS]
            ready = self._prompts
            if ready is None or ready[0] != width or len(ready[1]) < len(shown):
                ready = (
                    width,
                    [
                        hit_prompt(
                            self.hit_titles[i] if i < len(self.hit_titles) else "",
                            path,
                            snippet,
                            tokens,
                            width,
                        )
                        for i, (path, _line, snippet) in enumerate(shown)
                    ],
                )
                self._prompts = ready
            options += [
                Option(prompt, id=f"hit:{i}") for i, prompt in enumerate(ready[1][: len(shown)])
            ]
            if self.total > len(shown):
                options.append(
                    Option(
                        Text(
                            f"  … {self.total - len(shown)} "
                            "more hits: add words to narrow the search",
                            style="dim",
                        ),
                        disabled=True,
                    )
                )
        elif not self.wiki_on:
            options.append(
                Option(
                    Text("Wiki search is off (ETKI_WIKI_DIR is empty).", style="dim"), disabled=True
                )
            )
        room = SHOWN_WHILE_SEARCHING if self.query_text.strip() else SHOWN
        options += self._memory_options(width, room)
        ids = [o.id for o in options if o is not None and o.id and not o.disabled]
        target = prefer if prefer in ids else keep if keep in ids else ids[0] if ids else None
        first = FIRST_OPTIONS
        if target is not None:  # the highlighted entry and a screenful after it, at once
            at = next(i for i, o in enumerate(options) if o is not None and o.id == target)
            first = max(first, at + FIRST_OPTIONS // 2)
        while first < len(options) and options[first] is None:
            first += 1  # a divider belongs to the entry before it
        self._fill += 1
        entries.clear_options()
        entries.add_options(options[:first])
        if first < len(options):
            self.call_after_refresh(self._add_later, self._fill, options[first:])
        self._placed = target
        if target is not None:
            entries.highlighted = entries.get_option_index(target)
        elif self.opened is None:
            self.show_card(Text("Nothing to preview yet.", style="dim"))

    def _memory_options(self, width: int, room: int) -> list[Option | None]:
        """The entries of the precedents, disputed clauses, wiki pages and decision files
        at ``width`` cells, ``room`` entries per section: built once per memory load,
        width and room, and the same :class:`Option` objects given back after. OptionList
        keeps each option's visual and measured height on the option, so a search answer
        that rebuilds the list lays out only its hits (a new Option per unchanged entry
        made ~300 visuals and heights per keystroke; ``python -m bench.tui_blocks``)."""
        key = (self._memory_version, width, room)
        if self._memory_cache is not None and self._memory_cache[0] == key:
            return self._memory_cache[1]
        decided = {
            c.case_id: (c.title, c.ruling.ruling)
            for c in getattr(self.app, "case_index", ())
            if c.ruling is not None
        }
        options = memory_options(
            self.precedents,
            self.disputed,
            self.top_pages,
            self.pages,
            self.wiki_on,
            width,
            room,
            decided,
        )
        self._memory_cache = (key, options)
        return options

    def _add_later(self, fill: int, rest: list[Option | None]) -> None:
        """Add the next :data:`LATER_OPTIONS` entries of rebuild ``fill`` (none when a
        newer rebuild replaced it, or the list is gone), the others after a refresh."""
        entries = part(self, "#memory-list", OptionList)
        if entries is None or fill != self._fill:
            return
        cut = LATER_OPTIONS
        while cut < len(rest) and rest[cut] is None:
            cut += 1
        entries.add_options(rest[:cut])
        if cut < len(rest):
            self.call_after_refresh(self._add_later, fill, rest[cut:])

    # --- preview -------------------------------------------------------------------------

    @on(OptionList.OptionHighlighted, "#memory-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        entries = event.option_list
        if entries.highlighted_option is not event.option:
            return  # stale: the list was rebuilt (a newer answer) since it was posted
        if event.option_index and all(o.disabled for o in entries.options[: event.option_index]):
            # the first entry one can highlight (Home, or Up wrapping round): the section
            # header above it is shown too, not scrolled out of sight (a trial found
            # "Precedents (8)" could not be brought back by any key)
            entries.scroll_home(animate=False)
        option_id = event.option.id or ""
        if option_id.startswith("dis:") != self._on_dispute:
            self._on_dispute = not self._on_dispute
            self.refresh_bindings()  # R in the footer on a disputed clause only
        placed, self._placed = self._placed, None
        if option_id == self._previewing:
            self._rematch()  # the same page stays: the search's words may have changed
            return
        self._previewing = option_id
        if self.opened is not None and option_id == placed:
            self._rematch()  # the list was rebuilt under an opened page: the reader keeps it
            return
        self.opened = None  # the reviewer moved the highlight: the preview follows it
        kind, _, key = option_id.partition(":")
        self._cancel_preview()
        if kind == "hit" and int(key) >= len(self.hits):
            return  # an entry of results replaced meanwhile (the check above is by identity)
        if kind in ("hit", "page"):
            path = self.hits[int(key)][0] if kind == "hit" else key
            self.wanted = path
            reader = part(self, PageReader)
            if (
                reader is None
                or path != reader.path
                or not reader.display
                or reader.tokens != self.tokens
            ):
                self.show_card(self._loading_card(kind, key, path))  # never a stale page
                if self.preview_delay <= 0:
                    self.post_message(PageWanted(path, history="replace"))
                else:
                    self._pending_preview = path
                    self._preview_timer = self.set_timer(self.preview_delay, self.flush_preview)
            return
        self.wanted = None
        if kind == "pre":
            case = next((c for c in self.precedents if c.case_id == key), None)
            if case is not None:
                self.show_card(precedent_card(case, self.clauses), ("case id", case.case_id))
        elif kind == "dis":
            item = next((d for d in self.disputed if d.ref == key), None)
            if item is not None:
                self.show_card(disputed_card(item, self.clauses), ("clause ref", item.ref))

    def _rematch(self) -> None:
        """Lay the page the reader shows out again when it marks other words than the
        search's now (none once the search is cleared), so its matches and the history
        line's count follow the search (issue 34, a trial: cleared, the search left "277
        matches" over the page it had previewed). In place, at the same scroll position
        and in the same generation (:meth:`show_page`'s ``refresh``): a page or card
        asked for meanwhile wins."""
        reader = part(self, PageReader)
        if reader is None or not reader.display or reader.path is None:
            return
        if reader.tokens == self.tokens:
            return
        self.run_worker(
            self.show_page(
                reader.path,
                reader.text,
                history="refresh",
                generation=self.preview_generation,
            ),
            group="memory-show",
            exclusive=True,
            exit_on_error=False,
        )

    def _cancel_preview(self) -> None:
        if self._preview_timer is not None:
            self._preview_timer.stop()
            self._preview_timer = None
        self._pending_preview = None

    def flush_preview(self) -> bool:
        """Ask for the pending preview now (the timer's job; tests call it instead of
        waiting). False when none is pending."""
        path = self._pending_preview
        self._cancel_preview()
        if path is None:
            return False
        self.post_message(PageWanted(path, history="replace"))
        return True

    @on(OptionList.OptionSelected, "#memory-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.open_option(event.option.id or "")

    def open_option(self, option_id: str) -> None:
        """Open an entry in the reader, full-screen."""
        kind, _, key = option_id.partition(":")
        path: str | None = None
        if kind == "hit":
            path = self.hits[int(key)][0]
        elif kind == "page":
            path = key
        elif kind == "pre":
            path = self.precedent_page(key)
            if path is None:
                self.app.notify(
                    "This precedent has no wiki page (the wiki is off or not "
                    "rebuilt yet); the card shows everything from the DB.",
                    markup=False,
                    timeout=5,
                )
                return
        elif kind == "dis":
            path = "disputed.md" if "disputed.md" in self.top_pages else None
            if path is None:
                self.app.notify(
                    "No disputed.md in the wiki; the card shows the history from the DB.",
                    markup=False,
                    timeout=5,
                )
                return
        if path is None:
            return
        self.open_page(path)

    def open_page(self, path: str) -> None:
        """Open ``path`` in the reader (pinned in its history) and read full-screen; a
        clause section (``path#anchor``, a search hit, previewed alone) opens its whole
        contract page at the clause."""
        self._cancel_preview()
        reader = self.reader
        self.wanted = path
        if reader.display and reader.path == path and not reader.cut_short and "#" not in path:
            reader.history.visit(path, pin=True)
            reader._show_bar()
            reader.show_meta()  # the preview left it out; the opened page has it
        else:
            self.post_message(PageWanted(path, history="push"))
        self.maximize_reader()

    def maximize_reader(self) -> None:
        """Read the preview full-screen, the page focused (nothing while the pane is
        being removed: a palette jump's page can arrive as the desk closes)."""
        preview, scroll = part(self, "#memory-preview"), part(self, "#reader-scroll")
        if preview is None or scroll is None:
            return
        if self.screen.maximized is not preview:
            self.screen.maximize(preview, container=False)
        scroll.focus()

    @on(Input.Changed, "#memory-search")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._pending_preview is not None:
            # its page was never asked for: the next list's highlight asks again, even
            # on the same entry (else the preview kept "Loading the page…" for ever:
            # a trial on tdrs, typing past a no-hit list onto index.md)
            self._previewing = None
        self._cancel_preview()  # no preview of results the reviewer is typing past
        self.post_message(SearchChanged(event.value))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``R`` (resolve) is in the footer only where it acts: a disputed clause's entry
        highlighted, on a seat that may resolve (not a read-only desk, not an archived
        project). Elsewhere :meth:`on_key` still takes it and says why nothing opens."""
        if action == "resolve_dispute":
            app = self.app
            if getattr(app, "read_only", False) or getattr(app, "archived", False):
                return False
            return self.highlighted_dispute() is not None
        return True

    def on_key(self, event) -> None:  # noqa: ANN001
        """In the search box: Escape goes back to the list (the text stays); Down and Up
        go to the list and move its highlight one entry (the preview follows), as a
        results list under a search box does. Elsewhere ``R`` asks to resolve the
        highlighted disputed clause also where the footer leaves it out
        (:meth:`check_action`): the reply says why nothing opens."""
        search, entries = part(self, "#memory-search"), part(self, "#memory-list", OptionList)
        if search is None or entries is None:
            return
        if self.screen.focused is not search:
            if event.key in ACTIONS["dispute.resolve"].keys(getattr(self.app, "keymap", None)):
                event.stop()
                self.action_resolve_dispute()
            return
        if event.key in ("escape", "down", "up"):
            event.stop()
            event.prevent_default()
            entries.focus()
            if event.key == "down":
                entries.action_cursor_down()
            elif event.key == "up":
                entries.action_cursor_up()

    @on(Input.Submitted, "#memory-search")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(SearchChanged(event.value, immediate=True))
        self.query_one("#memory-list", OptionList).focus()

    # --- actions ----------------------------------------------------------------------------

    def action_open_entry(self) -> None:
        """Open the highlighted entry, or toggle full-screen reading in the reader."""
        preview = self.query_one("#memory-preview")
        if self.screen.maximized is preview:
            self.screen.minimize()
            self.query_one("#memory-list").focus()
            return
        entries = self.query_one("#memory-list", OptionList)
        option = entries.highlighted_option
        if option is not None and option.id:
            self.open_option(option.id)

    def highlighted_dispute(self) -> DisputedClause | None:
        """The disputed clause whose entry is highlighted, None on any other entry."""
        entries = part(self, "#memory-list", OptionList)
        option = entries.highlighted_option if entries is not None else None
        kind, _, key = (option.id or "").partition(":") if option is not None else ("", "", "")
        if kind != "dis":
            return None
        return next((d for d in self.disputed if d.ref == key), None)

    def action_resolve_dispute(self) -> None:
        """Ask for the resolution form of the highlighted disputed clause (the app checks
        the seat and opens it)."""
        item = self.highlighted_dispute()
        if item is None:
            self.app.notify(
                "Highlight a disputed clause (Disputed clauses, in the list) to resolve it.",
                markup=False,
                timeout=4,
            )
            return
        clause = self.clauses.get(item.ref)
        title = f"{clause.number} {clause.title}" if clause is not None else ""
        self.post_message(DisputeResolveWanted(item, title))

    def action_page_back(self) -> None:
        """Previous page in the reader's history."""
        if not self.reader.back():
            self.app.notify("Nothing further back.", markup=False, timeout=2)

    def action_page_forward(self) -> None:
        """Next page in the reader's history."""
        if not self.reader.forward():
            self.app.notify("Nothing further forward.", markup=False, timeout=2)

    def action_toggle_toc(self) -> None:
        """Show or hide the reader's table of contents."""
        self.reader.toggle_toc()

    def action_estimate(self) -> None:
        """``E``: ask for the estimate form of the case whose page the preview shows, else
        of the highlighted entry's case (as :meth:`action_cr_document` chooses it)."""
        case_id, page = self._shown_case()
        self.post_message(
            EstimateWanted(
                case_id,
                page=page,
                otherwise="E estimates a case: show its decision page (or its entry) first, "
                "or highlight it in the queue.",
            )
        )

    def _shown_case(self) -> tuple[str | None, str | None]:
        """(case id, page) of what the pane shows: the reader's page, else the
        highlighted entry (a precedent gives its case id, a hit or page its path)."""
        reader = part(self, PageReader)
        entries = part(self, "#memory-list", OptionList)
        page: str | None = None
        if reader is not None and reader.display and reader.path is not None:
            page = reader.path
        option = entries.highlighted_option if entries is not None else None
        kind, _, key = (option.id or "").partition(":") if option is not None else ("", "", "")
        if page is None and kind == "pre":
            return key, None
        if page is None and kind in ("hit", "page"):
            page = self.hits[int(key)][0] if kind == "hit" else key
        return None, page

    def action_cr_document(self, export: bool = False) -> None:
        """Ask for the change-request document of the case whose page the preview shows
        (a decision page of a case ruled CR, say), else of the highlighted entry's case
        (a precedent); the app opens it (with ``export``, ``X``: asks where to write
        the client-facing one), or the change request this desk converted last, or says why
        there is none."""
        wanted = CrExportWanted if export else CrPageWanted
        key_name = "X writes" if export else "D opens"
        case_id, page = self._shown_case()
        if case_id is not None:
            self.post_message(wanted(case_id))
            return
        self.post_message(
            wanted(
                page=page,
                otherwise=f"{key_name} the change request of a case ruled CR: show its "
                "decision page (or its entry) first.",
            )
        )

    def action_page_links(self) -> None:
        """Choose one of the page's wiki links (or, on a precedent's or a disputed
        clause's card, one of its clauses) and follow it; a clause opens the whole
        contract at it (:class:`ClauseWanted`, the app opens it)."""
        from etki_tui.screens.links import LinksScreen

        reader = self.reader
        entries = part(self, "#memory-list", OptionList)
        option = entries.highlighted_option if entries is not None else None
        links = (
            page_clause_links(reader.links(), reader.path, self.clauses)
            if reader.display
            else card_clause_links(option.id if option else None, self.precedents, self.clauses)
        )
        if not links:
            self.app.notify(
                "No wiki links on this page (open a page first: Enter).", markup=False, timeout=3
            )
            return

        def chosen(path: str | None) -> None:
            if path is not None and path.startswith(CLAUSE_TARGET):
                self.post_message(ClauseWanted(path.removeprefix(CLAUSE_TARGET)))
            elif path is not None:
                self.post_message(PageWanted(path, history="push"))

        details = [
            f"{t.removeprefix(CLAUSE_TARGET)} in the whole contract"
            if t.startswith(CLAUSE_TARGET)
            else t
            for _, t in links
        ]
        self.app.push_screen(LinksScreen(links, details=details), chosen)
