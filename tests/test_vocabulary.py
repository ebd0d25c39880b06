"""The edge vocabulary (issue 4 item 5): the shipped default file, inverses, endpoint
signatures, en/tr/de aliases, unknown types rejected with the allowed list."""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

import pytest

from etki.errors import ProjectFormatError, VocabularyError
from etki.knowledge import build_index, load_project
from etki.knowledge import loader as loader_module
from etki.knowledge.contracts import parse_contract_text
from etki.knowledge.vocabulary import (
    DEFAULT_VOCABULARY,
    EdgeSignatureError,
    UnknownEdgeTypeError,
    load_vocabulary,
)

ROOT = Path(__file__).resolve().parents[1]


def test_default_vocabulary_is_the_shipped_file_loaded_once() -> None:
    shipped = resources.files("etki.knowledge").joinpath("default_vocabulary.yaml")
    assert shipped.is_file()
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "default_vocabulary.yaml" in data["tool"]["setuptools"]["package-data"]["etki.knowledge"]
    # one object, built at import, shared by the loader
    assert loader_module.DEFAULT_VOCABULARY is DEFAULT_VOCABULARY


def test_canonical_types_inverses_and_signatures() -> None:
    v = DEFAULT_VOCABULARY
    pairs = {
        ("depends_on", "depended_by"),
        ("maps_to", "mapped_by"),
        ("touches", "touched_by"),
        ("supersedes", "superseded_by"),
        ("caused_by", "causes"),
        ("precedes", "follows"),
        ("excludes", "excluded_by"),
    }
    for forward, backward in pairs:
        assert v.inverse(forward) == backward and v.inverse(backward) == forward
        assert forward in v.types and backward in v.types
        assert backward in v.reversed_names and forward not in v.reversed_names
    assert v.inverse("relates_to") == "relates_to"
    assert v.signature("maps_to") == (("clause", "module"),)
    assert v.signature("touches") == (("workitem", "module"),)
    assert v.allows("maps_to", "chunk", "module")
    assert not v.allows("maps_to", "module", "clause")
    assert v.allows("relates_to", "workitem", "clause")


@pytest.mark.parametrize(
    "name",
    [
        "requires",
        "needs",
        "gerektirir",
        "benötigt",
        "BENÖTIGT",
        "Benötigt",
        "bağımlı",
        "erfordert",
        "Depends-On",
        "ihtiyaç duyar",
    ],
)
def test_aliases_in_three_languages(name: str) -> None:
    assert DEFAULT_VOCABULARY.canonical(name) == "depends_on"


def test_inverse_aliases_and_orientation() -> None:
    v = DEFAULT_VOCABULARY
    assert v.canonical("required_by") == "depended_by"
    assert v.orient("module:a", "module:b", "depended_by") == ("module:b", "module:a", "depends_on")
    assert v.orient("module:a", "module:b", "depends_on") == ("module:a", "module:b", "depends_on")
    assert v.checked("module:x", "clause:MSA#1", "mapped_by") == (
        "clause:MSA#1",
        "module:x",
        "maps_to",
    )


def test_unknown_type_is_rejected_with_every_allowed_type() -> None:
    with pytest.raises(VocabularyError) as info:
        DEFAULT_VOCABULARY.canonical("blocks")
    message = str(info.value)
    assert "'blocks'" in message and "allowed types:" in message
    for name in DEFAULT_VOCABULARY.types:
        assert name in message


def test_signature_violation_in_a_contract_is_an_error_with_file_and_line() -> None:
    text = "# A\n\nintro\n\n## 1 Scope\n\nWe use [[touches::module:auth]] here.\n"
    with pytest.raises(EdgeSignatureError) as info:
        parse_contract_text(text, path="contracts/a.md", module_ids={"auth"})
    err = info.value
    assert isinstance(err, ProjectFormatError) and isinstance(err, VocabularyError)
    assert (err.path, err.line) == ("contracts/a.md", 7)
    assert "[[touches::module:auth]]" in str(err)
    assert "may not join a clause to a module; allowed: workitem->module" in str(err)


