"""Values that cross module boundaries: the loaded project folder, the decision, the
stored cases with their rulings and memory, and the report counts. The evidence chain
and its text format live in :mod:`etki.domain.evidence` (re-exported here).

A stored case has three shapes, one per purpose: :class:`CaseRecord` (the full record:
request, whole frozen decision, ruling), :class:`CaseSummary` (the light queue row: the
listed columns, no evidence chain) and :class:`CaseBrief` (the wiki's shared-page row).

All are frozen dataclasses. Lists are tuples so values can be hashed and compared.
``Decision.to_json`` is the one canonical serialisation (sorted keys, UTF-8, no
floating-point noise): the same request, index and engine version give the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from etki.domain.evidence import (
    DECIDING,
    DISPUTED_SIGNAL,
    RISK_WORDING,
    EvidenceStep,
    deciding_clause_text,
    deciding_in_json,
    deciding_ref,
    risk_wording,
    risk_wording_text,
)
from etki.domain.reports import (
    AgeBucket,
    MonthEffort,
    OverdueLook,
    Report,
    ReviewerRulings,
)

Verdict = Literal["IN_SCOPE", "CHANGE_REQUEST", "REJECT"]
VERDICTS: tuple[str, ...] = ("IN_SCOPE", "CHANGE_REQUEST", "REJECT")
ClauseKind = Literal["inclusion", "exclusion", "assumption", "sla", "context"]
CLAUSE_KINDS: tuple[str, ...] = ("inclusion", "exclusion", "assumption", "sla", "context")
"""``inclusion``: work the contract covers; ``exclusion``: work it leaves out;
``assumption``: what the contract relies on (client duties, dependencies); ``sla``:
service levels; ``context``: background or title page (the preamble before the first
numbered section): it describes, it does not oblige."""
ClauseStatus = Literal["stable", "draft"]
CLAUSE_STATUSES: tuple[str, ...] = ("stable", "draft")
"""``draft``: text not yet binding (a pending amendment); it scores lower in triage."""
REMIT_CONTRACT_ID = "etki.yaml"
"""Contract id and source of the **declared remit**: the ``scope: {in: [...], out: [...]}``
statements a PMO writes in ``etki.yaml``, one clause each (ref ``etki.yaml#in-1``,
``etki.yaml#out-1``; kind ``inclusion`` / ``exclusion``). The loader reserves the id, so
no contract document can take it (:mod:`etki.knowledge.loader`)."""


# --- the project folder ---------------------------------------------------------------


@dataclass(frozen=True)
class Reviewer:
    """A person who may look at (``viewer``) or rule on (``approver``) a project's cases."""

    name: str
    role: Literal["approver", "viewer"] = "approver"


@dataclass(frozen=True)
class ProjectConfig:
    """``etki.yaml``: the project's id, name, languages and reviewers."""

    id: str
    name: str
    languages: tuple[str, ...] = ("en",)
    reviewers: tuple[Reviewer, ...] = ()


@dataclass(frozen=True)
class Edge:
    """A typed edge of the knowledge graph. ``type`` is canonical (edge vocabulary);
    ``provenance`` is one of explicit | inherited | mapped | derived. ``location`` is
    where it was declared (``contracts/msa.md:42``, ``edges.yaml:7``; empty for edges
    derived from structure) and ``text`` how it was written there (``[[MSA#3.2|SSO]]``),
    so an edge that does not resolve can be reported as written, never guessed."""

    source: str
    target: str
    type: str
    provenance: str = "explicit"
    weight: float = 1.0
    location: str = ""
    text: str = ""


class PlainText:
    """The ``plain`` field of :class:`ScopeClause` and :class:`ClauseChunk` (a
    descriptor-typed dataclass field; its default is ``""``): the value given, or, when
    none was, ``text`` as plain text made the first time it is read, then kept.

    Lazy because a store read builds every clause of a project and most are never read
    as plain text: at bench tui's 2,000 clauses, making all of them at once was 0.15 s of
    the first queue's read (py-spy), for a detail pane that shows a few. The value is the
    same whenever it is made (a pure function of ``text``, :func:`_plain_of`); two
    threads reading it at once both make it, and either is kept."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._slot = f"_{name}_value"

    def __get__(self, obj: object, owner: type | None = None) -> str:
        if obj is None:
            return ""  # the field's default, as dataclasses asks for it
        value: str = obj.__dict__.get(self._slot, "")
        if not value:
            text = obj.__dict__.get("text", "")
            if text:
                value = obj.__dict__[self._slot] = _plain_of(text)
        return value

    def __set__(self, obj: object, value: str) -> None:
        obj.__dict__[self._slot] = value


@dataclass(frozen=True)
class ScopeClause:
    """A numbered section of a contract.

    ``ref`` is ``{contract_id}#{number}`` (``tdrs-rfq#2.1``); when the heading carries no
    number the title's slug stands for it. ``text`` is the clause body as markdown (the
    heading line excluded), as written in the source. ``line`` is the 1-based line of the
    heading in ``source``.

    ``plain`` is ``text`` as plain text (:func:`etki.knowledge.plaintext.markdown_plain`:
    HTML, link targets, web addresses and markup removed, hard wraps joined, one line per
    paragraph, list item, table row or sub-heading); what scoring reads. When not given
    it is computed from ``text`` the first time it is read (:class:`PlainText`).

    ``subtitles`` are the unnumbered sub-headings merged into this numbered clause, as
    (title, 1-based source line) in document order; their heading lines stay in ``text``
    (and their titles as lines of ``plain``), so the clause is cited by its number
    (``talentmap-pws#5``) and no sub-heading is lost.
    """

    ref: str
    contract_id: str
    number: str
    title: str
    text: str
    kind: ClauseKind = "inclusion"
    level: int = 2
    source: str = ""
    line: int = 0
    parent: str | None = None  # ref of the enclosing clause
    edges: tuple[Edge, ...] = ()
    status: ClauseStatus = "stable"
    aliases: tuple[str, ...] = ()  # numbers of empty parents merged into this clause
    overlap: str = ""  # sliding_window: the previous window's tail, repeated as context
    chunks: tuple[ClauseChunk, ...] = ()  # the parts of a clause over the size limit
    plain: str = PlainText()  # type: ignore[assignment]  # a str; "" by default
    subtitles: tuple[tuple[str, int], ...] = ()


def is_declared_remit(clause: ScopeClause) -> bool:
    """True for a clause of the declared remit (a PMO's statement from ``etki.yaml``, or
    a contract sentence accepted with ``etki remit accept``: plain text, never markup),
    False for a clause of a contract document."""
    return clause.contract_id == REMIT_CONTRACT_ID


ACCEPTED_REMIT_PREFIX = "accepted-"
"""Number prefix of an **accepted remit** statement: a contract sentence a PMO accepted
as outside the remit (``etki remit accept``), kept in the store (``remit_statements``)
and added to the declared remit as clause ``etki.yaml#accepted-N`` (kind
``exclusion``): N is the project's acceptance number, never reused."""


