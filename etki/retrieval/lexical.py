"""Deterministic lexical relevance of graph nodes (one job: score nodes for a question).

It reuses the triage engine's tokenizer (:func:`etki.triage.normalise.tokens`, so NFC/NFD,
Turkish i's, ß and umlauts, stopwords and stemming are the engine's) and its BM25
(:class:`etki.triage.scoring.BM25Index`, k1 = 1.2, b = 0.75). Nothing is tuned here
beyond what the engine already states.

What each node type is scored on (the same field weighting as the engine):

* clause: its title counted :data:`~etki.triage.scoring.TITLE_WEIGHT` times plus its
  plain text (:func:`etki.triage.contract.plain_text`);
* module: its id and path spelled out as words (:func:`identifier_text`) counted
  :data:`~etki.triage.modules.ID_WEIGHT` times plus its summary;
* work item: its title; precedent and agreed decision: its title and text (request,
  ruling and reason).

Each node is tokenised in its own guessed language. A question is tokenised in *every*
project language and the distinct terms are pooled: a Turkish question about an English
contract still meets the words both share (names, ``KVKK``, ``e-Devlet``), and a term
that occurs in no node adds nothing to any score.

Chunks (parts of a long clause, :mod:`etki.knowledge.index`) are **not scored**: their
text is a slice of their clause's, which is scored whole, and a clause is what a scope
ruling cites. Scoring them as passages and giving a clause
its best passage's score ("MaxP", Dai and Callan, SIGIR 2019) was measured on tdrs, the
one corpus here with chunks, and lowered clause recall@10 from 0.42 to 0.39
(``docs/EVAL.md``), so it is not done.

**Stopwords of every project language are dropped** from node and question tokens alike
(:data:`etki.triage.normalise.STOPWORDS`, union over the project's languages). The
engine's tokenizer drops only the stopwords of the language it tokenises in; pooling a
question over three languages (below) would otherwise keep English "the", "for", "and"
as Turkish or German terms, and every node whose summary was guessed Turkish and holds
those words would match every English question (measured on ``sample_project``: two
e-Devlet modules in the top 10 of nearly every query).

**Background counts half.** A clause whose role is ``context`` (background that
describes but does not oblige, or a title page or preamble: :func:`etki.triage.contract.
clause_roles`, the engine's own reading of a clause's title and its parent's) scores
:data:`CONTEXT_WEIGHT` times its BM25 score, in both views. Source: the engine's rule for
text that does not bind (:data:`etki.triage.engine.DRAFT_WEIGHT`, 0.5: "a stable clause
that matches as well wins, while a draft that is the only match is still found"), taken
as it is; the factor was not chosen on any query set. Reason: a reviewer asks what the
contract makes someone do; a long background section shares the question's words
(system, data, users) without answering it, and crowded the clause that does out of the
top 5 (issue 33). ``admin`` clauses (people, money) are not weighted: they bind, and
reviewers ask about them (period of performance, clearances, travel); but an ``admin``
clause of instructions to offerors or the evaluation of offers (a solicitation's Sections
L and M: how the buyer chooses, binding no work after award;
:data:`etki.triage.offers.OFFERS_TITLE`, general procurement vocabulary) counts as
background (:func:`etki.triage.contract.background_clauses`).

**A node's length is compared with its own kind's.** BM25 divides a term's weight by
``1 - b + b * dl / avgdl``, to correct for verbosity: a longer document of the same sort
repeats words without saying more (Robertson and Zaragoza, *The Probabilistic Relevance
Framework: BM25 and Beyond*, FnTIR 2009, section 3.4, the verbosity hypothesis). A clause
(200 words), a module summary, a work item title (5 words) and a ruled case are not
documents of one sort; one ``avgdl`` over all of them (29 tokens on tdrs, set by the
many short nodes) made a long clause's every word weigh about a fifth of a short node's,
so a work item sharing one frequent word ("operating", "get") outranked the clause holding
the question's rarer words ("Who is responsible for getting the Authority to Operate?":
clause 2.2 not in the top 12, issue 33). In the one index over all kinds each node's
``dl`` is divided by the average length of the nodes of **its own type**, as BM25F
normalises each field by that field's average length (Robertson, Zaragoza and Taylor,
CIKM 2004; Zaragoza et al., *Microsoft Cambridge at TREC-13*, 2004); IDF stays over all
nodes, ``k1`` and ``b`` are the engine's. The per-type view already had it (one index per
type). Not chosen on any query set; measured after it was written (``docs/EVAL.md``).

**Acronyms**: a *question* holding an acronym the project's texts link to a name ("FRA",
"Fiscal Responsibility Act") is also asked with the acronym as one term, which a node
holds where it writes the acronym or the whole name as adjacent words (a phrase, never
the name's words one by one: :func:`etki.retrieval.acronyms.phrases_in`)
(:mod:`etki.retrieval.acronyms`, the rule ``wiki_search`` and the ``decisions`` tool use,
with the table read here from every scored node: :attr:`LexicalScorer.acronyms`). It is
done where a question is asked (:meth:`etki.retrieval.port.GraphQueryPort.query`:
``graph_query``), not in :meth:`LexicalScorer.terms`, so a request's text (its related
context at intake, ``etki eval retrieval`` on requests) is scored on its own words:
expansion helps short queries and adds little or noise to long ones (Voorhees, *Query
expansion using lexical-semantic relations*, SIGIR 1994). Chosen after seeing results
(disclosed in ``docs/EVAL.md``): expanding every call lowered labelled requests'
recall@10 on tdrs, talentmap and eqip.

Two views: one BM25 over all scored nodes (:meth:`LexicalScorer.scores`, for
``find_k_nodes``) and one per node type (:meth:`LexicalScorer.type_rank`, IDF within the
type, for typed streams).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from etki.knowledge.index import Node
from etki.retrieval.acronyms import acronyms, linked, phrases_in
from etki.retrieval.graph import NODE_TYPES, RULED_TYPES, RetrievalGraph
from etki.triage.contract import background_clauses, plain_text
from etki.triage.engine import DRAFT_WEIGHT
from etki.triage.graph import read_graph
from etki.triage.modules import ID_WEIGHT
from etki.triage.normalise import (
    LANGUAGES,
    STOPWORDS,
    guess_language,
    identifier_text,
    stem,
    tokens,
)
from etki.triage.scoring import K1, TITLE_WEIGHT, B, BM25Index, query_terms, top_array

__all__ = [
    "CONTEXT_WEIGHT",
    "KindNormalisedBM25",
    "LexicalScorer",
    "context_clauses",
    "node_tokens",
    "stopwords_of",
]

CONTEXT_WEIGHT = DRAFT_WEIGHT
"""Factor on the score of a clause whose role is ``context`` (module docstring): the
engine's factor for text that does not bind (0.5), not tuned here."""


