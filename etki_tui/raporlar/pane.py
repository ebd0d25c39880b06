"""The Raporlar tab: counts from the DB (``Desk.report``) as terminal charts.

Verdict distribution (engine verdicts and rulings) as bars, rulings and the override
rate over time as day columns with a sparkline, the clauses with the most corrections as
bars; then what a PMO follows up: the pending cases by age (with how many were measured
from the request's ``submitted_at`` and how many from when the case was stored), the
rulings per reviewer and the change-request effort per month of ruling. Every bar has
its number and its label next to it, and the two series of the day chart use different
glyphs, so nothing is read from colour or length alone. ``etki report`` prints the same
:class:`~etki.domain.Report` as tables (:mod:`etki.reports`).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from etki.domain import Report, days_shown
from etki.text import printable
from etki_tui.actions import bindings
from etki_tui.glyphs import WARN
from etki_tui.live import part
from etki_tui.raporlar.charts import (
    AGREED,
    AGREED_STYLE,
    OVERRIDDEN,
    OVERRIDDEN_STYLE,
    bar,
    rulings_over_time,
)
from etki_tui.render import VERDICT_GLYPH, VERDICT_STYLE, verdict_text, when


def _titled(table: Table, title: str) -> Table:
    table.title = title
    table.title_justify = "left"
    table.title_style = "bold underline"
    return table


def _verdict_table(
    title: str, rows: Sequence[tuple[str, int]], total: int, bar_width: int
) -> Table:
    table = Table.grid(padding=(0, 1))
    table.add_column(min_width=16)
    table.add_column(justify="right", min_width=3)
    table.add_column(justify="right", min_width=4)
    table.add_column()
    for verdict, count in rows:
        share = f"{100 * count / total:.0f}%" if total else "–"
        table.add_row(
            verdict_text(verdict),
            str(count),
            share,
            bar(count, total, bar_width, style=VERDICT_STYLE.get(verdict, "")),
        )
    return _titled(table, title)


def _totals(report: Report) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column(justify="right")
    table.add_row("Cases", str(report.cases))
    table.add_row("Pending", str(report.pending))
    table.add_row("Ruled", str(report.ruled))
    table.add_row("Overrides", str(report.overrides))
    table.add_row("Override rate", f"{100 * report.override_rate:.0f}%" if report.ruled else "–")
    table.add_row("Precedents", str(report.precedents))
    table.add_row("Disputed", (f"{WARN} " if report.disputed else "") + str(report.disputed))
    table.add_row("Disputed, resolved", str(report.disputed_resolved))
    late = len(report.overdue_looks)  # pending past their 24h PMO look (etki.reports)
    table.add_row("Looks overdue", (f"{WARN} " if late else "") + str(late))
    return _titled(table, "Totals")


def _agreement(report: Report, bar_width: int) -> Table:
    table = Table.grid(padding=(0, 1))
    table.add_column(min_width=10)
    table.add_column(justify="right", min_width=3)
    table.add_column()
    agreed = report.ruled - report.overrides
    table.add_row(
        "agreed",
        str(agreed),
        Text(AGREED * len(bar(agreed, report.ruled, bar_width)), style=AGREED_STYLE),
    )
    table.add_row(
        "overridden",
        str(report.overrides),
        Text(
            OVERRIDDEN * len(bar(report.overrides, report.ruled, bar_width)), style=OVERRIDDEN_STYLE
        ),
    )
    return _titled(table, "Rulings vs engine")


RULE_WORD: dict[str, str] = {"reason": "reason", "evidence": "evidence", "cited": "all cited"}
"""Short names of :data:`etki.memory.CORRECTION_RULES` for the corrections table."""


def _rule_cell(rules: Sequence[tuple[str, int]], count: int) -> Text:
    """``by reason`` / ``by evidence`` / ``by all cited``, or ``reason 1 · all cited 1``
    when one clause's corrections were counted by different rules."""
    if len(rules) == 1:
        return Text("by " + RULE_WORD.get(rules[0][0], rules[0][0]), style="dim")
    return Text(" · ".join(f"{RULE_WORD.get(r, r)} {n}" for r, n in rules), style="dim")


def _corrections(report: Report, bar_width: int) -> Group:
    """The clauses with most corrections, each with the rule that counted them, and a
    line saying the rule (:func:`etki.memory.correction_clauses`)."""
    table = Table.grid(padding=(0, 1))
    table.add_column(min_width=16)
    table.add_column(justify="right", min_width=3)
    table.add_column()
    table.add_column()
    rules = dict(report.correction_rules)
    bar_width = max(6, bar_width - 13)  # room for the rule column ("by all cited")
    most = max((n for _, n in report.corrections_by_clause), default=0)
    for ref, count in report.corrections_by_clause[:8]:
        table.add_row(
            Text(printable(ref, multiline=False)),
            str(count),
            Text(OVERRIDDEN * len(bar(count, most, bar_width)), style=OVERRIDDEN_STYLE),
            _rule_cell(rules.get(ref, ()), count),
        )
    if not report.corrections_by_clause:
        table.add_row(Text("none yet", style="dim"), "", "", "")
    note = Text(
        "An override counts on the clause its reason names; else on the "
        "decisive evidence's clause; else on every clause it cites.",
        style="dim",
    )
    return Group(_titled(table, "Clauses with most corrections"), note)


