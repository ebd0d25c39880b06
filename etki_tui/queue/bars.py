"""The queue pane's two bars: the filter line over the table and the case detail under it (widgets the pane composes), and the bulk mark."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import Input, Static

from etki_tui.actions import ACTIONS
from etki_tui.glyphs import UNSURE_MARK
from etki_tui.inputs import TypingInput
from etki_tui.live import part
from etki_tui.queue.filters import SORT_SHORT, QueueFilter

MARK = "*"
"""Drawn before the id of a case marked for a bulk ruling (ASCII: one cell everywhere)."""


def _in_footer(action_id: str, label: str) -> Binding:
    """The binding of ``action_id`` (its id, so the keymap remaps it here too), shown
    in the footer as ``label``."""
    return replace(ACTIONS[action_id].binding(), show=True, description=label)


class CaseDetail(VerticalScroll, can_focus=True):
    """Scrollable detail of the highlighted case (focusable so it scrolls by keyboard;
    Enter on a row maximizes it for reading, Escape restores).

    ``j``/``k`` go to the next/previous case in the list as they do in the queue; here
    the footer names them (issue 34 item 1: the reader had no next-case key it could
    see), as the detail is what is read. ``step`` moves the list's cursor (the pane
    sets it)."""

    ALLOW_MAXIMIZE = True
    BINDINGS: ClassVar[list[BindingType]] = [
        _in_footer("queue.down", "Next"),
        _in_footer("queue.up", "Prev"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: object = Text("No case selected.", style="dim")
        self.step: Callable[[int], None] | None = None
        """Moves the list's cursor by one case (+1 next, -1 previous)."""

    def action_cursor_down(self) -> None:
        """The next case (``j``)."""
        if self.step is not None:
            self.step(1)

    def action_cursor_up(self) -> None:
        """The previous case (``k``)."""
        if self.step is not None:
            self.step(-1)

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

    def _strips(self) -> list[Strip]:
        """The body's lines as drawn now."""
        body = part(self, "#detail-body", Static)
        if body is None or not body.size.height:
            return []
        return list(body.render_lines(Region(0, 0, body.size.width, body.size.height)))

    def _lines(self) -> list[str]:
        """The body's lines as drawn now (plain text)."""
        return [strip.text for strip in self._strips()]

    def place(self) -> DetailPlace | None:
        """Where the reader is (:class:`DetailPlace`); None at the top (nothing to keep)."""
        top = int(self.scroll_y)
        lines = self._lines()
        if top <= 0 or top >= len(lines):
            return None
        text = lines[top]
        head = _head_above(lines, top)
        if head is None:
            return DetailPlace(text, lines[:top].count(text), top, None)
        return DetailPlace(
            text, lines[head:top].count(text), top, (lines[head], lines[:head].count(lines[head]))
        )

    def keep_place(self, place: DetailPlace) -> None:
        """Scroll so that the line :meth:`place` saw at the top is at the top again (the
        body was drawn anew: a clause folded or unfolded above or around it). Where that
        line was inside a cited clause and is gone from it (folded away, or a fold line
        gone with the fold), to that clause: its head, or its marked sentence where the
        head is too far above it to show both (:meth:`_clause_top`); elsewhere, where the
        line is gone, back to the same offset. (A trial: paged down inside an unfolded
        clause, ``w`` to fold it again kept the offset, past the clause into another,
        the marked sentence out of view.)"""
        lines = self._lines()
        y: int | None = None
        if place.head is None:
            y = _nth(lines, place.text, place.nth, 0, len(lines))
        else:
            head = _nth(lines, *place.head, 0, len(lines))
            if head is not None:
                y = _nth(lines, place.text, place.nth, head, _clause_end(lines, head))
                if y is None:
                    y = self._clause_top(lines, head)
        self.scroll_to(y=place.top if y is None else y, animate=False)

    def _clause_top(self, lines: list[str], head: int) -> int:
        """The line to show at the top for the clause whose head is line ``head``: the
        head when the clause's first marked sentence (reverse video, else underlined:
        :data:`etki_tui.queue.evidence.DECIDING_STYLE`, ``AGAINST_STYLE``) shows under
        it in the view's height, else that sentence's first line."""
        strips = self._strips()
        found: dict[str, int] = {}
        for y in range(head + 1, min(_clause_end(lines, head), len(strips))):
            for seg in strips[y]:
                style = seg.style
                if style is None or not seg.text.strip():
                    continue
                if style.reverse:
                    found.setdefault("reverse", y)
                elif style.underline:
                    found.setdefault("underline", y)
            if "reverse" in found:
                break
        mark = found.get("reverse", found.get("underline"))
        if mark is None or mark - head < max(1, self.scrollable_content_region.height - 1):
            return head
        return mark


