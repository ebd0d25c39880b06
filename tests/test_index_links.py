"""Edges in contracts (issue 4 item 4), clause status (item 6) and frontmatter faults in
contract files (B06, B08, B09, B10, B18 in ``../shared/cases/``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from etki.errors import ProjectFormatError
from etki.knowledge import build_index, load_project

CASES = Path(__file__).resolve().parents[2] / "shared" / "cases"
needs_cases = pytest.mark.skipif(not CASES.is_dir(), reason="../shared/cases is absent")


def project(root: Path, contracts: dict[str, str | bytes], modules: str = "") -> Path:
    (root / "contracts").mkdir(parents=True)
    (root / "etki.yaml").write_text("id: p\nname: P\n", encoding="utf-8")
    if modules:
        (root / "modules.yaml").write_text(modules, encoding="utf-8")
    for name, text in contracts.items():
        path = root / "contracts" / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    return root


# --- B18: links in tables, code and escapes ------------------------------------------------


@needs_cases
def test_b18_links_become_edges_or_unresolved_never_from_code(tmp_path: Path) -> None:
    extra = (
        "---\nid: Sözleşme\n---\n# Sözleşme\n\nGiriş.\n\n## Fesih\n\nFesih metni.\n\n"
        "## Şirket içi SSO girişi\n\nSSO.\n"
    )
    root = project(
        tmp_path / "p",
        {"b18.md": (CASES / "B18-wikilinks.md").read_text(encoding="utf-8"), "soz.md": extra},
    )
    index = build_index(load_project(root))
    edges = {
        (e.source, e.target, e.type, e.provenance, e.location)
        for e in index.edges
        if e.source.startswith("clause:b18")
    }
    # one heading only: no usable structure, so the page is one window
    assert edges == {
        ("clause:b18#w1", "clause:Sözleşme#fesih", "cites", "explicit", "contracts/b18.md:12")
    }
    unresolved = {(u.target, u.text, u.location) for u in index.unresolved}
    # exactly the other three links, as written, with their lines; nothing from code
    assert unresolved == {
        ("Şirket içi SSO girişi", "[[Şirket içi SSO girişi|SSO sayfası]]", "contracts/b18.md:9"),
        (
            "clause:fatura-itirazi#Madde 3",
            "[[fatura-itirazi#Madde 3|3. madde]]",
            "contracts/b18.md:10",
        ),
        ("VAKA-0042", "[[VAKA-0042]]", "contracts/b18.md:12"),
    }


def test_unresolved_link_is_reported_as_written_never_guessed(tmp_path: Path) -> None:
    root = project(
        tmp_path / "p",
        {
            "msa.md": (
                "---\nid: MSA\n---\n# MSA\n\nx\n\n## 1 Auth\n\nSee [[module:auht]], [[MSA#12]] "
                "and [[authn]].\n"
            )
        },
        modules="- id: auth\n- id: authn2\n",
    )
    index = build_index(load_project(root))
    assert [(u.target, u.text, u.location, u.type) for u in index.unresolved] == [
        ("authn", "[[authn]]", "contracts/msa.md:10", "relates_to"),
        ("clause:MSA#12", "[[MSA#12]]", "contracts/msa.md:10", "cites"),
        ("module:auht", "[[module:auht]]", "contracts/msa.md:10", "covers"),
    ]
    assert not [e for e in index.edges if e.source == "clause:MSA#1" and e.type != "part_of"]


def test_every_edge_records_its_location(tmp_path: Path) -> None:
    root = project(
        tmp_path / "p",
        {
            "msa.md": (
                "---\nid: MSA\nedges:\n  - {type: needs, target: 'module:core'}\n---\n# MSA\n\nx\n\n"
                "## 1 Auth [[module:auth]]\n\nText [[module:core]].\n"
            )
        },
        modules="- id: core\n- id: auth\n  depends_on: [core]\n",
    )
    (root / "workitems.yaml").write_text(
        "- id: W1\n  title: t\n  modules: [auth]\n", encoding="utf-8"
    )
    index = build_index(load_project(root))
    got = {(e.source, e.target, e.type, e.provenance, e.location) for e in index.edges}
    assert got == {
        ("module:auth", "module:core", "depends_on", "explicit", "modules.yaml:2"),
        ("workitem:W1", "module:auth", "touches", "mapped", "workitems.yaml:1"),
        ("clause:MSA#1", "module:auth", "covers", "explicit", "contracts/msa.md:10"),
        ("clause:MSA#1", "module:core", "covers", "explicit", "contracts/msa.md:12"),
        ("clause:MSA#1", "module:core", "depends_on", "inherited", "contracts/msa.md:4"),
        ("clause:MSA#msa", "module:core", "depends_on", "inherited", "contracts/msa.md:4"),
        ("clause:MSA#1", "clause:MSA#msa", "part_of", "derived", "contracts/msa.md:10"),
    }
    assert all(e.location for e in index.edges)


# --- clause status ------------------------------------------------------------------------


def test_status_from_frontmatter(tmp_path: Path) -> None:
    root = project(
        tmp_path / "p",
        {
            "a.md": "---\nid: A\nstatus: Draft\n---\n# A\n\nx\n\n## 1 New\n\nNew text.\n",
            "b.md": (
                "---\nid: B\nclause_status:\n  '2.0': draft\n---\n# B\n\nx\n\n"
                "## 1 Old\n\nOld.\n\n## 2 Amended\n\nAmended.\n"
            ),
        },
    )
    index = build_index(load_project(root))
    status = {n.id: n.get("status") for n in index.nodes_of("clause")}
    assert status == {
        "clause:A#a": "draft",
        "clause:A#1": "draft",
        "clause:B#b": "stable",
        "clause:B#1": "stable",
        "clause:B#2": "draft",
    }


@pytest.mark.parametrize(
    "meta, line, field",
    [
        ("status: no\n", 3, "status"),  # YAML 1.1 "no" stays a string, and is no status
        ("clause_status:\n  '9': draft\n", 4, "clause_status.9"),
        ("clause_status:\n  '1': pending\n", 4, "clause_status.1"),
    ],
)
def test_bad_status_is_an_error_with_line(tmp_path: Path, meta: str, line: int, field: str) -> None:
    root = project(tmp_path / "p", {"a.md": f"---\nid: A\n{meta}---\n# A\n\nx\n\n## 1 B\n\ny\n"})
    with pytest.raises(ProjectFormatError) as info:
        load_project(root)
    assert (Path(info.value.path).name, info.value.line, info.value.field) == ("a.md", line, field)


# --- frontmatter faults in contract files ---------------------------------------------------


@needs_cases
def test_b06_yaml11_booleans_stay_strings_in_a_contract(tmp_path: Path) -> None:
    root = project(tmp_path / "p", {"b06.md": (CASES / "B06-norway-frontmatter.md").read_bytes()})
    contract = load_project(root).contracts[0]
    assert (contract.id, contract.title) == ("b06", "Norveç ofisi erişimi")
    assert [c.status for c in contract.clauses] == ["stable"]


@needs_cases
def test_b08_colon_in_value_names_file_and_line_3_and_loads_nothing(tmp_path: Path) -> None:
    root = project(
        tmp_path / "p",
        {
            "a.md": "# A\n\nx\n\n## 1 B\n\ny\n",
            "b08.md": (CASES / "B08-colon-frontmatter.md").read_bytes(),
        },
    )
    with pytest.raises(ProjectFormatError) as info:
        load_project(root)
    assert Path(info.value.path).name == "b08.md" and info.value.line == 3


@needs_cases
@pytest.mark.parametrize("name", ["B09-bom-frontmatter.md", "B09-crlf-frontmatter.md"])
def test_b09_bom_and_crlf_give_the_clean_clauses(tmp_path: Path, name: str) -> None:
    raw = (CASES / name).read_bytes()
    clean = raw.decode("utf-8").lstrip("\ufeff").replace("\r\n", "\n")
    a = build_index(load_project(project(tmp_path / "a", {"c.md": raw})))
    b = build_index(load_project(project(tmp_path / "b", {"c.md": clean})))
    assert a.to_bytes() == b.to_bytes()
    [node] = a.nodes_of("clause")
    assert node.title == "Gövde" and node.get("markdown") == "# Gövde\nMetin."  # one window
    assert node.text == "Gövde\nMetin."  # the node text is the plain text
    assert "\r" not in a.to_bytes().decode() and "\ufeff" not in a.to_bytes().decode()


@needs_cases
def test_b10_rules_in_the_body_are_no_metadata(tmp_path: Path) -> None:
    root = project(tmp_path / "p", {"b10.md": (CASES / "B10-hr-in-body.md").read_bytes()})
    contract = load_project(root).contracts[0]
    assert contract.id == "b10" and contract.title == "Yatay çizgili sayfa"
    text = "\n\n".join(c.text for c in contract.clauses)
    assert "status: bu bir gövde satırıdır, metadata değildir" in text
    assert "Son bölüm — burada da --- geçiyor." in text
    assert {c.status for c in contract.clauses} == {"stable"}


@needs_cases
def test_b19_case_file_in_a_project(tmp_path: Path) -> None:
    root = project(tmp_path / "p", {"b19.md": (CASES / "B19-contract-headings.md").read_bytes()})
    titles = [n.title for n in build_index(load_project(root)).in_order("clause")]
    assert titles == ["Hizmet Sözleşmesi", "Madde 1 – Kapsam", "Madde 2 – Ücret", "Madde 3 – Fesih"]


def test_index_reads_back_and_old_indexes_still_load(tmp_path: Path) -> None:
    from etki.knowledge import KnowledgeIndex

    root = project(tmp_path / "p", {"a.md": "# A\n\nx [[nowhere]]\n\n## 1 B\n\ny\n"})
    index = build_index(load_project(root))
    assert KnowledgeIndex.from_bytes(index.to_bytes()).to_bytes() == index.to_bytes()
    import json

    old = json.loads(index.to_bytes())
    for key in ("aliases", "candidates", "edge_inverses"):
        del old[key]
    for entry in old["contracts"]:
        del entry["metrics"]
    for edge in old["edges"]:
        del edge["location"]
    for u in old["unresolved"]:
        del u["location"], u["text"]
    again = KnowledgeIndex.from_dict(old)
    assert again.nodes == index.nodes and again.aliases == ()
    assert again.unresolved[0].target == "nowhere"