def is_accepted_remit(clause: ScopeClause) -> bool:
    """True for a declared-remit clause that was accepted from the contract (``etki
    remit accept``, kept in the store) rather than written in ``etki.yaml``."""
    return is_declared_remit(clause) and clause.number.startswith(ACCEPTED_REMIT_PREFIX)


@dataclass(frozen=True)
class RemitStatement:
    """An accepted remit statement (a row of ``remit_statements`` in force): ``number``
    (the project's acceptance number: ref ``etki.yaml#accepted-{number}``), the contract
    sentence ``text`` (client text: show it literally), ``source_ref`` the clause it was
    read from, ``role`` its sentence role there (``exclusion`` or ``client``), who
    accepted it and when (ISO-8601 UTC)."""

    number: int
    source_ref: str
    role: str
    text: str
    accepted_by: str
    accepted_at: str

    @property
    def ref(self) -> str:
        return f"{REMIT_CONTRACT_ID}#{ACCEPTED_REMIT_PREFIX}{self.number}"


@dataclass(frozen=True)
class ClauseChunk:
    """One part of a clause whose text is longer than the chunk size limit
    (:data:`etki.knowledge.chunking.MAX_CHUNK_CHARS`). ``text`` is a run of whole
    markdown blocks of the clause body, ``line`` the 1-based file line of its first
    block, ``edges`` its own wikilinks (explicit) plus everything the clause inherits
    and the clause heading's own links (inherited). ``plain`` is ``text`` as plain text
    (as :attr:`ScopeClause.plain`; computed when not given), ``subtitle`` the title of
    the clause's sub-heading the part starts under (``""`` before the first one)."""

    text: str
    line: int
    edges: tuple[Edge, ...] = ()
    plain: str = PlainText()  # type: ignore[assignment]  # a str; "" by default
    subtitle: str = ""


