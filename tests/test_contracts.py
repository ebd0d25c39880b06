"""etki.knowledge.contracts: markdown contracts -> scope clauses (B19, the real RFQ)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from etki.errors import ProjectFormatError, VocabularyError
from etki.knowledge.contracts import (
    clause_kind,
    clause_number,
    heading_category,
    parse_contract,
    parse_contract_text,
)
from etki.knowledge.vocabulary import DEFAULT_VOCABULARY

SHARED = Path(__file__).resolve().parents[2] / "shared"
CASES = SHARED / "cases"
TDRS = SHARED / "realdata" / "tdrs"
needs_tdrs = pytest.mark.skipif(not TDRS.is_dir(), reason="../shared/realdata/tdrs is absent")


def parse(text: str, name: str = "doc.md", **kw):  # type: ignore[no-untyped-def]
    return parse_contract_text(text, path=name, **kw)


# --- B19 ------------------------------------------------------------------------------


@pytest.mark.skipif(not CASES.is_dir(), reason="../shared/cases is absent")
def test_b19_headings() -> None:
    path = CASES / "B19-contract-headings.md"
    contract = parse_contract(path)
    assert [(c.title, c.level) for c in contract.clauses] == [
        ("Hizmet Sözleşmesi", 1),
        ("Madde 1 – Kapsam", 2),
        ("Madde 2 – Ücret", 2),
        ("Madde 3 – Fesih", 2),
    ]
    assert [c.number for c in contract.clauses[1:]] == ["1", "2", "3"]
    assert contract.id == "B19-contract-headings" and contract.chunking == "by_heading"
    texts = [c.text for c in contract.clauses]
    assert "# Bu bir yorum, başlık değil" in texts[1]  # code stays in the body
    assert "#1 numaralı ek başlık değildir" in texts[2]
    assert "## Bu da kod içinde" in texts[3] and "# girintili kod" in texts[3]
    for text in texts:  # setext underlines belong to their heading, never to a body
        assert not any(set(line) <= {"=", "-"} and line for line in text.split("\n"))
        assert "Hizmet Sözleşmesi" not in text and "Madde 2 – Ücret" not in text
    lines = path.read_text(encoding="utf-8").split("\n")
    for clause in contract.clauses:
        assert lines[clause.line - 1].lstrip("#").strip() == clause.title
    assert contract.clauses[2].parent == "B19-contract-headings#hizmet-sozlesmesi"


# --- the real RFQ ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def rfq():  # type: ignore[no-untyped-def]
    return parse_contract(TDRS / "contracts" / "tdrs-rfq.md", source="contracts/tdrs-rfq.md")


@needs_tdrs
def test_every_labelled_tdrs_clause_is_a_clause(rfq) -> None:  # type: ignore[no-untyped-def]
    labelled: set[str] = set()
    for line in (TDRS / "requests.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            labelled.update(json.loads(line)["labels"]["clauses"])
    assert {"2.1", "2.2", "3.1.2", "3.2", "5.2", "5.3"} <= labelled
    numbers = {c.number for c in rfq.clauses}
    assert labelled <= numbers, sorted(labelled - numbers)
    for number in labelled:
        assert f"tdrs-rfq#{number}" in {c.ref for c in rfq.clauses}


@needs_tdrs
def test_tdrs_messy_structure(rfq) -> None:  # type: ignore[no-untyped-def]
    by = {c.number: c for c in rfq.clauses}
    assert rfq.id == "tdrs-rfq" and rfq.chunking == "by_heading"
    assert len({c.ref for c in rfq.clauses}) == len(rfq.clauses)
    # **2.2 Expectations** is a bold paragraph, not a heading: still its own clause
    assert by["2.2"].title == "Expectations"
    assert by["2.2"].text.startswith("This software development project")
    assert "ACF, not the contractor, will be responsible for hosting" in by["2.2"].text
    assert "**2.2 Expectations**" not in by["2.1"].text
    assert "OFA is not looking to migrate data" in by["2.1"].text
    assert by["2.2"].level == by["2.1"].level == 3
    # headings in bold: ### **5.1 System Requirements**
    assert by["5.1"].title.endswith("System Requirements")
    assert "Login.gov" in by["5.2"].text
    # **7.2.1** The TTS ... opens its clause; the paragraph is the body
    assert by["7.2.1"].text.startswith("**7.2.1** The TTS Office of Acquisition")
    # an empty "####" heading whose text was wrapped onto the next line
    assert by["9.6.4"].title == "Phase 2 - Oral Interview"
    assert not by["9.6.4"].text.startswith("9.6.4")
    # an empty "###" heading is no section: its text stays with 9.4
    assert "attached spreadsheet (Appendix 3)" in by["9.4"].text
    # empty parent "1.0 Purpose and Background" is merged into its first child
    assert "1.0" not in by and by["1.1"].title == "Purpose and Background › Purpose"
    assert by["1.2"].title == "Background"
    assert by["3.1.2"].parent == "tdrs-rfq#3.1"
    assert by["3.1.2"].line == 429 and by["3.1.2"].source == "contracts/tdrs-rfq.md"
    assert by["3.1.2"].text.lstrip().startswith("- > As a grantee admin")


# --- clause numbers, kinds ------------------------------------------------------------


@pytest.mark.parametrize(
    "heading, expected",
    [
        ("3.2 Single sign-on", ("3.2", "Single sign-on")),
        ("1. Scope", ("1", "Scope")),
        ("3.1.2 Preliminary user stories", ("3.1.2", "Preliminary user stories")),
        ("9.2.3. Factor 2 - Staffing Plan", ("9.2.3", "Factor 2 - Staffing Plan")),
        ("1.0 Purpose", ("1.0", "Purpose")),
        ("4 – Integrations", ("4", "Integrations")),
        ("A.1 Definitions", ("A.1", "Definitions")),
        ("Madde 2 – Ücret", ("2", "Madde 2 – Ücret")),
        ("Section 4 Billing", ("4", "Section 4 Billing")),
        ("MADDE 3 - FESİH", ("3", "MADDE 3 - FESİH")),
        ("§ 5 Haftung", ("5", "§ 5 Haftung")),
        ("Artikel 7: Abnahme", ("7", "Artikel 7: Abnahme")),
        ("Payment terms", (None, "Payment terms")),
        ("2024 Roadmap", (None, "2024 Roadmap")),
        ("Sectional doors", (None, "Sectional doors")),
        # e-QIP PWS: bold markers CommonMark leaves literal inside the printed number
        ("5**.0** TASKS", ("5.0", "TASKS")),
        ("6**.0 OPERATIONAL REQUIREMENTS**", ("6.0", "OPERATIONAL REQUIREMENTS")),
        ("6**.6.**5 Inspection and Acceptance", ("6.6.5", "Inspection and Acceptance")),
        ("6**.7.1 Transition Plan**", ("6.7.1", "Transition Plan")),
        ("3**.2 Bold** tail", ("3.2", "Bold** tail")),
    ],
)
def test_clause_number(heading: str, expected: tuple[str | None, str]) -> None:
    assert clause_number(heading) == expected


@pytest.mark.parametrize(
    "heading, kind",
    [
        ("Out of scope", "exclusion"),
        ("Exclusions", "exclusion"),
        ("Items not included", "exclusion"),
        ("Excluded integrations", "exclusion"),
        ("Kapsam dışı işler", "exclusion"),
        ("KAPSAM DIŞI", "exclusion"),
        ("Hariç tutulan hizmetler", "exclusion"),
        ("Ausgeschlossene Leistungen", "exclusion"),
        ("Nicht im Leistungsumfang", "exclusion"),
        ("Leistungsausschlüsse", "exclusion"),
        ("Assumptions", "assumption"),
        ("Varsayımlar", "assumption"),
        ("Annahmen", "assumption"),
        ("Dependencies", "assumption"),
        ("Service levels", "sla"),
        ("SLA", "sla"),
        ("Availability", "sla"),
        ("Response times", "sla"),
        ("Hizmet Seviyesi", "sla"),
        ("Verfügbarkeit", "sla"),
        ("Translations", None),
        ("Single sign-on", None),
        ("Scope and exclusions", None),
        ("Leistungsumfang und Ausschlüsse", None),
    ],
)
def test_heading_category(heading: str, kind: str | None) -> None:
    assert heading_category(heading) == kind


def test_clause_kind_from_enclosing_headings() -> None:
    assert clause_kind(["Mobile apps", "Out of scope"]) == "exclusion"
    assert clause_kind(["Availability of third-party interfaces", "Assumptions"]) == "assumption"
    assert clause_kind(["Portal", "Scope and exclusions"]) == "inclusion"
    assert clause_kind(["Portal"]) == "inclusion"


def test_kinds_in_a_document() -> None:
    contract = parse("""# Agreement