def context_clauses(graph: RetrievalGraph) -> frozenset[str]:
    """Node ids of the clauses of ``graph`` read as background
    (:func:`etki.triage.contract.background_clauses` over the index's clauses: role
    ``context``, or an ``admin`` clause of instructions to offerors or the evaluation of
    offers)."""
    clauses = read_graph(graph.index).clauses
    return frozenset(
        f"clause:{c.ref}"
        for c, background in zip(clauses, background_clauses(clauses), strict=True)
        if background
    )


def stopwords_of(languages: Sequence[str]) -> frozenset[str]:
    """The union of the engine's stopwords (:data:`STOPWORDS`) over ``languages``."""
    return frozenset().union(*(STOPWORDS.get(lang, frozenset()) for lang in languages))


def node_tokens(node: Node, languages: Sequence[str]) -> tuple[str, ...]:
    """The scoring tokens of one node (see the module docstring)."""
    if node.type == "clause":
        lang = guess_language(node.title + "\n" + node.text[:4000], languages)
        return tokens(node.title, lang) * TITLE_WEIGHT + tokens(plain_text(node.text), lang)
    if node.type == "module":
        name = (
            identifier_text(node.id.removeprefix("module:"))
            + " "
            + identifier_text(str(node.get("path") or ""))
        )
        lang = guess_language(node.text, languages) if node.text else "en"
        return tokens(name, lang) * ID_WEIGHT + tokens(node.text, lang)
    if node.type in RULED_TYPES:
        lang = guess_language(node.title + "\n" + node.text, languages)
        return tokens(node.title + "\n" + node.text, lang)
    lang = guess_language(node.title, languages)
    return tokens(node.title, lang)


class KindNormalisedBM25(BM25Index):
    """:class:`~etki.triage.scoring.BM25Index` whose length normalisation compares each
    document's length with the average length of the documents of its own kind
    (``kinds[i]`` for ``docs[i]``; see the module docstring: BM25F's per-field
    normalisation), IDF over all documents, ``k1``/``b`` as the engine's (1.2, 0.75).
    With one kind it scores as :class:`BM25Index` does. A kind whose documents are all
    empty holds no postings and needs no average."""

    def __init__(
        self, docs: Sequence[Sequence[str]], kinds: Sequence[str], k1: float = K1, b: float = B
    ) -> None:
        if len(kinds) != len(docs):
            raise ValueError(f"{len(kinds)} kinds for {len(docs)} documents")
        super().__init__(docs, k1, b)
        if not self.avgdl:
            return
        lengths = np.array([len(d) for d in docs], dtype=np.float64)
        total: dict[str, list[float]] = {}
        for kind, n in zip(kinds, lengths.tolist(), strict=True):
            total.setdefault(kind, []).append(n)
        avg = {kind: sum(ns) / len(ns) for kind, ns in total.items()}
        own_avg = np.array([avg[kind] or 1.0 for kind in kinds], dtype=np.float64)
        counts = [Counter(d) for d in docs]
        tfs = np.zeros(len(self._doc), dtype=np.float64)
        idf = np.zeros(len(self._doc), dtype=np.float64)
        for term, (start, end) in self._span.items():
            for at in range(start, end):
                tfs[at] = counts[int(self._doc[at])][term]
            idf[start:end] = self.idf_of[term]
        norm = k1 * (1.0 - b + b * lengths / own_avg)
        self._part = idf * tfs * (k1 + 1.0) / (tfs + norm[self._doc])


