"""Terminal charts for Raporlar, as plain Rich renderables (no plotting dependency).

Every chart carries its numbers and a legend in words, and its two series use different
glyphs (``█`` agreed, ``▒`` overridden), so it reads on a 16-colour terminal, with
``NO_COLOR`` and on paper. Pure functions: no clock, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta

from rich.console import Group
from rich.text import Text

BAR = "█"
AGREED = "█"
OVERRIDDEN = "▒"
SPARKS = "▁▂▃▄▅▆▇█"
AGREED_STYLE = "green"
OVERRIDDEN_STYLE = "magenta"


def bar(value: int, total: int, width: int = 24, style: str = "") -> Text:
    """A horizontal bar of ``value``/``total`` scaled to ``width`` cells (at least one
    cell for a non-zero value)."""
    if total <= 0 or value <= 0:
        return Text("", end="")
    cells = max(1, round(width * value / total))
    return Text(BAR * min(cells, width), style=style, end="")


def spark(rate: float | None) -> str:
    """One sparkline cell for a rate in [0, 1]; a blank for a day without rulings."""
    if rate is None:
        return " "
    index = min(len(SPARKS) - 1, max(0, round(rate * (len(SPARKS) - 1))))
    return SPARKS[index]


def fill_days(rows: Sequence[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """``rows`` ((yyyy-mm-dd, ruled, overridden), oldest first) with the days between
    them added as zeros, so the x axis is calendar time."""
    if not rows:
        return []
    known = {d: (n, o) for d, n, o in rows}
    try:
        first, last = date.fromisoformat(rows[0][0]), date.fromisoformat(rows[-1][0])
    except ValueError:
        return list(rows)
    span = (last - first).days
    if span < 0 or span > 3660:
        return list(rows)
    out = []
    for i in range(span + 1):
        day = (first + timedelta(days=i)).isoformat()
        n, o = known.get(day, (0, 0))
        out.append((day, n, o))
    return out


def rulings_over_time(rows: Sequence[tuple[str, int, int]], width: int, height: int = 6) -> Group:
    """Stacked day columns (``█`` agreed below ``▒`` overridden) with a y axis, the
    first and last day under the x axis, and the override rate per day as a sparkline
    aligned with the columns. Shows the most recent days that fit in ``width``; columns
    are up to three cells wide when there are few days."""
    days = fill_days(rows)
    if not days:
        return Group(Text("No rulings yet.", style="dim"))
    label_w = max(3, len(str(max(n for _, n, _ in days))))
    room = max(4, width - label_w - 3)
    col = max(1, min(3, room // len(days) - 1))
    gap = 1 if len(days) * (col + 1) <= room else 0
    shown = days[-(room // (col + gap)) :]
    hidden = len(days) - len(shown)
    top = max(n for _, n, _ in shown) or 1
    heights = []
    for _, n, o in shown:
        total = 0 if n == 0 else max(1, round(height * n / top))
        over = 0 if o == 0 else min(total, max(1, round(total * o / n)))
        heights.append((total, over))
    lines: list[Text] = []
    for row in range(height, 0, -1):
        label = str(top) if row == height else ""
        line = Text(f"{label:>{label_w}} ┤" if label else f"{'':>{label_w}} │", style="dim")
        for total, over in heights:
            if row <= total - over:
                line.append(AGREED * col, style=AGREED_STYLE)
            elif row <= total:
                line.append(OVERRIDDEN * col, style=OVERRIDDEN_STYLE)
            else:
                line.append(" " * col)
            line.append(" " * gap)
        lines.append(line)
    axis_len = len(shown) * (col + gap)
    lines.append(Text(f"{'0':>{label_w}} └" + "─" * axis_len, style="dim"))
    first, last = shown[0][0][5:], shown[-1][0][5:]
    under = Text(" " * (label_w + 2))
    if len(shown) == 1 or axis_len < len(first) + len(last) + 1:
        under.append(shown[-1][0], style="dim")
    else:
        under.append(first + " " * (axis_len - len(first) - len(last) - gap) + last, style="dim")
    lines.append(under)
    rates = Text(f"{'%':>{label_w}}  ", style="dim")
    for _, n, o in shown:
        rates.append(spark(o / n if n else None) * col, style=OVERRIDDEN_STYLE)
        rates.append(" " * gap)
    lines.append(rates)
    legend = Text()
    legend.append(AGREED, style=AGREED_STYLE)
    legend.append(" agreed  ")
    legend.append(OVERRIDDEN, style=OVERRIDDEN_STYLE)
    legend.append(" overridden")
    lines.append(legend)
    # the sparkline's key on a line of its own: the one-line legend (64 cells) wrapped
    # mid-phrase in the report's 55-cell left column at 120x40 (a later trial of issue 34)
    lines.append(Text("% override rate per day: ▁ 0% … █ 100%", style="dim"))
    ruled = sum(n for _, n, _ in days)
    over = sum(o for _, _, o in days)
    summary = Text(
        f"{ruled} ruling{'s' if ruled != 1 else ''} over {len(days)} "
        f"day{'s' if len(days) != 1 else ''}, {over} overridden "
        f"({100 * over / ruled:.0f}%)"
        if ruled
        else ""
    )
    if hidden:
        summary.append(f"; the chart shows the last {len(shown)} days")
    lines.append(summary)
    return Group(*lines)
