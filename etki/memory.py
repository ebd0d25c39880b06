"""Decision memory computed from stored cases: precedents, disputed clauses and clause
memory. Pure functions over :class:`etki.domain.CaseRecord` values (no I/O), so every
count shown anywhere (TUI, wiki, reports) is derived from the DB the same way and never
read back from wiki files (DESIGN.md, "Decisions, approval, memory").

Definitions:

* a **precedent** is a ruled case whose ruling differs from the engine's verdict
  (an override);
* a clause is **disputed** when the rulings *about* it disagree (at least two distinct
  rulings): a ruling is about the cited clauses its reason names, else the clause of the
  decisive evidence, else every clause its case cites (:func:`ruled_about`, the rule of
  corrections below). DESIGN.md's "cited by resolved cases whose rulings disagree",
  read as the rulings on that clause: a ruling on 3.2 of a case that also cites the
  generic 2.1 "Scope" does not dispute 2.1 (a tdrs trial: one CR made 25 of 28 pending
  cases disputed);
* **clause memory** is, per cited clause: how many precedents are about it (the
  corrections of that clause, by the same :func:`ruled_about` rule: a CR about 3.2 is
  not a correction of the 2.1 "Scope" its case also cites), the newest of them, the
  disputed flag and the ruling history (every ruled case citing it, oldest first);
* a disputed clause is **disputed-resolved** while a person's resolution of it (the
  newest row of ``clause_resolutions``, :class:`etki.domain.ClauseResolution`) stands:
  until a ruling made after the resolution (``ruled_at`` later than its ``at``, to the
  second; a ruling in the same second counts as one the resolver saw) disagrees with
  the resolution's verdict. Then it is disputed again, the resolution *overridden* by
  that case (:func:`overriding_case`), until a newer resolution. A resolved clause
  stays disputed-resolved when its rulings agree again (:func:`is_disputed`): the
  PMO's standing resolution is what the next reviewer of the clause needs;
* **escalation**: only an *open* dispute (disputed and not resolved,
  :attr:`etki.domain.ClauseMemory.open_dispute`) raises the risk: the desk's shown risk
  (:func:`current_risk`) and the risk layer of new triage (:mod:`etki.triage.risk`). A
  resolved clause no longer asks for the 24h PMO look; a re-disputed one does again.
  Stored decisions never change: one frozen with the ``disputed_clause`` signal keeps
  it (its evidence says why), resolved or not;
* a **correction** (Raporlar's "clauses with most corrections") is an override counted
  on the clause it is about, not on every clause its case cites: the clause the
  reviewer's reason names, else the clause of the decisive evidence, else every cited
  clause (:func:`correction_clauses`, :data:`CORRECTION_RULES`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

# only the parts of the domain `etki dispute list` needs (issue 32 item 1); the others
# are imported where used (`etki.domain` loads each part on first use)
from etki.domain import DISPUTED_SIGNAL, DisputedClause, deciding_ref
from etki.domain.corrections import CORRECTION_RULES as CORRECTION_RULES
from etki.domain.corrections import _about, _correction, _named_known, _ref_set, about_refs
from etki.domain.corrections import _named_in as _named_in
from etki.domain.corrections import correction_clauses as correction_clauses
from etki.domain.disputes import DisputeCount

if TYPE_CHECKING:
    from etki.domain import (
        CaseRecord,
        CaseSummary,
        ClauseMemory,
        ClauseResolution,
        Decision,
        ReportCase,
        Risk,
    )

    StoredCase = CaseRecord | CaseSummary | ReportCase
    Disputes = ClauseMemory | DisputedClause | DisputeCount
    """What says whether a clause's dispute is open (``open_dispute``): its memory or,
    for a disputed clause, the list of disputed clauses' entry."""
    """A case as memory reads it: a full record, a queue row or a report's row (the
    same attribute names)."""

_Case = TypeVar("_Case", bound="StoredCase")


