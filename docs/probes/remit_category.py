"""Probe (issue 29, helper eng29g): a request for non-delivery work the contract puts
outside the remit is a REJECT, in any of the three languages.

The rule (written before any figure of this probe was computed)
-----------------------------------------------------------------
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
in its own words ("hardware ... excluded", "ACF ... responsible for hosting"), and the
client who asks for it writes in its own language.

So each category below is a list of EN/TR/DE cue words (:data:`CATEGORIES`: the category's
general vocabulary, the Turkish and German words a dictionary gives for it; none written
from a labelled request). The contract **puts a category outside the remit** when at
least one of its exclusion or client-duty sentences (sentence roles ``exclusion`` and
``client`` of :mod:`etki.triage.contract`) holds a cue of the category and none of its
obligation sentences does (the contract never asks the contractor for it). A request that
holds a cue of such a category, and that the rule chain answered from topic overlap or
from nothing (rules ``covered``, ``partial``, ``new_capability``, ``uncovered``: no
defect wording, no named sentence, no advice or administration wording, no ratio
exclusion, no future-work match), is answered REJECT (rule ``remit_category``), evidence
kind ``category``: **never sure** (a category word is not a sentence naming the ask), its
doubt quotes the contract sentence that puts the category outside; its confidence is set
like every kind's, leave-one-engagement-out. No threshold; no number.

Keep rule (written before measuring): kept only if, leave-one-engagement-out (``etki eval
triage --all-realdata --loeo``, lexical), pooled REJECT recall rises and neither pooled
macro-F1 nor the pooled accuracy of the most confident half falls; the same is reported
with ``--remit all``.

Kept: engine 3.3.0 carries this rule as ``etki/triage/remit_category.py`` (docs/EVAL.md,
"Non-delivery work the contract puts outside the remit"). This probe patches the engine
it runs on, so it reproduces the figures only on engine 3.2.3 (commit 7e09aad); on 3.3.0
it changes nothing the engine has not already changed.

The engine is patched in this process only; every other argument goes to ``etki eval
triage``. Run from the repository root::

    ETKI_REALDATA_DIR=../shared/realdata .venv/bin/python docs/probes/remit_category.py \
        --all-realdata --loeo --brief
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from etki.cli import main
from etki.triage.cue_match import cue_list
from etki.triage.engine import TriageEngine
from etki.triage.normalise import cue_words
from etki.triage.sureness import Sureness

CATEGORIES = {
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
    # third parties' charges, fees and licences (the guides' "Fees and Expenses",
    # "third-party tools/licenses")
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
    # people placed with the client (the guides' "Personnel", "on site time")
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
    # paper records turned into data (the guides' "data migration", "data recovery")
    "records": cue_list(
        "cat_records",
        strong=[
            "scanning",
            "scan",
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
    # running the system (the guides' "environment", "hosting", "ongoing maintenance")
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
            "representative",
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

OVERRIDES = frozenset(("covered", "partial", "new_capability", "uncovered"))


def outside_categories(engine: TriageEngine) -> dict[str, str]:
    """Category -> the first exclusion/client sentence (``REF “text”``) holding one of
    its cues, for the categories no obligation sentence holds a cue of."""
    outside: dict[str, str] = {}
    inside: set[str] = set()
    for s in engine.sentences:
        ws = cue_words(s.text)
        for name, cues in CATEGORIES.items():
            if not cues.find(ws):
                continue
            if s.role in ("exclusion", "client"):
                outside.setdefault(name, f"{engine.infos[s.clause].clause.ref} “{s.quoted}”")
            elif s.role == "obligation":
                inside.add(name)
    return {k: v for k, v in outside.items() if k not in inside}


_ORIGINAL = TriageEngine._classify


def _patched(self: TriageEngine, request: Any, *args: Any, **kwargs: Any) -> Any:
    result, sureness = _ORIGINAL(self, request, *args, **kwargs)
    if result.rule not in OVERRIDES:
        return result, sureness
    cached = getattr(self, "_eng29g_outside", None)
    if cached is None:
        cached = self._eng29g_outside = outside_categories(self)
    ws = request.words
    hit = [(name, q) for name, q in cached.items() if CATEGORIES[name].find(ws)]
    if not hit:
        return result, sureness
    name, quote = hit[0]
    doubt = (
        f"it asks for {name} work, which the contract puts outside the remit: {quote}; "
        "no sentence names the ask itself"
    )
    return (
        replace(result, verdict="REJECT", rule="remit_category", confidence=0.5),
        Sureness("category", False, 0.5, (doubt,)),
    )


def run(argv: Sequence[str]) -> int:
    TriageEngine._classify = _patched  # type: ignore[method-assign]
    return int(main(["eval", "triage", *argv]) or 0)


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
