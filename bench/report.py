"""``python -m bench.report FIGURES.json``: the markdown table of one run's figures
(written by ``python -m bench all --json FIGURES.json``), for BENCH.md."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _num(x: float | None, unit: str = "") -> str:
    if x is None:
        return "–"
    if abs(x) >= 100:
        text = f"{x:,.0f}"
    elif abs(x) >= 10:
        text = f"{x:.1f}"
    else:
        text = f"{x:.2f}"
    return f"{text} {unit}".strip()


def table(data: dict) -> str:
    rows = [
        "| benchmark | figure | median | p95 | baseline (same run) | ratio | target | met |",
        "|---|---|---:|---:|---|---:|---|---|",
    ]
    for f in data["figures"]:
        met = {True: "**met**", False: "**missed**", None: "–"}[f["met"]]
        base = f["baseline"] or "–"
        if f["baseline_median"] is not None:
            base += f": {_num(f['baseline_median'], f['unit'])}"
        metric = f["metric"] + (f" ({f['note']})" if f["note"] else "")
        rows.append(
            " | ".join(
                [
                    f"| {f['bench']}",
                    metric.replace("|", "/"),
                    _num(f["median"], f["unit"]),
                    _num(f["p95"], f["unit"]),
                    base.replace("|", "/"),
                    f"{f['ratio']:.2f}x" if f["ratio"] is not None else "–",
                    f["target"] or "–",
                    met,
                ]
            )
            + " |"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("use: python -m bench.report FIGURES.json", file=sys.stderr)
        return 2
    data = json.loads(Path(args[0]).read_text())
    m = data["machine"]
    print(
        f"Machine: {m['nproc']} CPUs, {m['cpu']}, Python {m['python']}, {m['platform']}, "
        f"libyaml {m['libyaml']}, {m['rg']}; load average at start {m['loadavg']}, "
        f"at end {data['load_end']}. Seconds per benchmark: {data['seconds']}.\n"
    )
    print(table(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
