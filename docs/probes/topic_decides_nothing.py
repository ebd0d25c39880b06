"""Probe (issue 29, stop 41 note): what if topic overlap stopped deciding a verdict?

A decision of evidence kind ``topic`` (:mod:`etki.triage.sureness`: the ``exclusion``,
``future_work``, ``covered`` or ``partial`` rule decided by BM25 ratios and coverage, and
no sentence names the ask) is already unsure. This probe makes such a decision fall to
the verdict the engine gives with no evidence at all: ``CHANGE_REQUEST``, the verdict of
the ``uncovered`` rule (``etki.triage.classify``: "nothing covers" -> a change request;
an empty contract or a request with no scoring token gives the same). Its kind stays
``topic``, so it stays unsure with the ``topic`` confidence and its doubt ("contract text
shares topic words with it, but no sentence names what it asks for"). No threshold, no
cue, nothing read from a label.

``--default IN_SCOPE`` measures the other reading of "no evidence" (the verdict most
requests on a fixed-scope contract get): both ``topic`` and ``none`` decisions become
IN_SCOPE. Not what the stop note asked; measured to see whether the loss comes from the
default chosen or from the overlap itself.

The engine is patched in this process only; every other argument goes to ``etki eval
triage``. Run from the repository root, e.g.::

    ETKI_REALDATA_DIR=../shared/realdata .venv/bin/python docs/probes/topic_decides_nothing.py \
        --all-realdata --loeo --brief
    ETKI_REALDATA_DIR=../shared/realdata .venv/bin/python docs/probes/topic_decides_nothing.py \
        --all-realdata --pairs tests/data/translation_pairs.jsonl

Not used by the engine: it made the engine worse on every labelled figure (docs/EVAL.md,
"Topic overlap that decides nothing").
"""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any

from etki.cli import main
from etki.domain import Verdict
from etki.triage.engine import TriageEngine

VERDICTS: tuple[Verdict, ...] = ("IN_SCOPE", "CHANGE_REQUEST", "REJECT")
NO_EVIDENCE: Verdict = "CHANGE_REQUEST"
"""The verdict of the ``uncovered`` rule: what the engine says when nothing matched."""


def patch(default: Verdict) -> None:
    """Make every ``topic`` decision (and, for a default other than :data:`NO_EVIDENCE`,
    every ``none`` decision) answer ``default``; sureness, kind and confidence kept."""
    kinds = ("topic",) if default == NO_EVIDENCE else ("topic", "none")
    original = TriageEngine._classify

    def _classify(self: TriageEngine, *args: Any, **kwargs: Any) -> Any:
        result, sureness = original(self, *args, **kwargs)
        if sureness.kind in kinds:
            result = replace(result, verdict=default)
        return result, sureness

    TriageEngine._classify = _classify  # type: ignore[method-assign]


if __name__ == "__main__":
    argv = sys.argv[1:]
    default = NO_EVIDENCE
    if "--default" in argv:
        at = argv.index("--default")
        if argv[at + 1 :][:1] == [] or argv[at + 1] not in VERDICTS:
            sys.exit("--default takes one of " + ", ".join(VERDICTS))
        default = VERDICTS[VERDICTS.index(argv[at + 1])]
        del argv[at : at + 2]
    patch(default)
    main(["eval", "triage", *argv])
