"""Inputs that stall (issue 11 item 6), reproduced as they were attacked.

* A YAML alias bomb ("billion laughs": level n is a list of nine aliases of level n-1)
  under a key Etki ignores: 9 levels in ``modules.yaml`` took 151 s to load, 7 levels in
  a contract's frontmatter 17 s. Every YAML reader now refuses the first anchor or alias
  while composing, naming the file and line. No timed assertion: a bomb that would
  take minutes makes a hang obvious.
* One 18 MB request in ``requests.jsonl`` took ``etki init`` 156 s. A row longer than
  ``ETKI_MAX_REQUEST_CHARS`` (default 200,000 characters) is refused with file:line,
  the other rows are stored, and ``etki init`` exits 2.
* The same request stored before the cap existed froze the desk's detail pane on
  "Loading…" with keys ignored. The pane renders a bounded head and says how many
  characters it left out; keys are handled while the case is highlighted.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest
from textual.widgets import Markdown

from etki.config import DEFAULT_MAX_REQUEST_CHARS, Settings
from etki.domain import Request
from etki.errors import InputError, ProjectFormatError
from etki.frontmatter import MAX_YAML_DEPTH, dump_frontmatter, load_yaml, split_frontmatter
from etki.knowledge import load_project
from etki.services import approval_service
from etki.wiki import read_page
from etki_tui.config import load_config
from etki_tui.hafiza.pane import MemoryPane
from etki_tui.hafiza.reader import PAGE_TEXT_CHARS
from etki_tui.queue.bars import CaseDetail
from etki_tui.render import DETAIL_TEXT_CHARS
from etki_tui.screens.confirm import ConfirmRuling
from tests.cli_support import run_etki
from tests.conftest import REPO_ROOT, tui_decision
from tests.test_loader import CONTRACT, MODULES, write_project
from tests.test_tui_pilot import current, goto, make_app, settle, shown

ANCHOR = "YAML aliases are not allowed (anchor '&a0')"


def bomb(levels: int, indent: str = "  ") -> list[str]:
    """The lines of a ``levels``-deep alias bomb as a mapping at ``indent``: level 0 is
    nine strings, level n nine aliases of level n-1 (9**levels strings expanded)."""
    lines = [f"{indent}a0: &a0 [{', '.join(['lol'] * 9)}]"]
    for i in range(1, levels):
        lines.append(f"{indent}a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]")
    return lines


def modules_with_bomb(levels: int = 9) -> tuple[str, int]:
    """``modules.yaml`` whose second module carries the bomb under an ignored key
    (modules may carry fields Etki does not read), and the line of ``&a0``."""
    head = MODULES.splitlines()
    at = head.index("- id: auth") + 3  # after path and summary of "auth"
    lines = head[:at] + ["  x-notes:"] + bomb(levels, "    ") + head[at:]
    return "\n".join(lines) + "\n", at + 2


def _env(tmp: Path, **more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ETKI_")}
    env.update(
        {
            "ETKI_DB_URL": f"sqlite:///{tmp}/etki.db",
            "ETKI_WIKI_DIR": str(tmp / "wiki-{project}"),
            "ETKI_REVIEWER": "Ayşe Yılmaz",
            "ETKI_RELATED_CONTEXT": "0",
            "PYTHONPATH": str(REPO_ROOT),
        },
        **more,
    )
    return env


def etki(tmp: Path, *argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``etki ARGV`` (``etki.cli.main``) run in this process (:func:`tests.cli_support.run_etki`)."""
    return run_etki([*argv], env=_env(tmp, **env), cwd=tmp)  # in this process: tests/cli_support.py


# --- YAML: anchors and aliases refused, before anything is expanded -------------------------


