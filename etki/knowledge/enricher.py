"""The link enricher: likely missing clause -> module links, for a person to accept
(issue 4 item 8; DESIGN.md "A link enricher proposes missing clause->module links from
names and keywords ... never applied silently").

For every clause node and every module node of an index that are not linked yet (no
edge between them, or between the clause's chunks and the module, in either direction):

* the module's *name words* are the words of its id
  (:func:`etki.knowledge.matching.identifier_words`: ``payments.property_tax`` ->
  payments, property, tax; the path's words when the id gives none) and its *keywords*
  the words of its summary; stopwords and 1-2 letter words are dropped, and so is a word
  found in more than :data:`MAX_KEYWORD_SHARE` of the project's modules (and in more
  than :data:`MIN_KEYWORD_MODULES`): ``services`` or ``tdpservice`` name no subject;
* each is matched fuzzily against the words of the clause title and text
  (:class:`etki.knowledge.matching.WordSet`, rapidfuzz with ``processor=fold``);
* the score is 100 x (sum of the name-word hit ratios / 100) / number of name words:
  the share of the module's name the clause mentions, 100 when every name word occurs;
* the support is the number of different keywords (summary words, not name words) the
  clause also holds. Many pairs score 100 (every name word is there), so suggestions
  are ranked by score, then support, then clause order and module id.

A pair is suggested when its score is at least :data:`MIN_SCORE` and the clause holds
at least :data:`MIN_HITS` different words of the module's name, or, for a module whose
name is one word (``integration.ad``, ``users.apps``), that word and :data:`MIN_HITS`
of its keywords: one common word (``core``, ``users``) is never enough. A :class:`Suggestion` has a stable id
(``s-`` + 8 hex digits of SHA-256 of source, target and type), type ``excludes`` from an
exclusion clause and ``maps_to`` otherwise, the score and the matched words. Nothing is
written here; :func:`accept` writes chosen suggestions to the project's edges file.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from etki.defaults import SUGGEST_MIN_SCORE
from etki.errors import InputError
from etki.knowledge.edgesfile import EDGES_FILE, accepted_entry, accepted_ids, write_edges
from etki.knowledge.index import KnowledgeIndex, Node
from etki.knowledge.matching import WordSet, identifier_words, text_words, usable_keyword
from etki.text import fold, plural

__all__ = [
    "MAX_KEYWORD_SHARE",
    "MIN_HITS",
    "MIN_KEYWORD_MODULES",
    "MIN_SCORE",
    "Suggestion",
    "accept",
    "module_keywords",
    "suggest_links",
]

MIN_SCORE = SUGGEST_MIN_SCORE
"""Least score of a suggestion (:data:`etki.defaults.SUGGEST_MIN_SCORE`)."""
MIN_HITS = 2
"""Least number of different name words (or, for a one-word name, keywords) matched."""
MAX_KEYWORD_SHARE = 0.2
"""A word in more than this share of the modules names no subject ..."""
MIN_KEYWORD_MODULES = 2
"""... unless it is in no more than this many modules."""


@dataclass(frozen=True)
class Suggestion:
    """A proposed edge: ``id`` (stable), ``source`` (clause node id), ``target`` (module
    node id), ``type``, ``score`` (0-100), ``words`` (``keyword~word`` as found), for
    display, the clause title and module summary, and ``support`` (how many different
    module keywords beyond its name the clause holds; ranks pairs of equal score)."""

    id: str
    source: str
    target: str
    type: str
    score: float
    words: tuple[str, ...]
    clause_title: str = ""
    module_summary: str = ""
    support: int = 0


def suggestion_id(source: str, target: str, etype: str) -> str:
    """``s-`` + the first 8 hex digits of SHA-256 of ``source|target|type``."""
    digest = hashlib.sha256(f"{source}|{target}|{etype}".encode()).hexdigest()
    return f"s-{digest[:8]}"


def _distinct(words: Iterable[str]) -> list[str]:
    out: dict[str, str] = {}
    for word in words:
        if usable_keyword(word):
            out.setdefault(fold(word), word)
    return list(out.values())


def module_keywords(modules: Sequence[Node]) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """Module node id -> (name words, keywords), see the module docstring; first
    spelling kept, common words removed."""
    raw: dict[str, tuple[list[str], list[str]]] = {}
    for node in modules:
        names = _distinct(identifier_words(node.id.partition(":")[2]))
        if not names:
            names = _distinct(identifier_words(str(node.get("path") or "")))
        keys = [
            w for w in _distinct(text_words(node.text)) if fold(w) not in {fold(n) for n in names}
        ]
        raw[node.id] = (names, keys)
    limit = max(MIN_KEYWORD_MODULES, MAX_KEYWORD_SHARE * len(modules))
    name_df = Counter(fold(w) for names, _ in raw.values() for w in names)
    key_df = Counter(fold(w) for _, keys in raw.values() for w in keys)
    return {
        mid: (
            tuple(w for w in names if name_df[fold(w)] <= limit),
            tuple(w for w in keys if key_df[fold(w)] <= limit),
        )
        for mid, (names, keys) in raw.items()
    }


def _linked(index: KnowledgeIndex) -> set[tuple[str, str]]:
    owner = {n.id: n.get("clause") for n in index.nodes_of("chunk")}
    pairs: set[tuple[str, str]] = set()
    for edge in index.edges:
        source, target = owner.get(edge.source, edge.source), owner.get(edge.target, edge.target)
        pairs.add((source, target))
        pairs.add((target, source))
    return pairs


def suggest_links(index: KnowledgeIndex, *, min_score: float = MIN_SCORE) -> tuple[Suggestion, ...]:
    """Suggestions for ``index``, best first (score, then support, then clause order,
    then module id). Pure and deterministic."""
    modules = index.in_order("module")
    keywords = module_keywords(modules)
    linked = _linked(index)
    out: list[tuple[float, int, int, str, Suggestion]] = []  # sort key, then the suggestion
    for clause in index.in_order("clause"):
        words = WordSet(f"{clause.title}\n{clause.text}")
        if not words.words:
            continue
        etype = "excludes" if clause.get("kind") == "exclusion" else "maps_to"
        for module in modules:
            names, keys = keywords[module.id]
            if not names or (clause.id, module.id) in linked:
                continue
            hits = [h for h in (words.match(k) for k in names) if h is not None]
            if not hits:
                continue
            score = round(100.0 * sum(h.score / 100.0 for h in hits) / len(names), 1)
            if score < min_score:
                continue
            extra = [h for h in (words.match(k) for k in keys) if h is not None]
            if len(names) == 1:
                if len({fold(h.word) for h in extra} - {fold(hits[0].word)}) < MIN_HITS:
                    continue
            elif len({fold(h.word) for h in hits}) < MIN_HITS:
                continue
            named = {fold(h.keyword) for h in hits}
            support = len({fold(h.keyword) for h in extra} - named)
            hits += extra
            suggestion = Suggestion(
                suggestion_id(clause.id, module.id, etype),
                clause.id,
                module.id,
                etype,
                score,
                tuple(f"{h.keyword}~{h.word}" for h in hits),
                clause.title,
                module.text,
                support,
            )
            out.append((-score, -support, int(clause.get("seq", 0)), module.id, suggestion))
    out.sort(key=lambda x: x[:4])
    return tuple(s for *_, s in out)


def accept(
    root: str | Path, suggestions: Iterable[Suggestion], ids: Sequence[str]
) -> tuple[list[Suggestion], list[str]]:
    """Write the suggestions named by ``ids`` to ``<root>/edges.yaml``. Returns (the
    suggestions added, the ids that were accepted before and are in the file already).
    Raises InputError naming every id that is neither a current suggestion nor in the
    file (then nothing is written)."""
    path = Path(root) / EDGES_FILE
    by_id = {s.id: s for s in suggestions}
    before = accepted_ids(path)
    wanted = list(dict.fromkeys(ids))
    unknown = [i for i in wanted if i not in by_id and i not in before]
    if unknown:
        raise InputError(
            f"no current suggestion has the {plural(len(unknown), 'id')} {', '.join(unknown)}; run "
            "`etki index suggest` to list them"
        )
    chosen = [by_id[i] for i in wanted if i in by_id]
    entries = [
        accepted_entry(
            s.source,
            s.target,
            s.type,
            suggestion=s.id,
            score=s.score,
            words=[w.split("~", 1)[0] for w in s.words],
        )
        for s in chosen
    ]
    added = write_edges(path, entries)
    keys = {(e["source"], e["target"], e["type"]) for e in added}
    fresh = [s for s in chosen if (s.source, s.target, s.type) in keys]
    return fresh, [i for i in wanted if i not in {s.id for s in fresh}]
