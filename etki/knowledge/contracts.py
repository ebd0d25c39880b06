"""Contracts: ``contracts/*.md`` -> :class:`etki.domain.Contract` with its scope clauses.

The document is parsed with markdown-it-py (:func:`etki.mdtext.parser.markdown_parser`)
and its structure is read from the token stream, never from regexes over the raw file:
headings inside code fences or indented code are not headings, ``#1 ...`` without a space
is a paragraph, setext underlines belong to their heading and appear in no clause body
(hostile case B19, pinned in ``tests/test_contracts.py``).

Real documents are messy (the tdrs engagement's RFQ), so besides
ATX and setext headings these also start a clause:

* a paragraph that is only a bold section number and title, ``**2.2 Expectations**``;
* a paragraph that opens with a bold section number, ``**7.2.1** The TTS Office ...``
  (the paragraph is the start of the clause body; the title is its first words);
* a one-line paragraph ``9.6.4 Phase 2 - Oral Interview`` right after an empty heading
  (a heading whose text was wrapped onto the next line), or standing alone;

the last three only when the number is a sub-number of a section already seen
(``2.2`` after ``2.0``) and not seen before, so cross-references are never headings;

* a numbered line underlined by a rule (``4. TASKS`` + ``-----``, or ``=====``), which
  CommonMark reads as a one-item ordered list and a thematic break (the talentmap
  engagement's contract): a section numbered by its list marker, see
  :meth:`_Parser.underlined`. Numbered list items of a body (``1.  The Contractor
  shall ...``) carry no underline and are never sections.

Headings without text are ignored; their content stays with the clause before them.

Clause numbers come from the heading text: a bare leading number (``1.``, ``2.1``,
``3.1.2``, ``A.1``) is removed from the title; a worded one (``Section 4``, ``Madde 3``,
``Artikel 2``, ``§ 5``) gives the number and stays in the title (``Madde 1 – Kapsam``).
Numbers of laws and standards are no section numbers (:func:`clause_number`): in a
document that numbers its headings with bare numbers a worded number is a citation
(``Section 508 Compliance``, ``§ 4 Haftung`` there), and so is one followed by a law's
name (``Article 5 GDPR``) or one above :data:`MAX_WORDED_SECTION`; ``ISO 27001`` or
``FAR 52.246-6`` never were numbers. Such a heading is an unnumbered one.
Without a number the title's slug stands for it. Refs are ``{contract_id}#{number}``,
unique per contract (a repeat gets ``-2``, ``-3`` in document order).

Numbered documents (issue 10 item 2; :func:`_fold_subheadings`): an unnumbered
sub-heading below a numbered section is no clause of its own: it is cited by that
section (``talentmap-pws#5``, not ``#key-personnel``), its heading line stays in the
section's markdown text and its title and line go to ``ScopeClause.subtitles``; chunks
of a long section record the sub-title they start under. The text before the first
numbered section (title page, addresses, response tables: the preamble, also when it
has headings of its own) is kind ``context``: it describes and does not oblige.
Documents without any numbered section keep one clause per heading with slug refs.

Each clause also has ``plain`` (:func:`etki.mdtext.plain.markdown_plain`): the
text without HTML, link targets, web addresses and markup, one line per block; the
index scores it.

An empty parent heading (nothing under it before its first child) is merged into that
child: the child keeps its number and line, its title carries the parent's title as
context (``Purpose and Background › Purpose``) and the parent's own heading links become
the child's explicit edges (the other children inherit them as usual).

Kind (:func:`clause_kind`): ``exclusion`` when the heading, its lead-in line (a short
first body line ending in ``:``) or any enclosing heading says so; else ``assumption``,
else ``sla`` in the same way; else ``inclusion``. Mixed headings (``Scope and
exclusions``) say nothing. Frontmatter ``title`` and ``kind`` act as the outermost
headings.

Chunking (:mod:`etki.knowledge.structure`, :mod:`etki.knowledge.chunking`): the structure
analyser picks ``by_heading`` or ``sliding_window`` per document from its section starts
and records its metrics on the contract. ``sliding_window`` clauses are windows of
:data:`WINDOW_BLOCKS` top-level blocks numbered ``w1``, ``w2`` ..., each after the first
carrying the block before it as ``overlap``. A clause longer than
:data:`etki.knowledge.chunking.MAX_CHUNK_CHARS` stays one clause (a ruling cites a
clause) and is also split, at block boundaries, into ``chunks``.

An empty parent merged into its child leaves its number (or, unnumbered, its title slug)
as an alias of the child (``tdrs-rfq#1.0`` -> ``tdrs-rfq#1.1``), so a reference to the
parent still resolves.

Edges: wikilinks in a clause's text are explicit edges; wikilinks in a heading are the
heading's own (explicit) edges and are inherited by every clause below it and by every
chunk of its own clause; frontmatter ``edges: [{type, target}]`` are inherited by every
clause and chunk of the document. A typed link ``[[depends_on::module:auth]]`` names its
type; untyped links get ``covers`` (module, or ``excludes`` from an exclusion clause),
``cites`` (clause) or ``relates_to``. Types are checked against the edge vocabulary;
every edge records where it was written (``contracts/msa.md:42``) and how.

Status (issue 4 item 6): frontmatter ``status: stable | draft`` applies to every clause
of the document; ``clause_status: {"4.9": draft}`` sets single clauses (a number that
names no clause is an error, never guessed).

Candidate pool (issue 4 item 7): frontmatter ``candidates: [{target, type?, source?}]``
and the links of a section headed "Unassigned edges" (:data:`POOL_HEADINGS`) are not
edges yet: they go to ``Contract.candidates`` for the validation gate of the index build
(:mod:`etki.knowledge.gate`); the pool section is no clause.

Blocks that swallow headings (issue 30 item 5; :mod:`etki.knowledge.blockfix`): an
HTML block not ended by a blank line, or an HTML block or code fence never closed, ends
before an ATX heading line inside it, and the heading is a clause; each such fallback,
and each heading left as text (inside a closed fence or comment, a blockquote or a list
item), is recorded on ``Contract.fallbacks`` as ``contracts/x.md:LINE: what``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from markdown_it.token import Token

from etki.domain import CLAUSE_KINDS, CLAUSE_STATUSES, ClauseChunk, Contract, Edge, ScopeClause
from etki.errors import ProjectFormatError, VocabularyError
from etki.frontmatter import frontmatter_block, locate, normalize_newlines, split_frontmatter
from etki.knowledge.blockfix import repair_blocks
from etki.knowledge.chunking import MAX_CHUNK_CHARS, WINDOW_BLOCKS, pack, visible_length, windows
from etki.knowledge.links import split_typed_target, written_wikilinks
from etki.knowledge.provenance import PROVENANCE_WEIGHTS
from etki.knowledge.structure import Structure, analyse_structure
from etki.knowledge.vocabulary import (
    DEFAULT_VOCABULARY,
    EdgeSignatureError,
    EdgeVocabulary,
    UnknownEdgeTypeError,
)
from etki.mdtext.parser import markdown_parser
from etki.mdtext.plain import markdown_plain
from etki.text import fold, slugify, words

__all__ = [
    "POOL_HEADINGS",
    "WINDOW_BLOCKS",
    "clause_kind",
    "clause_number",
    "heading_category",
    "link_target",
    "parse_contract",
    "parse_contract_text",
]

CONTEXT_SEPARATOR = " › "
_REVERSED_CANDIDATE = (
    "a candidate edge goes from a clause of this document: write its "
    "type from the clause's side ({1!r}, not {0!r})"
)
POOL_HEADINGS: frozenset[str] = frozenset(
    fold(name) for name in ("Unassigned edges", "Unzugeordnete Kanten", "Atanmamış bağlantılar")
)
"""Headings (folded) of the section holding a document's candidate edges."""