CLAUSE_HEAD = "§ "
"""How a cited clause's head line starts in the detail (:func:`etki_tui.render.clause_head`)."""


@dataclass(frozen=True)
class DetailPlace:
    """Where the reader of the detail is: the ``text`` of the line at the top of the
    view, how many equal lines come before it (``nth``), the scroll offset ``top``
    (lines), and ``head``: the head line (text, nth) of the cited clause the top line
    is inside, None when it is in none."""

    text: str
    nth: int
    top: int
    head: tuple[str, int] | None


def _nth(lines: list[str], text: str, nth: int, start: int, stop: int) -> int | None:
    """The index of the ``nth`` (0-based) line equal to ``text`` from line ``start``
    (before ``stop``); None when there are not that many."""
    seen = -1
    for y in range(start, stop):
        if lines[y] == text:
            seen += 1
            if seen == nth:
                return y
    return None


def _is_head_or_title(line: str) -> bool:
    """A line the detail draws at its left edge (a field, a section title, a clause's
    head); a clause's text is indented (:func:`etki_tui.render._indent`)."""
    return bool(line.strip()) and not line.startswith(" ")


def _head_above(lines: list[str], top: int) -> int | None:
    """The first line of the head of the cited clause line ``top`` is in (or is part of),
    None when it is in none: the run of lines at the left edge next above it (a head
    that wraps takes more than one) holds no clause head."""
    y = top
    while y >= 0 and not _is_head_or_title(lines[y]):
        y -= 1
    while y >= 0 and _is_head_or_title(lines[y]):
        if lines[y].startswith(CLAUSE_HEAD):
            return y
        y -= 1
    return None


def _clause_end(lines: list[str], head: int) -> int:
    """The index after the last line of the clause whose head starts at line ``head``
    (its text is indented; the next line at the left edge past the head's own ends it)."""
    y = head + 1
    while y < len(lines) and _is_head_or_title(lines[y]) and not lines[y].startswith(CLAUSE_HEAD):
        y += 1  # the head wrapped
    while y < len(lines) and not _is_head_or_title(lines[y]):
        y += 1
    return y


@dataclass(frozen=True)
class Piece:
    """A part of a line that :class:`FittedLine` fits to its width: ``text``, its
    ``rank`` (0: always shown; the highest is shortened or dropped first, the last of
    equal ranks first), the ``joint`` drawn before it when a part comes before it,
    a ``short`` form tried before it is dropped, and ``more``: when dropped, the line
    ends with ``…`` (more of the same is not shown)."""

    text: Text
    rank: int
    joint: str = " · "
    short: Text | None = None
    more: bool = False


