"""The engine's frozen decision (part of :mod:`etki.domain`, re-exported there): the
verdict, effort range with the work items it rests on, risk, similar past rulings, the
evidence chain (:mod:`etki.domain.evidence`), the canonical JSON
(:meth:`Decision.to_json`), whether the engine is sure of it (:func:`is_sure`,
:func:`sureness_line`) and the light :class:`DecisionSummary` a queue row carries.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from etki.domain.evidence import (
    EvidenceStep,
)

if TYPE_CHECKING:  # an annotation only: a queue row needs no project part (issue 32)
    from etki.domain.project import WorkItem

Verdict = Literal["IN_SCOPE", "CHANGE_REQUEST", "REJECT"]


VERDICTS: tuple[str, ...] = ("IN_SCOPE", "CHANGE_REQUEST", "REJECT")


@dataclass(frozen=True)
class Effort:
    """Effort range in person-days from comparable work items; ``low``/``high`` are None
    (shown as "unknown") when no comparable work item carries effort. ``basis`` lists the
    work-item ids the range was computed from."""

    low: float | None
    high: float | None
    basis: tuple[str, ...] = ()
    unit: str = "person-days"

    @property
    def known(self) -> bool:
        return self.low is not None and self.high is not None

    def label(self) -> str:
        """``5–8 person-days``, ``13–13 person-days``, ``unknown``: the form the engine
        writes into the frozen evidence chain (so it stays as it is: stored decisions
        carry it). People read :meth:`shown`."""
        if not self.known:
            return "unknown"
        return f"{self.low:g}–{self.high:g} {self.unit}"

    def shown(self) -> str:
        """The range as people read it: ``5–8 person-days``, one figure when both ends
        are equal (``13 person-days``, ``1 person-day``: :func:`days_shown`), ``unknown``
        without an estimate (issue 12 item 7).
        The desk, the wiki pages and ``etki show`` print this."""
        if not self.known:
            return "unknown"
        if self.low == self.high:
            return days_shown(self.low, self.unit)  # type: ignore[arg-type]  # known
        return self.label()


def days_shown(days: float, unit: str = "person-days") -> str:
    """``days`` in ``unit`` as people read it: ``8 person-days``, ``1 person-day``
    (singular for exactly one; a ``unit`` not ending in ``s`` is kept as it is), never
    a trailing ``.0``. :meth:`Effort.shown` and the work items an effort rests on use
    it; the frozen :meth:`Effort.label` does not."""
    one = days == 1 and unit.endswith("s")
    return f"{days:g} {unit[:-1] if one else unit}"


@dataclass(frozen=True)
class BasisLine:
    """One work item an effort range rests on, as the desk and the wiki show it:
    ``WI-7 Card payments · 8 person-days · 2024-02-01``. ``title`` is None for an id the
    project no longer has (``days`` and ``date`` are then empty); ``days`` is
    ``"8 person-days"`` or ``"no effort recorded"``; ``date`` as stored (may be
    empty). Client text: the caller escapes it for its medium."""

    id: str
    title: str | None
    days: str = ""
    date: str = ""


def effort_basis_lines(effort: Effort, workitems: Mapping[str, WorkItem]) -> tuple[BasisLine, ...]:
    """The work items of ``effort.basis`` in basis order, looked up in ``workitems``
    (id -> :class:`WorkItem`, any mapping): the one reading of the basis that the
    detail pane (:func:`etki_tui.queue.detail.effort_basis`) and the change-request page
    (:mod:`etki.wiki.pages`) format, each for its medium."""
    out: list[BasisLine] = []
    for wid in effort.basis:
        item = workitems.get(wid)
        if item is None:
            out.append(BasisLine(wid, None))
            continue
        days = (
            "no effort recorded"
            if item.effort_days is None
            else days_shown(item.effort_days, effort.unit)
        )
        out.append(BasisLine(wid, item.title, days, item.date))
    return tuple(out)


@dataclass(frozen=True)
class Risk:
    """Risk layer output. ``level`` low | medium | high; ``signals`` are short codes
    (``security``, ``personal_data``, ``disputed_clause`` ...); ``pmo_look_24h`` asks for a
    PMO look within 24 hours. The risk layer never changes verdict, confidence or effort."""

    level: str = "low"
    signals: tuple[str, ...] = ()
    pmo_look_24h: bool = False


@dataclass(frozen=True)
class SimilarRuling:
    """A ruled case of the same project whose request reads like this one: its
    ``case_id``, the reviewer's ``ruling`` and the lexical ``similarity`` of the two
    requests in [0, 1], rounded to 4 decimals (:mod:`etki.triage.similar`). Beside the
    decision, never an input to it (DESIGN.md, "Triage engine")."""

    case_id: str
    ruling: Verdict
    similarity: float


def memory_sentence(
    similar: tuple[SimilarRuling, ...] | list[SimilarRuling], verdict: str | None
) -> str:
    """One line saying what the memory beside a decision holds, e.g. ``reviewers ruled
    3 similar requests as CHANGE_REQUEST`` (``, 1 otherwise`` when some disagree), or
    ``reviewers ruled 2 similar requests: 1 IN_SCOPE, 1 REJECT; no clear ruling``.
    Empty string when nothing is similar. Case ids are not part of it."""
    if not similar:
        return ""
    n = len(similar)
    noun = "request" if n == 1 else "requests"
    if verdict is not None:
        agree = sum(1 for s in similar if s.ruling == verdict)
        rest = f", {n - agree} otherwise" if agree < n else ""
        word = "request" if agree == 1 else "requests"
        return f"reviewers ruled {agree} similar {word} as {verdict}{rest}"
    counts = [(v, sum(1 for s in similar if s.ruling == v)) for v in VERDICTS]
    spread = ", ".join(f"{c} {v}" for v, c in counts if c)
    return f"reviewers ruled {n} similar {noun}: {spread}; no clear ruling"


@dataclass(frozen=True)
class Decision:
    """The engine's frozen output for one case (written once, never updated).

    ``similar_rulings`` and ``memory_verdict`` are memory *beside* the decision: the
    nearest ruled cases of the project when the decision was made and the ruling they
    support (or None), computed by :mod:`etki.triage.similar` after triage from the
    rulings stored at that moment. The engine never reads them: verdict and
    confidence are the same with or without them (the clause-memory rule). The desk
    shows them live (rulings come after intake), see :meth:`etki.services.Desk.beside`.
    """

    case_id: str
    verdict: Verdict
    confidence: float
    cited_clauses: tuple[str, ...]
    impacted_modules: tuple[str, ...]
    effort: Effort
    risk: Risk
    assumptions: tuple[str, ...]
    reasoning: str
    evidence: tuple[EvidenceStep, ...]
    engine_version: str
    model_version: str
    index_freshness: str
    extra: tuple[tuple[str, Any], ...] = field(default=())
    similar_rulings: tuple[SimilarRuling, ...] = ()
    memory_verdict: Verdict | None = None
    sure: bool = False
    """The engine is sure of the verdict: plain evidence decided it (engine >= 3.0.0,
    :mod:`etki.triage.sureness`). False for a decision of an earlier engine."""
    evidence_kind: str = ""
    """The kind of evidence that decided (:data:`etki.triage.sureness.KINDS`); empty
    for a decision of an engine before 3.0.0, which did not say."""
    doubts: tuple[str, ...] = ()
    """When not sure: why, in plain English (which evidence was missing or pulled the
    other way); empty when sure."""

    def to_dict(self) -> dict[str, Any]:
        """A plain JSON-ready dict (tuples become lists). Unlike :meth:`to_json` it
        always has ``similar_rulings`` (a list of ``{case_id, ruling, similarity}``),
        ``memory_verdict`` (a verdict or None), ``sure`` (False for an engine before
        3.0.0), ``evidence_kind`` and ``doubts``, so a reader sees one shape."""
        out = json.loads(self.to_json())
        out.setdefault("similar_rulings", [])
        out.setdefault("memory_verdict", None)
        out.setdefault("sure", False)
        out.setdefault("evidence_kind", "")
        out.setdefault("doubts", [])
        return out

    def to_json(self) -> str:
        """Canonical JSON: sorted keys, ``ensure_ascii=False``, compact separators.

        ``similar_rulings`` and ``memory_verdict`` are written only when there is
        memory beside the decision (non-empty / not None): a decision without any has
        the bytes it had before the two fields existed, so decisions stored earlier,
        the golden set and "same request, index and engine -> same bytes" all hold
        whatever the store's rulings are."""
        data = asdict(self)
        if not data["similar_rulings"]:
            del data["similar_rulings"]
        if data["memory_verdict"] is None:
            del data["memory_verdict"]
        if not data["evidence_kind"]:  # an engine before 3.0.0: its bytes as they were
            for key in ("sure", "evidence_kind", "doubts"):
                del data[key]
        return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, data: str | dict[str, Any]) -> Decision:
        """Inverse of :meth:`to_json` (also of :meth:`to_dict`). JSON stored before
        ``similar_rulings``/``memory_verdict`` existed loads with their defaults.
        Raises ``KeyError`` for a missing required member."""
        d = json.loads(data) if isinstance(data, str) else dict(data)
        return cls(
            case_id=d["case_id"],
            verdict=d["verdict"],
            confidence=d["confidence"],
            cited_clauses=tuple(d["cited_clauses"]),
            impacted_modules=tuple(d["impacted_modules"]),
            effort=Effort(
                d["effort"]["low"],
                d["effort"]["high"],
                tuple(d["effort"].get("basis", ())),
                d["effort"].get("unit", "person-days"),
            ),
            risk=Risk(d["risk"]["level"], tuple(d["risk"]["signals"]), d["risk"]["pmo_look_24h"]),
            assumptions=tuple(d["assumptions"]),
            reasoning=d["reasoning"],
            evidence=tuple(
                EvidenceStep(e["step"], e["detail"], tuple(tuple(s) for s in e["scores"]))
                for e in d["evidence"]
            ),
            engine_version=d["engine_version"],
            model_version=d["model_version"],
            index_freshness=d["index_freshness"],
            extra=tuple(tuple(x) for x in d.get("extra", ())),
            similar_rulings=tuple(
                SimilarRuling(str(x["case_id"]), x["ruling"], float(x["similarity"]))
                for x in d.get("similar_rulings") or ()
            ),
            memory_verdict=d.get("memory_verdict"),
            sure=bool(d.get("sure", False)),
            evidence_kind=str(d.get("evidence_kind") or ""),
            doubts=tuple(str(x) for x in d.get("doubts") or ()),
        )


