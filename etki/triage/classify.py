"""Verdict and confidence (one job: turn measured features into a ruling proposal).

The rules follow how fixed-scope contracts are read (and the rulebook of
``shared/realdata/README.md``): a defect in delivered functionality is in scope; work
the contract takes out of scope, gives to the client, or that concerns contract
administration is outside the remit; what a clause already asks for is in scope; a new
capability no clause covers is a change request. They are tried in this order and the
first that holds decides:

1. ``defect``: bug-report wording (one strong cue, or weak cues worth
   :data:`WEAK_DEFECT` together) -> IN_SCOPE; confident when the contract or the system
   covers the area (an obligation or a module matched), low confidence otherwise;
2. ``named_exclusion``: an exclusion, client-duty or "not responsible for" sentence
   *names* what the request asks for and no obligation sentence does -> REJECT;
   ``named_route``: a sentence that routes work to a change request or to later
   phases names it and no obligation does -> CHANGE_REQUEST (naming:
   :mod:`etki.triage.sureness`; the contract's own plain words decide, whatever the
   BM25 ratios below say);
3. ``advice``: the request asks for a policy or strategy decision
   (:data:`etki.triage.cues.ADVICE_THRESHOLD` distinct cues) -> REJECT;
4. ``administration``: the request is about the engagement itself (the contractor's
   people, the contract's money, procurement: :data:`etki.triage.cues.ADMIN_REQUEST`)
   and an administrative clause matches it about as well as any obligation
   (:data:`ADMIN_RATIO`) -> REJECT. Administrative sections never win without such
   wording: an RFQ's hundreds of procurement sentences share many technical words;
5. ``exclusion``: the exclusion/client-duty texts of the contract match the request
   clearly better than any obligation (:data:`AGAINST_RATIO`) *and* one such sentence
   covers at least as much of the request as the best obligation sentence -> REJECT
   (both, so that one shared topic word in a duty sentence cannot decide);
6. ``future_work``: future-work text (possible later work, or work the contract routes
   to a change request) matches at least as well as any obligation
   (:data:`FUTURE_RATIO`), or one such sentence covers more of the request than any
   obligation sentence -> CHANGE_REQUEST;
7. ``covered``: one obligation sentence covers a good share of the request
   (:data:`COVERED`) and more of it than any exclusion sentence -> IN_SCOPE;
8. ``new_capability``: the request asks for something new ("add", "new", "yeni",
   "neu") and no sentence covers it -> CHANGE_REQUEST;
9. ``partial``: some obligation matches (:data:`MIN_COVERAGE`) -> IN_SCOPE, low
   confidence; otherwise ``uncovered`` -> CHANGE_REQUEST.

After the chain, ``remit_category`` (:mod:`etki.triage.remit_category`, engine 3.3.0)
replaces a verdict of rules 7-9 by REJECT when the request names a category of
non-delivery work (equipment, third-party charges, staff on site, paper records, hosting,
legal representation) that the contract's exclusion or client-duty sentences hold and
none of its obligations does.

Exclusions weigh against IN_SCOPE in rules 2, 5 and 7: a request matching exclusion or
client-duty text at least as well as obligation text is never ``covered``.
The confidence :func:`classify` gives is rule-specific, between :data:`FLOOR` and
:data:`CEILING`, and grows with the margin of the deciding evidence; the engine replaces
it by the confidence of the decision's evidence kind (:mod:`etki.triage.sureness`),
which was measured, where this one was only stated.

Where the numbers come from: coverage values are shares of the request's IDF mass
(0..1) and ratios compare BM25 scores of the same request, so the thresholds are
scale-free. Each was set from what its rule has to express ("clearly better" = a
quarter more, "about as well" = three quarters, "covers" = a quarter of the request's
information, "nothing covers" = under a twelfth, two weak cues = one strong), not
chosen by scoring labelled requests. ``etki eval triage --loeo`` shows what choosing
them from labelled data would give, leave-one-engagement-out (docs/EVAL.md). No
request, project or clause is named anywhere in the rules.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from etki.domain import Verdict
from etki.triage.cues import ADVICE_THRESHOLD

WEAK_DEFECT = 1.0
"""Weak defect cues (0.5 each: "error", "missing", "still") needed without a strong
one: two of them, since a weak cue counts half a strong one
(:data:`etki.triage.cues.DEFECT_THRESHOLD`)."""

ADMIN_RATIO = 0.75
"""Rule 3: best administrative match >= this x best obligation match, when the request
has team/contract wording ("team member", "invoice", "key personnel")."""


AGAINST_RATIO = 1.25
"""Rule 4: best exclusion/client match >= this x best obligation match. A quarter
more: an exclusion must be the clearly better reading, since clauses often mix
obligations and exclusions on one subject."""

FUTURE_RATIO = 1.0
"""Rule 5: best future-work match >= this x best obligation match."""

COVERED = 0.25
"""Rule 6: one obligation sentence holds this share of the request's IDF mass."""

