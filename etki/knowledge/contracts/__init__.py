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

The parser is a package of parts (issue 31), this module re-exporting the names other
modules import:

* :mod:`~etki.knowledge.contracts.numbering`: clause numbers, kinds and link targets;
* :mod:`~etki.knowledge.contracts.frontmatter`: the checked frontmatter;
* :mod:`~etki.knowledge.contracts.sections`: section detection, parents and folding;
* :mod:`~etki.knowledge.contracts.clauses`: clause building, chunks, candidates, status;
* :mod:`~etki.knowledge.contracts.document`: :func:`parse_contract` and
  :func:`parse_contract_text`.
"""

from __future__ import annotations

from etki.knowledge.chunking import WINDOW_BLOCKS
from etki.knowledge.contracts.document import parse_contract, parse_contract_text
from etki.knowledge.contracts.numbering import (
    CONTEXT_SEPARATOR,
    MAX_WORDED_SECTION,
    POOL_HEADINGS,
    clause_kind,
    clause_number,
    heading_category,
    link_target,
)

__all__ = [
    "CONTEXT_SEPARATOR",
    "MAX_WORDED_SECTION",
    "POOL_HEADINGS",
    "WINDOW_BLOCKS",
    "clause_kind",
    "clause_number",
    "heading_category",
    "link_target",
    "parse_contract",
    "parse_contract_text",
]
