"""What a hit of the desk's live wiki search shows (:func:`etki.wiki.live.top`): a page's
title and an excerpt of its visible text around the match. Pure functions of the page
text; moved out of :mod:`etki.wiki.fts` (issue 32) so the index module keeps to its job.
"""

from __future__ import annotations

import re

from etki.text import fold, printable, spellings
from etki.wiki.pagematch import SHORT_TOKEN, _snippet, occurs, word_start

__all__ = ["SHORT_TOKEN", "excerpt", "page_title", "unescape", "word_start"]

_HEADING = re.compile(r"^#{1,6}[ \t]+")
_ITEM = re.compile(r"^(?:[-*+]|\d{1,9}[.)])[ \t]+")
_ANCHOR = re.compile(r'[ \t]*<a id="[A-Za-z0-9._~%-]*"></a>')
"""A clause's anchor in a contract page heading (:func:`etki.wiki.paths.clause_anchor`):
markup, not text a reader sees."""
_LINK_MD = re.compile(r"!?\[((?:\\.|[^\]\\\n])*)\]\(([^)\s]*)\)")
_ESCAPE = re.compile(r"\\(.)")
_RULE_CELL = re.compile(r"^:?-{2,}:?$")


def unescape(text: str) -> str:
    """``text`` with its markdown backslash escapes undone (``\\[`` -> ``[``): the text as
    its writer gave it, which the wiki escaped to keep it literal."""
    return _ESCAPE.sub(r"\1", text)


_unescape = unescape


def _body_start(lines: list[str]) -> int:
    """Index of the first line after the YAML frontmatter (0 when there is none)."""
    if lines and lines[0].rstrip("\r") == "---":
        for i in range(1, len(lines)):
            if lines[i].rstrip("\r") == "---":
                return i + 1
    return 0


def page_title(text: str, path: str = "") -> str:
    """The title of a wiki page: its first ``#`` heading (markdown escapes removed),
    else the frontmatter's ``title:``, else the file name without ``.md``. Printable,
    one line; untrusted text, to be shown literally."""
    lines = text.split("\n", 400)[:400]  # a title sits near the top
    start = _body_start(lines)
    for line in lines[start:]:
        if line.startswith("# "):
            return printable(_unescape(line[2:].strip()), multiline=False)
    for line in lines[1:start]:
        if line.startswith("title:"):
            value = line[6:].strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            return printable(value, multiline=False)
    name = path.rsplit("/", 1)[-1]
    return printable(name[:-3] if name.endswith(".md") else name, multiline=False)


def _visible(line: str) -> str:
    """A markdown line as a reader sees it: no heading, list or quote marker (nor a
    clause's anchor), links as
    their words (a label that is only the target's file name — a slug — is dropped),
    no emphasis or code marks, escapes resolved, table cells joined with `` · ``,
    fences and rules empty."""
    s = line.strip()
    if s.startswith(("```", "~~~")) or s in ("---", "***"):
        return ""
    s = _ANCHOR.sub("", _HEADING.sub("", s))
    s = s.lstrip("> ").strip() if s.startswith(">") else s
    s = _ITEM.sub("", s)

    def label(m: re.Match[str]) -> str:
        words, target = m.group(1), m.group(2)
        stem = target.rsplit("/", 1)[-1].split("#", 1)[0].removesuffix(".md")
        return "" if _unescape(words) == stem else words

    s = _LINK_MD.sub(label, s)
    s = s.replace("**", "").replace("__", "").replace("`", "")
    if s.startswith("|"):
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", s.strip().strip("|"))]
        if all(_RULE_CELL.match(c) for c in cells if c):
            return ""
        s = " · ".join(c for c in cells if c)
    return " ".join(_unescape(s).split())


_CANDIDATE_LINES = 64