MIN_COVERAGE = 0.08
"""Rule 8: below this share of the request's IDF mass in the best obligation sentence,
nothing in the contract covers the request."""

FLOOR, CEILING = 0.35, 0.95
"""Confidence bounds: the engine never claims certainty, and never proposes a verdict
it gives less than about one chance in three."""


@dataclass(frozen=True)
class Thresholds:
    """The numeric settings of the rules, one object so an evaluation can vary them.

    The defaults are the module constants above (each says where it comes from); an
    evaluation that picks other values from labelled data must report them
    leave-one-engagement-out (``etki eval triage --loeo``). Raises ``ValueError`` for a
    setting that is not positive, or ``min_coverage`` above ``covered`` (rule 8 lies
    between them; its confidence divides by their difference)."""

    weak_defect: float = WEAK_DEFECT
    admin_ratio: float = ADMIN_RATIO
    against_ratio: float = AGAINST_RATIO
    future_ratio: float = FUTURE_RATIO
    covered: float = COVERED
    min_coverage: float = MIN_COVERAGE

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not value > 0:
                raise ValueError(f"Thresholds.{f.name} must be > 0, not {value!r}")
        if self.min_coverage > self.covered:
            raise ValueError(
                f"Thresholds.min_coverage ({self.min_coverage:g}) must not "
                f"exceed covered ({self.covered:g})"
            )

    def label(self) -> str:
        """``name=value`` of every field that differs from the default, or ``default``."""
        base = Thresholds()
        diff = [
            f"{f.name}={getattr(self, f.name):g}"
            for f in fields(self)
            if getattr(self, f.name) != getattr(base, f.name)
        ]
        return ", ".join(diff) or "default"


DEFAULT_THRESHOLDS = Thresholds()


@dataclass(frozen=True)
class Features:
    """What the engine measured for one request (all floats rounded by the engine).

    ``defect_strong``/``defect_weak``: summed weights of strong/weak defect cues;
    ``advice``: summed advice cues; ``admin_request``/``new_capability``: cue counts;
    ``incl``/``against``/``future``/``admin``: best BM25 of the obligation, exclusion or
    client-duty, future-work and administrative texts of the contract; ``incl_cov``:
    share of the request's IDF mass in its best obligation sentence, in [0, 1];
    ``against_cov``/``future_cov``: the same for the best exclusion-or-client-duty and
    future-work sentences; ``modules``: number of impacted modules found; ``foreign``:
    the request is in a language none of the clauses is written in; ``tokens``: number
    of distinct scoring tokens of the request (0 = nothing to match);
    ``incl_named``/``against_named``/``future_named``: a sentence of that group names
    the request's ask (:data:`etki.triage.sureness.NAMED_SHARE`)."""

    defect_strong: float = 0.0
    defect_weak: float = 0.0
    advice: float = 0.0
    admin_request: int = 0
    new_capability: int = 0
    incl: float = 0.0
    against: float = 0.0
    future: float = 0.0
    admin: float = 0.0
    incl_cov: float = 0.0
    against_cov: float = 0.0
    future_cov: float = 0.0
    modules: int = 0
    foreign: bool = False
    tokens: int = 1
    incl_named: bool = False
    against_named: bool = False
    future_named: bool = False


@dataclass(frozen=True)
class Classification:
    """``verdict``, ``confidence`` (rounded to 4 decimals, in [FLOOR, CEILING]) and the
    ``rule`` that decided (one of :data:`RULES`)."""

    verdict: Verdict
    confidence: float
    rule: str


RULES: tuple[str, ...] = (
    "defect",
    "named_exclusion",
    "named_route",
    "advice",
    "administration",
    "exclusion",
    "future_work",
    "covered",
    "new_capability",
    "partial",
    "uncovered",
    "remit_category",
)


def _conf(base: float, strength: float, spread: float) -> float:
    strength = min(1.0, max(0.0, strength))
    return round(min(CEILING, max(FLOOR, base + spread * strength)), 4)


def _ratio(a: float, b: float) -> float:
    return a / b if b > 0 else (10.0 if a > 0 else 0.0)


