"""Wiki search: token-AND, the engine's folding, ripgrep and Python giving the same hits."""

from __future__ import annotations

import unicodedata

import pytest

from etki.wiki.render import decision_path
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
@pytest.mark.parametrize("query", [
    "iade", "İADE", "IADE", "ıade", "I\u0307ADE",                 # Turkish i's, NFD
    "ılık", "ILIK", "ilik",
    "grosse", "GRÖSSE", "Größe", unicodedata.normalize("NFD", "Größe"), "GROSSE",
    "strassenkarte", "STRAẞENKARTE", "prufungsseite", "PRÜFUNGSSEITE",
])
def test_turkish_and_german_spellings_all_match(world, use_rg, query):
    page = decision_path(world.repo.case("req-demo-0004"))
    assert page in _paths(search(world.wiki, query, use_rg=use_rg)), query


@pytest.mark.skipif(not HAVE_RG, reason="no rg")
def test_rg_and_python_give_identical_results(world):
    extra = world.wiki / "decisions" / "DEC-00000000-extra--x.md"
    extra.write_text("---\ntitle: x\n---\n" + unicodedata.normalize("NFD", "Straße İzmir ﬁle "
                     "Œuvre 한국어 ＳＳＯ 𝐒𝐒𝐎 ǅemal\n"), encoding="utf-8")
    queries = ["sso", "SSO login", "iade sureci", "grosse strasse", "ss", "izmir", "IZMİR",
               "file", "fi", "oeuvre", "한국", "dzemal", "sso ayse", "native app", "no",
               "contractors staff", "güvenlik şikâyetleri", "req demo 0004", "msa 3 2",
               "zzz", "s", "i", "e"]
    for query in queries:
        assert search(world.wiki, query, use_rg=True) == search(world.wiki, query,
                                                                use_rg=False), query


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
    (root / "a.md").write_text("alpha only\nbeta only\n\x1b[31m  alpha and beta\x07 \n"
                               "alpha beta again\n", encoding="utf-8")
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