def _ruled(cases: Iterable[_Case]) -> list[_Case]:
    """Ruled cases, oldest ruling first (ties by case id, so the order is total)."""
    ruled = [(c.ruling.ruled_at, c.case_id, c) for c in cases if c.ruling is not None]
    return [c for *_, c in sorted(ruled, key=lambda r: r[:2])]


def precedents(cases: Iterable[_Case]) -> list[_Case]:
    """Overridden cases (ruling != verdict), oldest ruling first."""
    return [c for c in _ruled(cases) if c.ruling is not None and c.ruling.is_override]


def resolutions_in_force(resolutions: Iterable[ClauseResolution]) -> dict[str, ClauseResolution]:
    """clause ref -> the resolution in force for it: the newest (highest ``id``; the
    table is append-only). Pure."""
    newest: dict[str, ClauseResolution] = {}
    for res in resolutions:
        held = newest.get(res.ref)
        if held is None or res.id > held.id:
            newest[res.ref] = res
    return newest


def overriding_case(
    history: Iterable[tuple[str, str, str, str]], resolution: ClauseResolution | None
) -> str | None:
    """The case id of the first ruling of ``history`` ((case_id, ruling, reviewer,
    ruled_at), oldest first, as :attr:`ClauseMemory.history`) made after ``resolution``
    (``ruled_at`` later than its ``at``) that disagrees with its verdict; None when
    there is no resolution or no such ruling (the resolution stands). The one rule of
    when a resolution is overridden: the wiki model (:mod:`etki.wiki.model`) calls it too."""
    if resolution is None:
        return None
    for case_id, ruling, _reviewer, ruled_at in history:
        if ruled_at > resolution.at and ruling != resolution.verdict:
            return case_id
    return None


def is_disputed(
    rulings: Iterable[str],
    overridden_by: str | None,
    resolution: ClauseResolution | None = None,
) -> bool:
    """Whether a clause is disputed: the current rulings of the cases citing it disagree,
    or a ruling made after the PMO's resolution disagrees with it (``overridden_by``,
    :func:`overriding_case`) — also when that ruling, an amendment say, leaves every
    ruling agreeing with each other but not with the resolution (the resolution is then
    contradicted, so the clause reads disputed again and names that case) — or the
    clause has a ``resolution`` in force (the newest, :func:`resolutions_in_force`): a
    clause the PMO resolved stays disputed-resolved after its rulings agree again, so
    the resolution is still shown to the next reviewer of the clause (issue 34 item 4;
    it raises no risk: :attr:`etki.domain.ClauseMemory.open_dispute`). The one rule:
    :func:`clause_memory` and the wiki model (:mod:`etki.wiki.model`) both call it."""
    return len(set(rulings)) > 1 or overridden_by is not None or resolution is not None


RuledRow = tuple[str, str, str, str, str, tuple[str, ...], str | None]
"""One ruled case as the list of disputed clauses reads it: ``(case_id, ruling,
reviewer, ruled_at, reason, cited refs, deciding ref or None)`` — the ruling's verdict
word, the reviewer's reason (empty: none) and the clause of the decisive evidence
(:func:`etki.domain.deciding_ref`; None: none among the cited refs). What
:meth:`etki.store.lean.LeanStore.ruled_rows` reads and :func:`ruled_row` makes of a
record; :func:`disputes_of` computes from it."""

_Entry = tuple[str, str, str, str]
"""(case_id, ruling, reviewer, ruled_at): one line of a clause's history."""


def ruled_row(case: StoredCase) -> RuledRow:
    """The :data:`RuledRow` of a ruled ``case`` (its decisive clause from the evidence
    of a full record, from :attr:`etki.domain.DecisionSummary.deciding` of a queue
    row). Raises ``ValueError`` for a case not ruled."""
    ruling = case.ruling
    if ruling is None:
        raise ValueError(f"{case.case_id} is not ruled")
    from etki.domain import DecisionSummary, ReportDecision

    cited = tuple(case.decision.cited_clauses)
    d = case.decision
    if isinstance(d, DecisionSummary | ReportDecision):
        deciding = d.deciding
    else:
        deciding = deciding_ref(((e.step, e.detail) for e in d.evidence), cited)
    return (
        case.case_id,
        ruling.ruling,
        ruling.reviewer,
        ruling.ruled_at,
        ruling.reason,
        cited,
        deciding if deciding in cited else None,
    )


