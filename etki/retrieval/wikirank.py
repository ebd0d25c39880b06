"""Relevance ranking of free text over a small set of documents (one job: rank wiki pages,
decisions or any (id, text) list for a reviewer's question), issue 33 item 4.

A question is read for its **content words**: folded (:func:`etki.text.fold`: Turkish
dotted/dotless i, ß, umlauts, NFC/NFD all meet), minus the stopwords of a general list,
stemmed with the engine's stemmer (:func:`etki.triage.normalise.stem`). The stopword
lists are general function-word lists, not the engine's party-word lists, and hold no
word a software contract uses as content ("system", "test", "work", "information",
"computer", "new" are all kept):

* English: the **Snowball English stop list** (M. Porter, snowballstem.org,
  ``algorithms/english/stop.txt``; BSD licence), its active entries: pronouns, forms of
  be/have/do, would/could/should/ought, the contracted forms, articles, prepositions and
  conjunctions (:data:`SNOWBALL_EN`). The ``stop-words`` package's English list is not
  used: it is the ranks.nl long list (1,333 words) and holds "system", "test", "work",
  "information", "computer", "need", "use", "show", "problem" and many more content
  words.
* German and Turkish: the lists of the ``stop-words`` package (Alir3z4/python-stop-words),
  read through: German's 263 words are function words (the Snowball German list's
  articles, pronouns, auxiliaries and particles, in both spellings, ``daß``/``dass``),
  Turkish's 114 function and number words; neither holds a domain word. Its Turkish
  list is stored in Windows-1252 mojibake (``altmýþ``); it is read back as Windows-1254
  text (``altmış``) before folding.

Documents are ranked by BM25 (:class:`etki.triage.scoring.BM25Index`, k1 1.2, b 0.75)
over those terms, so a question matches a page that holds *some* of its words, the
rarer ones counting more: unlike the wiki's token-AND search, "who hosts the system?"
finds a page that says "hosting" without "who".

**Wiki pages** are ranked on their fields (:func:`page_fields`), the simple field weighting
of BM25F (Robertson, Zaragoza and Taylor, *Simple BM25 extension to multiple weighted
fields*, CIKM 2004: a field's weight multiplies its term frequencies, so a page is
indexed as its fields repeated by weight): the page title (its ``# `` heading) counts
:data:`~etki.triage.scoring.TITLE_WEIGHT` (3, the engine's clause-title weight) times,
the page's own text once, and two fields count **zero**: the YAML front matter
(metadata: kind, counts, ids the title already names) and **listing entries**, a Markdown
list item (with its indented continuation lines) that links to another wiki page. A
listing entry is the linked page's title or an excerpt of it, i.e. anchor text, which
describes the page it points to, not the page that holds it (Craswell, Hawking and
Robertson, *Effective site finding using link anchor information*, SIGIR 2001). Without
this a module page, short and listing the clipped titles of every decision touching
the module, outranked the decision pages themselves for a question about those
decisions (BM25's length normalisation favours the short page), and ``index.md``
matched every question.

**Acronyms** (:mod:`etki.retrieval.acronyms`, the one rule): a question holding an
acronym, or spelling its name, is asked with one acronym term that a document holds
where it writes the acronym or the whole name as adjacent words (a phrase), so a question
about "FRA" finds the decisions that say "Fiscal Responsibility Act" and not a clause
saying "any action ... in response". The table is the
project's (read from its retrieval graph) when the caller passes it, merged with the
pairs the ranked documents write themselves.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from etki.retrieval.acronyms import acronyms, linked, merged, phrases_in
from etki.text import fold, words
from etki.triage.normalise import LANGUAGES, guess_language, stem
from etki.triage.scoring import TITLE_WEIGHT, BM25Index, top_array

__all__ = [
    "RankedDoc",
    "SNOWBALL_EN",
    "RelevanceRanker",
    "acronyms",
    "content_terms",
    "general_stopwords",
    "page_fields",
]

_SNOWBALL_EN_TEXT = """
    i me my myself we our ours ourselves you your yours yourself yourselves he him his
    himself she her hers herself it its itself they them their theirs themselves what which
    who whom this that these those am is are was were be been being have has had having do
    does did doing would should could ought i'm you're he's she's it's we're they're i've
    you've we've they've i'd you'd he'd she'd we'd they'd i'll you'll he'll she'll we'll
    they'll isn't aren't wasn't weren't hasn't haven't hadn't doesn't don't didn't won't
    wouldn't shan't shouldn't can't cannot couldn't mustn't let's that's who's what's
    here's there's when's where's why's how's a an the and but if or because as until while
    of at by for with about against between into through during before after above below
    to from up down in out on off over under again further then once here there when where
    why how all any both each few more most other some such no nor not only own same so
    than too very
