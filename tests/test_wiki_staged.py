"""Issue 32 item 4: a top-level wiki folder that does not exist yet is written directly
into a hidden folder and renamed into place (:mod:`etki.wiki.staged`); the tree is the
same, byte for byte, as one written page by page, and nothing is left behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from etki.wiki.writer import UnsafeWikiPath, owned_files, sync_tree

FILES = {
    "index.md": b"---\nkind: index\n---\n# Index\n",
    "disputed.md": b"# Disputed\n",
    "decisions/DEC-1 \xc4\xb0ade.md": b"one\n",
    "decisions/DEC-2.md": b"two\n" * 1000,
    "precedents/P-1.md": b"",
    "entities/contracts/C-1.md": b"contract\n",
    "entities/modules/m.x.md": b"module\n",
}


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and not p.name.startswith(".")
    }


def _hidden(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.name.startswith(".") and p.is_dir())


@pytest.mark.parametrize("durable", [True, False])
def test_fresh_folders_hold_the_same_bytes_and_nothing_hidden_stays(tmp_path, durable):
    report = sync_tree(tmp_path / "w", FILES, prune=True, durable=durable)
    assert _tree(tmp_path / "w") == FILES
    assert sorted(report.written) == sorted(FILES)
    assert _hidden(tmp_path / "w") == []
    # the same tree written page by page (folders already there) is the same
    page_by_page = tmp_path / "p"
    for top in ("decisions", "precedents", "entities"):
        (page_by_page / top).mkdir(parents=True)
    sync_tree(page_by_page, FILES, prune=True, durable=durable)
    assert _tree(page_by_page) == FILES
    again = sync_tree(tmp_path / "w", FILES, prune=True)
    assert again.written == () and sorted(again.unchanged) == sorted(FILES)


def test_a_failed_fresh_folder_leaves_nothing(tmp_path):
    root = tmp_path / "w"
    bad = {"decisions/a.md": b"a\n", "decisions/a.md/b.md": b"b\n"}  # a.md: file and folder
    with pytest.raises(OSError):
        sync_tree(root, bad, prune=True)
    assert not (root / "decisions").exists()
    assert _hidden(root) == []


def test_a_leftover_hidden_folder_is_removed_and_never_a_page(tmp_path):
    root = tmp_path / "w"
    root.mkdir()
    left = root / ".etki-99999-7.dir" / "decisions"
    left.mkdir(parents=True)
    (left / "DEC-9.md").write_bytes(b"half")
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / "keep.md").write_bytes(b"keep")
    os.symlink(target, root / ".etki-99999-8.dir")
    assert all(not p.startswith(".etki-99999") for p in owned_files(root))
    sync_tree(root, FILES, prune=True)
    assert _hidden(root) == [] and not (root / ".etki-99999-8.dir").is_symlink()
    assert (target / "keep.md").read_bytes() == b"keep"  # the link removed, never followed
    assert _tree(root) == FILES


def test_a_symlinked_top_folder_is_still_refused(tmp_path):
    root = tmp_path / "w"
    root.mkdir()
    target = tmp_path / "elsewhere"
    target.mkdir()
    os.symlink(target, root / "decisions")
    with pytest.raises(UnsafeWikiPath):
        sync_tree(root, FILES, prune=True)
    assert list(target.iterdir()) == []
