"""A long contract page as one widget of pre-rendered lines (issue 34 item 3 follow-up:
the tdrs contract page laid out by Textual's Markdown widget was 1,129 widgets, 510 of
them Markdown blocks, and every key waited for Textual to restyle them: j/k/PageDown
1.5-2.4 s, Tab 20.8 s, ``1`` 30.2 s at load ~10).

The page body is cut at its headings (:func:`heading_chunks`), each part rendered by
Rich's Markdown into lines of segments in a worker thread (:func:`render_page`: the
tdrs page, 71,199 characters, 1,494 lines in 0.25 s at 74 columns, load ~10), and
:class:`LinePage` shows
those lines by the Line API: only the rows on screen are drawn, and the widget stays
one node for the styles to update whatever the page's length. The line each heading
starts on is kept (:class:`Heading`), so the reader lands a clause's heading on its
first row by scrolling to that line. Words of the page are Rich ``Text`` throughout:
never read as Rich markup.

Measured with ``docs/probes/reader_keys.py`` (the desk at 80x24, the tdrs page open,
bytecode not compiled), both at load ~10 on this 2-core machine: before, opened in
6.8 s, 1,129 widgets, j/k/PageDown 276-550 ms, Tab 2.8 s, Shift+Tab 3.6 s, ``1`` 3.9 s;
as lines, opened in 0.57 s, 56 widgets, j/k/PageDown 87-115 ms, Tab 0.21 s, Shift+Tab
0.24 s, ``1`` 0.25 s.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from etki.wiki.sections import page_sections
from etki_tui.render import MATCH_STYLE, match_spans

LINE_PAGE_CHARS = 20_000
"""A contract page body longer than this is shown as lines (:class:`LinePage`), not by
Textual's Markdown widget: 20,000 characters of paragraphs took that widget about 0.5 s
to lay out on this machine and some 250 widgets to restyle on every key (the reader's
earlier measure, when it laid a contract page out in parts of that size)."""

WHOLE_PAGE_CHARS = 1_000_000
"""The longest contract page read whole as lines (14 times the tdrs page): its lines
stay in memory while it is shown."""

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]|$)")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def shown_as_lines(path: str, body: str) -> bool:
    """Whether page ``path`` with ``body`` (frontmatter left out) is shown as lines: a
    contract page with clause headings (:func:`etki.wiki.sections.page_sections`) longer
    than :data:`LINE_PAGE_CHARS` and at most :data:`WHOLE_PAGE_CHARS` characters."""
    if not LINE_PAGE_CHARS < len(body) <= WHOLE_PAGE_CHARS:
        return False
    return page_sections(path, body) is not None


def heading_chunks(body: str) -> list[tuple[int, str]]:
    """``body`` (markdown) cut before each ATX heading outside a code fence, as (level of
    the heading the part starts with, 0 for text before the first heading; the part's
    markdown). The parts join back to ``body``."""
    chunks: list[tuple[int, str]] = []
    level, start, fence = 0, 0, ""
    offset = 0
    for line in body.splitlines(keepends=True):
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
        elif opened:
            fence = opened.group(1)
        else:
            heading = _HEADING.match(line)
            if heading and offset > start:
                chunks.append((level, body[start:offset]))
                start = offset
            if heading:
                level = len(heading.group(1))
        offset += len(line)
    if offset > start or not chunks:
        chunks.append((level, body[start:]))
    return chunks


@dataclass(frozen=True)
class Heading:
    """A heading of the page: its level (1-6), its words as rendered, and the line of the
    page (0-based) its first row is."""

    level: int
    name: str
    line: int


@dataclass(frozen=True)
class RenderedPage:
    """A page rendered for ``width`` cells: its ``lines``, its ``headings`` in page order
    and how many ``matches`` of the search words were marked."""

    width: int
    lines: list[Strip] = field(default_factory=list)
    headings: list[Heading] = field(default_factory=list)
    matches: int = 0


HREF_META = "etki_href"
"""The key of a link's target in the ``meta`` of the style of the cells it is drawn on."""


