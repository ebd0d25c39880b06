"""Deterministic scope triage: request text -> :class:`etki.domain.Decision`.

Public API::

    from etki.triage import TriageEngine, case_id_for, ENGINE_VERSION, MODEL_VERSION
    engine = TriageEngine(project, build_index(project), memory=..., disputed_escalation=True)
    decision = engine.triage(case_id_for(project.id, request.id), request.text, request.title)

Modules, one job each: ``normalise`` (tokens), ``cues`` (wording lists), ``contract``
(clause and sentence roles), ``scoring`` (BM25), ``modules`` (module matching),
``classify`` (verdict and confidence), ``effort`` (effort range), ``risk`` (signals),
``graph`` (what the engine reads from the knowledge index), ``case_ids`` (stable case
ids), ``naming`` (which sentence names the ask), ``sureness`` (the kind of evidence and
whether it is plain), ``remit`` (the accepted remit lines), ``reading`` (what the steps
read off a request), ``by_meaning`` (a foreign request read with an embedding model),
``annotations`` (draft, effort, risk and memory steps), ``explain`` (assumptions and
reasoning in words), ``engine`` (the pipeline and the decision).
"""

from etki.triage.case_ids import assign_case_ids, case_id_for
from etki.triage.engine import ENGINE_VERSION, MODEL_VERSION, TriageEngine

__all__ = ["ENGINE_VERSION", "MODEL_VERSION", "TriageEngine", "assign_case_ids", "case_id_for"]
