"""The Raporlar tab: counts from the DB (``Desk.report``) as simple Rich bars.

Every bar has its number and its label next to it, so nothing is read from colour or
length alone.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from etki.services import Report
from etki.text import printable
from etki_tui.render import VERDICT_STYLE, verdict_text

BAR = "█"


def bar(value: int, total: int, width: int = 24, style: str = "") -> Text:
    """A bar of ``value``/``total`` scaled to ``width`` cells (at least one cell for a
    non-zero value)."""
    if total <= 0 or value <= 0:
        return Text("", end="")
    cells = max(1, round(width * value / total))
    return Text(BAR * cells, style=style, end="")


def _titled(table: Table, title: str) -> Table:
    table.title = title
    table.title_justify = "left"
    table.title_style = "bold underline"
    return table


def _verdict_table(title: str, rows: Sequence[tuple[str, int]], total: int,
                   bar_width: int) -> Table:
    table = Table.grid(padding=(0, 1))
    table.add_column(min_width=16)
    table.add_column(justify="right", min_width=3)
    table.add_column(justify="right", min_width=4)
    table.add_column()
    for verdict, count in rows:
        share = f"{100 * count / total:.0f}%" if total else "–"
        table.add_row(verdict_text(verdict), str(count), share,
                      bar(count, total, bar_width, style=VERDICT_STYLE.get(verdict, "")))
    return _titled(table, title)


def _totals(report: Report) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column(justify="right")
    table.add_row("Cases", str(report.cases))
    table.add_row("Pending", str(report.pending))
    table.add_row("Ruled", str(report.ruled))
    table.add_row("Overrides", str(report.overrides))
    table.add_row("Override rate", f"{100 * report.override_rate:.0f}%" if report.ruled
                  else "–")
    table.add_row("Precedents", str(report.precedents))
    table.add_row("Disputed", ("⚠ " if report.disputed else "") + str(report.disputed))
    return _titled(table, "Totals")


def _agreement(report: Report, bar_width: int) -> Table:
    table = Table.grid(padding=(0, 1))
    table.add_column(min_width=16)
    table.add_column(justify="right", min_width=3)
    table.add_column()
    agreed = report.ruled - report.overrides
    table.add_row("agreed", str(agreed), bar(agreed, report.ruled, bar_width, style="green"))
    table.add_row("overridden", str(report.overrides),
                  bar(report.overrides, report.ruled, bar_width, style="magenta"))
    return _titled(table, "Rulings vs engine")


def _corrections(report: Report, bar_width: int) -> Table:
    table = Table.grid(padding=(0, 1))
    table.add_column(min_width=16)
    table.add_column(justify="right", min_width=3)
    table.add_column()
    most = max((n for _, n in report.corrections_by_clause), default=0)
    for ref, count in report.corrections_by_clause[:8]:
        table.add_row(Text(printable(ref, multiline=False)), str(count),
                      bar(count, most, bar_width, style="magenta"))
    if not report.corrections_by_clause:
        table.add_row(Text("none yet", style="dim"), "", "")
    return _titled(table, "Clauses with most corrections")


def _days(report: Report) -> Table:
    table = Table.grid(padding=(0, 1))
    table.add_column(min_width=10)
    table.add_column(justify="right")
    table.add_column(justify="right")
    table.add_row(Text("day", style="dim"), Text("ruled", style="dim"),
                  Text("overrides", style="dim"))
    for day, ruled, overrides in report.rulings_by_day[-10:]:
        table.add_row(day, str(ruled), str(overrides))
    if not report.rulings_by_day:
        table.add_row(Text("none yet", style="dim"), "", "")
    return _titled(table, "Rulings by day")


def report_view(report: Report, width: int = 80) -> RenderableType:
    """The whole report as one renderable, laid out for ``width`` cells: two columns
    (totals beside the bars) when there is room, one column otherwise."""
    two = width >= 70
    bar_width = max(8, min(40, (width - 28 - 29) if two else (width - 29)))
    right = Group(_verdict_table("Engine verdicts (all cases)", report.verdicts,
                                 report.cases, bar_width), Text(""),
                  _verdict_table("Rulings (ruled cases)", report.rulings, report.ruled,
                                 bar_width), Text(""),
                  _agreement(report, bar_width))
    lower = [_corrections(report, bar_width), _days(report)]
    if not two:
        return Group(_totals(report), Text(""), right, Text(""), lower[0], Text(""),
                     lower[1])
    top = Table.grid(padding=(0, 2))
    top.add_column(width=26)
    top.add_column()
    top.add_row(_totals(report), right)
    bottom = Table.grid(padding=(0, 2))
    bottom.add_column(width=26)
    bottom.add_column()
    bottom.add_row(_days(report), lower[0])
    return Group(top, Text(""), bottom)


class ReportsPane(VerticalScroll, can_focus=True):
    """Raporlar: refreshed when the tab is shown and after each ruling."""

    def compose(self) -> ComposeResult:
        """One static body."""
        yield Static(Text("Loading…", style="dim"), id="report-body", markup=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.report: Report | None = None

    def show(self, report: Report) -> None:
        """Render ``report`` for the current width."""
        self.report = report
        width = self.scrollable_content_region.width or self.size.width or 80
        self.query_one("#report-body", Static).update(report_view(report, width))

    def on_resize(self) -> None:
        """Lay the report out again for the new width."""
        self.call_after_refresh(self._relayout)

    def _relayout(self) -> None:
        if self.report is not None:  # read now: a newer report may have arrived
            self.show(self.report)
