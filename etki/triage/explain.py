"""The words of a decision a reviewer reads: its assumptions and its reasoning paragraph.

The engine decides (:mod:`etki.triage.engine`, :mod:`etki.triage.classify`); this module
only says in plain English what the decision rests on, from a :class:`Grounds` the engine
fills in. Nothing here reads the contract, the request or a score: change the wording
here and no verdict, confidence or cited clause can change. The evidence steps' own
sentences stay beside the steps that write them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from etki.text import fold
from etki.triage import cues
from etki.triage.classify import MIN_COVERAGE

__all__ = ["Grounds", "assumptions", "clip", "cue_text", "quote", "reasoning"]


def quote(texts: Sequence[str], limit: int = 5) -> str:
    """The first ``limit`` of ``texts``, each in curly quotes, joined by ", "."""
    return ", ".join(f"“{t}”" for t in list(texts)[:limit])


def clip(text: str, limit: int = 140) -> str:
    """``text`` with its whitespace runs made single spaces, cut to at most ``limit``
    characters (the last one an ellipsis when cut)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def cue_text(hits: Iterable[tuple[cues.Cue, str]]) -> list[str]:
    """The matched words of cue ``hits``, distinct by their fold (``Crashes`` and
    ``crashes`` are quoted once), first occurrence first."""
    seen: set[str] = set()
    out = []
    for _, text in hits:
        key = fold(text)
        if key not in seen:
            seen.add(key)
            out.append(text)
    return out


@dataclass(frozen=True)
class Grounds:
    """What a decision's text rests on. ``rule`` and ``verdict``: the deciding rule
    (:func:`etki.triage.classify.classify`) and its verdict; ``main``: the title of the
    first cited clause (None when nothing is cited); ``quoted``: per sentence group
    (``obligation``, ``against``, ``future``, ...) its best sentence as ``REF: “text”``;
    ``against_coverage``: the coverage of the best exclusion or client-duty sentence (0.0
    when none matched); ``declared_remit``: that sentence is the PMO's declared remit;
    ``support``: for a defect, the title of the cited clause that puts fixing defects in
    scope; ``*_words``: the request's words each wording cue matched, as written."""

    rule: str
    verdict: str
    main: str | None
    quoted: Mapping[str, str] = field(default_factory=dict)
    against_coverage: float = 0.0
    declared_remit: bool = False
    support: str | None = None
    defect_words: tuple[str, ...] = ()
    advice_words: tuple[str, ...] = ()
    admin_words: tuple[str, ...] = ()
    new_words: tuple[str, ...] = ()


def assumptions(g: Grounds, *, effort_known: bool, drafts: Sequence[str]) -> tuple[str, ...]:
    """The assumptions the verdict rests on (by the deciding rule), the one every verdict
    rests on (the request is complete), one when effort is unknown (not for a REJECT),
    then one per cited draft clause."""
    main = g.main or "the contract"
    out: list[str] = []
    rule = g.rule
    if rule == "defect":
        out.append(
            "The behaviour described is a defect in delivered functionality, "
            "not a request for new behaviour."
        )
        out.append(f"The affected functionality is the one {main} covers.")
    elif rule in ("covered", "partial"):
        out.append(f"The request asks for what {main} already describes, nothing beyond it.")
    elif rule in ("future_work", "named_route", "new_capability", "uncovered"):
        out.append("No clause of the contract already asks for this capability.")
        out.append("It would be estimated, priced and planned separately.")
    elif rule in ("exclusion", "named_exclusion", "remit_category"):
        out.append(f"{main} excludes this work or assigns it to the client.")
    elif rule == "administration":
        out.append(
            "The request concerns the contractor's team or contract "
            "administration, not the delivered system."
        )
    elif rule == "advice":
        out.append("The request asks for a policy or strategy decision that belongs to the client.")
    out.append(
        "The request text is complete and nothing was agreed outside the contract documents."
    )
    if g.verdict != "REJECT" and not effort_known:
        out.append("Effort is unknown: no comparable past work item records effort.")
    out.extend(f"Draft clause {ref} is adopted as written." for ref in drafts)
    return tuple(out)


