"""etki.knowledge.loader: project folders on disk -> Project, and every error naming
file, line and field."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from etki.domain import Project, Reviewer
from etki.errors import ProjectFormatError, VocabularyError
from etki.knowledge import load_project

SHARED = Path(__file__).resolve().parents[2] / "shared"
TDRS = SHARED / "realdata" / "tdrs"
SAMPLE = Path(__file__).resolve().parents[1] / "sample_project"

ETKI_YAML = """id: demo
name: Demo portal
languages: [en, tr]
reviewers:
  - name: Ayşe Yılmaz
    role: approver
  - name: Jürgen
    role: viewer
"""
CONTRACT = """---
id: MSA
title: "Master agreement: demo"
---
# MSA

Intro.

## 1 Scope

### 1.1 Login

Users sign in with [[module:auth]].

## 2 Out of scope

### 2.1 Mobile apps

No native apps.
"""
MODULES = """- id: core
  path: src/core/
  summary: Core helpers
- id: auth
  path: src/auth/
  summary: Login and sessions
  depends_on: [core]
  language: python
- id: web
  summary: Web front end
  depends_on: [auth, core]
"""
WORKITEMS = {
    "source": {"tracker": "demo"},
    "workitems": [
        {
            "id": "WI-2",
            "title": "Login page",
            "kind": "feature",
            "date": "2024-02-01",
            "modules": ["auth", "web"],
            "effort_days": 3,
            "extra": "ignored",
        },
        {
            "id": "WI-1",
            "title": "Skeleton",
            "kind": "chore",
            "date": "2024-01-01",
            "modules": ["core"],
        },
    ],
}
REQUESTS = [
    {
        "id": "R-2",
        "text": "Please add SSO",
        "title": "SSO",
        "submitted_by": "Ayşe",
        "submitted_at": "2024-03-01T10:00:00Z",
        "labels": {"verdict": "CHANGE_REQUEST", "clauses": ["1.1"]},
    },
    {"id": "R-1", "text": "Mobil uygulama istiyoruz", "borderline": True},
]


def write_project(root: Path, files: dict[str, str | None] | None = None) -> Path:
    """A complete project folder in ``root``; ``files`` overrides (None deletes)."""
    contents: dict[str, str | None] = {
        "etki.yaml": ETKI_YAML,
        "contracts/msa.md": CONTRACT,
        "modules.yaml": MODULES,
        "workitems.json": json.dumps(WORKITEMS, indent=1),
        "requests.jsonl": "\n".join(json.dumps(r, ensure_ascii=False) for r in REQUESTS) + "\n",
    }
    contents.update(files or {})
    for name, text in contents.items():
        if text is None:
            continue
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def load_error(root: Path) -> ProjectFormatError:
    with pytest.raises(ProjectFormatError) as info:
        load_project(root)
    return info.value


# --- loading --------------------------------------------------------------------------


def test_full_project_loads(tmp_path: Path) -> None:
    project = load_project(write_project(tmp_path))
    assert isinstance(project, Project) and project.id == "demo" and project.root == tmp_path
    assert project.config.languages == ("en", "tr")
    assert project.config.reviewers == (
        Reviewer("Ayşe Yılmaz", "approver"),
        Reviewer("Jürgen", "viewer"),
    )
    assert [m.id for m in project.modules] == ["core", "auth", "web"]  # file order
    assert project.modules[2].depends_on == ("auth", "core")
    assert project.modules[1].language == "python" and project.modules[0].language is None
    assert [w.id for w in project.workitems] == ["WI-2", "WI-1"]
    assert project.workitems[0].effort_days == 3.0 and project.workitems[1].effort_days is None
    assert project.workitems[0].modules == ("auth", "web")
    [contract] = project.contracts
    assert (contract.id, contract.title, contract.source) == (
        "MSA",
        "Master agreement: demo",
        "contracts/msa.md",
    )
    assert [(c.number, c.kind) for c in project.clauses] == [
        ("msa", "context"),
        ("1.1", "inclusion"),
        ("2.1", "exclusion"),
    ]  # preamble
    first, second = project.requests
    assert (first.id, first.title, first.submitted_by, first.line) == ("R-2", "SSO", "Ayşe", 1)
    assert first.labels_json == '{"clauses":["1.1"],"verdict":"CHANGE_REQUEST"}'
    assert second.labels_json == '{"borderline":true}' and second.line == 2
    assert ("requires", "depends_on") in project.edge_types
    assert ("depends_on", "depends_on") in project.edge_types


def test_minimal_project_is_config_and_one_contract(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        {
            "etki.yaml": "id: x\nname: X\n",
            "modules.yaml": None,
            "workitems.json": None,
            "requests.jsonl": None,
        },
    )
    project = load_project(tmp_path)
    assert project.config.languages == ("en",) and project.config.reviewers == ()
    assert project.modules == () and project.workitems == () and project.requests == ()
    assert len(project.contracts) == 1


def test_wrapped_modules_json_and_plain_workitems_yaml(tmp_path: Path) -> None:
    modules = {
        "source": {"repository": "x"},
        "module_count": 2,
        "modules": [{"id": "a", "depends_on": []}, {"id": "b", "depends_on": ["a"]}],
    }
    write_project(
        tmp_path,
        {
            "modules.yaml": None,
            "modules.json": json.dumps(modules),
            "workitems.json": None,
            "workitems.yaml": "- id: W1\n  title: T\n  date: 2024-01-05\n  modules: [b]\n"
            "  effort_days: 0.5\n",
        },
    )
    project = load_project(tmp_path)
    assert [m.id for m in project.modules] == ["a", "b"]
    assert project.workitems[0].date == "2024-01-05"  # a string, never a date object
    assert project.workitems[0].effort_days == 0.5


def test_edge_vocabulary_file_adds_types(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        {
            "edge_vocabulary.yaml": "types:\n  funds: [pays_for]\naliases:\n  blocks: depends_on\n",
            "contracts/msa.md": CONTRACT.replace("[[module:auth]]", "[[pays_for::module:auth]]"),
        },
    )
    project = load_project(tmp_path)
    assert ("pays_for", "funds") in project.edge_types
    assert ("blocks", "depends_on") in project.edge_types
    [edge] = project.clauses[1].edges
    assert (edge.target, edge.type) == ("module:auth", "funds")


# --- errors: each names file, line and field ------------------------------------------


def test_malformed_etki_yaml(tmp_path: Path) -> None:
    write_project(tmp_path, {"etki.yaml": "id: demo\nname: Demo: portal\n"})
    err = load_error(tmp_path)
    assert err.path.endswith("etki.yaml") and err.line == 2 and err.field == "name"
    assert "etki.yaml:2" in str(err) and "'name'" in str(err)


def test_missing_etki_yaml(tmp_path: Path) -> None:
    write_project(tmp_path, {"etki.yaml": None})
    err = load_error(tmp_path)
    assert "etki.yaml" in str(err) and "required" in str(err)


def test_missing_contracts(tmp_path: Path) -> None:
    write_project(tmp_path, {"contracts/msa.md": None})
    err = load_error(tmp_path)
    assert err.path.endswith("contracts") and "contracts/*.md" in str(err)
    (tmp_path / "contracts").mkdir(exist_ok=True)
    (tmp_path / "contracts" / "notes.txt").write_text("not markdown", encoding="utf-8")
    assert "no contracts" in str(load_error(tmp_path))


def test_bad_json_line_in_requests(tmp_path: Path) -> None:
    """A malformed row is refused alone, named by file and line; the others load."""
    lines = [json.dumps(r) for r in REQUESTS] + ['{"id": "R-3", "text": "broken"']
    write_project(tmp_path, {"requests.jsonl": "\n".join(lines) + "\n"})
    project = load_project(tmp_path)
    assert [r.id for r in project.requests] == [r["id"] for r in REQUESTS]
    [message] = project.refused
    assert "requests.jsonl:3" in message and "malformed JSON" in message


def test_request_field_errors_name_line_and_field(tmp_path: Path) -> None:
    """Each kind of unstorable row is refused with its line, field and what is wrong,
    and the good row before it still loads (issue 14 item 1)."""
    cases = [
        ('{"id": "R-9", "text": "   "}', "'text'", "empty"),
        ('{"id": "R-9"}', "'text'", "required"),
        ('{"text": "x"}', "'id'", "required"),
        ('{"id": "R-2", "text": "again"}', "'id'", "duplicate request id"),
        ('{"id": "R-9", "text": "x", "title": 5}', "'title'", "string"),
        ('["not", "an", "object"]', "", "JSON object"),
        ('{"id": "R-9", "text": "a\\u0000b"}', "'text'", ""),
    ]
    for line, field, words in cases:
        body = json.dumps(REQUESTS[0]) + "\n\n" + line + "\n"
        write_project(tmp_path, {"requests.jsonl": body})
        project = load_project(tmp_path)
        assert [r.id for r in project.requests] == ["R-2"], line
        [message] = project.refused
        assert "requests.jsonl:3:" in message and words in message, (line, message)
        assert (f"field {field}" in message) if field else ("field '" not in message), message


def test_one_bad_row_keeps_no_good_row_out(tmp_path: Path) -> None:
    """Good rows around bad ones all load, in file order; each bad one is named once."""
    rows = [
        json.dumps({"id": "A", "text": "first"}),
        '{"id": "B", "text": "nul \\u0000 inside"}',
        json.dumps({"id": "C", "text": "third"}),
        "{not json",
        json.dumps({"id": "A", "text": "the id again"}),
        json.dumps({"id": "D", "text": "fourth"}),
    ]
    write_project(tmp_path, {"requests.jsonl": "\n".join(rows) + "\n"})
    project = load_project(tmp_path)
    assert [r.id for r in project.requests] == ["A", "C", "D"]
    assert [r.line for r in project.requests] == [1, 3, 6]
    assert [m.split(".jsonl:")[1].split(":")[0] for m in project.refused] == ["2", "4", "5"]
    assert "first on line 1" in project.refused[2]


def test_depends_on_unknown_module(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        {"modules.yaml": MODULES.replace("depends_on: [auth, core]", "depends_on: [auth, ghost]")},
    )
    err = load_error(tmp_path)
    assert err.path.endswith("modules.yaml") and err.line == 11
    assert err.field == "modules[2].depends_on[1]" and "'ghost'" in str(err)
    assert "modules.yaml:11" in str(err) and "modules[2].depends_on" in str(err)


def test_depends_on_unknown_module_in_json(tmp_path: Path) -> None:
    modules = {"modules": [{"id": "a", "depends_on": []}, {"id": "b", "depends_on": ["a", "nope"]}]}
    write_project(tmp_path, {"modules.yaml": None, "modules.json": json.dumps(modules, indent=1)})
    err = load_error(tmp_path)
    assert err.field == "modules[1].depends_on[1]" and err.line is not None
    text = (tmp_path / "modules.json").read_text(encoding="utf-8").split("\n")
    assert '"nope"' in text[err.line - 1]


def test_wrong_reviewer_role(tmp_path: Path) -> None:
    write_project(tmp_path, {"etki.yaml": ETKI_YAML.replace("role: viewer", "role: boss")})
    err = load_error(tmp_path)
    assert err.path.endswith("etki.yaml") and err.line == 8 and err.field == "reviewers[1].role"
    assert "etki.yaml:8" in str(err) and "'boss'" in str(err) and "approver" in str(err)


@pytest.mark.parametrize(
    "files, name, line, field, words",
    [
        (
            {"etki.yaml": "id: demo\nname: D\nreviwers: []\n"},
            "etki.yaml",
            3,
            "reviwers",
            "unknown key",
        ),
        ({"etki.yaml": "name: D\n"}, "etki.yaml", 1, "id", "required"),
        ({"etki.yaml": "id: 'a/b'\nname: D\n"}, "etki.yaml", 1, "id", "project id"),
        (
            {"etki.yaml": "id: d\nname: D\nthresholds:\n  x: high\n"},
            "etki.yaml",
            3,
            "thresholds",
            "no longer part of etki.yaml",
        ),
        (
            {"etki.yaml": "id: d\nname: D\nreviewers:\n  - role: approver\n"},
            "etki.yaml",
            4,
            "reviewers[0].name",
            "required",
        ),
        (
            {"modules.yaml": MODULES + "- id: core\n"},
            "modules.yaml",
            12,
            "modules[3].id",
            "duplicate module id",
        ),
        (
            {"modules.yaml": MODULES.replace("[auth, core]", "[web]")},
            "modules.yaml",
            11,
            "modules[2].depends_on[0]",
            "depends on itself",
        ),
        (
            {"modules.yaml": MODULES.replace("depends_on: [core]", "depends_on: core")},
            "modules.yaml",
            7,
            "modules[1].depends_on",
            "list",
        ),
        (
            {"modules.yaml": "- id: a\n  summary: [1, 2\n"},
            "modules.yaml",
            3,
            None,
            "malformed YAML",
        ),
        (
            {"modules.yaml": None, "modules.json": '[{"id": "a"},\n {"id": "b",}]'},
            "modules.json",
            2,
            None,
            "malformed JSON",
        ),
        (
            {
                "workitems.json": None,
                "workitems.yaml": "- id: W1\n  title: T\n  modules: [core, nowhere]\n",
            },
            "workitems.yaml",
            3,
            "workitems[0].modules[1]",
            "unknown module 'nowhere'",
        ),
        (
            {"workitems.json": None, "workitems.yaml": "- id: W1\n  title: T\n  effort_days: -2\n"},
            "workitems.yaml",
            3,
            "workitems[0].effort_days",
            "non-negative",
        ),
        (
            {
                "workitems.json": None,
                "workitems.yaml": "- id: W1\n  title: T\n  effort_days: '3'\n",
            },
            "workitems.yaml",
            3,
            "workitems[0].effort_days",
            "non-negative",
        ),
        (
            {"workitems.json": None, "workitems.yaml": "- id: W1\n  kind: fix\n"},
            "workitems.yaml",
            1,
            "workitems[0].title",
            "required",
        ),
        (
            {
                "workitems.json": None,
                "workitems.yaml": "workitems:\n  - id: W1\n    title: T\n"
                "  - id: W1\n    title: U\n",
            },
            "workitems.yaml",
            4,
            "workitems[1].id",
            "duplicate",
        ),
        (
            {"contracts/msa.md": "---\ntitle: a: b\n---\n# A\n"},
            "msa.md",
            2,
            "title",
            "malformed YAML",
        ),
        (
            {"contracts/other.md": "---\nid: MSA\n---\n# B\n\nx\n"},
            "other.md",
            None,
            "id",
            "already used",
        ),
        (
            {"edge_vocabulary.yaml": "aliases:\n  blocks: nothing_known\n"},
            "edge_vocabulary.yaml",
            2,
            "aliases.blocks",
            "not an edge type",
        ),
    ],
)
def test_file_errors(
    tmp_path: Path,
    files: dict[str, str | None],
    name: str,
    line: int | None,
    field: str | None,
    words: str,
) -> None:
    err = load_error(write_project(tmp_path, files))
    assert Path(err.path).name == name
    assert (err.line, err.field) == (line, field)
    assert words in str(err)
    if line is not None:
        assert f"{name}:{line}" in str(err)


def test_two_module_files_are_ambiguous(tmp_path: Path) -> None:
    write_project(tmp_path, {"modules.json": "[]"})
    assert "only one modules file" in str(load_error(tmp_path))


def test_not_utf8(tmp_path: Path) -> None:
    write_project(tmp_path)
    (tmp_path / "modules.yaml").write_bytes(b"- id: a\n  summary: caf\xe9\n")
    err = load_error(tmp_path)
    assert err.line == 2 and "UTF-8" in str(err)


def test_unknown_edge_type_in_contract_is_a_vocabulary_error(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        {"contracts/msa.md": CONTRACT.replace("[[module:auth]]", "[[frobs::module:auth]]")},
    )
    with pytest.raises(VocabularyError) as info:
        load_project(tmp_path)
    assert isinstance(info.value, ProjectFormatError) and info.value.line == 13
    assert "allowed types" in str(info.value)


def test_error_in_the_last_file_still_loads_nothing(tmp_path: Path) -> None:
    """edges.yaml is read last: an error there still refuses the whole folder (only
    requests.jsonl refuses row by row)."""
    write_project(tmp_path, {"edges.yaml": "edges: [\n"})
    err = load_error(tmp_path)
    assert err.path.endswith("edges.yaml")


def test_not_a_folder(tmp_path: Path) -> None:
    assert "no such directory" in str(load_error(tmp_path / "missing"))


# --- real folders ---------------------------------------------------------------------


@pytest.mark.skipif(not TDRS.is_dir(), reason="../shared/realdata/tdrs is absent")
def test_tdrs_loads() -> None:
    project = load_project(TDRS)
    assert project.id == "tdrs"
    assert (len(project.modules), len(project.workitems), len(project.requests)) == (248, 200, 30)
    assert sum(len(m.depends_on) for m in project.modules) == 774
    assert sum(1 for w in project.workitems if not w.modules) == 55
    assert [c.chunking for c in project.contracts] == ["by_heading"]
    assert len(project.clauses) >= 50
    labels = json.loads(project.requests[0].labels_json or "{}")
    assert labels["clauses"] == ["2.2", "3.1.2"] and labels["borderline"] is False


@pytest.mark.skipif(not TDRS.is_dir(), reason="../shared/realdata/tdrs is absent")
def test_tdrs_copy_with_crlf_loads_the_same(tmp_path: Path) -> None:
    copy = tmp_path / "tdrs"
    shutil.copytree(TDRS, copy)
    contract = copy / "contracts" / "tdrs-rfq.md"
    contract.chmod(0o644)
    contract.write_bytes(b"\xef\xbb\xbf" + contract.read_bytes().replace(b"\n", b"\r\n"))
    original, crlf = load_project(TDRS), load_project(copy)
    assert original.clauses == crlf.clauses


@pytest.mark.skipif(not (SAMPLE / "etki.yaml").is_file(), reason="sample_project not there yet")
def test_sample_project_loads() -> None:
    project = load_project(SAMPLE)
    kinds = {c.kind for c in project.clauses}
    assert {"inclusion", "exclusion", "assumption"} <= kinds
    assert all(c.chunking == "by_heading" for c in project.contracts)
    assert len(project.clauses) >= 25 and len(project.modules) >= 30
    assert len(project.workitems) >= 40 and len(project.requests) >= 30
    assert any(r.role == "approver" for r in project.config.reviewers)
    assert len({c.ref for c in project.clauses}) == len(project.clauses)


def test_reviewer_names_are_nfc_and_an_nfd_twin_is_listed_twice(tmp_path):
    """Issue 11 item 9: ``Ju\\u0308rgen`` is ``Jürgen`` (NFC, ends stripped, case kept)."""
    folder = tmp_path / "p"
    (folder / "contracts").mkdir(parents=True)
    (folder / "contracts" / "msa.md").write_text(CONTRACT, encoding="utf-8")
    (folder / "etki.yaml").write_text(
        "id: demo\nname: Demo\nreviewers:\n  - name: '  Ju\u0308rgen '\n", encoding="utf-8"
    )
    assert load_project(folder).config.reviewers == (Reviewer("J\u00fcrgen", "approver"),)
    (folder / "etki.yaml").write_text(
        "id: demo\nname: Demo\nreviewers:\n  - name: J\u00fcrgen\n  - name: Ju\u0308rgen\n"
        "  - name: j\u00fcrgen\n",
        encoding="utf-8",
    )
    with pytest.raises(ProjectFormatError, match="listed twice") as err:
        load_project(folder)
    assert "reviewers[1].name" in str(err.value)


@pytest.mark.parametrize(
    "block",
    [
        "thresholds:\n  pmo_look_hours: 48\n",  # a threshold that still showed 24h
        "thresholds:\n  in_scope_min_score: 0.99\n",  # one that changed no verdict
        "thresholds:\n  no_such_threshold: 1\n",  # an unknown name
    ],
)
def test_thresholds_are_refused_with_their_line_by_etki_init(tmp_path: Path, block: str) -> None:
    """Issue 30 item 7: ``thresholds`` were validated, stored and never read. They are no
    longer part of ``etki.yaml``: ``etki init`` refuses them with file and line, exit 2,
    and stores nothing."""
    from tests.cli_support import run_etki

    root = write_project(tmp_path / "p", {"etki.yaml": ETKI_YAML + "# tuning\n" + block})
    line = (ETKI_YAML + "# tuning\n").count("\n") + 1
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "ETKI_DB_URL": f"sqlite:///{tmp_path / 'etki.db'}",
        "ETKI_WIKI_DIR": "",
    }
    done = run_etki(["init", str(root)], env=env, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"etki.yaml:{line}: field 'thresholds' is no longer part of etki.yaml" in done.stderr
    assert "remove the 'thresholds' block" in done.stderr
    assert done.stdout == ""
    listed = run_etki(["projects"], env=env, cwd=tmp_path)
    assert "demo" not in listed.stdout
