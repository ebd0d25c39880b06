"""The text a retrieval hit carries (one job: say in a few lines what a hit holds),
issue 33 item 1.

* a clause (or a chunk of one): the sentence(s) that hold the most of the question's
  content words (:func:`matched_sentences`, at most :data:`MATCHED_SENTENCES`, each cut
  to :data:`SENTENCE_CHARS`), each word counted by its inverse document frequency when
  the caller has one (the graph's BM25 IDF: a rare "historical" says more than
  "system", which half a contract's clauses hold; the IDF weighting of sentence
  selection in extractive summarising and passage retrieval, Salton and Buckley 1988),
  and the clause's opening lines (:func:`opening`, :data:`OPENING_CHARS`);
* a module: its summary; a work item: its kind, date and effort;
* a precedent or a decision: verdict, ruling, reviewer, date and reason
  (:func:`ruling_brief`).

Pure functions over the node's own text: nothing is read from the store here. Client
text (a request, a reviewer's reason) is returned as data, never interpreted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from etki.knowledge.index import Node
from etki.retrieval.wikirank import content_terms, general_stopwords
from etki.triage.normalise import LANGUAGES, guess_language

__all__ = [
    "MATCHED_SENTENCES",
    "OPENING_CHARS",
    "SENTENCE_CHARS",
    "clip",
    "best_sentence",
    "matched_sentences",
    "clip_text",
    "node_snippet",
    "opening",
    "ruling_brief",
]

MATCHED_SENTENCES = 2
"""At most this many matched sentences per clause hit."""

SENTENCE_CHARS = 400
"""A matched sentence is cut to this many characters (an ellipsis marks a cut)."""

OPENING_CHARS = 300
"""A clause's opening lines: its first this-many characters, cut at a word."""

_SENTENCE_END = re.compile(
    r"(?<=[.!?;:])(?<!\b[A-Z]\.)(?<!\b[a-z]\.[a-z]\.)\s+|\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)"
)
"""Where a sentence ends: after ``. ! ? ; :`` and white space (not after an initial
such as the ``S.`` of ``U.S.`` or ``e.g.``), at a blank line, or before a list item."""


