"""``GraphQueryPort.expand`` on a 50,000-node graph, without rerank.

The graph: the knowledge index of a generated project with 2,000 clauses, 5,000 modules
and enough work items that, with the precedent nodes of 10,000 ruled cases (about 15%
overrides, built in memory), it has about 50,000 nodes. The port is built once (its
build time is reported); each round asks ``expand`` every question (request texts in
en/tr/de and impact questions), so the time covers the lexical seed ranking, the
two-hop weighted BFS and the token-budget packing.

Baseline (same run, same questions): the bare floor of the same walk — the same top-5
lexical seeds followed by an unweighted two-hop BFS with a visited set over the same
adjacency, no priorities, no packing.

Target: p95 <= 50 ms.
"""

from __future__ import annotations

import time

from bench.common import Context, Figure, ms, ratio, stats
from bench.generate import Size

NAME = "expand"
DESCRIPTION = "GraphQueryPort.expand on a 50k-node graph, p95"


def _cases(size: Size, project, index_hash: str):
    import random

    from bench.generate import REVIEWERS, requests, ruling_for, synthetic_decision
    from etki.domain import ACTIONS, CaseRecord, RulingRecord
    from etki.triage import case_id_for

    rng = random.Random(f"{size.seed}:expand")
    refs = [c.ref for c in project.clauses]
    mods = [m.id for m in project.modules]
    wis = [w.id for w in project.workitems]
    out = []
    for i, r in enumerate(requests(size)):
        cid = case_id_for("bench", r.id)
        d = synthetic_decision(rng, cid, refs, mods, wis, index_hash)
        action, reason = ruling_for(rng, d.verdict)
        ruling = RulingRecord(
            cid,
            ACTIONS[action],
            action,
            rng.choice(REVIEWERS),
            reason,  # type: ignore[arg-type]
            f"2025-02-{1 + i % 28:02d}T10:00:00Z",
            d.verdict,
        )
        out.append(
            CaseRecord(
                cid,
                "bench",
                r.id,
                r.title or r.id,
                r.text,
                r.submitted_by,
                r.submitted_at,
                "2025-01-01T00:00:00Z",
                2,
                d,
                ruling,
            )
        )
    return out


def run(ctx: Context) -> list[Figure]:
    try:
        from etki.retrieval.graph import RetrievalGraph
        from etki.retrieval.port import GraphQueryPort
    except ImportError as exc:
        return [
            ctx.emit(
                Figure(
                    NAME,
                    "expand",
                    None,
                    None,
                    "",
                    note=f"not available: etki.retrieval cannot be imported ({exc})",
                )
            )
        ]
    from etki.knowledge import build_index, load_project

    base = ctx.size
    size = (
        Size(clauses=120, modules=300, workitems=1500, cases=300)
        if ctx.quick
        else Size(clauses=2000, modules=5000, workitems=41500, cases=10000)
    )
    folder = ctx.project_folder(size)
    t0 = time.perf_counter()
    project = load_project(folder)
    index = build_index(project)
    cases = _cases(size, project, index.hash)
    t1 = time.perf_counter()
    graph = RetrievalGraph(index, cases)
    port = GraphQueryPort(graph, languages=project.config.languages)
    t2 = time.perf_counter()
    ctx.log(
        f"graph: {len(graph.nodes)} nodes, {len(graph.edges)} edges; load+index "
        f"{t1 - t0:.1f} s, graph+port build {t2 - t1:.1f} s"
    )
    questions = [f"{r.title}\n{r.text}" for r in project.requests[:25]]
    mods = [m.id for m in project.modules[:: max(1, len(project.modules) // 10)]][:10]
    questions += [f"What depends on {m}? What is the impact of changing it?" for m in mods]
    questions += [
        "Why was the refund process ruled a change request?",
        "Hangi modüller emlak vergisi ödemesine bağlı?",
        "Welche Module hängen von der Single-Sign-On-Anmeldung ab?",
    ]
    rounds = 2 if ctx.quick else 3
    port.expand(questions[0])  # warm
    lat: list[float] = []
    seeds_t: list[float] = []
    floor: list[float] = []
    sizes: list[int] = []
    for _ in range(rounds):
        for q in questions:
            a = time.perf_counter()
            res = port.expand(q)
            lat.append(time.perf_counter() - a)
            sizes.append(len(res.nodes))
            b = time.perf_counter()
            seeds = port.scorer.rank(q, 5)
            c = time.perf_counter()
            visited = {s for s, _ in seeds}
            frontier = list(visited)
            for _hop in range(2):
                nxt = []
                for nid in frontier:
                    for h in graph.hops(nid):
                        if h.neighbour not in visited:
                            visited.add(h.neighbour)
                            nxt.append(h.neighbour)
                frontier = nxt
            d = time.perf_counter()
            seeds_t.append(c - b)
            floor.append(d - b)
    s, f, sd = stats(ms(lat)), stats(ms(floor)), stats(ms(seeds_t))
    del base
    return [
        ctx.emit(
            Figure(
                NAME,
                f"expand ({len(graph.nodes)} nodes, {len(graph.edges)} edges)",
                s.median,
                s.p95,
                "ms",
                s.n,
                "top-5 lexical seeds + bare 2-hop BFS",
                f.median,
                ratio(s.median, f.median),
                "p95 <= 50 ms",
                s.p95 <= 50.0,
                note=f"{sum(sizes) / len(sizes):.1f} nodes per subgraph; "
                f"seed ranking alone median {sd.median:.1f} ms, "
                f"p95 {sd.p95:.1f} ms",
            )
        ),
        ctx.emit(
            Figure(
                NAME,
                "graph + port build",
                (t2 - t1) * 1000,
                None,
                "ms",
                1,
                note="once per port (GraphQueryPort.from_store / etki init)",
            )
        ),
    ]
