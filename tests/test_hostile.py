"""Hostile and broken input (issue 6, item 4), beyond ../shared/cases (B01..B20 are
tested next to the code they exercise; grep tests/ for them): file names derived from
titles and ids, frontmatter round trips, malformed project files (an error naming file
and line, nothing stored lost), text no store can hold (NUL, lone surrogates), case ids
on the command line, and search queries (regex metacharacters, ``rg`` option look-alikes,
NUL, huge input). Every test asserts the right value; ``HOSTILE_INPUTS`` counts them."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import unicodedata
from pathlib import Path, PurePosixPath

import pytest

from etki.config import Settings
from etki.domain import CaseRecord, Request, RulingRecord
from etki.errors import InputError, ProjectFormatError
from etki.frontmatter import dump_frontmatter, split_frontmatter
from etki.knowledge import load_project
from etki.services import init_project
from etki.store import CaseFileRepository
from etki.text import printable, slugify
from etki.wiki.pages import render_wiki
from etki.wiki.paths import (
    NAME_MAX_BYTES,
    contract_path,
    decision_path,
    entity_name,
    module_path,
    precedent_path,
)
from etki.wiki.projection import WikiProjector
from etki.wiki.search import find_rg, search
from etki.wiki.writer import validate_relpath
from tests.cli_support import run_etki
from tests.factories import frozen_clock, make_decision, make_project, make_request
from tests.test_loader import write_project
from tests.test_store import repo as backend_repo  # noqa: F401  (fixture: SQLite, PostgreSQL)

# --- 1. titles and ids that become file names --------------------------------------------

TITLES = [
    "../../etc/passwd",
    "..\\..\\Windows\\System32\\drivers",
    "/absolute/path",
    "a/b\\c:d",
    ".hidden",
    "..",
    ".",
    "   ",
    "!!!???***",
    "CON",
    "nul.txt",
    "COM1",
    "lpt9",
    "\x00NUL\x00inside",
    "\x1b[2J\x1b]0;pwned\x07 title",
    "tab\tand\nnewline\r\nCRLF",
    "\u202eevil\u202c.exe",
    "zero\u200bwidth\u200djoiner",
    "İSTANBUL",
    "istanbul",
    "ISTANBUL",
    "ıstanbul",
    "Straße",
    "STRASSE",
    "e\u0301te\u0301",
    "été",
    "ﬁle ligature",
    "Ａｂｃ fullwidth",
    "日本語のタイトル",
    "😀" * 100,
    "👩‍👩‍👧‍👦 family",
    "🇹🇷🇩🇪 flags",
    "ǅ titlecase",
    "ß" * 200,
    "a" * 1000,
    "ş" * 300,
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 math",
    "\ud83d lone surrogate",
    "line\u2028separator",
    "NEL\x85next",
    "-rf --no-preserve-root",
    "$(rm -rf ~)",
    "`id`",
]
CASE_IDS = [
    "req-demo-1a2b3c4d",
    "REQ-DEMO-1A2B3C4D",
    "req demo 1",
    "../../x",
    "a" * 500,
    "İ-1",
    "i-1",
    "I-1",
    "ı-1",
    "req-demo-ş",
    "req-demo-s\u0327",
    "con",
    "\x00",
    "%",
    "*",
]


def _ruled(case_id: str, title: str, override: bool = True) -> CaseRecord:
    d = make_decision(case_id)
    ruling = RulingRecord(
        case_id,
        "REJECT" if override else "IN_SCOPE",
        "reject" if override else "approve",
        "ayse",
        "why",
        "2026-11-29T12:00:00Z",
        d.verdict,
    )
    return CaseRecord(
        case_id=case_id,
        project_id="demo",
        request_id="R",
        title=title,
        text="text",
        submitted_by=None,
        submitted_at=None,
        created_at="2026-11-29T12:00:00Z",
        version=2,
        decision=d,
        ruling=ruling,
    )


def _assert_safe_name(rel: str) -> None:
    path = PurePosixPath(validate_relpath(rel))  # relative, no '..', no hidden part
    name = path.name
    assert unicodedata.is_normalized("NFC", rel), rel
    assert not re.search(
        r"[\x00-\x1f\x7f-\x9f\\/:*?\"<>|\u202a-\u202e\u2066-\u2069"
        r"\u2028\u2029\ud800-\udfff]",
        name,
    ), rel
    assert not any(unicodedata.combining(ch) for ch in name), rel
    assert len(name.encode("utf-8")) <= NAME_MAX_BYTES, rel
    assert name.split(".", 1)[0].upper() not in {"CON", "PRN", "AUX", "NUL", "COM1", "LPT9"}


def test_names_from_hostile_titles_are_safe_and_distinct(tmp_path):
    cases = [_ruled(f"req-demo-{i:08x}", t) for i, t in enumerate(TITLES)]
    names = [decision_path(c) for c in cases] + [precedent_path(c) for c in cases]
    for rel in names:
        _assert_safe_name(rel)
        root = tmp_path.resolve()
        assert (root / rel).resolve().is_relative_to(root)
    # distinct for distinct cases, also where names compare case- and form-insensitively
    folded = {unicodedata.normalize("NFD", n).casefold() for n in names}
    assert len(folded) == len(names) == 2 * len(TITLES)
    # NFC and NFD spellings of one title give one name (B12's kind)
    one = _ruled("req-demo-00000001", "e\u0301te\u0301")
    assert decision_path(one) == decision_path(_ruled("req-demo-00000001", "été"))


def test_names_from_hostile_case_ids_are_safe_and_distinct():
    cases = [_ruled(cid, "Same title") for cid in CASE_IDS]
    names = [decision_path(c) for c in cases]
    for rel in names:
        _assert_safe_name(rel)
    assert len({unicodedata.normalize("NFD", n).casefold() for n in names}) == len(CASE_IDS)
    assert names[0] == "decisions/DEC-20261129-same-title--req-demo-1a2b3c4d.md"


@pytest.mark.parametrize(
    "entity",
    [
        "CON",
        "con.md",
        "Nul",
        "COM1",
        "lpt9.x",
        "aux",
        "../../x",
        "a/b",
        "src\\legacy",
        ".env",
        "x" * 300,
        "Größe",
        "Gro\u0308\u00dfe",
        "\x00",
        "\ud83d",
    ],
)
def test_entity_names_are_safe(entity):
    for rel in (module_path(entity), contract_path(entity)):
        _assert_safe_name(rel)
    assert entity_name("auth.sso") == "auth.sso" and entity_name("MSA-2024-01") == "MSA-2024-01"


# --- 2. frontmatter we write round-trips every string -----------------------------------

YAML_HOSTILE = [
    "no",
    "NO",
    "on",
    "off",
    "y",
    "n",
    "yes",
    "true",
    "False",
    "null",
    "~",
    "",
    " ",
    "0",
    "010",
    "0o10",
    "0x1F",
    "1_000",
    "1e3",
    ".inf",
    "-.inf",
    ".nan",
    "+1",
    "2024-01-01",
    "2024-01-01T10:00:00Z",
    "12:30:00",
    "a: b",
    "key: value # not a comment",
    "- item",
    "? key",
    "| literal",
    "> folded",
    "&anchor",
    "*alias",
    "!tag",
    "!!python/object",
    "%YAML 1.1",
    "@at",
    "`tick",
    "'single'",
    '"double"',
    "{a: 1}",
    "[1, 2]",
    "---",
    "...",
    "#hash",
    "trailing space ",
    " leading",
    "a\nb\n",
    "\\n",
    "<<",
    "=",
    "\t",
    "\ufeffbom",
    "line\u2028sep",
    "para\u2029sep",
    "nel\x85next",
    "é",
    "e\u0301",
    "😀",
    "\U0010ffff",
    "x" * 5000,
]


@pytest.mark.parametrize("value", YAML_HOSTILE)
def test_dump_frontmatter_round_trips(value):
    text_ = dump_frontmatter({"title": value, "list": [value], value or "k": 1}, "# Body\n")
    meta, body = split_frontmatter(text_, "page.md")
    assert (meta["title"], meta["list"], meta[value or "k"], body) == (
        value,
        [value],
        1,
        "# Body\n",
    )


def test_rendered_pages_round_trip_client_strings(tmp_path):
    """Titles, submitters and reasons stored through the real repository come back from
    the rendered page's frontmatter as exactly the string shown (``printable``)."""
    repo = CaseFileRepository(f"sqlite:///{tmp_path}/etki.db", clock=frozen_clock)
    repo.save_project(make_project(), "sha256:abc", b"{}\n")
    values = [v for v in YAML_HOSTILE + TITLES if v.strip()]
    repo.add_cases(
        "demo",
        [
            (
                Request(id=f"R{i}", title=v, text=f"text {i}", submitted_by=v[:200]),
                make_decision(f"req-demo-{i:04d}"),
            )
            for i, v in enumerate(values)
            if "\x00" not in v and not re.search("[\ud800-\udfff]", v)
        ],
    )
    for c in repo.cases("demo"):
        repo.record_ruling(c.case_id, "reject", "ayse", c.title)  # an override: precedent
    files = render_wiki(repo.load_project("demo"), repo.cases("demo"))
    checked = 0
    for c in repo.cases("demo"):
        meta, _ = split_frontmatter(files[decision_path(c)].decode("utf-8"), "d")
        assert meta["title"] == printable(c.title, multiline=False)
        assert meta["submitted_by"] == printable(c.submitted_by, multiline=False)
        pre, _ = split_frontmatter(files[precedent_path(c)].decode("utf-8"), "p")
        assert pre["reason"] == printable(c.ruling.reason)
        if c.title == printable(c.title, multiline=False):
            assert meta["title"] == c.title  # nothing to neutralise: unchanged
            checked += 1
    assert checked >= len(YAML_HOSTILE) - 8
    repo.dispose()


