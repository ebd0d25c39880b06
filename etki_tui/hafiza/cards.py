"""Hafıza's cards and list prompts: pure Rich ``Text`` for a search hit, a precedent and a disputed clause (no Textual, no I/O; the pane in :mod:`etki_tui.hafiza.pane` lays them out)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual.content import Content
from textual.widgets.option_list import Option

from etki.domain import CaseRecord, DisputedClause, ScopeClause, is_declared_remit
from etki.text import fold, printable
from etki.wiki.paths import clause_link_ref, contract_path, page_kind
from etki.wiki.search import query_tokens
from etki_tui.render import (
    DISPUTED,
    DISPUTED_RESOLVED,
    DISPUTED_STYLE,
    RESOLVED_STYLE,
    VERDICT_GLYPH,
    VERDICT_STYLE,
    _indent,
    around_match,
    cell,
    clause_text,
    highlight,
    literal,
    remit_label,
    short_case_id,
    verdict_text,
    when,
)


def hit_fields(hit: Any) -> tuple[str, int, str]:
    """(path, line, snippet) of a search hit (an object with those attributes or a
    tuple in that order)."""
    if isinstance(hit, tuple | list) and not hasattr(hit, "_fields"):
        path, line, snippet = (list(hit) + ["", 0, ""])[:3]
    else:
        path = getattr(hit, "path", "")
        line = getattr(hit, "line", 0)
        snippet = getattr(hit, "snippet", "")
    return str(path), int(line or 0), str(snippet)


def hit_title(hit: Any) -> str:
    """The page title of a search hit (its ``title`` attribute, the fourth item of a
    tuple), or "" when it has none."""
    if isinstance(hit, tuple | list) and not hasattr(hit, "_fields"):
        return str(hit[3]) if len(hit) > 3 else ""
    return str(getattr(hit, "title", "") or "")


def precedent_card(case: CaseRecord, clauses: Mapping[str, ScopeClause]) -> RenderableType:
    """A precedent (an overridden case) as read from the DB."""
    assert case.ruling is not None
    r = case.ruling
    head = Text()
    head.append(" PRECEDENT ", style="bold reverse")
    head.append(" ")
    head.append_text(cell(case.case_id, style="bold"))
    lines: list[RenderableType] = [head, literal(case.title, style="bold")]
    change = Text("Engine ")
    change.append_text(verdict_text(r.verdict))
    change.append("  →  ruled ")
    change.append_text(verdict_text(r.ruling, bold=True))
    lines.append(change)
    by = Text("By ")
    by.append(printable(r.reviewer, multiline=False))
    by.append(f" on {when(r.ruled_at)}")
    lines.append(by)
    lines.append(Text("Reason", style="bold underline"))
    lines.append(literal(r.reason or "(none)"))
    lines.append(Text("Cited clauses", style="bold underline"))
    for ref in case.decision.cited_clauses:
        clause = clauses.get(ref)
        line = Text("  ")
        line.append(printable(ref, multiline=False), style="bold")
        if clause is not None:
            line.append(" ")
            line.append(printable(clause.title, multiline=False))
            if is_declared_remit(clause):
                line.append(f" · {remit_label(clause)}", style="italic")
        lines.append(line)
    lines.append(Text(""))
    lines.append(
        Text(
            "Enter opens the precedent page · l reads a cited clause in the contract · "
            "y copies the case id",
            style="dim",
        )
    )
    return Group(*lines)


def resolution_lines(item: DisputedClause) -> list[RenderableType]:
    """The card's lines on the PMO's resolution of ``item``: the verdict, the reason (client
    text, literal), who and when; whether it stands or which later ruling overrode it;
    and how to record one (or a new one)."""
    res = item.resolution
    if res is None:
        return [Text("No resolution yet: R records the PMO's resolution.", style="dim")]
    lines: list[RenderableType] = [Text("PMO resolution", style="bold underline")]
    # each line indented as a whole, so a wrapped line stays under it (a fresh trial of
    # issue 34: the reason's and a History row's case id wrapped to column 0)
    rule = Text("rule ")
    rule.append_text(verdict_text(res.verdict, bold=True))
    rule.append(" · ")
    rule.append(printable(res.reviewer, multiline=False))
    rule.append(f" · {when(res.at)}")
    lines.append(_indent(rule))
    lines.append(_indent(literal("“" + res.reason + "”")))
    if item.overridden_by is not None:
        over = Text("Overridden by ", style="bold")
        over.append(printable(item.overridden_by, multiline=False))
        over.append(", ruled after it and against it: disputed again.", style="bold")
        lines.append(_indent(over))
        lines.append(Text("R records a new resolution.", style="dim"))
    else:
        lines.append(_indent(Text("Stands: no ruling after it disagrees.", style="dim")))
        lines.append(Text("R records a new resolution (the newest is in force).", style="dim"))
    return lines


def rulings_line(item: DisputedClause) -> Text:
    """What the rulings of ``item`` say now: that they disagree (and on what), or, once
    a later ruling made them agree again (a trial: the card still said "Rulings
    disagree: IN_SCOPE"), that they agree and whether the PMO's resolution stands."""
    rulings = item.rulings
    if len(rulings) > 1:
        return Text("Rulings disagree: " + " / ".join(rulings))
    out = Text("Rulings agree: " + " / ".join(rulings))
    res = item.resolution
    if res is not None:
        state = "stands" if item.overridden_by is None else "overridden"
        out.append(f" · PMO resolution {state}: {res.verdict}")
    return out


def disputed_card(item: DisputedClause, clauses: Mapping[str, ScopeClause]) -> RenderableType:
    """A disputed clause and its ruling history, as read from the DB, with the PMO's
    resolution in force (:func:`resolution_lines`)."""
    head = Text()
    if item.resolved:
        head.append(DISPUTED_RESOLVED, style=RESOLVED_STYLE)
    else:
        head.append(DISPUTED, style=DISPUTED_STYLE)
    head.append(" ")
    head.append(printable(item.ref, multiline=False), style="bold")
    lines: list[RenderableType] = [head]
    clause = clauses.get(item.ref)
    if clause is not None:
        lines.append(literal(f"{clause.number} {clause.title} [{clause.kind}]", style="bold"))
        if is_declared_remit(clause):
            lines.append(Text(remit_label(clause), style="italic"))
    lines.append(rulings_line(item))
    lines += resolution_lines(item)
    lines.append(Text("History (oldest first)", style="bold underline"))
    for case_id, ruling, reviewer, ruled_at in item.history:
        line = Text(f"{when(ruled_at)}  ")
        line.append_text(verdict_text(ruling))
        line.append("  ")
        line.append(printable(reviewer, multiline=False))
        line.append("  ")
        line.append(printable(case_id, multiline=False), style="dim")
        lines.append(_indent(line))
    if clause is not None:
        heading = Text("Clause text", style="bold underline")
        heading.append(" · l: whole contract", style="dim")
        lines.append(heading)
        lines.append(clause_text(clause))
    return Group(*lines)


SHOWN = 100
"""At most this many entries of a section (search hits, precedents, disputed clauses,
decision files) are listed; the header says how many there are and a last line says how
to find the rest. Keeps a rebuild of the list (on every search result) small at 10,000
decision files."""


_KIND = {
    "decision": "decision",
    "precedent": "precedent",
    "change-request": "CR",
    "contract": "contract",
    "module": "module",
    "index": "index",
    "disputed": "disputed",
}


_TITLE_SAYS = {
    "precedent": "precedent",
    "change-request": "change request",
    "contract": "contract",
    "module": "module",
    "disputed": "disputed",
}
"""Page kind -> how its page title starts, folded (the wiki's headings: "# Precedent: …",
"# Change request: …", "# Disputed clauses"): a hit whose title says its kind gets no kind
label."""


SHOWN_HITS = 50
"""Search hits listed (the ranked top of the index; the header gives the total and a
last line says to add words): four screenfuls at 120x40, eight at 80x24. Each answer
lays out these entries on the event loop, so fewer keep typing free."""


def hit_prompt(title: str, path: str, snippet: str, tokens: Sequence[str], width: int) -> Content:
    """The two-line list entry of one search hit: ``title`` (or ``path``) in bold and the
    page kind (``clause`` for a contract page's clause section, ``path#anchor``, whose
    title is its heading: ref and title), then the part of ``snippet`` around the first match; ``tokens`` (folded
    query words) highlighted; fitted to ``width`` cells. Pure: the search worker builds
    these off the event loop (:func:`hit_prompts`)."""
    page = page_kind(path)
    kind = _KIND.get(page, "page")
    if "#" in path and page_kind(path.partition("#")[0]) == "contract":
        kind = "clause"  # a contract page's clause section (issue 33): titled ref — title
    if title and fold(title).startswith(_TITLE_SAYS.get(page, "\0")):
        kind = ""  # "Precedent: …" needs no "precedent" after it
    prompt = Text()
    room = width - len(kind) - 1 if kind else width
    prompt.append_text(highlight(cell(title or path, room, style="bold"), tokens))
    if kind:
        prompt.append(" " + kind, style="dim")
    prompt.append("\n  ")
    prompt.append_text(highlight(around_match(snippet.strip(), tokens, width - 2), tokens))
    return Content.from_rich_text(prompt)


def hit_prompts(query: str, hits: Sequence[Any], width: int) -> list[Content]:
    """:func:`hit_prompt` of the first :data:`SHOWN_HITS` of ``hits`` for ``query`` at
    ``width`` (what :meth:`MemoryPane.hit_width` gave)."""
    tokens = query_tokens(query) if query.strip() else []
    out = []
    for hit in list(hits)[:SHOWN_HITS]:
        path, _line, snippet = hit_fields(hit)
        out.append(hit_prompt(hit_title(hit), path, snippet, tokens, width))
    return out


def _more(count: int, what: str, shown: int = SHOWN) -> Option:
    return Option(Text(f"  … {count - shown} more {what}", style="dim"), disabled=True)


def _header(title: str, count: int | None = None) -> Option:
    label = title if count is None else f"{title} ({count})"
    return Option(Text(label, style="bold underline"), disabled=True)


VERDICT_CELLS = 10
"""Cells of a decision file's verdict in Hafıza's list: the widest short verdict
(``✓ IN_SCOPE``); shorter ones are padded, so every title starts in one column."""


DECISION_TITLE_MIN = 24
"""Cells of title a decision file's entry keeps before its verdict is drawn as its glyph
alone (``✓``, ``+``, ``✗``: one cell each, with NO_COLOR too): at 80 columns the list is
30 cells and the words left the title 16 (a later trial of issue 34: "decision titles
cut at ~16 cells"). The preview of the highlighted file says the ruling in words."""


def decision_label(path: str, decided: Mapping[str, tuple[str, str]], width: int) -> Text:
    """A decision file's entry at ``width`` cells: ``✗ REJECT    Build native iOS…``
    (the short ruling of its case in :data:`VERDICT_CELLS`, then the case's title, client
    text literal, in the rest), or ``✗ Build native iOS apps…`` where the words would
    leave the title under :data:`DECISION_TITLE_MIN`, when its case id — the end of its
    name, ``…--req-demo-0a1f3c21.md`` — is in ``decided`` (case id -> (title,
    ruling)); else its file name."""
    name = path.removeprefix("decisions/")
    case_id = name.removesuffix(".md").rpartition("--")[2]
    known = decided.get(case_id)
    if known is None:
        return cell(name, width)
    title, ruling = known
    if width - VERDICT_CELLS - 2 >= DECISION_TITLE_MIN:
        out = verdict_text(ruling, short=True)
        out.append(" " * (VERDICT_CELLS - out.cell_len + 2))
    else:
        out = Text(VERDICT_GLYPH.get(ruling, "?"), style=VERDICT_STYLE.get(ruling, ""), end="")
        out.append(" ")
    out.append_text(cell(title or case_id, max(1, width - out.cell_len)))
    return out


def memory_options(
    precedents: Sequence[CaseRecord],
    disputed: Sequence[DisputedClause],
    top_pages: Sequence[str],
    pages: Sequence[str],
    wiki_on: bool,
    width: int,
    room: int,
    decided: Mapping[str, tuple[str, str]] | None = None,
) -> list[Option | None]:
    """Hafıza's list entries below the search results at ``width`` cells, ``room``
    entries per section (:data:`SHOWN`, fewer while searching): the precedents (ruled
    cases that overrode the engine), the disputed clauses, the wiki's top pages and the
    decision files (the newest ``room`` of ``pages``); ``None`` is a divider. A decision
    file whose case is in ``decided`` (case id -> (title, ruling)) reads as its ruling
    and title, not its slug (issue 34 item 8: :func:`decision_label`).
    :meth:`etki_tui.hafiza.pane.MemoryPane._memory_options` keeps them per load."""
    options: list[Option | None] = []
    options.append(_header("Precedents", len(precedents)))
    if not precedents:
        options.append(Option(Text("  no overrides yet", style="dim"), disabled=True))
    for case in precedents[:room]:
        assert case.ruling is not None
        ruling = verdict_text(case.ruling.ruling)
        shown_id = printable(case.case_id, multiline=False)
        if len(shown_id) + 1 + ruling.cell_len > width:  # the id is what one reads
            ruling = verdict_text(case.ruling.ruling, short=True)
        if len(shown_id) + 1 + ruling.cell_len > width:  # the queue's short id, whole
            shown_id = short_case_id(shown_id)
        prompt = Text()
        prompt.append_text(cell(shown_id, width - ruling.cell_len - 1))
        prompt.append(" ")
        prompt.append_text(ruling)
        prompt.append("\n  ")
        prompt.append_text(cell(case.title, width - 2))
        options.append(Option(prompt, id=f"pre:{case.case_id}"))
    if len(precedents) > room:
        options.append(
            _more(
                len(precedents),
                "precedents: Ctrl+P finds a case by id"
                if room == SHOWN
                else "precedents: Esc, then clear the search to list them",
                room,
            )
        )
    options.append(_header("Disputed clauses", len(disputed)))
    if not disputed:
        options.append(Option(Text("  none", style="dim"), disabled=True))
    for item in disputed[:room]:
        prompt = Text()
        # the marks' own colours: the highlighted entry's blue cannot recolour them
        if item.resolved:
            prompt.append(DISPUTED_RESOLVED, style=RESOLVED_STYLE)
        else:
            prompt.append(DISPUTED, style=DISPUTED_STYLE)
        prompt.append(" ")
        prompt.append_text(cell(item.ref, width - prompt.cell_len))
        options.append(Option(prompt, id=f"dis:{item.ref}"))
    searching = room != SHOWN  # the sections are cut short under the results
    if len(disputed) > room:
        options.append(
            _more(
                len(disputed),
                "disputed clauses: Esc, then clear the search to list them"
                if searching
                else "disputed clauses: search finds them",
                room,
            )
        )
    if top_pages:
        options.append(_header("Wiki pages"))
        for path in top_pages:
            options.append(Option(cell(path, width), id=f"page:{path}"))
    options.append(_header("Decision files", len(pages)))
    if not pages:
        hint = "  none yet" if wiki_on else "  wiki off"
        options.append(Option(Text(hint, style="dim"), disabled=True))
    for path in pages[-room:]:  # the newest (DEC-{yyyymmdd}-…, sorted)
        options.append(Option(decision_label(path, decided or {}, width), id=f"page:{path}"))
    if len(pages) > room:
        hint = "Esc, then clear the search to list them" if searching else "search finds them"
        options.append(
            Option(
                Text(f"  … {len(pages) - room} older: {hint}", style="dim"),
                disabled=True,
            )
        )
    return options


CLAUSE_TARGET = "clause:"
"""What an entry of Hafıza's ``l`` list goes to when it is a clause (the whole contract
at it), not a wiki page (no wiki page's path starts so)."""


def page_clause_links(
    links: Sequence[tuple[str, str]], path: str | None, clauses: Mapping[str, ScopeClause]
) -> list[tuple[str, str]]:
    """The ``l`` list of the page at ``path`` from its wiki ``links`` ((label, page)):
    a link to a contract page whose label names a clause of ``clauses``
    (:func:`etki.wiki.paths.clause_link_ref`) goes to that clause
    (``clause:REF``, :data:`CLAUSE_TARGET`), every other link to its page; on a
    contract page the first entry is the whole contract (at its first clause)."""
    out = []
    for label, target in links:
        ref = clause_link_ref(label, clauses) if page_kind(target) == "contract" else None
        out.append((label, CLAUSE_TARGET + ref if ref is not None else target))
    if path is not None and page_kind(path) == "contract":
        first = next((c for c in clauses.values() if contract_path(c.contract_id) == path), None)
        if first is not None:
            out.insert(0, ("The whole contract, every clause in order", CLAUSE_TARGET + first.ref))
    return out


def card_clause_links(
    option_id: str | None, precedents: Sequence[CaseRecord], clauses: Mapping[str, ScopeClause]
) -> list[tuple[str, str]]:
    """The ``l`` list of the card of Hafıza's entry ``option_id``: the clauses a
    precedent cites (``pre:CASE``) or the disputed clause (``dis:REF``), each
    ``(number title, clause:REF)``; none for any other entry."""
    kind, _, key = (option_id or "").partition(":")
    refs: list[str] = []
    if kind == "pre":
        case = next((c for c in precedents if c.case_id == key), None)
        refs = list(case.decision.cited_clauses) if case is not None else []
    elif kind == "dis":
        refs = [key]
    out = []
    for ref in dict.fromkeys(refs):
        clause = clauses.get(ref)
        if clause is not None:
            out.append((f"{clause.number} {clause.title}".strip(), CLAUSE_TARGET + ref))
    return out
