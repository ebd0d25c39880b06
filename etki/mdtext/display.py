"""A clause's display form (issue 12 item 1), the *display* part of :mod:`etki.mdtext`
(moved from ``etki/wiki/clauses.py`` by issue 31, which re-exports it): clean markdown
for readers, made from the clause's source markdown (``ScopeClause.text``).

Real contracts are Word or PDF conversions (the tdrs engagement's are): links whose
words sit in ``<span>`` tags, list items that are block quotes, raw HTML tables, source
lines hard-wrapped at 72 columns. :func:`clause_markdown` reads them with the knowledge
kernel's markdown parser (:func:`etki.mdtext.parser.markdown_parser`, markdown-it-py,
walked as its :class:`~markdown_it.tree.SyntaxTreeNode` tree; never regexes over the raw
text) and writes markdown that any viewer shows as the document meant it:

* each paragraph is **one line** (the source's soft line breaks joined with a space), so
  a reader reflows it to its own width; blank-line paragraphs stay paragraphs;
* list items stay list items (``-`` or ``1.``, nested items indented under their
  parent); block-quote marks are dropped (their content stays where it was);
* bold, italic and strikethrough stay (``**``, ``*``, ``~~``); runs of ``*`` the parser
  left as text (unpaired bold of a conversion: ``**(**QASP)``) are dropped, as in
  :func:`etki.mdtext.plain.markdown_plain`;
* a link gives its words (``[the guide](https://x)`` -> ``the guide``; a link whose words
  are its address keeps the address as words); an image its alt text; a wikilink
  ``[[target|alias]]`` its alias (else the target without a ``type::`` prefix);
* HTML never reaches the output: inline tags are dropped (their text stays), an HTML
  block is read with the standard library's :class:`html.parser.HTMLParser` (entities
  decoded, nothing rendered or executed; ``<strong>``/``<b>`` and ``<em>``/``<i>`` kept as
  bold and italic, ``script``/``style`` content and comments dropped);
* a table (markdown or HTML) becomes rows: its header row a paragraph, every other row a
  list item, the non-empty cells of a row joined with :data:`CELL_JOIN` — readable at
  any width, where a wide table is not;
* headings inside a clause become bold paragraphs (the page around a clause has its own
  headings); fenced and indented code stays a fenced block (:func:`md_block`); thematic
  breaks give nothing.

Every piece of the clause's own text goes through :func:`etki.mdtext.literal.md_inline`
(control characters made visible, emphasis, link, HTML, autolink and table characters
backslash-escaped), so nothing the contract says can become a link, an image, HTML or a
heading, in the wiki (linkify on) or in the desk. The result is a pure function of the
text: no clock, no randomness; LF line endings, no trailing newline, ``""`` for a text
without words.

The desk renders it with Rich's :class:`rich.markdown.Markdown` (the detail pane) and
Textual's ``Markdown`` widget (the reader, on the wiki's contract pages); the wiki
writes it on ``entities/contracts/{id}.md``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from html.parser import HTMLParser

from markdown_it.tree import SyntaxTreeNode

from etki.mdtext.literal import md_block, md_inline
from etki.mdtext.parser import (
    BLOCK_TAGS,
    BR,
    CELL_TAGS,
    SKIP_TAGS,
    STRAY_STARS,
    WIKILINK,
    markdown_parser,
    wikilink_words,
)
from etki.text import printable

__all__ = ["CELL_JOIN", "clause_markdown"]

CELL_JOIN = " · "
"""Between the cells of one table row in the display form."""

_SPACE = re.compile(r"\s+")


def _escape(piece: str) -> str:
    """One piece of a line's text as literal markdown (:func:`md_inline`), keeping a
    leading and a trailing space (they separate it from its neighbours)."""
    core = md_inline(piece)
    if not core:
        return " " if piece[:1].isspace() or piece[-1:].isspace() else ""
    lead = " " if piece[:1].isspace() else ""
    trail = " " if piece[-1:].isspace() else ""
    return lead + core + trail


def _wrap(inner: str, mark: str) -> str:
    """``inner`` between emphasis marks ``mark``, its outer spaces moved outside (a mark
    next to a space would not open or close)."""
    core = inner.strip()
    if not core:
        return inner
    lead = " " if inner[:1].isspace() else ""
    trail = " " if inner[-1:].isspace() else ""
    return f"{lead}{mark}{core}{mark}{trail}"


def _code_span(code: str) -> str:
    code = " ".join(printable(code, multiline=False).split())
    if not code:
        return ""
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if code.startswith("`") or code.endswith("`") else ""
    return f"{ticks}{pad}{code}{pad}{ticks}"


def _inline(nodes: list[SyntaxTreeNode], *, styled: bool = True) -> str:
    """The display markdown of inline nodes (one line, not yet space-collapsed)."""
    out: list[str] = []
    for node in nodes:
        kind = node.type
        if kind == "text":
            out.append(_escape(STRAY_STARS.sub("", WIKILINK.sub(wikilink_words, node.content))))
        elif kind == "text_special":
            out.append(_escape(node.content))
        elif kind in ("softbreak", "hardbreak"):
            out.append(" ")
        elif kind == "code_inline":
            out.append(_code_span(node.content) if styled else _escape(node.content))
        elif kind in ("strong", "em", "s"):
            inner = _inline(node.children, styled=styled)
            mark = {"strong": "**", "em": "*", "s": "~~"}[kind]
            out.append(_wrap(inner, mark) if styled else inner)
        elif kind in ("link", "image"):
            out.append(
                " " + _inline(node.children, styled=styled) + " "
                if kind == "image"
                else _inline(node.children, styled=styled)
            )
        elif kind == "html_inline" and BR.match(node.content.strip()):
            out.append(" ")
        # other inline HTML: dropped (its text, between the tags, is a text node)
    return "".join(out)


def _line(nodes: list[SyntaxTreeNode], *, styled: bool = True) -> str:
    return _SPACE.sub(" ", _inline(nodes, styled=styled)).strip()


def _inline_of(node: SyntaxTreeNode, *, styled: bool = True) -> str:
    """The one line of a block whose only child is an ``inline`` node."""
    return "".join(
        _line(child.children, styled=styled) for child in node.children if child.type == "inline"
    )


def _item(marker: str, blocks: list[str]) -> str:
    """A list item: ``marker`` before the first block, every line after it indented
    under the marker's text, blocks separated by a blank line (a nested list by none)."""
    pad = " " * len(marker)
    lines: list[str] = []
    for k, block in enumerate(blocks):
        if k and not _is_list(block):
            lines.append("")
        for text in block.split("\n"):
            lines.append(((pad if lines else marker) + text) if text else "")
    return "\n".join(lines)


