"""The developer pre-analysis of new cases (issue 14 item 9): asking the chat model of
``ETKI_LLM_*`` for a case's pre-analysis and saving it (:func:`preanalyse_case`,
:func:`preanalyse_cases`), and what a run did (:class:`PreanalysisRun`). The model
call itself is :mod:`etki.preanalysis`; this module only decides which cases to ask
about and stores the answers.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from etki.config import Settings
from etki.domain import (
    CaseRecord,
    Preanalysis,
)
from etki.errors import InputError, NotFoundError, error_line
from etki.store import CaseFileRepository
from etki.text import printable

if TYPE_CHECKING:
    from etki.endpoints import ChatClient
    from etki.preanalysis import Written

from etki.engines import embedder_for

log = logging.getLogger("etki.services")


class PreanalysisUnavailableError(InputError):
    """No chat model is configured (``ETKI_LLM_BASE_URL``, ``ETKI_LLM_MODEL``): nothing
    was asked, nothing saved. Exit code 2."""


@dataclass(frozen=True)
class PreanalysisRun:
    """What :func:`preanalyse_cases` did: ``written`` the case ids with a pre-analysis
    saved ``ok``, ``failed`` those saved as ``error`` (the model answered nothing
    usable), ``skipped`` those not asked because the run stopped (``stopped``: why,
    e.g. the endpoint refused the connection) — ``etki preanalyse CASE`` asks again."""

    written: tuple[str, ...] = ()
    failed: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
    stopped: str | None = None

    def line(self) -> str:
        """One line for people."""
        out = f"pre-analysis: {len(self.written)} written"
        if self.failed:
            out += f", {len(self.failed)} failed (saved as errors)"
        if self.skipped:
            out += (
                f", {len(self.skipped)} not asked (stopped: "
                f"{printable(self.stopped or '', multiline=False)}); "
                "`etki preanalyse CASE` asks again"
            )
        return out


FROM_INIT = "requests.jsonl (etki init)"
"""The ``imported`` source of a case ``etki init`` stored from the folder's requests."""
FROM_REREAD = "requests.jsonl (Ctrl+R in etki-tui)"
"""The ``imported`` source of a case the desk's Ctrl+R stored from the same file."""
FOLDER_SOURCES = (FROM_INIT, FROM_REREAD)
"""The sources of cases that came from the project folder's ``requests.jsonl``."""


def preanalysis_context(
    repo: CaseFileRepository, case: CaseRecord, settings: Settings
) -> tuple[dict, str]:
    """The related-context block a pre-analysis of ``case`` rests on and where it came
    from: the block stored with its decision (``stored``), or, for a case stored
    without one (``etki add``/``import`` store none; ``ETKI_RELATED_CONTEXT=0``) or whose
    stored block holds no node (nothing a claim could rest on), one packed now the way
    ``etki init`` packs it (``packed``: not stored; the decision is written once). Only
    when that one is empty too is the model not asked
    (:data:`etki.preanalysis.EMPTY_CONTEXT`). Raises ``NotFoundError`` for an unknown
    project."""
    import json

    from etki.preanalysis import context_nodes
    from etki.retrieval.context import related_context
    from etki.retrieval.port import GraphQueryPort

    stored = repo.decision_context(case.case_id)
    if stored is not None:
        try:
            block = json.loads(stored)
        except ValueError:
            block = None
        if isinstance(block, dict) and context_nodes(block):
            return block, "stored"
    port = GraphQueryPort.from_store(  # as etki init would have stored it: no agreed nodes
        repo,
        case.project_id,
        settings,
        agreed=False,
        local_embedder=embedder_for(settings, case.project_id),
    )
    return related_context(port, case.text, case.title), "packed"


