"""The inverse of :func:`etki.text.fold` per character, for the ``rg`` backend's permissive
patterns (:func:`etki.wiki.search.token_regex`).

Scanning all of Unicode through :func:`fold` takes one to two seconds, which a fresh
``python -m etki.wiki search`` cannot afford (issue 15), so the table is computed once and
shipped beside this module as ``fold_inverse.json``, with the Unicode version and the
special cases of the fold (``etki.text._SPECIAL``) it was computed for. A Python with
another Unicode version, or a fold whose special cases changed, computes the table on
first use instead (the same table, a slower first search). tests/test_fold_fast.py checks
that the shipped table is exactly what a scan gives; ``python -m etki.wiki.foldinverse``
writes it again.
"""

from __future__ import annotations

import json
import unicodedata
from collections import defaultdict
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from etki.text import _SPECIAL, fold

__all__ = ["SCAN_LIMIT", "TABLE_FILE", "FoldInverse", "compute", "fold_inverse", "write"]

SCAN_LIMIT = 0x30000
"""No code point at or above this folds to anything but itself (Unicode 14/15)."""
TABLE_FILE = Path(__file__).with_name("fold_inverse.json")


class FoldInverse(NamedTuple):
    """Which characters fold to what, leaving out those that fold to themselves.

    ``single``: a one-character fold -> the code points whose fold is exactly it;
    ``multi``: first character of a multi-character fold -> ``(fold, code point)`` pairs
    (``ß`` -> ``ss`` is under ``s``), sorted by code point; ``empty_non_mark``: the code
    points whose fold is empty and that are not combining marks."""

    single: dict[str, tuple[int, ...]]
    multi: dict[str, tuple[tuple[str, int], ...]]
    empty_non_mark: tuple[int, ...]


def _key() -> dict[str, object]:
    """What the table depends on besides the fold's code: the Unicode version of this
    Python and the fold's special cases."""
    return {"unicode": unicodedata.unidata_version, "special": sorted(_SPECIAL.items())}


def compute() -> FoldInverse:
    """The table, by folding every code point below :data:`SCAN_LIMIT` (1-2 s)."""
    single: dict[str, list[int]] = defaultdict(list)
    multi: dict[str, list[tuple[str, int]]] = defaultdict(list)
    empty_non_mark: list[int] = []
    for cp in range(SCAN_LIMIT):
        if 0xD800 <= cp < 0xE000:
            continue
        ch = chr(cp)
        f = fold(ch)
        if f == ch:
            continue
        if len(f) == 1:
            single[f].append(cp)
        elif f:
            multi[f[0]].append((f, cp))
        elif not unicodedata.category(ch).startswith("M"):
            empty_non_mark.append(cp)
    return FoldInverse(
        {k: tuple(v) for k, v in single.items()},
        {k: tuple(v) for k, v in multi.items()},
        tuple(empty_non_mark),
    )


def _load(path: Path) -> FoldInverse | None:
    """The table shipped in ``path`` when it was computed for this Python's Unicode
    version and this fold's special cases, else None (also when it cannot be read)."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != json.loads(json.dumps(_key())):
        return None
    return FoldInverse(
        {k: tuple(v) for k, v in data["single"].items()},
        {k: tuple((f, cp) for f, cp in v) for k, v in data["multi"].items()},
        tuple(data["empty_non_mark"]),
    )


@lru_cache(maxsize=1)
def fold_inverse() -> FoldInverse:
    """The table: read from :data:`TABLE_FILE` (a few milliseconds) when it fits this
    Python, else :func:`compute`. Built once per process."""
    return _load(TABLE_FILE) or compute()


def write(path: Path = TABLE_FILE) -> None:
    """Compute the table and write it to ``path`` (JSON, UTF-8, one line per group)."""
    table = compute()
    lines = ["{", f'"key": {json.dumps(_key(), ensure_ascii=False)},', '"single": {']
    lines.append(
        ",\n".join(
            f"{json.dumps(k, ensure_ascii=False)}: {json.dumps(list(v))}"
            for k, v in table.single.items()
        )
    )
    lines.append('},\n"multi": {')
    lines.append(
        ",\n".join(
            f"{json.dumps(k, ensure_ascii=False)}: "
            f"{json.dumps([list(p) for p in v], ensure_ascii=False, separators=(',', ':'))}"
            for k, v in table.multi.items()
        )
    )
    lines.append(f'}},\n"empty_non_mark": {json.dumps(list(table.empty_non_mark))}\n}}\n')
    path.write_text("\n".join(lines), encoding="utf-8")


if __name__ == "__main__":
    from etki.console import echo

    write()
    echo(f"wrote {TABLE_FILE}")
