"""The HITL hook's deferred fsync (:mod:`etki.wiki.flusher`): one long-lived thread per
projector, flushed and stopped cleanly, failures raised by the next flush. Real files,
real threads."""

from __future__ import annotations

import os
import threading

import pytest

from etki.wiki.flusher import Flusher
from etki.wiki.projection import WikiProjector
from tests.wiki_support import RULINGS, build_world, tree_digest


def _fsync_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "etki-wiki-fsync"]


def test_every_ruling_is_flushed_by_one_long_lived_thread(tmp_path):
    world = build_world(tmp_path, rule=False)
    projector = WikiProjector(world.repo, world.settings)
    projector.rebuild("demo")
    before = len(_fsync_threads())
    seen: set[int | None] = set()
    for cid, action, who, reason in RULINGS:
        world.repo.record_ruling(cid, action, who, reason)
        projector.project_case(cid)
        seen.add(projector._flusher._thread.ident if projector._flusher._thread else None)
    projector.flush()
    assert len(seen) == 1 and None not in seen  # the same thread for every ruling
    assert len(_fsync_threads()) == before + 1
    projector.close()
    assert len(_fsync_threads()) == before  # stopped
    digest = tree_digest(world.wiki)
    fresh = WikiProjector(world.repo, world.settings)
    fresh.rebuild("demo")
    assert tree_digest(world.wiki) == digest
    world.repo.dispose()


def test_a_failed_fsync_is_raised_by_the_next_flush_once(tmp_path):
    (tmp_path / "target.md").write_text("x\n")
    (tmp_path / "page.md").write_text("y\n")
    os.symlink(tmp_path / "target.md", tmp_path / "link.md")  # never followed: ELOOP
    flusher = Flusher()
    fd = os.open(tmp_path / "page.md", os.O_RDONLY)
    held = [fd]
    flusher.submit(tmp_path, ("page.md", "link.md", "gone.md"), held)
    assert held == []  # taken over
    with pytest.raises(OSError) as err:
        flusher.flush()
    assert "link.md" in str(err.value)
    with pytest.raises(OSError):
        os.fstat(fd)  # the held descriptor was closed by the thread
    flusher.flush()  # reported once
    flusher.submit(tmp_path, ("page.md",), [])  # a job after a failure still runs
    flusher.close()
    assert not flusher._thread


def test_close_then_submit_starts_again_and_nothing_to_do_starts_nothing(tmp_path):
    (tmp_path / "page.md").write_text("y\n")
    flusher = Flusher()
    flusher.submit(tmp_path, (), [])
    assert flusher._thread is None
    flusher.submit(tmp_path, ("page.md",), [])
    flusher.close()
    flusher.submit(tmp_path, ("page.md",), [])
    assert flusher._thread is not None and flusher._thread.is_alive()
    flusher.close()
