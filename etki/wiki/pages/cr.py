"""The draft change-request page of a case ruled CHANGE_REQUEST
(``change-requests/CR-{yyyymmdd}-{slug}.md``), also exported outside the wiki without
links (:func:`render_cr_page`, ``etki cr export``). It depends only on the case (with
its reviewer's estimate, issue 35 item 2) and the project's clauses, modules and work
items.
"""

from __future__ import annotations

from typing import Any

from etki.domain import (
    CaseRecord,
    Project,
    is_declared_remit,
)
from etki.mdtext.display import clause_markdown
from etki.mdtext.literal import md_block, md_code, md_inline, md_paragraphs
from etki.wiki.model import WikiModel
from etki.wiki.pages.shared import (
    _meta_text,
    _page,
    _remit_words,
    _risk_lines,
    effort_basis_markdown,
)
from etki.wiki.paths import (
    clause_anchor,
    contract_path,
    cr_id,
    cr_path,
    decision_path,
    has_cr_page,
    module_path,
    relative_link,
)

DECIDING_STEPS: tuple[str, ...] = (
    "semantic_match",
    "exclusion_check",
    "defect_detection",
    "classify",
    "draft_clauses",
)
"""The evidence-chain steps a change request quotes as the engine's reasons (in chain
order): how the request was matched when no clause shares its language, the
exclusion check, the defect check, the deciding rule with its deciding sentence, and
any draft clause. Scoring and bookkeeping steps stay on the decision page."""


CR_DEFAULT_ASSUMPTIONS: tuple[str, ...] = (
    (
        "The request text is complete as sent, and nothing was agreed outside the "
        "contract documents."
    ),
    (
        "The effort range is the middle half (25th to 75th percentile) of the effort "
        "recorded on comparable past work items; it is not a quote."
    ),
)
"""What a change request assumes when its frozen decision stores no assumptions: the
engine's own defaults (the statement every decision of this engine version ends with,
and how its effort range is made, :mod:`etki.triage.effort`)."""


