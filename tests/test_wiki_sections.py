"""A contract page read as its clause sections (etki.wiki.sections): pure, and the head
and sections give back the page's lines."""

from __future__ import annotations

from etki.wiki.sections import find_section, page_parts, page_sections, split_address

PAGE = (
    "---\nkind: contract\n---\n# Contract: MSA\n\nThe whole contract.\n\n"
    '## MSA#1 — Purpose <a id="MSA%231"></a>\n\nKind inclusion.\n\nWe build it.\n\n'
    '## MSA#1.2 — Exclusions \\*draft\\* <a id="MSA%231.2"></a>\n\nNo mobile app.\n'
)


def test_a_contract_page_splits_into_its_head_and_sections():
    head, sections = page_sections("entities/contracts/MSA.md", PAGE)
    assert head == "---\nkind: contract\n---\n# Contract: MSA\n\nThe whole contract.\n"
    assert [(s.anchor, s.title, s.start) for s in sections] == [
        ("MSA%231", "MSA#1 — Purpose", 7),
        ("MSA%231.2", "MSA#1.2 — Exclusions *draft*", 13),
    ]
    assert (
        sections[1].text
        == '## MSA#1.2 — Exclusions \\*draft\\* <a id="MSA%231.2"></a>\n\nNo mobile app.\n'
    )
    assert "\n".join([head, *(s.text for s in sections)]) == PAGE


def test_a_heading_inside_a_fenced_block_is_no_section():
    text = PAGE + '~~~~\n## MSA#9 — code <a id="MSA%239"></a>\n~~~\n~~~~\nafter\n'
    head, sections = page_sections("entities/contracts/MSA.md", text)
    assert [s.anchor for s in sections] == ["MSA%231", "MSA%231.2"]
    assert sections[-1].text.endswith("~~~~\nafter\n")


def test_only_contract_pages_with_anchored_headings_split():
    assert page_sections("decisions/DEC-1.md", PAGE) is None
    assert page_sections("entities/contracts/MSA.md", "# Contract: MSA\n\n## Plain\n") is None


def test_a_section_is_found_by_its_anchor_or_its_ref():
    assert split_address("entities/contracts/MSA.md#MSA%231.2") == (
        "entities/contracts/MSA.md",
        "MSA%231.2",
    )
    assert split_address("index.md") == ("index.md", "")
    rel = "entities/contracts/MSA.md"
    assert find_section(rel, PAGE, "MSA%231.2").title == "MSA#1.2 — Exclusions *draft*"
    assert find_section(rel, PAGE, "MSA#1.2").anchor == "MSA%231.2"
    assert find_section(rel, PAGE, "MSA#9") is None
    assert find_section("index.md", PAGE, "MSA%231") is None


def test_the_parts_of_a_contract_page_are_its_head_and_sections():
    parts = page_parts("entities/contracts/MSA.md", PAGE)
    assert [(p.address, p.start, p.title, p.ftitle) for p in parts] == [
        ("entities/contracts/MSA.md", 0, "Contract: MSA", "contract: msa"),
        ("entities/contracts/MSA.md#MSA%231", 7, "MSA#1 — Purpose", "msa#1 — purpose"),
        (
            "entities/contracts/MSA.md#MSA%231.2",
            13,
            "MSA#1.2 — Exclusions *draft*",
            "msa#1.2 — exclusions *draft*",
        ),
    ]
    assert [p.size for p in parts] == [len(p.text.encode("utf-8")) for p in parts]
    assert page_parts("index.md", PAGE) == []
