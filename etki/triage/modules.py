"""Module matching (one job: which delivered modules a request touches).

Two lexical signals, both BM25 (:mod:`etki.triage.scoring`):

1. the request against each module's own words: its id and path spelled out as words
   (``frontend.components.SubmissionHistory`` -> "frontend components submission
   history"), counted :data:`ID_WEIGHT` times, plus its one-line summary;
2. the request against the titles of past work items: the modules of the best matching
   work items get a share of their score (:data:`WORKITEM_SHARE`), because a past piece
   of work with a similar title changed those modules.

Scores of each signal are divided by that signal's best score for the request, so both
are in [0, 1] before they are added.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from etki.domain import Module, WorkItem
from etki.triage.normalise import guess_language, identifier_text, tokens
from etki.triage.scoring import BM25Index, top_array

ID_WEIGHT = 2
"""Id and path words count twice: they are the module's name (BM25F-style field weight,
see :data:`etki.triage.scoring.TITLE_WEIGHT`)."""

WORKITEM_SHARE = 0.5
"""Weight of the work-item signal relative to the module's own words (the module's own
text is the direct evidence; a similar past title is indirect)."""

WORKITEM_TOP = 5
"""How many best-matching work items pass their modules a share."""

MAX_MODULES = 3
"""At most this many impacted modules are reported."""

MIN_RATIO = 0.5
"""A module is reported only if its combined score is at least half the best one."""


@dataclass(frozen=True)
class ModuleMatch:
    """Result: ``modules`` ((id, combined score) best first), ``workitems`` ((id, score)
    of the work items whose titles matched, best first)."""

    modules: tuple[tuple[str, float], ...]
    workitems: tuple[tuple[str, float], ...]


class ModuleMatcher:
    """Precomputed module and work-item indexes of one project."""

    def __init__(
        self, modules: Sequence[Module], workitems: Sequence[WorkItem], languages: Sequence[str]
    ) -> None:
        self.module_ids = [m.id for m in modules]
        known = set(self.module_ids)
        docs = []
        for m in modules:
            name = identifier_text(m.id) + " " + identifier_text(m.path)
            lang = guess_language(m.summary, languages) if m.summary else "en"
            docs.append(tokens(name, lang) * ID_WEIGHT + tokens(m.summary, lang))
        self.module_index = BM25Index(docs)
        self.workitems = list(workitems)
        self.wi_ids = [w.id for w in workitems]
        self.wi_modules = [tuple(sorted({x for x in w.modules if x in known})) for w in workitems]
        self.wi_index = BM25Index(
            [tokens(w.title, guess_language(w.title, languages)) for w in workitems]
        )
        self._wi_last: tuple[tuple[str, ...], np.ndarray] | None = None
        self._pos = {mid: i for i, mid in enumerate(self.module_ids)}
        self._wi_pos = {wid: i for i, wid in enumerate(self.wi_ids)}
        self.wi_by_module: dict[str, tuple[int, ...]] = {}
        """Module id -> positions of the work items listing it (``WorkItem.modules``)."""
        by_module: dict[str, list[int]] = {}
        for i, w in enumerate(workitems):
            for mid in dict.fromkeys(w.modules):
                by_module.setdefault(mid, []).append(i)
        self.wi_by_module = {mid: tuple(v) for mid, v in by_module.items()}
        self.wi_with_effort = np.array([w.effort_days is not None for w in workitems], dtype=bool)
        """True for the work items carrying ``effort_days`` (in ``workitems`` order)."""

    def workitem_scores(self, query: Sequence[str]) -> np.ndarray:
        """BM25 of the work-item titles for ``query`` (:meth:`BM25Index.array`, one
        float64 per work item, in ``workitems`` order). The last query's result is kept
        (a request asks twice: modules, then effort); callers must not change it."""
        key = tuple(query)
        last = self._wi_last
        if last is not None and last[0] == key:
            return last[1]
        scores = self.wi_index.array(query)
        self._wi_last = (key, scores)
        return scores

    def match(self, query: Sequence[str]) -> ModuleMatch:
        """Best modules for the query tokens; empty when nothing matches."""
        own = self.module_index.array(query)
        best_own = own.max() if len(own) else 0.0
        # the same IEEE division per module as s / best_own one by one
        combined = own / best_own if best_own > 0 else np.zeros(len(own))
        wi = top_array(self.workitem_scores(query), self.wi_ids, WORKITEM_TOP, min_ratio=0.5)
        if wi:
            best_wi = wi[0][1]
            pos, index_of = self._pos, self._wi_pos
            for wid, score in wi:
                for mid in self.wi_modules[index_of[wid]]:
                    combined[pos[mid]] += WORKITEM_SHARE * score / best_wi
        picked = top_array(combined, self.module_ids, MAX_MODULES, min_ratio=MIN_RATIO)
        return ModuleMatch(
            tuple((m, round(s, 4)) for m, s in picked), tuple((w, round(s, 4)) for w, s in wi)
        )
