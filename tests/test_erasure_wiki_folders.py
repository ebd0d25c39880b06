"""Erasure and the wiki folders a case was projected into (issue 30 item 2).

The desk projects into folder A (its ``ETKI_WIKI_DIR``); ``etki erase`` then runs with
the wiki off, or with another ``ETKI_WIKI_DIR``. Before issue 30 it said "erasure
proven" while the case's pages stayed in A. Now every projection records its folder in
the store (``wiki_folders``), the erasure clears the case's pages (and the search index
and render cache beside the folder) from each recorded folder, and the proof searches
them all: "proven" only when A holds nothing of the case, else the folder is named.
Real SQLite files and real folders.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from etki.config import Settings
from etki.domain import Request
from etki.erasure import erase_case
from etki.store import CaseFileRepository
from etki.wiki import fts
from etki.wiki.paths import is_case_page
from etki.wiki.projection import LOCK_NAME, WikiProjector
from etki.wiki.search import search
from etki.wiki.writer import owned_files
from tests.cli_support import run_etki
from tests.factories import frozen_clock, make_decision, make_project, make_request

VICTIM = "req-demo-victim"
PHRASE = "Çiğdem Straße Ağaç ZWF8841"
MARKER = b"ZWF8841"


def _store(tmp_path: Path) -> tuple[CaseFileRepository, str]:
    url = f"sqlite:///{tmp_path}/etki.db"
    repo = CaseFileRepository(url, clock=frozen_clock)
    repo.save_project(make_project(), "sha256:abc", b"{}\n")
    repo.add_cases(
        "demo",
        [
            (
                Request(id="R1", title=f"SSO for {PHRASE}", text=f"{PHRASE}: SSO fails"),
                make_decision(VICTIM),
            ),
            (make_request("R2", "SSO login fails again"), make_decision("req-demo-2")),
        ],
    )
    repo.record_ruling(VICTIM, "reject", "ayse", f"{PHRASE} is not staff")
    repo.record_ruling("req-demo-2", "approve", "jurgen", "")
    return repo, url


def _project_into_a(repo: CaseFileRepository, url: str, tmp_path: Path) -> Path:
    """The desk's wiki in folder A, with its search index built: returns A."""
    desk = Settings(db_url=url, wiki_dir=str(tmp_path / "A-{project}"), reviewer="ayse")
    WikiProjector(repo, desk).rebuild("demo")
    folder = desk.wiki_path("demo")
    assert folder is not None
    assert any(is_case_page(rel, VICTIM) for rel in owned_files(folder))
    assert search(folder, PHRASE, backend="fts")  # builds the FTS5 index beside A
    assert fts.index_path(folder).exists()
    return folder


def _holding(folder: Path) -> list[str]:
    """Files in and beside ``folder`` that hold the case's page name or its phrase."""
    out = [rel for rel in owned_files(folder) if is_case_page(rel, VICTIM)]
    for path in [*folder.rglob("*"), *folder.parent.glob(f".{folder.name}.*")]:
        if path.is_file() and MARKER in path.read_bytes():
            out.append(str(path))
    return out


@pytest.mark.parametrize("wiki", ["off", "another folder"])
def test_erase_clears_the_folder_the_case_was_projected_into(tmp_path, wiki):
    repo, url = _store(tmp_path)
    folder = _project_into_a(repo, url, tmp_path)
    assert repo.wiki_folders("demo") == [folder.resolve()]
    erasing = Settings(
        db_url=url,
        wiki_dir=None if wiki == "off" else str(tmp_path / "B-{project}"),
        reviewer="ayse",
    )
    outcome = erase_case(repo, erasing, VICTIM, "KVKK 2026/31", wait_s=10)
    assert _holding(folder) == []
    assert outcome.complete, [p.line() for p in outcome.places]
    named = [p for p in outcome.places if p.what == f"wiki {folder.resolve()}"]
    assert len(named) == 1 and not named[0].held
    # the other case's pages are the DB's to write again: the next projection does
    WikiProjector(repo, Settings(db_url=url, wiki_dir=str(tmp_path / "A-{project}"))).rebuild(
        "demo"
    )
    assert not _holding(folder)
    assert (folder / "index.md").is_file()
    repo.dispose()


def test_erase_names_the_recorded_folder_it_could_not_clear(tmp_path):
    """Folder A no longer looks like Etki's wiki (its lock file gone, a stranger's file
    in it), so Etki may not write there: the erasure does not say "proven" and names A."""
    repo, url = _store(tmp_path)
    folder = _project_into_a(repo, url, tmp_path)
    (folder / LOCK_NAME).unlink()
    (folder / "notes.txt").write_text("someone else's file\n", encoding="utf-8")
    erasing = Settings(db_url=url, wiki_dir=None, reviewer="ayse")
    outcome = erase_case(repo, erasing, VICTIM, "KVKK 2026/32", wait_s=10)
    assert not outcome.complete
    held = [p for p in outcome.held if p.what == f"wiki {folder.resolve()}"]
    assert held, [p.line() for p in outcome.places]
    assert outcome.wiki_error is not None and str(folder.resolve()) in outcome.wiki_error
    repo.dispose()


def test_etki_erase_with_the_wiki_off_removes_the_desks_pages(tmp_path):
    """The command as a reviewer runs it: ``ETKI_WIKI_DIR=`` (wiki off) on the command
    line, the desk's wiki elsewhere; "erasure proven" and folder A is clean."""
    repo, url = _store(tmp_path)
    folder = _project_into_a(repo, url, tmp_path)
    repo.dispose()
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "ETKI_DB_URL": url,
        "ETKI_WIKI_DIR": "",
        "ETKI_REVIEWER": "ayse",
    }
    done = run_etki(["erase", VICTIM, "--reason", "KVKK 2026/33"], env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert _holding(folder) == []  # before issue 30: "proven", and A kept the pages
    assert f"{VICTIM}: erasure proven" in done.stdout
    assert f"wiki {folder.resolve()}" in done.stdout
