"""Untrusted text as literal markdown: the *literal* part of :mod:`etki.mdtext` (DESIGN.md,
"Wiki"; moved here from ``etki/wiki/markdown.py``, which re-exports it, by issue 31).

Client text (titles, request text, reviewer reasons, names) never becomes markup:
multi-line text goes into a fenced block whose fence is longer than any backtick run in
it (:func:`md_block`); one-line text is backslash-escaped so no link, autolink, HTML,
emphasis or table cell can come from it (:func:`md_inline`). Terminal control characters
are made visible with :func:`etki.text.printable` (B03). Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from etki.text import printable

__all__ = ["md_block", "md_code", "md_inline", "md_paragraphs", "md_table"]

# linkify-it's default TLDs plus every two-letter label (a superset of its ccTLD list)
_TLD = (
    r"(?:biz|com|edu|gov|net|org|pro|web|xxx|aero|asia|coop|info|museum|name|shop|рф"
    r"|xn--[a-z0-9-]+|[a-z]{2})(?![^\W_])"
)
_INLINE_SPECIAL = re.compile(
    r"[\\`*\[\]<|~$@]"  # escapes, code, emphasis, links, HTML, tables
    r"|(?<![^\W_])_|_(?![^\W_])"  # '_' unless inside a word (snake_case stays)
    r"|&(?=#?\w+;)"  # entity references
    r"|(?:^|(?<=\s))#"  # ATX heading marks (MSA#3.2 stays)
    r"|:(?=/)"  # scheme:// (bare URL autolinks)
    r"|\.(?=" + _TLD + r")"  # example.com, kentpark.bel.tr (fuzzy autolinks)
    r"|(?<=www)\.",  # www.example
    re.IGNORECASE,
)
_BLOCK_START = re.compile(r"^([-+>=]|\d{1,9}[.)](?=\s|$))")
_CODE = re.compile(r"[A-Za-z][A-Za-z_]*")


@lru_cache(maxsize=1 << 17)  # pure; names, dates and titles recur across pages
def md_inline(text: str) -> str:
    """One line of untrusted text as literal markdown inline content.

    Control characters are made visible (:func:`etki.text.printable`), line breaks become
    ``⏎``, runs of whitespace one space; every character that could start emphasis, a
    code span, a link, an image, an autolink (also linkify's bare ``example.com``), raw
    HTML, an entity or a table cell is backslash-escaped, and so is a leading list,
    quote or heading marker. Plain words, ``snake_case``, ``MSA#3.2`` and ``1.0.0`` stay
    as they are, so the raw file stays readable and searchable."""
    text = " ".join(printable(text, multiline=False).split())
    text = _INLINE_SPECIAL.sub(lambda m: "\\" + m.group(), text)
    m = _BLOCK_START.match(text)
    if m:
        marker = m.group(1)
        text = marker[:-1] + "\\" + marker[-1] + text[m.end() :]
    return text


def md_paragraphs(text: str) -> str:
    """Untrusted multi-paragraph text as escaped paragraphs (blank line between)."""
    paras = [p for p in re.split(r"\n\s*\n", printable(text)) if p.strip()]
    return "\n\n".join(md_inline(p) for p in paras)


def md_block(text: str, info: str = "text") -> str:
    """Untrusted text verbatim in a fenced code block: the fence is one backtick longer
    than the longest backtick run in the text (at least three), so nothing in it can
    close the block; control characters are made visible, line endings are LF."""
    body = printable(text).rstrip("\n")
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{body}\n{fence}"


def md_code(value: str) -> str:
    """A verdict, ruling or action code as markdown: itself when it is a plain code
    (``IN_SCOPE``: ASCII letters and ``_``), else escaped like any untrusted text
    (:func:`md_inline`)."""
    return value if _CODE.fullmatch(value or "") else md_inline(value)


def md_table(
    header: Sequence[str], rows: Iterable[Sequence[str]] = (), align: str = ""
) -> list[str]:
    """A pipe table as lines: the header row, the separator row (``align`` has one
    letter per column, ``r`` right-aligned ``---:``, anything else ``---``; empty: all
    left) and one line per row. Cells are put in as they are: escape untrusted text
    first (:func:`md_inline` escapes ``|``)."""
    aligns = align or "l" * len(header)
    sep = ["---:" if a == "r" else "---" for a in aligns]
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(sep) + " |"]
    out.extend("| " + " | ".join(row) + " |" for row in rows)
    return out
