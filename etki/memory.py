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
  them, the disputed flag and the ruling history (oldest first).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from etki.domain import CaseRecord, ClauseMemory


def _ruled(cases: Iterable[CaseRecord]) -> list[CaseRecord]:
    """Ruled cases, oldest ruling first (ties by case id, so the order is total)."""
    ruled = [c for c in cases if c.ruling is not None]
    return sorted(ruled, key=lambda c: (c.ruling.ruled_at, c.case_id))  # type: ignore[union-attr]


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


@dataclass(frozen=True)
class DisputedClause:
    """A disputed clause and its ruling history (case_id, ruling, reviewer, ruled_at)."""

    ref: str
    history: tuple[tuple[str, str, str, str], ...]

    @property
    def rulings(self) -> tuple[str, ...]:
        """The distinct rulings, sorted."""
        return tuple(sorted({h[1] for h in self.history}))


def disputed_clauses(cases: Iterable[CaseRecord]) -> list[DisputedClause]:
    """Disputed clauses sorted by ref, each with its full ruling history."""
    return [
        DisputedClause(ref=m.ref, history=m.history)
        for m in clause_memory(cases).values()
        if m.disputed
    ]
