"""SQLAlchemy 2.0 models: the single source of truth (DESIGN.md).

Times are stored as ISO-8601 UTC strings to the second (``2026-11-29T12:00:00Z``) so that
SQLite and PostgreSQL give the same text back and the wiki renders the same bytes.
Lists are stored as JSON text (sorted where order carries no meaning).

The schema is versioned with Alembic (``etki/store/migrations``, ``etki db upgrade``):
any change here needs a new revision there; ``tests/test_migrations.py`` fails when the
models and the migrations' head disagree.
"""

from __future__ import annotations

from sqlalchemy import Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy import text as sql_text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

SCHEMA_VERSION = 1


class Base(DeclarativeBase):
    """Declarative base of every Etki table."""


class ProjectRow(Base):
    __tablename__ = "projects"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(Text)
    root: Mapped[str] = mapped_column(Text)
    config_json: Mapped[str] = mapped_column(Text)
    edge_types_json: Mapped[str] = mapped_column(Text, default="[]")
    index_hash: Mapped[str] = mapped_column(String(80))
    index_json: Mapped[str] = mapped_column(Text)
    loaded_at: Mapped[str] = mapped_column(String(20))


class ContractRow(Base):
    __tablename__ = "contracts"
    project_id: Mapped[str] = mapped_column(ForeignKey("projects.id"), primary_key=True)
    id: Mapped[str] = mapped_column(String(200), primary_key=True)
    title: Mapped[str] = mapped_column(Text)
    source: Mapped[str] = mapped_column(Text)
    chunking: Mapped[str] = mapped_column(String(32))
    position: Mapped[int] = mapped_column(Integer)


class ClauseRow(Base):
    __tablename__ = "clauses"
    project_id: Mapped[str] = mapped_column(ForeignKey("projects.id"), primary_key=True)
    ref: Mapped[str] = mapped_column(String(300), primary_key=True)
    contract_id: Mapped[str] = mapped_column(String(200))
    number: Mapped[str] = mapped_column(String(100))
    title: Mapped[str] = mapped_column(Text)
    text: Mapped[str] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(String(16))
    level: Mapped[int] = mapped_column(Integer)
    source: Mapped[str] = mapped_column(Text)
    line: Mapped[int] = mapped_column(Integer)
    parent: Mapped[str | None] = mapped_column(String(300), nullable=True)
    edges_json: Mapped[str] = mapped_column(Text, default="[]")
    position: Mapped[int] = mapped_column(Integer)


class ModuleRow(Base):
    __tablename__ = "modules"
    project_id: Mapped[str] = mapped_column(ForeignKey("projects.id"), primary_key=True)
    id: Mapped[str] = mapped_column(String(300), primary_key=True)
    path: Mapped[str] = mapped_column(Text)
    summary: Mapped[str] = mapped_column(Text)
    depends_on_json: Mapped[str] = mapped_column(Text)
    language: Mapped[str | None] = mapped_column(String(32), nullable=True)
    position: Mapped[int] = mapped_column(Integer)


class WorkItemRow(Base):
    __tablename__ = "workitems"
    project_id: Mapped[str] = mapped_column(ForeignKey("projects.id"), primary_key=True)
    id: Mapped[str] = mapped_column(String(200), primary_key=True)
    title: Mapped[str] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(String(32))
    date: Mapped[str] = mapped_column(String(32))
    modules_json: Mapped[str] = mapped_column(Text)
    effort_days: Mapped[float | None] = mapped_column(Float, nullable=True)
    position: Mapped[int] = mapped_column(Integer)


class CaseRow(Base):
    """A client request. ``version`` is the optimistic-locking counter: 1 when created,
    incremented by every ruling; ``status`` is ``pending`` or ``ruled``."""

    __tablename__ = "cases"
    __table_args__ = (UniqueConstraint("project_id", "request_id"),)
    id: Mapped[str] = mapped_column(String(120), primary_key=True)
    project_id: Mapped[str] = mapped_column(ForeignKey("projects.id"), index=True)
    request_id: Mapped[str] = mapped_column(String(200))
    title: Mapped[str] = mapped_column(Text)
    text: Mapped[str] = mapped_column(Text)
    submitted_by: Mapped[str | None] = mapped_column(Text, nullable=True)
    submitted_at: Mapped[str | None] = mapped_column(String(40), nullable=True)
    labels_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[str] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(16), default="pending", index=True)
    version: Mapped[int] = mapped_column(Integer, default=1)
    seq: Mapped[int] = mapped_column(Integer, default=0)  # arrival order within a project


