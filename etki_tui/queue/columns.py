"""The queue's columns and how they are fitted to a width (issue 34: titles were cut at
25 cells at 80x24 and 21 at 120x40 with the detail beside the list).

The table always holds every column of :data:`COLUMNS`; :func:`fit_columns` chooses the
title width, full or short case ids and verdicts, and which of the optional columns
(:data:`OPTIONAL`) are left out so the title keeps :data:`ROOMY_TITLE` cells where it can.
What a reviewer rules on stays in every layout: the case (with its mark and another
reviewer's claim mark), the title (with ``! DISPUTED``), the verdict, the confidence with
its sureness mark and the PMO look (:func:`look_cell`, with its overdue mark).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from rich.text import Text

from etki.domain import ClauseMemory
from etki.memory import current_risk
from etki_tui.glyphs import WARN
from etki_tui.queue.filters import QueueCase, look_overdue

COLUMNS: tuple[tuple[str, str], ...] = (
    ("case", "Case"),
    ("title", "Title"),
    ("verdict", "Verdict"),
    ("conf", "Conf"),
    ("clauses", "Clauses"),
    ("risk", "Risk"),
    ("look", "Look"),
)


FIXED = {"verdict": 16, "conf": 6, "clauses": 9, "risk": 4, "look": 4}
"""Widths of the small columns; the confidence's is ``0.58 ?`` (``conf_cell``), the
risk's ``high``/``med``/``low``, the look's ``!24h`` (:func:`look_cell`)."""


SHORT_VERDICT = 10
"""Verdict column width when narrow: ``+ CR`` stands for ``+ CHANGE_REQUEST``."""


SHORT_VERDICTS_UNDER = 110
"""Under this many cells of table the verdicts are short (``+ CR``)."""


OPTIONAL: tuple[str, ...] = ("clauses", "risk")
"""The columns left out, in this order, where keeping them would cut the title under
:data:`ROOMY_TITLE`: the cited clause numbers first (the detail lists them, and the find
box keeps the cases citing ``4.4``), then the risk level (the detail shows it with its
signals; the Look column still marks the 24h PMO look and an overdue one). A UI choice
from the fresh-reviewer trial of issue 34, not a triage cue."""


ROOMY_TITLE = 40
"""Cells of title an optional column may not cut the title under: on real data a title is
the request's first words, and 40 cells hold five or six of them (issue 34 item 1)."""


MIN_TITLE = 12
"""The narrowest title column (a terminal too narrow for more scrolls sideways)."""


@dataclass(frozen=True)
class ColumnFit:
    """How the queue's columns are laid out for one width: ``title`` cells of title,
    ``short_ids`` (``0a1f3c21`` for ``req-demo-0a1f3c21``), ``short_verdicts`` and the
    ``hidden`` optional columns (keys of :data:`COLUMNS`)."""

    title: int
    short_ids: bool
    short_verdicts: bool
    hidden: frozenset[str]


def fit_columns(width: int, *, padding: int, full_id: int, short_id: int, extra: int) -> ColumnFit:
    """The layout of a table ``width`` cells wide (its scrollbar already taken off):
    ``padding`` cells around each column's cell, case ids ``full_id`` cells long
    (``short_id`` short), ``extra`` cells taken by marks before the ids. An optional
    column (:data:`OPTIONAL`, in order) is left out while the title would be under
    :data:`ROOMY_TITLE` cells with it; ids are short (``req-{project}-`` left out: the
    same on every row) while the full ones would leave under :data:`ROOMY_TITLE`."""
    short_verdicts = width < SHORT_VERDICTS_UNDER
    hidden: set[str] = set()

    def room() -> int:
        shown = [k for k, _ in COLUMNS if k not in hidden]
        fixed = sum(w for k, w in FIXED.items() if k not in hidden)
        if short_verdicts:
            fixed -= FIXED["verdict"] - SHORT_VERDICT
        return width - padding * len(shown) - fixed - 1 - extra

    for key in OPTIONAL:
        if room() - short_id >= ROOMY_TITLE:
            break
        hidden.add(key)
    rest = room()
    short_ids = rest - full_id < ROOMY_TITLE
    title = max(MIN_TITLE, rest - (short_id if short_ids else full_id))
    return ColumnFit(title, short_ids, short_verdicts, frozenset(hidden))


def look_state(
    case: QueueCase,
    memory: Mapping[str, ClauseMemory] | None,
    escalate: bool,
    now: datetime,
) -> str:
    """``""`` (no PMO look asked), ``"24h"`` (asked, within its 24 hours) or
    ``"overdue"`` (asked, and the case has waited longer: :func:`look_overdue`, as
    Raporlar's overdue looks are counted). The risk is the one the queue shows
    (:func:`current_risk` with ``memory`` and ``escalate``)."""
    risk, _ = current_risk(case.decision, memory, escalate)
    if not risk.pmo_look_24h:
        return ""
    return "overdue" if look_overdue(case, now) else "24h"


def look_cell(state: str) -> Text:
    """The Look column for :func:`look_state`'s ``state``: blank, ``24h``, or ``!24h`` in
    bold reverse for an overdue look (a glyph, so it reads with NO_COLOR too)."""
    if state == "overdue":
        return Text(f"{WARN}24h", style="bold reverse", no_wrap=True, end="")
    return Text("24h" if state else "", style="bold", no_wrap=True, end="")
