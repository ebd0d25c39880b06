"""Queue filters and sort orders: pure functions over cases, no Textual, no clock (the
moment ``now`` is passed in, so tests freeze it).

A :class:`QueueFilter` is one immutable value; the queue pane keeps the current one and
shows :meth:`QueueFilter.describe` in its filter line, so the filter state is never
hidden.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import cached_property
from typing import Any, TypeVar

from etki.domain import CaseRecord, CaseSummary, ClauseMemory, is_sure, waited_words
from etki.memory import current_risk
from etki.picks import module_matches
from etki.reports import LOOK_HOURS, age_start
from etki.text import fold, names_person, spellings, words
from etki_tui.glyphs import WARN

QueueCase = CaseRecord | CaseSummary
"""A case as the queue holds it: the full record, or the light row read for the list
(:class:`etki.domain.CaseSummary`); both carry everything the filters and sorts read."""

VERDICTS: tuple[str | None, ...] = (None, "IN_SCOPE", "CHANGE_REQUEST", "REJECT")
RISKS: tuple[str | None, ...] = (None, "high", "medium", "low", "24h", "overdue")
"""Risk filters; ``overdue``: a pending case whose 24h PMO look is overdue (:func:`look_overdue`)."""
BANDS: dict[str, tuple[float, float]] = {
    "low": (0.0, 0.60),
    "medium": (0.60, 0.80),
    "high": (0.80, 1.01),
}
"""Confidence bands: [low, high) per band name."""
BAND_LABEL: dict[str, str] = {
    "low": "conf < 0.60",
    "medium": "conf 0.60–0.79",
    "high": "conf ≥ 0.80",
}
AGES: dict[str, int] = {"1d": 1, "7d": 7, "30d": 30}
"""Age filters: older than N days."""
AGE_LABEL: dict[str, str] = {"1d": "> 1 day old", "7d": "> 7 days old", "30d": "> 30 days old"}
SURENESS: tuple[str | None, ...] = (None, "sure", "unsure")
"""Sureness filters: every case, the cases the engine is sure of, the ones it is not
(a decision of an engine before 3.0.0 did not say: not sure)."""
SURENESS_LABEL: dict[str, str] = {"sure": "engine sure", "unsure": "needs a careful look"}
SORTS: dict[str, str] = {
    "queue": "queue order",
    "oldest": "oldest first",
    "newest": "newest first",
    "confidence": "lowest confidence first",
    "risk": "highest risk first",
    "unsure": "needs a careful look first",
    "sure": "engine sure first",
}
SORT_SHORT: dict[str, str] = {
    "queue": "queue order",
    "oldest": "oldest",
    "newest": "newest",
    "confidence": "lowest conf",
    "risk": "highest risk",
    "unsure": "unsure first",
    "sure": "sure first",
}
RISK_LABEL: dict[str, str] = {
    "high": "risk high",
    "medium": "risk medium",
    "low": "risk low",
    "24h": "24h PMO look",
    "overdue": "24h look overdue",
}
_RISK_RANK = {"high": 0, "medium": 1, "low": 2}


def cycle(value: object, choices: Sequence[object]) -> object:
    """The choice after ``value`` in ``choices`` (wrapping; unknown -> the first)."""
    try:
        return choices[(list(choices).index(value) + 1) % len(choices)]
    except ValueError:
        return choices[0]


def moment(case: QueueCase) -> datetime | None:
    """When the request was submitted (``submitted_at``, else ``created_at``), UTC."""
    for raw in (case.submitted_at, case.created_at):
        if not raw:
            continue
        text = raw.strip().replace("Z", "+00:00")
        try:
            when = datetime.fromisoformat(text)
        except ValueError:
            continue
        return when if when.tzinfo else when.replace(tzinfo=UTC)
    return None


def age_days(case: QueueCase, now: datetime) -> float | None:
    """Age of the request in days at ``now`` (None when it has no usable date)."""
    when = moment(case)
    return None if when is None else (now - when).total_seconds() / 86400


def age_label(days: float | None) -> str:
    """``3d``, ``5h``, ``just now`` (or ``""`` without a date)."""
    if days is None:
        return ""
    if days >= 1:
        return f"{int(days)}d"
    hours = int(days * 24)
    return f"{hours}h" if hours >= 1 else "just now"


def look_overdue(case: QueueCase, now: datetime) -> bool:
    """Whether ``case`` is pending and has waited more than :data:`etki.reports.LOOK_HOURS`
    at ``now``, measured as Raporlar's overdue looks are (:func:`etki.reports.age_start`:
    ``submitted_at``, else ``created_at``); whether its risk asks for the look is the
    caller's to check (the risk the queue shows)."""
    if case.ruling is not None:
        return False
    start, _basis = age_start(case)  # type: ignore[arg-type]
    return start is not None and (now - start).total_seconds() / 3600 > LOOK_HOURS


