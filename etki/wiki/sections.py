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

from etki.text import fold, printable
from etki.wiki.excerpt import page_title

__all__ = [
    "CONTRACT_DIR",
    "Part",
    "Section",
    "is_clause_facts",
    "find_section",
    "page_parts",
    "page_sections",
    "split_address",
]

CONTRACT_DIR = "entities/contracts/"
"""Wiki-relative folder of the contract pages: only their pages are split."""

_HEADING = re.compile(r'^## (.*?)[ \t]*<a id="([A-Za-z0-9._~%-]+)"></a>[ \t]*$')
_ESCAPE = re.compile(r"\\(.)")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
"""A fence line (CommonMark): a heading inside a fenced block is verbatim text."""


_FACTS = re.compile(r"Kind [^;\n]+; (?:precedents \d+; [^\n]+|no ruled case cites it)\.")


def is_clause_facts(line: str) -> bool:
    """Whether ``line`` is the facts line a clause section opens with
    (``Kind inclusion; precedents 2; not disputed.``, ``Kind inclusion; no ruled case
    cites it.``: :mod:`etki.wiki.pages.entities`): metadata, not the clause's text."""
    return _FACTS.fullmatch(line.strip()) is not None


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
    page (under :data:`CONTRACT_DIR`) with at least one anchored clause heading (not
    inside a fenced block), else None. ``head`` is the text before the first section (front matter included); the
    sections are in page order, and ``head`` and the sections' texts joined with
    ``\\n`` give back ``text`` split at line breaks (``\\n``)."""
    if not rel.startswith(CONTRACT_DIR):
        return None
    lines = text.split("\n")
    starts = []
    fence = ""  # the open fence's marker ("```", "~~~~", ...), "" outside a fenced block
    for i, line in enumerate(lines):
        marker = _FENCE.match(line)
        if fence:
            if marker and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence):
                fence = ""  # (CommonMark: the same character, at least as long)
        elif marker:
            fence = marker.group(1)
        elif m := _HEADING.match(line):
            starts.append((i, m))
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


class Part(NamedTuple):
    """A hit unit of ``etki wiki search`` on a contract page: its head (``anchor`` ``""``,
    ``address`` the page's path, ``title`` the page's title) or one clause section
    (``address`` ``path#anchor``, ``title`` the clause heading); ``start``: 0-based page
    line of its first line; ``size``: its UTF-8 length in bytes; ``text`` and
    ``folded`` (:func:`etki.text.fold`, NUL as a space: what the FTS5 index stores and
    every backend matches) its text; ``ftitle`` the folded title."""

    anchor: str
    address: str
    start: int
    title: str
    ftitle: str
    size: int
    text: str
    folded: str


def page_parts(rel: str, text: str) -> list[Part]:
    """The hit units of page ``rel`` (text ``text``): its head and clause sections when
    it is a contract page (:func:`page_sections`), else ``[]`` (the page is one unit).
    The same text always gives the same parts (the FTS5 index and the ``rg`` and Python
    backends split it alike)."""
    split = page_sections(rel, text)
    if split is None:
        return []
    head, sections = split
    title = page_title(text, rel)
    units = [("", rel, 0, title, head)]
    units += [(s.anchor, f"{rel}#{s.anchor}", s.start, s.title, s.text) for s in sections]
    return [
        Part(
            anchor,
            address,
            start,
            name,
            fold(name),
            len(body.encode("utf-8")),
            body,
            fold(body).replace("\0", " "),
        )
        for anchor, address, start, name, body in units
    ]