def _rule_text(g: Grounds) -> str:
    """The paragraph's first sentences: why the deciding rule gives this verdict."""
    rule = g.rule
    main = g.main or "no clause"

    def sentence_of(group: str) -> str:
        return g.quoted.get(group, "")

    if rule == "defect":
        text = (
            f"The request reads as a defect report ({quote(g.defect_words)}) "
            f"about functionality the contract covers, closest to {main}."
        )
        if g.support:
            text += f" {g.support} puts fixing defects of delivered work in scope."
        return text + " A defect in delivered scope is fixed as part of the contract."
    if rule == "advice":
        return (
            f"The request asks for a decision or advice "
            f"({quote(g.advice_words)}) rather than software work; such "
            "decisions stay with the client, so it is outside the contractor's remit."
        )
    if rule == "administration":
        return (
            f"The request is about the contractor's team or contract administration "
            f"({quote(g.admin_words)}), which {main} governs; it is "
            "not work on the delivered system."
        )
    if rule == "exclusion":
        source = (
            "text, the PMO's declared remit in etki.yaml," if g.declared_remit else "contract text"
        )
        return (
            f"The closest {source} takes this work out of the contractor's "
            f"scope or gives it to the client ({sentence_of('against')}), and it "
            "matches the request clearly better than any obligation does."
        )
    if rule == "named_exclusion":
        return (
            f"A sentence of the contract names what the request asks for and takes it "
            f"out of the contractor's scope or gives it to the client "
            f"({sentence_of('against')}); no obligation names it."
        )
    if rule == "remit_category":
        return (
            "The request asks for work that is not software delivery, of a kind the "
            f"contract leaves to the client or excludes ({sentence_of('against')}) and "
            "asks of the contractor nowhere; no sentence names the ask itself."
        )
    if rule == "named_route":
        return (
            f"A sentence of the contract names what the request asks for and routes it "
            f"to a change request or to later work ({sentence_of('future')}); no "
            "obligation names it, so it is a change request."
        )
    if rule == "future_work":
        return (
            f"The contract mentions this only as possible future work "
            f"({sentence_of('future')}); it is not part of the current scope, "
            "so it is a change request."
        )
    if rule == "covered":
        return (
            f"The contract already asks for this ({sentence_of('obligation')}), so it is in scope."
        )
    if rule == "partial":
        return (
            f"The request is only partly matched by contract text, closest to "
            f"{main} ({sentence_of('obligation')}); with no defect wording and no "
            "stronger exclusion it is proposed as in scope, with low confidence."
        )
    if rule == "new_capability":
        return (
            f"The request asks for something new "
            f"({quote(g.new_words)}) and no clause covers it well "
            f"(closest: {main}); a new capability is a change request."
        )
    return (
        "No clause of the contract covers the request"
        + (f" (closest: {main})" if g.main is not None else "")
        + "; a capability the contract does not describe is a change request."
    )


def reasoning(
    g: Grounds, *, modules: Sequence[str], signals: Sequence[str], drafts: Sequence[str]
) -> str:
    """The plain-English paragraph: why this verdict, which clause, which wording (the
    words quoted as the request writes them), an exclusion weighed against an IN_SCOPE
    verdict (its sentence covering at least :data:`~etki.triage.classify.MIN_COVERAGE`
    of the request), which modules, which risk signals, which cited clauses are drafts."""
    text = _rule_text(g)
    against = g.quoted.get("against", "")
    if (
        g.verdict == "IN_SCOPE"
        and g.rule != "defect"
        and against
        and g.against_coverage >= MIN_COVERAGE
    ):
        text += f" Exclusion or client-duty text was weighed against it ({against})."
    if modules:
        text += f" Likely impacted modules: {', '.join(modules)}."
    if signals:
        text += (
            f" Risk signals ({', '.join(signals)}) ask for a PMO look within 24 "
            "hours; they do not change the verdict."
        )
    if drafts:
        text += (
            f" {', '.join(drafts)} {'is a draft' if len(drafts) == 1 else 'are drafts'}"
            " (a pending amendment), so this ruling rests on text that is not yet "
            "binding."
        )
    return text
