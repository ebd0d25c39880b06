"""The decision page of a ruled case (``decisions/...md``): the request, the ruling and
its history, reviewers' notes, the engine's frozen decision (cited clauses, impacted
modules, effort, risk, assumptions, evidence chain, provenance) and the saved
pre-analysis. It depends only on its own case and the project's clauses, modules and
work items (:mod:`etki.wiki.pages`).
"""

from __future__ import annotations

from typing import Any

from etki.domain import (
    CaseRecord,
    is_sure,
    sureness_line,
)
from etki.mdtext.literal import md_block, md_code, md_inline, md_paragraphs
from etki.wiki.model import WikiModel
from etki.wiki.pages.shared import (
    _cited_clause_lines,
    _meta_text,
    _num,
    _page,
    _risk_lines,
    effort_basis_markdown,
)
from etki.wiki.paths import (
    cr_id,
    cr_path,
    decision_path,
    has_cr_page,
    module_path,
    precedent_path,
    relative_link,
)


def _decision_page(m: WikiModel, case: CaseRecord) -> bytes:
    r = case.ruling
    assert r is not None
    d = case.decision
    here = decision_path(case)
    meta: dict[str, Any] = {
        "kind": "decision",
        "case_id": _meta_text(case.case_id),
        "request_id": _meta_text(case.request_id),
        "title": _meta_text(case.title),
        "project": _meta_text(case.project_id),
        "submitted_by": _meta_text(case.submitted_by) if case.submitted_by else None,
        "submitted_at": _meta_text(case.submitted_at) if case.submitted_at else None,
        "verdict": d.verdict,
        "ruling": r.ruling,
        "action": r.action,
        "reviewer": _meta_text(r.reviewer),
        "ruled_at": _meta_text(r.ruled_at),
        "override": r.is_override,
        "confidence": d.confidence,
        "sure": is_sure(d),
        "cited_clauses": [_meta_text(ref) for ref in d.cited_clauses],
        "impacted_modules": [_meta_text(mod) for mod in d.impacted_modules],
        "effort": d.effort.label(),
        "risk": d.risk.level,
        "engine_version": _meta_text(d.engine_version),
        "model_version": _meta_text(d.model_version),
        "index_freshness": _meta_text(d.index_freshness),
    }
    if d.evidence_kind:  # an engine before 3.0.0 did not say
        meta["evidence_kind"] = _meta_text(d.evidence_kind)
    if r.is_override:
        meta["precedent"] = precedent_path(case)
    if case.earlier_rulings:
        meta["amended"] = len(case.earlier_rulings)
    if has_cr_page(case):
        meta["change_request"] = cr_path(case)
    lines = [f"# {md_inline(case.title) or md_inline(case.case_id)}", ""]
    lines += [
        f"- **Case:** {md_inline(case.case_id)} (request {md_inline(case.request_id)})",
        (
            f"- **Ruling:** {md_code(r.ruling)} ({md_code(r.action)}) by {md_inline(r.reviewer)}, "
            f"{md_inline(r.ruled_at)}"
        ),
        f"- **Engine verdict:** {md_code(d.verdict)}, confidence {d.confidence:.2f}",
    ]
    if not is_sure(d):  # the doubts may quote the client: literal text, never markdown
        lines.append(f"- **Engine sureness:** {md_inline(sureness_line(d))}")
    if r.is_override:
        pre = precedent_path(case)
        lines.append(
            f"- **Override:** yes, a precedent: "
            f"[{md_inline(pre.rsplit('/', 1)[1][:-3])}]({relative_link(here, pre)})"
        )
    else:
        lines.append("- **Override:** no")
    if has_cr_page(case):
        lines.append(
            f"- **Change request:** draft [{md_inline(cr_id(case))}]"
            f"({relative_link(here, cr_path(case))})"
        )
    lines += ["", "## Request", ""]
    who = []
    if case.submitted_by:
        who.append(f"by {md_inline(case.submitted_by)}")
    if case.submitted_at:
        who.append(f"on {md_inline(case.submitted_at)}")
    if who:
        lines += ["Submitted " + " ".join(who) + ".", ""]
    lines += [md_block(case.text), ""]
    lines += [
        "## Ruling",
        "",
        (
            f"**{md_code(r.ruling)}** ({md_code(r.action)}) by {md_inline(r.reviewer)}, "
            f"{md_inline(r.ruled_at)}."
        ),
    ]
    if r.is_override:
        lines += ["", f"This overrides the engine's verdict **{md_code(d.verdict)}**."]
    lines += ["", "Reason:", ""]
    lines += [md_block(r.reason) if r.reason.strip() else "No reason given.", ""]
    lines += _ruling_history_lines(case)
    lines += _note_lines(case)
    lines += [
        "## Engine decision",
        "",
        f"Verdict **{md_code(d.verdict)}** with confidence {d.confidence:.2f}.",
        "",
    ]
    if d.reasoning.strip():
        lines += [md_paragraphs(d.reasoning), ""]
    lines += _cited_clause_lines(m, here, d.cited_clauses)
    lines += ["## Impacted modules", ""]
    if d.impacted_modules:
        for mod in d.impacted_modules:
            module = m.modules.get(mod)
            summary = f" — {md_inline(module.summary)}" if module and module.summary else ""
            lines.append(f"- [{md_inline(mod)}]({relative_link(here, module_path(mod))}){summary}")
    else:
        lines.append("None.")
    lines += [
        "",
        "## Effort",
        "",
        md_inline(d.effort.shown())
        + (
            f", from {len(d.effort.basis)} comparable past work "
            f"item{'s' if len(d.effort.basis) != 1 else ''}:"
            if d.effort.basis
            else ""
        ),
        "",
    ]
    if d.effort.basis:  # titles, days and dates, as the desk shows them (issue 12 item 7)
        lines += [*effort_basis_markdown(d.effort, m.workitems), ""]
    lines += _risk_lines(d.risk)
    lines += ["## Assumptions", ""]
    lines += [f"- {md_inline(a)}" for a in d.assumptions] or ["None."]
    lines += ["", "## Evidence chain", ""]
    for i, step in enumerate(d.evidence, 1):
        lines.append(f"{i}. **{md_inline(step.step)}** — {md_inline(step.detail)}")
        lines += [f"   - {md_inline(name)}: {_num(value)}" for name, value in step.scores]
    if not d.evidence:
        lines.append("None recorded.")
    lines += [
        "",
        "## Provenance",
        "",
        f"- Engine version: {md_inline(d.engine_version)}",
        f"- Model version: {md_inline(d.model_version)}",
        f"- Index freshness: {md_inline(d.index_freshness)}",
        "",
    ]
    lines += preanalysis_lines(case)
    return _page(meta, lines)