def _dispute(
    mine: tuple[_Entry, ...], resolution: ClauseResolution | None
) -> tuple[str | None, bool]:
    """``(overridden_by, disputed)`` of a clause from ``mine``, the entries of its
    history whose ruling is about it (:func:`ruled_about`; oldest first) and its
    ``resolution`` in force: the one rule :func:`clause_memory` and :func:`disputes_of`
    share (:func:`overriding_case`, :func:`is_disputed`)."""
    overridden = overriding_case(mine, resolution)
    return overridden, is_disputed((ruling for _, ruling, _, _ in mine), overridden, resolution)


def clause_memory(
    cases: Iterable[StoredCase], resolutions: Iterable[ClauseResolution] = ()
) -> dict[str, ClauseMemory]:
    """Map clause ref -> :class:`ClauseMemory` for every clause cited by a ruled case,
    with the resolution in force of each (``resolutions``: the project's
    ``clause_resolutions`` rows, :meth:`etki.store.CaseFileRepository.clause_resolutions`;
    :func:`resolutions_in_force`) and the case that overrode it
    (:func:`overriding_case`). Clauses no ruled case cites are absent (their memory is
    empty), also when they have a resolution. The one computation of memory: the CLI,
    the TUI, the engine's intake and the reports all call it (the wiki model counts the
    same way, with :func:`overriding_case`; ``etki dispute list`` with
    :func:`disputes_of`, which shares :func:`_dispute`)."""
    from etki.domain import ClauseMemory

    in_force = resolutions_in_force(resolutions)
    history: dict[str, list[StoredCase]] = {}
    about: dict[str, tuple[str, ...]] = {}
    counted: dict[str, tuple[str, tuple[str, ...]]] = {}
    for case in _ruled(cases):
        refs, rule = case_about_rule(case)
        about[case.case_id] = refs
        counted[case.case_id] = (rule, refs)
        for ref in case.decision.cited_clauses:
            history.setdefault(ref, []).append(case)
    memory: dict[str, ClauseMemory] = {}
    for ref in sorted(history):
        ruled = history[ref]
        overrides = [
            c.ruling
            for c in ruled
            if c.ruling is not None and c.ruling.is_override and ref in about[c.case_id]
        ]
        past = tuple(
            (c.case_id, c.ruling.ruling, c.ruling.reviewer, c.ruling.ruled_at)
            for c in ruled
            if c.ruling is not None
        )
        # a dispute is between the rulings about the clause (ruled_about), not every
        # ruling of a case that happens to cite it
        mine = tuple(p for p in past if ref in about[p[0]])
        resolution = in_force.get(ref)
        overridden, disputed = _dispute(mine, resolution)
        memory[ref] = ClauseMemory(
            ref=ref,
            precedent_count=len(overrides),
            last_correction=overrides[-1] if overrides else None,
            disputed=disputed,
            history=past,
            resolution=resolution,
            overridden_by=overridden,
            disputing=mine,
            counted=tuple(
                (c.case_id, *counted[c.case_id], c.ruling.is_override)
                for c in ruled
                if c.ruling is not None
            ),
        )
    return memory


def disputed_clauses(
    cases: Iterable[CaseRecord], resolutions: Iterable[ClauseResolution] = ()
) -> list[DisputedClause]:
    """Disputed clauses sorted by ref, each with its full ruling history, its resolution
    in force and the case that overrode it: :func:`disputes_of` of the ruled
    ``cases`` (:func:`ruled_row`), the memory :func:`clause_memory` computes."""
    return disputes_of((ruled_row(c) for c in cases if c.ruling is not None), resolutions)