class DecisionRow(Base):
    """The engine's frozen decision: written once with its case, never updated."""

    __tablename__ = "decisions"
    case_id: Mapped[str] = mapped_column(ForeignKey("cases.id"), primary_key=True)
    verdict: Mapped[str] = mapped_column(String(16))
    confidence: Mapped[float] = mapped_column(Float)
    engine_version: Mapped[str] = mapped_column(String(32))
    decision_json: Mapped[str] = mapped_column(Text)
    created_at: Mapped[str] = mapped_column(String(20))


class DecisionContextRow(Base):
    """The related-context block stored with a new decision (issue 5, item 6): what
    retrieval found around the request when it was triaged (``context_json``, format
    ``etki-related-context/1``, see :mod:`etki.retrieval.context`). Written once with
    its case and decision, never updated; context only, never read by the engine. A
    case stored before retrieval existed has no row (migration 0003)."""

    __tablename__ = "decision_contexts"
    case_id: Mapped[str] = mapped_column(ForeignKey("cases.id"), primary_key=True)
    context_json: Mapped[str] = mapped_column(Text)
    created_at: Mapped[str] = mapped_column(String(20))


class RulingRow(Base):
    """The reviewer's final word on a case (one per case).

    ``verdict`` is the engine's (``decisions.verdict``) and ``project_id`` the case's
    (migration 0010): an override is told, and a project's rulings read, without
    reading the decision's or the case's row. ``cited_refs`` and ``deciding_ref`` are a summary of the case's frozen decision,
    written with the ruling in its transaction (:func:`etki.store.lean.ruling_summary`;
    filled for rulings made before by migration 0008): the clauses it cites (a JSON
    array, in the decision's order) and the clause of its decisive evidence (None: none
    among them). ``etki dispute list`` reads them instead of scanning every decision's
    text (issue 32 item 1). NULL only in a row no writer of this schema made: a reader
    then reads the decision.

    ``correction_refs``, ``correction_rule`` and ``correction_basis`` (migration 0011):
    of an override, the clauses it counts as a correction on (a JSON array) and the rule
    (:func:`etki.domain.corrections.correction_of`), computed with the ruling against the
    project's clause refs then, whose set :func:`~etki.domain.corrections.refs_basis`
    names; NULL for a ruling that is not an override. ``etki report`` counts them
    instead of matching every override's reason, and recomputes the ones whose basis is
    not the project's refs now."""

    __tablename__ = "rulings"
    case_id: Mapped[str] = mapped_column(ForeignKey("cases.id"), primary_key=True)
    ruling: Mapped[str] = mapped_column(String(16))
    action: Mapped[str] = mapped_column(String(16))
    reviewer: Mapped[str] = mapped_column(Text)
    reason: Mapped[str] = mapped_column(Text)
    ruled_at: Mapped[str] = mapped_column(String(20))
    version: Mapped[int] = mapped_column(Integer)
    cited_refs: Mapped[str | None] = mapped_column(Text, nullable=True)
    deciding_ref: Mapped[str | None] = mapped_column(Text, nullable=True)
    effort_low: Mapped[float | None] = mapped_column(Float, nullable=True)
    effort_high: Mapped[float | None] = mapped_column(Float, nullable=True)
    deciding_text: Mapped[str | None] = mapped_column(Text, nullable=True)
    verdict: Mapped[str | None] = mapped_column(String(16), nullable=True)
    project_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    correction_refs: Mapped[str | None] = mapped_column(Text, nullable=True)
    correction_rule: Mapped[str | None] = mapped_column(String(16), nullable=True)
    correction_basis: Mapped[str | None] = mapped_column(String(16), nullable=True)

    # the rows without the summary (none written since 0008), found without a scan (0013)
    __table_args__ = (
        Index(
            "ix_rulings_unsummed",
            "project_id",
            sqlite_where=sql_text("cited_refs IS NULL"),
            postgresql_where=sql_text("cited_refs IS NULL"),
        ),
    )


class RulingRefRow(Base):
    """One clause a ruled case's decision cites (migration 0010, issue 32 item 1): the
    refs of :attr:`RulingRow.cited_refs`, a row each, written with the ruling in its
    transaction (rewritten with an amendment) and deleted with it (erasure, project
    delete), with the ruling's ``project_id``, ``ruling``, ``reviewer``, ``ruled_at``
    and ``about`` (1: the ruling has no reason and the ref is its decisive clause, or
    it has none: what :func:`etki.memory.ruled_about` says of a ruling without a
    reason). ``etki report`` counts the rulings about each clause in SQL (``GROUP BY
    ref`` over this table alone) instead of reading every ruled case
    (:mod:`etki.store.lean_report`)."""

    __tablename__ = "ruling_refs"
    case_id: Mapped[str] = mapped_column(
        ForeignKey("cases.id", name="fk_ruling_refs_case_id"), primary_key=True
    )
    ref: Mapped[str] = mapped_column(Text, primary_key=True)
    project_id: Mapped[str] = mapped_column(String(64))
    ruling: Mapped[str] = mapped_column(String(16))
    reviewer: Mapped[str] = mapped_column(Text)
    ruled_at: Mapped[str] = mapped_column(String(20))
    about: Mapped[int] = mapped_column(Integer)

    __table_args__ = (
        Index("ix_ruling_refs_project", "project_id", "about", "ref", "ruling"),
        Index("ix_ruling_refs_ref", "project_id", "ref"),  # migration 0013
    )