def _plain_of(markdown: str) -> str:
    from etki.knowledge.plaintext import markdown_plain  # the knowledge layer imports us

    return markdown_plain(markdown)


@dataclass(frozen=True)
class Contract:
    """A scope document from ``contracts/*.md``. ``chunking`` records the strategy
    chosen for it: ``by_heading`` or ``sliding_window``; ``chunking_metrics`` the
    structure analyser's figures behind that choice (sorted (name, value) pairs);
    ``candidates`` the document's candidate edges (frontmatter ``candidates`` and the
    "Unassigned edges" section) waiting for the validation gate of the index build:
    ``source`` is a clause node id or ``""`` (any chunk of the document), ``type`` is
    canonical or ``""`` (decided per chunk like an untyped link). ``fallbacks``: where
    the document's structure was read with a fallback or a heading was left as text
    (``contracts/x.md:12: heading '3. Reports' was inside ...``), in document order."""

    id: str
    title: str
    source: str
    clauses: tuple[ScopeClause, ...]
    chunking: str = "by_heading"
    chunking_metrics: tuple[tuple[str, float], ...] = ()
    candidates: tuple[Edge, ...] = ()
    fallbacks: tuple[str, ...] = ()


@dataclass(frozen=True)
class Module:
    """A code module of the delivered system."""

    id: str
    path: str = ""
    summary: str = ""
    depends_on: tuple[str, ...] = ()
    language: str | None = None
    location: str = ""  # where it is declared: "modules.yaml:12"


@dataclass(frozen=True)
class WorkItem:
    """A historical piece of delivered work. ``effort_days`` in person-days or None."""

    id: str
    title: str
    kind: str = "feature"
    date: str = ""
    modules: tuple[str, ...] = ()
    effort_days: float | None = None
    location: str = ""  # where it is declared: "workitems.json:40"


@dataclass(frozen=True)
class Request:
    """One line of ``requests.jsonl``. ``labels`` is kept as a JSON string (or None) so
    the value stays hashable; it is never used by the engine."""

    id: str
    text: str
    title: str | None = None
    submitted_by: str | None = None
    submitted_at: str | None = None
    labels_json: str | None = None
    line: int = 0


@dataclass(frozen=True)
class Project:
    """A whole project folder, loaded and validated."""

    config: ProjectConfig
    root: Path
    contracts: tuple[Contract, ...]
    modules: tuple[Module, ...] = ()
    workitems: tuple[WorkItem, ...] = ()
    requests: tuple[Request, ...] = ()
    edge_types: tuple[tuple[str, str], ...] = ()  # (alias, canonical), sorted
    edges: tuple[Edge, ...] = ()  # accepted links from ``edges.yaml`` (provenance mapped)
    refused: tuple[str, ...] = ()
    """Rows of ``requests.jsonl`` left out because they cannot be stored (malformed, a
    NUL, no id or a taken one, no text, a field of the wrong type or longer than the
    request cap ``ETKI_MAX_REQUEST_CHARS``), one message each naming the file, the line,
    the field and what is wrong (``.../requests.jsonl:3: field 'text' request 'R-3' is
    18,000,000 characters; ...``). Only a loaded folder has them; a stored project none."""

    @property
    def id(self) -> str:
        return self.config.id

    @property
    def clauses(self) -> tuple[ScopeClause, ...]:
        return tuple(c for contract in self.contracts for c in contract.clauses)


