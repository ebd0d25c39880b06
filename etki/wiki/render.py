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
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

from etki.domain import VERDICTS, CaseRecord, ClauseMemory, Contract, Module, Project, ScopeClause
from etki.frontmatter import dump_frontmatter
from etki.memory import clause_memory, disputed_clauses, precedents
from etki.text import printable, slugify, sort_key

__all__ = [
    "DISPUTED",
    "INDEX",
    "LAST_RULINGS",
    "NAME_MAX_BYTES",
    "OWNED_DIRS",
    "case_slug",
    "contract_path",
    "decision_path",
    "entity_name",
    "md_block",
    "md_inline",
    "module_path",
    "page_kind",
    "precedent_path",
    "render_case_pages",
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


def _meta_text(text: str | None) -> str:
    """Untrusted text as a YAML value: one line, control characters made visible."""
    return printable(text or "", multiline=False)


def _num(value: float) -> str:
    return f"{value:g}"


def _page(meta: dict[str, Any], lines: Iterable[str]) -> bytes:
    body = "\n".join(lines).rstrip("\n") + "\n"
    text = dump_frontmatter({k: v for k, v in meta.items() if v is not None}, body)
    return text.encode("utf-8", errors="replace")


def _table(header: Sequence[str], rows: Iterable[Sequence[str]], align: str = "") -> list[str]:
    aligns = align or "l" * len(header)
    sep = ["---:" if a == "r" else "---" for a in aligns]
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(sep) + " |"]
    out.extend("| " + " | ".join(row) + " |" for row in rows)
    return out


# --- the model: the rows a render reads ----------------------------------------------------

@dataclass(frozen=True)
class _Model:
    project: Project
    cases: tuple[CaseRecord, ...]        # every case, by case id
    ruled: tuple[CaseRecord, ...]        # ruled cases, oldest ruling first
    clauses: dict[str, ScopeClause]
    clause_pos: dict[str, int]
    contracts: dict[str, Contract]
    modules: dict[str, Module]
    memory: dict[str, ClauseMemory]

    @classmethod
    def build(cls, project: Project, cases: Iterable[CaseRecord]) -> _Model:
        own = sorted((c for c in cases if c.project_id == project.id), key=lambda c: c.case_id)
        ruled = sorted((c for c in own if c.ruling is not None),
                       key=lambda c: (c.ruling.ruled_at, c.case_id))  # type: ignore[union-attr]
        clauses = project.clauses
        return cls(
            project=project, cases=tuple(own), ruled=tuple(ruled),
            clauses={c.ref: c for c in clauses},
            clause_pos={c.ref: i for i, c in enumerate(clauses)},
            contracts={c.id: c for c in project.contracts},
            modules={m.id: m for m in project.modules},
            memory=clause_memory(ruled),
        )

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

    @cached_property
    def by_module(self) -> dict[str, list[CaseRecord]]:
        """Module id -> the ruled cases impacting it, oldest ruling first (one pass over
        the cases, instead of one per module page)."""
        out: dict[str, list[CaseRecord]] = {}
        for c in self.ruled:
            for mod in dict.fromkeys(c.decision.impacted_modules):
                out.setdefault(mod, []).append(c)
        return out

    @cached_property
    def by_contract(self) -> dict[str, dict[str, list[CaseRecord]]]:
        """Contract id -> {cited ref -> the ruled cases citing it, oldest ruling first}."""
        out: dict[str, dict[str, list[CaseRecord]]] = {}
        for c in self.ruled:
            for ref in c.decision.cited_clauses:
                out.setdefault(self.contract_of(ref), {}).setdefault(ref, []).append(c)
        return out


def _case_link(src: str, case: CaseRecord, text: str | None = None) -> str:
    label = md_inline(case.title if text is None else text) or md_inline(case.case_id)
    return f"[{label}]({_rel(src, decision_path(case))})"


def _ruling_rows(src: str, cases: Iterable[CaseRecord]) -> list[list[str]]:
    rows = []
    for c in cases:
        r = c.ruling
        assert r is not None
        rows.append([md_inline(r.ruled_at), _case_link(src, c, c.case_id), md_inline(c.title),
                     _word(r.ruling), _word(c.decision.verdict), md_inline(r.reviewer)])
    return rows


_RULING_HEADER = ("ruled at", "case", "title", "ruling", "engine verdict", "reviewer")


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


