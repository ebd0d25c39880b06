"""The one matcher of wiki search, shared by every backend (:mod:`etki.wiki.search`'s
``rg`` and Python scans, :mod:`etki.wiki.fts`): query tokens, the pages searched, and
the best line of a page with its snippet. Its own module so the FTS5 backend and the
search front door use it without importing each other.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from etki.text import fold, fold_origin, printable, spellings, words

__all__ = [
    "SHORT_TOKEN",
    "SNIPPET_CHARS",
    "Cancelled",
    "Hit",
    "fenced",
    "match_folded",
    "match_text",
    "occurs",
    "page_snippet",
    "query_tokens",
    "rank_key",
    "rank_sql",
    "starts_sql",
    "title_hits",
    "walk_pages",
    "word_start",
    "word_starts",
]

SNIPPET_CHARS = 160
"""Longest snippet, in characters (an ellipsis marks each cut end)."""


SHORT_TOKEN = 3
"""Tokens shorter than this are ranked by where they occur (:func:`word_starts`): the
trigram index cannot rank them, and as substrings they are everywhere (a trial: "İK",
the Turkish "HR", found "impacted" and "Bakanlıkla" first)."""


class Cancelled(Exception):
    """A search was cancelled by its caller (a newer keystroke's search took over)."""


class Hit(NamedTuple):
    """One matching page: ``path`` relative to the wiki root (POSIX), ``line`` (1-based)
    of the best line and ``snippet`` (that line, printable, one line, trimmed)."""

    path: str
    line: int
    snippet: str


def query_tokens(query: str) -> list[str]:
    """The distinct folded tokens of ``query``, in order of first appearance."""
    return list(dict.fromkeys(words(query)))


def walk_pages(root: Path) -> Iterator[tuple[str, os.DirEntry]]:
    """``(wiki-relative POSIX path, DirEntry)`` of every searchable page under ``root``
    (see :func:`etki.wiki.search.wiki_files`), in no particular order."""
    folders = [("", str(root))]  # (wiki-relative prefix, path); scandir's entries know
    while folders:  # their type without one lstat per file (16k pages)
        prefix, path = folders.pop()
        try:
            with os.scandir(path) as entries:
                for entry in entries:
                    name = entry.name
                    if name.startswith("."):
                        continue
                    try:
                        if entry.is_dir(follow_symlinks=False):  # a symlink is no folder
                            folders.append((f"{prefix}{name}/", entry.path))
                        elif name.endswith(".md") and entry.is_file(follow_symlinks=False):
                            yield prefix + name, entry  # a regular file, not a symlink
                    except OSError:
                        continue
        except OSError:
            continue


_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_MD_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
"""A markdown backslash escape (CommonMark: a backslash before ASCII punctuation)."""


def fenced(lines: Sequence[str], index: int) -> bool:
    """Whether line ``index`` of a page (``lines``: at least its first ``index`` lines)
    lies inside a fenced code block, where text is verbatim (CommonMark: a fence opens
    with three or more backticks or tildes indented at most three spaces, and closes with
    at least as many of the same character and nothing after them)."""
    fence: str | None = None
    for line in lines[:index]:
        m = _FENCE.match(line)
        if m is None:
            continue
        run = m.group(1)
        if fence is None:
            fence = run
        elif run[0] == fence[0] and len(run) >= len(fence) and not line[m.end() :].strip():
            fence = None
    return fence is not None


def page_snippet(lines: Sequence[str], index: int, token: str) -> str:
    """The snippet of line ``index`` of a page (``lines``: at least its first
    ``index + 1`` lines) around ``token``: the text a reader sees, markdown escapes
    resolved (``Two \\*screens\\*`` -> ``Two *screens*``: a trial read the escapes in
    ``etki wiki search``), except in the YAML frontmatter and inside a fenced block,
    whose text is verbatim."""
    line = lines[index]
    verbatim = _in_frontmatter(lines, index) or fenced(lines, index)
    return _snippet(line if verbatim else _MD_ESCAPE.sub(r"\1", line), token)


def _in_frontmatter(lines: Sequence[str], index: int) -> bool:
    """Whether line ``index`` is in the page's YAML frontmatter (between a first line
    ``---`` and the next ``---``, both included)."""
    if not lines or lines[0].rstrip("\r") != "---":
        return False
    return index == 0 or all(line.rstrip("\r") != "---" for line in lines[1:index])


def _snippet(line: str, token: str) -> str:
    if line.isascii():  # NFC already, and folding is lower(): same offsets
        nfc = line
        at = line.lower().find(token)
        start_char = at if at >= 0 else 0
    else:
        nfc = unicodedata.normalize("NFC", line)
        at = fold(nfc).find(token)  # per character, as fold_with_offsets folds
        start_char = fold_origin(nfc, at) if at >= 0 else 0
    text = nfc.strip()
    shift = len(nfc) - len(nfc.lstrip())
    start_char = max(0, start_char - shift)
    if len(text) > SNIPPET_CHARS:
        start = max(0, min(start_char - 40, len(text) - SNIPPET_CHARS))
        end = start + SNIPPET_CHARS
        text = ("…" if start else "") + text[start:end].strip() + ("…" if end < len(text) else "")
    return " ".join(printable(text, multiline=False).split())


def _lines_with(whole: str, token: str) -> set[int] | None:
    """Start offsets of the lines of folded text ``whole`` holding ``token`` in one of its
    :func:`etki.text.spellings`; None when none occurs anywhere."""
    starts: set[int] = set()
    for spelling in spellings(token):
        at = whole.find(spelling)
        while at >= 0:
            start = whole.rfind("\n", 0, at) + 1
            starts.add(start)
            end = whole.find("\n", at)
            if end < 0:
                break
            at = whole.find(spelling, end + 1)
    return starts or None


def occurs(spelled: str, token: str) -> str | None:
    """The first of ``token``'s :func:`etki.text.spellings` that occurs in the folded
    text ``spelled``, or None."""
    return next((s for s in spellings(token) if s in spelled), None)


def _best_in_folded(whole: str, tokens: list[str]) -> tuple[int, int, int, str] | None:
    """In folded page text ``whole``: ``(line index, start offset of that line, count,
    first token on it)`` of the first line with the most tokens, or None unless every
    token occurs. A token is found in any of its spellings (:func:`etki.text.spellings`:
    ``groesse`` also as ``grosse``), counted once per line; the "first token" is the
    spelling found on the line. A token never spans a line break, so each occurrence
    lies on one line."""
    counts: dict[int, int] = defaultdict(int)  # line start offset -> tokens on that line
    for t in tokens:
        starts = _lines_with(whole, t)
        if starts is None:
            return None
        for start in starts:
            counts[start] += 1
    best_start, best_count = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    end = whole.find("\n", best_start)
    line = whole[best_start:] if end < 0 else whole[best_start:end]
    first = next(found for t in tokens if (found := occurs(line, t)) is not None)
    return whole.count("\n", 0, best_start), best_start, best_count, first


def match_folded(text: str, whole: str, tokens: list[str]) -> tuple[int, int, str] | None:
    """:func:`match_text` for a page whose folded text ``whole`` (``fold(text)``) is
    already known."""
    best = _best_in_folded(whole, tokens)
    if best is None:
        return None
    index, _, count, first = best
    lines = text.split("\n", index + 1)  # fold keeps line breaks where they are
    return index + 1, count, page_snippet(lines, index, first)


def match_text(text: str, tokens: list[str]) -> tuple[int, int, str] | None:
    """Match page ``text`` against folded ``tokens``: ``(line, count, snippet)`` of the
    first line where the most tokens occur, or None when a token occurs on no line."""
    return match_folded(text, fold(text), tokens)  # line i of fold(text) is line i folded


# --- the rank of a hit (``etki wiki search``: a top N, the same order on every backend) ----


def title_hits(ftitle: str, tokens: list[str]) -> int:
    """How many of ``tokens`` occur (in one of their :func:`etki.text.spellings`) in
    ``ftitle``, a page's folded title (``fold(page_title(text))``)."""
    return sum(1 for t in tokens if occurs(ftitle, t) is not None)


@lru_cache(maxsize=256)
def word_start(token: str) -> re.Pattern[str]:
    """``token`` (folded) where it begins a word of folded text: at the start or after a
    character that is not a lower-case ASCII letter or digit (folded Latin letters are
    ASCII; the rule of :func:`starts_sql`)."""
    return re.compile(r"(?<![a-z0-9])" + re.escape(token))


def word_starts(folded: str, tokens: list[str]) -> int:
    """How many of the query's short ``tokens`` (shorter than :data:`SHORT_TOKEN`, each
    in any of its :func:`etki.text.spellings`) begin a word of the folded text
    ``folded`` (:func:`word_start`); 0 for a query without short tokens."""
    return sum(
        1
        for t in tokens
        if len(t) < SHORT_TOKEN and any(word_start(f).search(folded) for f in spellings(t))
    )


def starts_sql(tokens: list[str], column: str) -> tuple[str, list[str]]:
    """An SQLite expression (and its arguments) equal to :func:`word_starts` of the
    folded text in ``column`` (an identifier of our own SQL, never user text): ``GLOB``
    on the token at the start or after a character not in ``[a-z0-9]``. Tokens are
    letters and digits only, so no GLOB metacharacter; ``"0"`` without short tokens."""
    parts: list[str] = []
    args: list[str] = []
    for t in tokens:
        if len(t) >= SHORT_TOKEN:
            continue
        forms = spellings(t)
        parts.append("(" + " OR ".join([f"{column} GLOB ? OR {column} GLOB ?"] * len(forms)) + ")")
        for form in forms:
            args += [f"{form}*", f"*[^a-z0-9]{form}*"]
    return ("(" + " + ".join(parts) + ")" if parts else "0"), args


def rank_key(
    ftitle: str,
    size: int,
    path: str,
    tokens: list[str],
    starts: int = 0,
    number: tuple[int, int] = (2, 0),
) -> tuple[int, int, int, int, int, str]:
    """The sort key of a hit in ``etki wiki search`` and the desk's live search (smallest
    first): for a query that is a clause number, the clause so numbered and then its
    sub-clauses (``number``: :func:`etki.wiki.clausequery.number_rank`; ``(2, 0)`` for
    every other hit); then pages where more of the query's one- or two-letter words begin a word
    (``starts``: :func:`word_starts` of the page's folded text; a two-letter word as a
    substring is in most pages) first, then pages whose folded title ``ftitle`` holds
    more of the query's ``tokens`` (:func:`title_hits`), then the shorter page
    (``size``: the page's length in bytes; a page about the words before the
    megabyte-sized ``index.md`` that names every decision), then ``path``. The FTS5
    index keeps the folded title, text and size of every page and ranks inside SQLite
    (:func:`rank_sql`, :func:`starts_sql`)."""
    return (*number, -starts, -title_hits(ftitle, tokens), size, path)


def rank_sql(tokens: list[str], column: str) -> tuple[str, list[str]]:
    """An SQLite expression (and its arguments) equal to :func:`title_hits` of the
    folded title in ``column`` (an identifier of our own SQL, never user text):
    ``instr`` finds a substring as ``in`` does, a comparison is 0 or 1."""
    parts: list[str] = []
    args: list[str] = []
    for t in tokens:
        forms = spellings(t)
        parts.append("(" + " OR ".join([f"instr({column}, ?) > 0"] * len(forms)) + ")")
        args += forms
    return "(" + (" + ".join(parts) or "0") + ")", args
