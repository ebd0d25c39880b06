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
from etki.text import plural, printable

if TYPE_CHECKING:
    from etki.evaluation.confidence import CalibrationRow, ConfidenceFigures, ConfidenceReport
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
        f"  {'request':<16} {'label':<14} {'engine':<14} {'ok?':<4} {'conf':<4} {'rule':<15} "
        f"{'clause':<6} {'module':<6} cited"
    )
    out = [head]
    for o in outcomes:
        rid = _cut(o.row.id, 15) + ("*" if o.row.borderline else "")
        ok = "ok" if o.verdict == o.row.verdict else "MISS"
        marks = {True: "hit", False: "miss", None: "-"}
        row = (
            f"  {rid:<16} {o.row.verdict:<14} {o.verdict:<14} {ok:<4} {o.confidence:<4.2f} "
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


def _num(v: float | None, width: int) -> str:
    return f"{'-' if v is None else f'{v:.2f}':>{width}}"


def _confidence_table(rows: Sequence[tuple[str, ConfidenceFigures]]) -> list[str]:
    from etki.evaluation.confidence import COVERAGES

    tops = "".join(f" {f'top {round(c * 100)}%':>8}" for c in COVERAGES)
    out = [
        f"{'engagement':<14} {'n':>4} {'accuracy':>9}{tops} {'area':>6} {'ECE':>6}  REJECT recall"
    ]
    for name, f in rows:
        sel = "".join(f" {_num(a, 8)}" for _, _, a in f.selective)
        out.append(
            f"{_cut(name, 14):<14} {f.n:>4} {_num(f.accuracy, 9)}{sel} {_num(f.area, 6)} "
            f"{_num(f.ece, 6)}  {f.reject.text()}"
        )
    marked = [(name, f.sure) for name, f in rows if f.sure is not None]
    if not marked:
        return out + ["sure: no answer carries the engine's sure mark"]
    out += ["", f"{'engagement':<14} {'n':>4}  {'sure':<12} {'accuracy sure':>13} {'unsure':>7}"]
    for name, s in marked:
        share = f"{s.share:.2f} {s.sure}/{s.n}"
        out.append(
            f"{_cut(name, 14):<14} {s.n:>4}  {share:<12} {_num(s.sure_accuracy, 13)} "
            f"{_num(s.unsure_accuracy, 7)}"
        )
    return out


_CONFIDENCE_KEY = [
    "  top q%: accuracy of the q% most confident answers (a tied block at the cut counts at",
    "  its mean accuracy); area: mean accuracy of the top k over k = 1..n (a ranking that",
    "  says nothing scores the accuracy beside it); ECE over fixed bins (Guo et al. 2017)",
]


def _reliability_lines(title: str, f: ConfidenceFigures) -> list[str]:
    out = [title, f"  {'confidence':<14} {'n':>4} {'mean confidence':>16} {'accuracy':>9}"]
    for i, b in enumerate(f.bins):
        label = b.label(last=i == len(f.bins) - 1)
        out.append(f"  {label:<14} {b.n:>4} {_num(b.confidence, 16)} {_num(b.accuracy, 9)}")
    out.append(f"  ECE {_num(f.ece, 0)} over {f.n} answers")
    return out


def _confidence_lines(
    heading: str,
    per: Sequence[tuple[str, ConfidenceFigures]],
    pooled: ConfidenceFigures,
    *,
    reliability: bool,
    note: Sequence[str] = (),
) -> list[str]:
    out = ["", heading, *note, *_CONFIDENCE_KEY, *_confidence_table([*per, ("pooled", pooled)])]
    out += ["", *_reliability_lines("reliability, pooled", pooled)]
    if reliability:
        for name, f in per:
            out += ["", *_reliability_lines(f"reliability, {_cut(name, 60)}", f)]
    return out


def calibration_lines(rows: Sequence[CalibrationRow], view: str, settings: str) -> list[str]:
    """The per-kind table of ``etki eval triage --calibration``: n, correct and the
    smoothed accuracy (m-estimate toward its group's rate) over all engagements, and the value each engagement gets
    when it is held out."""
    held = list(rows[0].loeo) if rows else []
    cols = "".join(f" {_cut(e, 9):>9}" for e in held)
    out = [
        "",
        f"calibration by evidence kind, {_VIEW_TITLE[view]}, settings {settings}",
        "  (correct + 2 x g) / (n + 2), g the Laplace rate of its group (sure kinds or the",
        "  others; Cestnik's m-estimate); 'all' over every engagement; a held-out column:",
        "  set on the other engagements only;",
        "  (unseen): the value of a kind the engagements it is set on never show",
        f"{'kind':<18} {'n':>4} {'correct':>7} {'all':>6}   held out:{cols}",
    ]
    for r in rows:
        vals = "".join(f" {r.loeo[e]:>9.4f}" for e in held)
        out.append(f"{_cut(r.kind, 18):<18} {r.n:>4} {r.correct:>7} {r.all:>6.4f}   {'':9}{vals}")
    return out


def text_lines(
    ev: Evaluation,
    *,
    per_request: bool = False,
    reliability: bool = False,
    calibration: bool = False,
) -> list[str]:
    """The text report of ``ev`` (what ``etki eval triage`` prints): lines of at most
    100 columns; ``per_request`` adds one line per labelled request, ``reliability`` a
    reliability table per engagement, ``calibration`` the per-kind calibration table."""
    from etki.evaluation.confidence import confidence_report

    conf = confidence_report(ev)
    n = sum(len(e.rows) for e in ev.engagements)
    border = sum(r.borderline for e in ev.engagements for r in e.rows)
    out = [
        (
            f"triage evaluation: {len(ev.engagements)} {plural(len(ev.engagements), 'engagement')}, {n} labelled requests "
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
    out += _confidence_lines(
        f"confidence (engine's own), {_VIEW_TITLE[conf.view]}",
        [(e.id, conf.per_engagement[e.id]) for e in ev.engagements],
        conf.pooled,
        reliability=reliability,
    )
    if calibration:
        out += calibration_lines(conf.calibration, conf.view, ev.thresholds.label())
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
        out += _loeo_lines(ev, conf, per_request=per_request, reliability=reliability)
    return [_fit(line) for line in out]


def _loeo_lines(
    ev: Evaluation, conf: ConfidenceReport, *, per_request: bool, reliability: bool
) -> list[str]:
    lo = ev.loeo
    assert lo is not None and conf.loeo is not None
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
    out += _confidence_lines(
        f"confidence set leave-one-engagement-out, held out, {_VIEW_TITLE[conf.view]}",
        [(e.id, conf.loeo.per_engagement[e.id]) for e in ev.engagements],
        conf.loeo.pooled,
        reliability=reliability,
        note=(
            "  each held-out answer's confidence: the smoothed accuracy of its kind of evidence",
            "  (m-estimate toward its group's rate) on the OTHER engagements under the",
            "  held-out's settings (a kind they never show: their pooled value); the engine's",
            "  own confidence is not used",
        ),
    )
    for e in ev.engagements:
        out += ["", f"-- {_cut(e.id, 60)} held out, settings {lo.chosen[e.id][0]}"]
        f = lo.held_out[e.id][ev.views[0]]
        out += _rules_lines(f"{_VIEW_TITLE[ev.views[0]]} ({f.n})", f)
        out += _verdict_block(f.verdict)
        if per_request:
            out += _request_lines(lo.outcomes[e.id])
    return out
