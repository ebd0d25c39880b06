"""Contract structure the parser does not expect never swallows clauses silently (issue 30
item 5): whatever block precedes a ``## N. Title`` line, the heading stays a clause, and
``etki init`` / ``etki index show`` warn, with file and line, where a document's
structure was read with a fallback. Real files, the real ``etki`` entry point, a real
SQLite store."""

from __future__ import annotations

from pathlib import Path

import pytest

from etki.knowledge.contracts import parse_contract_text
from tests.cli_support import run_etki

TEMPLATE = """# Service agreement

## 1. Scope

The contractor builds the citizen portal.

## 2. Login

Users sign in with their e-government account.

{block}
## 3. Reports

Monthly usage reports are delivered.

## 4. Hosting

The contractor hosts the portal.

## 5. Support

Support hours are 9 to 17 on working days.
"""

BLOCKS = {
    "html block (no blank line after it)": "<div class='note'>\nSee annex.\n</div>",
    "details": "<details>\n<summary>Annex</summary>",
    "html table": "<table>\n<tr><td>x</td></tr>\n</table>",
    "custom tag": "<annex-note>",
    "unclosed comment": "<!-- reviewer note: check",
    "unclosed pre": "<pre>\nraw text",
    "unclosed fence": "```\nsome code",
    "unclosed tilde fence": "~~~\nsome code",
    "fence closed by a shorter one": "````\ncode\n```",
    "processing instruction": "<? note",
    "declaration": "<!NOTE x",
}


@pytest.mark.parametrize("name", list(BLOCKS))
def test_every_heading_stays_a_clause_whatever_precedes_it(name: str) -> None:
    text = TEMPLATE.format(block=BLOCKS[name])
    contract = parse_contract_text(text, path="contracts/sa.md", source="contracts/sa.md")
    assert [c.number for c in contract.clauses] == ["1", "2", "3", "4", "5"], name
    by_number = {c.number: c for c in contract.clauses}
    assert by_number["3"].title == "Reports" and by_number["3"].text.startswith("Monthly")
    assert "Reports" not in by_number["2"].text and "Hosting" not in by_number["2"].text
    heading_line = text.split("\n").index("## 3. Reports") + 1
    assert len(contract.fallbacks) == 1, contract.fallbacks
    note = contract.fallbacks[0]
    assert note.startswith(f"contracts/sa.md:{heading_line}: heading '3. Reports' was inside ")
    assert "fallback: block split at a heading" in note


def test_closed_blocks_and_nested_headings_are_reported_not_silent() -> None:
    """A heading inside a closed code fence stays code (CommonMark, and hostile case B19),
    one inside a blockquote stays quoted text: neither is a clause, and both are said."""
    block = "```\n## 9. Example heading in code\n```\n\n> ## 8. Quoted heading\n"
    text = TEMPLATE.format(block=block)
    contract = parse_contract_text(text, path="contracts/sa.md", source="contracts/sa.md")
    assert [c.number for c in contract.clauses] == ["1", "2", "3", "4", "5"]
    lines = text.split("\n")
    fence = lines.index("## 9. Example heading in code") + 1
    quote = lines.index("> ## 8. Quoted heading") + 1
    assert contract.fallbacks == (
        (
            f"contracts/sa.md:{fence}: heading '9. Example heading in code' is inside a code "
            f"fence (lines {fence - 1} to {fence + 1}) and is read as its text, not as a clause"
        ),
        (
            f"contracts/sa.md:{quote}: heading '8. Quoted heading' is inside a blockquote and "
            "is read as text of the section above, not as a clause"
        ),
    )


def _project(root: Path, contract: str) -> Path:
    (root / "contracts").mkdir(parents=True)
    (root / "etki.yaml").write_text(
        "id: sa\nname: SA\nreviewers:\n  - name: reviewer\n    role: approver\n",
        encoding="utf-8",
    )
    (root / "contracts" / "sa.md").write_text(contract, encoding="utf-8")
    return root


def test_init_and_index_show_warn_with_file_and_line(tmp_path: Path) -> None:
    text = TEMPLATE.format(block=BLOCKS["unclosed comment"])
    project = _project(tmp_path / "proj", text)
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "ETKI_DB_URL": f"sqlite:///{tmp_path / 'etki.db'}",
        "ETKI_WIKI_DIR": "",
    }
    line = text.split("\n").index("## 3. Reports") + 1
    want = (
        f"  warning: contracts/sa.md:{line}: heading '3. Reports' was inside an HTML comment "
        f"opened on line {line - 1} and never closed"
    )
    init = run_etki(["init", str(project)], env=env, cwd=tmp_path)
    assert init.returncode == 0, init.stderr
    assert "5 clauses" in init.stdout
    assert any(out.startswith(want) for out in init.stdout.splitlines()), init.stdout
    show = run_etki(["index", "show", "sa"], env=env, cwd=tmp_path)
    assert show.returncode == 0, show.stderr
    assert "contract sa (contracts/sa.md): by_heading, 5 clauses" in show.stdout
    assert any(out.startswith("  " + want) for out in show.stdout.splitlines()), show.stdout


def test_a_document_without_structure_is_said_to_be_read_in_windows(tmp_path: Path) -> None:
    text = "\n\n".join(f"Paragraph {n} of an agreement without any headings." for n in range(30))
    project = _project(tmp_path / "proj", text + "\n")
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "ETKI_DB_URL": f"sqlite:///{tmp_path / 'etki.db'}",
        "ETKI_WIKI_DIR": "",
    }
    init = run_etki(["init", str(project)], env=env, cwd=tmp_path)
    assert init.returncode == 0, init.stderr
    assert (
        "  warning: contracts/sa.md:1: no usable heading structure; read as windows of "
        "blocks, not by section (fallback: sliding_window)"
    ) in init.stdout.splitlines()
