"""The Hafıza tab: wiki search with live results, precedent and disputed cards read from
the DB (they work with the wiki off), and the decision-file list with a markdown preview.

Left: a search box over one keyboard list with four sections (search results,
precedents, disputed clauses, decision files). Right: the preview of the highlighted
entry — a card rendered from the DB, or the wiki page as markdown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Markdown, OptionList, Static
from textual.widgets.option_list import Option

from etki.domain import CaseRecord, ScopeClause
from etki.memory import DisputedClause
from etki.text import printable
from etki_tui.render import cell, literal, verdict_text, when


def hit_fields(hit: Any) -> tuple[str, int, str]:
    """(path, line, snippet) of a search hit (an object with those attributes or a
    tuple in that order)."""
    if isinstance(hit, tuple | list):
        path, line, snippet = (list(hit) + ["", 0, ""])[:3]
    else:
        path = getattr(hit, "path", "")
        line = getattr(hit, "line", 0)
        snippet = getattr(hit, "snippet", "")
    return str(path), int(line or 0), str(snippet)


def split_frontmatter(text: str) -> tuple[str, str]:
    """(frontmatter, body) of a wiki page: the YAML block between a first line ``---``
    and the next ``---`` line, and the rest. No YAML parsing: the block is shown as it
    is written (a hand-edited page that would not parse still shows)."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    if not text.startswith("---\n"):
        return "", text
    end = text.find("\n---\n", 3)
    if end < 0:
        return "", text
    return text[4:end], text[end + 5:]


def precedent_card(case: CaseRecord, clauses: Mapping[str, ScopeClause]) -> RenderableType:
    """A precedent (an overridden case) as read from the DB."""
    assert case.ruling is not None
    r = case.ruling
    head = Text()
    head.append(" PRECEDENT ", style="bold reverse")
    head.append(" ")
    head.append_text(cell(case.case_id, style="bold"))
    lines: list[RenderableType] = [head, literal(case.title, style="bold")]
    change = Text("Engine ")
    change.append_text(verdict_text(r.verdict))
    change.append("  →  ruled ")
    change.append_text(verdict_text(r.ruling, bold=True))
    lines.append(change)
    by = Text("By ")
    by.append(printable(r.reviewer, multiline=False))
    by.append(f" on {when(r.ruled_at)}")
    lines.append(by)
    lines.append(Text("Reason", style="bold underline"))
    lines.append(literal(r.reason or "(none)"))
    lines.append(Text("Cited clauses", style="bold underline"))
    for ref in case.decision.cited_clauses:
        clause = clauses.get(ref)
        line = Text("  ")
        line.append(printable(ref, multiline=False), style="bold")
        if clause is not None:
            line.append(" ")
            line.append(printable(clause.title, multiline=False))
        lines.append(line)
    return Group(*lines)


def disputed_card(item: DisputedClause, clauses: Mapping[str, ScopeClause]) -> RenderableType:
    """A disputed clause and its ruling history, as read from the DB."""
    head = Text()
    head.append("⚠ DISPUTED", style="bold reverse yellow")
    head.append(" ")
    head.append(printable(item.ref, multiline=False), style="bold")
    lines: list[RenderableType] = [head]
    clause = clauses.get(item.ref)
    if clause is not None:
        lines.append(literal(f"{clause.number} {clause.title} [{clause.kind}]", style="bold"))
    lines.append(Text("Rulings disagree: " + " / ".join(item.rulings)))
    lines.append(Text("History (oldest first)", style="bold underline"))
    for case_id, ruling, reviewer, ruled_at in item.history:
        line = Text("  ")
        line.append(f"{when(ruled_at)}  ")
        line.append_text(verdict_text(ruling))
        line.append("  ")
        line.append(printable(reviewer, multiline=False))
        line.append("  ")
        line.append(printable(case_id, multiline=False), style="dim")
        lines.append(line)
    if clause is not None:
        lines.append(Text("Clause text", style="bold underline"))
        lines.append(literal(clause.text.strip()))
    return Group(*lines)


def _header(title: str, count: int | None = None) -> Option:
    label = title if count is None else f"{title} ({count})"
    return Option(Text(label, style="bold underline"), disabled=True)


