"""KVKK/GDPR erasure of one case (``etki erase CASE_ID --reason TEXT``).

Order of work, each step from the one source of truth:

1. the reviewer must be an approver of the case's project (a viewer or an unknown user
   is refused, and the refusal is audited like a refused ruling);
2. :meth:`etki.store.CaseFileRepository.erase_case` deletes the case, its decision, its
   ruling and its related-context block in one transaction and appends a tombstone to
   the audit log (no request text in it);
3. :meth:`~etki.store.CaseFileRepository.compact` rewrites the database file so no
   deleted page survives in it or in its WAL (SQLite), or vacuums the tables
   (PostgreSQL);
4. the project's wiki is rebuilt from the DB: the case's decision and precedent pages are
   removed as stale, and precedents, disputed clauses, entity pages and ``index.md`` are
   re-derived without it;
5. the wiki's FTS5 search index (a cache beside the wiki holding every page's text,
   :mod:`etki.wiki.fts`) is deleted; the next search that uses it builds it again.

A wiki failure does not undo the erasure but is reported (``wiki_error``): the text may
still be in the wiki until ``python -m etki.wiki rebuild`` succeeds.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from etki.approval import ApprovalService
from etki.config import Settings
from etki.errors import InputError, NotFoundError, PermissionDeniedError
from etki.identity import reviewer_name
from etki.store import CaseFileRepository
from etki.store.repository import Erasure

__all__ = ["ErasureOutcome", "erase_case"]

log = logging.getLogger("etki.erasure")


@dataclass(frozen=True)
class ErasureOutcome:
    """The erasure, the wiki rebuild's one-line summary (None when the wiki is off) and
    ``wiki_error`` when the rebuild failed."""

    erasure: Erasure
    wiki_summary: str | None = None
    wiki_error: str | None = None


def erase_case(repo: CaseFileRepository, settings: Settings, case_id: str, reason: str,
               *, reviewer: str | None = None) -> ErasureOutcome:
    """Erase ``case_id`` (see the module docstring). ``reviewer`` defaults to
    ``settings.reviewer``; ``reason`` is required (it is what the tombstone keeps).

    Raises :class:`InputError` for an empty reason, ``NotFoundError`` for an unknown or
    already erased case and :class:`PermissionDeniedError` for a non-approver."""
    reason = reason.strip()
    if not reason:
        raise InputError("erase: give the legal reason (--reason), e.g. the request's "
                         "reference; it is kept in the audit log's tombstone")
    who = reviewer_name(reviewer or settings.reviewer)
    if case_id in repo.erased_case_ids():
        raise NotFoundError(f"case '{case_id}' was already erased; nothing is left of it "
                            "but its audit tombstone")
    case = repo.case(case_id)
    try:
        ApprovalService(repo, settings, hook=lambda _c: None).check_reviewer(
            case.project_id, who)
    except PermissionDeniedError:
        repo.audit_attempt(case_id, who, "erase", reason, "denied",
                           before=case.ruling.ruling if case.ruling else "pending")
        raise
    erasure = repo.erase_case(case_id, who, reason)
    repo.compact()
    root = settings.wiki_path(erasure.project_id)
    if root is None:
        return ErasureOutcome(erasure)
    try:
        from etki.wiki import fts
        from etki.wiki.projection import WikiProjector

        fts.drop(root)
        report = WikiProjector(repo, settings).rebuild(erasure.project_id)[erasure.project_id]
    except Exception as exc:  # reported, never hidden: the wiki may still hold the text
        log.warning("wiki rebuild after erasing %s failed: %s", case_id, exc)
        return ErasureOutcome(erasure, wiki_error=f"{type(exc).__name__}: {exc}")
    return ErasureOutcome(erasure, wiki_summary=report.summary())
