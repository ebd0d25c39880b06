"""A search that is a clause number (issue 34, a trial on tdrs: "5.2" listed 7.2.5, 5.3 and
5.4 before 5.2 itself). A reviewer who types a section number means that section: the
clause numbered exactly so ranks first, then its sub-clauses (``5.2.1``, ``5.2.2``, …)
in the order the contract gives them, then every other hit as before.

The clause's number is read from its section's anchor on the contract page
(:func:`etki.wiki.paths.clause_anchor`: the ref ``doc#5.2`` percent-encoded,
``doc%235.2``), so the rule needs nothing the index does not already store; the FTS5
index applies it in SQL (:func:`number_sql`), the ``rg`` and Python backends in Python
(:func:`number_rank`), with the same answer.
"""

from __future__ import annotations

import re

__all__ = ["NO_NUMBER", "clause_number", "number_rank", "number_sql"]

_NUMBER = re.compile(r"\s*§?\s*([0-9]+(?:\.[0-9]+)*)\.?\s*")
"""A query that is only a clause number: ASCII digits in dot-separated groups, an
optional ``§`` before it and a trailing dot after it (``5.2``, ``§ 5.2``, ``5.2.``)."""

NO_NUMBER: tuple[int, int] = (2, 0)
""":func:`number_rank` of a hit that is neither the clause asked for nor one of its
sub-clauses (and of every hit when the query is no clause number)."""


def clause_number(query: str) -> str | None:
    """The clause number ``query`` consists of (``" § 5.2. "`` -> ``"5.2"``), or None when
    the query is anything else (words, a number with words, an empty query)."""
    m = _NUMBER.fullmatch(query)
    return m.group(1) if m else None


def number_rank(anchor: str, start: int, number: str | None) -> tuple[int, int]:
    """The leading part of a hit's sort key for the query's clause ``number`` (smallest
    first): ``(0, start)`` for the section whose clause number is ``number``, ``(1,
    start)`` for a sub-clause of it (``number`` followed by ``.``; ``start`` its line on
    the page, so sub-clauses come in contract order), :data:`NO_NUMBER` for any other
    hit or when ``number`` is None. ``anchor``: the section's anchor as written on the
    page (``doc%235.2``; ``""`` for a page or a contract page's head)."""
    if number is None:
        return NO_NUMBER
    if anchor.endswith(f"%23{number}"):  # the ref's "#" encoded (clause_anchor)
        return (0, start)
    if f"%23{number}." in anchor:
        return (1, start)
    return NO_NUMBER


def number_sql(number: str | None, anchor: str, start: str) -> tuple[str, str, list[str]]:
    """SQLite expressions (and their arguments) equal to :func:`number_rank`'s two parts
    for the sections whose anchor and start are in the columns ``anchor`` and ``start``
    (identifiers of our own SQL, never user text). ``GLOB`` on the encoded ``#``
    (``%23``) before the number: a number is ASCII digits and dots, no GLOB
    metacharacter, and a percent-encoded anchor holds ``%23`` only where its ref has a
    ``#``. Constants when ``number`` is None."""
    if number is None:
        return str(NO_NUMBER[0]), str(NO_NUMBER[1]), []
    rank = f"(CASE WHEN {anchor} GLOB ? THEN 0 WHEN {anchor} GLOB ? THEN 1 ELSE 2 END)"
    at = f"(CASE WHEN {anchor} GLOB ? OR {anchor} GLOB ? THEN {start} ELSE 0 END)"
    args = [f"*%23{number}", f"*%23{number}.*"]
    return rank, at, args + args
