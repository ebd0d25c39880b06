"""Terminal injection outside the TUI (issue 11 item 7, and the printing half of item 3).

Every command runs as a real subprocess over a hostile project built from
``sample_project``: the project name in ``etki.yaml``, an approver's name, a module id, a
request's title and text (``../shared/cases/B03-ansi-escapes.txt``) and a labelled query
carry OSC titles, ``ESC[2J``, C1 CSI (U+009B), bidi overrides and isolates, LRM/RLM, NEL,
bare CR and BEL. B03's right behaviour: nothing of C0/C1 controls, ESC/CSI/OSC, BEL or
bare CR reaches the terminal, bidi is neutralised. So for each command:

* no byte 0x00-0x1f except ``\\n`` and ``\\t`` on stdout or stderr, no C1, no DEL, no bidi
  control, no line or paragraph separator, and the output is valid UTF-8;
* the hostile text did reach the output (in its visible form ``␛]0;pwned␇``), so the
  command was on the attacked path;
* ``--json`` output still parses and gives back the very strings that were stored.

An internal error (a real SQLite or PostgreSQL error whose message and SQL parameters hold
client text) prints one line with the exception type and safe facts only, never the SQL,
its parameters or the client text; ``ETKI_DEBUG=1`` adds a terminal-safe traceback.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
import yaml

from etki.console import emit_json, error_summary, json_safe
from etki.text import printable
from tests.cli_support import run_etki

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_project"
B03 = ROOT.parent / "shared" / "cases" / "B03-ansi-escapes.txt"

HOSTILE = (
    "\x1b]0;pwned\x07\x1b[2J\x1b[H\x9b31m\u202eevil\u202c\u2066iso\u2069"
    "\u200f\u200e\x85nel\rcr\x08\x7f\u2028ls"
)
HOSTILE_ID = "\x1b]0;pwned\x07\x1b[2J\x9b31m\u202eevil\u202c\u2066iso\u2069\u200f\x7f"
"""HOSTILE without whitespace (ids may hold no space; NEL, CR and U+2028 count as one)."""
VISIBLE = "␛]0;pwned␇␛[2J"  # how HOSTILE's start looks on the terminal
NAME = "Kentpark " + HOSTILE
REVIEWER = "rev " + HOSTILE
MODULE = "evil.sso" + HOSTILE_ID
TITLE = "SSO login " + HOSTILE
B03_TEXT = B03.read_text(encoding="utf-8") if B03.is_file() else HOSTILE

# Anything a terminal acts on: C0 but \n and \t, DEL, C1, bidi and the separators.
UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)


def _assert_clean(data: bytes, what: str) -> str:
    bad = sorted({f"0x{b:02x}" for b in data if b < 0x20 and b not in (0x0A, 0x09)})
    assert not bad, f"{what}: raw control bytes {bad}"
    text = data.decode("utf-8")  # strict: valid UTF-8
    found = sorted({f"U+{ord(c):04X}" for c in UNSAFE.findall(text)})
    assert not found, f"{what}: {found} reached the terminal"
    return text


def _hostile_project(dest: Path) -> Path:
    shutil.copytree(SAMPLE, dest)
    y = (dest / "etki.yaml").read_text(encoding="utf-8")
    y = y.replace("name: Kentpark Municipality e-Services Portal", f"name: {json.dumps(NAME)}")
    y = y.replace(
        "  - name: reviewer           # used by tests and CI",
        f"  - name: {json.dumps(REVIEWER)}\n    role: approver\n  - name: reviewer",
    )
    assert NAME in yaml.safe_load(y)["name"] or yaml.safe_load(y)["name"] == NAME
    (dest / "etki.yaml").write_text(y, encoding="utf-8")
    modules = yaml.safe_load((dest / "modules.yaml").read_text(encoding="utf-8"))
    modules.append(
        {
            "id": MODULE,
            "path": "services/evil/",
            "summary": "Single sign-on login evil module",
            "depends_on": [],
        }
    )
    (dest / "modules.yaml").unlink()
    (dest / "modules.json").write_text(json.dumps(modules), encoding="utf-8")
    with (dest / "requests.jsonl").open("a", encoding="utf-8") as f:
        f.write(
            json.dumps(
                {
                    "id": "R-EVIL",
                    "title": TITLE,
                    "text": B03_TEXT + "\nSingle sign-on login of the evil module.",
                    "labels": {"verdict": "IN_SCOPE", "modules": [MODULE]},
                }
            )
            + "\n"
        )
    with (dest / "queries.jsonl").open("a", encoding="utf-8") as f:
        f.write(
            json.dumps(
                {
                    "id": "Q-EVIL" + HOSTILE_ID,
                    "query": "evil single sign-on login",
                    "relevant": [f"module:{MODULE}"],
                }
            )
            + "\n"
        )
    return dest


class World:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.project = _hostile_project(tmp / "proj")
        self.env = {
            **os.environ,
            "ETKI_DB_URL": f"sqlite:///{tmp}/etki.db",
            "ETKI_WIKI_DIR": str(tmp / "wiki-{project}"),
            "ETKI_REVIEWER": "reviewer",
            "PYTHONIOENCODING": "utf-8",
        }
        self.env.pop("ETKI_DEBUG", None)
        self.case_id: str = ""
        self.rule_out: str = ""

    def run(
        self, *args: str, module: str = "etki.cli", env: dict | None = None, code: int | None = 0
    ) -> tuple[str, str]:
        done = subprocess.run(
            [sys.executable, "-m", module, *args],
            capture_output=True,
            env={**self.env, **(env or {})},
            cwd=self.tmp,
            timeout=300,
        )
        what = f"{module} {' '.join(args)!r}"
        out = _assert_clean(done.stdout, f"{what} stdout")
        err = _assert_clean(done.stderr, f"{what} stderr")
        if code is not None:
            assert done.returncode == code, (what, done.returncode, err)
        return out, err

    def run_here(self, *args: str) -> tuple[str, str]:
        """``etki ARGS`` in this process (:func:`tests.cli_support.run_etki`), for a
        set-up step whose output is not what the test is about: the same checks as
        :meth:`run` on the text it printed, exit code 0. Saves a process start and every
        import again (about 2 s of CPU for ``etki init``)."""
        done = run_etki(args, env=self.env, cwd=self.tmp)
        what = f"etki {' '.join(args)!r} (in process)"
        out = _assert_clean(done.stdout.encode("utf-8"), f"{what} stdout")
        err = _assert_clean(done.stderr.encode("utf-8"), f"{what} stderr")
        assert done.returncode == 0, (what, done.returncode, err)
        return out, err


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> World:
    w = World(tmp_path_factory.mktemp("hostile"))
    out, _ = w.run("init", str(w.project))
    assert f"project demo: Kentpark {VISIBLE}" in out  # the name, shown, on one line
    assert len([ln for ln in out.splitlines() if "Kentpark" in ln]) == 1
    rows = json.loads(w.run("queue", "--json")[0])
    [row] = [r for r in rows if r["request_id"] == "R-EVIL"]
    w.case_id = row["case_id"]
    # with a reason: the verdict differs with B03's text (present beside ../shared) or not
    w.rule_out = w.run(
        "rule",
        w.case_id,
        "approve",
        "--reason",
        "SSO is in scope (3.2)",
        env={"ETKI_REVIEWER": REVIEWER},
    )[0]
    return w


def test_init_shows_the_project_name_safely(world):
    out, _ = world.run("init", str(world.project))  # again: nothing new, the name again
    assert VISIBLE in out and "pwned" in out


def test_projects_and_queue(world):
    assert world.run("projects")[0] == "demo\n"
    world.run("queue")
    out, _ = world.run("queue", "--all")
    [line] = [ln for ln in out.splitlines() if ln.startswith(world.case_id)]
    assert "SSO login ␛]0;pwned␇" in line


def test_queue_json_escapes_controls_and_round_trips(world):
    out, _ = world.run("queue", "--all", "--json")
    for escape in (
        "\\u009b",
        "\\u202e",
        "\\u2066",
        "\\u2069",
        "\\u200f",
        "\\u200e",
        "\\u0085",
        "\\u007f",
        "\\u2028",
        "\\u001b",
    ):
        assert escape in out, escape
    rows = json.loads(out)
    [row] = [r for r in rows if r["request_id"] == "R-EVIL"]
    assert row["title"] == TITLE  # the very string stored, back from the JSON


def test_triage_prints_module_ids_safely(world):
    out, _ = world.run("triage", "--project", "demo", "evil module single sign-on login")
    [line] = [ln for ln in out.splitlines() if ln.startswith("modules")]
    assert "evil.sso␛]0;pwned␇" in line
    data = json.loads(
        world.run("triage", "--project", "demo", "--json", "evil module single sign-on login")[0]
    )
    assert MODULE in data["impacted_modules"]


def test_rule_echoes_the_reviewer_safely(world):
    out = world.rule_out  # `etki rule ... approve` as REVIEWER, run by the fixture
    assert f"by rev {VISIBLE}" in out and len(out.splitlines()) == 1
    # not an approver: the refusal names the reviewer, safely
    _, err = world.run(
        "rule",
        world.case_id,
        "reject",
        "--reason",
        HOSTILE,
        env={"ETKI_REVIEWER": "intruder" + HOSTILE},
        code=2,
    )
    assert "etki: error:" in err


def test_argparse_errors_are_safe(world):
    _, err = world.run("rule", world.case_id, "approve" + HOSTILE, code=2)
    assert "unknown verdict" in err and "\x1b" not in err  # quoted with repr()
    _, err = world.run("projects", "--bogus" + HOSTILE, code=2)  # ... but this one raw
    assert "unrecognized arguments" in err and VISIBLE in err


def test_unknown_ids_in_errors_are_safe(world):
    _, err = world.run("queue", "--project", "x" + HOSTILE, code=2)
    assert VISIBLE in err
    _, err = world.run("rule", "req-" + HOSTILE, "approve", code=2)
    assert err.startswith("etki: error:")


@pytest.mark.slow
def test_wiki_cli(world):
    wiki = "etki.wiki"
    out, _ = world.run("rebuild", module=wiki)
    out, _ = world.run("verify", module=wiki)
    assert "ok" in out
    out, _ = world.run("search", "zerine", module=wiki)  # B03's "ÜZERİNE" line
    out, _ = world.run("search", "evil", "module", module=wiki)
    assert "\t" in out  # path TAB snippet survives
    out, _ = world.run("show", world.case_id, module=wiki)
    assert VISIBLE in out
    _, err = world.run("show", "DEC-" + HOSTILE, module=wiki, code=2)
    assert err.startswith("python -m etki.wiki: error:") and err.count("\n") == 1
    _, err = world.run("search", "zzqxw" + HOSTILE, module=wiki)
    assert "no results for 'zzqxw\\x1b]0;pwned" in err  # repr() of the query


def test_index_commands(world):
    proj = str(world.project)
    out, _ = world.run("index", "show", proj)
    assert "project demo" in out
    out, _ = world.run("index", "show", proj, "--json")
    assert "\\u009b" in out and "\\u202e" in out
    data = json.loads(out)
    assert any(
        n.get("id") == f"module:{MODULE}"
        or n.get("title") == MODULE
        or MODULE in json.dumps(n, ensure_ascii=False)
        for n in data["nodes"]
    )
    world.run("index", "show", "demo", "--sentences")
    world.run("index", "lint", proj)
    world.run("index", "suggest", proj)


def test_eval_commands(world):
    proj = str(world.project)
    out, _ = world.run("eval", "triage", proj, "--per-request", "--resamples", "50")
    assert "R-EVIL" in out
    data = json.loads(world.run("eval", "triage", proj, "--json", "--resamples", "50")[0])
    assert "R-EVIL" in json.dumps(data, ensure_ascii=False)
    world.run("eval", "triage", proj, "--replay")
    out, _ = world.run(
        "eval",
        "retrieval",
        str(world.project / "queries.jsonl"),
        "--project",
        "demo",
        "--per-query",
    )
    assert "Q-EVIL␛]0;pwned␇" in out
    data = json.loads(
        world.run(
            "eval", "retrieval", str(world.project / "queries.jsonl"), "--project", "demo", "--json"
        )[0]
    )
    assert data


def test_tui_start_errors_are_safe(world):
    _, err = world.run("--project", "x" + HOSTILE, module="etki_tui", code=2)
    assert err.startswith("etki-tui:") and VISIBLE in err
    _, err = world.run("--bogus" + HOSTILE, module="etki_tui", code=2)
    assert VISIBLE in err


def test_mcp_stderr_is_safe_and_answers_keep_the_strings(world):
    """``etki mcp`` writes JSON-RPC on stdout (read by the client, not a terminal) and
    logs on stderr: the logs are terminal-safe, the answers keep the stored strings."""
    import asyncio

    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "etki.cli", "mcp", "--project", "demo"],
        env=world.env,
        cwd=str(world.tmp),
    )
    errlog = world.tmp / "mcp-stderr.txt"

    async def session() -> list:
        with errlog.open("w", encoding="utf-8") as err:
            async with (
                stdio_client(params, errlog=err) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                return [
                    await client.call_tool(
                        "graph_query", {"question": "evil single sign-on login module " + HOSTILE}
                    ),
                    await client.call_tool("wiki_search", {"query": "evil " + HOSTILE}),
                    await client.call_tool("graph_query", {"question": HOSTILE, "k": 0}),
                ]

    found, wiki, bad = asyncio.run(asyncio.wait_for(session(), 120))
    _assert_clean(errlog.read_bytes(), "etki mcp stderr")
    assert not found.is_error and bad.is_error and not wiki.is_error
    ids = [n["id"] for n in found.structured_content["nodes"]]
    assert f"module:{MODULE}" in ids  # the very id, unchanged


# --- internal errors: no SQL, no parameters, no client text -------------------------------


def _add_hostile_request(w: World) -> None:
    """Append to the project's requests a new one whose title and text hold the word
    ``quokkasecret`` (and the title :data:`HOSTILE`): no error line may show it."""
    with (w.project / "requests.jsonl").open("a", encoding="utf-8") as f:
        f.write(
            json.dumps(
                {
                    "id": "R-NEW",
                    "title": "quokkasecret " + HOSTILE,
                    "text": "quokkasecret words about single sign-on",
                }
            )
            + "\n"
        )


def test_internal_error_on_sqlite_prints_no_sql_and_no_client_text(tmp_path):
    w = World(tmp_path)
    w.run_here("init", str(w.project))  # set-up: the store the error happens in
    with sqlite3.connect(tmp_path / "etki.db") as db:  # a real store error on the insert
        db.execute(
            "CREATE TRIGGER block BEFORE INSERT ON cases BEGIN "
            "SELECT RAISE(ABORT, 'blocked \x1b]0;trigger\x07 zebracorn'); END"
        )
    _add_hostile_request(w)
    _, err = w.run("init", str(w.project), code=1)
    assert err.count("\n") == 1, err
    assert err.startswith("etki: internal error: IntegrityError (sqlite3.IntegrityError")
    assert "ETKI_DEBUG=1" in err
    for leak in ("INSERT", "parameters", "quokkasecret", "zebracorn", "trigger", "pwned"):
        assert leak not in err, (leak, err)
    _, err = w.run("init", str(w.project), code=1, env={"ETKI_DEBUG": "1"})
    assert "Traceback" in err  # asked for: shown, terminal-safe (checked by w.run)
    assert err.rstrip("\n").splitlines()[-1].startswith("etki: internal error: IntegrityError")


def test_wiki_cli_internal_error_is_one_safe_line(tmp_path):
    bogus = tmp_path / "etki.db"
    bogus.write_bytes(b"not a database " + HOSTILE.encode("utf-8") * 200)
    env = {"ETKI_DB_URL": f"sqlite:///{bogus}", "ETKI_WIKI_DIR": str(tmp_path / "w")}
    done = subprocess.run(
        [sys.executable, "-m", "etki.wiki", "verify"],
        capture_output=True,
        env={**os.environ, **env},
        cwd=tmp_path,
        timeout=120,
    )
    err = _assert_clean(done.stderr, "wiki verify on a file that is no database")
    _assert_clean(done.stdout, "wiki verify stdout")
    assert done.returncode != 0 and err.count("\n") == 1, err
    assert "pwned" not in err


@pytest.mark.postgres
def test_internal_error_on_postgres_prints_no_sql_and_no_client_text(tmp_path, pg_schema):
    from sqlalchemy import text

    admin, schema = pg_schema.admin, pg_schema.name
    w = World(tmp_path)
    w.env["ETKI_DB_URL"] = pg_schema.url
    w.run_here("init", str(w.project))  # set-up: the store the error happens in
    with admin.begin() as conn:  # the race's error, with the client text in it
        conn.execute(
            text(
                f'CREATE FUNCTION "{schema}".block() RETURNS trigger AS $$ BEGIN '
                "RAISE EXCEPTION 'duplicate of %', NEW.title USING ERRCODE = '23505', "
                "CONSTRAINT = 'cases_pkey', TABLE = 'cases', "
                "DETAIL = 'Key (title)=(' || NEW.title || ') already exists.'; "
                "END $$ LANGUAGE plpgsql"
            )
        )
        conn.execute(
            text(
                f'CREATE TRIGGER block BEFORE INSERT ON "{schema}".cases '
                f'FOR EACH ROW EXECUTE FUNCTION "{schema}".block()'
            )
        )
    _add_hostile_request(w)
    _, err = w.run("init", str(w.project), code=1)
    assert err.count("\n") == 1, err
    assert err.startswith(
        "etki: internal error: IntegrityError (psycopg.errors."
        "UniqueViolation; SQLSTATE 23505; constraint cases_pkey; "
        "table cases)"
    ), err
    for leak in ("INSERT", "parameters", "quokkasecret", "duplicate of", "Key (", "pwned"):
        assert leak not in err, (leak, err)


# --- the helpers themselves -----------------------------------------------------------------

HOSTILE_STRINGS = [
    HOSTILE,
    B03_TEXT,
    "\ud83d lone",
    "\u061c alm",
    "a\u2029b",
    "\x00nul",
    "ok ğüşiöç 日本 👩‍💻",
]


@pytest.mark.parametrize("value", HOSTILE_STRINGS)
def test_json_output_escapes_and_round_trips(value, tmp_path):
    path = tmp_path / "out.json"
    with path.open("w", encoding="utf-8", errors="strict") as f:
        emit_json({"k" + value: [value, {"v": value}]}, file=f, sort_keys=True)
    raw = path.read_bytes()
    text = _assert_clean(raw, "emit_json")
    assert json.loads(text) == {"k" + value: [value, {"v": value}]}
    assert json.loads(json_safe(json.dumps(value, ensure_ascii=False))) == value


def test_json_escapes_every_character_printable_neutralises():
    for code in range(0x30000):
        ch = chr(code)
        if 0xD800 <= code < 0xE000 or ch in "\t\n":
            continue
        if printable(ch) != unicodedata.normalize("NFC", ch):  # a character the TUI hides
            assert ch not in json_safe(json.dumps(ch, ensure_ascii=False)), f"U+{code:04X}"


def test_error_summary_keeps_out_messages():
    assert error_summary(KeyError("client \x1b[2J words")).startswith("KeyError")
    assert "client" not in error_summary(ValueError("client words"))
    try:
        raise RuntimeError("secret client text")
    except RuntimeError as exc:
        summary = error_summary(exc)
    assert summary.startswith("RuntimeError (raised at tests/test_cli_escapes.py:")
    assert "secret" not in summary
    from sqlalchemy.exc import InvalidRequestError

    try:  # SQLAlchemy's own errors (no driver error inside): the message is left out
        raise InvalidRequestError("postgresql://ayse:s3cret-pw@db/x \x1b[2J")
    except InvalidRequestError as exc:
        summary = error_summary(exc)
    assert summary.startswith("InvalidRequestError (raised at tests/test_cli_escapes.py:")
    assert "s3cret" not in summary
    err = FileNotFoundError(2, "No such file or directory", "/x/\x1b[2J.md")
    assert error_summary(err) == (
        "FileNotFoundError (ENOENT; No such file or directory; /x/␛[2J.md)"
    )


def test_logged_database_errors_show_no_sql(tmp_path):
    import logging

    from sqlalchemy import create_engine, text
    from sqlalchemy.exc import DBAPIError

    from etki.console import SafeFormatter

    engine = create_engine(f"sqlite:///{tmp_path}/x.db")
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE t (a TEXT CHECK (length(a) < 3))"))
    try:
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO t VALUES (:a)"), {"a": "quokka " + HOSTILE})
    except DBAPIError as exc:
        error = exc
    engine.dispose()
    assert "quokka" in str(error)  # SQLAlchemy's own message quotes the parameters
    record = logging.LogRecord(
        "etki", logging.WARNING, __file__, 1, "wiki rebuild failed: %s", (error,), None
    )
    line = SafeFormatter("%(message)s").format(record)
    assert line == (
        "wiki rebuild failed: IntegrityError (sqlite3.IntegrityError; SQLITE_CONSTRAINT_CHECK)"
    ), line
    assert record.args == (error,)  # the record itself is untouched


# --- the source: no command prints around the safe path -------------------------------------

SAFE_MODULE = "etki/console.py"


def _bare_output_calls(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    bad = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = ast.unparse(f)
        if (
            name == "print"
            or name.endswith(("stdout.write", "stderr.write"))
            or name in ("sys.stdout.writelines", "sys.stderr.writelines")
        ):
            bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}(...)")
    return bad


def test_every_terminal_write_goes_through_etki_console():
    bad: list[str] = []
    for package in ("etki", "etki_tui"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.relative_to(ROOT).as_posix() != SAFE_MODULE:
                bad += _bare_output_calls(path)
    assert bad == [], "print around etki.console (use echo/echo_lines/emit_json):\n" + "\n".join(
        bad
    )
