"""The text report of ``etki eval triage`` (one job: readable lines, at most 100 columns).

Client-controlled strings (request ids, rule names, refs, paths) go through
:func:`etki.text.printable` and are cut to their column, so no row can drive the
terminal or break the layout.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING

from etki.domain import VERDICTS
from etki.evaluation.metrics import VerdictFigures
from etki.text import printable

if TYPE_CHECKING:
    from etki.evaluation.triage import Evaluation, Figures, Outcome

__all__ = ["WIDTH", "text_lines"]

WIDTH = 100
"""Widest line of the report."""

_VIEW_TITLE = {"all": "all rows", "without_borderline": "without borderline rows"}


def _cut(text: str, width: int) -> str:
    text = printable(text, multiline=False)
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def _fit(line: str) -> str:
    return line if len(line) <= WIDTH else line[: WIDTH - 1] + "…"


def _short(path: str, where: str) -> str:
    """``path`` relative to the engagement's folder when it lies inside it."""
    from pathlib import Path

    try:
        return str(Path(path).resolve().relative_to(Path(where).resolve()))
    except (ValueError, OSError):
        return path


def _table(rows: Sequence[tuple[str, Figures]], *, baseline: bool = False) -> list[str]:
    if baseline:
        out = [f"{'engagement':<14} {'n':>4}  {'accuracy [95% CI]':<19} {'macro-F1 [95% CI]':<19}"]
        for name, f in rows:
            out.append(
                f"{_cut(name, 14):<14} {f.n:>4}  {f.baseline_accuracy.text():<19} "
                f"{f.baseline_macro_f1.text():<19}"
            )
        return [line.rstrip() for line in out]
    out = [
        (
            f"{'engagement':<14} {'n':>4}  {'accuracy [95% CI]':<19} {'macro-F1 [95% CI]':<19} "
            f"{'clause recall':<14} {'module recall':<14}"
        )
    ]
    for name, f in rows:
        out.append(
            f"{_cut(name, 14):<14} {f.n:>4}  {f.accuracy.text():<19} "
            f"{f.macro_f1.text():<19} {f.clause.text():<14} {f.module.text():<14}"
        )
    return [line.rstrip() for line in out]


def _verdict_block(v: VerdictFigures) -> list[str]:
    out = [
        (
            f"  {'verdict':<16} {'precision':>9} {'recall':>7} {'F1':>6} {'support':>8} "
            f"{'answered':>9}"
        )
    ]
    for c in v.per_class:
        out.append(
            f"  {c.verdict:<16} {c.precision:>9.2f} {c.recall:>7.2f} {c.f1:>6.2f} "
            f"{c.support:>8} {c.answered:>9}"
        )
    out.append(f"  macro-F1 {v.macro_f1:.2f} over {', '.join(v.macro_classes) or '-'}")
    out.append("  confusion (rows: label, columns: engine)")
    out.append(f"  {'':<16}" + "".join(f"{name:>16}" for name in VERDICTS))
    for i, name in enumerate(VERDICTS):
        out.append(f"  {name:<16}" + "".join(f"{c:>16}" for c in v.confusion[i]))
    return out


def _rules_lines(head: str, f: Figures) -> list[str]:
    rules = ", ".join(f"{_cut(r, 20)} {c}" for r, c in f.rules)
    return textwrap.wrap(
        f"{head}; rules that decided: {rules}",
        WIDTH,
        subsequent_indent="  ",
        break_on_hyphens=False,
    )


def _request_lines(outcomes: Sequence[Outcome]) -> list[str]:
    head = (
        f"  {'request':<16} {'label':<14} {'engine':<14} {'ok?':<4} {'rule':<15} "
        f"{'clause':<6} {'module':<6} cited"
    )
    out = [head]
    for o in outcomes:
        rid = _cut(o.row.id, 15) + ("*" if o.row.borderline else "")
        ok = "ok" if o.verdict == o.row.verdict else "MISS"
        marks = {True: "hit", False: "miss", None: "-"}
        row = (
            f"  {rid:<16} {o.row.verdict:<14} {o.verdict:<14} {ok:<4} "
            f"{_cut(o.rule, 15):<15} {marks[o.clause_hit]:<6} {marks[o.module_hit]:<6} "
        )
        cited = printable(", ".join(o.cited) or "-", multiline=False)
        if len(row) + len(cited) <= WIDTH:
            out.append(row + cited)
        else:  # the refs on their own lines below the row, wrapped
            out.append(row.rstrip())
            out += textwrap.wrap(
                cited,
                WIDTH,
                initial_indent="      cited: ",
                subsequent_indent="             ",
                break_on_hyphens=False,
            )
    out.append("  (* borderline; clause/module: a labelled one is among the cited/impacted)")
    return out


