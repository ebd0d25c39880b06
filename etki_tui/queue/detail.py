"""The queue's case-detail builders and row cells: pure Rich ``Text`` from a case, no Textual, no I/O (the shared text helpers live in :mod:`etki_tui.render`)."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from datetime import datetime

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.text import Text

from etki.domain import (
    DISPUTED_SIGNAL,
    CaseEvent,
    CaseRecord,
    CaseSummary,
    ClauseMemory,
    Decision,
    Effort,
    ReviewerEstimate,
    ScopeClause,
    SimilarRuling,
    WorkItem,
    effort_basis_lines,
    risk_wording,
    sureness_reasons,
)
from etki.memory import StoredRisk, current_risk, disputed_refs
from etki.text import plural, printable
from etki_tui.glyphs import ASSIGNED_MARK, CLAIM_MARK
from etki_tui.queue.evidence import (
    evidence_of,
    evidence_section,
    marked_clause_block,
)
from etki_tui.queue.filters import age_days, age_label, overdue_wait
from etki_tui.queue.memory_strip import memory_strip, resolution_text
from etki_tui.queue.memory_strip import similar_line as similar_line
from etki_tui.queue.memory_strip import why_counted as why_counted
from etki_tui.queue.preanalysis_text import NO_MODEL_LINE as NO_MODEL_LINE
from etki_tui.queue.preanalysis_text import preanalysis_section
from etki_tui.render import (
    DETAIL_LINE_CHARS,
    DISPUTED,
    DISPUTED_RESOLVED,
    DISPUTED_STYLE,
    RESOLVED_STYLE,
    VERDICT_SHORT,
    IdList,
    _bullets,
    _fields,
    _indent,
    _section,
    cell,
    folded,
    one_line,
    short_ref,
    verdict_text,
    when,
)

RISK_STYLE: dict[str, str] = {"high": "bold red", "medium": "yellow", "low": "dim"}


RISK_SHORT: dict[str, str] = {"high": "high", "medium": "med", "low": "low"}


def risk_cell(
    case: CaseRecord | CaseSummary,
    memory: Mapping[str, ClauseMemory] | None = None,
    escalate: bool = False,
) -> Text:
    """``high`` / ``med`` / ``low``: the risk level (the PMO look has a column of its
    own, :func:`etki_tui.queue.columns.look_cell`). With ``memory`` and ``escalate`` the
    risk is the :func:`current_risk` (a clause disputed since the triage shows ``high``)."""
    risk, _ = current_risk(case.decision, memory, escalate)
    label = RISK_SHORT.get(risk.level, risk.level)
    return Text(label, style=RISK_STYLE.get(risk.level, ""), no_wrap=True, end="")


DISPUTED_PREFIX = DISPUTED + " "


def title_cell(title: str, width: int, disputed: bool) -> Text:
    """The queue's title cell, ``width`` cells wide at most; a case citing a disputed
    clause starts with the red ``! DISPUTED`` mark (glyph and word, so it reads
    without colour) and its title follows in the rest of the width."""
    if not disputed:
        return cell(title, width)
    out = Text(no_wrap=True, overflow="ellipsis", end="")
    out.append(DISPUTED_PREFIX, style=DISPUTED_STYLE)
    rest = width - cell_len(DISPUTED_PREFIX)
    if rest > 0:
        out.append_text(cell(title, rest))
    return out


def clauses_cell(refs: Sequence[str], width: int = 9) -> Text:
    """Cited clause numbers, comma-joined, cut to ``width`` with a ``+N`` tail."""
    if not refs:
        return Text("—", style="dim", end="")
    return Text(_clauses_label(tuple(refs), width), no_wrap=True, overflow="ellipsis", end="")


@functools.lru_cache(maxsize=4096)
def _clauses_label(refs: tuple[str, ...], width: int) -> str:
    """The terminal-safe text of :func:`clauses_cell` (a pure function of its
    arguments: memoised, many cases cite the same clauses)."""
    shown: list[str] = []
    for i, ref in enumerate(refs):
        candidate = ",".join([*shown, short_ref(ref)])
        rest = len(refs) - i - 1
        tail = f"+{rest}" if rest else ""
        if cell_len(candidate + tail) > width and shown:
            return cell(",".join(shown) + f"+{len(refs) - i}", width).plain
        shown.append(short_ref(ref))
    return cell(",".join(shown), width).plain


def effort_label(effort: Effort) -> str:
    """:meth:`etki.domain.Effort.shown`: ``5–8 person-days``, ``13 person-days``,
    ``unknown``."""
    return effort.shown()


def effort_text(estimate: ReviewerEstimate | None, effort: Effort) -> Text:
    """The detail pane's Effort line: the reviewer's estimate in force, when there is
    one (``3 days, 12,500.00 EUR (reviewer's estimate by Ayşe at …)``,
    :meth:`etki.domain.ReviewerEstimate.in_force`; a trial found it hidden behind
    "Effort unknown") with the engine's frozen range after it as the ``engine
    estimate``; else the engine's range alone (:func:`effort_label`). Plain text, never
    markup."""
    if estimate is None:
        return Text(effort_label(effort))
    out = Text(one_line(estimate.in_force()))
    out.append(f" · engine estimate: {effort_label(effort)}", style="dim")
    return out


def effort_basis(effort: Effort, workitems: Mapping[str, WorkItem]) -> list[Text]:
    """One entry per work item the effort was computed from: ``WI-7 Card payments ·
    8 person-days · 2024-02-01`` (its id, title, ``effort_days`` and date as stored
    with the project, read by :func:`etki.domain.effort_basis_lines`, which the wiki's
    change-request page shares); an id the project no longer has says so. Client
    text, shown literally."""
    lines: list[Text] = []
    for entry in effort_basis_lines(effort, workitems):
        line = Text()
        line.append(one_line(entry.id, 120), style="bold")
        if entry.title is None:
            line.append(" (not among the project's work items)", style="dim")
            lines.append(line)
            continue
        line.append(" " + one_line(entry.title, 200))
        line.append(f" · {entry.days}")
        if entry.date:
            line.append(" · " + one_line(entry.date, 40), style="dim")
        lines.append(line)
    return lines


def disputed_mark(
    decision: StoredRisk,
    clauses: Mapping[str, ScopeClause],
    memory: Mapping[str, ClauseMemory],
    escalate: bool,
) -> Text | None:
    """The detail's first line for a case citing a clause disputed now, one line at any
    width (cut with ``…``): ``! DISPUTED 3.2 Single sign-on · rulings disagree · 24h PMO
    look`` (``! DISPUTED-RESOLVED`` when every such clause has a standing PMO
    resolution; the clauses comma-joined; ``rulings disagree`` when any unresolved
    clause's rulings do; the PMO look when the dispute raised it after the triage,
    :func:`current_risk`). None when nothing cited is disputed. The whole story of each
    clause is the :func:`disputed_strip`, further down."""
    refs = disputed_refs(decision.cited_clauses, memory)
    if not refs:
        return None
    line = Text(no_wrap=True, overflow="ellipsis")
    if all(memory[ref].resolved for ref in refs):
        line.append(DISPUTED_RESOLVED, style=RESOLVED_STYLE)
    else:
        line.append(DISPUTED, style=DISPUTED_STYLE)
    names = []
    for ref in refs:
        clause = clauses.get(ref)
        name = one_line(clause.number if clause else ref, 60)
        if clause is not None and clause.title:
            name += " " + one_line(clause.title, 60)
        names.append(name)
    line.append(" " + ", ".join(names), style="bold")
    if any(
        not memory[ref].resolved and len({h[1] for h in memory[ref].disputing}) > 1 for ref in refs
    ):
        line.append(" · rulings disagree")
    _, raised = current_risk(decision, memory, escalate)
    if raised:
        line.append(" · ")
        line.append("24h PMO look", style="bold reverse")
    return line


class CutTitle:
    """A case's title, folded over as many lines as it needs, rendered only when the
    one-line title at the top of the detail did not fit the width and was cut: nothing
    of it is lost, and a title that fit is not said twice."""

    def __init__(self, title: str) -> None:
        self.title = title

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        line = one_line(self.title, DETAIL_LINE_CHARS)
        if cell_len(line) > options.max_width:
            yield folded(self.title, style="bold", limit=DETAIL_LINE_CHARS)


def disputed_strip(
    decision: StoredRisk,
    clauses: Mapping[str, ScopeClause],
    memory: Mapping[str, ClauseMemory],
    escalate: bool,
) -> list[Text]:
    """The lines the detail pane opens with when the case cites a clause disputed now:
    one per such clause, ``! DISPUTED 3.2 Single sign-on · rulings disagree:
    IN_SCOPE / REJECT`` (``CR`` for a change request; a clause a person resolved reads
    ``! DISPUTED-RESOLVED 4.8 … · PMO: rule IN_SCOPE — “…” (name, date)``, and one whose
    resolution a later ruling overrode says by which case: :func:`resolution_text`), then, when the dispute raised the risk after the triage
    (:func:`current_risk`), the line saying so. Empty when nothing cited is disputed.
    Shown under the evidence section, above any clause text; the detail's first line is
    the one-line :func:`disputed_mark`."""
    refs = disputed_refs(decision.cited_clauses, memory)
    lines: list[Text] = []
    for ref in refs:
        mem = memory[ref]
        line = Text()
        if mem.resolved:
            line.append(DISPUTED_RESOLVED, style=RESOLVED_STYLE)
        else:
            line.append(DISPUTED, style=DISPUTED_STYLE)
        clause = clauses.get(ref)
        line.append(" " + one_line(clause.number if clause else ref, 120), style="bold")
        if clause is not None and clause.title:
            line.append(" " + one_line(clause.title, 120), style="bold")
        kinds = sorted({h[1] for h in mem.disputing})  # the rulings about the clause
        if not mem.resolved and len(kinds) > 1:  # one kind: they contradict the resolution
            rulings = " / ".join(VERDICT_SHORT.get(v, v) for v in kinds)
            line.append(f" · rulings disagree: {rulings}")
        line.append_text(resolution_text(mem))
        lines.append(line)
    _, raised = current_risk(decision, memory, escalate)
    if raised:
        stored = decision.risk
        line = Text("  → ")
        line.append("24h PMO look", style="bold reverse")
        line.append(f": disputed after triage ({stored.level.upper()} then; decision unchanged)")
        lines.append(line)
    return lines


def cr_link_line(case_id: str, page: str) -> Text:
    """The detail pane's line naming a case's change-request document: its wiki page
    and the key that opens it (``D``), or, with the wiki off (``page`` empty), the
    command that writes it."""
    line = Text()
    line.append("Change request ", style="bold")
    if page:
        line.append(printable(page, multiline=False))
        line.append(" · D opens it in the reader", style="dim")
    else:
        line.append("the wiki is off · ", style="dim")
        line.append(f"etki cr export {printable(case_id, multiline=False)}", style="dim")
        line.append(" writes it", style="dim")
    return line


class VerdictLine:
    """The detail's Verdict value, ``✓ IN_SCOPE   confidence 0.71 · needs a careful
    look``, on one line where it fits: where it does not (the 41-column side pane at
    120x40 wrapped it, a second trial), ``confidence`` is said ``conf.`` and then the
    verdict in its short form (``+ CR``); still too wide, the sureness goes on a second
    line; nothing is left out. ``confidence``: the engine's, 0..1. ``sure``: the case's
    sureness (:func:`etki.domain.sureness_reasons`; its reasons are the Sureness field),
    None to leave it out."""

    def __init__(self, verdict: str, confidence: float, sure: bool | None = None) -> None:
        self.verdict = verdict
        self.confidence = confidence
        self.sure = sure

    def _sureness(self) -> Text:
        if self.sure is None:
            return Text()
        return Text(
            "sure" if self.sure else "needs a careful look",
            style=SURE_STYLE if self.sure else UNSURE_STYLE,
        )

    def bare_forms(self) -> list[Text]:
        """The verdict and confidence alone, longest form first."""
        figure = f"{self.confidence:.2f}"
        out = []
        for short, said in ((False, "   confidence "), (False, "  conf. "), (True, "  conf. ")):
            line = verdict_text(self.verdict, bold=True, short=short)
            line.append(said + figure)
            out.append(line)
        return out

    def forms(self) -> list[Text]:
        """The line's one-line forms, longest first (with the sureness, when given)."""
        sureness = self._sureness()
        if not sureness:
            return self.bare_forms()
        return [Text.assemble(f, " · ", sureness) for f in self.bare_forms()]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        fits = [f for f in self.forms() if f.cell_len <= options.max_width]
        if fits:
            yield fits[0]
            return
        bare = self.bare_forms()
        line = next((f for f in bare if f.cell_len <= options.max_width), bare[-1])
        yield Text.assemble(line, "\n", self._sureness()) if self.sure is not None else line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(self.bare_forms()[-1].cell_len, self.forms()[0].cell_len)


def case_detail(
    case: CaseRecord,
    clauses: Mapping[str, ScopeClause],
    memory: Mapping[str, ClauseMemory],
    *,
    now: datetime | None = None,
    similar: Sequence[SimilarRuling] = (),
    memory_verdict: str | None = None,
    similar_unknown: str | None = None,
    escalate: bool = False,
    workitems: Mapping[str, WorkItem] | None = None,
    precedents: Mapping[str, str] | None = None,
    cr_page: str | None = None,
    llm_model: str | None = None,
    preanalysing: bool = False,
    whole_clauses: bool = False,
    archived: bool = False,
    claimed_by: str | None = None,
    assigned_to: str | None = None,
) -> RenderableType:
    """The detail pane of one case: everything a reviewer needs to rule. With ``now``
    the request's age is shown next to its date. ``similar``/``memory_verdict``: the
    memory beside the verdict as the desk computes it now (shown in the clause-memory
    strip; see :meth:`etki.services.Desk.beside_with`); ``similar_unknown``: they
    are not known yet, and why (:func:`memory_strip`). ``escalate``
    (``ETKI_DISPUTED_ESCALATION``): a clause disputed since the triage raises the shown
    risk (:func:`current_risk`). ``workitems``: the project's work items by id, for the
    effort basis (titles, days, dates). ``precedents``: case id -> wiki page of the
    precedents the clause memory names. ``cr_page``: the wiki page of the case's
    change-request document when it is ruled CHANGE_REQUEST (``""``: the wiki is off),
    shown as a link line under the fields. ``llm_model``: the chat model a pre-analysis
    would be asked of (None: none configured); ``preanalysing``: one is being written;
    ``archived``: the project takes no new one (:func:`preanalysis_section`). ``whole_clauses``: the cited clauses are shown
    whole, not folded to the part around the sentences the evidence quotes
    (:func:`etki_tui.queue.evidence.marked_clause_block`).

    The :func:`etki_tui.queue.evidence.evidence_section` (the deciding sentence and any
    weighed exclusion, quoted) follows the Verdict line, before the other fields.
    ``claimed_by``: another reviewer's live claim of the case, named first on the first
    line (the queue row shows only :data:`~etki_tui.glyphs.CLAIM_MARK`; at 80x24 the folded
    detail shows that line but no title). ``assigned_to``: the other reviewer the case
    is assigned to, named the same way (the row's :data:`~etki_tui.glyphs.ASSIGNED_MARK`).

    The first lines, in order: the Verdict with the sureness (:class:`VerdictLine`),
    then the claim and assignment on a line of their own, then the one-line
    :func:`disputed_mark` of a case citing a disputed clause, or else the title (cut
    with ``…``), then the evidence
    section: the folded two-line peek shows the verdict and what to mind, and at 80x24
    unfolded the deciding sentence is whole in the detail's first window (issue 34 item
    2: a disputed tdrs case showed 4 of its 8 sentence lines, the peek no verdict). Then
    the :func:`disputed_strip` (every disputed clause's rulings or resolution, a raised
    PMO look), the case id, sender and date, and the whole title when the top line
    did not give it whole (a disputed case's, or one cut: :class:`CutTitle`). A request
    without a submission date says when it was imported (``created_at``) instead of an
    age: the import time is not the request's."""
    d = case.decision
    # the first window at 80x24 (12 rows unfolded) holds the verdict and the deciding
    # sentence (issue 34 item 2, fresh trials: a 4-row disputed banner, the case line
    # and a wrapped title pushed the sentence out of it; then a disputed tdrs case
    # showed 4 of its 8 sentence lines): one line gives the verdict, one the dispute or
    # the title; the dispute's details, the case id, sender and date follow the
    # evidence. Every client field is bounded (:func:`folded`, :func:`one_line`): a case
    # stored before the request cap existed may hold megabytes (issue 11 item 6)
    parts: list[RenderableType] = []
    mark = disputed_mark(d, clauses, memory, escalate)
    # the claim and the assignment: their own line under the Verdict, so the folded
    # two-line peek shows the verdict and then what to mind (issue 34 item 2), and the
    # title below keeps the pane's width (a fresh trial: "@ claimed by Zeynep Kaya ·
    # The 'Sign…" left the title 8 cells at 120 columns)
    lead = Text(no_wrap=True, overflow="ellipsis")
    if claimed_by:
        lead.append(f"{CLAIM_MARK} claimed by ", style="bold")
        lead.append(one_line(claimed_by, 40), style="bold")
    if assigned_to:
        if lead:
            lead.append(" · ", style="dim")
        lead.append(f"{ASSIGNED_MARK} assigned to ", style="bold")
        lead.append(one_line(assigned_to, 40), style="bold")
    # the dispute's mark, else the title: the line after
    top = Text(no_wrap=True, overflow="ellipsis")
    if mark is not None:
        top.append_text(mark)
    else:
        top.append(one_line(case.title, DETAIL_LINE_CHARS), style="bold")
    head = Text()
    head.append(one_line(case.case_id), style="dim")
    if case.submitted_by:
        head.append(" · from ", style="dim")
        head.append(one_line(case.submitted_by), style="dim")
    if case.submitted_at:
        head.append(" · ", style="dim")
        head.append(when(one_line(case.submitted_at)), style="dim")
        if now is not None and (age := age_label(age_days(case, now))):
            head.append(f" ({age} old)" if age != "just now" else " (just now)", style="dim")
    elif case.created_at:
        head.append(" · imported " + when(one_line(case.created_at)), style="dim")

    verdict = VerdictLine(d.verdict, d.confidence, sureness_reasons(d)[0])
    shown_risk, raised = current_risk(d, memory, escalate)
    risk = Text()
    risk.append(shown_risk.level.upper(), style=RISK_STYLE.get(shown_risk.level, ""))
    if shown_risk.signals:
        # the client's own words that raised the wording signals (as `etki show` quotes
        # them) follow those signals, before a disputed clause's, which no word raised
        worded = [s for s in shown_risk.signals if s != DISPUTED_SIGNAL]
        said = ", ".join(printable(s, multiline=False) for s in worded)
        wording = risk_wording(d.evidence)
        if wording and worded:
            said += " (" + ", ".join(f"“{printable(w, multiline=False)}”" for w in wording) + ")"
        if DISPUTED_SIGNAL in shown_risk.signals:
            said += (", " if said else "") + DISPUTED_SIGNAL
        risk.append(" · signals: " + said)
    if shown_risk.pmo_look_24h:
        risk.append(" · ")
        risk.append("24h PMO look", style="bold reverse")
        wait = overdue_wait(case, now) if now is not None else None
        if wait is not None:  # days and hours past a day: a trial read "overdue 53h"
            risk.append(f" overdue, waiting {wait}", style="bold")
    if raised:
        # a risk already HIGH at triage is not raised by the dispute, only told of it
        how = "raised now" if d.risk.level != shown_risk.level else "now also"
        risk.append(
            f" ({how}: {', '.join(short_ref(r) for r in raised)} disputed; "
            f"{d.risk.level.upper()} at triage)",
            style="dim",
        )
    modules: RenderableType = IdList(d.impacted_modules) if d.impacted_modules else Text("none")
    # the verdict, then what decided it (the deciding sentence and any weighed
    # exclusion), then the rest of the fields: the reviewer checks the sentence first (a
    # later trial of issue 34: at 120x40 Sureness, Risk and Modules filled the side pane
    # above it)
    parts.append(_fields([("Verdict", verdict)]))
    if lead:
        parts.append(lead)
    parts.append(top)
    parts.extend(evidence_section(d, clauses, whole=whole_clauses, request=case.text))
    parts.append(Text(""))
    parts.extend(disputed_strip(d, clauses, memory, escalate))
    parts.append(head)
    if mark is not None:  # the mark took the title's line: the title whole here
        parts.append(folded(case.title, style="bold", limit=DETAIL_LINE_CHARS))
    else:
        parts.append(CutTitle(case.title))
    parts.append(
        _fields(
            [
                ("Sureness", sureness_text(d)),
                ("Risk", risk),
                ("Effort", effort_text(case.estimate, d.effort)),
                ("Modules", modules),
            ]
        )
    )
    if cr_page is not None:
        parts.append(cr_link_line(case.case_id, cr_page))

    parts.append(Text(""))
    parts.append(_section("Clause memory"))
    parts.append(
        memory_strip(
            d.cited_clauses,
            memory,
            similar,
            memory_verdict,
            precedents,
            similar_unknown,
            resolutions_above=disputed_refs(d.cited_clauses, memory),
        )
    )

    parts.append(Text(""))
    parts.append(_section("Request"))
    parts.append(_indent(folded(case.text.strip() or "(empty)")))

    parts.append(Text(""))
    parts.append(_section("Reasoning"))
    parts.append(_indent(folded(d.reasoning.strip() or "(none)")))

    parts.append(Text(""))
    parts.append(_section(f"Cited clauses ({len(d.cited_clauses)})"))
    if not d.cited_clauses:
        parts.append(Text("  none", style="dim"))
    evidence = evidence_of(d, case.text, clauses)
    for ref in d.cited_clauses:
        parts.append(marked_clause_block(ref, clauses.get(ref), evidence, whole=whole_clauses))

    parts.append(Text(""))
    parts.append(_section("Assumptions"))
    if not d.assumptions:
        parts.append(Text("  none", style="dim"))
    if d.assumptions:
        parts.append(_bullets(folded(item) for item in d.assumptions))
    if d.effort.basis:
        parts.append(Text(""))
        parts.append(
            _section(
                f"Effort basis ({len(d.effort.basis)} comparable work "
                f"item{'s' if len(d.effort.basis) != 1 else ''})"
            )
        )
        parts.append(_bullets(effort_basis(d.effort, workitems or {})))
    parts.append(Text(""))
    parts.extend(
        preanalysis_section(
            case.preanalysis, llm_model=llm_model, busy=preanalysing, archived=archived
        )
    )
    return Group(*parts)


SURE_STYLE = "bold"


UNSURE_STYLE = "bold reverse"
"""``needs a careful look`` in reverse video: it reads on a 16-colour terminal and, by
its words, without colour at all."""


def sureness_text(d: Decision) -> Text:
    """``sure: <why>`` or ``needs a careful look: <doubt>; <doubt>`` for the detail
    pane (:func:`etki.domain.sureness_reasons`). The reasons can quote client text:
    they are appended as plain, bounded text, never markup."""
    sure, reasons = sureness_reasons(d)
    out = Text()
    out.append(
        "sure" if sure else "needs a careful look", style=SURE_STYLE if sure else UNSURE_STYLE
    )
    out.append(": " + one_line("; ".join(reasons)))
    return out


HISTORY_SHOWN = 30
"""How many of a case's newest events the detail pane lists (the rest: ``etki show``)."""


def history_section(events: Sequence[CaseEvent] | None) -> RenderableType:
    """The detail pane's ``History`` section (issue 14 item 3): one line per event of
    the case, oldest first, the time then what happened (:meth:`CaseEvent.summary`) and
    its text (source, engine, reason, note), each part bounded and shown literally; the
    newest :data:`HISTORY_SHOWN` when there are more. ``None`` (not read yet): nothing,
    so the pane does not jump when it arrives below the rest."""
    if events is None:
        return Group()
    parts: list[RenderableType] = [Text(""), _section("History")]
    shown = list(events)[-HISTORY_SHOWN:]
    if len(events) > len(shown):
        parts.append(
            Text(
                f"  … {len(events) - len(shown)} earlier "
                f"{plural(len(events) - len(shown), 'event')}: etki show lists them all",
                style="dim",
            )
        )
    for e in shown:
        line = Text()
        line.append(when(e.at), style="dim")
        line.append("  ")
        line.append(one_line(e.summary()), style="bold" if e.kind == "amended" else "")
        if e.text:
            line.append(" — ")
            line.append(one_line(e.text))
        parts.append(_indent(line))  # a long note wraps under its indent, not at column 0
    return Group(*parts)
