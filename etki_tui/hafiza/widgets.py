"""Hafıza's two widgets (:mod:`etki_tui.hafiza.pane` lays them out): the list, which marks
its highlighted entry under NO_COLOR, and the preview beside it."""

from __future__ import annotations

from rich.segment import Segment
from textual.containers import Vertical
from textual.events import Resize
from textual.strip import Strip
from textual.widgets import OptionList

from etki_tui.glyphs import CURSOR_MARK
from etki_tui.hafiza.reader import PageReader
from etki_tui.live import part


class Preview(Vertical):
    """The right-hand side: a card or the reader; Enter reads it full-screen."""

    ALLOW_MAXIMIZE = True

    def on_resize(self, event: Resize) -> None:
        """Show the reader's contents when there is room for them."""
        reader = part(self, PageReader)
        if reader is not None:  # none while being removed
            reader.fit_toc(event.size.width)


class MemoryList(OptionList):
    """Hafıza's list. With NO_COLOR the highlighted entry's first line starts with
    :data:`~etki_tui.glyphs.CURSOR_MARK`, as the queue's cursor row does:
    the highlight is drawn as colours, which NO_COLOR strips, and bold alone was hard to
    find (a trial). Lines are those of OptionList; the mark takes a leading blank where
    there is one, else the line moves one cell right."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        if not getattr(self.app, "no_color", False) or self.highlighted is None:
            return strip
        marked = self.get_component_rich_style("option-list--option-highlighted").bgcolor

        def highlighted(line: Strip) -> bool:  # a mark of its own (DISPUTED) keeps its colours
            return any(seg.style is not None and seg.style.bgcolor == marked for seg in line)

        segments = list(strip)
        if not segments or not highlighted(strip):
            return strip
        if y > 0 and highlighted(super().render_line(y - 1)):
            return strip  # only the entry's first line
        first = segments[0]
        if first.text.startswith(" "):
            segments[0] = Segment(CURSOR_MARK + first.text[1:], first.style, first.control)
            return Strip(segments, strip.cell_length)
        head = Segment(CURSOR_MARK, first.style)
        return Strip([head, *segments], strip.cell_length + 1).crop(0, strip.cell_length)
