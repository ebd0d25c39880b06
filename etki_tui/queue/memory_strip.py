"""The detail pane's clause-memory strip (issue 34 item 4): per cited clause its
precedents and rulings (who ruled what on which case and why each counts), the last
correction with its reason and precedent page, a disputed clause's PMO resolution, then
the similar past rulings. Pure Rich renderables, no Textual, no I/O; every client field
(names, reasons, ids, paths) is literal text, never markup. Moved out of
:mod:`etki_tui.queue.detail` (the module size limit)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from etki.domain import (
    ClauseMemory,
    DisputedClause,
    RulingRecord,
    SimilarRuling,
    memory_sentence,
)
from etki.text import printable
from etki_tui.queue.evidence import DECIDED_ON
from etki_tui.render import (
    DISPUTED,
    DISPUTED_RESOLVED,
    DISPUTED_STYLE,
    RESOLVED_STYLE,
    VERDICT_SHORT,
    IdList,
    one_line,
    verdict_text,
    when,
)


def correction_text(ruling: RulingRecord) -> Text:
    """``who, when: VERDICT -> RULING`` for a past correction."""
    out = Text()
    out.append(printable(ruling.reviewer, multiline=False))
    out.append(f", {when(ruling.ruled_at)}: ")
    out.append_text(verdict_text(ruling.verdict))
    out.append(" → ")
    out.append_text(verdict_text(ruling.ruling))
    return out


REASON_CHARS = 300
"""Most characters of a reviewer's reason shown in the clause-memory strip (the rest is
folded into ``…``; the decision page has it all)."""


def correction_lines(ruling: RulingRecord, precedents: Mapping[str, str] | None = None) -> Group:
    """The indented lines under a last correction: the reviewer's reason (literal, cut
    to :data:`REASON_CHARS` with ``…``), the precedent's case id and, when the wiki is
    on, its wiki page (from ``precedents``: case id -> wiki-relative path). Long values
    wrap under themselves (a hanging indent), not under the labels."""
    reason = Text()
    if ruling.reason.strip():
        reason.append("“" + one_line(ruling.reason.strip(), REASON_CHARS) + "”")
    else:
        reason.append("(none given)", style="dim")
    rows: list[tuple[str, RenderableType]] = [
        ("reason: ", reason),
        ("precedent: ", Text(one_line(ruling.case_id, 120), style="bold")),
    ]
    page = (precedents or {}).get(ruling.case_id)
    if page:  # a line of its own, folded after "/" and "-" (IdList), never mid-word (a
        # fresh trial of issue 34 read "…req-talentmap-6ce" / "e39a2.md")
        rows.append(("wiki: ", IdList([one_line(page, 300)])))
    return Group(*(_hanging(Text(label, style="dim"), value, indent=4) for label, value in rows))


def _hanging(label: Text, value: RenderableType, *, indent: int = 0) -> Table:
    """``label`` then ``value`` on one line, ``indent`` cells in; the value's wrapped
    lines start under its first character (a hanging indent)."""
    grid = Table.grid()
    grid.add_column(width=indent)
    grid.add_column(width=label.cell_len, no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")
    grid.add_row("", label, value)
    return grid


def memory_line(
    ref: str,
    mem: ClauseMemory | None,
    precedents: Mapping[str, str] | None = None,
    resolution_above: bool = False,
) -> RenderableType:
    """One line of the clause-memory strip for ``ref`` (with the last correction's
    reason and precedent on two more lines, see :func:`correction_lines`), then its
    rulings, who ruled what on which case and why each counts (:func:`ruling_lines`).
    ``resolution_above``: the detail's :func:`disputed_strip` already quotes the PMO's
    resolution of ``ref``; the line then only points to it (a fresh trial of issue 34
    read the same resolution twice in one detail)."""
    out = Text(no_wrap=False)
    if mem is not None and mem.disputed:
        if mem.resolved:
            out.append(DISPUTED_RESOLVED, style=RESOLVED_STYLE)
        else:
            out.append(DISPUTED, style=DISPUTED_STYLE)
        out.append(" ")
    out.append(printable(ref, multiline=False), style="bold")
    if mem is None or not mem.history:
        out.append(" · no past rulings", style="dim")
        return out
    count = mem.precedent_count
    out.append(f" · {count} precedent{'s' if count != 1 else ''}")
    out.append(f" · {len(mem.history)} ruled")
    if mem.last_correction is not None:
        out.append(" · last correction: ")
        out.append_text(correction_text(mem.last_correction))
    if mem.disputed:
        rulings = sorted({h[1] for h in mem.disputing})  # the rulings about the clause
        if len(rulings) > 1:  # else the rulings agree and contradict the resolution
            # CR as in the strip above it (one screen, one word for it)
            out.append(
                " · rulings disagree: " + " / ".join(VERDICT_SHORT.get(v, v) for v in rulings)
            )
        if resolution_above and mem.resolution is not None:
            out.append(" · PMO resolution: see above", style="dim")
        else:
            out.append_text(resolution_text(mem))
    lines: list[RenderableType] = [out]
    if mem.last_correction is not None:  # under the line that names it
        lines.append(correction_lines(mem.last_correction, precedents))
    lines.extend(ruling_lines(ref, mem))
    return Group(*lines) if len(lines) > 1 else out


RULINGS_SHOWN = 4
"""Most rulings the clause-memory strip lists under a clause (those about it first,
newest first); the rest are counted (``+ 3 more``, all of them on Hafıza's contract
page)."""

_WHY: dict[str, str] = {
    "reason": "the reason names {what}",
    "evidence": DECIDED_ON,
    "cited": "cites {what}, nothing decisive named",
}


def _number(ref: str) -> str:
    """``4.3`` of ``MSA-2024-01#4.3`` (the ref itself when it has no ``#``)."""
    return ref.split("#", 1)[1] if "#" in ref else ref


