"""Triage quality on labelled requests: prints figures, asserts nothing.

Usage::

    .venv/bin/python bench/triage_quality.py [PROJECT_DIR ...] [--quiet]

Default project: ``../shared/realdata/tdrs`` next to the repository. Each request's
``labels`` (kept by the loader in ``Request.labels_json``) give the expected verdict,
clause section numbers, module ids and ``borderline``. Figures:

* verdict accuracy, overall and without borderline requests, and the confusion matrix;
* clause hit rate: share of requests (with at least one labelled clause) where a
  labelled section number is among the numbers of the cited clauses;
* module hit rate: share of requests (with at least one labelled module) where a
  labelled module is among the impacted modules;
* engine build time and triage time per request (wall clock, this machine);
* how often each rule decided, and the misses.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

from etki.domain import VERDICTS, Project
from etki.knowledge import build_index, load_project
from etki.triage import ENGINE_VERSION, MODEL_VERSION, TriageEngine, case_id_for

REPO = Path(__file__).resolve().parents[1]
DEFAULT = REPO.parent / "shared" / "realdata" / "tdrs"


def _num(number: str) -> str:
    """Section number without a trailing ``.0`` (``4.0`` and ``4`` are one section)."""
    parts = [p for p in number.strip().strip(".").split(".") if p]
    while len(parts) > 1 and parts[-1] == "0":
        parts.pop()
    return ".".join(parts)


def _pct(n: int, d: int) -> str:
    return f"{n}/{d} = {100.0 * n / d:.1f}%" if d else "n/a (no labelled requests)"


def measure(project: Project, *, quiet: bool = False) -> dict[str, float]:
    """Triage every labelled request of ``project`` and print the figures. Returns the
    main rates (fractions) for callers that want them."""
    t0 = time.perf_counter()
    index_hash = build_index(project).hash
    t1 = time.perf_counter()
    engine = TriageEngine(project, index_hash)
    t2 = time.perf_counter()
    number_of = {c.ref: _num(c.number) for c in project.clauses}
    labelled = [(r, json.loads(r.labels_json)) for r in project.requests if r.labels_json]
    rows = []
    t3 = time.perf_counter()
    for request, labels in labelled:
        decision = engine.triage(case_id_for(project.id, request.id), request.text,
                                 request.title)
        rows.append((request, labels, decision))
    t4 = time.perf_counter()

    n = len(rows)
    ok = sum(d.verdict == lab["verdict"] for _, lab, d in rows)
    plain = [(r, lab, d) for r, lab, d in rows if not lab.get("borderline")]
    ok_plain = sum(d.verdict == lab["verdict"] for _, lab, d in plain)
    confusion = Counter((lab["verdict"], d.verdict) for _, lab, d in rows)
    with_clauses = [(lab, d) for _, lab, d in rows if lab.get("clauses")]
    clause_hits = sum(
        bool({_num(c) for c in lab["clauses"]} & {number_of.get(ref, "") for ref in d.cited_clauses})
        for lab, d in with_clauses)
    with_modules = [(lab, d) for _, lab, d in rows if lab.get("modules")]
    module_hits = sum(bool(set(lab["modules"]) & set(d.impacted_modules))
                      for lab, d in with_modules)
    rules = Counter(dict(d.extra).get("rule", "?") for _, _, d in rows)

    print(f"triage quality: project {project.id} ({project.root})")
    print(f"engine {ENGINE_VERSION} / {MODEL_VERSION}; index {index_hash[:23]}…")
    print(f"labelled requests: {n} ({n - len(plain)} borderline); label verdicts: "
          + ", ".join(f"{v} {sum(lab['verdict'] == v for _, lab, _ in rows)}" for v in VERDICTS))
    print(f"verdict accuracy:                     {_pct(ok, n)}")
    print(f"verdict accuracy without borderline:  {_pct(ok_plain, len(plain))}")
    print("confusion matrix (rows: label, columns: engine):")
    width = max(len(v) for v in VERDICTS) + 2
    print(" " * width + "".join(f"{v:>{width}}" for v in VERDICTS))
    for want in VERDICTS:
        print(f"{want:<{width}}" + "".join(f"{confusion[(want, got)]:>{width}}" for got in VERDICTS))
    print(f"clause hit rate:  {_pct(clause_hits, len(with_clauses))} "
          "(a labelled section among the cited clauses)")
    print(f"module hit rate:  {_pct(module_hits, len(with_modules))} "
          "(a labelled module among the impacted modules)")
    per = (t4 - t3) / n if n else 0.0
    print(f"timing: index build {t1 - t0:.3f} s, engine build {t2 - t1:.3f} s, "
          f"triage {1000 * per:.2f} ms/request ({n} requests in {t4 - t3:.3f} s)")
    print("rules: " + ", ".join(f"{rule} {count}" for rule, count in sorted(rules.items())))
    misses = [(r, lab, d) for r, lab, d in rows if d.verdict != lab["verdict"]]
    if misses and not quiet:
        print("misses:")
        for r, lab, d in misses:
            flag = " (borderline)" if lab.get("borderline") else ""
            print(f"  {r.id}: label {lab['verdict']}, engine {d.verdict} "
                  f"({dict(d.extra).get('rule')}, confidence {d.confidence:.2f}){flag}")
    print()
    return {"accuracy": ok / n if n else 0.0,
            "accuracy_plain": ok_plain / len(plain) if plain else 0.0,
            "clause_hit": clause_hits / len(with_clauses) if with_clauses else 0.0,
            "module_hit": module_hits / len(with_modules) if with_modules else 0.0,
            "ms_per_request": 1000 * per}


def main(argv: list[str] | None = None) -> int:
    """Command line entry: measure each project folder given (default: realdata tdrs)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("projects", nargs="*", type=Path, default=[DEFAULT])
    parser.add_argument("--quiet", action="store_true", help="do not list the misses")
    args = parser.parse_args(argv)
    for folder in args.projects:
        measure(load_project(folder), quiet=args.quiet)
    return 0


if __name__ == "__main__":
    sys.exit(main())
