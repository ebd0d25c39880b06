"""Chunk sizes: long clauses split under a size limit, sliding windows with overlap
(issue 4 item 2). Pure functions over line ranges; the contract parser supplies the
markdown block boundaries, so a chunk never ends inside a paragraph, a table row, a code
fence or a list item.

* A clause whose text is longer than :data:`MAX_CHUNK_CHARS` visible characters is split
  into parts: whole blocks are packed greedily in document order while the part stays
  under the limit. A block that is itself over the limit is a part of its own (a list is
  first broken into its items by the parser; a table or code fence is never cut). The
  clause stays the citable unit; its parts are chunks of the index.
* ``sliding_window`` documents are cut into windows of :data:`WINDOW_BLOCKS` blocks; each
  window after the first also carries the :data:`OVERLAP_BLOCKS` block(s) before it as
  ``overlap`` context, so a sentence cut at a window boundary is whole in one chunk.

Sizes: 2048 visible characters is 512 tokens at the rule of thumb of about four
characters per English token (OpenAI, "What are tokens and how to count them"), the
input limit of common BERT-style embedding models; runs of white space count as one
character, so the padding of markdown tables does not count.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "MAX_CHUNK_CHARS",
    "OVERLAP_BLOCKS",
    "WINDOW_BLOCKS",
    "pack",
    "visible_length",
    "windows",
]

MAX_CHUNK_CHARS = 2048
"""Most visible characters of one chunk (see the module docstring)."""
WINDOW_BLOCKS = 5
"""Top-level blocks (paragraphs, lists, tables ...) per ``sliding_window`` chunk."""
OVERLAP_BLOCKS = 1
"""Blocks of the previous window repeated as context before each later window."""

Span = tuple[int, int]
"""A half-open range of 0-based body lines."""


def visible_length(text: str) -> int:
    """Characters of ``text`` with each run of white space counted as one."""
    return len(" ".join(text.split()))


def pack(units: Sequence[Span], lines: Sequence[str], limit: int = MAX_CHUNK_CHARS) -> list[Span]:
    """Group consecutive ``units`` (block line ranges, ascending) into parts of at most
    ``limit`` visible characters; a unit over the limit is a part by itself. Returns
    the parts as line ranges from the first unit's start to the last unit's end; one
    part when everything fits."""
    parts: list[Span] = []
    begin: int | None = None
    end = 0
    size = 0
    for start, stop in units:
        unit = visible_length("\n".join(lines[start:stop]))
        if begin is not None and size + 1 + unit > limit:
            parts.append((begin, end))
            begin = None
        if begin is None:
            begin, size = start, unit
        else:
            size += 1 + unit
        end = stop
    if begin is not None:
        parts.append((begin, end))
    return parts


def windows(
    count: int, size: int = WINDOW_BLOCKS, overlap: int = OVERLAP_BLOCKS
) -> list[tuple[range, range]]:
    """Windows over ``count`` blocks: ``(own, context)`` index ranges, where ``own`` are
    the window's blocks (consecutive windows do not share them) and ``context`` the
    ``overlap`` blocks before it (empty for the first window)."""
    out = []
    for begin in range(0, count, size):
        own = range(begin, min(count, begin + size))
        out.append((own, range(max(0, begin - overlap), begin)))
    return out
