"""Names and paths of the wiki's pages (DESIGN.md, "Wiki").

Tree (paths are POSIX, relative to the project's wiki folder)::

    index.md                              counts, verdict distribution, last 10 rulings
    disputed.md                           clauses whose resolved rulings disagree
    decisions/DEC-{yyyymmdd}-{slug}.md    one per ruled case
    precedents/PRE-{slug}.md              one per override
    change-requests/CR-{yyyymmdd}-{slug}.md  one per case whose current ruling is a CR
    entities/contracts/{contract}.md      the whole contract, clause by clause (each anchored,
                                          :func:`clause_anchor`), with the decisions citing each
    entities/modules/{module}.md          decisions that impact a module

Client text never becomes a path: file names come from :func:`etki.text.slugify` of the
title plus the case id (NFC and NFD titles give the same slug, B12; every name fits in
:data:`NAME_MAX_BYTES` UTF-8 bytes, B14), and contract and module ids that are not plain
safe stems get a slug plus a digest of the exact id. Pure functions, no file system.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol
from urllib.parse import quote

from etki.text import slugify

if TYPE_CHECKING:  # a type only: the search's import of the writer skips etki.domain
    from etki.domain import RulingRecord

__all__ = [
    "CR_DIR",
    "DISPUTED",
    "INDEX",
    "NAME_MAX_BYTES",
    "OWNED_DIRS",
    "NamedCase",
    "CLAUSE_LABEL_SEP",
    "DISPUTED_TITLE",
    "case_slug",
    "clause_anchor",
    "clause_label",
    "clause_link",
    "clause_link_ref",
    "contract_path",
    "cr_case_ref",
    "cr_id",
    "cr_number",
    "cr_path",
    "has_cr_page",
    "decision_path",
    "entity_name",
    "is_case_page",
    "module_path",
    "page_kind",
    "precedent_path",
    "relative_link",
]

INDEX = "index.md"
DISPUTED = "disputed.md"
DISPUTED_TITLE = "Disputed clauses"
"""The title (frontmatter and heading) of ``disputed.md``; a link naming it by its count
(``index.md``'s counts table) is listed under it in the desk."""
CR_DIR = "change-requests"
OWNED_DIRS: tuple[str, ...] = ("decisions", "precedents", CR_DIR, "entities")
"""Folders (and the two top pages above) whose ``*.md`` files Etki owns and may prune."""

NAME_MAX_BYTES = 255
"""Longest file name, in UTF-8 bytes, that ext4/APFS/NTFS all accept (B14)."""

_TITLE_SLUG_CHARS = 100  # readability bound before the byte bound below
_DEC_PREFIX_BYTES = len("DEC-yyyymmdd-")
_SLUG_MAX_BYTES = NAME_MAX_BYTES - _DEC_PREFIX_BYTES - len(".md")  # 239
_CANONICAL_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_WINDOWS_DEVICES = frozenset(
    {
        "CON",
        "PRN",
        "AUX",
        "NUL",
        "CONIN$",
        "CONOUT$",
        *(f"COM{i}" for i in range(10)),
        *(f"LPT{i}" for i in range(10)),
    }
)
_SAFE_ENTITY = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,118}[A-Za-z0-9])?")


class NamedCase(Protocol):
    """What a case's page names are made of. :class:`~etki.domain.CaseRecord` and
    :class:`~etki.domain.CaseBrief` both are one."""

    @property
    def case_id(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def ruling(self) -> RulingRecord | None: ...


def _digest(text: str, n: int = 10) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:n]


def _cut_bytes(slug: str, limit: int) -> str:
    """``slug`` cut to at most ``limit`` UTF-8 bytes on a character boundary, preferring
    a ``-`` boundary in the second half; never ends with ``-``."""
    if len(slug.encode("utf-8")) <= limit:
        return slug
    out: list[str] = []
    used = 0
    for ch in slug:
        size = len(ch.encode("utf-8"))
        if used + size > limit:
            break
        out.append(ch)
        used += size
    cut = "".join(out)
    dash = cut.rfind("-")
    if dash >= len(cut) // 2:
        cut = cut[:dash]
    return cut.strip("-")


def _case_part(case_id: str) -> str:
    """The case id as it appears in file names: itself when it is already a lowercase
    ``[a-z0-9-]`` slug of at most 64 characters (the engine's ``req-demo-1a2b3c4d``),
    else a slug of it plus a digest of the exact id, so distinct ids never share a name
    (not even on a case-insensitive file system)."""
    if len(case_id) <= 64 and _CANONICAL_ID.fullmatch(case_id):
        return case_id
    return f"{slugify(case_id, max_chars=40)}-{_digest(case_id)}"


def case_slug(case: NamedCase) -> str:
    """The file-name slug of a case: ``{title slug}--{case id}``.

    The title part is :func:`etki.text.slugify` of the title (so NFC and NFD titles give
    the same slug, B12; no path separator, dot or combining mark), cut on a character
    boundary so that ``DEC-yyyymmdd-{slug}.md`` is at most :data:`NAME_MAX_BYTES` UTF-8
    bytes (B14). The case-id part makes it unique per case (``--`` never occurs inside a
    slug, so the two parts cannot run together)."""
    return _slug(case.case_id, case.title)


