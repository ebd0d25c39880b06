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
    assert "imported 3 new request(s); 2 refused" in done.stdout
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
    requests, refused = read_requests(path, "csv")
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
    assert "imported 2 new request(s); 1 refused" in done.stdout
    assert "new.csv:2: a quote opened on this line is never closed" in done.stderr
    assert {"N-2", "N-3"} <= stored_ids(tmp_path) and "N-1" not in stored_ids(tmp_path)


BARRIER = Path(__file__).with_name("cli_barrier.py")


def test_racing_imports_of_one_file_say_how_many_were_already_stored(tmp_path: Path) -> None:
    """Two real ``etki import`` processes of one file, released together: the one that
    lost the race said "imported 0 new request(s)" and nothing else, as if the file were
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
        found = re.match(r"imported (\d+) new request\(s\)(?:; (\d+) already stored)?", out)
        assert found, out
        counts.append((int(found[1]), int(found[2] or 0)))
    assert sum(new for new, _ in counts) == rows, outs  # each row stored once
    assert all(new + already == rows for new, already in counts), outs
