"""The desk's effort estimates (issue 35 item 2): a reviewer records the days (and
optionally the price) a case's work will take, with a reason, beside the engine's
frozen effort range. :class:`DeskEstimates` is a part of :class:`etki.services.Desk`
(it derives from it); the store writes the estimate and its audit row
(:meth:`etki.store.CaseFileRepository.add_estimate`), the change-request document and
the reports read it from the case (:attr:`etki.domain.CaseRecord.estimate`)."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from etki.errors import InputError

if TYPE_CHECKING:
    from etki.domain import CrTerms, ReviewerEstimate, ScopeClause
    from etki.store import CaseFileRepository


def _clause_refs(typed: tuple[str, ...], known: Mapping[str, ScopeClause]) -> tuple[str, ...]:
    """The clause refs ``typed`` (``--clause``) as the contract names them: a whole
    ref of ``known`` (ref -> clause) stays, a bare number (``4.3``) becomes the one ref
    whose number it is. Raises :class:`InputError` naming the clause for one the
    contract does not have (with the closest refs) or a number in several documents."""
    out = []
    for ref in typed:
        if ref in known:
            out.append(ref)
            continue
        same = [k for k in known if "#" in k and k.split("#", 1)[1] == ref]
        if len(same) == 1:
            out.append(same[0])
            continue
        if same:
            raise InputError(
                f"cr edit: clause {ref!r} is in {len(same)} documents "
                f"({', '.join(sorted(same))}): write the whole ref"
            )
        # a bare number is compared with the numbers, a whole ref with the refs
        pool = (
            list(known) if "#" in ref else sorted({k.split("#", 1)[1] for k in known if "#" in k})
        )
        close = difflib.get_close_matches(ref, pool, n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise InputError(f"cr edit: the contract has no clause {ref!r}{hint}")
    return tuple(dict.fromkeys(out))


class _Desk(Protocol):
    """What the estimate methods use of the desk they are part of."""

    repo: CaseFileRepository

    def _require_reviewer(self, case_id: str, action: str, writes: str) -> str: ...
    def clauses(self, project_id: str) -> dict[str, ScopeClause]: ...
    def project_ruling(self, case_id: str) -> tuple[object | None, str | None]: ...


class DeskEstimates:
    """The estimate methods of :class:`etki.services.Desk` (``self`` is the desk)."""

    def add_estimate(
        self: _Desk,
        case_id: str,
        days: str,
        reason: str,
        price: str | None = None,
        currency: str | None = None,
    ) -> tuple[ReviewerEstimate, str | None]:
        """Record the acting reviewer's effort estimate of ``case_id`` (``etki estimate``,
        the desk's estimate form): ``days`` person-days (a decimal above 0, at most
        :data:`etki.domain.ESTIMATE_MAX_DAYS`), an optional ``price`` with its
        ``currency`` (ISO 4217; ``"12500 EUR"`` in ``price`` alone also does) and the
        ``reason`` (required), validated by :func:`etki.domain.parse_estimate` before
        anything is written; then the wiki hook renders the case's pages with it (best
        effort, as after a ruling). The project's reviewers may estimate (viewers
        included, as for notes). Returns the stored estimate and the wiki error (None
        when written or the wiki is off). Raises ``InputError`` (naming the field),
        ``NotFoundError``, ``CaseErasedError``, ``PermissionDeniedError``."""
        from etki.domain import parse_estimate

        estimate = parse_estimate(days, reason, price, currency)
        who = self._require_reviewer(case_id, "estimate a case", "estimates")
        done = self.repo.add_estimate(case_id, who, estimate)
        _report, error = self.project_ruling(case_id)
        return done, error

    def set_cr_terms(
        self: _Desk,
        case_id: str,
        *,
        assumptions: list[str] | None = None,
        exclusions: list[str] | None = None,
        valid_until: str | None = None,
        clauses: list[str] | None = None,
    ) -> tuple[CrTerms, str | None]:
        """Write the terms of the change request ``case_id`` (``etki cr edit``, issue 35
        item 1): the fields given replace those in force (``assumptions`` and
        ``exclusions`` whole lists, ``[]`` clears one; ``valid_until`` ``YYYY-MM-DD``,
        ``""`` clears it; ``clauses`` the clause refs the document cites, each the
        whole ref (``MSA-2024-01#4.3``) or a number unique in the contract (``4.3``),
        ``[]`` back to the default: the decision's cited clauses, none when the engine
        proposed IN_SCOPE, :attr:`etki.domain.CaseRecord.cr_clauses`), validated by
        :func:`etki.domain.parse_cr_terms` and :func:`_clause_refs`, stored with
        an audit row (:meth:`etki.store.CaseFileRepository.set_cr_terms`); the wiki hook
        then renders the case's pages (best effort). Any ruling state may carry terms
        (written ahead of a conversion, they wait for it); the project's reviewers may
        write them, as estimates. Returns the stored terms and the wiki error (None when
        written or off). A ``valid_until`` given before the store's day (UTC) is
        refused. Raises ``InputError`` (naming the field), ``NotFoundError``,
        ``CaseErasedError``, ``PermissionDeniedError``."""
        from etki.domain import parse_cr_terms

        who = self._require_reviewer(
            case_id, "write the terms of a change request", "change-request terms"
        )
        case = self.repo.case(case_id)
        terms = parse_cr_terms(
            case.cr_terms,
            assumptions=assumptions,
            exclusions=exclusions,
            valid_until=valid_until,
            clauses=clauses,
        )
        if clauses and terms.clauses is not None:
            known = self.clauses(case.project_id)
            terms = replace(terms, clauses=_clause_refs(terms.clauses, known))
        if valid_until and terms.valid_until is not None:
            today = self.repo.now().date().isoformat()  # the store's day (UTC)
            if terms.valid_until < today:  # ISO dates order as strings
                raise InputError(
                    f"cr edit: field 'valid-until' is {terms.valid_until}: in the past "
                    f"(today is {today}, UTC); an offer is valid until today or later"
                )
        done = self.repo.set_cr_terms(case_id, who, terms)
        _report, error = self.project_ruling(case_id)
        return done, error