@lru_cache(maxsize=1 << 16)  # a page links the same cases many times; pure in its inputs
def _slug(case_id: str, case_title: str) -> str:
    case_part = _case_part(case_id)
    budget = _SLUG_MAX_BYTES - len(case_part.encode("utf-8")) - 2
    title = _cut_bytes(slugify(case_title, max_chars=_TITLE_SLUG_CHARS), max(budget, 0))
    return f"{title}--{case_part}" if title else case_part


def _yyyymmdd(ruled_at: str) -> str:
    m = re.match(r"(\d{4})-(\d{2})-(\d{2})", ruled_at)
    return "".join(m.groups()) if m else "00000000"


def decision_path(case: NamedCase) -> str:
    """``decisions/DEC-{yyyymmdd}-{slug}.md`` of a ruled case (date of the ruling, UTC).

    Raises ``ValueError`` for a pending case (it has no decision page yet)."""
    if case.ruling is None:
        raise ValueError(f"case {case.case_id} is pending: it has no decision page yet")
    return f"decisions/DEC-{_yyyymmdd(case.ruling.ruled_at)}-{case_slug(case)}.md"


def precedent_path(case: NamedCase) -> str:
    """``precedents/PRE-{slug}.md`` (same slug as the decision page)."""
    return f"precedents/PRE-{case_slug(case)}.md"


def has_cr_page(case: NamedCase) -> bool:
    """True when ``case`` has a change-request page: its current ruling is
    ``CHANGE_REQUEST`` (an amendment away from CR takes the page away)."""
    return case.ruling is not None and case.ruling.ruling == "CHANGE_REQUEST"


def cr_id(case: NamedCase) -> str:
    """The change request's id, ``CR-{yyyymmdd}-{slug}`` (date of the current ruling,
    UTC; the decision pages' slug, so unique per case): the stem of :func:`cr_path`.
    Raises ``ValueError`` for a case not ruled CHANGE_REQUEST."""
    if not has_cr_page(case):
        raise ValueError(f"case {case.case_id} is not ruled CHANGE_REQUEST: it has no CR page")
    assert case.ruling is not None
    return f"CR-{_yyyymmdd(case.ruling.ruled_at)}-{case_slug(case)}"


_HEX_TAIL = re.compile(r"[0-9a-f]{8,64}")
_CR_REF = re.compile(r"CR-\d{8}-(?P<rest>.+)", re.IGNORECASE)


def cr_number(case: NamedCase) -> str:
    """The change request's number on the client's document: ``CR-{yyyymmdd}-{tail}``
    (``CR-20261207-148197aa``), the date of the current ruling as in :func:`cr_id`
    and ``tail`` the case id's digest after its last ``-`` (unique in a project, as
    the case id is; the short id the desk shows), or, for a case id not ending in one,
    8 hex digits of SHA-256 of the whole id. Short and stable: a long request title
    made :func:`cr_id` (the wiki page's name, kept as the internal id) read
    ``CR-20261207-add-whatsapp-as-notification-channel--req-demo-148197aa`` on the
    document. Raises ``ValueError`` for a case not ruled CHANGE_REQUEST."""
    stem = cr_id(case)  # refuses a case that is not a change request
    tail = case.case_id.rsplit("-", 1)[-1]
    if not _HEX_TAIL.fullmatch(tail):
        tail = _digest(case.case_id, 8)
    return f"{stem[: len('CR-yyyymmdd')]}-{tail}"


def cr_case_ref(text: str) -> str:
    """What a typed change-request number names, for ``etki cr`` to resolve as a
    case id (:meth:`etki.services.Desk.case_id_for`): the case-id part of an internal
    id (:func:`cr_id`, ``CR-20261207-some-title--req-demo-148197aa`` ->
    ``req-demo-148197aa``), the tail of a client number (:func:`cr_number`,
    ``CR-20261207-148197aa`` -> ``148197aa``, a short id), anything else as typed (a
    case id, a short one). The date is not checked: an earlier number of a case
    re-ruled since still names it."""
    found = _CR_REF.fullmatch(text.strip())
    if found is None:
        return text
    rest = found["rest"]
    if "--" in rest:
        rest = rest.rsplit("--", 1)[1]
    return rest


def cr_path(case: NamedCase) -> str:
    """``change-requests/CR-{yyyymmdd}-{slug}.md`` of a case ruled CHANGE_REQUEST
    (``CR-`` is shorter than ``DEC-``, so the name fits :data:`NAME_MAX_BYTES` as the
    decision page's does). Raises ``ValueError`` otherwise."""
    return f"{CR_DIR}/{cr_id(case)}.md"


