"""The detail pane's evidence (issue 34 item 2): the contract sentences the engine's
evidence quotes, shown first, and the cited clauses with those sentences marked and a
long clause folded to the part around them. Pure Rich renderables, no Textual, no I/O.

The quotes are read by :func:`etki.domain.quoted_sentences` and the deciding clause by
:func:`etki.domain.deciding_step` (the evidence text protocol lives there, never parsed
here). Every character of client and contract text reaches the screen as text (Rich
``Text``; a clause's markdown through :func:`etki.wiki.clauses.clause_markdown`), never
markup.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.markdown import Markdown
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from etki.domain import (
    LISTED_MORE,
    DecidingClause,
    Decision,
    ScopeClause,
    SentenceQuote,
    deciding_step,
    is_declared_remit,
    lead_in_list,
    quoted_sentences,
    reasoning_quote,
)
from etki.services.nearest import NearestSentence, nearest_sentence
from etki.text import plural, printable
from etki.wiki.clauses import clause_markdown
from etki_tui.render import (
    FIELD_LABEL_CELLS,
    _indent,
    _section,
    clause_head,
    one_line,
    remit_label,
)

DECIDING_STYLE = "reverse"
"""The sentence that decided or names the ask, marked in its clause (reverse video reads
without colour)."""

AGAINST_STYLE = "underline"
"""An exclusion (or another party's duty) the engine weighed, marked in its clause."""

FOLD_OVER_LINES = 16
"""A clause whose text takes more lines than this at the pane's width is folded (unless
the reviewer asked for whole clauses, ``w``)."""

CONTEXT_LINES = 4
"""Lines kept before the first and after the last marked line of a folded clause (up to
the paragraph's edge, never past a blank line)."""

HEAD_LINES = 8
"""Lines of a folded clause with no marked sentence: its opening."""

DECIDED_ON = "the evidence decided on {what}"
"""What the desk says of the deciding clause (the ``classify`` step's marker,
:data:`etki.domain.DECIDING`), here and in the clause-memory strip
(:func:`etki_tui.queue.detail.why_counted`). The marker names a clause, not a sentence:
the engine may decide on a clause by its role alone (10 of 22 talentmap cases quote no
sentence of it), so neither place says a "deciding sentence" is in it (a trial: the strip
said "deciding sentence in it" where the detail said no sentence was quoted)."""

_ROLE_SIDE = {"exclusion": "against", "client duty": "against", "future": "route"}
"""The quoted side of a deciding sentence of each ``classify`` role (others:
``obligation``)."""


NEAREST_LABEL = "nearest sentence (shared words: {words})"
"""How the desk names the sentence of the deciding clause it folds to when the evidence
quotes none (:func:`etki.services.nearest.nearest_sentence`): a display choice, never
called the deciding sentence."""


@dataclass(frozen=True)
class Evidence:
    """What a decision's evidence says about contract sentences: the ``deciding`` clause
    (None when the ``classify`` step names none) and the ``quotes``; ``nearest``: when
    no quote is of the deciding clause, its sentence nearest the request (shown and
    marked as such, not as a quote), else None."""

    deciding: DecidingClause | None
    quotes: tuple[SentenceQuote, ...]
    nearest: NearestSentence | None = None

    def nearest_label(self) -> str:
        """:data:`NEAREST_LABEL` for :attr:`nearest` (``""`` when there is none)."""
        if self.nearest is None:
            return ""
        return NEAREST_LABEL.format(words=", ".join(self.nearest.shared))

    def is_deciding(self, quote: SentenceQuote) -> bool:
        """``quote`` is a sentence of the deciding clause quoted for its side."""
        d = self.deciding
        return (
            d is not None
            and quote.ref == d.ref
            and quote.side == _ROLE_SIDE.get(d.role, "obligation")
        )

    def style(self, quote: SentenceQuote) -> str:
        """How ``quote`` is marked in its clause: an exclusion that did not decide is
        underlined (:data:`AGAINST_STYLE`), every other quote reversed."""
        if quote.side == "against" and not self.is_deciding(quote):
            return AGAINST_STYLE
        return DECIDING_STYLE

    def refs(self) -> list[str]:
        """The refs the evidence names, deciding first, each once."""
        out = [self.deciding.ref] if self.deciding is not None else []
        return list(dict.fromkeys([*out, *(q.ref for q in self.quotes)]))


def evidence_of(
    decision: Decision, request: str = "", clauses: Mapping[str, ScopeClause] | None = None
) -> Evidence:
    """The :class:`Evidence` of ``decision`` (its frozen evidence chain); when no step
    quotes a sentence of the deciding clause, the sentence its reasoning quotes of it
    (:func:`etki.domain.reasoning_quote`) is the deciding sentence, first. When neither
    does and ``request`` and the clause (in ``clauses``) are given, :attr:`Evidence.nearest`
    is the clause's sentence sharing the most content words with ``request``
    (:func:`etki.services.nearest.nearest_sentence`, the contract's other clauses
    telling whether one shared word is rare enough; None when no sentence shares
    enough)."""
    deciding = deciding_step(decision.evidence, decision.cited_clauses)
    quotes = quoted_sentences(decision.evidence)
    ev = Evidence(deciding, quotes)
    if deciding is not None and not any(ev.is_deciding(q) for q in quotes):
        found = reasoning_quote(decision.reasoning, deciding.ref)
        if found is not None:
            side = _ROLE_SIDE.get(deciding.role, "obligation")
            text, clipped, listed = found
            quote = SentenceQuote(deciding.ref, text, clipped, side, "reasoning", False, "", listed)
            ev = Evidence(deciding, (quote, *quotes))
    if (
        deciding is not None
        and request
        and clauses
        and not any(ev.is_deciding(q) for q in ev.quotes)
        and (clause := clauses.get(deciding.ref)) is not None
        and not is_declared_remit(clause)
    ):
        others = tuple(  # each other clause of the contract: its title, its text
            text
            for c in clauses.values()
            if c.contract_id == clause.contract_id and c.ref != clause.ref
            for text in (c.title, c.plain)
        )
        ev = replace(ev, nearest=nearest_sentence(request, clause.plain, others))
    return ev


def _clause_name(ref: str, clauses: Mapping[str, ScopeClause]) -> Text:
    clause = clauses.get(ref)
    out = Text()
    if clause is None:
        out.append(one_line(ref, 120), style="bold")
        return out
    out.append(one_line(clause.number, 60), style="bold")
    if clause.title:
        out.append(" " + one_line(clause.title, 120), style="bold")
    return out


def _quote_text(quote: SentenceQuote, style: str, listed: Sequence[str] = ()) -> Text:
    """``quote`` in quotation marks, styled; ``listed``: the items a lead-in ending in
    ``:`` introduces (:func:`listed_after`), one a line after it, inside the marks (an
    item's leading spaces, two per level of a nested list, indent its ``·``; the count
    of the items left out, :data:`etki.domain.LISTED_MORE`, says which key shows them)."""
    out = Text("“")
    out.append(printable(quote.text, multiline=False), style=style)
    for item in listed:
        text = item.lstrip(" ")
        out.append("\n" + " " * (len(item) - len(text)) + "· ")
        if _MORE.fullmatch(text):
            out.append(text + " (w: the whole clause)", style="dim")
            continue
        out.append(printable(text, multiline=False), style=style)
    out.append("…”" if quote.clipped else "”")
    return out


_MORE = re.compile(re.escape(LISTED_MORE).replace(re.escape("{n}"), r"\d+"))
"""The last listed item when more were left out (:data:`etki.domain.LISTED_MORE`)."""


SENTENCE_MAX_CHARS = 600
"""Characters a clipped exclusion's sentence is completed to at most (a longer one keeps
its ``…``)."""


def whole_sentence(quote: SentenceQuote, clause: ScopeClause | None) -> SentenceQuote:
    """``quote`` with the rest of its sentence when the engine clipped it (``…``): in the
    line (paragraph or list item) of the clause's plain text holding the quote, from the
    quote to the sentence's end (``.``, ``!`` or ``?`` before a space, or the line's end),
    whitespace runs made single spaces. ``quote`` itself when it is whole, not found word
    for word, or the sentence is longer than :data:`SENTENCE_MAX_CHARS`."""
    if clause is None or not quote.clipped:
        return quote
    want = " ".join(quote.text.split())
    for line in clause.plain.splitlines():
        flat = " ".join(line.split())
        at = flat.find(want)
        if at < 0:
            continue
        rest = flat[at:]
        end = re.search(r"[.!?](?= |$)", rest[len(want) :])
        sentence = rest[: len(want) + end.end()] if end is not None else rest
        if len(sentence) > SENTENCE_MAX_CHARS:
            return quote
        return replace(quote, text=sentence, clipped=False)
    return quote


QUOTE_CUT_MIN = 40
"""Characters a quote cut back to its last whole sentence must keep; shorter, it is cut
back to its last whole word instead (a sentence of a few words says less than most of a
long one)."""


def cut_whole(text: str) -> str:
    """A clipped quote's ``text`` cut back to a boundary: the end of its last whole
    sentence (``.``, ``!`` or ``?`` before a space) when that keeps
    :data:`QUOTE_CUT_MIN` characters, else its last whole word, trailing commas and the
    like dropped; the quote's ``…`` then stands for what is left out (a later trial of
    issue 34: ``… the work perfor…``)."""
    ends = [m.end() for m in re.finditer(r"[.!?](?= )", text)]
    if ends and ends[-1] >= QUOTE_CUT_MIN:
        return text[: ends[-1]]
    head, space, _tail = text.rstrip().rpartition(" ")
    return (head if space else text).rstrip(" ,;:-–—(")


def shown_quote(quote: SentenceQuote, clause: ScopeClause | None) -> SentenceQuote:
    """``quote`` as the Evidence section shows it: completed to its sentence where the
    engine clipped it (:func:`whole_sentence`); where that cannot be done (not found word
    for word, or longer than :data:`SENTENCE_MAX_CHARS`) cut back to a sentence or word
    boundary (:func:`cut_whole`), still marked clipped (``…``)."""
    full = whole_sentence(quote, clause)
    if not full.clipped:
        return full
    return replace(full, text=cut_whole(full.text))


def listed_after(quote: SentenceQuote, clause: ScopeClause | None) -> list[str]:
    """The items of the list a lead-in ``quote`` ending in ``:`` introduces, by the one
    rule of :func:`etki.domain.lead_in_list` (at most :data:`etki.domain.LISTED_MAX`,
    then the count left out; a nested item with two leading spaces per level): the ones
    the engine quoted after it (:attr:`SentenceQuote.listed`, engine 3.2.2), else, for an
    older decision or a sentence the desk picks (:attr:`Evidence.nearest`), the ones
    under it in ``clause``'s markdown. ``[]`` when the quote does not end in ``:``, is
    clipped, or is not found word for word (by its letters) in the clause."""
    if quote.listed:
        return list(quote.listed)
    if clause is None or quote.clipped:
        return []
    return list(lead_in_list(quote.text, clause.text))


def evidence_section(
    decision: Decision,
    clauses: Mapping[str, ScopeClause],
    *,
    whole: bool = False,
    request: str = "",
) -> list[RenderableType]:
    """The detail pane's ``Evidence`` section, shown right under the Verdict line:
    the deciding clause (its number, title and role, and the sentence the evidence
    quotes of it), every other sentence quoted as naming the ask, then each exclusion
    the engine weighed (the closest one with its match against the best obligation's,
    from the ``exclusion_check`` step's scores). Each quote is styled as it is marked
    in the clause below. ``whole``: the clauses are shown whole (else long ones folded;
    the heading says which key switches). ``request``: the request's text; when the
    evidence quotes no sentence of the deciding clause, its sentence nearest the
    request is quoted under :data:`NEAREST_LABEL` (:attr:`Evidence.nearest`).

    Every quoted sentence ending in ``:`` is a lead-in that says nothing alone (the
    deciding "… a mix of the following deliverables:" of talentmap 9; the nearest "… the
    post and position data will be sourced as follows:" of talentmap 4; an exclusion's
    "… will not be responsible to perform the following:"): it is quoted with the list
    under it, by one rule (:func:`_listed_quote`, :func:`listed_after`:
    :func:`etki.domain.lead_in_list`, at most :data:`etki.domain.LISTED_MAX` items, the
    rest counted). Not the next best sentence instead: the lead-in is the one sharing
    most of the request's words, and its list is what it says."""
    ev = evidence_of(decision, request, clauses)
    head = _section("Evidence")
    head.append(
        " · marked below · w " + ("folds clauses" if whole else "whole clauses") + " · l contract",
        style="dim",
    )
    rows: list[tuple[str, RenderableType]] = []
    if ev.deciding is not None:
        line = _clause_name(ev.deciding.ref, clauses)
        if ev.deciding.role:
            line.append(f" ({one_line(ev.deciding.role, 40)})", style="dim")
        own = [q for q in ev.quotes if ev.is_deciding(q)]
        for q in own:
            line.append("\n")
            line.append_text(_listed_quote(q, ev.style(q), clauses))
        if not own:  # the classify step names the clause (by its role), no sentence
            line.append(
                f"\n{DECIDED_ON.format(what='it')} but quotes no sentence of it "
                "(see the clause below)",
                style="dim",
            )
            if ev.nearest is not None:
                line.append("\n" + ev.nearest_label() + ":", style="dim")
                near = SentenceQuote(ev.deciding.ref, ev.nearest.text, False, "", "", False, "")
                line.append("\n")
                line.append_text(_listed_quote(near, DECIDING_STYLE, clauses))
        rows.append(("Deciding", line))
    for q in ev.quotes:
        if ev.is_deciding(q) or q.side == "against":
            continue
        line = _clause_name(q.ref, clauses)
        line.append("\n")
        line.append_text(_listed_quote(q, ev.style(q), clauses))
        rows.append(("Names it", line))
    scores = {
        name: value
        for s in decision.evidence
        if s.step == "exclusion_check"
        for name, value in s.scores
    }
    for q in sorted(ev.quotes, key=lambda q: not q.weighed):  # the weighed one first
        if q.side != "against" or ev.is_deciding(q):
            continue
        line = _clause_name(q.ref, clauses)
        if q.weighed:
            line.append(" · an exclusion of the clause it rests on", style="dim")
        if q.step == "exclusion_check" and "against" in scores and "obligation" in scores:
            line.append(
                f" · closest: match {scores['against']:.2f} vs obligation {scores['obligation']:.2f}",
                style="dim",
            )
        line.append("\n")
        line.append_text(_listed_quote(q, ev.style(q), clauses))
        rows.append(("Weighed" if q.weighed else "Exclusion", line))
    if not rows:
        rows.append(("", Text("the evidence names no contract sentence", style="dim")))
    grid = Table.grid()
    grid.add_column(width=FIELD_LABEL_CELLS, no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")
    for label, value in rows:
        grid.add_row(Text(label), value)
    return [head, grid]


def _listed_quote(quote: SentenceQuote, style: str, clauses: Mapping[str, ScopeClause]) -> Text:
    """``quote`` as the Evidence section quotes every sentence: completed or cut back
    (:func:`shown_quote`), a lead-in with the list it introduces (:func:`listed_after`)."""
    clause = clauses.get(quote.ref)
    full = shown_quote(quote, clause)
    return _quote_text(full, style, listed_after(full, clause))


# --- a clause with its quoted sentences marked, folded when long --------------------


def _letters(text: str) -> str:
    """The letters and digits of ``text`` (NFC), in order: what a quoted sentence and
    the rendered clause are matched on (markdown escapes, emphasis, wrapping and
    whitespace differ between them; the words do not)."""
    return "".join(c for c in unicodedata.normalize("NFC", text) if c.isalnum())


_SENTENCE_END = ".!?;:"


class MarkedClause:
    """A clause's text rendered as :func:`etki_tui.render.clause_text` does (its
    markdown display form), with each quoted sentence of ``marks`` ((text, clipped,
    style)) styled where it appears, and, unless ``whole``, folded when longer than
    :data:`FOLD_OVER_LINES` lines at the width given: to the paragraph(s) around the
    marked sentences (at most :data:`CONTEXT_LINES` lines either side), or to its first
    :data:`HEAD_LINES` when nothing is marked, with a dim line saying how many lines are
    left out above and below and the key that shows them (``w``). A Rich renderable:
    the width is the pane's at render time. A clipped quote is marked to the end of
    its sentence. A sentence the rendering does not hold word for word is not marked
    (the Evidence section still quotes it)."""

    def __init__(
        self, markdown: str, marks: Sequence[tuple[str, bool, str]], *, whole: bool
    ) -> None:
        self.markdown = markdown
        self.marks = tuple(marks)
        self.whole = whole

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        rendered = console.render_lines(
            Markdown(self.markdown, hyperlinks=False), options, pad=False
        )
        lines: list[Text] = []
        for row in rendered:
            line = Text()
            for seg in row:
                if not seg.control:
                    line.append(seg.text, seg.style)
            lines.append(line)
        while lines and not lines[0].plain.strip():
            lines.pop(0)
        while lines and not lines[-1].plain.strip():
            lines.pop()
        marked = self._mark(lines)
        keep = [range(len(lines))]
        if not self.whole and len(lines) > FOLD_OVER_LINES:
            keep = self._kept(lines, marked)
        newline = Segment.line()
        at = 0
        for part in keep:
            if part.start > at:
                where = "above" if at == 0 else "not shown"
                yield Text(
                    f"… {part.start - at} {plural(part.start - at, 'line')} {where} · w shows the whole clause",
                    style="dim",
                )
            for i in part:
                yield from lines[i].render(console)
                yield newline
            at = part.stop
        if len(lines) > at:
            yield Text(
                f"… {len(lines) - at} {plural(len(lines) - at, 'line')} below · w shows the whole clause",
                style="dim",
            )

    def _mark(self, lines: list[Text]) -> list[int]:
        """Style every mark found in ``lines``; the indices of the lines marked."""
        stream: list[str] = []
        where: list[tuple[int, int]] = []
        for i, line in enumerate(lines):
            for j, ch in enumerate(line.plain):
                if ch.isalnum():
                    stream.append(unicodedata.normalize("NFC", ch))
                    where.append((i, j))
        flat = "".join(stream)
        if len(flat) != len(where):  # a character NFC changed the length of: give up
            return []
        marked: set[int] = set()
        for text, clipped, style in self.marks:
            needle = _letters(text)
            at = flat.find(needle) if needle else -1
            if at < 0:
                continue
            first, last = where[at], where[at + len(needle) - 1]
            if clipped:
                end = self._sentence_end(lines, last)
            else:  # with the sentence's closing mark(s), which are no letters
                plain, stop = lines[last[0]].plain, last[1] + 1
                while stop < len(plain) and plain[stop] in _SENTENCE_END + '”")]':
                    stop += 1
                end = (last[0], stop)
            for i in range(first[0], end[0] + 1):
                start = first[1] if i == first[0] else 0
                stop = end[1] if i == end[0] else len(lines[i].plain.rstrip())
                lines[i].stylize(style, start, stop)
                marked.add(i)
        return sorted(marked)

    @staticmethod
    def _sentence_end(lines: list[Text], last: tuple[int, int]) -> tuple[int, int]:
        """(line, end column) of the sentence a clipped quote's last letter is in: after
        the next sentence mark, or the end of the paragraph."""
        i, j = last[0], last[1] + 1
        while i < len(lines):
            plain = lines[i].plain
            while j < len(plain):
                if plain[j] in _SENTENCE_END and (j + 1 == len(plain) or plain[j + 1] == " "):
                    return i, j + 1
                j += 1
            if i + 1 >= len(lines) or not lines[i + 1].plain.strip():
                return i, len(plain.rstrip())
            i, j = i + 1, 0
        return last[0], last[1] + 1

    @staticmethod
    def _kept(lines: list[Text], marked: list[int]) -> list[range]:
        """The parts a folded clause keeps, in order, none overlapping: around each
        marked line up to :data:`CONTEXT_LINES` either side within its paragraph (parts
        that touch are one); the opening lines when nothing is marked."""
        if not marked:
            return [range(0, HEAD_LINES)]
        parts: list[range] = []
        for line in marked:
            start, stop = line, line + 1
            for _ in range(CONTEXT_LINES):
                if start == 0 or not lines[start - 1].plain.strip():
                    break
                start -= 1
            for _ in range(CONTEXT_LINES):
                if stop >= len(lines) or not lines[stop].plain.strip():
                    break
                stop += 1
            if parts and start <= parts[-1].stop + 1:
                parts[-1] = range(parts[-1].start, max(stop, parts[-1].stop))
            else:
                parts.append(range(start, stop))
        return parts


@functools.lru_cache(maxsize=256)
def _display(text: str) -> str:
    return clause_markdown(text)


def marked_clause_block(
    ref: str, clause: ScopeClause | None, evidence: Evidence, *, whole: bool = False
) -> Group:
    """A cited clause as :func:`etki_tui.render.clause_block` shows it (number, title,
    kind, ref), its text a :class:`MarkedClause`: the sentences ``evidence`` quotes of
    it marked (styled as :meth:`Evidence.style`), folded when long unless ``whole``;
    the deciding clause's :attr:`Evidence.nearest` marked like a quote under a dim
    :data:`NEAREST_LABEL` line (the fold then centres on it).
    A declared-remit statement is plain text and short: shown as written, unmarked."""
    head = clause_head(ref, clause)
    if clause is None:
        return Group(head)
    if evidence.deciding is not None and evidence.deciding.ref == ref:
        head.append("  deciding", style="bold reverse")
    parts: list[RenderableType] = [head]
    if is_declared_remit(clause):
        parts.append(_indent(Text(remit_label(clause), style="italic")))
        parts.append(_indent(Text(printable(clause.text.strip() or "(no text)", multiline=True))))
        return Group(*parts)
    shown = _display(clause.text)
    if not shown:
        parts.append(_indent(Text("(no text)", style="dim")))
        return Group(*parts)
    marks = [(q.text, q.clipped, evidence.style(q)) for q in evidence.quotes if q.ref == ref]
    deciding = evidence.deciding is not None and evidence.deciding.ref == ref
    if deciding and evidence.nearest is not None:
        marks.append((evidence.nearest.text, False, DECIDING_STYLE))
        parts.append(
            _indent(Text(evidence.nearest_label() + ", marked (no sentence quoted)", style="dim"))
        )
    parts.append(_indent(MarkedClause(shown, marks, whole=whole)))
    return Group(*parts)
