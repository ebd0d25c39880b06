"""A wiki written by a read-only rebuild and the erasure (issue 30 item 2, the gap left).

``python -m etki.wiki rebuild`` (also ``etki wiki rebuild``) opens the store read-only.
Before, it wrote the pages into its ``ETKI_WIKI_DIR`` without recording that folder, so
an ``etki erase`` run with the wiki off (or another folder) said "erasure proven" while
the case's pages stayed there. Now the rebuild records its folder on a short writable
connection of its own before writing; a seat that may not write the store at all (a
PostgreSQL role with SELECT only) is refused for a folder the store does not know, and
nothing is written there, while a folder the store knows is rebuilt as before.
Real SQLite files, the PostgreSQL on 127.0.0.1:5432 (skipped when absent), real folders.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import pytest
from sqlalchemy import text

from etki.wiki.paths import is_case_page
from etki.wiki.writer import owned_files
from tests.cli_support import run_etki
from tests.pg import PG_URL, Schema
from tests.test_erasure_wiki_folders import MARKER, VICTIM, _store


def _env(tmp_path: Path, url: str, wiki: str) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "ETKI_DB_URL": url,
        "ETKI_WIKI_DIR": wiki,
        "ETKI_REVIEWER": "ayse",
    }


def _rebuild(tmp_path: Path, url: str, letter: str) -> subprocess.CompletedProcess[str]:
    """``python -m etki.wiki rebuild`` on the store ``url`` into the folder
    ``tmp_path/<letter>-{project}`` (its ``ETKI_WIKI_DIR``)."""
    return run_etki(
        ["rebuild"],
        env=_env(tmp_path, url, str(tmp_path / f"{letter}-{{project}}")),
        cwd=tmp_path,
        program="etki.wiki",
    )


def _victim_pages(folder: Path) -> list[str]:
    return [rel for rel in owned_files(folder) if is_case_page(rel, VICTIM)]


def test_erase_clears_a_folder_written_by_a_read_only_rebuild(tmp_path: Path) -> None:
    repo, url = _store(tmp_path)
    repo.dispose()
    folder = tmp_path / "C-demo"
    built = _rebuild(tmp_path, url, "C")
    assert built.returncode == 0, built.stderr
    assert _victim_pages(folder)
    erased = run_etki(
        ["erase", VICTIM, "--reason", "KVKK 2026/34"], env=_env(tmp_path, url, ""), cwd=tmp_path
    )
    assert erased.returncode == 0, erased.stdout + erased.stderr
    # before: "erasure proven", and folder C kept the case's pages
    assert _victim_pages(folder) == []
    assert not any(MARKER in p.read_bytes() for p in folder.rglob("*.md"))
    assert f"wiki {folder.resolve()}" in erased.stdout
    assert f"{VICTIM}: erasure proven" in erased.stdout


@pytest.mark.postgres
def test_a_seat_that_may_not_write_the_store_rebuilds_only_known_folders(
    tmp_path: Path, pg_schema: Schema
) -> None:
    """A PostgreSQL role with SELECT only: its rebuild into a folder the store does not
    know is refused (exit 2, the folder named, nothing written); the folder the desk
    recorded is rebuilt as before."""
    from etki.config import Settings
    from etki.domain import Request
    from etki.store import CaseFileRepository
    from etki.wiki.projection import WikiProjector
    from tests.factories import make_decision, make_project

    repo = CaseFileRepository(pg_schema.url)
    repo.save_project(make_project(), "sha256:abc", b"{}\n")
    repo.add_cases(
        "demo", [(Request(id="R1", title="SSO ZWF8841", text="x"), make_decision(VICTIM))]
    )
    repo.record_ruling(VICTIM, "reject", "ayse", "not ours")
    known = tmp_path / "A-demo"
    WikiProjector(
        repo, Settings(db_url=pg_schema.url, wiki_dir=str(tmp_path / "A-{project}"))
    ).rebuild("demo")
    repo.dispose()
    role = f"etki_reader_{uuid.uuid4().hex[:8]}"
    with pg_schema.admin.begin() as conn:
        conn.execute(text(f'CREATE ROLE "{role}" LOGIN'))
        conn.execute(text(f'GRANT USAGE ON SCHEMA "{pg_schema.name}" TO "{role}"'))
        conn.execute(text(f'GRANT SELECT ON ALL TABLES IN SCHEMA "{pg_schema.name}" TO "{role}"'))
    try:
        url = pg_schema.url.replace("//postgres@", f"//{role}@")
        assert url != pg_schema.url and PG_URL.split("@")[1] in url
        unknown = tmp_path / "B-demo"
        refused = _rebuild(tmp_path, url, "B")
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert f"the wiki folder {unknown.resolve()} of project 'demo' is not recorded" in (
            refused.stderr
        )
        assert str(known.resolve()) in refused.stderr  # the folder it may use instead
        assert not unknown.exists() or _victim_pages(unknown) == []
        rebuilt = _rebuild(tmp_path, url, "A")
        assert rebuilt.returncode == 0, rebuilt.stderr
        assert _victim_pages(known)
    finally:
        with pg_schema.admin.begin() as conn:
            conn.execute(text(f'DROP OWNED BY "{role}"'))
            conn.execute(text(f'DROP ROLE "{role}"'))
