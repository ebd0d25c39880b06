"""Services: the one door the CLI, the TUI and the MCP server use into the core.

:class:`Desk` (here) is the reviewer's desk: queue, case detail, clause memory, rulings,
wiki search and pages, and report counts — every number computed from the DB. The
other parts, one module each, re-exported here:

* :mod:`etki.services.intake`: :func:`init_project` loads a project folder, builds its
  knowledge index, triages every request that is not stored yet and stores the cases
  with their frozen decisions; ``add`` and ``import`` of requests;
* :mod:`etki.services.preanalysis`: the developer pre-analysis of new cases;
* :mod:`etki.services.admin`: the store's label, the seat, approvals, schema revisions;
* :mod:`etki.engines` (below the services): engines, embedders, ruling indexes.

Memory beside the verdict (``Decision.similar_rulings``/``memory_verdict``,
:mod:`etki.triage.similar`) is computed in two places, always after the engine and
never as its input: at intake (:func:`init_project`, :func:`stored_triage` for ``etki
triage``) from the rulings stored at that moment, frozen into the decision; and live on
the desk (:meth:`Desk.ruling_index_of`, :meth:`Desk.beside_with`, :meth:`Desk.beside`),
because most rulings are made after a case arrived.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from etki import memory
from etki.approval import ApprovalService
from etki.config import DEFAULT_MAX_REQUEST_CHARS, Settings
from etki.domain import (
    CaseEvent,
    CaseRecord,
    CaseSummary,
    ClauseMemory,
    ClauseResolution,
    Decision,
    DisputedClause,
    Preanalysis,
    Project,
    RemitStatement,
    Report,
    ResolutionOutcome,
    RulingOutcome,
    ScopeClause,
    WorkItem,
)
from etki.errors import InputError, NotFoundError, error_text
from etki.services.documents import DeskDocuments
from etki.services.estimates import DeskEstimates
from etki.services.projects import DeskProjects
from etki.store import CaseFileRepository

if TYPE_CHECKING:
    from etki.erasure import ErasureOutcome
    from etki.knowledge import KnowledgeIndex
    from etki.remit import ProposalRow
    from etki.retrieval.port import GraphQueryPort
    from etki.store.repository.remit import RemitChange
    from etki.triage.similar import Beside, RulingIndex
    from etki.wiki.fts import TopHits

# the parts, re-exported: ``from etki.services import X`` keeps working for each
from etki.engines import (
    clause_background,
    embedder_for,
    make_engine_for,
    project_ruling_index,
    ruling_index,
    stored_triage,
    triaged,
    vector_cache_path,
    with_memory,
)
from etki.services.admin import (
    Seat,
    approval_service,
    schema_revision,
    schema_upgrade,
    store_label,
)
from etki.services.intake import (
    INIT_CHUNK,
    InitSummary,
    IntakeSummary,
    add_request,
    import_requests,
    init_project,
    store_requests,
)
from etki.services.preanalysis import (
    FOLDER_SOURCES,
    FROM_INIT,
    FROM_REREAD,
    PreanalysisRun,
    PreanalysisUnavailableError,
    preanalyse_case,
    preanalyse_cases,
    preanalysis_context,
)

log = logging.getLogger("etki.services")


_MAX_SHORT_ID = 1000
"""Longest text :meth:`Desk.case_id_for` looks up as a short id (a case id is
``req-{project}-{8 hex}``); a longer one names no case."""


def _no_projection(case_id: str) -> None:
    """The hook of :meth:`Desk.rule_first`: nothing (the caller projects afterwards)."""
    return None


class Desk(DeskDocuments, DeskEstimates, DeskProjects):
    """The reviewer's desk over one store. Thread-safe for reads (each call opens its own
    session); build one per app."""

    def __init__(
        self, settings: Settings | None = None, repo: CaseFileRepository | None = None
    ) -> None:
        self.settings = settings or Settings.from_env()
        self.repo = repo or CaseFileRepository(self.settings.db_url)
        self._projects: dict[str, Project] = {}
        self._project_hashes: dict[str, str] = {}
        self._ruling_indexes: dict[
            str, tuple[tuple[str, tuple[tuple[str, str, int], ...]], RulingIndex]
        ] = {}

    @classmethod
    def open(
        cls, settings: Settings | None = None, *, read_only: bool = False, create: bool = True
    ) -> Desk:
        """A desk over a store opened for one command: ``read_only`` opens it without
        creating, migrating or writing anything (a missing store raises
        ``StoreMissingError``, exit 2); ``create=False`` refuses to create a missing
        one (:class:`etki.store.CaseFileRepository`)."""
        settings = settings or Settings.from_env()
        return cls(
            settings, CaseFileRepository(settings.db_url, read_only=read_only, create=create)
        )

    def close(self) -> None:
        """Release the store's connections (the desk is not used afterwards)."""
        self.repo.dispose()

    @cached_property
    def approvals(self) -> ApprovalService:
        """The desk's rulings, with the wiki projector as hook when the wiki is on
        (:func:`approval_service`)."""
        return approval_service(self.repo, self.settings)

    # intake
    def init_project(
        self,
        path: str | Path,
        *,
        related_context: bool | None = None,
        update_reviewers: bool = False,
        preanalyse: bool | None = None,
    ) -> InitSummary:
        """:func:`init_project` on this desk's store (``etki init``)."""
        return init_project(
            path,
            self.repo,
            self.settings,
            related_context=related_context,
            update_reviewers=update_reviewers,
            preanalyse=preanalyse,
        )

    def add_request(
        self,
        project_id: str,
        text: str,
        *,
        title: str | None = None,
        submitted_by: str | None = None,
        source: str = "etki add",
        preanalyse: bool | None = None,
    ) -> CaseRecord:
        """:func:`add_request`: triage and store one new request (``etki add``;
        ``source`` names where it came from in the case's history)."""
        return add_request(
            self.repo,
            project_id,
            self.settings,
            text,
            title=title,
            submitted_by=submitted_by,
            source=source,
            preanalyse=preanalyse,
        )

    def import_requests(
        self,
        project_id: str,
        path: str | Path,
        fmt: str | None = None,
        *,
        preanalyse: bool | None = None,
    ) -> IntakeSummary:
        """:func:`import_requests`: a file of requests triaged and stored (``etki
        import``)."""
        return import_requests(
            self.repo, project_id, self.settings, path, fmt, preanalyse=preanalyse
        )

    # the developer pre-analysis
    def preanalysis_model(self) -> str | None:
        """The chat model a pre-analysis would be asked of (``ETKI_LLM_MODEL``), or
        None when none is configured (both ``ETKI_LLM_BASE_URL`` and
        ``ETKI_LLM_MODEL`` are needed)."""
        s = self.settings
        return s.llm_model if s.llm_base_url and s.llm_model else None

    def preanalyse(self, case_id: str) -> tuple[Preanalysis, str | None]:
        """Write a new pre-analysis of ``case_id`` (:func:`preanalyse_case`; ``etki
        preanalyse``, ``p`` on the desk), then project the case's wiki pages with the
        projector the rulings use (best-effort, as after a ruling): ``(saved, None)`` or
        ``(saved, "wiki not updated: …")``. Raises
        :class:`PreanalysisUnavailableError` without a model, ``NotFoundError`` for an
        unknown case."""
        saved = preanalyse_case(self.repo, self.settings, case_id)
        projector = self.approvals.projector
        if projector is None:
            return saved, None
        try:
            projector.project_case(case_id)
        except Exception as exc:  # best-effort, like every wiki write
            log.info("wiki projection of %s failed: %s", case_id, exc)
            from etki.errors import error_text

            return saved, f"wiki not updated: {error_text(exc)}"
        return saved, None

    def preanalyse_missing(self, project_id: str) -> PreanalysisRun:
        """A pre-analysis for every case of ``project_id`` that has none yet
        (:func:`preanalyse_cases`, stopping once the model looks down; ``etki
        preanalyse --project ID --missing``), then the wiki caught up (best-effort).
        Raises :class:`PreanalysisUnavailableError` without a model and
        ``NotFoundError`` for an unknown project."""
        self.repo.project_config(project_id)
        run = preanalyse_cases(
            self.repo, self.settings, self.repo.cases_without_preanalysis(project_id)
        )
        if run.written or run.failed:
            self.catch_up_wiki(project_id)
        return run

    def preanalyses(self, case_id: str) -> list[Preanalysis]:
        """Every saved pre-analysis of ``case_id``, oldest first (the newest is on
        :attr:`CaseRecord.preanalysis`)."""
        return self.repo.preanalyses(case_id)

    def reread_requests(self, project_id: str) -> IntakeSummary | None:
        """Read the project folder's ``requests.jsonl`` again and :func:`store_requests`
        the rows not stored yet (the TUI's Ctrl+R; ``etki init`` does the same for new
        rows at the next launch). None when the folder or the file is not there any more
        (the store keeps where the project was loaded from, ``projects.root``). A bad row
        is refused alone (``IntakeSummary.refused``, ``requests.jsonl:LINE: field: …``);
        the contract and the other knowledge files are not read again (that is ``etki
        init``). Raises :class:`ProjectFormatError` for a file that cannot be read as a
        whole, ``NotFoundError`` for an unknown project."""
        from etki.knowledge.loader import read_requests_jsonl

        file = Path(self.project(project_id).root) / "requests.jsonl"
        if not file.is_file():
            return None
        requests, refused = read_requests_jsonl(file, self.settings.max_request_chars)
        return store_requests(
            self.repo,
            project_id,
            self.settings,
            requests,
            refused,
            source=FROM_REREAD,
        )

    def triage_text(
        self, project_id: str, case_id: str, text: str, title: str | None = None
    ) -> Decision:
        """:func:`stored_triage`: triage ``text`` against the stored project, nothing
        stored (``etki triage``). Raises ``NotFoundError`` for an unknown project."""
        return stored_triage(self.repo, project_id, self.settings, case_id, text, title)

    # erasure
    def erase(
        self,
        case_id: str,
        reason: str,
        *,
        wait_s: float,
        notify: Callable[[str], None] | None = None,
    ) -> ErasureOutcome:
        """:func:`etki.erasure.erase_case` on this desk's store (``etki erase``):
        returns its ``ErasureOutcome``."""
        from etki.erasure import erase_case

        return erase_case(self.repo, self.settings, case_id, reason, wait_s=wait_s, notify=notify)

    def finish_erasure(
        self, case_id: str, *, wait_s: float, notify: Callable[[str], None] | None = None
    ) -> ErasureOutcome:
        """:func:`etki.erasure.finish_erasure` (``etki erase --finish``)."""
        from etki.erasure import finish_erasure

        return finish_erasure(self.repo, self.settings, case_id, wait_s=wait_s, notify=notify)

    def seat(self, project_id: str) -> Seat:
        """The acting reviewer of this desk on ``project_id``, their role in the stored
        reviewer list and whether they may rule (the same test as
        :func:`etki.approval.require_approver`, names compared by
        :func:`etki.identity.reviewer_name`). Raises ``NotFoundError``."""
        from etki.identity import is_listed_approver, reviewer_name

        who = reviewer_name(self.settings.reviewer)
        reviewers = self.repo.project_config(project_id).reviewers
        if not reviewers:
            return Seat(who, "approver", True, open=True)
        if is_listed_approver(reviewers, who):
            return Seat(who, "approver", True)
        listed = any(reviewer_name(r.name) == who for r in reviewers)
        return Seat(who, "viewer" if listed else "not listed", False)

    # the accepted remit (etki remit; issue 29 item 5: etki.remit)
    def remit_proposals(self, project_id: str) -> list[ProposalRow]:
        """:func:`etki.remit.proposals_of`: the candidate remit statements, numbered in
        contract order, accepted ones marked."""
        from etki.remit import proposals_of

        return proposals_of(self.repo, project_id)

    def remit_accepted(self, project_id: str) -> list[RemitStatement]:
        """The accepted remit statements in force, by number (``etki remit list``).
        Raises ``NotFoundError``."""
        self.repo.project_config(project_id)
        return self.repo.accepted_remit(project_id)

    def remit_accept(
        self, project_id: str, numbers: Sequence[str] = (), *, every: bool = False
    ) -> RemitChange:
        """:func:`etki.remit.accept` as this desk's reviewer."""
        from etki.remit import accept

        return accept(self.repo, self.settings.reviewer, project_id, numbers, every=every)

    def remit_revoke(self, project_id: str, numbers: Sequence[str], reason: str) -> RemitChange:
        """:func:`etki.remit.revoke` as this desk's reviewer."""
        from etki.remit import revoke

        return revoke(self.repo, self.settings.reviewer, project_id, numbers, reason)

    def store_label(self) -> str:
        """Where this desk's store lives (:func:`store_label` of the open engine's URL:
        no user name, no password)."""
        return store_label(self.repo.engine.url)

    # projects and knowledge
    def project_ids(self) -> list[str]:
        """The stored project ids, sorted."""
        return self.repo.project_ids()

    def index_hash(self, project_id: str) -> str:
        """The content hash of the project's stored knowledge index. Raises
        ``NotFoundError`` naming the known projects."""
        return self.repo.index_hash(project_id)

    def index_bytes(self, project_id: str) -> bytes:
        """The project's stored knowledge index file, as written at ``etki init``.
        Raises ``NotFoundError`` naming the known projects."""
        return self.repo.index_bytes(project_id)

    def knowledge_index(self, project_id: str) -> KnowledgeIndex:
        """The project's stored knowledge index, parsed
        (:meth:`~etki.knowledge.KnowledgeIndex.from_bytes`). Raises ``NotFoundError``,
        ``ValueError`` for an index that cannot be read."""
        from etki.knowledge import KnowledgeIndex

        return KnowledgeIndex.from_bytes(self.repo.index_bytes(project_id))

    def graph_port(self, project_id: str) -> GraphQueryPort:
        """The retrieval port over the stored project
        (:meth:`etki.retrieval.port.GraphQueryPort.from_store`). Raises ``NotFoundError``."""
        from etki.retrieval.port import GraphQueryPort

        return GraphQueryPort.from_store(
            self.repo,
            project_id,
            self.settings,
            local_embedder=embedder_for(self.settings, project_id),
        )

    def embed_nodes(
        self, project_id: str, progress: Callable[[int, int], None] | None = None
    ) -> int:
        """Embed the graph nodes of ``project_id`` with the model of ``ETKI_EMBED`` into
        the project's vector cache file, so that the desk's and the MCP server's first
        ``find_k``/``expand`` embeds nothing
        (:meth:`~etki.retrieval.port.GraphQueryPort.embed_nodes`; ``progress(done,
        total)``); returns the node count, 0 when ``ETKI_EMBED`` is unset. Raises
        ``NotFoundError``, ``EndpointError`` when the model fails."""
        if not self.settings.embed_backend:
            return 0
        return self.graph_port(project_id).embed_nodes(progress)

    def project(self, project_id: str) -> Project:
        """The stored project, cached per desk and read again when its stored index hash
        changed (the folder was loaded again, e.g. by ``etki init`` in another shell), so
        a reload picks up a re-init. Raises ``NotFoundError``."""
        current = self.repo.index_hash(project_id)
        cached = self._projects.get(project_id)
        if cached is None or self._project_hashes.get(project_id) != current:
            cached = self.repo.load_project(project_id)
            self._projects[project_id] = cached
            self._project_hashes[project_id] = current
        return cached

    # cases
    def queue(self, project_id: str, status: str | None = "pending") -> list[CaseRecord]:
        """Cases of a project (pending by default), oldest first."""
        return self.repo.cases(project_id, status=status)

    def case_id_for(self, text: str) -> str:
        """The stored case id ``text`` names: itself when it is one (or holds a ``-``:
        a full id, stored or not, is left to the command to refuse), else the one case
        whose id ends in ``-{text}`` (the short id the desk's queue shows). Raises
        ``InputError`` naming the candidates when several end so, ``NotFoundError`` when
        none does (saying what a short id is: a trial typed the first four characters)."""
        if "-" in text or not text:
            return text
        # no stored id is this long, and SQLite refuses a LIKE pattern over 50,000 bytes
        found = self.repo.case_ids_ending(text) if len(text) <= _MAX_SHORT_ID else []
        if text in found:
            return text
        if not found:
            raise NotFoundError(
                f"no case '{text}' in the store (a short id is all of the part after a "
                "case id's last '-': 1a2b3c4d for req-demo-1a2b3c4d, as the desk's queue "
                "shows it; `etki queue` lists the whole ids)"
            )
        if len(found) > 1:
            raise InputError(
                f"case id {text!r} is short for more than one case: "
                + ", ".join(found[:5])
                + (", …" if len(found) > 5 else "")
                + "; give the whole id"
            )
        return found[0]

    def case(self, case_id: str) -> CaseRecord:
        return self.repo.case(case_id)

    def from_requests_file(self, case_id: str) -> bool:
        """Whether the case was stored from its project folder's ``requests.jsonl``
        (its ``imported`` event's source is :data:`FOLDER_SOURCES`: ``etki init`` or
        the desk's Ctrl+R), so erasing it means removing the request from that file
        too; False for ``etki add``/``etki import``, for a case stored before import
        events were written (its source is not known) and for a case not stored.
        Read it before the erasure: an erased case has no sources left."""
        try:
            history = self.repo.case_history(case_id)
        except NotFoundError:
            return False
        return any(ev.kind == "imported" and ev.text in FOLDER_SOURCES for ev in history)

    def case_history(self, case_id: str) -> list[CaseEvent]:
        """Every event of a case, oldest first (imported, triaged, viewed, ruled,
        amended, refused attempts, erased, notes, claims):
        :meth:`etki.store.CaseFileRepository.case_history`, what ``etki show`` and the
        detail pane list. Raises ``NotFoundError`` when the store holds nothing of it."""
        return self.repo.case_history(case_id)

    def _require_reviewer(self, case_id: str, what: str) -> str:
        """The acting reviewer (NFC), when the case's project lists them (any role) or
        lists nobody; else :class:`PermissionDeniedError`. Notes and claims are for the
        project's reviewers, viewers included."""
        from etki.errors import PermissionDeniedError

        seat = self.seat(self.repo.case_project_id(case_id))
        if seat.role == "not listed":
            raise PermissionDeniedError(
                f"{what}: reviewer '{seat.reviewer}' is not a reviewer of this project; "
                "ask a project approver to list you in etki.yaml, or set ETKI_REVIEWER"
            )
        return seat.reviewer

    def add_note(self, case_id: str, text: str) -> tuple[CaseEvent, str | None]:
        """Add the acting reviewer's note to a case (``etki note``, ``m`` on the desk):
        :meth:`etki.store.CaseFileRepository.add_note`, then the wiki hook renders the
        case's page with it (best effort, as after a ruling). Returns the note and the
        wiki error (None when written or the wiki is off). Raises ``InputError``,
        ``NotFoundError``, ``PermissionDeniedError``."""
        who = self._require_reviewer(case_id, "note")
        note = self.repo.add_note(case_id, who, text)
        _report, error = self.project_ruling(case_id)
        return note, error

    def claim(self, case_id: str, minutes: int = 30) -> CaseEvent:
        """The acting reviewer claims a case for ``minutes`` (``etki claim``, ``x``):
        others see "claimed by NAME" in the queue until it expires or is released."""
        who = self._require_reviewer(case_id, "claim")
        return self.repo.claim(case_id, who, minutes)

    def release_claim(self, case_id: str) -> CaseEvent:
        """End the acting reviewer's claim of a case (``etki claim --release``, ``x``)."""
        from etki.identity import reviewer_name

        return self.repo.release(case_id, reviewer_name(self.settings.reviewer))

    def claims(self, project_id: str) -> dict[str, CaseEvent]:
        """case id -> live claim of every claimed case of the project (expired and
        released ones absent)."""
        return self.repo.live_claims(project_id)

    def record_view(self, case_id: str) -> bool:
        """Write that this desk's reviewer opened ``case_id`` (at most once an hour per
        reviewer and case: :meth:`etki.store.CaseFileRepository.record_view`); True when
        a row was written. The desk calls it from a worker, never on the keys."""
        from etki.identity import reviewer_name

        return self.repo.record_view(case_id, reviewer_name(self.settings.reviewer))

    def versions(self, project_id: str) -> dict[str, int]:
        return self.repo.versions(project_id)

    def rule(
        self,
        case_id: str,
        action: str,
        *,
        reason: str = "",
        expected_version: int | None = None,
        amend: bool = False,
    ) -> RulingOutcome:
        """See :meth:`etki.approval.ApprovalService.rule` (``amend``: replace the
        ruling of a ruled case, the earlier one kept in its history)."""
        return self.approvals.rule(
            case_id, action, reason=reason, expected_version=expected_version, amend=amend
        )

    def queue_summaries(self, project_id: str, status: str | None = "pending") -> list[CaseSummary]:
        """Like :meth:`queue`, as light :class:`~etki.domain.CaseSummary`
        rows (listed columns only; no evidence chains): for a queue of many cases."""
        return self.repo.case_summaries(project_id, status=status)

    def cases(self, case_ids: list[str]) -> list[CaseRecord]:
        """The whole cases of ``case_ids`` that exist, in the order asked (one query)."""
        return self.repo.cases_by_id(case_ids)

    def project_name(self, project_id: str) -> str:
        """The project's name without reading its knowledge. Raises ``NotFoundError``."""
        return self.repo.project_name(project_id)

    def chosen_project(self, given: str | None) -> str:
        """The project a command works on: ``given`` when it is stored, else the only
        stored project not archived, else the only one (:func:`etki.store.lean.
        pick_project`; README: "With one project stored, ``--project`` may be left
        out"). Raises ``NotFoundError`` naming the known ids for an unknown ``given``,
        :class:`InputError` when none or several are stored and none was given."""
        if given:
            self.repo.project_name(given)  # "no project 'x' in the store; known: ..."
            return given
        from etki.store.lean import pick_project

        return pick_project(self.project_ids(), set(self.archived_project_ids()))

    def clauses(self, project_id: str) -> dict[str, ScopeClause]:
        """ref -> clause of the project, without reading modules and work items (the
        cached :meth:`project` when it is already loaded and current)."""
        cached = self._projects.get(project_id)
        if cached is not None and self._project_hashes.get(project_id) == self.repo.index_hash(
            project_id
        ):
            return {c.ref: c for c in cached.clauses}
        return {c.ref: c for c in self.repo.clauses(project_id)}

    def workitems(self, project_id: str) -> dict[str, WorkItem]:
        """id -> work item of the project (title, date, ``effort_days`` in person-days),
        read alone (no contracts, modules or index), for the effort basis the detail
        pane shows; the cached :meth:`project`'s when it is loaded and current."""
        cached = self._projects.get(project_id)
        if cached is not None and self._project_hashes.get(project_id) == self.repo.index_hash(
            project_id
        ):
            return {w.id: w for w in cached.workitems}
        return {w.id: w for w in self.repo.workitems(project_id)}

    def workitems_of(self, project_id: str, ids: Iterable[str]) -> dict[str, WorkItem]:
        """id -> work item of the project's among ``ids`` (the ones it has): the effort
        basis of the cases a detail pane shows, read by id (not the project's 20,000)."""
        wanted = set(ids)
        if not wanted:
            return {}
        return {w.id: w for w in self.repo.workitems_by_id(project_id, wanted)}

    def rule_first(
        self,
        case_id: str,
        action: str,
        *,
        reason: str = "",
        expected_version: int | None = None,
        amend: bool = False,
    ) -> RulingOutcome:
        """:meth:`rule` without the HITL hook: the same
        :class:`~etki.approval.ApprovalService` checks and commit, returning as soon as
        the ruling is in the DB (``wiki_report``/``wiki_error`` are None). The caller
        must then run :meth:`project_ruling` for the case (e.g. in a background
        worker), so the wiki still follows every ruling."""
        return self._approvals_no_hook.rule(
            case_id, action, reason=reason, expected_version=expected_version, amend=amend
        )

    def project_ruling(self, case_id: str) -> tuple[object | None, str | None]:
        """Run the HITL ingest hook of :meth:`rule` for a case ruled with
        :meth:`rule_first`: ``(report, None)``, ``(None, None)`` when the wiki is off,
        or ``(None, "wiki not updated: …")`` when the projection failed (best-effort,
        logged, never raised — as in :meth:`etki.approval.ApprovalService.rule`)."""
        hook = self.approvals.hook
        if hook is None:
            return None, None
        try:
            return hook(case_id), None
        except Exception as exc:  # best-effort: the ruling has committed
            log.info("wiki projection of %s failed: %s", case_id, exc)  # said once, below
            from etki.errors import error_text

            return None, f"wiki not updated: {error_text(exc)}"

    def catch_up_wiki(self, project_id: str) -> tuple[object | None, str | None]:
        """Write whatever the DB holds that the project's wiki lacks (rulings whose own
        projection never ran, was killed or timed out on the wiki lock, in any process),
        with the projector the rulings of this desk use
        (:meth:`etki.wiki.projection.WikiProjector.catch_up`); the desk runs it on start
        in a worker. ``(report, None)``, ``(None, None)`` when the wiki is off or the
        rulings use a custom hook, or ``(None, "wiki not caught up: …")`` when it
        failed (best-effort, logged, never raised)."""
        projector = self.approvals.projector
        if projector is None:
            return None, None
        try:
            return projector.catch_up(project_id), None
        except Exception as exc:  # best-effort, like every wiki write
            log.warning("wiki catch-up of %s failed: %s", project_id, exc)
            return None, f"wiki not caught up: {error_text(exc)}"

    @cached_property
    def _approvals_no_hook(self) -> ApprovalService:
        return ApprovalService(self.repo, self.settings, hook=_no_projection)

    def clause_memory_of(
        self, cases: list, project_id: str | None = None
    ) -> dict[str, ClauseMemory]:
        """Clause memory computed from cases already read from the DB (full records or
        :meth:`queue_summaries` rows of every case), without reading them again, with
        the resolutions of disputed clauses of ``project_id`` (default: the cases'
        project) read now (a small table)."""
        pids = {project_id} if project_id is not None else {c.project_id for c in cases}
        return memory.clause_memory(cases, [r for p in sorted(pids) for r in self.resolutions(p)])

    # memory beside the verdict (live: rulings come after intake)
    def ruling_index_of(
        self, project_id: str, cases: Sequence[CaseRecord | CaseSummary]
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

    def beside(self, case_id: str) -> Beside:
        """The memory beside a stored case from the rulings stored now (live, unlike
        the ``similar_rulings`` frozen into its decision at intake). Raises
        ``NotFoundError`` for an unknown case."""
        case = self.repo.case(case_id)
        index = self.ruling_index_of(
            case.project_id, self.repo.case_summaries(case.project_id, status="ruled")
        )
        return self.beside_with(index, case)

    # memory
    def clause_memory(self, project_id: str) -> dict[str, ClauseMemory]:
        """:func:`etki.memory.clause_memory` of the project's ruled cases and its
        resolutions of disputed clauses."""
        return memory.clause_memory(
            self.repo.cases(project_id, status="ruled"), self.resolutions(project_id)
        )

    def precedents(self, project_id: str) -> list[CaseRecord]:
        return memory.precedents(self.repo.cases(project_id, status="ruled"))

    def disputed(self, project_id: str) -> list[DisputedClause]:
        """The disputed clauses with their history, resolution in force and the case
        that overrode it (:func:`etki.memory.disputed_clauses`)."""
        return memory.disputed_clauses(
            self.repo.cases(project_id, status="ruled"), self.resolutions(project_id)
        )

    def resolutions(self, project_id: str) -> list[ClauseResolution]:
        """Every resolution of a disputed clause of ``project_id``, oldest first (the
        newest of a clause is in force)."""
        return self.repo.clause_resolutions(project_id)

    def preanalysis_mark(self, project_id: str) -> int:
        """:meth:`etki.store.repository.preanalyses.PreanalysisStore.preanalysis_mark`:
        changes when a pre-analysis of the project is saved, by any process."""
        return self.repo.preanalysis_mark(project_id)

    def resolution_count(self, project_id: str) -> int:
        """How many resolutions of disputed clauses ``project_id`` has: append-only, so
        the desk's live refresh sees one recorded elsewhere by a change of this number
        (a resolution changes no case version)."""
        return self.repo.resolution_count(project_id)

    def resolve_dispute(
        self,
        project_id: str,
        clause_ref: str,
        verdict: str,
        reason: str,
        *,
        expected_id: int | None = None,
    ) -> ResolutionOutcome:
        """:func:`etki.approval.resolve_dispute` by this desk's reviewer (``etki dispute
        resolve``, the Hafıza form), then the wiki caught up (the resolution changed the
        DB's wiki token: the projector renders the tree again), best-effort like every
        wiki write: a failure is in ``wiki_error``, the resolution stands.
        ``expected_id``: the resolution in force the reviewer saw (0: none; None: no
        check). Raises ``InputError``, ``NotFoundError``, ``PermissionDeniedError``
        (audited), ``ResolutionConflictError``."""
        from etki.approval import resolve_dispute

        resolution = resolve_dispute(
            self.repo,
            self.settings,
            project_id,
            clause_ref,
            verdict,
            reason,
            expected_id=expected_id,
        )
        if self.settings.wiki_path(project_id) is None:
            return ResolutionOutcome(resolution)
        projector = self.approvals.projector or self._wiki_projector
        try:
            return ResolutionOutcome(resolution, projector.catch_up(project_id))
        except Exception as exc:  # best-effort: the resolution has committed
            from etki.errors import error_text

            log.warning("wiki after the resolution of %s failed: %s", clause_ref, exc)
            return ResolutionOutcome(resolution, wiki_error=f"wiki not updated: {error_text(exc)}")

    # wiki
    def wiki_root(self, project_id: str) -> Path | None:
        """The project's wiki folder, None when the wiki is off."""
        return self.settings.wiki_path(project_id)

    def wiki_rebuild(self, project_id: str | None = None) -> dict:
        """Re-derive the wiki of ``project_id`` (every project when None) from the DB:
        project id -> report (:meth:`etki.wiki.projection.WikiProjector.rebuild`)."""
        return self._wiki_projector.rebuild(project_id)

    def wiki_drift(self, project_id: str):
        """The files of the project's wiki that differ from a fresh render, as
        :meth:`etki.wiki.projection.WikiProjector.drift` lists them (``missing``,
        ``changed``, ``stale``)."""
        return self._wiki_projector.drift(project_id)

    @cached_property
    def _wiki_projector(self):
        from etki.wiki.projection import WikiProjector

        return WikiProjector(self.repo, self.settings)

    def wiki_top(
        self,
        project_id: str,
        query: str,
        *,
        limit: int = 100,
        cancelled: Callable[[], bool] | None = None,
    ) -> TopHits | None:
        """The desk's live search: the ``limit`` best pages of the project's wiki holding
        every word of ``query``, as a :class:`etki.wiki.fts.TopHits` (``hits`` of
        :class:`etki.wiki.fts.PageHit` — path, line, snippet of the page's visible text,
        title — best first; ``total`` matching pages; ``synced`` how the index caught
        up: ``token``/``queued`` without a walk of the wiki, ``walk`` by stat). The FTS5
        index is kept current by the projector's change token
        (:func:`etki.wiki.fts.top`); when it cannot be used, :func:`etki.wiki.search.search`
        answers (same pages, path order; ``synced`` is ``scan``). An empty answer when
        the wiki is off or missing or the query has no words. ``cancelled`` is polled
        (a newer keystroke's search took over): then None is returned."""
        from etki.text import fold
        from etki.wiki import fts
        from etki.wiki.search import query_tokens, search
        from etki.wiki.writer import UnsafeWikiPath, read_page

        root = self.wiki_root(project_id)
        if root is None or not root.is_dir() or not query.strip():
            return fts.TopHits([], 0, "none")
        try:
            found = fts.top(root, query, limit, cancelled)
        except fts.Cancelled:
            return None
        if found is not None:
            return found
        hits = search(root, query)
        tokens = query_tokens(query)
        shown: list[fts.PageHit] = []
        for hit in hits[:limit]:
            if cancelled is not None and cancelled():
                return None
            try:  # never through a symlink planted in the wiki
                raw = read_page(root, hit.path)
            except (OSError, UnsafeWikiPath):
                continue
            if raw is None:
                continue
            text = raw.decode("utf-8", errors="replace")
            line, snippet = fts.excerpt(text, fold(text), tokens)
            shown.append(fts.PageHit(hit.path, line, snippet, fts.page_title(text, hit.path)))
        return fts.TopHits(shown, len(hits), "scan")

    def warm_wiki_search(self, project_id: str) -> str | None:
        """Bring the project's wiki search index up to the wiki's change token now
        (:func:`etki.wiki.fts.catch_up`; the desk runs it in a worker after a projection
        and on start, so the next keystroke finds it warm). None when the wiki is off
        or the index cannot be used; never raises."""
        from etki.wiki import fts

        root = self.wiki_root(project_id)
        if root is None or not root.is_dir():
            return None
        try:
            return fts.catch_up(root)
        except Exception as exc:  # noqa: BLE001 - a cache: the next search syncs itself
            log.info("wiki search index of %s not warmed: %s", project_id, exc)
            return None

    def wiki_pages(self, project_id: str, folder: str = "decisions") -> list[str]:
        """Relative paths of the wiki pages under ``folder``, sorted."""
        root = self.wiki_root(project_id)
        if root is None or not (root / folder).is_dir():
            return []
        return sorted(p.relative_to(root).as_posix() for p in (root / folder).glob("*.md"))

    def read_page(self, project_id: str, relpath: str) -> str:
        """The text of a wiki page. Raises ``NotFoundError`` for a path outside the wiki
        or a missing page."""
        root = self.wiki_root(project_id)
        if root is None:
            raise NotFoundError("the wiki is off (ETKI_WIKI_DIR is empty)")
        target = (root / relpath).resolve()
        if not target.is_relative_to(root.resolve()) or not target.is_file():
            raise NotFoundError(f"no wiki page '{relpath}'")
        return target.read_text(encoding="utf-8")