# --- 3. project files: an error naming file and line; nothing stored is lost ---------------


def _requests(*records: dict | str) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)


OK_REQ = {"id": "R-1", "text": "Please add SSO"}
BAD_FILES = [  # (files, file that is named, line, field or None, words in the problem)
    (
        {"requests.jsonl": _requests(OK_REQ, '{"id": "R-2", "text": "nul \\u0000 here"}')},
        "requests.jsonl",
        2,
        "text",
        "NUL",
    ),
    (
        {"requests.jsonl": _requests(OK_REQ, '{"id": "R-2", "text": "half \\ud83d emoji"}')},
        "requests.jsonl",
        2,
        "text",
        "surrogate",
    ),
    (
        {"requests.jsonl": _requests(OK_REQ, '{"id": "R-2", "title": "\\u0000", "text": "x"}')},
        "requests.jsonl",
        2,
        "title",
        "NUL",
    ),
    (
        {"requests.jsonl": _requests(OK_REQ, '{"id": "R-1", "text": "again"}')},
        "requests.jsonl",
        2,
        "id",
        "duplicate",
    ),
    (
        {"requests.jsonl": _requests(OK_REQ, '{"id": "R-2", "text": "x"')},
        "requests.jsonl",
        2,
        None,
        "malformed JSON",
    ),
    (
        {"requests.jsonl": _requests(OK_REQ, '{"id": "R-2", "text": 42}')},
        "requests.jsonl",
        2,
        "text",
        "must be a string",
    ),
    (
        {"requests.jsonl": _requests(OK_REQ, '["not", "an", "object"]')},
        "requests.jsonl",
        2,
        None,
        "JSON object",
    ),
    (
        {
            "etki.yaml": 'id: demo\nname: Demo\nreviewers:\n  - name: "Ay\\0se"\n    role: approver\n'
        },
        "etki.yaml",
        4,
        "reviewers.0.name",
        "NUL",
    ),
    ({"etki.yaml": "id: demo\nname: Demo\nname: Again\n"}, "etki.yaml", 3, None, "duplicate"),
    ({"etki.yaml": "id: ../../evil\nname: Demo\n"}, "etki.yaml", 1, "id", "project id"),
    (
        {"modules.yaml": "- id: Auth\n  summary: A\n- id: auth\n  summary: B\n"},
        "modules.yaml",
        3,
        "modules[1].id",
        "letter case",
    ),
    ({"modules.yaml": '- id: core\n  summary: "nul \\0"\n'}, "modules.yaml", 2, "0.summary", "NUL"),
    (
        {
            "modules.yaml": None,
            "workitems.json": None,
            "modules.json": '[{"id": "core", "summary": "\\ud800"}]',
        },
        "modules.json",
        1,
        "[0].summary",
        "surrogate",
    ),
    ({"contracts/msa.md": "# MSA\n\n## 1 Scope\n\nBinary \x00 junk.\n"}, "msa.md", 5, None, "NUL"),
    (
        {"contracts/other.md": "---\nid: msa\n---\n# Other\n\n## 1 X\n\nText.\n"},
        "other.md",
        None,
        "id",
        "letter case",
    ),
    (
        {"contracts/msa.md": "---\ntitle: Master: agreement\n---\n# MSA\n"},
        "msa.md",
        2,
        "title",
        "must be quoted",
    ),
]