def test_nine_level_alias_bomb_in_modules_yaml_is_refused(tmp_path):
    text, line = modules_with_bomb(9)
    root = write_project(tmp_path / "p", {"modules.yaml": text})
    with pytest.raises(ProjectFormatError) as info:
        load_project(root)
    err = info.value
    assert Path(err.path).name == "modules.yaml" and err.line == line
    assert str(err).endswith(
        f"modules.yaml:{line}: {ANCHOR}; write the value out where it is used"
    ), str(err)
    # the command: exit 2, one line naming the file and line, nothing stored
    run = etki(tmp_path, "init", str(root))
    assert run.returncode == 2, run.stderr
    assert f"modules.yaml:{line}: {ANCHOR}" in run.stderr
    assert "Traceback" not in run.stderr and not (tmp_path / "wiki-demo").exists()


def test_seven_level_alias_bomb_in_contract_frontmatter_is_refused(tmp_path):
    body = CONTRACT.split("---\n", 2)[2]
    contract = "---\nid: MSA\nx-notes:\n" + "\n".join(bomb(7)) + "\n---\n" + body
    root = write_project(tmp_path / "p", {"contracts/msa.md": contract})
    with pytest.raises(ProjectFormatError) as info:
        load_project(root)
    assert Path(info.value.path).name == "msa.md" and info.value.line == 4
    assert f"msa.md:4: {ANCHOR}" in str(info.value)


@pytest.mark.parametrize(
    "rel, text, line",
    [
        ("etki.yaml", "id: demo\nname: &n Demo\nlanguages: [en]\n", 2),
        (
            "etki.yaml",
            ("id: demo\nname: Demo\nreviewers:\n  - &r {name: A, role: approver}\n  - *r\n"),
            4,
        ),
        (
            "workitems.yaml",
            (
                "- id: WI-1\n  title: T\n  modules: &m [core]\n- id: WI-2\n"
                "  title: U\n  modules: *m\n"
            ),
            3,
        ),
        ("edge_vocabulary.yaml", "types:\n  x: &a0 {aliases: [y]}\n", 2),
        (
            "edges.yaml",
            ("edges:\n  - &e {source: 'MSA#1.1', target: 'module:core', type: depends_on}\n"),
            2,
        ),
        ("modules.yaml", "- id: core\n  summary: *undefined\n", 2),
    ],
)
def test_every_project_yaml_file_refuses_anchors_and_aliases(tmp_path, rel, text, line):
    files: dict[str, str | None] = {rel: text}
    if rel == "workitems.yaml":
        files["workitems.json"] = None
    root = write_project(tmp_path / "p", files)  # None: the file is not written
    with pytest.raises(ProjectFormatError) as info:
        load_project(root)
    assert Path(info.value.path).name == rel and info.value.line == line, str(info.value)
    assert "YAML aliases are not allowed" in str(info.value)


def test_wiki_pages_and_the_desk_config_refuse_aliases(tmp_path):
    page = tmp_path / "DEC-x.md"
    page.write_text(
        "---\ncase_id: x\n" + "\n".join(bomb(9, "")) + "\n---\n# Body\n", encoding="utf-8"
    )
    with pytest.raises(ProjectFormatError) as info:
        read_page(page)
    assert f"DEC-x.md:3: {ANCHOR}" in str(info.value)
    config = tmp_path / "config.yaml"
    config.write_text("keymap:\n  approve: A\nx:\n" + "\n".join(bomb(9)) + "\n", encoding="utf-8")
    loaded = load_config(str(config), known_ids=["approve"])
    assert loaded.keymap == {}  # nothing of a refused file applies
    assert len(loaded.warnings) == 1 and "(line 4)" in loaded.warnings[0]
    assert ANCHOR in loaded.warnings[0]


def test_what_etki_writes_never_holds_an_anchor():
    shared = ["MSA#1.1", "MSA#2.1"]
    text = dump_frontmatter({"cited": shared, "again": shared, "nested": {"x": shared}}, "B\n")
    assert "&" not in text and "*" not in text
    assert split_frontmatter(text, "p.md") == (
        {"cited": shared, "again": shared, "nested": {"x": shared}},
        "B\n",
    )


