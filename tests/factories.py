"""Builders of real domain values for tests (no mocks: these are the real dataclasses,
stored through the real repository)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import select

from etki.domain import (
    Contract,
    Decision,
    Effort,
    EvidenceStep,
    Module,
    Project,
    ProjectConfig,
    Request,
    Reviewer,
    Risk,
    ScopeClause,
    WorkItem,
)
from etki.store import CaseFileRepository
from etki.store.models import AuditRow

FROZEN = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
"""The frozen time of every test store (the factories', the wiki's and the TUI's)."""


def frozen_clock() -> datetime:
    """A store clock that always says :data:`FROZEN`."""
    return FROZEN


class Clock:
    """A store clock the test moves on (:meth:`later`), from :data:`FROZEN`: events and
    rulings on different seconds and days."""

    def __init__(self) -> None:
        self.now = FROZEN

    def __call__(self) -> datetime:
        return self.now

    def later(self, **delta: float) -> None:
        """Move the clock on by ``timedelta(**delta)``."""
        self.now += timedelta(**delta)


def make_project(pid: str = "demo", reviewers: tuple[str, ...] = ("ayse", "jurgen")) -> Project:
    clauses = (
        ScopeClause("MSA#3.2", "MSA", "3.2", "Single sign-on", "Staff sign in with SSO."),
        ScopeClause("MSA#4.1", "MSA", "4.1", "Payments", "Citizens pay property tax online."),
        ScopeClause(
            "MSA#9.1", "MSA", "9.1", "Exclusions", "No native mobile apps.", kind="exclusion"
        ),
    )
    return Project(
        config=ProjectConfig(
            pid,
            "Demo portal",
            reviewers=tuple(Reviewer(n) for n in reviewers) + (Reviewer("viewer-vera", "viewer"),),
        ),
        root=Path("/nonexistent"),
        contracts=(Contract("MSA", "Master services agreement", "contracts/msa.md", clauses),),
        modules=(
            Module("auth.sso", "auth/sso", "SSO login"),
            Module("payments", "payments", "Online payments", ("auth.sso",)),
        ),
        workitems=(WorkItem("WI-1", "SSO login", "feature", "2024-01-01", ("auth.sso",), 3.0),),
    )


def make_decision(
    case_id: str,
    verdict: str = "IN_SCOPE",
    cited: tuple[str, ...] = ("MSA#3.2",),
    confidence: float = 0.8,
) -> Decision:
    return Decision(
        case_id=case_id,
        verdict=verdict,
        confidence=confidence,  # type: ignore[arg-type]
        cited_clauses=cited,
        impacted_modules=("auth.sso",),
        effort=Effort(1.0, 3.0, ("WI-1",)),
        risk=Risk(),
        assumptions=("The request is as written.",),
        reasoning="Matches the SSO clause.",
        evidence=(EvidenceStep("score_clauses", "top clause", (("MSA#3.2", 1.25),)),),
        engine_version="test",
        model_version="lexical-v1",
        index_freshness="sha256:test",
    )


def make_request(rid: str, text: str = "SSO login fails", title: str | None = None) -> Request:
    return Request(id=rid, text=text, title=title)


def audit_trail(repo: CaseFileRepository, case_id: str) -> list[tuple[str, ...]]:
    """(reviewer, action, outcome, reason) of every audit-log row of ``case_id``, oldest
    first, read straight from the store's table."""
    with repo.engine.connect() as conn:
        rows = conn.execute(
            select(AuditRow.reviewer, AuditRow.action, AuditRow.outcome, AuditRow.reason)
            .where(AuditRow.case_id == case_id)
            .order_by(AuditRow.id)
        ).all()
    return [tuple(r) for r in rows]
