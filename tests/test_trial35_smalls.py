"""Small faults a PMO trial of issue 35 found: "1 cases written" (the count's noun in
the singular for one), and an untitled request's change request headed by its stored
title cut at 80 characters ("…: İK iş…", read as a word cut), where the README
promises the whole title: the whole first sentence of its text. (The delete prompt's
case count: tests/test_project_lifecycle.py.) Real SQLite stores, the real CLI."""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path

from docx import Document

from etki.config import Settings
from etki.services import Desk, init_project
from etki.store import CaseFileRepository
from tests.cli_support import run_etki

SAMPLE = Path(__file__).resolve().parents[1] / "sample_project"
REVIEWER = "Ayşe Yılmaz"  # an approver of sample_project/etki.yaml
TEXT = (
    "Pozisyon aramasındaki Fonksiyonel Büro filtresinde alt kategoriler yok: İK iş "
    "sahiplerinin istediği şekilde tek tek fonksiyonel bürolar listelenmiyor. Adaylar "
    "belirli bir fonksiyonel büroyu seçip pozisyonları buna göre arayabilmeli."
)
SENTENCE = TEXT.split(". ", 1)[0] + "."


def _world(tmp: Path, extra: tuple[dict[str, str], ...] = ()) -> tuple[Desk, dict[str, str]]:
    project = tmp / "project"
    shutil.copytree(SAMPLE, project)
    rows = ({"id": "TM-V-003", "text": TEXT, "submitted_by": "Tekil Gönderen"}, *extra)
    with (project / "requests.jsonl").open("a", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    url = f"sqlite:///{tmp}/etki.db"
    repo = CaseFileRepository(url)
    settings = Settings(db_url=url, reviewer=REVIEWER)
    init_project(project, repo, settings, related_context=False)
    env = {**os.environ, "ETKI_DB_URL": url, "ETKI_REVIEWER": REVIEWER}
    env.pop("ETKI_WIKI_DIR", None)
    return Desk(settings, repo), env


def test_an_untitled_requests_cr_carries_its_whole_first_sentence(tmp_path: Path) -> None:
    desk, _env = _world(tmp_path)
    try:
        case = next(c for c in desk.repo.cases("demo") if c.request_id == "TM-V-003")
        assert case.title.endswith("İK iş…")  # the stored title: the first line cut at 80
        desk.rule(case.case_id, "convert_to_cr", reason="yeni bir istek")
        name, md = desk.cr_document(case.case_id, "md")
        heading = md.decode("utf-8").splitlines()[0]
        assert heading == f"# Change request {name.removesuffix('.md')}: {SENTENCE}"
        _, html = desk.cr_document(case.case_id, "html")
        assert f": {SENTENCE}</h1>" in html.decode("utf-8")
        docname, data = desk.cr_document(case.case_id, "docx")
        doc = Document(io.BytesIO(data))
        title = f"Change request {docname.removesuffix('.docx')}: {SENTENCE}"
        assert doc.core_properties.title == title
        assert doc.paragraphs[0].text == title
        # a titled request keeps its own title whole
        other = next(c for c in desk.repo.cases("demo") if c.request_id == "DEMO-005")
        desk.rule(other.case_id, "convert_to_cr", reason="x")
        _, md = desk.cr_document(other.case_id, "md")
        assert md.decode("utf-8").splitlines()[0].endswith(f": {other.title}")
    finally:
        desk.repo.dispose()


SHORT = (
    "We need a new module for e.g. printing version 4.2 receipts. "
    "It must also support installments. Thanks."
)
LONG = (
    "We need a new module that prints and e-mails the receipts of every sale made at "
    "the front desk. It must also support installments. Thanks."
)


def test_an_untitled_requests_cr_heading_is_its_first_sentence_only(tmp_path: Path) -> None:
    # a three-sentence untitled request, under 80 characters' first sentence, stored
    # both whole (short) and cut at 80 (long); "e.g." and "4.2" stay inside the sentence
    extra = ({"id": "PMO-S-1", "text": SHORT}, {"id": "PMO-S-2", "text": LONG})
    desk, _env = _world(tmp_path, extra)
    try:
        want = {
            "PMO-S-1": "We need a new module for e.g. printing version 4.2 receipts.",
            "PMO-S-2": (
                "We need a new module that prints and e-mails the receipts of every sale "
                "made at the front desk."
            ),
        }
        for rid, sentence in want.items():
            case = next(c for c in desk.repo.cases("demo") if c.request_id == rid)
            desk.rule(case.case_id, "convert_to_cr", reason="new work")
            name, md = desk.cr_document(case.case_id, "md")
            heading = md.decode("utf-8").splitlines()[0]
            assert heading == f"# Change request {name.removesuffix('.md')}: {sentence}"
            docname, data = desk.cr_document(case.case_id, "docx")
            title = f"Change request {docname.removesuffix('.docx')}: {sentence}"
            assert Document(io.BytesIO(data)).core_properties.title == title
    finally:
        desk.repo.dispose()


def test_one_case_written_is_said_in_the_singular(tmp_path: Path) -> None:
    desk, env = _world(tmp_path)
    desk.repo.dispose()
    listed = run_etki(["queue", "--all", "--json"], env=env, cwd=tmp_path)
    rows = json.loads(listed.stdout)
    one = next(r["case_id"] for r in rows if r["request_id"] == "TM-V-003")
    done = run_etki(
        ["queue", "--all", "--submitter", "nobody-at-all", "--output", "none.csv"],
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0 and done.stderr == "0 cases written to none.csv\n"
    done = run_etki(
        ["queue", "--all", "--submitter", "tekil", "--output", "one.csv"], env=env, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == "1 case written to one.csv\n"
    assert one in (tmp_path / "one.csv").read_text("utf-8-sig")


def test_counts_are_said_in_the_singular_and_the_plural() -> None:
    from etki.text import plural

    assert [f"{n} {plural(n, 'case')}" for n in (0, 1, 2)] == ["0 cases", "1 case", "2 cases"]
    assert plural(1, "was", "were") == "was" and plural(3, "was", "were") == "were"


def test_import_and_init_say_one_request_and_one_contract(tmp_path: Path) -> None:
    desk, env = _world(tmp_path)
    desk.repo.dispose()
    rows = tmp_path / "one.jsonl"
    rows.write_text(json.dumps({"id": "PMO-ONE", "text": "Add a logo."}) + "\n", "utf-8")
    done = run_etki(["import", str(rows), "--project", "demo"], env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "imported 1 new request"
    init = run_etki(["init", str(tmp_path / "project")], env=env, cwd=tmp_path)
    assert init.returncode == 0, init.stderr
    knowledge = next(ln for ln in init.stdout.splitlines() if ln.startswith("  knowledge: "))
    assert knowledge.startswith("  knowledge: 2 contracts, ") and "(s)" not in knowledge