def clip(text: str, limit: int) -> str:
    """``text`` with white space collapsed, cut to ``limit`` characters at a word (an
    ellipsis marks a cut)."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1].rsplit(" ", 1)[0] if " " in flat[: limit - 1] else flat[: limit - 1]
    return cut.rstrip() + "…"


def clip_text(text: str, limit: int) -> str:
    """``text`` with its line breaks kept (each line's white space collapsed, blank
    lines kept as one, the whole stripped), cut to ``limit`` characters at a word (an
    ellipsis marks a cut): a client's request text as written, for fields a client reads
    as JSON (:func:`clip` makes one line of it)."""
    lines: list[str] = []
    for raw in text.splitlines():
        line = " ".join(raw.split())
        if line or (lines and lines[-1]):
            lines.append(line)
    flat = "\n".join(lines).strip()
    if len(flat) <= limit:
        return flat
    head = flat[: limit - 1]
    at = max(head.rfind(" "), head.rfind("\n"))
    return (head[:at] if at > 0 else head).rstrip() + "…"


def opening(text: str, limit: int = OPENING_CHARS) -> str:
    """The first lines of ``text`` (:func:`clip` to ``limit`` characters)."""
    return clip(text, limit)


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def matched_sentences(
    text: str,
    question_terms: Sequence[str],
    languages: Sequence[str] = ("en",),
    n: int = MATCHED_SENTENCES,
    weights: Mapping[str, float] | None = None,
) -> list[str]:
    """The ``n`` sentences of ``text`` holding the most distinct ``question_terms``
    (stemmed, folded: :meth:`etki.retrieval.wikirank.RelevanceRanker.terms`), best
    first (ties in text order), each :func:`clip` ped to :data:`SENTENCE_CHARS`; empty
    when none holds one. ``weights``: term -> weight (an IDF); a sentence then scores
    the sum of its terms' weights, else their count. A term not in ``weights`` weighs
    the smallest one: a sentence of an indexed node holds such a term only when the
    index dropped it (the engine's party words, "responsible", "contractor"), so it
    says little."""
    wanted = set(question_terms)
    if not wanted:
        return []
    langs = tuple(x for x in languages if x in LANGUAGES) or ("en",)
    stop = frozenset().union(*(general_stopwords(x) for x in langs))
    lang = guess_language(text[:4000], langs)
    scored = []
    for i, sentence in enumerate(_sentences(text)):
        held = wanted & set(content_terms(sentence, lang, stop))
        if held:
            scored.append((-_weight(held, weights), i, sentence))
    return [clip(s, SENTENCE_CHARS) for _, _, s in sorted(scored)[:n]]


def best_sentence(
    lines: Sequence[str],
    question_terms: Sequence[str],
    languages: Sequence[str] = ("en",),
    weights: Mapping[str, float] | None = None,
) -> tuple[int, str] | None:
    """``(index, sentence)`` of the sentence of ``lines`` (a wiki section's lines; a
    heading line or a blank one is skipped) holding the question terms that weigh most
    (as :func:`matched_sentences` weighs them; ties: the first), with the 0-based index
    of its line, the sentence :func:`clip` ped to :data:`SENTENCE_CHARS`; None when no
    sentence holds a term."""
    wanted = set(question_terms)
    if not wanted:
        return None
    langs = tuple(x for x in languages if x in LANGUAGES) or ("en",)
    stop = frozenset().union(*(general_stopwords(x) for x in langs))
    lang = guess_language("\n".join(lines)[:4000], langs)
    best: tuple[float, int, str] | None = None
    for i, line in enumerate(lines):
        if not line.strip() or line.startswith("#"):
            continue
        for sentence in _sentences(line):
            held = wanted & set(content_terms(sentence, lang, stop))
            if held and (best is None or _weight(held, weights) > best[0]):
                best = (_weight(held, weights), i, sentence)
    return None if best is None else (best[1], clip(best[2], SENTENCE_CHARS))


def _weight(held: set[str], weights: Mapping[str, float] | None) -> float:
    if not weights:
        return float(len(held))
    low = min(weights.values(), default=1.0)
    return round(sum(weights.get(t, low) for t in held), 9)


def ruling_brief(attrs: dict[str, Any]) -> dict[str, Any]:
    """What a precedent or decision hit says of its ruling: ``verdict`` (the engine's),
    ``ruling`` (the reviewer's), ``reviewer``, ``ruled_at`` (ISO-8601 UTC), ``reason``
    (client-side text, :func:`clip_text` ped to 600 characters, its lines kept) and
    ``override``."""
    verdict, ruling = attrs.get("verdict"), attrs.get("ruling")
    return {
        "verdict": verdict,
        "ruling": ruling,
        "reviewer": attrs.get("reviewer"),
        "ruled_at": attrs.get("ruled_at"),
        "reason": clip_text(str(attrs.get("reason") or ""), 600),
        "override": verdict is not None and ruling != verdict,
    }


def node_snippet(
    node: Node,
    question_terms: Sequence[str],
    languages: Sequence[str] = ("en",),
    weights: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """The text fields of one graph hit (see the module docstring): ``matched`` and
    ``opening`` for a clause or chunk; ``summary`` for a module or work item; the
    :func:`ruling_brief` fields and ``request`` for a precedent or an agreed decision."""
    if node.type in ("clause", "chunk"):
        return {
            "matched": matched_sentences(node.text, question_terms, languages, weights=weights),
            "opening": opening(node.text),
        }
    if node.type in ("precedent", "decision"):
        data = node.data
        text = node.text
        reason = text.rsplit("Reason: ", 1)[1] if "Reason: " in text else ""
        request = text.split("\nRuled ", 1)[0]
        return {**ruling_brief({**data, "reason": reason}), "request": clip_text(request, 400)}
    if node.type == "workitem":
        data = node.data
        parts = [str(data.get("kind") or "work item")]
        if data.get("date"):
            parts.append(str(data["date"]))
        if data.get("effort_days") is not None:
            parts.append(f"{data['effort_days']} person-days")
        return {"summary": clip(f"{node.title} ({', '.join(parts)})", 400)}
    return {"summary": clip(node.text or node.title, 400)}
