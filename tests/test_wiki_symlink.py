"""Issue 11, item 1 (first part): a wiki folder that is a symlink is never written,
pruned or read through, and ``wiki show`` refuses a page that is a symlink. The attack:
``.etki/wiki-demo`` a symlink to another folder, then ``rebuild`` overwrote that
folder's ``index.md`` and deleted its ``decisions/*.md``. Real files, real processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from etki.wiki.paths import decision_path
from etki.wiki.writer import UnsafeWikiPath, drift_tree, owned_files, read_page, sync_tree
from tests.wiki_support import build_world


def _victim(folder: Path) -> dict[str, bytes]:
    """Another folder that looks like a wiki: what an attacker would point at."""
    files = {
        "index.md": b"their index\n",
        "decisions/DEC-theirs.md": b"their page\n",
        "entities/modules/x.md": b"their entity\n",
        "notes.txt": b"their notes\n",
    }
    for rel, data in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    return files


def _unchanged(folder: Path, files: dict[str, bytes]) -> None:
    found = {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }
    assert found == files


def test_a_symlinked_root_is_never_written_pruned_or_read(tmp_path: Path) -> None:
    other = tmp_path / "other"
    files = _victim(other)
    link = tmp_path / "wiki-demo"
    link.symlink_to(other, target_is_directory=True)
    with pytest.raises(UnsafeWikiPath, match="is a symlink"):
        sync_tree(link, {"index.md": b"ours\n"}, prune=True)
    for read in (owned_files, lambda root: drift_tree(root, {"index.md": b"ours\n"})):
        with pytest.raises(UnsafeWikiPath, match="set ETKI_WIKI_DIR to the real folder"):
            read(link)
    with pytest.raises(UnsafeWikiPath):
        read_page(link, "index.md")
    _unchanged(other, files)


def test_the_real_folder_named_directly_is_a_wiki_like_any_other(tmp_path: Path) -> None:
    real = tmp_path / "real"
    report = sync_tree(real, {"index.md": b"ours\n"}, prune=True)
    assert report.written == ("index.md",)
    assert read_page(real, "index.md") == b"ours\n"
    assert read_page(real, "disputed.md") is None


@pytest.fixture
def world(tmp_path):
    w = build_world(tmp_path)
    yield w
    w.repo.dispose()


def _run(world, *args: str, wiki: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, ETKI_DB_URL=world.db_url, ETKI_WIKI_DIR=wiki, PYTHONIOENCODING="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "etki.wiki", *args],
        env=env,
        cwd=world.tmp,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )


def test_rebuild_through_a_symlinked_wiki_folder_leaves_the_other_folder_alone(world):
    other = world.tmp / "other"
    files = _victim(other)
    (world.tmp / "wiki-demo").symlink_to(other, target_is_directory=True)
    done = _run(world, "rebuild", wiki=str(world.tmp / "wiki-{project}"))
    assert done.returncode != 0
    assert "is a symlink" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    _unchanged(other, files)


def test_show_refuses_a_page_that_is_a_symlink(world):
    wiki = str(world.tmp / "wiki-{project}")
    assert _run(world, "rebuild", wiki=wiki).returncode == 0
    secret = world.tmp / "secret.txt"
    secret.write_text("outside the wiki: do not print\n", encoding="utf-8")
    page = world.wiki / decision_path(world.repo.case("req-demo-0001"))
    page.unlink()
    page.symlink_to(secret)
    done = _run(world, "show", "req-demo-0001", "--project", "demo", wiki=wiki)
    assert done.returncode == 2
    assert "symlink" in done.stderr and "do not print" not in done.stdout + done.stderr
    assert _run(world, "show", "index", wiki=wiki).returncode == 0  # other pages still show


def test_a_folder_that_is_not_an_etki_wiki_is_left_alone(world):
    """ETKI_WIKI_DIR pointed at somebody's folder that looks like a wiki (index.md,
    decisions/) but that Etki never wrote: refused, nothing changed."""
    other = world.tmp / "docs" / "demo"  # ETKI_WIKI_DIR without {project}: DIR/demo
    files = _victim(other)
    done = _run(world, "rebuild", wiki=str(world.tmp / "docs"))
    assert done.returncode != 0
    assert "is not an Etki wiki" in done.stdout + done.stderr
    _unchanged(other, files)
    empty = world.tmp / "empty"
    empty.mkdir()
    (empty / "demo").mkdir()
    assert _run(world, "rebuild", wiki=str(empty)).returncode == 0  # an empty one is fine
    assert (empty / "demo" / "index.md").is_file()
