"""``etki wiki search`` prints a ranked top N (issue 32 item 3): the FTS5 index ranks and
cuts inside SQLite, and the ``rg`` and Python paths return the same hits in the same
order, on a real rebuilt wiki with Turkish and German text (İ/ı, ß, NFD) and on pages
built to be hard."""

from __future__ import annotations

import os
import unicodedata

import pytest

from etki.wiki.search import DEFAULT_LIMIT, ranked_search, search
from tests.test_wiki_search import ALL_BACKENDS, HAVE_RG, TRICKY_QUERIES, tricky  # noqa: F401
from tests.test_wiki_search import world as world  # noqa: F401  (the rebuilt demo wiki)
from tests.wiki_support import build_world

WORLD_QUERIES = [
    "iade",
    "İADE süreci",
    "I\u0307ADE",  # Turkish dotted capital, NFD
    "ılık",
    "ILIK hata",
    "Größe",
    unicodedata.normalize("NFD", "Größe straße"),
    "GROESSE",
    "STRAẞENKARTE",
    "pruefungsseite",
    "sso",
    "öğrenci ağı",
    "contractor",
    "in",
    "a",
]


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_every_backend_ranks_the_real_wiki_the_same(world, backend):  # noqa: F811
    for query in WORLD_QUERIES:
        expect = ranked_search(world.wiki, query, limit=None, backend="python")
        assert expect.hits, query
        got = ranked_search(world.wiki, query, limit=None, backend=backend)
        assert got.hits == expect.hits and got.total == expect.total, query
        assert got.backend == backend, query
        # the same pages as the unranked search, each with the same line and snippet; a
        # contract page as its clause sections (path#anchor) holding every word
        pages = search(world.wiki, query, backend="python")
        assert sorted(h for h in got.hits if not _contract(h.path)) == sorted(
            h for h in pages if not _contract(h.path)
        ), query
        assert {h.path.partition("#")[0] for h in got.hits if _contract(h.path)} <= {
            h.path for h in pages
        }, query
        for limit in (1, 2, 5):
            cut = ranked_search(world.wiki, query, limit=limit, backend=backend)
            assert cut.hits == expect.hits[:limit] and cut.total == expect.total, query


def _contract(path: str) -> bool:
    return path.startswith("entities/contracts/")


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_every_backend_ranks_the_tricky_pages_the_same(tricky, backend):  # noqa: F811
    for query in TRICKY_QUERIES:
        expect = ranked_search(tricky, query, limit=None, backend="python")
        got = ranked_search(tricky, query, limit=None, backend=backend)
        assert got.hits == expect.hits and got.total == expect.total, query
        assert ranked_search(tricky, query, limit=3, backend=backend).hits == expect.hits[:3]


RANKED = {  # the order "strasse izmir" must come out in, best first
    "z/title.md": "# Straße İzmir\n\nnothing else\n",  # both words in the title
    "a/half.md": "# Straße plan\n\n" + "filler line\n" * 30 + "İzmir\n",  # one in the title
    "b/short.md": "# Notes\n\nSTRASSE izmir\n",  # none in the title, short
    "c/long.md": "# Notes\n\n" + "filler line\n" * 50 + "strasse IZMIR\n",  # longer
    "c/long2.md": "# Notes\n\n" + "filler line\n" * 50 + "strasse IZMIR\n",  # same size: path
}