@pytest.mark.parametrize("files, name, line, field, words", BAD_FILES)
def test_bad_project_files_name_file_and_line(tmp_path, files, name, line, field, words):
    root = write_project(tmp_path / "p", files)
    for rel, content in files.items():
        if content is None:
            (root / rel).unlink(missing_ok=True)
    if name == "requests.jsonl":  # refused row by row: the good row loads (issue 14)
        project = load_project(root)
        assert [r.id for r in project.requests] == [OK_REQ["id"]]
        [message] = project.refused
        assert f"{name}:{line}:" in message, message
        if field is not None:
            assert f"field '{field}'" in message, message
        assert words.lower() in message.lower(), message
        return
    with pytest.raises(ProjectFormatError) as info:
        load_project(root)
    err = info.value
    assert Path(err.path).name == name, str(err)
    assert err.line == line, str(err)
    if field is not None:
        assert err.field == field, str(err)
    assert words.lower() in str(err).lower()
    assert f"{name}:{line}" in str(err) if line else name in str(err)


def _dump(db: Path) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def _stored_cases(dump: list[str]) -> set[str]:
    """The dump's rows of the cases, their decisions and rulings."""
    tables = ('INSERT INTO "cases"', 'INSERT INTO "decisions"', 'INSERT INTO "rulings"')
    return {line for line in dump if line.startswith(tables)}


