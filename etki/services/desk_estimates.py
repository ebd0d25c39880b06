"""The desk's effort estimates (issue 35 item 2): a reviewer records the days (and
optionally the price) a case's work will take, with a reason, beside the engine's
frozen effort range. :class:`DeskEstimates` is a part of :class:`etki.services.Desk`
(it derives from it); the store writes the estimate and its audit row
(:meth:`etki.store.CaseFileRepository.add_estimate`), the change-request document and
the reports read it from the case (:attr:`etki.domain.CaseRecord.estimate`)."""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from etki.errors import InputError

if TYPE_CHECKING:
    from etki.domain import CrTerms, Project, ReviewerEstimate, ScopeClause
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
        raise InputError(f"cr edit: the contract has no clause {ref!r}{closest_hint(ref, known)}")
    return tuple(dict.fromkeys(out))


def _number_key(number: str) -> tuple[int, ...] | None:
    """``9.6.5`` as ``(9, 6, 5)``; None for a number that is not dotted digits."""
    parts = number.split(".")
    return tuple(int(p) for p in parts) if all(p.isdigit() for p in parts) else None


def closest_hint(typed: str, known: Mapping[str, ScopeClause], n: int = 3) -> str:
    """``"; did you mean …?"`` naming the ``n`` clauses of ``known`` (ref -> clause)
    closest to the ``typed`` ref a contract does not have, each with its title (a
    PMO trial of issue 35: ``--clause 99.9`` was refused with no ref to pick from).
    The number is compared with the contract's numbers (those of the typed document
    when the ref names one the contract has); a whole ref typed gets whole refs back. Closest: the spelled-alike ones
    (:func:`difflib.get_close_matches`, ratio 0.6: ``3.21`` -> ``3.2``; for a dotted
    number only those of its section: ``0.1`` is not ``9.1``); else, for a
    dotted number, its neighbours in the contract's order (``99.9`` -> the last
    clauses; the numbering's span is said too); else the spelled-alike ones at a lower
    ratio (0.3). Empty when the contract has no clause to offer."""
    from etki.text import printable

    doc, sep, number = typed.rpartition("#")
    in_doc = sep and any(k.startswith(doc + "#") for k in known)
    refs = {  # ref -> number, of the typed document when the contract has it
        k: k.split("#", 1)[1] for k in known if "#" in k and (not in_doc or k.startswith(doc + "#"))
    }
    count = Counter(refs.values())
    alike = difflib.get_close_matches(number, sorted(count), n=n, cutoff=0.6)
    wanted = _number_key(number)
    if wanted is not None:  # alike in spelling only within its section (0.1 is not 9.1)
        alike = [c for c in alike if c.split(".", 1)[0] == number.split(".", 1)[0]]
    close = [r for num in alike for r in sorted(refs) if refs[r] == num][:n]
    span = ""
    if not close and wanted is not None:
        ordered = sorted((k, r) for r, num in refs.items() if (k := _number_key(num)) is not None)
        if ordered:
            at = sum(1 for k, _ in ordered if k < wanted)
            start = max(0, min(at - (n - 1), len(ordered) - n))
            close = [r for _, r in ordered[start : start + n]]
            span = f" (numbered {refs[ordered[0][1]]} to {refs[ordered[-1][1]]})"
    if not close:
        alike = difflib.get_close_matches(number, sorted(count), n=n, cutoff=0.3)
        close = [r for num in alike for r in sorted(refs) if refs[r] == num][:n]

    def named(ref: str) -> str:
        # the whole ref when one was typed or the number is in several documents
        shown = ref if sep or count[refs[ref]] > 1 else refs[ref]
        title = printable(known[ref].title, multiline=False)
        title = title if len(title) <= 60 else title[:59] + "…"
        return f"{shown} ({title})" if title else shown

    return f"; did you mean {', '.join(named(r) for r in close)}?{span}" if close else ""


def _module_ids(project_id: str, known: list[str], typed: tuple[str, ...]) -> tuple[str, ...]:
    """The module ids ``typed`` (``--module``) as project ``project_id`` declares them
    (``known``; :func:`etki.picks.resolve_module`), each once. Raises
    :class:`InputError` naming the first unknown one and the nearest known ids
    (:func:`etki.picks.unknown_module`)."""
    from etki.picks import resolve_module, unknown_module

    out = []
    for mid in typed:
        found = resolve_module(mid, known)
        if found is None:
            raise InputError(f"cr edit: {unknown_module(mid, known, f'project {project_id}')}")
        out.append(found)
    return tuple(dict.fromkeys(out))


class _Desk(Protocol):
    """What the estimate methods use of the desk they are part of."""

    repo: CaseFileRepository

    def _require_reviewer(self, case_id: str, action: str, writes: str) -> str: ...
    def clauses(self, project_id: str) -> dict[str, ScopeClause]: ...
    def project(self, project_id: str) -> Project: ...
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
        modules: list[str] | None = None,
        default_modules: bool = False,
    ) -> tuple[CrTerms, str | None]:
        """Write the terms of the change request ``case_id`` (``etki cr edit``, issue 35
        item 1): the fields given replace those in force (``assumptions`` and
        ``exclusions`` whole lists, ``[]`` clears one; ``valid_until`` ``YYYY-MM-DD``,
        ``""`` clears it; ``clauses`` the clause refs the document cites, each the
        whole ref (``MSA-2024-01#4.3``) or a number unique in the contract (``4.3``),
        ``[]`` back to the default: the decision's cited clauses, none when the engine
        proposed IN_SCOPE, :attr:`etki.domain.CaseRecord.cr_clauses`; ``modules`` the
        impacted module ids the document names, each a module of the project (its id,
        or the one id equal to it folded), ``[]`` none; ``default_modules`` back to the
        decision's impacted modules, :attr:`etki.domain.CaseRecord.cr_modules`), validated by
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
            modules=modules,
            default_modules=default_modules,
        )
        if modules and terms.modules:
            ids = [m.id for m in self.project(case.project_id).modules]
            terms = replace(terms, modules=_module_ids(case.project_id, ids, terms.modules))
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
