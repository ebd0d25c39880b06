"""The Hafıza reader's table of contents (``t``): Textual's Markdown contents, each
heading shown without its repeated contract id and fitted to its column, and under the
tree the highlighted heading whole, wrapped with a hanging indent, while any heading is
cut (issue 34: at 80x24 tdrs's long clause titles were cut at the frame, so a reviewer
could not tell "2.1 — Scope, Expectations, Anticipated Period of Performance, Est…" from
"2.3 — Anticipated Period of Performance, Estimated Cost, and Ceil…" apart)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static, Tree
from textual.widgets.markdown import MarkdownTableOfContents

from etki.text import printable
from etki_tui.render import fit, number_is_title_slug

_REPEATED_ID = re.compile(r"^[^\s#]+#(?=\S)")
"""The contract id a contract page's clause headings all start with (``tdrs-rfq#2.1 —
Scope``): the contents leave it out, it is the page's own title and took the column."""


def toc_label(name: str) -> str:
    """A heading as the contents list it: without a leading ``<contract id>#`` (see
    :data:`_REPEATED_ID`), so ``tdrs-rfq#2.1 — Scope of work`` reads ``2.1 — Scope of
    work``; an unnumbered clause's ref, the slug of its own title, left out too
    (:func:`~etki_tui.render.number_is_title_slug`: ``performance-work-statement-pws — PERFORMANCE WORK STATEMENT
    (PWS)`` reads ``PERFORMANCE WORK STATEMENT (PWS)``; talentmap's two such headings
    were cut in the 52-cell column beside its page at 120x40, the title said twice);
    any other heading unchanged."""
    label = _REPEATED_ID.sub("", name, count=1)
    number, sep, title = label.partition(" — ")
    if sep and number_is_title_slug(number, title):
        return title.strip()
    return label


TOC_TREE_CHROME = 4
"""Cells of the contents column besides a row's own cells: the tree's padding (1 each
side, ``#reader-toc > Tree`` in etki.tcss) and a vertical scrollbar (2 cells, Textual's
default ``scrollbar-size-vertical``)."""


class PageContents(MarkdownTableOfContents):
    """Textual's table of contents (a :class:`~textual.widgets.Tree` inside
    ``MarkdownTableOfContents``) with every heading shown without its repeated contract
    id (:func:`toc_label`) and fitted to its column, cut with ``…`` (Textual's tree
    crops a long label at the edge without a sign). Labels are refitted when the column
    changes width. Keys (on the tree, focused when ``t`` opens it): Up/Down move,
    Enter goes to the heading (:class:`Markdown.TableOfContentsSelected`), Esc closes."""

    BINDINGS = [Binding("escape", "close", "Close contents", show=False)]

    on_close: Callable[[], None] | None = None
    """What Esc does: the reader's close (set by the reader that composes this)."""

    def compose(self) -> ComposeResult:
        """Textual's tree, then the highlighted heading whole (hidden while every
        heading fits its row, :meth:`fit_labels`)."""
        yield from super().compose()
        whole = Static("", id="reader-toc-whole", markup=False)
        whole.display = False
        yield whole

    def rebuild_table_of_contents(self, table_of_contents: Any) -> None:
        """Textual's tree of ``table_of_contents`` ((level, heading, block id) triples),
        then every label fitted."""
        super().rebuild_table_of_contents(table_of_contents)
        self._headings = {
            block: (level, toc_label(name)) for level, name, block in table_of_contents
        }
        self.fit_labels()

    def on_resize(self) -> None:
        self.fit_labels()
        # the tree inside is given its new size in the same layout pass: fit again once
        # drawn (else a label cut for the old width was cropped at the edge, no sign)
        self.call_after_refresh(self.fit_labels)

    def _rows(self) -> list[tuple[Any, int, str, int]]:
        """(node, level, label, cells before the label) of every heading in the tree:
        the guides (4 cells a level below the first), the expand arrow of a heading with
        sub-headings (2) and the level's numeral (2)."""
        headings = getattr(self, "_headings", None)
        trees = self.query(Tree)
        if not headings or not trees:
            return []
        rows = []
        stack = list(trees.first().root.children)
        while stack:
            node = stack.pop()
            stack.extend(node.children)
            level_name = headings.get((node.data or {}).get("block_id"))
            if level_name is None:
                continue
            level, name = level_name
            lead = 4 * (level - 1) + (2 if node.allow_expand else 0) + 2
            rows.append((node, level, name, lead))
        return rows

    def needed_cells(self) -> int:
        """Cells the column needs to show every heading whole (0 with no headings)."""
        rows = self._rows()
        if not rows:
            return 0
        return max(lead + cell_len(name) for _, _, name, lead in rows) + TOC_TREE_CHROME

    def fit_labels(self) -> None:
        """Cut each heading to the cells its row leaves (see :meth:`_rows`), then have
        the tree measure its lines again: Textual's ``set_label`` repaints a line but
        keeps the tree's virtual width, measured from the labels of its last build (the
        tree's own resize rebuilds before these labels are refitted). A trial resized
        120 -> 100 columns with the contents open and kept 42 cells of content in a
        33-cell column, a horizontal scroll a fresh desk at 100 columns has not."""
        trees = self.query(Tree)
        if not trees:
            return
        tree = trees.first()
        width = tree.scrollable_content_region.width  # less its scrollbar
        if width <= 0:
            return  # not laid out yet: on_resize comes
        changed = False
        cut: list[str] = []
        for node, _level, name, lead in self._rows():
            label = node.label
            plain = label.plain if isinstance(label, Text) else str(label)
            numeral = plain.split(" ", 1)[0] + " "  # Textual's Ⅰ, Ⅱ, …
            room = max(width - lead, 1)
            if cell_len(name) > room:
                cut.append(name)
            fitted = Text.assemble((numeral, "dim"), fit(name, room))
            if label != fitted:  # rich Text: same words and styles
                node.set_label(fitted)
                changed = True
        if changed:
            # Textual's Tree builds its lines and virtual width again on its next idle
            # from the labels set above when told its style changed (the public call
            # that clears its caches, as its own resize does)
            tree.notify_style_update()
        self._fit_whole(cut)

    # --- the highlighted heading whole ---------------------------------------------------

    def _whole_cells(self) -> int:
        """Cells a line of the whole heading has: the column less the padding (1 each
        side, ``#reader-toc-whole`` in etki.tcss)."""
        return max(self.size.width - 2, 1)

    def _fit_whole(self, cut: list[str]) -> None:
        """Shown while some heading is cut (``cut``: those headings), as many lines high
        as the longest of them takes whole (:func:`hanging`), so moving the highlight
        never changes the tree's height; hidden when every heading fits."""
        whole = self.query("#reader-toc-whole").results(Static)
        panel = next(iter(whole), None)
        if panel is None:
            return
        cells, console = self._whole_cells(), self.app.console
        height = max((len(hanging(n, cells, console).split()) for n in cut), default=0)
        panel.styles.height = max(height, 1)
        panel.display = bool(cut)
        self._show_whole()

    def _show_whole(self) -> None:
        """The highlighted heading whole in the panel under the tree (blank with none)."""
        panel = next(iter(self.query("#reader-toc-whole").results(Static)), None)
        tree = next(iter(self.query(Tree).results(Tree)), None)
        if panel is None or tree is None or not panel.display:
            return
        node = tree.cursor_node
        headings = getattr(self, "_headings", None) or {}
        found = headings.get((node.data or {}).get("block_id")) if node is not None else None
        if found is None:
            panel.update("")
            return
        panel.update(hanging(found[1], self._whole_cells(), self.app.console))

    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted[Any]) -> None:
        """Another heading highlighted: shown whole under the tree."""
        self._show_whole()

    def action_close(self) -> None:
        """Esc: close the contents, back to the page."""
        if self.on_close is not None:
            self.on_close()