def test_a_bad_file_loses_nothing_stored(tmp_path):
    """A project is loaded, triaged and ruled; then each bad file in turn: `etki init`
    exits 2 naming the file and line, and the database is byte for byte the same dump —
    except for bad request rows, refused one by one: there the good rows are stored and
    every case, decision and ruling stored before stays as it was."""
    root = write_project(tmp_path / "p")
    settings = Settings(
        db_url=f"sqlite:///{tmp_path}/etki.db",
        wiki_dir=str(tmp_path / "wiki-{project}"),
        reviewer="Ayşe Yılmaz",
    )
    repo = CaseFileRepository(settings.db_url)
    init_project(root, repo, settings)
    first = repo.cases("demo")[0]
    verdict_action = {"IN_SCOPE": "approve", "CHANGE_REQUEST": "convert_to_cr", "REJECT": "reject"}[
        first.decision.verdict
    ]
    repo.record_ruling(first.case_id, verdict_action, "Ayşe Yılmaz", "as proposed")
    repo.dispose()
    before = _dump(tmp_path / "etki.db")
    wiki_before = sorted(p.name for p in (tmp_path / "wiki-demo").rglob("*.md"))
    env = {"ETKI_DB_URL": settings.db_url, "ETKI_WIKI_DIR": settings.wiki_dir or ""}
    wiki = tmp_path / "wiki-demo"
    for files, name, line, _field, _words in BAD_FILES[:3] + BAD_FILES[7:8] + BAD_FILES[13:14]:
        bad = write_project(tmp_path / f"bad-{len(files)}-{name}-{line}", files)
        code, err = _cli(env, "init", str(bad))
        assert code == 2 and (f"{name}:{line}" in err), err
        after = _dump(tmp_path / "etki.db")
        if name == "requests.jsonl":  # the good rows are stored; nothing stored changes
            assert _stored_cases(before) <= _stored_cases(after), name
            # the project row names the folder just loaded; the wiki caught up with the
            # ruling recorded above without it
            before, wiki_before = after, sorted(p.name for p in wiki.rglob("*.md"))
        else:  # a whole file refused: not one byte of the store or the wiki changes
            assert after == before
            assert sorted(p.name for p in wiki.rglob("*.md")) == wiki_before


