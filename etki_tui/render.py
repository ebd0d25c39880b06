"""Pure builders of Rich ``Text`` for the desk: no Textual, no I/O, no clock.

Every piece of client text (titles, request text, reasons, snippets, page text) goes
through :func:`etki.text.printable` and into ``rich.text.Text(...)`` — never into a
markup string — so nothing a client wrote can restyle the screen, open a link or run an
action (shared/cases B01, B03). Table cells are one line and cut on grapheme boundaries
(B05) by :func:`fit`.

Meaning is never carried by colour alone: a verdict is a glyph *and* a word, a disputed
clause says ``! DISPUTED`` (in red, :data:`DISPUTED_STYLE`, on a colour terminal), a
risky case says ``24h``.

The queue's case-detail builders and row cells are in :mod:`etki_tui.queue.detail`; what
is here is shared by every tab and the modals.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence

from rich.cells import cell_len, split_graphemes
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.markdown import Markdown
from rich.measure import Measurement
from rich.padding import Padding
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from etki.domain import (
    RulingRecord,
    ScopeClause,
    is_declared_remit,
)
from etki.text import fold, fold_with_offsets, printable, slugify, spellings
from etki.wiki.clauses import clause_markdown
from etki_tui.glyphs import WARN

VERDICT_GLYPH: dict[str, str] = {"IN_SCOPE": "✓", "CHANGE_REQUEST": "+", "REJECT": "✗"}
"""Single-width glyphs (East Asian width N/Na) shown next to the verdict word."""

VERDICT_STYLE: dict[str, str] = {"IN_SCOPE": "green", "CHANGE_REQUEST": "yellow", "REJECT": "red"}
DISPUTED = f"{WARN} DISPUTED"
DISPUTED_STYLE = "bold reverse red on bright_white"
"""The disputed mark: white on red, both colours its own, so a highlighted list entry or
a cursor row (blue) cannot recolour it (with only ``reverse red`` it read blue on red
under Hafıza's cursor); reverse video, so it reads on a 16-colour terminal and, by the
glyph and word, without colour at all (NO_COLOR keeps the reverse)."""
DISPUTED_RESOLVED = f"{WARN} DISPUTED-RESOLVED"
RESOLVED_STYLE = "bold reverse yellow on black"
"""A disputed clause a person resolved (issue 14 item 6): black on yellow, its own colours
as :data:`DISPUTED_STYLE`; the word says it, the colour is not red (it no longer asks for
the 24h PMO look)."""
ELLIPSIS = "…"
MATCH_STYLE = "bold reverse"
"""Search matches: reverse video reads without colour (and on a 16-colour terminal)."""


# --- one-line cells --------------------------------------------------------------------


def _is_regional_indicator(cluster: str) -> bool:
    return len(cluster) == 1 and 0x1F1E6 <= ord(cluster) <= 0x1F1FF


def graphemes(text: str) -> list[tuple[str, int]]:
    """Split ``text`` into (grapheme, cell width) pairs.

    Rich's splitter keeps ZWJ sequences, variation selectors and combining marks with
    their base; regional-indicator pairs (flags) are merged here so a flag is never cut
    in half."""
    spans, _ = split_graphemes(text)
    out: list[tuple[str, int]] = []
    pending_flag = False
    for start, end, width in spans:
        cluster = text[start:end]
        if pending_flag and _is_regional_indicator(cluster):
            prev, prev_width = out[-1]
            out[-1] = (prev + cluster, prev_width + width)
            pending_flag = False
            continue
        out.append((cluster, width))
        pending_flag = _is_regional_indicator(cluster)
    return out


_ONE_CELL = re.compile("[\x20-\x7e\xa0-\xac\xae-\u02af]*")
"""Text made only of these (printable ASCII, Latin-1, Latin Extended-A/B, IPA: no
combining marks, no wide or zero-width characters) has one cell per character and one
character per grapheme, so it can be cut by index (tests/test_tui_render.py checks
every character of the class against :func:`graphemes`)."""


def number_is_title_slug(number: str, title: str) -> bool:
    """Whether a clause's ``number`` is no number but the slug of its ``title`` (an
    unnumbered clause's ref, :func:`etki.text.slugify`, also cut: talentmap's
    ``performance-work-statement-pws`` for "PERFORMANCE WORK STATEMENT (PWS)"), so a
    label says the title alone rather than it twice."""
    title = title.strip()
    if not title or not any(c.isalpha() for c in number):
        return False
    slug = slugify(title, max_chars=len(title) + 1)
    return slug == number or slug.startswith(number + "-")


def clause_label(number: str, title: str) -> str:
    """``4.2 Online payments``: a clause's number and title for a list of clauses, the
    title alone when the number is its slug (:func:`number_is_title_slug`)."""
    if number_is_title_slug(number, title):
        return title.strip()
    return f"{number} {title}".strip()


def fit(text: str, width: int) -> str:
    """``text`` cut to at most ``width`` cells on a grapheme boundary, with ``…`` when
    something was cut. ``text`` should already be one line (see :func:`cell`)."""
    if width <= 0:
        return ""
    if _ONE_CELL.fullmatch(text):  # the common case, without splitting graphemes
        return text if len(text) <= width else text[: width - 1] + ELLIPSIS
    if cell_len(text) <= width:
        return text
    out: list[str] = []
    used = 0
    budget = width - 1  # room for the ellipsis
    for cluster, w in graphemes(text):
        if used + w > budget:
            break
        out.append(cluster)
        used += w
    return "".join(out) + ELLIPSIS


def cell(text: str, width: int | None = None, style: str = "") -> Text:
    """A one-line, terminal-safe table cell from client text (only a head of ``text``
    a few times ``width`` long is read: a megabyte title costs what a short one does)."""
    if width is not None and len(text) > 4 * width + 64:
        text = text[: 4 * width + 64] + ELLIPSIS
    safe = printable(text, multiline=False)
    if width is not None:
        safe = fit(safe, width)
    return Text(safe, style=style, no_wrap=True, overflow="ellipsis", end="")


def literal(text: str, style: str = "") -> Text:
    """Multi-line client text, shown exactly as written (minus control characters)."""
    return Text(printable(text, multiline=True), style=style)


DETAIL_TEXT_CHARS = 20_000
"""Most characters of one client text (a request's text) the detail pane renders; the
rest is folded into a "… N more characters" line. 20,000 characters is about 250 lines
of the 80-column pane, some ten full screens of reading (the longest real request is
495 characters); Textual lays it out in a few milliseconds, so not even a request stored
before the request cap (``ETKI_MAX_REQUEST_CHARS``) keeps the desk's keys waiting."""
DETAIL_LINE_CHARS = 1_000
"""Most characters of a one-line client field (title, submitter) in the detail pane."""


def fold_long(text: str, limit: int = DETAIL_TEXT_CHARS) -> tuple[str, int]:
    """``(head, hidden)``: the first ``limit`` characters of ``text``, cut on a grapheme
    boundary (a flag, a ZWJ sequence or a letter with its combining marks is kept whole
    or left out whole), and how many characters of ``text`` follow ``head`` (0 when
    ``text`` is at most ``limit`` characters). Only the head is scanned: the cost does
    not grow with ``text``."""
    if len(text) <= limit:
        return text, 0
    used = 0
    for cluster, _width in graphemes(text[: limit + 64]):
        if used + len(cluster) > limit:
            break
        used += len(cluster)
    return text[:used], len(text) - used


def folded(text: str, style: str = "", limit: int = DETAIL_TEXT_CHARS) -> Text:
    """:func:`literal` of the first ``limit`` characters of ``text`` (:func:`fold_long`),
    followed, when something was left out, by a dim line ``… N more characters not
    shown (M in all)``: a huge stored text never reaches the layout."""
    head, hidden = fold_long(text, limit)
    out = literal(head, style=style)
    if hidden:
        out.append(f"\n… {hidden:,} more characters not shown ({len(text):,} in all)", style="dim")
    return out


def one_line(text: str, limit: int = DETAIL_LINE_CHARS) -> str:
    """One-line client text for the detail pane: :func:`printable` of at most ``limit``
    characters (:func:`fold_long`), with ``…`` when something was cut."""
    head, hidden = fold_long(text, limit)
    return printable(head, multiline=False) + (ELLIPSIS if hidden else "")


# --- search matches ---------------------------------------------------------------------


def match_spans(text: str, tokens: Sequence[str]) -> list[tuple[int, int]]:
    """Where the folded ``tokens`` (see :func:`etki.wiki.search.query_tokens`) occur in
    ``text``, as merged (start, end) character spans of ``text``.

    The search matches on folded text (Turkish ``İ``/``I``/``ı`` all fold to ``i``,
    ``ß`` to ``ss``, accents dropped); :func:`etki.text.fold_with_offsets` maps each
    folded match back to the original characters, so ``İADE`` is highlighted whole for
    the query ``iade``; each token in all its spellings (:func:`etki.text.spellings`:
    ``groesse`` marks ``Größe``). ``text`` should be NFC (everything shown went through
    :func:`etki.text.printable`, which normalises); otherwise its NFC form is used."""
    nfc = unicodedata.normalize("NFC", text)
    folded, origin = fold_with_offsets(nfc)
    spans: list[tuple[int, int]] = []
    for token in dict.fromkeys(s for t in tokens if t for s in spellings(t)):
        at = folded.find(token)
        while at >= 0:
            start = origin[at]
            end = origin[at + len(token) - 1] + 1
            while end < len(nfc) and unicodedata.combining(nfc[end]):
                end += 1  # keep a trailing combining mark with its letter
            spans.append((start, end))
            at = folded.find(token, at + 1)
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def count_matches(text: str, tokens: Sequence[str]) -> int:
    """How many matches of ``tokens`` ``text`` holds, folded as the search folds
    (:func:`etki.text.fold`: case, Turkish ``İ``/``ı``, ``ß``, NFC/NFD alike; each token
    in all its :func:`etki.text.spellings`), overlapping ones counted once: the count of
    :func:`match_spans` (merged in folded offsets; a multi-letter fold such as ``ß``
    touching the next match is the only place the two can differ), at C speed for the
    long part of a page a preview leaves out (``index.md`` of a 10k wiki is megabytes)."""
    folded = fold(text)
    spans: list[tuple[int, int]] = []
    for token in dict.fromkeys(s for t in tokens if t for s in spellings(t)):
        at = folded.find(token)
        while at >= 0:
            spans.append((at, at + len(token)))
            at = folded.find(token, at + 1)
    spans.sort()
    count, end = 0, -1
    for start, stop in spans:
        if start > end:
            count += 1
        end = max(end, stop)
    return count


def around_match(text: str, tokens: Sequence[str], width: int) -> Text:
    """A one-line cell of ``text`` at most ``width`` cells wide that shows the first
    match of ``tokens`` (cut in front with ``…`` when the match would be off the end)."""
    safe = printable(text, multiline=False)
    spans = match_spans(safe, tokens)
    if spans and cell_len(safe[: spans[0][1]]) > width - 1:
        start = max(0, spans[0][0] - max(4, width // 4))
        safe = ELLIPSIS + safe[start:].lstrip(ELLIPSIS)
    return cell(safe, width)


def highlight(text: Text, tokens: Sequence[str], style: str = MATCH_STYLE) -> Text:
    """``text`` with every match of ``tokens`` styled (in place; returned for chaining)."""
    for start, end in match_spans(text.plain, tokens):
        text.stylize(style, start, end)
    return text


# --- verdicts, risk, clauses -----------------------------------------------------------

VERDICT_SHORT: dict[str, str] = {"CHANGE_REQUEST": "CR"}
"""Narrow table cells say ``+ CR`` for a change request (the footer's "Convert to CR")."""


def verdict_text(verdict: str, *, bold: bool = False, short: bool = False) -> Text:
    """``✓ IN_SCOPE`` / ``+ CHANGE_REQUEST`` (``+ CR`` when ``short``) / ``✗ REJECT``
    with its colour."""
    style = VERDICT_STYLE.get(verdict, "")
    if bold:
        style = f"bold {style}".strip()
    word = VERDICT_SHORT.get(verdict, verdict) if short else verdict
    return Text(f"{VERDICT_GLYPH.get(verdict, '?')} {word}", style=style, end="")


def short_ref(ref: str) -> str:
    """The clause number part of a ref (``MSA-2024-01#3.2`` -> ``3.2``)."""
    return ref.split("#", 1)[1] if "#" in ref else ref


def short_case_id(case_id: str) -> str:
    """``req-demo-1a2b3c4d`` -> ``1a2b3c4d`` (the part after the last ``-``): the id the
    narrow queue and Hafıza show, which the CLI takes too (``Desk.case_id_for``)."""
    return case_id.rsplit("-", 1)[-1] if case_id.count("-") >= 2 else case_id


def when(iso_moment: str) -> str:
    """``2026-11-29T12:00:00Z`` -> ``2026-11-29 12:00Z`` (no relative times: no clock)."""
    if len(iso_moment) >= 16 and iso_moment[10] == "T":
        return f"{iso_moment[:10]} {iso_moment[11:16]}Z"
    return iso_moment


def remit_label(clause: ScopeClause) -> str:
    """Where a declared-remit clause comes from, for a reader who expects contract text:
    ``PMO's declared remit (etki.yaml scope.out, line 38)``."""
    side = "out" if clause.kind == "exclusion" else "in"
    return f"PMO's declared remit (etki.yaml scope.{side}, line {clause.line})"


class _ClauseView:
    """Rich's :class:`~rich.markdown.Markdown` of a clause's display form, without the
    blank line Rich puts before a list that opens a document (so a clause that is a list
    starts right under its heading, as a paragraph does)."""

    def __init__(self, markdown: str) -> None:
        self.markdown = Markdown(markdown, hyperlinks=False)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(self.markdown, options, pad=False)
        start = 0
        while start < len(lines) and not "".join(s.text for s in lines[start]).strip():
            start += 1
        newline = Segment.line()
        for line in lines[start:]:
            yield from line
            yield newline


_ID_BREAKS = (re.compile(r"[^./]*[./]+|[^./]+"), re.compile(r"[^_-]*[_-]+|[^_-]+"))
"""Where a too-long identifier may break: after a ``.`` or ``/`` (its path), then, for a
part still too long, after a ``_`` or ``-`` (its words)."""


class IdList:
    """Identifiers (module ids such as ``tdpservice.users.management.commands.
    reset_cypress_profile_editing_users``) joined by ``, `` and wrapped to the width
    given: between ids; an id that does not fit on a line of its own breaks after a
    ``.`` or ``/``, then after a ``_`` or ``-``, and mid-word only where a part is still
    longer than the line. Rich wraps at spaces only, so a dotted id longer than the
    detail pane's value column broke anywhere in a word (a trial at 80 columns). Each id
    is made printable and one line."""

    def __init__(self, ids: Sequence[str]) -> None:
        self.ids = [printable(i, multiline=False) for i in ids]

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        whole = cell_len(", ".join(self.ids))
        shortest = max((cell_len(p) for i in self.ids for p in _pieces(i, 1)), default=0)
        return Measurement(min(shortest, options.max_width), min(whole, options.max_width))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(1, options.max_width)
        lines: list[str] = []
        line = ""
        for n, ident in enumerate(self.ids):
            sep = ", " if n < len(self.ids) - 1 else ""
            if line and cell_len(line + ident + sep.rstrip()) <= width:
                line += ident + sep
                continue
            if line:
                lines.append(line.rstrip())
            *whole, line = id_lines(ident + sep, width)
            lines += [w.rstrip() for w in whole]
        lines.append(line.rstrip())
        yield Text("\n".join(lines), overflow="fold")


def id_lines(ident: str, width: int) -> list[str]:
    """``ident`` (a wiki path, a slug, a dotted module id: one line, no spaces needed)
    as lines of at most ``width`` cells (``width`` >= 1), broken after a ``.`` or ``/``,
    then after a ``_`` or ``-`` (:data:`_ID_BREAKS`), mid-word only where a part is still
    longer than a line (the caller folds it). The lines join back to ``ident``. The one
    owner of how the desk breaks an identifier: :class:`IdList` (the detail pane), the
    reader's frontmatter and the links list use it."""
    width = max(1, width)
    lines: list[str] = []
    line = ""
    for piece in _pieces(ident, width):
        if line and cell_len(line + piece.rstrip()) > width:
            lines.append(line)
            line = ""
        line += piece
    return [*lines, line]


def id_tail(ident: str, width: int) -> str:
    """``ident`` in at most ``width`` cells: whole when it fits, else ``…`` and its end,
    cut at a break of :func:`id_lines` where one leaves the end at least half the room
    (``…--req-talentmap-6cee39a2``: a slug's end is its case id, the part that tells
    two apart). For a link label Textual's Markdown would otherwise fold mid-word (it
    wraps at spaces only)."""
    if cell_len(ident) <= width:
        return ident
    room = max(1, width - cell_len(ELLIPSIS))
    pieces = _pieces(ident, 1)
    tail = ""
    for piece in reversed(pieces):
        if cell_len(piece + tail) > room:
            break
        tail = piece + tail
    if cell_len(tail) < room // 2:  # no break near enough: cut by cells
        tail = ident
        while cell_len(tail) > room:
            tail = tail[1:]
    return ELLIPSIS + tail


def _pieces(ident: str, width: int) -> list[str]:
    """``ident`` cut at :data:`_ID_BREAKS` until each part fits ``width`` cells (a part
    with no break left stays whole: the caller folds it)."""
    parts = [ident]
    for rule in _ID_BREAKS:
        parts = [q for p in parts for q in (rule.findall(p) if cell_len(p) > width else [p])]
    return parts


@functools.lru_cache(maxsize=512)
def _clause_markdown_view(text: str) -> _ClauseView | None:
    """The renderable of :func:`etki.wiki.clauses.clause_markdown` of ``text`` (None
    when it has no words); parsed once per text, the pane re-renders it on every
    resize."""
    shown = clause_markdown(text)
    return _ClauseView(shown) if shown else None


def clause_text(clause: ScopeClause) -> RenderableType:
    """A clause's text as a reader should see it: the contract's markdown rendered for
    the terminal (:func:`etki.wiki.clauses.clause_markdown`: paragraphs reflowed to the
    pane, list items kept, bold and italic as styles, links as their words, HTML and
    quote marks gone, tables as rows of cells), drawn by Rich's
    :class:`rich.markdown.Markdown`. Every character of the clause's own text reaches the
    screen as text (escaped markdown, control characters made visible): never Rich
    markup, a link or a terminal escape. A declared-remit statement is plain text, shown
    as written (:func:`literal`)."""
    if is_declared_remit(clause):
        return literal(clause.text.strip() or "(no text)")
    view = _clause_markdown_view(clause.text)
    return view if view is not None else Text("(no text)", style="dim")


def clause_head(ref: str, clause: ScopeClause | None) -> Text:
    """A cited clause's heading line: ``§ number title  [kind]  ref`` (client and
    contract text literal), or the ref said not found when ``clause`` is None."""
    if clause is None:
        return Text.assemble(
            (printable(ref, multiline=False), "bold"),
            (" (clause not found in the stored project)", "dim"),
        )
    head = Text()
    head.append(f"§ {printable(clause.number, multiline=False)} ", style="bold")
    head.append(printable(clause.title, multiline=False), style="bold")
    head.append(f"  [{clause.kind}]", style="italic")
    head.append(f"  {printable(ref, multiline=False)}", style="dim")
    return head


def clause_block(ref: str, clause: ScopeClause | None) -> Group:
    """A cited clause in full: number, title, kind and text; a clause of the declared
    remit (:func:`etki.domain.is_declared_remit`) is labelled as the PMO's statement."""
    head = clause_head(ref, clause)
    if clause is None:
        return Group(head)
    parts: list[RenderableType] = [head]
    if is_declared_remit(clause):
        parts.append(_indent(Text(remit_label(clause), style="italic")))
    parts.append(_indent(clause_text(clause)))
    return Group(*parts)


def _indent(renderable: RenderableType, cells: int = 2) -> Padding:
    """``renderable`` indented by ``cells`` (wrapped lines too)."""
    return Padding(renderable, (0, 0, 0, cells))


FIELD_LABEL_CELLS = 12
"""Width of the label column of the detail pane's fields (``Verdict``, ``Risk`` ...)."""


def _fields(rows: Sequence[tuple[str, RenderableType]]) -> Table:
    """Label/value lines whose values wrap under themselves (a hanging indent at
    :data:`FIELD_LABEL_CELLS`), never back under the label."""
    grid = Table.grid()
    grid.add_column(width=FIELD_LABEL_CELLS, no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")
    for label, value in rows:
        grid.add_row(Text(label), value)
    return grid


def _bullets(items: Iterable[Text]) -> Table:
    """``- item`` lines indented two cells, each item wrapping under itself."""
    grid = Table.grid()
    grid.add_column(width=4)
    grid.add_column(ratio=1, overflow="fold")
    for item in items:
        grid.add_row(Text("  - "), item)
    return grid


def _section(title: str) -> Text:
    return Text(title, style="bold underline")


def ruled_banner(ruling: RulingRecord) -> Text:
    """The banner over a case another reviewer ruled while it was on screen."""
    out = Text()
    out.append(f"{WARN} ALREADY RULED", style="bold reverse")
    out.append(" by ")
    out.append(printable(ruling.reviewer, multiline=False), style="bold")
    out.append(f" at {when(ruling.ruled_at)}: ")
    # glyph and word in bold, no hue: the banner has its own background on any theme
    out.append(f"{VERDICT_GLYPH.get(ruling.ruling, '?')} {ruling.ruling}", style="bold")
    if ruling.is_override:
        out.append(" (override)")
    out.append(". Nothing you press here will be recorded; move to another case.")
    return out
