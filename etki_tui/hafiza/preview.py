"""Hafıza's preview: a card from the DB or a wiki page in the reader, race-free (issue 34
item 8: the preview once showed one page's body under another page's title, and lagged
the highlight under load).

Every change of what the preview should show (a card, the loading card of a highlighted
page, an opened page) takes a new :attr:`PreviewShown.preview_generation`. A page is laid
out in the pane's one exclusive ``memory-show`` worker, a preview behind the loading card
(the reader hidden), and shown only if no newer generation was asked for meanwhile: then
its title and its body are put on screen in one step. A load for a page that is no
longer the highlighted entry's is dropped, never shown.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Group, RenderableType
from rich.text import Text
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

from etki.domain import ScopeClause
from etki.text import printable
from etki_tui.hafiza.reader import PAGE_TEXT_CHARS, PageReader
from etki_tui.live import gone, part
from etki_tui.render import highlight, literal

PREVIEW_TEXT_CHARS = 8_000
"""Most characters of a page body the preview lays out (a decision page is 2-5 kB;
contract pages, ``index.md`` and ``disputed.md`` are far longer): Textual's Markdown
widget takes about 0.5 s for 20,000 characters on this machine, so a preview stays
quick. Enter reads the whole page (a contract page whole, any other up to
:data:`PAGE_TEXT_CHARS`)."""


class PreviewShown(Horizontal):
    """The preview side of :class:`~etki_tui.hafiza.pane.MemoryPane` (its base)."""

    # the pane's state these methods read and set (MemoryPane.__init__ sets them)
    wanted: str | None
    opened: str | None
    hits: list[tuple[str, int, str]]
    hit_titles: list[str]
    clauses: dict[str, ScopeClause]
    wiki_root: Path | None
    _card_target: tuple[str, str] | None
    _page_waiting: tuple[str, str, str | None, str] | None

    preview_generation = 0
    """Counts what the preview was asked to show: a card (the loading card of a
    highlighted page too) or an opened page each take a new generation. A page laid out
    for an older generation is not shown (:meth:`show_page`)."""

    @property
    def tokens(self) -> list[str]:
        """The folded words of the current search (the pane's)."""
        raise NotImplementedError

    def _fit_reader(self) -> None:
        raise NotImplementedError

    def show_card(self, renderable: RenderableType, target: tuple[str, str] | None = None) -> None:
        """Show a card from the DB in the preview; ``target`` is (what, text) to copy.
        A page still being laid out for the preview is dropped (a new generation).
        Nothing before the pane is composed (the highlighted entry's card is shown when
        the lists are drawn on mount) or while it is being removed."""
        self.preview_generation += 1
        self._card_target = target
        reader = part(self, PageReader)
        box = part(self, "#memory-cardbox", VerticalScroll)
        card = part(self, "#memory-card", Static)
        preview = part(self, "#memory-preview")
        if reader is None or box is None or card is None or preview is None:
            return
        reader.display = False
        box.display = True
        card.update(renderable)
        preview.border_title = "Preview"
        box.scroll_home(animate=False)

    async def show_page(
        self,
        path: str,
        text: str,
        error: str | None = None,
        *,
        history: str = "replace",
        generation: int | None = None,
        anchor: str = "",
    ) -> None:
        """Show a wiki page in the reader (client text made terminal-safe first),
        landing on the clause section ``anchor`` when given (an opened search hit).
        ``generation``: the :attr:`preview_generation` it was asked for; when a newer
        one was asked for before or while the page is laid out, it is not shown. A
        preview (``replace``) is laid out behind the loading card; then the reader, its
        body and the preview's title (the page's path) are shown in one step, so a title
        never stands over another page's body. Before the pane is composed the page is
        kept and shown on mount; while it is being removed (also during the await)
        there is nothing to show it in."""
        if gone(self):
            return
        box, reader = part(self, "#memory-cardbox"), part(self, PageReader)
        if box is None or reader is None:
            self._page_waiting = (path, text, error, history)
            return
        if generation is not None and generation != self.preview_generation:
            return  # the highlight moved on before this page's turn came
        if error is not None:
            self.show_card(
                Group(
                    literal(error, style="italic"),
                    Text(""),
                    Text(
                        "The page may have been renamed by a rebuild: Ctrl+R reloads the lists.",
                        style="dim",
                    ),
                )
            )
            return
        if generation is None:
            generation = self.preview_generation
        asked = generation

        def retitle() -> None:
            """The reader and the page's title up, its body not laid out yet (the
            body of the page before was cleared): an opened page replaces the one
            being read in place."""
            titled = part(self, "#memory-preview")
            if titled is None or asked != self.preview_generation:
                return  # a card or another page took the preview meanwhile
            self._card_target = None
            box.display = False
            reader.display = True
            titled.border_title = printable(path, multiline=False)

        refresh = history == "refresh"
        full = self.opened == path if refresh else history != "replace"
        reader.clause_refs = frozenset(self.clauses)
        await reader.show(
            path,
            text,
            tokens=self.tokens,
            history="keep" if refresh else history,
            limit=PAGE_TEXT_CHARS if full else PREVIEW_TEXT_CHARS,
            meta=full,  # the preview shows the page, not its YAML
            retitle=None if history == "replace" or refresh else retitle,
            keep_scroll=refresh,
            anchor=anchor,
        )
        preview = part(self, "#memory-preview")
        if preview is None or gone(self):
            return  # removed while the page was laid out
        if generation != self.preview_generation or reader.path != path:
            return  # a card or another page took the preview while this one was laid out
        self._card_target = None
        box.display = False
        reader.display = True
        preview.border_title = printable(path, multiline=False)
        self._fit_reader()

    def shown_page(self) -> str | None:
        """The page the preview shows now (its title is this path), or None while it
        shows a card."""
        reader = part(self, PageReader)
        if reader is None or not reader.display:
            return None
        return reader.path

    def copy_target(self) -> tuple[str, str] | None:
        """(what, text) the copy key copies here: the page's path, or the card's id."""
        reader = part(self, PageReader)
        if reader is not None and reader.display and reader.path is not None:
            full = (self.wiki_root / reader.path) if self.wiki_root is not None else None
            return "page path", str(full) if full is not None else reader.path
        return self._card_target

    def _loading_card(self, kind: str, key: str, path: str) -> RenderableType:
        """What the preview shows while the page of the highlighted entry is read: its
        title and excerpt (a search hit) or its path."""
        lines: list[RenderableType] = []
        if kind == "hit" and int(key) < len(self.hits):
            i = int(key)
            title = self.hit_titles[i] if i < len(self.hit_titles) else ""
            lines.append(highlight(literal(title or path, style="bold"), self.tokens))
            lines.append(highlight(literal(self.hits[i][2]), self.tokens))
        lines.append(literal(path, style="dim"))
        lines.append(Text("Loading the page…", style="dim italic"))
        return Group(*lines)

    def show_page_soon(
        self,
        path: str,
        text: str,
        error: str | None = None,
        *,
        history: str = "replace",
        anchor: str = "",
    ) -> None:
        """Show a page that was read (:class:`PageLoaded`) in the pane's exclusive
        ``memory-show`` worker, so the app's message queue — and every key — never
        waits while the markdown is laid out; a newer page cancels one still being laid
        out. A preview (``replace``) of a page that is no longer the highlighted entry's
        (:attr:`wanted`) is dropped; an opened page takes a new generation. ``refresh``:
        the page shown, read again because the wiki changed (:meth:`shown_page`),
        laid out again only if its text differs, in the same generation (a card or page
        asked for meanwhile wins) and at the same scroll position. ``anchor``: the
        clause section an opened search hit lands on."""
        if history == "replace" and (path != self.wanted or self.opened is not None):
            return
        if history == "refresh":
            reader = part(self, PageReader)
            if reader is None or not reader.display or reader.path != path:
                return  # not shown any more
            if error is not None or reader.text == text:
                return  # unchanged (or gone: the lists say so): nothing to lay out again
        if history not in ("replace", "refresh"):
            self.opened = self.wanted = path
            self.preview_generation += 1
        self.run_worker(
            self.show_page(
                path,
                text,
                error,
                history=history,
                generation=self.preview_generation,
                anchor=anchor,
            ),
            group="memory-show",
            exclusive=True,
            exit_on_error=False,
        )