def disputes_of(
    rows: Iterable[RuledRow], resolutions: Iterable[ClauseResolution] = ()
) -> list[DisputedClause]:
    """The disputed clauses, sorted by ref, from the :data:`RuledRow` of every ruled
    case of a project (any order) and its resolutions: what :func:`clause_memory`
    says of each clause's history, dispute, resolution in force and overriding case
    (the same rule, :func:`_dispute`), without its counts of corrections — ``etki
    dispute list`` reads only these columns (issue 32 item 1)."""
    in_force = resolutions_in_force(resolutions)
    history: defaultdict[str, list[_Entry]] = defaultdict(list)
    disputing: defaultdict[str, list[_Entry]] = defaultdict(list)  # rulings about the ref
    # oldest ruling first, ties by case id (as _ruled orders cases)
    for case_id, ruling, reviewer, ruled_at, reason, cited, deciding in sorted(
        rows, key=itemgetter(3, 0)
    ):
        about = _about(cited, reason, deciding if deciding in cited else None)[0]
        entry = (case_id, ruling, reviewer, ruled_at)
        for ref in cited:
            history[ref].append(entry)
            if ref in about:
                disputing[ref].append(entry)
    out: list[DisputedClause] = []
    for ref in sorted(history):
        mine = tuple(disputing.get(ref, ()))
        resolution = in_force.get(ref)
        overridden, disputed = _dispute(mine, resolution)
        if disputed:
            out.append(
                DisputedClause(
                    ref=ref,
                    history=tuple(history[ref]),
                    resolution=resolution,
                    overridden_by=overridden,
                    disputing=mine,
                )
            )
    return out


ClauseCount = tuple[str, str, int, int]
"""One ``clause_tallies`` row (migration 0013): ``(ref, ruling, cited, about)`` — of the
current rulings with that ruling word, how many history lines of the clause (cited) and
how many of those are about it (:func:`ruled_about`)."""


def disputes_counted(
    counts: Iterable[ClauseCount],
    ruled: Iterable[RuledRow],
    resolutions: Iterable[ClauseResolution] = (),
) -> list[DisputeCount]:
    """The disputed clauses, sorted by ref, from the per-clause counts kept at ruling
    time (``counts``: every row of the clauses asked about) — what :func:`disputes_of`
    says of them, without the history: a clause without a resolution in force is
    disputed when the rulings about it are of two words or more; a clause with one is
    computed by :func:`disputes_of` itself (the resolution stands or a later ruling
    overrides it, an order the counts do not keep) from ``ruled``, the
    :data:`RuledRow` of every ruled case citing such a clause (any order; other rows
    may be there). The same rule (:func:`_dispute`) in fewer rows: O(clauses), not
    O(ruled cases) (issue 32 item 1)."""
    in_force = resolutions_in_force(resolutions)
    exact = {d.ref: d for d in disputes_of(ruled, resolutions) if d.ref in in_force}
    lines: defaultdict[str, int] = defaultdict(int)
    about: defaultdict[str, set[str]] = defaultdict(set)
    for ref, ruling, cited, n_about in counts:
        lines[ref] += int(cited)
        if n_about:
            about[ref].add(ruling)
    out: list[DisputeCount] = []
    for ref in sorted(lines):
        if ref in in_force:
            d = exact.get(ref)
            if d is not None:
                out.append(
                    DisputeCount(ref, d.rulings, len(d.history), d.resolution, d.overridden_by)
                )
        elif len(about[ref]) > 1:
            out.append(DisputeCount(ref, tuple(sorted(about[ref])), lines[ref]))
    return out


# --- where an override counts as a correction (Raporlar): etki.domain.corrections ------
# (below the store, which keeps each override's correction on its ruling's row)


def ruled_about(cited: Sequence[str], reason: str, deciding: str | None) -> tuple[str, ...]:
    """The cited clauses a ruling is *about*, the ones it can dispute: those its reason
    names (by ref or whole number), else the clause of the decisive evidence
    (``deciding``, :func:`deciding_ref`) when cited, else every cited clause — the rule
    of :func:`correction_clauses` for any ruling, over the cited clauses only
    (:func:`etki.domain.corrections.about_refs`, which the store's per-clause counts
    also use). A trial on tdrs: counting a ruling on every clause its case cites, one
    CR among approvals made the contract's generic clauses (2.1 "Scope", cited by 25 of
    28 cases) disputed, and the whole queue asked for a 24h look."""
    return about_refs(cited, reason, deciding)


