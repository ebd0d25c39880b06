"""The precedent page of an override (a ruling that differs from the engine's verdict):
what the engine proposed, what the reviewer ruled and why, the request and the cited
clauses. It depends only on its own case and the project's clause titles
(:mod:`etki.wiki.pages`).
"""

from __future__ import annotations

from typing import Any

from etki.domain import (
    CaseRecord,
)
from etki.mdtext.literal import md_block, md_code, md_inline
from etki.text import printable
from etki.wiki.model import WikiModel
from etki.wiki.pages.shared import _case_link, _cited_clause_lines, _meta_text, _page
from etki.wiki.paths import (
    decision_path,
    precedent_path,
)


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