# --- clause numbers -------------------------------------------------------------------

_BARE_NUMBER = re.compile(r"^(?P<num>\d{1,3}(?:\.\d{1,3})*|[A-Z](?:\.\d{1,3})+)(?:\.|\))?(?=\s|$)")
_WORDED_NUMBER = re.compile(
    r"^(?:section|sect|clause|article|art|madde|bolum|kisim|abschnitt|artikel|ziffer"
    r"|paragraph|para|§)\.?\s*(?P<num>\d{1,3}(?:\.\d{1,3})*)(?:\.|\))?(?=\W|$)"
)
_LEADING_SEPARATOR = re.compile(r"^[\s\-–—:.]+")
_LAW_AFTER_NUMBER = re.compile(
    r"^\W*(?:(?:of(?: the)?|des|der|dem|sayili)\s+)?(?:gdpr|dsgvo|bdsg|bgb|hgb|uwg|stgb"
    r"|kvkk|tbk|ttk|hmk|far|dfars|cfr|usc|u\s?s\s?c|ucc)\b"
    r"|\bof the [\w\s]*\b(?:act|law|regulation|directive)\b|\bact of \d{4}\b"
)
"""After a worded number, the name of a law or standard: ``Article 5 GDPR``, ``§ 307
BGB``, ``Madde 6 KVKK``, ``Section 508 of the Rehabilitation Act``. Abbreviations of the
laws contracts commonly cite (EU GDPR/DSGVO, German BGB/HGB/BDSG/UWG/StGB, Turkish
KVKK/TBK/TTK/HMK, US FAR/DFARS/CFR/U.S.C./UCC)."""
MAX_WORDED_SECTION = 99
"""A worded number with one component above this is a citation: contracts rarely have
a hundred top-level sections, laws do (``Section 508``, ``§ 307 BGB``)."""


_MARKED_NUMBER = re.compile(r"^\d(?:[\d.]|\*{1,3}|_{1,3})*")


def _unmark_number(text: str) -> str:
    """``text`` with the emphasis markers removed from its leading number.

    CommonMark leaves ``**`` literal where it touches a digit on one side and a dot on
    the other, so a heading printed as bold in parts (``5**.0** TASKS``, ``6**.6.**4
    Delivery``, ``6**.0 OPERATIONAL REQUIREMENTS**``, all in the e-QIP PWS) reaches the
    parser with the asterisks in its number; rendered, the reader sees ``5.0``,
    ``6.6.4`` and ``6.0``. The markers are dropped from the number, and when the number
    held an odd count of marker runs (its partner closes the title), that same run is
    dropped from the end of the title. Text whose number holds no marker is returned
    as it is."""
    match = _MARKED_NUMBER.match(text)
    if match is None or not any(c in "*_" for c in match.group()):
        return text
    prefix, rest = match.group(), text[match.end() :]
    runs = re.findall(r"\*+|_+", prefix)
    if len(runs) % 2 and rest.endswith(runs[-1]):
        rest = rest[: -len(runs[-1])].rstrip()
    return re.sub(r"[*_]", "", prefix) + rest


def clause_number(heading: str, *, worded: bool = True) -> tuple[str | None, str]:
    """``(number, title)`` of a heading's text.

    ``"3.2 Single sign-on"`` -> ``("3.2", "Single sign-on")``; ``"1. Scope"`` ->
    ``("1", "Scope")``; ``"Madde 2 – Ücret"`` -> ``("2", "Madde 2 – Ücret")`` (a worded
    number stays in the title); ``"Payment terms"`` -> ``(None, "Payment terms")``.
    Components have at most three digits, so ``2024 Roadmap`` has no number.

    A number after a citing word (Section, Article, Paragraph, §, Madde, Artikel,
    Abschnitt ...) is the heading's own number only when ``worded`` (the parser passes
    False for a document that numbers its sections with bare numbers, where ``Section
    508 Compliance`` or ``§ 4 Haftung`` cite a law or another document), when it is not
    followed by the name of a law (:data:`_LAW_AFTER_NUMBER`: ``Article 5 GDPR``) and
    when a one-part number is at most :data:`MAX_WORDED_SECTION`. Otherwise the heading
    has no number: ``"Section 508 Compliance"`` -> ``(None, "Section 508 Compliance")``.
    Names of standards (``ISO 27001``, ``FAR 52.246-6``) never give a number.
    """
    text = _unmark_number(" ".join(heading.split()))
    match = _BARE_NUMBER.match(text)
    if match:
        title = _LEADING_SEPARATOR.sub("", text[match.end() :])
        return match.group("num"), title
    folded = fold(text)
    match = _WORDED_NUMBER.match(folded)
    if (
        match
        and worded
        and not _LAW_AFTER_NUMBER.search(folded[match.end() :])
        and ("." in match.group("num") or int(match.group("num")) <= MAX_WORDED_SECTION)
    ):
        return match.group("num"), text
    return None, text


def _normalize_number(number: str) -> str:
    """Printed number -> comparison form: ``2.0`` and ``2`` are the same section."""
    parts = number.split(".")
    while len(parts) > 1 and parts[-1] == "0":
        parts.pop()
    return ".".join(parts)


