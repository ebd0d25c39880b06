"""The remit, proposed at setup (issue 29 item 5): what ``etki remit`` does, over the
store (the Desk's ``remit_*`` methods call these).

* :func:`proposals_of`: the candidate ``scope: out`` statements of a stored project
  (:func:`etki.triage.remit.proposals` over its stored contract clauses), each with the
  accepted statement it already is, if any.
* :func:`accept` / :func:`revoke`: change the accepted remit, by an approver of the
  project (names as every writing command compares them; a project listing no reviewers
  accepts anyone); a refusal is audited (``project_audit``, action ``remit``, outcome
  ``denied``). The rows, the project's clauses and its knowledge index change in one
  transaction (:meth:`etki.store.CaseFileRepository.change_remit`), so the index hash
  (the freshness a decision records) changes with the remit and every later triage
  reads it; decisions already made stay frozen.
* :func:`with_stored_remit`: a project folder being loaded (``etki init``) gets the
  accepted remit of its stored project, so loading it again keeps it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from etki.domain import Project, RemitStatement, ScopeClause
from etki.errors import InputError, PermissionDeniedError
from etki.identity import approver_hint, is_listed_approver, reviewer_name
from etki.knowledge.index import KnowledgeIndex, with_accepted_remit
from etki.store import CaseFileRepository
from etki.store.repository.remit import RemitChange
from etki.triage.remit import Proposal, proposals, remit_clauses, with_remit

__all__ = [
    "ProposalRow",
    "accept",
    "parse_numbers",
    "proposals_of",
    "rebuild",
    "revoke",
    "with_stored_remit",
]


@dataclass(frozen=True)
class ProposalRow:
    """A proposal of ``etki remit propose`` and the accepted statement it already is
    (None: not accepted)."""

    proposal: Proposal
    accepted: RemitStatement | None


def proposals_of(repo: CaseFileRepository, project_id: str) -> list[ProposalRow]:
    """Every proposal of the stored project ``project_id``, numbered in contract order,
    accepted ones included (marked). Raises ``NotFoundError``."""
    repo.project_config(project_id)  # a clear error for an unknown project
    held = {(s.source_ref, s.text): s for s in repo.accepted_remit(project_id)}
    return [ProposalRow(p, held.get((p.ref, p.text))) for p in proposals(repo.clauses(project_id))]


def rebuild(
    statements: list[RemitStatement], index_bytes: bytes
) -> tuple[tuple[ScopeClause, ...], bytes, str]:
    """The store's rebuild of a remit change: the clauses of ``statements`` and the
    stored index with them (:func:`etki.knowledge.index.with_accepted_remit`), its bytes
    and hash."""
    clauses = remit_clauses(statements)
    index = with_accepted_remit(KnowledgeIndex.from_bytes(index_bytes), clauses)
    data = index.to_bytes()
    return clauses, data, index.hash


def with_stored_remit(
    repo: CaseFileRepository, project: Project, index: KnowledgeIndex
) -> tuple[Project, KnowledgeIndex]:
    """``project`` (a folder being loaded) and its freshly built ``index`` with the
    accepted remit of the stored project of the same id (none for a new project)."""
    clauses = remit_clauses(repo.accepted_remit(project.id))
    if not clauses:
        return project, index
    return with_remit(project, clauses), with_accepted_remit(index, clauses)


def parse_numbers(words: Sequence[str], what: str) -> list[int]:
    """``words`` as distinct positive numbers (``accepted-3`` is 3). Raises
    :class:`InputError` naming the first that is not one or is given twice."""
    out: list[int] = []
    for word in words:
        bare = word.strip().removeprefix("etki.yaml#").removeprefix("accepted-")
        if not bare.isascii() or not bare.isdigit() or int(bare) < 1:
            raise InputError(
                f"{word!r} is not the number of a {what} (1, 2, …); nothing was stored"
            )
        if int(bare) in out:
            raise InputError(f"{what} {int(bare)} is given twice; nothing was stored")
        out.append(int(bare))
    return out


def _require_approver(repo: CaseFileRepository, project_id: str, who: str, asked: str) -> None:
    reviewers = repo.project_config(project_id).reviewers
    if not reviewers or is_listed_approver(reviewers, who):
        return
    repo.audit_remit_denied(project_id, who, asked)
    raise PermissionDeniedError(
        f"reviewer '{who}' is not an approver of project '{project_id}' and may not "
        f"change its remit; ask a project approver (the attempt is audited)"
        f"{approver_hint(reviewers, who)}"
    )


def accept(
    repo: CaseFileRepository,
    reviewer: str,
    project_id: str,
    numbers: Sequence[str] = (),
    *,
    every: bool = False,
) -> RemitChange:
    """Accept the proposals ``numbers`` (of :func:`proposals_of`), or with ``every``
    each one not accepted yet, as the acting ``reviewer``. Raises :class:`InputError`
    (nothing stored) for no number, an unknown number, one given twice or one already
    accepted; ``NotFoundError``; :class:`PermissionDeniedError` for a reviewer who is
    not an approver (audited). With ``every`` and nothing left, nothing is written."""
    if every == bool(numbers):
        raise InputError("name the proposals to accept (N ...) or --all, one of the two")
    rows = proposals_of(repo, project_id)
    who = reviewer_name(reviewer)
    asked = "accept all" if every else "accept " + " ".join(numbers)
    _require_approver(repo, project_id, who, asked)
    if every:
        chosen = [r for r in rows if r.accepted is None]
    else:
        chosen = []
        for n in parse_numbers(numbers, "proposal"):
            if not 1 <= n <= len(rows):
                raise InputError(
                    f"no proposal {n} in project '{project_id}' (it has {len(rows)}; see "
                    "`etki remit propose`); nothing was stored"
                )
            row = rows[n - 1]
            if row.accepted is not None:
                raise InputError(
                    f"proposal {n} is already accepted ({row.accepted.ref}); nothing was stored"
                )
            chosen.append(row)
    if not chosen:
        hash_now = repo.index_hash(project_id)
        return RemitChange((), (), hash_now, hash_now)
    return repo.change_remit(
        project_id,
        accept=[(r.proposal.ref, r.proposal.role, r.proposal.text) for r in chosen],
        reviewer=who,
        rebuild=rebuild,
    )


def revoke(
    repo: CaseFileRepository,
    reviewer: str,
    project_id: str,
    numbers: Sequence[str],
    reason: str,
) -> RemitChange:
    """Revoke the accepted statements ``numbers`` (N of ``etki.yaml#accepted-N``, as
    ``etki remit list`` shows them) with ``reason``. Raises as :func:`accept`."""
    if not numbers:
        raise InputError("name the accepted statements to revoke (N of etki.yaml#accepted-N)")
    repo.project_config(project_id)
    who = reviewer_name(reviewer)
    _require_approver(repo, project_id, who, "revoke " + " ".join(numbers))
    wanted = parse_numbers(numbers, "statement of the accepted remit")
    if not reason.strip():
        raise InputError("a revocation needs a reason (--reason): why it is in the remit")
    return repo.change_remit(
        project_id, revoke=wanted, reviewer=who, reason=reason, rebuild=rebuild
    )
