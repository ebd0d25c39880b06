"""The wiki tree: which pages a case has, the full render (:func:`render_wiki`,
:func:`render_model`), the render after a change (:func:`render_changed`,
:func:`render_case_pages`) and the render cache's page keys (:func:`page_keys`). Both
renders give the same bytes (``tests/test_wiki_render.py``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence

from etki.domain import (
    CaseBrief,
    CaseRecord,
    ClauseResolution,
    Project,
)
from etki.wiki.model import WikiModel
from etki.wiki.pages.cr import _cr_page
from etki.wiki.pages.decision import _decision_page
from etki.wiki.pages.entities import _contract_page, _module_page
from etki.wiki.pages.precedent import _precedent_page
from etki.wiki.pages.shared import _disputed_page, _index_page
from etki.wiki.paths import (
    DISPUTED,
    INDEX,
    NamedCase,
    contract_path,
    cr_path,
    decision_path,
    has_cr_page,
    module_path,
    precedent_path,
)


def _check_unique(files: dict[str, bytes], path: str, owner: str) -> None:
    if path in files:
        raise ValueError(
            f"two wiki pages map to {path} (second: {owner}); entity ids must be distinct"
        )


def _case_pages(m: WikiModel, case: CaseRecord, files: dict[str, bytes]) -> None:
    files[decision_path(case)] = _decision_page(m, case)
    if case.ruling is not None and case.ruling.is_override:
        files[precedent_path(case)] = _precedent_page(m, case)
    if has_cr_page(case):
        files[cr_path(case)] = _cr_page(m, case)


def case_page_paths(case: NamedCase) -> list[str]:
    """The pages of one case in a full render: its decision page, its precedent page
    (override) and its change-request page (ruled CHANGE_REQUEST); none when pending.
    What the pages are follows the case's current ruling only."""
    if case.ruling is None:
        return []
    paths = [decision_path(case)]
    if case.ruling.is_override:
        paths.append(precedent_path(case))
    if has_cr_page(case):
        paths.append(cr_path(case))
    return paths


def stale_case_pages(m: WikiModel, touched: Iterable[CaseBrief]) -> list[str]:
    """The case pages that briefs in ``touched`` (a case before and after a change) had
    and that the case, as ``m`` holds it now, no longer has: a change request whose
    ruling is no longer CHANGE_REQUEST, a precedent no longer an override, a page
    whose ruling date moved. Sorted. Paths are unique per case (the slug ends in the
    case id), so no other case's page is ever among them. An erased case (not in
    ``m``) is left to the full sync that erasure runs."""
    stale: set[str] = set()
    for b in touched:
        now = m.cases.get(b.case_id)
        if now is None:
            continue
        stale.update(set(case_page_paths(b)) - set(case_page_paths(now)))
    return sorted(stale)


def render_wiki(
    project: Project,
    cases: Sequence[CaseRecord],
    resolutions: Mapping[str, ClauseResolution] | None = None,
) -> dict[str, bytes]:
    """Render the whole wiki tree of ``project``.

    ``cases`` are the project's stored cases in any order (cases of other projects are
    ignored); ``resolutions`` the resolutions of disputed clauses in force (ref ->
    resolution, :func:`etki.memory.resolutions_in_force`). Returns ``{wiki-relative
    POSIX path: page bytes}``; the same rows give the same bytes. Raises ``ValueError``
    only if two entity ids map to one file name.
    """
    return render_model(
        WikiModel.build(project, cases, resolutions),
        [c for c in cases if c.project_id == project.id],
    )


def render_model(
    m: WikiModel, cases: Iterable[CaseRecord], known: Mapping[str, bytes] | None = None
) -> dict[str, bytes]:
    """The whole wiki tree of the model ``m``; ``cases`` are the full records of its ruled
    cases (for the decision and precedent pages; pending cases and cases ``m`` does not
    hold are skipped). Same bytes as :func:`render_wiki` of the same rows. ``known``
    ({path: bytes}, the render cache's hits) are pages taken as they are instead of
    rendered: the case pages among them need no record in ``cases``. Raises
    ``ValueError`` when two entity ids map to one file name."""
    known = known or {}
    files = {p: b for p, b in known.items() if not p.startswith(_SHARED)}  # case pages
    files[INDEX] = known[INDEX] if INDEX in known else _index_page(m)
    files[DISPUTED] = known[DISPUTED] if DISPUTED in known else _disputed_page(m)
    for c in cases:
        if c.ruling is not None and c.case_id in m.cases:
            _case_pages(m, c, files)
    for x in m.contract_ids():
        path = contract_path(x)
        _check_unique(files, path, x)
        files[path] = known[path] if path in known else _contract_page(m, x)
    for x in m.module_ids():
        path = module_path(x)
        _check_unique(files, path, x)
        files[path] = known[path] if path in known else _module_page(m, x)
    return dict(sorted(files.items()))


