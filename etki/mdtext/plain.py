"""Markdown -> plain text for scoring (issue 10 item 2), the *plain* part of
:mod:`etki.mdtext` (moved from ``etki/knowledge/plaintext.py`` by issue 31, which
re-exports it): what a reader sees, one line per block, no markup.

:func:`markdown_plain` reads markdown-it-py's token stream (the parser of
:func:`etki.mdtext.parser.markdown_parser`), never the raw text:

* each paragraph, heading, list item paragraph, quote paragraph and table row is one
  line; the lines of a hard-wrapped paragraph are joined with a space, so splitting the
  result by line gives whole paragraphs (sentence splitting by line still works);
* emphasis, strikethrough, heading, quote and list marks are dropped, and so are runs
  of two or more ``*`` the parser left as text (unpaired bold of a Word conversion:
  ``**(**QASP)`` -> ``(QASP)``); escapes are literal; code spans keep their text; images give their alt text;
* ``[text](url)`` gives ``text``; a wikilink ``[[target#heading|alias]]`` gives its alias,
  else ``target#heading`` without a ``type::`` prefix;
* web addresses are **dropped**: autolinks (``<https://...>``) and bare URLs
  (``http://``, ``https://``, ``ftp://``, ``www.``) are addresses, not words, and would
  put ``https``, ``www`` and path fragments into the lexical index; the source markdown
  (``ScopeClause.text``) keeps them;
* inline HTML tags are dropped (their text stays: ``<span class="underline">Google
  Form</span>`` -> ``Google Form``); an HTML block is reduced to its text with the
  standard library's :class:`html.parser.HTMLParser` (entities decoded, never rendered
  or executed): ``tr``, ``p``, ``li``, ``div``, ``br``, headings and list/table
  containers end a line, table cells of one row are joined with `` | `` (as markdown
  table rows are), ``script``/``style`` content and comments are dropped;
* fenced and indented code keeps its lines; thematic breaks give nothing.

White space inside a line is collapsed to single spaces; empty lines are dropped.
"""

from __future__ import annotations

import re
from functools import lru_cache
from html.parser import HTMLParser

from markdown_it.token import Token

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

__all__ = ["CELL_SEPARATOR", "markdown_plain"]

CELL_SEPARATOR = " | "
"""Between the cells of one table row in plain text."""

_ESCAPED = {"[": "\ue001", "]": "\ue002", "*": "\ue003"}  # escaped: no wikilink, kept
_URL = re.compile(
    r"(?:\b(?:https?|ftp)://|\bwww\.)[^\s<>()\[\]]*[^\s<>()\[\].,;:!?'\"]", re.IGNORECASE
)


def _inline(children: list[Token] | None) -> str:
    out: list[str] = []
    skip = 0  # inside an autolink
    for child in children or ():
        kind = child.type
        if kind == "link_open" and child.markup == "autolink":
            skip += 1
        elif kind == "link_close" and skip:
            skip -= 1
        elif skip:
            continue
        elif kind == "text" or kind == "code_inline":
            out.append(child.content)
        elif kind == "text_special":
            out.append(_ESCAPED.get(child.content, child.content))
        elif kind in ("softbreak", "hardbreak"):
            out.append(" ")
        elif kind == "image":
            out.append(" " + _inline(child.children) + " ")
        elif kind == "html_inline" and BR.match(child.content.strip()):
            out.append(" ")
        # emphasis / strikethrough / link marks and other inline HTML: dropped
    text = STRAY_STARS.sub("", WIKILINK.sub(wikilink_words, "".join(out)))
    for char, stand_in in _ESCAPED.items():
        text = text.replace(stand_in, char)
    return _URL.sub(" ", text)


class _HtmlText(HTMLParser):
    """Text of an HTML block, one line per block element, cells joined per row."""

    _LINE = BLOCK_TAGS | {"li", "tr", "br"}  # each ends a line
    _CELL = CELL_TAGS
    _SKIP = SKIP_TAGS

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.current: list[str] = []
        self.cells: list[str] | None = None  # inside a table row
        self.cell: list[str] | None = None
        self.skipping = 0

    def _end_line(self) -> None:
        text = " ".join(_URL.sub(" ", "".join(self.current)).split())
        if text:
            self.lines.append(text)
        self.current = []

    def _end_cell(self) -> None:
        if self.cell is not None and self.cells is not None:
            text = " ".join(_URL.sub(" ", "".join(self.cell)).split())
            if text:
                self.cells.append(text)
        self.cell = None

    def _end_row(self) -> None:
        self._end_cell()
        if self.cells:
            self.lines.append(CELL_SEPARATOR.join(self.cells))
        self.cells = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._SKIP:
            self.skipping += 1
        elif tag == "tr":
            self._end_line()
            self._end_row()
            self.cells = []
        elif tag in self._CELL:
            if self.cells is None:
                self._end_line()
                self.cells = []
            self._end_cell()
            self.cell = []
        elif tag in self._LINE:
            if self.cell is not None:
                self.cell.append(" ")
            else:
                self._end_line()

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP:
            self.skipping = max(0, self.skipping - 1)
        elif tag == "tr" or tag in ("table", "thead", "tbody", "tfoot"):
            self._end_row()
        elif tag in self._CELL:
            self._end_cell()
        elif tag in self._LINE:
            if self.cell is not None:
                self.cell.append(" ")
            else:
                self._end_line()

    def handle_data(self, data: str) -> None:
        if self.skipping:
            return
        (self.cell if self.cell is not None else self.current).append(data)

    def text_lines(self) -> list[str]:
        self.close()
        self._end_row()
        self._end_line()
        return self.lines


def _html_lines(html: str) -> list[str]:
    parser = _HtmlText()
    parser.feed(html)
    return parser.text_lines()


def _lines(tokens: list[Token]) -> list[str]:
    lines: list[str] = []
    cells: list[str] | None = None
    for token in tokens:
        kind = token.type
        if kind == "tr_open":
            cells = []
        elif kind == "tr_close":
            if cells:
                lines.append(CELL_SEPARATOR.join(cells))
            cells = None
        elif kind == "inline":
            text = " ".join(_inline(token.children).split())
            if cells is not None:
                if text:
                    cells.append(text)
            else:
                lines.append(text)
        elif kind == "html_block":
            lines.extend(_html_lines(token.content))
        elif kind in ("fence", "code_block"):
            lines.extend(token.content.split("\n"))
    return [" ".join(line.split()) for line in lines if line.strip()]


@lru_cache(maxsize=8192)
def markdown_plain(markdown: str) -> str:
    """Plain text of ``markdown`` (rules in the module docstring): lines joined with
    ``\\n``, no trailing newline, ``""`` for text without words. Pure and deterministic;
    cached on the text.

    >>> markdown_plain("A *wrapped*\\nline, see [the guide](https://x.org).\\n\\n- item")
    'A wrapped line, see the guide.\\nitem'
    """
    if not markdown.strip():
        return ""
    return "\n".join(_lines(markdown_parser().parse(markdown)))
