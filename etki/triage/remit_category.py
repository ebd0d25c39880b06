"""Non-delivery work the contract puts outside the remit (one job: the ``remit_category``
rule of engine 3.3.0, issue 29; helper eng29g).

Some requests ask for work that is not software delivery at all: supplying equipment,
paying a third party's charges, placing staff with the client, digitising paper records,
hosting, legal representation. Public SOW drafting guides list exactly these as the
standard "out of scope" / "client responsibilities" headings of a services contract
(ezel.ai SOW template: "Fees and Expenses", "Client Responsibilities", "Personnel and
Subcontractors", "Location and Tools", "environment, data, access, third-party
tools/licenses"; remotestaffingwiki.com "Statement of Work": "ongoing maintenance,
content creation, third-party integrations"; technibble.com "Statement of Work - what to
exclude": "on site time", "data recovery"; ryanconsulting.ai "Scope precision": "account
migration from legacy systems is excluded"). A contract that excludes one of them says so
in its own words, usually in English; the client who asks for it writes in its own
language, so a shared category word is the only lexical bridge between the two.

**The rule** (written before any figure was computed, as the probe
``git show 5f95ee7:docs/probes/remit_category.py``; docs/EVAL.md has its figures). Each category of
:data:`CATEGORIES` is a list of English, Turkish and German cue words (the category's
general vocabulary and the words a dictionary gives for it; none written from a labelled
request). The contract **puts a category outside the remit** when at least one of its
exclusion or client-duty sentences (sentence roles ``exclusion`` and ``client`` of
:mod:`etki.triage.contract`) holds a cue of it and none of its obligation sentences does
(:func:`outside_categories`). A request holding a cue of such a category, which the rule
chain answered from topic overlap or from nothing (:data:`OVERRIDES`: no defect wording,
no named sentence, no advice or administration wording, no ratio exclusion, no
future-work match), is answered REJECT by rule ``remit_category`` (:func:`apply`); its
evidence kind is ``category``, never sure: a category word is not a sentence naming the
ask. No threshold, no number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from etki.triage.classify import Classification
from etki.triage.contract import Sentence
from etki.triage.cue_match import CueList, cue_list
from etki.triage.normalise import cue_words

__all__ = ["CATEGORIES", "OVERRIDES", "RULE", "apply", "outside_categories"]

RULE = "remit_category"
"""The rule name (:data:`etki.triage.classify.RULES`)."""

CATEGORIES: dict[str, CueList] = {
    # supply or installation of equipment (the guides' "Location and Tools")
    "hardware": cue_list(
        "cat_hardware",
        strong=[
            "hardware",
            "equipment",
            "printer*",
            "kiosk*",
            "card reader*",
            "donanim*",
            "ekipman*",
            "yazici*",
            "gerate",
            "drucker*",
        ],
    ),
    # third parties' charges, fees and licences ("Fees and Expenses", "third-party
    # tools/licenses")
    "charges": cue_list(
        "cat_charges",
        strong=[
            "fee",
            "fees",
            "commission*",
            "charges",
            "licence fee*",
            "license fee*",
            "bedel*",
            "ucret*",
            "komisyon*",
            "gebuhr*",
            "provision*",
            "lizenzkosten",
        ],
    ),
    # people placed with the client ("Personnel", "on site time")
    "personnel": cue_list(
        "cat_personnel",
        strong=[
            "on site",
            "on-site",
            "onsite",
            "on premises",
            "on the premises",
            "staff augmentation",
            "secondment",
            "yerinde",
            "personel temin*",
            "eleman temin*",
            "vor ort",
            "personalgestellung",
            "arbeitnehmeruberlassung",
        ],
    ),
    # paper records turned into data ("data migration", "data recovery")
    "records": cue_list(
        "cat_records",
        strong=[
            "paper",
            "digitis*",
            "digitiz*",
            "data entry",
            "tarama*",
            "taran*",
            "kagit*",
            "sayisallastir*",
            "scannen",
            "papier*",
            "digitalisier*",
        ],
    ),
    # running the system ("environment", hosting, "ongoing maintenance")
    "hosting": cue_list(
        "cat_hosting",
        strong=[
            "hosting",
            "hosted",
            "host the",
            "data centre",
            "data center",
            "barindir*",
            "veri merkez*",
            "rechenzentrum",
        ],
    ),
    # acting for the client before courts or authorities
    "legal": cue_list(
        "cat_legal",
        strong=[
            "legal representation",
            "represent the",
            "attorney",
            "lawyer*",
            "court",
            "temsil*",
            "avukat*",
            "mahkeme*",
            "vertretung",
            "anwalt*",
            "gericht*",
        ],
    ),
}
"""Categories of non-delivery work (module docstring), name -> EN/TR/DE cues (engine
3.3.1 left out three words with a standard delivery sense in software contracts:
"representative" — the Contracting Officer's Representative, FAR 1.602-2(d), whom
client-duty sentences name — and "scan"/"scanning" — vulnerability scanning, NIST SP
800-53 control RA-5; no figure of the four engagements moved) (folded,
matched by :mod:`etki.triage.cue_match` against :func:`etki.triage.normalise.cue_words`)."""

OVERRIDES = frozenset(("covered", "partial", "new_capability", "uncovered"))
"""The rules whose verdict a category outside the remit replaces: the ones that decide
from topic overlap or from no evidence (:mod:`etki.triage.classify`, rules 7-9)."""


def outside_categories(sentences: Sequence[Sentence]) -> dict[str, int]:
    """Category -> position in ``sentences`` of the first exclusion or client-duty
    sentence holding one of its cues, for each category no obligation sentence holds a
    cue of (the contract puts it outside the remit only). Pure; contract order."""
    outside: dict[str, int] = {}
    inside: set[str] = set()
    for k, s in enumerate(sentences):
        if s.role not in ("exclusion", "client", "obligation"):
            continue
        ws = cue_words(s.text)
        for name, found in CATEGORIES.items():
            if not found.find(ws):
                continue
            if s.role == "obligation":
                inside.add(name)
            else:
                outside.setdefault(name, k)
    return {name: k for name, k in outside.items() if name not in inside}


def apply(
    result: Classification, words: Sequence[str], outside: Mapping[str, int]
) -> tuple[Classification, tuple[str, int] | None]:
    """``(result, None)`` unless ``result``'s rule is one of :data:`OVERRIDES` and the
    request's folded cue ``words`` hold a cue of a category in ``outside``
    (:func:`outside_categories`); then ``(REJECT by rule remit_category, (category,
    sentence position))``, the first such category in :data:`CATEGORIES` order. The
    confidence is left for the evidence kind to set. Pure."""
    if result.rule not in OVERRIDES:
        return result, None
    for name, found in CATEGORIES.items():
        if name in outside and found.find(words):
            return replace(result, verdict="REJECT", rule=RULE), (name, outside[name])
    return result, None