def case_about(case: CaseRecord | CaseSummary) -> tuple[str, ...]:
    """:func:`ruled_about` of a ruled case (its cited clauses when not ruled): a full
    record's decisive clause is read from its evidence, a queue row's from
    :attr:`etki.domain.DecisionSummary.deciding` (a desk's trial: the queue's memory,
    built from the light rows, had no evidence and disputed every cited clause)."""
    return case_about_rule(case)[0]


def case_about_rule(case: StoredCase) -> tuple[tuple[str, ...], str]:
    """:func:`case_about` and why: ``(refs, rule)``, the rule a key of
    :data:`CORRECTION_RULES` (``reason``: the reviewer's reason names them;
    ``evidence``: the decisive evidence's clause; ``cited``: every cited clause, also
    for a case not ruled). What the desk's clause-memory strip says of each ruling
    (issue 34 item 4: a precedent citing 4.3 counts toward its deciding clause only).
    Pure."""
    from etki.domain import DecisionSummary, ReportDecision

    cited = tuple(case.decision.cited_clauses)
    if case.ruling is None:
        return cited, "cited"
    d = case.decision
    if isinstance(d, DecisionSummary | ReportDecision):
        deciding = d.deciding
    else:
        deciding = deciding_ref(((e.step, e.detail) for e in d.evidence), cited)
    return _about(cited, case.ruling.reason, deciding if deciding in cited else None)


def corrections_by_clause(
    cases: Iterable[CaseRecord | ReportCase],
    known: Iterable[str] = (),
    kept: Mapping[str, tuple[tuple[str, ...], str]] | None = None,
    counted: Iterable[tuple[tuple[str, ...], str, int]] = (),
) -> list[tuple[str, int, tuple[tuple[str, int], ...]]]:
    """Per clause, how many overrides count as a correction on it (by
    :func:`correction_clauses`, one count per override and clause) and by which rules:
    ``(ref, count, ((rule, n), ...))``, most corrections first, then by ref; rules in
    the order of :data:`CORRECTION_RULES`. Clauses without a correction are absent.
    ``kept``: case id -> :func:`correction_clauses` of an override as its ruling's row
    keeps it, computed against these ``known`` refs (``etki report``'s lean path,
    :func:`etki.store.lean_report.report_read`); the overrides absent from it are
    computed here. ``counted``: ``(refs, rule, n)``, ``n`` more overrides (none of them
    in ``cases``) whose kept correction is ``(refs, rule)``, counted by the database."""
    known = tuple(known)
    ref_set, longest = _ref_set(known)
    by_reason: dict[str, tuple[str, ...]] = {}
    kept = kept or {}

    def named_known(reason: str, known: tuple[str, ...]) -> tuple[str, ...]:
        found = by_reason.get(reason)
        if found is None:
            found = by_reason[reason] = _named_known(reason, known)
        return found

    counts: dict[str, dict[str, int]] = {}
    for refs, rule, n in counted:
        for ref in refs:
            by_rule = counts.setdefault(ref, {})
            by_rule[rule] = by_rule.get(rule, 0) + n
    for case in cases:
        if case.ruling is None or not case.ruling.is_override:
            continue
        held = kept.get(case.case_id)
        refs, rule = held or _correction(case, known, ref_set, longest, named_known)
        for ref in refs:
            by_rule = counts.setdefault(ref, {})
            by_rule[rule] = by_rule.get(rule, 0) + 1
    rows = [
        (ref, sum(by.values()), tuple((r, by[r]) for r in CORRECTION_RULES if r in by))
        for ref, by in counts.items()
    ]
    return sorted(rows, key=lambda row: (-row[1], row[0]))


