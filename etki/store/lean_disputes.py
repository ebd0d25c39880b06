"""The disputed clauses on the lean read path from the per-clause counts kept at ruling
time (``clause_tallies``, migration 0013; issue 32 item 1): what ``etki dispute list``
(its text form) and ``etki queue`` read, in plain DB-API SQL (one set of queries for
SQLite and PostgreSQL, :class:`etki.store.lean.LeanStore`).

Read are the counts of the clauses asked about (O(clauses) rows, not a row per ruled
case), the project's resolutions and, for the few clauses with a resolution, the
:data:`etki.memory.RuledRow` of every ruled case citing them (found through
``ruling_refs``, migration 0010): whether a resolution stands depends on the order of
the rulings after it, which the counts do not keep. :func:`etki.memory.disputes_counted`
computes the list from them (the store imports nothing above it).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from etki.store.lean_sql import ARRIVAL, CHUNK, RULED_ROWS, Fallback, RuledRow

if TYPE_CHECKING:
    from etki.domain import ClauseResolution

__all__ = ["DisputeRead", "LeanReads", "citing_ids", "dispute_read", "disputes_read"]


class LeanReads(Protocol):
    """What these functions read through: :class:`etki.store.lean.LeanStore` (named by
    its methods so this module does not import it back, tests/test_layers.py)."""

    def rows(self, query: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]: ...
    def resolutions(self, project_id: str) -> list[ClauseResolution]: ...
    def ruled_of(self, found: list[tuple[Any, ...]]) -> list[RuledRow]: ...
    def chosen_project(self, given: str | None) -> str: ...


TALLIES = "SELECT ref, ruling, cited, about FROM clause_tallies WHERE project_id = ?"
"""The per-clause counts of a project: ``(ref, ruling, cited, about)``."""
TALLIES_OF = TALLIES + " AND ref IN ({refs})"
"""The same, of some clauses only."""
CITING = (
    RULED_ROWS + " AND c.id IN (SELECT x.case_id FROM ruling_refs x "
    "WHERE x.project_id = ? AND x.ref IN ({refs}))"
)
"""The :data:`~etki.store.lean.RULED_ROWS` of the ruled cases citing one of some clauses."""
CITING_IDS = (
    "SELECT c.id FROM cases c WHERE c.project_id = ? AND c.status = 'ruled' "
    "AND c.id IN (SELECT x.case_id FROM ruling_refs x WHERE x.project_id = ? "
    f"AND x.ref IN ({{refs}})) ORDER BY {ARRIVAL}"
)
"""The ruled cases citing one of some clauses, oldest first (``ruling_refs`` by its
``(project_id, ref)`` index, migration 0013)."""
UNSUMMED = "SELECT 1 FROM rulings WHERE project_id = ? AND cited_refs IS NULL LIMIT 1"
"""A ruling row of the project without the summary (none written since 0008): it has no
``ruling_refs`` rows, so :data:`CITING` would miss it (a partial index holds only such
rows, migration 0013: no scan)."""


@dataclass(frozen=True)
class DisputeRead:
    """What the disputed clauses of one project are computed from
    (:func:`etki.memory.disputes_counted`): ``counts``, the ``clause_tallies`` rows of
    the clauses asked about (``(ref, ruling, cited, about)``, in no set order);
    ``ruled``, the :data:`~etki.memory.RuledRow` of every ruled case citing one of them
    that has a resolution (any order); ``resolutions``, the project's resolutions,
    oldest first."""

    counts: list[tuple[str, str, int, int]]
    ruled: list[RuledRow]
    resolutions: list[ClauseResolution]


def _chunks(values: list[str]) -> list[tuple[str, list[str]]]:
    """``(placeholders, values)`` per :data:`~etki.store.lean.CHUNK` of ``values``."""
    return [
        (", ".join("?" * len(values[at : at + CHUNK])), values[at : at + CHUNK])
        for at in range(0, len(values), CHUNK)
    ]


def dispute_read(
    store: LeanReads, project_id: str, refs: Collection[str] | None = None
) -> DisputeRead:
    """:class:`DisputeRead` of ``project_id``'s clauses ``refs`` (None: every clause a
    current ruling cites). Raises :class:`~etki.store.lean.Fallback` when a clause with
    a resolution is asked about and a ruling row of the project has no summary."""
    if refs is None:
        counts = store.rows(TALLIES, [project_id])
    else:
        counts = []
        for marks, chunk in _chunks(sorted(set(refs))):
            counts += store.rows(TALLIES_OF.format(refs=marks), [project_id, *chunk])
    counts = [(ref, ruling, int(n), int(a)) for ref, ruling, n, a in counts]
    resolutions = store.resolutions(project_id)
    resolved = sorted({r.ref for r in resolutions} & {c[0] for c in counts})
    ruled: list[RuledRow] = []
    if resolved:
        if store.rows(UNSUMMED, [project_id]):
            raise Fallback("a ruling row without the summary")
        for marks, chunk in _chunks(resolved):
            found = store.rows(CITING.format(refs=marks), [project_id, project_id, *chunk])
            ruled += store.ruled_of(found)
    return DisputeRead(counts, ruled, resolutions)


def disputes_read(store: LeanReads, given: str | None) -> tuple[str, DisputeRead]:
    """What ``etki dispute list [--project ID]`` (text) reads: the chosen project
    (:meth:`~etki.store.lean.LeanStore.chosen_project`: an unknown one raises as the ORM
    path does) and the :class:`DisputeRead` of all its cited clauses."""
    project_id = store.chosen_project(given)
    return project_id, dispute_read(store, project_id)


def citing_ids(store: LeanReads, project_id: str, refs: Collection[str]) -> list[str] | None:
    """The ids of the project's ruled cases whose decision cites one of ``refs``, oldest
    first (:data:`CITING_IDS`: no row per ruled case read, issue 32 item 1: ``etki
    show``); None when ``ruling_refs`` cannot say (a ruling row without the summary,
    or more refs than one query takes): the caller reads every ruled case's head."""
    if not refs or len(refs) > CHUNK or store.rows(UNSUMMED, [project_id]):
        return None
    wanted = sorted(set(refs))
    query = CITING_IDS.format(refs=", ".join("?" * len(wanted)))
    return [r[0] for r in store.rows(query, [project_id, project_id, *wanted])]