def preanalyse_case(
    repo: CaseFileRepository,
    settings: Settings,
    case_id: str,
    *,
    actor: str | None = None,
    client: ChatClient | None = None,
) -> Preanalysis:
    """Ask the configured chat model for a developer pre-analysis of ``case_id``
    (:func:`etki.preanalysis.write`, over :func:`preanalysis_context`) and save it, ``ok``
    or ``error`` (an endpoint that is down, a 500, an answer that is not the schema's
    JSON: the reason is saved, never raised), with its audit row (``actor``: who asked;
    default ``settings.reviewer``). The case's decision is not read by the model's
    answer and never changes. ``client``: the :class:`etki.endpoints.ChatClient` to use
    (default: from the settings). Returns the saved :class:`Preanalysis`. Raises
    :class:`PreanalysisUnavailableError` when no model is configured (nothing is
    called) and ``NotFoundError`` for an unknown case."""
    from etki import preanalysis
    from etki.identity import reviewer_name

    chat = client if client is not None else preanalysis.client_from_settings(settings)
    if chat is None:
        raise PreanalysisUnavailableError(
            f"preanalyse: {preanalysis.NO_MODEL}; set both to ask a model"
        )
    return _preanalyse(repo, settings, case_id, chat, reviewer_name(actor or settings.reviewer))[0]


def _preanalyse(
    repo: CaseFileRepository, settings: Settings, case_id: str, chat: ChatClient, actor: str
) -> tuple[Preanalysis, Written]:
    """:func:`preanalyse_case` with its client and actor given: the saved pre-analysis
    and the :class:`etki.preanalysis.Written` it came from."""
    from etki import preanalysis

    case = repo.case(case_id)
    block, source = preanalysis_context(repo, case, settings)
    written = preanalysis.write(chat, case.title, case.text, block, context=source)
    saved = repo.save_preanalysis(
        case_id,
        model=chat.model,
        prompt_version=preanalysis.PROMPT_VERSION,
        status=written.status,
        body_json=written.body.to_json() if written.body is not None else "{}",
        error=written.error,
        actor=actor,
    )
    return saved, written


def preanalyse_cases(
    repo: CaseFileRepository, settings: Settings, case_ids: Sequence[str]
) -> PreanalysisRun:
    """:func:`preanalyse_case` for each of ``case_ids`` in turn, with one client, until
    the model looks down (:class:`etki.preanalysis.Breaker`: the first refused
    connection or timeout, or three failures in a row): the rest are not asked, so a
    run over many new cases costs at most one deadline when the endpoint is down, not
    one per case. A case gone meanwhile (erased) is skipped. Raises
    :class:`PreanalysisUnavailableError` when no model is configured."""
    from etki import preanalysis
    from etki.identity import reviewer_name

    client = preanalysis.client_from_settings(settings)
    if client is None:
        raise PreanalysisUnavailableError(f"preanalyse: {preanalysis.NO_MODEL}")
    actor = reviewer_name(settings.reviewer)
    breaker = preanalysis.Breaker()
    written: list[str] = []
    failed: list[str] = []
    skipped: list[str] = []
    for case_id in case_ids:
        if breaker.open:
            skipped.append(case_id)
            continue
        try:
            saved, outcome = _preanalyse(repo, settings, case_id, client, actor)
        except NotFoundError:
            continue
        (written if saved.status == "ok" else failed).append(case_id)
        breaker.note(outcome)
    return PreanalysisRun(tuple(written), tuple(failed), tuple(skipped), breaker.reason)


def preanalyse_new(
    repo: CaseFileRepository, settings: Settings, case_ids: Sequence[str], preanalyse: bool | None
) -> PreanalysisRun | None:
    """The intake step: :func:`preanalyse_cases` of the newly stored ``case_ids`` when
    ``preanalyse`` (None: when a model is configured), after they are stored, so
    intake never fails on the model; None when nothing was asked. Best-effort: an
    unexpected error is logged and stops the step, never the intake."""
    from etki import preanalysis

    if not case_ids or preanalyse is False:
        return None
    if preanalysis.client_from_settings(settings) is None:
        return None
    try:
        return preanalyse_cases(repo, settings, case_ids)
    except Exception as exc:  # best-effort: the cases are stored
        log.warning("pre-analysis after intake failed: %s", exc)
        return PreanalysisRun(skipped=tuple(case_ids), stopped=error_line(exc))