def _is_list(block: str) -> bool:
    return block.startswith("- ") or bool(re.match(r"\d{1,9}\. ", block))


def _list(items: list[str]) -> str:
    """Items one per line when each is one block, else a blank line between them."""
    loose = any("\n\n" in item for item in items)
    return ("\n\n" if loose else "\n").join(items)


def _rows(header: list[str], rows: list[list[str]]) -> list[str]:
    """A table as blocks: the header row a paragraph, the other rows list items."""
    out: list[str] = []
    head = CELL_JOIN.join(cell for cell in header if cell)
    if head:
        out.append(head)
    items = [_item("- ", [CELL_JOIN.join(c for c in row if c)]) for row in rows if any(row)]
    if items:
        out.append(_list(items))
    return out


def _blocks(node: SyntaxTreeNode) -> list[str]:
    """The display blocks of ``node``'s children (each block one or more lines)."""
    out: list[str] = []
    previous: SyntaxTreeNode | None = None
    for child in node.children:
        kind = child.type
        prev, previous = previous, child
        if (
            kind == "blockquote"
            and _continues(prev, child)
            and out
            and child.children
            and child.children[0].type == "paragraph"
        ):
            # a quote mark on the next line of a paragraph (``render in`` / ``> FS
            # Bid.``, a conversion's wrap): the quoted words continue the paragraph
            rest = _blocks(child)
            if rest:
                out[-1] = f"{out[-1]} {rest[0]}"
                out.extend(rest[1:])
            continue
        if kind == "paragraph":
            text = _inline_of(child)
            if text:
                out.append(text)
        elif kind == "heading":
            text = _inline_of(child, styled=False)
            if text:
                out.append(f"**{text}**")
        elif kind in ("bullet_list", "ordered_list"):
            start = int(child.attrs.get("start", 1) or 1) if kind == "ordered_list" else 0
            items = []
            for k, item in enumerate(c for c in child.children if c.type == "list_item"):
                inner = _blocks(item)
                if inner:
                    marker = f"{start + k}. " if kind == "ordered_list" else "- "
                    items.append(_item(marker, inner))
            if items:
                out.append(_list(items))
        elif kind == "blockquote":
            out.extend(_blocks(child))
        elif kind == "table":
            header: list[str] = []
            rows: list[list[str]] = []
            for part in child.children:
                for row in part.children:
                    cells = [_inline_of(cell) for cell in row.children]
                    if part.type == "thead" and not header:
                        header = cells
                    else:
                        rows.append(cells)
            out.extend(_rows(header, rows))
        elif kind == "html_block":
            out.extend(_html_blocks(child.content))
        elif kind in ("fence", "code_block"):
            if child.content.strip():
                out.append(md_block(child.content))
        elif kind != "hr" and child.children:
            out.extend(_blocks(child))
    return out


def _continues(prev: SyntaxTreeNode | None, node: SyntaxTreeNode) -> bool:
    """True when ``node`` starts on the line right after the paragraph ``prev`` ends (no
    blank line between them)."""
    return (
        prev is not None
        and prev.type == "paragraph"
        and prev.map is not None
        and node.map is not None
        and prev.map[1] == node.map[0]
    )