class FittedLine:
    """A one-line renderable of :class:`Piece` parts fitted to the width it is drawn
    at: parts are shortened or dropped whole, the least needed first, so the line is
    never cut inside a word or a hint (a fresh trial of issue 34: at 80 columns the
    summary read "B rules the 1 sure ·  FILTER  1 of 30 · Esc" and lost "clears").
    Only the parts of rank 0 left, a line still too wide is cut with ``…``."""

    def __init__(self, pieces: list[Piece]) -> None:
        self.pieces = pieces

    def fit(self, width: int) -> Text:
        """The line as drawn ``width`` cells wide."""
        short: set[int] = set()
        left = list(range(len(self.pieces)))
        marker = True
        while True:
            line = self._line(left, short, marker)
            if line.cell_len <= width:
                return line
            if marker and not any(self.pieces[i].more for i in left):
                marker = False  # every "more" part is gone: "…" goes before the hints
                continue
            can = [i for i in left if self.pieces[i].rank > 0]
            if not can:
                line.truncate(width, overflow="ellipsis")
                return line
            worst = max(can, key=lambda i: (self.pieces[i].rank, i))
            if self.pieces[worst].short is not None and worst not in short:
                short.add(worst)
            else:
                left.remove(worst)

    def _line(self, left: list[int], short: set[int], marker: bool = True) -> Text:
        out = Text(no_wrap=True, overflow="ellipsis", end="")
        for n, i in enumerate(left):
            piece = self.pieces[i]
            if n:
                out.append(piece.joint, style="dim")
            text = piece.short if i in short and piece.short is not None else piece.text
            out.append_text(text)
        if marker and any(p.more for i, p in enumerate(self.pieces) if i not in left):
            out.append(" · …", style="dim")
        return out

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        """The fitted line (Rich asks with the width it has)."""
        yield self.fit(options.max_width)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        """As wide as the whole line wants, at most the width there is."""
        whole = self._line(list(range(len(self.pieces))), set()).cell_len
        return Measurement(1, min(whole, options.max_width))

    @property
    def plain(self) -> str:
        """The whole line, nothing dropped (what a test or the palette reads)."""
        return self._line(list(range(len(self.pieces))), set()).plain


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
        pieces: list[Piece] = []
        if marked:
            pieces.append(Piece(Text(f" {MARK} {marked} marked ", style="bold reverse"), 0, ""))
            if getattr(self.app, "read_only", False):  # B would only refuse
                note, short = "read-only: nothing can be ruled", "read-only"
            elif unsure == marked:
                note = f"{UNSURE_MARK} all need a careful look: B rules none"
                short = f"{UNSURE_MARK} all unsure: B rules none"
            elif unsure:
                note, short = f"B rules the {marked - unsure} sure", f"B: {marked - unsure} sure"
            else:
                note, short = "B rules them", ""
            pieces.append(
                Piece(Text(note, style="dim"), 3, " ", Text(short, style="dim") if short else None)
            )
        parts = flt.describe()
        finding = find.display
        if finding and flt.text.strip():
            parts = parts[:-1]  # the find box itself shows the text
        kept_piece = Piece(
            Text(f"+ {kept} ruled elsewhere", style="bold"),
            1,
            " ",
            Text(f"+ {kept} elsewhere", style="bold"),
        )
        if flt.active:
            pieces.append(Piece(Text(" FILTER ", style="bold reverse"), 0, " · " if marked else ""))
            pieces.append(Piece(Text(f"{shown} of {pending}", style="bold"), 0, " "))
            if kept:
                pieces.append(kept_piece)
            # the way out before the details: a narrow line (the find box beside it at
            # 80 columns) drops the filters' description, never the hint
            pieces.append(
                Piece(Text("Esc clears", style="dim"), 2, " · ", Text("Esc", style="dim"))
            )
            # the later filters are dropped first, and "…" says some are not shown
            pieces.extend(Piece(Text(p), 10 + i, " · ", more=True) for i, p in enumerate(parts))
        else:
            joint = " · " if marked else ""
            pieces.append(Piece(Text(f"All {pending} pending", style="bold"), 0, joint))
            if kept:
                pieces.append(kept_piece)
            pieces.append(Piece(Text("f filter", style="dim"), 4, " · "))
            pieces.append(Piece(Text("/ find", style="dim"), 5, " · "))
        summary.update(FittedLine(pieces))
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
