"""etki.frontmatter: the hostile frontmatter cases B06, B08, B09, B10 and round trips."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from etki.errors import ProjectFormatError
from etki.frontmatter import dump_frontmatter, load_yaml, locate, split_frontmatter

CASES = Path(__file__).resolve().parents[2] / "shared" / "cases"
needs_cases = pytest.mark.skipif(not CASES.is_dir(), reason="../shared/cases is absent")


def _read(name: str) -> str:
    # decode without utf-8-sig: the BOM must be handled by split_frontmatter itself
    return (CASES / name).read_bytes().decode("utf-8")


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(k) + _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


@needs_cases
def test_b06_yaml11_booleans_stay_strings() -> None:
    meta, body = split_frontmatter(_read("B06-norway-frontmatter.md"), "B06.md")
    assert meta["country"] == "no"
    assert meta["language"] == "NO"
    assert meta["tags"] == ["no", "on", "yes", "off", "y", "n"]
    assert meta["reviewed"] == "off"
    assert meta["title"] == "Norveç ofisi erişimi"
    assert body.startswith("Müşteri Norveç (NO)")


def test_core_schema_scalars() -> None:
    text = (
        "a: true\nb: False\nc: 3\nd: 1.5\ne: 2024-01-01\nf: 010\ng: ~\nh: yes\n"
        "i: 0o17\nj: 1e3\nk: -7\nl: 0x1F\nm: 1:30\n"
    )
    assert load_yaml(text, "x.yaml") == {
        "a": True,
        "b": False,
        "c": 3,
        "d": 1.5,
        "e": "2024-01-01",
        "f": "010",
        "g": None,
        "h": "yes",
        "i": "0o17",
        "j": "1e3",
        "k": -7,
        "l": 31,
        "m": "1:30",
    }


@needs_cases
def test_b08_colon_in_unquoted_value_names_file_and_line_3() -> None:
    with pytest.raises(ProjectFormatError) as info:
        split_frontmatter(_read("B08-colon-frontmatter.md"), "pages/B08-colon-frontmatter.md")
    err = info.value
    assert err.line == 3
    assert err.path == "pages/B08-colon-frontmatter.md"
    assert err.field == "title"
    assert "pages/B08-colon-frontmatter.md:3" in str(err)
    assert "quoted" in str(err)


@needs_cases
def test_b08_title_written_by_etki_loads_back_unchanged() -> None:
    meta = {
        "case_id": "VAKA-0011",
        "title": "SSO hatası: giriş sayfası açılmıyor",
        "owner": "Müşteri Ekibi: İstanbul",
    }
    assert split_frontmatter(dump_frontmatter(meta, "Gövde\n"), "x.md") == (meta, "Gövde\n")


@needs_cases
@pytest.mark.parametrize("name", ["B09-bom-frontmatter.md", "B09-crlf-frontmatter.md"])
def test_b09_bom_and_crlf_read_like_the_clean_lf_file(name: str) -> None:
    raw = _read(name)
    assert raw.startswith("\ufeff") or "\r\n" in raw  # the hostile bytes are really there
    clean = raw.removeprefix("\ufeff").replace("\r\n", "\n")
    meta, body = split_frontmatter(raw, name)
    clean_meta, clean_body = split_frontmatter(clean, name)
    assert meta == clean_meta and meta
    assert body == clean_body
    assert body.startswith("# Gövde")
    for text in _strings(meta) + [body]:
        assert "\ufeff" not in text and "\r" not in text


@needs_cases
def test_b09_values() -> None:
    bom, _ = split_frontmatter(_read("B09-bom-frontmatter.md"), "b.md")
    crlf, _ = split_frontmatter(_read("B09-crlf-frontmatter.md"), "c.md")
    assert bom == {"case_id": "VAKA-0012", "title": "BOM ile kaydedilmiş sayfa"}
    assert crlf == {
        "case_id": "VAKA-0013",
        "title": "CRLF ile kaydedilmiş sayfa",
        "tags": ["sso", "fatura"],
    }


@needs_cases
def test_b10_rules_in_body_stay_in_body_byte_for_byte() -> None:
    raw = _read("B10-hr-in-body.md")
    meta, body = split_frontmatter(raw, "B10.md")
    assert meta == {"case_id": "VAKA-0014", "title": "Yatay çizgili sayfa"}
    assert body == "".join(raw.splitlines(keepends=True)[4:])
    assert body.count("\n---\n") == 2 and "status: bu bir gövde" in body


def test_dump_round_trips_tricky_values() -> None:
    meta = {
        "title": "SSO hatası: giriş sayfası açılmıyor",
        "country": "no",
        "y": "y",
        "flags": ["on", "off", "yes", "NO", "true"],
        "num_like": "010",
        "exp": "1e3",
        "octal": "0o17",
        "date": "2024-01-01",
        "hash": "# not a comment",
        "dash": "- item",
        "quote": 'it\'s "quoted"',
        "multi": "line one\nline two\n",
        "empty": "",
        "long": "kelime " * 80 + "son",
        "n": 3,
        "f": 0.5,
        "big": 1e20,
        "b": True,
        "none": None,
        "nested": {"k": "v: w", "list": [1, "2"]},
        "tilde": "~",
        "turkish": "İade süreci ıslak imza",
        "colon_end": "ends with:",
    }
    body = "Birinci.\n\n---\n\nstatus: gövde\n"
    text = dump_frontmatter(meta, body)
    assert split_frontmatter(text, "x.md") == (meta, body)
    assert text.startswith("---\n") and "\n---\nBirinci." in text


def test_dump_is_sorted_safe_dump_without_wrapping() -> None:
    assert dump_frontmatter({"b": 1, "a": "x"}, "body\n") == "---\na: x\nb: 1\n---\nbody\n"
    long_title = "çok uzun başlık " * 30
    text = dump_frontmatter({"title": long_title.strip()}, "")
    assert text.count("\n") == 3  # one line per field: the search reads line by line
    assert dump_frontmatter({}, "x") == "---\n---\nx"
    assert split_frontmatter("---\n---\nx", "e.md") == ({}, "x")


def test_no_frontmatter_returns_the_whole_text() -> None:
    assert split_frontmatter("# Title\n\ntext\n", "a.md") == ({}, "# Title\n\ntext\n")
    assert split_frontmatter("\ufeff# T\r\nx\r\n", "a.md") == ({}, "# T\nx\n")


def test_malformed_frontmatter_shapes_are_errors_with_lines() -> None:
    with pytest.raises(ProjectFormatError) as info:
        split_frontmatter("---\ntitle: x\nbody without end\n", "open.md")
    assert info.value.line == 1 and "never closed" in str(info.value)
    with pytest.raises(ProjectFormatError) as info:
        split_frontmatter("---\n- a\n- b\n---\nbody\n", "list.md")
    assert info.value.line == 2 and "mapping" in str(info.value)
    with pytest.raises(ProjectFormatError) as info:
        split_frontmatter("---\ntitle: a\nid: 1\ntitle: b\n---\n", "dup.md")
    assert info.value.line == 4 and "duplicate key 'title'" in str(info.value)


def test_locate_finds_the_line_of_a_field() -> None:
    text = "id: demo\nreviewers:\n  - name: A\n    role: boss\n"
    assert locate(text, ["reviewers", 0, "role"]) == 4
    assert locate(text, ["reviewers", 0, "missing"]) == 3
    assert locate(text, ["id"], first_line=2) == 2
    assert locate('[{"id": "a"},\n {"id": "b", "x": 1}]', [1, "x"]) == 2