Intro.

## 2 Scope and exclusions

### 2.1 Portal

Portal text.

## 5 Out of scope

### 5.1 Mobile apps

No apps.

## 6 Varsayımlar

Müşteri sunucu sağlar.

## 7 Hizmet seviyesi

%99 erişilebilirlik.

## 8 Leistungsumfang

### 8.1 Nicht im Leistungsumfang

Keine Hardware.

## 9 Support

Excluded:

- on-site visits
""")
    kinds = {c.number: c.kind for c in contract.clauses}
    assert kinds == {
        "agreement": "context",
        "2.1": "inclusion",
        "5.1": "exclusion",
        "6": "assumption",
        "7": "sla",
        "8.1": "exclusion",
        "9": "exclusion",
    }
    assert {c.number: c.title for c in contract.clauses}["5.1"] == "Out of scope › Mobile apps"


def test_frontmatter_kind_is_the_outermost_heading() -> None:
    contract = parse("---\nkind: exclusion\n---\n# A\n\ntext\n\n# B\n\ntext\n")
    assert {c.kind for c in contract.clauses} == {"exclusion"}


# --- structure ------------------------------------------------------------------------


def test_empty_parent_is_merged_into_its_first_child() -> None:
    contract = parse(
        "# MSA\n\nIntro.\n\n## 4 Integrations\n\n### 4.1 SAML\n\nSAML text.\n\n"
        "### 4.2 LDAP\n\nLDAP text.\n\n## 5 Billing\n\nMonthly.\n"
    )
    got = [(c.number, c.title, c.parent) for c in contract.clauses]
    assert got == [
        ("msa", "MSA", None),
        ("4.1", "Integrations › SAML", "doc#msa"),
        ("4.2", "LDAP", "doc#msa"),
        ("5", "Billing", "doc#msa"),
    ]
    assert contract.clauses[1].text == "SAML text."


def test_bold_numbered_paragraphs_continue_the_numbering_only() -> None:
    contract = parse(
        "## 2 Scope\n\nText.\n\n### 2.1 Portal\n\nPortal.\n\n"
        "**2.2 Payments**\n\nPay text.\n\n**2.3** The vendor hosts nothing.\n"
        "More.\n\n**52.212-4** is a FAR clause.\n\n**3.1 Jump**\n\nNot a section.\n"
    )
    got = {c.number: c for c in contract.clauses}
    assert list(got) == ["2", "2.1", "2.2", "2.3"]
    assert got["2.2"].text == "Pay text." and got["2.2"].level == 3
    assert got["2.2"].parent == "doc#2"
    assert got["2.3"].title == "The vendor hosts nothing."
    assert got["2.3"].text.startswith("**2.3** The vendor hosts nothing.")
    assert "**52.212-4**" in got["2.3"].text and "**3.1 Jump**" in got["2.3"].text


def test_refs_are_unique_and_deterministic() -> None:
    contract = parse(
        "# Notes\n\na\n\n# Notes\n\nb\n\n## 1 A\n\nc\n\n## 1 B\n\nd\n\n# Ödeme Koşulları\n\ne\n"
    )
    assert [c.ref for c in contract.clauses] == [
        "doc#notes",
        "doc#notes-2",
        "doc#1",
        "doc#1-2",
        "doc#odeme-kosullari",
    ]


def test_sliding_window_without_headings() -> None:
    paragraphs = [f"Paragraph {i} about the portal." for i in range(1, 13)]
    contract = parse("\n\n".join(paragraphs) + "\n")
    assert contract.chunking == "sliding_window"
    assert [c.number for c in contract.clauses] == ["w1", "w2", "w3"]
    assert [c.ref for c in contract.clauses] == ["doc#w1", "doc#w2", "doc#w3"]
    joined = "\n\n".join(c.text for c in contract.clauses)
    assert joined == "\n\n".join(paragraphs)
    assert contract.clauses[0].title == "Paragraph 1 about the portal."
    assert contract.clauses[1].line == 11


def test_one_heading_over_a_long_text_is_not_structure() -> None:
    body = "\n\n".join(f"Line {i} of a long unstructured letter." for i in range(80))
    contract = parse("# Letter\n\n" + body + "\n\n## PS\n\nBye.\n")
    assert contract.chunking == "sliding_window"


def test_frontmatter_id_title_and_line_numbers() -> None:
    text = "---\nid: MSA-2024-01\ntitle: 'Master: agreement'\n---\n# MSA\n\nx\n\n## 3.2 SSO\n\ny\n"
    contract = parse(text, "contracts/msa.md")
    assert (contract.id, contract.title) == ("MSA-2024-01", "Master: agreement")
    assert [c.ref for c in contract.clauses] == ["MSA-2024-01#msa", "MSA-2024-01#3.2"]
    assert [c.line for c in contract.clauses] == [5, 9]
    with pytest.raises(ProjectFormatError) as info:
        parse("---\ntitle: x\nid: 'a#b'\n---\n# A\n\nb\n", "contracts/bad.md")
    assert (info.value.line, info.value.field) == (3, "id")


def test_empty_document_is_an_error() -> None:
    with pytest.raises(ProjectFormatError, match="no text"):
        parse("---\nid: x\n---\n\n", "contracts/empty.md")


def test_crlf_and_bom_contract() -> None:
    crlf = "\ufeff# A\r\n\r\nalpha\r\n\r\n## 1 B\r\n\r\nbeta\r\n"
    contract = parse(crlf)
    assert [(c.title, c.text, c.line) for c in contract.clauses] == [
        ("A", "alpha", 1),
        ("B", "beta", 5),
    ]


# --- edges ----------------------------------------------------------------------------

EDGES_DOC = """---
id: MSA
edges:
  - {type: requires, target: "module:core"}