def _cli(env: dict[str, str], *argv: str) -> tuple[int, str]:
    """Run ``etki`` in this process with ``env`` added; (exit code, stderr)."""
    done = run_etki(argv, env={**os.environ, **env}, cwd=Path.cwd())
    return done.returncode, done.stderr


def test_clean_variants_of_project_files_load_the_same(tmp_path):
    """BOM + CRLF everywhere, YAML-1.1 look-alike names, a 200 kB request and ids with
    path characters load and store as written."""
    plain = load_project(write_project(tmp_path / "plain"))
    crlf = write_project(tmp_path / "crlf")
    for path in crlf.rglob("*"):
        if path.is_file():
            path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes().replace(b"\n", b"\r\n"))
    assert load_project(crlf).clauses == plain.clauses
    assert load_project(crlf).requests == plain.requests
    big = "SSO " * 50_000  # 200 kB of one request
    odd = write_project(
        tmp_path / "odd",
        {
            "etki.yaml": "id: demo\nname: 'no'\nreviewers:\n  - name: 'yes'\n    role: approver\n",
            "requests.jsonl": _requests(
                {"id": "../../etc/passwd", "text": big}, {"id": "R\\2", "title": "no", "text": "x"}
            ),
        },
    )
    project = load_project(odd)
    assert project.config.name == "no" and project.config.reviewers[0].name == "yes"
    assert [r.id for r in project.requests] == ["../../etc/passwd", "R\\2"]
    settings = Settings(
        db_url=f"sqlite:///{tmp_path}/etki.db",
        wiki_dir=str(tmp_path / "wiki-{project}"),
        reviewer="yes",
    )
    repo = CaseFileRepository(settings.db_url)
    init_project(odd, repo, settings)
    stored = {c.request_id: c for c in repo.cases("demo")}
    assert stored["../../etc/passwd"].text == big and stored["R\\2"].title == "no"
    for c in stored.values():
        repo.record_ruling(c.case_id, "reject", "yes", "no")
        _assert_safe_name(decision_path(repo.case(c.case_id)))
    WikiProjector(repo, settings).rebuild("demo")
    wiki = (tmp_path / "wiki-demo").resolve()
    assert all(p.resolve().is_relative_to(wiki) for p in wiki.rglob("*"))
    assert not (tmp_path / "etc").exists()
    repo.dispose()


# --- 4. text no store can hold, on both backends -------------------------------------------

# ``backend_repo``: tests/test_store.py's ``repo`` fixture (SQLite and PostgreSQL)