# --- the decision ----------------------------------------------------------------------


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


# --- cases, rulings and memory (read from the store) ----------------------------------

ACTIONS: dict[str, str] = {
    "approve": "IN_SCOPE",
    "convert_to_cr": "CHANGE_REQUEST",
    "reject": "REJECT",
}
"""Reviewer action -> ruling verdict."""


@dataclass(frozen=True)
class RulingRecord:
    """A reviewer's final word on a case. ``ruled_at`` is ISO-8601 UTC to the second
    (``2026-11-29T12:00:00Z``); ``verdict`` is what the engine had proposed, so
    ``is_override`` needs no second lookup. ``version`` is the case version after it."""

    case_id: str
    ruling: Verdict
    action: str
    reviewer: str
    reason: str
    ruled_at: str
    verdict: Verdict
    version: int = 2

    @property
    def is_override(self) -> bool:
        return self.ruling != self.verdict


@dataclass(frozen=True)
class RulingOutcome:
    """What a ruling did: the committed ``ruling``, the wiki hook's report (or None when
    the wiki is off) and ``wiki_error`` (a one-line message when the projection failed;
    the ruling stands either way)."""

    ruling: RulingRecord
    wiki_report: object | None = None
    wiki_error: str | None = None


@dataclass(frozen=True)
class ResolutionOutcome:
    """What recording a resolution of a disputed clause did: the committed
    ``resolution``, the wiki's write report (None when the wiki is off) and
    ``wiki_error`` (a one-line message when the wiki could not follow; the resolution
    stands either way)."""

    resolution: ClauseResolution
    wiki_report: object | None = None
    wiki_error: str | None = None


@dataclass(frozen=True)
class CaseRecord:
    """The full record of a case: the request, its whole frozen decision (evidence chain
    included) and its ruling (or None). What a case's detail, a ruling, memory and
    reports read; a queue lists the light :class:`CaseSummary` rows instead, the wiki's
    shared pages :class:`CaseBrief` rows. ``title`` is the request title, or the first
    line of the text cut to 80 characters. ``created_at`` is ISO-8601 UTC. All text
    fields are client text: untrusted."""

    case_id: str
    project_id: str
    request_id: str
    title: str
    text: str
    submitted_by: str | None
    submitted_at: str | None
    created_at: str
    version: int
    decision: Decision
    ruling: RulingRecord | None = None
    earlier_rulings: tuple[RulingRecord, ...] = ()
    """The rulings ``ruling`` amended, oldest first (issue 14 item 2): read from the
    audit log's committed rows; empty when the case was ruled once (or is pending)."""
    notes: tuple[CaseEvent, ...] = ()
    """Reviewers' notes on the case (``note`` :class:`CaseEvent` values), oldest first
    (issue 14 item 4). Untrusted text."""
    preanalysis: Preanalysis | None = None
    """The newest saved developer pre-analysis (:class:`Preanalysis`), or None:
    model text, never an input to the decision."""

    @property
    def status(self) -> str:
        return "pending" if self.ruling is None else "ruled"

    @property
    def ruling_history(self) -> tuple[RulingRecord, ...]:
        """Every ruling of the case, oldest first, the one in force last (empty when
        pending)."""
        return (*self.earlier_rulings, self.ruling) if self.ruling is not None else ()


EVENT_KINDS: tuple[str, ...] = (
    "imported",
    "triaged",
    "viewed",
    "ruled",
    "amended",
    "denied",
    "conflict",
    "erased",
    "note",
    "claim",
    "release",
)
"""The kinds of :class:`CaseEvent`, in the order a history lists events of the same
second: ``imported`` and ``triaged`` first (they happen together when a case is
stored)."""


