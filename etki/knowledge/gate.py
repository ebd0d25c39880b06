"""The validation gate for candidate edges (issue 4 item 7).

Each document may propose candidate edges (``Contract.candidates``: frontmatter
``candidates`` and the "Unassigned edges" section). Only edges in that pool, with a type
of the edge vocabulary, are ever admitted; the gate decides which:

* a candidate with a ``source`` clause is checked against that clause only;
* a candidate without one is checked against the clauses of its document that share
  words with the target (fuzzy keyword matching, :mod:`etki.knowledge.matching`), at
  most :data:`MAX_UNITS` of them, best first, so a model is asked at most that often;
* each check sees the chunk text (the clause, or for a clause split into chunks the
  chunk sharing most words with the target; at most
  :data:`etki.knowledge.chunking.MAX_CHUNK_CHARS` characters) and a summary of the
  target (:func:`target_summary`).

Checks: :class:`LexicalValidator` (deterministic, the default: VALID when a word of the
target's name, or two words of its summary, occur in the chunk) or
:class:`ModelValidator` (``ETKI_LLM_*`` set: the model answers VALID or INVALID; an
unreadable answer is asked again, up to :data:`ASK_ATTEMPTS` times; an unreachable or
failing endpoint switches the rest of the build to the lexical check, recorded as such).

Admitted candidates become ``mapped`` edges from the clause (weight 0.8, the candidate's
location); every check is reported in the index (:class:`CandidateRecord`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from etki.domain import Edge, Project, ScopeClause
from etki.endpoints import ChatClient, EndpointError
from etki.errors import VocabularyError
from etki.knowledge.chunking import MAX_CHUNK_CHARS
from etki.knowledge.matching import identifier_words, match_keywords, text_words
from etki.knowledge.provenance import PROVENANCE_WEIGHTS
from etki.knowledge.resolve import ClauseResolver, resolve_target
from etki.knowledge.verdict import parse_verdict
from etki.knowledge.vocabulary import EdgeSignatureError, EdgeVocabulary, node_type

if TYPE_CHECKING:
    from etki.config import Settings
    from etki.knowledge.node import Node

__all__ = [
    "ASK_ATTEMPTS",
    "MAX_UNITS",
    "CandidateRecord",
    "GateCase",
    "GateVerdict",
    "LexicalValidator",
    "ModelValidator",
    "Validator",
    "run_gate",
    "target_summary",
    "validator_from_settings",
]

MAX_UNITS = 3
"""Clauses a candidate without a source is checked against, at most: a bound on model
calls per candidate; the clauses sharing the most words with the target come first."""
ASK_ATTEMPTS = 3
"""Times the model is asked for one check when its answer cannot be read (DESIGN.md
asks the same of ``nl_query``: "retried up to 3 times")."""
MAX_ANSWER_TOKENS = 32
"""Tokens the model may answer a check with: room for one word, or a short JSON object
around it, and no more (the answer is read by :func:`parse_verdict`)."""
SUMMARY_CHARS = 600
"""Characters of a target clause's text in its summary: the length of a node's context
in retrieval (``etki.retrieval.graph.MAX_CONTEXT_CHARS``)."""

SYSTEM_PROMPT = (
    "You check proposed links in a software contract's knowledge graph. Given a chunk of "
    "contract text and a link target with its summary, decide whether the chunk text "
    "itself supports the link. Answer with exactly one word: VALID or INVALID."
)


@dataclass(frozen=True)
class GateCase:
    """One check: may ``source_id`` (whose text is ``chunk_text``) have an edge of
    ``edge_type`` to ``target_id`` (described by ``target_summary``)? ``names`` and
    ``keywords`` are the target's name words and summary words for the lexical check."""

    edge_type: str
    source_id: str
    chunk_text: str
    target_id: str
    target_summary: str
    names: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()


@dataclass(frozen=True)
class GateVerdict:
    """``valid``, the ``method`` that decided (``lexical``, ``model:{name}``, or
    ``lexical (model ...: why)``) and a ``detail`` for the report."""

    valid: bool
    method: str
    detail: str


class Validator(Protocol):
    """Anything that can check a :class:`GateCase`."""

    def check(self, case: GateCase) -> GateVerdict: ...