def _unlinked(style: Style) -> Style:
    """``style`` without its terminal hyperlink, its target in ``meta`` instead."""
    return style.update_link(None) + Style.from_meta({HREF_META: style.link})


def _marked(
    line: list[Segment], tokens: Sequence[str], console: Console
) -> tuple[list[Segment], int]:
    """``line`` with every match of ``tokens`` in :data:`MATCH_STYLE`, and how many; a
    link's target kept as the style's ``meta`` (:data:`HREF_META`), never as a terminal
    hyperlink (a terminal would open it in a browser: the desk never does)."""
    line = [
        Segment(seg.text, _unlinked(seg.style), seg.control)
        if seg.style is not None and seg.style.link
        else seg
        for seg in line
    ]
    if not tokens:
        return line, 0
    text = Text()
    for seg in line:
        if not seg.control:
            text.append(seg.text, seg.style)
    spans = match_spans(text.plain, tokens)
    if not spans:
        return line, 0
    for start, end in spans:
        text.stylize(MATCH_STYLE, start, end)
    return list(text.render(console, end="")), len(spans)


def render_page(body: str, width: int, tokens: Sequence[str] = ()) -> RenderedPage:
    """``body`` (terminal-safe markdown) rendered by Rich's Markdown for ``width`` cells
    (at least 1), part by part (:func:`heading_chunks`, a blank line between parts),
    the folded search ``tokens`` marked line by line (:func:`etki_tui.render.match_spans`;
    a match is counted on the line it stands on). Runs in any thread: its own Console."""
    from rich.markdown import Markdown  # markdown-it: not on the CLI's lean read path

    width = max(width, 1)
    console = Console(
        file=io.StringIO(),
        width=width,
        force_terminal=True,
        color_system="truecolor",
        legacy_windows=False,
        emoji=False,
        highlight=False,
        markup=False,
    )
    options = console.options.update_width(width)
    lines: list[Strip] = []
    headings: list[Heading] = []
    matches = 0
    for level, chunk in heading_chunks(body):
        if not chunk.strip():
            continue
        if lines:
            lines.append(Strip.blank(0))
        start = len(lines)
        rendered = console.render_lines(Markdown(chunk, hyperlinks=True), options, pad=False)
        words: list[str] = []
        naming = bool(level)  # the heading's rows: up to the first blank one
        for segments in rendered:
            segments, found = _marked(segments, tokens, console)
            matches += found
            lines.append(Strip(segments))
            if naming:
                plain = "".join(seg.text for seg in segments).strip()
                if plain:
                    words.append(plain)
                elif words:
                    naming = False
        if words:
            headings.append(Heading(level, " ".join(words), start))
    return RenderedPage(width, lines, headings, matches)