---
# MSA

Intro.

## 3 Identity [[module:auth]]

Identity text.

### 3.2 SSO

Uses [[MSA#3.1|login]] and [[depends_on::module:ldap]] and [[audit]] and [[nothing]].

## 9 Out of scope

### 9.1 Apps

See [[module:mobile]].
"""


def test_edges_explicit_inherited_and_typed() -> None:
    contract = parse(EDGES_DOC, module_ids={"audit"})
    by = {c.number: c for c in contract.clauses}
    edges = {(e.target, e.type, e.provenance) for e in by["3.2"].edges}
    assert edges == {
        ("clause:MSA#3.1", "cites", "explicit"),
        ("module:ldap", "depends_on", "explicit"),
        ("module:audit", "covers", "explicit"),
        ("nothing", "relates_to", "explicit"),
        ("module:auth", "covers", "inherited"),  # from the "3 Identity" heading
        ("module:core", "depends_on", "inherited"),  # frontmatter, alias requires
    }
    assert {(e.target, e.type, e.provenance) for e in by["3"].edges} == {
        ("module:auth", "covers", "explicit"),
        ("module:core", "depends_on", "inherited"),
    }
    assert ("module:mobile", "excludes", "explicit") in {
        (e.target, e.type, e.provenance) for e in by["9.1"].edges
    }
    assert all(e.source == f"clause:{c.ref}" for c in contract.clauses for e in c.edges)
    assert by["3"].title == "Identity"  # a link to a node in a heading is a declaration


def test_unknown_edge_types_are_rejected_with_file_line_and_allowed_types() -> None:
    bad_meta = "---\nedges:\n  - type: blocks\n    target: module:a\n---\n# A\n\nx\n\n# B\n\ny\n"
    with pytest.raises(VocabularyError) as info:
        parse(bad_meta, "contracts/bad.md")
    err = info.value
    assert isinstance(err, ProjectFormatError)
    assert (err.path, err.line, err.field) == ("contracts/bad.md", 3, "edges[0].type")
    assert "'blocks'" in str(err) and "depends_on" in str(err) and "relates_to" in str(err)
    with pytest.raises(ProjectFormatError) as info2:
        parse("# A\n\nx\n\n# B\n\ny [[frobs::module:a]]\n", "contracts/bad2.md")
    assert info2.value.line == 7 and "'frobs'" in str(info2.value)
    extended = DEFAULT_VOCABULARY.extended({"blocks": []})
    assert parse(bad_meta, vocabulary=extended).clauses[0].edges[0].type == "blocks"


# --- issue 10 item 2: structure of real documents -------------------------------------

TALENTMAP = SHARED / "realdata" / "talentmap"
needs_talentmap = pytest.mark.skipif(
    not TALENTMAP.is_dir(), reason="../shared/realdata/talentmap is absent"
)


@pytest.fixture(scope="module")
def pws():  # type: ignore[no-untyped-def]
    return parse_contract(
        TALENTMAP / "contracts" / "talentmap-pws.md", source="contracts/talentmap-pws.md"
    )


@needs_talentmap
def test_talentmap_has_its_twelve_numbered_sections(pws) -> None:  # type: ignore[no-untyped-def]
    numbered = [c for c in pws.clauses if c.kind != "context"]
    assert [c.ref for c in numbered] == [f"talentmap-pws#{n}" for n in range(1, 13)]
    assert [c.title for c in numbered] == [
        "OBJECTIVES",
        "BACKGROUND",
        "SCOPE",
        "TASKS",
        "OPERATIONAL REQUIREMENTS",
        "SYSTEM SECURITY",
        "SECURITY CLEARANCES",
        "Travel",
        "Deliverables",
        "Transition",
        "TERMS AND CONDITIONS",
        "INVOICING & PAYMENT",
    ]
    assert all(c.parent is None and c.level == 2 for c in numbered)
    lines = (TALENTMAP / "contracts" / "talentmap-pws.md").read_text(encoding="utf-8").split("\n")
    for clause in numbered:  # the line of the numbered section line, its rule below it
        assert lines[clause.line - 1].startswith(f"{clause.number}. ")
        assert set(lines[clause.line].strip()) == {"-"}
        assert not clause.text.startswith("-")
    # the numbered list items of 5 and 7 are body text, not sections
    by = {c.number: c for c in pws.clauses}
    assert "1.  The Contractor shall assign a PM" in by["5"].text
    assert "1.  The personnel investigation procedures" in by["7"].text
    assert "508" not in by and all(c.number.isdigit() for c in numbered)


@needs_talentmap
def test_talentmap_sub_headings_are_subtitles_of_their_section(pws) -> None:  # type: ignore[no-untyped-def]
    by = {c.number: c for c in pws.clauses}
    assert ("Key Personnel", 215) in by["5"].subtitles
    assert [t for t, _ in by["5"].subtitles] == [
        "Personnel",
        "Skills and Knowledge",
        "Key Personnel",
        "Project Management",
        "Estimated Level of Effort",
        "Post Award Orientation Conference",
        "Daily Operations",
    ]
    assert "### Key Personnel" in by["5"].text and "\nKey Personnel\n" in by["5"].plain
    # the unnumbered setext heading between 9 and 10 belongs to 9; 10-12 are their own
    assert [t for t, _ in by["9"].subtitles][3:] == [
        "Inspection and Acceptance of Services",
        "System Documentation",
        "Quality Assurance",
    ]
    assert "correct defects" in by["9"].plain
    assert [t for t, _ in by["10"].subtitles] == ["Transition Plan", "Transition Activities"]
    assert ("Section 508 Compliance", 503) in by["11"].subtitles
    assert "conformance with Section 508" in by["11"].plain
    assert by["12"].subtitles[-1] == ("Attachments", 589)
    assert not any(
        c.number in ("key-personnel", "inspection-and-acceptance-of-services") for c in pws.clauses
    )
    # long sections are split; a chunk knows the sub-heading it starts under
    assert by["5"].chunks and by["5"].chunks[0].subtitle == "Personnel"
    assert {ch.subtitle for ch in by["9"].chunks} >= {"Inspection and Acceptance of Services"}
    for clause in pws.clauses:
        for chunk in clause.chunks:
            under = [t for t, line in clause.subtitles if line <= chunk.line]
            assert chunk.subtitle == (under[-1] if under else "")


@needs_talentmap
def test_talentmap_title_page_is_context(pws) -> None:  # type: ignore[no-untyped-def]
    context = [c for c in pws.clauses if c.kind == "context"]
    assert [c.title for c in context] == [
        "PERFORMANCE WORK STATEMENT (PWS)",
        "Department of State TalentMAP",
    ]
    assert "NCR AAS Project Number ID11170017" in context[1].plain
    assert "**" not in context[1].plain


@needs_tdrs
def test_tdrs_refs_kinds_and_plain_text(rfq) -> None:  # type: ignore[no-untyped-def]
    numbers = [c.number for c in rfq.clauses]
    assert numbers[:3] == [
        "general-services-administration",
        "deadlines-and-response-formats",
        "1.1",
    ]
    assert numbers[-1] == "9.6.5"
    assert [c.kind for c in rfq.clauses[:2]] == ["context", "context"]
    assert all(c.kind != "context" for c in rfq.clauses[2:])
    # below the first numbered section every clause is numbered: no slug refs
    assert all(c.number[0].isdigit() for c in rfq.clauses[2:])
    for clause in rfq.clauses:
        for bad in ("<", "](", "span class", "https://", "**"):
            assert bad not in clause.plain, (clause.ref, bad)
        for chunk in clause.chunks:
            assert "<" not in chunk.plain and "](" not in chunk.plain
    by = {c.number: c for c in rfq.clauses}
    assert '<span class="underline">' in by["1.1"].text  # the markdown stays as written
    assert "the Office of Family Assistance (OFA) within the Administration" in by["1.1"].plain
    table = rfq.clauses[1].plain.split("\n")
    row = (
        "RFQ Questions | April 30, 2020 at noon, eastern | Google Form (see section 9.0 "
        "for details)"
    )
    assert row in table


def test_underlined_numbered_lines_are_sections() -> None:
    contract = parse(
        "TITLE PAGE\n==========\n\nIssued by GSA.\n\n1. SCOPE\n--------\n\n"
        "Scope text.\n\n1.  The Contractor shall build it.\n2.  And run it.\n\n"
        "2. Travel\n---------\n\nNone.\n\n3. BILLING\n==========\n\nMonthly.\n"
    )
    got = [(c.number, c.title, c.kind, c.level) for c in contract.clauses]
    assert got == [
        ("title-page", "TITLE PAGE", "context", 1),
        ("1", "SCOPE", "inclusion", 2),
        ("2", "Travel", "inclusion", 2),
        ("3", "BILLING", "inclusion", 1),
    ]
    by = {c.number: c for c in contract.clauses}
    assert by["1"].text.startswith("Scope text.")
    assert "1.  The Contractor shall build it." in by["1"].text  # a list item, no section
    assert by["1"].plain == "Scope text.\nThe Contractor shall build it.\nAnd run it."
    assert by["3"].text == "Monthly." and by["1"].line == 6


def test_list_items_are_no_sections_even_with_a_rule_after_a_blank_line() -> None:
    contract = parse(
        "## 1 Scope\n\nText.\n\n1. The Contractor shall host nothing.\n\n"
        "---\n\n## 2 Billing\n\nMonthly.\n"
    )
    assert [c.number for c in contract.clauses] == ["1", "2"]
    many = parse("1. SCOPE\n---\n\nText.\n\n1. one\n2. two\n---\n\n2. BILLING\n---\n\nx\n")
    assert [c.number for c in many.clauses] == ["1", "2"]


def test_law_numbers_in_headings_are_citations_and_sub_headings() -> None:
    contract = parse(
        "## 1 Scope\n\nScope.\n\n### Section 508 Compliance\n\nAccessible.\n\n"
        "### ISO 27001\n\nCertified.\n\n### Article 5 GDPR\n\nLawful.\n\n"
        "## 2 Billing\n\nMonthly.\n"
    )
    assert [c.ref for c in contract.clauses] == ["doc#1", "doc#2"]
    assert [t for t, _ in contract.clauses[0].subtitles] == [
        "Section 508 Compliance",
        "ISO 27001",
        "Article 5 GDPR",
    ]
    assert contract.clauses[0].subtitles[0][1] == 5
    assert contract.clauses[0].plain == (
        "Scope.\nSection 508 Compliance\nAccessible.\n"
        "ISO 27001\nCertified.\nArticle 5 GDPR\nLawful."
    )


@pytest.mark.parametrize(
    "heading, expected",
    [
        ("Section 508 Compliance", (None, "Section 508 Compliance")),
        ("Article 5 GDPR", (None, "Article 5 GDPR")),
        ("§ 307 BGB", (None, "§ 307 BGB")),
        ("Madde 6 KVKK", (None, "Madde 6 KVKK")),
        ("Section 12 of the Rehabilitation Act", (None, "Section 12 of the Rehabilitation Act")),
        ("FAR 52.246-6 Inspection", (None, "FAR 52.246-6 Inspection")),
    ],
)
def test_citations_are_no_clause_numbers(heading: str, expected: tuple[None, str]) -> None:
    assert clause_number(heading) == expected
    assert clause_number("§ 4 Leistungsumfang", worded=False) == (None, "§ 4 Leistungsumfang")


def test_turkish_and_german_numbering() -> None:
    tr = parse(
        "# SÖZLEŞME\n\nTaraflar.\n\n1. KAPSAM\n---------\n\nYazılım geliştirme.\n\n"
        "### Hariç tutulanlar\n\nBarındırma.\n\n2. ÜCRET\n--------\n\nAylık.\n"
    )
    assert [(c.number, c.kind) for c in tr.clauses] == [
        ("sozlesme", "context"),
        ("1", "inclusion"),
        ("2", "inclusion"),
    ]
    assert tr.clauses[1].subtitles == (("Hariç tutulanlar", 10),)
    # § numbers the sections of a document numbered that way ...
    de = parse(
        "# Vertrag\n\nPräambel.\n\n## § 1 Gegenstand\n\nSoftware.\n\n"
        "## § 2 Leistungsumfang\n\n### Abnahme\n\nTests.\n\n## § 3 Haftung\n\nx\n"
    )
    assert [(c.number, c.title, c.kind) for c in de.clauses] == [
        ("vertrag", "Vertrag", "context"),
        ("1", "§ 1 Gegenstand", "inclusion"),
        ("2", "§ 2 Leistungsumfang", "inclusion"),
        ("3", "§ 3 Haftung", "inclusion"),
    ]
    assert de.clauses[2].subtitles == (("Abnahme", 11),)
    # ... and cites a law in a document with bare section numbers
    mixed = parse("## 1 Scope\n\nx\n\n### § 4 Haftung\n\ny\n\n## 2 Price\n\nz\n")
    assert [c.number for c in mixed.clauses] == ["1", "2"]
    assert mixed.clauses[0].subtitles == (("§ 4 Haftung", 5),)


def test_unnumbered_documents_keep_their_slug_clauses() -> None:
    contract = parse(
        "# Agreement\n\nIntro.\n\n## Scope\n\nPortal.\n\n### Exclusions\n\n"
        "No apps.\n\n## Payment\n\nMonthly.\n"
    )
    assert [(c.number, c.kind) for c in contract.clauses] == [
        ("agreement", "inclusion"),
        ("scope", "inclusion"),
        ("exclusions", "exclusion"),
        ("payment", "inclusion"),
    ]
    assert all(not c.subtitles for c in contract.clauses)


def test_a_level_of_mostly_unnumbered_headings_is_not_folded() -> None:
    contract = parse("## 1 Intro\n\na\n\n## Scope\n\nb\n\n### Detail\n\nc\n\n## Payment\n\nd\n")
    assert [c.number for c in contract.clauses] == ["1", "scope", "detail", "payment"]
    shallower = parse("## 3 Scope\n\n### 3.1 Portal\n\na\n\n# Annex\n\nb\n\n## Notes\n\nc\n")
    # (the empty "3 Scope" is merged into 3.1; "# Annex" is a new part, "Notes" below it)
    assert [c.number for c in shallower.clauses] == ["3.1", "annex", "notes"]


def test_plain_text_joins_hard_wraps_and_drops_markup() -> None:
    contract = parse(
        '## 1 Scope\n\nThe [<span class="underline">Office of\nFamily '
        "Assistance</span>](https://www.acf.hhs.gov/ofa) *will*\nhost the "
        "**system**.\n\n> Quoted\n> text.\n\n- item one\n  wrapped\n- see "
        "http://example.org/x\n\n| A | B |\n|---|---|\n| 1 | 2 |\n\n"
        '<!-- a comment -->\n\n<table><tr class="odd"><td>x &amp; y</td>'
        "<td>z</td></tr></table>\n\n## 2 Next\n\nn\n"
    )
    assert contract.clauses[0].plain == (
        "The Office of Family Assistance will host the system.\nQuoted text.\n"
        "item one wrapped\nsee\nA | B\n1 | 2\nx & y | z"
    )
    assert '<span class="underline">' in contract.clauses[0].text


# --- issue 29 item 1: the e-QIP PWS, numbers printed with bold markers inside -----------

EQIP = SHARED / "realdata" / "eqip"
needs_eqip = pytest.mark.skipif(not EQIP.is_dir(), reason="../shared/realdata/eqip is absent")


@needs_eqip
def test_eqip_sections_are_found_by_their_printed_numbers() -> None:
    doc = parse_contract(EQIP / "contracts" / "eqip-pws.md", source="contracts/eqip-pws.md")
    by_number = {c.number: c for c in doc.clauses if c.number}
    aliases = {a: c for c in doc.clauses for a in c.aliases}
    # 5.0 is its own clause (it folded into 4.0 when its number was not read) ...
    assert by_number["5.0"].title == "TASKS"
    assert "Provide hosting of the e-QIP prototype" in by_number["5.0"].text
    assert "Provide hosting" not in by_number["4.0"].text
    # ... the subsections with bold inside the number keep their printed numbers ...
    for number, title in (
        ("6.6.4", "Delivery Instructions"),
        ("6.6.5", "Inspection and Acceptance of Services"),
        ("6.6.6", "System Documentation"),
        ("6.6.7", "Quality Assurance"),
        ("6.7.2", "Transition Activities"),
    ):
        assert by_number[number].title == title
        assert by_number[number].ref == f"eqip-pws#{number}"
    # ... and the empty parents 6.0 and 7.0 are found as aliases of their first child
    assert aliases["6.0"].ref == "eqip-pws#6.1.1"
    assert aliases["6.0"].title.startswith("OPERATIONAL REQUIREMENTS › ")
    assert aliases["7.0"].ref == "eqip-pws#7.1"
    # no title keeps a stray marker
    assert not [c.title for c in doc.clauses if "*" in c.title]
