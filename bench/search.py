"""Wiki search (token-AND, folded) on the 10,000-decision wiki, against raw ``rg``.

The wiki is the full rebuild of the all-ruled 10k store (decision, precedent, contract
and module pages). For each query (English, Turkish and German, one to three tokens),
timed in rounds:

* ``rg`` path: :func:`etki.wiki.search.search` with ``use_rg=True`` (``rg`` pre-filter
  on the longest token's permissive regex, then the Python matcher on the candidates);
* Python path: the same with ``use_rg=False`` (read and fold every page);
* raw ``rg`` (the baseline): ``rg --files-with-matches --ignore-case --fixed-strings``
  of the query's longest folded token over the same tree — one process, one pass, no
  folding of Turkish i's or ß, no AND, no snippets: a lower bound of any rg-based
  search;
* when the Python path misses its target, SQLite FTS5 as a third backend: a
  ``trigram`` FTS5 table of the folded text of every page (built here, as projection
  would keep it in the DB; its build time is reported), queried with every token
  (substring semantics, so ``sso`` finds ``SSO-Anmeldung`` as the matcher does), then the
  same Python matcher on the candidates for lines and snippets.

All paths must return the same hits (checked). Targets: rg path <= 1.5x raw rg, Python
path <= 5x raw rg (medians over all queries and rounds).
"""

from __future__ import annotations

import sqlite3
import subprocess
import time
from pathlib import Path

from bench.common import Context, Figure, ms, ratio, stats

NAME = "search"
DESCRIPTION = "wiki search on 10k pages: rg path and Python path vs raw rg (FTS5 if needed)"

QUERIES = (
    "property tax",
    "emlak vergisi",
    "Grundsteuerzahlung",
    "şifre sıfırlama",
    "İADE SÜRECİ",
    "Prüfprotokoll Straße",
    "single sign-on staff",
    "kapsam dışı mobil",
    "steering committee",
    "zoning map",
)


def wiki_tree(ctx: Context) -> Path:
    """The rebuilt wiki of the all-ruled store of ``ctx.size`` (built once, cached)."""
    from etki.config import Settings
    from etki.store import CaseFileRepository
    from etki.wiki.projection import WikiProjector

    size = ctx.size
    root = ctx.base / "wikis" / size.key()
    done = root.parent / (size.key() + ".complete")
    if not done.exists():
        db = ctx.copy_store(size, "wiki-tree-db")
        repo = CaseFileRepository(f"sqlite:///{db}")
        t = time.perf_counter()
        WikiProjector(repo, Settings(db_url="", wiki_dir=str(root))).rebuild("bench")
        repo.dispose()
        done.write_text("ok\n")
        ctx.log(f"built wiki tree in {time.perf_counter() - t:.1f} s")
    return root / "bench"


def raw_rg(rg: str, root: Path, token: str) -> int:
    done = subprocess.run([rg, "--no-config", "--files-with-matches", "--ignore-case",
                           "--fixed-strings", "--no-messages", "--glob", "*.md", "--", token,
                           "."], cwd=root, capture_output=True, check=False)
    return done.stdout.count(b"\n")


class Fts:
    """The FTS5 prototype: a trigram table of folded page text plus the raw text."""

    def __init__(self, path: Path, root: Path) -> None:
        from etki.text import fold
        from etki.wiki.search import wiki_files

        if path.exists():
            path.unlink()
        self.db = sqlite3.connect(path)
        self.db.execute("CREATE VIRTUAL TABLE pages USING fts5(path UNINDEXED, "
                        "raw UNINDEXED, folded, tokenize='trigram')")
        rows = []
        for rel in wiki_files(root):
            text = (root / rel).read_bytes().decode("utf-8", errors="replace")
            folded = "\n".join(line.lower() if line.isascii() else fold(line)
                               for line in text.split("\n"))
            rows.append((rel, text, folded))
        self.db.executemany("INSERT INTO pages VALUES (?, ?, ?)", rows)
        self.db.commit()

    def search(self, query: str):
        from etki.wiki.search import Hit, match_text, query_tokens

        tokens = query_tokens(query)
        if not tokens:
            return []
        long = [t for t in tokens if len(t) >= 3]
        short = [t for t in tokens if len(t) < 3]
        where, args = [], []
        if long:
            where.append("pages MATCH ?")
            args.append(" AND ".join('"' + t.replace('"', '""') + '"' for t in long))
        for t in short:
            where.append("folded LIKE ?")
            args.append(f"%{t}%")
        rows = self.db.execute(f"SELECT path, raw FROM pages WHERE {' AND '.join(where)}",
                               args).fetchall()
        scored = []
        for rel, raw in rows:
            found = match_text(raw, tokens)
            if found is not None:
                line, count, snippet = found
                scored.append((-count, rel, Hit(rel, line, snippet)))
        scored.sort(key=lambda s: (s[0], s[1]))
        return [s[2] for s in scored]


