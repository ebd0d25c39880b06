"""The lean read path (issue 32 item 1, :mod:`etki.store.lean`): ``etki queue`` and
``etki projects`` print byte for byte what the ORM path prints (``ETKI_LEAN_READ=0``),
on a real SQLite store and on PostgreSQL, with rulings that dispute a clause, a
resolution and a live claim; a store the lean path cannot answer goes to the ORM path,
which refuses it as before."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from etki.config import Settings
from etki.services import Desk, init_project
from etki.store import CaseFileRepository, lean
from tests.cli_support import run_etki
from tests.conftest import REPO_ROOT

SAMPLE = REPO_ROOT / "sample_project"
FIRST = "req-demo-e8c73130"  # cites MSA-2024-01#4.8; engine IN_SCOPE
SECOND = "req-demo-f76448de"  # cites it too; engine IN_SCOPE
REVIEWER = "Ayşe Yılmaz"


def _fill(url: str) -> None:
    """The sample project stored at ``url``, two rulings that dispute 4.8, a third
    ruling resolved against, and a live claim of a pending case."""
    settings = Settings(db_url=url, wiki_dir=None, reviewer=REVIEWER, related_context=False)
    repo = CaseFileRepository(url)
    try:
        init_project(SAMPLE, repo, settings, related_context=False, preanalyse=False)
        desk = Desk(settings, repo)
        desk.rule(FIRST, "approve")
        desk.rule(SECOND, "convert_to_cr", reason="district breakdowns are new work")
        pending = [c.case_id for c in repo.cases("demo", status="pending")]
        desk.rule(pending[0], "reject", reason="not ours")
        desk.claim(pending[1], minutes=480)
    finally:
        repo.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request, tmp_path) -> Iterator[str]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path}/etki.db"
        _fill(url)
        yield url
        return
    url = request.getfixturevalue("pg_schema").url
    _fill(url)
    yield url


def _both(args: list[str], url: str, cwd: Path) -> tuple[tuple, tuple]:
    env = {"ETKI_DB_URL": url, "ETKI_WIKI_DIR": "", "ETKI_REVIEWER": REVIEWER}
    lean_run = run_etki(args, env=env, cwd=cwd)
    orm_run = run_etki(args, env={**env, "ETKI_LEAN_READ": "0"}, cwd=cwd)
    return (
        (lean_run.returncode, lean_run.stdout, lean_run.stderr),
        (orm_run.returncode, orm_run.stdout, orm_run.stderr),
    )


@pytest.mark.parametrize(
    "args",
    [
        ["queue"],
        ["queue", "--json"],
        ["queue", "--all"],
        ["queue", "--all", "--json"],
        ["queue", "--project", "demo", "--json"],
        ["queue", "--project", "nope"],
        ["projects"],
        ["dispute", "list"],
        ["dispute", "list", "--json"],
        ["dispute", "list", "--project", "nope"],
        ["db", "current"],
    ],
)
def test_read_commands_print_what_the_orm_path_prints(store_url, tmp_path, args):
    # the lean path does answer this store (no fallback)
    read = lean.lean_call(store_url, "queue", None, every=False)
    assert [len(p.shown) for p in read.parts] == [37]
    lean_out, orm_out = _both(args, store_url, tmp_path)
    assert lean_out == orm_out
    if args == ["dispute", "list"]:
        assert lean_out[1].startswith("MSA-2024-01#4.8  DISPUTED  rulings ")
    if args == ["db", "current"]:
        assert lean_out[1] == f"{lean.HEAD_REVISION} (head)\n"
    if args == ["queue"]:
        assert "DISPUTED MSA-2024-01#4.8" in lean_out[1]
        assert f"claimed by {REVIEWER} until" in lean_out[1]
    if args[-1] == "nope":
        assert lean_out[0] == 2
        assert "no project 'nope' in the store; known: demo" in lean_out[2]


def test_a_resolved_dispute_reads_the_same(store_url, tmp_path):
    settings = Settings(db_url=store_url, wiki_dir=None, reviewer=REVIEWER)
    repo = CaseFileRepository(store_url)
    try:
        Desk(settings, repo).resolve_dispute("demo", "4.8", "in_scope", "4.8 covers it")
    finally:
        repo.dispose()
    lean_out, orm_out = _both(["queue", "--json"], store_url, tmp_path)
    assert lean_out == orm_out
    assert '"disputed_refs": []' in lean_out[1]
    lean_out, orm_out = _both(["dispute", "list"], store_url, tmp_path)
    assert lean_out == orm_out
    assert "DISPUTED-RESOLVED" in lean_out[1] and "PMO: rule IN_SCOPE" in lean_out[1]


@pytest.mark.parametrize("args", [["queue", "--json"], ["dispute", "list", "--json"]])
def test_rulings_without_the_decisions_summary_read_the_same(store_url, tmp_path, args):
    """The queue and the list of disputed clauses read each ruled case's cited and
    deciding clauses from its ruling's row (``rulings.cited_refs``, ``deciding_ref``,
    migration 0008); a row without them (NULL: no writer of this schema leaves one)
    has its decision read instead, and prints as the ORM path prints."""
    from sqlalchemy import text

    repo = CaseFileRepository(store_url)
    try:
        with repo.engine.begin() as conn:
            conn.execute(text("UPDATE rulings SET cited_refs = NULL, deciding_ref = NULL"))
    finally:
        repo.dispose()
    _, rows, _ = lean.lean_call(store_url, "disputes", None)
    assert any(cited for *_, cited, _ in rows)  # read from the decisions
    lean_out, orm_out = _both(args, store_url, tmp_path)
    assert lean_out == orm_out and lean_out[0] == 0


def test_a_store_that_needs_a_migration_is_refused_as_before(tmp_path):
    url = f"sqlite:///{tmp_path}/etki.db"
    _fill(url)
    with sqlite3.connect(tmp_path / "etki.db") as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0005'")
    with pytest.raises(lean.Fallback):
        lean.open_store(url)
    lean_out, orm_out = _both(["queue"], url, tmp_path)
    assert lean_out == orm_out
    assert lean_out[0] == 2 and "run `etki db upgrade`" in lean_out[2]
    lean_out, orm_out = _both(["db", "current"], url, tmp_path)
    head = lean.HEAD_REVISION  # equal to the migrations' head (the test below)
    assert lean_out == orm_out == (0, f"0005 (head is {head})\n", "")


def test_a_missing_store_is_refused_as_before(tmp_path):
    url = f"sqlite:///{tmp_path}/none.db"
    lean_out, orm_out = _both(["queue"], url, tmp_path)
    assert lean_out == orm_out
    assert lean_out[0] == 2 and "no Etki store at" in lean_out[2]
    assert not (tmp_path / "none.db").exists()


def test_the_lean_revision_is_the_migrations_head():
    from etki.store.migrate import HEAD_REVISION

    assert lean.HEAD_REVISION == HEAD_REVISION


@pytest.mark.parametrize(
    "url, expected",
    [
        ("sqlite:///rel/etki.db", Path("rel/etki.db")),
        ("sqlite:////abs/etki.db", Path("/abs/etki.db")),
        ("sqlite:///~/etki.db", Path("~/etki.db").expanduser()),
        ("sqlite://", None),
        ("sqlite:///:memory:", None),
        ("sqlite+pysqlite:///x.db", None),
        ("sqlite:///x.db?mode=ro", None),
        ("sqlite:///a%20b.db", None),
    ],
)
def test_sqlite_urls_are_read_as_sqlalchemy_reads_them_or_left_to_it(url, expected):
    assert lean.sqlite_file(url) == expected
    if expected is not None:
        from sqlalchemy.engine import make_url

        from etki.store.failures import sqlite_path

        assert sqlite_path(make_url(url)) == expected


@pytest.mark.parametrize(
    "url, expected",
    [
        ("postgresql://u:p%40ss@db.example:6543/etki", {"user": "u", "password": "p@ss",
         "host": "db.example", "port": 6543, "dbname": "etki"}),
        ("postgresql+psycopg://postgres@127.0.0.1/test?options=-csearch_path%3Ds",
         {"user": "postgres", "host": "127.0.0.1", "dbname": "test",
          "options": "-csearch_path=s"}),
        ("postgresql:///etki", {"dbname": "etki"}),
        ("postgresql+psycopg2://u@h/db", None),
        ("postgresql://u@h1,h2/db", None),
        ("postgresql://u@[::1]/db", None),
        ("postgresql://u@h/db?a=1&a=2", None),
        ("mysql://u@h/db", None),
    ],
)  # fmt: skip
def test_postgres_urls_give_the_connect_arguments_sqlalchemy_gives(url, expected):
    assert lean.postgres_params(url) == expected
    if expected is not None:
        from sqlalchemy.engine import make_url

        parsed = make_url(url)
        assert parsed.username == expected.get("user")
        assert parsed.password == expected.get("password")
        assert parsed.host == expected.get("host")
        assert parsed.port == expected.get("port")
        assert parsed.database == expected.get("dbname")


def test_queue_exports_the_listed_cases_to_csv_and_xlsx_with_formulas_guarded(tmp_path):
    """Issue 35 item 3: ``etki queue --output FILE`` writes the filtered queue (the
    ``--json`` rows) as CSV or xlsx, a client title that looks like a formula kept as
    text."""
    import csv
    import io

    from openpyxl import load_workbook

    url = f"sqlite:///{tmp_path}/etki.db"
    _fill(url)
    settings = Settings(db_url=url, wiki_dir=None, reviewer=REVIEWER, related_context=False)
    repo = CaseFileRepository(url)
    try:
        Desk(settings, repo).add_request(
            "demo", "The export button crashes.", title='=HYPERLINK("http://x","İş ß")'
        )
    finally:
        repo.dispose()
    env = {"ETKI_DB_URL": url, "ETKI_WIKI_DIR": "", "ETKI_REVIEWER": REVIEWER}
    listed = run_etki(["queue", "--json"], env=env, cwd=tmp_path)
    import json

    expected = json.loads(listed.stdout)
    done = run_etki(["queue", "--output", "q.csv"], env=env, cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == f"{len(expected)} cases written to q.csv\n"
    raw = (tmp_path / "q.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    table = list(csv.reader(io.StringIO(raw[3:].decode(), newline="")))
    assert table[0][:3] == ["case_id", "project_id", "request_id"]
    assert [r[0] for r in table[1:]] == [r["case_id"] for r in expected]
    assert table[-1][3] == '\'=HYPERLINK("http://x","İş ß")'
    # ; for Excel in tr-TR and de-DE (a PMO trial of issue 35), the same cells
    done = run_etki(["queue", "--output", "q2.csv", "--delimiter", ";"], env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    raw = (tmp_path / "q2.csv").read_bytes()
    semi = list(csv.reader(io.StringIO(raw[3:].decode(), newline=""), delimiter=";"))
    at = table[0].index("confidence")  # ; writes decimals with a comma (tr-TR/de-DE Excel)
    assert semi == [
        [c.replace(".", ",") if i == at and n else c for i, c in enumerate(row)]
        for n, row in enumerate(table)
    ]
    assert all("," in row[at] for row in semi[1:])
    done = run_etki(
        ["queue", "--all", "--format", "xlsx", "--output", "q.out"], env=env, cwd=tmp_path
    )
    assert done.returncode == 0
    sheet = load_workbook(io.BytesIO((tmp_path / "q.out").read_bytes())).active
    values = [[c.value for c in row] for row in sheet.iter_rows()]
    assert values[0][0] == "cases" and values[1][0] == "case_id"
    assert len(values) == 2 + 41  # every case with --all
    # xlsx: the title as written, a string with the quote-prefix style (no leading ')
    [cell] = [row[3] for row in sheet.iter_rows(min_row=3) if str(row[3].value).startswith("=")]
    assert (cell.value, cell.data_type, cell.quotePrefix) == (
        '=HYPERLINK("http://x","İş ß")',
        "s",
        True,
    )
    # CSV on stdout without --output, as `etki report --format csv` (a trial: queue
    # asked for --output where report printed); the same rows as the file, no BOM
    for to_stdout in (["--format", "csv"], ["--format", "csv", "--output", "-"]):
        printed = run_etki(["queue", *to_stdout], env=env, cwd=tmp_path)
        assert printed.returncode == 0 and printed.stderr == "", printed.stderr
        assert list(csv.reader(io.StringIO(printed.stdout, newline=""))) == table
    for bad, message in [
        (["queue", "--format", "xlsx"], "--format xlsx writes a binary file"),
        (["queue", "--format", "xlsx", "--output", "-"], "give it with --output FILE.xlsx"),
        (["queue", "--format", "csv", "--json"], "--json and --format csv: choose one"),
        (["queue", "--output", "q.txt"], "--output q.txt: say the format"),
        (["queue", "--json", "--output", "q.csv"], "--json prints to the terminal"),
    ]:
        refused = run_etki(bad, env=env, cwd=tmp_path)
        assert refused.returncode == 2 and message in refused.stderr