@dataclass(frozen=True)
class CandidateRecord:
    """One gate decision as stored in the index: the edge (``source`` is the clause
    checked, or the document's pool ``pool:{contract}`` when nothing was checked),
    ``verdict`` (``admitted``, ``rejected``, ``unresolved``), ``method``, ``detail``, and
    where the candidate was written (``location``, ``text``)."""

    source: str
    target: str
    type: str
    verdict: str
    method: str
    detail: str
    location: str
    text: str


# --- the lexical check ------------------------------------------------------------------


def lexical_hits(case: GateCase) -> tuple[list[str], list[str]]:
    """(name hits, keyword hits) of ``case``'s target words in its chunk, as
    ``keyword~word`` strings."""
    words = text_words(case.chunk_text)
    names = [f"{h.keyword}~{h.word}" for h in match_keywords(case.names, words)]
    keys = [f"{h.keyword}~{h.word}" for h in match_keywords(case.keywords, words)]
    return names, keys


class LexicalValidator:
    """VALID when a word of the target's name, or two words of its summary, occur in
    the chunk (fuzzy, :mod:`etki.knowledge.matching`). Deterministic."""

    name = "lexical"

    def check(self, case: GateCase) -> GateVerdict:
        names, keys = lexical_hits(case)
        valid = bool(names) or len(keys) >= 2
        found = ", ".join(names + keys) or "none"
        return GateVerdict(valid, self.name, f"target words in the chunk: {found}")


class ModelValidator:
    """Asks an OpenAI-compatible model (:class:`etki.endpoints.ChatClient`, answers read
    by :func:`etki.knowledge.verdict.parse_verdict`); falls back to
    :class:`LexicalValidator` for an unreadable answer (after :data:`ASK_ATTEMPTS`
    tries) and, for the rest of its life, after the endpoint fails once."""

    def __init__(self, client: ChatClient) -> None:
        self.client = client
        self.lexical = LexicalValidator()
        self.failure: str | None = None

    def _fallback(self, case: GateCase, why: str) -> GateVerdict:
        found = self.lexical.check(case)
        return GateVerdict(found.valid, f"lexical (model {why})", found.detail)

    def check(self, case: GateCase) -> GateVerdict:
        if self.failure is not None:
            return self._fallback(case, f"unavailable: {self.failure}")
        prompt = (
            f"Link type: {case.edge_type}\n"
            f"Chunk ({case.source_id}):\n{case.chunk_text[:MAX_CHUNK_CHARS]}\n\n"
            f"Target ({case.target_id}): {case.target_summary}\n\n"
            "Does the chunk text support this link? Answer VALID or INVALID."
        )
        messages = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": prompt},
        ]
        answer = ""
        for _ in range(ASK_ATTEMPTS):
            try:
                answer = self.client.complete(messages, max_tokens=MAX_ANSWER_TOKENS).content
            except EndpointError as exc:
                self.failure = str(exc)
                return self._fallback(case, f"unavailable: {exc}")
            verdict = parse_verdict(answer)
            if verdict is not None:
                return GateVerdict(
                    verdict,
                    f"model:{self.client.model}",
                    f"model answered {'VALID' if verdict else 'INVALID'}",
                )
        clipped = " ".join(answer.split())[:80]
        return self._fallback(case, f"answer unreadable after {ASK_ATTEMPTS} tries: {clipped!r}")


def validator_from_settings(settings: Settings) -> Validator:
    """:class:`ModelValidator` when ``ETKI_LLM_BASE_URL`` and ``ETKI_LLM_MODEL`` are
    set, else :class:`LexicalValidator`."""
    if settings.llm_base_url and settings.llm_model:
        return ModelValidator(
            ChatClient(
                settings.llm_base_url,
                settings.llm_model,
                settings.llm_api_key,
                timeout=settings.llm_timeout,
            )
        )
    return LexicalValidator()


# --- running the pool -------------------------------------------------------------------


def target_summary(node: Node) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """(summary, name words, summary words) of a target node: a module by its id, path
    and summary; a clause by its ref, title and the start of its text; a work item by
    its id and title."""
    if node.type == "module":
        bare = node.id.partition(":")[2]
        path = str(node.get("path") or "")
        summary = f"module {bare}" + (f" ({path})" if path else "") + f": {node.text}"
        names = tuple(identifier_words(bare) + identifier_words(path))
        return summary, names, tuple(text_words(node.text))
    if node.type == "clause":
        text = " ".join(node.text.split())[:SUMMARY_CHARS]
        return (
            f"contract clause {node.get('ref')} {node.title}: {text}",
            tuple(text_words(node.title)),
            tuple(text_words(text)),
        )
    return (
        f"{node.type} {node.id.partition(':')[2]}: {node.title}",
        (tuple(text_words(node.title))),
        (),
    )