def run(ctx: Context) -> list[Figure]:
    from etki.wiki.search import find_rg, query_tokens, search, wiki_files

    root = wiki_tree(ctx)
    rg = find_rg()
    pages = len(wiki_files(root))
    if rg is None:
        return [ctx.emit(Figure(NAME, "search", None, None, "", note="rg not available: "
                                "install the ripgrep wheel (pip install ripgrep)"))]
    rounds = 2 if ctx.quick else 3
    search(root, "warm up", use_rg=True)  # the fold table (one-time, cached per process)
    rg_path: list[float] = []
    py_path: list[float] = []
    raw: list[float] = []
    mismatches = []
    hits_total = 0
    for q in QUERIES:
        longest = sorted(query_tokens(q), key=lambda t: (-len(t), t))[0]
        for _ in range(rounds):
            a = time.perf_counter()
            raw_rg(rg, root, longest)
            b = time.perf_counter()
            h_rg = search(root, q, use_rg=True)
            c = time.perf_counter()
            h_py = search(root, q, use_rg=False)
            d = time.perf_counter()
            raw.append(b - a)
            rg_path.append(c - b)
            py_path.append(d - c)
        hits_total += len(h_rg)
        if h_rg != h_py:
            mismatches.append(q)
    r, p, w = stats(ms(rg_path)), stats(ms(py_path)), stats(ms(raw))
    same = f"rg and Python paths {'agree' if not mismatches else 'DIFFER on ' + repr(mismatches)}"
    out = [
        ctx.emit(Figure(NAME, f"rg path ({pages} pages, {len(QUERIES)} queries)", r.median,
                        r.p95, "ms", r.n, "raw rg -l -i -F longest token", w.median,
                        ratio(r.median, w.median), "<= 1.5x raw rg",
                        (ratio(r.median, w.median) or 99) <= 1.5,
                        note=f"{hits_total} hits in all; {same}")),
        ctx.emit(Figure(NAME, "Python path", p.median, p.p95, "ms", p.n,
                        "raw rg -l -i -F longest token", w.median, ratio(p.median, w.median),
                        "<= 5x raw rg", (ratio(p.median, w.median) or 99) <= 5.0)),
    ]
    if ctx.quick or (ratio(p.median, w.median) or 99) > 5.0:  # quick: the code path runs
        t = time.perf_counter()
        fts = Fts(ctx.base / "scratch" / "fts.db", root)
        built = time.perf_counter() - t
        fts_t: list[float] = []
        fts_diff = []
        for q in QUERIES:
            expect = search(root, q, use_rg=False)
            for _ in range(rounds):
                a = time.perf_counter()
                got = fts.search(q)
                fts_t.append(time.perf_counter() - a)
            if got != expect:
                fts_diff.append(q)
        f = stats(ms(fts_t))
        out.append(ctx.emit(Figure(
            NAME, "SQLite FTS5 trigram backend (third)", f.median, f.p95, "ms", f.n,
            "raw rg -l -i -F longest token", w.median, ratio(f.median, w.median),
            "<= 5x raw rg (as the Python path's stand-in)",
            (ratio(f.median, w.median) or 99) <= 5.0,
            note=f"index build {built:.1f} s; "
                 + ("same hits as the Python path" if not fts_diff
                    else f"DIFFERS on {fts_diff!r}"))))
    return out
