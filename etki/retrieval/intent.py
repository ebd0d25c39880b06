"""Question wording (one job: read what kind of question this is).

Two readings of a question, both from folded words (:func:`etki.triage.normalise.cue_words`,
so ``NEDEN``/``neden`` and ``Abhängigkeit``/``abhangigkeit`` match alike), never from a
model:

* :func:`intent`: ``why`` (reasons, precedents), ``impact`` (dependencies and what
  breaks), ``next`` (what follows), else ``lookup``. It picks the edge weights of
  ``expand`` (:data:`etki.retrieval.expand.INTENT_WEIGHTS`).
* :func:`interrogative`: the question word that makes it a question, or None. With a
  model configured, questions go to ``nl_query``.

Cues are word prefixes in English, Turkish and German (the three languages the engine
tokenises), written for this module; the first cue found is reported so a routing
decision can say why.
"""

from __future__ import annotations

from etki.triage.normalise import cue_words

__all__ = [
    "IMPACT",
    "INTENTS",
    "INTERROGATIVES",
    "NEXT",
    "WHY",
    "find_cue",
    "intent",
    "interrogative",
]

INTENTS: tuple[str, ...] = ("lookup", "why", "impact", "next")

WHY: tuple[str, ...] = (
    "why",
    "reason",
    "cause",
    "rationale",
    "justif",
    "precedent",
    "neden",
    "nicin",
    "niye",
    "gerekce",
    "sebep",
    "warum",
    "wieso",
    "weshalb",
    "grund",
    "begrund",
)
"""Prefixes of words asking for reasons."""

IMPACT: tuple[str, ...] = (
    "depend",
    "impact",
    "affect",
    "break",
    "downstream",
    "upstream",
    "ripple",
    "consequen",
    "blast",
    "etkile",
    "bagiml",
    "bagli",
    "etkisi",
    "abhangig",
    "auswirk",
    "betroff",
    "beeinflus",
)
"""Prefixes of dependency and impact words: they route a question to ``expand``."""

NEXT: tuple[str, ...] = (
    "next",
    "after",
    "afterwards",
    "follow",
    "then",
    "subsequent",
    "sonra",
    "sonraki",
    "ardindan",
    "danach",
    "nachste",
    "nachst",
    "anschliess",
)
"""Prefixes (or whole words) of "what comes next" wording."""

INTERROGATIVES: frozenset[str] = frozenset(
    (
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "why",
        "how",
        "when",
        "where",
        "does",
        "do",
        "is",
        "are",
        "can",
        "could",
        "should",
        "will",
        "would",
        "ne",
        "neden",
        "nicin",
        "niye",
        "hangi",
        "hangisi",
        "kim",
        "nasil",
        "nerede",
        "mi",
        "mu",
        "midir",
        "mudur",
        "was",
        "wer",
        "wen",
        "wem",
        "warum",
        "wieso",
        "weshalb",
        "wie",
        "welche",
        "welcher",
        "welches",
        "wann",
        "wo",
        "ist",
        "sind",
        "gibt",
    )
)
"""Whole folded words that make a sentence a question (the English auxiliaries only
count as the first word)."""

_AUX = frozenset(
    ("does", "do", "is", "are", "can", "could", "should", "will", "would", "ist", "sind", "gibt")
)
_EXACT_NEXT = frozenset(("then", "next", "after", "sonra"))
_LONG_NEXT = tuple(p for p in NEXT if len(p) > 4)
"""The :data:`NEXT` cues long enough to count as a word's start."""


def find_cue(words: tuple[str, ...], prefixes: tuple[str, ...]) -> str | None:
    """The first word of ``words`` that starts with one of ``prefixes``, or None."""
    for word in words:
        if word.startswith(prefixes):  # any of them
            return word
    return None


def intent(question: str) -> tuple[str, str | None]:
    """``(intent, cue word)`` of a question: ``why`` before ``impact`` before ``next``;
    ``("lookup", None)`` when no cue is found."""
    words = cue_words(question)
    for name, cues in (("why", WHY), ("impact", IMPACT)):
        cue = find_cue(words, cues)
        if cue is not None:
            return name, cue
    for word in words:
        if word in _EXACT_NEXT or word.startswith(_LONG_NEXT):
            return "next", word
    return "lookup", None


def interrogative(question: str) -> str | None:
    """The word that makes ``question`` a question (``"?"`` for a question mark), or
    None. English and German auxiliaries count only as the first word."""
    words = cue_words(question)
    if words and words[0] in _AUX:
        return words[0]
    for word in words:
        if word in INTERROGATIVES and word not in _AUX:
            return word
    return "?" if question.rstrip().endswith("?") else None