_SHARED = (INDEX, DISPUTED, "entities/")  # (prefixes of) the pages made from the model alone


def page_keys(
    m: WikiModel, salt: str, stamps: Mapping[str, str]
) -> tuple[dict[str, str], dict[str, str]]:
    """The render cache's key ({path: key}) of every page of a full render of ``m``, and
    the case id of each case page ({path: case id})
    (:mod:`etki.wiki.rendercache`): a digest of ``salt`` (what every page reads: the
    store, the project as read and the renderers' version, made by the projector), the
    page and the cases it reads: for a case's own pages its ``id:version`` and its
    ``stamps`` entry (the newest audit row's id and time,
    :meth:`etki.store.CaseFileRepository.wiki_case_stamps`: notes and pre-analyses do
    not move the version, and a store restored from a copy reuses versions and ids for
    other content); for the shared pages its ``id:version`` and the ruling they list
    (ruling, reviewer, time: what a restored store can change under the same version).
    Mirrors the dependencies in :mod:`etki.wiki.pages`'s docstring: a case page reads its
    case; a contract page the cases citing its clauses; a module page the cases
    impacting it; ``index.md`` and ``disputed.md`` every case."""

    def digest(*parts: str) -> str:
        text = "\0".join((salt, *parts))
        return hashlib.blake2b(text.encode("utf-8", errors="replace"), digest_size=16).hexdigest()

    def listed(cid: str) -> str:
        case = m.cases[cid]
        r = case.ruling
        ruled = f"{r.ruling}\1{r.reviewer}\1{r.ruled_at}" if r is not None else ""
        return f"{cid}:{case.version}:{ruled}"

    def of(key: tuple[str, str]) -> str:
        return listed(key[1])

    keys: dict[str, str] = {}
    owner: dict[str, str] = {}
    for cid, brief in m.cases.items():
        if brief.ruling is not None:
            key = digest("case", cid, str(brief.version), stamps.get(cid, "-"))
            for path in case_page_paths(brief):
                keys[path] = key
                owner[path] = cid
    every = digest("all", *(listed(cid) for cid in sorted(m.cases)))
    keys[INDEX] = keys[DISPUTED] = every
    for x in m.contract_ids():
        parts = [x]
        for ref in sorted(m.refs_of.get(x, ())):
            parts += [ref, *map(of, m.history[ref])]
        keys[contract_path(x)] = digest("contract", *parts)
    for x in m.module_ids():
        keys[module_path(x)] = digest("module", x, *map(of, m.by_module[x]))
    return keys, owner


def render_changed(
    m: WikiModel, cases: Iterable[CaseRecord], touched: Iterable[CaseBrief]
) -> dict[str, bytes]:
    """The pages a change of some cases can change, rendered from the model ``m`` (which
    already holds the change): ``index.md``, ``disputed.md``, the decision and precedent
    pages of the full records ``cases`` that ``m`` holds as ruled, and the contract and
    module pages of every brief in ``touched`` (a case's brief before and after the
    change, so pages a case left are rendered too) that still have decisions. Each page is
    byte-identical to the same path in :func:`render_wiki` of the rows ``m`` holds. Pages
    that no longer exist in a full render are not returned (a rebuild prunes them)."""
    files: dict[str, bytes] = {INDEX: _index_page(m), DISPUTED: _disputed_page(m)}
    for c in cases:
        if c.ruling is not None and m.cases.get(c.case_id) == CaseBrief.of(c):
            _case_pages(m, c, files)
    contracts: set[str] = set()
    modules: set[str] = set()
    for b in touched:
        if b.ruling is None:
            continue
        contracts.update(m.contract_of(ref) for ref in b.decision.cited_clauses)
        modules.update(b.decision.impacted_modules)
    paged = set(m.contract_ids())  # a contract page stays when its last citation goes
    for x in sorted(contracts):
        if x in paged:
            files[contract_path(x)] = _contract_page(m, x)
    for x in sorted(modules):
        if x in m.by_module:
            files[module_path(x)] = _module_page(m, x)
    return dict(sorted(files.items()))


def render_case_pages(
    project: Project, cases: Sequence[CaseRecord], case_id: str
) -> dict[str, bytes]:
    """The pages a ruling on ``case_id`` can change: its decision page, its precedent page
    (override), the contract pages of its cited clauses, the module pages of its
    impacted modules, ``disputed.md`` and ``index.md``. Each is byte-identical to the
    same path in :func:`render_wiki` of the same rows. A pending or unknown case gives
    only ``index.md`` and ``disputed.md``."""
    m = WikiModel.build(project, cases)
    case = next(
        (
            c
            for c in cases
            if c.case_id == case_id and c.project_id == project.id and c.ruling is not None
        ),
        None,
    )
    if case is None:
        return render_changed(m, [], [])
    return render_changed(m, [case], [CaseBrief.of(case)])
