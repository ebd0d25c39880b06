"""Wikilinks in markdown: ``[[target]]``, ``[[target#heading]]``, ``[[target|alias]]``.

Links are read from markdown-it-py's inline token stream, never by a regex over the raw
file, so (hostile case B18, pinned in ``tests/test_index_links.py``):

* code spans, fenced and indented code blocks and HTML blocks hold no links;
* escaped brackets (``\\[\\[not a link\\]\\]``) are not links;
* inside a table cell the pipe must be escaped (``[[page\\|alias]]``); the table parser
  unescapes it, so it still separates target and alias;
* a leading YAML frontmatter block is skipped.

A typed link ``[[depends_on::module:auth]]`` keeps its ``type::`` prefix in the target;
:func:`split_typed_target` separates it (the contract parser uses it for edge types).
"""

from __future__ import annotations

import re

from markdown_it.token import Token

from etki.frontmatter import frontmatter_block
from etki.mdtext.parser import markdown_parser

__all__ = [
    "Wikilink",
    "extract_wikilinks",
    "markdown_parser",
    "split_typed_target",
    "wikilinks_in_tokens",
    "written_wikilinks",
]

Wikilink = tuple[str, str | None, str | None]
"""(target, heading, alias); heading and alias are ``None`` when absent."""

_BREAK = "\ue000"  # stands for anything that may not be part of a link
_LINK = re.compile(r"\[\[([^\[\]\n" + _BREAK + r"]+?)\]\]")
_TYPED = re.compile(r"^\s*([^\W\d_][\w \t-]*?)\s*::\s*(.+)$", re.S)


def _inline_text(children: list[Token]) -> str:
    out: list[str] = []
    for child in children:
        if child.type == "text":
            out.append(child.content)
        elif child.type == "text_special":
            # an escaped bracket must not open or close a link; other escapes are literal
            out.append(_BREAK if child.content in "[]" else child.content)
        elif child.type == "softbreak" or child.type == "hardbreak":
            out.append("\n")
        elif child.type in (
            "strong_open",
            "strong_close",
            "em_open",
            "em_close",
            "s_open",
            "s_close",
        ):
            continue
        else:  # code spans, inline HTML, links, images, autolinks
            out.append(_BREAK)
    return "".join(out)


def _parse_inner(inner: str) -> Wikilink | None:
    target_part, sep, alias = inner.partition("|")
    target, hsep, heading = target_part.partition("#")
    target = target.strip()
    heading_value = heading.strip() if hsep else ""
    alias_value = alias.strip() if sep else ""
    if not target and not heading_value:
        return None
    return target, heading_value or None, alias_value or None


def written_wikilinks(tokens: list[Token]) -> list[tuple[Wikilink, str]]:
    """Like :func:`wikilinks_in_tokens`, each link with the text it was written as
    (``"[[MSA#3.2|SSO clause]]"``, escapes resolved), for reports of links that do not
    resolve."""
    links: list[tuple[Wikilink, str]] = []
    for token in tokens:
        if token.type != "inline" or not token.children:
            continue
        for match in _LINK.finditer(_inline_text(token.children)):
            link = _parse_inner(match.group(1))
            if link is not None:
                links.append((link, match.group(0)))
    return links


def wikilinks_in_tokens(tokens: list[Token]) -> list[Wikilink]:
    """Wikilinks in already parsed block ``tokens`` (from :func:`markdown_parser`), in
    document order. Only ``inline`` tokens are read, so code blocks never contribute."""
    return [link for link, _ in written_wikilinks(tokens)]


def extract_wikilinks(markdown: str) -> list[Wikilink]:
    """All wikilinks of ``markdown`` as ``(target, heading, alias)`` in document order
    (duplicates kept). ``[[#Fesih]]`` (same page) gives ``("", "Fesih", None)``.

    >>> extract_wikilinks("see [[MSA#3.2|SSO clause]] and `[[no]]`")
    [('MSA', '3.2', 'SSO clause')]
    """
    _, body, _ = frontmatter_block(markdown)
    return wikilinks_in_tokens(markdown_parser().parse(body))


def split_typed_target(target: str) -> tuple[str | None, str]:
    """``"depends_on::module:auth"`` -> ``("depends_on", "module:auth")``, also for
    non-ASCII type names with spaces (``"hariç tutar::module:mobile"``); an untyped
    target gives ``(None, target)``."""
    match = _TYPED.match(target)
    if match is None:
        return None, target
    return match.group(1), match.group(2).strip()