def overdue_wait(case: QueueCase, now: datetime) -> str | None:
    """How long a case whose look is overdue (:func:`look_overdue`) has waited at
    ``now``, in days and hours past a day (:func:`etki.domain.waited_words`: ``2d 5h``),
    else None. Whether its risk asks for the look is the caller's to check."""
    if not look_overdue(case, now):
        return None
    start, _basis = age_start(case)  # type: ignore[arg-type]
    assert start is not None  # look_overdue measured it
    return waited_words((now - start).total_seconds() / 3600)


def is_disputed(case: QueueCase, memory: Mapping[str, ClauseMemory]) -> bool:
    """The case cites a clause whose past rulings disagree (computed from the DB), or the
    engine raised the disputed-clause risk signal when it decided."""
    if "disputed_clause" in case.decision.risk.signals:
        return True
    return any(
        m.disputed for ref in case.decision.cited_clauses if (m := memory.get(ref)) is not None
    )


_CLAUSE_TOKEN = re.compile(
    r"(?:(?P<doc>[^\s#]*)#(?P<whole>\d+(?:\.\d+)*)"
    r"|§?(?P<number>\d+(?:\.\d+)+))\.?"
)
"""A find token that names a clause: dotted numbers (``4.4``, ``3.1.2``, ``§4.4``,
``4.4.``), or any clause number after ``#`` with or without a contract id before it
(``MSA-2024-01#4.4``, ``talentmap-pws#4``, ``#4``): a contract whose sections are whole
numbers is searched by ``#4``, since a bare ``4`` stays a word."""


def clause_token(token: str) -> tuple[str | None, str] | None:
    """``(contract id or None, clause number)`` when the white-space separated find
    token ``token`` names a clause (:data:`_CLAUSE_TOKEN`, the contract id folded), else
    None. ``4`` alone is not a clause token (it is a word, matched as before); ``#4`` is."""
    found = _CLAUSE_TOKEN.fullmatch(token.strip("()[],;:"))
    if found is None:
        return None
    doc = found.group("doc")
    return (fold(doc) if doc else None), found.group("whole") or found.group("number")


def cites_clause(case: QueueCase, doc: str | None, number: str) -> bool:
    """Whether ``case`` cites clause ``number`` or one of its sub-clauses (``4.4``
    matches ``…#4.4`` and ``…#4.4.1``, never ``…#4.40`` or ``…#14.4``), in contract
    ``doc`` (folded) when given, in any contract otherwise."""
    for ref in case.decision.cited_clauses:
        contract, _, cited = ref.rpartition("#")
        if doc is not None and fold(contract) != doc:
            continue
        if cited == number or cited.startswith(number + "."):
            return True
    return False


