"""``etki.wiki.model.Joined`` (issue 32 item 5: parts kept joined in blocks): after any
sequence of dropped parts, inserted, removed and reordered keys, ``get`` gives exactly
``b"\\n".join`` of the parts made now, and makes again only the dropped or new ones."""

from __future__ import annotations

import random

import pytest

from etki.wiki.model import Joined


@pytest.mark.parametrize("seed", range(6))
def test_blocked_join_equals_the_plain_join(seed: int) -> None:
    rng = random.Random(seed)
    version: dict[str, int] = {}  # key -> the version its part has now
    made: list[str] = []

    def make(key: str) -> bytes:
        made.append(key)
        n = version.setdefault(key, 0)
        # parts of any length, empty ones and ones with newlines and non-ASCII included
        tail = "ş\n" * (n % 3)
        return f"{key}:{n}{tail}".encode() if n % 5 else b""

    joined: Joined[str] = Joined()
    seen: set[str] = set()
    keys = [f"k{i:04d}" for i in range(rng.randrange(0, 300))]
    for _ in range(60):
        op = rng.randrange(5)
        dropped: set[str] = set()
        if op == 0 and keys:  # parts change (a ruling touched those sections)
            for key in rng.sample(keys, min(len(keys), rng.randrange(1, 5))):
                version[key] = version.get(key, 0) + 1
                joined.drop(key)
                dropped.add(key)
        elif op == 1:  # keys added anywhere (a new disputed clause, a new override)
            for _ in range(rng.randrange(1, 70)):
                key = f"n{rng.randrange(10**6):06d}"
                if key not in keys:
                    keys.insert(rng.randrange(len(keys) + 1), key)
        elif op == 2 and keys:  # keys removed
            for key in rng.sample(keys, min(len(keys), rng.randrange(1, 70))):
                keys.remove(key)
        elif op == 3:  # a dropped key that is no longer listed
            joined.drop("absent")
        elif op == 4 and rng.random() < 0.2:  # almost everything goes, then comes back
            keys = keys[: rng.randrange(3)]
        made.clear()
        got = joined.get(list(keys), make)
        by_get = list(made)
        assert got == b"\n".join(make(k) for k in keys)
        # get made again only the dropped parts and those of keys it never saw
        assert set(by_get) <= dropped | (set(keys) - seen)
        assert len(by_get) == len(set(by_get))
        seen.update(keys)
        made.clear()
        assert joined.get(list(keys), make) == got  # unchanged: the kept blocks
        assert made == []
        assert b"\n".join(joined.blocks(list(keys), make)) == got


def test_no_keys_give_empty_bytes() -> None:
    joined: Joined[str] = Joined()
    assert joined.get([], lambda k: b"x") == b""
    assert joined.get(["a", "b"], lambda k: k.encode()) == b"a\nb"
    assert joined.get([], lambda k: b"x") == b""
