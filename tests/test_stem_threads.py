"""Stemming from several threads at once gives each word its own stem (etki-tui on
talentmap crashed at start-up: the desk's detail and search workers shared one Snowball
stemmer, which keeps the word it works on in its own fields, and one thread read the
other's word: ``IndexError: string index out of range`` inside snowballstemmer)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from etki.triage.normalise import _snowball

WORDS = ["equitable", "requirements", "authentication", "deliverables", "performance"] * 400
GERMAN = ["Anforderungen", "Störungen", "Straßenkarte", "Lieferungen"] * 400


def test_each_thread_stems_every_word_as_one_thread_does() -> None:
    want_en = [_snowball("en").stemWord(w) for w in WORDS]
    want_de = [_snowball("de").stemWord(w) for w in GERMAN]

    def stem_all(lang: str) -> list[str]:
        stemmer = _snowball(lang)
        return [stemmer.stemWord(w) for w in (WORDS if lang == "en" else GERMAN)]

    with ThreadPoolExecutor(max_workers=6) as pool:
        got = list(pool.map(stem_all, ["en", "de"] * 6))
    assert all(g == (want_en if i % 2 == 0 else want_de) for i, g in enumerate(got))
    assert _snowball("en") is _snowball("en")  # one per thread, made once
