"""A long contract page read whole in the reader, laid out in parts (issue 34 item 3: the
tdrs contract page, 70,836 characters, was cut at 50,000, so its clauses after 8.3 could
not be read in the desk).

Textual's Markdown widget lays a page out on the event loop (about 0.5 s for 20,000
characters of paragraphs on this machine, :data:`etki_tui.hafiza.reader.PAGE_TEXT_CHARS`),
so the reader lays out the first part (enough to show the clause it opens at), shows it,
and then appends the rest part by part (``Markdown.append``) while the reviewer reads:
no part keeps the desk's keys waiting longer than its own layout.

Every part but the last ends with a clause heading line (``## ref — title <a id>``): the
widget's ``append`` parses again from the last block it holds, which a one-line heading
is whole, so no paragraph is ever split between two parts.

Measured (/tmp script driving the desk at 80x24 on the tdrs page, both cores busy with
other suites, load average 15-16, so only the comparison holds): from the top, shown
after 14.7 s (20,000 characters laid out) and whole after 71.3 s, against 56.2 s for the
50,000-character cut before; at 9.6.2, 99.4 s against 78.5 s (both lay out ~67,000
characters first; landing waits for the heading to stand still). At load ~5 an earlier
run landed on 9.6.2 in 6.1 s against 9.1 s.
"""

from __future__ import annotations

from itertools import accumulate

from etki.wiki.sections import page_sections

READER_FIRST_CHARS = 20_000
"""Characters of a contract page laid out before it is shown (at least; more when the
clause it opens at lies further on): about 0.5 s of layout (see the module's note)."""

REST_CHUNK_CHARS = 10_000
"""Characters of each further part appended while the page is read: about 0.25 s each,
the longest a key waits meanwhile."""

LANDING_ROOM_CHARS = 8_000
"""Characters laid out after the clause a page opens at, before it is shown: a screen
of text below its heading at 120x40 (4,800 cells) and then some, so the heading can be
scrolled to the first row even when the clause itself is short."""

WHOLE_PAGE_CHARS = 1_000_000
"""The longest contract page read whole (14 times the tdrs page); a longer one is cut as
any other page is (:data:`etki_tui.hafiza.reader.PAGE_TEXT_CHARS`): every part appended
stays in memory as widgets while the page is shown."""


def page_parts_to_lay_out(path: str, body: str, reach: int) -> list[str] | None:
    """``body`` (the page at ``path``, frontmatter left out) in parts that join back to
    it: the first at least ``reach`` characters long (:data:`READER_FIRST_CHARS` at the
    least), the others about :data:`REST_CHUNK_CHARS` each, every part but the last
    ending just after a clause heading line. None when the page is not a contract page
    with clause headings (:func:`etki.wiki.sections.page_sections`), or longer than
    :data:`WHOLE_PAGE_CHARS`."""
    split = page_sections(path, body) if len(body) <= WHOLE_PAGE_CHARS else None
    if split is None:
        return None
    lines = body.split("\n")
    ends = list(accumulate(len(line) + 1 for line in lines))  # offset after each line's \n
    cuts = [ends[s.start] for s in split[1] if ends[s.start] < len(body)]
    parts: list[str] = []
    start, want = 0, max(reach, READER_FIRST_CHARS)
    for cut in cuts:
        if cut - start >= want:
            parts.append(body[start:cut])
            start, want = cut, REST_CHUNK_CHARS
    parts.append(body[start:])
    return parts
