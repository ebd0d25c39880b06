"""``l`` in the Hafıza reader: the page's links to other wiki pages, to follow from the
keyboard (a click works too, but the desk is keyboard-first)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList
from textual.widgets.option_list import Option

from etki.text import printable
from etki_tui.actions import bindings
from etki_tui.live import part


class LinksScreen(ModalScreen[str | None]):
    """Pick a link; dismisses with its target (a wiki-relative path, or a case id for
    the queue's similar rulings), or None. ``links`` are (label, target) pairs;
    ``details``, when given, is the dim second line of each option (default: the
    target); ``current``, when given, is the target highlighted first (the clause shown,
    issue 34: the clause list opened at the top)."""

    BINDINGS = bindings("help.close", "help")

    def __init__(
        self,
        links: Sequence[tuple[str, str]],
        *,
        title: str = "Links on this page",
        details: Sequence[str] | None = None,
        current: str | None = None,
    ) -> None:
        super().__init__()
        self.links = list(links)
        self.details = list(details) if details is not None else [t for _, t in self.links]
        self.title_text = title
        self.current = current

    def compose(self) -> ComposeResult:
        """One option per link: its text, then where it goes."""
        with Vertical(id="links-dialog") as dialog:
            dialog.border_title = self.title_text
            dialog.border_subtitle = "Enter follows · Esc closes"
            options = []
            for i, ((label, _), detail) in enumerate(zip(self.links, self.details, strict=True)):
                prompt = Text(printable(label, multiline=False), style="bold")
                prompt.append("\n  " + printable(detail, multiline=False), style="dim")
                options.append(Option(prompt, id=str(i)))
            yield OptionList(*options, id="links-list", markup=False)
        yield Footer()  # this list's keys, not the desk's underneath (a list of A)

    def on_mount(self) -> None:
        """The current link (else the first) is highlighted, scrolled into the frame:
        Enter follows it (none when the desk closes while the list is built)."""
        links = part(self, OptionList)
        if links is None:
            return
        targets = [t for _, t in self.links]
        links.highlighted = targets.index(self.current) if self.current in targets else 0
        self.call_after_refresh(links.scroll_to_highlight)
        links.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.links[int(event.option.id or 0)][1])

    def action_close(self) -> None:
        """Close without following a link."""
        self.dismiss(None)