def disputed_refs(cited: Iterable[str], memory: Mapping[str, ClauseMemory]) -> tuple[str, ...]:
    """The refs of ``cited`` that are disputed in ``memory`` now (citation order),
    resolved ones included (they are shown as disputed-resolved)."""
    return tuple(ref for ref in cited if (m := memory.get(ref)) is not None and m.disputed)


def open_disputed_refs(cited: Iterable[str], memory: Mapping[str, Disputes]) -> tuple[str, ...]:
    """The refs of ``cited`` whose dispute is open in ``memory`` now (disputed and not
    resolved: :attr:`ClauseMemory.open_dispute`), citation order: the ones that raise
    the risk."""
    return tuple(ref for ref in cited if (m := memory.get(ref)) is not None and m.open_dispute)


class StoredRisk(Protocol):
    """What :func:`current_risk` reads of a stored decision: a
    :class:`~etki.domain.Decision` or a queue summary row."""

    @property
    def risk(self) -> Risk:
        """The risk stored with the decision."""

    @property
    def cited_clauses(self) -> tuple[str, ...]:
        """Refs of the clauses the decision cites."""


def current_risk(
    decision: StoredRisk, memory: Mapping[str, ClauseMemory] | None, escalate: bool
) -> tuple[Risk, tuple[str, ...]]:
    """The risk the desk shows for a stored decision (a ``Decision`` or a queue
    summary: anything with ``risk`` and ``cited_clauses``), and the cited refs that
    raised it now.

    A decision is frozen when it is made; a clause can become disputed afterwards. With
    ``escalate`` (``ETKI_DISPUTED_ESCALATION``, on by default) a cited clause whose
    dispute is open in the current clause ``memory`` (disputed and not resolved by a
    person: a resolved clause no longer raises it, a re-disputed one does again) raises
    the shown risk by the risk layer's
    own rule (:mod:`etki.triage.risk`: a disputed clause makes the level ``high``, adds
    the ``disputed_clause`` signal and asks for the 24h PMO look), unless the stored
    risk already carries that signal. The stored decision is not changed: the second
    value names the refs that raised it (empty when nothing was raised)."""
    return risk_now(decision.risk, decision.cited_clauses, memory, escalate)


def risk_now(
    risk: Risk, cited: Iterable[str], memory: Mapping[str, Disputes] | None, escalate: bool
) -> tuple[Risk, tuple[str, ...]]:
    """:func:`current_risk` of a decision whose stored ``risk`` and ``cited`` clauses are
    given apart (the report's rows, :class:`etki.domain.ReportCase`)."""
    if not escalate or not memory or DISPUTED_SIGNAL in risk.signals:
        return risk, ()
    raised = open_disputed_refs(cited, memory)
    if not raised:
        return risk, ()
    from etki.domain import Risk

    return Risk("high", (*risk.signals, DISPUTED_SIGNAL), True), raised


def case_now(
    decision: Decision, memory: Mapping[str, ClauseMemory], escalate: bool
) -> dict[str, Any]:
    """What ``etki show`` and the desk show beside a case's frozen ``decision`` (the
    ``now`` of :class:`etki.domain.caseview.CaseView`): ``risk``, ``pmo_look_24h``,
    ``risk_signals``, ``risk_raised_by`` (:func:`current_risk` with ``escalate``) and
    ``disputed_clauses`` (per cited disputed ref: ``ref``, ``resolved``, the sorted
    ``rulings`` disputing it). ``memory``: the clause memory of at least the clauses the
    decision cites (only those are read)."""
    risk, raised = current_risk(decision, memory, escalate)
    return {
        "risk": risk.level,
        "pmo_look_24h": risk.pmo_look_24h,
        "risk_signals": list(risk.signals),
        "risk_raised_by": list(raised),
        "disputed_clauses": [
            {
                "ref": ref,
                "resolved": memory[ref].resolved,
                "rulings": sorted({r for _, r, _, _ in memory[ref].disputing}),
            }
            for ref in disputed_refs(decision.cited_clauses, memory)
        ],
    }
