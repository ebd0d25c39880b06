"""The *parser* part of :mod:`etki.mdtext`: the one markdown parser, and what the plain
and display readings of its output share (issue 31; before, the two readings each kept
their own copy of these).

* :func:`markdown_parser`: markdown-it-py, CommonMark plus GFM tables and
  strikethrough, raw HTML recognised, ``text_join`` off so escapes stay visible; the
  contract reader, the wikilink extractor and both readings parse with it;
* :func:`wikilink_words`: the words a wikilink ``[[target#heading|alias]]`` stands for
  in running text (its alias, else its target without a ``type::`` prefix), with
  :data:`WIKILINK`, the pattern of one over text the parser left as text;
* :data:`STRAY_STARS`: runs of two or more ``*`` the parser left as text (the unpaired
  bold of a Word conversion: ``**(**QASP)``), dropped by both readings;
* :data:`BR`: an inline ``<br>`` tag (a space in both readings);
* the one list of HTML tags an HTML block is read by: :data:`BLOCK_TAGS` (each starts
  and ends a block), :data:`CELL_TAGS` (a table cell) and :data:`SKIP_TAGS` (content
  dropped).
"""

from __future__ import annotations

import re
from functools import lru_cache

from markdown_it import MarkdownIt

__all__ = [
    "BLOCK_TAGS",
    "BR",
    "CELL_TAGS",
    "SKIP_TAGS",
    "STRAY_STARS",
    "WIKILINK",
    "markdown_parser",
    "wikilink_words",
]


@lru_cache(maxsize=1)
def markdown_parser() -> MarkdownIt:
    """The one markdown parser of the knowledge package: CommonMark plus GFM tables and
    strikethrough, raw HTML recognised, ``text_join`` off so escapes stay visible."""
    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).disable("text_join")


WIKILINK = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
"""A wikilink in text the parser left as text; group 1 is what is between the brackets."""

_TYPED = re.compile(r"^\s*[^\W\d_][\w \t-]*?\s*::\s*")

STRAY_STARS = re.compile(r"\*{2,}")
"""Unpaired bold marks of a conversion the parser left as text: ``**(**QASP)``."""

BR = re.compile(r"^<br\s*/?>$", re.IGNORECASE)
"""An inline line-break tag (matched against the stripped ``html_inline`` content)."""

BLOCK_TAGS = frozenset(
    {
        "p",
        "div",
        "blockquote",
        "section",
        "article",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "pre",
        "hr",
        "caption",
        "dl",
        "dt",
        "dd",
        "table",
        "thead",
        "tbody",
        "tfoot",
        "ul",
        "ol",
    }
)
"""HTML tags that start and end a block of an HTML block's text (a line of the plain
reading, a paragraph of the display reading; inside a table cell, a space). List items
(``li``), rows (``tr``), cells (:data:`CELL_TAGS`) and ``br`` each reading handles on
its own."""

CELL_TAGS = frozenset({"td", "th"})
"""HTML tags of one table cell."""

SKIP_TAGS = frozenset({"script", "style"})
"""HTML tags whose content is dropped (never shown, never scored)."""


def wikilink_words(match: re.Match[str]) -> str:
    """The words of one :data:`WIKILINK` match: its alias when it has a non-blank one
    (``[[page|the page]]`` -> ``the page``), else its target without a ``type::``
    prefix (``[[depends_on::module:auth]]`` -> ``module:auth``), stripped."""
    target, sep, alias = match.group(1).partition("|")
    if sep and alias.strip():
        return alias.strip()
    return _TYPED.sub("", target).strip()
