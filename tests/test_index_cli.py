"""``etki index build|show|lint|suggest`` (issue 4 items 1 and 8), run through the real
``etki`` entry point in-process: exit codes, files written, stored projects by id."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from etki.cli import main
from etki.knowledge import KnowledgeIndex, build_index, load_project

SAMPLE = Path(__file__).resolve().parents[1] / "sample_project"

BROKEN = """---
id: B
---
# B

Intro.

## 1 One

See [[module:nothing]].

## 1 One again

Text.
"""


@pytest.fixture()
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ETKI_DB_URL", f"sqlite:///{tmp_path / 'etki.db'}")
    monkeypatch.setenv("ETKI_WIKI_DIR", "")
    for name in ("ETKI_LLM_BASE_URL", "ETKI_LLM_MODEL", "ETKI_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def etki(*argv: str) -> int:
    with pytest.raises(SystemExit) as info:
        main(list(argv))
    return int(info.value.code or 0)


def broken_project(root: Path) -> Path:
    (root / "contracts").mkdir(parents=True)
    (root / "etki.yaml").write_text("id: b\nname: B\n", encoding="utf-8")
    (root / "contracts" / "b.md").write_text(BROKEN, encoding="utf-8")
    return root


def test_build_writes_the_index_deterministically(env: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert etki("index", "build", str(SAMPLE)) == 0
    out = capsys.readouterr().out
    written = env / ".etki" / "index-demo.json"
    expected = build_index(load_project(SAMPLE))
    assert written.read_bytes() == expected.to_bytes()
    assert f"index {expected.hash}" in out and "written to .etki/index-demo.json" in out
    assert "contract MSA-2024-01 (contracts/msa.md): by_heading, 51 clauses" in out
    assert "gap_cv 0.3319" in out and "unresolved links: 0" in out
    assert etki("index", "build", str(SAMPLE)) == 0
    assert "is up to date" in capsys.readouterr().out


def test_show_json_prints_the_index(env: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert etki("index", "show", str(SAMPLE), "--json") == 0
    data = capsys.readouterr().out.encode("utf-8")
    assert KnowledgeIndex.from_bytes(data).to_bytes() == data
    assert json.loads(data)["counts"]["clauses"] == 59


def test_lint_reports_and_strict_fails(env: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    root = broken_project(env / "b")
    assert etki("index", "lint", str(root)) == 0
    out = capsys.readouterr().out
    assert (
        "warning  unresolved            contracts/b.md:10  [[module:nothing]] names no node" in out
    )
    assert "repeated-number" in out and "number 1 is used twice in B" in out
    assert "2 warnings" in out
    assert etki("index", "lint", str(root), "--strict") == 2
    assert "2 lint warnings" in capsys.readouterr().err
    assert etki("index", "build", str(root)) == 0  # lint does not fail the build ...
    assert (env / ".etki" / "index-b.json").is_file()
    (env / ".etki" / "index-b.json").unlink()
    assert etki("index", "build", str(root), "--strict") == 2  # ... unless --strict
    assert not (env / ".etki" / "index-b.json").exists()


def test_a_stored_project_by_id(env: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    copy = env / "sp"
    shutil.copytree(SAMPLE, copy)
    assert etki("init", str(copy)) == 0
    capsys.readouterr()
    assert etki("index", "show", "demo") == 0
    out = capsys.readouterr().out
    assert f"index {build_index(load_project(copy)).hash}" in out
    assert etki("index", "lint", "demo") == 0
    assert "0 warnings" in capsys.readouterr().out
    assert etki("index", "suggest", "demo") == 0
    listing = capsys.readouterr().out
    first = listing.split()[0]
    assert first.startswith("s-") and "words:" in listing
    assert not (copy / "edges.yaml").exists()  # listing applies nothing
    assert etki("index", "suggest", "demo", "--accept", first) == 0
    assert f"accepted {first}" in capsys.readouterr().out
    assert (copy / "edges.yaml").is_file()
    assert etki("index", "suggest", "demo", "--accept", "s-ffffffff") == 2
    assert "s-ffffffff" in capsys.readouterr().err


def test_unknown_project_and_missing_folder(env: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert etki("index", "show", "nosuch") == 2
    assert "no project 'nosuch'" in capsys.readouterr().err
    assert etki("index", "show", "./missing") == 2
    assert "no such project folder" in capsys.readouterr().err