def why_counted(ref: str, rule: str, about: Sequence[str], override: bool) -> str:
    """Why a ruling of a case citing ``ref`` counts where it does (issue 34 item 4),
    from :attr:`etki.domain.ClauseMemory.counted`: ``counts here: the reason names
    it`` (``precedent here`` for an override) or, for a ruling about other clauses,
    ``precedent of 4.2 (the evidence decided on 4.2); only cites 4.3`` (an override there
    is a precedent of 4.2, not of 4.3). ``rule``: a key of
    :data:`etki.memory.CORRECTION_RULES`."""
    if ref in about:
        kind = "precedent here" if override else "counts here"
        return f"{kind}: " + _WHY.get(rule, rule).format(what="it")
    others = ", ".join(_number(r) for r in about) or "no clause"
    kind = "precedent of" if override else "counts toward"
    why = _WHY.get(rule, rule).format(what=others)
    return f"{kind} {others} ({why}); only cites {_number(ref)}"


def ruling_lines(ref: str, mem: ClauseMemory) -> list[Table]:
    """The strip's lines naming the rulings of a clause: who ruled what on which case
    and why it counts (:func:`why_counted`), at most :data:`RULINGS_SHOWN`, those about
    the clause first, newest first, then ``+ N more``. Client text (names, ids) literal,
    on one line each."""
    why = {case_id: (rule, about, override) for case_id, rule, about, override in mem.counted}
    entries = list(reversed(mem.history))
    entries.sort(key=lambda h: ref not in why.get(h[0], ("", (ref,), False))[1])
    rows: list[Table] = []
    for case_id, ruling, reviewer, ruled_at in entries[:RULINGS_SHOWN]:
        value = Text(one_line(case_id, 120), style="bold")
        value.append(" ")
        value.append_text(verdict_text(ruling))
        value.append(" · ")
        value.append(one_line(reviewer, 80))
        value.append(f" · {ruled_at[:10]}")
        if case_id in why:
            value.append(" · " + why_counted(ref, *why[case_id]), style="dim")
        rows.append(_hanging(Text("ruled: ", style="dim"), value, indent=4))
    if len(entries) > RULINGS_SHOWN:
        more = Text(f"+ {len(entries) - RULINGS_SHOWN} more (Hafıza, the contract page)")
        rows.append(_hanging(Text("", style="dim"), more, indent=4))
    return rows


def similar_line(similar: Sequence[SimilarRuling], verdict: str | None) -> Text:
    """The strip's lines on similar past requests: ``≈ reviewers ruled 2 similar
    requests as REJECT (beside the verdict, not part of it)``, then one indented line
    per case, ``req-… ✗ REJECT  similarity 0.81`` (2 decimals here; 4 in the decision).
    Empty ``Text`` when nothing is similar. Case ids are stored values, still printed
    literally (never markup)."""
    out = Text(no_wrap=False)
    if not similar:
        return out
    out.append("≈ ", style="bold")
    out.append(memory_sentence(tuple(similar), verdict), style="bold")
    out.append(" (beside the verdict, not part of it)", style="dim")
    for s in similar:
        out.append("\n  ")
        out.append(printable(s.case_id, multiline=False))
        out.append(" ")
        out.append_text(verdict_text(s.ruling))
        out.append(f"  similarity {s.similarity:.2f}", style="dim")
    return out


def memory_strip(
    refs: Iterable[str],
    memory: Mapping[str, ClauseMemory],
    similar: Sequence[SimilarRuling] = (),
    memory_verdict: str | None = None,
    precedents: Mapping[str, str] | None = None,
    similar_unknown: str | None = None,
    resolutions_above: Collection[str] = (),
) -> Group:
    """The clause-memory strip: one line per cited clause, then (when any ruled case
    reads like this one) the :func:`similar_line`. ``precedents``: case id -> wiki page
    of the precedents the lines name (see :func:`correction_lines`).
    ``similar_unknown``: the similar rulings are not known yet, and why (``reading…``,
    or the error): said in their place, so "none shown" never reads as "none".
    ``resolutions_above``: the refs whose PMO resolution the detail quoted above the
    strip (:func:`disputed_strip`): only pointed to here (:func:`memory_line`)."""
    lines = [
        memory_line(ref, memory.get(ref), precedents, ref in resolutions_above) for ref in refs
    ]
    if not lines:
        lines = [Text("no cited clauses", style="dim")]
    if similar_unknown is not None:
        lines.append(Text(f"≈ similar past rulings: {similar_unknown}", style="dim"))
    elif similar:
        lines.append(similar_line(similar, memory_verdict))
    return Group(*lines)


def resolution_text(mem: ClauseMemory | DisputedClause) -> Text:
    """What the strip says of a disputed clause's resolution: `` · PMO: rule IN_SCOPE —
    “reason” (name, date)`` while it stands, `` · PMO resolution (rule IN_SCOPE, name,
    date) overridden by req-…`` once a later ruling disagreed, empty without one. The
    reason and name are client text: literal (never markup), on one line."""
    res = mem.resolution
    out = Text()
    if res is None:
        return out
    verdict = VERDICT_SHORT.get(res.verdict, res.verdict)
    if mem.overridden_by is None:
        out.append(f" · PMO: rule {verdict} — “")
        out.append(one_line(res.reason, 300))
        out.append("” (")
        out.append(one_line(res.reviewer, 80))
        out.append(f", {res.at[:10]})")
        return out
    out.append(f" · PMO resolution (rule {verdict}, ")
    out.append(one_line(res.reviewer, 80))
    out.append(f", {res.at[:10]}) overridden by ")
    out.append(one_line(mem.overridden_by, 120), style="bold")
    return out
