"""The steps after classification: what a decision says beside its verdict.

Each function reads what the engine found (cited clauses, impacted modules, the
request's words, the clause memory), appends its evidence step(s) and returns what the
decision records. None of them reads or changes the verdict, the confidence or the
citations: draft clauses (:func:`draft_clauses`), effort (:func:`estimate_effort`,
:func:`no_effort`), risk (:func:`assess_risk`) and the clause memory
(:func:`memory_notes`), in that order (:mod:`etki.triage.engine` runs them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from etki.domain import ClauseMemory, Effort, EvidenceStep, Risk, WorkItem, risk_wording_text
from etki.triage.effort import estimate
from etki.triage.modules import ModuleMatcher
from etki.triage.risk import assess

__all__ = ["assess_risk", "draft_clauses", "estimate_effort", "memory_notes", "no_effort"]


def draft_clauses(
    cited: Sequence[str],
    draft_refs: frozenset[str] | set[str],
    weight: float,
    evidence: list[EvidenceStep],
) -> tuple[str, ...]:
    """The cited refs of draft clauses (``draft_refs``), in citation order; when there
    are any, adds the ``draft_clauses`` step (each with the ``weight`` its scores got,
    :data:`etki.triage.engine.DRAFT_WEIGHT`)."""
    drafts = tuple(ref for ref in cited if ref in draft_refs)
    if drafts:
        evidence.append(
            EvidenceStep(
                "draft_clauses",
                f"cites draft clause(s) {', '.join(drafts)} (pending amendment, not yet "
                f"binding); their scores were weighted x{weight}",
                tuple(sorted((ref, weight) for ref in drafts)),
            )
        )
    return drafts


def no_effort(evidence: list[EvidenceStep]) -> Effort:
    """A REJECT's effort: none (the work is outside the remit); adds the ``effort`` step."""
    evidence.append(
        EvidenceStep("effort", "no effort: the work is outside the contractor's remit", ())
    )
    return Effort(None, None)


def estimate_effort(
    workitems: Sequence[WorkItem],
    matcher: ModuleMatcher,
    query: Sequence[str],
    modules: Sequence[str],
    evidence: list[EvidenceStep],
) -> Effort:
    """Effort in person-days from comparable past work items (the request's ``query``
    terms scored against them, the impacted ``modules``;
    :func:`etki.triage.effort.estimate`). Adds the ``effort`` step (low and high days
    when known)."""
    effort = estimate(
        workitems,
        matcher.workitem_scores(query),
        modules,
        matcher.wi_by_module,
        matcher.wi_with_effort,
    )
    detail = (
        f"{effort.label()} from {len(effort.basis)} comparable work items (25th-75th percentile)"
        if effort.known
        else "unknown: no comparable work item carries effort_days"
    )
    evidence.append(
        EvidenceStep(
            "effort",
            detail,
            (("high", effort.high), ("low", effort.low))
            if effort.high is not None and effort.low is not None
            else (),
        )
    )
    return effort


def assess_risk(
    words: Sequence[str],
    written: Callable[[], tuple[str, ...]],
    cited: Sequence[str],
    memory: Mapping[str, ClauseMemory],
    disputed_escalation: bool,
    evidence: list[EvidenceStep],
) -> tuple[Risk, tuple[str, ...]]:
    """Risk from the request's folded cue ``words`` (``written()`` gives them as the
    request spells them), the cited refs and the clause memory
    (:func:`etki.triage.risk.assess`). Returns (risk, cited disputed refs) and adds the
    ``risk`` step (level, the signals' wording or disputed clauses, signal count)."""
    risk, risk_cues, disputed = assess(words, cited, memory, disputed_escalation, written)
    parts = []
    if risk_cues:
        parts.append(risk_wording_text(risk_cues[:6]))
    if disputed and disputed_escalation:
        parts.append("disputed clause cited: " + ", ".join(disputed))
    evidence.append(
        EvidenceStep(
            "risk",
            (
                f"{risk.level}: " + "; ".join(parts) + " -> PMO look within 24h"
                if risk.pmo_look_24h
                else "low: no security, personal-data or dispute signal"
            )
            + "; the risk layer does not change verdict, confidence or effort",
            (("signals", float(len(risk.signals))),),
        )
    )
    return risk, tuple(disputed)


def memory_notes(
    cited: Sequence[str],
    disputed: Sequence[str],
    memory: Mapping[str, ClauseMemory],
    disputed_escalation: bool,
    evidence: list[EvidenceStep],
) -> None:
    """Reads the cited refs, the disputed ones among them and the clause memory
    (``disputed_escalation``: whether a disputed clause raised the risk). Adds
    informational ``memory`` steps, after classification, in citation order: per cited
    clause with precedents "clause memory: N past PMO corrections —
    informational, no decision effect" (the clause ref and N in ``scores``), per
    cited disputed clause a note saying whether it was escalated to the risk layer,
    and per cited disputed-resolved clause a note naming the resolution (not
    escalated)."""
    for ref in cited:
        mem = memory.get(ref)
        if mem is None:
            continue
        if mem.precedent_count > 0:
            evidence.append(
                EvidenceStep(
                    "memory",
                    f"clause memory: {mem.precedent_count} past PMO corrections — "
                    "informational, no decision effect",
                    ((ref, float(mem.precedent_count)),),
                )
            )
        if ref in disputed:
            how = (
                "escalated to the risk layer"
                if disputed_escalation
                else "note only, dispute escalation is off"
            )
            evidence.append(
                EvidenceStep(
                    "memory",
                    f"clause memory: {ref} is disputed, past rulings on it disagree — {how}; "
                    "no decision effect",
                    ((ref, float(len(mem.history))),),
                )
            )
        elif mem.resolved and mem.resolution is not None:
            evidence.append(
                EvidenceStep(
                    "memory",
                    f"clause memory: {ref} was disputed, resolved by the PMO "
                    f"(rule {mem.resolution.verdict}, {mem.resolution.at[:10]}) — "
                    "not escalated; no decision effect",
                    ((ref, float(len(mem.history))),),
                )
            )
