"""A contract page read as its clause sections (issue 33: a question answered by a clause
no ruling cites finds that clause, not one 94 KB page).

The contract page (:mod:`etki.wiki.pages.entities`) holds the whole contract, each
clause under a ``## `` heading ending in an empty anchor whose id is the clause's ref
percent-encoded (:func:`etki.wiki.paths.clause_anchor`)::

    ## tdrs-rfq#5.2 — Authentication Requirements <a id="tdrs-rfq%235.2"></a>

A **section** runs from such a heading to the line before the next one (or the page's
end); the **head** is what comes before the first (front matter, title, the page's
introduction). Search indexes each section as its own hit, addressed ``path#anchor``,
with the heading (without its anchor) as the hit's title. Pure functions of the page
text: the wiki's bytes are never changed, and the same page always splits the same way.
"""

from __future__ import annotations

import re
from typing import NamedTuple
from urllib.parse import quote, unquote

from etki.text import printable

__all__ = ["CONTRACT_DIR", "Section", "find_section", "page_sections", "split_address"]

CONTRACT_DIR = "entities/contracts/"
"""Wiki-relative folder of the contract pages: only their pages are split."""

_HEADING = re.compile(r'^## (.*?)[ \t]*<a id="([A-Za-z0-9._~%-]+)"></a>[ \t]*$')
_ESCAPE = re.compile(r"\\(.)")


class Section(NamedTuple):
    """One clause section of a contract page: ``anchor`` (the heading's ``<a id>``, as
    written: percent-encoded), ``title`` (the heading's visible text, ``ref — title``;
    printable, one line), ``start`` (0-based index of its heading line in the page) and
    ``text`` (its lines, heading included, joined with ``\\n``)."""

    anchor: str
    title: str
    start: int
    text: str


def page_sections(rel: str, text: str) -> tuple[str, list[Section]] | None:
    """``(head, sections)`` of the page ``rel`` with text ``text`` when it is a contract
    page (under :data:`CONTRACT_DIR`) with at least one anchored clause heading, else
    None. ``head`` is the text before the first section (front matter included); the
    sections are in page order, and ``head`` and the sections' texts joined with
    ``\\n`` give back ``text`` split at line breaks (``\\n``)."""
    if not rel.startswith(CONTRACT_DIR):
        return None
    lines = text.split("\n")
    starts = [(i, m) for i, line in enumerate(lines) if (m := _HEADING.match(line))]
    if not starts:
        return None
    out: list[Section] = []
    for n, (i, m) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else len(lines)
        title = printable(_ESCAPE.sub(r"\1", m.group(1).strip()), multiline=False)
        out.append(Section(m.group(2), title, i, "\n".join(lines[i:end])))
    return "\n".join(lines[: starts[0][0]]), out


def split_address(address: str) -> tuple[str, str]:
    """``(page path, anchor)`` of a hit's address ``path#anchor`` (anchor ``""`` when
    there is none)."""
    path, _, anchor = address.partition("#")
    return path, anchor


def _same_anchor(written: str, asked: str) -> bool:
    """Whether anchor ``asked`` names ``written``: as written, or with its ``%XX``
    undone or not yet done (``tdrs-rfq#5.2`` names ``tdrs-rfq%235.2``)."""
    return asked == written or quote(unquote(asked), safe="") == written


def find_section(rel: str, text: str, anchor: str) -> Section | None:
    """The section of page ``rel`` (text ``text``) whose anchor is ``anchor`` (as
    written, or the clause's ref itself), or None."""
    split = page_sections(rel, text)
    if split is None:
        return None
    return next((s for s in split[1] if _same_anchor(s.anchor, anchor)), None)