@pytest.mark.parametrize("bad", ["nul \x00 inside", "half \ud83d emoji"])
def test_unstorable_text_is_bad_input_on_both_backends(backend_repo, bad):  # noqa: F811
    repo = backend_repo
    repo.save_project(make_project(), "sha256:abc", b"{}\n")
    repo.add_cases("demo", [(make_request("R1"), make_decision("req-demo-1"))])
    with pytest.raises(InputError, match="NUL character or a lone surrogate"):
        repo.add_cases("demo", [(make_request("R2", bad), make_decision("req-demo-2"))])
    with pytest.raises(InputError, match="NUL character or a lone surrogate"):
        repo.record_ruling("req-demo-1", "approve", "ayse", bad)
    repo.audit_attempt("req-demo-1", "mallory", "approve", bad, "denied")  # still audited
    assert [c.case_id for c in repo.cases("demo")] == ["req-demo-1"]
    assert repo.case("req-demo-1").ruling is None
    assert repo.audit_log()[-1][1::5] == ("mallory", "denied")


# --- 5. case ids given on the command line ---------------------------------------------------

HOSTILE_CASE_ARGS = [
    "../../etc/passwd",
    "req-demo-1' OR '1'='1",
    "req-demo-1; DROP TABLE cases",
    "%",
    "_",
    "*",
    "req-demo-%",
    "REQ-DEMO-1",
    " req-demo-1",
    "-h",
    "--all",
    "x" * 5000,
    "req-demo-1\n",
    "İ",
]


@pytest.mark.slow
def test_hostile_case_ids_on_the_command_line(tmp_path):
    repo = CaseFileRepository(f"sqlite:///{tmp_path}/etki.db", clock=frozen_clock)
    repo.save_project(make_project(), "sha256:abc", b"{}\n")
    repo.add_cases("demo", [(make_request("R1"), make_decision("req-demo-1"))])
    repo.dispose()
    before = _dump(tmp_path / "etki.db")
    env = {
        "ETKI_DB_URL": f"sqlite:///{tmp_path}/etki.db",
        "ETKI_WIKI_DIR": str(tmp_path / "wiki-{project}"),
        "ETKI_REVIEWER": "ayse",
    }
    for case_id in HOSTILE_CASE_ARGS:
        for argv in (
            ["rule", "--", case_id, "approve"],
            ["erase", "--reason", "KVKK", "--", case_id],
        ):
            code, err = _cli(env, *argv)
            assert code == 2 and "no case" in err, (argv, err)
    assert _dump(tmp_path / "etki.db") == before  # nothing ruled, erased or audited
    for n, page in enumerate(("../../etc/passwd", "/etc/passwd", "..", "decisions/../../x")):
        argv = ["show", page, "--project", "demo"]
        if n == 0:  # one real process, as a shell runs it
            done = subprocess.run(
                [sys.executable, "-m", "etki.wiki", *argv],
                capture_output=True,
                text=True,
                timeout=60,
                env={**os.environ, **env},
            )
        else:  # the rest in this process: an escaping exception fails the test outright
            done = run_etki(argv, env={**os.environ, **env}, cwd=Path.cwd(), program="etki.wiki")
        assert done.returncode == 2 and "Traceback" not in done.stderr, (page, done.stderr)
        assert "root:" not in done.stdout


# --- 6. search queries ------------------------------------------------------------------------

