"""The store's models exactly as first released (etki 0.1.0, before Alembic): a frozen
copy used by tests/test_migrations.py to create a database the way that release did
(``create_all``, no ``alembic_version``) and to check that migration 0001 builds the same
schema. Never edit; the live models are etki/store/models.py.
"""

from __future__ import annotations

from sqlalchemy import Float, ForeignKey, Integer, String, Text, UniqueConstraint
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


class RulingRow(Base):
    """The reviewer's final word on a case (one per case)."""

    __tablename__ = "rulings"
    case_id: Mapped[str] = mapped_column(ForeignKey("cases.id"), primary_key=True)
    ruling: Mapped[str] = mapped_column(String(16))
    action: Mapped[str] = mapped_column(String(16))
    reviewer: Mapped[str] = mapped_column(Text)
    reason: Mapped[str] = mapped_column(Text)
    ruled_at: Mapped[str] = mapped_column(String(20))
    version: Mapped[int] = mapped_column(Integer)


class AuditRow(Base):
    """Append-only audit log of every ruling attempt: ``outcome`` is ``committed``,
    ``conflict`` (someone ruled first) or ``denied`` (not an approver); ``before`` and
    ``after`` are the case's ruling before and after (``pending`` when none)."""

    __tablename__ = "audit_log"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    case_id: Mapped[str] = mapped_column(ForeignKey("cases.id"), index=True)
    reviewer: Mapped[str] = mapped_column(Text)
    action: Mapped[str] = mapped_column(String(16))
    ruling: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str] = mapped_column(Text)
    at: Mapped[str] = mapped_column(String(20))
    version: Mapped[int] = mapped_column(Integer)
    outcome: Mapped[str] = mapped_column(String(16), default="committed")
    before: Mapped[str] = mapped_column(String(16), default="pending")
    after: Mapped[str] = mapped_column(String(16), default="pending")


class MetaRow(Base):
    __tablename__ = "etki_meta"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)