class ReportTallyRow(Base):
    """How many current rulings of a project were made on a ``day`` (UTC, ``ruled_at[:10]``)
    by a ``reviewer``, with the engine's ``verdict`` and the ``ruling`` (migration 0010,
    issue 32 item 1): kept at ruling time (:func:`etki.store.summary.tally`, +1 with a
    ruling, -1 and +1 with an amendment, -1 with an erasure; a project delete deletes
    its rows), so ``etki report`` reads O(days x reviewers) rows instead of every ruled
    case. A row never holds 0 (it is deleted)."""

    __tablename__ = "report_tallies"
    project_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    day: Mapped[str] = mapped_column(String(10), primary_key=True)
    reviewer: Mapped[str] = mapped_column(Text, primary_key=True)
    verdict: Mapped[str] = mapped_column(String(16), primary_key=True)
    ruling: Mapped[str] = mapped_column(String(16), primary_key=True)
    n: Mapped[int] = mapped_column(Integer)


class ClauseTallyRow(Base):
    """Per clause of a project and ruling word, how many current rulings' decisions cite
    it (``cited``, a line of the clause's history each) and how many of those are about
    it (``about``, :func:`etki.domain.corrections.about_refs`): migration 0013, issue 32
    item 1. Kept at ruling time (:func:`etki.store.summary.clause_tally`: +1 with a
    ruling, -1 and +1 with an amendment, -1 with an erasure; a project delete deletes its
    rows), so ``etki dispute list`` and ``etki queue`` read O(clauses) rows instead of
    every ruled case: a clause is disputed when two ruling words have ``about`` > 0 (or
    it has a resolution). A row never holds ``cited`` 0 (it is deleted)."""

    __tablename__ = "clause_tallies"
    project_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    ref: Mapped[str] = mapped_column(Text, primary_key=True)
    ruling: Mapped[str] = mapped_column(String(16), primary_key=True)
    cited: Mapped[int] = mapped_column(Integer)
    about: Mapped[int] = mapped_column(Integer)


class AuditRow(Base):
    """Append-only audit log of every ruling attempt: ``outcome`` is ``committed``,
    ``conflict`` (someone ruled first) or ``denied`` (not an approver); ``before`` and
    ``after`` are the case's ruling before and after (``pending`` when none). An
    amendment (issue 14) is a ``committed`` row whose ``before`` is the earlier ruling. A
    note on a case adds a row with ``action`` ``note`` and ``outcome`` ``noted`` and no
    text (the note is in :class:`CaseEventRow`), so the wiki projector sees it.

    An erasure (``etki erase``) adds a tombstone row: ``action`` and ``outcome``
    ``erased``, ``after`` ``erased``, ``reason`` the erasure's reason; it replaces the
    ``reason`` of the case's earlier rows (free text that may quote the request) with
    ``[erased]`` and keeps the rest. ``case_id`` is therefore not a foreign key: the log outlives the case
    (migration 0002).

    ``reviewer`` is the asserted name (``ETKI_REVIEWER``); beside it ``os_user``,
    ``host``, ``pid`` and ``program`` record what the OS said about the process that
    wrote the row (:class:`etki.identity.ProcessIdentity`, migration 0004). They are
    NULL on rows written before that migration: unknown, never guessed."""

    __tablename__ = "audit_log"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    case_id: Mapped[str] = mapped_column(String(120), index=True)
    reviewer: Mapped[str] = mapped_column(Text)
    action: Mapped[str] = mapped_column(String(16))
    ruling: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str] = mapped_column(Text)
    at: Mapped[str] = mapped_column(String(20))
    version: Mapped[int] = mapped_column(Integer)
    outcome: Mapped[str] = mapped_column(String(16), default="committed")
    before: Mapped[str] = mapped_column(String(16), default="pending")
    after: Mapped[str] = mapped_column(String(16), default="pending")
    os_user: Mapped[str | None] = mapped_column(Text, nullable=True)
    host: Mapped[str | None] = mapped_column(Text, nullable=True)
    pid: Mapped[int | None] = mapped_column(Integer, nullable=True)
    program: Mapped[str | None] = mapped_column(Text, nullable=True)


