"""Which queue cases a reviewer picks out (issue 35 item 5): cases that are *mine*
(claimed by me or assigned to me), by impacted module, by submitter and by sureness.

Pure functions over queue rows (:class:`etki.domain.CaseRecord` or
:class:`etki.domain.CaseSummary`), shared by ``etki queue --mine --module --submitter
--sure/--unsure`` and the desk's queue filter, so both keep the same cases. Names and
module ids typed by a person are compared folded (:func:`etki.text.fold`: Turkish
dotted/dotless i, German ß and umlauts, NFC or NFD), names as ``etki report --reviewer``
compares them (:func:`etki.text.names_person`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Protocol

from etki.domain import CaseEvent, is_sure
from etki.identity import reviewer_name
from etki.text import fold, names_person

__all__ = [
    "SURENESS",
    "Pick",
    "mine_ids",
    "module_matches",
    "nearest_modules",
    "resolve_module",
    "unknown_module",
]

SURENESS = ("sure", "unsure")
"""The sureness a pick keeps: the cases the engine is sure of, or the others."""


class _Row(Protocol):
    @property
    def case_id(self) -> str: ...
    @property
    def submitted_by(self) -> str | None: ...
    @property
    def decision(self) -> object: ...


def module_matches(typed: str, module_id: str) -> bool:
    """Whether the module id ``typed`` names ``module_id`` or a module below it, folded:
    ``auth`` names ``auth``, ``auth.sso`` and ``auth/sso``, never ``authz``; ``Ödeme``
    names ``odeme``. An empty ``typed`` names nothing."""
    want, have = fold(typed.strip()), fold(module_id)
    if not want:
        return False
    return have == want or (have.startswith(want) and have[len(want)] in "./:-_")


def nearest_modules(typed: str, known: Collection[str], n: int = 3) -> list[str]:
    """Up to ``n`` ids of ``known`` spelled most like ``typed`` (folded, :func:`fold`;
    :func:`difflib.get_close_matches`, ratio 0.5), sorted by likeness; else the ids
    sharing the typed id's first folded letters (``pay`` -> ``payments``); empty when
    none is near."""
    import difflib

    want = fold(typed.strip())
    by_fold: dict[str, str] = {}
    for mid in sorted(known):
        by_fold.setdefault(fold(mid), mid)
    close = difflib.get_close_matches(want, list(by_fold), n=n, cutoff=0.5)
    if not close and want:
        close = [f for f in by_fold if f.startswith(want[:3]) or want.startswith(f)][:n]
    return [by_fold[f] for f in close]


def unknown_module(typed: str, known: Collection[str], where: str) -> str:
    """The message for a module id ``typed`` that names none of ``known`` (the module
    ids of ``where``, e.g. ``project demo``): ``no module 'paymnt' in project demo; did
    you mean payments?`` (:func:`nearest_modules`), or the known ids when none is near
    (at most 10 named), or that ``where`` declares no module. ``typed`` is shown as a
    Python literal (repr), never as markup."""
    from etki.text import printable

    shown = printable(repr(typed.strip()), multiline=False)
    near = nearest_modules(typed, known)
    if near:
        return f"no module {shown} in {where}; did you mean {', '.join(near)}?"
    if not known:
        return f"no module {shown} in {where}: it declares no modules (modules.yaml)"
    ids = sorted(known)
    more = f" and {len(ids) - 10} more" if len(ids) > 10 else ""
    return f"no module {shown} in {where}; known: {', '.join(ids[:10])}{more}"


def resolve_module(typed: str, known: Collection[str]) -> str | None:
    """The id of ``known`` that ``typed`` names: the same id, else the one id equal to
    it folded (``Ödeme`` -> ``odeme``); None when none (or several) is."""
    text = typed.strip()
    if text in known:
        return text
    same = [mid for mid in known if fold(mid) == fold(text)]
    return same[0] if len(same) == 1 else None


def mine_ids(
    me: str, claims: Mapping[str, CaseEvent], assignments: Mapping[str, CaseEvent]
) -> frozenset[str]:
    """The case ids that are ``me``'s: live claims whose actor is ``me`` and assignments
    whose assignee (``after``) is ``me``, names compared as
    :func:`etki.identity.reviewer_name` (NFC, trimmed; case kept, as the approver list)."""
    who = reviewer_name(me)
    held = {cid for cid, ev in claims.items() if reviewer_name(ev.actor) == who}
    given = {cid for cid, ev in assignments.items() if reviewer_name(ev.after) == who}
    return frozenset(held | given)


@dataclass(frozen=True)
class Pick:
    """What a queue keeps besides its other filters. ``mine``: only the case ids in the
    ``mine`` set given to :meth:`keeps` (:func:`mine_ids`); ``module``: cases whose
    decision names a matching impacted module (:func:`module_matches`); ``submitter``:
    cases whose submitter the typed name names (:func:`etki.text.names_person`: ``ayse``
    names ``Ayşe Yılmaz``); ``sureness``: ``sure`` or ``unsure`` (:func:`is_sure`), None
    for both. Empty fields keep every case."""

    mine: bool = False
    module: str = ""
    submitter: str = ""
    sureness: str | None = None

    def __bool__(self) -> bool:
        return self.mine or bool(self.module.strip() or self.submitter.strip() or self.sureness)

    def keeps(self, case: _Row, mine: Collection[str] = frozenset()) -> bool:
        """Whether ``case`` passes every field of the pick (``mine``: the reviewer's case
        ids, read only when :attr:`mine` is set)."""
        if self.mine and case.case_id not in mine:
            return False
        d = case.decision
        if self.module.strip() and not any(
            module_matches(self.module, m) for m in getattr(d, "impacted_modules", ())
        ):
            return False
        if self.submitter.strip() and not names_person(self.submitter, case.submitted_by or ""):
            return False
        return not (self.sureness and is_sure(d) != (self.sureness == "sure"))  # type: ignore[arg-type]

    def words(self) -> list[str]:
        """The pick as short phrases, in a fixed order (``mine``, ``module auth``,
        ``submitter ayse``, ``engine sure``); the typed text is the caller's to show
        literally."""
        out = []
        if self.mine:
            out.append("mine")
        if self.module.strip():
            out.append(f"module {self.module.strip()}")
        if self.submitter.strip():
            out.append(f"submitter {self.submitter.strip()}")
        if self.sureness:
            out.append("engine sure" if self.sureness == "sure" else "needs a careful look")
        return out
