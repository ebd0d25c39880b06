"""The rows the wiki's shared pages read, and the memo of what was rendered from them.

``index.md``, ``disputed.md``, the contract and the module pages read a
:class:`~etki.domain.CaseBrief` per case. :class:`WikiModel` keeps those briefs sorted and indexed
(ruled cases, overrides, per cited clause, per contract, per module) so one case can be
put or removed in place, and owns one :class:`PageCache`: every memoised value (clause
memory, sorted ids, rendered rows, sections, lists, frontmatter entries) with the rules
of what a change of a case or clause drops. The page renderers
(:mod:`etki.wiki.pages`) read the model's rows and fill the cache through its typed
memos; they never touch its indexes. The HITL hook keeps one model alive between
rulings; a full render builds one from scratch (:meth:`WikiModel.build`). Both give the
same bytes (``tests/test_wiki_render.py`` checks it over random sequences of changes).
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Generic, TypeVar, cast

from etki.domain import (
    CaseBrief,
    CaseRecord,
    ClauseResolution,
    Contract,
    Module,
    Project,
    ScopeClause,
    WorkItem,
)
from etki.frontmatter import FrontmatterMemo
from etki.memory import is_disputed, overriding_case, ruled_about
from etki.text import sort_key
from etki.wiki.paths import clause_label

__all__ = ["ClauseTally", "Joined", "Memo", "Once", "PageCache", "WikiModel"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


ClauseTally = tuple[int, bool, tuple[str, ...]]
"""(precedent count, disputed, distinct rulings sorted) of a cited clause."""

Standing = tuple[ClauseResolution | None, str | None]
"""(resolution in force, case id of the later ruling that overrode it) of a cited clause
(:func:`etki.memory.overriding_case`)."""

Key = tuple[str, str]
"""(ruled_at, case_id) of a ruled case: the order of every ruling list of the model."""


class Memo(Generic[K, V]):
    """Values made once per key and kept until the key is dropped."""

    __slots__ = ("_got",)

    def __init__(self) -> None:
        self._got: dict[K, V] = {}

    def get(self, key: K, make: Callable[[], V]) -> V:
        """The value kept for ``key``, made by ``make()`` (and kept) when there is none."""
        got = self._got.get(key)
        if got is None:
            got = self._got[key] = make()
        return got

    def drop(self, key: K) -> None:
        """Forget the value of ``key`` (nothing when there is none)."""
        self._got.pop(key, None)


class Once(Generic[V]):
    """One value made once and kept until dropped."""

    __slots__ = ("_got",)

    def __init__(self) -> None:
        self._got: V | None = None

    def get(self, make: Callable[[], V]) -> V:
        """The value kept, made by ``make()`` (and kept) when there is none."""
        got = self._got
        if got is None:
            got = self._got = make()
        return got

    def drop(self) -> None:
        """Forget the value."""
        self._got = None


class Joined(Generic[K]):
    """The parts of one long page body, one per key, joined by newlines in a given key
    order (``disputed.md``'s clause sections, a contract page's, ``index.md``'s lists of
    precedents and change requests): each part is made once and kept until its key is
    dropped. The parts are kept joined in blocks of :attr:`BLOCK` consecutive keys, and
    the whole body as the join of the blocks. A ruling changes a few parts of a page of
    thousands: only the blocks holding them (and, when keys were added or removed, the
    blocks from the first one whose keys differ) are joined again, then the ~N/64 blocks
    (one join in C); no Python loop over every key (issue 32 item 5: the per-key loop
    and list were ~4 % of a ruling's projection at 10k). The joined bytes are what
    ``b"\\n".join`` of the parts in order gives (the separator between blocks is the
    separator between their last and first parts), so a page built from them is
    byte-identical to one rendered whole."""

    BLOCK = 64
    """Keys per block: 2,000 keys make 32 blocks; re-joining one block copies ~1/32 of
    the body."""

    __slots__ = ("_parts", "_keys", "_blocks", "_pos", "_dirty", "_ready")

    def __init__(self) -> None:
        self._parts: dict[K, bytes] = {}
        self._keys: list[K] = []
        self._blocks: list[bytes | None] = []
        self._pos: dict[K, int] = {}  # key -> its index in _keys (stale for keys gone)
        self._dirty: set[K] = set()  # keys dropped since the last call
        self._ready = False  # every block is joined for _keys

    def get(self, keys: list[K], make: Callable[[K], bytes]) -> bytes:
        """The parts of ``keys`` (in that order, each key once) joined by ``b"\\n"``; a
        key without a kept part gets ``make(key)``. Empty bytes for no keys."""
        return b"\n".join(self.blocks(keys, make))

    def blocks(self, keys: list[K], make: Callable[[K], bytes]) -> list[bytes]:
        """:meth:`get` as the list of its blocks (``b"\\n".join`` of it is
        :meth:`get`; an empty list for no keys): a page joins them with its own lines
        in one copy, instead of copying a body of megabytes twice."""
        if self._ready and keys == self._keys:
            return cast("list[bytes]", list(self._blocks))
        size, old, n = self.BLOCK, self._keys, len(keys)
        blocks = self._blocks
        first = 0  # the first block whose keys differ from the last call's
        while (
            first < len(blocks)
            and keys[first * size : (first + 1) * size] == (old[first * size : (first + 1) * size])
        ):
            first += 1
        nblocks = (n + size - 1) // size
        blocks = self._blocks = [*blocks[: min(first, nblocks)]]
        blocks += [None] * (nblocks - len(blocks))
        pos = self._pos
        for i in range(first * size, n):
            pos[keys[i]] = i
        for key in self._dirty:
            at = pos.get(key)
            if at is not None and at < n and keys[at] == key:
                blocks[at // size] = None
        self._dirty.clear()
        parts = self._parts
        if len(parts) > 2 * n + 64:  # keys gone for good: forget their parts
            wanted = set(keys)
            self._parts = parts = {k: v for k, v in parts.items() if k in wanted}
            self._pos = {k: i for k, i in pos.items() if k in wanted}
        for b in range(nblocks):
            if blocks[b] is None:
                chunk = keys[b * size : (b + 1) * size]
                for key in chunk:
                    if key not in parts:
                        parts[key] = make(key)
                blocks[b] = b"\n".join([parts[k] for k in chunk])
        self._keys = list(keys)
        self._ready = True
        return cast("list[bytes]", list(blocks))

    def drop(self, key: K) -> None:
        """Forget the part of ``key`` (its block is joined again on the next call)."""
        if self._parts.pop(key, None) is not None:
            self._dirty.add(key)
            self._ready = False


class PageCache:
    """Every memo of a :class:`WikiModel`, typed, and what each change drops.

    Values are kept until the model says a change touched what they were made from:
    :meth:`forget_case` (a case put or removed: its rows and lines), :meth:`forget_clause`
    (a cited clause whose history changed: its tally and sections),
    :meth:`forget_disputed` (the set of disputed clauses changed), :meth:`forget_override`
    (an override put or removed: its line), :meth:`forget_cr` (a case ruled
    CHANGE_REQUEST put or removed: its line), :meth:`forget_contracts` / :meth:`forget_modules` (the
    set of cited contracts / impacted modules changed). The renderers fill the memos
    (:class:`Memo` per key, :class:`Once` for one value, :class:`Joined` for the parts of a
    long page body); a model's project never
    changes, so nothing made from it is ever dropped."""

    __slots__ = (
        "case_about",
        "clause_tally",
        "clause_standing",
        "contract_ids",
        "module_ids",
        "rows",
        "disputed_rows",
        "contract_bodies",
        "disputed_body",
        "disputed_list",
        "precedent_list",
        "cr_list",
        "entity_lists",
        "frontmatter",
    )

    def __init__(self) -> None:
        self.case_about: Memo[str, tuple[str, ...]] = Memo()
        """case id -> the cited refs its ruling is about (:func:`etki.memory.ruled_about`)"""
        self.clause_tally: Memo[str, ClauseTally] = Memo()
        """cited ref -> its :data:`ClauseTally`"""
        self.clause_standing: Memo[str, Standing] = Memo()
        """cited ref -> its :data:`Standing` (resolution and who overrode it)"""
        self.contract_ids: Once[list[str]] = Once()
        """contracts with a page (the project's and those cited), sorted"""
        self.module_ids: Once[list[str]] = Once()
        """modules impacted by ruled cases, sorted"""
        self.rows: Memo[tuple[int, str], str] = Memo()
        """(page depth, case id) -> ruling-table row"""
        self.disputed_rows: Memo[str, str] = Memo()
        """case id -> its item in a ``disputed.md`` section"""
        self.contract_bodies: Memo[str, Joined[str]] = Memo()
        """contract id -> the sections of its clauses (by ref), joined"""
        self.disputed_body: Joined[str] = Joined()
        """the sections of ``disputed.md`` (by disputed ref), joined"""
        self.disputed_list: Once[tuple[list[str], list[str]]] = Once()
        """(disputed refs sorted, the same as YAML values) of ``disputed.md``"""
        self.precedent_list: Joined[Key] = Joined()
        """``index.md``'s list of precedents (a line per override's key), joined"""
        self.cr_list: Joined[Key] = Joined()
        """``index.md``'s list of change requests (a line per case's key), joined"""
        self.entity_lists: Once[tuple[bytes, bytes]] = Once()
        """``index.md``'s lists of contracts and of modules"""
        self.frontmatter: Memo[str, FrontmatterMemo] = Memo()
        """wiki-relative page path -> the memo of its frontmatter entries"""

    def forget_case(self, case_id: str) -> None:
        """Drop what was rendered from one case (its rows, items and lines)."""
        self.case_about.drop(case_id)
        for depth in (0, 2):
            self.rows.drop((depth, case_id))
        self.disputed_rows.drop(case_id)

    def forget_clause(self, ref: str, contract_id: str) -> None:
        """Drop what was made from one cited clause's history (``contract_id``: the
        contract whose page shows the clause)."""
        self.clause_tally.drop(ref)
        self.clause_standing.drop(ref)
        self.contract_bodies.get(contract_id, Joined).drop(ref)
        self.disputed_body.drop(ref)

    def forget_disputed(self) -> None:
        """The set of disputed clauses changed."""
        self.disputed_list.drop()

    def forget_override(self, key: Key) -> None:
        """The override case of ``key`` was put or removed."""
        self.precedent_list.drop(key)

    def forget_cr(self, key: Key) -> None:
        """The case of ``key`` ruled CHANGE_REQUEST was put or removed."""
        self.cr_list.drop(key)

    def forget_contracts(self) -> None:
        """The set of cited contracts changed (and with it perhaps the contracts with a
        page: one the project lacks has a page while cited)."""
        self.contract_ids.drop()
        self.entity_lists.drop()

    def forget_modules(self) -> None:
        """The set of impacted modules changed."""
        self.module_ids.drop()
        self.entity_lists.drop()


def _key(case: CaseBrief) -> Key:
    assert case.ruling is not None
    return (case.ruling.ruled_at, case.case_id)


def _insert(lst: list[Key], key: Key) -> None:
    bisect.insort_right(lst, key)


def _discard(lst: list[Key], key: Key) -> None:
    i = bisect.bisect_left(lst, key)
    if i < len(lst) and lst[i] == key:
        del lst[i]


class WikiModel:
    """The rows every shared page reads, kept sorted and indexed so that one case can be
    put or removed without re-reading the others, plus :attr:`cache`, the memo of what
    was rendered from them, which :meth:`put` and :meth:`remove` keep true. Pages
    rendered from it are byte-identical to a model built from scratch from the same rows
    (:meth:`build`), whatever order the cases were put in.

    The attributes are read-only for everyone but the model: ``project`` and its
    ``clauses`` (ref -> clause), ``contracts``, ``modules`` and ``workitems`` (id ->
    value); ``cases``
    (case id -> brief); ``verdicts`` and ``ruling_counts`` (:class:`~collections.Counter`
    of engine verdicts of all cases / rulings of ruled ones); ``ruled`` and ``overrides``
    (sorted :data:`Key` lists); ``crs`` (the sorted keys of cases ruled CHANGE_REQUEST,
    those with a change-request page); ``history`` (cited ref -> keys, a case citing a ref
    twice is there twice); ``refs_of`` (contract id -> cited refs); ``by_module``
    (module id -> keys); ``disputed`` (the disputed refs).

    ``resolutions`` (ref -> the resolution in force of a disputed clause,
    :func:`etki.memory.resolutions_in_force`) is fixed too: a new resolution changes the
    DB's wiki token, and the projector builds a new model.

    ``project`` is fixed for the model's life: a changed project needs a new model
    (:meth:`with_project`). Not thread-safe (the projector holds the wiki lock)."""

    def __init__(
        self, project: Project, resolutions: Mapping[str, ClauseResolution] | None = None
    ) -> None:
        self.project = project
        self.resolutions: dict[str, ClauseResolution] = dict(resolutions or {})
        clauses = project.clauses
        self.clauses: dict[str, ScopeClause] = {c.ref: c for c in clauses}
        self._clause_pos: dict[str, int] = {c.ref: i for i, c in enumerate(clauses)}
        self._clauses_of: dict[str, list[str]] = {}
        for c in clauses:  # contract id -> its clauses' refs in document order
            self._clauses_of.setdefault(c.contract_id, []).append(c.ref)
        self.contracts: dict[str, Contract] = {c.id: c for c in project.contracts}
        self.modules: dict[str, Module] = {m.id: m for m in project.modules}
        self.workitems: dict[str, WorkItem] = {w.id: w for w in project.workitems}
        self.cases: dict[str, CaseBrief] = {}
        self.verdicts: Counter[str] = Counter()
        self.ruling_counts: Counter[str] = Counter()
        self.ruled: list[Key] = []
        self.overrides: list[Key] = []
        self.crs: list[Key] = []
        self.history: dict[str, list[Key]] = {}
        self.refs_of: dict[str, set[str]] = {}
        self.by_module: dict[str, list[Key]] = {}
        self.disputed: set[str] = set()
        self.cache = PageCache()

    @classmethod
    def build(
        cls,
        project: Project,
        cases: Iterable[CaseRecord | CaseBrief],
        resolutions: Mapping[str, ClauseResolution] | None = None,
    ) -> WikiModel:
        """A model of ``project`` holding ``cases`` (cases of other projects ignored)
        and the clause ``resolutions`` in force."""
        m = cls(project, resolutions)
        for c in cases:
            if c.project_id == project.id:
                brief = CaseBrief.of(c)
                old = m.cases.get(brief.case_id)
                if old != brief:
                    if old is not None:
                        m._drop(old)
                    m._add(brief, touch=False)
        # what _touch_ref would have left after the last case citing each ref (a case
        # given twice was dropped and touched its refs: their memos go too)
        for ref in m.history:
            m.cache.forget_clause(ref, m.contract_of(ref))
        m.disputed = {ref for ref in m.history if m.memory(ref)[1]}
        return m

    def with_project(
        self, project: Project, resolutions: Mapping[str, ClauseResolution] | None = None
    ) -> WikiModel:
        """A new model of ``project`` holding this model's cases, with ``resolutions``
        (this model's when None)."""
        kept = self.resolutions if resolutions is None else resolutions
        return WikiModel.build(project, self.cases.values(), kept)

    # --- lookups -------------------------------------------------------------------------

    def contract_of(self, ref: str) -> str:
        """The contract id of a clause ref: the clause's, or the part before ``#`` of a
        ref the project no longer has."""
        clause = self.clauses.get(ref)
        if clause is not None:
            return clause.contract_id
        return ref.split("#", 1)[0]

    def clause_label(self, ref: str) -> str:
        """``{ref} — {clause title}``, or the bare ref of a clause the project lacks."""
        clause = self.clauses.get(ref)
        return clause_label(ref, clause.title if clause is not None else None)

    def clause_order(self, ref: str) -> tuple[int, tuple[str, str]]:
        """Sort key of refs in contract order (refs the project lacks last, by
        :func:`etki.text.sort_key`)."""
        return (self._clause_pos.get(ref, len(self._clause_pos)), sort_key(ref))

    def case_of(self, key: Key) -> CaseBrief:
        """The brief of the case a :data:`Key` names (``KeyError`` when not held)."""
        return self.cases[key[1]]

    def memory(self, ref: str) -> ClauseTally:
        """(precedent count, disputed, distinct rulings sorted) of a cited ref, exactly as
        :func:`etki.memory.clause_memory` counts them: overrides and rulings about the ref
        (a case citing a ref twice counts twice). ``KeyError`` for a ref no ruled case cites."""
        return self.cache.clause_tally.get(ref, lambda: self._tally(ref))

    def _about(self, ref: str, brief: CaseBrief) -> bool:
        """Whether the ruling of ``brief`` is about ``ref`` (:func:`etki.memory.ruled_about`,
        the rule :func:`etki.memory.clause_memory` disputes by)."""
        r, d = brief.ruling, brief.decision
        assert r is not None  # history holds ruled cases only
        about = self.cache.case_about.get(
            brief.case_id, lambda: ruled_about(d.cited_clauses, r.reason, d.deciding)
        )
        return ref in about

    def _tally(self, ref: str) -> ClauseTally:
        rulings: set[str] = set()
        count = 0
        for key in self.history[ref]:
            brief = self.cases[key[1]]
            r = brief.ruling
            assert r is not None  # history holds ruled cases only
            if self._about(ref, brief):
                rulings.add(r.ruling)
                count += r.is_override
        resolution, overridden = self.standing(ref)
        disputed = is_disputed(rulings, overridden, resolution)
        return (count, disputed, tuple(sorted(rulings)))

    def standing(self, ref: str) -> Standing:
        """(resolution in force, case that overrode it) of a cited ref, as
        :func:`etki.memory.clause_memory` says (:func:`etki.memory.overriding_case` over
        the ref's rulings, oldest first). ``KeyError`` for a ref no ruled case cites."""
        return self.cache.clause_standing.get(ref, lambda: self._standing(ref))

    def _standing(self, ref: str) -> Standing:
        resolution = self.resolutions.get(ref)
        if resolution is None:
            return (None, None)
        history = []
        for key in self.history[ref]:
            brief = self.cases[key[1]]
            r = brief.ruling
            assert r is not None  # history holds ruled cases only
            if self._about(ref, brief):
                history.append((key[1], r.ruling, r.reviewer, r.ruled_at))
        return (resolution, overriding_case(history, resolution))

    def contract_ids(self) -> list[str]:
        """The contracts with a page, sorted (:func:`etki.text.sort_key`): every contract
        of the project (with its clauses or without) and every contract a ruled case
        cites (one the project no longer has included)."""
        return self.cache.contract_ids.get(
            lambda: sorted(
                set(self.contracts) | set(self._clauses_of) | set(self.refs_of), key=sort_key
            )
        )

    def contract_refs(self, contract_id: str) -> list[str]:
        """The clauses a contract's page shows, in contract order: every clause of the
        project's contract ``contract_id`` in document order, then the refs of it that
        ruled cases cite and the project no longer has (:meth:`clause_order`). Empty for
        a contract without either."""
        own = self._clauses_of.get(contract_id, [])
        gone = [r for r in self.refs_of.get(contract_id, ()) if r not in self._clause_pos]
        return own if not gone else [*own, *sorted(gone, key=self.clause_order)]

    def module_ids(self) -> list[str]:
        """Modules impacted by ruled cases, sorted (:func:`etki.text.sort_key`)."""
        return self.cache.module_ids.get(lambda: sorted(self.by_module, key=sort_key))

    # --- changes -------------------------------------------------------------------------

    def put(self, case: CaseBrief) -> CaseBrief | None:
        """Add ``case`` or replace the stored case of the same id; returns the one
        replaced (None when new). An equal case changes nothing."""
        old = self.cases.get(case.case_id)
        if old == case:
            return old
        if old is not None:
            self._drop(old)
        self._add(case)
        return old

    def remove(self, case_id: str) -> CaseBrief | None:
        """Forget a case (erased); returns it, or None when it was not there."""
        old = self.cases.get(case_id)
        if old is not None:
            self._drop(old)
        return old

    def _touch_ref(self, ref: str) -> None:
        self.cache.forget_clause(ref, self.contract_of(ref))
        now = ref in self.history and self.memory(ref)[1]
        if now != (ref in self.disputed):
            self.cache.forget_disputed()
            if now:
                self.disputed.add(ref)
            else:
                self.disputed.discard(ref)

    def _add(self, case: CaseBrief, *, touch: bool = True) -> None:
        """Index ``case``; ``touch`` false (a model being built) leaves the memos of its
        cited clauses and :attr:`disputed` to the builder."""
        self.cache.forget_case(case.case_id)
        self.cases[case.case_id] = case
        self.verdicts[case.decision.verdict] += 1
        if case.ruling is None:
            return
        key = _key(case)
        _insert(self.ruled, key)
        self.ruling_counts[case.ruling.ruling] += 1
        if case.ruling.is_override:
            _insert(self.overrides, key)
            self.cache.forget_override(key)
        if case.ruling.ruling == "CHANGE_REQUEST":
            _insert(self.crs, key)
            self.cache.forget_cr(key)
        for ref in case.decision.cited_clauses:
            if ref not in self.history:
                self.history[ref] = []
                contract = self.contract_of(ref)
                if contract not in self.refs_of:
                    self.refs_of[contract] = set()
                    self.cache.forget_contracts()
                self.refs_of[contract].add(ref)
            _insert(self.history[ref], key)
        for ref in dict.fromkeys(case.decision.cited_clauses) if touch else ():
            self._touch_ref(ref)
        for mod in dict.fromkeys(case.decision.impacted_modules):
            if mod not in self.by_module:
                self.by_module[mod] = []
                self.cache.forget_modules()
            _insert(self.by_module[mod], key)

    def _drop(self, case: CaseBrief) -> None:
        self.cache.forget_case(case.case_id)
        del self.cases[case.case_id]
        self.verdicts[case.decision.verdict] -= 1
        if not self.verdicts[case.decision.verdict]:
            del self.verdicts[case.decision.verdict]
        if case.ruling is None:
            return
        key = _key(case)
        _discard(self.ruled, key)
        self.ruling_counts[case.ruling.ruling] -= 1
        if not self.ruling_counts[case.ruling.ruling]:
            del self.ruling_counts[case.ruling.ruling]
        if case.ruling.is_override:
            _discard(self.overrides, key)
            self.cache.forget_override(key)
        if case.ruling.ruling == "CHANGE_REQUEST":
            _discard(self.crs, key)
            self.cache.forget_cr(key)
        for ref in case.decision.cited_clauses:
            _discard(self.history[ref], key)
        for ref in dict.fromkeys(case.decision.cited_clauses):
            if not self.history[ref]:
                del self.history[ref]
                contract = self.contract_of(ref)
                self.refs_of[contract].discard(ref)
                if not self.refs_of[contract]:
                    del self.refs_of[contract]
                    self.cache.forget_contracts()
            self._touch_ref(ref)
        for mod in dict.fromkeys(case.decision.impacted_modules):
            _discard(self.by_module[mod], key)
            if not self.by_module[mod]:
                del self.by_module[mod]
                self.cache.forget_modules()
