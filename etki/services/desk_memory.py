"""The desk's memory: clause memory, precedents, disputed clauses and their
resolutions, and the memory beside the verdict (live: rulings come after intake).
:class:`DeskMemory` is a part of :class:`etki.services.Desk` (it derives from it); the
figures are :mod:`etki.memory`'s and :mod:`etki.triage.similar`'s."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from etki import memory
from etki.config import DEFAULT_MAX_REQUEST_CHARS
from etki.engines import clause_background, ruling_index

if TYPE_CHECKING:
    from etki.domain import (
        CaseRecord,
        CaseSummary,
        ClauseMemory,
        ClauseResolution,
        DisputedClause,
        ScopeClause,
    )
    from etki.store import CaseFileRepository
    from etki.triage.similar import Beside, RulingIndex


class _Desk(Protocol):
    """What the memory methods read of the desk they are part of."""

    repo: CaseFileRepository
    _ruling_indexes: dict[str, tuple[tuple[str, tuple[tuple[str, str, int], ...]], RulingIndex]]

    def clauses(self, project_id: str) -> dict[str, ScopeClause]: ...
    def resolutions(self, project_id: str) -> list[ClauseResolution]: ...
    def clause_memory_of(
        self, cases: list, project_id: str | None = None
    ) -> dict[str, ClauseMemory]: ...
    def ruling_index_of(
        self, project_id: str, cases: Sequence[CaseRecord | CaseSummary]
    ) -> RulingIndex: ...
    @staticmethod
    def beside_with(index: RulingIndex, case: CaseRecord | CaseSummary) -> Beside: ...


class DeskMemory:
    """The memory methods of :class:`etki.services.Desk` (``self`` is the desk)."""

    def clause_memory_of(
        self: _Desk, cases: list, project_id: str | None = None
    ) -> dict[str, ClauseMemory]:
        """Clause memory computed from cases already read from the DB (full records or
        :meth:`queue_summaries` rows of every case), without reading them again, with
        the resolutions of disputed clauses of ``project_id`` (default: the cases'
        project) read now (a small table)."""
        pids = {project_id} if project_id is not None else {c.project_id for c in cases}
        return memory.clause_memory(cases, [r for p in sorted(pids) for r in self.resolutions(p)])

    # memory beside the verdict (live: rulings come after intake)
    def ruling_index_of(
        self: _Desk, project_id: str, cases: Sequence[CaseRecord | CaseSummary]
    ) -> RulingIndex:
        """The similar-rulings index of the ruled ones among ``cases`` (rows already
        read, e.g. :meth:`queue_summaries` of every case), for :meth:`beside_with`.
        Kept per project and reused while the stored index and the ruled set (case
        id, ruling, version) are unchanged, so a live refresh that changed nothing
        ruled builds nothing; after a new ruling only the newly ruled requests are
        tokenised (the others' vectors are reused). Background idf: the project's
        clauses."""
        index_hash = self.repo.index_hash(project_id)
        key = tuple(
            sorted((c.case_id, c.ruling.ruling, c.version) for c in cases if c.ruling is not None)
        )
        cached = self._ruling_indexes.get(project_id)
        if cached is not None and cached[0] == (index_hash, key):
            return cached[1]
        previous: RulingIndex | None = None
        if cached is not None and cached[0][0] == index_hash:
            previous = cached[1]  # same contract: keep its vectors
            languages, background = previous.languages, previous.background
        else:
            languages = self.repo.project_languages(project_id)
            background = clause_background(self.clauses(project_id).values(), languages)
        built = ruling_index(cases, languages, background, reuse=previous)
        self._ruling_indexes[project_id] = ((index_hash, key), built)
        return built

    @staticmethod
    def beside_with(index: RulingIndex, case: CaseRecord | CaseSummary) -> Beside:
        """The memory beside ``case`` now: its similar rulings (the case itself left
        out) and the ruling they support, from ``index`` (:meth:`ruling_index_of`).
        Pure and quick (one query), so the desk can call it on every highlight: a text
        longer than :data:`etki.config.DEFAULT_MAX_REQUEST_CHARS` (a case stored before
        the request cap existed) is compared by that many first characters, so one
        case's size never holds the desk up (issue 11 item 6)."""
        return index.beside(case.title, case.text[:DEFAULT_MAX_REQUEST_CHARS], exclude=case.case_id)

    def beside(self: _Desk, case_id: str) -> Beside:
        """The memory beside a stored case from the rulings stored now (live, unlike
        the ``similar_rulings`` frozen into its decision at intake). Raises
        ``NotFoundError`` for an unknown case."""
        case = self.repo.case(case_id)
        index = self.ruling_index_of(
            case.project_id, self.repo.case_summaries(case.project_id, status="ruled")
        )
        return self.beside_with(index, case)

    # memory
    def clause_memory(self: _Desk, project_id: str) -> dict[str, ClauseMemory]:
        """:func:`etki.memory.clause_memory` of the project's ruled cases and its
        resolutions of disputed clauses: :meth:`clause_memory_of` of the light rows of
        the ruled cases, the very computation ``etki queue`` and the desk's queue make,
        so ``etki show`` and the queue read the same disputed clauses and risk."""
        ruled = self.repo.case_summaries(project_id, status="ruled")
        return self.clause_memory_of(ruled, project_id)

    def precedents(self: _Desk, project_id: str) -> list[CaseRecord]:
        return memory.precedents(self.repo.cases(project_id, status="ruled"))

    def disputed(self: _Desk, project_id: str) -> list[DisputedClause]:
        """The disputed clauses with their history, resolution in force and the case
        that overrode it (:func:`etki.memory.disputed_clauses`)."""
        return memory.disputed_clauses(
            self.repo.cases(project_id, status="ruled"), self.resolutions(project_id)
        )

    def resolutions(self: _Desk, project_id: str) -> list[ClauseResolution]:
        """Every resolution of a disputed clause of ``project_id``, oldest first (the
        newest of a clause is in force)."""
        return self.repo.clause_resolutions(project_id)

    def preanalysis_mark(self: _Desk, project_id: str) -> int:
        """:meth:`etki.store.repository.preanalyses.PreanalysisStore.preanalysis_mark`:
        changes when a pre-analysis of the project is saved, by any process."""
        return self.repo.preanalysis_mark(project_id)

    def resolution_count(self: _Desk, project_id: str) -> int:
        """How many resolutions of disputed clauses ``project_id`` has: append-only, so
        the desk's live refresh sees one recorded elsewhere by a change of this number
        (a resolution changes no case version)."""
        return self.repo.resolution_count(project_id)
