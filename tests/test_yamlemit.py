"""The fixed-schema frontmatter emitter writes PyYAML's bytes (issue 32 item 4).

Every value is checked three ways: :func:`etki.yamlemit.emit_entry` gives exactly the text
of ``yaml.dump`` with the frontmatter options (or None, and then only for the kinds it
leaves to PyYAML), :func:`etki.frontmatter.frontmatter_bytes` gives the bytes of
:func:`etki.frontmatter.dump_frontmatter`, and the text loads back to the same value with
:class:`etki.frontmatter.CoreSafeLoader`.
"""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
import yaml

from etki import frontmatter
from etki.frontmatter import CoreSafeLoader, dump_frontmatter, frontmatter_bytes
from etki.yamlemit import emit_entry

# fmt: off
NAMED: list[Any] = [
    # Norway and the other YAML 1.1 words
    "no", "No", "NO", "yes", "Yes", "on", "On", "off", "OFF", "y", "n", "true", "False",
    "null", "Null", "~", "", "<<", "=",
    # numbers and dates as strings
    "010", "0x1F", "0o17", "0b101", "1e3", "1.5", ".5", "1_000", "1:20", "-1", "+1", ".inf",
    "-.inf", ".nan", "2024-01-01", "2024-01-01 10:00:00", "12:30:45",
    # indicators and spaces
    " lead", "trail ", "  ", " ", "a: b", "a:b", "a:", ":a", ": a", "a #b", "a#b", "#x", "-",
    "- x", "-x", "?", "? x", "?x", "---", "--- x", "...", "a...", "[a]", "{b}", "&c", "*d",
    "!e", "|f", ">g", "%h", "@i", "`j", ",k", "'q'", '"dq"', "it's", "a, b", "a ,b", "x]",
    "100%", "C-12 (3.2)", "İade süreci ığüşöç", "Größe Straße", "ÇALIŞMA", "e\u0301",
    "a\xa0b", "\xa0lead", "a\xadb", "\ue000", "\ufffd", "東京", "\u202eabc",
    # left to PyYAML: breaks, controls, BOM, NEL, separators, astral
    "line one\nline two", "a\n", "\nb", "a \nb", "a\n b", "para\n\n  indented\n", "a\tb",
    "a\rb", "\x00\x07\x1b", "\ufeffx", "a\x85b", "a\u2028b", "a\u2029b", "👍 ok",
    # other kinds
    0, 1, -7, 10**30, True, False, 0.0, -0.0, 0.87, 1e17, 1e-05, -2.5e300, math.inf,
    -math.inf, 1.0, 3.14159,
    [], ["a", "no", "- y", "? z", ""], [1, 2.5, True, None, "x: y"], ["multi\nline"],
    {}, {"IN_SCOPE": 1, "REJECT": 0, "x-y.z": 2}, {"a": "no", "b": None, "c": 0.5},
    {"no": 1}, {"a b": 1}, {"k": [1]}, [[1]], [{"a": 1}], ("t",),
]

PIECES = [
    "a", "Z", "9", "0", " ", "  ", ":", ": ", "#", " #", "-", "- ", "?", "'", '"', "\\",
    ",", "[", "]", "{", "}", "&", "*", "!", "|", ">", "%", "@", "`", ".", "...", "---",
    "İ", "ı", "ş", "ğ", "ß", "ä", "Ö", "ü", "e\u0301", "\xa0", "€", "\u200b", "~", "no",
    "yes", "on", "null", "true", "1", "e", "E", "+", "_", "x", "\n", "\t", "\x85", "\ufeff",
]
# fmt: on


def _dump(value: Any) -> str:
    return yaml.dump(
        {"k": value},
        Dumper=frontmatter._SafeDumper,
        sort_keys=True,
        allow_unicode=True,
        default_flow_style=False,
        width=2**31 - 1,
    )


def _generated(n: int, seed: int) -> list[Any]:
    rnd = random.Random(seed)
    out: list[Any] = []
    for _ in range(n):
        roll = rnd.random()
        if roll < 0.7:
            out.append("".join(rnd.choice(PIECES) for _ in range(rnd.randint(1, 6))))
        elif roll < 0.8:
            out.append(rnd.randint(-(10**12), 10**12))
        elif roll < 0.9:
            out.append(rnd.uniform(-1e6, 1e6) * 10 ** rnd.randint(-20, 20))
        else:
            out.append(["".join(rnd.choice(PIECES) for _ in range(3)) for _ in range(3)])
    return out


def _same(loaded: Any, value: Any) -> bool:
    if type(value) is float and math.isnan(value):
        return type(loaded) is float and math.isnan(loaded)
    if type(value) is float:
        return type(loaded) is float and loaded == value and str(loaded) == str(value)
    if isinstance(value, list):
        return (
            isinstance(loaded, list)
            and len(loaded) == len(value)
            and all(_same(a, b) for a, b in zip(loaded, value, strict=True))
        )
    if isinstance(value, dict):
        return (
            isinstance(loaded, dict)
            and loaded.keys() == value.keys()
            and all(_same(loaded[k], value[k]) for k in value)
        )
    return type(loaded) is type(value) and loaded == value


def _check(value: Any) -> str | None:
    emitted = emit_entry("k", value)
    if emitted is not None:
        assert emitted == _dump(value), value
    meta = {"k": value, "a_title": "Madde 4.2: İade", "z": "no"}
    fast = frontmatter_bytes(meta)
    assert fast == dump_frontmatter(meta, "").encode("utf-8"), value
    loaded = yaml.load(fast.decode("utf-8")[4:-4], Loader=CoreSafeLoader)  # noqa: S506  # the safe loader
    assert _same(loaded["k"], value), (value, loaded)
    return emitted


@pytest.mark.parametrize("value", NAMED, ids=repr)
def test_named_values_match_pyyaml_and_load_back(value: Any) -> None:
    if isinstance(value, tuple):  # a kind the emitter leaves to PyYAML (written as a list)
        assert emit_entry("k", value) is None
        assert frontmatter_bytes({"k": value}) == dump_frontmatter({"k": value}, "").encode()
        return
    _check(value)


def test_generated_values_match_pyyaml_and_load_back() -> None:
    known = 0
    values = _generated(3000, seed=32)
    for value in values:
        if _check(value) is not None:
            known += 1
    # the emitter is not vacuous: it writes everything but the strings with a break,
    # tab, NEL or BOM (those go to PyYAML)
    plain = [
        v
        for v in values
        if not (
            isinstance(v, str | list) and any(c in "".join(v) for c in "\n\t\x85\ufeff\u2028\u2029")
        )
    ]
    assert known == len(plain)


def test_what_the_emitter_writes_itself() -> None:
    assert emit_entry("title", "no") == "title: 'no'\n"
    assert emit_entry("title", "it's: here") == "title: 'it''s: here'\n"
    assert emit_entry("title", "İade süreci") == "title: İade süreci\n"
    assert emit_entry("n", 3) == "n: 3\n"
    assert emit_entry("f", 1e17) == "f: 1.0e+17\n"
    assert emit_entry("l", ["a", "010"]) == "l:\n- a\n- '010'\n"
    assert emit_entry("d", {"b": 1, "a": True}) == "d:\n  a: true\n  b: 1\n"
    assert emit_entry("m", "a\nb") is None  # multi-line: PyYAML
    assert emit_entry("no", 1) is None  # a key that needs quotes: PyYAML