def _contract_page(m: _Model, contract_id: str) -> bytes:
    here = contract_path(contract_id)
    contract = m.contracts.get(contract_id)
    cited: dict[str, list[CaseRecord]] = m.by_contract.get(contract_id, {})
    refs = sorted(cited, key=m.clause_order)
    title = contract.title if contract is not None else contract_id
    meta: dict[str, Any] = {
        "kind": "contract",
        "contract_id": _meta_text(contract_id),
        "title": _meta_text(title),
        "project": _meta_text(m.project.id),
        "cited_clauses": [_meta_text(ref) for ref in refs],
        "disputed": [_meta_text(ref) for ref in refs if m.memory[ref].disputed],
        "decisions": len({c.case_id for cs in cited.values() for c in cs}),
    }
    lines = [f"# Contract: {md_inline(title)}", "",
             f"Contract id {md_inline(contract_id)}."
             + ("" if contract is not None else " It is not in the current project."), "",
             ("Clauses cited by ruled cases, in contract order, with the decisions citing "
             "them (oldest ruling first)."), ""]
    for ref in refs:
        clause = m.clauses.get(ref)
        mem = m.memory[ref]
        lines += [f"## {md_inline(m.clause_label(ref))}", ""]
        kind = clause.kind if clause is not None else "not in the current contract"
        flag = "⚠ DISPUTED" if mem.disputed else "not disputed"
        lines += [f"Kind {md_inline(kind)}; precedents {mem.precedent_count}; {flag}.", ""]
        if clause is not None and clause.text.strip():
            lines += [md_block(clause.text, "markdown"), ""]
        lines += _table(_RULING_HEADER, _ruling_rows(here, cited[ref])) + [""]
    return _page(meta, lines)