PAGES = {
    "decisions/a.md": "# SSO login\n\nThe pre sh hook and a.b c|d (x) [y] {z} $HOME ^caret\n",
    "decisions/b.md": "# Ödeme\n\nİADE süreci: Größe der Straße; files *.md and --pre=sh\n",
    "decisions/c.md": "# Other\n\nNothing to see: ~/.ssh/id_rsa, /etc/passwd, \\x00\n",
}
ALL = sorted(PAGES)  # one- or two-letter tokens match inside words: every page
QUERIES = [  # (query, expected hit paths): tokens are AND-ed substrings of folded lines
    (".*", []),
    ("a|b", ["decisions/a.md"]),
    ("(", []),
    ("[", []),
    ("\\", []),
    ("$^", []),
    ("+?", []),
    ("c|d", ALL),
    ("(x) [y] {z}", ["decisions/a.md"]),
    ("--pre=sh", ["decisions/a.md", "decisions/b.md"]),
    ("-e", ALL),
    ("--files", ["decisions/b.md"]),
    ("-f/etc/passwd", []),
    ("--", []),
    ("-", []),
    ("--no-config --pre=cat", []),
    ("*.md", ["decisions/b.md"]),
    ("a\x00b", ["decisions/a.md"]),
    ("\x00", []),
    ("İADE GRÖSSE strasse", ["decisions/b.md"]),
    ("iade grosse STRAßE", ["decisions/b.md"]),
    ("I\u0307ADE", ["decisions/b.md"]),
    ("$HOME", ["decisions/a.md"]),
    ("etc passwd", ["decisions/c.md"]),
    ("\u202eSSO", ["decisions/a.md"]),
    ("ssh id_rsa", ["decisions/c.md"]),
]
BACKENDS = [
    False,
    pytest.param(
        True, marks=pytest.mark.skipif(find_rg() is None, reason="ripgrep is not installed")
    ),
]