def _ruling_history_lines(case: CaseRecord) -> list[str]:
    """The ``## Ruling history`` section of an amended case's decision page: every
    ruling, oldest first (ruling, action, reviewer, time, reason), the one in force
    last. Nothing for a case ruled once (its ``## Ruling`` is the whole history)."""
    if not case.earlier_rulings:
        return []
    lines = [
        "## Ruling history",
        "",
        (
            f"Ruled {len(case.ruling_history)} times (amended); every ruling, oldest "
            "first. The last one is in force."
        ),
        "",
    ]
    last = len(case.ruling_history)
    for i, h in enumerate(case.ruling_history, 1):
        state = "in force" if i == last else "amended"
        lines.append(
            f"{i}. **{md_code(h.ruling)}** ({md_code(h.action)}) by {md_inline(h.reviewer)}, "
            f"{md_inline(h.ruled_at)} ({state})"
        )
        reason = md_inline(h.reason) if h.reason.strip() else "no reason given"
        lines.append(f"   - Reason: {reason}")
    return [*lines, ""]


def _note_lines(case: CaseRecord) -> list[str]:
    """The ``## Notes`` section: reviewers' notes on the case, oldest first (who, when,
    the note as literal one-line text). Nothing for a case without notes."""
    if not case.notes:
        return []
    lines = ["## Notes", ""]
    for n in case.notes:
        lines.append(f"- {md_inline(n.actor)}, {md_inline(n.at)}: {md_inline(n.text)}")
    return [*lines, ""]


PREANALYSIS_HEADING = "## The saved pre-analysis"


NO_PREANALYSIS = (
    "No pre-analysis: no model configured (ETKI_LLM_BASE_URL, ETKI_LLM_MODEL) when the "
    "case was stored, or none asked for; `etki preanalyse CASE_ID` asks for one."
)


_PREANALYSIS_SECTIONS = (
    ("affected_modules", "Affected modules"),
    ("approach", "Approach"),
    ("open_questions", "Open questions"),
)


def preanalysis_lines(case: CaseRecord) -> list[str]:
    """The decision page's section on the case's newest saved pre-analysis (model text,
    every string literal: :func:`md_inline`), or the line saying there is none."""
    p = case.preanalysis
    lines = [PREANALYSIS_HEADING, ""]
    if p is None:
        return [*lines, NO_PREANALYSIS]
    lines.append(
        f"Written by model {md_inline(p.model)} (prompt {md_inline(p.prompt_version)}) at "
        f"{md_inline(p.created_at)}. A developer's starting point written by a language "
        "model, never an input to the verdict; its text is shown as written."
    )
    lines.append("")
    if p.status != "ok" or p.body is None:
        return [*lines, f"It failed: {md_inline(p.error or 'no reason given')}"]
    b = p.body
    where = "the related-context block stored with the decision"
    if b.context == "packed":
        where = "a related-context block packed when it was asked for"
    lines += [f"Each claim names the node it rests on, from {where} ({b.context_nodes} nodes).", ""]
    for key, title in _PREANALYSIS_SECTIONS:
        claims = getattr(b, key)
        lines += [f"### {title}", ""]
        lines += [f"- {md_inline(c.text)} (node {md_inline(c.node)})" for c in claims] or ["None."]
        lines.append("")
    lines += ["### Effort", ""]
    if b.effort is None:
        lines.append("None.")
    else:
        lines.append(f"{md_inline(b.effort.text)} (node {md_inline(b.effort.node)})")
    if b.dropped:
        lines += ["", "### Dropped", ""]
        lines.append("Claims that named a node not in the context block (or over the limit):")
        lines += [f"- {md_inline(section)}: node {md_inline(node)}" for section, node in b.dropped]
    return lines
