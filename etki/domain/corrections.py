"""Where an override counts as a correction (Raporlar's "clauses with most corrections"),
and what a reviewer's reason names: pure functions over a ruling's parts and the
project's clause refs, below the store so a ruling's correction can be kept on its row
when it is made (issue 32 item 1: ``rulings.correction_*``, migration 0011) and counted
by the report from there. :mod:`etki.memory` re-exports them (its definitions of a
correction and of what a ruling is about, :func:`etki.memory.ruled_about`).

What a correction is on depends on the project's clause refs (a reason may name a
clause the decision does not cite): :func:`refs_basis` says which set of refs a kept
correction was computed against, so a reader recomputes the ones whose basis is not the
project's refs now (a re-``init`` or an accepted remit statement changes them).
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from etki.domain.evidence import DECIDING, deciding_ref_among

if TYPE_CHECKING:
    from etki.domain.cases import CaseRecord
    from etki.domain.reports import ReportCase

__all__ = [
    "CORRECTION_RULES",
    "about_refs",
    "correction_clauses",
    "correction_of",
    "refs_basis",
]

CORRECTION_RULES: dict[str, str] = {
    "reason": "the clause the reviewer's reason names",
    "evidence": "the clause of the decisive evidence (the deciding sentence)",
    "cited": "every clause the case cites (neither names one)",
}
"""The three rules of :func:`correction_clauses`, in the order they are tried, with the
words Raporlar shows for each."""


def _names(text: str, number: str) -> bool:
    """``number`` (``4.8``) occurs in ``text`` as a whole clause number: not inside a
    longer one (``14.8``, ``4.8.1``, ``4.80``) nor glued to a word."""
    if not number or number not in text:  # the cheap test first: most refs are not named
        return False
    pattern = rf"(?<![\w.]){re.escape(number)}(?!\w|\.\w)"
    return re.search(pattern, text) is not None


def _named_in(
    reason: str,
    candidates: Iterable[str],
    known: tuple[str, ...] = (),
    named_known: Callable[[str, tuple[str, ...]], tuple[str, ...]] | None = None,
) -> list[str]:
    """The refs of ``candidates`` and then of ``known`` (each once, in that order) that
    ``reason`` names, by ref (case-insensitive) or by whole number (:func:`_names`).
    ``known`` (the project's clause refs, thousands) is indexed once per tuple
    (:func:`_indexed`): a reason is tested only against the refs whose folded ref's or
    number's last characters occur in it, not against every one of them (issue 32
    item 1: 2.2 of 7.9 s of ``etki report`` on the 10k bench store)."""
    if not reason:  # most rulings give none: the cheap test first
        return []
    reason = unicodedata.normalize("NFC", reason)
    if not reason.strip():
        return []
    folded_reason = reason.casefold()
    named: dict[str, None] = {}
    by_number: dict[str, bool] = {}  # _names(reason, number), once per number
    for ref, folded, number in _prepare(dict.fromkeys(candidates)):
        if ref not in named and _hits(reason, folded_reason, folded, number, by_number):
            named[ref] = None
    if known:
        for ref in (named_known or _named_known)(reason, known):
            named.setdefault(ref, None)
    return list(named)


@functools.lru_cache(maxsize=4096)
def _named_known(reason: str, known: tuple[str, ...]) -> tuple[str, ...]:
    """The refs of ``known`` (each once, in order) that ``reason`` (NFC, not blank)
    names: the second half of :func:`_named_in`, through the index of the refs
    (:func:`_indexed`). Kept per reason and refs: reviewers repeat reasons (318 distinct
    among the 1,500 overrides of the 10k bench store), and ``etki report`` tests every
    override's reason against the project's refs (issue 32 item 1)."""
    index = _indexed(known)
    folded_reason = reason.casefold()
    by_number: dict[str, bool] = {}
    at: set[int] = set()
    for key in _keys(folded_reason, index.folded_lengths) & index.by_folded.keys():
        at.update(index.by_folded[key])
    for key in _keys(reason, index.number_lengths) & index.by_number.keys():
        at.update(index.by_number[key])
    return tuple(
        ref
        for ref, folded, number in (index.prepared[i] for i in sorted(at))
        if _hits(reason, folded_reason, folded, number, by_number)
    )


def _hits(reason: str, folded_reason: str, folded: str, number: str, seen: dict[str, bool]) -> bool:
    """Whether ``reason`` (NFC; ``folded_reason`` its casefold) names a ref whose
    casefold is ``folded`` and whose number is ``number``: the test of :func:`_named_in`
    (``seen`` keeps :func:`_names` of ``reason`` per number: many contracts share one)."""
    if folded in folded_reason:
        return True
    if not number or number not in reason:
        return False
    if number not in seen:
        seen[number] = _names(reason, number)
    return seen[number]


_KEY = 4
"""The length of an index key of :func:`_indexed` (the last characters of a folded ref
or number; all of a shorter one): a named ref's key is a substring of the reason, so
:func:`_keys` of the reason finds it. 4 keeps ``#4.8`` apart from ``#4.9``."""


