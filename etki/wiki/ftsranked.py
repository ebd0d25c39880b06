"""The ranked top of ``etki wiki search`` over the FTS5 index (issue 32 item 3; issue 33:
a contract page as its clause sections). The index itself, its sync and the other
queries are :mod:`etki.wiki.fts`; this module only reads it.

SQLite ranks and cuts: pages by :func:`etki.wiki.pagematch.rank_key` computed from the
folded text, folded title and byte size the index stores
(:func:`~etki.wiki.pagematch.starts_sql`, :func:`~etki.wiki.pagematch.rank_sql`), a
contract page replaced by its parts (:func:`etki.wiki.sections.page_parts`: its head and
every clause section, each with its own folded title, size and address ``path#anchor``,
indexed in the tables ``parts`` and ``partstext``). The ``rg`` and Python backends split
and rank the same way (:func:`etki.wiki.search.ranked_search`), so every backend returns
the same hits in the same order.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from etki.wiki.clausequery import NO_NUMBER, number_sql
from etki.wiki.fts import _decoded_lines, _snapshot, _where, json_list
from etki.wiki.pagematch import Cancelled, Hit, _best_in_folded, page_snippet, rank_sql, starts_sql
from etki.wiki.writer import UnsafeWikiPath

__all__ = ["search_ranked"]


def search_ranked(
    root: Path,
    tokens: list[str],
    limit: int | None,
    cancelled: Callable[[], bool] | None = None,
    number: str | None = None,
) -> tuple[list[Hit], int, str] | None:
    """The ranked top of ``etki wiki search``: ``([Hit], total, synced)`` of the pages of the
    wiki at ``root`` holding every folded token, best first by
    :func:`etki.wiki.pagematch.rank_key` (short words starting a word and title hits,
    computed in SQLite by :func:`~etki.wiki.pagematch.starts_sql` and
    :func:`~etki.wiki.pagematch.rank_sql` on the stored folded text and title, then the
    stored size, then path), at most ``limit`` of them (None: all), how many pages match
    in all, and how the index caught up (``token``, ``queued``, ``walk``). None when the
    index cannot be used (the caller falls back to ``rg`` or Python, which rank the same
    way).

    ``number``: the query's clause number (:func:`etki.wiki.clausequery.clause_number`):
    the clause section so numbered, then its sub-clauses in page order, rank before
    every other hit (:func:`~etki.wiki.clausequery.number_sql`).

    The index is first brought up to the wiki's change token (:func:`catch_up`'s rule).
    ``cancelled`` (the desk's live search) is polled while waiting for another writer
    and while SQLite runs the query: :class:`~etki.wiki.pagematch.Cancelled` is raised
    when it returns True.
    The query is exact, not a superset: ``MATCH`` is limited to the folded column (the
    title column holds unescaped text) and trigram phrases of three or more characters
    are substrings. SQLite ranks and cuts; the folded and raw text are read back only
    for the pages returned, for their best line and snippet."""
    snap = _snapshot(Path(root), cancelled)
    if snap is None:
        return None
    db, synced = snap
    try:
        where, args, matched = _where(tokens)
        pwhere, pargs, _ = _where(tokens, "partstext")
        if matched:
            args[0] = f"folded : ({args[0]})"
            pargs[0] = f"folded : ({pargs[0]})"
        score, score_args = rank_sql(tokens, "files.ftitle")
        pscore, pscore_args = rank_sql(tokens, "parts.ftitle")
        starts, starts_args = starts_sql(tokens, "pages.folded")
        pstarts, pstarts_args = starts_sql(tokens, "partstext.folded")
        nr, nat, nargs = number_sql(number, "parts.anchor", "parts.start")
        # a page split into parts (a contract page) is searched as its parts only
        rows = db.execute(
            "SELECT kind, id, address, start, th, count(*) OVER () FROM ("  # noqa: S608
            f"SELECT 0 AS kind, files.id AS id, files.path AS address, 0 AS start, {score} "
            f"AS th, {starts} AS ws, files.size AS size, {NO_NUMBER[0]} AS nr, "
            f"{NO_NUMBER[1]} AS nat FROM pages JOIN files ON files.id = pages.rowid WHERE "
            f"{where} AND files.id NOT IN (SELECT page FROM parts) UNION ALL SELECT 1, "
            f"parts.id, parts.address, parts.start, {pscore}, {pstarts}, parts.size, {nr}, "
            f"{nat} FROM partstext JOIN parts ON parts.id = partstext.rowid WHERE {pwhere}"
            ") ORDER BY nr, nat, ws DESC, th DESC, size, address LIMIT ?",
            [
                *score_args,
                *starts_args,
                *args,
                *pscore_args,
                *pstarts_args,
                *nargs,
                *pargs,
                -1 if limit is None else limit,
            ],
        ).fetchall()
        texts = {
            (0, rowid): (raw, folded)
            for rowid, raw, folded in db.execute(
                "SELECT rowid, raw, folded FROM pages WHERE rowid IN "
                "(SELECT value FROM json_each(?))",
                (json_list([r[1] for r in rows if r[0] == 0]),),
            )
        }
        texts.update(
            ((1, rowid), (raw, folded))
            for rowid, raw, folded in db.execute(
                "SELECT rowid, raw, folded FROM partstext WHERE rowid IN "
                "(SELECT value FROM json_each(?))",
                (json_list([r[1] for r in rows if r[0] == 1]),),
            )
        )
    except sqlite3.OperationalError:
        if cancelled is not None and cancelled():
            raise Cancelled from None  # the progress handler interrupted the query
        return None
    except (sqlite3.Error, OSError, UnsafeWikiPath):
        return None
    finally:
        db.close()
    hits: list[Hit] = []
    for kind, rowid, address, start, _, _ in rows:
        if cancelled is not None and cancelled():
            raise Cancelled
        raw, folded = texts[(kind, rowid)]
        best = _best_in_folded(folded, tokens)
        if best is None:  # the query is exact; a page that does not hold them is no hit
            continue
        index, _, _, first = best
        snippet = page_snippet(_decoded_lines(raw, index), index, first)
        hits.append(Hit(address, start + index + 1, snippet))
    return hits, rows[0][5] if rows else 0, synced
