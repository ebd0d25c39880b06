"""The declared remit (issue 10 item 4): ``etki.yaml`` ``scope: {in: [...], out: [...]}``
statements a PMO writes, loaded as clauses of their own (``etki.yaml#out-1``), indexed,
cited by triage, projected into the wiki and shown in the desk — every error naming
``etki.yaml``, the line and the field; every statement shown as plain text.

Real files, a real SQLite store, real ``etki`` subprocesses; nothing mocked."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest

from etki.config import Settings
from etki.domain import REMIT_CONTRACT_ID, is_declared_remit
from etki.errors import ProjectFormatError
from etki.knowledge import build_index, load_project
from etki.knowledge.loader import MAX_REMIT_CHARS
from etki.services import Desk
from etki.wiki.projection import WikiProjector
from tests.cli_support import run_etki
from tests.remit_support import (
    ETKI_YAML,
    GERMAN_NFD,
    HOSTILE,
    OUT_WEBSITE,
    REQUEST_TRAINING,
    REQUEST_WEBSITE,
    line_of,
    write_remit_project,
)
from tests.wiki_support import tree_digest

SAMPLE = Path(__file__).resolve().parents[1] / "sample_project"
BASE = "id: lib\nname: City library bookings\n"


# --- loading ----------------------------------------------------------------------------


def test_statements_become_clauses_of_the_remit_contract(tmp_path: Path) -> None:
    project = load_project(write_remit_project(tmp_path))
    assert [c.id for c in project.contracts] == ["LIB-1", REMIT_CONTRACT_ID]
    remit = project.contracts[-1]
    assert (remit.title, remit.source, remit.chunking) == (
        "Declared remit",
        "etki.yaml",
        "declared",
    )
    # file order (out is written before in), numbered per list from 1
    assert [c.ref for c in remit.clauses] == [
        "etki.yaml#out-1",
        "etki.yaml#out-2",
        "etki.yaml#in-1",
    ]
    out1, out2, in1 = remit.clauses
    assert (out1.contract_id, out1.number, out1.kind, out1.source) == (
        "etki.yaml",
        "out-1",
        "exclusion",
        "etki.yaml",
    )
    assert out1.title == "Declared remit (out) 1" and in1.title == "Declared remit (in) 1"
    assert in1.kind == "inclusion"
    assert out1.text == OUT_WEBSITE
    assert out2.text == HOSTILE  # markup and the escape kept as written (it is text)
    assert in1.text == GERMAN_NFD  # NFD kept as written, like contract text
    assert out1.line == line_of(ETKI_YAML, "Press Office")
    assert out2.line == line_of(ETKI_YAML, "Belediye")
    assert in1.line == line_of(ETKI_YAML, "Wartung")
    assert out1.edges == () and out1.parent is None
    assert all(is_declared_remit(c) for c in remit.clauses)
    assert not any(is_declared_remit(c) for c in project.contracts[0].clauses)
    assert project.clauses[-3:] == remit.clauses


@pytest.mark.parametrize(
    "scope",
    ["", "scope:\n", "scope:\n  out: []\n  in:\n", "scope: {}\n"],
    ids=["absent", "null", "empty-lists", "empty-mapping"],
)
def test_nothing_declared_means_no_remit_contract(tmp_path: Path, scope: str) -> None:
    project = load_project(write_remit_project(tmp_path, etki_yaml=BASE + scope))
    assert [c.id for c in project.contracts] == ["LIB-1"]


def test_sample_project_declares_no_remit() -> None:
    assert REMIT_CONTRACT_ID not in {c.id for c in load_project(SAMPLE).contracts}


def _error(tmp_path: Path, scope: str) -> ProjectFormatError:
    root = write_remit_project(tmp_path, etki_yaml=BASE + scope)
    with pytest.raises(ProjectFormatError) as info:
        load_project(root)
    return info.value


LONG = "word " * 120  # 600 characters


@pytest.mark.parametrize(
    ("scope", "field", "line", "problem"),
    [
        (
            "scope: [a, b]\n",
            "scope",
            3,
            "must be a mapping with 'in' and/or 'out' lists of statements, not a list",
        ),
        ("scope: our remit\n", "scope", 3, "not a string"),
        (
            "scope:\n  out: [a]\n  maybe: [b]\n",
            "scope.maybe",
            5,
            "unknown key; allowed keys: in, out",
        ),
        (
            "scope:\n  out: the website is not ours\n",
            "scope.out",
            4,
            "must be a list of statements (one '- ...' item each), not a string",
        ),
        ("scope:\n  in: {a: b}\n", "scope.in", 4, "must be a list of statements"),
        (
            "scope:\n  out:\n    - fine\n    - ''\n",
            "scope.out[1]",
            6,
            "must be a non-empty string (statement out-2)",
        ),
        (
            "scope:\n  out:\n    - fine\n    - ok\n    - '   '\n",
            "scope.out[2]",
            7,
            "must be a non-empty string (statement out-3)",
        ),
        (
            "scope:\n  out:\n    -\n",
            "scope.out[0]",
            5,
            "must be a non-empty string (statement out-1)",
        ),
        (
            "scope:\n  in:\n    - 42\n",
            "scope.in[0]",
            5,
            "must be a non-empty string, not a number (statement in-1)",
        ),
        (
            "scope:\n  in:\n    - fine\n    - {a: b}\n",
            "scope.in[1]",
            6,
            "must be a non-empty string, not a mapping (statement in-2)",
        ),
        ("scope:\n  in:\n    - [a]\n", "scope.in[0]", 5, "not a list (statement in-1)"),
        (
            f"scope:\n  out:\n    - {LONG}\n",
            "scope.out[0]",
            5,
            f"statement out-1 is 599 characters; at most {MAX_REMIT_CHARS}",
        ),
        (
            (
                "scope:\n  out:\n    - Die Straße gehört nicht dazu\n"
                "    - DIE STRASSE GEHÖRT NICHT DAZU\n"
            ),
            "scope.out[1]",
            6,
            "statement out-2 repeats out-1",
        ),
        (
            "scope:\n  out:\n    - İzmir ofisi kapsam dışıdır\n  in:\n    - i̇zmir ofisi  kapsam dışıdır\n",
            "scope.out[0]",
            5,
            "statement out-1 repeats in-1 (declared both in and out of scope)",
        ),
    ],
    ids=[
        "list",
        "string",
        "unknown-key",
        "out-string",
        "in-mapping",
        "empty-string",
        "blank-string",
        "null-item",
        "number-item",
        "mapping-item",
        "list-item",
        "too-long",
        "repeated-ss",
        "in-and-out-turkish",
    ],
)
def test_malformed_scope_names_file_line_and_field(
    tmp_path: Path, scope: str, field: str, line: int, problem: str
) -> None:
    err = _error(tmp_path, scope)
    assert Path(err.path).name == "etki.yaml"
    assert err.field == field and err.line == line
    assert problem in err.problem
    assert f"etki.yaml:{line}: field '{field}' {err.problem}" in str(err)


def test_length_is_counted_in_nfc_characters(tmp_path: Path) -> None:
    """An NFD statement is not charged for its combining marks: 500 ``ü`` (1000 code
    points in NFD) load, 501 do not."""
    ok = unicodedata.normalize("NFD", "ü" * MAX_REMIT_CHARS)
    assert len(ok) == 2 * MAX_REMIT_CHARS
    scope = f"scope:\n  out:\n    - {ok}\n"
    project = load_project(write_remit_project(tmp_path, etki_yaml=BASE + scope))
    assert project.contracts[-1].clauses[0].text == ok
    err = _error(tmp_path, f"scope:\n  out:\n    - {ok}ü\n")
    assert f"is {MAX_REMIT_CHARS + 1} characters" in err.problem


def test_unknown_top_level_key_lists_scope(tmp_path: Path) -> None:
    err = _error(tmp_path, "scoep:\n  out: [a]\n")
    assert err.field == "scoep" and "scope" in err.problem


def test_a_contract_document_cannot_take_the_remit_id(tmp_path: Path) -> None:
    root = write_remit_project(tmp_path)
    (root / "contracts" / "etki.yaml.md").write_text(
        "# Notes\n\n## 1 Scope\n\nText.\n", encoding="utf-8"
    )
    with pytest.raises(ProjectFormatError) as info:
        load_project(root)
    assert info.value.path.endswith("etki.yaml.md") and info.value.field == "id"
    assert "reserved for the declared remit" in info.value.problem
    (root / "contracts" / "etki.yaml.md").write_text(
        "---\nid: ETKI.YAML\n---\n# N\n\nT.\n", encoding="utf-8"
    )
    with pytest.raises(ProjectFormatError, match="reserved for the declared remit"):
        load_project(root)


# --- the knowledge index ----------------------------------------------------------------


def test_index_holds_the_remit_clauses_with_kind_and_ref(tmp_path: Path) -> None:
    project = load_project(write_remit_project(tmp_path))
    index = build_index(project)
    out1 = index.node("clause:etki.yaml#out-1")
    in1 = index.node("clause:etki.yaml#in-1")
    assert out1 is not None and in1 is not None
    assert (
        out1.get("ref"),
        out1.get("kind"),
        out1.get("contract"),
        out1.get("number"),
        out1.get("source"),
        out1.get("line"),
    ) == (
        "etki.yaml#out-1",
        "exclusion",
        "etki.yaml",
        "out-1",
        "etki.yaml",
        line_of(ETKI_YAML, "Press Office"),
    )
    assert (in1.get("kind"), in1.text) == ("inclusion", GERMAN_NFD)
    assert out1.title == "Declared remit (out) 1" and out1.text == OUT_WEBSITE
    # after the document's clauses in project order
    seqs = {n.id: n.get("seq") for n in index.nodes_of("clause")}
    assert max(v for k, v in seqs.items() if "LIB-1" in k) < seqs["clause:etki.yaml#out-1"]
    entry = next(c for c in index.contracts if c.id == REMIT_CONTRACT_ID)
    assert (entry.source, entry.chunking, entry.clauses) == ("etki.yaml", "declared", 3)
    assert build_index(load_project(tmp_path)).to_bytes() == index.to_bytes()
    assert not [e for e in index.edges if "etki.yaml#" in e.source + e.target]


def _etki(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_etki([*args], env=env, cwd=cwd)  # in this process: tests/cli_support.py


@pytest.fixture
def cli_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ETKI_")}
    env.update(
        ETKI_DB_URL=f"sqlite:///{tmp_path}/etki.db",
        ETKI_REVIEWER="reviewer",
        ETKI_WIKI_DIR=str(tmp_path / "wiki-{project}"),
        PYTHONIOENCODING="utf-8",
    )
    return env


def test_index_show_counts_the_declared_remit(tmp_path: Path, cli_env: dict[str, str]) -> None:
    root = write_remit_project(tmp_path / "lib")
    shown = _etki("index", "show", str(root), env=cli_env, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert "  declared remit (etki.yaml scope): 1 in, 2 out (refs etki.yaml#in-N, #out-N)" in lines
    clauses = len(load_project(root).clauses)
    assert f"  {clauses} clauses, 0 chunks, 0 modules, 0 work items" in lines
    assert not any(line.startswith("  contract etki.yaml") for line in lines)


# --- triage -----------------------------------------------------------------------------


def test_triage_cites_an_out_statement_like_any_clause(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    root = write_remit_project(tmp_path / "lib")
    init = _etki("init", str(root), env=cli_env, cwd=tmp_path)
    assert init.returncode == 0, init.stderr
    assert "  declared remit: 1 in, 2 out (etki.yaml scope)" in init.stdout.splitlines()
    assert "  knowledge: 1 contract," in init.stdout
    got = _etki("triage", "--project", "lib", "--json", REQUEST_WEBSITE, env=cli_env, cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    decision = json.loads(got.stdout)
    assert "etki.yaml#out-1" in decision["cited_clauses"]
    text = _etki("triage", "--project", "lib", REQUEST_WEBSITE, env=cli_env, cwd=tmp_path)
    assert re.search(r"^clauses\s+.*etki\.yaml#out-1", text.stdout, re.M), text.stdout
    desk = Desk(Settings(db_url=cli_env["ETKI_DB_URL"], wiki_dir=None, reviewer="reviewer"))
    try:
        stored = desk.clauses("lib")["etki.yaml#out-1"]  # as stored, read back from the DB
        assert (stored.kind, stored.text, stored.line) == (
            "exclusion",
            OUT_WEBSITE,
            line_of(ETKI_YAML, "Press Office"),
        )
    finally:
        desk.repo.dispose()


# --- the wiki ---------------------------------------------------------------------------


def test_wiki_projects_remit_clauses_and_rebuilds_identically(tmp_path: Path) -> None:
    root = write_remit_project(
        tmp_path / "lib",
        requests=(
            ("R-1", "Website news", REQUEST_WEBSITE),
            ("R-2", "Personel eğitimi", REQUEST_TRAINING),
        ),
    )
    settings = Settings(
        db_url=f"sqlite:///{tmp_path}/etki.db",
        wiki_dir=str(tmp_path / "wiki-{project}"),
        reviewer="reviewer",
    )
    desk = Desk(settings)
    try:
        from etki.services import init_project

        init_project(root, desk.repo, settings)
        cases = {c.request_id: c for c in desk.queue("lib")}
        assert "etki.yaml#out-2" in cases["R-2"].decision.cited_clauses
        assert "etki.yaml#out-1" in cases["R-1"].decision.cited_clauses
        desk.rule(cases["R-1"].case_id, "reject")
        desk.rule(cases["R-2"].case_id, "approve", reason="agreed in the steering group")
        wiki = tmp_path / "wiki-lib"
        page = (wiki / "entities/contracts/etki.yaml.md").read_text(encoding="utf-8")
        assert "# Contract: Declared remit" in page
        assert "the PMO's declared remit, the scope statements of etki.yaml" in page
        assert "## etki.yaml#out-1 — Declared remit (out) 1" in page
        assert (
            f"Declared remit: a statement the PMO wrote in etki.yaml (scope.out, line "
            f"{line_of(ETKI_YAML, 'Belediye')}), not contract text."
        ) in page
        # the statement verbatim in a text fence: no markup, the escape made visible
        assert f"```text\n{OUT_WEBSITE}\n```" in page
        assert "```text\n[bold]x[/] ␛[2J Belediye personelinin eğitimi" in page
        assert "\x1b" not in page
        decision = next((wiki / "decisions").glob(f"*{cases['R-2'].case_id}.md"))
        assert "(exclusion, the PMO's declared remit in etki.yaml)" in decision.read_text(
            encoding="utf-8"
        )
        index = (wiki / "index.md").read_text(encoding="utf-8")
        assert "[Declared remit](entities/contracts/etki.yaml.md)" in index
        by_hook = tree_digest(wiki)
        projector = WikiProjector(desk.repo, settings)
        report = projector.rebuild("lib")["lib"]
        assert report.written == () and report.removed == ()
        shutil.rmtree(wiki)
        projector.rebuild("lib")
        assert tree_digest(wiki) == by_hook
        assert projector.verify("lib") == []
    finally:
        desk.repo.dispose()
