"""Retrieval without model endpoints (issue 5, items 1, 2, 3, 5, 6): routing and the
strategy record, lexical find_k, budgeted BFS with visited set, quotas, intent weights
and the dropped report, typed streams with RRF, and the pre-analysis context stored with
each decision (decisions byte-identical with it on or off). Real index, real store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from etki.config import Settings
from etki.domain import Edge
from etki.knowledge import build_index, load_project
from etki.knowledge.index import KnowledgeIndex, Node
from etki.retrieval import GraphQueryPort, RetrievalGraph
from etki.retrieval.context import FORMAT, related_context
from etki.retrieval.expand import (
    INTENT_WEIGHTS,
    TOKEN_METHOD,
    collect,
    count_tokens,
    pack,
)
from etki.retrieval.graph import node_context
from etki.retrieval.intent import intent, interrogative
from etki.retrieval.streams import RRF_K, Stream, fuse
from etki.services import init_project
from etki.store import CaseFileRepository
from tests.factories import frozen_clock
from tests.golden import decisions

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_project"


@pytest.fixture(scope="module")
def sample() -> tuple[object, KnowledgeIndex]:
    project = load_project(SAMPLE)
    return project, build_index(project)


@pytest.fixture(scope="module")
def port(sample) -> GraphQueryPort:
    project, index = sample
    return GraphQueryPort(RetrievalGraph(index), languages=project.config.languages)


# --- a small hand-made graph --------------------------------------------------------------


def _node(nid: str, title: str, text: str = "") -> Node:
    return Node(nid, nid.split(":", 1)[0], title, text)


def small_index() -> KnowledgeIndex:
    """clause C1 covers module pay; pay depends on core; api depends on pay; work items
    W1 -> W2 (precedes), W1 touches pay; incident I caused_by W1 (a work item)."""
    nodes = (
        _node("clause:K#1", "Card payments", "Citizens pay by card online."),
        _node("clause:K#2", "Receipts", "A receipt is sent after every payment."),
        _node("module:pay", "pay", "Card payment service"),
        _node("module:core", "core", "Configuration"),
        _node("module:api", "api", "Public API"),
        _node("workitem:W1", "Card payment flow", "Card payment flow"),
        _node("workitem:W2", "Payment retries", "Payment retries"),
        _node("workitem:I", "Double charge incident", "Double charge incident"),
    )
    edges = (
        Edge("clause:K#1", "module:pay", "covers", "explicit", 1.0),
        Edge("clause:K#2", "clause:K#1", "cites", "explicit", 1.0),
        Edge("module:pay", "module:core", "depends_on", "explicit", 1.0),
        Edge("module:api", "module:pay", "depends_on", "explicit", 1.0),
        Edge("workitem:W1", "module:pay", "touches", "mapped", 0.8),
        Edge("workitem:W1", "workitem:W2", "precedes", "explicit", 1.0),
        Edge("workitem:I", "workitem:W1", "caused_by", "explicit", 1.0),
    )
    return KnowledgeIndex("k", nodes, edges)


# --- routing (item 1) ---------------------------------------------------------------------


def test_intent_and_question_words():
    assert intent("Why was the SSO ruling overridden?")[0] == "why"
    assert intent("Which modules are affected if the POS adapter changes?") == (
        "impact",
        "affected",
    )
    assert intent("Ödeme modülü neye bağlı?")[0] == "impact"
    assert intent("Welche Module sind von der Änderung betroffen?")[0] == "impact"
    assert intent("what comes next after the permit decision")[0] == "next"
    assert intent("card payment receipts")[0] == "lookup"
    assert interrogative("Which clause covers SSO") == "which"
    assert interrogative("Hangi madde SSO'yu kapsıyor") == "hangi"
    assert interrogative("card payment receipts") is None
    assert interrogative("card payment receipts?") == "?"


def test_query_routes_by_rule_and_records_strategy_and_reason(port):
    impact = port.query("Which modules are affected if the bank virtual POS adapter changes?")
    assert impact.strategy == "expand" and "'affected'" in impact.reason
    assert impact.subgraph is not None
    question = port.query("Which clause covers staff single sign-on?")
    assert question.strategy == "find_k_nodes"
    assert "no model is configured" in question.reason
    plain = port.query("staff single sign-on")
    assert plain.strategy == "find_k_nodes" and "no question word" in plain.reason
    forced = port.query("staff single sign-on", strategy="typed_streams")
    assert forced.strategy == "typed_streams" and "requested" in forced.reason
    with pytest.raises(ValueError, match="unknown strategy"):
        port.query("x", strategy="drop_tables")
    # nl_query without a model falls back and says so
    nl = port.nl_query("Which clause covers staff single sign-on?")
    assert nl.strategy == "find_k_nodes" and "no model configured" in nl.reason


# --- find_k (item 2) ----------------------------------------------------------------------


def test_find_k_is_lexical_and_deterministic(port):
    a = port.find_k_nodes("staff single sign-on against Active Directory", k=5)
    b = port.find_k_nodes("staff single sign-on against Active Directory", k=5)
    assert a == b and a.scoring == "lexical-bm25" and a.fallbacks == ()
    assert "clause:MSA-2024-01#3.2" in a.ids[:3]
    assert "module:portal.auth.sso" in a.ids
    scores = [n.score for n in a.nodes]
    assert scores == sorted(scores, reverse=True) and len(a.nodes) == 5
    only = port.find_k_nodes("single sign-on", k=3, node_type="module")
    assert {n.type for n in only.nodes} == {"module"}
    with pytest.raises(ValueError):
        port.find_k_nodes("x", node_type="invoice")


def test_find_k_folds_turkish_and_nfd(port):
    nfc = port.find_k_nodes("İşyeri açma ruhsatı", k=5).ids
    nfd = port.find_k_nodes("I\u0307s\u0327yeri ac\u0327ma ruhsati\u0307", k=5).ids
    assert nfc == nfd and "clause:MSA-2024-01#4.5" in nfc


# --- expand (item 3) ----------------------------------------------------------------------


def test_expand_walks_real_edges_with_a_visited_set():
    graph = RetrievalGraph(small_index())
    cands = collect(graph, [("module:pay", 2.0)], "lookup")
    ids = [c.id for c in (*cands.seeds, *cands.neighbours)]
    assert len(ids) == len(set(ids))  # every node at most once
    hop1 = {c.id: c.via for c in cands.neighbours if c.hop == 1}
    assert hop1 == {
        "clause:K#1": "covered_by",
        "module:core": "depends_on",
        "module:api": "depended_by",
        "workitem:W1": "touched_by",
    }
    assert cands.seeds[0].priority == 1.0
    assert all(c.priority <= 1.0 for c in cands.neighbours)


def test_intent_changes_edge_weights():
    graph = RetrievalGraph(small_index())

    def prio(kind: str, seed: str) -> dict[str, float]:
        return {c.id: c.priority for c in collect(graph, [(seed, 1.0)], kind).neighbours}

    # impact: what depends on pay (api, depended_by) outranks what pay needs (core)
    impact = prio("impact", "module:pay")
    assert impact["module:api"] > impact["module:core"]
    lookup = prio("lookup", "module:pay")
    assert lookup["module:api"] < lookup["module:core"]
    # why: caused_by is boosted
    assert prio("why", "workitem:I")["workitem:W1"] > prio("lookup", "workitem:I")["workitem:W1"]
    # what next: precedes is boosted
    assert prio("next", "workitem:W1")["workitem:W2"] > prio("lookup", "workitem:W1")["workitem:W2"]
    for weights in INTENT_WEIGHTS.values():
        assert all(0 < w <= 1.0 for w in weights.values())


def test_pack_respects_budget_quotas_and_reports_what_was_dropped(port):
    res = port.expand(
        "Which modules are affected if the bank virtual POS adapter changes?", budget_tokens=300
    )
    sub = res.subgraph
    assert sub is not None and sub.packing == "bfs" and sub.token_method == TOKEN_METHOD
    assert sub.tokens_used <= 300 and sub.budget_tokens == 300
    assert sub.tokens_used == sum(n.tokens for n in sub.nodes)
    assert sub.dropped and all(d.reason == "budget" for d in sub.dropped)
    kept = set(sub.node_ids)
    assert not kept & {d.id for d in sub.dropped}
    assert all(e.source in kept and e.target in kept for e in sub.edges)
    assert dict(sub.used_by_type)["module"] == sum(
        n.tokens for n in sub.nodes if n.type == "module"
    )
    assert sub.seeds == tuple(n.id for n in sub.nodes if n.hop == 0)
    bigger = port.expand(
        "Which modules are affected if the bank virtual POS adapter changes?", budget_tokens=3000
    ).subgraph
    assert bigger is not None and len(bigger.nodes) > len(sub.nodes)
    assert (
        bigger.to_bytes()
        == port.expand(
            "Which modules are affected if the bank virtual POS adapter changes?",
            budget_tokens=3000,
        ).subgraph.to_bytes()
    )


def test_type_quota_keeps_room_for_every_type():
    graph = RetrievalGraph(small_index())
    cands = collect(graph, [("module:pay", 1.0)], "lookup")
    everything = sum(c.tokens for c in (*cands.seeds, *cands.neighbours))
    shares = {"clause": 0.5, "module": 0.01, "workitem": 0.49, "precedent": 0.0}
    # modules may fill only 1% before the spill pass: every other type goes first
    sub = pack(graph, cands, everything, shares=shares)
    order = [n.id for n in sub.nodes]
    assert len(order) == len(cands.seeds) + len(cands.neighbours)
    modules = [i for i, nid in enumerate(order[1:], 1) if nid.startswith("module:")]
    others = [i for i, nid in enumerate(order[1:], 1) if not nid.startswith("module:")]
    assert min(modules) > max(others)
    # with only room for the non-module neighbours, the modules are dropped for budget
    room = everything - sum(c.tokens for c in cands.neighbours if c.type == "module")
    tight = pack(graph, cands, room, shares=shares)
    assert {d.id for d in tight.dropped} == {"module:core", "module:api"}
    assert tight.tokens_used == room


def test_token_count_method():
    assert count_tokens("") == 0 and count_tokens("abcd") == 1 and count_tokens("abcde") == 2
    node = Node("clause:X#1", "clause", "T", "word " * 500)
    assert len(node_context(node)) <= 600


def test_precedents_join_the_graph(tmp_path):
    repo = CaseFileRepository(f"sqlite:///{tmp_path / 'e.db'}", clock=frozen_clock)
    init_project(SAMPLE, repo, Settings(db_url="", wiki_dir=None))
    case = repo.cases("demo")[0]
    flipped = {"IN_SCOPE": "reject", "CHANGE_REQUEST": "approve", "REJECT": "approve"}
    repo.record_ruling(case.case_id, flipped[case.decision.verdict], "reviewer", "not as proposed")
    port = GraphQueryPort.from_store(repo, "demo")
    pid = f"precedent:{case.case_id}"
    assert port.graph.node(pid) is not None
    linked = {h.neighbour for h in port.graph.hops(pid)}
    assert {f"clause:{r}" for r in case.decision.cited_clauses} <= linked
    streams = port.typed_streams(case.title, k_per_type=3)
    assert pid in streams.ids
    assert dict(streams.streams)["precedent/lexical"][0] == pid
    repo.dispose()


def test_agreed_rulings_are_decision_nodes(tmp_path):
    """Issue 33 item 1: a ruling the reviewer agreed with is a ``decision`` node (text:
    request, ruling, reason; edges to its cited clauses); the pre-analysis port leaves
    it out (its stored block keeps the issue-5 form)."""
    from etki.knowledge import KnowledgeIndex
    from etki.retrieval.context import context_port

    repo = CaseFileRepository(f"sqlite:///{tmp_path / 'e.db'}", clock=frozen_clock)
    init_project(SAMPLE, repo, Settings(db_url="", wiki_dir=None))
    case = next(c for c in repo.cases("demo") if c.decision.verdict == "CHANGE_REQUEST")
    repo.record_ruling(case.case_id, "convert_to_cr", "reviewer", "agreed: a new feature")
    port = GraphQueryPort.from_store(repo, "demo")
    did = f"decision:{case.case_id}"
    node = port.graph.node(did)
    assert node is not None and node.type == "decision"
    assert port.graph.node(f"precedent:{case.case_id}") is None
    assert "Ruled CHANGE_REQUEST (engine proposed CHANGE_REQUEST, agreed)" in node.text
    assert "agreed: a new feature" in node.text and node.data["reviewer"] == "reviewer"
    linked = {h.neighbour for h in port.graph.hops(did)}
    assert {f"clause:{r}" for r in case.decision.cited_clauses} <= linked
    assert did in port.find_k_nodes(case.title, k=5).ids
    assert dict(port.typed_streams(case.title, k_per_type=3).streams)["decision/lexical"][0] == did
    project = repo.load_project("demo")
    index = KnowledgeIndex.from_bytes(repo.index_bytes("demo"))
    ctx = context_port(project, index, repo.cases("demo", status="ruled"))
    assert ctx is not None and ctx.graph.node(did) is None
    assert GraphQueryPort.from_store(repo, "demo", agreed=False).graph.node(did) is None
    repo.dispose()


# --- typed streams (item 5) ---------------------------------------------------------------


def test_rrf_uses_k_60_and_interleaves_types():
    fused = fuse(
        [
            Stream("clause/lexical", "clause", (("c1", 9.0), ("c2", 8.0), ("c3", 7.0))),
            Stream("module/lexical", "module", (("m1", 1.0),)),
        ]
    )
    assert [n for n, _ in fused] == ["c1", "m1", "c2", "c3"]
    assert fused[0][1] == pytest.approx(1 / (RRF_K + 1))
    both = fuse(
        [
            Stream("a", "clause", (("x", 1.0), ("y", 0.5))),
            Stream("b", "clause", (("y", 3.0), ("x", 1.0))),
        ]
    )
    assert both[0][1] == pytest.approx(1 / 61 + 1 / 62)


def test_typed_streams_keep_every_type_in_view(port):
    flat = port.find_k_nodes("property tax card payment receipt", k=4)
    streams = port.typed_streams("property tax card payment receipt", k_per_type=4, k=4)
    assert streams.strategy == "typed_streams"
    assert {n.type for n in streams.nodes} >= {"clause", "module", "workitem"}
    assert len({n.type for n in flat.nodes}) <= len({n.type for n in streams.nodes})
    names = [name for name, _ in streams.streams]
    assert names == [
        "clause/lexical",
        "module/lexical",
        "workitem/lexical",
        "precedent/lexical",
        "decision/lexical",
    ]


# --- pre-analysis (item 6) ----------------------------------------------------------------


def _decisions(repo: CaseFileRepository) -> dict[str, str]:
    from sqlalchemy import select

    from etki.store.models import DecisionRow

    with repo._read() as s:  # the stored bytes themselves
        return {r.case_id: r.decision_json for r in s.scalars(select(DecisionRow))}


def test_decisions_are_byte_identical_with_retrieval_on_or_off(tmp_path):
    on = CaseFileRepository(f"sqlite:///{tmp_path / 'on.db'}", clock=frozen_clock)
    off = CaseFileRepository(f"sqlite:///{tmp_path / 'off.db'}", clock=frozen_clock)
    settings = Settings(db_url="", wiki_dir=None)
    init_project(SAMPLE, on, settings, related_context=True)
    init_project(SAMPLE, off, settings, related_context=False)
    assert _decisions(on) == _decisions(off) and len(_decisions(on)) == 40
    # and both are exactly what the engine gives with no store and no retrieval at all
    engine_only = {json.loads(b)["case_id"]: b.decode("utf-8") for b in decisions().values()}
    assert {cid: text + "\n" for cid, text in _decisions(on).items()} == engine_only
    cases = on.cases("demo")
    assert all(off.decision_context(c.case_id) is None for c in cases)
    blocks = [json.loads(on.decision_context(c.case_id) or "null") for c in cases]
    assert all(b["format"] == FORMAT and b["strategy"] == "expand" for b in blocks)
    assert all(b["tokens_used"] <= b["budget_tokens"] for b in blocks)
    assert sum(1 for b in blocks if b["nodes"]) >= 35  # a request no word of matches has none
    assert all(b["scoring"] == "lexical-bm25" and b["packing"] == "bfs" for b in blocks)
    on.dispose()
    off.dispose()


def test_related_context_is_deterministic(sample):
    project, index = sample
    text = "Staff are asked for their password every 15 minutes despite single sign-on."
    a = related_context(GraphQueryPort(RetrievalGraph(index), languages=("en", "tr", "de")), text)
    b = related_context(GraphQueryPort(RetrievalGraph(index), languages=("en", "tr", "de")), text)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert "module:portal.auth.sso" in [n["id"] for n in a["nodes"]]
    assert text not in json.dumps(a)  # the request text is not copied into the block


def test_the_engine_never_imports_retrieval():
    """Retrieval is never a decision signal: no module of etki.triage imports it."""
    import ast

    for path in sorted((ROOT / "etki" / "triage").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            assert not any(n.startswith("etki.retrieval") for n in names), path.name


def test_expand_can_seed_from_typed_streams(port):
    res = port.expand("property tax card payment receipt", budget_tokens=2000, seed_from="streams")
    assert res.subgraph is not None
    seed_types = {port.graph.node(s).type for s in res.subgraph.seeds}  # type: ignore[union-attr]
    assert seed_types >= {"clause", "module", "workitem"}
    with pytest.raises(ValueError):
        port.expand("x", seed_from="grep")


def test_related_context_can_use_typed_streams(sample):
    _, index = sample
    port = GraphQueryPort(RetrievalGraph(index), languages=("en", "tr", "de"))
    block = related_context(port, "card payment receipt by e-mail", seed_from="streams")
    assert block["seeds_from"] == "streams"
    assert {n["type"] for n in block["nodes"] if n["hop"] == 0} >= {"clause", "module"}


# --- lexical fixes and the adaptive cut (issue 5, quality aim) ------------------------------


def test_stopwords_of_one_language_do_not_leak_through_another(port):
    """A question is tokenised in every project language; English function words must
    not survive as Turkish or German terms (they matched every e-Devlet module before)."""
    terms = port.scorer.terms("Penetration test findings and OWASP Top 10")
    assert not {"and", "the", "for"} & set(terms)
    assert "owasp" in terms
    top = [
        nid for nid, _ in port.scorer.rank("Weekly maintenance window for installing releases", 10)
    ]
    assert "module:portal.auth.edevlet" not in top and "module:integration.edevlet" not in top
    assert top[0] == "clause:MSA-2024-01#7.3"


def test_chunks_are_not_ranked_their_clause_is():
    """A chunk's text is a slice of its clause's: the clause is scored and returned,
    never the chunk."""
    long_text = "Opening words. " + "The upload page shows a virus scan verdict. " * 3
    nodes = (
        Node("clause:K#1", "clause", "Uploads", long_text),
        Node(
            "chunk:K#1~1",
            "chunk",
            "Uploads (1/2)",
            "The upload page shows a virus scan",
            (("clause", "clause:K#1"),),
        ),
        Node("chunk:K#1~2", "chunk", "Uploads (2/2)", "verdict.", (("clause", "clause:K#1"),)),
        Node("module:scan", "module", "scan", "Virus scan client"),
    )
    g = RetrievalGraph(KnowledgeIndex("p", nodes, ()))
    p = GraphQueryPort(g)
    for ranked in (
        p.find_k_nodes("virus scan verdict on upload", k=10).nodes,
        p.typed_streams("virus scan verdict on upload", k_per_type=5).nodes,
    ):
        assert {n.type for n in ranked} <= {"clause", "module"}
        assert "clause:K#1" in [n.id for n in ranked]


def test_adaptive_cut_follows_the_question_not_the_budget(port):
    """``cut_ratio``: seeds below ratio x best and neighbours below priority ratio are
    left out, so the subgraph is shorter than a budget-filled one and never longer."""
    q = "Daily reconciliation of the bank settlement file with recorded payments"
    plain = port.expand(q, budget_tokens=1500, k_seeds=10)
    cut = port.expand(q, budget_tokens=1500, k_seeds=10, cut_ratio=0.3)
    assert cut.subgraph is not None and plain.subgraph is not None
    assert 0 < len(cut.nodes) < len(plain.nodes)
    assert all(n.priority >= 0.3 for n in cut.subgraph.nodes)
    assert "module:payments.reconciliation" in cut.ids
    # the same call gives the same bytes
    again = port.expand(q, budget_tokens=1500, k_seeds=10, cut_ratio=0.3)
    assert again.subgraph is not None and again.subgraph.to_bytes() == cut.subgraph.to_bytes()
    # a cut of 0 keeps every candidate the budget allows; out of range is refused
    assert port.expand(q, budget_tokens=1500, cut_ratio=0.0).ids
    with pytest.raises(ValueError):
        port.expand(q, cut_ratio=1.5)


def test_impact_question_keeps_dependents_above_the_cut(port):
    """An impact question reaches dependents by the graph, not by words: the adaptive
    cut must not lose them (their priority comes from the seed, shared by fan-out)."""
    res = port.expand(
        "What depends on the notification dispatcher notify.core?", k_seeds=10, cut_ratio=0.3
    )
    assert res.intent == "impact"
    assert {"module:notify.core", "module:notify.email", "module:notify.sms"} <= set(res.ids)


def test_init_can_skip_the_related_context_block(tmp_path, monkeypatch, capsys):
    """``etki init --no-context`` and ``ETKI_RELATED_CONTEXT=0`` store no block;
    ``--context`` overrides the variable; decisions are stored either way."""
    from etki.cli import run

    monkeypatch.setenv("ETKI_WIKI_DIR", "")
    for name, argv, env in (
        ("flag", ["--no-context"], None),
        ("env", [], "0"),
        ("override", ["--context"], "off"),
        ("default", [], None),
    ):
        db = tmp_path / f"{name}.db"
        monkeypatch.setenv("ETKI_DB_URL", f"sqlite:///{db}")
        if env is None:
            monkeypatch.delenv("ETKI_RELATED_CONTEXT", raising=False)
        else:
            monkeypatch.setenv("ETKI_RELATED_CONTEXT", env)
        assert run(["init", str(SAMPLE), *argv]) == 0
        repo = CaseFileRepository(f"sqlite:///{db}")
        cases = repo.cases("demo")
        stored = [repo.decision_context(c.case_id) for c in cases]
        assert len(cases) == 40
        want = name in ("override", "default")
        assert all((s is not None) == want for s in stored), name
        repo.dispose()
    capsys.readouterr()


def test_clause_module_mappings_are_walked_with_the_index_inverse():
    """A ``maps_to`` edge (clause -> module, as the enricher proposes) is walked both
    ways, backwards under the index's declared inverse ``mapped_by``."""
    nodes = (
        Node("clause:K#1", "clause", "Uploads", "Virus scan of uploads"),
        Node("module:scan", "module", "scan", "Virus scan client"),
    )
    edges = (Edge("clause:K#1", "module:scan", "maps_to", "mapped", 0.8),)
    g = RetrievalGraph(KnowledgeIndex("p", nodes, edges, edge_inverses=(("maps_to", "mapped_by"),)))
    assert [(h.label, h.neighbour) for h in g.hops("module:scan")] == [("mapped_by", "clause:K#1")]
    res = GraphQueryPort(g).expand(seeds=["module:scan"], budget_tokens=500)
    assert res.ids == ("module:scan", "clause:K#1")
    assert res.subgraph is not None and res.subgraph.nodes[1].via == "mapped_by"


def test_settings_carry_the_related_context_switch(tmp_path):
    """``ETKI_RELATED_CONTEXT`` is read with the other settings, so every caller of
    ``init_project`` (the CLI and ``etki-tui PROJECT_DIR``) follows it."""
    from etki.config import Settings

    assert Settings.from_env({}).related_context is True
    assert Settings.from_env({"ETKI_RELATED_CONTEXT": "Off"}).related_context is False
    settings = Settings(
        db_url=f"sqlite:///{tmp_path}/etki.db", wiki_dir=None, related_context=False
    )
    repo = CaseFileRepository(settings.db_url)
    init_project(SAMPLE, repo, settings)  # no explicit argument: the setting decides
    assert [repo.decision_context(c.case_id) for c in repo.cases("demo")] == [None] * 40
    repo.dispose()