def _over_time(report: Report, width: int) -> Group:
    title = Text("Rulings and override rate over time", style="bold underline")
    return Group(title, rulings_over_time(report.rulings_by_day, width))


def _pending_age(report: Report, bar_width: int) -> Table:
    """The pending cases per age bucket, each with its bar (where the ages are
    measured from is :func:`_age_note`)."""
    table = Table.grid(padding=(0, 1))
    table.add_column(min_width=10)
    table.add_column(justify="right", min_width=3)
    table.add_column()
    most = max((b.cases for b in report.pending_age), default=0)
    for b in report.pending_age:
        table.add_row(b.label, str(b.cases), bar(b.cases, most, bar_width, style="cyan"))
    return _titled(table, "Pending cases by age")


def _age_note(report: Report) -> Text:
    """When the ages were measured and from what: the request's ``submitted_at``, or
    (without one) the time the case was stored."""
    submitted = sum(b.from_submitted for b in report.pending_age)
    created = sum(b.from_created for b in report.pending_age)
    return Text(
        f"Ages at {when(report.as_of)}: from the request's submitted_at ({submitted}), "
        f"else from when the case was stored, created_at ({created}).",
        style="dim",
    )


def _by_reviewer(report: Report) -> Table:
    """Per reviewer: rulings by kind and the overrides among them (names literal)."""
    table = Table.grid(padding=(0, 1))
    table.add_column(min_width=10, max_width=24, no_wrap=True, overflow="ellipsis")
    for verdict in ("IN_SCOPE", "CHANGE_REQUEST", "REJECT"):
        table.add_column(justify="right", style=VERDICT_STYLE.get(verdict, ""))
    table.add_column(justify="right")
    table.add_column(justify="right", style=OVERRIDDEN_STYLE)
    head = Text.assemble
    table.add_row(
        Text("reviewer", style="dim"),
        head(f"{VERDICT_GLYPH['IN_SCOPE']} IN", style="dim"),
        head(f"{VERDICT_GLYPH['CHANGE_REQUEST']} CR", style="dim"),
        head(f"{VERDICT_GLYPH['REJECT']} REJ", style="dim"),
        Text("all", style="dim"),
        Text(f"{OVERRIDDEN} overr.", style="dim"),
    )
    for r in report.rulings_by_reviewer:
        table.add_row(
            Text(printable(r.reviewer, multiline=False)),
            str(r.in_scope),
            str(r.change_request),
            str(r.reject),
            str(r.total),
            str(r.overrides),
        )
    if not report.rulings_by_reviewer:
        table.add_row(Text("none yet", style="dim"), "", "", "", "", "")
    return _titled(table, "Rulings per reviewer")


def _days(value: float) -> str:
    return f"{value:g}"


def effort_days(low: float, high: float) -> str:
    """A month's summed effort range: ``5–8 days``, one figure when both ends are
    equal (``6 days``, ``1 day``: :func:`etki.domain.days_shown`; a PMO trial of issue
    35 read ``6–6 days`` for a single estimate)."""
    if low == high:
        return days_shown(low, "days")
    return f"{_days(low)}–{_days(high)} days"


def _cr_effort(report: Report) -> Group:
    """Per month of ruling: the change requests, their summed effort range, how many
    had no estimate and how many figures are a reviewer's estimate (issue 35 item 2)."""
    table = Table.grid(padding=(0, 1))
    table.add_column(min_width=7)
    table.add_column(justify="right", min_width=3)
    table.add_column(justify="right")
    table.add_column()
    for m in report.cr_effort_by_month:
        effort = effort_days(m.low, m.high) if m.estimated else "no estimate"
        missing = m.crs - m.estimated
        notes = [f"{missing} without estimate"] if missing and m.estimated else []
        if m.reviewer:
            notes.append(f"{m.reviewer} reviewer's estimate{'s' * (m.reviewer != 1)}")
        table.add_row(
            m.month,
            f"{m.crs} CR",
            effort,
            Text(", ".join(notes), style="dim") if notes else "",
        )
    if not report.cr_effort_by_month:
        table.add_row(Text("none yet", style="dim"), "", "", "")
    title = Text("Change-request effort per month of ruling", style="bold underline")
    whose = (
        "a reviewer's estimate where one exists, else the engine's range"
        if any(m.reviewer for m in report.cr_effort_by_month)
        else "the engine's, from comparable work items"
    )
    note = Text(f"Summed effort ranges in person-days ({whose}).", style="dim")
    return Group(title, table, note)


