"""Hafıza's two widgets (:mod:`etki_tui.hafiza.pane` lays them out): the list, which marks
its highlighted entry under NO_COLOR, and the preview beside it."""

from __future__ import annotations

from textual.containers import Vertical
from textual.events import Resize

from etki_tui.hafiza.reader import PageReader
from etki_tui.live import part
from etki_tui.toggles import MarkedOptionList


class Preview(Vertical):
    """The right-hand side: a card or the reader; Enter reads it full-screen."""

    ALLOW_MAXIMIZE = True

    def on_resize(self, event: Resize) -> None:
        """Show the reader's contents when there is room for them."""
        reader = part(self, PageReader)
        if reader is not None:  # none while being removed
            reader.fit_toc(event.size.width)


class MemoryList(MarkedOptionList):
    """Hafıza's list: its highlighted entry is marked under NO_COLOR
    (:class:`~etki_tui.toggles.MarkedOptionList`)."""
