"""Radio buttons and check boxes that say their state without colour: Textual draws the
same glyph in an on and an off button and tells them apart by colour alone, which
NO_COLOR and a text capture lose (a PMO trial of issue 35 read the CR form's format and
appendix with NO_COLOR). These draw :data:`~etki_tui.glyphs.RADIO_ON` /
:data:`~etki_tui.glyphs.RADIO_OFF` and :data:`~etki_tui.glyphs.TICKED` /
:data:`~etki_tui.glyphs.UNTICKED` inside the button, as :class:`etki_tui.screens.cr_export.TickList`
does for a list to tick."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Checkbox, RadioButton

from etki_tui.glyphs import RADIO_OFF, RADIO_ON, TICKED, UNTICKED


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