WHOLE_MAX_LINES = 3
"""Most lines the highlighted heading takes whole under the contents (the longest tdrs
heading, 7.2.1's 98 characters, takes 2 at 80 columns and 3 in the 40-cell column beside
the page at 110): a longer one ends in ``…`` on its last line."""

LEAD_MAX_CELLS = 12
"""Widest clause number (``9.3.1 — `` and its dash) a wrapped heading's next lines are
indented under; a wider lead, or none, indents them by 2."""


def hanging(label: str, width: int, console: Console) -> Text:
    """``label`` (a heading as the contents list it, :func:`toc_label`) wrapped to
    ``width`` cells, its later lines indented under the title so that the clause
    number (``7.2.1 — ``, in bold) stands alone at the left; a heading without a number
    (or one too wide, :data:`LEAD_MAX_CELLS`) has its later lines indented by 2. At most
    :data:`WHOLE_MAX_LINES` lines, the last cut with ``…``. Untrusted text: shown
    literally (:func:`printable`, no markup)."""
    label = printable(label, multiline=False)
    number, sep, title = label.partition(" — ")
    lead = number + sep if sep and cell_len(number + sep) <= LEAD_MAX_CELLS else ""
    body = title if lead else label
    indent = cell_len(lead) if lead else 2
    first = max(width - cell_len(lead), 1)
    rest = max(width - indent, 1)
    lines = [line.plain.rstrip() for line in Text(body).wrap(console, first)]
    if len(lines) > 1:  # the later lines again, in the narrower room after the indent
        later = " ".join(lines[1:])
        lines = lines[:1] + [ln.plain.rstrip() for ln in Text(later).wrap(console, rest)]
    if len(lines) > WHOLE_MAX_LINES:
        kept = lines[: WHOLE_MAX_LINES - 1]
        lines = [*kept, fit(" ".join(lines[WHOLE_MAX_LINES - 1 :]), rest)]
        if cell_len(lines[-1]) < rest:  # the cut fell on a line end
            lines[-1] = fit(lines[-1] + "  ", rest)
    out = Text()
    out.append(lead, style="bold")
    out.append(lines[0] if lines else "")
    for line in lines[1:]:
        out.append("\n" + " " * indent + line)
    return out