@dataclass(frozen=True)
class CaseEvent:
    """One event of a case's history (issue 14 item 3), oldest first in
    :meth:`etki.store.CaseFileRepository.case_history`, which merges the audit log and
    the ``case_events`` table:

    * ``imported``: the case was stored; ``text`` names the source (``requests.jsonl
      (etki init)``, ``etki add``, ``file.csv (etki import)``, ``the desk's new-request
      form``; empty for a case stored before sources were kept), ``actor`` who stored it;
    * ``triaged``: the engine's decision; ``text`` is ``engine VERSION: VERDICT
      (confidence C)``, ``actor`` empty;
    * ``viewed``: ``actor`` opened the case on the desk;
    * ``ruled``, ``amended``: a committed ruling (``after``; ``before`` the ruling it
      amended, ``pending`` for the first), ``action`` and ``text`` the reason;
    * ``denied`` (not an approver), ``conflict`` (the case had changed): an attempt that
      recorded nothing, ``action`` what was asked, ``text`` its reason;
    * ``erased``: the erasure tombstone, ``text`` its legal reason;
    * ``note``, ``claim`` (until ``until``), ``release``: a reviewer's note or claim.

    ``at`` is ISO-8601 UTC to the second. ``actor`` and ``text`` are untrusted text
    (show them literally); an erased case's texts read ``[erased]``."""

    at: str
    kind: str
    actor: str = ""
    text: str = ""
    action: str = ""
    before: str = ""
    after: str = ""
    until: str | None = None

    def summary(self) -> str:
        """The event in words, without its time and ``text``: ``ruled REJECT (reject) by
        ayse``, ``amended REJECT → IN_SCOPE (approve) by jurgen``, ``refused (not an
        approver): reject by vera``. Untrusted parts are left as they are: the caller
        shows them literally."""
        by = f" by {self.actor}" if self.actor else ""
        if self.kind == "imported":
            return "imported" + by
        if self.kind == "triaged":
            return "triaged"
        if self.kind == "viewed":
            return "viewed" + by
        if self.kind == "ruled":
            return f"ruled {self.after} ({self.action}){by}"
        if self.kind == "amended":
            return f"amended {self.before} → {self.after} ({self.action}){by}"
        if self.kind == "denied":
            return f"refused, not an approver: {self.action}{by} (nothing recorded)"
        if self.kind == "conflict":
            return f"conflict, the case had changed: {self.action}{by} (nothing recorded)"
        if self.kind == "erased":
            return "erased" + by
        if self.kind == "claim":
            return f"claimed{by} until {self.until}" if self.until else "claimed" + by
        if self.kind == "release":
            return "claim released" + by
        if self.kind == "note":
            return "note" + by
        if self.kind == "preanalysed":  # the audit row of a saved pre-analysis (issue 14 item 9)
            return "pre-analysis asked for" + by
        return self.kind + by

    def to_dict(self) -> dict[str, Any]:
        """The event as JSON-ready fields (``etki show --json``)."""
        return asdict(self)


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


@dataclass(frozen=True, slots=True)
class CaseSummary:
    """The light queue row of a case: the request fields, a :class:`DecisionSummary` and
    the ruling (or None), read without parsing the decision's evidence chain. The full
    record is :class:`CaseRecord` (same attribute names, so a queue takes either). All
    text fields are client text: untrusted."""

    case_id: str
    project_id: str
    request_id: str
    title: str
    text: str
    submitted_by: str | None
    submitted_at: str | None
    created_at: str
    version: int
    decision: DecisionSummary
    ruling: RulingRecord | None = None

    @property
    def status(self) -> str:
        """``pending`` or ``ruled``."""
        return "pending" if self.ruling is None else "ruled"


@dataclass(frozen=True, slots=True)
class BriefDecision:
    """The fields of a frozen decision that the wiki's shared pages read; ``deciding``:
    the cited ref of its decisive evidence (:func:`deciding_ref`), which
    says what a ruling of the case is about (:func:`etki.memory.ruled_about`)."""

    verdict: str
    cited_clauses: tuple[str, ...]
    impacted_modules: tuple[str, ...]
    deciding: str | None = None


