"""CSV as Excel writes it in Turkey and Germany (issue 35 item 4): cells separated by a
semicolon, text in Windows-1254 or -1252 when not saved as UTF-8, and an import that
lists what it stored with the verdicts."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from etki.errors import ProjectFormatError
from etki.knowledge.intake import decode_spreadsheet_text, read_requests
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


def test_a_semicolon_file_is_read_with_its_separator(tmp_path: Path) -> None:
    path = tmp_path / "talepler.csv"
    path.write_text(
        "id;title;text\n"
        'T-1;Rapor;"Aylık raporda tutar 1.234,56 TL; KDV dahil değil"\n'
        "T-2;;Şifre sıfırlama e-postası gelmiyor\n",
        encoding="utf-8",
    )
    read = read_requests(path, "csv")
    assert [(r.id, r.title, r.text) for r in read.requests] == [
        ("T-1", "Rapor", "Aylık raporda tutar 1.234,56 TL; KDV dahil değil"),
        ("T-2", None, "Şifre sıfırlama e-postası gelmiyor"),
    ]
    assert read.refused == () and read.notes == ()


def test_a_tab_file_and_a_comma_file_keep_working(tmp_path: Path) -> None:
    tabbed = tmp_path / "a.csv"
    tabbed.write_text("id\ttext\nA-1\tx, y; z\n", encoding="utf-8")
    assert [r.text for r in read_requests(tabbed, "csv").requests] == ["x, y; z"]
    comma = tmp_path / "b.csv"  # a comma header wins even with semicolons in the cells
    comma.write_text('id,text\nB-1,"a;b"\n', encoding="utf-8")
    assert [r.text for r in read_requests(comma, "csv").requests] == ["a;b"]


def test_an_open_quote_in_a_semicolon_file_refuses_its_row_alone(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text('id;text\nR-1;"never closed\nR-2;"fine; really"\nR-3;plain\n', encoding="utf-8")
    read = read_requests(path, "csv")
    assert [r.id for r in read.requests] == ["R-2", "R-3"]
    assert len(read.refused) == 1 and read.refused[0].startswith(f"{path}:2: a quote opened")


def test_turkish_windows_text_is_read_as_1254_and_said(tmp_path: Path) -> None:
    path = tmp_path / "tr.csv"
    text = "id;text\nT-1;İş akışında ğ, ş, ı ve Ö harfleri bozuk görünüyor\n"
    path.write_bytes(text.encode("cp1254"))
    read = read_requests(path, "csv")
    assert [r.text for r in read.requests] == ["İş akışında ğ, ş, ı ve Ö harfleri bozuk görünüyor"]
    note = (
        f"{path}: not UTF-8, read as Windows-1254 (Turkish); if letters look wrong, save it "
        "as UTF-8 (Excel: Save As > 'CSV UTF-8 (Comma delimited)'; an editor: encoding UTF-8)"
    )
    assert read.notes == (note,)


def test_german_windows_text_is_read_as_1252() -> None:
    text = "Größe der Exportdatei für Übersichten erhöhen (Maß: 10 MB) – €"
    assert decode_spreadsheet_text(text.encode("cp1252")) == (text, "cp1252")
    assert decode_spreadsheet_text(text.encode("utf-8")) == (text, None)
    assert decode_spreadsheet_text(b"\xef\xbb\xbf" + text.encode()) == (text, None)


def test_bytes_no_excel_code_page_holds_are_refused_with_how_to_resave(tmp_path: Path) -> None:
    path = tmp_path / "bin.csv"
    path.write_bytes(b"id,text\nX-1,abc\x81\x8d\n")
    with pytest.raises(ProjectFormatError) as caught:
        read_requests(path, "csv")
    assert str(caught.value) == (
        f"{path}:2: neither UTF-8 nor a Windows code page Excel writes; save it as UTF-8 "
        "(Excel: Save As > 'CSV UTF-8 (Comma delimited)'; an editor: encoding UTF-8)"
    )


def test_import_lists_each_new_case_with_its_verdict(tmp_path: Path) -> None:
    assert etki(tmp_path, "init", str(SAMPLE)).returncode == 0
    path = tmp_path / "excel.csv"
    path.write_bytes(
        "id;title;text\nX-1;Bildirim;Mobil uygulamada anlık bildirim istiyoruz\n".encode("cp1254")
    )
    done = etki(tmp_path, "import", "--project", "demo", str(path))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "imported 1 new request"
    assert lines[1].startswith(f"note: {path}: not UTF-8, read as Windows-1254 (Turkish)")
    rows = json.loads(etki(tmp_path, "queue", "--project", "demo", "--json").stdout)
    row = next(r for r in rows if r["request_id"] == "X-1")
    case_line = lines[2].split()
    assert case_line[:3] == [row["case_id"], "X-1", row["verdict"]]
    assert case_line[3] in ("sure", "unsure") and lines[2].endswith("Bildirim")


UNICODE_TEXT = "id\ttitle\ttext\r\nU-1\tİade\tİade ekranında ğ, ş, ı bozuk; Größe ß\r\n"
"""What Excel's "Unicode Text" writes: tab-separated, CRLF, UTF-16 LE with its mark."""


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_a_utf16_or_utf32_file_with_its_mark_is_read(tmp_path: Path, codec: str) -> None:
    """A trial's Excel "Unicode Text" file (UTF-16 with a BOM) got "the header row has
    no column 'id', 'text'": it was read as Windows-1252. The mark says the encoding;
    the rows read exactly, with no code-page note."""
    path = tmp_path / "unicode.txt"  # Excel's own suffix for it
    path.write_bytes("\ufeff".encode(codec) + UNICODE_TEXT.encode(codec))
    read = read_requests(path, "csv")
    assert [(r.id, r.title, r.text) for r in read.requests] == [
        ("U-1", "İade", "İade ekranında ğ, ş, ı bozuk; Größe ß")
    ]
    assert read.refused == () and read.notes == ()


