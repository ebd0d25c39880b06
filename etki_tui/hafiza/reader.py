"""The Hafıza reader: one wiki page as markdown, with a table of contents and
back/forward history (frogmouth's model), and the search words highlighted.

Pages are read through the desk (``Desk.read_page``, in a worker; the reader never opens
files itself), made terminal-safe with :func:`etki.text.printable`, and links between
wiki pages are followed inside the wiki only (never a browser, never a path outside it).
A long contract page opened is read whole, shown as pre-rendered lines
(:mod:`etki_tui.hafiza.linepage`: one widget, not hundreds of Markdown blocks); opened at
a clause it is covered until the clause's heading stands on the first row (no jump from
the top). Any
other page body longer than :data:`PAGE_TEXT_CHARS` is shown up to there, with a line
saying how much is left out and how to print it all (a decision page holds the request's
text, which may be megabytes for a case stored before the request cap existed).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from functools import partial
from urllib.parse import unquote

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.css.query import NoMatches
from textual.widget import Widget
from textual.widgets import Markdown, Static, Tree
from textual.widgets.markdown import MarkdownBlock, MarkdownTableOfContents

from etki.text import printable
from etki.wiki.paths import page_kind
from etki.wiki.sections import find_section
from etki_tui.hafiza.contents import PageContents
from etki_tui.hafiza.frontmatter import FrontmatterLines, split_frontmatter
from etki_tui.hafiza.linepage import LinePage, RenderedPage, shown_as_lines
from etki_tui.hafiza.pagelinks import (
    clause_anchors,
    page_links,
    resolve_link,
    short_link_labels,
)
from etki_tui.hafiza.readermd import MarkedFence, ReaderMarkdown, heading_block
from etki_tui.history import History
from etki_tui.live import part
from etki_tui.messages import ClauseWanted, PageWanted
from etki_tui.render import (
    DETAIL_TEXT_CHARS,
    MATCH_STYLE,
    count_matches,
    fold_long,
    match_spans,
)

PAGE_TEXT_CHARS = 50_000
"""Most characters of a page body the reader lays out. Textual's Markdown widget takes
about 0.5 s for 20,000 characters of paragraphs and 1.4 s for 50,000 on this machine (a
decision page is 2-5 kB), so opening any page keeps the desk's keys waiting at most
that long, however long the page. A long contract page is not cut: it is shown as lines
(:mod:`etki_tui.hafiza.linepage`)."""


TOC_CELLS = 29
"""Cells the contents take beside the page body: their column (``#reader-toc``, width 28
in etki.tcss) and its right margin."""

PREVIEW_FRAME_CELLS = 4
"""Cells of the preview's border and padding (``#memory-preview`` in etki.tcss)."""

LINE_HEADING_ID = "memory-line-"
"""The contents' id of a heading of a long page shown as lines: this, then its index."""

LAND_TRIES = 50
"""Refreshes an opened clause section waits for its heading to reach the top (a bound,
not a time: each try is one refresh of the page being laid out)."""

MD_SIDE_CELLS = 8
"""Cells of the reader's width a Markdown block does not give its words: the blocks'
side margins and a list item's bullet and indent (a first-level item's words start 4
cells in and end 2 before the edge at 80x24, read off the screen; 8 leaves a nested
item room). A link label is shortened to fit what is left (:func:`short_link_labels`)."""

READABLE_BODY_CELLS = 60
"""The narrowest page body the contents are shown beside unless asked for: a line of
prose reads at 60 cells or more (general typographic guidance, 45-75 characters a line),
while the 42 cells left at 120x40 broke words mid-line."""


