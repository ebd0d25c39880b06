"""The wiki's pages: rows in, bytes out (DESIGN.md, "Wiki").

The wiki is a projection of the database: every page is a pure function of the stored
:class:`~etki.domain.Project` and :class:`~etki.domain.CaseRecord` values. No clock, no
randomness, no absolute paths; lists are sorted; frontmatter is written by
:func:`etki.frontmatter.dump_frontmatter` (``yaml.safe_dump``, sorted keys, through its
memo :func:`etki.frontmatter.frontmatter_bytes`), never by string formatting; text is
UTF-8 with LF line endings and exactly one trailing newline. The same rows in any order
give the same bytes. Page paths come from :mod:`etki.wiki.paths`; client text is a YAML
*value* in frontmatter and literal markdown in the body (:mod:`etki.wiki.markdown`).

Page dependencies are kept narrow on purpose so a ruling only changes the pages
:func:`render_case_pages` returns: a decision or precedent page depends only on its own
case and the project's clause titles; a contract page on the cases citing its clauses; a
module page on the cases impacting it; ``index.md`` and ``disputed.md`` on everything.

The shared pages are rendered from a :class:`~etki.wiki.model.WikiModel`, their
fragments (table rows per case, sections per clause, lists, frontmatter entries) kept in
its :class:`~etki.wiki.model.PageCache`. The HITL hook keeps one model alive between
rulings and re-renders only what a change touches (:func:`render_changed`); a full
render builds one from scratch (:func:`render_wiki`, :func:`render_model`). Both give the
same bytes (``tests/test_wiki_render.py`` checks it over random sequences of changes).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from etki.domain import (
    REMIT_CONTRACT_ID,
    VERDICTS,
    CaseBrief,
    CaseRecord,
    ClauseResolution,
    Effort,
    Project,
    Risk,
    ScopeClause,
    WorkItem,
    effort_basis_lines,
    is_accepted_remit,
    is_declared_remit,
    is_sure,
    sureness_line,
)
from etki.frontmatter import FrontmatterMemo, frontmatter_bytes
from etki.text import printable, sort_key
from etki.wiki.clauses import clause_markdown
from etki.wiki.markdown import md_block, md_code, md_inline, md_paragraphs, md_table
from etki.wiki.model import WikiModel
from etki.wiki.paths import (
    DISPUTED,
    INDEX,
    NamedCase,
    contract_path,
    cr_id,
    cr_path,
    decision_path,
    has_cr_page,
    module_path,
    precedent_path,
    relative_link,
)

__all__ = [
    "DECIDING_STEPS",
    "LAST_RULINGS",
    "case_page_paths",
    "effort_basis_markdown",
    "page_keys",
    "render_case_pages",
    "render_changed",
    "render_cr_page",
    "render_model",
    "render_wiki",
    "stale_case_pages",
]

LAST_RULINGS = 10
"""How many of the newest rulings ``index.md`` lists."""


@lru_cache(maxsize=1 << 16)  # pure; clause refs and names recur on every page
def _meta_text(text: str | None) -> str:
    """Untrusted text as a YAML value: one line, control characters made visible."""
    return printable(text or "", multiline=False)


def _num(value: float) -> str:
    return f"{value:g}"


def _page(meta: dict[str, Any], lines: Iterable[str]) -> bytes:
    body = "\n".join(lines).rstrip("\n") + "\n"
    return frontmatter_bytes(meta) + body.encode("utf-8", errors="replace")


def _page_fm(m: WikiModel, page: str, meta: dict[str, Any], lines: Iterable[str | bytes]) -> bytes:
    """Like :func:`_page` (same bytes: UTF-8 encoding is per code point, so encoding the
    lines one by one and joining gives what encoding the joined text gives), with the
    frontmatter memoised in the model's cache and lines that are already encoded
    fragments (``bytes``) used as they are."""
    parts = [x if isinstance(x, bytes) else x.encode("utf-8", errors="replace") for x in lines]
    while parts:  # "\n".join(parts).rstrip("\n"), without copying the whole body
        last = parts[-1].rstrip(b"\n")
        if last:
            parts[-1] = last
            break
        parts.pop()
    fm = m.cache.frontmatter.get(page, FrontmatterMemo).dump(meta)
    if not parts:
        return fm + b"\n"
    parts[0] = fm + parts[0]
    parts.append(b"")  # the one trailing newline
    return b"\n".join(parts)


def _case_link(src: str, case: NamedCase, text: str | None = None) -> str:
    label = md_inline(case.title if text is None else text) or md_inline(case.case_id)
    return f"[{label}]({relative_link(src, decision_path(case))})"


def _ruling_row(m: WikiModel, depth: int, case: CaseBrief) -> str:
    """The ruling list item of ``case`` on a page ``depth`` folders deep (a contract's
    clause, a module, index.md's last rulings)."""
    return m.cache.rows.get((depth, case.case_id), lambda: _make_ruling_row(depth, case))


def _make_ruling_row(depth: int, case: CaseBrief) -> str:
    """``- **RULING** by reviewer, ruled-at (engine VERDICT):`` / the request's title /
    ``(case [case-id](decision page))``: short lines, so the page reads at 80 columns in
    a terminal and a viewer reflows one sentence (a six-column table did not, as
    disputed.md's did not: issue 12 item 7)."""
    src = "x/" * depth
    r = case.ruling
    assert r is not None
    who = f"{md_inline(r.reviewer)}, {md_inline(r.ruled_at)}"
    lines = [f"- **{md_code(r.ruling)}** by {who} (engine {md_code(case.decision.verdict)}):"]
    if title := md_inline(case.title):
        lines.append(f"  {title}")
    lines.append(f"  (case {_case_link(src, case, case.case_id)})")
    return "\n".join(lines)


# --- pages ------------------------------------------------------------------------------------


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


def _remit_words(clause: ScopeClause) -> str:
    """How a page names a declared-remit clause: written in etki.yaml, or accepted from
    the contract with ``etki remit accept`` (kept in the store)."""
    if is_accepted_remit(clause):
        return f"the PMO's accepted remit, from {clause.source}"
    return "the PMO's declared remit in etki.yaml"


def _cited_clause_lines(m: WikiModel, here: str, refs: Sequence[str]) -> list[str]:
    lines = ["## Cited clauses", ""]
    for ref in refs:
        clause = m.clauses.get(ref)
        kind = f" ({clause.kind})" if clause is not None else " (not in the current contract)"
        if clause is not None and is_declared_remit(clause):
            kind = f" ({clause.kind}, {_remit_words(clause)})"
        lines.append(
            f"- [{md_inline(m.clause_label(ref))}]"
            f"({relative_link(here, contract_path(m.contract_of(ref)))}){kind}"
        )
    if not refs:
        lines.append("None.")
    return [*lines, ""]


def _precedent_page(m: WikiModel, case: CaseRecord) -> bytes:
    r = case.ruling
    assert r is not None
    d = case.decision
    here = precedent_path(case)
    meta: dict[str, Any] = {
        "kind": "precedent",
        "case_id": _meta_text(case.case_id),
        "title": _meta_text(case.title),
        "project": _meta_text(case.project_id),
        "verdict": d.verdict,
        "ruling": r.ruling,
        "reviewer": _meta_text(r.reviewer),
        "ruled_at": _meta_text(r.ruled_at),
        "reason": printable(r.reason),
        "cited_clauses": [_meta_text(ref) for ref in d.cited_clauses],
        "impacted_modules": [_meta_text(mod) for mod in d.impacted_modules],
        "decision": decision_path(case),
    }
    lines = [
        f"# Precedent: {md_inline(case.title) or md_inline(case.case_id)}",
        "",
        (
            f"The engine proposed **{md_code(d.verdict)}** (confidence {d.confidence:.2f}); "
            f"{md_inline(r.reviewer)} ruled **{md_code(r.ruling)}** ({md_code(r.action)}) on "
            f"{md_inline(r.ruled_at)}."
        ),
        "",
        f"Decision page: {_case_link(here, case, case.case_id)}",
        "",
        "## Reason",
        "",
        md_block(r.reason) if r.reason.strip() else "No reason given.",
        "",
        "## Request",
        "",
        md_block(case.text),
        "",
    ]
    lines += _cited_clause_lines(m, here, d.cited_clauses)
    return _page(meta, lines)


# --- the change-request page ------------------------------------------------------------------

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


def _risk_lines(risk: Risk) -> list[str]:
    """The ``## Risk`` section of the decision and change-request pages: level, signals
    and whether the 24h PMO look was asked for, as the frozen decision holds them."""
    signals = ", ".join(md_inline(x) for x in risk.signals) or "none"
    return [
        "## Risk",
        "",
        (
            f"Level {md_inline(risk.level)}; signals: {signals}; "
            f"24h PMO look: {'yes' if risk.pmo_look_24h else 'no'}."
        ),
        "",
    ]


def effort_basis_markdown(effort: Effort, workitems: Mapping[str, WorkItem]) -> list[str]:
    """The work items an effort range rests on as markdown list items, ``- WI-2 Card
    payments · 8 person-days · 2024-02-01`` (:func:`etki.domain.effort_basis_lines`,
    the reading the desk's detail pane shows), client text escaped; an id the project
    no longer has says so. Empty when the range rests on none."""
    out: list[str] = []
    for entry in effort_basis_lines(effort, workitems):
        if entry.title is None:
            out.append(f"- {md_inline(entry.id)} (not among the project's work items)")
            continue
        parts = [f"{md_inline(entry.id)} {md_inline(entry.title)}".rstrip(), md_inline(entry.days)]
        if entry.date:
            parts.append(md_inline(entry.date))
        out.append("- " + " · ".join(parts))
    return out


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
        "effort": d.effort.label(),
        "effort_basis": [_meta_text(w) for w in d.effort.basis],
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
        label = link(md_inline(m.clause_label(ref)), contract_path(m.contract_of(ref)))
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
    if d.effort.known:
        lines += [
            (
                f"**{md_inline(d.effort.shown())}**, from {len(d.effort.basis)} comparable past "
                f"work item{'s' if len(d.effort.basis) != 1 else ''}:"
            ),
            "",
        ]
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
    form), impacted modules, the effort range with its work items, risk, assumptions
    (the decision's, else :data:`CR_DEFAULT_ASSUMPTIONS`) and provenance. Raises
    ``ValueError`` for a case not ruled CHANGE_REQUEST."""
    if not has_cr_page(case):
        raise ValueError(f"case {case.case_id} is not ruled CHANGE_REQUEST: it has no CR page")
    return _cr_page(WikiModel(project), case, links=links)


def _contract_section(m: WikiModel, ref: str) -> bytes:
    """One cited clause's section of its contract page (memoised per ref)."""
    return m.cache.contract_sections.get(ref, lambda: _make_contract_section(m, ref))


def _resolution_lines(m: WikiModel, ref: str, src: str) -> list[str]:
    """What a page ``src`` says of the resolution of a disputed clause ``ref``: nothing
    when there is none or the clause is not disputed; else one paragraph, ``PMO
    resolution: rule **IN_SCOPE** — “reason” (name, date).``, and when a later ruling
    overrode it, the paragraph naming that case. The reason and the name are client
    text: escaped (:func:`etki.wiki.markdown.md_inline`)."""
    resolution, overridden_by = m.standing(ref)
    if resolution is None or not m.memory(ref)[1]:
        return []
    lines = [
        (
            f"PMO resolution: rule **{md_code(resolution.verdict)}** — "
            f"“{md_inline(resolution.reason)}” ({md_inline(resolution.reviewer)}, "
            f"{md_inline(resolution.at)})."
        ),
        "",
    ]
    if overridden_by is not None:
        case = m.cases.get(overridden_by)
        link = (
            _case_link(src, case, overridden_by) if case is not None else md_inline(overridden_by)
        )
        ruling = case.ruling.ruling if case is not None and case.ruling is not None else "?"
        lines += [
            (
                f"Disputed again: the resolution was overridden by case {link}, ruled "
                f"**{md_code(ruling)}** after it."
            ),
            "",
        ]
    return lines


def _dispute_flag(m: WikiModel, ref: str) -> str:
    """``**DISPUTED-RESOLVED**`` while a resolution stands, else ``**DISPUTED**``."""
    resolution, overridden_by = m.standing(ref)
    return "**DISPUTED-RESOLVED**" if resolution and not overridden_by else "**DISPUTED**"


def _make_contract_section(m: WikiModel, ref: str) -> bytes:
    clause = m.clauses.get(ref)
    count, disputed, _ = m.memory(ref)
    lines = [f"## {md_inline(m.clause_label(ref))}", ""]
    kind = clause.kind if clause is not None else "not in the current contract"
    flag = _dispute_flag(m, ref) if disputed else "not disputed"
    remit = clause is not None and is_declared_remit(clause)
    if remit:
        assert clause is not None
        side = "out" if clause.kind == "exclusion" else "in"
        lines += [
            (
                (
                    f"Accepted remit: a sentence of {md_inline(clause.source)} the PMO "
                    "accepted as outside the remit (`etki remit accept`), kept in the store."
                )
                if is_accepted_remit(clause)
                else (
                    f"Declared remit: a statement the PMO wrote in etki.yaml "
                    f"(scope.{side}, line {clause.line}), not contract text."
                )
            ),
            "",
        ]
    lines += [f"Kind {md_inline(kind)}; precedents {count}; {flag}.", ""]
    lines += _resolution_lines(m, ref, contract_path(m.contract_of(ref)))
    if clause is not None and clause.text.strip():
        # a remit statement is plain text; a contract clause is shown in its display
        # form (issue 12 item 1): reflowed, no HTML, links as their words, escaped
        shown = md_block(clause.text) if remit else clause_markdown(clause.text)
        lines += [shown, ""] if shown else []
    lines += [_ruling_row(m, 2, m.case_of(k)) for k in m.history[ref]]
    lines.append("")
    return "\n".join(lines).encode("utf-8", errors="replace")


def _contract_page(m: WikiModel, contract_id: str) -> bytes:
    here = contract_path(contract_id)
    contract = m.contracts.get(contract_id)
    refs = sorted(m.refs_of.get(contract_id, ()), key=m.clause_order)
    title = contract.title if contract is not None else contract_id
    meta: dict[str, Any] = {
        "kind": "contract",
        "contract_id": _meta_text(contract_id),
        "title": _meta_text(title),
        "project": _meta_text(m.project.id),
        "cited_clauses": [_meta_text(ref) for ref in refs],
        "disputed": [_meta_text(ref) for ref in refs if m.memory(ref)[1]],
        "decisions": len({k[1] for ref in refs for k in m.history[ref]}),
    }
    resolved = [
        _meta_text(ref)
        for ref in refs
        if ref in m.resolutions and m.memory(ref)[1] and _resolved(m, ref)
    ]
    if resolved:  # the key only when there is one: pages without stay byte for byte
        meta["resolved"] = resolved
    intro = f"Contract id {md_inline(contract_id)}." + (
        "" if contract is not None else " It is not in the current project."
    )
    if contract_id == REMIT_CONTRACT_ID:
        intro = (
            "Contract id etki.yaml: the PMO's declared remit, the scope statements of "
            "etki.yaml (in: declared in scope; out: declared outside the contractor's "
            "remit). They are plain text and cited like clauses."
            + ("" if contract is not None else " etki.yaml declares none now.")
        )
    lines: list[str | bytes] = [
        f"# Contract: {md_inline(title)}",
        "",
        intro,
        "",
        (
            "Clauses cited by ruled cases, in contract order, with the decisions citing "
            "them (oldest ruling first)."
        ),
        "",
    ]
    lines += [_contract_section(m, ref) for ref in refs]
    return _page_fm(m, here, meta, lines)


def _module_page(m: WikiModel, module_id: str) -> bytes:
    module = m.modules.get(module_id)
    keys = m.by_module.get(module_id, [])
    meta: dict[str, Any] = {
        "kind": "module",
        "module_id": _meta_text(module_id),
        "title": _meta_text(module_id),
        "project": _meta_text(m.project.id),
        "path": _meta_text(module.path) if module is not None else None,
        "depends_on": sorted((_meta_text(x) for x in module.depends_on), key=sort_key)
        if module is not None
        else [],
        "decisions": len(keys),
    }
    lines = [f"# Module: {md_inline(module_id)}", ""]
    if module is None:
        lines += ["It is not in the current project's module list.", ""]
    else:
        if module.summary.strip():
            lines += [md_inline(module.summary), ""]
        if module.path:
            lines += [f"- **Path:** {md_inline(module.path)}"]
        deps = ", ".join(md_inline(x) for x in sorted(module.depends_on, key=sort_key))
        lines += [f"- **Depends on:** {deps or 'nothing'}", ""]
    lines += ["## Decisions", "", "Ruled cases that impact this module, oldest ruling first.", ""]
    lines += [_ruling_row(m, 2, m.case_of(k)) for k in keys]
    return _page(meta, lines)


def _disputed_row(m: WikiModel, case: CaseBrief) -> str:
    """One ruling of a disputed clause's history: a list item of short lines, ``-
    **RULING** by reviewer, ruled-at:`` / the request's title / ``(case [case-id](decision
    page))``, so ``disputed.md`` reads at 80 columns in a terminal, and a viewer shows one
    sentence reflowed to its width (a five-column table did not, issue 12 item 7)."""
    return m.cache.disputed_rows.get(case.case_id, lambda: _make_disputed_row(case))


def _make_disputed_row(case: CaseBrief) -> str:
    r = case.ruling
    assert r is not None
    lines = [f"- **{md_code(r.ruling)}** by {md_inline(r.reviewer)}, {md_inline(r.ruled_at)}:"]
    if title := md_inline(case.title):
        lines.append(f"  {title}")
    lines.append(f"  (case {_case_link(DISPUTED, case, case.case_id)})")
    return "\n".join(lines)


def _disputed_section(m: WikiModel, ref: str) -> bytes:
    """One disputed clause's section of ``disputed.md`` (memoised per ref)."""
    return m.cache.disputed_sections.get(ref, lambda: _make_disputed_section(m, ref))


def _make_disputed_section(m: WikiModel, ref: str) -> bytes:
    contract_id = m.contract_of(ref)
    rulings = m.memory(ref)[2]
    lines = [
        f"## {md_inline(m.clause_label(ref))}",
        "",
        f"Contract [{md_inline(contract_id)}]({contract_path(contract_id)});",
        f"rulings {', '.join(md_code(x) for x in rulings)}.",
        "",
    ]
    if m.standing(ref)[0] is not None:
        lines += [f"{_dispute_flag(m, ref)}.", ""]
        lines += _resolution_lines(m, ref, DISPUTED)
    lines += [_disputed_row(m, m.case_of(k)) for k in m.history[ref]]
    lines.append("")
    return "\n".join(lines).encode("utf-8", errors="replace")


def _resolved(m: WikiModel, ref: str) -> bool:
    """A cited ``ref`` has a resolution no later ruling overrode."""
    resolution, overridden_by = m.standing(ref)
    return resolution is not None and overridden_by is None


def _disputed_list(m: WikiModel) -> tuple[list[str], list[str]]:
    refs = sorted(m.disputed)
    return refs, [_meta_text(r) for r in refs]


def _disputed_page(m: WikiModel) -> bytes:
    disputed, names = m.cache.disputed_list.get(lambda: _disputed_list(m))
    meta: dict[str, Any] = {
        "kind": "disputed",
        "title": "Disputed clauses",
        "project": _meta_text(m.project.id),
        "count": len(disputed),
        "clauses": names,
    }
    # (a ref without a resolution is never resolved: most are skipped at one dict look)
    resolved = [_meta_text(ref) for ref in disputed if ref in m.resolutions and _resolved(m, ref)]
    if resolved:  # the key only when there is one: pages without stay byte for byte
        meta["resolved"] = resolved
    lines: list[str | bytes] = [
        "# Disputed clauses",
        "",
        "Clauses cited by ruled cases whose rulings disagree (with each other, or with",
        "the PMO's resolution of the clause), with their ruling history (oldest first).",
        "Computed from the database.",
        "",
    ]
    if not disputed:
        lines.append("No disputed clauses.")
    lines += [_disputed_section(m, ref) for ref in disputed]
    return _page_fm(m, DISPUTED, meta, lines)


def _precedent_line(m: WikiModel, c: CaseBrief) -> str:
    """An override's line in ``index.md``'s list of precedents (memoised per case)."""
    return m.cache.precedent_lines.get(c.case_id, lambda: _make_precedent_line(c))


def _make_precedent_line(c: CaseBrief) -> str:
    r = c.ruling
    assert r is not None
    return (
        f"- [{md_inline(c.title) or md_inline(c.case_id)}]({precedent_path(c)}) — "
        f"{md_code(c.decision.verdict)} → {md_code(r.ruling)}"
    )


def _precedent_list(m: WikiModel) -> bytes:
    """``index.md``'s list of precedents, oldest ruling first."""
    return "\n".join(
        [_precedent_line(m, m.case_of(k)) for k in m.overrides] or ["None yet."]
    ).encode("utf-8", errors="replace")


def _cr_line(m: WikiModel, c: CaseBrief) -> str:
    """A case's line in ``index.md``'s list of change requests (memoised per case)."""
    return m.cache.cr_lines.get(c.case_id, lambda: _make_cr_line(c))


def _make_cr_line(c: CaseBrief) -> str:
    title = md_inline(c.title)
    return f"- [{md_inline(cr_id(c))}]({cr_path(c)})" + (f" — {title}" if title else "")


def _cr_list(m: WikiModel) -> bytes:
    """``index.md``'s list of change requests, oldest ruling first."""
    return "\n".join([_cr_line(m, m.case_of(k)) for k in m.crs] or ["None yet."]).encode(
        "utf-8", errors="replace"
    )


def _entity_blocks(m: WikiModel) -> tuple[bytes, bytes]:
    """The ``## Contracts`` and ``## Modules`` lists of ``index.md`` (memoised while the
    sets of cited contracts and impacted modules stay the same)."""
    return m.cache.entity_lists.get(lambda: _make_entity_blocks(m))


def _make_entity_blocks(m: WikiModel) -> tuple[bytes, bytes]:
    contract_ids, module_ids = m.contract_ids(), m.module_ids()
    contracts = "\n".join(
        [
            f"- [{md_inline(m.contracts[x].title if x in m.contracts else x)}]({contract_path(x)})"
            for x in contract_ids
        ]
        or ["None cited yet."]
    ).encode("utf-8", errors="replace")
    modules = "\n".join(
        [f"- [{md_inline(x)}]({module_path(x)})" for x in module_ids] or ["None yet."]
    ).encode("utf-8", errors="replace")
    return contracts, modules


def _index_page(m: WikiModel) -> bytes:
    n_cases, n_ruled = len(m.cases), len(m.ruled)
    overrides = m.overrides
    verdicts, rulings = m.verdicts, m.ruling_counts
    order = list(VERDICTS) + sorted((set(verdicts) | set(rulings)) - set(VERDICTS))
    meta: dict[str, Any] = {
        "kind": "index",
        "title": _meta_text(m.project.config.name),
        "project": _meta_text(m.project.id),
        "cases": n_cases,
        "pending": n_cases - n_ruled,
        "ruled": n_ruled,
        "rulings": n_ruled,
        "overrides": len(overrides),
        "precedents": len(overrides),
        "change_requests": len(m.crs),
        "disputed_clauses": len(m.disputed),
        "verdicts": {v: verdicts.get(v, 0) for v in order},
        "ruling_counts": {v: rulings.get(v, 0) for v in order},
    }
    lines: list[str | bytes] = [
        f"# {md_inline(m.project.config.name)} — decision wiki",
        "",
        (
            f"Project {md_inline(m.project.id)}. Every page here is a projection of the "
            "database; it is rewritten on each ruling and by `python -m etki.wiki rebuild`."
        ),
        "",
        "## Counts",
        "",
    ]
    lines += md_table(
        ("measure", "count"),
        [
            ("cases", str(n_cases)),
            ("pending", str(n_cases - n_ruled)),
            ("ruled", str(n_ruled)),
            ("overrides (precedents)", str(len(overrides))),
            ("disputed clauses", f"[{len(m.disputed)}]({DISPUTED})"),
        ],
        "lr",
    )
    lines += ["", "## Verdict distribution", ""]
    lines += md_table(
        ("verdict", "engine verdicts", "rulings"),
        [(md_code(v), str(verdicts.get(v, 0)), str(rulings.get(v, 0))) for v in order],
        "lrr",
    )
    lines += ["", f"## Last {LAST_RULINGS} rulings", "", "Newest first.", ""]
    newest = [m.case_of(k) for k in reversed(m.ruled[-LAST_RULINGS:])]
    if newest:
        lines += [_ruling_row(m, 0, c) for c in newest]
    else:
        lines.append("No rulings yet.")
    lines += ["", "## Precedents", ""]
    lines.append(m.cache.precedent_list.get(lambda: _precedent_list(m)))
    lines += [
        "",
        "## Change requests",
        "",
        "Drafts of the cases ruled CHANGE_REQUEST, oldest ruling first.",
        "",
    ]
    lines.append(m.cache.cr_list.get(lambda: _cr_list(m)))
    contracts, modules = _entity_blocks(m)
    lines += ["", "## Contracts", "", contracts]
    lines += ["", "## Modules", "", modules]
    return _page_fm(m, INDEX, meta, lines)


# --- public entry points -----------------------------------------------------------------------


def _check_unique(files: dict[str, bytes], path: str, owner: str) -> None:
    if path in files:
        raise ValueError(
            f"two wiki pages map to {path} (second: {owner}); entity ids must be distinct"
        )


def _case_pages(m: WikiModel, case: CaseRecord, files: dict[str, bytes]) -> None:
    files[decision_path(case)] = _decision_page(m, case)
    if case.ruling is not None and case.ruling.is_override:
        files[precedent_path(case)] = _precedent_page(m, case)
    if has_cr_page(case):
        files[cr_path(case)] = _cr_page(m, case)


def case_page_paths(case: NamedCase) -> list[str]:
    """The pages of one case in a full render: its decision page, its precedent page
    (override) and its change-request page (ruled CHANGE_REQUEST); none when pending.
    What the pages are follows the case's current ruling only."""
    if case.ruling is None:
        return []
    paths = [decision_path(case)]
    if case.ruling.is_override:
        paths.append(precedent_path(case))
    if has_cr_page(case):
        paths.append(cr_path(case))
    return paths


def stale_case_pages(m: WikiModel, touched: Iterable[CaseBrief]) -> list[str]:
    """The case pages that briefs in ``touched`` (a case before and after a change) had
    and that the case, as ``m`` holds it now, no longer has: a change request whose
    ruling is no longer CHANGE_REQUEST, a precedent no longer an override, a page
    whose ruling date moved. Sorted. Paths are unique per case (the slug ends in the
    case id), so no other case's page is ever among them. An erased case (not in
    ``m``) is left to the full sync that erasure runs."""
    stale: set[str] = set()
    for b in touched:
        now = m.cases.get(b.case_id)
        if now is None:
            continue
        stale.update(set(case_page_paths(b)) - set(case_page_paths(now)))
    return sorted(stale)


def render_wiki(
    project: Project,
    cases: Sequence[CaseRecord],
    resolutions: Mapping[str, ClauseResolution] | None = None,
) -> dict[str, bytes]:
    """Render the whole wiki tree of ``project``.

    ``cases`` are the project's stored cases in any order (cases of other projects are
    ignored); ``resolutions`` the resolutions of disputed clauses in force (ref ->
    resolution, :func:`etki.memory.resolutions_in_force`). Returns ``{wiki-relative
    POSIX path: page bytes}``; the same rows give the same bytes. Raises ``ValueError``
    only if two entity ids map to one file name.
    """
    return render_model(
        WikiModel.build(project, cases, resolutions),
        [c for c in cases if c.project_id == project.id],
    )


def render_model(
    m: WikiModel, cases: Iterable[CaseRecord], known: Mapping[str, bytes] | None = None
) -> dict[str, bytes]:
    """The whole wiki tree of the model ``m``; ``cases`` are the full records of its ruled
    cases (for the decision and precedent pages; pending cases and cases ``m`` does not
    hold are skipped). Same bytes as :func:`render_wiki` of the same rows. ``known``
    ({path: bytes}, the render cache's hits) are pages taken as they are instead of
    rendered: the case pages among them need no record in ``cases``. Raises
    ``ValueError`` when two entity ids map to one file name."""
    known = known or {}
    files = {p: b for p, b in known.items() if not p.startswith(_SHARED)}  # case pages
    files[INDEX] = known[INDEX] if INDEX in known else _index_page(m)
    files[DISPUTED] = known[DISPUTED] if DISPUTED in known else _disputed_page(m)
    for c in cases:
        if c.ruling is not None and c.case_id in m.cases:
            _case_pages(m, c, files)
    for x in m.contract_ids():
        path = contract_path(x)
        _check_unique(files, path, x)
        files[path] = known[path] if path in known else _contract_page(m, x)
    for x in m.module_ids():
        path = module_path(x)
        _check_unique(files, path, x)
        files[path] = known[path] if path in known else _module_page(m, x)
    return dict(sorted(files.items()))


_SHARED = (INDEX, DISPUTED, "entities/")  # (prefixes of) the pages made from the model alone


def page_keys(
    m: WikiModel, salt: str, stamps: Mapping[str, str]
) -> tuple[dict[str, str], dict[str, str]]:
    """The render cache's key ({path: key}) of every page of a full render of ``m``, and
    the case id of each case page ({path: case id})
    (:mod:`etki.wiki.rendercache`): a digest of ``salt`` (what every page reads: the
    store, the project as read and the renderers' version, made by the projector), the
    page and the cases it reads: for a case's own pages its ``id:version`` and its
    ``stamps`` entry (the newest audit row's id and time,
    :meth:`etki.store.CaseFileRepository.wiki_case_stamps`: notes and pre-analyses do
    not move the version, and a store restored from a copy reuses versions and ids for
    other content); for the shared pages its ``id:version`` and the ruling they list
    (ruling, reviewer, time: what a restored store can change under the same version). Mirrors the dependencies in this module's docstring: a case page reads its
    case; a contract page the cases citing its clauses; a module page the cases
    impacting it; ``index.md`` and ``disputed.md`` every case."""

    def digest(*parts: str) -> str:
        text = "\0".join((salt, *parts))
        return hashlib.blake2b(text.encode("utf-8", errors="replace"), digest_size=16).hexdigest()

    def listed(cid: str) -> str:
        case = m.cases[cid]
        r = case.ruling
        ruled = f"{r.ruling}\1{r.reviewer}\1{r.ruled_at}" if r is not None else ""
        return f"{cid}:{case.version}:{ruled}"

    def of(key: tuple[str, str]) -> str:
        return listed(key[1])

    keys: dict[str, str] = {}
    owner: dict[str, str] = {}
    for cid, brief in m.cases.items():
        if brief.ruling is not None:
            key = digest("case", cid, str(brief.version), stamps.get(cid, "-"))
            for path in case_page_paths(brief):
                keys[path] = key
                owner[path] = cid
    every = digest("all", *(listed(cid) for cid in sorted(m.cases)))
    keys[INDEX] = keys[DISPUTED] = every
    for x in m.contract_ids():
        parts = [x]
        for ref in sorted(m.refs_of[x]):
            parts += [ref, *map(of, m.history[ref])]
        keys[contract_path(x)] = digest("contract", *parts)
    for x in m.module_ids():
        keys[module_path(x)] = digest("module", x, *map(of, m.by_module[x]))
    return keys, owner


def render_changed(
    m: WikiModel, cases: Iterable[CaseRecord], touched: Iterable[CaseBrief]
) -> dict[str, bytes]:
    """The pages a change of some cases can change, rendered from the model ``m`` (which
    already holds the change): ``index.md``, ``disputed.md``, the decision and precedent
    pages of the full records ``cases`` that ``m`` holds as ruled, and the contract and
    module pages of every brief in ``touched`` (a case's brief before and after the
    change, so pages a case left are rendered too) that still have decisions. Each page is
    byte-identical to the same path in :func:`render_wiki` of the rows ``m`` holds. Pages
    that no longer exist in a full render are not returned (a rebuild prunes them)."""
    files: dict[str, bytes] = {INDEX: _index_page(m), DISPUTED: _disputed_page(m)}
    for c in cases:
        if c.ruling is not None and m.cases.get(c.case_id) == CaseBrief.of(c):
            _case_pages(m, c, files)
    contracts: set[str] = set()
    modules: set[str] = set()
    for b in touched:
        if b.ruling is None:
            continue
        contracts.update(m.contract_of(ref) for ref in b.decision.cited_clauses)
        modules.update(b.decision.impacted_modules)
    for x in sorted(contracts):
        if x in m.refs_of:
            files[contract_path(x)] = _contract_page(m, x)
    for x in sorted(modules):
        if x in m.by_module:
            files[module_path(x)] = _module_page(m, x)
    return dict(sorted(files.items()))


def render_case_pages(
    project: Project, cases: Sequence[CaseRecord], case_id: str
) -> dict[str, bytes]:
    """The pages a ruling on ``case_id`` can change: its decision page, its precedent page
    (override), the contract pages of its cited clauses, the module pages of its
    impacted modules, ``disputed.md`` and ``index.md``. Each is byte-identical to the
    same path in :func:`render_wiki` of the same rows. A pending or unknown case gives
    only ``index.md`` and ``disputed.md``."""
    m = WikiModel.build(project, cases)
    case = next(
        (
            c
            for c in cases
            if c.case_id == case_id and c.project_id == project.id and c.ruling is not None
        ),
        None,
    )
    if case is None:
        return render_changed(m, [], [])
    return render_changed(m, [case], [CaseBrief.of(case)])