def text_lines(ev: Evaluation, *, per_request: bool = False) -> list[str]:
    """The text report of ``ev`` (what ``etki eval triage`` prints): lines of at most
    100 columns; ``per_request`` adds one line per labelled request."""
    n = sum(len(e.rows) for e in ev.engagements)
    border = sum(r.borderline for e in ev.engagements for r in e.rows)
    out = [
        (
            f"triage evaluation: {len(ev.engagements)} engagement(s), {n} labelled requests "
            f"({border} borderline)"
        ),
        f"engine {', '.join(ev.versions())}; settings {ev.thresholds.label()}",
        (
            f"intervals: 95% percentile bootstrap (Efron & Tibshirani 1993), {ev.resamples} "
            f"resamples, seed {ev.seed};"
        ),
        "  pooled = all requests together, resampled within each engagement",
        "macro-F1: mean F1 over the verdicts present in labels or answers",
        "clause recall: requests with labelled clauses where one is cited (a top-level",
        "  label such as 4 also matches 4.x); module recall likewise for impacted modules",
        "",
    ]
    for e in ev.engagements:
        files = ", ".join(_cut(_short(f, e.where), 60) for f in e.files)
        skipped = f", {e.skipped} without a verdict label skipped" if e.skipped else ""
        out.append(
            _fit(
                f"{_cut(e.id, 14):<14} {len(e.rows)} labelled "
                f"({sum(r.borderline for r in e.rows)} borderline){skipped}; "
                f"index {e.index.hash}"
            )
        )
        out.append(_fit(f"{'':<14} {_cut(e.where, 60)}: {files}"))
    for view in ev.views:
        rows = [(e.id, ev.per_engagement[e.id][view]) for e in ev.engagements]
        rows.append(("pooled", ev.pooled[view]))
        out += [
            "",
            f"engine, {_VIEW_TITLE[view]}",
            *_table(rows),
            "",
            (f"baseline ('new' in the text -> CHANGE_REQUEST, else IN_SCOPE), {_VIEW_TITLE[view]}"),
            *_table(rows, baseline=True),
        ]
    warnings = ev.warnings()
    if warnings:
        out.append("")
        out += [f"warning: {w}" for w in warnings]
    for e in ev.engagements:
        out += ["", f"== {_cut(e.id, 60)} =="]
        for view in ev.views:
            f = ev.per_engagement[e.id][view]
            out += _rules_lines(f"{_VIEW_TITLE[view]} ({f.n})", f)
            out += _verdict_block(f.verdict)
        if per_request:
            out += _request_lines(ev.outcomes[e.id])
    if ev.loeo is not None:
        out += _loeo_lines(ev, per_request=per_request)
    return [_fit(line) for line in out]


def _loeo_lines(ev: Evaluation, *, per_request: bool) -> list[str]:
    lo = ev.loeo
    assert lo is not None
    out = [
        "",
        f"== leave-one-engagement-out: {len(lo.grid)} pre-registered settings ==",
        "each engagement is reported under the settings with the best pooled macro-F1 on",
        "the OTHER engagements (ties: default, then grid order; etki.evaluation.triage.GRID)",
        "macro-F1 on the other engagements: under the chosen settings, and under the default",
        f"{'held out':<14} {'chosen':>9} {'default':>9}  chosen settings",
    ]
    for e in ev.engagements:
        label, score, dflt = lo.chosen[e.id]
        d = "-" if dflt is None else f"{dflt:.3f}"
        out.append(_fit(f"{_cut(e.id, 14):<14} {score:>9.3f} {d:>9}  {label}"))
    for view in ev.views:
        rows = [(e.id, lo.held_out[e.id][view]) for e in ev.engagements]
        rows.append(("pooled", lo.pooled[view]))
        out += ["", f"held out, {_VIEW_TITLE[view]}", *_table(rows)]
    for e in ev.engagements:
        out += ["", f"-- {_cut(e.id, 60)} held out, settings {lo.chosen[e.id][0]}"]
        f = lo.held_out[e.id][ev.views[0]]
        out += _rules_lines(f"{_VIEW_TITLE[ev.views[0]]} ({f.n})", f)
        out += _verdict_block(f.verdict)
        if per_request:
            out += _request_lines(lo.outcomes[e.id])
    return out
