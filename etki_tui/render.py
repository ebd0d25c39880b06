"""Pure builders of Rich ``Text`` for the desk: no Textual, no I/O, no clock.

Every piece of client text (titles, request text, reasons, snippets, page text) goes
through :func:`etki.text.printable` and into ``rich.text.Text(...)`` — never into a
markup string — so nothing a client wrote can restyle the screen, open a link or run an
action (shared/cases B01, B03). Table cells are one line and cut on grapheme boundaries
(B05) by :func:`fit`.

Meaning is never carried by colour alone: a verdict is a glyph *and* a word, a disputed
clause says ``! DISPUTED`` (in red, :data:`DISPUTED_STYLE`, on a colour terminal), a
risky case says ``24h``.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from rich.cells import cell_len, split_graphemes
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.markdown import Markdown
from rich.measure import Measurement
from rich.padding import Padding
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from etki.domain import (
    DISPUTED_SIGNAL,
    CaseEvent,
    CaseRecord,
    CaseSummary,
    ClauseMemory,
    Decision,
    DisputedClause,
    Effort,
    Preanalysis,
    RulingRecord,
    ScopeClause,
    SimilarRuling,
    WorkItem,
    effort_basis_lines,
    is_declared_remit,
    memory_sentence,
    risk_wording,
    sureness_reasons,
)
from etki.memory import StoredRisk, current_risk, disputed_refs
from etki.text import fold_with_offsets, printable, spellings
from etki.wiki.clauses import clause_markdown
from etki_tui.filters import age_days, age_label
from etki_tui.glyphs import WARN

VERDICT_GLYPH: dict[str, str] = {"IN_SCOPE": "✓", "CHANGE_REQUEST": "+", "REJECT": "✗"}
"""Single-width glyphs (East Asian width N/Na) shown next to the verdict word."""

VERDICT_STYLE: dict[str, str] = {"IN_SCOPE": "green", "CHANGE_REQUEST": "yellow", "REJECT": "red"}
RISK_STYLE: dict[str, str] = {"high": "bold red", "medium": "yellow", "low": "dim"}
RISK_SHORT: dict[str, str] = {"high": "high", "medium": "med", "low": "low"}
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


def risk_cell(
    case: CaseRecord | CaseSummary,
    memory: Mapping[str, ClauseMemory] | None = None,
    escalate: bool = False,
) -> Text:
    """``high 24h`` / ``med`` / ``low`` — the word carries the level, ``24h`` the PMO look.
    With ``memory`` and ``escalate`` the risk is the :func:`current_risk` (a clause
    disputed since the triage shows ``high 24h``)."""
    risk, _ = current_risk(case.decision, memory, escalate)
    label = RISK_SHORT.get(risk.level, risk.level)
    if risk.pmo_look_24h:
        label += " 24h"
    return Text(label, style=RISK_STYLE.get(risk.level, ""), no_wrap=True, end="")


DISPUTED_PREFIX = DISPUTED + " "


def title_cell(title: str, width: int, disputed: bool) -> Text:
    """The queue's title cell, ``width`` cells wide at most; a case citing a disputed
    clause starts with the red ``! DISPUTED`` mark (glyph and word, so it reads
    without colour) and its title follows in the rest of the width."""
    if not disputed:
        return cell(title, width)
    out = Text(no_wrap=True, overflow="ellipsis", end="")
    out.append(DISPUTED_PREFIX, style=DISPUTED_STYLE)
    rest = width - cell_len(DISPUTED_PREFIX)
    if rest > 0:
        out.append_text(cell(title, rest))
    return out


def short_ref(ref: str) -> str:
    """The clause number part of a ref (``MSA-2024-01#3.2`` -> ``3.2``)."""
    return ref.split("#", 1)[1] if "#" in ref else ref


def short_case_id(case_id: str) -> str:
    """``req-demo-1a2b3c4d`` -> ``1a2b3c4d`` (the part after the last ``-``): the id the
    narrow queue and Hafıza show, which the CLI takes too (``Desk.case_id_for``)."""
    return case_id.rsplit("-", 1)[-1] if case_id.count("-") >= 2 else case_id


def clauses_cell(refs: Sequence[str], width: int = 9) -> Text:
    """Cited clause numbers, comma-joined, cut to ``width`` with a ``+N`` tail."""
    if not refs:
        return Text("—", style="dim", end="")
    return Text(_clauses_label(tuple(refs), width), no_wrap=True, overflow="ellipsis", end="")


@functools.lru_cache(maxsize=4096)
def _clauses_label(refs: tuple[str, ...], width: int) -> str:
    """The terminal-safe text of :func:`clauses_cell` (a pure function of its
    arguments: memoised, many cases cite the same clauses)."""
    shown: list[str] = []
    for i, ref in enumerate(refs):
        candidate = ",".join([*shown, short_ref(ref)])
        rest = len(refs) - i - 1
        tail = f"+{rest}" if rest else ""
        if cell_len(candidate + tail) > width and shown:
            return cell(",".join(shown) + f"+{len(refs) - i}", width).plain
        shown.append(short_ref(ref))
    return cell(",".join(shown), width).plain


def effort_label(effort: Effort) -> str:
    """:meth:`etki.domain.Effort.shown`: ``5–8 person-days``, ``13 person-days``,
    ``unknown``."""
    return effort.shown()


def effort_basis(effort: Effort, workitems: Mapping[str, WorkItem]) -> list[Text]:
    """One entry per work item the effort was computed from: ``WI-7 Card payments ·
    8 person-days · 2024-02-01`` (its id, title, ``effort_days`` and date as stored
    with the project, read by :func:`etki.domain.effort_basis_lines`, which the wiki's
    change-request page shares); an id the project no longer has says so. Client
    text, shown literally."""
    lines: list[Text] = []
    for entry in effort_basis_lines(effort, workitems):
        line = Text()
        line.append(one_line(entry.id, 120), style="bold")
        if entry.title is None:
            line.append(" (not among the project's work items)", style="dim")
            lines.append(line)
            continue
        line.append(" " + one_line(entry.title, 200))
        line.append(f" · {entry.days}")
        if entry.date:
            line.append(" · " + one_line(entry.date, 40), style="dim")
        lines.append(line)
    return lines


def when(iso_moment: str) -> str:
    """``2026-11-29T12:00:00Z`` -> ``2026-11-29 12:00Z`` (no relative times: no clock)."""
    if len(iso_moment) >= 16 and iso_moment[10] == "T":
        return f"{iso_moment[:10]} {iso_moment[11:16]}Z"
    return iso_moment


def correction_text(ruling: RulingRecord) -> Text:
    """``who, when: VERDICT -> RULING`` for a past correction."""
    out = Text()
    out.append(printable(ruling.reviewer, multiline=False))
    out.append(f", {when(ruling.ruled_at)}: ")
    out.append_text(verdict_text(ruling.verdict))
    out.append(" → ")
    out.append_text(verdict_text(ruling.ruling))
    return out


REASON_CHARS = 300
"""Most characters of a reviewer's reason shown in the clause-memory strip (the rest is
folded into ``…``; the decision page has it all)."""


def correction_lines(ruling: RulingRecord, precedents: Mapping[str, str] | None = None) -> Group:
    """The indented lines under a last correction: the reviewer's reason (literal, cut
    to :data:`REASON_CHARS` with ``…``), the precedent's case id and, when the wiki is
    on, its wiki page (from ``precedents``: case id -> wiki-relative path). Long values
    wrap under themselves (a hanging indent), not under the labels."""
    reason = Text()
    if ruling.reason.strip():
        reason.append("“" + one_line(ruling.reason.strip(), REASON_CHARS) + "”")
    else:
        reason.append("(none given)", style="dim")
    rows = [
        ("reason: ", reason),
        ("precedent: ", Text(one_line(ruling.case_id, 120), style="bold")),
    ]
    page = (precedents or {}).get(ruling.case_id)
    if page:  # a line of its own: a file name is one long word
        rows.append(("wiki: ", Text(one_line(page, 300), style="underline")))
    return Group(*(_hanging(Text(label, style="dim"), value, indent=4) for label, value in rows))


def _hanging(label: Text, value: Text, *, indent: int = 0) -> Table:
    """``label`` then ``value`` on one line, ``indent`` cells in; the value's wrapped
    lines start under its first character (a hanging indent)."""
    grid = Table.grid()
    grid.add_column(width=indent)
    grid.add_column(width=label.cell_len, no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")
    grid.add_row("", label, value)
    return grid


def memory_line(
    ref: str, mem: ClauseMemory | None, precedents: Mapping[str, str] | None = None
) -> RenderableType:
    """One line of the clause-memory strip for ``ref`` (with the last correction's
    reason and precedent on two more lines, see :func:`correction_lines`)."""
    out = Text(no_wrap=False)
    if mem is not None and mem.disputed:
        if mem.resolved:
            out.append(DISPUTED_RESOLVED, style=RESOLVED_STYLE)
        else:
            out.append(DISPUTED, style=DISPUTED_STYLE)
        out.append(" ")
    out.append(printable(ref, multiline=False), style="bold")
    if mem is None or not mem.history:
        out.append(" · no past rulings", style="dim")
        return out
    count = mem.precedent_count
    out.append(f" · {count} precedent{'s' if count != 1 else ''}")
    out.append(f" · {len(mem.history)} ruled")
    if mem.last_correction is not None:
        out.append(" · last correction: ")
        out.append_text(correction_text(mem.last_correction))
    if mem.disputed:
        rulings = sorted({h[1] for h in mem.disputing})  # the rulings about the clause
        if len(rulings) > 1:  # else the rulings agree and contradict the resolution
            # CR as in the strip above it (one screen, one word for it)
            out.append(
                " · rulings disagree: " + " / ".join(VERDICT_SHORT.get(v, v) for v in rulings)
            )
        out.append_text(resolution_text(mem))
    if mem.last_correction is not None:
        return Group(out, correction_lines(mem.last_correction, precedents))
    return out


def similar_line(similar: Sequence[SimilarRuling], verdict: str | None) -> Text:
    """The strip's lines on similar past requests: ``≈ reviewers ruled 2 similar
    requests as REJECT (beside the verdict, not part of it)``, then one indented line
    per case, ``req-… ✗ REJECT  similarity 0.81`` (2 decimals here; 4 in the decision).
    Empty ``Text`` when nothing is similar. Case ids are stored values, still printed
    literally (never markup)."""
    out = Text(no_wrap=False)
    if not similar:
        return out
    out.append("≈ ", style="bold")
    out.append(memory_sentence(tuple(similar), verdict), style="bold")
    out.append(" (beside the verdict, not part of it)", style="dim")
    for s in similar:
        out.append("\n  ")
        out.append(printable(s.case_id, multiline=False))
        out.append(" ")
        out.append_text(verdict_text(s.ruling))
        out.append(f"  similarity {s.similarity:.2f}", style="dim")
    return out


def memory_strip(
    refs: Iterable[str],
    memory: Mapping[str, ClauseMemory],
    similar: Sequence[SimilarRuling] = (),
    memory_verdict: str | None = None,
    precedents: Mapping[str, str] | None = None,
    similar_unknown: str | None = None,
) -> Group:
    """The clause-memory strip: one line per cited clause, then (when any ruled case
    reads like this one) the :func:`similar_line`. ``precedents``: case id -> wiki page
    of the precedents the lines name (see :func:`correction_lines`).
    ``similar_unknown``: the similar rulings are not known yet, and why (``reading…``,
    or the error): said in their place, so "none shown" never reads as "none"."""
    lines = [memory_line(ref, memory.get(ref), precedents) for ref in refs]
    if not lines:
        lines = [Text("no cited clauses", style="dim")]
    if similar_unknown is not None:
        lines.append(Text(f"≈ similar past rulings: {similar_unknown}", style="dim"))
    elif similar:
        lines.append(similar_line(similar, memory_verdict))
    return Group(*lines)


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
            line = ""
            for piece in _pieces(ident + sep, width):
                if line and cell_len(line + piece.rstrip()) > width:
                    lines.append(line.rstrip())
                    line = ""
                line += piece
        lines.append(line.rstrip())
        yield Text("\n".join(lines), overflow="fold")


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


def clause_block(ref: str, clause: ScopeClause | None) -> Group:
    """A cited clause in full: number, title, kind and text; a clause of the declared
    remit (:func:`etki.domain.is_declared_remit`) is labelled as the PMO's statement."""
    if clause is None:
        return Group(
            Text.assemble(
                (printable(ref, multiline=False), "bold"),
                (" (clause not found in the stored project)", "dim"),
            )
        )
    head = Text()
    head.append(f"§ {printable(clause.number, multiline=False)} ", style="bold")
    head.append(printable(clause.title, multiline=False), style="bold")
    head.append(f"  [{clause.kind}]", style="italic")
    head.append(f"  {printable(ref, multiline=False)}", style="dim")
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


def resolution_text(mem: ClauseMemory | DisputedClause) -> Text:
    """What the strip says of a disputed clause's resolution: `` · PMO: rule IN_SCOPE —
    “reason” (name, date)`` while it stands, `` · PMO resolution (rule IN_SCOPE, name,
    date) overridden by req-…`` once a later ruling disagreed, empty without one. The
    reason and name are client text: literal (never markup), on one line."""
    res = mem.resolution
    out = Text()
    if res is None:
        return out
    verdict = VERDICT_SHORT.get(res.verdict, res.verdict)
    if mem.overridden_by is None:
        out.append(f" · PMO: rule {verdict} — “")
        out.append(one_line(res.reason, 300))
        out.append("” (")
        out.append(one_line(res.reviewer, 80))
        out.append(f", {res.at[:10]})")
        return out
    out.append(f" · PMO resolution (rule {verdict}, ")
    out.append(one_line(res.reviewer, 80))
    out.append(f", {res.at[:10]}) overridden by ")
    out.append(one_line(mem.overridden_by, 120), style="bold")
    return out


def disputed_strip(
    decision: StoredRisk,
    clauses: Mapping[str, ScopeClause],
    memory: Mapping[str, ClauseMemory],
    escalate: bool,
) -> list[Text]:
    """The lines the detail pane opens with when the case cites a clause disputed now:
    one per such clause, ``! DISPUTED 3.2 Single sign-on · rulings disagree:
    IN_SCOPE / REJECT`` (``CR`` for a change request; a clause a person resolved reads
    ``! DISPUTED-RESOLVED 4.8 … · PMO: rule IN_SCOPE — “…” (name, date)``, and one whose
    resolution a later ruling overrode says by which case: :func:`resolution_text`), then, when the dispute raised the risk after the triage
    (:func:`current_risk`), the line saying so. Empty when nothing cited is disputed.
    Shown first so it is on screen without scrolling at 80x24, above any clause text."""
    refs = disputed_refs(decision.cited_clauses, memory)
    lines: list[Text] = []
    for ref in refs:
        mem = memory[ref]
        line = Text()
        if mem.resolved:
            line.append(DISPUTED_RESOLVED, style=RESOLVED_STYLE)
        else:
            line.append(DISPUTED, style=DISPUTED_STYLE)
        clause = clauses.get(ref)
        line.append(" " + one_line(clause.number if clause else ref, 120), style="bold")
        if clause is not None and clause.title:
            line.append(" " + one_line(clause.title, 120), style="bold")
        kinds = sorted({h[1] for h in mem.disputing})  # the rulings about the clause
        if not mem.resolved and len(kinds) > 1:  # one kind: they contradict the resolution
            rulings = " / ".join(VERDICT_SHORT.get(v, v) for v in kinds)
            line.append(f" · rulings disagree: {rulings}")
        line.append_text(resolution_text(mem))
        lines.append(line)
    _, raised = current_risk(decision, memory, escalate)
    if raised:
        stored = decision.risk
        line = Text("  → ")
        line.append("24h PMO look", style="bold reverse")
        line.append(f": disputed after triage ({stored.level.upper()} then; decision unchanged)")
        lines.append(line)
    return lines


def cr_link_line(case_id: str, page: str) -> Text:
    """The detail pane's line naming a case's change-request document: its wiki page
    and the key that opens it (``D``), or, with the wiki off (``page`` empty), the
    command that writes it."""
    line = Text()
    line.append("Change request ", style="bold")
    if page:
        line.append(printable(page, multiline=False))
        line.append(" · D opens it in the reader", style="dim")
    else:
        line.append("the wiki is off · ", style="dim")
        line.append(f"etki cr export {printable(case_id, multiline=False)}", style="dim")
        line.append(" writes it", style="dim")
    return line


def case_detail(
    case: CaseRecord,
    clauses: Mapping[str, ScopeClause],
    memory: Mapping[str, ClauseMemory],
    *,
    now: datetime | None = None,
    similar: Sequence[SimilarRuling] = (),
    memory_verdict: str | None = None,
    similar_unknown: str | None = None,
    escalate: bool = False,
    workitems: Mapping[str, WorkItem] | None = None,
    precedents: Mapping[str, str] | None = None,
    cr_page: str | None = None,
    llm_model: str | None = None,
    preanalysing: bool = False,
) -> RenderableType:
    """The detail pane of one case: everything a reviewer needs to rule. With ``now``
    the request's age is shown next to its date. ``similar``/``memory_verdict``: the
    memory beside the verdict as the desk computes it now (shown in the clause-memory
    strip; see :meth:`etki.services.Desk.beside_with`); ``similar_unknown``: they
    are not known yet, and why (:func:`memory_strip`). ``escalate``
    (``ETKI_DISPUTED_ESCALATION``): a clause disputed since the triage raises the shown
    risk (:func:`current_risk`). ``workitems``: the project's work items by id, for the
    effort basis (titles, days, dates). ``precedents``: case id -> wiki page of the
    precedents the clause memory names. ``cr_page``: the wiki page of the case's
    change-request document when it is ruled CHANGE_REQUEST (``""``: the wiki is off),
    shown as a link line under the fields. ``llm_model``: the chat model a pre-analysis
    would be asked of (None: none configured); ``preanalysing``: one is being written
    (:func:`preanalysis_section`).

    A case citing a disputed clause opens with the :func:`disputed_strip`. A request
    without a submission date says when it was imported (``created_at``) instead of an
    age: the import time is not the request's."""
    d = case.decision
    parts: list[RenderableType] = list(disputed_strip(d, clauses, memory, escalate))
    # every client field is bounded (:func:`folded`, :func:`one_line`): a case stored
    # before the request cap existed may hold megabytes (issue 11 item 6)
    head = Text()
    head.append(one_line(case.case_id), style="dim")
    if case.submitted_by:
        head.append(" · from ", style="dim")
        head.append(one_line(case.submitted_by), style="dim")
    if case.submitted_at:
        head.append(" · ", style="dim")
        head.append(when(one_line(case.submitted_at)), style="dim")
        if now is not None and (age := age_label(age_days(case, now))):
            head.append(f" ({age} old)" if age != "just now" else " (just now)", style="dim")
    elif case.created_at:
        head.append(" · imported " + when(one_line(case.created_at)), style="dim")
    parts.append(head)
    parts.append(folded(case.title, style="bold", limit=DETAIL_LINE_CHARS))

    verdict = verdict_text(d.verdict, bold=True)
    verdict.append(f"   confidence {d.confidence:.2f}")
    shown_risk, raised = current_risk(d, memory, escalate)
    risk = Text()
    risk.append(shown_risk.level.upper(), style=RISK_STYLE.get(shown_risk.level, ""))
    if shown_risk.signals:
        # the client's own words that raised the wording signals (as `etki show` quotes
        # them) follow those signals, before a disputed clause's, which no word raised
        worded = [s for s in shown_risk.signals if s != DISPUTED_SIGNAL]
        said = ", ".join(printable(s, multiline=False) for s in worded)
        wording = risk_wording(d.evidence)
        if wording and worded:
            said += " (" + ", ".join(f"“{printable(w, multiline=False)}”" for w in wording) + ")"
        if DISPUTED_SIGNAL in shown_risk.signals:
            said += (", " if said else "") + DISPUTED_SIGNAL
        risk.append(" · signals: " + said)
    if shown_risk.pmo_look_24h:
        risk.append(" · ")
        risk.append("24h PMO look", style="bold reverse")
    if raised:
        # a risk already HIGH at triage is not raised by the dispute, only told of it
        how = "raised now" if d.risk.level != shown_risk.level else "now also"
        risk.append(
            f" ({how}: {', '.join(short_ref(r) for r in raised)} disputed; "
            f"{d.risk.level.upper()} at triage)",
            style="dim",
        )
    modules: RenderableType = IdList(d.impacted_modules) if d.impacted_modules else Text("none")
    parts.append(
        _fields(
            [
                ("Verdict", verdict),
                ("Sureness", sureness_text(d)),
                ("Risk", risk),
                ("Effort", Text(effort_label(d.effort))),
                ("Modules", modules),
            ]
        )
    )
    if cr_page is not None:
        parts.append(cr_link_line(case.case_id, cr_page))

    parts.append(Text(""))
    parts.append(_section("Clause memory"))
    parts.append(
        memory_strip(d.cited_clauses, memory, similar, memory_verdict, precedents, similar_unknown)
    )

    parts.append(Text(""))
    parts.append(_section("Request"))
    parts.append(_indent(folded(case.text.strip() or "(empty)")))

    parts.append(Text(""))
    parts.append(_section("Reasoning"))
    parts.append(_indent(folded(d.reasoning.strip() or "(none)")))

    parts.append(Text(""))
    parts.append(_section(f"Cited clauses ({len(d.cited_clauses)})"))
    if not d.cited_clauses:
        parts.append(Text("  none", style="dim"))
    for ref in d.cited_clauses:
        parts.append(clause_block(ref, clauses.get(ref)))

    parts.append(Text(""))
    parts.append(_section("Assumptions"))
    if not d.assumptions:
        parts.append(Text("  none", style="dim"))
    if d.assumptions:
        parts.append(_bullets(folded(item) for item in d.assumptions))
    if d.effort.basis:
        parts.append(Text(""))
        parts.append(
            _section(
                f"Effort basis ({len(d.effort.basis)} comparable work "
                f"item{'s' if len(d.effort.basis) != 1 else ''})"
            )
        )
        parts.append(_bullets(effort_basis(d.effort, workitems or {})))
    parts.append(Text(""))
    parts.extend(preanalysis_section(case.preanalysis, llm_model=llm_model, busy=preanalysing))
    return Group(*parts)


SURE_STYLE = "bold"
UNSURE_STYLE = "bold reverse"
"""``needs a careful look`` in reverse video: it reads on a 16-colour terminal and, by
its words, without colour at all."""


def sureness_text(d: Decision) -> Text:
    """``sure: <why>`` or ``needs a careful look: <doubt>; <doubt>`` for the detail
    pane (:func:`etki.domain.sureness_reasons`). The reasons can quote client text:
    they are appended as plain, bounded text, never markup."""
    sure, reasons = sureness_reasons(d)
    out = Text()
    out.append(
        "sure" if sure else "needs a careful look", style=SURE_STYLE if sure else UNSURE_STYLE
    )
    out.append(": " + one_line("; ".join(reasons)))
    return out


HISTORY_SHOWN = 30
"""How many of a case's newest events the detail pane lists (the rest: ``etki show``)."""


def history_section(events: Sequence[CaseEvent] | None) -> RenderableType:
    """The detail pane's ``History`` section (issue 14 item 3): one line per event of
    the case, oldest first, the time then what happened (:meth:`CaseEvent.summary`) and
    its text (source, engine, reason, note), each part bounded and shown literally; the
    newest :data:`HISTORY_SHOWN` when there are more. ``None`` (not read yet): nothing,
    so the pane does not jump when it arrives below the rest."""
    if events is None:
        return Group()
    parts: list[RenderableType] = [Text(""), _section("History")]
    shown = list(events)[-HISTORY_SHOWN:]
    if len(events) > len(shown):
        parts.append(
            Text(
                f"  … {len(events) - len(shown)} earlier event(s): etki show lists them all",
                style="dim",
            )
        )
    for e in shown:
        line = Text()
        line.append(when(e.at), style="dim")
        line.append("  ")
        line.append(one_line(e.summary()), style="bold" if e.kind == "amended" else "")
        if e.text:
            line.append(" — ")
            line.append(one_line(e.text))
        parts.append(_indent(line))  # a long note wraps under its indent, not at column 0
    return Group(*parts)


NO_MODEL_LINE = "No pre-analysis: no model configured (ETKI_LLM_BASE_URL, ETKI_LLM_MODEL)"
"""What the detail pane says of a case without a pre-analysis when no model is set."""

_PREANALYSIS_PARTS = (
    ("affected_modules", "Affected modules"),
    ("approach", "Approach"),
    ("open_questions", "Open questions"),
)


def preanalysis_section(
    p: Preanalysis | None, *, llm_model: str | None = None, busy: bool = False
) -> list[RenderableType]:
    """The detail pane's short "Pre-analysis" section: the case's newest saved
    pre-analysis (every string of it model text, shown literally, cut like client
    text), or what there is instead (none configured, none yet, one being written)."""
    out: list[RenderableType] = []
    if p is None:
        out.append(_section("Pre-analysis"))
        if busy:
            line = f"Writing one with model {one_line(llm_model or '')}…"
        elif llm_model is None:
            line = NO_MODEL_LINE
        else:
            line = f"None yet: p asks model {one_line(llm_model)} for one."
        out.append(_indent(Text(line, style="dim")))
        return out
    title = f"Pre-analysis ({one_line(p.model, 60)} · {one_line(p.prompt_version, 40)})"
    out.append(_section(title))
    head = Text(f"written {when(one_line(p.created_at, 40))}", style="dim")
    head.append(" · a language model's first look, never an input to the verdict", style="dim")
    if busy:
        head.append(" · writing a new one…", style="dim")
    elif llm_model is not None:
        head.append(" · p writes a new one", style="dim")
    out.append(_indent(head))
    if p.status != "ok" or p.body is None:
        out.append(_indent(Text("It failed: ") + folded(p.error or "no reason given", limit=600)))
        return out
    b = p.body
    for key, label in _PREANALYSIS_PARTS:
        claims = getattr(b, key)
        if not claims:
            continue
        out.append(_indent(Text(label, style="bold")))
        out.append(_bullets(_claim_text(c.text, c.node) for c in claims))
    if b.effort is not None:
        out.append(
            _indent(Text("Effort: ", style="bold") + _claim_text(b.effort.text, b.effort.node))
        )
    if not b.claims:
        out.append(_indent(Text("(no claim rests on a node of the context)", style="dim")))
    if b.dropped:
        nodes = ", ".join(one_line(n, 80) for _, n in b.dropped[:5])
        more = f" and {len(b.dropped) - 5} more" if len(b.dropped) > 5 else ""
        out.append(
            _indent(
                Text(
                    f"{len(b.dropped)} claim(s) dropped: they named nodes not in the "
                    f"context ({nodes}{more})",
                    style="dim",
                )
            )
        )
    return out


def _claim_text(text: str, node: str) -> Text:
    """One claim: its text, then the node it rests on, dim (both literal)."""
    out = folded(text, limit=1_000)
    out.append(f"  [{one_line(node, 120)}]", style="dim")
    return out