_SLUG = re.compile(r"[\w.]+(?:-[\w.]+){2,}")
"""A word of three or more parts joined by ``-`` (``cr-20261203-schriftgrosse-zu-klein``):
an id or a file name shown as text, whose letters match a query without saying what the
page is about."""


def _only_in_slugs(fseen: str, found: list[str]) -> bool:
    """True when every occurrence of every spelling in ``found`` on the folded line
    ``fseen`` lies inside a :data:`_SLUG`: such a line is the snippet only when no other
    line holds as many tokens (a trial saw a change request's CR id line as its snippet
    while the request's own words held the match)."""
    slugs = [m.span() for m in _SLUG.finditer(fseen)]
    if not slugs:
        return False
    for spelled in found:
        at = fseen.find(spelled)
        while at >= 0:
            if not any(a <= at and at + len(spelled) <= b for a, b in slugs):
                return False
            at = fseen.find(spelled, at + 1)
    return True


def excerpt(text: str, folded: str, tokens: list[str]) -> tuple[int, str]:
    """``(line, snippet)`` of page ``text`` (``folded`` = ``fold(text)``) for a hit on
    ``tokens``: the body line (after the frontmatter, not the title heading) whose
    visible text (:func:`_visible`) holds the most tokens, then the most one- or
    two-letter tokens at the start of a word (as :func:`etki.wiki.pagematch.rank_key` ranks pages), the first
    such line on a tie,
    cut to about :data:`etki.wiki.pagematch.SNIPPET_CHARS` characters around the first
    match — page text, never a slug or link target. When no visible body line holds a
    token (it is only in the frontmatter or a link target), the first line of text under
    the title. ``line`` is 1-based in the page."""
    lines = text.split("\n")
    start = _body_start(lines)
    title_at = next(
        (i for i in range(start, min(len(lines), start + 40)) if lines[i].startswith("# ")), -1
    )
    offset = 0
    for _ in range(start):  # fold keeps line breaks where they are
        offset = folded.find("\n", offset) + 1
    where: list[int] = []  # offsets of token occurrences in the body (a bounded sample)
    for t in tokens:
        for spelled in spellings(t):
            at = folded.find(spelled, offset)
            for _ in range(4 * _CANDIDATE_LINES):
                if at < 0:
                    break
                where.append(at)
                at = folded.find(spelled, at + len(spelled))
    starting = [word_start(f) for t in tokens if len(t) < SHORT_TOKEN for f in spellings(t)]
    for rx in starting:  # a short token's word starts, wherever they are (not in the
        # sample of its first occurrences: "ik" is in "wiki" long before "İK iş")
        for _, m in zip(range(_CANDIDATE_LINES), rx.finditer(folded, offset), strict=False):
            where.append(m.start())
    counts: dict[int, int] = {}
    index, last = start, offset
    for at in sorted(where):  # line index of each, counted forward once
        index += folded.count("\n", last, at)
        last = at
        counts[index] = counts.get(index, 0) + 1
    best: tuple[int, bool, int, int, str, str] | None = None
    # (-tokens, only in slugs, -short tokens starting a word, index, visible text, first)
    for index in sorted(counts, key=lambda i: (-counts[i], i))[:_CANDIDATE_LINES]:
        if index == title_at or index >= len(lines):
            continue
        seen = _visible(lines[index])
        fseen = fold(seen)
        hits = [found for t in tokens if (found := occurs(fseen, t)) is not None]
        starts = sum(1 for rx in starting if rx.search(fseen))
        key = (-len(hits), _only_in_slugs(fseen, hits), -starts, index)
        if hits and (best is None or key < best[:4]):
            best = (*key, seen, hits[0])
    if best is not None:
        return best[3] + 1, _snippet(best[4], best[5])
    for index in range(max(start, title_at + 1), len(lines)):
        seen = _visible(lines[index])
        if seen and not lines[index].lstrip().startswith("#"):
            return index + 1, _snippet(seen, tokens[0] if tokens else "")
    return max(1, title_at + 1), ""
