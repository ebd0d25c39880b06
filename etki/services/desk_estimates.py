"""The desk's effort estimates (issue 35 item 2): a reviewer records the days (and
optionally the price) a case's work will take, with a reason, beside the engine's
frozen effort range. :class:`DeskEstimates` is a part of :class:`etki.services.Desk`
(it derives from it); the store writes the estimate and its audit row
(:meth:`etki.store.CaseFileRepository.add_estimate`), the change-request document and
the reports read it from the case (:attr:`etki.domain.CaseRecord.estimate`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from etki.domain import CrTerms, ReviewerEstimate
    from etki.store import CaseFileRepository


class _Desk(Protocol):
    """What the estimate methods use of the desk they are part of."""

    repo: CaseFileRepository

    def _require_reviewer(self, case_id: str, what: str) -> str: ...
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
        who = self._require_reviewer(case_id, "estimate")
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
    ) -> tuple[CrTerms, str | None]:
        """Write the terms of the change request ``case_id`` (``etki cr edit``, issue 35
        item 1): the fields given replace those in force (``assumptions`` and
        ``exclusions`` whole lists, ``[]`` clears one; ``valid_until`` ``YYYY-MM-DD``,
        ``""`` clears it), validated by :func:`etki.domain.parse_cr_terms`, stored with
        an audit row (:meth:`etki.store.CaseFileRepository.set_cr_terms`); the wiki hook
        then renders the case's pages (best effort). Any ruling state may carry terms
        (written ahead of a conversion, they wait for it); the project's reviewers may
        write them, as estimates. Returns the stored terms and the wiki error (None when
        written or off). Raises ``InputError`` (naming the field), ``NotFoundError``,
        ``CaseErasedError``, ``PermissionDeniedError``."""
        from etki.domain import parse_cr_terms

        who = self._require_reviewer(case_id, "edit the change request of")
        base = self.repo.case(case_id).cr_terms
        terms = parse_cr_terms(
            base, assumptions=assumptions, exclusions=exclusions, valid_until=valid_until
        )
        done = self.repo.set_cr_terms(case_id, who, terms)
        _report, error = self.project_ruling(case_id)
        return done, error