PICK_PREFIXES: dict[str, str] = {"module:": "module", "by:": "submitter", "look:": "look"}
"""Find tokens that pick by a field (issue 35 item 5): ``module:auth`` keeps the cases
whose decision names module ``auth`` or one below it (:func:`etki.picks.module_matches`),
``by:ayse`` the cases Ayşe submitted (:func:`etki.text.names_person`: each word typed
begins a word of the submitter's name, folded); ``look:overdue`` (or ``look:late``) the
cases whose 24h PMO look is overdue, ``look:24h`` (any other value) every case whose risk
asks for the look (issue 35 item 3: the risk filter's ``24h`` and ``overdue``, typed)."""


LOOK_OVERDUE_WORDS = frozenset({"overdue", "late"})
"""``look:`` values that keep only the overdue looks (folded)."""


def pick_token(token: str) -> tuple[str, str] | None:
    """``(field, value)`` when ``token`` is ``module:X``, ``by:X`` or ``look:X`` with a
    value (:data:`PICK_PREFIXES`; the prefix in any case), else None."""
    low = token.lower()
    for prefix, field in PICK_PREFIXES.items():
        if low.startswith(prefix) and token[len(prefix) :].strip():
            return field, token[len(prefix) :].strip()
    return None


def _haystack(case: QueueCase) -> str:
    refs = " ".join(case.decision.cited_clauses)
    numbers = " ".join(r.split("#", 1)[-1] for r in case.decision.cited_clauses)
    return fold(
        " ".join((case.case_id, case.title, case.submitted_by or "", case.text, refs, numbers))
    )


@dataclass(frozen=True)
class QueueFilter:
    """What the queue shows and in which order. ``text``: split at white space; a token
    that names a clause (:func:`clause_token`: ``4.4``, ``MSA#4.4``) keeps the cases
    citing that clause or a sub-clause of it (:func:`cites_clause`); a ``module:X`` or
    ``by:NAME`` token picks by impacted module or submitter (:func:`pick_token`); every
    folded word of the other tokens must occur in the case id, title, submitter, text or
    cited clause refs/numbers."""

    verdict: str | None = None
    risk: str | None = None
    disputed_only: bool = False
    band: str | None = None
    age: str | None = None
    text: str = ""
    sort: str = "queue"
    sureness: str | None = None
    """``sure``: only the cases the engine is sure of; ``unsure``: only the others."""
    mine: bool = False
    """Only the reviewer's own cases (claimed by or assigned to them): those in
    :attr:`mine_ids`, which the desk reads and sets (:meth:`etki.services.Desk.mine`)."""
    mine_ids: frozenset[str] = frozenset()

    @property
    def active(self) -> bool:
        """Whether anything is filtered out (the sort order does not count)."""
        return bool(
            self.verdict
            or self.risk
            or self.disputed_only
            or self.band
            or self.age
            or self.sureness
            or self.mine
            or words(self.text)
        )

    @cached_property
    def _find(self) -> tuple[tuple[tuple[str | None, str], ...], tuple[str, ...]]:
        """``text`` parsed once: (clause tokens, the folded words of the others; the
        pick tokens are in :attr:`_picks`)."""
        clauses: list[tuple[str | None, str]] = []
        plain: list[str] = []
        for token in self.text.split():
            if pick_token(token) is not None:
                continue
            clause = clause_token(token)
            if clause is not None:
                clauses.append(clause)
            else:
                plain.extend(words(token))
        return tuple(clauses), tuple(plain)

    @cached_property
    def _picks(self) -> tuple[tuple[str, str], ...]:
        """The ``module:``, ``by:`` and ``look:`` tokens of ``text`` (:func:`pick_token`)."""
        return tuple(p for t in self.text.split() if (p := pick_token(t)) is not None)

    def cleared(self) -> QueueFilter:
        """No filters, same sort."""
        return QueueFilter(sort=self.sort)

    def with_(self, **changes: Any) -> QueueFilter:
        """A copy with ``changes`` (field name -> value)."""
        return replace(self, **changes)

    def matches(
        self,
        case: QueueCase,
        memory: Mapping[str, ClauseMemory],
        now: datetime,
        *,
        escalate: bool = False,
    ) -> bool:
        """Whether ``case`` passes every filter. The risk filter reads the risk the
        queue shows: with ``escalate`` the :func:`current_risk` (a clause disputed
        since the triage raises it), else the stored one."""
        d = case.decision
        if self.verdict and d.verdict != self.verdict:
            return False
        if self.risk:
            risk, _ = current_risk(d, memory, escalate)
            if self.risk == "24h":
                if not risk.pmo_look_24h:
                    return False
            elif self.risk == "overdue":
                if not (risk.pmo_look_24h and look_overdue(case, now)):
                    return False
            elif risk.level != self.risk:
                return False
        if self.disputed_only and not is_disputed(case, memory):
            return False
        if self.band:
            low, high = BANDS[self.band]
            if not low <= d.confidence < high:
                return False
        if self.age:
            days = age_days(case, now)
            if days is None or days < AGES[self.age]:
                return False
        if self.sureness and is_sure(d) != (self.sureness == "sure"):
            return False
        if self.mine and case.case_id not in self.mine_ids:
            return False
        for field, value in self._picks:
            if field == "module":
                if not any(module_matches(value, m) for m in d.impacted_modules):
                    return False
            elif field == "look":
                risk, _ = current_risk(d, memory, escalate)
                if not risk.pmo_look_24h:
                    return False
                if fold(value) in LOOK_OVERDUE_WORDS and not look_overdue(case, now):
                    return False
            elif not names_person(value, case.submitted_by or ""):
                return False
        clauses, plain = self._find
        if not all(cites_clause(case, doc, number) for doc, number in clauses):
            return False
        if plain:
            hay = _haystack(case)
            if not all(any(s in hay for s in spellings(t)) for t in plain):
                return False  # a typed "oe" also stands for "ö" (etki.text.spellings)
        return True

    def describe(self) -> list[str]:
        """The active filters as short phrases, in a fixed order."""
        parts: list[str] = []
        if self.mine:
            parts.append("mine")
        if self.verdict:
            parts.append(self.verdict)
        if self.risk:
            parts.append(RISK_LABEL[self.risk])
        if self.disputed_only:
            parts.append(f"{WARN} disputed")
        if self.band:
            parts.append(BAND_LABEL[self.band])
        if self.age:
            parts.append(AGE_LABEL[self.age])
        if self.sureness:
            parts.append(SURENESS_LABEL[self.sureness])
        if words(self.text):
            parts.append(f"“{self.text.strip()}”")
        return parts


