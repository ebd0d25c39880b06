"""Triage throughput on 2,000 clauses (5,000 modules, 20,000 work items).

The engine is built once from the generated project (its build time is reported, not
part of the target); then the same requests are triaged in several rounds. Per-request
latency: median and p95 over every call of every round; throughput: requests per second
of wall time per round. Baseline (same run, same requests): the lexical floor — only
tokenising the request and BM25-scoring it against the whole-clause index
(``engine.clause_index``), one of the ~ten steps the engine takes.

Target: >= 200 requests/s and p95 <= 20 ms per request.
"""

from __future__ import annotations

import time

from bench.common import Context, Figure, ms, ratio, stats

NAME = "triage"
DESCRIPTION = "triage throughput and per-request latency on 2,000 clauses"


def run(ctx: Context) -> list[Figure]:
    from etki.knowledge import build_index, load_project
    from etki.triage import TriageEngine, case_id_for
    from etki.triage.normalise import guess_language, tokens
    from etki.triage.scoring import query_terms

    size = ctx.size
    folder = ctx.project_folder(size)
    t0 = time.perf_counter()
    project = load_project(folder)
    t1 = time.perf_counter()
    index = build_index(project)
    t2 = time.perf_counter()
    engine = TriageEngine(project, index)
    t3 = time.perf_counter()
    n = 60 if ctx.quick else 400
    rounds = 2 if ctx.quick else 3
    reqs = project.requests[:n]
    ctx.log(
        f"{len(project.clauses)} clauses, {len(project.modules)} modules, "
        f"{len(project.workitems)} work items; load {t1 - t0:.2f} s, index {t2 - t1:.2f} s, "
        f"engine build {t3 - t2:.2f} s"
    )
    for r in reqs[:5]:  # warm caches (lru caches of the normaliser)
        engine.triage("warm", r.text, r.title)

    lat: list[float] = []
    base: list[float] = []
    tput: list[float] = []
    for _ in range(rounds):
        start = time.perf_counter()
        for r in reqs:
            a = time.perf_counter()
            engine.triage(case_id_for(project.id, r.id), r.text, r.title)
            lat.append(time.perf_counter() - a)
        tput.append(len(reqs) / (time.perf_counter() - start))
        for r in reqs:
            a = time.perf_counter()
            full = f"{r.title}\n{r.text}"
            engine.clause_index.scores(
                query_terms(tokens(full, guess_language(full, engine.languages)))
            )
            base.append(time.perf_counter() - a)
    s, b, t = stats(ms(lat)), stats(ms(base)), stats(tput)
    worst_tput = min(tput)
    out = [
        ctx.emit(
            Figure(
                NAME,
                "per-request latency",
                s.median,
                s.p95,
                "ms",
                s.n,
                "bare tokenise + BM25 over the clause index",
                b.median,
                ratio(s.median, b.median),
                "p95 <= 20 ms",
                s.p95 <= 20.0,
            )
        ),
        ctx.emit(
            Figure(
                NAME,
                "throughput",
                t.median,
                worst_tput,
                "req/s",
                len(tput),
                "bare tokenise + BM25 (req/s)",
                1000.0 / b.median,
                ratio(1000.0 / b.median, t.median),
                ">= 200 req/s (worst round)",
                worst_tput >= 200.0,
                note="p95 column = slowest round; ratio = floor/engine",
            )
        ),
        ctx.emit(
            Figure(
                NAME,
                "engine build (2,000 clauses)",
                (t3 - t2) * 1000,
                None,
                "ms",
                1,
                note=f"load_project {(t1 - t0):.2f} s, build_index {(t2 - t1):.2f} s",
            )
        ),
    ]
    return out
