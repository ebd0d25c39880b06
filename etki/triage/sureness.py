"""Sureness (one job: say which kind of evidence decided a verdict, whether that evidence
is plain enough to lean on, and how often such evidence has been right).

A verdict rests on one **kind** of evidence (:data:`KINDS`):

* ``exclusion``: an exclusion, client-duty or "not responsible for" sentence of the
  contract *names* what the request asks for (see Naming below) and no obligation does;
* ``routed``: a sentence that routes work to a change request or to later phases names
  it, and no obligation does;
* ``defect``: the request reports a defect (defect wording, :mod:`etki.triage.cues`)
  in an area the contract or the delivered system covers (an obligation sentence or a
  module matched; for a request read by meaning, the nearest sentence is an obligation:
  :func:`etki.triage.by_meaning.placed_by_meaning`);
* ``named``: an obligation sentence of the contract names what the request asks for;
* ``conflict``: plain evidence on two sides (an obligation and an exclusion both name
  the ask; defect wording about something an exclusion names; new-capability wording
  about something a clause names; an exclusion in the very clause that covers the ask);
* ``wording``: the request's own words alone (advice or contract-administration
  wording) decided, no contract sentence names the ask;
* ``defect_unplaced``: defect wording, but nothing in the contract or the system
  matched the area;
* ``category``: the request asks for a category of non-delivery work (equipment,
  third-party charges, staff on site, paper records, hosting, legal representation) that
  only the contract's exclusion or client-duty sentences hold
  (:mod:`etki.triage.remit_category`); no sentence names the ask itself;
* ``topic``: contract text shares topic words with the request, none names the ask;
* ``new``: new-capability wording and no clause names the ask;
* ``none``: no contract sentence matches the request at all.

The first four are **sure** (:data:`SURE_KINDS`): the verdict follows from a sentence a
reviewer can read and check, or from the request reporting a fault in delivered work.
Everything else is an honest "needs a careful look", with the reasons in
:attr:`Sureness.doubts`. Topic overlap alone never makes a verdict sure: a topic word
shared with a clause decides nothing on a contract nobody tuned to.

**Naming.** A sentence *names* the ask when the request holds at least
:data:`NAMED_SHARE` of the sentence's own information: the IDF mass of the sentence's
distinct scoring tokens (its title left out), of which the request's tokens hold that
share. Half, so that most of what the sentence is about is in the request, not just one
of its words; the threshold was written before any figure was computed. Measured from
the sentence's side, unlike the rule chain's coverage (the request's side): a short
exclusion ("Provide hosting of the prototype") is named by a longer request that holds
most of its words ("can you provide hosting of the prototype on your servers?"), though
the sentence holds little of the request. A lead-in ending in a colon, or a sentence of
fewer than :data:`MIN_NAMING_TERMS` terms, names nothing.

**Confidence** is the estimated chance the verdict is right given the kind of its
evidence: one number per kind (:data:`KIND_CONFIDENCE`), each the share of verdicts of
that kind that matched the label over the labelled requests of the visible engagements
(tdrs, talentmap, eqip, demo), smoothed toward the rate of its group (the sure kinds, or
the others) by Cestnik's m-estimate ((right + 2 g) / (n + 2), g the group's rate by
Laplace's rule), so a kind seen a few times stays near the kinds it is grouped with
rather than near a coin's one half (:func:`etki.evaluation.confidence.m_estimate`). ``etki eval
triage --calibration`` prints these counts; ``etki eval triage --loeo`` reports every
engagement with the numbers fitted on the *other* engagements only, which is the figure
to quote (docs/EVAL.md). Confidence ranks verdicts; it never changes one.
"""

from __future__ import annotations

from dataclasses import dataclass

NAMED_SHARE = 0.5
"""A sentence names the request's ask when the request holds at least this share of the
sentence's IDF mass (see the module docstring). Written before any figure was seen."""

MIN_NAMING_TERMS = 3
"""A sentence of fewer distinct scoring terms names nothing, and neither does a lead-in
ending in a colon: a list label ("Cloud deployment", "Deployed") or a lead-in ("The
System must:") is a topic or an introduction, not a statement of what is in or out (a
statement has at least a subject, a verb and an object). Taken after the first
fresh-user trial of engine 3.0.0 found verdicts made sure by such sentences; on the
visible engagements it moves 9 verdicts out of ``named`` and 13 out of ``conflict``
(to ``topic`` and ``new``; no verdict changes), and the accuracy of ``named`` falls
from 16/22 to 8/13: the label-named ones happened to be right more often, which is no
reason to keep a reason no reviewer could accept. (Since every exclusion of the
covering clause is weighed, 5 more named verdicts are ``conflict``: named 6/8.) (stop note, issue 29)."""

KINDS: tuple[str, ...] = (
    "exclusion",
    "routed",
    "defect",
    "named",
    "conflict",
    "wording",
    "defect_unplaced",
    "category",
    "topic",
    "new",
    "none",
)
"""Every evidence kind, plain ones first."""

SURE_KINDS = frozenset(("exclusion", "routed", "defect", "named"))
"""Kinds of plain evidence: a verdict of one of them is **sure**."""

