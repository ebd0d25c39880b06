"""Decision memory computed from stored cases: precedents, disputed clauses and clause
memory. Pure functions over :class:`etki.domain.CaseRecord` values (no I/O), so every
count shown anywhere (TUI, wiki, reports) is derived from the DB the same way and never
read back from wiki files (DESIGN.md, "Decisions, approval, memory").

Definitions:

* a **precedent** is a ruled case whose ruling differs from the engine's verdict
  (an override);
* a clause is **disputed** when the resolved cases citing it were ruled differently
  (at least two distinct rulings);
* **clause memory** is, per cited clause: how many precedents cite it, the newest of
  them, the disputed flag and the ruling history (oldest first);
* a **correction** (Raporlar's "clauses with most corrections") is an override counted
  on the clause it is about, not on every clause its case cites: the clause the
  reviewer's reason names, else the clause of the decisive evidence, else every cited
  clause (:func:`correction_clauses`, :data:`CORRECTION_RULES`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Protocol

from etki.domain import CaseRecord, ClauseMemory, DisputedClause, Risk


def _ruled(cases: Iterable[CaseRecord]) -> list[CaseRecord]:
    """Ruled cases, oldest ruling first (ties by case id, so the order is total)."""
    ruled = [(c.ruling.ruled_at, c.case_id, c) for c in cases if c.ruling is not None]
    return [c for *_, c in sorted(ruled, key=lambda r: r[:2])]


def precedents(cases: Iterable[CaseRecord]) -> list[CaseRecord]:
    """Overridden cases (ruling != verdict), oldest ruling first."""
    return [c for c in _ruled(cases) if c.ruling is not None and c.ruling.is_override]


def clause_memory(cases: Iterable[CaseRecord]) -> dict[str, ClauseMemory]:
    """Map clause ref -> :class:`ClauseMemory` for every clause cited by a ruled case.
    Clauses no ruled case cites are absent (their memory is empty)."""
    history: dict[str, list[CaseRecord]] = {}
    for case in _ruled(cases):
        for ref in case.decision.cited_clauses:
            history.setdefault(ref, []).append(case)
    memory: dict[str, ClauseMemory] = {}
    for ref in sorted(history):
        ruled = history[ref]
        overrides = [c.ruling for c in ruled if c.ruling is not None and c.ruling.is_override]
        memory[ref] = ClauseMemory(
            ref=ref,
            precedent_count=len(overrides),
            last_correction=overrides[-1] if overrides else None,
            disputed=len({c.ruling.ruling for c in ruled if c.ruling is not None}) > 1,
            history=tuple(
                (c.case_id, c.ruling.ruling, c.ruling.reviewer, c.ruling.ruled_at)
                for c in ruled
                if c.ruling is not None
            ),
        )
    return memory


def disputed_clauses(cases: Iterable[CaseRecord]) -> list[DisputedClause]:
    """Disputed clauses sorted by ref, each with its full ruling history."""
    return [
        DisputedClause(ref=m.ref, history=m.history)
        for m in clause_memory(cases).values()
        if m.disputed
    ]


# --- where an override counts as a correction (Raporlar) -------------------------------

CORRECTION_RULES: dict[str, str] = {
    "reason": "the clause the reviewer's reason names",
    "evidence": "the clause of the decisive evidence (the deciding sentence)",
    "cited": "every clause the case cites (neither names one)",
}
"""The three rules of :func:`correction_clauses`, in the order they are tried, with the
words Raporlar shows for each."""

_DECIDING = "deciding sentence: "


def _names(text: str, number: str) -> bool:
    """``number`` (``4.8``) occurs in ``text`` as a whole clause number: not inside a
    longer one (``14.8``, ``4.8.1``, ``4.80``) nor glued to a word."""
    if not number or number not in text:  # the cheap test first: most refs are not named
        return False
    pattern = rf"(?<![\w.]){re.escape(number)}(?!\w|\.\w)"
    return re.search(pattern, text) is not None


def correction_clauses(case: CaseRecord, known: Iterable[str] = ()) -> tuple[tuple[str, ...], str]:
    """The clause refs an override counts as a correction on, and the rule used (a key
    of :data:`CORRECTION_RULES`). Tried in order:

    1. ``reason``: the reviewer's reason names clauses, by ref (``MSA#4.8``) or by
       number alone (``4.8``, ``§4.8``; a whole number: ``14.8`` or ``4.8.1`` do not
       name ``4.8``); the candidates are the case's cited refs and ``known`` (the
       project's clause refs, so a reason may name a clause the engine did not cite).
       When a number is both a cited clause and an uncited one of another contract,
       the cited one is meant. Matching is on NFC text, case-insensitive for refs.
    2. ``evidence``: the decisive evidence, the ``deciding sentence: REF`` of the
       decision's ``classify`` step (:meth:`etki.triage.engine.TriageEngine.triage`),
       names one of the cited or known refs.
    3. ``cited``: every cited clause (the old count), said so by the rule name.

    Returns ``((), "cited")`` for a case that cites nothing and names nothing. Pure."""
    cited = tuple(case.decision.cited_clauses)
    candidates = list(dict.fromkeys((*cited, *known)))
    reason = unicodedata.normalize("NFC", case.ruling.reason if case.ruling else "")
    if reason.strip():
        folded_reason = reason.casefold()
        named = [
            ref
            for ref in candidates
            if ref.casefold() in folded_reason
            or ("#" in ref and _names(reason, ref.split("#", 1)[1]))
        ]
        if named:
            in_cited = [ref for ref in named if ref in cited]
            return tuple(in_cited or named), "reason"
    for step in getattr(case.decision, "evidence", ()):
        if step.step != "classify" or _DECIDING not in step.detail:
            continue
        rest = step.detail.split(_DECIDING, 1)[1]
        for ref in sorted(candidates, key=len, reverse=True):  # MSA#4.8.1 before MSA#4.8
            if rest.startswith(ref) and not re.match(r"\w|\.\w", rest[len(ref) :]):
                return (ref,), "evidence"
    return cited, "cited"


def corrections_by_clause(
    cases: Iterable[CaseRecord], known: Iterable[str] = ()
) -> list[tuple[str, int, tuple[tuple[str, int], ...]]]:
    """Per clause, how many overrides count as a correction on it (by
    :func:`correction_clauses`, one count per override and clause) and by which rules:
    ``(ref, count, ((rule, n), ...))``, most corrections first, then by ref; rules in
    the order of :data:`CORRECTION_RULES`. Clauses without a correction are absent."""
    known = tuple(known)
    counts: dict[str, dict[str, int]] = {}
    for case in precedents(cases):
        refs, rule = correction_clauses(case, known)
        for ref in refs:
            by_rule = counts.setdefault(ref, {})
            by_rule[rule] = by_rule.get(rule, 0) + 1
    rows = [
        (ref, sum(by.values()), tuple((r, by[r]) for r in CORRECTION_RULES if r in by))
        for ref, by in counts.items()
    ]
    return sorted(rows, key=lambda row: (-row[1], row[0]))


def disputed_refs(cited: Iterable[str], memory: Mapping[str, ClauseMemory]) -> tuple[str, ...]:
    """The refs of ``cited`` that are disputed in ``memory`` now (citation order)."""
    return tuple(ref for ref in cited if (m := memory.get(ref)) is not None and m.disputed)


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
    ``escalate`` (``ETKI_DISPUTED_ESCALATION``, on by default) a cited clause that is
    disputed in the current clause ``memory`` raises the shown risk by the risk layer's
    own rule (:mod:`etki.triage.risk`: a disputed clause makes the level ``high``, adds
    the ``disputed_clause`` signal and asks for the 24h PMO look), unless the stored
    risk already carries that signal. The stored decision is not changed: the second
    value names the refs that raised it (empty when nothing was raised)."""
    risk = decision.risk
    if not escalate or not memory or "disputed_clause" in risk.signals:
        return risk, ()
    raised = disputed_refs(decision.cited_clauses, memory)
    if not raised:
        return risk, ()
    return Risk("high", (*risk.signals, "disputed_clause"), True), raised