SURENESS_STEP = "sureness"
"""The evidence step in which the engine (3.0.0 on) says whether it is sure:
``sure (KIND): why`` or ``needs a careful look (KIND): doubt; doubt``."""


UNSAID_DOUBT = "decided by an engine before 3.0.0, which did not say whether it was sure"
"""The doubt shown for a decision of an engine that did not say (``evidence_kind`` empty):
such a decision is never taken as sure."""


def is_sure(decision: Decision | DecisionSummary) -> bool:
    """Whether the engine is sure of ``decision``'s verdict. A decision of an engine
    before 3.0.0 (no ``evidence_kind``) never is; a light row carries ``sure`` as read
    from the stored JSON, which holds it only for engines that said."""
    if isinstance(decision, DecisionSummary):
        return decision.sure
    return decision.sure and bool(decision.evidence_kind)


def sureness_reasons(decision: Decision) -> tuple[bool, tuple[str, ...]]:
    """(sure, reasons): when sure, one reason, why (what the engine's :data:`SURENESS_STEP`
    says after ``sure (KIND): ``, its quoted contract sentence included); else the
    decision's doubts (:data:`UNSAID_DOUBT` for an engine that did not say). The reasons
    may quote client text: untrusted, never markup."""
    if not is_sure(decision):
        if not decision.evidence_kind:
            return False, (UNSAID_DOUBT,)
        return False, decision.doubts or ("the engine gave no reason",)
    for step in decision.evidence:
        if step.step == SURENESS_STEP and step.detail.startswith("sure ("):
            why = step.detail.partition("): ")[2].strip()
            if why:
                return True, (why,)
    return True, (f"plain evidence ({decision.evidence_kind})",)


def sureness_line(decision: Decision) -> str:
    """``sure: <why>`` or ``needs a careful look: <doubt>; <doubt>`` (plain text; the
    reasons may quote client text)."""
    sure, reasons = sureness_reasons(decision)
    return ("sure: " if sure else "needs a careful look: ") + "; ".join(reasons)


@dataclass(frozen=True, slots=True)
class DecisionSummary:
    """The fields of a frozen decision a queue lists and filters on (verdict,
    confidence, cited clauses, risk); the whole decision is :attr:`CaseRecord.decision`."""

    verdict: str
    confidence: float
    cited_clauses: tuple[str, ...]
    risk: Risk
    deciding: str | None = None
    """The cited ref of the decisive evidence (:func:`deciding_ref`): what a ruling of
    the case is about (:func:`etki.memory.ruled_about`)."""
    sure: bool = False
    """The engine is sure of the verdict (:attr:`Decision.sure`; False for a decision of
    an engine before 3.0.0, which did not say). See :func:`is_sure`."""
    impacted_modules: tuple[str, ...] = ()
    """The modules the decision names as impacted (:attr:`Decision.impacted_modules`):
    what the queue's module filter reads (issue 35 item 5)."""
