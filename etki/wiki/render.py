"""Pure renderers of the wiki: rows in, bytes out (DESIGN.md, "Wiki").

The wiki is a projection of the database: every page is a pure function of the stored
:class:`~etki.domain.Project` and :class:`~etki.domain.CaseRecord` values. No clock, no
randomness, no absolute paths; lists are sorted; frontmatter is written by
:func:`etki.frontmatter.dump_frontmatter` (``yaml.safe_dump``, sorted keys), never by
string formatting; text is UTF-8 with LF line endings and exactly one trailing newline.
The same rows in any order give the same bytes.

Tree (paths are POSIX, relative to the project's wiki folder)::

    index.md                              counts, verdict distribution, last 10 rulings
    disputed.md                           clauses whose resolved rulings disagree
    decisions/DEC-{yyyymmdd}-{slug}.md    one per ruled case
    precedents/PRE-{slug}.md              one per override
    entities/contracts/{contract}.md      cited clauses of a contract, with their decisions
    entities/modules/{module}.md          decisions that impact a module

Client text (titles, request text, reviewer reasons, names) is untrusted: it never
becomes YAML structure (it is a YAML *value*), a path (file names come from
:func:`etki.text.slugify` plus the case id), or markup (multi-line text goes into a
fenced block whose fence is longer than any backtick run in it; one-line text is
backslash-escaped so no link, autolink, HTML, emphasis or table cell can come from it).
Terminal control characters are made visible with :func:`etki.text.printable` (B03).

Page dependencies are kept narrow on purpose so a ruling only changes the pages
:func:`render_case_pages` returns: a decision or precedent page depends only on its own
case and the project's clause titles; a contract page on the cases citing its clauses; a
module page on the cases impacting it; ``index.md`` and ``disputed.md`` on everything.

The shared pages are rendered from a :class:`WikiModel`: the rows they read
(:class:`CaseBrief` per case), kept sorted and indexed so one case can be put or removed
in place, with memoised fragments (table rows per case, sections per clause, frontmatter
entries). The HITL hook keeps one model alive between rulings and re-renders only what a
change touches (:func:`render_changed`); a full render builds one from scratch
(:func:`render_wiki`, :func:`render_model`). Both give the same bytes
(``tests/test_wiki_render.py`` checks it over random sequences of changes).
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from etki.domain import (
    REMIT_CONTRACT_ID,
    VERDICTS,
    CaseRecord,
    Contract,
    Module,
    Project,
    RulingRecord,
    ScopeClause,
    is_declared_remit,
)
from etki.frontmatter import dump_frontmatter
from etki.text import printable, slugify, sort_key

__all__ = [
    "DISPUTED",
    "BriefDecision",
    "CaseBrief",
    "WikiModel",
    "INDEX",
    "LAST_RULINGS",
    "NAME_MAX_BYTES",
    "OWNED_DIRS",
    "is_case_page",
    "case_slug",
    "contract_path",
    "decision_path",
    "entity_name",
    "frontmatter_bytes",
    "md_block",
    "md_inline",
    "module_path",
    "page_kind",
    "precedent_path",
    "render_case_pages",
    "render_changed",
    "render_model",
    "render_wiki",
]

INDEX = "index.md"
DISPUTED = "disputed.md"
OWNED_DIRS: tuple[str, ...] = ("decisions", "precedents", "entities")
"""Folders (and the two top pages above) whose ``*.md`` files Etki owns and may prune."""

NAME_MAX_BYTES = 255
"""Longest file name, in UTF-8 bytes, that ext4/APFS/NTFS all accept (B14)."""

LAST_RULINGS = 10
"""How many of the newest rulings ``index.md`` lists."""

_TITLE_SLUG_CHARS = 100  # readability bound before the byte bound below
_DEC_PREFIX_BYTES = len("DEC-yyyymmdd-")
_SLUG_MAX_BYTES = NAME_MAX_BYTES - _DEC_PREFIX_BYTES - len(".md")  # 239
_CANONICAL_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_WINDOWS_DEVICES = frozenset({"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$",
                              *(f"COM{i}" for i in range(10)), *(f"LPT{i}" for i in range(10))})
_SAFE_ENTITY = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,118}[A-Za-z0-9])?")


# --- names and paths ---------------------------------------------------------------------

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


def case_slug(case: CaseRecord) -> str:
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


def decision_path(case: CaseRecord) -> str:
    """``decisions/DEC-{yyyymmdd}-{slug}.md`` of a ruled case (date of the ruling, UTC).

    Raises ``ValueError`` for a pending case (it has no decision page yet)."""
    if case.ruling is None:
        raise ValueError(f"case {case.case_id} is pending: it has no decision page yet")
    return f"decisions/DEC-{_yyyymmdd(case.ruling.ruled_at)}-{case_slug(case)}.md"


def precedent_path(case: CaseRecord) -> str:
    """``precedents/PRE-{slug}.md`` (same slug as the decision page)."""
    return f"precedents/PRE-{case_slug(case)}.md"


def is_case_page(path: str, case_id: str) -> bool:
    """True when the wiki-relative ``path`` is a decision or precedent page of
    ``case_id``, told by its name alone (``DEC-{yyyymmdd}-{slug}.md`` or
    ``PRE-{slug}.md`` whose slug is the case-id part, or ends in ``--`` and it; ``--``
    never occurs inside a title slug). Erasure uses it to remove a case's pages when
    its title is no longer known."""
    part = re.escape(_case_part(case_id))
    return re.fullmatch(rf"(?:decisions/DEC-\d{{8}}|precedents/PRE)-(?:[^/]*--)?{part}\.md",
                        path) is not None


def entity_name(entity_id: str) -> str:
    """A safe file stem for a contract or module id.

    Ids made of ASCII letters, digits, ``.``, ``_`` and ``-`` (starting and ending with
    a letter or digit, no ``..``, at most 120 characters) are kept as they are, so
    ``auth.sso`` stays ``auth.sso``; anything else becomes a slug plus a digest of the
    exact id (``src-auth-9f2c...``), never a path separator. So do Windows device names
    (``CON``, ``nul.txt``, ``COM1``: no file of that name can exist there). Two ids
    differing only in letter case would share a name on a case-insensitive file system;
    the project loader rejects such pairs."""
    if (_SAFE_ENTITY.fullmatch(entity_id) and ".." not in entity_id
            and entity_id.split(".", 1)[0].upper() not in _WINDOWS_DEVICES):
        return entity_id
    return f"{slugify(entity_id, max_chars=60)}-{_digest(entity_id)}"


def contract_path(contract_id: str) -> str:
    """``entities/contracts/{safe id}.md``."""
    return f"entities/contracts/{entity_name(contract_id)}.md"


def module_path(module_id: str) -> str:
    """``entities/modules/{safe id}.md``."""
    return f"entities/modules/{entity_name(module_id)}.md"


def page_kind(path: str) -> str:
    """The kind of page at wiki-relative ``path``: ``index``, ``disputed``, ``decision``,
    ``precedent``, ``contract``, ``module`` or ``other``."""
    if path == INDEX:
        return "index"
    if path == DISPUTED:
        return "disputed"
    for prefix, kind in (("decisions/", "decision"), ("precedents/", "precedent"),
                         ("entities/contracts/", "contract"), ("entities/modules/", "module")):
        if path.startswith(prefix) and path.endswith(".md") and "/" not in path[len(prefix):]:
            return kind
    return "other"


def _rel(src: str, dst: str) -> str:
    """Relative link from page ``src`` to page ``dst`` (both wiki-relative, POSIX)."""
    up = src.count("/")
    return "../" * up + dst


# --- safe markdown -------------------------------------------------------------------------

# linkify-it's default TLDs plus every two-letter label (a superset of its ccTLD list)
_TLD = (r"(?:biz|com|edu|gov|net|org|pro|web|xxx|aero|asia|coop|info|museum|name|shop|рф"
        r"|xn--[a-z0-9-]+|[a-z]{2})(?![^\W_])")
_INLINE_SPECIAL = re.compile(
    r"[\\`*\[\]<|~$@]"               # escapes, code, emphasis, links, HTML, tables
    r"|(?<![^\W_])_|_(?![^\W_])"        # '_' unless inside a word (snake_case stays)
    r"|&(?=#?\w+;)"                    # entity references
    r"|(?:^|(?<=\s))#"                  # ATX heading marks (MSA#3.2 stays)
    r"|:(?=/)"                         # scheme:// (bare URL autolinks)
    r"|\.(?=" + _TLD + r")"             # example.com, kentpark.bel.tr (fuzzy autolinks)
    r"|(?<=www)\.",                    # www.example
    re.IGNORECASE,
)
_BLOCK_START = re.compile(r"^([-+>=]|\d{1,9}[.)](?=\s|$))")


@lru_cache(maxsize=1 << 17)  # pure; names, dates and titles recur across pages
def md_inline(text: str) -> str:
    """One line of untrusted text as literal markdown inline content.

    Control characters are made visible (:func:`etki.text.printable`), line breaks become
    ``⏎``, runs of whitespace one space; every character that could start emphasis, a
    code span, a link, an image, an autolink (also linkify's bare ``example.com``), raw
    HTML, an entity or a table cell is backslash-escaped, and so is a leading list,
    quote or heading marker. Plain words, ``snake_case``, ``MSA#3.2`` and ``1.0.0`` stay
    as they are, so the raw file stays readable and searchable."""
    text = " ".join(printable(text, multiline=False).split())
    text = _INLINE_SPECIAL.sub(lambda m: "\\" + m.group(), text)
    m = _BLOCK_START.match(text)
    if m:
        marker = m.group(1)
        text = marker[:-1] + "\\" + marker[-1] + text[m.end():]
    return text


def md_paragraphs(text: str) -> str:
    """Untrusted multi-paragraph text as escaped paragraphs (blank line between)."""
    paras = [p for p in re.split(r"\n\s*\n", printable(text)) if p.strip()]
    return "\n\n".join(md_inline(p) for p in paras)


def md_block(text: str, info: str = "text") -> str:
    """Untrusted text verbatim in a fenced code block: the fence is one backtick longer
    than the longest backtick run in the text (at least three), so nothing in it can
    close the block; control characters are made visible, line endings are LF."""
    body = printable(text).rstrip("\n")
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{body}\n{fence}"


def _word(value: str) -> str:
    """A verdict, ruling or action code as markdown: itself when it is a plain code
    (``IN_SCOPE``), else escaped like any untrusted text."""
    return value if re.fullmatch(r"[A-Za-z][A-Za-z_]*", value or "") else md_inline(value)


@lru_cache(maxsize=1 << 16)  # pure; clause refs and names recur on every page
def _meta_text(text: str | None) -> str:
    """Untrusted text as a YAML value: one line, control characters made visible."""
    return printable(text or "", multiline=False)


def _num(value: float) -> str:
    return f"{value:g}"


def _page(meta: dict[str, Any], lines: Iterable[str]) -> bytes:
    body = "\n".join(lines).rstrip("\n") + "\n"
    return frontmatter_bytes(meta) + body.encode("utf-8", errors="replace")


_ENTRIES: dict[tuple[str, Any], bytes] = {}
_ENTRIES_MAX = 1 << 17
_PLAIN_KEY = re.compile(r"[a-z][a-z_]*")


def _entry_key(key: str, value: Any) -> tuple[str, Any] | None:
    """A memo key that determines the YAML text of ``key: value`` exactly (types kept,
    floats by ``repr`` so ``0.0``/``-0.0`` and ``1``/``1.0``/``True`` never share), or
    None for values not worth or not safe to memoise."""
    kind = type(value)
    if kind is str or kind is int or kind is bool:
        return (key, (kind, value))
    if kind is float:
        return (key, (kind, repr(value)))
    if kind is list and all(type(x) is str for x in value):
        return (key, (kind, tuple(value)))
    if kind is dict and all(type(k) is str and type(v) is int for k, v in value.items()):
        return (key, (kind, tuple(sorted(value.items()))))
    return None


def frontmatter_bytes(meta: dict[str, Any]) -> bytes:
    """``dump_frontmatter(meta, "")`` (None values dropped) as UTF-8 bytes, the same
    bytes, faster: a block mapping with sorted keys is the concatenation of its entries
    each dumped alone (checked over every page of a 10k-case wiki), so entries seen
    before (``kind: decision``, ``verdict: IN_SCOPE``, a cited-clause list, ...) come
    from a memo and the rest are dumped together in one call and split at their keys."""
    items = sorted((k, v) for k, v in meta.items() if v is not None)
    if not items:
        return b"---\n---\n"
    parts: list[bytes | None] = []
    missing: dict[str, Any] = {}
    where: list[tuple[int, str, tuple[str, Any] | None]] = []
    for key, value in items:
        memo = _entry_key(key, value) if _PLAIN_KEY.fullmatch(key) else None
        got = _ENTRIES.get(memo) if memo is not None else None
        if got is None:
            missing[key] = value
            where.append((len(parts), key, memo))
        parts.append(got)
    if missing:
        text = dump_frontmatter(missing, "")[4:-4]  # without the two --- lines
        keys = [k for _, k, _ in where]
        if not all(_PLAIN_KEY.fullmatch(k) for k in keys):
            return dump_frontmatter(dict(items), "").encode("utf-8", errors="replace")
        starts: list[int] = []
        for k in keys:  # each entry starts on a line of its own with "key:"
            if not starts:
                at = 0 if text.startswith(k + ":") else -1
            else:
                at = text.find("\n" + k + ":", starts[-1]) + 1 or -1
            if at < 0:  # not the expected layout: no memo, one plain dump
                return dump_frontmatter(dict(items), "").encode("utf-8", errors="replace")
            starts.append(at)
        starts.append(len(text))
        if len(_ENTRIES) > _ENTRIES_MAX:
            _ENTRIES.clear()
        for n, (slot, _key, memo) in enumerate(where):
            entry = text[starts[n]:starts[n + 1]].encode("utf-8", errors="replace")
            parts[slot] = entry
            if memo is not None:
                _ENTRIES[memo] = entry
    return b"---\n" + b"".join(parts) + b"---\n"  # type: ignore[arg-type]


def _table(header: Sequence[str], rows: Iterable[Sequence[str]], align: str = "") -> list[str]:
    aligns = align or "l" * len(header)
    sep = ["---:" if a == "r" else "---" for a in aligns]
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(sep) + " |"]
    out.extend("| " + " | ".join(row) + " |" for row in rows)
    return out


# --- the model: the rows a render reads ----------------------------------------------------

@dataclass(frozen=True, slots=True)
class BriefDecision:
    """The fields of a frozen decision that the shared pages read."""

    verdict: str
    cited_clauses: tuple[str, ...]
    impacted_modules: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CaseBrief:
    """What ``index.md``, ``disputed.md``, contract and module pages read of a case
    (attribute names as in :class:`~etki.domain.CaseRecord`, so the page helpers take
    either). Equal briefs render equal rows."""

    case_id: str
    project_id: str
    title: str
    decision: BriefDecision
    ruling: RulingRecord | None

    @classmethod
    def of(cls, case: CaseRecord | CaseBrief) -> CaseBrief:
        """The brief of a full :class:`~etki.domain.CaseRecord` (a brief is returned as
        it is)."""
        if isinstance(case, CaseBrief):
            return case
        d = case.decision
        return cls(case.case_id, case.project_id, case.title,
                   BriefDecision(d.verdict, tuple(d.cited_clauses), tuple(d.impacted_modules)),
                   case.ruling)


_Key = tuple[str, str]  # (ruled_at, case_id): the order of every ruling list


def _key(case: CaseBrief) -> _Key:
    assert case.ruling is not None
    return (case.ruling.ruled_at, case.case_id)


def _insert(lst: list[_Key], key: _Key) -> None:
    bisect.insort_right(lst, key)


def _discard(lst: list[_Key], key: _Key) -> None:
    i = bisect.bisect_left(lst, key)
    if i < len(lst) and lst[i] == key:
        del lst[i]


class WikiModel:
    """The rows every shared page reads, kept sorted and indexed so that one case can be
    put or removed without re-reading the others, plus memoised rendered fragments
    (table rows per case, sections per clause) that a change of a case or clause
    invalidates. Pages rendered from it are byte-identical to a model built from scratch
    from the same rows (:meth:`build`), whatever order the cases were put in.

    ``project`` is fixed for the model's life: a changed project needs a new model
    (:meth:`with_project`). Not thread-safe (the projector holds the wiki lock)."""

    def __init__(self, project: Project) -> None:
        self.project = project
        clauses = project.clauses
        self.clauses: dict[str, ScopeClause] = {c.ref: c for c in clauses}
        self.clause_pos: dict[str, int] = {c.ref: i for i, c in enumerate(clauses)}
        self.contracts: dict[str, Contract] = {c.id: c for c in project.contracts}
        self.modules: dict[str, Module] = {m.id: m for m in project.modules}
        self.cases: dict[str, CaseBrief] = {}
        self.verdicts: Counter[str] = Counter()
        self.ruling_counts: Counter[str] = Counter()
        self.ruled: list[_Key] = []
        self.overrides: list[_Key] = []
        self.history: dict[str, list[_Key]] = {}          # cited ref -> keys (with repeats)
        self.refs_of: dict[str, set[str]] = {}            # contract id -> cited refs
        self.by_module: dict[str, list[_Key]] = {}        # module id -> keys
        self.disputed: set[str] = set()
        self.disputed_rev = 0   # bumped when the set of disputed refs changes
        self.overrides_rev = 0  # bumped when an override case is put or removed
        self._mem: dict[str, tuple[int, bool, tuple[str, ...]]] = {}
        self._rows: dict[tuple[int, str], str] = {}       # (depth, case id) -> table row
        self._drows: dict[str, str] = {}                  # case id -> disputed.md row
        self._plines: dict[str, str] = {}                 # case id -> index.md precedent line
        self._csec: dict[str, bytes] = {}                 # ref -> contract page section
        self._dsec: dict[str, bytes] = {}                 # ref -> disputed.md section
        self._sorted_contracts: list[str] | None = None
        self._sorted_modules: list[str] | None = None
        self._fm: dict[str, dict[str, tuple[Any, bytes]]] = {}  # page -> key -> YAML
        self._blocks: dict[str, tuple[Any, bytes]] = {}  # index.md / disputed.md lists

    @classmethod
    def build(cls, project: Project, cases: Iterable[CaseRecord | CaseBrief]) -> WikiModel:
        """A model of ``project`` holding ``cases`` (cases of other projects ignored)."""
        m = cls(project)
        for c in cases:
            if c.project_id == project.id:
                m.put(CaseBrief.of(c))
        return m

    def with_project(self, project: Project) -> WikiModel:
        """A new model of ``project`` holding this model's cases."""
        return WikiModel.build(project, self.cases.values())

    # --- lookups -------------------------------------------------------------------------

    def contract_of(self, ref: str) -> str:
        clause = self.clauses.get(ref)
        if clause is not None:
            return clause.contract_id
        return ref.split("#", 1)[0]

    def clause_label(self, ref: str) -> str:
        clause = self.clauses.get(ref)
        return f"{ref} — {clause.title}" if clause is not None else ref

    def clause_order(self, ref: str) -> tuple[int, tuple[str, str]]:
        return (self.clause_pos.get(ref, len(self.clause_pos)), sort_key(ref))

    def case_of(self, key: _Key) -> CaseBrief:
        return self.cases[key[1]]

    def memory(self, ref: str) -> tuple[int, bool, tuple[str, ...]]:
        """(precedent count, disputed, distinct rulings sorted) of a cited ref, exactly as
        :func:`etki.memory.clause_memory` counts them (a case citing a ref twice counts
        twice)."""
        got = self._mem.get(ref)
        if got is None:
            cases = [self.cases[k[1]] for k in self.history[ref]]
            rulings = {c.ruling.ruling for c in cases}  # type: ignore[union-attr]
            count = sum(1 for c in cases if c.ruling.is_override)  # type: ignore[union-attr]
            got = self._mem[ref] = (count, len(rulings) > 1, tuple(sorted(rulings)))
        return got

    def contract_ids(self) -> list[str]:
        """Contracts cited by ruled cases, sorted (:func:`etki.text.sort_key`)."""
        if self._sorted_contracts is None:
            self._sorted_contracts = sorted(self.refs_of, key=sort_key)
        return self._sorted_contracts

    def module_ids(self) -> list[str]:
        """Modules impacted by ruled cases, sorted (:func:`etki.text.sort_key`)."""
        if self._sorted_modules is None:
            self._sorted_modules = sorted(self.by_module, key=sort_key)
        return self._sorted_modules

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

    def _forget_fragments(self, case: CaseBrief) -> None:
        cid = case.case_id
        for depth in (0, 2):
            self._rows.pop((depth, cid), None)
        self._drows.pop(cid, None)
        self._plines.pop(cid, None)

    def _touch_ref(self, ref: str) -> None:
        self._mem.pop(ref, None)
        self._csec.pop(ref, None)
        self._dsec.pop(ref, None)
        now = ref in self.history and self.memory(ref)[1]
        if now != (ref in self.disputed):
            self.disputed_rev += 1
            if now:
                self.disputed.add(ref)
            else:
                self.disputed.discard(ref)

    def _add(self, case: CaseBrief) -> None:
        self._forget_fragments(case)
        self.cases[case.case_id] = case
        self.verdicts[case.decision.verdict] += 1
        if case.ruling is None:
            return
        key = _key(case)
        _insert(self.ruled, key)
        self.ruling_counts[case.ruling.ruling] += 1
        if case.ruling.is_override:
            _insert(self.overrides, key)
            self.overrides_rev += 1
        for ref in case.decision.cited_clauses:
            if ref not in self.history:
                self.history[ref] = []
                contract = self.contract_of(ref)
                if contract not in self.refs_of:
                    self.refs_of[contract] = set()
                    self._sorted_contracts = None
                self.refs_of[contract].add(ref)
            _insert(self.history[ref], key)
        for ref in dict.fromkeys(case.decision.cited_clauses):
            self._touch_ref(ref)
        for mod in dict.fromkeys(case.decision.impacted_modules):
            if mod not in self.by_module:
                self.by_module[mod] = []
                self._sorted_modules = None
            _insert(self.by_module[mod], key)

    def _drop(self, case: CaseBrief) -> None:
        self._forget_fragments(case)
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
            self.overrides_rev += 1
        for ref in case.decision.cited_clauses:
            _discard(self.history[ref], key)
        for ref in dict.fromkeys(case.decision.cited_clauses):
            if not self.history[ref]:
                del self.history[ref]
                contract = self.contract_of(ref)
                self.refs_of[contract].discard(ref)
                if not self.refs_of[contract]:
                    del self.refs_of[contract]
                    self._sorted_contracts = None
            self._touch_ref(ref)
        for mod in dict.fromkeys(case.decision.impacted_modules):
            _discard(self.by_module[mod], key)
            if not self.by_module[mod]:
                del self.by_module[mod]
                self._sorted_modules = None

    # --- memoised fragments ----------------------------------------------------------------

    def row(self, depth: int, case: CaseBrief) -> str:
        """The ruling-table row of ``case`` on a page ``depth`` folders deep."""
        got = self._rows.get((depth, case.case_id))
        if got is None:
            src = "x/" * depth
            r = case.ruling
            assert r is not None
            got = self._rows[(depth, case.case_id)] = "| " + " | ".join(
                [md_inline(r.ruled_at), _case_link(src, case, case.case_id),
                 md_inline(case.title), _word(r.ruling), _word(case.decision.verdict),
                 md_inline(r.reviewer)]) + " |"
        return got

    def frontmatter(self, page: str, meta: dict[str, Any]) -> bytes:
        """``dump_frontmatter(meta, "")`` as UTF-8 bytes. A block-style mapping with
        sorted keys is the concatenation of its entries, each dumped on its own, so each
        entry is memoised per page and re-dumped only when its value changed (compared
        with its type, so ``True`` and ``1`` never share an entry)."""
        entries = self._fm.setdefault(page, {})
        out = [b"---\n"]
        for key in sorted(k for k, v in meta.items() if v is not None):
            value = meta[key]
            token = _entry_key(key, value)
            got = entries.get(key)
            if token is None or got is None or got[0] != token:
                got = entries[key] = (token, frontmatter_bytes({key: value})[4:-4])
            out.append(got[1])
        out.append(b"---\n")
        return b"".join(out)


_Model = WikiModel  # the page renderers' name for it


def _case_link(src: str, case: CaseRecord | CaseBrief, text: str | None = None) -> str:
    label = md_inline(case.title if text is None else text) or md_inline(case.case_id)
    return f"[{label}]({_rel(src, decision_path(case))})"


_RULING_HEADER = ("ruled at", "case", "title", "ruling", "engine verdict", "reviewer")


def _table_head(header: Sequence[str], align: str = "") -> list[str]:
    return _table(header, (), align)


def _page_fm(m: WikiModel, page: str, meta: dict[str, Any],
             lines: Iterable[str | bytes]) -> bytes:
    """Like :func:`_page` (same bytes: UTF-8 encoding is per code point, so encoding the
    lines one by one and joining gives what encoding the joined text gives), with the
    frontmatter memoised in the model and lines that are already encoded fragments
    (``bytes``) used as they are."""
    parts = [x if isinstance(x, bytes) else x.encode("utf-8", errors="replace")
             for x in lines]
    while parts:  # "\n".join(parts).rstrip("\n"), without copying the whole body
        last = parts[-1].rstrip(b"\n")
        if last:
            parts[-1] = last
            break
        parts.pop()
    fm = m.frontmatter(page, meta)
    if not parts:
        return fm + b"\n"
    parts[0] = fm + parts[0]
    parts.append(b"")  # the one trailing newline
    return b"\n".join(parts)


# --- pages ------------------------------------------------------------------------------------

def _decision_page(m: _Model, case: CaseRecord) -> bytes:
    r = case.ruling
    assert r is not None
    d = case.decision
    here = decision_path(case)
    meta: dict[str, Any] = {
        "kind": "decision",
        "case_id": _meta_text(case.case_id),
        "request_id": _meta_text(case.request_id),
        "title": _meta_text(case.title),
        "project": _meta_text(case.project_id),
        "submitted_by": _meta_text(case.submitted_by) if case.submitted_by else None,
        "submitted_at": _meta_text(case.submitted_at) if case.submitted_at else None,
        "verdict": d.verdict,
        "ruling": r.ruling,
        "action": r.action,
        "reviewer": _meta_text(r.reviewer),
        "ruled_at": _meta_text(r.ruled_at),
        "override": r.is_override,
        "confidence": d.confidence,
        "cited_clauses": [_meta_text(ref) for ref in d.cited_clauses],
        "impacted_modules": [_meta_text(mod) for mod in d.impacted_modules],
        "effort": d.effort.label(),
        "risk": d.risk.level,
        "engine_version": _meta_text(d.engine_version),
        "model_version": _meta_text(d.model_version),
        "index_freshness": _meta_text(d.index_freshness),
    }
    if r.is_override:
        meta["precedent"] = precedent_path(case)
    lines = [f"# {md_inline(case.title) or md_inline(case.case_id)}", ""]
    lines += [
        f"- **Case:** {md_inline(case.case_id)} (request {md_inline(case.request_id)})",
        (f"- **Ruling:** {_word(r.ruling)} ({_word(r.action)}) by {md_inline(r.reviewer)}, "
        f"{md_inline(r.ruled_at)}"),
        f"- **Engine verdict:** {_word(d.verdict)}, confidence {d.confidence:.2f}",
    ]
    if r.is_override:
        pre = precedent_path(case)
        lines.append(f"- **Override:** yes, a precedent: "
                     f"[{md_inline(pre.rsplit('/', 1)[1][:-3])}]({_rel(here, pre)})")
    else:
        lines.append("- **Override:** no")
    lines += ["", "## Request", ""]
    who = []
    if case.submitted_by:
        who.append(f"by {md_inline(case.submitted_by)}")
    if case.submitted_at:
        who.append(f"on {md_inline(case.submitted_at)}")
    if who:
        lines += ["Submitted " + " ".join(who) + ".", ""]
    lines += [md_block(case.text), ""]
    lines += ["## Ruling", "",
              (f"**{_word(r.ruling)}** ({_word(r.action)}) by {md_inline(r.reviewer)}, "
               f"{md_inline(r.ruled_at)}.")]
    if r.is_override:
        lines += ["", f"This overrides the engine's verdict **{_word(d.verdict)}**."]
    lines += ["", "Reason:", ""]
    lines += [md_block(r.reason) if r.reason.strip() else "No reason given.", ""]
    lines += ["## Engine decision", "",
              f"Verdict **{_word(d.verdict)}** with confidence {d.confidence:.2f}.", ""]
    if d.reasoning.strip():
        lines += [md_paragraphs(d.reasoning), ""]
    lines += _cited_clause_lines(m, here, d.cited_clauses)
    lines += ["## Impacted modules", ""]
    if d.impacted_modules:
        for mod in d.impacted_modules:
            module = m.modules.get(mod)
            summary = f" — {md_inline(module.summary)}" if module and module.summary else ""
            lines.append(f"- [{md_inline(mod)}]({_rel(here, module_path(mod))}){summary}")
    else:
        lines.append("None.")
    lines += ["", "## Effort", "", md_inline(d.effort.label())
              + (f" (from {', '.join(md_inline(b) for b in d.effort.basis)})"
                 if d.effort.basis else ""), ""]
    signals = ", ".join(md_inline(s) for s in d.risk.signals) or "none"
    lines += ["## Risk", "", (f"Level {md_inline(d.risk.level)}; signals: {signals}; "
              f"24h PMO look: {'yes' if d.risk.pmo_look_24h else 'no'}."), ""]
    lines += ["## Assumptions", ""]
    lines += [f"- {md_inline(a)}" for a in d.assumptions] or ["None."]
    lines += ["", "## Evidence chain", ""]
    for i, step in enumerate(d.evidence, 1):
        lines.append(f"{i}. **{md_inline(step.step)}** — {md_inline(step.detail)}")
        lines += [f"   - {md_inline(name)}: {_num(value)}" for name, value in step.scores]
    if not d.evidence:
        lines.append("None recorded.")
    lines += ["", "## Provenance", "",
              f"- Engine version: {md_inline(d.engine_version)}",
              f"- Model version: {md_inline(d.model_version)}",
              f"- Index freshness: {md_inline(d.index_freshness)}"]
    return _page(meta, lines)


def _cited_clause_lines(m: _Model, here: str, refs: Sequence[str]) -> list[str]:
    lines = ["## Cited clauses", ""]
    for ref in refs:
        clause = m.clauses.get(ref)
        kind = f" ({clause.kind})" if clause is not None else " (not in the current contract)"
        if clause is not None and is_declared_remit(clause):
            kind = f" ({clause.kind}, the PMO's declared remit in etki.yaml)"
        lines.append(f"- [{md_inline(m.clause_label(ref))}]"
                     f"({_rel(here, contract_path(m.contract_of(ref)))}){kind}")
    if not refs:
        lines.append("None.")
    return [*lines, ""]


def _precedent_page(m: _Model, case: CaseRecord) -> bytes:
    r = case.ruling
    assert r is not None
    d = case.decision
    here = precedent_path(case)
    meta: dict[str, Any] = {
        "kind": "precedent",
        "case_id": _meta_text(case.case_id),
        "title": _meta_text(case.title),
        "project": _meta_text(case.project_id),
        "verdict": d.verdict,
        "ruling": r.ruling,
        "reviewer": _meta_text(r.reviewer),
        "ruled_at": _meta_text(r.ruled_at),
        "reason": printable(r.reason),
        "cited_clauses": [_meta_text(ref) for ref in d.cited_clauses],
        "impacted_modules": [_meta_text(mod) for mod in d.impacted_modules],
        "decision": decision_path(case),
    }
    lines = [f"# Precedent: {md_inline(case.title) or md_inline(case.case_id)}", "",
             (f"The engine proposed **{_word(d.verdict)}** (confidence {d.confidence:.2f}); "
             f"{md_inline(r.reviewer)} ruled **{_word(r.ruling)}** ({_word(r.action)}) on "
             f"{md_inline(r.ruled_at)}."), "",
             f"Decision page: {_case_link(here, case, case.case_id)}", "",
             "## Reason", "",
             md_block(r.reason) if r.reason.strip() else "No reason given.", "",
             "## Request", "", md_block(case.text), ""]
    lines += _cited_clause_lines(m, here, d.cited_clauses)
    return _page(meta, lines)


def _contract_section(m: WikiModel, ref: str) -> bytes:
    got = m._csec.get(ref)
    if got is None:
        clause = m.clauses.get(ref)
        count, disputed, _ = m.memory(ref)
        lines = [f"## {md_inline(m.clause_label(ref))}", ""]
        kind = clause.kind if clause is not None else "not in the current contract"
        flag = "**DISPUTED**" if disputed else "not disputed"
        remit = clause is not None and is_declared_remit(clause)
        if remit:
            assert clause is not None
            side = "out" if clause.kind == "exclusion" else "in"
            lines += [(f"Declared remit: a statement the PMO wrote in etki.yaml "
                       f"(scope.{side}, line {clause.line}), not contract text."), ""]
        lines += [f"Kind {md_inline(kind)}; precedents {count}; {flag}.", ""]
        if clause is not None and clause.text.strip():
            # a remit statement is plain text; a contract clause is shown in its display
            # form (issue 12 item 1): reflowed, no HTML, links as their words, escaped
            from etki.wiki.clauses import clause_markdown  # imports this module

            shown = md_block(clause.text) if remit else clause_markdown(clause.text)
            lines += [shown, ""] if shown else []
        lines += _table_head(_RULING_HEADER)
        lines += [m.row(2, m.case_of(k)) for k in m.history[ref]]
        lines.append("")
        got = m._csec[ref] = "\n".join(lines).encode("utf-8", errors="replace")
    return got


def _contract_page(m: WikiModel, contract_id: str) -> bytes:
    here = contract_path(contract_id)
    contract = m.contracts.get(contract_id)
    refs = sorted(m.refs_of.get(contract_id, ()), key=m.clause_order)
    title = contract.title if contract is not None else contract_id
    meta: dict[str, Any] = {
        "kind": "contract",
        "contract_id": _meta_text(contract_id),
        "title": _meta_text(title),
        "project": _meta_text(m.project.id),
        "cited_clauses": [_meta_text(ref) for ref in refs],
        "disputed": [_meta_text(ref) for ref in refs if m.memory(ref)[1]],
        "decisions": len({k[1] for ref in refs for k in m.history[ref]}),
    }
    intro = (f"Contract id {md_inline(contract_id)}."
             + ("" if contract is not None else " It is not in the current project."))
    if contract_id == REMIT_CONTRACT_ID:
        intro = ("Contract id etki.yaml: the PMO's declared remit, the scope statements of "
                 "etki.yaml (in: declared in scope; out: declared outside the contractor's "
                 "remit). They are plain text and cited like clauses."
                 + ("" if contract is not None else " etki.yaml declares none now."))
    lines: list[str | bytes] = [f"# Contract: {md_inline(title)}", "", intro, "",
             ("Clauses cited by ruled cases, in contract order, with the decisions citing "
             "them (oldest ruling first)."), ""]
    lines += [_contract_section(m, ref) for ref in refs]
    return _page_fm(m, here, meta, lines)


def _module_page(m: WikiModel, module_id: str) -> bytes:
    module = m.modules.get(module_id)
    keys = m.by_module.get(module_id, [])
    meta: dict[str, Any] = {
        "kind": "module",
        "module_id": _meta_text(module_id),
        "title": _meta_text(module_id),
        "project": _meta_text(m.project.id),
        "path": _meta_text(module.path) if module is not None else None,
        "depends_on": sorted((_meta_text(x) for x in module.depends_on), key=sort_key)
        if module is not None else [],
        "decisions": len(keys),
    }
    lines = [f"# Module: {md_inline(module_id)}", ""]
    if module is None:
        lines += ["It is not in the current project's module list.", ""]
    else:
        if module.summary.strip():
            lines += [md_inline(module.summary), ""]
        if module.path:
            lines += [f"- **Path:** {md_inline(module.path)}"]
        deps = ", ".join(md_inline(x) for x in sorted(module.depends_on, key=sort_key))
        lines += [f"- **Depends on:** {deps or 'nothing'}", ""]
    lines += ["## Decisions", "", "Ruled cases that impact this module, oldest ruling first.", ""]
    lines += _table_head(_RULING_HEADER)
    lines += [m.row(2, m.case_of(k)) for k in keys]
    return _page(meta, lines)


def _disputed_row(m: WikiModel, case: CaseBrief) -> str:
    """One ruling of a disputed clause's history: a list item of short lines, ``-
    **RULING** by reviewer, ruled-at:`` / the request's title / ``(case [case-id](decision
    page))``, so ``disputed.md`` reads at 80 columns in a terminal, and a viewer shows one
    sentence reflowed to its width (a five-column table did not, issue 12 item 7)."""
    got = m._drows.get(case.case_id)
    if got is None:
        r = case.ruling
        assert r is not None
        lines = [f"- **{_word(r.ruling)}** by {md_inline(r.reviewer)}, {md_inline(r.ruled_at)}:"]
        if title := md_inline(case.title):
            lines.append(f"  {title}")
        lines.append(f"  (case {_case_link(DISPUTED, case, case.case_id)})")
        got = m._drows[case.case_id] = "\n".join(lines)
    return got


def _disputed_section(m: WikiModel, ref: str) -> bytes:
    got = m._dsec.get(ref)
    if got is None:
        contract_id = m.contract_of(ref)
        rulings = m.memory(ref)[2]
        lines = [f"## {md_inline(m.clause_label(ref))}", "",
                 f"Contract [{md_inline(contract_id)}]({contract_path(contract_id)});",
                 f"rulings {', '.join(_word(x) for x in rulings)}.", ""]
        lines += [_disputed_row(m, m.case_of(k)) for k in m.history[ref]]
        lines.append("")
        got = m._dsec[ref] = "\n".join(lines).encode("utf-8", errors="replace")
    return got


def _disputed_page(m: WikiModel) -> bytes:
    got = m._blocks.get("disputed")
    if got is None or got[0] != m.disputed_rev:
        refs = sorted(m.disputed)
        got = m._blocks["disputed"] = (m.disputed_rev, (refs, [_meta_text(r) for r in refs]))  # type: ignore[assignment]
    disputed, names = got[1]  # type: ignore[misc]
    dsec = m._dsec
    meta: dict[str, Any] = {
        "kind": "disputed",
        "title": "Disputed clauses",
        "project": _meta_text(m.project.id),
        "count": len(disputed),
        "clauses": names,
    }
    lines: list[str | bytes] = ["# Disputed clauses", "",
             "Clauses cited by ruled cases whose rulings disagree, with their ruling",
             "history (oldest first). Computed from the database.", ""]
    if not disputed:
        lines.append("No disputed clauses.")
    lines += [dsec.get(ref) or _disputed_section(m, ref) for ref in disputed]
    return _page_fm(m, DISPUTED, meta, lines)


def _precedent_line(m: WikiModel, c: CaseBrief) -> str:
    got = m._plines.get(c.case_id)
    if got is None:
        got = m._plines[c.case_id] = (
            f"- [{md_inline(c.title) or md_inline(c.case_id)}]({precedent_path(c)}) — "
            f"{_word(c.decision.verdict)} → {_word(c.ruling.ruling)}")  # type: ignore[union-attr]
    return got


def _entity_blocks(m: WikiModel) -> tuple[bytes, bytes]:
    """The ``## Contracts`` and ``## Modules`` lists of ``index.md`` (memoised while the
    sets of cited contracts and impacted modules stay the same)."""
    contract_ids, module_ids = m.contract_ids(), m.module_ids()
    got = m._blocks.get("entities")
    if got is not None and got[0][0] is contract_ids and got[0][1] is module_ids:
        return got[1]  # type: ignore[return-value]
    contracts = "\n".join(
        [f"- [{md_inline(m.contracts[x].title if x in m.contracts else x)}]"
         f"({contract_path(x)})" for x in contract_ids] or ["None cited yet."]
    ).encode("utf-8", errors="replace")
    modules = "\n".join([f"- [{md_inline(x)}]({module_path(x)})" for x in module_ids]
                        or ["None yet."]).encode("utf-8", errors="replace")
    m._blocks["entities"] = ((contract_ids, module_ids), (contracts, modules))  # type: ignore[assignment]
    return contracts, modules


def _index_page(m: WikiModel) -> bytes:
    n_cases, n_ruled = len(m.cases), len(m.ruled)
    overrides = m.overrides
    verdicts, rulings = m.verdicts, m.ruling_counts
    order = list(VERDICTS) + sorted((set(verdicts) | set(rulings)) - set(VERDICTS))
    meta: dict[str, Any] = {
        "kind": "index",
        "title": _meta_text(m.project.config.name),
        "project": _meta_text(m.project.id),
        "cases": n_cases,
        "pending": n_cases - n_ruled,
        "ruled": n_ruled,
        "rulings": n_ruled,
        "overrides": len(overrides),
        "precedents": len(overrides),
        "disputed_clauses": len(m.disputed),
        "verdicts": {v: verdicts.get(v, 0) for v in order},
        "ruling_counts": {v: rulings.get(v, 0) for v in order},
    }
    lines: list[str | bytes] = [f"# {md_inline(m.project.config.name)} — decision wiki", "",
             (f"Project {md_inline(m.project.id)}. Every page here is a projection of the "
             "database; it is rewritten on each ruling and by `python -m etki.wiki rebuild`."),
             "", "## Counts", ""]
    lines += _table(("measure", "count"), [
        ("cases", str(n_cases)), ("pending", str(n_cases - n_ruled)),
        ("ruled", str(n_ruled)), ("overrides (precedents)", str(len(overrides))),
        ("disputed clauses", f"[{len(m.disputed)}]({DISPUTED})"),
    ], "lr")
    lines += ["", "## Verdict distribution", ""]
    lines += _table(("verdict", "engine verdicts", "rulings"),
                    [(_word(v), str(verdicts.get(v, 0)), str(rulings.get(v, 0)))
                     for v in order],
                    "lrr")
    lines += ["", f"## Last {LAST_RULINGS} rulings", "", "Newest first.", ""]
    newest = [m.case_of(k) for k in reversed(m.ruled[-LAST_RULINGS:])]
    if newest:
        lines += _table_head(_RULING_HEADER) + [m.row(0, c) for c in newest]
    else:
        lines.append("No rulings yet.")
    lines += ["", "## Precedents", ""]
    got = m._blocks.get("precedents")
    if got is None or got[0] != m.overrides_rev:
        got = m._blocks["precedents"] = (m.overrides_rev, "\n".join(
            [_precedent_line(m, m.case_of(k)) for k in m.overrides] or ["None yet."]
        ).encode("utf-8", errors="replace"))
    lines.append(got[1])
    contracts, modules = _entity_blocks(m)
    lines += ["", "## Contracts", "", contracts]
    lines += ["", "## Modules", "", modules]
    return _page_fm(m, INDEX, meta, lines)


# --- public entry points -----------------------------------------------------------------------

def _check_unique(files: dict[str, bytes], path: str, owner: str) -> None:
    if path in files:
        raise ValueError(f"two wiki pages map to {path} (second: {owner}); "
                         "entity ids must be distinct")


def _case_pages(m: WikiModel, case: CaseRecord, files: dict[str, bytes]) -> None:
    files[decision_path(case)] = _decision_page(m, case)
    if case.ruling is not None and case.ruling.is_override:
        files[precedent_path(case)] = _precedent_page(m, case)


def render_wiki(project: Project, cases: Sequence[CaseRecord]) -> dict[str, bytes]:
    """Render the whole wiki tree of ``project``.

    ``cases`` are the project's stored cases in any order (cases of other projects are
    ignored). Returns ``{wiki-relative POSIX path: page bytes}``; the same rows give the
    same bytes. Raises ``ValueError`` only if two entity ids map to one file name.
    """
    return render_model(WikiModel.build(project, cases),
                        [c for c in cases if c.project_id == project.id])


def render_model(m: WikiModel, cases: Iterable[CaseRecord]) -> dict[str, bytes]:
    """The whole wiki tree of the model ``m``; ``cases`` are the full records of its ruled
    cases (for the decision and precedent pages; pending cases and cases ``m`` does not
    hold are skipped). Same bytes as :func:`render_wiki` of the same rows. Raises
    ``ValueError`` when two entity ids map to one file name."""
    files: dict[str, bytes] = {INDEX: _index_page(m), DISPUTED: _disputed_page(m)}
    for c in cases:
        if c.ruling is not None and c.case_id in m.cases:
            _case_pages(m, c, files)
    for x in m.contract_ids():
        _check_unique(files, contract_path(x), x)
        files[contract_path(x)] = _contract_page(m, x)
    for x in m.module_ids():
        _check_unique(files, module_path(x), x)
        files[module_path(x)] = _module_page(m, x)
    return dict(sorted(files.items()))


def render_changed(m: WikiModel, cases: Iterable[CaseRecord],
                   touched: Iterable[CaseBrief]) -> dict[str, bytes]:
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
    for x in sorted(contracts):
        if x in m.refs_of:
            files[contract_path(x)] = _contract_page(m, x)
    for x in sorted(modules):
        if x in m.by_module:
            files[module_path(x)] = _module_page(m, x)
    return dict(sorted(files.items()))


def render_case_pages(project: Project, cases: Sequence[CaseRecord],
                      case_id: str) -> dict[str, bytes]:
    """The pages a ruling on ``case_id`` can change: its decision page, its precedent page
    (override), the contract pages of its cited clauses, the module pages of its
    impacted modules, ``disputed.md`` and ``index.md``. Each is byte-identical to the
    same path in :func:`render_wiki` of the same rows. A pending or unknown case gives
    only ``index.md`` and ``disputed.md``."""
    m = WikiModel.build(project, cases)
    case = next((c for c in cases if c.case_id == case_id and c.project_id == project.id
                 and c.ruling is not None), None)
    if case is None:
        return render_changed(m, [], [])
    return render_changed(m, [case], [CaseBrief.of(case)])
