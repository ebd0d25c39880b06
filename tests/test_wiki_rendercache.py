"""The wiki's render cache (issue 15, :mod:`etki.wiki.rendercache`): a SQLite file beside
the wiki that lets a full sync take every page whose inputs did not change instead of
rendering it. What is counted is the projector's own ``render_counts`` (pages taken from
the cache, pages rendered) of its last full sync; the bytes are compared with a fresh
render every time (``verify`` never reads the cache)."""

from __future__ import annotations

import shutil
from pathlib import Path

from etki.erasure import erase_case
from etki.wiki import rendercache
from etki.wiki.projection import WikiProjector, _Mark
from tests.wiki_support import build_world, tree_digest


def _rebuild_fresh(world, wiki: Path) -> tuple[int, int]:  # noqa: ANN001 - a World
    """Delete the wiki folder (the cache beside it stays), rebuild it with a new
    projector (nothing in memory) and return (pages from the cache, pages rendered)."""
    shutil.rmtree(wiki, ignore_errors=True)
    projector = WikiProjector(world.repo, world.settings)
    projector.rebuild("demo")
    assert projector.verify("demo") == []
    return projector.render_counts["demo"]


def _cache_bytes(wiki: Path) -> bytes:
    path = rendercache.cache_path(wiki)
    return b"".join(
        Path(f"{path}{s}").read_bytes() for s in ("", "-wal") if Path(f"{path}{s}").exists()
    )


def test_the_cache_lives_beside_the_wiki_and_an_unchanged_rebuild_renders_nothing(tmp_path):
    world = build_world(tmp_path)
    world.projector.rebuild("demo")
    pages = len(world.projector.render("demo"))
    assert world.projector.render_counts["demo"] == (0, pages)
    path = rendercache.cache_path(world.wiki)
    assert path.parent == world.wiki.parent and path.is_file()
    assert not any(p.name.endswith(".sqlite3") for p in world.wiki.rglob("*"))
    before = tree_digest(world.wiki)
    assert _rebuild_fresh(world, world.wiki) == (pages, 0)
    assert tree_digest(world.wiki) == before


def test_a_ruling_or_a_note_renders_only_the_pages_that_read_it(tmp_path):
    world = build_world(tmp_path)
    world.projector.rebuild("demo")
    pages = len(world.projector.render("demo"))
    # a note moves no version: the case's audit stamp re-renders its own pages alone
    world.repo.add_note("req-demo-0004", "jurgen", "Asked the client for the map's size.")
    taken, rendered = _rebuild_fresh(world, world.wiki)
    assert (taken, rendered) == (pages - 1, 1)  # its decision page (no precedent, no CR)
    assert b"Asked the client" in (
        b"".join(p.read_bytes() for p in (world.wiki / "decisions").iterdir())
    )
    # a ruling: the case's page and every shared page that lists it
    world.repo.record_ruling("req-demo-0006", "reject", "ayse", "")
    taken, rendered = _rebuild_fresh(world, world.wiki)
    assert rendered >= 4 and taken >= pages - 4  # decision, index, disputed, contract, ...
    assert _rebuild_fresh(world, world.wiki)[1] == 0


def test_a_renderer_version_bump_renders_everything_again(tmp_path, monkeypatch):
    world = build_world(tmp_path)
    world.projector.rebuild("demo")
    pages = len(world.projector.render("demo"))
    monkeypatch.setattr(_Mark, "VERSION", _Mark.VERSION + 1)
    assert _rebuild_fresh(world, world.wiki) == (0, pages)
    assert _rebuild_fresh(world, world.wiki) == (pages, 0)


def test_a_corrupt_or_unusable_cache_falls_back_to_rendering(tmp_path):
    world = build_world(tmp_path)
    world.projector.rebuild("demo")
    pages = len(world.projector.render("demo"))
    digest = tree_digest(world.wiki)
    path = rendercache.cache_path(world.wiki)
    path.write_bytes(b"this is not a database" * 100)
    assert _rebuild_fresh(world, world.wiki) == (0, pages)
    assert tree_digest(world.wiki) == digest
    assert _rebuild_fresh(world, world.wiki) == (pages, 0)  # made again
    # a folder where the file should be: nothing cached, nothing fails
    rendercache.drop(world.wiki)
    path.mkdir()
    assert _rebuild_fresh(world, world.wiki) == (0, pages)
    assert tree_digest(world.wiki) == digest


def test_a_store_made_again_at_the_same_path_never_meets_the_old_pages(tmp_path):
    world = build_world(tmp_path)
    world.projector.rebuild("demo")
    pages = len(world.projector.render("demo"))
    old = world.repo.store_id()
    world.repo.dispose()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{tmp_path / 'etki.db'}{suffix}").unlink(missing_ok=True)
    again = build_world(tmp_path)  # same rows, same clock: only the store id differs
    assert again.repo.store_id() not in (None, old)
    assert _rebuild_fresh(again, again.wiki) == (0, pages)


def test_erasure_deletes_the_case_from_the_cache(tmp_path):
    world = build_world(tmp_path)
    world.projector.rebuild("demo")
    word = "Straßenkarte".encode()  # only req-demo-0004's text and pages hold it
    title = "Größe der Straße-Anzeige".encode()
    assert title in _cache_bytes(world.wiki)  # control
    outcome = erase_case(
        world.repo, world.settings, "req-demo-0004", "KVKK 2026/3", reviewer="ayse"
    )
    assert outcome.wiki_error is None
    data = _cache_bytes(world.wiki)
    assert data  # rebuilt after the erasure, without the case
    assert title not in data and word not in data and b"req-demo-0004" not in data
    cache_places = [p for p in outcome.places if "render cache" in p.what]
    assert cache_places and not any(p.held for p in cache_places)
    assert _rebuild_fresh(world, world.wiki)[1] == 0