def _module_page(m: _Model, module_id: str) -> bytes:
    here = module_path(module_id)
    module = m.modules.get(module_id)
    cases = m.by_module.get(module_id, [])
    meta: dict[str, Any] = {
        "kind": "module",
        "module_id": _meta_text(module_id),
        "title": _meta_text(module_id),
        "project": _meta_text(m.project.id),
        "path": _meta_text(module.path) if module is not None else None,
        "depends_on": sorted((_meta_text(x) for x in module.depends_on), key=sort_key)
        if module is not None else [],
        "decisions": len(cases),
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
    lines += _table(_RULING_HEADER, _ruling_rows(here, cases))
    return _page(meta, lines)


def _disputed_page(m: _Model) -> bytes:
    disputed = disputed_clauses(m.ruled)
    by_id = {c.case_id: c for c in m.ruled}
    meta: dict[str, Any] = {
        "kind": "disputed",
        "title": "Disputed clauses",
        "project": _meta_text(m.project.id),
        "count": len(disputed),
        "clauses": [_meta_text(d.ref) for d in disputed],
    }
    lines = ["# Disputed clauses", "",
             ("Clauses cited by ruled cases whose rulings disagree, with their ruling "
             "history (oldest first). Computed from the database."), ""]
    if not disputed:
        lines.append("No disputed clauses.")
    for item in disputed:
        contract_id = m.contract_of(item.ref)
        lines += [f"## ⚠ {md_inline(m.clause_label(item.ref))}", "",
                  (f"Contract [{md_inline(contract_id)}]({contract_path(contract_id)}); "
                  f"rulings {', '.join(_word(x) for x in item.rulings)}."), ""]
        rows = []
        for case_id, ruling, reviewer, ruled_at in item.history:
            case = by_id[case_id]
            rows.append([md_inline(ruled_at), _case_link(DISPUTED, case, case_id),
                         md_inline(case.title), _word(ruling), md_inline(reviewer)])
        lines += _table(("ruled at", "case", "title", "ruling", "reviewer"), rows) + [""]
    return _page(meta, lines)


def _index_page(m: _Model) -> bytes:
    ruled = m.ruled
    overrides = precedents(ruled)
    disputed = [ref for ref, mem in m.memory.items() if mem.disputed]
    verdicts = Counter(c.decision.verdict for c in m.cases)
    rulings = Counter(c.ruling.ruling for c in ruled if c.ruling is not None)
    order = list(VERDICTS) + sorted((set(verdicts) | set(rulings)) - set(VERDICTS))
    meta: dict[str, Any] = {
        "kind": "index",
        "title": _meta_text(m.project.config.name),
        "project": _meta_text(m.project.id),
        "cases": len(m.cases),
        "pending": len(m.cases) - len(ruled),
        "ruled": len(ruled),
        "rulings": len(ruled),
        "overrides": len(overrides),
        "precedents": len(overrides),
        "disputed_clauses": len(disputed),
        "verdicts": {v: verdicts.get(v, 0) for v in order},
        "ruling_counts": {v: rulings.get(v, 0) for v in order},
    }
    lines = [f"# {md_inline(m.project.config.name)} — decision wiki", "",
             (f"Project {md_inline(m.project.id)}. Every page here is a projection of the "
             "database; it is rewritten on each ruling and by `python -m etki.wiki rebuild`."),
             "", "## Counts", ""]
    lines += _table(("measure", "count"), [
        ("cases", str(len(m.cases))), ("pending", str(len(m.cases) - len(ruled))),
        ("ruled", str(len(ruled))), ("overrides (precedents)", str(len(overrides))),
        ("disputed clauses", f"[{len(disputed)}]({DISPUTED})"),
    ], "lr")
    lines += ["", "## Verdict distribution", ""]
    lines += _table(("verdict", "engine verdicts", "rulings"),
                    [(_word(v), str(verdicts.get(v, 0)), str(rulings.get(v, 0)))
                     for v in order],
                    "lrr")
    lines += ["", f"## Last {LAST_RULINGS} rulings", "", "Newest first.", ""]
    newest = sorted(ruled, key=lambda c: (c.ruling.ruled_at, c.case_id),  # type: ignore[union-attr]
                    reverse=True)[:LAST_RULINGS]
    if newest:
        lines += _table(_RULING_HEADER, _ruling_rows(INDEX, newest))
    else:
        lines.append("No rulings yet.")
    lines += ["", "## Precedents", ""]
    lines += [f"- [{md_inline(c.title) or md_inline(c.case_id)}]({precedent_path(c)}) — "
              f"{_word(c.decision.verdict)} → {_word(c.ruling.ruling)}"  # type: ignore[union-attr]
              for c in overrides] or ["None yet."]
    contract_ids, module_ids = _entities(m)
    lines += ["", "## Contracts", ""]
    lines += [f"- [{md_inline(m.contracts[x].title if x in m.contracts else x)}]"
              f"({contract_path(x)})" for x in contract_ids] or ["None cited yet."]
    lines += ["", "## Modules", ""]
    lines += [f"- [{md_inline(x)}]({module_path(x)})" for x in module_ids] or ["None yet."]
    return _page(meta, lines)


def _entities(m: _Model, cases: Iterable[CaseRecord] | None = None) -> tuple[list[str], list[str]]:
    """Sorted contract ids and module ids of the given ruled cases (default: all)."""
    contracts: set[str] = set()
    modules: set[str] = set()
    for c in m.ruled if cases is None else cases:
        contracts.update(m.contract_of(ref) for ref in c.decision.cited_clauses)
        modules.update(c.decision.impacted_modules)
    return sorted(contracts, key=sort_key), sorted(modules, key=sort_key)


# --- public entry points -----------------------------------------------------------------------

def _check_unique(files: dict[str, bytes], path: str, owner: str) -> None:
    if path in files:
        raise ValueError(f"two wiki pages map to {path} (second: {owner}); "
                         "entity ids must be distinct")


def render_wiki(project: Project, cases: Sequence[CaseRecord]) -> dict[str, bytes]:
    """Render the whole wiki tree of ``project``.

    ``cases`` are the project's stored cases in any order (cases of other projects are
    ignored). Returns ``{wiki-relative POSIX path: page bytes}``; the same rows give the
    same bytes. Raises ``ValueError`` only if two entity ids map to one file name.
    """
    m = _Model.build(project, cases)
    files: dict[str, bytes] = {INDEX: _index_page(m), DISPUTED: _disputed_page(m)}
    for c in m.ruled:
        files[decision_path(c)] = _decision_page(m, c)
        if c.ruling is not None and c.ruling.is_override:
            files[precedent_path(c)] = _precedent_page(m, c)
    contract_ids, module_ids = _entities(m)
    for x in contract_ids:
        _check_unique(files, contract_path(x), x)
        files[contract_path(x)] = _contract_page(m, x)
    for x in module_ids:
        _check_unique(files, module_path(x), x)
        files[module_path(x)] = _module_page(m, x)
    return dict(sorted(files.items()))


def render_case_pages(project: Project, cases: Sequence[CaseRecord],
                      case_id: str) -> dict[str, bytes]:
    """The pages a ruling on ``case_id`` can change: its decision page, its precedent page
    (override), the contract pages of its cited clauses, the module pages of its
    impacted modules, ``disputed.md`` and ``index.md``. Each is byte-identical to the
    same path in :func:`render_wiki` of the same rows. A pending or unknown case gives
    only ``index.md`` and ``disputed.md``."""
    m = _Model.build(project, cases)
    files: dict[str, bytes] = {INDEX: _index_page(m), DISPUTED: _disputed_page(m)}
    case = next((c for c in m.ruled if c.case_id == case_id), None)
    if case is not None:
        files[decision_path(case)] = _decision_page(m, case)
        if case.ruling is not None and case.ruling.is_override:
            files[precedent_path(case)] = _precedent_page(m, case)
        contract_ids, module_ids = _entities(m, [case])
        for x in contract_ids:
            files[contract_path(x)] = _contract_page(m, x)
        for x in module_ids:
            files[module_path(x)] = _module_page(m, x)
    return dict(sorted(files.items()))