def test_nesting_is_capped():
    deep = "[" * (MAX_YAML_DEPTH + 1) + "]" * (MAX_YAML_DEPTH + 1)
    with pytest.raises(ProjectFormatError, match=f"deeper than {MAX_YAML_DEPTH} levels"):
        load_yaml(deep, "deep.yaml")
    ok = "[" * MAX_YAML_DEPTH + "]" * MAX_YAML_DEPTH
    assert load_yaml(ok, "ok.yaml") is not None


# --- requests: one too-long row is refused, the others are stored ----------------------------

GOOD = [
    {"id": "R-1", "text": "Mobil uygulama istiyoruz"},
    {"id": "R-3", "text": "Please add SSO", "title": "SSO"},
]


def _stored(tmp: Path) -> list[tuple[str, int]]:
    conn = sqlite3.connect(tmp / "etki.db")
    try:
        return sorted(conn.execute("SELECT request_id, length(text) FROM cases"))
    finally:
        conn.close()


def test_an_18_mb_request_is_refused_and_the_good_rows_are_stored(tmp_path):
    big = {
        "id": "R-BIG",
        "title": "pasted log",
        "text": ("ERROR export failed at step 42, retrying. " * 430_000)[:18_000_000],
    }
    rows = [GOOD[0], big, GOOD[1]]
    root = write_project(
        tmp_path / "p", {"requests.jsonl": "".join(json.dumps(r) + "\n" for r in rows)}
    )
    run = etki(tmp_path, "init", str(root))
    assert run.returncode == 2, run.stderr  # documented: bad input, the rest is stored
    where = (
        f"{root / 'requests.jsonl'}:2: field 'text' request 'R-BIG' is 18,000,000 "
        f"characters; at most {DEFAULT_MAX_REQUEST_CHARS:,} (ETKI_MAX_REQUEST_CHARS)"
    )
    assert where in run.stderr, run.stderr
    assert "requests: 2, new cases triaged: 2" in run.stdout
    assert "refused: 1 request row that" in run.stdout
    assert _stored(tmp_path) == [("R-1", len(GOOD[0]["text"])), ("R-3", len(GOOD[1]["text"]))]
    pages = sorted(p.name for p in (tmp_path / "wiki-demo").rglob("*.md"))
    assert pages and not any("R-BIG" in (tmp_path / "wiki-demo" / p).name for p in pages)
    # run again: still refused, nothing stored twice
    again = etki(tmp_path, "init", str(root))
    assert again.returncode == 2 and where in again.stderr
    assert "new cases triaged: 0" in again.stdout and len(_stored(tmp_path)) == 2


def test_the_request_cap_is_configurable_and_covers_every_field(tmp_path):
    rows = [
        GOOD[0],
        {"id": "R-T", "title": "x" * 41, "text": "short"},
        {"id": "R-X", "text": "y" * 40},
        GOOD[1],
    ]
    root = write_project(
        tmp_path / "p", {"requests.jsonl": "".join(json.dumps(r) + "\n" for r in rows)}
    )
    project = load_project(root, max_request_chars=40)
    assert [r.id for r in project.requests] == ["R-1", "R-X", "R-3"]
    assert len(project.refused) == 1
    assert (
        "requests.jsonl:2: field 'title' request 'R-T' is 41 characters; at most 40"
        in project.refused[0]
    )
    run = etki(tmp_path, "init", str(root), ETKI_MAX_REQUEST_CHARS="40")
    assert run.returncode == 2 and "requests.jsonl:2: field 'title'" in run.stderr
    assert [r for r, _ in _stored(tmp_path)] == ["R-1", "R-3", "R-X"]
    for bad in ("0", "-5", "lots", "1e6", "٣"):
        with pytest.raises(InputError, match="ETKI_MAX_REQUEST_CHARS"):
            Settings.from_env({"ETKI_MAX_REQUEST_CHARS": bad})
    run = etki(tmp_path, "queue", ETKI_MAX_REQUEST_CHARS="lots")
    assert (
        run.returncode == 2 and "ETKI_MAX_REQUEST_CHARS: 'lots' is not a whole number" in run.stderr
    )
    assert Settings.from_env({}).max_request_chars == 200_000
    assert Settings.from_env({"ETKI_MAX_REQUEST_CHARS": "1_000"}).max_request_chars == 1000


