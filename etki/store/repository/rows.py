"""Rows of the store as domain values: one mapper per value, one select per case shape.

Each mapper takes the columns of one row, in the order of the matching ``*_COLUMNS``
tuple, and returns the frozen value of :mod:`etki.domain`; no I/O. Every part of the
repository reads through them, so a :class:`~etki.domain.RulingRecord` or a
:class:`~etki.domain.CaseRecord` is built from a row in one place only.
"""

from __future__ import annotations

import functools
import json
from dataclasses import asdict
from typing import Any

from sqlalchemy import Select, func, select
from sqlalchemy.orm import aliased

from etki.domain import (
    BriefDecision,
    CaseBrief,
    CaseRecord,
    Contract,
    Decision,
    Edge,
    Module,
    Preanalysis,
    PreanalysisBody,
    ProjectConfig,
    Request,
    Reviewer,
    ScopeClause,
    WorkItem,
    deciding_ref,
)
from etki.store.lean import (  # the decoders both read paths share (issue 32 item 1)
    decision_summary as decision_summary,
)
from etki.store.lean import (
    ruling_of,
)
from etki.store.lean import (
    summary_of_members as summary_of_members,
)
from etki.store.models import (
    CaseRow,
    ClauseRow,
    DecisionRow,
    ModuleRow,
    PreanalysisRow,
    RulingRow,
    WorkItemRow,
)

Rows = Select[*tuple[Any, ...]]
"""A select of any columns."""

RULING_COLUMNS = (
    RulingRow.ruling,
    RulingRow.action,
    RulingRow.reviewer,
    RulingRow.reason,
    RulingRow.ruled_at,
    RulingRow.version,
)
"""The ``rulings`` columns of :func:`ruling_of`, outer-joined (all None for a pending case)."""


PREANALYSIS_COLUMNS = (
    PreanalysisRow.case_id,
    PreanalysisRow.model,
    PreanalysisRow.prompt_version,
    PreanalysisRow.status,
    PreanalysisRow.created_at,
    PreanalysisRow.body_json,
    PreanalysisRow.error,
)
"""The ``preanalyses`` columns of :func:`preanalysis_of`."""


def preanalysis_of(
    case_id: str | None,
    model: str,
    prompt_version: str,
    status: str,
    created_at: str,
    body_json: str,
    error: str | None,
) -> Preanalysis | None:
    """The :class:`~etki.domain.Preanalysis` of a row of :data:`PREANALYSIS_COLUMNS`
    (None when outer-joined and absent). A body that does not read back (written by a
    later version) is kept as an ``error`` row saying so, never raised."""
    if case_id is None:
        return None
    body = None
    if status == "ok":
        try:
            body = PreanalysisBody.from_json(body_json)
        except ValueError as exc:
            status, error = "error", f"the saved body cannot be read: {exc}"
    return Preanalysis(
        case_id=case_id,
        model=model,
        prompt_version=prompt_version,
        status=status,
        created_at=created_at,
        body=body,
        error=error,
    )


def _newest_preanalysis() -> Any:
    """The id of the newest pre-analysis of the case of the row (correlated)."""
    newer = aliased(PreanalysisRow)
    return (
        select(func.max(newer.id))
        .where(newer.case_id == CaseRow.id)
        .correlate(CaseRow)
        .scalar_subquery()
    )


def _joined(stmt: Rows) -> Rows:
    """``stmt`` over cases joined to their decision and outer-joined to their ruling."""
    return stmt.join_from(CaseRow, DecisionRow, DecisionRow.case_id == CaseRow.id).outerjoin(
        RulingRow, RulingRow.case_id == CaseRow.id
    )


ARRIVAL = (CaseRow.created_at, CaseRow.seq, CaseRow.id)
"""The order cases are listed in: creation time, then the order they were added."""