def _cr_page(m: WikiModel, case: CaseRecord, *, links: bool = True) -> bytes:
    """The draft change request of a case ruled CHANGE_REQUEST, rendered from its current
    ruling and its frozen decision only (see :func:`render_cr_page`)."""
    r = case.ruling
    assert r is not None and has_cr_page(case)
    d = case.decision
    here = cr_path(case)
    ident = cr_id(case)

    def link(label: str, target: str) -> str:
        return f"[{label}]({relative_link(here, target)})" if links else label

    meta: dict[str, Any] = {
        "kind": "change-request",
        "cr_id": _meta_text(ident),
        "status": "draft",
        "case_id": _meta_text(case.case_id),
        "request_id": _meta_text(case.request_id),
        "title": _meta_text(case.title),
        "project": _meta_text(case.project_id),
        "submitted_by": _meta_text(case.submitted_by) if case.submitted_by else None,
        "submitted_at": _meta_text(case.submitted_at) if case.submitted_at else None,
        "verdict": d.verdict,
        "ruling": r.ruling,
        "reviewer": _meta_text(r.reviewer),
        "ruled_at": _meta_text(r.ruled_at),
        "override": r.is_override,
        "cited_clauses": [_meta_text(ref) for ref in d.cited_clauses],
        "impacted_modules": [_meta_text(mod) for mod in d.impacted_modules],
        # the effort in force, as the body's "Effort:" line: the reviewer's estimate when
        # one is recorded (a trial: the frontmatter kept the engine's range and lacked
        # the price and reason the body shows); the engine's range stays beside it
        **(
            {
                "effort": _meta_text(est.days_words()),
                "engine_effort": d.effort.label(),
                "effort_basis": [_meta_text(w) for w in d.effort.basis],
                "reviewer_estimate_days": _meta_text(est.days),
                "reviewer_estimate_price": _meta_text(est.price) if est.price else None,
                "reviewer_estimate_currency": _meta_text(est.currency) if est.price else None,
                "reviewer_estimate_reason": _meta_text(est.reason),
                "reviewer_estimate_by": _meta_text(est.actor),
                "reviewer_estimate_at": _meta_text(est.at),
            }
            if (est := case.estimate) is not None
            else {
                "effort": d.effort.label(),
                "effort_basis": [_meta_text(w) for w in d.effort.basis],
            }
        ),
        "risk": d.risk.level,
        "decision": decision_path(case),
    }
    title = md_inline(case.title) or md_inline(case.case_id)
    lines = [f"# Change request: {title}", ""]
    lines += [
        f"- **CR id:** {md_inline(ident)}",
        "- **Status:** draft, for the client's review",
        f"- **Project:** {md_inline(m.project.config.name)} ({md_inline(m.project.id)})",
        f"- **Case:** {md_inline(case.case_id)} (request {md_inline(case.request_id)})",
        f"- **Converted to CR** by {md_inline(r.reviewer)}, {md_inline(r.ruled_at)}",
        (
            f"- **Decision page:** "
            f"{link(md_inline(decision_path(case).rsplit('/', 1)[1][:-3]), decision_path(case))}"
        ),
        "",
        "## Request",
        "",
    ]
    who = []
    if case.submitted_by:
        who.append(f"by {md_inline(case.submitted_by)}")
    if case.submitted_at:
        who.append(f"on {md_inline(case.submitted_at)}")
    if who:
        lines += ["Submitted " + " ".join(who) + ".", ""]
    lines += [md_block(case.text), "", "## Reason", ""]
    if r.reason.strip():
        lines += [f"{md_inline(r.reviewer)} converted it to a change request:", ""]
        lines += [md_block(r.reason), ""]
    elif not r.is_override:
        lines += [
            (
                f"No reason given: {md_inline(r.reviewer)} agreed with the engine's verdict "
                f"{md_code(d.verdict)}; its reasons follow."
            ),
            "",
        ]
    else:
        lines += ["No reason given.", ""]
    if r.is_override:
        lines += [
            (
                f"This overrides the engine's verdict **{md_code(d.verdict)}** "
                f"(confidence {d.confidence:.2f})."
            ),
            "",
        ]
    lines += ["## Why the contract does not cover it", ""]
    if r.is_override:
        lines += [
            (
                f"The reviewer's reason above is why this is a change request: the engine "
                f"read the contract otherwise (it proposed {md_code(d.verdict)}). Its reading, "
                "for reference:"
            ),
            "",
        ]
    if d.reasoning.strip():
        lines += [md_paragraphs(d.reasoning), ""]
    steps = [e for e in d.evidence if e.step in DECIDING_STEPS]
    if steps:
        lines += [
            f"The engine's deciding lines (frozen decision, engine {md_inline(d.engine_version)}):",
            "",
        ]
        lines += [f"- **{md_inline(e.step)}** — {md_inline(e.detail)}" for e in steps]
        lines.append("")
    lines += ["### Cited clauses", ""]
    if not d.cited_clauses:
        lines += ["The decision cites no clause: none of the contract covers the request.", ""]
    for ref in d.cited_clauses:
        clause = m.clauses.get(ref)
        target = f"{contract_path(m.contract_of(ref))}#{clause_anchor(ref)}"
        label = link(md_inline(m.clause_label(ref)), target)
        if clause is None:
            lines += [f"#### {label}", "", "Not in the current contract.", ""]
            continue
        remit = is_declared_remit(clause)
        kind = f"{clause.kind}, {_remit_words(clause)}" if remit else clause.kind
        lines += [f"#### {label}", "", f"Kind: {md_inline(kind)}.", ""]
        shown = (
            (md_block(clause.text) if remit else clause_markdown(clause.text))
            if (clause.text.strip())
            else ""
        )
        if shown:
            lines += [shown, ""]
    lines += ["## Impacted modules", ""]
    for mod in d.impacted_modules:
        module = m.modules.get(mod)
        summary = f" — {md_inline(module.summary)}" if module and module.summary else ""
        lines.append(f"- {link(md_inline(mod), module_path(mod))}{summary}")
    if not d.impacted_modules:
        lines.append("None identified.")
    lines += ["", "## Effort", ""]
    basis = effort_basis_markdown(d.effort, m.workitems)
    est = case.estimate
    if est is not None:  # the reviewer's figure first; the engine's range stays below
        lines += [
            (
                f"**Effort: {md_inline(est.days_words())}** (reviewer's estimate by "
                f"{md_inline(est.actor)} on {md_inline(est.at[:10])}: {md_inline(est.reason)})"
            ),
            "",
        ]
        if est.price is not None:
            # grouped as the detail pane, the toast and the client document show it
            lines += [f"**Price:** {md_inline(est.price_shown() or '')}", ""]
        lines += ["The engine's range from comparable past work items:", ""]
    if d.effort.known:
        lines += [
            (
                f"**{md_inline(d.effort.shown())}**, from {len(d.effort.basis)} comparable past "
                f"work item{'s' if len(d.effort.basis) != 1 else ''}:"
            ),
            "",
        ]
    elif est is not None:
        lines += ["**Unknown**: no comparable past work item records effort.", ""]
    else:
        lines += [
            "**Unknown**: no comparable past work item records effort. Estimate it before sending.",
            "",
        ]
    if basis:
        lines += [*basis, ""]
    lines += [*_risk_lines(d.risk), "## Assumptions", ""]
    n_basis = len(d.effort.basis)
    comparable = (
        [f"- The work is like the {n_basis} past work item{'s' * (n_basis != 1)} under Effort."]
        if d.effort.known
        else []
    )
    if d.assumptions and not r.is_override:
        lines += ["The ruling and the estimate assume:", ""]
        lines += [f"- {md_inline(a)}" for a in d.assumptions]
        lines += comparable
    else:
        if d.assumptions:  # made for the verdict this ruling overrides
            lines += [
                (
                    f"The decision's assumptions were made for the engine's verdict "
                    f"{md_code(d.verdict)}, which this ruling overrides; for the record:"
                ),
                "",
                *(f"- {md_inline(a)}" for a in d.assumptions),
                "",
                "For this change request the engine's defaults apply:",
            ]
        else:
            lines.append("The decision stores no assumptions; the engine's defaults apply:")
        lines += ["", *(f"- {a}" for a in CR_DEFAULT_ASSUMPTIONS), *comparable]
    lines += [
        "",
        "## Provenance",
        "",
        f"- Engine version: {md_inline(d.engine_version)}",
        f"- Model version: {md_inline(d.model_version)}",
        f"- Index freshness: {md_inline(d.index_freshness)}",
    ]
    return _page(meta, lines)


