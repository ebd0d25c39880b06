"""``etki import`` against hostile and broken files (issue 30 items 4 and 11): a CSV cell
longer than Python's default field limit, a quote left open, racing imports of one
file, GitHub issues with fields of the wrong type. Real files, a real SQLite store."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from etki.knowledge.intake import read_requests
from tests.cli_support import run_etki

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_project"


def _env(tmp: Path) -> dict[str, str]:
    return {
        **os.environ,
        "ETKI_DB_URL": f"sqlite:///{tmp}/etki.db",
        "ETKI_WIKI_DIR": "",
        "ETKI_REVIEWER": "reviewer",
    }


def etki(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_etki(args, env=_env(tmp), cwd=tmp)


def stored_ids(tmp: Path) -> set[str]:
    rows = json.loads(etki(tmp, "queue", "--project", "demo", "--json").stdout)
    return {r["request_id"] for r in rows}


def test_a_cell_over_131072_characters_is_stored_and_one_over_the_most_refused_alone(
    tmp_path: Path,
) -> None:
    """Python's csv refuses a cell over 131,072 characters (its default field limit): the
    whole import ended in "internal error", exit 1, nothing stored, although the README
    allows 200,000 (ETKI_MAX_REQUEST_CHARS). Now the 150,000-character row is stored, a
    250,000-character one (on one line, or quoted over two) is refused alone with its
    line and why, and every other row is stored."""
    assert etki(tmp_path, "init", str(SAMPLE)).returncode == 0
    path = tmp_path / "long.csv"
    path.write_text(
        "id,text\n"
        "L-1,short one\n"
        f"L-2,{'a' * 150_000}\n"
        f'L-3,"{"b" * 250_000}\nsecond line"\n'
        f"L-4,{'c' * 300_000}\n"
        "L-5,short five\n",
        encoding="utf-8",
    )
    limit = csv.field_size_limit()
    done = etki(tmp_path, "import", "--project", "demo", str(path))
    assert done.returncode == 2, done.stderr
    assert "internal error" not in done.stderr
    assert "imported 3 new requests; 2 refused" in done.stdout
    errors = done.stderr.splitlines()
    assert len(errors) == 2
    assert (
        "long.csv:5: field 'text' request 'L-3' is 250,012 characters; at most 200,000"
        in (errors[0])
    )
    assert "long.csv:6: field 'text' request 'L-4' is 300,000 characters" in errors[1]
    assert {"L-1", "L-2", "L-5"} <= stored_ids(tmp_path)
    assert not {"L-3", "L-4"} & stored_ids(tmp_path)
    assert csv.field_size_limit() == limit  # the module's global is put back


def test_a_quote_left_open_is_reported_where_it_opened_and_never_merged(tmp_path: Path) -> None:
    """A missing closing quote folded the next rows into one request, silently. Now the
    row is refused with the line where its quote opened, and the rows after it are read
    as their own: whether the file ends inside the quote or a later cell's quote closes
    it; text after a closing quote on one line is said as such."""
    path = tmp_path / "open.csv"
    path.write_text(
        "id,text,title\n"
        'Q-1,"the quote is never closed,T1\n'  # closed by Q-3's opening quote
        "Q-2,second,T2\n"
        'Q-3,"third, quoted",T3\n'
        'Q-4,"abc"def,T4\n'
        'Q-5,"two\nlines",T5\n'
        "Q-6,sixth,T6\n"
        'Q-7,"open to the end,T7\n'
        "Q-8,eighth,T8\n",
        encoding="utf-8",
    )
    requests, refused, _ = read_requests(path, "csv")
    assert [(r.id, r.text, r.title) for r in requests] == [
        ("Q-2", "second", "T2"),
        ("Q-3", "third, quoted", "T3"),
        ("Q-5", "two\nlines", "T5"),
        ("Q-6", "sixth", "T6"),
        ("Q-8", "eighth", "T8"),
    ]
    never_closed = (
        "a quote opened on this line is never closed; the row is refused and "
        "the lines after it are read as rows of their own (not merged into it)"
    )
    after_close = (
        "text after the closing quote of a quoted cell; write a quote inside a "
        'quoted cell as two ("") — the row is refused'
    )
    assert refused == (
        f"{path}:2: {never_closed}",
        f"{path}:5: {after_close}",
        f"{path}:9: {never_closed}",
    )
    assert not any("\n" in r.text for r in requests if r.id != "Q-5")


def test_a_quote_left_open_on_the_command_line_stores_the_other_rows(tmp_path: Path) -> None:
    assert etki(tmp_path, "init", str(SAMPLE)).returncode == 0
    path = tmp_path / "new.csv"
    path.write_text('id,text\nN-1,"no end\nN-2,two\nN-3,three\n', encoding="utf-8")
    done = etki(tmp_path, "import", "--project", "demo", str(path))
    assert done.returncode == 2
    assert "imported 2 new requests; 1 refused" in done.stdout
    assert "new.csv:2: a quote opened on this line is never closed" in done.stderr
    assert {"N-2", "N-3"} <= stored_ids(tmp_path) and "N-1" not in stored_ids(tmp_path)


BARRIER = Path(__file__).with_name("cli_barrier.py")


def test_racing_imports_of_one_file_say_how_many_were_already_stored(tmp_path: Path) -> None:
    """Two real ``etki import`` processes of one file, released together: the one that
    lost the race said "imported 0 new requests" and nothing else, as if the file were
    empty. Each now accounts for every row: new + already stored = rows of the file."""
    assert etki(tmp_path, "init", str(SAMPLE)).returncode == 0
    rows = 12
    path = tmp_path / "same.jsonl"
    path.write_text(
        "".join(
            json.dumps({"id": f"R-{n}", "text": f"Please add export number {n} to the portal."})
            + "\n"
            for n in range(rows)
        ),
        encoding="utf-8",
    )
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    procs = [
        subprocess.Popen(
            [sys.executable, str(BARRIER), str(barrier), str(n), "import", "--project", "demo"]
            + [str(path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(tmp_path),
            cwd=tmp_path,
        )
        for n in range(2)
    ]
    while len(list(barrier.glob("ready-*"))) < len(procs):
        assert all(p.poll() is None for p in procs), [p.communicate() for p in procs]
        time.sleep(0.01)
    (barrier / "go").touch()
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0 and err == "", err
        outs.append(out)
    counts = []
    for out in outs:
        found = re.match(r"imported (\d+) new requests?(?:; (\d+) already stored)?", out)
        assert found, out
        counts.append((int(found[1]), int(found[2] or 0)))
    assert sum(new for new, _ in counts) == rows, outs  # each row stored once
    assert all(new + already == rows for new, already in counts), outs


def test_github_issues_of_the_wrong_shape_are_refused_by_item_and_field(tmp_path: Path) -> None:
    """A GitHub export is a JSON array: its records are items, not lines ("first on
    line 1" named the item), and a ``body`` that is an object or an ``author`` that is a
    string was dropped silently (the issue stored with its title as text, or without its
    author). Each is now refused alone with its item number and field."""
    assert etki(tmp_path, "init", str(SAMPLE)).returncode == 0
    path = tmp_path / "issues.json"
    issues = [
        {"number": 1, "title": "SSO", "body": "SSO login fails", "author": {"login": "octo"}},
        {"number": 1, "title": "again", "body": "the same number", "author": None},
        {"number": 2, "title": "Body object", "body": {"text": "x"}, "author": {"login": "a"}},
        {"number": 3, "title": "Author string", "body": "text", "author": "mona"},
        {"number": 4, "title": "Login number", "body": "text", "author": {"login": 7}},
        {"number": 5, "title": "Fine", "body": None, "author": None},
    ]
    path.write_text(json.dumps(issues), encoding="utf-8")
    requests, refused, _ = read_requests(path, "github")
    assert [(r.id, r.text, r.submitted_by) for r in requests] == [
        ("gh-1", "SSO login fails", "octo"),
        ("gh-5", "Fine", None),
    ]
    assert refused == (
        f"{path} item 2: field 'number' duplicate issue number 1 (first as item 1)",
        f"{path} item 3: field 'body' must be a string or null, not an object",
        f"{path} item 4: field 'author' must be an object {{\"login\": ...}} or null, not a string",
        f"{path} item 5: field 'author.login' must be a string, not a number",
    )
    done = etki(tmp_path, "import", "--project", "demo", str(path))
    assert done.returncode == 2
    assert "imported 2 new requests; 4 refused" in done.stdout
    assert "line" not in done.stderr
    assert {"gh-1", "gh-5"} <= stored_ids(tmp_path)
    assert not {"gh-2", "gh-3", "gh-4"} & stored_ids(tmp_path)