def _parent_numbers(norm: str) -> list[str]:
    parts = norm.split(".")
    return [".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)]


# --- clause kinds ---------------------------------------------------------------------

_EXCLUSION = re.compile(
    r"\bout of scope\b|\bnot in scope\b|\bexclu(?:de|ded|des|ding|sion|sions)\b"
    r"|\bnot included\b|\bnot covered\b|\bkapsam disi\w*|\bkapsamdisi\w*|\bharic\b"
    r"|\bdahil degil\w*|\bausgeschlossen\w*|\b\w*ausschluss\w*|\b\w*ausschlusse\b"
    r"|\bnicht im leistungsumfang\b|\bnicht (?:enthalten|umfasst|inbegriffen)\b"
)
_ASSUMPTION = re.compile(
    r"\bassum(?:e|ed|es|ption|ptions)\b|\bvarsayim\w*|\bannahme\w*|\bdependenc(?:y|ies)\b"
    r"|\bprerequisites?\b|\bon kosul\w*|\bvoraussetzung\w*|\bbagimlilik\w*"
    r"|\babhangigkeit\w*|\bmitwirkung\w*|\b(?:client|customer) (?:responsibilit|obligation)\w*"
)
_SLA = re.compile(
    r"\bservice levels?\b|\bservicelevel\w*|\bslas?\b|\bavailability\b|\buptime\b"
    r"|\b(?:response|resolution) times?\b|\bhizmet seviye\w*|\byanit sure\w*"
    r"|\bcozum sure\w*|\bverfugbarkeit\w*|\breaktionszeit\w*|\bwiederherstellungszeit\w*"
)


_SCOPE_CUE = re.compile(
    r"\bscope\b|\binclu(?:de|ded|des|sion|sions)\b|\bkapsam\w*|\bdahil\w*"
    r"|\bleistungsumfang\b|\bumfang\b|\benthalten\b"
)
_CONJUNCTION = re.compile(r"\b(?:and|or|ve|veya|ile|und|oder|sowie)\b")
_CATEGORIES = (("exclusion", _EXCLUSION), ("assumption", _ASSUMPTION), ("sla", _SLA))


def heading_category(heading: str) -> str | None:
    """``exclusion``, ``assumption`` or ``sla`` when ``heading`` names exactly one of them,
    else None. A mixed heading names none: ``Scope and exclusions`` (a scope word joined
    to the exclusion by and/ve/und/``,``/``&``), ``Assumptions and service levels``;
    ``Scope exclusions`` is an exclusion heading. A heading
    that is exactly a kind name (frontmatter ``kind``) is that kind."""
    if heading in CLAUSE_KINDS:
        return None if heading == "inclusion" else heading
    folded = " ".join(words(heading))
    found = [name for name, pattern in _CATEGORIES if pattern.search(folded)]
    if len(found) != 1:
        return None
    if (
        found[0] == "exclusion"
        and _SCOPE_CUE.search(_EXCLUSION.sub(" ", folded))
        and (_CONJUNCTION.search(folded) or any(c in heading for c in "&/,;+"))
    ):
        return None
    return found[0]


def clause_kind(headings: Sequence[str]) -> str:
    """The kind of a clause from its own heading and its enclosing headings.

    ``exclusion`` when any of ``headings`` is an exclusion heading (out of scope,
    exclusions, not included, kapsam dışı, hariç, ausgeschlossen, nicht im
    Leistungsumfang ...); else ``assumption`` when any is an assumption heading
    (assumptions, varsayımlar, Annahmen, dependencies ...); else ``sla`` when any is a
    service-level heading (service level, SLA, availability, response time, hizmet
    seviyesi ...); else ``inclusion``. So ``Availability of third-party interfaces``
    under ``Assumptions`` is an assumption. Each heading is judged by
    :func:`heading_category` on :func:`etki.text.words` (folded), so mixed headings such
    as ``Scope and exclusions`` do not turn everything below them into exclusions.
    """
    found = {heading_category(h) for h in headings}
    for kind in ("exclusion", "assumption", "sla", "context"):
        if kind in found:
            return kind
    return "inclusion"


# --- link targets ---------------------------------------------------------------------

_NODE_PREFIXES = ("module:", "workitem:", "clause:")


def link_target(
    target: str,
    heading: str | None,
    contract_id: str,
    module_ids: Collection[str] = (),
    workitem_ids: Collection[str] = (),
) -> str:
    """Node id a link points at, as far as one document can tell.

    ``module:auth`` / ``workitem:WI-1`` / ``clause:MSA#3.2`` stay as written;
    ``MSA#3.2`` (target with heading) -> ``clause:MSA#3.2`` (``#3.2`` alone means this
    contract); a bare name that is a known module or work item id gets its prefix; any
    other bare name is returned unchanged and resolved (or reported) by the index build.
    The part after ``#`` may be a number or a heading title; the index resolves it.
    """
    target = target.strip()
    if heading is not None:
        if target.startswith("clause:"):
            target = target[len("clause:") :]
        return f"clause:{target or contract_id}#{heading.strip()}"
    for prefix in _NODE_PREFIXES:
        if target.startswith(prefix):
            return prefix + target[len(prefix) :].strip()
    if "#" in target:
        contract, _, head = target.partition("#")
        return f"clause:{contract.strip() or contract_id}#{head.strip()}"
    if target in module_ids:
        return f"module:{target}"
    if target in workitem_ids:
        return f"workitem:{target}"
    return target


def _default_type(target_id: str, kind: str) -> str:
    if target_id.startswith("module:"):
        return "excludes" if kind == "exclusion" else "covers"
    if target_id.startswith("clause:"):
        return "cites"
    return "relates_to"


# --- parsing --------------------------------------------------------------------------


@dataclass
class _Link:
    target: str  # node id (or bare name)
    type: str | None  # canonical type when the link named one
    line: int  # file line, for errors
    text: str = ""  # as written: "[[MSA#3.2|SSO]]", "frontmatter edges[0]: ..."


@dataclass
class _Start:
    """Where a section starts: ``start`` is its first line (0-based, in the body),
    ``body_start`` the first line of its body."""

    start: int
    body_start: int
    level: int
    heading: str
    number: str | None
    title: str
    origin: str  # heading | bold | plain | wrapped | underlined | preamble
    heading_links: list[_Link] = field(default_factory=list)
    body_links: list[_Link] = field(default_factory=list)
    end: int = 0
    parent: int | None = None
    context: str = ""
    merged: bool = False
    absorbed: list[_Link] = field(default_factory=list)  # links of merged parents
    aliases: list[str] = field(default_factory=list)  # numbers of merged parents
    subtitles: list[tuple[str, int]] = field(default_factory=list)  # (title, file line)


_MAX_TITLE_CHARS = 120
_SEEN_NUMBER = re.compile(r"^(\d{1,3}(?:\.\d{1,3})+)\.?(?:[\s:]+(.*))?$", re.S)


def _span(token: Token) -> tuple[int, int]:
    """``token.map``: the token's first line and the line after it (0-based). markdown-it
    sets it on every block token and on the inline token of a block; raises
    ``ValueError`` for a token without one."""
    if token.map is None:
        raise ValueError(f"markdown token {token.type!r} has no line map")
    return token.map[0], token.map[1]


def _plain(children: Sequence[Token] | None) -> str:
    """Plain text of inline tokens: emphasis dropped, code and escapes literal, inline
    HTML dropped, images by their alt text, line breaks as spaces."""
    out: list[str] = []
    for child in children or ():
        if child.type in ("text", "text_special", "code_inline"):
            out.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif child.type == "image":
            out.append(_plain(child.children))
    return " ".join("".join(out).split())


def _strip_links(text: str) -> str:
    """Wikilinks in a title shown as their alias, or as their target; typed links and
    links to nodes (``module:``, ``workitem:``, ``clause:``) without an alias are edge
    declarations and are removed from the title."""

    def show(match: re.Match[str]) -> str:
        inner = match.group(1)
        target, sep, alias = inner.partition("|")
        if sep and alias.strip():
            return alias.strip()
        if split_typed_target(target)[0] is not None or target.strip().startswith(_NODE_PREFIXES):
            return ""
        return target.strip()

    return " ".join(re.sub(r"\[\[([^\[\]]+?)\]\]", show, text).split())


def _short_title(text: str, limit: int = 60) -> str:
    sentence = re.split(r"(?<=[.;:!?])\s", text.strip(), maxsplit=1)[0]
    if len(sentence) <= limit:
        return sentence
    cut = sentence[:limit]
    if " " in cut[limit // 2 :]:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:") + "…"


class _Parser:
    """One contract document being parsed (see the module docstring for the rules)."""

    def __init__(
        self,
        text: str,
        path: str,
        source: str,
        vocabulary: EdgeVocabulary,
        module_ids: Collection[str],
        workitem_ids: Collection[str],
    ) -> None:
        self.path, self.source, self.vocabulary = path, source, vocabulary
        self.module_ids, self.workitem_ids = module_ids, workitem_ids
        self.meta, self.body = split_frontmatter(text, path)
        self.yaml_text, _, self.first_line = frontmatter_block(normalize_newlines(text))
        self.lines = self.body.split("\n")
        md = markdown_parser()
        env: dict[str, object] = {}  # link reference definitions, shared by the re-parses
        self.tokens, self.fallbacks = repair_blocks(
            md.parse(self.body, env), self.lines, lambda text: md.parse(text, env), self.first_line
        )
        self._blocks: list[int] | None = None
        self._inline: list[Token] | None = None
        self._inline_lines: list[int] = []

    # -- frontmatter -------------------------------------------------------------------

    def _meta_error(self, problem: str, keys: list[str | int], fld: str) -> ProjectFormatError:
        line = locate(self.yaml_text or "", keys, first_line=2) if self.yaml_text else None
        return ProjectFormatError(self.path, problem, line=line, field=fld)

    def contract_id(self) -> str:
        raw = self.meta.get("id", Path(self.source).stem)
        if not isinstance(raw, str) or not raw.strip():
            raise self._meta_error("contract id must be a non-empty string", ["id"], "id")
        cid = raw.strip()
        if any(c in cid for c in "#|[]/\\") or any(ord(c) < 0x20 for c in cid):
            raise self._meta_error(
                f"contract id {cid!r} may not contain # | [ ] / \\ or control characters",
                ["id"],
                "id",
            )
        return cid

    def meta_kind(self) -> str | None:
        kind = self.meta.get("kind")
        if kind is None:
            return None
        if kind not in CLAUSE_KINDS:
            raise self._meta_error(
                f"kind must be one of {', '.join(CLAUSE_KINDS)}", ["kind"], "kind"
            )
        return str(kind)

    def meta_title(self) -> str | None:
        title = self.meta.get("title")
        if title is None:
            return None
        if not isinstance(title, str):
            raise self._meta_error("title must be a string", ["title"], "title")
        return " ".join(title.split()) or None

    def meta_edges(self, contract_id: str) -> list[_Link]:
        raw = self.meta.get("edges")
        if raw is None:
            return []
        if not isinstance(raw, list):
            raise self._meta_error("edges must be a list of {type, target}", ["edges"], "edges")
        links: list[_Link] = []
        for i, item in enumerate(raw):
            if not isinstance(item, dict):
                raise self._meta_error(
                    "each edge must be a mapping {type, target}", ["edges", i], f"edges[{i}]"
                )
            for key in ("type", "target"):
                if not isinstance(item.get(key), str) or not item[key].strip():
                    raise self._meta_error(
                        f"'{key}' is required and must be a string",
                        ["edges", i, key],
                        f"edges[{i}].{key}",
                    )
            try:
                etype = self.vocabulary.canonical(item["type"])
            except VocabularyError as exc:
                line = locate(self.yaml_text or "", ["edges", i, "type"], first_line=2)
                raise UnknownEdgeTypeError(
                    self.path, str(exc), line=line, field=f"edges[{i}].type"
                ) from exc
            target = link_target(
                item["target"], None, contract_id, self.module_ids, self.workitem_ids
            )
            line = locate(self.yaml_text or "", ["edges", i], first_line=2) or 1
            links.append(
                _Link(target, etype, line, f"edges[{i}]: {item['type']} -> {item['target']}")
            )
        return links

    def meta_status(self) -> tuple[str, dict[str, tuple[str, int]]]:
        """Frontmatter ``status`` (default ``stable``) and ``clause_status`` as
        number -> (status, file line). Raises ProjectFormatError for another value."""

        def status_of(value: object, keys: list[str | int], fld: str) -> str:
            folded = fold(value) if isinstance(value, str) else None
            if folded not in CLAUSE_STATUSES:
                raise self._meta_error(
                    f"status must be one of {', '.join(CLAUSE_STATUSES)}, not {value!r}", keys, fld
                )
            return folded

        default = "stable"
        if self.meta.get("status") is not None:
            default = status_of(self.meta["status"], ["status"], "status")
        raw = self.meta.get("clause_status")
        if raw is None:
            return default, {}
        if not isinstance(raw, dict):
            raise self._meta_error(
                "clause_status must be a mapping clause number -> status",
                ["clause_status"],
                "clause_status",
            )
        out: dict[str, tuple[str, int]] = {}
        for number, value in raw.items():
            keys: list[str | int] = ["clause_status", str(number)]
            line = locate(self.yaml_text or "", keys, first_line=2) or 1
            out[str(number)] = (status_of(value, keys, f"clause_status.{number}"), line)
        return default, out

    def meta_candidates(self, contract_id: str) -> list[Edge]:
        """Frontmatter ``candidates: [{target, type?, source?}]`` as pool edges (source
        ``clause:{contract}#{source}`` or ``""``, type canonical or ``""``)."""
        raw = self.meta.get("candidates")
        if raw is None:
            return []
        if not isinstance(raw, list):
            raise self._meta_error(
                "candidates must be a list of {target, type, source}", ["candidates"], "candidates"
            )
        out: list[Edge] = []
        for i, item in enumerate(raw):
            fld = f"candidates[{i}]"
            if not isinstance(item, dict):
                raise self._meta_error(
                    "each candidate must be a mapping {target, type, source}",
                    ["candidates", i],
                    fld,
                )
            for key in ("target", "type", "source"):
                value = item.get(key)
                if key == "target" and value is None:
                    raise self._meta_error("'target' is required", ["candidates", i], fld)
                if value is not None and (not isinstance(value, str) or not value.strip()):
                    raise self._meta_error(
                        f"'{key}' must be a non-empty string",
                        ["candidates", i, key],
                        f"{fld}.{key}",
                    )
            etype = ""
            if item.get("type") is not None:
                try:
                    etype = self.vocabulary.canonical(item["type"])
                except VocabularyError as exc:
                    line = locate(self.yaml_text or "", ["candidates", i, "type"], first_line=2)
                    raise UnknownEdgeTypeError(
                        self.path, str(exc), line=line, field=f"{fld}.type"
                    ) from exc
            line = locate(self.yaml_text or "", ["candidates", i], first_line=2) or 1
            source = item.get("source")
            target = link_target(
                item["target"], None, contract_id, self.module_ids, self.workitem_ids
            )
            if etype in self.vocabulary.reversed_names:
                raise self._meta_error(
                    _REVERSED_CANDIDATE.format(etype, self.vocabulary.inverse(etype)),
                    ["candidates", i, "type"],
                    f"{fld}.type",
                )
            if etype:
                try:
                    self.vocabulary.checked(f"clause:{contract_id}#x", target, etype)
                except VocabularyError as exc:
                    raise EdgeSignatureError(
                        self.path, str(exc), line=line, field=f"{fld}.type"
                    ) from exc
            written = ", ".join(
                f"{k}: {item[k]}" for k in ("source", "type", "target") if item.get(k) is not None
            )
            out.append(
                Edge(
                    f"clause:{contract_id}#{source.strip()}" if source else "",
                    target,
                    etype,
                    "mapped",
                    PROVENANCE_WEIGHTS["mapped"],
                    f"{self.source}:{line}",
                    f"candidates[{i}]: {{{written}}}",
                )
            )
        return out

    # -- section starts ----------------------------------------------------------------

    def blocks(self) -> list[int]:
        """Indexes of the top-level block tokens (paragraphs, headings, lists ...)."""
        if self._blocks is None:
            self._blocks = [
                i
                for i, t in enumerate(self.tokens)
                if t.level == 0 and t.map is not None and t.nesting in (0, 1)
            ]
        return self._blocks

    def _list_items(self, k: int) -> list[tuple[int, int]]:
        """(open, close) token indexes of the items of the top-level list at block
        ``k``."""
        tokens, i = self.tokens, self.blocks()[k]
        items: list[tuple[int, int]] = []
        open_at = -1
        for j in range(i + 1, len(tokens)):
            tok = tokens[j]
            if tok.level == 0:
                break
            if tok.level == 1 and tok.type == "list_item_open":
                open_at = j
            elif tok.level == 1 and tok.type == "list_item_close":
                items.append((open_at, j))
        return items

    def underlined(self, k: int, next_top: int | None = None) -> tuple[list[_Start], int]:
        """Section lines among the items of the top-level ordered list at block ``k``,
        and how many blocks they use (2 when the rule under the list is the underline).

        CommonMark reads ``4. TASKS`` underlined with dashes as a one-item ordered list
        followed by a thematic break (as in the talentmap engagement's contract), and
        ``4. TASKS`` underlined with ``=`` as a list item whose paragraph ends in a line
        of ``=``; an underline indented under the item makes a setext heading inside
        it. Such an item is a section numbered by its list marker (at most three
        digits), titled by its one line of text (at most :data:`_MAX_TITLE_CHARS`
        characters), at level 1 for ``=`` and 2 otherwise, as setext headings are. The
        dash form counts only when the list holds that one item and the rule starts on
        the very next line (an underline touches its text), or when that item is the
        last of a longer list, does not continue the list's numbering and is
        ``next_top``, the next top-level section number (a body list ``1. 2.`` ending
        right above ``2. Travel`` + rule). Numbered list items of a section's body
        (``1.  The Contractor shall ...``) have no underline and are never sections; a
        body list ``1. 2.`` directly above ``3. X`` + rule reads as one list, and ``3.``
        stays in the body."""
        tokens, blocks = self.tokens, self.blocks()
        items = self._list_items(k)
        nxt = tokens[blocks[k + 1]] if k + 1 < len(blocks) else None
        list_end = _span(tokens[blocks[k]])[1]
        out: list[_Start] = []
        used = 1
        for n, (open_at, close_at) in enumerate(items):
            item, inner = tokens[open_at], tokens[open_at + 1 : close_at]
            if not item.info.isdigit() or len(item.info) > 3 or len(inner) != 3:
                continue
            number = str(int(item.info))
            first, inline = inner[0], inner[1]
            begin = _span(item)[0]
            if first.type == "heading_open":  # underline indented into the item
                level, title = int(first.tag[1]), _strip_links(_plain(inline.children))
                body_start = _span(first)[1]
            elif first.type == "paragraph_open":
                pb, pe = _span(first)
                children = inline.children or []
                if pe - pb == 2 and set(self.lines[pb + 1].strip()) == {"="}:
                    cut = next(
                        (i for i, c in enumerate(children) if c.type == "softbreak"), len(children)
                    )
                    level, title, body_start = 1, _strip_links(_plain(children[:cut])), pe
                elif (
                    pe - pb == 1
                    and nxt is not None
                    and nxt.type == "hr"
                    and nxt.map is not None
                    and nxt.map[0] == list_end
                    and list_end == pe
                    and (
                        len(items) == 1
                        or (
                            n == len(items) - 1
                            and int(number) == next_top
                            and tokens[items[n - 1][0]].info.isdigit()
                            and int(tokens[items[n - 1][0]].info) + 1 != int(number)
                        )
                    )
                ):
                    level, title = 2, _strip_links(_plain(children))
                    body_start, used = nxt.map[1], 2
                else:
                    continue
            else:
                continue
            if not title or len(title) > _MAX_TITLE_CHARS:
                used = 1
                continue
            heading = f"{number}. {title}"
            out.append(_Start(begin, body_start, level, heading, number, title, "underlined"))
        return out, used

    def bare_numbered(self) -> bool:
        """Whether any heading or underlined section line of the document has a bare
        leading number (``4. TASKS``, ``## 2.1 Scope``): then numbers after a citing
        word are citations (:func:`clause_number`)."""
        tokens, blocks = self.tokens, self.blocks()
        for k, i in enumerate(blocks):
            tok = tokens[i]
            if tok.type == "heading_open":
                text = _strip_links(_plain(tokens[i + 1].children))
                if clause_number(text, worded=False)[0] is not None:
                    return True
            elif tok.type == "ordered_list_open" and self.underlined(k)[0]:
                return True
        return False

    def starts(self) -> list[_Start]:
        tokens, blocks = self.tokens, self.blocks()
        worded = not self.bare_numbered()
        seen: dict[str, int] = {}  # normalized number -> level
        sibling_level: dict[str, int] = {}  # parent number -> level of its children
        starts: list[_Start] = []

        def record(number: str | None, level: int) -> None:
            if number is None:
                return
            norm = _normalize_number(number)
            seen.setdefault(norm, level)
            parents = _parent_numbers(norm)
            if parents:
                sibling_level.setdefault(parents[0], level)

        def pseudo_level(number: str) -> int | None:
            """Level of a pseudo-heading numbered ``number``, or None when the number
            does not continue the numbering seen so far."""
            norm = _normalize_number(number)
            parents = _parent_numbers(norm)
            if not parents or norm in seen or parents[0] not in seen:
                return None
            return min(6, sibling_level.get(parents[0], seen[parents[0]] + 1))

        k = 0
        top = 0  # the highest underlined section number so far
        while k < len(blocks):
            tok = tokens[blocks[k]]
            begin, end = _span(tok)
            if tok.type == "heading_open":
                level = int(tok.tag[1])
                heading = _strip_links(_plain(tokens[blocks[k] + 1].children))
                if not heading:
                    nxt = tokens[blocks[k + 1]] if k + 1 < len(blocks) else None
                    if (
                        nxt is not None
                        and nxt.type == "paragraph_open"
                        and nxt.map
                        and nxt.map[0] == end
                    ):
                        first = self.lines[nxt.map[0]].strip()
                        wrapped = _plain(markdown_parser().parseInline(first)[0].children)
                        if wrapped and len(wrapped) <= 120:
                            number, title = clause_number(wrapped, worded=worded)
                            starts.append(
                                _Start(
                                    begin, nxt.map[0] + 1, level, wrapped, number, title, "wrapped"
                                )
                            )
                            record(number, level)
                            k += 2
                            continue
                    k += 1  # an empty heading is no section: its text stays above
                    continue
                number, title = clause_number(heading, worded=worded)
                starts.append(_Start(begin, end, level, heading, number, title, "heading"))
                record(number, level)
            elif tok.type == "ordered_list_open":
                found, used = self.underlined(k, top + 1)
                for sec in found:
                    starts.append(sec)
                    record(sec.number, sec.level)
                    top = max(top, int(sec.number or 0))
                if found:
                    k += used
                    continue
            elif tok.type == "paragraph_open":
                pseudo = self._pseudo_heading(tokens[blocks[k] + 1], begin, end, pseudo_level)
                if pseudo is not None:
                    starts.append(pseudo)
                    record(pseudo.number, pseudo.level)
            k += 1
        return starts

    def _pseudo_heading(
        self, inline: Token, begin: int, end: int, pseudo_level: Callable[[str], int | None]
    ) -> _Start | None:
        children = [
            c for c in inline.children or [] if not (c.type == "text" and not c.content.strip())
        ]
        if not children:
            return None
        if children[0].type == "strong_open":
            close = next((i for i, c in enumerate(children) if c.type == "strong_close"), None)
            if close is None:
                return None
            strong = _plain(children[1:close])
            rest = _plain(children[close + 1 :])
            match = _SEEN_NUMBER.match(strong)
            if match is None:
                return None
            number, title = match.group(1), (match.group(2) or "").strip()
            level = pseudo_level(number)
            if level is None:
                return None
            if not rest:  # **2.2 Expectations**: the paragraph is the heading
                return _Start(begin, end, level, strong, number, title, "bold")
            if title:  # **2.2 Expectations** followed by text in the same paragraph
                return _Start(begin, begin, level, strong, number, title, "bold")
            # **7.2.1** The TTS Office ...: the paragraph opens the clause body
            return _Start(begin, begin, level, strong, number, _short_title(rest), "bold")
        if end - begin == 1 and children[0].type == "text":
            text = _plain(children)
            match = _SEEN_NUMBER.match(text)
            if match is None or not match.group(2):
                return None
            title = match.group(2).strip()
            if len(title.split()) > 12 or not title[0].isupper() or title.endswith("."):
                return None
            level = pseudo_level(match.group(1))
            if level is None:
                return None
            return _Start(begin, end, level, text, match.group(1), title, "plain")
        return None

    # -- links -------------------------------------------------------------------------

    def links(self, tokens: Sequence[Token], line: int, contract_id: str) -> list[_Link]:
        """Wikilinks of ``tokens`` as links with node targets and canonical types;
        ``line`` (a file line) is reported when a link names an unknown edge type."""
        links = []
        for (target, heading, _alias), written in written_wikilinks(list(tokens)):
            ltype, target = split_typed_target(target)
            canonical = None
            if ltype is not None:
                try:
                    canonical = self.vocabulary.canonical(ltype)
                except VocabularyError as exc:
                    raise UnknownEdgeTypeError(
                        self.path, str(exc), line=line, field="wikilink"
                    ) from exc
            node = link_target(target, heading, contract_id, self.module_ids, self.workitem_ids)
            links.append(_Link(node, canonical, line, written))
        return links

    def inlines_between(self, begin: int, end: int) -> list[Token]:
        """The inline tokens starting on body lines ``[begin, end)``, in order."""
        if self._inline is None:
            self._inline = [t for t in self.tokens if t.type == "inline" and t.map]
            self._inline_lines = [_span(t)[0] for t in self._inline]
        lo = bisect.bisect_left(self._inline_lines, begin)
        return self._inline[lo : bisect.bisect_left(self._inline_lines, end)]

    def links_between(self, begin: int, end: int, contract_id: str) -> list[_Link]:
        """Wikilinks of the inline tokens starting on body lines ``[begin, end)``."""
        out: list[_Link] = []
        for token in self.inlines_between(begin, end):
            out += self.links([token], self.first_line + _span(token)[0], contract_id)
        return out

    def units(self, begin: int, end: int, limit: int = MAX_CHUNK_CHARS) -> list[tuple[int, int]]:
        """Line ranges of the top-level blocks inside body lines ``[begin, end)``; a list
        over ``limit`` visible characters gives its items instead (see
        :mod:`etki.knowledge.chunking`)."""
        out: list[tuple[int, int]] = []
        tokens = self.tokens
        for i in self.blocks():
            tok = tokens[i]
            b, e = _span(tok)
            if b < begin or b >= end:
                continue
            e = min(e, end)
            if (
                tok.type in ("bullet_list_open", "ordered_list_open")
                and visible_length("\n".join(self.lines[b:e])) > limit
            ):
                items = [
                    t.map
                    for t in tokens[i + 1 :]
                    if t.level == tok.level + 1
                    and t.type == "list_item_open"
                    and t.map
                    and b <= t.map[0] < e
                ]
                if items:
                    out.extend((ib, min(ie, e)) for ib, ie in items)
                    continue
            out.append((b, e))
        return out

    def assign_links(self, starts: list[_Start], contract_id: str) -> None:
        """Put each inline token's wikilinks on the section holding its line: in the
        heading (inherited below) or in the body (explicit)."""
        index = 0
        for token in self.tokens:
            if token.type != "inline" or token.map is None:
                continue
            line = token.map[0]
            while index + 1 < len(starts) and starts[index + 1].start <= line:
                index += 1
            if not starts or line < starts[index].start or line >= starts[index].end:
                continue  # preamble (handled separately) or a pool section
            found = self.links([token], self.first_line + line, contract_id)
            if found:
                owner = starts[index]
                (owner.heading_links if line < owner.body_start else owner.body_links).extend(found)

    # -- structure ---------------------------------------------------------------------

    def section_text(self, begin: int, end: int) -> str:
        chunk = self.lines[begin:end]
        while chunk and not chunk[0].strip():
            chunk.pop(0)
        while chunk and not chunk[-1].strip():
            chunk.pop()
        return "\n".join(chunk)

    def structure(self, starts: list[_Start], pool: list[_Start]) -> Structure:
        """The structure analyser's verdict on this document; lines of pool sections
        count as no text."""
        nonblank = [bool(line.strip()) for line in self.lines]
        for sec in pool:
            nonblank[sec.start : sec.end] = [False] * (sec.end - sec.start)
        return analyse_structure(nonblank, [s.start for s in starts], [s.end for s in starts])


def _assign_parents(starts: list[_Start]) -> None:
    """A numbered section's parent is the last earlier section numbered with its prefix
    (``3.1`` for ``3.1.2``; ``3`` and ``3.0`` are the same), else the document-title
    heading; an unnumbered section's parent is the nearest earlier section of a smaller
    heading level. Linear in the number of sections."""
    top = min((s.level for s in starts), default=1)
    at_top = [i for i, s in enumerate(starts) if s.level == top]
    doc_title = 0 if at_top == [0] and starts and starts[0].number is None else None
    last_numbered: dict[str, int] = {}
    stack: list[int] = []  # open sections by level, for unnumbered ones
    for k, sec in enumerate(starts):
        sec.parent = None
        while stack and starts[stack[-1]].level >= sec.level:
            stack.pop()
        if sec.number is not None:
            norm = _normalize_number(sec.number)
            for prefix in _parent_numbers(norm):
                if prefix in last_numbered:
                    sec.parent = last_numbered[prefix]
                    break
            if sec.parent is None and doc_title is not None and doc_title < k:
                sec.parent = doc_title
            last_numbered[norm] = k
        elif stack:
            sec.parent = stack[-1]
        stack.append(k)


def _is_pool(sec: _Start) -> bool:
    return fold(sec.title).rstrip(" :") in POOL_HEADINGS


def _fold_subheadings(starts: list[_Start], first_line: int) -> list[_Start]:
    """The section starts that make clauses: an unnumbered heading that continues a
    numbered section is folded into it (issue 10 item 2).

    An unnumbered heading continues the numbered section it follows (the last section
    start kept, which must carry a number) when it is deeper than that section, or at
    the same level when most headings of that level in the document carry a number
    (the level's numbering pattern: the TalentMAP PWS's unnumbered "Inspection and
    Acceptance of Services" among its numbered top-level lines belongs to 9). It is
    then no section: its heading line stays in the numbered section's text and its
    title, with its file line, goes to the section's ``subtitles``. Any other heading is
    kept as today: headings before the first numbered section (the preamble), a
    shallower heading after a numbered one (a new part of the document) and the
    headings below it, headings of documents without numbers, and "Unassigned edges"
    sections. Returns the kept starts, in order."""
    if not any(s.number is not None for s in starts):
        return starts
    first = next(i for i, s in enumerate(starts) if s.number is not None)
    per_level: dict[int, list[int]] = {}
    for sec in starts[first:]:
        counts = per_level.setdefault(sec.level, [0, 0])
        counts[0] += sec.number is not None
        counts[1] += 1
    kept: list[_Start] = []
    current: _Start | None = None
    for sec in starts:
        if (
            sec.number is None
            and not _is_pool(sec)
            and current is not None
            and current.number is not None
            and (
                sec.level > current.level
                or (
                    sec.level == current.level
                    and 2 * per_level[sec.level][0] > per_level[sec.level][1]
                )
            )
        ):
            current.subtitles.append((sec.title or sec.heading, first_line + sec.start))
            continue
        kept.append(sec)
        current = sec
    return kept


def _set_ends(starts: list[_Start], total: int) -> None:
    for k, sec in enumerate(starts):
        sec.end = starts[k + 1].start if k + 1 < len(starts) else total


def _chain(starts: list[_Start], k: int) -> list[int]:
    """Indexes of the enclosing sections of ``k``, nearest first."""
    out, seen = [], {k}
    parent = starts[k].parent
    while parent is not None and parent not in seen:
        out.append(parent)
        seen.add(parent)
        parent = starts[parent].parent
    return out


def _lead_in(text: str) -> str:
    first = text.split("\n", 1)[0].strip() if text else ""
    return first if first.endswith(":") and len(first.split()) <= 12 else ""


class _Builder:
    """Turns section starts into ScopeClauses with unique refs, kinds, edges, status,
    aliases and chunks."""

    def __init__(
        self,
        parser: _Parser,
        contract_id: str,
        doc_title: str | None,
        meta_kind: str | None,
        meta_links: list[_Link],
    ) -> None:
        self.parser, self.cid = parser, contract_id
        self.outer = [x for x in (doc_title, meta_kind) if x]
        self.meta_links = meta_links
        self.used: set[str] = set()

    def ref_number(self, number: str | None, title: str) -> str:
        key = number if number else slugify(title or "untitled")
        candidate, n = key, 2
        while candidate in self.used:
            candidate, n = f"{key}-{n}", n + 1
        self.used.add(candidate)
        return candidate

    def edges(
        self, source: str, kind: str, own: list[_Link], inherited: list[_Link]
    ) -> tuple[Edge, ...]:
        out: list[Edge] = []
        keys: set[tuple[str, str]] = set()
        for provenance, links in (("explicit", own), ("inherited", inherited)):
            weight = PROVENANCE_WEIGHTS[provenance]
            for link in links:
                etype = link.type or _default_type(link.target, kind)
                if (link.target, etype) in keys or link.target == source:
                    continue
                keys.add((link.target, etype))
                try:
                    src, tgt, etype = self.parser.vocabulary.checked(source, link.target, etype)
                except VocabularyError as exc:
                    raise EdgeSignatureError(
                        self.parser.path, f"{link.text}: {exc}", line=link.line, field="edge"
                    ) from exc
                out.append(
                    Edge(
                        src,
                        tgt,
                        etype,
                        provenance,
                        weight,
                        f"{self.parser.source}:{link.line}",
                        link.text,
                    )
                )
        return tuple(out)

    def chunks(
        self,
        ref: str,
        kind: str,
        begin: int,
        end: int,
        own: list[_Link],
        inherited: list[_Link],
        subtitles: Sequence[tuple[str, int]] = (),
    ) -> tuple[ClauseChunk, ...]:
        """The parts of the clause body on lines ``[begin, end)`` when its text is over
        :data:`MAX_CHUNK_CHARS`: each part's own body links are explicit; ``inherited``
        (the heading's and the enclosing clauses' links) holds for every part. A part's
        ``subtitle`` is the last of ``subtitles`` (title, file line) at or before its
        first line."""
        parser = self.parser
        if visible_length(parser.section_text(begin, end)) <= MAX_CHUNK_CHARS:
            return ()
        spans = pack(parser.units(begin, end), parser.lines)
        if len(spans) < 2:
            return ()
        out = []
        for k, (b, e) in enumerate(spans, start=1):
            lo, hi = parser.first_line + b, parser.first_line + e
            mine = [link for link in own if lo <= link.line < hi]
            text = parser.section_text(b, e)
            under = [title for title, line in subtitles if line <= lo]
            out.append(
                ClauseChunk(
                    text,
                    lo,
                    self.edges(f"chunk:{ref}~{k}", kind, mine, inherited),
                    plain=markdown_plain(text),
                    subtitle=under[-1] if under else "",
                )
            )
        return tuple(out)

    def clause(
        self,
        number: str | None,
        title: str,
        span: tuple[int, int],
        kind: str,
        level: int,
        line: int,
        parent: str | None,
        own: list[_Link],
        inherited: list[_Link],
        *,
        heading_links: Sequence[_Link] = (),
        aliases: Sequence[str] = (),
        overlap: str = "",
        subtitles: Sequence[tuple[str, int]] = (),
    ) -> ScopeClause:
        """One clause of the body lines ``span``. ``own`` are its explicit links (body
        links, heading links, links of merged parents); ``heading_links`` those of
        ``own`` that its chunks inherit instead; ``subtitles`` the folded sub-headings
        (title, file line)."""
        num = self.ref_number(number, title)
        ref = f"{self.cid}#{num}"
        inherited_here = {id(link) for link in heading_links}
        body = [link for link in own if id(link) not in inherited_here]
        text = self.parser.section_text(*span)
        return ScopeClause(
            ref=ref,
            contract_id=self.cid,
            number=num,
            title=title,
            text=text,
            kind=kind,  # type: ignore[arg-type]  # a CLAUSE_KINDS name
            level=level,
            source=self.parser.source,
            line=line,
            parent=parent,
            edges=self.edges(f"clause:{ref}", kind, own, inherited),
            aliases=tuple(aliases),
            overlap=overlap,
            chunks=self.chunks(
                ref, kind, span[0], span[1], body, list(heading_links) + inherited, subtitles
            ),
            plain=markdown_plain(text),
            subtitles=tuple(subtitles),
        )


def _by_heading(parser: _Parser, builder: _Builder, starts: list[_Start]) -> list[ScopeClause]:
    clauses: list[ScopeClause] = []
    first = parser.first_line
    numbered = [k for k, s in enumerate(starts) if s.number is not None]
    before = numbered[0] if numbered else -1  # starts before it are the preamble
    preamble = parser.section_text(0, starts[0].start)
    if re.sub(r"<!--.*?-->", "", preamble, flags=re.S).strip():
        own = parser.links_between(0, starts[0].start, builder.cid)
        kind = "context" if numbered else clause_kind(builder.outer)
        clauses.append(
            builder.clause(
                None,
                "Preamble",
                (0, starts[0].start),
                kind,
                1,
                first,
                None,
                own,
                builder.meta_links,
            )
        )
    texts = [parser.section_text(s.body_start, s.end) for s in starts]
    # empty parents are merged into their first child
    for k, sec in enumerate(starts):
        nxt = starts[k + 1] if k + 1 < len(starts) else None
        empty = not re.sub(r"<!--.*?-->", "", texts[k], flags=re.S).strip()
        if empty and nxt is not None and nxt.parent == k:
            sec.merged = True
            own_title = sec.title or sec.heading
            nxt.context = CONTEXT_SEPARATOR.join(x for x in (sec.context, own_title) if x)
            nxt.absorbed = sec.absorbed + sec.heading_links + sec.body_links
            nxt.aliases = sec.aliases + [sec.number or slugify(own_title or "untitled")]
    refs: dict[int, str | None] = {}
    for k, sec in enumerate(starts):
        chain = _chain(starts, k)
        headings = [sec.heading, _lead_in(texts[k])] + [starts[j].heading for j in chain]
        kind = "context" if k < before else clause_kind([h for h in headings if h] + builder.outer)
        inherited = [link for j in chain for link in starts[j].heading_links]
        inherited += builder.meta_links
        parent = next((refs[j] for j in chain if not starts[j].merged), None)
        if sec.merged:
            refs[k] = None
            continue
        title = CONTEXT_SEPARATOR.join(x for x in (sec.context, sec.title) if x)
        clause = builder.clause(
            sec.number,
            title,
            (sec.body_start, sec.end),
            kind,
            sec.level,
            first + sec.start,
            parent,
            sec.absorbed + sec.heading_links + sec.body_links,
            inherited,
            heading_links=sec.absorbed + sec.heading_links,
            aliases=sec.aliases,
            subtitles=sec.subtitles,
        )
        refs[k] = clause.ref
        clauses.append(clause)
    return clauses


def _sliding_window(parser: _Parser, builder: _Builder, pool: list[_Start]) -> list[ScopeClause]:
    def in_pool(line: int) -> bool:
        return any(sec.start <= line < sec.end for sec in pool)

    blocks = [parser.tokens[i] for i in parser.blocks() if not in_pool(_span(parser.tokens[i])[0])]
    spans = [_span(b) for b in blocks]
    clauses: list[ScopeClause] = []
    kind = clause_kind(builder.outer)
    for n, (own, context) in enumerate(windows(len(spans)), start=1):
        start, end = spans[own[0]][0], spans[own[-1]][1]
        links = [
            link
            for b, e in (spans[i] for i in own)
            for link in parser.links_between(b, e, builder.cid)
        ]
        inlines = parser.inlines_between(start, end)
        title = _short_title(_strip_links(_plain(inlines[0].children))) if inlines else ""
        overlap = (
            parser.section_text(spans[context[0]][0], spans[context[-1]][1]) if context else ""
        )
        clause = builder.clause(
            f"w{n}",
            title or f"w{n}",
            (start, end),
            kind,
            1,
            parser.first_line + start,
            None,
            links,
            builder.meta_links,
            overlap=overlap,
        )
        clauses.append(clause)
    return clauses


def _pool_candidates(parser: _Parser, pool: list[_Start], contract_id: str) -> list[Edge]:
    """The links of the "Unassigned edges" sections as pool edges (no source)."""
    out: list[Edge] = []
    for sec in pool:
        for link in parser.links_between(sec.body_start, sec.end, contract_id):
            if link.type in parser.vocabulary.reversed_names:
                raise ProjectFormatError(
                    parser.path,
                    f"{link.text}: "
                    + _REVERSED_CANDIDATE.format(link.type, parser.vocabulary.inverse(link.type)),
                    line=link.line,
                    field="candidates",
                )
            out.append(
                Edge(
                    "",
                    link.target,
                    link.type or "",
                    "mapped",
                    PROVENANCE_WEIGHTS["mapped"],
                    f"{parser.source}:{link.line}",
                    link.text,
                )
            )
    return out


def _apply_status(
    clauses: list[ScopeClause], default: str, by_number: dict[str, tuple[str, int]], path: str
) -> list[ScopeClause]:
    names: dict[str, int] = {}
    for i, clause in enumerate(clauses):
        for name in (clause.number, *clause.aliases):
            names.setdefault(_normalize_number(name), i)
    status = [default] * len(clauses)
    for number, (value, line) in by_number.items():
        at = names.get(_normalize_number(number.strip()))
        if at is None:
            raise ProjectFormatError(
                path,
                f"clause_status names no clause of this document: {number!r}",
                line=line,
                field=f"clause_status.{number}",
            )
        status[at] = value
    return [
        c if c.status == s else replace(c, status=s)  # type: ignore[arg-type]  # checked statuses
        for c, s in zip(clauses, status, strict=True)
    ]


def parse_contract_text(
    text: str,
    *,
    path: str,
    source: str | None = None,
    vocabulary: EdgeVocabulary = DEFAULT_VOCABULARY,
    module_ids: Collection[str] = (),
    workitem_ids: Collection[str] = (),
) -> Contract:
    """Parse one contract document.

    ``path`` names the file in errors; ``source`` is recorded on the contract and its
    clauses (the loader passes ``contracts/<name>.md``, so the index holds no absolute
    path); ``module_ids`` / ``workitem_ids`` let bare wikilinks (``[[auth]]``) resolve.
    Returns a :class:`Contract` whose ``id`` is frontmatter ``id`` or the file stem,
    whose ``chunking`` is ``by_heading`` or ``sliding_window`` (with the analyser's
    ``chunking_metrics``) and whose ``candidates`` hold its candidate edges.

    Raises ProjectFormatError (file, line, field) for malformed frontmatter, a bad id,
    kind, status, edges or candidates, or a document with no text;
    :class:`UnknownEdgeTypeError` (both a ProjectFormatError and a VocabularyError) for
    an edge type the vocabulary lacks.
    """
    source = source if source is not None else Path(path).name
    parser = _Parser(text, path, source, vocabulary, module_ids, workitem_ids)
    cid = parser.contract_id()
    meta_kind = parser.meta_kind()
    meta_title = parser.meta_title()
    meta_links = parser.meta_edges(cid)
    status, clause_status = parser.meta_status()
    candidates = parser.meta_candidates(cid)
    found = parser.starts()
    _set_ends(found, len(parser.lines))
    pool = [s for s in found if _is_pool(s)]
    # the analyser judges the document's heading structure as written, before folding
    structure = parser.structure([s for s in found if s not in pool], pool)
    found = _fold_subheadings(found, parser.first_line)
    _set_ends(found, len(parser.lines))
    starts = [s for s in found if s not in pool]
    _assign_parents(starts)
    top = min((s.level for s in starts), default=1)
    doc_heading = (
        starts[0].heading
        if starts
        and [s.level for s in starts].count(top) == 1
        and starts[0].level == top
        and starts[0].number is None
        else None
    )
    title = meta_title or doc_heading or cid
    builder = _Builder(parser, cid, meta_title, meta_kind, meta_links)
    if structure.usable:
        parser.assign_links(starts, cid)
        clauses = _by_heading(parser, builder, starts)
    else:
        clauses = _sliding_window(parser, builder, pool)
    if not clauses:
        raise ProjectFormatError(path, "the contract has no text to make clauses from")
    clauses = _apply_status(clauses, status, clause_status, path)
    metrics = dict(structure.metrics)
    metrics["chunked_clauses"] = float(sum(1 for c in clauses if c.chunks))
    metrics["chunks"] = float(sum(len(c.chunks) for c in clauses))
    if not structure.usable:
        metrics["windows"] = float(len(clauses))
    return Contract(
        id=cid,
        title=title,
        source=source,
        clauses=tuple(clauses),
        chunking=structure.strategy,
        chunking_metrics=tuple(sorted(metrics.items())),
        candidates=tuple(candidates + _pool_candidates(parser, pool, cid)),
        fallbacks=tuple(f"{source}:{f.line}: {f.message}" for f in parser.fallbacks),
    )


def parse_contract(
    path: str | Path,
    *,
    source: str | None = None,
    vocabulary: EdgeVocabulary = DEFAULT_VOCABULARY,
    module_ids: Collection[str] = (),
    workitem_ids: Collection[str] = (),
) -> Contract:
    """Read ``path`` (UTF-8, BOM and CRLF accepted) and :func:`parse_contract_text` it.

    Raises ProjectFormatError when the file cannot be read or is not UTF-8 (with the line
    of the first bad byte).
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ProjectFormatError(str(path), f"cannot read contract: {exc}") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ProjectFormatError(str(path), "not UTF-8 text", line=line) from exc
    if "\x00" in text:  # PostgreSQL cannot store it; no reader can show it
        line = text[: text.index("\x00")].count("\n") + 1
        raise ProjectFormatError(
            str(path), "holds a NUL character: not text Etki can store; remove it", line=line
        )
    return parse_contract_text(
        text,
        path=str(path),
        source=source,
        vocabulary=vocabulary,
        module_ids=module_ids,
        workitem_ids=workitem_ids,
    )
