"""Wiki search: token-AND, the engine's folding, ripgrep and Python giving the same hits."""

from __future__ import annotations

import unicodedata

import pytest

from etki.wiki.paths import decision_path
from etki.wiki.search import Hit, find_rg, query_tokens, search, token_regex, wiki_files
from tests.wiki_support import LONG_TITLE, build_world

HAVE_RG = find_rg() is not None
MODES = [False, pytest.param(True, marks=pytest.mark.skipif(not HAVE_RG, reason="no rg"))]


@pytest.fixture
def world(tmp_path):
    w = build_world(tmp_path)
    w.projector.rebuild("demo")
    yield w
    w.repo.dispose()


def _paths(hits: list[Hit]) -> set[str]:
    return {h.path for h in hits}


@pytest.mark.parametrize("use_rg", MODES)
def test_finds_a_case_by_a_word_from_its_text(world, use_rg):
    page = decision_path(world.repo.case("req-demo-0003"))
    hits = search(world.wiki, "contractor", use_rg=use_rg)
    assert page in _paths(hits)
    hit = next(h for h in hits if h.path == page)
    assert "ontractor" in hit.snippet and hit.line > 1
    assert search(world.wiki, "zzqqxx", use_rg=use_rg) == []


@pytest.mark.parametrize("use_rg", MODES)
@pytest.mark.parametrize(
    "query",
    [
        "iade",
        "İADE",
        "IADE",
        "ıade",
        "I\u0307ADE",  # Turkish i's, NFD
        "ılık",
        "ILIK",
        "ilik",
        "grosse",
        "GRÖSSE",
        "Größe",
        unicodedata.normalize("NFD", "Größe"),
        "GROSSE",
        "GROESSE",  # DIN 5007-2 transliteration, as typed without an umlaut key
        "groesse",
        "strassenkarte",
        "STRAẞENKARTE",
        "prufungsseite",
        "PRÜFUNGSSEITE",
        "pruefungsseite",
    ],
)
def test_turkish_and_german_spellings_all_match(world, use_rg, query):
    page = decision_path(world.repo.case("req-demo-0004"))
    assert page in _paths(search(world.wiki, query, use_rg=use_rg)), query


@pytest.mark.skipif(not HAVE_RG, reason="no rg")
def test_rg_and_python_give_identical_results(world):
    extra = world.wiki / "decisions" / "DEC-00000000-extra--x.md"
    extra.write_text(
        "---\ntitle: x\n---\n"
        + unicodedata.normalize("NFD", "Straße İzmir ﬁle Œuvre 한국어 ＳＳＯ 𝐒𝐒𝐎 ǅemal\n"),
        encoding="utf-8",
    )
    queries = [
        "sso",
        "SSO login",
        "iade sureci",
        "grosse strasse",
        "ss",
        "izmir",
        "IZMİR",
        "file",
        "fi",
        "oeuvre",
        "한국",
        "dzemal",
        "sso ayse",
        "native app",
        "no",
        "contractors staff",
        "güvenlik şikâyetleri",
        "req demo 0004",
        "msa 3 2",
        "zzz",
        "s",
        "i",
        "e",
    ]
    for query in queries:
        assert search(world.wiki, query, use_rg=True) == search(world.wiki, query, use_rg=False), (
            query
        )


@pytest.mark.parametrize("use_rg", MODES)
def test_long_title_page_is_found_by_its_last_words(world, use_rg):  # B14
    page = decision_path(world.repo.case("req-demo-0005"))
    last_words = " ".join(LONG_TITLE.split()[-3:])  # "gelen güvenlik şikâyetleri"
    assert last_words.split()[-1] not in page
    assert page in _paths(search(world.wiki, last_words, use_rg=use_rg))


@pytest.mark.parametrize("use_rg", MODES)
def test_tokens_are_anded(world, use_rg):
    both = _paths(search(world.wiki, "native contractor", use_rg=use_rg))
    native = _paths(search(world.wiki, "native", use_rg=use_rg))
    contractor = _paths(search(world.wiki, "contractor", use_rg=use_rg))
    assert both == native & contractor
    assert decision_path(world.repo.case("req-demo-0002")) in native - both


