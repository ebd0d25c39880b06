"""Probe (issue 29): does the wording of a contract's Changes clause mark change requests
the rule chain today calls IN_SCOPE from topic overlap alone?

**The signal.** Public procurement law lists what a request may ask to *change* in a
contract already let, and treats each such change as priced work (an equitable
adjustment, a modification): the Changes clause of U.S. government contracts (FAR
52.243-1 "Changes - Fixed-Price" (a)(1)-(3): drawings, designs or specifications; method
of shipment or packing; place of inspection, delivery or acceptance; its Alternate I/II
for services: description of the services, time of performance "hours of the day, days
of the week", place of performance; (b): a change that causes "an increase or decrease in
the cost of, or the time required for, performance"), FAR 43.103 (change orders, a
unilateral modification) and 43.104 (constructive changes, e.g. an order to perform
faster: acceleration), Directive 2014/24/EU Art. 72 (modification of contracts during
their term: (1)(b) "additional works, services or supplies", (4)(c) a modification that
"extends the scope of the contract considerably"; German text: "zusätzliche ...
Dienstleistungen", "Ausweitung"), the German BGB § 650b ("Änderung des vereinbarten
Werkerfolgs") and VOB/B § 1 (3)-(4) ("Änderungen des Bauentwurfs", "nicht vereinbarte
Leistungen"), and the Turkish Kamu İhale Sözleşmeleri Kanunu (4735) Art. 24 ("iş artışı":
an increase of the contracted work) with the public-contract usage "süre uzatımı" (an
extension of time). :data:`CHANGE` holds the words of those texts in EN/TR/DE, one
group per heading of the clause; each line names its source. None was written from a
labelled request, and none is in :data:`etki.triage.cues.NEW_CAPABILITY` (the words the
chain already reads: "new", "add", "additional", "ilave", "zusätzlich", ...): the signal
is one the rule chain does not read.

**How it enters (written before any figure was computed).** Two pre-registered variants,
both only where the rule chain today answers IN_SCOPE from topic overlap alone (rule
``covered`` or ``partial`` and no obligation sentence *names* the ask, i.e. evidence kind
``topic``), and only when at least one :data:`CHANGE` cue matches the request:

* ``verdict``: the answer becomes CHANGE_REQUEST (rule ``change_clause``, evidence kind
  ``change``, unsure: "it asks to change ... of work a clause covers; a change within the
  general scope of a contract is a change order (FAR 52.243-1)"). Defect wording,
  named exclusions and routes, advice, administration, exclusion and future-work rules
  all come first and are untouched; a request an obligation names stays IN_SCOPE.
* ``kind``: no verdict changes; those answers get the evidence kind ``topic_change``
  (unsure), so leave-one-engagement-out calibration gives them their own confidence.

Keep rule: docs/EVAL.md, "Changes-clause wording as a change-request signal", written
before this probe was first run. Run from the repository root::

    ETKI_REALDATA_DIR=../shared/realdata .venv/bin/python docs/probes/change_clause.py \
        verdict eval triage --all-realdata --loeo --brief
    ... change_clause.py kind eval triage --all-realdata --loeo --brief
    ... change_clause.py verdict eval triage --all-realdata --pairs tests/data/translation_pairs.jsonl

(``none`` as the variant runs the engine unpatched.) Result: neither variant kept (the
signal fires on one request of 125, wrongly); figures in docs/EVAL.md. The arguments after the variant are
those of the ``etki`` command; the probe patches the engine in this process only.
"""

from __future__ import annotations

import sys
from typing import Any

import etki.triage.engine as engine_module
import etki.triage.sureness as sureness_module
from etki.triage.classify import Classification, Features
from etki.triage.cue_match import cue_list
from etki.triage.engine import TriageEngine
from etki.triage.sureness import Sureness