C = TypeVar("C", bound=QueueCase)


def order(
    cases: Iterable[C],
    sort: str,
    now: datetime,
    *,
    memory: Mapping[str, ClauseMemory] | None = None,
    escalate: bool = False,
) -> list[C]:
    """``cases`` (given in queue order) in ``sort`` order; ties keep queue order. The
    risk order reads the risk the queue shows (:func:`current_risk` with ``memory``
    and ``escalate``)."""
    indexed = list(enumerate(cases))
    far = datetime.max.replace(tzinfo=UTC)
    if sort == "oldest":
        indexed.sort(key=lambda p: (moment(p[1]) or far, p[0]))
    elif sort == "newest":
        indexed.sort(key=lambda p: (-(moment(p[1]) or far.replace(year=1)).timestamp(), p[0]))
    elif sort == "confidence":
        indexed.sort(key=lambda p: (p[1].decision.confidence, p[0]))
    elif sort == "risk":

        def by_risk(p: tuple[int, C]) -> tuple[int, bool, int]:
            risk, _ = current_risk(p[1].decision, memory, escalate)
            return (_RISK_RANK.get(risk.level, 3), not risk.pmo_look_24h, p[0])

        indexed.sort(key=by_risk)
    elif sort in ("unsure", "sure"):  # a stable sort: queue order within each group
        first = sort == "sure"
        indexed.sort(key=lambda p: (is_sure(p[1].decision) != first, p[0]))
    return [c for _, c in indexed]