@pytest.fixture(scope="module")
def search_wiki(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("search")
    for rel, body in PAGES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(body, encoding="utf-8")
    return root


@pytest.mark.parametrize("use_rg", BACKENDS)
@pytest.mark.parametrize("query, expected", QUERIES)
def test_hostile_queries(search_wiki, use_rg, query, expected):
    hits = search(search_wiki, query, use_rg=use_rg)
    assert sorted(h.path for h in hits) == expected
    assert hits == search(search_wiki, query, use_rg=False)


@pytest.mark.parametrize("use_rg", BACKENDS)
def test_huge_queries_are_quick_and_agree(search_wiki, use_rg):
    words = " ".join(f"w{i}" for i in range(20_000)) + " sso"
    long_token = "a" * 200_000
    for query, expected in (
        (words, []),
        (long_token, []),
        ("sso " * 50_000, ["decisions/a.md"]),
        ("ß" * 10_000, []),
    ):
        hits = search(search_wiki, query, use_rg=use_rg)  # no timing here: see bench/search.py
        assert [h.path for h in hits] == expected


def test_search_cli_takes_option_lookalikes_as_words(search_wiki, tmp_path):
    env = {
        **os.environ,
        "ETKI_DB_URL": f"sqlite:///{tmp_path}/none.db",
        "ETKI_WIKI_DIR": str(search_wiki.parent / "{project}"),
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "etki.wiki",
            "search",
            "--project",
            search_wiki.name,
            "--",
            "--pre=sh",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert [line.split("\t")[0] for line in done.stdout.splitlines()] == [
        "decisions/a.md",
        "decisions/b.md",
    ]


# --- 7. showing client text: one path, no control reaches the terminal ---------------------------

TERMINAL_HOSTILE = [
    "\x1b[2J\x1b[H",
    "\x1b]0;title\x07",
    "\x1b]52;c;ZWNobw==\x07",
    "\x9b31m",
    "\x90DCS\x9c",
    "bare\rCR",
    "\x08\x08back",
    "\x7f",
    "\u202eRTL",
    "\u2066iso\u2069",
    "\u200f\u200e",
    "\x00",
    "\ud83d",
    "a\u2028b",
    "p\u2029q",
    "\x85nel",
    "\x1bP+q\x1b\\",
    "\x1b[6n",
]


@pytest.mark.parametrize("hostile", TERMINAL_HOSTILE)
def test_printable_leaves_no_control(hostile):
    for multiline in (True, False):
        out = printable(f"x{hostile}y", multiline=multiline)
        assert not re.search(
            r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e"
            r"\u2066-\u2069\u2028\u2029\ud800-\udfff]",
            out,
        ), repr(out)
        out.encode("utf-8")  # always encodable for a terminal
        if not multiline:
            assert "\n" not in out and len(out.splitlines()) == 1
    assert (
        slugify(hostile) == slugify(printable(hostile))
        or slugify(hostile) == "untitled"
        or re.fullmatch(r"[\w-]+", slugify(hostile))
    )


HOSTILE_INPUTS = (
    len(TITLES)
    + len(CASE_IDS)
    + 15
    + len(YAML_HOSTILE)
    + len(BAD_FILES)
    + 4
    + 2
    + len(HOSTILE_CASE_ARGS)
    + 4
    + len(QUERIES)
    + 4
    + len(TERMINAL_HOSTILE)
)
"""How many hostile inputs this file tries (the issue note quotes it)."""


def test_the_count_of_hostile_inputs():
    assert HOSTILE_INPUTS >= 25


# --- 8. B04: a queue of 10,000 cases in the TUI ---------------------------------------------


def _b04_cases(n: int) -> list[CaseRecord]:
    """The recipe of shared/cases/B04-many-cases.txt, as pending cases."""
    from tests.conftest import tui_decision

    out = []
    for i in range(n):
        case_id = f"VAKA-{i:05d}"
        out.append(
            CaseRecord(
                case_id=case_id,
                project_id="demo",
                request_id=case_id,
                title=f"Şirket içi SSO girişi #{i}",
                text="x" * (i % 40),
                submitted_by="Müller GmbH" if i % 2 else "Ayşe Yılmaz A.Ş.",
                submitted_at="2024-03-01",
                created_at="2024-03-01T00:00:00Z",
                version=1,
                decision=tui_decision(
                    case_id, "IN_SCOPE", ("MSA-2024-01#3.2",), confidence=0.5 + (i % 7) / 20
                ),
                ruling=None,
            )
        )
    return out


async def _drive_queue(n: int) -> tuple[list[list], list[int]]:
    """Mount the real QueuePane, load ``n`` cases, move the cursor 20 rows, rule one case
    out in place; return (the cells of rows 0, 1 and 42, the columns' content widths).
    Speed is measured in bench/tui.py, never asserted here."""
    from textual.app import App

    from etki_tui.queue.pane import QueuePane

    class QueueOnly(App[None]):
        def compose(self):
            yield QueuePane(id="queue-pane")

    cases = _b04_cases(n)
    app = QueueOnly()
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.query_one(QueuePane)
        pane.load(cases, {}, {})
        await pilot.pause()
        pane.table.focus()
        await pilot.pause()
        for _ in range(20):
            await pilot.press("down")
        await pilot.pause()
        assert pane.current_case_id() == "VAKA-00020"
        pane.remove_case("VAKA-00020")
        await pilot.pause()
        assert pane.current_case_id() == "VAKA-00021" and pane.table.row_count == n - 1
        rows = [pane.table.get_row(f"VAKA-{i:05d}") for i in (0, 1, 42)]
        widths = [c.content_width for c in pane.table.ordered_columns]
    return rows, widths


def test_b04_ten_thousand_cases_in_the_queue():
    """shared/cases/B04: 10,000 cases mount (the column layout is set once, not per row:
    O(rows), was O(rows²)), the cursor moves and one row leaves in place, and every cell
    stays one line within its column."""
    import asyncio

    from rich.cells import cell_len

    rows, widths = asyncio.run(_drive_queue(10_000))
    for row in rows:  # cells stay one line and fit their column
        for cell_, width in zip(row, widths, strict=True):
            assert "\n" not in cell_.plain and cell_len(cell_.plain) <= width
    assert rows[2][1].plain.startswith("Şirket içi SSO girişi #42"[: widths[1] - 1])