class LexicalScorer:
    """BM25 over the scored nodes of ``graph`` (every type of :data:`NODE_TYPES`; not
    chunks). ``languages``: the project's languages (the first one breaks ties when
    guessing a text's language)."""

    def __init__(self, graph: RetrievalGraph, languages: Sequence[str] = ("en",)) -> None:
        self.graph = graph
        self.languages: tuple[str, ...] = tuple(languages) or ("en",)
        self.stop = stopwords_of(self.languages)
        nodes = [n for n in graph.nodes if n.type in NODE_TYPES]
        self.ids: list[str] = [n.id for n in nodes]
        self.acronyms: dict[str, tuple[str, ...]] = acronyms(f"{n.title}\n{n.text}" for n in nodes)
        """The project's acronym table (:func:`etki.retrieval.acronyms.acronyms` over every
        scored node's title and text), shared with the wiki and decision rankers."""
        first = self.languages[0] if self.languages[0] in LANGUAGES else "en"
        docs = [
            tuple(t for t in node_tokens(n, self.languages) if t not in self.stop)
            + tuple(stem(a, first) for a in phrases_in(f"{n.title}\n{n.text}", self.acronyms))
            for n in nodes
        ]
        self.index: BM25Index = KindNormalisedBM25(docs, [n.type for n in nodes])
        background = context_clauses(graph)
        self.background: frozenset[str] = background
        """Node ids of the clauses that count :data:`CONTEXT_WEIGHT` (:func:`context_clauses`)."""
        self.weight = np.array(
            [CONTEXT_WEIGHT if nid in background else 1.0 for nid in self.ids], dtype=float
        )
        self.by_type: dict[str, tuple[list[str], BM25Index, np.ndarray]] = {}
        for node_type in NODE_TYPES:
            picked = [i for i, n in enumerate(nodes) if n.type == node_type]
            self.by_type[node_type] = (
                [self.ids[i] for i in picked],
                BM25Index([docs[i] for i in picked]),
                self.weight[picked],
            )

    def terms(self, question: str) -> tuple[str, ...]:
        """Distinct sorted query terms of ``question``, pooled over the project's
        languages (plus the guessed one), minus the stopwords of every project
        language. Acronyms are not expanded here (:meth:`acronym_words`)."""
        guessed = guess_language(question, self.languages)
        langs = dict.fromkeys((guessed, *(x for x in self.languages if x in LANGUAGES)))
        pooled: list[str] = []
        for lang in langs:
            pooled.extend(t for t in tokens(question, lang) if t not in self.stop)
        return query_terms(pooled)

    def acronym_words(self, question: str) -> str:
        """The words a question is also asked with (see the module docstring): every
        acronym ``question`` writes or whose name it writes, folded, space-separated in
        sorted order; a node holds an acronym's term where it writes the acronym or its
        whole name as adjacent words (:func:`etki.retrieval.acronyms.phrases_in`)
        (:func:`etki.retrieval.acronyms.linked` over :attr:`acronyms`); "" when none."""
        names, shorts = linked(question, self.acronyms)
        short_of = {name: short for short, name in self.acronyms.items()}
        return " ".join(sorted({short_of[n] for n in names if n in short_of} | set(shorts)))

    def scores(self, question: str) -> dict[str, float]:
        """BM25 score of every node with a score > 0 (one index over all types)."""
        scores = self.index.array(self.terms(question)) * self.weight
        return {self.ids[i]: float(scores[i]) for i in np.flatnonzero(scores > 0).tolist()}

    def rank(self, question: str, k: int, node_type: str | None = None) -> list[tuple[str, float]]:
        """The ``k`` best (node id, score) pairs, score > 0, by score descending then id
        ascending; only nodes of ``node_type`` when given."""
        if node_type is not None:
            return self.type_rank(question, node_type, k)
        return top_array(self.index.array(self.terms(question)) * self.weight, self.ids, k)

    def type_rank(self, question: str, node_type: str, k: int) -> list[tuple[str, float]]:
        """The ``k`` best nodes of one type by BM25 within that type (IDF computed over
        that type only)."""
        ids, index, weight = self.by_type.get(node_type, ([], BM25Index([]), np.ones(0)))
        if not ids:
            return []
        return top_array(index.array(self.terms(question)) * weight, ids, k)