# --- the desk: a huge stored case never blocks the keys --------------------------------------

BIG_CASE = "req-demo-ffff0001"


def test_a_5_mb_case_stored_before_the_cap_keeps_the_keys_working(tui_world):
    """The case is written straight into the store (as one stored before the cap
    existed). Highlighting it renders a bounded head with the count of the characters
    left out; keys are handled while it is highlighted (move away and back, open the
    ruling confirmation). Each step waits for a state, never for time."""
    text = ("Line of a pasted log: export failed at step 42 with code 17.\n" * 90_000)[
        :5_000_000
    ].strip()
    tui_world.repo.add_cases(
        "demo",
        [
            (
                Request("BIG", text, "Huge pasted log"),
                tui_decision(BIG_CASE, "IN_SCOPE", ("MSA-2024-01#3.2",), confidence=0.5),
            )
        ],
    )
    assert len(tui_world.repo.case(BIG_CASE).text) == len(text) > 4_900_000

    async def body() -> None:
        app = make_app(tui_world)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await goto(pilot, BIG_CASE)
            await settle(pilot)
            detail = app.query_one(CaseDetail)
            static = detail.query_one("#detail-body")
            lines = shown(static, 76, 400)
            hidden = len(text) - DETAIL_TEXT_CHARS
            assert f"… {hidden:,} more characters not shown ({len(text):,} in all)" in lines
            assert static.virtual_size.height < 1_000  # the head only reached the layout
            await pilot.press("up")  # a key while the 5 MB case is highlighted
            assert current(app) != BIG_CASE
            await settle(pilot)
            assert "more characters not shown" not in shown(static, 76, 400)
            await pilot.press("down")
            assert current(app) == BIG_CASE
            await settle(pilot)
            assert "more characters not shown" in shown(static, 76, 400)
            await pilot.press("a")  # the ruling keys too
            assert isinstance(app.screen, ConfirmRuling)
            await pilot.press("escape")
            assert not isinstance(app.screen, ConfirmRuling)
            assert tui_world.repo.case(BIG_CASE).ruling is None

    asyncio.run(body())


def test_the_decision_page_of_a_5_mb_case_opens_folded_in_hafiza(tui_world):
    """Ruled, the huge case gets a decision page holding its whole text (the wiki is a
    projection of the DB). Hafıza lays out a bounded head of it, says what it left out,
    and the reader's keys work while it is shown."""
    text = ("Paragraph of a pasted log: the export failed at step 42 with code 17.\n\n" * 70_000)[
        :5_000_000
    ].strip()
    tui_world.repo.add_cases(
        "demo",
        [
            (
                Request("BIG", text, "Huge pasted log"),
                tui_decision(BIG_CASE, "IN_SCOPE", ("MSA-2024-01#3.2",), confidence=0.5),
            )
        ],
    )
    outcome = approval_service(tui_world.repo, tui_world.settings).rule(
        BIG_CASE, "reject", reason="Outside the remit.", reviewer="ayse"
    )
    assert outcome.wiki_error is None
    page = next((tui_world.wiki / "decisions").glob(f"*{BIG_CASE}.md"))
    assert page.stat().st_size > 4_900_000  # the whole text

    async def body() -> None:
        app = make_app(tui_world)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("2")
            await settle(pilot)
            await pilot.press("enter")  # the first precedent's page
            await settle(pilot)
            reader = app.query_one(MemoryPane).reader
            first = reader.path
            app.load_page(f"decisions/{page.name}", "push")
            await settle(pilot)
            assert reader.path == f"decisions/{page.name}"
            markdown = reader.query_one("#memory-page", Markdown)
            assert "more characters of this page not shown" in markdown.source
            assert len(markdown.source) < PAGE_TEXT_CHARS + 500
            await pilot.press("b")  # back: a key handled while the huge page is shown
            await settle(pilot)
            assert reader.path == first

    asyncio.run(body())
