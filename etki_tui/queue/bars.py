"""The queue pane's two bars: the filter line over the table and the case detail under it (widgets the pane composes), and the bulk mark."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.geometry import Region
from textual.widgets import Input, Static

from etki_tui.glyphs import UNSURE_MARK
from etki_tui.inputs import TypingInput
from etki_tui.live import part
from etki_tui.queue.filters import SORT_SHORT, QueueFilter

MARK = "*"
"""Drawn before the id of a case marked for a bulk ruling (ASCII: one cell everywhere)."""


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

    def _lines(self) -> list[str]:
        """The body's lines as drawn now (plain text)."""
        body = part(self, "#detail-body", Static)
        if body is None or not body.size.height:
            return []
        region = Region(0, 0, body.size.width, body.size.height)
        return ["".join(s.text for s in strip) for strip in body.render_lines(region)]

    def place(self) -> tuple[str, int, int] | None:
        """Where the reader is: the line at the top of the view, how many equal lines
        come before it, and the scroll offset; None at the top (nothing to keep)."""
        top = int(self.scroll_y)
        lines = self._lines()
        if top <= 0 or top >= len(lines):
            return None
        return lines[top], lines[:top].count(lines[top]), top

    def keep_place(self, place: tuple[str, int, int]) -> None:
        """Scroll so that the line :meth:`place` saw at the top is at the top again (the
        body was drawn anew: a clause folded or unfolded above or around it); where the
        line is gone, back to the same offset."""
        text, nth, top = place
        seen = -1
        for y, line in enumerate(self._lines()):
            if line == text:
                seen += 1
                if seen == nth:
                    top = y
                    break
        self.scroll_to(y=top, animate=False)


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