@functools.cache  # built once (statements are immutable): the HITL hook reads on every ruling
def case_select() -> Rows:
    """The columns of :func:`case_of`, every case (add a ``where`` and an order)."""
    return _joined(
        select(
            CaseRow.id,
            CaseRow.project_id,
            CaseRow.request_id,
            CaseRow.title,
            CaseRow.text,
            CaseRow.submitted_by,
            CaseRow.submitted_at,
            CaseRow.created_at,
            CaseRow.version,
            DecisionRow.verdict,
            DecisionRow.decision_json,
            *PREANALYSIS_COLUMNS,
            *RULING_COLUMNS,
        )
    ).outerjoin(PreanalysisRow, PreanalysisRow.id == _newest_preanalysis())


def case_of(
    case_id: str,
    project_id: str,
    request_id: str,
    title: str,
    text: str,
    submitted_by: str | None,
    submitted_at: str | None,
    created_at: str,
    version: int,
    verdict: str,
    decision_json: str,
    *rest: Any,
) -> CaseRecord:
    """The full :class:`~etki.domain.CaseRecord` of a row of :func:`case_select`
    (``rest``: its :data:`PREANALYSIS_COLUMNS`, then its :data:`RULING_COLUMNS`)."""
    n = len(PREANALYSIS_COLUMNS)
    return CaseRecord(
        case_id=case_id,
        project_id=project_id,
        request_id=request_id,
        title=title,
        text=text,
        submitted_by=submitted_by,
        submitted_at=submitted_at,
        created_at=created_at,
        version=version,
        decision=Decision.from_json(decision_json),
        ruling=ruling_of(case_id, verdict, *rest[n:]),
        preanalysis=preanalysis_of(*rest[:n]),
    )


def brief_select() -> Rows:
    """The columns of :func:`brief_of`, every case (add a ``where`` and an order)."""
    return _joined(
        select(
            CaseRow.id,
            CaseRow.project_id,
            CaseRow.title,
            CaseRow.version,
            DecisionRow.verdict,
            DecisionRow.decision_json,
            *RULING_COLUMNS,
        )
    )


def brief_of(
    case_id: str,
    project_id: str,
    title: str,
    version: int,
    verdict: str,
    decision_json: str,
    *ruling: Any,
) -> CaseBrief:
    """The :class:`~etki.domain.CaseBrief` of a row of :func:`brief_select`: the
    decision's JSON is parsed for four members (the decisive clause from its evidence)
    and dropped."""
    doc = json.loads(decision_json)
    cited = tuple(doc["cited_clauses"])
    steps = ((e.get("step", ""), e.get("detail", "")) for e in doc.get("evidence") or ())
    return CaseBrief(
        case_id,
        project_id,
        title,
        BriefDecision(
            doc["verdict"], cited, tuple(doc["impacted_modules"]), deciding_ref(steps, cited)
        ),
        ruling_of(case_id, verdict, *ruling),
        version,
    )


# --- the project's knowledge ------------------------------------------------------------


def config_of(config_json: str) -> ProjectConfig:
    """The :class:`~etki.domain.ProjectConfig` stored as a project's ``config_json`` (a
    ``thresholds`` key stored by an earlier release is ignored: nothing ever read it)."""
    cfg = json.loads(config_json)
    return ProjectConfig(
        id=cfg["id"],
        name=cfg["name"],
        languages=tuple(cfg.get("languages", ())),
        reviewers=tuple(Reviewer(**r) for r in cfg.get("reviewers", ())),
    )


def edge_types_of(edge_types_json: str) -> tuple[tuple[str, str], ...]:
    """A project's stored ``edge_types_json`` as (alias, canonical) pairs."""
    return tuple((alias, canonical) for alias, canonical in json.loads(edge_types_json))


def contract_of(
    id: str, title: str, source: str, chunking: str, clauses: tuple[ScopeClause, ...]
) -> Contract:
    """A :class:`~etki.domain.Contract` from its ``contracts`` row and its clauses."""
    return Contract(id=id, title=title, source=source, clauses=clauses, chunking=chunking)


