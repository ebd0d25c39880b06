"""The top 5 clause hits of ``find_k_nodes`` for a reviewer question set, with background
clauses at full weight and at ``CONTEXT_WEIGHT`` (docs/EVAL.md, "Background clauses
count half in the graph ranking"): how many top-5 slots background (context-role) clauses
hold, and the rank of the first labelled clause per question.

    ETKI_WIKI_DIR= ETKI_DB_URL=sqlite:///$D/tdrs-ruled.db \
        python docs/probes/background_top5.py tdrs docs/questions/tdrs.jsonl
"""

import sys

import etki.retrieval.lexical as lex
from etki.config import Settings
from etki.retrieval.evaluate import load_queries
from etki.services import Desk

proj, qfile = sys.argv[1], sys.argv[2]
out = {}
for w in (1.0, lex.DRAFT_WEIGHT):
    lex.CONTEXT_WEIGHT = w  # read when the port's scorer is built
    port = Desk.open(Settings.from_env(), read_only=True).graph_port(proj)
    g = port.graph
    bg = lex.context_clauses(g)
    qs, _ = load_queries(qfile, g)
    n_bg = 0
    ranks = []
    for q in qs:
        ids = [i for i in port.find_k_nodes(q.text, k=100).ids if g.node(i).type == "clause"][:5]
        n_bg += sum(i in bg for i in ids)
        ranks.append(next((r + 1 for r, i in enumerate(ids) if i in q.expected), None))
    out[w] = (n_bg, len(qs) * 5, sum(r is not None for r in ranks), ranks)
for w, (n_bg, slots, found, ranks) in out.items():
    print(
        f"{proj} weight {w}: background in top 5 {n_bg}/{slots}; labelled clause in top 5"
        f" for {found}/{len(ranks)}; first labelled rank {ranks}"
    )
