"""A fixed-schema YAML emitter for frontmatter entries (issue 32 item 4).

:func:`emit_entry` writes one ``key: value`` entry of a block mapping exactly as
``yaml.dump(..., Dumper=etki.frontmatter._SafeDumper, sort_keys=True, allow_unicode=True,
default_flow_style=False, width=2**31 - 1)`` writes it, byte for byte, for the value kinds
wiki pages carry: strings on one line, ints, floats, bools, None, lists of those and
mappings of plain keys to those. Anything it is not sure of gives None and the caller
dumps that value with PyYAML (so the output never changes, only its cost: PyYAML's
Python emitter was 14-22 % of a cold 10k-case rebuild).

How the bytes are chosen mirrors PyYAML 6's ``Emitter.analyze_scalar`` and
``choose_scalar_style`` for a block context without wrapping:

* a string is written *plain* when it is not empty, has no leading or trailing space, no
  block indicator (a leading ``#,[]{}&*!|>'"%@`` or backquote, ``---``/``...`` at the
  start, ``-``/``?``/``:`` followed by a space or the end, ``: `` or a final ``:``, `` #``)
  and PyYAML's own (YAML 1.1) implicit resolvers read it back as a string (so ``no``,
  ``on``, ``~``, ``null``, ``010``, ``1e3``, ``2024-01-01`` are never plain);
* else *single-quoted*, ``'`` doubled;
* a string with a line break, a tab, a control or other character PyYAML escapes (BOM,
  NEL, U+2028/9, a lone surrogate, anything above U+FFFF) is left to PyYAML (double
  quotes with escapes, or multi-line single quotes).

``tests/test_yamlemit.py`` checks the bytes against ``yaml.dump`` and the round trip
through :class:`etki.frontmatter.CoreSafeLoader` over generated values (Turkish, German,
hostile strings, numbers of every kind).
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any

import yaml

__all__ = ["emit_entry", "emit_scalar"]

_RESOLVERS: dict[Any, list[tuple[str, re.Pattern[str]]]] = yaml.SafeDumper.yaml_implicit_resolvers
_STR = "tag:yaml.org,2002:str"

_SIMPLE = re.compile("[\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]*")
"""A string PyYAML writes without escapes and on one line: printable ASCII, and
(``allow_unicode``) U+00A0..U+D7FF and U+E000..U+FFFD except the BOM (U+FEFF) and the
line and paragraph separators (U+2028/9). No line
break, tab, control character, NEL, surrogate or astral character (left to PyYAML)."""

_BLOCK_INDICATOR = re.compile(r"^(?:---|\.\.\.)|^[#,\[\]{}&*!|>'\"%@`]|^[-?:](?: |$)|:(?: |$)| #")
"""What ``analyze_scalar`` calls block indicators, for a string with no tab or break
(the only whitespace left is the space)."""


def _resolves_to_str(text: str) -> bool:
    """Whether PyYAML's dumper resolves ``text`` written plain to a string (its YAML 1.1
    implicit resolvers: bool, int, float, null, timestamp, merge, value)."""
    for tag, pattern in _RESOLVERS.get(text[0] if text else "", []):
        if pattern.match(text):
            return tag == _STR
    for tag, pattern in _RESOLVERS.get(None, []):
        if pattern.match(text):
            return tag == _STR
    return True


@lru_cache(maxsize=1 << 16)  # pure; clause refs, names and labels recur on every page
def _string(text: str) -> str | None:
    if not _SIMPLE.fullmatch(text):
        return None
    if (
        text
        and text[0] != " "
        and text[-1] != " "
        and not _BLOCK_INDICATOR.search(text)
        and _resolves_to_str(text)
    ):
        return text
    return "'" + text.replace("'", "''") + "'"


def _float(value: float) -> str | None:
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value).lower()
    if "." not in text and "e" in text:
        text = text.replace("e", ".0e", 1)
    return None if _resolves_to_str(text) else text  # written with a !!float tag: PyYAML


def emit_scalar(value: Any) -> str | None:
    """The text PyYAML writes for the scalar ``value`` as a block mapping value or a
    block sequence item (no ``key: `` or ``- `` before it), or None when this emitter
    does not know it (then dump it with PyYAML). Types are checked exactly: a ``str``
    or ``int`` subclass gives None."""
    kind = type(value)
    if kind is str:
        return _string(value)
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value)
    if kind is float:
        return _float(value)
    if value is None:
        return "null"
    return None


def _key(key: Any) -> str | None:
    if type(key) is not str or not key or len(key) >= 128:  # PyYAML: a long key is "? key"
        return None
    text = _string(key)
    return text if text == key else None  # only plain keys (the rest: PyYAML)


def emit_entry(key: str, value: Any) -> str | None:
    """``key: value`` and its line break(s) as one entry of a top-level block mapping
    written by PyYAML (see the module docstring for the options), or None when the key
    is not plain or the value holds anything :func:`emit_scalar` does not know, or is
    nested deeper than a list or mapping of scalars. A list is written as PyYAML writes
    it under a mapping key (``- item`` lines, not indented; ``[]`` when empty); a mapping
    as indented ``k: v`` lines with sorted keys (``{}`` when empty)."""
    head = _key(key)
    if head is None:
        return None
    kind = type(value)
    if kind is list:
        if not value:
            return head + ": []\n"
        items = [emit_scalar(x) for x in value]
        if any(x is None for x in items):
            return None
        return head + ":\n" + "".join(f"- {x}\n" for x in items)
    if kind is dict:
        if not value:
            return head + ": {}\n"
        if not all(type(k) is str for k in value):
            return None
        lines = [head + ":\n"]
        for k in sorted(value):
            name, text = _key(k), emit_scalar(value[k])
            if name is None or text is None:
                return None
            lines.append(f"  {name}: {text}\n")
        return "".join(lines)
    text = emit_scalar(value)
    return None if text is None else f"{head}: {text}\n"