def _key(text: str) -> str:
    return text[-_KEY:]


def _keys(text: str, lengths: frozenset[int]) -> set[str]:
    """Every substring of ``text`` of one of ``lengths`` (0 to :data:`_KEY`) characters:
    where a ref's :func:`_key` (of one of those lengths) must be found for the ref to
    be named."""
    out: set[str] = {""} if 0 in lengths else set()
    n = len(text)
    for k in lengths:
        if k:
            out.update(text[i : i + k] for i in range(n - k + 1))
    return out


class _Index(NamedTuple):
    """The project's clause refs prepared and indexed for :func:`_named_in`."""

    prepared: tuple[tuple[str, str, str], ...]  # _prepare of the refs, each once, in order
    by_folded: dict[str, list[int]]  # _key of the folded ref -> positions in prepared
    by_number: dict[str, list[int]]  # _key of the number -> positions (refs with one)
    folded_lengths: frozenset[int]  # the lengths of the keys of by_folded
    number_lengths: frozenset[int]  # ... of by_number


def _prepare(refs: Iterable[str]) -> tuple[tuple[str, str, str], ...]:
    """``(ref, folded ref, number)`` of each of ``refs``: what :func:`_named_in` tests;
    ``number`` the part after ``#`` ("" for a ref without one: never named by number)."""
    return tuple((ref, ref.casefold(), ref.split("#", 1)[1] if "#" in ref else "") for ref in refs)


@functools.lru_cache(maxsize=8)
def _indexed(known: tuple[str, ...]) -> _Index:
    """:func:`_prepare` of a project's clause refs (each once, in order), kept for the
    next reason, with the positions of the refs by :func:`_key` of their folded ref
    and of their number (a ref without a number is absent from the second)."""
    prepared = _prepare(dict.fromkeys(known))
    by_folded: defaultdict[str, list[int]] = defaultdict(list)
    by_number: defaultdict[str, list[int]] = defaultdict(list)
    for i, (_ref, folded, number) in enumerate(prepared):
        by_folded[_key(folded)].append(i)
        if number:
            by_number[_key(number)].append(i)
    return _Index(
        prepared,
        dict(by_folded),
        dict(by_number),
        frozenset(map(len, by_folded)),
        frozenset(map(len, by_number)),
    )


def _about(
    cited: tuple[str, ...],
    reason: str,
    deciding: str | None,
    known: Iterable[str] = (),
    named_known: Callable[[str, tuple[str, ...]], tuple[str, ...]] | None = None,
) -> tuple[tuple[str, ...], str]:
    named = _named_in(reason, cited, tuple(known), named_known)
    if named:
        in_cited = [ref for ref in named if ref in cited]
        return tuple(in_cited or named), "reason"
    if deciding is not None:
        return (deciding,), "evidence"
    return cited, "cited"


def about_refs(cited: Sequence[str], reason: str, deciding: str | None) -> tuple[str, ...]:
    """The cited clauses a ruling is *about* (:func:`etki.memory.ruled_about`, which
    calls this): those its ``reason`` names (by ref or whole number), else ``deciding``,
    the clause of the decisive evidence, when cited, else every cited clause. Pure; below
    the store, so the per-clause counts kept at ruling time (``clause_tallies``, migration
    0013) count with the rule the list of disputed clauses reads."""
    cited = tuple(cited)
    return _about(cited, reason, deciding if deciding in cited else None)[0]


