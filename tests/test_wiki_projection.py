"""The wiki as a projection of the database: the HITL hook, rebuild, verify and the
atomic writer, on a real SQLite file and a real folder."""

from __future__ import annotations

import os
import re
import shutil
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from etki.errors import NotFoundError
from etki.frontmatter import split_frontmatter
from etki.wiki.paths import decision_path, precedent_path
from etki.wiki.projection import WikiProjector
from etki.wiki.writer import UnsafeWikiPath, sync_tree, validate_relpath
from tests.wiki_support import COLON_TITLE, build_world, tree_digest


def _rule_and_project(world, case_id, action, who, reason=""):
    world.repo.record_ruling(case_id, action, who, reason)
    return world.projector.project_case(case_id)


def test_approval_writes_the_decision_file(tmp_path):
    world = build_world(tmp_path, rule=False)
    report = _rule_and_project(world, "req-demo-0001", "approve", "ayse")
    case = world.repo.case("req-demo-0001")
    path = decision_path(case)
    assert path == "decisions/DEC-20261129-sso-hatasi-giris-no--req-demo-0001.md"
    assert path in report.written and "index.md" in report.written
    assert "disputed.md" in report.written and report.root == world.wiki
    meta, body = split_frontmatter((world.wiki / path).read_text(encoding="utf-8"), path)
    assert meta["title"] == COLON_TITLE and meta["ruling"] == "IN_SCOPE"
    assert meta["override"] is False and meta["reviewer"] == "ayse"
    assert "## Request" in body and "## Evidence chain" in body
    assert not (world.wiki / "precedents").exists()  # no override, no precedent
    assert (world.wiki / "entities/contracts/MSA.md").is_file()
    assert (world.wiki / "entities/modules/auth.sso.md").is_file()
    world.repo.dispose()


def test_override_writes_a_precedent(tmp_path):
    world = build_world(tmp_path, rule=False)
    report = _rule_and_project(world, "req-demo-0002", "reject", "jurgen", "native apps: 9.1")
    case = world.repo.case("req-demo-0002")
    assert precedent_path(case) in report.written
    meta, body = split_frontmatter((world.wiki / precedent_path(case)).read_text("utf-8"), "p")
    assert meta["verdict"] == "CHANGE_REQUEST" and meta["ruling"] == "REJECT"
    assert meta["reason"] == "native apps: 9.1" and meta["reviewer"] == "jurgen"
    index, _ = split_frontmatter((world.wiki / "index.md").read_text("utf-8"), "index.md")
    assert index["precedents"] == 1 and index["ruled"] == 1 and index["pending"] == 5
    world.repo.dispose()


def test_disputed_clause_lists_its_ruling_history(tmp_path):
    clock = iter(datetime(2026, 11, d, 9, 30, tzinfo=UTC) for d in range(1, 30))
    world = build_world(tmp_path, rule=False, clock=lambda: next(clock))
    _rule_and_project(world, "req-demo-0001", "approve", "ayse")
    text = (world.wiki / "disputed.md").read_text("utf-8")
    assert "No disputed clauses." in text
    _rule_and_project(world, "req-demo-0003", "convert_to_cr", "jurgen", "contractors")
    meta, body = split_frontmatter((world.wiki / "disputed.md").read_text("utf-8"), "d")
    assert meta["clauses"] == ["MSA#3.2"] and meta["count"] == 1
    assert "\n## MSA#3.2 — Single sign-on\n" in body
    # one list item per ruling, short lines with hard breaks: no table (issue 12 item 7)
    assert not [line for line in body.splitlines() if line.startswith("|")]
    rows = re.findall(
        r"^- \*\*(\w+)\*\* by (.+), (\S+):\n  (.+)\n"
        r"  \(case \[(.+)\]\((decisions/[^)]+)\)\)$",
        body,
        re.M,
    )
    assert len(rows) == 2
    first, second = rows
    one, three = (world.repo.case(c).ruling for c in ("req-demo-0001", "req-demo-0003"))
    assert one.ruled_at < three.ruled_at
    assert first[:3] == ("IN_SCOPE", "ayse", one.ruled_at) and first[4] == "req-demo-0001"
    assert second[:3] == ("CHANGE_REQUEST", "jurgen", three.ruled_at)
    assert second[4] == "req-demo-0003"
    assert first[3] == world.repo.case("req-demo-0001").title
    link = first[5]
    assert (world.wiki / link).is_file()
    # at 80 columns: every line but the case links (their target is a file name) fits
    assert all(len(line) <= 80 for line in body.splitlines() if "](decisions/" not in line)
    contract = (world.wiki / "entities/contracts/MSA.md").read_text("utf-8")
    assert "**DISPUTED**" in contract and "\u26a0" not in contract
    world.repo.dispose()