@pytest.fixture
def ranked_wiki(tmp_path):
    root = tmp_path / "wiki"
    for rel, text in RANKED.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(unicodedata.normalize("NFD", text).encode())
    (root / "d").mkdir()
    for i in range(30):  # pages holding one word only: never hits
        (root / "d" / f"p{i:02d}.md").write_text(f"# Page {i}\n\nİzmir alone\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("query", ["strasse izmir", "İZMİR STRAẞE", "Izmir strasse"])
def test_title_hits_first_then_shorter_pages_then_path(ranked_wiki, backend, query):
    got = ranked_search(ranked_wiki, query, limit=None, backend=backend)
    assert [h.path for h in got.hits] == list(RANKED)
    assert got.total == len(RANKED)
    top = ranked_search(ranked_wiki, query, limit=2, backend=backend)
    assert [h.path for h in top.hits] == ["z/title.md", "a/half.md"] and top.total == 5


def test_limit_is_checked_and_defaults_to_twenty(ranked_wiki):
    with pytest.raises(ValueError, match="limit must be at least 1"):
        ranked_search(ranked_wiki, "izmir", limit=0)
    assert DEFAULT_LIMIT == 20
    got = ranked_search(ranked_wiki, "izmir")
    assert len(got.hits) == 20 and got.total == 35
    assert ranked_search(ranked_wiki, "   ").total == 0


@pytest.mark.skipif(not HAVE_RG, reason="no rg")
def test_cli_prints_the_top_n_and_says_how_many_more(tmp_path):
    from tests.cli_support import run_etki

    w = build_world(tmp_path)
    try:
        w.projector.rebuild("demo")
        env = {
            **os.environ,
            "ETKI_DB_URL": w.db_url,
            "ETKI_WIKI_DIR": str(w.tmp / "wiki-{project}"),
        }
        every = ranked_search(w.wiki, "a", limit=None)
        assert every.total > 2
        done = run_etki(
            ["search", "a", "--limit", "2", "--project", "demo"],
            env=env,
            cwd=w.tmp,
            program="etki.wiki",
        )
        assert done.returncode == 0, done.stderr
        assert [line.split("\t")[0] for line in done.stdout.splitlines()] == [
            h.path for h in every.hits[:2]
        ]
        assert done.stderr.strip().endswith(
            f"2 of {every.total} hits shown, best first; --limit N or --all for more"
        )
        done = run_etki(
            ["search", "a", "--all", "--project", "demo"], env=env, cwd=w.tmp, program="etki.wiki"
        )
        assert done.returncode == 0 and done.stderr == ""
        assert len(done.stdout.splitlines()) == every.total
        done = run_etki(
            ["search", "a", "--all", "--limit", "3", "--project", "demo"],
            env=env,
            cwd=w.tmp,
            program="etki.wiki",
        )
        assert done.returncode == 2 and "not allowed with argument" in done.stderr
        # a clause hit's address shows that clause section alone
        clause = next(h.path for h in every.hits if "#" in h.path)
        page, _, anchor = clause.partition("#")
        text = (w.wiki / page).read_text(encoding="utf-8")
        done = run_etki(
            ["show", clause, "--project", "demo"], env=env, cwd=w.tmp, program="etki.wiki"
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("## ") and f'<a id="{anchor}"></a>' in done.stdout
        assert done.stdout.rstrip("\n") in text and len(done.stdout) < len(text)
        assert done.stdout.count("<a id=") == 1
        done = run_etki(
            ["show", f"{page}#nope", "--project", "demo"], env=env, cwd=w.tmp, program="etki.wiki"
        )
        assert done.returncode == 2 and f"no clause section '#nope' on {page}" in done.stderr
    finally:
        w.repo.dispose()


CONTRACT = (
    "---\nkind: contract\n---\n# Contract: MSA\n\nThe whole contract, Straße İzmir.\n\n"  # 0-6
    '## MSA#1 — Invoicing <a id="MSA%231"></a>\n\nKind inclusion.\n\n'  # 7-10
    "Monthly invoices are sent to İzmir.\n\n"  # 11-12
    '## MSA#2 — Portal <a id="MSA%232"></a>\n\nKind inclusion.\n\n'  # 13-16
    "A responsive portal; a mobile app is not part of it.\n\n"  # 17-18
    '## MSA#3 — Mobile app \\*excluded\\* <a id="MSA%233"></a>\n\n'  # 19-20
    '```\n## MSA#9 — not a heading <a id="MSA%239"></a>\n```\n'  # 21-23
    "Native apps are a change request.\n"  # 24
)


@pytest.fixture
def contract_wiki(tmp_path):
    root = tmp_path / "wiki"
    pages = {
        "entities/contracts/MSA.md": CONTRACT,
        "decisions/DEC-1-mobile.md": "# Mobile app for citizens\n\nRuled a change request.\n",
        "notes/izmir.md": "# Notes\n\nStraße İzmir, monthly invoices.\n",
    }
    for rel, text in pages.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_a_contract_page_is_searched_clause_by_clause(contract_wiki, backend):
    """A contract page's hits are its clause sections (path#anchor, the page line of
    the matched line), ranked as pages are with the clause heading as the title; words
    found only in different sections give no hit of that page; every backend agrees."""
    page = "entities/contracts/MSA.md"
    got = ranked_search(contract_wiki, "mobile app", limit=None, backend=backend)
    assert [(h.path, h.line, h.snippet) for h in got.hits] == [
        ("decisions/DEC-1-mobile.md", 1, "# Mobile app for citizens"),  # shorter than MSA#3
        (f"{page}#MSA%233", 20, '## MSA#3 — Mobile app *excluded* <a id="MSA%233"></a>'),
        (f"{page}#MSA%232", 18, "A responsive portal; a mobile app is not part of it."),
    ]
    assert got.total == 3
    assert ranked_search(contract_wiki, "mobile app", limit=1, backend=backend).hits == got.hits[:1]
    # "native" and "invoices" are on the page, in different sections: no contract hit
    assert ranked_search(contract_wiki, "native invoices", limit=None, backend=backend).total == 0
    # the head is a part of its own, under the page's path
    head = ranked_search(contract_wiki, "strasse izmir", limit=None, backend=backend)
    assert [(h.path, h.line) for h in head.hits] == [("notes/izmir.md", 3), (page, 6)]
    # a heading inside a fence is text of its section, not a section
    fenced = ranked_search(contract_wiki, "not a heading", limit=None, backend=backend)
    assert [(h.path, h.line) for h in fenced.hits] == [(f"{page}#MSA%233", 23)]
    for query in ("mobile app", "invoices", "izmir", "a"):
        expect = ranked_search(contract_wiki, query, limit=None, backend="python")
        got = ranked_search(contract_wiki, query, limit=None, backend=backend)
        assert got[:3] == expect._replace(backend=backend)[:3], query  # synced: fts only


def test_the_index_of_the_parts_is_derived_from_the_pages_alone(contract_wiki, tmp_path):
    """The FTS5 index is derived data: two indexes built from the same pages (one of
    them re-synced after its contract page was rewritten with the same bytes) hold the
    same parts; the wiki's bytes are only read."""
    import shutil
    import sqlite3

    from etki.wiki import fts

    other = tmp_path / "copy" / "wiki"
    shutil.copytree(contract_wiki, other)
    page = contract_wiki / "entities/contracts/MSA.md"
    before = page.read_bytes()

    def parts(root):
        assert fts.refresh(root)
        with sqlite3.connect(fts.index_path(root)) as db:
            return sorted(
                db.execute(
                    "SELECT files.path, parts.address, parts.start, parts.title, parts.ftitle, "
                    "parts.size, partstext.raw, partstext.folded FROM parts "
                    "JOIN partstext ON partstext.rowid = parts.id "
                    "JOIN files ON files.id = parts.page"
                )
            )

    first = parts(contract_wiki)
    assert [r[1] for r in first] == [
        "entities/contracts/MSA.md",
        "entities/contracts/MSA.md#MSA%231",
        "entities/contracts/MSA.md#MSA%232",
        "entities/contracts/MSA.md#MSA%233",
    ]
    page.write_bytes(before)  # a new stamp, the same bytes: re-indexed the same
    assert parts(contract_wiki) == first == parts(other)
    page.unlink()  # a page gone takes its parts along
    assert parts(contract_wiki) == []
    assert (other / "entities/contracts/MSA.md").read_bytes() == before