CHANGE = cue_list(
    "change_clause",
    strong=[
        # (1) the specification / description of an existing deliverable:
        # FAR 52.243-1(a)(1) "drawings, designs, or specifications", Alt. I (a)(1)
        # "description of services"; FAR 43.103 "modification"; BGB 650b "Änderung des
        # vereinbarten Werkerfolgs"; VOB/B 1(3) "Änderungen"; TR "değişiklik"
        # (sözleşme değişikliği, public-contract usage)
        "change the",
        "change our",
        "change its",
        "change this",
        "change these",
        "change to",
        "change from",
        "be changed",
        "changed to",
        "changes to",
        "modify",
        "modifying",
        "modification*",
        "alter",
        "altering",
        "revise",
        "redesign*",
        "instead of",
        "rather than",
        "replace",
        "replacing",
        "replacement",
        "switch to",
        "switch from",
        "degistir*",
        "degisiklik*",
        "yerine !getir*",
        "revize",
        "andern",
        "anderung*",
        "abander*",
        "geandert",
        "statt",
        "anstatt",
        "stattdessen",
        "ersetz*",
        "umstell*",
        "uberarbeit*",
        # (2) method of shipment, packing, delivery: FAR 52.243-1(a)(2), Alt. II (a)(5)
        "delivery method",
        "delivery format",
        "shipping method",
        "teslim sekli",
        "lieferart",
        "lieferformat",
        "versandart",
        # (3) place of inspection, delivery, acceptance, performance: FAR 52.243-1(a)(3),
        # Alt. I (a)(3) "place of performance"
        "relocat*",
        "move to",
        "moved to",
        "move it to",
        "different location",
        "another location",
        "place of delivery",
        "place of performance",
        "on site",
        "onsite",
        "on premise*",
        "teslim yeri",
        "tasin*",
        "baska bir yer*",
        "yerinde",
        "lieferort",
        "erfullungsort",
        "vor ort",
        "verleg*",
        "umzug",
        # (4) time of performance: FAR 52.243-1 Alt. I (a)(2) "hours of the day, days
        # of the week", (b) "the time required for performance", "delivery schedule";
        # FAR 43.104 constructive change by acceleration; TR "süre uzatımı"
        "earlier",
        "sooner",
        "accelerat*",
        "expedit*",
        "ahead of schedule",
        "reschedul*",
        "postpone*",
        "deadline",
        "delivery date",
        "weekend*",
        "after hours",
        "outside business hours",
        "outside office hours",
        "overnight",
        "24 7",
        "round the clock",
        "daha erken",
        "erken teslim",
        "hafta sonu*",
        "mesai disi*",
        "mesai saatleri disinda",
        "sure uzatim*",
        "ertele*",
        "one cek*",
        "fruher",
        "vorzieh*",
        "vorverleg*",
        "beschleunig*",
        "verschieb*",
        "wochenende*",
        "ausserhalb der geschaftszeiten",
        "rund um die uhr",
        "fristverlanger*",
        # (5) quantity: FAR 52.243-1(b) "increase or decrease"; 4735 Art. 24 "iş
        # artışı"; 2014/24/EU Art. 72(4)(c) "extends the scope ... considerably"
        # ("Ausweitung"); German "Erhöhung", "Erweiterung"
        "increase*",
        "extra",
        "expand*",
        "extend*",
        "double the",
        "twice as many",
        "artir*",
        "artis*",
        "daha fazla",
        "genislet*",
        "uzat*",
        "erhoh*",
        "erweiter*",
        "verlanger*",
        "ausweit*",
        "aufstock*",
        # (6) an additional deliverable: 2014/24/EU Art. 72(1)(b) "additional works,
        # services or supplies"; VOB/B 1(4) "nicht vereinbarte Leistungen" (the words
        # "additional", "ilave", "zusätzlich" are already NEW_CAPABILITY cues, left out)
        "also deliver",
        "also provide",
        "in addition to",
        "on top of",
        "ek olarak",
        "ayrica",
        "ausserdem",
        "erganzend",
        "daruber hinaus",
    ],
)
"""Changes-clause wording (see the module docstring for the sources, one group per
heading of FAR 52.243-1 and its Alternates). One cue is enough: the rule reads it only
where a clause's topic already matched, i.e. where the request is about work the
contract covers."""

VARIANT = ["none"]
_WORDS: list[Any] = [None]


def change_hits(request: Any) -> list[Any]:
    """The :data:`CHANGE` cues the request's words match."""
    return list(CHANGE.hits(request.words, request.written))


def _patch(variant: str) -> None:
    VARIANT[0] = variant
    if variant == "none":
        return
    original_detect = TriageEngine._defect_detection
    original_classify = engine_module.classify
    original_assess = engine_module.assess_sureness

    def detect(self: TriageEngine, request: Any, evidence: Any) -> Any:
        _WORDS[0] = change_hits(request)
        return original_detect(self, request, evidence)

    def classify(f: Features, t: Any = engine_module.DEFAULT_THRESHOLDS) -> Classification:
        c = original_classify(f, t)
        if (
            VARIANT[0] == "verdict"
            and c.rule in ("covered", "partial")
            and not f.incl_named
            and _WORDS[0]
        ):
            return Classification("CHANGE_REQUEST", c.confidence, "change_clause")
        return c

    def assess(rule: str, **kw: Any) -> Sureness:
        if rule == "change_clause":
            words = ", ".join(sorted({c.text for c, _ in _WORDS[0]}))
            doubt = (
                f"it asks to change work a clause covers ({words}); a change within "
                "the general scope of a contract is a change order (FAR 52.243-1), "
                "but no sentence names what it asks for"
            )
            return Sureness("change", False, sureness_module.KIND_CONFIDENCE["topic"], (doubt,))
        s = original_assess(rule, **kw)
        if (
            VARIANT[0] == "kind"
            and s.kind == "topic"
            and rule in ("covered", "partial")
            and _WORDS[0]
        ):
            return Sureness("topic_change", False, s.confidence, s.doubts)
        return s

    TriageEngine._defect_detection = detect  # type: ignore[method-assign]
    engine_module.classify = classify
    engine_module.assess_sureness = assess
    engine_module._RULE_GROUP["change_clause"] = "obligation"


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in ("none", "verdict", "kind"):
        raise SystemExit("usage: change_clause.py none|verdict|kind ETKI-ARGS...")
    _patch(sys.argv[1])
    from etki.cli import main as etki_main

    sys.argv = ["etki", *sys.argv[2:]]
    etki_main()


if __name__ == "__main__":
    main()
