"""``etki import`` (JSON Lines, CSV, a GitHub issues export) on a real SQLite store of
the sample project: each file read record by record, a bad record refused alone with
its file and line, a second import storing nothing (issue 14 item 1)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from etki.errors import InputError, ProjectFormatError
from etki.knowledge.intake import detect_format, read_requests
from tests.cli_support import run_etki

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_project"


def etki(tmp: Path, *args: str):  # noqa: ANN201
    env = {
        **os.environ,
        "ETKI_DB_URL": f"sqlite:///{tmp}/etki.db",
        "ETKI_WIKI_DIR": str(tmp / "wiki-{project}"),
        "ETKI_REVIEWER": "reviewer",
    }
    return run_etki(args, env=env, cwd=tmp)


def queue(tmp: Path) -> dict[str, dict]:
    rows = json.loads(etki(tmp, "queue", "--project", "demo", "--json").stdout)
    return {r["request_id"]: r for r in rows}


def test_csv_rows_are_read_with_bom_quotes_and_line_breaks(tmp_path: Path) -> None:
    path = tmp_path / "requests.csv"
    path.write_bytes(
        "\ufeffid,text,title,submitted_by,submitted_at,owner\n"
        'C-1,"Online randevu, İstanbul şubesi için",Randevu,Jürgen,2024-05-01,x\n'
        'C-2,"two\nlines",,,,\n'
        "C-3,,Empty,Ayşe,,\n"
        "C-1,again,,,,\n".encode()
    )
    requests, refused, _ = read_requests(path, detect_format(path))
    assert [(r.id, r.text, r.title, r.submitted_by) for r in requests] == [
        ("C-1", "Online randevu, İstanbul şubesi için", "Randevu", "Jürgen"),
        ("C-2", "two\nlines", None, None),
    ]
    assert requests[0].submitted_at == "2024-05-01"
    assert len(refused) == 2
    # C-2's quoted line break puts C-3 on line 5 and the second C-1 on line 6
    assert refused[0] == f"{path}:5: field 'text' is empty; a request needs its client text"
    assert "requests.csv:6: field 'id'" in refused[1] and "first on line 2" in refused[1]


def test_a_csv_without_the_text_column_is_refused_whole(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("id,body\nC-1,x\n", encoding="utf-8")
    with pytest.raises(ProjectFormatError, match="no column 'text'"):
        read_requests(path, "csv")


def test_github_issues_export(tmp_path: Path) -> None:
    path = tmp_path / "issues.json"
    issues = [
        {
            "number": 12,
            "title": "SSO login fails",
            "body": "",
            "author": {"login": "octo"},
            "createdAt": "2024-05-01T10:00:00Z",
        },
        {
            "number": 13,
            "title": "Dark mode",
            "body": "Please add a dark mode",
            "author": {"login": "mona"},
            "createdAt": "2024-05-02T10:00:00Z",
        },
        {"number": "14", "title": "bad number"},
        {"number": 15, "title": "", "body": "  "},
    ]
    path.write_text(json.dumps(issues), encoding="utf-8")
    requests, refused, _ = read_requests(path, detect_format(path))
    assert [(r.id, r.text, r.title, r.submitted_by, r.submitted_at) for r in requests] == [
        ("gh-12", "SSO login fails", "SSO login fails", "octo", "2024-05-01T10:00:00Z"),
        ("gh-13", "Please add a dark mode", "Dark mode", "mona", "2024-05-02T10:00:00Z"),
    ]
    # numbered from 1 as people count the issues, "item N" so it is not read as an index
    assert list(refused) == [
        f"{path} item 3: field 'number' must be a whole number",
        f"{path} item 4: field 'text' is empty; a request needs its client text",
    ]


def test_unknown_suffix_asks_for_the_format(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="--format"):
        detect_format(tmp_path / "requests.xml")
    # Excel's "Unicode Text" and "Text (Tab delimited)" are saved as .txt: tab-separated
    assert detect_format(tmp_path / "requests.txt") == "csv"
    assert detect_format(tmp_path / "requests.TSV") == "csv"


def test_import_stores_the_good_records_once(tmp_path: Path) -> None:
    assert etki(tmp_path, "init", str(SAMPLE)).returncode == 0
    before = queue(tmp_path)
    path = tmp_path / "new.jsonl"
    path.write_text(
        json.dumps({"id": "N-1", "text": "Größe der Exportdatei erhöhen"})
        + "\n{broken\n"
        + json.dumps({"id": "N-2", "text": "Mobil uygulamada bildirim istiyoruz"})
        + "\n",
        encoding="utf-8",
    )
    done = etki(tmp_path, "import", "--project", "demo", str(path))
    assert done.returncode == 2 and "imported 2 new requests" in done.stdout
    assert "new.jsonl:2:" in done.stderr and "malformed JSON" in done.stderr
    after = queue(tmp_path)
    assert set(after) - set(before) == {"N-1", "N-2"}
    assert all(after[k] == v for k, v in before.items())  # nothing stored changed
    alone = json.loads(
        etki(
            tmp_path, "triage", "--project", "demo", "--json", "Größe der Exportdatei erhöhen"
        ).stdout
    )
    assert after["N-1"]["verdict"] == alone["verdict"]
    again = etki(tmp_path, "import", "--project", "demo", str(path))
    assert "imported 0 new requests; 2 already stored" in again.stdout
    assert queue(tmp_path) == after
    verify = etki(tmp_path, "wiki", "verify", "--project", "demo")
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_import_into_an_unknown_project_stores_nothing(tmp_path: Path) -> None:
    assert etki(tmp_path, "init", str(SAMPLE)).returncode == 0
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"id": "N-1", "text": "x"}) + "\n", encoding="utf-8")
    done = etki(tmp_path, "import", "--project", "nope", str(path))
    assert done.returncode == 2 and "no project 'nope'" in done.stderr
    assert len(queue(tmp_path)) == 40


def test_a_nul_in_a_csv_cell_refuses_that_row_only(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_bytes(b"id,text\nA,ok\nB,bad\x00nul\nC,fine\n")
    requests, refused, _ = read_requests(path, "csv")
    assert [r.id for r in requests] == ["A", "C"]
    [message] = refused
    assert "r.csv:3: field 'text'" in message and "NUL" in message


def test_add_and_import_leave_out_project_with_one_stored(tmp_path: Path) -> None:
    """Second trial: `etki add` and `etki import` asked for --project where `etki report`
    and `etki dispute` did not; with one project stored it may be left out (README), and
    with none the message says to load one."""
    none = etki(tmp_path, "add", "A request before any project")
    assert none.returncode == 2 and "run `etki init PROJECT_DIR` first" in none.stderr
    assert etki(tmp_path, "init", str(SAMPLE)).returncode == 0
    before = len(queue(tmp_path))
    added = etki(tmp_path, "add", "Please add a dark mode to the citizen portal.")
    assert added.returncode == 0 and added.stdout.startswith("added req-demo-")
    rows = tmp_path / "new.jsonl"
    rows.write_text(json.dumps({"id": "late-9", "text": "Export receipts as PDF."}) + "\n")
    imported = etki(tmp_path, "import", str(rows))
    assert imported.returncode == 0 and "imported 1 new request" in imported.stdout
    assert len(queue(tmp_path)) == before + 2


def test_a_title_taken_from_the_text_is_cut_between_words() -> None:
    """A request without a title stores the first line of its text, cut to 80
    characters at a word boundary with ``…`` (tdrs has no titles: "Fiscal
    Responsibili…" read as a typo); a line without a space in its second half is cut
    at 79 characters; a short line is kept whole."""
    from etki.domain import Request
    from etki.store.repository.rows import title_of

    text = (
        "The Tribal TANF section of the report must show the Fiscal Responsibility "
        "figures for each quarter"
    )
    title = title_of(Request(id="r1", text=text))
    assert title == "The Tribal TANF section of the report must show the Fiscal Responsibility…"
    assert title_of(Request(id="r0", text=text[:85])) == text[:73] + "…"  # not "figure"
    assert len(title) <= 80
    long_word = "x" * 100
    assert title_of(Request(id="r2", text=long_word)) == "x" * 79 + "…"
    assert title_of(Request(id="r3", text="Short line\nsecond line")) == "Short line"
    assert title_of(Request(id="r4", text="Anything", title="  Own title ")) == "Own title"