class ProjectAuditRow(Base):
    """Append-only audit log of who may act on a project (migration 0004): one row per
    ``etki init`` that created a project's reviewer list or tried to change it.
    ``action`` is ``reviewers``; ``outcome`` is ``created`` (first load), ``changed``
    (``--update-reviewers``), ``refused`` (the folder's list differs and
    ``--update-reviewers`` was not given) or ``denied`` (given by someone who is not an
    approver of the stored list); ``before_json``/``after_json`` are the stored and the
    folder's lists (``[{"name": …, "role": …}]``, sorted by name then role); ``root`` is
    the folder loaded (absolute). ``reviewer`` is the asserted actor, with the process
    identity beside it as in :class:`AuditRow`."""

    __tablename__ = "project_audit"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    project_id: Mapped[str] = mapped_column(String(64), index=True)
    action: Mapped[str] = mapped_column(String(16))
    outcome: Mapped[str] = mapped_column(String(16))
    before_json: Mapped[str] = mapped_column(Text)
    after_json: Mapped[str] = mapped_column(Text)
    root: Mapped[str] = mapped_column(Text)
    reviewer: Mapped[str] = mapped_column(Text)
    at: Mapped[str] = mapped_column(String(20))
    os_user: Mapped[str] = mapped_column(Text)
    host: Mapped[str] = mapped_column(Text)
    pid: Mapped[int] = mapped_column(Integer)
    program: Mapped[str] = mapped_column(Text)


class MetaRow(Base):
    __tablename__ = "etki_meta"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class CaseEventRow(Base):
    """Append-only events of a case that are not rulings (migration 0005, issue 14):
    ``kind`` is ``imported`` (stored by ``etki init``/``add``/``import`` or the TUI's
    new-request form; ``text`` names the source), ``viewed`` (a reviewer opened the case
    on the desk), ``note`` (``text`` is the reviewer's note: untrusted free text),
    ``claim`` (a reviewer is looking at the case until ``until``) or ``release`` (the
    claim ended early). Rulings and erasures stay in :class:`AuditRow`; a case's history
    is both, merged by time. ``case_id`` is a foreign key to ``cases`` (migration 0007,
    issue 30 item 1): no event is written for a case that is gone, and an erasure
    deletes the case's events with it (the audit log keeps who did what, and the
    tombstone).
    ``actor`` is the asserted reviewer, with the process identity beside it as in
    :class:`AuditRow`."""

    __tablename__ = "case_events"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    case_id: Mapped[str] = mapped_column(
        ForeignKey("cases.id", name="fk_case_events_case_id"), index=True
    )
    project_id: Mapped[str] = mapped_column(String(64), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    actor: Mapped[str] = mapped_column(Text)
    text: Mapped[str] = mapped_column(Text, default="")
    at: Mapped[str] = mapped_column(String(20))
    until: Mapped[str | None] = mapped_column(String(20), nullable=True)
    os_user: Mapped[str | None] = mapped_column(Text, nullable=True)
    host: Mapped[str | None] = mapped_column(Text, nullable=True)
    pid: Mapped[int | None] = mapped_column(Integer, nullable=True)
    program: Mapped[str | None] = mapped_column(Text, nullable=True)


class ClauseResolutionRow(Base):
    """A person's resolution of a disputed clause (migration 0005, issue 14 item 6),
    append-only: the newest row of a ``(project_id, clause_ref)`` is the one in force.
    ``verdict`` is the ruling the resolution says the clause calls for (IN_SCOPE, CR or
    REJECT); ``text`` the PMO's words (untrusted free text). The clause reads
    disputed-resolved until a ruling after ``at`` disagrees with ``verdict``."""

    __tablename__ = "clause_resolutions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    project_id: Mapped[str] = mapped_column(String(64), index=True)
    clause_ref: Mapped[str] = mapped_column(String(200), index=True)
    verdict: Mapped[str] = mapped_column(String(16))
    text: Mapped[str] = mapped_column(Text)
    reviewer: Mapped[str] = mapped_column(Text)
    at: Mapped[str] = mapped_column(String(20))
    os_user: Mapped[str | None] = mapped_column(Text, nullable=True)
    host: Mapped[str | None] = mapped_column(Text, nullable=True)
    pid: Mapped[int | None] = mapped_column(Integer, nullable=True)
    program: Mapped[str | None] = mapped_column(Text, nullable=True)


class PreanalysisRow(Base):
    """A developer pre-analysis written by a language model (migration 0005, issue 14
    item 9), never an input to the verdict. One row per generation (the newest of a case
    is the one shown): ``model`` and ``prompt_version`` name what wrote it,
    ``status`` is ``ok`` (``body_json`` holds the parsed analysis) or ``error``
    (``error`` says why; ``body_json`` is ``{}``). Model output is untrusted text.
    ``case_id`` is a foreign key to ``cases`` (migration 0007)."""

    __tablename__ = "preanalyses"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    case_id: Mapped[str] = mapped_column(
        ForeignKey("cases.id", name="fk_preanalyses_case_id"), index=True
    )
    model: Mapped[str] = mapped_column(Text)
    prompt_version: Mapped[str] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(16))
    body_json: Mapped[str] = mapped_column(Text)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[str] = mapped_column(String(20))


