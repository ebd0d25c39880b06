"""``dump_frontmatter`` writes the same bytes with libyaml's emitter as with PyYAML's
pure-Python one (issue 7: the wiki's bytes must not depend on whether a machine has
libyaml). Compared over targeted and seeded random tricky strings; the two cases where
libyaml differs are shown to fall back; without libyaml, or when its self-check fails,
the Python emitter writes everything."""

from __future__ import annotations

import random

import pytest
import yaml

from etki import frontmatter
from etki.frontmatter import _SafeDumper, dump_frontmatter

HAS_LIBYAML = frontmatter._CSafeDumper is not None

PIECES = [
    "a",
    "Z",
    "0",
    "9",
    " ",
    "  ",
    "-",
    "_",
    ":",
    "#",
    "'",
    '"',
    "\\",
    "/",
    "|",
    ">",
    "!",
    "&",
    "*",
    "%",
    "@",
    "`",
    "?",
    ",",
    "[",
    "]",
    "{",
    "}",
    ".",
    "=",
    "~",
    "+",
    "\n",
    "\t",
    "\r",
    "\r\n",
    "\n\n",
    " \n",
    "\n ",
    "\x85",
    "\u2028",
    "\u2029",
    "\ufeff",
    "\x00",
    "\x07",
    "\x1b",
    "\x7f",
    "\x9b",
    "\xa0",
    "\xad",
    "\u200b",
    "\u202e",
    "\ue000",
    "\ufffd",
    "\ufffe",
    "\uffff",
    "ş",
    "İ",
    "ı",
    "ß",
    "ü",
    "é",
    "e\u0301",
    "東京",
    "␛",
    "⏎",
    "---",
    "...",
    "- ",
    ": ",
    " #",
    "null",
    "~",
    "yes",
    "No",
    "on",
    "0x1F",
    "1e3",
    "2024-01-01",
    "12:30",
    "<<",
    ".inf",
    "-.5",
    "0o7",
    "1_000",
    "true",
    "FALSE",
    "\\n",
    "👍",
    "\U0001f1f9\U0001f1f7",
    "\U00010000",
    "\U0010fffd",
]
KEYS = [
    "IN_SCOPE",
    "CHANGE_REQUEST",
    "REJECT",
    "x-y.z",
    "1",
    "null",
    "yes",
    "-",
    "",
    "a b",
    "k\r",
    "k\n",
    "ü",
    "👍",
    "0x1F",
    "2024-01-01",
]
TARGETED = [
    "",
    " ",
    "a: b",
    "a #b",
    "#a",
    "- a",
    "? a",
    ": a",
    "'",
    '"',
    "''",
    "no",
    "No",
    "NO",
    "off",
    "y",
    "null",
    "~",
    "010",
    "0x1F",
    "1e3",
    "2024-01-01",
    "12:30:00",
    " lead",
    "trail ",
    "line\nbreak",
    "line\n\nblank\n",
    "  indented\nlines\n",
    "a \nb",
    "a\n b",
    "tab\there",
    "cr\rhere",
    "nel\x85here",
    "ls\u2028here",
    "\ufeffbom",
    "\x00\x07\x1b",
    'it\'s "quoted" \\ here',
    "İade süreci ığüşöç",
    "Größe Straße",
    "東京オフィス",
    "e\u0301",
    "\u202eRTL",
    "emoji 👍 here",
    "flag \U0001f1f9\U0001f1f7",
    "word " * 400,
    "MSA-2024-01#3.2",
    "[[module:auth]]",
    "`code`",
    "*emph*",
    "a|b",
    "> quote",
    "%tag",
    "@at",
    "!bang",
    "&anchor",
    "*alias",
    "{a: b}",
    "[a, b]",
    "---",
    "...",
]


def python_dump(meta: dict) -> str:
    return yaml.dump(
        meta,
        Dumper=_SafeDumper,
        sort_keys=True,
        allow_unicode=True,
        default_flow_style=False,
        width=2**31 - 1,
    )


def metas() -> list[dict]:
    out = [{"title": s, "list": [s, "x"], "n": 3, "f": 0.87, "t": True, "e": []} for s in TARGETED]
    out += [{k: s, "v": {k: 1}} for k in KEYS for s in ("x", "a: b", "👍")]
    rng = random.Random(20241129)

    def text() -> str:
        return "".join(rng.choice(PIECES) for _ in range(rng.choice((0, 1, 3, 8, 25, 80))))

    for _ in range(1500):
        out.append(
            {
                "title": text(),
                "reason": text(),
                "cited_clauses": [text() for _ in range(rng.randint(0, 3))],
                "confidence": rng.choice((0.87, 1.0, 0.5, 12, 0)),
                "override": rng.random() < 0.5,
                "verdicts": {rng.choice(KEYS + [text()]): rng.randint(0, 5)},
                "decisions": rng.randint(0, 100),
                "empty": [],
                "path": text(),
            }
        )
    return out


def _expected(meta: dict, body: str = "body\n") -> str | None:
    try:
        return "---\n" + python_dump(meta) + "---\n" + body
    except ValueError:  # a lone surrogate: both paths refuse it
        return None


def test_same_bytes_as_the_python_emitter() -> None:
    checked = 0
    for meta in metas():
        expected = _expected(meta)
        if expected is None:
            with pytest.raises(ValueError):
                dump_frontmatter(meta, "body\n")
            continue
        assert dump_frontmatter(meta, "body\n") == expected, meta
        checked += 1
    assert checked > 1000


@pytest.mark.skipif(not HAS_LIBYAML, reason="PyYAML built without libyaml")
def test_libyaml_is_used_and_its_known_differences_fall_back() -> None:
    assert frontmatter._libyaml_ok()
    # libyaml 0.2.x escapes characters above U+FFFF and writes a key holding \r as a
    # complex key; such values go to the Python emitter
    for meta in ({"t": "emoji 👍"}, {"k\r": 1}):
        assert not frontmatter._libyaml_agrees(meta)
        assert dump_frontmatter(meta, "") == "---\n" + python_dump(meta) + "---\n"
    assert frontmatter._libyaml_agrees({"title": "İade: ş #1", "l": ["a\nb"], "n": {"X": 1}})


def test_without_libyaml_or_when_the_self_check_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    sample = [m for m in metas()[:300] if _expected(m) is not None]
    monkeypatch.setattr(frontmatter, "_CSafeDumper", None)
    assert all(dump_frontmatter(m, "b") == _expected(m, "b") for m in sample)
    monkeypatch.undo()
    monkeypatch.setattr(frontmatter, "_libyaml_checked", [False])
    assert all(dump_frontmatter(m, "b") == _expected(m, "b") for m in sample)