def is_defect(f: Features, t: Thresholds = DEFAULT_THRESHOLDS) -> bool:
    """Defect wording: a strong cue, or weak cues worth ``t.weak_defect``
    (:data:`WEAK_DEFECT`)."""
    return f.defect_strong >= 1.0 or f.defect_weak >= t.weak_defect


def classify(f: Features, t: Thresholds = DEFAULT_THRESHOLDS) -> Classification:
    """Apply the rules of the module docstring in order. Pure and deterministic.

    Confidence per rule (``strength`` clipped to [0, 1]):
    defect 0.6 + 0.3 x (cue weight / 3), or 0.45 when nothing in the contract or the
    system matched (the defect cannot be placed); advice 0.6 + 0.3 x (cues beyond the
    threshold / 2); named_exclusion and named_route 0.8; administration 0.55 + 0.3 x (admin/obligation ratio - 0.75);
    exclusion 0.5 + 0.4 x (ratio - 1) / 1.25; future_work 0.5 + 0.3 x (ratio - 1 or
    coverage margin x 4); covered 0.55 + 0.4 x (coverage - 0.25) / 0.35;
    new_capability 0.5 + 0.2 x (1 - coverage / 0.25); partial 0.4 + 0.15 x (coverage -
    0.08) / 0.17; uncovered 0.5 + 0.2 x (1 - coverage / 0.08). A request in a language
    no clause is written in caps confidence at 0.5: lexical matching cannot see it. A
    request with no scoring token at all is an uncovered CHANGE_REQUEST at :data:`FLOOR`."""
    if f.tokens == 0:
        return Classification("CHANGE_REQUEST", FLOOR, "uncovered")
    c = _classify(f, t)
    if f.foreign and c.confidence > 0.5:
        return Classification(c.verdict, 0.5, c.rule)
    return c


def _classify(f: Features, t: Thresholds) -> Classification:
    matched = f.incl_cov >= t.min_coverage or f.modules > 0
    against_ratio = _ratio(f.against, f.incl)
    if is_defect(f, t):
        if matched:
            return Classification(
                "IN_SCOPE", _conf(0.6, (f.defect_strong + f.defect_weak) / 3, 0.3), "defect"
            )
        return Classification("IN_SCOPE", 0.45, "defect")
    if f.against_named and not f.incl_named:
        return Classification("REJECT", 0.8, "named_exclusion")
    if f.future_named and not f.incl_named:
        return Classification("CHANGE_REQUEST", 0.8, "named_route")
    if f.advice >= ADVICE_THRESHOLD:
        return Classification(
            "REJECT", _conf(0.6, (f.advice - ADVICE_THRESHOLD) / 2, 0.3), "advice"
        )
    admin_ratio = _ratio(f.admin, f.incl)
    if f.admin_request > 0 and admin_ratio >= t.admin_ratio:
        return Classification(
            "REJECT", _conf(0.55, admin_ratio - t.admin_ratio, 0.3), "administration"
        )
    if f.against > 0 and against_ratio >= t.against_ratio and f.against_cov >= f.incl_cov:
        return Classification(
            "REJECT", _conf(0.5, (against_ratio - 1.0) / t.against_ratio, 0.4), "exclusion"
        )
    future_ratio = _ratio(f.future, f.incl)
    if f.future > 0 and future_ratio >= t.future_ratio:
        return Classification(
            "CHANGE_REQUEST", _conf(0.5, future_ratio - t.future_ratio, 0.3), "future_work"
        )
    if f.future_cov >= t.min_coverage and f.future_cov > f.incl_cov:
        return Classification(
            "CHANGE_REQUEST", _conf(0.5, (f.future_cov - f.incl_cov) * 4, 0.3), "future_work"
        )
    if f.incl_cov >= t.covered and f.against_cov < f.incl_cov and against_ratio < 1.0:
        return Classification(
            "IN_SCOPE", _conf(0.55, (f.incl_cov - t.covered) / 0.35, 0.4), "covered"
        )
    if f.new_capability > 0:
        return Classification(
            "CHANGE_REQUEST", _conf(0.5, 1 - f.incl_cov / t.covered, 0.2), "new_capability"
        )
    if f.incl_cov >= t.min_coverage:
        return Classification(
            "IN_SCOPE",
            _conf(0.4, (f.incl_cov - t.min_coverage) / (t.covered - t.min_coverage), 0.15),
            "partial",
        )
    return Classification(
        "CHANGE_REQUEST", _conf(0.5, 1 - f.incl_cov / t.min_coverage, 0.2), "uncovered"
    )