class PageReader(Vertical):
    """A wiki page with its table of contents (``t``) and history (``b``/``n``)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.history = History()
        self.path: str | None = None
        self.text = ""
        self._md_body = ""  # the Markdown page's text before its labels are fitted
        self.tokens: list[str] = []
        self.show_toc = False
        self.toc_over = False
        """The contents are open over the whole width, the page hidden (too narrow for
        both, :meth:`set_toc`)."""
        self._toc_choice: bool | None = None  # the reviewer's own choice, once made
        self.matches = 0
        self.hidden_matches = 0
        """Matches of :attr:`tokens` in the part of the page left out (:meth:`show`)."""
        self.cut_short = False
        """The page shown is a preview cut shorter than the reader's own limit."""
        self.whole_shown = True
        """The page shown is laid out whole (a long contract page is rendered to lines
        in a worker thread, :mod:`.linepage`, False until its lines are shown)."""
        self.landed: str | None = None
        self._anchor_due = ""
        """The clause anchor the page shown is opened at and has not landed on yet: a
        re-read of the page meanwhile (it changed on disk, :meth:`show`'s
        ``keep_scroll``) lands there still."""
        self._landing: tuple[str, float | str, str] | None = None
        """Where a long page shown as lines is to be scrolled once rendered: ``("clause",
        title, anchor)``, ``("y", row, "")`` (read again) or ``("top", 0, "")``."""
        """The clause anchor the page shown was scrolled to (an opened search hit)."""
        self.clause_refs: frozenset[str] = frozenset()
        """The project's clause refs: a link to a contract page naming one of them
        lands on that clause in the whole contract (:func:`clause_anchors`)."""

    def compose(self) -> ComposeResult:
        """History line, then the contents beside the page."""
        yield Static("", id="reader-bar", markup=False)
        curtain = Static("", id="reader-curtain", markup=False)  # over the body (_veil)
        curtain.display = False
        yield curtain
        markdown = ReaderMarkdown("", id="memory-page", open_links=False)
        with Horizontal(id="reader-body"):
            toc = PageContents(markdown, id="reader-toc")
            toc.on_close = self.close_toc
            toc.display = False
            yield toc
            with VerticalScroll(id="reader-scroll", can_focus=True):
                yield markdown
                lines = LinePage(id="memory-lines")  # a long contract page (show)
                lines.display = False
                yield lines
                yield Static("", id="memory-meta", markup=False)  # after the content

    # --- showing a page ----------------------------------------------------------------

    async def show(
        self,
        path: str,
        text: str,
        *,
        tokens: Sequence[str] = (),
        history: str = "replace",
        limit: int = PAGE_TEXT_CHARS,
        meta: bool = True,
        retitle: Callable[[], None] | None = None,
        keep_scroll: bool = False,
        anchor: str = "",
    ) -> None:
        """Show ``text`` (the page at ``path``), highlighting ``tokens`` (folded query
        words), at most ``limit`` characters of its body (:attr:`cut_short` says when
        some were left out under :data:`PAGE_TEXT_CHARS`). ``history``: ``push``
        (opened: pinned), ``replace`` (a preview) or ``keep`` (back/forward already
        moved). ``meta``: show the page's frontmatter after its content (False in the
        preview: ``index.md``'s raw YAML filled its short preview, issue 34 item 8; the
        opened page still has it). ``retitle``: puts the page's title up (the pane's
        border); when the reader shows another page's body, that body is cleared first,
        then the history line and ``retitle`` name the new page, and only then is its body
        laid out, so a title never stands over another page's body (a reviewer trial: a
        long contract page's first blocks appeared under ``index.md``'s title for ~3 s,
        Markdown mounts a long page 200 blocks at a time). ``keep_scroll``: the same page
        read again (it changed on disk): the scroll position stays (clamped to the new
        length) instead of going to the top or the first match. ``anchor``: a clause
        section of the page (an opened search hit, issue 33): the page is laid out at
        least up to that section's end and shown from its heading (:attr:`landed`)."""
        previous = self.path
        if keep_scroll and not anchor and previous == path and self._anchor_due:
            # read again before it stood at its clause (a page written while it opened;
            # seen under load in CI): it lands on that clause, not on the scroll row a
            # landing under way had reached
            anchor, keep_scroll = self._anchor_due, False
        section = find_section(path, text, anchor) if anchor else None
        if history == "push":
            # opened at a clause (a search hit): its entry is the clause's address, which
            # pins the hit's preview in place and is read again whole at the clause by
            # b/F (read_address), never as the section alone (a trial: b showed the
            # clause by itself, its contents one heading)
            self.history.visit(f"{path}#{section.anchor}" if section else path, pin=True)
        elif history == "replace":
            self.history.visit(path, pin=False)
        self.path = path
        self.text = text
        self.tokens = list(tokens)
        self.landed = None
        self._anchor_due = anchor if section is not None else ""
        reach = 0
        if section is not None:  # the clause and everything before it (its heading's place)
            before = sum(len(line) + 1 for line in text.split("\n", section.start)[:-1])
            reach = before + len(section.text)
            limit = max(limit, reach)
        meta_text, whole = split_frontmatter(text)
        # opened, a long contract page is read whole, as lines (.linepage)
        as_lines = limit >= PAGE_TEXT_CHARS and shown_as_lines(path, whole)
        body, hidden = (whole, 0) if as_lines else fold_long(whole, limit)
        self.whole_shown = not as_lines
        self.cut_short = bool(hidden) and limit < PAGE_TEXT_CHARS
        # the matches of the part left out are said, not a bare "0 matches" (issue 34
        # item 8: the search listed the tdrs contract page for "login", whose first
        # "Login.gov" lies past the preview's 8,000 characters)
        self.hidden_matches = count_matches(whole[len(body) :], self.tokens) if hidden else 0
        if hidden:
            body = body.rstrip("\n") + (
                f"\n\n---\n\n*… {hidden:,} more characters of this page not shown "
                f"(`python -m etki.wiki show {path}` prints it all).*\n"
            )
        try:
            shown = self.query_one("#memory-meta", Static)
            page = self.query_one("#memory-page", ReaderMarkdown)
            lines = self.query_one("#memory-lines", LinePage)
            scroll = self.query_one("#reader-scroll", VerticalScroll)
        except NoMatches:  # not composed yet (a page can arrive first), or being removed
            if self.is_attached:  # composed by the next refresh: show it then
                self.call_after_refresh(self._show_later, path, text, tuple(tokens), meta)
            return
        shown.display = bool(meta_text) and meta
        shown.update(
            Group(
                Text(""),
                Text("Page metadata (frontmatter)", style="bold underline"),
                FrontmatterLines(fold_long(meta_text, DETAIL_TEXT_CHARS)[0]),
            )
        )
        page.match_tokens = self.tokens
        body = clause_anchors(path, body, self.clause_refs)
        scroll_y = self._scroll_y() if keep_scroll else 0.0
        # opened at a clause: the page is laid out unseen until its heading stands on the
        # first row (a trial saw the top of the tdrs contract for 1-4 s, then a jump)
        self._veil(section is not None, section.title.split(" — ")[0] if section else "")
        if retitle is not None:
            if previous != path:
                await page.update("")  # no body of the page before under the new title
                if not self.is_attached or self.path != path or self.text is not text:
                    return  # a newer show() took over while the old body was cleared
            self.matches = 0
            self._show_bar()
            retitle()
        if as_lines:
            if page.source:
                await page.update("")  # its blocks go: they are restyled on every key
            if not self.is_attached or self.path != path or self.text is not text:
                return
            if previous != path:
                lines.clear()  # no lines of the page before under the new title
            page.display, lines.display = False, True
            # the scrollbar's column kept whether or not it shows yet: the lines are
            # rendered once for the width beside it (no second render when it appears)
            scroll.styles.scrollbar_gutter = "stable"
            width = scroll.size.width - scroll.styles.scrollbar_size_vertical
            self._landing = (
                ("y", scroll_y, "")
                if keep_scroll
                else ("clause", section.title, section.anchor)
                if section is not None
                else ("top", 0, "")
            )
            done = partial(self._lines_shown, path, text)
            lines.load(printable(body, multiline=True), self.tokens, width, done)
            return
        if lines.display:
            lines.clear()
            lines.display, page.display = False, True
            scroll.styles.scrollbar_gutter = "auto"
        # a spaceless link label wider than the page is shortened to "…" and its end (a
        # slug folded mid-word); again whenever the width changes (_fit_labels)
        self._md_body = printable(body, multiline=True)
        await page.update(self._labels_fitted())
        if not self.is_attached or self.path != path or self.text is not text:
            return  # left the screen, or a newer show() took over while this one waited
        try:
            self.matches = self._highlight(page)
            self._show_bar()
        except NoMatches:  # being removed (its children go first) while the page updated
            return
        if keep_scroll:
            self.call_after_refresh(scroll.scroll_to, y=scroll_y, animate=False)
            self.call_after_refresh(self._highlight_again, path, text)
            return
        scroll.scroll_home(animate=False)
        # a table's cells can be given their text again after this (the Markdown
        # widget updates blocks in place): mark the matches again once drawn
        self.call_after_refresh(self._highlight_again, path, text)
        heading = heading_block(page, section.title) if section is not None else None
        if heading is not None and section is not None:
            self.call_after_refresh(self._land, scroll, heading, path, text, section.anchor)
            return
        self._veil(False)
        if self.matches:
            first = next((b for b in page.query(MarkdownBlock) if b.has_class("-match")), None)
            if first is not None:
                self.call_after_refresh(scroll.scroll_to_widget, first, animate=False, top=True)

    def _veil(self, hidden: bool, what: str = "") -> None:
        """Cover the page body (``#reader-curtain``, saying ``what`` is opened) while it
        is laid out and scrolled, or uncover it. Covered, not hidden: a hidden widget
        has no place to measure the heading by."""
        curtain = part(self, "#reader-curtain", Static)
        if curtain is not None:
            curtain.update(Text(f"Opening the page at {what}…" if what else "", style="dim italic"))
            curtain.display = hidden

    def _land(
        self,
        scroll: VerticalScroll,
        heading: Widget,
        path: str,
        text: str,
        anchor: str,
        tries: int = LAND_TRIES,
        still: int = 0,
    ) -> None:
        """Scroll ``heading`` (a clause's) so that its first row is the page's first
        visible row (its margin above scrolled out of view), if the page is still shown;
        until it stands there two refreshes in a row (a long page's height grows while
        it is laid out, and a table's cells are given their text after it is mounted),
        or as far as the page scrolls, at most ``tries`` refreshes. Then the page is
        shown (:meth:`_veil`) and :attr:`landed` says the anchor."""
        if not self.is_attached or self.path != path or self.text is not text:
            return
        if not heading.is_attached:
            self._veil(False)
            self._anchor_due = ""
            return
        off = heading.region.y - scroll.content_region.y
        if off == 0 or (off > 0 and scroll.scroll_y >= scroll.max_scroll_y) or tries <= 0:
            if still or tries <= 0:
                self._veil(False)
                self.landed, self._anchor_due = anchor, ""
                return
            still = 1
        else:
            still = 0
            scroll.scroll_to(y=scroll.scroll_y + off, animate=False, immediate=True)
        self.call_after_refresh(self._land, scroll, heading, path, text, anchor, tries - 1, still)

    def _lines_shown(self, path: str, text: str, rendered: RenderedPage) -> None:
        """The lines of the long page (``path``, ``text``) are shown (first, or again for
        a new width): its matches counted, its headings in the contents, and while
        :attr:`_landing` waits, the page scrolled to it (:meth:`_land_line`)."""
        if not self.is_attached or self.path != path or self.text is not text:
            return
        self.whole_shown = True
        self.matches = rendered.matches
        self._show_bar()
        for toc in self.query(MarkdownTableOfContents):
            toc.table_of_contents = [
                (h.level, h.name, f"{LINE_HEADING_ID}{i}") for i, h in enumerate(rendered.headings)
            ]
        self.call_after_refresh(self._refit_toc)
        lines = part(self, "#memory-lines", LinePage)
        if self._landing is None or lines is None:
            return
        kind, where, anchor = self._landing
        line: int | None = None
        if kind == "clause":
            line = lines.heading_line(str(where))
            if line is None:  # no such heading: shown from the top (or the first match)
                self._landing, anchor, self._anchor_due = ("top", 0, ""), "", ""
        if line is None:
            line = int(where) if kind == "y" else lines.first_match_line() or 0
        self.call_after_refresh(self._land_line, rendered, line, anchor, kind != "y")

    def _land_line(
        self,
        rendered: RenderedPage,
        line: int,
        anchor: str,
        on_lines: bool,
        tries: int = LAND_TRIES,
        still: int = 0,
    ) -> None:
        """Scroll the long page so that ``line`` of its lines ``rendered`` (or, not
        ``on_lines``, that row of the scroll) is its first visible row, or as far as it
        scrolls, while those lines are the ones shown; once there two refreshes in a row
        (or after ``tries`` refreshes) the page is shown and :attr:`landed` says
        ``anchor`` (when one was asked for)."""
        lines = part(self, "#memory-lines", LinePage)
        scroll = part(self, "#reader-scroll", VerticalScroll)
        if lines is None or scroll is None or self._landing is None or lines.page is not rendered:
            return  # another page, or the lines rendered again (their own landing comes)
        y = lines.virtual_region.y + line if on_lines else line
        laid = lines.size.height == len(rendered.lines) and lines.size.width == rendered.width
        laid = laid and scroll.virtual_size.height >= lines.virtual_region.bottom
        there = laid and scroll.scroll_y == min(y, scroll.max_scroll_y)
        if not (there and still) and tries > 0:
            if not there:
                scroll.scroll_to(y=y, animate=False, immediate=True)
            again = (rendered, line, anchor, on_lines, tries - 1, int(there))
            self.call_after_refresh(self._land_line, *again)
            return
        self._landing = None
        self._veil(False)
        if anchor:
            self.landed, self._anchor_due = anchor, ""

    def _scroll_y(self) -> float:
        """How far the page body is scrolled now (0 before it is composed)."""
        scroll = part(self, "#reader-scroll", VerticalScroll)
        return scroll.scroll_y if scroll is not None else 0.0

    def _highlight_again(self, path: str, text: str) -> None:
        """The matches marked again on the page still shown (``path``, ``text``)."""
        if not self.is_attached or self.path != path or self.text is not text:
            return
        lines = part(self, "#memory-lines", LinePage)
        if lines is not None and lines.display:  # a long page: marked as it was rendered
            return
        for page in self.query("#memory-page").results(Markdown):
            self.matches = self._highlight(page)
            self._show_bar()

    def show_meta(self) -> None:
        """Show the frontmatter of the page shown (left out of a preview by
        :meth:`show`), when it has one: the page was opened."""
        shown = part(self, "#memory-meta", Static)
        if shown is not None:
            shown.display = bool(split_frontmatter(self.text)[0])

    def _show_later(self, path: str, text: str, tokens: tuple[str, ...], meta: bool = True) -> None:
        """:meth:`show` again once composed, unless a newer page took over meanwhile."""
        if self.is_attached and self.path == path and self.text is text:
            self.run_worker(
                self.show(path, text, tokens=tokens, history="keep", meta=meta),
                group="reader-show",
            )

    def _highlight(self, page: Markdown) -> int:
        """Style every match of :attr:`tokens` in the rendered blocks; how many. Code
        fences mark themselves (:class:`MarkedFence`, they re-render on style updates)."""
        if not self.tokens:
            return 0
        count = 0
        for block in page.query(MarkdownBlock):
            if isinstance(block, MarkedFence):
                found = len(match_spans(block.code, self.tokens))
                if found:
                    block.add_class("-match")
                    count += found
                continue
            # a block shows its inline content through Static.update (set_content):
            # Static's public ``content`` is that Content (tests/test_tui_pilot.py checks
            # that highlights appear)
            content = block.content
            if not isinstance(content, Content) or not content.plain:
                continue
            spans = match_spans(content.plain, self.tokens)
            if not spans:
                continue
            for start, end in spans:
                content = content.stylize(MATCH_STYLE, start, end)
            block.set_content(content)
            block.add_class("-match")
            count += len(spans)
        # a table's cells are Statics of their own, not blocks (index.md's counts, a
        # contract page's rulings): a match there counts and shows too
        for cell in page.query("MarkdownTableContent Static").results(Static):
            content = cell.content
            if not isinstance(content, Content) or not content.plain:
                continue
            spans = match_spans(content.plain, self.tokens)
            if spans:
                for start, end in spans:
                    content = content.stylize(MATCH_STYLE, start, end)
                cell.update(content)
                count += len(spans)
        return count

    def _show_bar(self) -> None:
        h = self.history
        bar = Text(no_wrap=True, overflow="ellipsis")
        if self.tokens:
            bar.append(
                f"{self.matches} match{'es' if self.matches != 1 else ''} · ",
                style="bold" if self.matches else "dim",
            )
            if self.hidden_matches:
                where = "Enter reads them" if self.cut_short else "`etki wiki show` prints them"
                bar.append(f"{self.hidden_matches} more past the part shown ({where}) · ")
        bar.append("◀b back", style="bold" if h.can_back else "dim")
        bar.append(f" · {h.label()} · ")
        bar.append("forward F▶", style="bold" if h.can_forward else "dim")
        bar.append(" · t contents · l links", style="dim")
        for line in self.query("#reader-bar").results(Static):  # none while unmounted
            width = line.content_region.width
            if 0 < width < bar.cell_len:  # Textual crops a line without a sign: cut it
                bar.truncate(width, overflow="ellipsis")
            line.update(bar)

    def on_resize(self) -> None:
        """Fit the history line and the page's long link labels to the new width."""
        self._show_bar()
        self.call_after_refresh(self._fit_labels)

    def _labels_fitted(self) -> str:
        """The Markdown page's text with its long spaceless link labels shortened to the
        page's width (:func:`short_link_labels`; whole while the reader has no width
        yet: a page opened from the list is shown before it is laid out)."""
        scroll = part(self, "#reader-scroll", VerticalScroll)
        if scroll is None:
            return self._md_body
        room = scroll.size.width - scroll.styles.scrollbar_size_vertical - MD_SIDE_CELLS
        return short_link_labels(self._md_body, room) if room > 0 else self._md_body

    def _fit_labels(self) -> None:
        """Show the Markdown page again when the width changed its shortened labels (a
        page without a long label is never shown again)."""
        page = part(self, "#memory-page", ReaderMarkdown)
        if page is None or not page.display or not self._md_body:
            return
        fitted = self._labels_fitted()
        if fitted != page.source:
            self.run_worker(self._refit(page, fitted), group="reader-fit", exclusive=True)

    async def _refit(self, page: ReaderMarkdown, fitted: str) -> None:
        """Show ``fitted`` (:meth:`_fit_labels`), its search matches marked again."""
        await page.update(fitted)
        with contextlib.suppress(NoMatches):  # being removed meanwhile
            self.matches = self._highlight(page)

    def links(self) -> list[tuple[str, str]]:
        """(label, path) of the wiki links on the page shown."""
        return page_links(self.path, self.text) if self.path else []

    def clear(self) -> None:
        """Forget the page and the history (another project)."""
        self.history.clear()
        self.path = None

    # --- table of contents ---------------------------------------------------------------

    def fit_toc(self, width: int) -> None:
        """Show the contents when the page body beside them would still be readable,
        unless the reviewer chose (``t``). ``width``: the preview's cells, its frame and
        padding (:data:`PREVIEW_FRAME_CELLS`) included; the contents take
        :data:`TOC_CELLS` of it. (A second trial: at 120x40 the contents were on and the
        body had 42 columns, words broken mid-line beside a blank strip.)"""
        body = width - PREVIEW_FRAME_CELLS - TOC_CELLS
        want = body >= READABLE_BODY_CELLS if self._toc_choice is None else self._toc_choice
        self.set_toc(want)

    def set_toc(self, show: bool) -> None:
        """Show or hide the contents pane; before the pane is composed (a resize or a
        page can arrive first) the choice is kept and applied on mount. Shown, the
        column takes the cells its headings need (:meth:`PageContents.needed_cells`,
        at least :data:`TOC_CELLS`) while the page beside keeps
        :data:`READABLE_BODY_CELLS`; where that leaves the contents under
        :data:`TOC_CELLS` (80 columns) they take the whole width over the page
        (:attr:`toc_over`) until closed or a heading is chosen."""
        self.show_toc = show
        toc = part(self, "#reader-toc", PageContents)
        scroll = part(self, "#reader-scroll", VerticalScroll)
        body = part(self, "#reader-body")
        if toc is None or scroll is None or body is None:
            return
        room = body.size.width or self.size.width
        beside = min(max(toc.needed_cells(), TOC_CELLS), room - READABLE_BODY_CELLS - 1)
        self.toc_over = show and room > 0 and beside < TOC_CELLS
        with self.app.batch_update():
            if self.toc_over:
                toc.styles.width = "1fr"
                toc.styles.max_width = "100%"
                toc.styles.margin = 0
            else:
                toc.styles.width = max(beside, TOC_CELLS - 1) if room > 0 else TOC_CELLS - 1
                toc.styles.max_width = "100%" if room > 0 else "40%"
                toc.styles.margin = (0, 1, 0, 0)
            toc.display = show
            scroll.display = not self.toc_over
        if not show and toc.has_focus_within:
            scroll.focus()
        self.refresh(layout=True)

    def on_mount(self) -> None:
        self.set_toc(self.show_toc)

    def toggle_toc(self) -> None:
        """Show or hide the table of contents (and remember the choice); shown, the
        contents take the focus (Up/Down move, Enter goes to the heading, Esc closes),
        hidden, the page has it back."""
        self._toc_choice = not self.show_toc
        self.set_toc(self._toc_choice)
        if self._toc_choice:
            for tree in self.query("#reader-toc Tree").results(Tree):
                if tree.cursor_line < 0 and tree.last_line >= 0:
                    tree.cursor_line = 0
                tree.focus()

    def close_toc(self) -> None:
        """Hide the contents (the reviewer's choice), the page focused."""
        self._toc_choice = False
        self.set_toc(False)

    def on_markdown_table_of_contents_updated(
        self, message: Markdown.TableOfContentsUpdated
    ) -> None:
        message.stop()
        for toc in self.query(MarkdownTableOfContents):  # none while (un)mounting
            toc.table_of_contents = message.table_of_contents
        self.call_after_refresh(self._refit_toc)

    def _refit_toc(self) -> None:
        """The contents' column fitted to the new page's headings (:meth:`set_toc`)."""
        if self.is_attached:
            self.set_toc(self.show_toc)

    def on_markdown_table_of_contents_selected(
        self, message: Markdown.TableOfContentsSelected
    ) -> None:
        message.stop()
        lines = part(self, "#memory-lines", LinePage)
        if message.block_id.startswith(LINE_HEADING_ID) and lines is not None:
            index = int(message.block_id.removeprefix(LINE_HEADING_ID))
            if index < len(lines.page.headings):  # else the page changed since the click
                self._scroll_to_line(lines, lines.page.headings[index].line)
            return
        try:
            block = self.query_one(f"#{message.block_id}")
            scroll = self.query_one("#reader-scroll", VerticalScroll)
        except NoMatches:  # the page changed (or the reader left) since the click
            return
        if self.toc_over:  # the contents hid the page: back to it at the heading
            self.close_toc()
        scroll.focus()
        self.call_after_refresh(scroll.scroll_to_widget, block, top=True, animate=False)

    def _scroll_to_line(self, lines: LinePage, line: int) -> None:
        """The long page's ``line`` of ``lines`` scrolled to its first row, focused."""
        scroll = part(self, "#reader-scroll", VerticalScroll)
        if scroll is None:
            return
        if self.toc_over:  # the contents hid the page: back to it at the heading
            self.close_toc()
        scroll.focus()
        y = lines.virtual_region.y + line
        self.call_after_refresh(scroll.scroll_to, y=y, animate=False)

    # --- links and history --------------------------------------------------------------

    def on_markdown_link_clicked(self, message: Markdown.LinkClicked) -> None:
        message.stop()
        self._follow(message.href)

    def on_line_page_link_clicked(self, message: LinePage.LinkClicked) -> None:
        message.stop()
        self._follow(message.href)

    def _follow(self, href: str) -> None:
        """Follow a link ``href`` clicked on the page shown: a clause link opens the
        contract at the clause, a wiki page is asked for, anything else is refused."""
        if self.path is None:
            return
        target, anchor = resolve_link(self.path, href)
        if target is not None and anchor and page_kind(target) == "contract":
            ref = unquote(anchor)
            if ref in self.clause_refs:  # a clause link: the whole contract, at the clause
                self.post_message(ClauseWanted(ref))
                return
        if target is None:
            self.app.notify(
                f"Not opened: {printable(href, multiline=False)} is "
                "outside the wiki. The desk never opens a browser; copy it "
                "from the page if you need it.",
                markup=False,
                timeout=6,
            )
            return
        if target == self.path:
            page = part(self, "#memory-page", Markdown) if anchor else None
            lines = part(self, "#memory-lines", LinePage)
            if lines is not None and lines.display and anchor:  # a long page: its heading
                section = find_section(self.path, self.text, anchor)
                line = lines.heading_line(section.title) if section is not None else None
                if line is not None:
                    self._scroll_to_line(lines, line)
            elif page is not None:  # None: the reader is being removed since the click
                page.goto_anchor(anchor)
            return
        self.post_message(PageWanted(target, history="push"))

    def back(self) -> bool:
        """Ask for the previous page; False at the start of the history."""
        target = self.history.back()
        if target is None:
            return False
        self.post_message(PageWanted(target, history="keep"))
        return True

    def forward(self) -> bool:
        """Ask for the next page; False at the end of the history."""
        target = self.history.forward()
        if target is None:
            return False
        self.post_message(PageWanted(target, history="keep"))
        return True