class RemitStatementRow(Base):
    """A contract sentence accepted as outside the contractor's remit (migration 0006,
    issue 29 item 5: ``etki remit accept``). ``number`` is the project's acceptance
    number (ref ``etki.yaml#accepted-{number}``; never reused, so a frozen decision's
    citation keeps naming the sentence it was made with); ``source_ref``, ``role`` and
    ``text`` are the sentence as ``etki remit propose`` read it (``text`` is contract
    text: untrusted). A revoked statement keeps its row with ``revoked_by``,
    ``revoked_at`` and ``revoked_reason`` set: the ones without are in force. Every
    change is also audited in ``project_audit`` (action ``remit``)."""

    __tablename__ = "remit_statements"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    project_id: Mapped[str] = mapped_column(String(64), index=True)
    number: Mapped[int] = mapped_column(Integer)
    source_ref: Mapped[str] = mapped_column(String(300))
    role: Mapped[str] = mapped_column(String(16))
    text: Mapped[str] = mapped_column(Text)
    accepted_by: Mapped[str] = mapped_column(Text)
    accepted_at: Mapped[str] = mapped_column(String(20))
    revoked_by: Mapped[str | None] = mapped_column(Text, nullable=True)
    revoked_at: Mapped[str | None] = mapped_column(String(20), nullable=True)
    revoked_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    __table_args__ = (UniqueConstraint("project_id", "number", name="uq_remit_number"),)


class WikiFolderRow(Base):
    """A wiki folder a projection of a project wrote into (migration 0007, issue 30 item
    2): ``path`` is the folder resolved to an absolute path when it was first written,
    ``first_at`` when. An erasure removes the case's pages from every folder recorded
    for its project, whatever ``ETKI_WIKI_DIR`` it runs with, and its proof searches
    them all."""

    __tablename__ = "wiki_folders"
    project_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    path: Mapped[str] = mapped_column(Text, primary_key=True)
    first_at: Mapped[str] = mapped_column(String(20))


class DeletedCaseEventRow(Base):
    """One event of the history of a case whose project was deleted (migration 0012,
    issue 35 item 6): written in the deletion's transaction
    (:meth:`~etki.store.repository.lifecycle.LifecycleStore.delete_project`) so that
    ``etki show`` of the case still lists what it listed before. A copy of each of the
    case's ``case_events`` rows (notes, imports, views, claims, estimates, terms,
    assignments: ``kind``, ``actor``, ``text``, ``at``, ``until`` and the process
    identity as they were), and the two events its case and decision rows stood for:
    ``imported`` (``at`` the case's ``created_at``; only for a case without an
    ``imported`` event) and ``triaged`` (``text`` ``engine VERSION: VERDICT (confidence
    C)``, ``at`` the decision's ``created_at``), without identity. Rulings stay in the
    audit log, which outlives the deletion. A case's rows read in ``id`` order are its
    events in the order written; no foreign key (the case is gone). A KVKK erasure of
    the case deletes them (``text`` holds reviewers' and client text)."""

    __tablename__ = "deleted_case_events"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    case_id: Mapped[str] = mapped_column(String(120), index=True)
    project_id: Mapped[str] = mapped_column(String(64), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    actor: Mapped[str] = mapped_column(Text)
    text: Mapped[str] = mapped_column(Text, default="")
    at: Mapped[str] = mapped_column(String(20))
    until: Mapped[str | None] = mapped_column(String(20), nullable=True)
    os_user: Mapped[str | None] = mapped_column(Text, nullable=True)
    host: Mapped[str | None] = mapped_column(Text, nullable=True)
    pid: Mapped[int | None] = mapped_column(Integer, nullable=True)
    program: Mapped[str | None] = mapped_column(Text, nullable=True)
