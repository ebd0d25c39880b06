"""Clause recall of ``wiki_search``'s ranking (the MCP tool's BM25F over wiki pages and
contract clause sections, :meth:`etki.mcp.memory.ProjectMemory.wiki_ranker`) for a
labelled query file, with background clause sections at full weight and at the served
``CONTEXT_WEIGHT`` (docs/EVAL.md, "Background counts half in ``wiki_search`` too, and
evaluation-of-offers sections are background").

``etki eval retrieval`` scores the graph port's methods, not ``wiki_search``; this probe
scores the wiki's top ``k`` the same way (:func:`etki.retrieval.evaluate.score_ranking`:
recall@k, precision@k over every hit returned, reciprocal rank), the labels being the
query's clauses only (a clause section ``path#ANCHOR`` is clause ``unquote(ANCHOR)``; any
other page is a hit that is no clause). A labelled request does not see the wiki pages of
its own ruled case (their file names end in its case id), as in ``etki eval retrieval``.
Also recall@5, and how many of the top 5 slots background clause sections hold.

    ETKI_DB_URL=sqlite:///$D/tdrs-ruled.db ETKI_WIKI_DIR=$D/wiki-ruled-{project} \\
        python docs/probes/wiki_clause_recall.py tdrs docs/questions/tdrs.jsonl [--json]
"""

import json
import sys
from urllib.parse import unquote

import etki.mcp.memory as mem
from etki.config import Settings
from etki.mcp.memory import ProjectMemory
from etki.retrieval.evaluate import load_queries, score_ranking

K = 10
proj, qfile = sys.argv[1], sys.argv[2]
settings = Settings.from_env()
out = {}
for label, w in (("flat", 1.0), ("weighted", mem.CONTEXT_WEIGHT)):
    mem.CONTEXT_WEIGHT = w  # read when the wiki ranker is built
    memory = ProjectMemory(settings, proj)
    graph = memory.port().graph
    background = memory.port().scorer.background
    found = memory.wiki_ranker()
    assert found is not None, "the wiki is off or not built"
    ranker = found[0]
    own = {c.request_id: c.case_id for c in memory.ruled()}
    queries, _ = load_queries(qfile, graph)
    rows, slots = [], 0
    for q in queries:
        expected = [e for e in q.expected if e.startswith("clause:")]
        if not expected:
            continue
        case = own.get(q.id)
        ids = []
        for doc in ranker.rank(q.text, K + 20):
            if case is not None and doc.id.removesuffix(".md").endswith(case):
                continue
            path, _, anchor = doc.id.partition("#")
            ids.append(f"clause:{unquote(anchor)}" if anchor else path)
        ids = ids[:K]
        slots += sum(i in background for i in ids[:5])
        rows.append((q.id, *score_ranking(ids, expected), score_ranking(ids[:5], expected)[0]))
    n = len(rows)
    out[label] = {
        "queries": n,
        "recall": round(sum(r[1] for r in rows) / n, 4),
        "precision": round(sum(r[2] for r in rows) / n, 4),
        "mrr": round(sum(r[3] for r in rows) / n, 4),
        "recall@5": round(sum(r[4] for r in rows) / n, 4),
        "background_top5": f"{slots}/{5 * n}",
        "per_query": rows,
    }
if "--json" in sys.argv:
    print(json.dumps(out, indent=1))
for label, r in out.items():
    print(
        f"{proj} {qfile} {label}: n={r['queries']} recall@{K} {r['recall']:.4f} "
        f"precision {r['precision']:.4f} MRR {r['mrr']:.4f} recall@5 {r['recall@5']:.4f} "
        f"background in top 5 "
        f"{r['background_top5']}"
    )
