"""The loaded project folder (part of :mod:`etki.domain`, re-exported there): its
configuration and reviewers, contracts with their scope clauses, chunks and edges, the
declared and accepted remit, modules, work items and requests. Clause kinds and
statuses are the vocabularies :data:`CLAUSE_KINDS` and :data:`CLAUSE_STATUSES`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

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

    ``plain`` is ``text`` as plain text (:func:`etki.mdtext.plain.markdown_plain`:
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
    from etki.mdtext.plain import markdown_plain  # markdown-it-py loads on first use

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