TWO_COLUMNS_FROM = 110
"""From this many cells the report is laid out in two columns side by side
(:func:`_two_columns`; at 120 columns the right half was left empty, issue 34 item 8)."""


def _two_columns(report: Report, width: int) -> RenderableType:
    """The report in two columns of half ``width`` each: the totals, the verdict bars
    and the day chart on the left; the agreement, the clauses with most corrections, the
    pending ages, the rulings per reviewer and the change-request effort on the right
    (about as tall as the left)."""
    half = (width - 3) // 2
    bar_width = max(8, min(40, half - 29))
    left = Group(
        _totals(report),
        Text(""),
        _verdict_table("Engine verdicts (all cases)", report.verdicts, report.cases, bar_width),
        Text(""),
        _verdict_table("Rulings (ruled cases)", report.rulings, report.ruled, bar_width),
        Text(""),
        _over_time(report, max(20, half - 2)),
    )
    right = Group(
        _agreement(report, max(6, half - 16)),
        Text(""),
        _corrections(report, max(8, half - 22)),
        Text(""),
        _pending_age(report, max(8, half - 16)),
        _age_note(report),
        Text(""),
        _by_reviewer(report),
        Text(""),
        _cr_effort(report),
    )
    grid = Table.grid(padding=(0, 3))
    grid.add_column(width=half)
    grid.add_column(width=width - 3 - half)
    grid.add_row(left, right)
    return grid


def report_view(report: Report, width: int = 80) -> RenderableType:
    """The whole report as one renderable, laid out for ``width`` cells: from
    :data:`TWO_COLUMNS_FROM` in two columns (:func:`_two_columns`); else totals beside
    the verdict bars when there is room, then the day chart, then the clauses with the
    most corrections beside the agreement bars, then the pending ages beside the
    rulings per reviewer, then the change-request effort per month."""
    if width >= TWO_COLUMNS_FROM:
        return _two_columns(report, width)
    two = width >= 70
    bar_width = max(8, min(40, (width - 28 - 29) if two else (width - 29)))
    verdicts = Group(
        _verdict_table("Engine verdicts (all cases)", report.verdicts, report.cases, bar_width),
        Text(""),
        _verdict_table("Rulings (ruled cases)", report.rulings, report.ruled, bar_width),
    )
    chart = _over_time(report, max(20, width - 2))
    if not two:
        return Group(
            _totals(report),
            Text(""),
            verdicts,
            Text(""),
            chart,
            Text(""),
            _corrections(report, bar_width),
            Text(""),
            _agreement(report, bar_width),
            Text(""),
            _pending_age(report, bar_width),
            _age_note(report),
            Text(""),
            _by_reviewer(report),
            Text(""),
            _cr_effort(report),
        )
    top = Table.grid(padding=(0, 2))
    top.add_column(width=26)
    top.add_column()
    top.add_row(_totals(report), verdicts)
    bottom = Table.grid(padding=(0, 2))
    bottom.add_column(width=26)
    bottom.add_column()
    bottom.add_row(_agreement(report, 6), _corrections(report, bar_width))
    pmo = Table.grid(padding=(0, 2))
    pmo.add_column(width=26)
    pmo.add_column()
    pmo.add_row(_pending_age(report, 8), _by_reviewer(report))
    return Group(
        top,
        Text(""),
        chart,
        Text(""),
        bottom,
        Text(""),
        pmo,
        _age_note(report),
        Text(""),
        _cr_effort(report),
    )


class ReportsPane(VerticalScroll, can_focus=True):
    """Raporlar: refreshed when the tab is shown and after each ruling; ``e`` exports
    the report shown (the app's export flow)."""

    BINDINGS = bindings("export.report")

    def compose(self) -> ComposeResult:
        """One static body."""
        yield Static(Text("Loading…", style="dim"), id="report-body", markup=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.report: Report | None = None

    def reset(self) -> None:
        """Forget the report (another project is being opened)."""
        self.report = None
        body = part(self, "#report-body", Static)
        if body is not None:  # composed as "Loading…" otherwise
            body.update(Text("Loading…", style="dim"))

    def show(self, report: Report) -> None:
        """Render ``report`` for the current width; before the body is composed it is
        kept and rendered on mount (nothing while the pane is being removed)."""
        self.report = report
        body = part(self, "#report-body", Static)
        if body is None:
            return
        width = self.scrollable_content_region.width or self.size.width or 80
        body.update(report_view(report, width))

    def on_mount(self) -> None:
        """Render a report that arrived before the pane was composed."""
        if self.report is not None:
            self.show(self.report)

    def on_resize(self) -> None:
        """Lay the report out again for the new width."""
        self.call_after_refresh(self._relayout)

    def _relayout(self) -> None:
        if self.report is not None:  # read now: a newer report may have arrived
            self.show(self.report)