def test_snippet_is_one_printable_line_with_the_most_tokens(tmp_path):
    root = tmp_path / "wiki"
    root.mkdir()
    (root / "a.md").write_text(
        "alpha only\nbeta only\n\x1b[31m  alpha and beta\x07 \nalpha beta again\n", encoding="utf-8"
    )
    (root / "b.md").write_text("alpha\nbeta\n", encoding="utf-8")
    (root / "c.md").write_text("x " * 300 + "alpha beta" + " y" * 300 + "\n", encoding="utf-8")
    hits = search(root, "beta ALPHA", use_rg=False)
    assert [h.path for h in hits] == ["a.md", "c.md", "b.md"]  # most tokens on a line first
    a = hits[0]
    assert a.line == 3 and a.snippet == "\u241b[31m alpha and beta\u2407"
    assert all(ch.isprintable() for h in hits for ch in h.snippet)
    c = hits[1]
    assert "alpha beta" in c.snippet and len(c.snippet) <= 162 and c.snippet.startswith("…")
    assert hits[2] == Hit("b.md", 1, "alpha")


def test_hidden_symlinked_and_non_markdown_files_are_skipped(tmp_path):
    root = tmp_path / "wiki"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "x.md").write_text("needle\n")
    (root / ".hidden.md").write_text("needle\n")
    (root / "notes.txt").write_text("needle\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "o.md").write_text("needle\n")
    (root / "linked").symlink_to(outside, target_is_directory=True)
    (root / "link.md").symlink_to(outside / "o.md")
    (root / "real.md").write_text("needle\n")
    assert wiki_files(root) == ["real.md"]
    for use_rg in (False, True):
        assert search(root, "needle", use_rg=use_rg) == [Hit("real.md", 1, "needle")]


def test_empty_queries_and_missing_folders(tmp_path):
    assert search(tmp_path / "nope", "x") == []
    assert search(tmp_path, "") == [] and search(tmp_path, " -- !! ") == []
    assert query_tokens("SSO sso İade iade") == ["sso", "iade"]


def test_token_regex_is_permissive():
    import re

    pattern = token_regex("strasse")
    assert pattern is not None
    # Python's re reads the pattern once \p{M} and \x{..} are spelled its way
    pattern = pattern.replace("\\p{M}*", "[\u0300-\u036f]*").replace("\\p{M}", "\u0300-\u036f")
    py = re.sub(r"\\x\{([0-9A-F]+)\}", lambda m: re.escape(chr(int(m.group(1), 16))), pattern)
    for text in ("Straße", "STRASSE", "straße", "ſtraſſe", unicodedata.normalize("NFD", "Strąsse")):
        assert re.search(py, text), text


# --- three backends: rg (one line pass), FTS5 side index, Python -----------------------------

from etki.wiki import fts  # noqa: E402
from etki.wiki.search import BACKENDS  # noqa: E402

ALL_BACKENDS = [
    "python",
    "fts",
    pytest.param("rg", marks=pytest.mark.skipif(not HAVE_RG, reason="no rg")),
]

TRICKY = {  # page -> bytes: every way a token can be spelled, split or hidden
    "a/nfd.md": unicodedata.normalize("NFD", "Straße İzmir Größe\nşifre sıfırlama\n").encode(),
    "a/crlf.md": b"property tax\r\nline two on\r\n",
    "a/nul.md": b"prop\x00erty tax\nproperty\x00 tax here\n",
    "a/badutf8.md": b"property \xff\xfe tax\n\xc3\x28 on\n",
    "a/cututf8.md": b"tax \xc3\nproperty tax on \xe2\x82\n\xf0\x9f\n",  # cut before \n
    "a/long.md": ("x " * 5000 + "property tax" + " y" * 5000 + "\n").encode(),
    "a/exotic.md": "ﬁle ＳＳＯ 𝐒𝐒𝐎 ǅemal Œuvre ſtraſſe 한국어\n".encode(),
    "a/split.md": b"on the first line\nproperty\n\ntax\n",  # best line: 1 (short token)
    "a/both.md": b"on\nproperty tax on\nproperty tax\n",  # best line: 2
    "a/shortonly.md": b"tax property\nno short token here\n",  # no "o-n" at all
    "a/marks.md": "I\u0307ADE su\u0308reci\u200b\n".encode(),
    "a/digraph.md": b"Groesse on\nqueue Muellabfuhr\n",
    "b/deep/nested.md": b"zoning map\nmap zoning\n",
    "b/-dash.md": b"--pre=sh property tax on\n",
    "b/space name.md": b"property tax on\n",
    "b/.hidden.md": b"property tax on\n",
    "b/notes.txt": b"property tax on\n",
    "b/new\nline.md": b"property tax on\n",
}
TRICKY_QUERIES = [
    "property tax",
    "property tax on",
    "tax on",
    "on",
    "property",
    "strasse izmir",
    "STRAẞE",
    "grosse",
    "groesse",
    "GROESSE izmir",
    "groesse on",
    "ue",
    "oeuvre groesse",
    "sifre sifirlama",
    "file",
    "fi",
    "sso",
    "dzemal",
    "oeuvre",
    "strasse",
    "한국",
    "iade sureci",
    "zoning map",
    "map",
    "pre sh",
    "x",
    "s",
    "i",
    "prop erty",
    "erty tax",
    "zzz",
    "property zzz",
    "y y y",
    "two on",
    "queue",
    "muellabfuhr",
    "mullabfuhr",
]


@pytest.fixture
def tricky(tmp_path):
    root = tmp_path / "wiki"
    for rel, body in TRICKY.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(body)
    for i in range(60):  # enough pages for every way through the rg line pass
        (root / "c" / f"p{i:02d}.md").parent.mkdir(parents=True, exist_ok=True)
        (root / "c" / f"p{i:02d}.md").write_text(
            f"# Page {i}\n\n"
            + ("on and on\n" if i % 3 else "")
            + "the property\n"
            + ("tax " * (i % 4))
            + "\nİade ılık Größe\n",
            encoding="utf-8",
        )
    return root


def test_backend_names_are_checked(tmp_path):
    assert BACKENDS == ("rg", "fts", "python")
    with pytest.raises(ValueError):
        search(tmp_path, "x", backend="grep")


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_every_backend_gives_the_python_hits_on_tricky_pages(tricky, backend):
    for query in TRICKY_QUERIES:
        expect = search(tricky, query, backend="python")
        assert search(tricky, query, backend=backend) == expect, query
        for limit in (1, 3):
            assert search(tricky, query, backend=backend, limit=limit) == expect[:limit], query


def test_tricky_pages_give_the_expected_lines(tricky):
    hits = {h.path: h for h in search(tricky, "property tax on", backend="python")}
    assert hits["a/split.md"].line == 1 and hits["a/both.md"].line == 2
    assert "a/shortonly.md" not in hits and "b/.hidden.md" not in hits
    assert "b/new\nline.md" in hits and "b/-dash.md" in hits
    assert {h.path for h in search(tricky, "prop erty", backend="python")} >= {"a/nul.md"}
    crlf = next(h for h in search(tricky, "two on", backend="python"))
    assert crlf.path == "a/crlf.md" and "\r" not in crlf.snippet


@pytest.mark.skipif(not HAVE_RG, reason="no rg")
def test_rg_short_token_on_a_line_rg_did_not_print(tricky):
    # rg prints the lines with "property"/"tax"; "on" alone on line 1 decides the best line
    hit = next(h for h in search(tricky, "tax on", backend="rg") if h.path == "a/split.md")
    assert hit.line == 1 and hit.snippet == "on the first line"


def test_fts_index_lives_beside_the_wiki_and_follows_changes(tricky):
    index = fts.index_path(tricky)
    assert index.parent == tricky.parent and index.name.startswith(".")
    files_before = wiki_files(tricky)
    assert search(tricky, "quokka", backend="fts") == []
    assert index.is_file() and wiki_files(tricky) == files_before  # nothing inside the wiki
    page = tricky / "a" / "crlf.md"
    page.write_bytes(b"a quokka appears\n")  # changed in place
    (tricky / "a" / "fresh.md").write_text("quokka two\n")  # new
    (tricky / "a" / "both.md").unlink()  # removed
    assert search(tricky, "quokka", backend="fts") == [
        Hit("a/crlf.md", 1, "a quokka appears"),
        Hit("a/fresh.md", 1, "quokka two"),
    ]
    for query in ("property tax on", "two", "quokka"):
        assert search(tricky, query, backend="fts") == search(tricky, query, backend="python")
    assert fts.refresh(tricky) is True


def test_fts_broken_index_is_rebuilt(tricky):
    index = fts.index_path(tricky)
    index.write_bytes(b"this is not a sqlite database" * 100)
    assert search(tricky, "zoning", backend="fts") == search(tricky, "zoning", backend="python")
    assert index.read_bytes()[:15] == b"SQLite format 3"


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_hostile_query_text_on_every_backend(tricky, backend):
    for query in (
        "--pre=sh",
        "-e",
        '"property" OR "tax"',
        "property* NEAR tax",
        "a|b",
        "(x)",
        "\x00",
        "İ" * 5000,
        " ".join(f"w{i}" for i in range(3000)) + " on",
    ):
        assert search(tricky, query, backend=backend) == search(tricky, query, backend="python"), (
            query[:40]
        )


def test_a_typed_digraph_also_stands_for_its_umlaut():
    """A German reviewer without an umlaut key types ``Groesse`` for ``Größe`` (DIN
    5007-2): a token's spellings read each ``ae``/``oe``/``ue`` as it typed and as the
    umlaut's base letter, never the other way round."""
    from etki.text import spellings

    assert spellings("groesse") == ("groesse", "grosse")
    assert spellings("pruefung") == ("pruefung", "prufung")
    assert spellings("grosse") == ("grosse",)  # a plain vowel is never a digraph
    assert spellings("queue") == ("queue", "quue", "queu", "quu")
    assert len(spellings("aeaeaeaeae")) == 8


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_groesse_finds_grosse_on_every_backend(tricky, backend):
    paths = {h.path for h in search(tricky, "GROESSE", backend=backend)}
    assert {"a/nfd.md", "a/digraph.md", "c/p00.md"} <= paths
    assert "a/crlf.md" not in paths
    nfd = next(h for h in search(tricky, "groesse izmir", backend=backend))
    assert nfd.path == "a/nfd.md" and nfd.line == 1


ESCAPED = {  # the wiki writes client text with md_inline (escaped) or verbatim in a fence
    "c/page.md": (
        "---\n"
        "title: Makbuz \\*kalın\\* yazı\n"  # frontmatter: YAML, not markdown: verbatim
        "---\n"
        "# Makbuz \\*kalın\\* \\[yazı\\] \\_alt\\_ çizgi\n"
        "\n"
        "- **Reason:** Größe \\*önemli\\* a\\\\b \\<b\\> 2\\*3=6\n"
        "\n"
        "```text\n"
        "Straße \\*verbatim\\* in a fence C:\\*.txt\n"
        "```\n"
        "After the fence \\#5 şifre\n"
    ),
}


@pytest.fixture
def escaped(tmp_path):
    for rel, text in ESCAPED.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_snippets_show_the_text_a_reader_sees_not_markdown_escapes(escaped, backend):
    """A trial read ``\\*`` in ``etki wiki search`` snippets: escapes are resolved, except
    where the page's text is verbatim (a fenced block, the YAML frontmatter)."""
    from etki.wiki.search import ranked_search

    expect = {
        "çizgi": "# Makbuz *kalın* [yazı] _alt_ çizgi",
        "önemli": "- **Reason:** Größe *önemli* a\\b <b> 2*3=6",
        "verbatim": "Straße \\*verbatim\\* in a fence C:\\*.txt",
        "şifre": "After the fence #5 şifre",
        "title kalin": "title: Makbuz \\*kalın\\* yazı",
    }
    for query, snippet in expect.items():
        [hit] = search(escaped, query, backend=backend)
        assert hit.snippet == snippet, (query, hit)
        assert ranked_search(escaped, query, backend=backend).hits == [hit]