def test_a_broken_utf16_file_is_refused_naming_the_encoding(tmp_path: Path) -> None:
    path = tmp_path / "broken.csv"
    body = "id\ttext\nU-1\tok\n".encode("utf-16-le")
    path.write_bytes(b"\xff\xfe" + body + b"\x00\xdc")  # a lone low surrogate on line 3
    with pytest.raises(ProjectFormatError) as caught:
        read_requests(path, "csv")
    assert str(caught.value).startswith(
        f"{path}:3: starts with a UTF-16 byte order mark but is not UTF-16 text; save it as UTF-8"
    )


def test_etki_import_reads_excels_unicode_text(tmp_path: Path) -> None:
    assert etki(tmp_path, "init", "--no-preanalysis", str(SAMPLE)).returncode == 0
    path = tmp_path / "Talepler.txt"
    path.write_bytes(UNICODE_TEXT.encode("utf-16"))  # Python writes the mark, as Excel
    done = etki(tmp_path, "import", "--project", "demo", "--no-preanalysis", str(path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "imported 1 new request"
    rows = json.loads(etki(tmp_path, "queue", "--project", "demo", "--json").stdout)
    assert [r["title"] for r in rows if r["request_id"] == "U-1"] == ["İade"]


EXTRA_CELLS = (
    "id;title;text\n"
    "E-1;Rapor;Aylık rapor PDF olarak da gelsin\n"
    "E-2;Straße;Die Straße fehlt; bitte ergänzen\n"  # an unquoted ; in the text: 4 cells
    "E-3;İlçe;İlçe filtresi çalışmıyor;\n"  # a trailing separator: an empty 4th cell
    "E-4;;Şifre sıfırlama e-postası gelmiyor\n"
)


def test_a_row_with_more_cells_than_the_header_is_refused_alone(tmp_path: Path) -> None:
    """A PMO trial: ``E-2;Straße;Die Straße fehlt; bitte ergänzen`` under ``id;title;text``
    was imported as "Die Straße fehlt", " bitte ergänzen" dropped unseen. The row is
    refused naming the file, its line and the counts; the good rows are read (a
    trailing separator, an empty cell past the last, drops nothing and is read)."""
    path = tmp_path / "talepler.csv"
    path.write_text(EXTRA_CELLS, encoding="utf-8")
    read = read_requests(path, "csv")
    assert [(r.id, r.text) for r in read.requests] == [
        ("E-1", "Aylık rapor PDF olarak da gelsin"),
        ("E-3", "İlçe filtresi çalışmıyor"),
        ("E-4", "Şifre sıfırlama e-postası gelmiyor"),
    ]
    [refused] = read.refused
    assert refused.startswith(f"{path}:3: line 3 has 4 cells, the header 3; the row is refused")
    assert "a semicolon (;) needs double quotes" in refused
    comma = tmp_path / "c.csv"  # a comma file says its own separator
    comma.write_text("id,text\nC-1,a,b,c\nC-2,fine\n", encoding="utf-8")
    read = read_requests(comma, "csv")
    assert [r.id for r in read.requests] == ["C-2"]
    assert read.refused[0].startswith(f"{comma}:2: line 2 has 4 cells, the header 2")
    assert "a comma (,)" in read.refused[0]


def test_etki_import_refuses_the_row_with_more_cells_and_stores_the_rest(tmp_path: Path) -> None:
    """The same file through ``etki import`` in a real subprocess: the three good rows
    stored (listed with their verdicts), the bad one on stderr, exit 2."""
    import subprocess
    import sys

    assert etki(tmp_path, "init", str(SAMPLE)).returncode == 0
    path = tmp_path / "talepler.csv"
    path.write_text(EXTRA_CELLS, encoding="utf-8")
    env = {
        **os.environ,
        "ETKI_DB_URL": f"sqlite:///{tmp_path}/etki.db",
        "ETKI_WIKI_DIR": str(tmp_path / "wiki-{project}"),
        "ETKI_REVIEWER": "reviewer",
    }
    done = subprocess.run(
        [sys.executable, "-m", "etki.cli", "import", "--project", "demo", str(path)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
        timeout=300,
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout.splitlines()[0].startswith("imported 3 new requests; 1 refused")
    assert f"{path}:3: line 3 has 4 cells, the header 3" in done.stderr
    rows = json.loads(etki(tmp_path, "queue", "--project", "demo", "--json").stdout)
    stored = {r["request_id"]: r for r in rows}
    assert {"E-1", "E-3", "E-4"} <= set(stored) and "E-2" not in stored
    for rid in ("E-1", "E-3", "E-4"):
        assert stored[rid]["case_id"] in done.stdout
