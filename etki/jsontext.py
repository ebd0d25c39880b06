"""Indented JSON text, byte for byte what ``json.dumps(value, ensure_ascii=False,
indent=N)`` writes, made with the C string encoder (issue 32 item 1).

``json.dumps`` with an ``indent`` runs the pure-Python encoder: a generator per list and
dict, several ``yield`` per value. ``etki dispute list --json`` on the 10k bench store
prints 145k lines (every disputed clause's history), and that encoder was ~100 ms of the
command's CPU, most of what ``--json`` cost beyond the text form. :func:`dumps_indented`
builds the same text with one recursive function over the containers JSON is made of
(dicts with string keys, lists, tuples), strings through ``json``'s own C
``encode_basestring``, ``None``/``True``/``False`` and ints as ``json`` writes them, and
every other value (floats, dicts with non-string keys, subclasses, anything ``json``
refuses) handed to ``json.dumps`` itself, its lines indented to where it sits: the same
bytes in every case (``tests/test_jsontext.py`` compares them value kind by value kind).
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring
from typing import Any

__all__ = ["dumps_indented"]


def dumps_indented(value: Any, indent: int | str) -> str:
    """``json.dumps(value, ensure_ascii=False, indent=indent)``, the same text (``indent``
    a number of spaces or the string put per level, as ``json`` takes it). Raises what
    ``json.dumps`` raises for a value JSON cannot hold (``TypeError``, ``ValueError`` for
    a circular container: here ``RecursionError``, a ``ValueError``'s cousin, when the
    container holds itself)."""
    step = " " * indent if isinstance(indent, int) else indent
    return _dump(value, step, "\n")


def _dump(value: Any, step: str, here: str) -> str:
    """``value`` as JSON, its lines after the first starting with ``here`` (a newline and
    the indentation of the level ``value`` sits at)."""
    kind = type(value)
    enc = encode_basestring
    if kind is str:
        return encode_basestring(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is int:
        return int.__repr__(value)
    if kind is list or kind is tuple:
        if not value:
            return "[]"
        inner = here + step
        parts = [enc(v) if type(v) is str else _dump(v, step, inner) for v in value]
        return "[" + inner + ("," + inner).join(parts) + here + "]"
    if kind is dict:
        if not value:
            return "{}"
        inner = here + step
        items = []
        for k, v in value.items():
            if type(k) is not str:  # json turns other keys into strings its own way
                return _json(value, step, here)
            items.append(enc(k) + ": " + (enc(v) if type(v) is str else _dump(v, step, inner)))
        return "{" + inner + ("," + inner).join(items) + here + "}"
    return _json(value, step, here)


def _json(value: Any, step: str, here: str) -> str:
    """``value`` by ``json.dumps`` itself (floats, dicts with keys that are not strings,
    subclasses, values json refuses), its lines after the first starting with ``here``
    (JSON text holds a newline only between values: a string's is escaped)."""
    return json.dumps(value, ensure_ascii=False, indent=step).replace("\n", here)