def is_case_page(path: str, case_id: str) -> bool:
    """True when the wiki-relative ``path`` is a decision, precedent or change-request
    page of ``case_id``, told by its name alone (``DEC-{yyyymmdd}-{slug}.md``,
    ``CR-{yyyymmdd}-{slug}.md`` or ``PRE-{slug}.md`` whose slug is the case-id part, or
    ends in ``--`` and it; ``--`` never occurs inside a title slug). Erasure uses it to
    remove a case's pages when its title is no longer known."""
    part = re.escape(_case_part(case_id))
    return (
        re.fullmatch(
            rf"(?:decisions/DEC-\d{{8}}|{CR_DIR}/CR-\d{{8}}|precedents/PRE)-(?:[^/]*--)?{part}\.md",
            path,
        )
        is not None
    )


def entity_name(entity_id: str) -> str:
    """A safe file stem for a contract or module id.

    Ids made of ASCII letters, digits, ``.``, ``_`` and ``-`` (starting and ending with
    a letter or digit, no ``..``, at most 120 characters) are kept as they are, so
    ``auth.sso`` stays ``auth.sso``; anything else becomes a slug plus a digest of the
    exact id (``src-auth-9f2c...``), never a path separator. So do Windows device names
    (``CON``, ``nul.txt``, ``COM1``: no file of that name can exist there). Two ids
    differing only in letter case would share a name on a case-insensitive file system;
    the project loader rejects such pairs."""
    if (
        _SAFE_ENTITY.fullmatch(entity_id)
        and ".." not in entity_id
        and entity_id.split(".", 1)[0].upper() not in _WINDOWS_DEVICES
    ):
        return entity_id
    return f"{slugify(entity_id, max_chars=60)}-{_digest(entity_id)}"


CLAUSE_LABEL_SEP = " — "
"""Between a clause's ref and its title in the label of a link to its contract page."""


def clause_label(ref: str, title: str | None) -> str:
    """How the wiki's pages name a clause in a link to its contract page: ``{ref} —
    {title}``, or the bare ref of a clause the project lacks (``title`` None); read back
    by :func:`clause_link_ref`."""
    return ref if title is None else f"{ref}{CLAUSE_LABEL_SEP}{title}"


def clause_anchor(ref: str) -> str:
    """The anchor of clause ``ref`` on its contract page: the ref percent-encoded
    (:func:`urllib.parse.quote` with nothing safe: ``MSA-2024-01#3.2`` ->
    ``MSA-2024-01%233.2``), so it holds only ASCII letters, digits, ``-._~`` and ``%XX``
    whatever the ref (client text never reaches the page's HTML). The page writes it as
    the ``id`` of an empty ``<a>`` in the clause's heading (a browser, GitHub and VS Code
    land on it; Textual's Markdown skips inline HTML), and the desk reads a link's
    fragment back with :func:`urllib.parse.unquote` (``etki_tui.hafiza.reader``)."""
    return quote(ref, safe="")


def clause_link(src: str, contract_id: str, ref: str) -> str:
    """The link from page ``src`` to clause ``ref`` of contract ``contract_id``: its
    contract page (:func:`relative_link`) and the clause's :func:`clause_anchor`."""
    return f"{relative_link(src, contract_path(contract_id))}#{clause_anchor(ref)}"


def clause_link_ref(label: str, refs: Iterable[str]) -> str | None:
    """The ref of ``refs`` a clause link's ``label`` names (:func:`clause_label`; as
    written in a page's markdown, backslash escapes allowed), longest refs first
    (``MSA#4.8.1`` before ``MSA#4.8``); None when it names none of them."""
    text = re.sub(r"\\(.)", r"\1", label).strip()
    for ref in sorted(set(refs), key=len, reverse=True):
        if text == ref or text.startswith(ref + CLAUSE_LABEL_SEP):
            return ref
    return None


def contract_path(contract_id: str) -> str:
    """``entities/contracts/{safe id}.md``."""
    return f"entities/contracts/{entity_name(contract_id)}.md"


def module_path(module_id: str) -> str:
    """``entities/modules/{safe id}.md``."""
    return f"entities/modules/{entity_name(module_id)}.md"


def page_kind(path: str) -> str:
    """The kind of page at wiki-relative ``path``: ``index``, ``disputed``, ``decision``,
    ``precedent``, ``change-request``, ``contract``, ``module`` or ``other``."""
    if path == INDEX:
        return "index"
    if path == DISPUTED:
        return "disputed"
    for prefix, kind in (
        ("decisions/", "decision"),
        ("precedents/", "precedent"),
        (f"{CR_DIR}/", "change-request"),
        ("entities/contracts/", "contract"),
        ("entities/modules/", "module"),
    ):
        if path.startswith(prefix) and path.endswith(".md") and "/" not in path[len(prefix) :]:
            return kind
    return "other"


def relative_link(src: str, dst: str) -> str:
    """The relative link from page ``src`` to page ``dst`` (both wiki-relative, POSIX):
    one ``../`` per folder of ``src``, then ``dst``."""
    up = src.count("/")
    return "../" * up + dst