class _HtmlBlocks(HTMLParser):
    """Display blocks of an HTML block: paragraphs, list items and table rows; text with
    its bold and italic, everything else dropped."""

    _BLOCK = BLOCK_TAGS
    _SKIP = SKIP_TAGS
    _BOLD = frozenset({"strong", "b"})
    _ITALIC = frozenset({"em", "i"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self.runs: list[tuple[str, bool, bool]] = []  # (text, bold, italic)
        self.bold = self.italic = self.skipping = 0
        self.row: list[str] | None = None  # cells of the open table row
        self.in_cell = False
        self.header: list[str] = []
        self.table_rows: list[list[str]] = []
        self.in_head = False
        self.row_th = False  # every cell of the open row is a <th>
        self.items: list[str] = []  # list items of the open list
        self.in_item = False

    def _text(self) -> str:
        """The runs so far as one line of display markdown (and forget them)."""
        groups: list[tuple[str, bool, bool]] = []
        for text, bold, italic in self.runs:
            if groups and groups[-1][1:] == (bold, italic):
                groups[-1] = (groups[-1][0] + text, bold, italic)
            else:
                groups.append((text, bold, italic))
        self.runs = []
        out = []
        for text, bold, italic in groups:
            piece = _escape(_SPACE.sub(" ", text))
            mark = ("**" if bold else "") + ("*" if italic else "")
            out.append(_wrap(piece, mark) if mark else piece)
        return _SPACE.sub(" ", "".join(out)).strip()

    def _flush(self) -> None:
        if self.in_cell:
            return
        text = self._text()
        if not text:
            return
        if self.in_item:
            self.items.append(text)
        else:
            self._end_list()
            self.blocks.append(text)

    def _end_cell(self) -> None:
        if self.in_cell and self.row is not None:
            self.in_cell = False
            self.row.append(self._text())

    def _end_row(self) -> None:
        self._end_cell()
        if self.row is not None:
            if (self.in_head or self.row_th) and not self.header and not self.table_rows:
                self.header = self.row
            else:
                self.table_rows.append(self.row)
        self.row = None

    def _end_table(self) -> None:
        self._end_row()
        if self.header or self.table_rows:
            self.blocks.extend(_rows(self.header, self.table_rows))
        self.header, self.table_rows = [], []

    def _end_list(self) -> None:
        if self.items:
            self.blocks.append(_list([_item("- ", [item]) for item in self.items]))
        self.items = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._SKIP:
            self.skipping += 1
        elif tag in self._BOLD:
            self.bold += 1
        elif tag in self._ITALIC:
            self.italic += 1
        elif tag == "br":
            self.handle_data(" ")
        elif tag == "img":
            alt = dict(attrs).get("alt") or ""
            self.handle_data(f" {alt} ")
        elif tag == "tr":
            self._flush()
            self._end_row()
            self.row = []
            self.row_th = True
        elif tag in CELL_TAGS:
            if self.row is None:
                self._flush()
                self.row = []
                self.row_th = True
            self._end_cell()
            self.in_cell = True
            self.row_th = self.row_th and tag == "th"
        elif tag == "li":
            self._flush()
            self.in_item = True
        elif tag in self._BLOCK:
            if self.in_cell:
                self.handle_data(" ")
            else:
                self._flush()
                if tag == "thead":
                    self.in_head = True

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP:
            self.skipping = max(0, self.skipping - 1)
        elif tag in self._BOLD:
            self.bold = max(0, self.bold - 1)
        elif tag in self._ITALIC:
            self.italic = max(0, self.italic - 1)
        elif tag == "tr":
            self._end_row()
        elif tag in CELL_TAGS:
            self._end_cell()
        elif tag == "li":
            self._flush()
            self.in_item = False
        elif tag == "thead":
            self._end_row()
            self.in_head = False
        elif tag == "table":
            self._end_table()
        elif tag in ("ul", "ol"):
            self._flush()
            self.in_item = False
            self._end_list()
        elif tag in self._BLOCK:
            if self.in_cell:
                self.handle_data(" ")
            else:
                self._flush()

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.runs.append((data, self.bold > 0, self.italic > 0))

    def result(self) -> list[str]:
        self.close()
        self._end_cell()
        self.in_cell = False
        if self.row is not None or self.header or self.table_rows:
            self._end_table()
        self._flush()
        self.in_item = False
        self._end_list()
        return self.blocks


def _html_blocks(html: str) -> list[str]:
    parser = _HtmlBlocks()
    parser.feed(html)
    return parser.result()


@lru_cache(maxsize=4096)
def clause_markdown(markdown: str) -> str:
    """The display form of a clause's source markdown (rules in the module docstring):
    blocks separated by one blank line, LF line endings, no trailing newline, ``""``
    when the text has no words. Pure and deterministic; cached on the text.

    >>> clause_markdown("A **wrapped**\\nline, see [the guide](https://x.org).\\n\\n> - item")
    'A **wrapped** line, see the guide.\\n\\n- item'
    """
    if not markdown.strip():
        return ""
    tree = SyntaxTreeNode(markdown_parser().parse(markdown))
    return "\n\n".join(_blocks(tree))
