"""Headings a CommonMark block swallowed, given back (issue 30 item 5).

CommonMark lets some blocks run over lines a writer meant as headings:

* an HTML block that ends only at a blank line (``<div>``, ``<details>``, ``<table>``,
  ``<p>``, any other tag on a line of its own) takes a ``## 3. Title`` line written
  right under it, and every line after it up to the next blank line;
* an HTML comment, ``<pre>``, ``<script>``, ``<style>``, ``<textarea>``, ``<?``,
  ``<!X`` or ``<![CDATA[`` block never closed, and a code fence never closed, run to the
  end of the document.

Read literally, every clause below such a block vanishes into the clause above it. Here
a line inside such a block that is an ATX heading (``#`` to ``######`` and text) ends
the block: the block keeps the lines before it and the rest is parsed as markdown of its
own (the same rules again, so a second such block is repaired too). Each repair is a
*fallback* the caller reports with file and line (``etki init``, ``etki index show``).

A block that closes (a fence with its closing fence, a comment with ``-->``) is code or
a comment as written: a heading line inside it stays text, as CommonMark reads it, and
is reported too, since a clause written there is not read as one. So is a heading
inside a blockquote or a list item: it is read as body text of the section above.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from markdown_it.token import Token

__all__ = ["Fallback", "repair_blocks"]

_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(\S.*?)[ \t]*#*[ \t]*$")
_HTML_OPEN = (  # CommonMark HTML block kinds 1-5: (start, end marker, name)
    (re.compile(r"^ {0,3}<(?:script|pre|style|textarea)(?:[\s>]|$)", re.I), None, "HTML block"),
    (re.compile(r"^ {0,3}<!--"), "-->", "HTML comment"),
    (re.compile(r"^ {0,3}<\?"), "?>", "HTML processing instruction"),
    (re.compile(r"^ {0,3}<!\[CDATA\["), "]]>", "CDATA block"),
    (re.compile(r"^ {0,3}<![A-Za-z]"), ">", "HTML declaration"),
)
_KIND1_END = re.compile(r"</(?:script|pre|style|textarea)>", re.I)
_SHORT = 60


@dataclass(frozen=True)
class Fallback:
    """One place where the document's structure was not read as plain CommonMark would:
    ``line`` is the file line of the heading concerned, ``message`` says what
    happened there without the file and line."""

    line: int
    message: str


def _heading_text(line: str) -> str | None:
    match = _ATX.match(line)
    return match.group(2) if match else None


def _shown(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SHORT else text[: _SHORT - 1] + "…"


def _a(name: str) -> str:
    return ("an " if name.startswith("HTML") else "a ") + name


def _html_kind(first: str) -> tuple[str | None, str] | None:
    """(end marker, name) of an HTML block kind 1-5 opened by ``first``; None for kinds
    6 and 7 (ended by a blank line)."""
    for pattern, marker, name in _HTML_OPEN:
        if pattern.match(first):
            return marker, name
    return None


def _closed(tok: Token, lines: Sequence[str]) -> tuple[bool, str]:
    """Whether block ``tok`` (an ``html_block`` or ``fence``) ends by its own end mark
    rather than by a blank line or the end of the document, and its name."""
    b, e = tok.map or (0, 0)
    last = lines[e - 1] if e - 1 < len(lines) else ""
    if tok.type == "fence":
        char = tok.markup[:1]
        tail = last.strip()
        closed = e - b >= 2 and bool(tail) and set(tail) == {char} and len(tail) >= len(tok.markup)
        return closed, "code fence"
    kind = _html_kind(lines[b])
    if kind is None:
        return False, "HTML block"
    marker, name = kind
    if marker is None:
        return bool(_KIND1_END.search(last)), name
    text = last[last.find(lines[b].strip()[:2]) + 2 :] if e - 1 == b else last
    return marker in text, name


def _shift(tokens: list[Token], by: int) -> None:
    for tok in tokens:
        if tok.map is not None:
            tok.map = [tok.map[0] + by, tok.map[1] + by]
        if tok.children:
            _shift(tok.children, by)


def repair_blocks(
    tokens: list[Token],
    lines: Sequence[str],
    parse: Callable[[str], list[Token]],
    first_line: int = 1,
) -> tuple[list[Token], list[Fallback]]:
    """``tokens`` (of ``lines``, parsed by ``parse``) with every top-level block that
    swallowed an ATX heading line split before it and the rest re-parsed, and the
    fallbacks taken (and closed blocks holding heading lines, nested ATX headings) in
    document order. ``first_line``: the file line of ``lines[0]``."""
    out: list[Token] = []
    notes: list[Fallback] = []
    for i, tok in enumerate(tokens):
        if tok.level > 0 or tok.map is None:
            if tok.type == "heading_open" and tok.level > 0 and tok.markup.startswith("#"):
                notes.append(_nested(tokens, i, first_line))
            out.append(tok)
            continue
        if tok.type not in ("html_block", "fence"):
            out.append(tok)
            continue
        b, e = tok.map
        inner = [(h, _heading_text(lines[h])) for h in range(b + 1, min(e, len(lines)))]
        found = [(h, text) for h, text in inner if text]
        if not found:
            out.append(tok)
            continue
        closed, name = _closed(tok, lines)
        if closed:
            h, text = found[0]
            notes.append(
                Fallback(
                    first_line + h,
                    f"heading '{_shown(text)}' is inside {_a(name)} (lines {first_line + b} "
                    f"to {first_line + e - 1}) and is read as its text, not as a clause",
                )
            )
            out.append(tok)
            continue
        h, text = found[0]
        how = (
            "not ended by a blank line"
            if name == "HTML block" and _html_kind(lines[b]) is None
            else "never closed"
        )
        notes.append(
            Fallback(
                first_line + h,
                f"heading '{_shown(text)}' was inside {_a(name)} opened on line "
                f"{first_line + b} and {how}; the block was ended before it and the "
                "heading read as a heading (fallback: block split at a heading)",
            )
        )
        cut = Token(tok.type, tok.tag, tok.nesting)
        cut.map, cut.markup, cut.info, cut.block = [b, h], tok.markup, tok.info, True
        cut.content = "".join(line + "\n" for line in lines[b + (tok.type == "fence") : h])
        out.append(cut)
        rest = list(lines[h:e])
        again = parse("\n".join(rest) + "\n")
        _shift(again, h)
        fixed, more = repair_blocks(again, lines, parse, first_line)  # a second such block, if any
        out.extend(fixed)
        notes.extend(more)
    return out, notes


def _nested(tokens: list[Token], i: int, first_line: int) -> Fallback:
    tok = tokens[i]
    inline = tokens[i + 1] if i + 1 < len(tokens) else None
    text = inline.content if inline is not None else ""
    container = "list item"
    for j in range(i - 1, -1, -1):
        if tokens[j].level == tok.level - 1 and tokens[j].nesting == 1:
            container = "blockquote" if tokens[j].type == "blockquote_open" else "list item"
            break
    line = (tok.map or [0])[0]
    return Fallback(
        first_line + line,
        f"heading '{_shown(text)}' is inside {_a(container)} and is read as text of the "
        "section above, not as a clause",
    )