def test_hook_then_rebuild_then_delete_and_rebuild_is_identical(tmp_path):
    world = build_world(tmp_path, rule=False)
    from tests.wiki_support import RULINGS

    for cid, action, who, reason in RULINGS:
        _rule_and_project(world, cid, action, who, reason)
    by_hook = tree_digest(world.wiki)
    report = world.projector.rebuild("demo")["demo"]
    assert report.written == () and report.removed == ()  # the hook left nothing stale
    assert tree_digest(world.wiki) == by_hook
    shutil.rmtree(world.wiki)
    world.projector.rebuild()
    assert tree_digest(world.wiki) == by_hook
    assert world.projector.verify("demo") == []
    world.repo.dispose()


def test_rebuild_writes_only_changed_bytes(tmp_path):
    world = build_world(tmp_path)
    world.projector.rebuild("demo")
    index = world.wiki / "index.md"
    before = os.stat(index)
    report = world.projector.rebuild("demo")["demo"]
    pages = [p for p in tree_digest(world.wiki) if p.endswith(".md")]
    assert report.written == () and len(report.unchanged) == len(pages)
    after = os.stat(index)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    world.repo.dispose()


def test_rebuild_removes_stale_files_and_keeps_foreign_ones(tmp_path):
    world = build_world(tmp_path)
    world.projector.rebuild("demo")
    stale = [
        world.wiki / "decisions/DEC-20200101-old--req-demo-9.md",
        world.wiki / "entities/modules/gone.md",
        world.wiki / "entities/old-kind/x.md",
        world.wiki / "decisions/.etki-abc.tmp",
    ]
    for p in stale:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("stale\n", encoding="utf-8")
    foreign = [world.wiki / "notes.txt", world.wiki / "README.md", world.wiki / ".git/config"]
    for p in foreign:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("mine\n", encoding="utf-8")
    assert set(world.projector.verify("demo")) == {
        "decisions/DEC-20200101-old--req-demo-9.md",
        "entities/modules/gone.md",
        "entities/old-kind/x.md",
        "decisions/.etki-abc.tmp",
    }
    report = world.projector.rebuild("demo")["demo"]
    assert len(report.removed) == 4 and report.written == ()
    assert not any(p.exists() for p in stale)
    assert not (world.wiki / "entities/old-kind").exists()  # empty folder removed
    assert all(p.read_text("utf-8") == "mine\n" for p in foreign)
    assert world.projector.verify("demo") == []
    world.repo.dispose()


def test_verify_detects_a_hand_edit_and_a_missing_page(tmp_path):
    world = build_world(tmp_path)
    world.projector.rebuild("demo")
    assert world.projector.verify("demo") == []
    page = world.wiki / decision_path(world.repo.case("req-demo-0004"))
    page.write_text(page.read_text("utf-8").replace("IN_SCOPE", "REJECT"), encoding="utf-8")
    (world.wiki / "index.md").unlink()
    assert world.projector.verify("demo") == sorted(
        ["index.md", page.relative_to(world.wiki).as_posix()]
    )
    world.projector.rebuild("demo")
    assert world.projector.verify("demo") == []
    world.repo.dispose()


def test_wiki_off_does_nothing_and_says_so(tmp_path):
    world = build_world(tmp_path, wiki=False)
    report = world.projector.project_case("req-demo-0001")
    assert report.root is None and "wiki off" in (report.skipped or "")
    assert world.projector.rebuild()["demo"].skipped
    assert world.projector.verify("demo") == []
    assert not any(tmp_path.glob("wiki*"))
    world.repo.dispose()


