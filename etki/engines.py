"""Building what triages: engines, embedders and ruling indexes (below the services).

:func:`make_engine_for` builds a project's :class:`~etki.triage.TriageEngine` from the
store (its index, clause memory and remit), :func:`embedder_for` the embedding model of
``ETKI_EMBED`` with its vector cache beside the store, :func:`ruling_index` and
:func:`project_ruling_index` the index of stored rulings that memory beside a verdict
reads (:mod:`etki.triage.similar`); :func:`stored_triage` and :func:`triaged` triage a
text with them. The services (:mod:`etki.services`) and the replay
(:mod:`etki.replay`) use these; nothing here stores anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from etki import memory
from etki.config import Settings
from etki.domain import (
    CaseRecord,
    CaseSummary,
    ClauseResolution,
    Decision,
    Project,
    Request,
    ScopeClause,
)
from etki.store import CaseFileRepository

if TYPE_CHECKING:
    from etki.knowledge import KnowledgeIndex
    from etki.triage import TriageEngine
    from etki.triage.similar import Beside, RulingIndex


def embedder_for(settings: Settings, project_id: str):
    """The offline embedding model of ``ETKI_EMBED`` (``etki.semantic``) behind a vector
    cache file ``embeddings-{project}.sqlite`` in the folder of the SQLite store (or
    ``.etki/`` for PostgreSQL), or None when ``ETKI_EMBED`` is unset. Raises
    ``SemanticUnavailableError`` (exit 2) when the model's package is missing."""
    if not settings.embed_backend:
        return None
    from etki.semantic import VectorCache, open_embedder

    path = vector_cache_path(settings, project_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    return open_embedder(settings.embed_backend, VectorCache(path))


def vector_cache_path(settings: Settings, project_id: str) -> Path:
    """The vector cache file of ``project_id``: ``embeddings-{project}.sqlite`` in the
    folder of the SQLite store, or in ``.etki/`` for PostgreSQL and an in-memory
    store (:func:`etki.semantic.cache_path`). Creates nothing."""
    from sqlalchemy.engine import make_url

    from etki.semantic import cache_path

    url = make_url(settings.db_url)
    folder = (
        Path(url.database).parent
        if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:"
        else Path(".etki")
    )
    return cache_path(folder, project_id)


def clause_background(
    clauses: Iterable[ScopeClause], languages: Sequence[str] = ("en",)
) -> tuple[dict[str, float], float]:
    """The background idf of the similar-rulings index: the contract's clauses, each
    ``title + "\n" + text`` (:func:`etki.triage.similar.background_idf`)."""
    from etki.triage.similar import background_idf

    return background_idf((f"{c.title}\n{c.text}" for c in clauses), languages)


def ruling_index(
    cases: Iterable[CaseRecord | CaseSummary],
    languages: Sequence[str] = ("en",),
    background: tuple[dict[str, float], float] | None = None,
    *,
    reuse: RulingIndex | None = None,
) -> RulingIndex:
    """The :class:`etki.triage.similar.RulingIndex` of the ruled ones among ``cases``
    (whole records or queue summaries; pending cases are skipped), each with its
    latest ruling. ``languages``: the project's, for the language guess;
    ``background``: :func:`clause_background` of the project's clauses; ``reuse``: an
    earlier index whose request vectors are taken over (see ``RulingIndex``)."""
    from etki.triage.similar import RuledRequest, RulingIndex

    return RulingIndex(
        (
            RuledRequest(c.case_id, c.title, c.text, c.ruling.ruling)
            for c in cases
            if c.ruling is not None
        ),
        languages,
        background,
        reuse=reuse,
    )


def project_ruling_index(
    project: Project, cases: Iterable[CaseRecord | CaseSummary]
) -> RulingIndex:
    """:func:`ruling_index` of ``cases`` with the languages and clauses of ``project``."""
    languages = project.config.languages
    return ruling_index(cases, languages, clause_background(project.clauses, languages))


def with_memory(decision: Decision, beside: Beside) -> Decision:
    """``decision`` with the memory beside it (``similar_rulings``,
    ``memory_verdict``); every other field, verdict and confidence first, unchanged."""
    return replace(decision, similar_rulings=beside.similar, memory_verdict=beside.verdict)  # type: ignore[arg-type]  # a Verdict or None


def stored_triage(
    repo: CaseFileRepository,
    project_id: str,
    settings: Settings,
    case_id: str,
    text: str,
    title: str | None = None,
) -> Decision:
    """Triage ``text`` against a stored project without storing anything (``etki
    triage``): the engine over the stored project and the index stored when it was
    loaded (so draft status, aliases and chunks are the ones the folder had), with the
    clause memory of its ruled cases, then the memory beside the decision from the
    rulings stored now. Raises ``NotFoundError`` for an unknown project."""
    from etki.knowledge import KnowledgeIndex

    project = repo.load_project(project_id)
    index = KnowledgeIndex.from_bytes(repo.index_bytes(project_id))
    ruled = repo.cases(project_id, status="ruled")
    decision = make_engine_for(
        project, index, ruled, settings, repo.clause_resolutions(project_id)
    ).triage(case_id, text, title)
    memory_index = project_ruling_index(project, ruled)
    return with_memory(decision, memory_index.beside(title, text))


def triaged(
    engine: TriageEngine, memory_index: RulingIndex, todo: Sequence[tuple[Request, str]]
) -> list[tuple[Request, Decision]]:
    """Each ``(request, case id)`` of ``todo`` with its decision: the engine's triage, then
    the memory beside it from ``memory_index`` (after triage, never an input to it: the
    clause-memory rule). What ``etki init`` and the intake commands store."""
    return [
        (
            request,
            with_memory(
                engine.triage(case_id, request.text, request.title),
                memory_index.beside(request.title, request.text),
            ),
        )
        for request, case_id in todo
    ]


def make_engine_for(
    project: Project,
    index: KnowledgeIndex,
    cases: list[CaseRecord],
    settings: Settings,
    resolutions: Iterable[ClauseResolution] = (),
):
    """A :class:`etki.triage.TriageEngine` reading clauses and edges from ``index``, with
    the clause memory of ``cases`` and the project's ``resolutions`` of disputed clauses
    (a resolved clause raises no risk: :mod:`etki.triage.risk`) and the embedding model
    of ``ETKI_EMBED`` if set."""
    from etki.triage import TriageEngine

    return TriageEngine(
        project,
        index,
        memory=memory.clause_memory(cases, resolutions),
        disputed_escalation=settings.disputed_escalation,
        embedder=embedder_for(settings, project.id),
    )