def correction_clauses(
    case: CaseRecord | ReportCase, known: Iterable[str] = ()
) -> tuple[tuple[str, ...], str]:
    """The clause refs an override counts as a correction on, and the rule used (a key
    of :data:`CORRECTION_RULES`). Tried in order:

    1. ``reason``: the reviewer's reason names clauses, by ref (``MSA#4.8``) or by
       number alone (``4.8``, ``§4.8``; a whole number: ``14.8`` or ``4.8.1`` do not
       name ``4.8``); the candidates are the case's cited refs and ``known`` (the
       project's clause refs, so a reason may name a clause the engine did not cite).
       When a number is both a cited clause and an uncited one of another contract,
       the cited one is meant. Matching is on NFC text, case-insensitive for refs.
    2. ``evidence``: the decisive evidence, the ``deciding sentence: REF`` of the
       decision's ``classify`` step (:func:`deciding_ref`), names one of the cited or
       known refs.
    3. ``cited``: every cited clause (the old count), said so by the rule name.

    Returns ``((), "cited")`` for a case that cites nothing and names nothing. Pure."""
    known = tuple(known)
    return _correction(case, known, *_ref_set(known))


def _correction(
    case: CaseRecord | ReportCase,
    known: tuple[str, ...],
    refs: frozenset[str],
    longest: int,
    named_known: Callable[[str, tuple[str, ...]], tuple[str, ...]] | None = None,
) -> tuple[tuple[str, ...], str]:
    """:func:`correction_clauses` with the project's refs ``known`` already made a set
    ``refs`` whose longest has ``longest`` characters, and the refs a reason names among
    them told by ``named_known`` (:func:`corrections_by_clause`: once per distinct
    reason, without hashing the thousands of refs per override)."""
    cited = tuple(case.decision.cited_clauses)
    steps = ((e.step, e.detail) for e in getattr(case.decision, "evidence", ()))
    return _about(
        cited,
        case.ruling.reason if case.ruling else "",
        # deciding_ref(steps, (*cited, *known)), without sorting the known refs per case
        deciding_ref_among(steps, refs, max(longest, *map(len, cited), 0), cited),
        known,
        named_known,
    )


@functools.lru_cache(maxsize=8)
def _ref_set(known: tuple[str, ...]) -> tuple[frozenset[str], int]:
    """The project's clause refs ``known`` as a set and the length of the longest (0:
    none), kept for the next override (:func:`correction_clauses`)."""
    return frozenset(known), max(map(len, known), default=0)


def refs_basis(known: Iterable[str]) -> str:
    """A digest (16 hex digits) of the set of a project's clause refs ``known``: what a
    correction kept on a ruling's row was computed against (``rulings.correction_basis``).
    A correction depends on the set only (:func:`correction_clauses`: the refs a reason
    names and the decisive clause are looked up in it; their order only orders the
    result), so order and repeats do not change the digest."""
    return _basis(tuple(known))


@functools.lru_cache(maxsize=8)
def _basis(known: tuple[str, ...]) -> str:
    """:func:`refs_basis`, kept per tuple of refs (the migration and a desk ask it for
    every override of a project). hashlib is imported here: ``etki dispute list`` loads
    this module for :func:`_about` alone."""
    import hashlib

    text = json.dumps(sorted(set(known)), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def correction_of(
    cited: Sequence[str], reason: str, deciding_texts: Iterable[str], known: Sequence[str]
) -> tuple[tuple[str, ...], str]:
    """:func:`correction_clauses` of an override from the parts its ruling's row keeps
    (:mod:`etki.store.summary`): the ``cited`` refs, the reviewer's ``reason``, what
    follows :data:`~etki.domain.evidence.DECIDING` in each ``classify`` step of its
    decision (``rulings.deciding_text``) and the project's clause refs ``known``. The
    same refs (a ref once per time it counts) and rule. Pure."""
    known = tuple(known)
    refs, longest = _ref_set(known)
    cited = tuple(cited)
    steps = (("classify", DECIDING + rest) for rest in deciding_texts)
    deciding = deciding_ref_among(steps, refs, max(longest, *map(len, cited), 0), cited)
    return _about(cited, reason, deciding, known)