def clause_row(project_id: str, c: ScopeClause, position: int) -> ClauseRow:
    """The ``clauses`` row of clause ``c`` of project ``project_id`` at ``position``
    (its edges as JSON): the inverse of :func:`clause_of`."""
    return ClauseRow(
        project_id=project_id,
        ref=c.ref,
        contract_id=c.contract_id,
        number=c.number,
        title=c.title,
        text=c.text,
        kind=c.kind,
        level=c.level,
        source=c.source,
        line=c.line,
        parent=c.parent,
        position=position,
        edges_json=json.dumps([asdict(e) for e in c.edges], ensure_ascii=False),
    )


CLAUSE_COLUMNS = (
    ClauseRow.ref,
    ClauseRow.contract_id,
    ClauseRow.number,
    ClauseRow.title,
    ClauseRow.text,
    ClauseRow.kind,
    ClauseRow.level,
    ClauseRow.source,
    ClauseRow.line,
    ClauseRow.parent,
)
"""The ``clauses`` columns of :func:`clause_of`, ``edges_json`` left out (add it to read
the edges)."""


def clause_of(
    ref: str,
    contract_id: str,
    number: str,
    title: str,
    text: str,
    kind: Any,
    level: int,
    source: str,
    line: int,
    parent: str | None,
    edges_json: str | None = None,
) -> ScopeClause:
    """A :class:`~etki.domain.ScopeClause` from its :data:`CLAUSE_COLUMNS` and, when
    read, its ``edges_json`` (None: the clause without edges)."""
    edges = tuple(Edge(**e) for e in json.loads(edges_json)) if edges_json else ()
    return ScopeClause(
        ref=ref,
        contract_id=contract_id,
        number=number,
        title=title,
        text=text,
        kind=kind,
        level=level,
        source=source,
        line=line,
        parent=parent,
        edges=edges,
    )


MODULE_COLUMNS = (
    ModuleRow.id,
    ModuleRow.path,
    ModuleRow.summary,
    ModuleRow.depends_on_json,
    ModuleRow.language,
)
"""The ``modules`` columns of :func:`module_of`."""


def module_of(
    id: str, path: str, summary: str, depends_on_json: str, language: str | None
) -> Module:
    """A :class:`~etki.domain.Module` from its :data:`MODULE_COLUMNS`."""
    return Module(
        id=id,
        path=path,
        summary=summary,
        depends_on=tuple(json.loads(depends_on_json)),
        language=language,
    )


WORKITEM_COLUMNS = (
    WorkItemRow.id,
    WorkItemRow.title,
    WorkItemRow.kind,
    WorkItemRow.date,
    WorkItemRow.modules_json,
    WorkItemRow.effort_days,
)
"""The ``workitems`` columns of :func:`workitem_of`."""


def workitem_of(
    id: str, title: str, kind: str, date: str, modules_json: str, effort_days: float | None
) -> WorkItem:
    """A :class:`~etki.domain.WorkItem` from its :data:`WORKITEM_COLUMNS`."""
    return WorkItem(
        id=id,
        title=title,
        kind=kind,
        date=date,
        modules=tuple(json.loads(modules_json)),
        effort_days=effort_days,
    )


def title_of(request: Request) -> str:
    """The title a case stores for ``request``: its title, or the first line of its text
    cut to 80 characters, at the last space when one falls in its second half (a word is
    not cut: "Fiscal Responsibili…" read as a typo), with ``…`` ending a cut line; or its
    id when the text is blank."""
    if request.title and request.title.strip():
        return request.title.strip()
    first = request.text.strip().splitlines()[0] if request.text.strip() else request.id
    if len(first) <= 80:
        return first
    head = first[:80]
    space = max(head.rfind(" "), head.rfind("\t"))
    return (head[:space] if space >= 40 else head[:79]).rstrip() + "…"
