"""Evaluation-of-offers wording (one job: tell the part of a solicitation that says how the
buyer will choose among offers from the work the contract asks for).

A request for quotations or proposals often carries, beside the work, the instructions
for preparing offers and the factors the buyer will score them on. Such a section binds
offerors before award, not the contractor's work after it: a reviewer asking what the
contract makes the contractor do is not answered by it, however many words it shares
with the question. :func:`etki.triage.contract.background_clauses` reads a clause under
such a title as background for retrieval, and the engine's clause roles
(:func:`etki.triage.contract.clause_roles`, engine 3.2.3) read such a title as
``admin``: a section titled only "Instructions to Offerors" gives no scope sentence
that could decide IN_SCOPE.

The wording is the general procurement vocabulary of section and article titles, not
any contract's own (each phrase folded, ``*`` a suffix wildcard):

* US federal: FAR 15.204-1 (uniform contract format) Section L "Instructions,
  conditions, and notices to offerors or respondents" and Section M "Evaluation factors
  for award"; FAR 52.212-1 and 52.215-1 "Instructions to Offerors"; FAR 14.201-6
  "notices to bidders"; FAR 15.304 "Evaluation factors and significant subfactors";
  FAR 15.305 "Proposal evaluation"; FAR 13.106-2 "Evaluation of quotations or offers";
  FAR 15.3 "Source selection".
* EU: Directive 2014/24/EU, Art. 67 "Contract award criteria" (German text
  "Zuschlagskriterien"), Art. 58 "Selection criteria" (German "Eignungskriterien"),
  "tenders"/"tenderers" throughout; German VOB/A "Wertung der Angebote".
* Turkish public procurement law 4734: Art. 37 "Tekliflerin değerlendirilmesi"
  (evaluation of tenders), Art. 10 "İhaleye katılımda yeterlik kuralları"
  (qualification rules for taking part in a tender).

Bare "evaluation" is not a cue (a contract may ask the contractor to evaluate usability
or performance), nor is "selection criteria" (a delivered search screen has them).
"""

from __future__ import annotations

from etki.triage.cue_match import cue_list

__all__ = ["OFFERS_TITLE", "OFFER_WORDS"]

OFFER_WORDS: tuple[str, ...] = (
    "offer",
    "offers",
    "offeror",
    "offerors",
    "quote",
    "quotes",
    "quotation",
    "quotations",
    "proposal",
    "proposals",
    "bid",
    "bids",
    "bidder",
    "bidders",
    "tender",
    "tenders",
    "tenderer",
    "tenderers",
    "respondent",
    "respondents",
)
"""The words for an offer and its maker: FAR 2.101 ("offer" a response to a
solicitation; responses to requests for quotations are "quotations" or, FAR 8.405,
"quotes"; sealed bidding's "bids", negotiation's "proposals"; Section L's
"respondents") and 2014/24/EU's "tenders"/"tenderers". Whole words only: "bidding" is
also what a delivered system may do (a posting-bid system)."""

OFFERS_TITLE = cue_list(
    "offers_title",
    strong=[
        *(f"instructions {p} {w}" for p in ("to", "for") for w in OFFER_WORDS),
        *(f"notices to {w}" for w in OFFER_WORDS),
        *(f"evaluation of {w}" for w in OFFER_WORDS),
        *(f"{w} evaluation" for w in OFFER_WORDS),
        "evaluation factor*",
        "factors for award",
        "basis for award",
        "source selection",
        "award criteria",
        "zuschlagskriterien",
        "eignungskriterien",
        "wertung der angebote",
        "angebotswertung",
        "tekliflerin degerlendiril*",
        "ihaleye katilim*",
    ],
)
"""Clause-title wording of instructions to offerors and of the evaluation of offers:
"instructions to/for", "notices to" and "evaluation of" an :data:`OFFER_WORDS` word (FAR
Section L and M titles, FAR 13.106-2, 15.305), and the named phrases (module docstring
for each source)."""
