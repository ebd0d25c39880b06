"""The sentence of a clause nearest a request (issue 34 item 2): a display choice of the
desk, never the engine's evidence. When the evidence decides on a clause by its role and
quotes no sentence of it, the detail pane folds the clause around the sentence sharing
the most content words with the request instead of its opening lines.

Content words are the triage engine's scoring tokens (:func:`etki.triage.normalise.tokens`:
folded with :func:`etki.text.words`, so NFC/NFD, Turkish ``İ``/``ı`` and German ``ß``/
umlauts alike; its stop lists, party words included; stemmed per language), so "nearest"
means what the engine's word overlap means. No word list of its own.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from etki.text import printable, words, words_as_written
from etki.triage.normalise import STOPWORDS, guess_language, stem, tokens

__all__ = ["NearestSentence", "nearest_sentence"]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")

SHARED_SHOWN = 6
"""Shared words named at most (the label stays one line)."""


@dataclass(frozen=True)
class NearestSentence:
    """``text``: one sentence of a clause's plain text (whitespace runs single spaces);
    ``shared``: the sentence's content words (as the clause writes them, each once, in
    its order, at most :data:`SHARED_SHOWN`) whose stems the request also holds."""

    text: str
    shared: tuple[str, ...]


@functools.lru_cache(maxsize=64)
def nearest_sentence(request: str, plain: str) -> NearestSentence | None:
    """The sentence of ``plain`` (a clause's plain text, one paragraph or list item a
    line; a line split into sentences after ``.``, ``!`` or ``?`` and a space) holding
    the most distinct content words of ``request`` (ties: the first); None when no
    sentence holds one. Each text is read in the language :func:`guess_language` gives
    it. Cached (the detail pane renders a case again on every refresh)."""
    want = set(tokens(request, guess_language(request)))
    if not want:
        return None
    lang = guess_language(plain[:4000])
    stop = STOPWORDS.get(lang, frozenset())

    def held(sentence: str) -> list[tuple[int, str]]:
        """(word index, stem) of each first content word whose stem ``want`` holds."""
        out: list[tuple[int, str]] = []
        seen: set[str] = set()
        for i, w in enumerate(words(sentence)):
            if len(w) < 2 or w in stop:
                continue
            s = stem(w, lang)
            if s in want and s not in seen:
                seen.add(s)
                out.append((i, s))
        return out

    best: tuple[int, str] | None = None
    for line in plain.splitlines():
        for sentence in _SENTENCE_END.split(" ".join(line.split())):
            n = len(held(sentence))
            if n and (best is None or n > best[0]):
                best = (n, sentence)
    if best is None:
        return None
    written = words_as_written(best[1])  # one for each of words(), in order
    shared = [printable(written[i], multiline=False) for i, _ in held(best[1])]
    return NearestSentence(best[1], tuple(shared[:SHARED_SHOWN]))
