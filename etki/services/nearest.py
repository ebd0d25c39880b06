"""The sentence of a clause nearest a request (issue 34 item 2): a display choice of the
desk, never the engine's evidence. When the evidence decides on a clause by its role and
quotes no sentence of it, the detail pane folds the clause around the sentence sharing
the most content words with the request instead of its opening lines.

Content words are read as the triage engine reads them (folded with
:func:`etki.text.words`, so NFC/NFD, Turkish ``İ``/``ı`` and German ``ß``/umlauts alike;
its stop lists, party words included; stemmed per language), so "nearest" means what the
engine's word overlap means; no word list of its own. Unlike the engine's
:func:`etki.triage.normalise.tokens` the request is not split at camelCase humps: a
shared word must be a word the request writes (issue 34's trial: "TalentMAP" gave "map"
and the clause's "maps" was named as shared). The shared words are shown as the request
writes them.

One shared word is weak ground (a trial saw a sentence offered as "nearest" on one
common word): a sentence is offered only when it shares at least
:data:`MIN_SHARED` distinct content words with the request, or one word that no other
clause of the same contract uses. That second case is inverse document frequency at its
highest within the contract (Spärck Jones, "A statistical interpretation of term
specificity", 1972: a term's weight falls with the number of documents it occurs in;
here the documents are the contract's clauses, as the engine's IDF counts contract
text): a word only this clause holds names what it alone is about. With no other
clause to compare (a one-clause contract, or none given) one word is never enough.
Otherwise no nearest sentence is shown and the fold keeps the clause's opening.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from etki.text import printable, words, words_as_written
from etki.triage.normalise import STOPWORDS, guess_language, stem

__all__ = ["NearestSentence", "nearest_sentence"]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")

SHARED_SHOWN = 6
"""Shared words named at most (the label stays one line)."""

MIN_SHARED = 2
"""Distinct content words a sentence must share with the request to be offered, unless
its one shared word is this clause's alone in the contract (see the module docstring):
two words meeting in one sentence are a phrase of the request, one common word a
coincidence."""


@dataclass(frozen=True)
class NearestSentence:
    """``text``: one sentence of a clause's plain text (whitespace runs single spaces);
    ``shared``: the content words the sentence and the request share, as the request
    writes them (its first word of each stem; in the sentence's order, each once, at
    most :data:`SHARED_SHOWN`), so each is found in the request as shown."""

    text: str
    shared: tuple[str, ...]


@functools.lru_cache(maxsize=256)
def _stems(text: str, lang: str) -> frozenset[str]:
    """The content-word stems of ``text`` read in ``lang`` (as :func:`nearest_sentence`
    reads a clause): the other clauses' vocabulary, cached (each is read again on every
    render of a detail)."""
    stop = STOPWORDS.get(lang, frozenset())
    return frozenset(stem(w, lang) for w in words(text) if len(w) >= 2 and w not in stop)


@functools.lru_cache(maxsize=64)
def nearest_sentence(
    request: str, plain: str, others: tuple[str, ...] = ()
) -> NearestSentence | None:
    """The sentence of ``plain`` (a clause's plain text, one paragraph or list item a
    line; a line split into sentences after ``.``, ``!`` or ``?`` and a space) holding
    the most distinct content words of ``request`` (ties: the first), among the
    sentences that share at least :data:`MIN_SHARED` of them or one that no text of
    ``others`` (the other clauses of the same contract) holds; None when no sentence
    qualifies. Each text is read in the language :func:`guess_language` gives it (the
    others in the clause's). Cached (the detail pane renders a case again on every
    refresh)."""
    said = _request_words(request)
    want = set(said)
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

    def alone(s: str) -> bool:
        """Whether no other clause of the contract holds stem ``s`` (and there is one)."""
        return bool(others) and not any(s in _stems(text, lang) for text in others)

    best: tuple[int, str] | None = None
    for line in plain.splitlines():
        for sentence in _SENTENCE_END.split(" ".join(line.split())):
            found = held(sentence)
            n = len(found)
            if n < MIN_SHARED and not (n == 1 and alone(found[0][1])):
                continue
            if best is None or n > best[0]:
                best = (n, sentence)
    if best is None:
        return None
    shared = [printable(said[s], multiline=False) for _, s in held(best[1])]
    return NearestSentence(best[1], tuple(shared[:SHARED_SHOWN]))


@functools.lru_cache(maxsize=64)
def _request_words(request: str) -> dict[str, str]:
    """content-word stem -> the request's first word with that stem, as written: the
    request read as a clause is read (:func:`etki.text.words`, the engine's stop list
    and stemmer for its language), so a shared word is a whole word of the request.
    Not :func:`etki.triage.normalise.tokens`: its camelCase split makes humps of a name
    words ("TalentMAP" gave "map", and a clause's "maps" was offered as shared with a
    request that never says it: issue 34's trial on talentmap 8726578b)."""
    lang = guess_language(request)
    stop = STOPWORDS.get(lang, frozenset())
    out: dict[str, str] = {}
    for w, written in zip(words(request), words_as_written(request), strict=True):
        if len(w) >= 2 and w not in stop:
            out.setdefault(stem(w, lang), written)
    return out