KIND_CONFIDENCE: dict[str, float] = {
    "exclusion": 0.5185,  # 0 right of 1
    "routed": 0.5185,  # 0 of 1
    "defect": 0.8675,  # 21 of 24
    "named": 0.7556,  # 6 of 8
    "conflict": 0.5152,  # 5 of 10
    "wording": 0.7276,  # 1 of 1
    "defect_unplaced": 0.6366,  # 2 of 3
    "category": 0.6409,  # 2 of 3 (engine 3.3.0; toward the others' 3.3.0 rate)
    "topic": 0.7095,  # 35 of 49
    "new": 0.4813,  # 7 of 15
    "none": 0.3455,  # 4 of 13
}
"""Confidence per kind over the 125 labelled requests of tdrs, talentmap, eqip and demo
(the verdicts of engine 3.0.0, which 3.1.0 and 3.2.0 keep lexically): (right + 2 g) / (n + 2), g the rate of
the kind's group by Laplace's rule: sure kinds 27 right of 34 -> 28/36, the others 54 of
91 -> 55/93 (``etki eval triage --all-realdata --calibration`` prints n, right and these
values). Engine 3.0.0 smoothed each kind toward 1/2 alone, which put a sure kind seen
once, wrong, at 1/3: a "sure" verdict at one chance in three, which a trial read as a
contradiction. Confidence and sureness stay two answers: sure says the evidence is of a
plain kind a reviewer can check; confidence says how often such evidence was right, and
for a kind seen once (``exclusion``, ``routed``: one wrong verdict each, both arguable
labels) it is mostly its group's rate. Leave-one-engagement-out figures: ``etki eval
triage --all-realdata --loeo`` (docs/EVAL.md)."""


@dataclass(frozen=True)
class Sureness:
    """``kind`` (one of :data:`KINDS`), ``sure`` (``kind`` in :data:`SURE_KINDS`),
    ``confidence`` (:data:`KIND_CONFIDENCE` of the kind, in (0, 1)) and ``doubts``:
    plain-English reasons the verdict needs a careful look (empty when sure)."""

    kind: str
    sure: bool
    confidence: float
    doubts: tuple[str, ...]


def assess_sureness(
    rule: str,
    *,
    placed: bool,
    obligation: str | None,
    against: str | None,
    future: str | None,
    weighed: str | None,
    foreign: str | None,
    by_meaning: bool = False,
    category: tuple[str, str] | None = None,
) -> Sureness:
    """The :class:`Sureness` of a verdict decided by ``rule`` (one of
    :data:`etki.triage.classify.RULES`).

    ``placed``: an obligation sentence or a module matched the request, or, read by
    meaning, the sentence nearest to it is an obligation (a defect can be placed). ``obligation``/``against``/``future``: the quoted sentence of that group
    that names the ask (``REF “text”``), or None. ``weighed``: an exclusion sentence of
    the clause the verdict rests on that shares the request's words (IN_SCOPE verdicts),
    or None. ``foreign``: the request's language when no clause is written in it, else
    None; ``by_meaning``: an embedding model then read the contract by meaning (else
    nothing could read it). ``category``: for rule ``remit_category``, the category and
    the quoted sentence that puts it outside the remit. Pure."""
    doubts: list[str] = []
    if rule == "defect":
        if not placed:
            kind = "defect_unplaced"
            doubts.append(
                "it reads as a defect report, but nothing in the contract or the system "
                "matched the area it is about"
            )
        elif against:
            kind = "conflict"
            doubts.append(f"it reads as a defect report, but an exclusion names it: {against}")
        else:
            kind = "defect"
    elif rule == "named_exclusion":
        kind = "exclusion"
    elif rule == "named_route":
        kind = "routed"
    elif rule in ("advice", "administration"):
        kind = "wording"
        doubts.append(
            "only the request's own wording decided; no contract sentence names what it asks for"
        )
    elif rule in ("covered", "partial") and obligation:
        if against:
            kind = "conflict"
            doubts.append(f"an exclusion names it too: {against}")
        elif weighed:
            kind = "conflict"
            doubts.append(
                f"the clause that covers it also excludes work or gives it to another party: "
                f"{weighed}"
            )
        else:
            kind = "named"
    elif rule == "new_capability":
        kind = "conflict" if obligation else "new"
        doubts.append(
            f"it asks for something new, but a clause names it: {obligation}"
            if obligation
            else "it asks for something new and no clause names it; nothing says the contract "
            "excludes it either"
        )
    elif rule == "remit_category":
        kind = "category"
        name, sentence = category or ("non-delivery", "")
        doubts.append(
            f"it asks for {name} work, which the contract puts outside the remit"
            + (f": {sentence}" if sentence else "")
            + "; no sentence names the ask itself"
        )
    elif rule == "uncovered":
        kind = "none"
        doubts.append("no contract sentence matches what it asks for")
    else:  # exclusion, future_work, covered, partial by topic overlap
        kind = "conflict" if (obligation and rule in ("exclusion", "future_work")) else "topic"
        doubts.append(
            f"an obligation names it: {obligation}"
            if kind == "conflict"
            else "contract text shares topic words with it, but no sentence names what it asks for"
        )
        if weighed and kind == "topic":
            doubts.append(
                f"the clause it rests on also excludes work or gives it to another party: {weighed}"
            )
    if foreign and kind not in SURE_KINDS:
        doubts.append(
            f"it is written in {foreign}, a language no clause is written in: the contract "
            + (
                "was read by meaning, not by its words"
                if by_meaning
                else "could not be read for it (no embedding model is set: ETKI_EMBED)"
            )
        )
    sure = kind in SURE_KINDS
    return Sureness(kind, sure, KIND_CONFIDENCE[kind], () if sure else tuple(doubts))