def test_typed_links_with_turkish_and_german_names(tmp_path: Path) -> None:
    text = (
        "# A\n\nx\n\n## 1 Giriş\n\n[[gerektirir::module:auth]] [[benötigt::module:db]] "
        "[[hariç tutar::module:mobile]]\n"
    )
    contract = parse_contract_text(text, path="a.md", module_ids={"auth", "db", "mobile"})
    edges = {(e.target, e.type) for e in contract.clauses[1].edges}
    assert edges == {
        ("module:auth", "depends_on"),
        ("module:db", "depends_on"),
        ("module:mobile", "excludes"),
    }


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


BASE = {
    "etki.yaml": "id: v\nname: V\n",
    "modules.yaml": "- id: auth\n  summary: Login\n- id: db\n",
    "contracts/msa.md": "---\nid: MSA\n---\n# MSA\n\nIntro.\n\n## 1 Login\n\nUsers log in.\n\n## 2 Data\n\n"
    "Stored.\n",
}


def test_inverse_name_in_the_edges_file_is_stored_the_declared_way(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            **BASE,
            "edges.yaml": "edges:\n  - {source: 'module:auth', type: mapped_by, "
            "target: 'clause:MSA#1'}\n",
        },
    )
    index = build_index(load_project(root))
    [edge] = [e for e in index.edges if e.provenance == "mapped"]
    assert (edge.source, edge.target, edge.type, edge.location) == (
        "clause:MSA#1",
        "module:auth",
        "maps_to",
        "edges.yaml:2",
    )


def test_project_vocabulary_file_with_inverse_signature_and_languages(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            **BASE,
            "edge_vocabulary.yaml": (
                "types:\n"
                "  blocks:\n"
                "    inverse: blocked_by\n"
                "    signature: [clause->clause]\n"
                "    aliases: {en: [prevents], tr: [engeller], de: [blockiert]}\n"
                "  funds: [pays_for]\n"
                "aliases:\n  hinders: blocks\n"
            ),
            "contracts/msa.md": "---\nid: MSA\n---\n# MSA\n\nIntro.\n\n## 1 Login\n\nUsers log in "
            "[[engeller::MSA#2]].\n\n## 2 Data\n\nStored [[blocked_by::MSA#1]]."
            "\n",
        },
    )
    project = load_project(root)
    assert ("blockiert", "blocks") in project.edge_types
    assert ("hinders", "blocks") in project.edge_types
    vocab = load_vocabulary(root / "edge_vocabulary.yaml")
    assert vocab.inverse("blocks") == "blocked_by"
    assert vocab.signature("funds") == ()
    index = build_index(project)
    blocks = {(e.source, e.target) for e in index.edges if e.type == "blocks"}
    # [[blocked_by::MSA#1]] in 2 is stored as 1 blocks 2: one edge, not two
    assert blocks == {("clause:MSA#1", "clause:MSA#2")}
    bad = write(
        tmp_path / "bad",
        {**BASE, "edge_vocabulary.yaml": "types:\n  blocks:\n    signature: [clause->person]\n"},
    )
    with pytest.raises(ProjectFormatError) as info:
        load_project(bad)
    assert info.value.line == 3 and "'person'" in str(info.value)


def test_unknown_type_in_edges_file_names_file_line_and_field(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            **BASE,
            "edges.yaml": "edges:\n  - source: clause:MSA#1\n    target: module:auth\n"
            "    type: frobs\n",
        },
    )
    with pytest.raises(UnknownEdgeTypeError) as info:
        load_project(root)
    err = info.value
    assert (Path(err.path).name, err.line, err.field) == ("edges.yaml", 4, "edges[0].type")
    assert "allowed types:" in str(err)
