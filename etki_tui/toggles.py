"""Radio buttons and check boxes that say their state without colour: Textual draws the
same glyph in an on and an off button and tells them apart by colour alone, which
NO_COLOR and a text capture lose (a PMO trial of issue 35 read the CR form's format and
appendix with NO_COLOR). These draw :data:`~etki_tui.glyphs.RADIO_ON` /
:data:`~etki_tui.glyphs.RADIO_OFF` and :data:`~etki_tui.glyphs.TICKED` /
:data:`~etki_tui.glyphs.UNTICKED` inside the button, as :class:`etki_tui.screens.cr_export.TickList`
does for a list to tick; :class:`MarkedOptionList` marks the highlighted option."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.content import Content
from textual.strip import Strip
from textual.widgets import Checkbox, OptionList, RadioButton

from etki_tui.glyphs import CURSOR_MARK, RADIO_OFF, RADIO_ON, TICKED, UNTICKED


class MarkedRadioButton(RadioButton):
    """A :class:`RadioButton` whose button reads ``●`` when chosen and ``○`` when not."""

    def render(self) -> Content:
        """Textual's button and label, the inner glyph following the value."""
        self.BUTTON_INNER = RADIO_ON if self.value else RADIO_OFF
        return super().render()


class MarkedCheckbox(Checkbox):
    """A :class:`Checkbox` whose box reads ``X`` when ticked and blank when not."""

    def render(self) -> Content:
        """Textual's box and label, the inner glyph following the value."""
        self.BUTTON_INNER = TICKED if self.value else UNTICKED
        return super().render()


class MarkedOptionList(OptionList):
    """An OptionList whose highlighted entry reads without colour (Hafıza's list, the
    assign and views pickers). With NO_COLOR the highlighted entry's first line starts
    with :data:`~etki_tui.glyphs.CURSOR_MARK`, as the queue's cursor row does: the highlight is drawn as colours, which NO_COLOR strips, and bold alone was hard to
    find (a trial; the assign list's names are all bold: a PMO trial of issue 35). Lines are those of OptionList; the mark takes a leading blank where
    there is one, else the line moves one cell right. In colour the highlighted entry
    is drawn in the highlight's own foreground (:meth:`_row_colour`)."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        if self.highlighted is None:
            return strip
        row = self.get_component_rich_style("option-list--option-highlighted")
        marked = row.bgcolor

        def highlighted(line: Strip) -> bool:  # a mark of its own (DISPUTED) keeps its colours
            return any(seg.style is not None and seg.style.bgcolor == marked for seg in line)

        segments = list(strip)
        if not segments or not highlighted(strip):
            return strip
        if not getattr(self.app, "no_color", False):
            return self._row_colour(strip, row)
        if y > 0 and highlighted(super().render_line(y - 1)):
            return strip  # only the entry's first line
        first = segments[0]
        if first.text.startswith(" "):
            segments[0] = Segment(CURSOR_MARK + first.text[1:], first.style, first.control)
            return Strip(segments, strip.cell_length)
        head = Segment(CURSOR_MARK, first.style)
        return Strip([head, *segments], strip.cell_length + 1).crop(0, strip.cell_length)

    @staticmethod
    def _row_colour(strip: Strip, row: Style) -> Strip:
        """The highlighted entry's line drawn in the highlight's own foreground: a
        coloured word in it (a green ``✓ IN_SCOPE``) read green on blue, hard to read (a
        fresh trial of issue 34). Bold, the glyph and the word still say the verdict; a
        mark with a background of its own (the red DISPUTED) keeps its colours."""
        if row.color is None:
            return strip
        ink = Style(color=row.color)
        return Strip(
            [
                Segment(seg.text, seg.style + ink, seg.control)
                if seg.style is not None and seg.style.bgcolor == row.bgcolor
                else seg
                for seg in strip
            ],
            strip.cell_length,
        )
