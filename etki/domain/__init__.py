"""Values that cross module boundaries: the loaded project folder, the decision, the
stored cases with their rulings and memory, and the report counts. The evidence chain
and its text format live in :mod:`etki.domain.evidence` (re-exported here).

A stored case has three shapes, one per purpose: :class:`CaseRecord` (the full record:
request, whole frozen decision, ruling), :class:`CaseSummary` (the light queue row: the
listed columns, no evidence chain) and :class:`CaseBrief` (the wiki's shared-page row).

All are frozen dataclasses. Lists are tuples so values can be hashed and compared.
``Decision.to_json`` is the one canonical serialisation (sorted keys, UTF-8, no
floating-point noise): the same request, index and engine version give the same bytes.

The values are grouped in parts, each re-exported here (issue 31), so
``from etki.domain import X`` keeps working:

* :mod:`~etki.domain.project`: the loaded project folder (config, contracts, clauses,
  remit, modules, work items, requests);
* :mod:`~etki.domain.decision`: the frozen decision, effort, risk and sureness;
* :mod:`~etki.domain.evidence`: the evidence chain and the one owner of its text format;
* :mod:`~etki.domain.cases`: stored cases, rulings, events and clause memory;
* :mod:`~etki.domain.reports`: the report counts;
* :mod:`~etki.domain.preanalysis`: a developer pre-analysis.
"""

from __future__ import annotations

from etki.domain.cases import (
    ACTIONS,
    EVENT_KINDS,
    RESOLUTION_VERDICTS,
    BriefDecision,
    CaseBrief,
    CaseEvent,
    CaseRecord,
    CaseSummary,
    ClauseMemory,
    ClauseResolution,
    DisputedClause,
    ResolutionOutcome,
    RulingOutcome,
    RulingRecord,
)
from etki.domain.crterms import (
    TERM_MAX_CHARS,
    TERMS_MAX_ITEMS,
    CrTerms,
    parse_cr_terms,
    parse_valid_until,
)
from etki.domain.decision import (
    SURENESS_STEP,
    UNSAID_DOUBT,
    VERDICTS,
    BasisLine,
    Decision,
    DecisionSummary,
    Effort,
    Risk,
    SimilarRuling,
    Verdict,
    days_shown,
    effort_basis_lines,
    is_sure,
    memory_sentence,
    sureness_line,
    sureness_reasons,
)
from etki.domain.estimate import (
    ESTIMATE_MAX_DAYS,
    ReviewerEstimate,
    parse_estimate,
)
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
from etki.domain.preanalysis import (
    PREANALYSIS_STATUSES,
    Claim,
    Preanalysis,
    PreanalysisBody,
)
from etki.domain.project import (
    ACCEPTED_REMIT_PREFIX,
    CLAUSE_KINDS,
    CLAUSE_STATUSES,
    REMIT_CONTRACT_ID,
    ClauseChunk,
    ClauseKind,
    ClauseStatus,
    Contract,
    Edge,
    Module,
    PlainText,
    Project,
    ProjectConfig,
    RemitStatement,
    Request,
    Reviewer,
    ScopeClause,
    WorkItem,
    is_accepted_remit,
    is_declared_remit,
)
from etki.domain.reports import (
    AgeBucket,
    MonthEffort,
    OverdueLook,
    Report,
    ReviewerRulings,
)
