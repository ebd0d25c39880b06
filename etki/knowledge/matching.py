"""Fuzzy keyword matching: does a keyword occur in a text, allowing small inflections
(``payment`` / ``payments``)? Used by the link enricher and the lexical validation gate.

Rules (case B20, pinned in ``tests/test_enricher.py``):

* rapidfuzz is always called with an explicit ``processor`` (:func:`etki.text.fold`,
  memoised as :func:`folded`), so
  letter case, Turkish dotted/dotless i, umlauts and NFC/NFD never matter, and a
  rapidfuzz version whose default processor differs cannot change a result;
* the keyword is compared with each *word* of the text (``fuzz.ratio``), never with the
  whole text (``partial_ratio`` would let ``a`` match anything that contains an ``a``);
* keywords of 1 or 2 letters never match (:data:`MIN_KEYWORD_LETTERS`);
* a match needs a ratio of at least :data:`MATCH_RATIO`. ``fuzz.ratio`` is the normalised
  Indel similarity ``2*M/(len(a)+len(b))``, so 88 lets a word take an inflection
  (``file``/``files`` = 89, ``payment``/``payments`` = 93) but makes a 3-letter keyword
  match only itself (one edit gives at most 86);
* and the two words must open alike: all letters of the shorter one but its last two
  (at least three) begin the longer one, because inflections change word endings
  (``calendar``/``calendars``) while ``constants``/``constraints`` (ratio 90) are
  different words.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz, process

from etki.text import fold

__all__ = [
    "MATCH_RATIO",
    "MIN_KEYWORD_LETTERS",
    "STOPWORDS",
    "KeywordHit",
    "WordSet",
    "folded",
    "identifier_words",
    "keyword_match",
    "match_keywords",
    "text_words",
    "usable_keyword",
]

MATCH_RATIO = 88.0
"""Least ``fuzz.ratio`` (0-100) for a keyword to match a word (see the module docstring)."""
MIN_KEYWORD_LETTERS = 3
"""Keywords shorter than this never match (B20: ``a``, ``ab``, ``in``)."""

STOPWORDS: frozenset[str] = frozenset(
    {
        # English function words of three letters or more
        "the",
        "and",
        "for",
        "with",
        "from",
        "into",
        "that",
        "this",
        "are",
        "was",
        "were",
        "will",
        "shall",
        "may",
        "must",
        "not",
        "all",
        "any",
        "each",
        "its",
        "per",
        "via",
        "other",
        "than",
        "then",
        "such",
        "also",
        "only",
        "both",
        "own",
        "out",
        "who",
        "which",
        "through",
        "before",
        "after",
        "about",
        "over",
        "under",
        "between",
        "within",
        "without",
        "when",
        "where",
        "how",
        "what",
        "their",
        "them",
        "they",
        "these",
        "those",
        "there",
        "here",
        "has",
        "have",
        "had",
        "can",
        "could",
        "should",
        "would",
        "been",
        "being",
        "more",
        "most",
        "some",
        "one",
        "two",
        "several",
        "use",
        "used",
        "using",
        "new",
        # Turkish
        "ile",
        "icin",
        "olan",
        "veya",
        "gibi",
        "her",
        "bir",
        "daha",
        "kadar",
        # German
        "der",
        "die",
        "das",
        "und",
        "oder",
        "fur",
        "mit",
        "von",
        "den",
        "dem",
        "des",
        "ein",
        "eine",
        "nicht",
        "auf",
        "bei",
        # code structure words that name no subject
        "src",
        "lib",
        "app",
        "apps",
        "index",
        "init",
        "main",
        "test",
        "tests",
        "spec",
        "module",
        "modules",
        "package",
        "util",
        "utils",
        "helpers",
        "common",
        "misc",
    }
)
"""Words that are never keywords (folded)."""

_MARKS = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
_WORD = re.compile(rf"[^\W_](?:[^\W_]|[{_MARKS}])*")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def text_words(text: str) -> list[str]:
    """The words of ``text`` as written (NFC, not folded), in order: letters and digits
    with their combining marks (``"i̇ptal"``, an ``i`` plus U+0307 as ``str.lower`` makes
    of ``İ``, is one word), anything else splits."""
    return _WORD.findall(unicodedata.normalize("NFC", text))


def identifier_words(identifier: str) -> list[str]:
    """Words of a code identifier or path, as written: ``frontend.components.SubmissionHistory``
    -> ``frontend components Submission History``; ``row_schema.py`` -> ``row schema py``."""
    out: list[str] = []
    for part in text_words(identifier):
        out.extend(p for p in _CAMEL.split(part) if p)
    return out


def usable_keyword(keyword: str) -> bool:
    """True when ``keyword`` may match at all: 3+ letters, no stopword, not a number."""
    key = fold(keyword)
    letters = sum(ch.isalpha() for ch in key)
    return letters >= MIN_KEYWORD_LETTERS and key not in STOPWORDS and not key.isdigit()


_usable = usable_keyword


@dataclass(frozen=True)
class KeywordHit:
    """``keyword`` matched ``word`` (as written in the text) with ``score`` (0-100)."""

    keyword: str
    word: str
    score: float


CANDIDATES = 5
"""Best-ratio words looked at per keyword for one that also opens alike."""


def _same_opening(a: str, b: str) -> bool:
    shorter = min(len(a), len(b))
    need = max(MIN_KEYWORD_LETTERS, shorter - 2)
    return a[:need] == b[:need]


@lru_cache(maxsize=65536)
def folded(text: str) -> str:
    """:func:`etki.text.fold`, memoised: the processor handed to rapidfuzz, which calls
    it for every choice of every lookup."""
    return fold(text)


class WordSet:
    """The distinct words of a text (first spelling kept), ready for many keyword
    lookups: an exact folded match is found by dictionary, anything else by rapidfuzz
    ``process.extractOne(..., scorer=fuzz.ratio, processor=folded)``; results are
    memoised per keyword."""

    def __init__(self, text: str | Sequence[str]) -> None:
        words = text_words(text) if isinstance(text, str) else list(text)
        self.by_fold: dict[str, str] = {}
        for word in words:
            self.by_fold.setdefault(folded(word), word)
        self.words = tuple(self.by_fold.values())
        self._memo: dict[str, KeywordHit | None] = {}

    def match(self, keyword: str) -> KeywordHit | None:
        """See :func:`keyword_match`."""
        key = folded(keyword)
        if key in self._memo:
            found = self._memo[key]
            return None if found is None else KeywordHit(keyword, found.word, found.score)
        hit: KeywordHit | None = None
        if _usable(keyword):
            if key in self.by_fold:
                hit = KeywordHit(keyword, self.by_fold[key], 100.0)
            elif self.words:
                for word, score, _ in process.extract(
                    keyword,
                    self.words,
                    scorer=fuzz.ratio,
                    processor=folded,
                    score_cutoff=MATCH_RATIO,
                    limit=CANDIDATES,
                ):
                    if _same_opening(key, folded(word)):
                        hit = KeywordHit(keyword, str(word), round(float(score), 1))
                        break
        self._memo[key] = hit
        return hit


def keyword_match(keyword: str, text: str | Sequence[str] | WordSet) -> KeywordHit | None:
    """The best match of ``keyword`` among the words of ``text`` (a string, its words, or
    a :class:`WordSet`), or None: no word reaches :data:`MATCH_RATIO`, or the keyword has
    fewer than :data:`MIN_KEYWORD_LETTERS` letters or is a stopword.

    >>> keyword_match("sso", "Şirket içi SSO girişi").word
    'SSO'
    >>> keyword_match("in", "Şirket içi SSO girişi") is None
    True
    """
    words = text if isinstance(text, WordSet) else WordSet(text)
    return words.match(keyword)


def match_keywords(
    keywords: Iterable[str], text: str | Sequence[str] | WordSet
) -> list[KeywordHit]:
    """Hits of each distinct usable keyword (first spelling kept) in ``text``, in keyword
    order."""
    words = text if isinstance(text, WordSet) else WordSet(text)
    seen: set[str] = set()
    hits: list[KeywordHit] = []
    for keyword in keywords:
        key = folded(keyword)
        if key in seen:
            continue
        seen.add(key)
        hit = words.match(keyword)
        if hit is not None:
            hits.append(hit)
    return hits
