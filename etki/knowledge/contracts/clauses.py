"""Clause building (part of :mod:`etki.knowledge.contracts`, rules in its docstring): the
:class:`~etki.domain.ScopeClause` values of a document's sections (``by_heading``) or of
its windows of top-level blocks (``sliding_window``), with kind, context, edges, chunks
and aliases; the candidate edges of the pool sections; and the per-clause statuses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from etki.domain import ClauseChunk, Edge, ScopeClause
from etki.errors import ProjectFormatError, VocabularyError
from etki.knowledge.chunking import MAX_CHUNK_CHARS, pack, visible_length, windows
from etki.knowledge.contracts.numbering import (
    _REVERSED_CANDIDATE,
    CONTEXT_SEPARATOR,
    _default_type,
    _Link,
    _normalize_number,
    clause_kind,
)
from etki.knowledge.contracts.sections import (
    _chain,
    _Parser,
    _plain,
    _short_title,
    _span,
    _Start,
    _strip_links,
)
from etki.knowledge.provenance import PROVENANCE_WEIGHTS
from etki.knowledge.vocabulary import (
    EdgeSignatureError,
)
from etki.mdtext.plain import markdown_plain
from etki.text import slugify


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