def _default_type(target_type: str | None, kind: str) -> str:
    if target_type == "module":
        return "excludes" if kind == "exclusion" else "covers"
    if target_type == "clause":
        return "cites"
    return "relates_to"


def _units(clause: ScopeClause) -> list[str]:
    texts = [c.text for c in clause.chunks] or [clause.text]
    return [f"{clause.title}\n{t}" for t in texts]


def run_gate(
    project: Project,
    nodes: Mapping[str, Node],
    resolver: ClauseResolver,
    vocabulary: EdgeVocabulary,
    validator: Validator,
) -> tuple[list[Edge], list[CandidateRecord]]:
    """Check every candidate of every contract of ``project`` (see the module
    docstring). Returns the admitted edges and one record per check (or per candidate
    that could not be checked). Raises :class:`EdgeSignatureError` (file and line of the
    candidate) when an untyped candidate's default type does not fit, which only a
    project vocabulary can cause."""
    admitted: list[Edge] = []
    records: list[CandidateRecord] = []
    for contract in project.contracts:
        clauses = {f"clause:{c.ref}": c for c in contract.clauses}
        for cand in contract.candidates:
            _check(
                cand,
                contract.id,
                clauses,
                nodes,
                resolver,
                vocabulary,
                validator,
                admitted,
                records,
            )
    return admitted, records


def _check(
    cand: Edge,
    contract_id: str,
    clauses: Mapping[str, ScopeClause],
    nodes: Mapping[str, Node],
    resolver: ClauseResolver,
    vocabulary: EdgeVocabulary,
    validator: Validator,
    admitted: list[Edge],
    records: list[CandidateRecord],
) -> None:
    pool = f"pool:{contract_id}"

    def record(
        source: str, target: str, etype: str, verdict: str, method: str, detail: str
    ) -> None:
        records.append(
            CandidateRecord(
                source, target, etype, verdict, method, detail, cand.location, cand.text
            )
        )

    target = resolve_target(cand.target, nodes.keys(), resolver)
    if target is None:
        record(
            cand.source or pool,
            cand.target,
            cand.type,
            "unresolved",
            "-",
            "the target names no node",
        )
        return
    if cand.source:
        source = resolve_target(cand.source, nodes.keys(), resolver)
        if source is None or source not in clauses:
            record(
                cand.source,
                target,
                cand.type,
                "unresolved",
                "-",
                "the source names no clause of this document",
            )
            return
        units = [clauses[source]]
    else:
        units = list(clauses.values())
    summary, names, keywords = target_summary(nodes[target])
    scored = []
    for order, clause in enumerate(units):
        best = max(
            (
                (len(h[0]) * 2 + len(h[1]), text)
                for text in _units(clause)
                for h in [_hits(text, names, keywords)]
            ),
            key=lambda x: x[0],
        )
        scored.append((best[0], order, clause, best[1]))
    if not cand.source:
        scored = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))
        scored = scored[:MAX_UNITS]
        if not scored:
            record(
                pool,
                target,
                cand.type,
                "rejected",
                "lexical",
                "no clause of the document shares a word with the target",
            )
            return
    for _score, _order, clause, text in scored:
        source = f"clause:{clause.ref}"
        etype = cand.type or _default_type(node_type(target), clause.kind)
        try:
            src, tgt, etype = vocabulary.checked(source, target, etype)
        except VocabularyError as exc:
            raise EdgeSignatureError(
                cand.location.rsplit(":", 1)[0],
                str(exc),
                line=int(cand.location.rsplit(":", 1)[1]),
                field="candidates",
            ) from exc
        verdict = validator.check(
            GateCase(etype, source, text[:MAX_CHUNK_CHARS], target, summary, names, keywords)
        )
        record(
            source,
            target,
            etype,
            "admitted" if verdict.valid else "rejected",
            verdict.method,
            verdict.detail,
        )
        if verdict.valid:
            admitted.append(
                Edge(
                    src,
                    tgt,
                    etype,
                    "mapped",
                    PROVENANCE_WEIGHTS["mapped"],
                    cand.location,
                    cand.text,
                )
            )


def _hits(text: str, names: Sequence[str], keywords: Iterable[str]) -> tuple[list, list]:
    words = text_words(text)
    return match_keywords(names, words), match_keywords(keywords, words)
