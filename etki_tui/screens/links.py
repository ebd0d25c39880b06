"""``l`` in the Hafıza reader: the page's links to other wiki pages, to follow from the
keyboard (a click works too, but the desk is keyboard-first)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.styled import Styled
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList
from textual.widgets.option_list import Option

from etki.text import printable
from etki_tui.actions import bindings
from etki_tui.live import part
from etki_tui.render import IdList

NUMBERED = re.compile(r"(\d+(?:\.\d+)*)\s+(\S.*)")
"""A clause label ``number title`` (``7.2.1 Authorities and Delegations``): its number
(digits, dot-separated) and its title."""


FITS_CELLS = 60
"""A link's label or target up to this many cells is one line of the links dialog at
80 columns and wider (``#links-dialog`` is 70 cells: less its frame, padding, scrollbar
and the target's 2-cell indent, 62), so it stays plain text; a longer spaceless one is
broken by :class:`etki_tui.render.IdList`, never mid-word."""


def link_prompt(label: str, detail: str, *, hang: bool = False) -> RenderableType:
    """One option's prompt: ``label`` in bold, ``detail`` (the target, a clause's ref)
    dim on the line below, both shown literally (:func:`printable`, no markup). With
    ``hang`` a numbered label (:data:`NUMBERED`) is laid out as two columns, its number
    alone on the left and its title wrapping beside it with the ref under the title, so
    that a long title's second line starts under the title, not under the number (issue
    34: tdrs's long clause titles wrapped to the frame's edge and "2.1 Scope,
    Expectations, …" read like "2.3 Anticipated Period …" at a glance)."""
    label = printable(label, multiline=False)
    detail = printable(detail, multiline=False)
    found = NUMBERED.fullmatch(label) if hang else None
    if found is None:
        long = [p for p in (label, detail) if cell_len(p) > FITS_CELLS and " " not in p]
        if not long:  # fits the dialog's line at 80 columns: plain text
            prompt = Text(label, style="bold")
            prompt.append("\n  " + detail, style="dim")
            return prompt
        # a slug or path longer than that breaks after / and -, never mid-word (IdList)
        return Group(
            Styled(IdList([label]), "bold") if " " not in label else Text(label, style="bold"),
            Padding(IdList([detail]), (0, 0, 0, 2), style="dim", expand=False),
        )
    grid = Table.grid(expand=True, padding=(0, 1, 0, 0))
    grid.add_column(no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")
    grid.add_row(Text(found[1], style="bold"), Text(found[2], style="bold"))
    grid.add_row("", Text(detail, style="dim"))
    return grid


class LinksScreen(ModalScreen[str | None]):
    """Pick a link; dismisses with its target (a wiki-relative path, or a case id for
    the queue's similar rulings), or None. ``links`` are (label, target) pairs;
    ``details``, when given, is the dim second line of each option (default: the
    target); ``current``, when given, is the target highlighted first (the clause shown,
    issue 34: the clause list opened at the top); ``hang``: numbered labels with a
    hanging indent (:func:`link_prompt`, the contract's clause list)."""

    BINDINGS = bindings("help.close", "help")

    def __init__(
        self,
        links: Sequence[tuple[str, str]],
        *,
        title: str = "Links on this page",
        details: Sequence[str] | None = None,
        current: str | None = None,
        hang: bool = False,
    ) -> None:
        super().__init__()
        self.links = list(links)
        self.details = list(details) if details is not None else [t for _, t in self.links]
        self.title_text = title
        self.current = current
        self.hang = hang

    def compose(self) -> ComposeResult:
        """One option per link: its text, then where it goes."""
        with Vertical(id="links-dialog") as dialog:
            dialog.border_title = self.title_text
            dialog.border_subtitle = "Enter follows · Esc closes"
            options = []
            for i, ((label, _), detail) in enumerate(zip(self.links, self.details, strict=True)):
                prompt = link_prompt(label, detail, hang=self.hang)
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