@dataclass(frozen=True, slots=True)
class CaseBrief:
    """The wiki's shared-page row of a case: what ``index.md``, ``disputed.md``, the
    contract and the module pages read (attribute names as in :class:`CaseRecord`, the
    full record, so the page helpers take either). ``version`` is the case version it
    was read at, for the projector's change check; it is left out of equality, so equal
    briefs render equal rows."""

    case_id: str
    project_id: str
    title: str
    decision: BriefDecision
    ruling: RulingRecord | None
    version: int = field(compare=False)

    @classmethod
    def of(cls, case: CaseRecord | CaseBrief) -> CaseBrief:
        """The brief of a full :class:`CaseRecord` (a brief is returned as it is)."""
        if isinstance(case, CaseBrief):
            return case
        d = case.decision
        cited = tuple(d.cited_clauses)
        deciding = deciding_ref(((e.step, e.detail) for e in d.evidence), cited)
        return cls(
            case.case_id,
            case.project_id,
            case.title,
            BriefDecision(d.verdict, cited, tuple(d.impacted_modules), deciding),
            case.ruling,
            case.version,
        )


RESOLUTION_VERDICTS: dict[str, Verdict] = {
    "in_scope": "IN_SCOPE",
    "cr": "CHANGE_REQUEST",
    "reject": "REJECT",
}
"""The words ``etki dispute resolve --verdict`` takes -> the ruling a resolution says the
clause calls for."""


@dataclass(frozen=True)
class ClauseResolution:
    """A person's resolution of a disputed clause (issue 14 item 6; a row of
    ``clause_resolutions``): the PMO's ``verdict`` (the ruling the clause calls for:
    IN_SCOPE, CHANGE_REQUEST or REJECT) with their ``reason`` (untrusted free text: show
    it literally), who (``reviewer``, NFC) and when (``at``, ISO-8601 UTC to the second).
    ``id`` is the store's row id: append-only, the highest of a clause is in force."""

    id: int
    project_id: str
    ref: str
    verdict: Verdict
    reason: str
    reviewer: str
    at: str


@dataclass(frozen=True)
class ClauseMemory:
    """What past rulings say about one clause: ``precedent_count`` (overrides about it,
    :func:`etki.memory.ruled_about`: its corrections), ``last_correction`` (the newest of
    them or None),
    ``disputed`` (the rulings about it disagree: :func:`etki.memory.ruled_about`),
    ``history`` ((case_id, ruling, reviewer, ruled_at) of every resolved case citing it,
    oldest first) and ``disputing`` (the entries of ``history`` whose ruling is about the
    clause: the rulings a dispute is between).

    ``resolution``: the PMO's resolution in force for the clause (the newest), None when
    there is none; ``overridden_by``: the case whose ruling, made after that resolution,
    disagrees with its verdict (the first such), None when none does. A disputed clause
    is :attr:`resolved` while its resolution stands; :attr:`open_dispute` is what raises
    the risk (:func:`etki.memory.current_risk`, :mod:`etki.triage.risk`)."""

    ref: str
    precedent_count: int = 0
    last_correction: RulingRecord | None = None
    disputed: bool = False
    history: tuple[tuple[str, str, str, str], ...] = ()
    resolution: ClauseResolution | None = None
    overridden_by: str | None = None
    disputing: tuple[tuple[str, str, str, str], ...] = ()

    @property
    def resolved(self) -> bool:
        """Disputed, with a resolution no later ruling disagrees with (disputed-resolved)."""
        return self.disputed and self.resolution is not None and self.overridden_by is None

    @property
    def open_dispute(self) -> bool:
        """Disputed and not resolved (never resolved, or re-disputed by a later ruling)."""
        return self.disputed and not self.resolved


@dataclass(frozen=True)
class DisputedClause:
    """A disputed clause and its ruling history (case_id, ruling, reviewer, ruled_at),
    with the resolution in force and the case that overrode it (see
    :class:`ClauseMemory`)."""

    ref: str
    history: tuple[tuple[str, str, str, str], ...]
    resolution: ClauseResolution | None = None
    overridden_by: str | None = None
    disputing: tuple[tuple[str, str, str, str], ...] = ()
    """The entries of ``history`` whose ruling is about the clause
    (:attr:`ClauseMemory.disputing`); empty: all of them."""

    @property
    def rulings(self) -> tuple[str, ...]:
        """The distinct rulings the dispute is between (those about the clause), sorted."""
        return tuple(sorted({h[1] for h in (self.disputing or self.history)}))

    @property
    def resolved(self) -> bool:
        """A resolution stands (no ruling after it disagrees)."""
        return self.resolution is not None and self.overridden_by is None


