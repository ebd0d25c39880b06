"""The entity pages: a contract page (``entities/contracts/...``, the whole contract: one
anchored section per clause in document order with its display text, and for a clause
ruled cases cite its dispute flag, resolution and the rulings citing it) and a
module page (``entities/modules/...``, the rulings impacting the module). A contract page
depends on the cases citing its clauses; a module page on the cases impacting it
(:mod:`etki.wiki.pages`).
"""

from __future__ import annotations

from typing import Any

from etki.domain import (
    REMIT_CONTRACT_ID,
    is_accepted_remit,
    is_declared_remit,
)
from etki.mdtext.display import clause_markdown
from etki.mdtext.literal import md_block, md_inline
from etki.text import sort_key
from etki.wiki.model import Joined, WikiModel
from etki.wiki.pages.shared import (
    _dispute_flag,
    _meta_text,
    _page,
    _page_fm,
    _resolution_lines,
    _resolved,
    _ruling_row,
)
from etki.wiki.paths import (
    clause_anchor,
    contract_path,
)


def _contract_section(m: WikiModel, ref: str) -> bytes:
    """One clause's section of its contract page (kept per ref in the model's
    :attr:`~etki.wiki.model.PageCache.contract_bodies`): its heading (ref and title, with
    the clause's :func:`~etki.wiki.paths.clause_anchor` as an empty ``<a id>``), its kind
    and, for a clause ruled cases cite, its memory (precedents, dispute flag,
    resolution), then its text and the rulings citing it."""
    clause = m.clauses.get(ref)
    cited = ref in m.history
    anchor = f'<a id="{clause_anchor(ref)}"></a>'  # percent-encoded: no client text as HTML
    lines = [f"## {md_inline(m.clause_label(ref))} {anchor}", ""]
    kind = clause.kind if clause is not None else "not in the current contract"
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
    if cited:
        count, disputed, _ = m.memory(ref)
        flag = _dispute_flag(m, ref) if disputed else "not disputed"
        lines += [f"Kind {md_inline(kind)}; precedents {count}; {flag}.", ""]
        lines += _resolution_lines(m, ref, contract_path(m.contract_of(ref)))
    else:
        lines += [f"Kind {md_inline(kind)}; no ruled case cites it.", ""]
    if clause is not None and clause.text.strip():
        # a remit statement is plain text; a contract clause is shown in its display
        # form (issue 12 item 1): reflowed, no HTML, links as their words, escaped
        shown = md_block(clause.text) if remit else clause_markdown(clause.text)
        lines += [shown, ""] if shown else []
    if cited:
        lines += [_ruling_row(m, 2, m.case_of(k)) for k in m.history[ref]]
        lines.append("")
    return "\n".join(lines).encode("utf-8", errors="replace")


def _contract_page(m: WikiModel, contract_id: str) -> bytes:
    here = contract_path(contract_id)
    contract = m.contracts.get(contract_id)
    shown = m.contract_refs(contract_id)
    refs = [ref for ref in shown if ref in m.history]
    title = contract.title if contract is not None else contract_id
    meta: dict[str, Any] = {
        "kind": "contract",
        "contract_id": _meta_text(contract_id),
        "title": _meta_text(title),
        "project": _meta_text(m.project.id),
        "clauses": len(shown),
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
            "The whole contract in contract order, each clause with its text; a clause "
            "ruled cases cite also with its memory and the decisions citing it (oldest "
            "ruling first)."
        ),
        "",
    ]
    if shown:  # the sections, made again only for the clauses a change touched
        body = m.cache.contract_bodies.get(contract_id, Joined)
        lines += body.blocks(shown, lambda ref: _contract_section(m, ref)) or [b""]
    else:
        lines += ["No clauses.", ""]
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
