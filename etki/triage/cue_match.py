"""Matching wording cues (one job: compile phrases of folded words and find them in a
text's words). The cue lists themselves live in :mod:`etki.triage.cues`.

A cue is a phrase of folded words. In a cue word a trailing ``*`` matches any ending
(``crash*`` matches crash, crashes, crashed), a leading ``*`` any beginning, and both a
substring (``*miyor*`` matches Turkish negative verbs such as ``calismiyor``). A last
word ``!x`` is a look-ahead: the phrase matches only when the next word is not ``x``
(or the text ends): ``not required !to`` matches "migration is not required." but not
"staff not required to obtain a card".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from etki.text import fold

__all__ = ["Cue", "CueList", "cue_list"]


@dataclass(frozen=True)
class Cue:
    """One phrase: ``words`` folded, each possibly with ``*`` wildcards; ``text`` the
    phrase as written (used in evidence); ``weight`` how much it counts."""

    text: str
    words: tuple[str, ...]
    weight: float = 1.0


def _word_regex(pattern: str) -> str:
    if pattern.startswith("*") and pattern.endswith("*") and len(pattern) > 2:
        return r"\S*" + re.escape(pattern[1:-1]) + r"\S*"
    if pattern.endswith("*"):
        return re.escape(pattern[:-1]) + r"\S*"
    if pattern.startswith("*"):
        return r"\S*" + re.escape(pattern[1:])
    return re.escape(pattern)


def _literal(pattern: str) -> str:
    """The text every match of :func:`_word_regex` of ``pattern`` contains."""
    if pattern.startswith("*") and pattern.endswith("*") and len(pattern) > 2:
        return pattern[1:-1]
    if pattern.endswith("*"):
        return pattern[:-1]
    if pattern.startswith("*"):
        return pattern[1:]
    return pattern


def _required(words: Sequence[str]) -> str:
    """The longest literal a match of :func:`_cue_regex` of ``words`` must contain (a
    cheap substring test before the regex; the negative look-ahead word adds none)."""
    return max((_literal(w) for w in words if not w.startswith("!")), key=len, default="")


def _cue_regex(words: Sequence[str]) -> re.Pattern[str]:
    """A regex over words joined by single spaces that matches the cue at word bounds."""
    body, ahead = list(words), None
    if body and body[-1].startswith("!"):
        ahead = body.pop()[1:]
    rx = r"(?<!\S)" + " ".join(_word_regex(w) for w in body) + r"(?!\S)"
    if ahead is not None:
        rx += r"(?! " + _word_regex(ahead) + r"(?!\S))"
    return re.compile(rx)


class CueList:
    """A named list of cues. Build with :func:`cue_list`; query with :meth:`find`.

    Each cue is compiled to one regular expression over the words joined by spaces, so
    matching a text costs one C-level search per cue whose longest literal the text
    holds (a substring test first). A cue's regex is compiled the first time a text
    holds that literal and kept: the ~600 cues of :mod:`etki.triage.cues` compiled at
    import cost about 0.3 s of every process start, and most never meet their literal."""

    def __init__(self, name: str, cues: Sequence[Cue]) -> None:
        self.name = name
        self.cues = tuple(sorted(cues, key=lambda c: c.text))
        self._rx: list[re.Pattern[str] | None] = [None] * len(self.cues)
        self._need = tuple(_required(c.words) for c in self.cues)

    def _regex(self, i: int) -> re.Pattern[str]:
        """The compiled regex of ``self.cues[i]`` (compiled once; two threads racing
        compile the same pattern twice and keep either)."""
        rx = self._rx[i]
        if rx is None:
            rx = self._rx[i] = _cue_regex(self.cues[i].words)
        return rx

    def _candidates(self, text: str) -> list[tuple[Cue, re.Pattern[str]]]:
        """The cues whose required literal occurs in ``text`` (only those can match)."""
        return [
            (cue, self._regex(i))
            for i, (cue, need) in enumerate(zip(self.cues, self._need, strict=True))
            if need in text
        ]

    def find(self, words: Sequence[str]) -> tuple[Cue, ...]:
        """Cues occurring anywhere in ``words`` (each cue once), sorted by text."""
        text = " ".join(words)
        return tuple(c for c, rx in self._candidates(text) if rx.search(text))

    def hits(
        self, words: Sequence[str], written: Callable[[], Sequence[str]] | None = None
    ) -> tuple[tuple[Cue, str], ...]:
        """Like :meth:`find`, with the first matched words of each cue:
        ``((cue, "crashes"), ...)``. The text is folded (the same for NFC and NFD input),
        or, with ``written``, the same words as the text writes them (``written()`` gives
        one for each of ``words``, e.g.
        :func:`etki.triage.normalise.cue_words_as_written`; called only when a cue
        matches, at most once; folded text again should it not give one per word):
        ``((cue, "ÇALIŞMIYOR"), ...)``. A cue whose first match lies within the match of
        a heavier (or, at equal weight, longer) cue is left out: a word counts once."""
        text = " ".join(words)
        found: list[tuple[Cue, re.Match[str]]] = []
        for cue, rx in self._candidates(text):
            m = rx.search(text)
            if m:
                found.append((cue, m))
        # one span of words counts once: a cue matched inside (or exactly at) the span of
        # a heavier or longer cue is dropped ("problem" and "problem*" on one word; "hata"
        # inside "hata veriyor"), so a weight sum never counts a word twice
        kept: list[tuple[int, int]] = []
        for cue, m in sorted(found, key=lambda p: (-p[0].weight, p[1].start() - p[1].end())):
            span = (m.start(), m.end())
            if any(a <= span[0] and span[1] <= b for a, b in kept):
                found.remove((cue, m))
            else:
                kept.append(span)
        out = []
        own: Sequence[str] | None = None
        for cue, m in found:
            matched = m.group(0)
            if written is not None and own is None:
                own = written()
            if own is not None and len(own) == len(words):  # else quote the fold
                start = text.count(" ", 0, m.start())
                matched = " ".join(own[start : start + matched.count(" ") + 1])
            out.append((cue, matched))
        return tuple(out)

    def positions(self, words: Sequence[str]) -> tuple[int, ...]:
        """Start indices in ``words`` of every occurrence of any cue, ascending."""
        text = " ".join(words)
        hits = {
            text.count(" ", 0, m.start())
            for i in range(len(self.cues))
            for m in self._regex(i).finditer(text)
        }
        return tuple(sorted(hits))

    def score(self, words: Sequence[str]) -> float:
        """Sum of the weights of the distinct cues found, rounded to 4 decimals."""
        return round(sum(c.weight for c in self.find(words)), 4)


def cue_list(
    name: str, strong: Iterable[str], weak: Iterable[str] = (), weak_weight: float = 0.5
) -> CueList:
    """Build a :class:`CueList`: ``strong`` phrases weigh 1.0, ``weak`` ones
    ``weak_weight``. Phrases are folded with :func:`etki.text.fold` (``*`` kept)."""
    cues: dict[str, Cue] = {}
    for weight, phrases in ((1.0, strong), (weak_weight, weak)):
        for phrase in phrases:
            ws = tuple(w[0] + fold(w[1:]) if w.startswith("!") else fold(w) for w in phrase.split())
            cues.setdefault(" ".join(ws), Cue(phrase, ws, weight))
    return CueList(name, tuple(cues.values()))