# --- reports: etki.domain.reports (re-exported below) ----------------------------------


# --- developer pre-analysis (issue 14 item 9) -------------------------------------------


PREANALYSIS_STATUSES = ("ok", "error")
"""``status`` of a saved :class:`Preanalysis`."""


@dataclass(frozen=True)
class Claim:
    """One claim of a pre-analysis: the model's ``text`` and the ``node`` it rests on
    (the id of a node of the case's related-context block, checked when it was saved).
    Both are model text: untrusted, shown literally."""

    text: str
    node: str


@dataclass(frozen=True)
class PreanalysisBody:
    """What a model wrote for a developer about a case (:mod:`etki.preanalysis`), each
    claim naming its node: ``affected_modules``, ``approach``, ``open_questions``, one
    rough ``effort`` remark (None when the model gave none), the claims ``dropped``
    because they named a node that is not in the context block (``(section, node)``
    pairs, in the order given) and where the block came from: ``context`` is
    ``stored`` (the case's related-context block) or ``packed`` (none was stored: packed
    when the pre-analysis was asked for), with ``context_nodes`` its node count."""

    affected_modules: tuple[Claim, ...] = ()
    approach: tuple[Claim, ...] = ()
    open_questions: tuple[Claim, ...] = ()
    effort: Claim | None = None
    dropped: tuple[tuple[str, str], ...] = ()
    context: str = "stored"
    context_nodes: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The body as JSON-ready data (what ``preanalyses.body_json`` holds)."""

        def claims(items: tuple[Claim, ...]) -> list[dict[str, str]]:
            return [{"node": c.node, "text": c.text} for c in items]

        return {
            "affected_modules": claims(self.affected_modules),
            "approach": claims(self.approach),
            "open_questions": claims(self.open_questions),
            "effort": None
            if self.effort is None
            else {"node": self.effort.node, "text": self.effort.text},
            "dropped": [{"section": s, "node": n} for s, n in self.dropped],
            "context": self.context,
            "context_nodes": self.context_nodes,
        }

    def to_json(self) -> str:
        """Canonical JSON text of :meth:`to_dict` (sorted keys, UTF-8, compact)."""
        return json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> PreanalysisBody:
        """The body :meth:`to_json` wrote. Raises ``ValueError`` for anything else."""
        doc = json.loads(text)

        def claims(key: str) -> tuple[Claim, ...]:
            return tuple(Claim(str(c["text"]), str(c["node"])) for c in doc.get(key) or ())

        effort = doc.get("effort")
        try:
            return cls(
                affected_modules=claims("affected_modules"),
                approach=claims("approach"),
                open_questions=claims("open_questions"),
                effort=None if effort is None else Claim(str(effort["text"]), str(effort["node"])),
                dropped=tuple(
                    (str(d["section"]), str(d["node"])) for d in doc.get("dropped") or ()
                ),
                context=str(doc.get("context") or "stored"),
                context_nodes=int(doc.get("context_nodes") or 0),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"not a pre-analysis body: {exc}") from exc

    @property
    def claims(self) -> tuple[tuple[str, Claim], ...]:
        """Every kept claim with its section name, in page order."""
        out = [("affected_modules", c) for c in self.affected_modules]
        out += [("approach", c) for c in self.approach]
        out += [("open_questions", c) for c in self.open_questions]
        if self.effort is not None:
            out.append(("effort", self.effort))
        return tuple(out)


@dataclass(frozen=True)
class Preanalysis:
    """A saved pre-analysis of a case (table ``preanalyses``): which ``model`` wrote it
    with which ``prompt_version``, when (``created_at``, ISO-8601 UTC), its ``status``
    (``ok``: ``body`` holds it; ``error``: ``error`` says why nothing usable came back,
    ``body`` is None). Never an input to the verdict."""

    case_id: str
    model: str
    prompt_version: str
    status: str
    created_at: str
    body: PreanalysisBody | None = None
    error: str | None = None