def render_cr_page(project: Project, case: CaseRecord, *, links: bool = True) -> bytes:
    """The change-request page of ``case`` (ruled CHANGE_REQUEST) in ``project``:
    ``change-requests/CR-{yyyymmdd}-{slug}.md`` of the wiki, byte for byte, with
    ``links``; without, the same page with every link to another wiki page written as
    its words only (``[label](../x.md)`` -> ``label``), so a copy sent outside the wiki
    points at nothing the reader lacks (``etki cr export --format md``). The page
    depends only on the case and the project's clauses, modules and work items.

    Content: title and CR id, the request (client text literal), the reviewer's reason,
    why the contract does not cover it (the decision's reasoning, its deciding
    evidence lines, :data:`DECIDING_STEPS`, and the cited clauses in their display
    form), impacted modules, the reviewer's effort estimate (and price) when one is in
    force, the engine's effort range with its work items, risk, assumptions
    (the decision's, else :data:`CR_DEFAULT_ASSUMPTIONS`) and provenance. Raises
    ``ValueError`` for a case not ruled CHANGE_REQUEST."""
    if not has_cr_page(case):
        raise ValueError(f"case {case.case_id} is not ruled CHANGE_REQUEST: it has no CR page")
    return _cr_page(WikiModel(project), case, links=links)
