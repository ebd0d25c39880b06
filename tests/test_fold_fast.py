"""``etki.text.fold`` folds through a ``str.translate`` table and ASCII runs through
``str.lower`` (issue 7: wiki search and triage fold megabytes); the result must be
exactly the per-character definition: NFC, then :func:`etki.text._fold_char` of each
character."""

from __future__ import annotations

import random
import unicodedata

from etki.text import _fold_char, fold


def reference(text: str) -> str:
    return "".join(_fold_char(ch) for ch in unicodedata.normalize("NFC", text))


def test_every_code_point_below_u3000_and_a_sample_above() -> None:
    points = [*range(0x3000), *range(0x3000, 0x110000, 97)]
    for cp in points:
        if 0xD800 <= cp < 0xE000:
            continue
        ch = chr(cp)
        for text in (ch, f"A{ch}\u0301z", f"{ch}İ", f"x{ch}ß"):
            assert fold(text) == reference(text), hex(cp)


def test_random_mixed_text() -> None:
    pool = [
        chr(c)
        for c in (
            *range(0x20, 0x250),
            *range(0x300, 0x370),
            0x130,
            0x131,
            0xDF,
            0x1E9E,
            0xFB01,
            0x2126,
            0x212B,
            0xAC00,
            0x1100,
            0x1161,
            0x11A8,
            0x3000,
            0xFF21,
            0x13A0,
            0xAB70,
            0x10400,
            0x1F44D,
        )
    ]
    rng = random.Random(20241129)
    for _ in range(20000):
        text = "".join(rng.choice(pool) for _ in range(rng.randint(0, 14)))
        assert fold(text) == reference(text), repr(text)
    page = "İade süreci\nGröße der Straße\nplain ASCII LINE\ne\u0301 東京 ﬁle\n" * 50
    assert fold(page) == reference(page)


def test_the_shipped_inverse_of_fold_is_what_a_scan_of_unicode_gives(tmp_path) -> None:
    """Issue 15: the ``rg`` backend's inverse fold table is read from
    ``etki/wiki/fold_inverse.json`` instead of folding all of Unicode in every process; it
    must be exactly the scan (regenerate with ``python -m etki.wiki.foldinverse``), and a
    table made for another Unicode version or other special cases is not used."""
    from etki.wiki import foldinverse

    scanned = foldinverse.compute()
    assert scanned.single["s"] and any(f == "ss" for f, _ in scanned.multi["s"])
    assert ord("İ") in scanned.single["i"] and ord("ı") in scanned.single["i"]
    assert foldinverse._load(foldinverse.TABLE_FILE) == scanned
    assert foldinverse.fold_inverse() == scanned
    other = tmp_path / "other.json"
    text = foldinverse.TABLE_FILE.read_text(encoding="utf-8")
    version = unicodedata.unidata_version
    other.write_text(text.replace(f'"unicode": "{version}"', '"unicode": "1.0.0"', 1), "utf-8")
    assert foldinverse._load(other) is None
    other.write_text(text.replace('["ß", "ss"]', '["ß", "sz"]', 1), encoding="utf-8")
    assert foldinverse._load(other) is None
    other.write_text("{not json", encoding="utf-8")
    assert foldinverse._load(other) is None


def test_fold_origin_is_the_offset_list_of_fold_with_offsets() -> None:
    """Issue 15: snippets map a match back with :func:`etki.text.fold_origin` (a binary
    search) instead of the per-character offset list; every offset must agree, also
    where a character folds to two (``ß``, ``ﬁ``), to none (a lone mark) or to one."""
    from etki.text import fold_origin, fold_with_offsets

    rng = random.Random(15)
    pool = [*"abcİIıißẞﬁ한ǅŒ\u0301\u200b\u0307 ", chr(0xFF21), chr(0x1D412), "e\u0301"]
    texts = ["", "İADE SÜRECİ", "Straße ﬁle", "\u0301\u0301x"]
    texts += ["".join(rng.choice(pool) for _ in range(rng.randint(1, 40))) for _ in range(300)]
    for raw in texts:
        text = unicodedata.normalize("NFC", raw)
        folded, origin = fold_with_offsets(text)
        assert fold(text) == folded, repr(text)
        for at in range(len(folded) + 2):
            assert fold_origin(text, at) == origin[min(at, len(folded))], (repr(text), at)
