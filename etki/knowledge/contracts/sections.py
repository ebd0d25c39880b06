"""Section detection (part of :mod:`etki.knowledge.contracts`, rules in its docstring):
where the sections of a contract document start, read from markdown-it-py's token stream
(headings, bold and plain numbered lines, underlined numbered lines), their parents, the
folding of unnumbered sub-headings into numbered sections and the links of each part.
Blocks that swallowed headings are repaired first (:mod:`etki.knowledge.blockfix`) and
each such fallback is kept on the parser for ``Contract.fallbacks``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from markdown_it.token import Token

from etki.errors import VocabularyError
from etki.knowledge.blockfix import repair_blocks
from etki.knowledge.chunking import MAX_CHUNK_CHARS, visible_length
from etki.knowledge.contracts.frontmatter import _Frontmatter
from etki.knowledge.contracts.numbering import (
    _NODE_PREFIXES,
    POOL_HEADINGS,
    _Link,
    _normalize_number,
    _parent_numbers,
    clause_number,
    link_target,
)
from etki.knowledge.links import split_typed_target, written_wikilinks
from etki.knowledge.structure import Structure, analyse_structure
from etki.knowledge.vocabulary import (
    EdgeVocabulary,
    UnknownEdgeTypeError,
)
from etki.mdtext.parser import markdown_parser
from etki.text import fold


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


class _Parser(_Frontmatter):
    """One contract document being parsed (see :mod:`etki.knowledge.contracts` for the
    rules): its frontmatter (:class:`_Frontmatter`), then its section starts, links and
    text."""

    def __init__(
        self,
        text: str,
        path: str,
        source: str,
        vocabulary: EdgeVocabulary,
        module_ids: Collection[str],
        workitem_ids: Collection[str],
    ) -> None:
        super().__init__(text, path, source, vocabulary, module_ids, workitem_ids)
        self.lines = self.body.split("\n")
        md = markdown_parser()
        env: dict[str, object] = {}  # link reference definitions, shared by the re-parses
        self.tokens, self.fallbacks = repair_blocks(
            md.parse(self.body, env), self.lines, lambda text: md.parse(text, env), self.first_line
        )
        self._blocks: list[int] | None = None
        self._inline: list[Token] | None = None
        self._inline_lines: list[int] = []

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