def test_unknown_case_and_project_are_not_found(tmp_path):
    world = build_world(tmp_path)
    with pytest.raises(NotFoundError):
        world.projector.project_case("req-nope")
    with pytest.raises(NotFoundError):
        world.projector.rebuild("nope")
    world.repo.dispose()


def test_two_projects_get_two_wikis(tmp_path):
    world = build_world(tmp_path)
    from tests.wiki_support import project

    world.repo.save_project(project("other"), "sha256:x", b"{}\n")
    reports = WikiProjector(world.repo, world.settings).rebuild()
    assert set(reports) == {"demo", "other"}
    other = world.settings.wiki_path("other")
    # no case yet: the index, disputed.md and the whole contract (issue 33)
    assert sorted(p.name for p in other.rglob("*.md")) == ["MSA.md", "disputed.md", "index.md"]
    world.repo.dispose()


# --- the writer ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        "../x.md",
        "/abs.md",
        "a/../b.md",
        "./a.md",
        ".x.md",
        "a//b.md",
        "x.txt",
        "a\\b.md",
        "a/\x00.md",
        "",
        "d/" + "x" * 300 + ".md",
    ],
)
def test_unsafe_paths_are_refused(tmp_path, bad):
    with pytest.raises(UnsafeWikiPath):
        validate_relpath(bad)
    with pytest.raises(UnsafeWikiPath):
        sync_tree(tmp_path / "wiki", {bad: b"x\n"}, prune=False)
    assert not (tmp_path / "x.md").exists() and not (tmp_path / "abs.md").exists()


