"""The reader's Markdown widget (Textual's, its code fences marking search matches) and
how a clause heading is found among its blocks (moved out of
:mod:`etki_tui.hafiza.reader` whole)."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.content import Content
from textual.css.query import NoMatches
from textual.widget import Widget
from textual.widgets import Label, Markdown
from textual.widgets.markdown import MarkdownFence

from etki_tui.render import MATCH_STYLE, match_spans


def heading_block(page: Markdown, title: str) -> Widget | None:
    """The heading block of ``page`` whose text is ``title`` (a clause section's
    heading, :attr:`etki.wiki.sections.Section.title`; spaces compared collapsed), else
    the first whose text begins with the same ref (``tdrs-rfq#5.2 —``: emphasis in a
    title is markup the rendered heading drops), or None."""
    want = " ".join(title.split())
    ref = want.split(" — ", 1)[0] + " —"
    names = [(" ".join(name.split()), block_id) for _lv, name, block_id in page.table_of_contents]
    block_id = next((b for n, b in names if n == want), None)
    if block_id is None and " — " in want:
        block_id = next((b for n, b in names if n.startswith(ref)), None)
    if block_id is None:
        return None
    found = page.query(f"#{block_id}")
    return found.first() if found else None


class MarkedFence(MarkdownFence):
    """A code fence that marks search matches itself (a fence re-highlights its code
    whenever styles update, which would drop marks added from outside)."""

    def _marked(self, content: Content) -> Content:
        try:  # the Markdown document this block belongs to (nested blocks too)
            tokens = getattr(self.query_ancestor(Markdown), "match_tokens", ())
        except NoMatches:  # not mounted under a document (yet)
            tokens = ()
        for start, end in match_spans(content.plain, tokens):
            content = content.stylize(MATCH_STYLE, start, end)
        return content

    def set_content(self, content: Content) -> None:
        super().set_content(self._marked(content))

    def compose(self) -> ComposeResult:
        for child in super().compose():
            if isinstance(child, Label) and isinstance(child.content, Content):
                child.update(self._marked(child.content))
            yield child


class ReaderMarkdown(Markdown):
    """Markdown whose code fences mark :attr:`match_tokens`."""

    BLOCKS = {**Markdown.BLOCKS, "fence": MarkedFence, "code_block": MarkedFence}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.match_tokens: list[str] = []
