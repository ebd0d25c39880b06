"""Acronyms and the names they stand for (one job: the one acronym rule of issue 33 item 4,
shared by ``wiki_search``, the ``decisions`` tool and ``graph_query``).

A text that writes a name with its acronym ("Fiscal Responsibility Act (FRA)") links the
two: :func:`acronyms` reads every such pair (the acronym's letters are the initials of
the words before it, small words such as "of" skipped). Where no text writes the pair,
an acronym written in capitals somewhere ("FRA report submissions") is linked to a
capitalised name written elsewhere whose initials spell it ("the new Fiscal
Responsibility Act report"), but only when exactly one such name is written: with two
candidates nothing is linked (never a guess between them). This is the definition
pattern of the classic acronym extractors (a parenthesised short form after its long
form: Schwartz and Hearst, *A simple algorithm for identifying abbreviation definitions
in biomedical text*, PSB 2003), restricted to initials.

A question holding an acronym, or writing its name, is asked with the acronym as one
term (:func:`linked`), and a document holds that term once for every time it writes the
acronym or the whole name as adjacent words (:func:`phrases_in`): the name is matched as
a phrase, never word by word, so "FRA" does not find a clause saying "any action(s) ...
in response" on "act" and "respons" alone (a fresh trial of issue 33; phrase matching
as in Manning, Raghavan and Schütze, *Introduction to Information Retrieval*, 2008,
section 2.4). The table of a project is read once
from every text of its retrieval graph (contract clauses, module summaries, work items,
ruled cases: :attr:`etki.retrieval.lexical.LexicalScorer.acronyms`) and handed to the
wiki and decision rankers (:class:`etki.retrieval.wikirank.RelevanceRanker`), so the
three tools link the same pairs; a wiki page may add pairs of its own to the wiki's
ranker (the wiki is made from the same texts, so in practice it adds none).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from etki.text import fold, words

__all__ = ["acronyms", "linked", "merged", "phrases_in"]

_SMALL = frozenset({"of", "and", "for", "the", "on", "in", "to", "ve", "und", "fur", "der"})
"""Words an acronym usually skips (``Fiscal Responsibility Act`` -> ``FRA``)."""

_ACRONYM = re.compile(r"\(([A-ZÇĞİÖŞÜ][A-ZÇĞİÖŞÜ0-9&]{1,9})\)")


def acronyms(texts: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Folded acronym -> folded words of the name it stands for, for every
    ``Name Of Things (NOT)`` written in ``texts`` whose initials spell the acronym
    (small words such as "of" may be skipped). The first pair found for an acronym wins."""
    found: dict[str, tuple[str, ...]] = {}
    texts = list(texts)
    for text in texts:
        for m in _ACRONYM.finditer(text):
            short = m.group(1)
            letters = [c for c in short if c.isalpha()]
            before = re.findall(r"[^\W\d_][\w'-]*", text[max(0, m.start() - 200) : m.start()])
            name = _initials_match(before, letters)
            key = fold(short)
            if name and key not in found:
                found[key] = tuple(fold(w) for w in name)
    for short, spelled in _initial_names(texts).items():
        found.setdefault(short, spelled)
    return found


_CAPS = re.compile(r"(?<![\w-])([A-ZÇĞİÖŞÜ]{2,6})(?![\w-])")
_NAME = re.compile(
    r"(?<![\w-])((?:[A-ZÇĞİÖŞÜ][a-zçğıöşüäß]+(?:\s+(?:of|and|for|the|on)\s+|\s+)){1,5}"
    r"[A-ZÇĞİÖŞÜ][a-zçğıöşüäß]+)"
)


def _initial_names(texts: list[str]) -> dict[str, tuple[str, ...]]:
    """Folded acronym -> folded words of the one capitalised name written in ``texts``
    whose initials (small words skipped) spell it, for every acronym written in capitals
    in ``texts``; an acronym with no such name, or with more than one, is left out."""
    shorts = {m.group(1) for t in texts for m in _CAPS.finditer(t)}
    if not shorts:
        return {}
    names: dict[str, set[tuple[str, ...]]] = {}
    for text in texts:
        for m in _NAME.finditer(text):
            ws = m.group(1).split()
            for start in range(len(ws)):  # every run of 2+ words of the name
                for end in range(start + 2, len(ws) + 1):
                    run = ws[start:end]
                    if fold(run[0]) in _SMALL or fold(run[-1]) in _SMALL:
                        continue
                    initials = "".join(w[0] for w in run if fold(w) not in _SMALL).upper()
                    if initials in shorts:
                        names.setdefault(initials, set()).add(tuple(fold(w) for w in run))
    return {fold(k): next(iter(v)) for k, v in names.items() if len(v) == 1}


def _initials_match(before: list[str], letters: list[str]) -> list[str] | None:
    """The words at the end of ``before`` whose initials (small words skipped) spell
    ``letters``, or None."""
    picked: list[str] = []
    want = list(letters)
    for w in reversed(before):
        if not want:
            break
        if w[0].upper() == want[-1].upper():
            picked.append(w)
            want.pop()
        elif fold(w) in _SMALL and picked:
            picked.append(w)
        else:
            return None
    return list(reversed(picked)) if not want else None


def merged(
    first: Mapping[str, tuple[str, ...]], then: Mapping[str, tuple[str, ...]]
) -> dict[str, tuple[str, ...]]:
    """``first``'s pairs, then ``then``'s for acronyms ``first`` does not hold (the first
    pair found for an acronym wins, as in :func:`acronyms`)."""
    out = dict(first)
    for short, name in then.items():
        out.setdefault(short, name)
    return out


def linked(
    question: str, table: Mapping[str, tuple[str, ...]]
) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]:
    """``(names, shorts)`` for ``question`` and an acronym ``table``
    (:func:`acronyms`): the folded words of the name of every acronym the question writes
    as a word, and every folded acronym whose whole name the question writes (folded,
    words in order). Both sorted; empty when nothing links."""
    folded = [fold(w) for w in words(question)]
    held = set(folded)
    joined = f" {' '.join(folded)} "
    names = sorted({name for short, name in table.items() if short in held})
    shorts = sorted({short for short, name in table.items() if f" {' '.join(name)} " in joined})
    return tuple(names), tuple(shorts)


def phrases_in(text: str, table: Mapping[str, tuple[str, ...]]) -> list[str]:
    """The folded acronym of ``table`` once for every time ``text`` writes its whole name
    as adjacent words (folded; "Fiscal Responsibility Act" -> ``["fra"]``); a name's
    words apart or alone count nothing. Sorted by acronym; empty for an empty table."""
    if not table:
        return []
    joined = f" {' '.join(fold(w) for w in words(text))} "
    out: list[str] = []
    for short, name in sorted(table.items()):
        out.extend([short] * joined.count(f" {' '.join(name)} "))
    return out