def test_writer_never_writes_through_a_symlinked_folder(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "wiki"
    root.mkdir()
    (root / "decisions").symlink_to(outside, target_is_directory=True)
    with pytest.raises(UnsafeWikiPath, match="symlink"):
        sync_tree(root, {"decisions/DEC-x.md": b"x\n"}, prune=True)
    assert list(outside.iterdir()) == []
    (outside / "keep.md").write_text("keep\n")
    sync_tree(root, {"index.md": b"i\n"}, prune=True)  # prune does not enter the link
    assert (outside / "keep.md").read_text() == "keep\n"


def test_writer_replaces_a_symlinked_page_not_its_target(tmp_path):
    target = tmp_path / "target.md"
    target.write_text("precious\n")
    root = tmp_path / "wiki"
    root.mkdir()
    (root / "index.md").symlink_to(target)
    report = sync_tree(root, {"index.md": b"precious\n"}, prune=False)
    assert report.written == ("index.md",)  # equal bytes behind a link still get replaced
    assert not (root / "index.md").is_symlink()
    assert (root / "index.md").read_bytes() == b"precious\n"
    assert target.read_text() == "precious\n"


def test_writer_leaves_no_temp_files(tmp_path):
    root = tmp_path / "wiki"
    files = {f"decisions/DEC-{i}.md": f"{i}\n".encode() for i in range(20)}
    report = sync_tree(root, files, prune=True)
    assert len(report.written) == 20
    assert sorted(p.name for p in (root / "decisions").iterdir()) == sorted(
        f.split("/")[1] for f in files
    )
    report = sync_tree(root, {"index.md": b"x\n"}, prune=True)
    assert len(report.removed) == 20 and not (root / "decisions").exists()


def test_hook_on_a_never_built_wiki_writes_the_whole_tree(tmp_path):
    world = build_world(tmp_path)  # ruled without the hook: no wiki yet
    assert not world.wiki.exists()
    world.projector.project_case("req-demo-0004")
    assert world.projector.verify("demo") == []
    world.repo.dispose()


def test_concurrent_hooks_leave_the_newest_state(tmp_path):
    import threading

    from etki.store.repository import CaseFileRepository
    from tests.wiki_support import RULINGS, frozen_clock

    world = build_world(tmp_path, rule=False)
    world.projector.rebuild("demo")
    errors: list[BaseException] = []

    def reviewer(items):
        repo = CaseFileRepository(world.db_url, clock=frozen_clock)
        projector = WikiProjector(repo, world.settings)
        try:
            for cid, action, who, reason in items:
                repo.record_ruling(cid, action, who, reason)
                projector.project_case(cid)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            repo.dispose()

    threads = [threading.Thread(target=reviewer, args=(RULINGS[i::2],)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert world.projector.verify("demo") == []
    world.repo.dispose()


def test_approval_service_calls_the_projector(tmp_path):
    from etki.config import Settings
    from etki.services import approval_service

    world = build_world(tmp_path, rule=False)
    settings = Settings(db_url=world.db_url, wiki_dir=world.settings.wiki_dir, reviewer="ayse")
    outcome = approval_service(world.repo, settings).rule("req-demo-0001", "approve")
    assert outcome.wiki_error is None
    path = decision_path(world.repo.case("req-demo-0001"))
    assert path in outcome.wiki_report.written and (world.wiki / path).is_file()
    assert world.projector.verify("demo") == []
    world.repo.dispose()


def test_index_counts_and_last_ten_rulings_newest_first(tmp_path):
    from datetime import timedelta

    from etki.domain import Request
    from tests.wiki_support import decision

    moments = (datetime(2026, 11, 1, tzinfo=UTC) + timedelta(hours=h) for h in range(100))
    world = build_world(tmp_path, rule=False, clock=lambda: next(moments))
    world.repo.add_cases(
        "demo",
        [
            (Request(f"B{i}", f"bulk {i}", f"Bulk {i:02d}"), decision(f"req-demo-b{i:02d}"))
            for i in range(12)
        ],
    )
    for i in range(12):
        world.repo.record_ruling(
            f"req-demo-b{i:02d}", "approve" if i % 4 else "reject", "ayse", "" if i % 4 else "no"
        )
    world.projector.rebuild("demo")
    meta, body = split_frontmatter((world.wiki / "index.md").read_text("utf-8"), "index.md")
    assert (meta["cases"], meta["pending"], meta["ruled"]) == (18, 6, 12)
    assert meta["rulings"] == 12 and meta["overrides"] == meta["precedents"] == 3
    assert meta["verdicts"] == {"IN_SCOPE": 16, "CHANGE_REQUEST": 1, "REJECT": 1}
    assert meta["ruling_counts"] == {"IN_SCOPE": 9, "CHANGE_REQUEST": 0, "REJECT": 3}
    last = body.split("## Last 10 rulings", 1)[1].split("## Precedents", 1)[0]
    rows = re.findall(r"\[(req-demo-b\d\d)\]", last)
    assert rows == [f"req-demo-b{i:02d}" for i in range(11, 1, -1)]
    world.repo.dispose()


def test_read_page_and_page_title(tmp_path):
    from etki.errors import ProjectFormatError
    from etki.wiki import page_title, read_page

    world = build_world(tmp_path)
    world.projector.rebuild("demo")
    page = world.wiki / decision_path(world.repo.case("req-demo-0001"))
    assert page_title(page) == COLON_TITLE
    assert read_page(page)[0]["case_id"] == "req-demo-0001"
    page.write_text("---\ntitle: broken: value\n---\nbody\n", encoding="utf-8")  # B08
    with pytest.raises(ProjectFormatError, match=r":2"):
        read_page(page)
    assert page_title(page) == page.stem
    world.repo.dispose()


# --- long-lived projectors (issue 7): the hook's model follows every change in the DB --------


def _ticking_clock(start_day: int = 1):
    moments = iter(
        datetime(2026, 11, start_day, 9, 0, tzinfo=UTC).replace(minute=m % 60, hour=9 + m // 60)
        for m in range(10_000)
    )
    return lambda: next(moments)


def _assert_wiki_is_a_fresh_rebuild(world) -> None:
    """What a brand-new projector (its own engine) renders from the DB is on disk, file
    for file, and nothing else."""
    from etki.store.repository import CaseFileRepository

    repo = CaseFileRepository(world.db_url)
    try:
        assert WikiProjector(repo, world.settings).verify("demo") == []
    finally:
        repo.dispose()


def _more_cases(repo, first: int, n: int) -> None:
    from etki.domain import Request
    from tests.wiki_support import decision

    verdicts = ("IN_SCOPE", "CHANGE_REQUEST", "REJECT")
    refs = (("MSA#3.2",), ("MSA#4.1", "MSA#3.2"), ("MSA#9.1",), ("MSA#4.1",), ())
    mods = (("auth.sso",), ("payments",), (), ("src/legacy billing", "auth.sso"))
    repo.add_cases(
        "demo",
        [
            (
                Request(id=f"X{i}", text=f"request {i}", title=f"Request {i}"),
                decision(f"req-demo-{i:04d}", verdicts[i % 3], refs[i % 5], mods[i % 4]),
            )
            for i in range(first, first + n)
        ],
    )


def test_interleaved_rulings_from_two_projectors_match_a_fresh_rebuild(tmp_path):
    """Two reviewers, each with a long-lived projector on its own engine (as two desk
    processes), rule in turn; after every hook the wiki is byte-identical to a fresh
    rebuild, including the pages of rulings the other one made."""
    from etki.store.repository import CaseFileRepository

    world = build_world(tmp_path, rule=False, clock=_ticking_clock())
    _more_cases(world.repo, 10, 14)
    world.projector.rebuild("demo")
    other_repo = CaseFileRepository(world.db_url, clock=_ticking_clock(2))
    other = WikiProjector(other_repo, world.settings)
    pending = [c.case_id for c in world.repo.cases("demo", status="pending")]
    actions = ("approve", "convert_to_cr", "reject")
    for k, cid in enumerate(pending):
        repo, projector = (world.repo, world.projector) if k % 3 != 1 else (other_repo, other)
        repo.record_ruling(cid, actions[k % 3], "ayse", "because")
        projector.project_case(cid)
        _assert_wiki_is_a_fresh_rebuild(world)
    other_repo.dispose()
    world.repo.dispose()


def test_a_ruling_whose_hook_never_ran_is_projected_by_the_next_hook(tmp_path):
    """Another process commits a ruling and dies before its hook: the next hook of a
    long-lived projector writes that case's pages too (it reads the audit log)."""
    world = build_world(tmp_path, rule=False, clock=_ticking_clock())
    _rule_and_project(world, "req-demo-0001", "approve", "ayse")  # the model is warm
    world.repo.record_ruling("req-demo-0002", "reject", "jurgen", "not ours")  # no hook
    _rule_and_project(world, "req-demo-0003", "convert_to_cr", "jurgen", "CR")
    case = world.repo.case("req-demo-0002")
    assert (world.wiki / decision_path(case)).is_file()
    assert (world.wiki / precedent_path(case)).is_file()
    _assert_wiki_is_a_fresh_rebuild(world)
    world.repo.dispose()


def test_new_cases_erasure_and_reinit_between_hooks(tmp_path):
    """A warm projector after cases were added, a case was erased (with the erasure's
    own rebuild) and the project was re-loaded with a renamed clause (init rebuilds): its
    next hook still writes what a fresh rebuild writes."""
    from dataclasses import replace

    from etki.erasure import erase_case
    from etki.store.repository import CaseFileRepository
    from tests.wiki_support import project

    world = build_world(tmp_path, rule=False, clock=_ticking_clock())
    _rule_and_project(world, "req-demo-0001", "approve", "ayse")
    _rule_and_project(world, "req-demo-0003", "convert_to_cr", "jurgen", "contractors")
    _more_cases(world.repo, 30, 3)  # another process adds cases (no hook)
    _rule_and_project(world, "req-demo-0030", "approve", "ayse")
    _assert_wiki_is_a_fresh_rebuild(world)

    eraser = CaseFileRepository(world.db_url)
    erase_case(eraser, world.settings, "req-demo-0003", "GDPR request", reviewer="ayse")
    eraser.dispose()
    _rule_and_project(world, "req-demo-0004", "approve", "ayse")
    _assert_wiki_is_a_fresh_rebuild(world)
    with pytest.raises(NotFoundError):
        world.projector.project_case("req-demo-0003")

    old = project()
    contract = old.contracts[0]
    renamed = tuple(
        replace(c, title="Single sign-on (SAML)") if c.ref == "MSA#3.2" else c
        for c in contract.clauses
    )
    reloader = CaseFileRepository(world.db_url)
    reloader.save_project(
        replace(old, contracts=(replace(contract, clauses=renamed),)), "sha256:renamed", b"{}\n"
    )
    WikiProjector(reloader, world.settings).rebuild("demo")  # what `etki init` does
    reloader.dispose()
    _rule_and_project(world, "req-demo-0005", "approve", "ayse")
    assert "Single sign-on (SAML)" in (world.wiki / "disputed.md").read_text(
        "utf-8"
    ) or "Single sign-on (SAML)" in (world.wiki / "entities/contracts/MSA.md").read_text("utf-8")
    _assert_wiki_is_a_fresh_rebuild(world)
    world.repo.dispose()


def test_pages_of_a_failed_write_are_written_by_the_next_hook(tmp_path):
    """A hook that could not write (a symlinked folder in the wiki) keeps the change: the
    next hook, once the folder is fixed, writes the pages of both rulings."""
    world = build_world(tmp_path, rule=False, clock=_ticking_clock())
    _rule_and_project(world, "req-demo-0001", "approve", "ayse")
    modules = world.wiki / "entities" / "modules"
    shutil.move(modules, tmp_path / "modules-aside")
    os.symlink(tmp_path / "modules-aside", modules)
    world.repo.record_ruling("req-demo-0004", "approve", "ayse", "")
    with pytest.raises(UnsafeWikiPath):
        world.projector.project_case("req-demo-0004")
    os.unlink(modules)
    shutil.move(tmp_path / "modules-aside", modules)
    _rule_and_project(world, "req-demo-0005", "approve", "ayse")
    assert (world.wiki / decision_path(world.repo.case("req-demo-0004"))).is_file()
    _assert_wiki_is_a_fresh_rebuild(world)
    world.repo.dispose()


def test_deferred_fsync_and_durable_hook_write_the_same_bytes(tmp_path):
    """``defer_fsync=False`` (every page fsync-ed on the ruling's path) and the default
    (fsync on a background thread, :meth:`WikiProjector.flush`) leave the same tree."""
    trees = []
    for defer in (True, False):
        world = build_world(tmp_path / str(defer), rule=False)
        projector = WikiProjector(world.repo, world.settings, defer_fsync=defer)
        projector.rebuild("demo")
        from tests.wiki_support import RULINGS

        for cid, action, who, reason in RULINGS:
            world.repo.record_ruling(cid, action, who, reason)
            projector.project_case(cid)
        projector.flush()
        trees.append(tree_digest(world.wiki))
        world.repo.dispose()
    assert trees[0] == trees[1]


@pytest.mark.parametrize("count", [3, 80])  # one page at a time, and the batch of a rebuild
def test_pages_are_made_as_open_would_make_them_and_old_temporary_names_are_skipped(
    tmp_path: Path, count: int
) -> None:
    """A page is created mode 0o644 less the umask, as ``open()`` makes a file (readers
    and web servers read the wiki; ``tempfile`` would have made it 0o600). A temporary
    name a dead process of the same pid left behind is skipped, not overwritten, and the
    page is written whole (then the leftover is a stale file for prune/verify)."""
    from etki.wiki import writer

    root = tmp_path / "wiki"
    (root / "decisions").mkdir(parents=True)
    serial = next(writer._TEMP_SERIAL)
    left = [root / "decisions" / f".etki-{os.getpid()}-{serial + k}.tmp" for k in (1, 2)]
    for path in left:
        path.write_bytes(b"a dead writer's bytes")
    files = {f"decisions/DEC-{n:03d}.md": f"page {n}\n".encode() for n in range(count)}
    old = os.umask(0o027)
    try:
        report = sync_tree(root, files, prune=False)
    finally:
        os.umask(old)
    assert len(report.written) == count
    for rel, data in files.items():
        assert (root / rel).read_bytes() == data
        assert stat.S_IMODE((root / rel).stat().st_mode) == 0o640
    assert all(p.read_bytes() == b"a dead writer's bytes" for p in left)


def test_a_batch_is_flushed_with_the_wiki_file_system_s_own_sync() -> None:
    """Linux's C library has ``syncfs(2)``: a rebuild waits for the wiki's disk only, not
    for every dirty page of the machine as ``os.sync()`` (issue 15)."""
    import sys

    from etki.wiki import writer

    if not sys.platform.startswith("linux"):
        pytest.skip("syncfs(2) is Linux's")
    assert writer._syncfs() is not None