class MemoryPane(Horizontal):
    """Hafıza: search, cards and decision files."""

    class SearchChanged(Message):
        """The search text changed (the app debounces and searches in a worker)."""

        def __init__(self, query: str, immediate: bool = False) -> None:
            super().__init__()
            self.query = query
            self.immediate = immediate

    class PageWanted(Message):
        """The highlighted entry is a wiki page: the app loads it in a worker."""

        def __init__(self, path: str) -> None:
            super().__init__()
            self.path = path

    def __init__(self, *, cursor_blink: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self._cursor_blink = cursor_blink
        self.hits: list[tuple[str, int, str]] = []
        self.query_text = ""
        self.search_error: str | None = None
        self.precedents: list[CaseRecord] = []
        self.disputed: list[DisputedClause] = []
        self.clauses: dict[str, ScopeClause] = {}
        self.pages: list[str] = []
        self.wiki_on = True
        self.loaded = False
        self._page_path: str | None = None
        self._previewing: str | None = None

    def compose(self) -> ComposeResult:
        """Search box and list on the left, preview on the right."""
        with Vertical(id="memory-left"):
            search = Input(placeholder="Search the wiki (all words)", id="memory-search",
                           select_on_focus=False)
            search.cursor_blink = self._cursor_blink
            search.border_title = "Search"
            yield search
            entries = OptionList(id="memory-list", markup=False)
            entries.border_title = "Memory"
            yield entries
        with VerticalScroll(id="memory-preview", can_focus=True) as preview:
            preview.border_title = "Preview"
            yield Static(Text("Loading…", style="dim"), id="memory-card", markup=False)
            yield Markdown("", id="memory-page", open_links=False)
            yield Static("", id="memory-meta", markup=False)

    # --- data in -----------------------------------------------------------------------

    def set_hits(self, query: str, hits: Sequence[Any], error: str | None = None) -> None:
        """Show search results for ``query``; the first hit is highlighted."""
        self.query_text = query
        self.hits = [hit_fields(h) for h in hits]
        self.search_error = error
        self._rebuild(prefer="hit:0")

    def set_memory(self, precedents: Sequence[CaseRecord], disputed: Sequence[DisputedClause],
                   clauses: Mapping[str, ScopeClause], pages: Sequence[str],
                   wiki_on: bool) -> None:
        """Show precedents, disputed clauses and decision files."""
        self._previewing = None  # the data behind the preview may have changed
        self._page_path = None
        self.precedents = list(precedents)
        self.disputed = list(disputed)
        self.clauses = dict(clauses)
        self.pages = list(pages)
        self.wiki_on = wiki_on
        self.loaded = True
        self._rebuild()

    def _width(self) -> int:
        entries = self.query_one("#memory-list", OptionList)
        width = entries.scrollable_content_region.width
        return max(12, (width or 32) - 2)

    def on_resize(self) -> None:
        """Re-fit the one-line entries to the new width."""
        self.call_after_refresh(self._rebuild)

    def _rebuild(self, prefer: str | None = None) -> None:
        entries = self.query_one("#memory-list", OptionList)
        keep = entries.highlighted_option.id if entries.highlighted_option else None
        width = self._width()
        options: list[Option | None] = []
        if self.query_text.strip():
            options.append(_header("Search results", len(self.hits)))
            if self.search_error:
                options.append(Option(literal(self.search_error, style="italic"),
                                      disabled=True))
            elif not self.hits:
                options.append(Option(Text("  no page has all these words", style="dim"),
                                      disabled=True))
            for i, (path, line, snippet) in enumerate(self.hits):
                where = f":{line}"
                prompt = Text()
                prompt.append_text(cell(path, width - len(where), style="bold"))
                prompt.append(where, style="bold")
                prompt.append("\n  ")
                prompt.append_text(cell(snippet.strip(), width - 2, style="dim"))
                options.append(Option(prompt, id=f"hit:{i}"))
        elif not self.wiki_on:
            options.append(Option(Text("Wiki search is off (ETKI_WIKI_DIR is empty).",
                                       style="dim"), disabled=True))
        options.append(_header("Precedents", len(self.precedents)))
        if not self.precedents:
            options.append(Option(Text("  no overrides yet", style="dim"), disabled=True))
        for case in self.precedents:
            assert case.ruling is not None
            ruling = verdict_text(case.ruling.ruling)
            prompt = Text()
            prompt.append_text(cell(case.case_id, width - ruling.cell_len - 1))
            prompt.append(" ")
            prompt.append_text(ruling)
            prompt.append("\n  ")
            prompt.append_text(cell(case.title, width - 2))
            options.append(Option(prompt, id=f"pre:{case.case_id}"))
        options.append(_header("Disputed clauses", len(self.disputed)))
        if not self.disputed:
            options.append(Option(Text("  none", style="dim"), disabled=True))
        for item in self.disputed:
            prompt = Text()
            prompt.append("⚠ DISPUTED ", style="bold")
            prompt.append_text(cell(item.ref, width - prompt.cell_len))
            options.append(Option(prompt, id=f"dis:{item.ref}"))
        options.append(_header("Decision files", len(self.pages)))
        if not self.pages:
            hint = "  none yet" if self.wiki_on else "  wiki off"
            options.append(Option(Text(hint, style="dim"), disabled=True))
        for path in self.pages:
            options.append(Option(cell(path.removeprefix("decisions/"), width),
                                  id=f"page:{path}"))
        entries.clear_options()
        entries.add_options(options)
        ids = [o.id for o in entries.options if o.id and not o.disabled]
        if prefer in ids:
            entries.highlighted = entries.get_option_index(prefer)  # type: ignore[arg-type]
        elif keep in ids:
            entries.highlighted = entries.get_option_index(keep)  # type: ignore[arg-type]
        elif ids:
            entries.highlighted = entries.get_option_index(ids[0])
        else:
            self.show_card(Text("Nothing to preview yet.", style="dim"))

    # --- preview -------------------------------------------------------------------------

    def show_card(self, renderable: RenderableType) -> None:
        """Show a card from the DB in the preview."""
        self._page_path = None
        self.query_one("#memory-page", Markdown).display = False
        self.query_one("#memory-meta", Static).display = False
        card = self.query_one("#memory-card", Static)
        card.display = True
        card.update(renderable)
        self.query_one("#memory-preview").border_title = "Preview"
        self.query_one("#memory-preview", VerticalScroll).scroll_home(animate=False)

    def show_page(self, path: str, text: str, error: str | None = None) -> None:
        """Show a wiki page as markdown (client text made terminal-safe first)."""
        if error is not None:
            self.show_card(literal(error, style="italic"))
            return
        self._page_path = path
        meta, body = split_frontmatter(text)
        self.query_one("#memory-card", Static).display = False
        shown = self.query_one("#memory-meta", Static)
        shown.display = bool(meta)
        shown.update(Group(Text("Page metadata", style="bold underline"),
                           literal(meta, style="dim")))
        page = self.query_one("#memory-page", Markdown)
        page.display = True
        page.update(printable(body, multiline=True))
        self.query_one("#memory-preview").border_title = printable(path, multiline=False)
        self.query_one("#memory-preview", VerticalScroll).scroll_home(animate=False)

    @on(OptionList.OptionHighlighted, "#memory-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        option_id = event.option.id or ""
        if option_id == self._previewing and not option_id.startswith("hit:"):
            return
        self._previewing = option_id
        kind, _, key = option_id.partition(":")
        if kind in ("hit", "page"):
            path = self.hits[int(key)][0] if kind == "hit" else key
            if path != self._page_path:  # the same page stays; no reload per keystroke
                self.post_message(self.PageWanted(path))
        elif kind == "pre":
            case = next((c for c in self.precedents if c.case_id == key), None)
            if case is not None:
                self.show_card(precedent_card(case, self.clauses))
        elif kind == "dis":
            item = next((d for d in self.disputed if d.ref == key), None)
            if item is not None:
                self.show_card(disputed_card(item, self.clauses))

    @on(Input.Changed, "#memory-search")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.SearchChanged(event.value))

    @on(Input.Submitted, "#memory-search")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.SearchChanged(event.value, immediate=True))
        self.query_one("#memory-list", OptionList).focus()