class LinePage(Widget):
    """Pre-rendered lines of a long page (:class:`RenderedPage`) inside the reader's
    scroll: the widget is as tall as the page, and Textual draws only the rows on
    screen. :meth:`load` renders a page in a worker thread for a width; a click on a
    link posts :class:`LinkClicked` with its target."""

    DEFAULT_CSS = """
    LinePage {
        width: 1fr;
        height: auto;
    }
    """

    class LinkClicked(Message):
        """A link on the page was clicked: ``href`` as written on the page."""

        def __init__(self, href: str) -> None:
            super().__init__()
            self.href = href

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.page = RenderedPage(0)
        self.source = ""
        self.tokens: tuple[str, ...] = ()
        self._done: Callable[[RenderedPage], None] | None = None
        self._generation = 0

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        """As many rows as the page has lines."""
        return len(self.page.lines)

    def render_line(self, y: int) -> Strip:
        """Row ``y`` of the page, padded or cut to the widget's width."""
        width = self.size.width
        style = self.rich_style
        if 0 <= y < len(self.page.lines):
            return self.page.lines[y].crop_extend(0, width, style).apply_style(style)
        return Strip.blank(width, style)

    def clear(self) -> None:
        """No page (a render under way is dropped when it ends)."""
        self._generation += 1
        self.source, self.tokens, self._done = "", (), None
        self._set(RenderedPage(0))

    def load(
        self,
        source: str,
        tokens: Sequence[str],
        width: int,
        done: Callable[[RenderedPage], None],
    ) -> None:
        """Render ``source`` (terminal-safe markdown) for ``width`` cells with ``tokens``
        marked, in the ``line-page`` worker thread, then show it and call ``done`` with
        it on the app's thread (again after each render for a new width, :meth:`on_resize`);
        unless :meth:`load` or :meth:`clear` was called meanwhile (that render is
        dropped)."""
        self.source, self.tokens, self._done = source, tuple(tokens), done
        self._start(width, None)

    def _start(self, width: int, keep: int | None) -> None:
        """Render :attr:`source` for ``width`` cells in a worker thread; once shown, the
        heading of index ``keep`` (if any) is scrolled to the top again."""
        self._generation += 1
        work = partial(self._render_page, self._generation, self.source, self.tokens, width, keep)
        self.run_worker(work, group="line-page", thread=True, exit_on_error=False)

    def _render_page(
        self, generation: int, source: str, tokens: tuple[str, ...], width: int, keep: int | None
    ) -> None:
        rendered = render_page(source, width, tokens)
        with contextlib.suppress(RuntimeError):  # the app closed meanwhile
            self.app.call_from_thread(self._rendered, generation, rendered, keep)

    def _rendered(self, generation: int, rendered: RenderedPage, keep: int | None) -> None:
        if generation != self._generation or not self.is_attached:
            return
        width = self.size.width
        if self.page.lines and width and rendered.width != width:
            # the width changed again while it was rendered (the contents came and went)
            if width != self.page.width:
                self._start(width, keep)
            return
        self._set(rendered)
        scroll = self.parent
        if keep is not None and keep < len(rendered.headings) and isinstance(scroll, Widget):
            y = self.virtual_region.y + rendered.headings[keep].line
            self.call_after_refresh(scroll.scroll_to, y=y, animate=False)
        if self._done is not None:
            self._done(rendered)

    def _set(self, rendered: RenderedPage) -> None:
        self.page = rendered
        self.refresh(layout=True)

    def on_resize(self, event: events.Resize) -> None:
        """Render the page again for a new width once the layout settles, the heading at
        the top of the view kept there (read full-screen, the contents shown beside)."""
        if self.source and self.page.lines and event.size.width not in (0, self.page.width):
            self.call_after_refresh(self._fit_width)

    def _fit_width(self) -> None:
        width = self.size.width
        if not self.source or not self.page.lines or width in (0, self.page.width):
            return
        scroll = self.parent
        top = scroll.scroll_y - self.virtual_region.y if isinstance(scroll, Widget) else 0
        keep = max((i for i, h in enumerate(self.page.headings) if h.line <= top), default=None)
        self._start(width, keep)

    def heading_line(self, title: str) -> int | None:
        """The line of the heading whose words are ``title`` (spaces compared collapsed),
        else of the first that begins with the same clause ref (``tdrs-rfq#5.2 —``:
        emphasis in a title is markup the rendered heading drops); None when none."""
        want = " ".join(title.split())
        for heading in self.page.headings:
            if " ".join(heading.name.split()) == want:
                return heading.line
        if " — " in want:
            ref = want.split(" — ", 1)[0] + " —"
            for heading in self.page.headings:
                if heading.name.startswith(ref):
                    return heading.line
        return None

    def first_match_line(self) -> int | None:
        """The first line with a search match marked, or None."""
        if not self.page.matches:
            return None
        for y, strip in enumerate(self.page.lines):
            if match_spans(strip.text, self.tokens):
                return y
        return None

    def on_click(self, event: events.Click) -> None:
        """A click on a link: :class:`LinkClicked` with its target."""
        href = event.style.meta.get(HREF_META)
        if isinstance(href, str) and href:
            event.stop()
            self.post_message(self.LinkClicked(href))
