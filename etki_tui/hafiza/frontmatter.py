"""A wiki page's frontmatter as the Hafıza reader shows it: split from the body and
shown literally, long lines hanging under their own value (moved out of
:mod:`etki_tui.hafiza.reader`, which imports both names from here)."""

from __future__ import annotations

import re

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from etki.text import printable
from etki_tui.render import id_lines


def split_frontmatter(text: str) -> tuple[str, str]:
    """(frontmatter, body) of a wiki page: the YAML block between a first line ``---``
    and the next ``---`` line, and the rest. No YAML parsing: the block is shown as it
    is written (a hand-edited page that would not parse still shows)."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    if not text.startswith("---\n"):
        return "", text
    end = text.find("\n---\n", 3)
    if end < 0:
        return "", text
    return text[4:end], text[end + 5 :]


_YAML_LEAD = re.compile(r"^(\s*(?:- )*(?:[^\s:#][^:]*:(?=\s|$)\s?)?)")
"""The part of a YAML line a wrapped value hangs under: its indent, any ``- ``
markers, and a ``key: `` (a key is text up to the first colon followed by a space or
the line's end)."""


class FrontmatterLines:
    """A page's frontmatter (YAML text, shown literally) with hanging indents: a line
    longer than the pane wraps under its own value (after its indent, ``- `` markers and
    ``key: ``) instead of back to column 0, as a page's ``title:`` or a reviewer's
    ``reason:`` runs past 80 columns. A Rich renderable: the width is the pane's at
    render time. The text is the page's own, never interpreted
    (:func:`etki.text.printable`)."""

    def __init__(self, meta: str, style: str = "dim") -> None:
        self.lines = printable(meta, multiline=True).split("\n")
        self.style = style

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(1, options.max_width)
        for line in self.lines:
            lead = _YAML_LEAD.match(line)
            cut = len(lead.group(1)) if lead else 0
            if cut >= len(line) or cut > width // 2:  # a bare key, or no room to hang
                cut = 0
            value = line[cut:]
            room = width - cut
            if value and not any(ch.isspace() for ch in value):  # a path, slug or id:
                # broken after / . - _, never mid-word (a trial: "…not-only-c" "urrent--")
                pieces = [Text(p, style=self.style) for p in id_lines(value, room)]
                wrapped = [w for p in pieces for w in p.wrap(console, room, overflow="fold")]
            else:
                wrapped = list(Text(value, style=self.style).wrap(console, room, overflow="fold"))
            for i, piece in enumerate(wrapped):
                head = line[:cut] if i == 0 else " " * cut
                yield Text(head, style=self.style) + piece
