"""The wiki's shared pages and the helpers every page kind uses (issue 31 split of
``etki/wiki/pages.py``): ``index.md`` and ``disputed.md``, rendered from a
:class:`~etki.wiki.model.WikiModel` with their fragments memoised in its
:class:`~etki.wiki.model.PageCache`; the page frame (frontmatter + body bytes,
:func:`_page`, :func:`_page_fm`); client text as a YAML value (:func:`_meta_text`); the
ruling rows, cited-clause, risk and effort-basis sections; and what a page says of a
disputed clause's resolution. See :mod:`etki.wiki.pages` for the rules all pages keep.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from etki.domain import (
    VERDICTS,
    CaseBrief,
    Effort,
    Risk,
    ScopeClause,
    WorkItem,
    effort_basis_lines,
    is_accepted_remit,
    is_declared_remit,
)
from etki.frontmatter import FrontmatterMemo, frontmatter_bytes
from etki.mdtext.literal import md_code, md_inline, md_table
from etki.text import printable
from etki.wiki.model import WikiModel
from etki.wiki.paths import (
    DISPUTED,
    DISPUTED_TITLE,
    INDEX,
    NamedCase,
    clause_link,
    contract_path,
    cr_id,
    cr_path,
    decision_path,
    module_path,
    precedent_path,
    relative_link,
)

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
    parts: list[bytes | memoryview] = [
        x if isinstance(x, bytes) else x.encode("utf-8", errors="replace") for x in lines
    ]
    while parts:  # "\n".join(parts).rstrip("\n"), without copying the whole body
        last = parts[-1]
        end = len(last)
        while end and last[end - 1] == 10:  # b"\n"
            end -= 1
        if end:  # (a view: the last part may be a body of megabytes)
            parts[-1] = last if end == len(last) else memoryview(last)[:end]
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
            f"({clause_link(here, m.contract_of(ref), ref)}){kind}"
        )
    if not refs:
        lines.append("None.")
    return [*lines, ""]


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


def _resolution_lines(m: WikiModel, ref: str, src: str) -> list[str]:
    """What a page ``src`` says of the resolution of a disputed clause ``ref``: nothing
    when there is none or the clause is not disputed; else one paragraph, ``PMO
    resolution: rule **IN_SCOPE** — “reason” (name, date).``, and when a later ruling
    overrode it, the paragraph naming that case. The reason and the name are client
    text: escaped (:func:`etki.mdtext.literal.md_inline`)."""
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
    """One disputed clause's section of ``disputed.md`` (kept per ref in the model's
    :attr:`~etki.wiki.model.PageCache.disputed_body`)."""
    contract_id = m.contract_of(ref)
    rulings = m.memory(ref)[2]
    lines = [
        f"## {md_inline(m.clause_label(ref))}",
        "",
        f"Contract [{md_inline(contract_id)}]({clause_link(DISPUTED, contract_id, ref)});",
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
        "title": DISPUTED_TITLE,
        "project": _meta_text(m.project.id),
        "count": len(disputed),
        "clauses": names,
    }
    # (a ref without a resolution is never resolved: only the few with one are looked
    # at, in the order of `disputed`, which is sorted)
    resolved = [
        _meta_text(r) for r in sorted(m.disputed.intersection(m.resolutions)) if _resolved(m, r)
    ]
    if resolved:  # the key only when there is one: pages without stay byte for byte
        meta["resolved"] = resolved
    lines: list[str | bytes] = [
        f"# {DISPUTED_TITLE}",
        "",
        "Clauses cited by ruled cases whose rulings disagree (with each other, or with",
        "the PMO's resolution of the clause), with their ruling history (oldest first).",
        "Computed from the database.",
        "",
    ]
    if not disputed:
        lines.append("No disputed clauses.")
    else:  # the sections, made again only for the clauses a change touched
        lines += m.cache.disputed_body.blocks(disputed, lambda r: _disputed_section(m, r)) or [b""]
    return _page_fm(m, DISPUTED, meta, lines)


def _precedent_line(c: CaseBrief) -> bytes:
    """An override's line in ``index.md``'s list of precedents."""
    r = c.ruling
    assert r is not None
    return (
        f"- [{md_inline(c.title) or md_inline(c.case_id)}]({precedent_path(c)}) — "
        f"{md_code(c.decision.verdict)} → {md_code(r.ruling)}"
    ).encode("utf-8", errors="replace")


def _precedent_list(m: WikiModel) -> list[bytes]:
    """``index.md``'s list of precedents, oldest ruling first (the lines kept per
    override, :attr:`~etki.wiki.model.PageCache.precedent_list`), as blocks of lines
    (:meth:`~etki.wiki.model.Joined.blocks`) the page joins with its other lines."""
    if not m.overrides:
        return [b"None yet."]
    return m.cache.precedent_list.blocks(m.overrides, lambda k: _precedent_line(m.case_of(k)))


def _cr_line(c: CaseBrief) -> bytes:
    """A case's line in ``index.md``'s list of change requests."""
    title = md_inline(c.title)
    line = f"- [{md_inline(cr_id(c))}]({cr_path(c)})" + (f" — {title}" if title else "")
    return line.encode("utf-8", errors="replace")


def _cr_list(m: WikiModel) -> list[bytes]:
    """``index.md``'s list of change requests, oldest ruling first (the lines kept per
    case, :attr:`~etki.wiki.model.PageCache.cr_list`), as blocks of lines."""
    if not m.crs:
        return [b"None yet."]
    return m.cache.cr_list.blocks(m.crs, lambda k: _cr_line(m.case_of(k)))


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
        or ["None."]
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
    lines += _precedent_list(m)
    lines += [
        "",
        "## Change requests",
        "",
        "Drafts of the cases ruled CHANGE_REQUEST, oldest ruling first.",
        "",
    ]
    lines += _cr_list(m)
    contracts, modules = _entity_blocks(m)
    lines += ["", "## Contracts", "", contracts]
    lines += ["", "## Modules", "", modules]
    return _page_fm(m, INDEX, meta, lines)