"""

SNOWBALL_EN: tuple[str, ...] = tuple(_SNOWBALL_EN_TEXT.split())
"""The Snowball English stop list (snowballstem.org, ``algorithms/english/stop.txt``),
its active entries in the list's order (the entries it comments out, such as "will",
"can", "may", "must", "us", are not stopwords there and not here)."""


_NOT_STOP_PARTS = frozenset({"can", "won", "let"})


@lru_cache(maxsize=8)
def general_stopwords(lang: str) -> frozenset[str]:
    """Folded stopwords of ``lang``: :data:`SNOWBALL_EN` for English, the ``stop-words``
    package's list for German and Turkish (see the module docstring); empty for a
    language with no list. A contraction gives its parts as :func:`etki.text.words`
    splits it (``isn't`` -> ``isn``; ``t`` is under two letters and never a term), except
    the parts that are words of their own the list does not hold (``can``, which it
    leaves out for "tin can", ``won``, ``let``)."""
    if lang == "en":
        out: set[str] = set()
        for w in SNOWBALL_EN:
            out.update(x for x in words(w) if x not in _NOT_STOP_PARTS)
        return frozenset(out)
    from stop_words import StopWordError, get_stop_words  # type: ignore[import-untyped]

    try:
        listed = get_stop_words(lang)
    except StopWordError:
        return frozenset()
    if lang == "tr":  # stored as Windows-1252 mojibake of Windows-1254 text
        listed = [_repair_tr(w) for w in listed]
    return frozenset(fold(w) for w in listed)


def _repair_tr(word: str) -> str:
    try:
        return word.encode("cp1252").decode("cp1254")
    except UnicodeError:
        return word


def content_terms(text: str, lang: str, stop: frozenset[str] | None = None) -> tuple[str, ...]:
    """The content words of ``text`` read in ``lang``, in text order with repeats:
    folded words of two or more characters, minus ``stop`` (default: the
    :func:`general_stopwords` of ``lang``), stemmed with ``lang``'s stemmer."""
    stop = general_stopwords(lang) if stop is None else stop
    out = []
    for word in words(unicodedata.normalize("NFC", text)):
        if len(word) < 2 or word in stop:
            continue
        out.append(stem(word, lang))
    return tuple(out)


_LINK_TO_PAGE = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:)[^)\s]*\.md(?:#[^)\s]*)?\)")
"""A Markdown link to another wiki page (a relative ``.md`` target, not a URL)."""

_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s")


def page_fields(text: str) -> str:
    """The text a wiki page is ranked on (see the module docstring): its title line
    repeated :data:`TITLE_WEIGHT` times, then its own lines, without the front matter
    and without any list item (and its more-indented continuation lines) holding a link
    to another ``.md`` page. Pure; ``text`` is never interpreted beyond these lines."""
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            if lines[i].strip() == "---":
                lines = lines[i + 1 :]
                break
    title = ""
    kept: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        item = _ITEM.match(line)
        if item:
            indent = len(item.group(1))
            j = i + 1
            while j < len(lines) and lines[j].strip() and _indent(lines[j]) > indent:
                if _ITEM.match(lines[j]) and _indent(lines[j]) <= indent:
                    break
                j += 1
            block = lines[i:j]
            if not any(_LINK_TO_PAGE.search(b) for b in block):
                kept.extend(block)
            i = j
            continue
        if not title and line.startswith("# "):
            title = line[2:].strip()
        else:
            kept.append(line)
        i += 1
    return "\n".join([title] * TITLE_WEIGHT + kept)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


@dataclass(frozen=True)
class RankedDoc:
    """One ranked document: its ``id``, BM25 ``score`` (> 0, rounded to 4 decimals) and
    the question ``terms`` it holds (stemmed, folded), sorted."""

    id: str
    score: float
    terms: tuple[str, ...]


class RelevanceRanker:
    """BM25 over ``docs`` ((id, text) pairs) by content words (see the module docstring).

    ``languages``: the project's languages (each document is read in its guessed one; a
    question in every one of them, the terms pooled). ``weights``: document id -> factor
    on its BM25 score (absent ids 1.0; e.g. a background clause section at
    :data:`etki.retrieval.lexical.CONTEXT_WEIGHT`, chosen by the caller).
    ``acronym_table``: the project's acronyms (:func:`etki.retrieval.acronyms.acronyms`
    over its graph; None: only the pairs ``docs`` write). Deterministic:
    ties by id."""

    def __init__(
        self,
        docs: Sequence[tuple[str, str]],
        languages: Sequence[str] = ("en",),
        weights: Mapping[str, float] | None = None,
        acronym_table: Mapping[str, tuple[str, ...]] | None = None,
    ):
        self.languages = tuple(x for x in languages if x in LANGUAGES) or ("en",)
        self.stop = frozenset().union(*(general_stopwords(x) for x in self.languages))
        """Stopwords of every project language: a question read in each of them must not
        keep English "the" as a Turkish term."""
        self.ids = [d[0] for d in docs]
        self.acronyms = merged(acronym_table or {}, acronyms(text for _, text in docs))
        """Folded acronym -> folded name words: ``acronym_table`` (the project's), then the
        pairs ``docs`` write that it lacks (:func:`~etki.retrieval.acronyms.merged`)."""
        self.terms_of: list[frozenset[str]] = []
        tokenised = []
        for _, text in docs:
            lang = guess_language(text[:4000], self.languages)
            toks = (*content_terms(text, lang, self.stop), *self._phrase_terms(text))
            tokenised.append(toks)
            self.terms_of.append(frozenset(toks))
        self.index = BM25Index(tokenised)
        factor = weights or {}
        self.weight = np.array([factor.get(i, 1.0) for i in self.ids], dtype=float)

    def _acronym_term(self, short: str) -> str:
        return stem(short, self.languages[0])

    def _phrase_terms(self, text: str) -> list[str]:
        """The acronym term of every acronym whose whole name ``text`` writes as adjacent
        words (:func:`~etki.retrieval.acronyms.phrases_in`; see :meth:`terms`)."""
        return [self._acronym_term(s) for s in phrases_in(text, self.acronyms)]

    def terms(self, question: str) -> tuple[str, ...]:
        """Distinct sorted content terms of ``question`` pooled over the languages, with
        the acronym term of every acronym it writes and of every name it spells. An
        acronym term matches a document writing the acronym or its whole name as adjacent
        words, never the name's words one by one (a phrase, as phrase queries match
        adjacent positions: Manning, Raghavan and Schütze, *Introduction to Information
        Retrieval*, 2008, section 2.4)."""
        pooled: set[str] = set()
        names, shorts = linked(question, self.acronyms)
        short_of = {name: short for short, name in self.acronyms.items()}
        # an acronym is asked as one term, matching the acronym or its whole name written
        # as adjacent words (_phrase_terms): a name's words asked singly let a clause
        # saying "any action ... in response" rank for "FRA" (issue 33 trial)
        pooled.update(self._acronym_term(short_of[name]) for name in names if name in short_of)
        pooled.update(self._acronym_term(short) for short in shorts)
        for lang in dict.fromkeys((guess_language(question, self.languages), *self.languages)):
            pooled.update(content_terms(question, lang, self.stop))
        return tuple(sorted(pooled))

    def name_terms(self, question: str) -> tuple[str, ...]:
        """Content terms of the names of the acronyms ``question`` writes (a snippet
        may look for them: the ranking matched the name as one acronym term)."""
        names, _ = linked(question, self.acronyms)
        out: set[str] = set()
        for name in names:
            out.update(content_terms(" ".join(name), self.languages[0], self.stop))
        return tuple(sorted(out))

    def rank(self, question: str, k: int) -> list[RankedDoc]:
        """The ``k`` best documents holding at least one content term of ``question``,
        by score descending then id; empty when the question has no content word."""
        terms = self.terms(question)
        if not terms or not self.ids:
            return []
        scores = self.index.array(terms) * self.weight
        picked = top_array(scores, self.ids, k)
        where = {d: i for i, d in enumerate(self.ids)}
        out = []
        for doc_id, score in picked:
            held = self.terms_of[where[doc_id]]
            out.append(RankedDoc(doc_id, round(score, 4), tuple(t for t in terms if t in held)))
        return out

    def scores(self, question: str) -> dict[str, float]:
        """Every document's score > 0 for ``question``."""
        terms = self.terms(question)
        if not terms or not self.ids:
            return {}
        arr = self.index.array(terms) * self.weight
        return {self.ids[i]: float(arr[i]) for i in np.flatnonzero(arr > 0).tolist()}
