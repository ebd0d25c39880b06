"""The wiki catches up from the DB (issue 11 item 4): a projection that did not happen —
a ruling SIGKILLed after its DB commit, or one whose projection timed out on the wiki
lock — is written by the next projection of any process, and by the desk on start.

Every attack runs with real processes: the crash worker (tests/crash_worker.py) dies
exactly between a ruling's commit and its projection, a lock holder is a separate
process, and the repairing ruling is the real ``etki rule`` command. Afterwards the wiki
is compared, file for file and byte for byte (the state file included), with a fresh
``rebuild`` of the same DB into another folder. SQLite always; PostgreSQL on
127.0.0.1:5432 (database ``test``, a schema per test) when it is there.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from etki.config import Settings
from etki.domain import Request
from etki.services import Desk
from etki.store import CaseFileRepository
from etki.wiki.paths import decision_path, precedent_path
from etki.wiki.projection import MARK_NAME, WikiProjector, wiki_mark
from etki_tui.messages import QueueLoaded, WikiCaughtUp
from tests.test_crash import Zygote
from tests.wiki_support import CASES, decision, project, tree_digest

REPO_ROOT = Path(__file__).resolve().parents[1]

pytestmark = (
    pytest.mark.slow
)  # commands killed mid-write, a process per call (pytest -m "not slow" leaves it out)

HOLDER = """\
import sys
from pathlib import Path
from etki.wiki.projection import wiki_lock

with wiki_lock(Path(sys.argv[1])):
    print("locked", flush=True)
    sys.stdin.read()  # until the test closes it
"""


@dataclass
class Store:
    url: str  # what another process connects with
    repo: CaseFileRepository


def _fill(repo: CaseFileRepository) -> None:
    repo.save_project(project(), "sha256:abc", b"{}\n")
    repo.add_cases(
        "demo",
        [
            (Request(id=f"R{i}", text=body, title=title), decision(cid, verdict, cited, modules))
            for i, (cid, title, body, verdict, cited, modules) in enumerate(CASES, 1)
        ],
    )


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request, tmp_path) -> Iterator[Store]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path}/etki.db"
        repo = CaseFileRepository(url)
        _fill(repo)
        yield Store(url, repo)
        repo.dispose()
        return
    # other processes reach the same schema through libpq's options parameter
    url = request.getfixturevalue("pg_schema").url
    repo = CaseFileRepository(url)
    try:
        _fill(repo)
        yield Store(url, repo)
    finally:
        repo.dispose()


def _settings(url: str, tmp: Path, **kwargs: object) -> Settings:
    return Settings(db_url=url, wiki_dir=str(tmp / "wiki-{project}"), reviewer="ayse", **kwargs)  # type: ignore[arg-type]


def _rule_and_die(url: str, wiki_template: str, case_id: str, action: str) -> None:
    """A process rules ``case_id`` through ApprovalService and is SIGKILLed after the
    DB commit, before the projection starts."""
    zygote = Zygote()
    try:
        job = {
            "mode": "rule",
            "db": url,
            "wiki": wiki_template,
            "rulings": [[case_id, action]],
            "die_before_projection": True,
        }
        zygote.proc.stdin.write((json.dumps(job) + "\n").encode())
        zygote.proc.stdin.flush()
        while not (line := zygote.line()).startswith("held "):
            assert not line.startswith("error "), line
        pid = int(line.split()[1])
        assert line.split()[2] == case_id
        os.kill(pid, signal.SIGKILL)  # alive: its parent reaps it only after it dies
        while not (line := zygote.line()).startswith(f"exit {pid} "):
            pass
        assert int(line.split()[2]) == -signal.SIGKILL
    finally:
        zygote.close()


def _etki(url: str, wiki_template: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    full_env = {
        **os.environ,
        "ETKI_DB_URL": url,
        "ETKI_WIKI_DIR": wiki_template,
        "ETKI_REVIEWER": "ayse",
        **env,
    }
    return subprocess.run(
        [sys.executable, "-m", "etki.cli", *args],
        capture_output=True,
        text=True,
        env=full_env,
        cwd=REPO_ROOT,
        timeout=120,
    )


class LockHolder:
    """Another process holding the wiki lock until :meth:`release`."""

    def __init__(self, root: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO_ROOT,
        )
        line = self.proc.stdout.readline()
        assert line == "locked\n", self.proc.stderr.read()

    def release(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            assert self.proc.wait(timeout=60) == 0, self.proc.stderr.read()


def _fresh_digest(url: str, where: Path) -> dict[str, str]:
    """tree_digest of a fresh rebuild of the DB at ``url`` into a new folder."""
    settings = Settings(db_url=url, wiki_dir=str(where / "fresh-{project}"))
    repo = CaseFileRepository(url)
    try:
        WikiProjector(repo, settings).rebuild("demo")
    finally:
        repo.dispose()
    return tree_digest(where / "fresh-demo")


def _pages(repo: CaseFileRepository, case_id: str) -> list[str]:
    case = repo.case(case_id)
    assert case.ruling is not None
    return [decision_path(case)] + ([precedent_path(case)] if case.ruling.is_override else [])


def test_a_ruling_killed_after_its_commit_is_projected_by_another_process(store, tmp_path):
    settings = _settings(store.url, tmp_path)
    wiki = settings.wiki_path("demo")
    WikiProjector(store.repo, settings).rebuild("demo")
    _rule_and_die(store.url, settings.wiki_dir, "req-demo-0002", "reject")  # an override
    killed = _pages(store.repo, "req-demo-0002")
    assert len(killed) == 2  # the ruling committed: decision and precedent pages due
    assert not any((wiki / rel).exists() for rel in killed)  # ... and never written
    assert set(killed) <= set(WikiProjector(store.repo, settings).verify("demo"))

    done = _etki(store.url, settings.wiki_dir, "rule", "req-demo-0001", "approve")
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr
    for rel in [*killed, *_pages(store.repo, "req-demo-0001")]:
        assert (wiki / rel).is_file(), rel
    assert tree_digest(wiki) == _fresh_digest(store.url, tmp_path)
    assert (wiki / MARK_NAME).read_bytes() == wiki_mark(store.repo, "demo")


def test_a_projection_that_timed_out_on_the_lock_is_repaired_by_the_next(store, tmp_path):
    settings = _settings(store.url, tmp_path)
    wiki = settings.wiki_path("demo")
    WikiProjector(store.repo, settings).rebuild("demo")
    holder = LockHolder(wiki)
    try:
        done = _etki(
            store.url,
            settings.wiki_dir,
            "rule",
            "req-demo-0003",
            "cr",
            "--reason",
            "Contractors are not staff",
            ETKI_WIKI_LOCK_TIMEOUT="0.2",
        )
    finally:
        holder.release()
    assert done.returncode == 0, done.stderr  # the ruling stands ...
    assert "wiki not updated" in done.stderr and "locked by another writer" in done.stderr
    assert "waited 0.2 s" in done.stderr
    timed_out = _pages(store.repo, "req-demo-0003")
    assert not any((wiki / rel).exists() for rel in timed_out)  # ... its pages do not

    done = _etki(store.url, settings.wiki_dir, "rule", "req-demo-0004", "approve")
    assert done.returncode == 0 and "warning" not in done.stderr, done.stderr
    for rel in [*timed_out, *_pages(store.repo, "req-demo-0004")]:
        assert (wiki / rel).is_file(), rel
    assert tree_digest(wiki) == _fresh_digest(store.url, tmp_path)


def test_a_long_lived_projector_catches_up_what_another_process_missed(store, tmp_path):
    """A desk-like projector warmed before the kill, with another process's projection
    in between (it wrote the wiki after the kill): the desk's next projection leaves
    the killed ruling's pages written and the wiki a fresh rebuild (a regression check
    of the state file together with the in-memory model)."""
    settings = _settings(store.url, tmp_path)
    wiki = settings.wiki_path("demo")
    desk_repo = CaseFileRepository(store.url)
    desk = WikiProjector(desk_repo, settings)
    try:
        desk.rebuild("demo")
        _rule_and_die(store.url, settings.wiki_dir, "req-demo-0005", "approve")
        # another process's projector that started after the kill wrote the wiki since
        other_repo = CaseFileRepository(store.url)
        other_repo.record_ruling("req-demo-0001", "approve", "ayse", "")
        WikiProjector(other_repo, settings).project_case("req-demo-0001")
        other_repo.dispose()
        store.repo.record_ruling("req-demo-0004", "approve", "ayse", "")
        desk.project_case("req-demo-0004")
        desk.flush()
    finally:
        desk_repo.dispose()
    for rel in _pages(store.repo, "req-demo-0005"):
        assert (wiki / rel).is_file(), rel
    assert tree_digest(wiki) == _fresh_digest(store.url, tmp_path)


def test_every_change_a_killed_command_leaves_unprojected_is_caught_up(store, tmp_path):
    """What a command killed after its commit and before its own rebuild leaves: new
    cases (``etki init``), an erasure (``etki erase``: the erased request's pages must
    go), a re-loaded project with a renamed clause (``etki init`` again). After each,
    the next ruling by another process (the real ``etki rule``) leaves the wiki equal to
    a fresh rebuild, byte for byte."""
    settings = _settings(store.url, tmp_path)
    wiki = settings.wiki_path("demo")
    store.repo.record_ruling("req-demo-0001", "approve", "ayse", "")
    store.repo.record_ruling("req-demo-0002", "reject", "ayse", "native apps: 9.1")
    WikiProjector(store.repo, settings).rebuild("demo")
    erased_pages = _pages(store.repo, "req-demo-0001")
    assert all((wiki / rel).is_file() for rel in erased_pages)

    store.repo.add_cases(
        "demo",
        [
            (
                Request(id="R99", text="Add a CSV export.", title="CSV export"),
                decision("req-demo-0099", "CHANGE_REQUEST", ("MSA#4.1",), ("payments",)),
            )
        ],
    )
    done = _etki(store.url, settings.wiki_dir, "rule", "req-demo-0003", "approve")
    assert done.returncode == 0 and "warning" not in done.stderr, done.stderr
    assert tree_digest(wiki) == _fresh_digest(store.url, tmp_path / "1")

    store.repo.erase_case("req-demo-0001", "ayse", "GDPR request 7")  # no rebuild after
    assert all((wiki / rel).is_file() for rel in erased_pages)  # the attack: still there
    assert any(b"req-demo-0001" in p.read_bytes() for p in wiki.rglob("*.md"))
    done = _etki(store.url, settings.wiki_dir, "rule", "req-demo-0004", "approve")
    assert done.returncode == 0 and "warning" not in done.stderr, done.stderr
    assert not any((wiki / rel).exists() for rel in erased_pages)
    assert not any(b"req-demo-0001" in p.read_bytes() for p in wiki.rglob("*.md"))
    assert tree_digest(wiki) == _fresh_digest(store.url, tmp_path / "2")

    old = project()
    contract = old.contracts[0]
    renamed = tuple(
        replace(c, title="Single sign-on (SAML)") if c.ref == "MSA#3.2" else c
        for c in contract.clauses
    )
    store.repo.save_project(
        replace(old, contracts=(replace(contract, clauses=renamed),)), "sha256:renamed", b"{}\n"
    )  # no rebuild after
    done = _etki(store.url, settings.wiki_dir, "rule", "req-demo-0005", "approve")
    assert done.returncode == 0 and "warning" not in done.stderr, done.stderr
    assert "Single sign-on (SAML)" in (wiki / "entities/contracts/MSA.md").read_text("utf-8")
    assert tree_digest(wiki) == _fresh_digest(store.url, tmp_path / "3")


def test_catch_up_of_an_up_to_date_wiki_writes_nothing(store, tmp_path):
    settings = _settings(store.url, tmp_path)
    projector = WikiProjector(store.repo, settings)
    projector.rebuild("demo")
    before = tree_digest(settings.wiki_path("demo"))
    report = projector.catch_up("demo")
    assert not report.changed and report.written == () and report.skipped is None
    assert tree_digest(settings.wiki_path("demo")) == before
    assert (
        WikiProjector(store.repo, replace(settings, wiki_dir=None)).catch_up("demo").skipped
        is not None
    )


def test_a_wiki_without_its_state_file_is_synced_whole(tmp_path):
    """A wiki written by an older Etki (no state file) or whose state file is damaged:
    the next projection cannot know what it lacks, so it syncs the whole tree (and
    prunes), then writes the state file."""
    url = f"sqlite:///{tmp_path}/etki.db"
    repo = CaseFileRepository(url)
    _fill(repo)
    settings = _settings(url, tmp_path)
    wiki = settings.wiki_path("demo")
    WikiProjector(repo, settings).rebuild("demo")
    repo.record_ruling("req-demo-0002", "reject", "ayse", "no")  # never projected
    for damage in (None, b"{not json\n", b'{"project": "other"}\n'):
        if damage is None:
            (wiki / MARK_NAME).unlink()
        else:
            (wiki / MARK_NAME).write_bytes(damage)
        stale = wiki / "decisions" / "DEC-20200101-gone--req-demo-9999.md"
        stale.parent.mkdir(exist_ok=True)
        stale.write_bytes(b"# gone\n")
        WikiProjector(repo, settings).catch_up("demo")
        assert not stale.exists()
        assert tree_digest(wiki) == _fresh_digest(url, tmp_path / str(len(str(damage))))
    repo.dispose()


def test_a_lock_timeout_that_is_not_a_number_is_refused(tmp_path):
    for bad in ("soon", "-1", "nan", "inf"):
        done = _etki(
            f"sqlite:///{tmp_path}/etki.db",
            str(tmp_path / "wiki-{project}"),
            "projects",
            ETKI_WIKI_LOCK_TIMEOUT=bad,
        )
        assert done.returncode == 2, done.stderr
        assert "ETKI_WIKI_LOCK_TIMEOUT" in done.stderr and "seconds" in done.stderr
    assert Settings.from_env({"ETKI_WIKI_LOCK_TIMEOUT": "2.5"}).wiki_lock_timeout == 2.5
    assert Settings.from_env({}).wiki_lock_timeout == 30.0


# --- the desk on start --------------------------------------------------------------------

FIRST = "req-demo-0a1f3c21"  # the TUI fixture's first pending case (IN_SCOPE)


def test_the_desk_catches_up_on_start_without_blocking_keys(tui_world, tmp_path):
    """A ruling killed after its commit; the desk opens while another process holds the
    wiki lock: keys work while the catch-up waits for the lock; once it is free the
    catch-up writes the killed ruling's pages and the wiki equals a fresh rebuild."""
    from tests.test_tui_pilot import Recorder, current, make_app, settle

    world = tui_world
    url, wiki = world.settings.db_url, world.wiki
    _rule_and_die(url, world.settings.wiki_dir, FIRST, "reject")  # an override
    killed = _pages(world.repo, FIRST)
    assert not any((wiki / rel).exists() for rel in killed)
    desk = Desk(replace(world.settings, wiki_lock_timeout=600.0), world.repo)

    async def run() -> None:
        seen = Recorder()
        app = make_app(replace(world, desk=desk))
        holder = LockHolder(wiki)
        try:
            async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
                await app.workers.wait_for_complete([w for w in app.workers if w.group == "queue"])
                await pilot.pause()
                assert seen.of(QueueLoaded)
                for _ in range(100):  # it starts once the queue is drawn
                    if catching_up := [w for w in app.workers if w.group == "project"]:
                        break
                    await pilot.pause()
                first = current(app)
                await pilot.press("down")
                assert current(app) != first  # the key was handled ...
                assert catching_up and all(w.is_running for w in catching_up)  # ... meanwhile
                assert not seen.of(WikiCaughtUp)
                holder.release()
                await app.workers.wait_for_complete(catching_up)
                await settle(pilot)
                [done] = seen.of(WikiCaughtUp)
                assert done.wiki_error is None and done.wiki_report.changed
                assert not [n for n in seen.notes() if "Wiki" in n or "wiki" in n]
        finally:
            holder.release()

    asyncio.run(run())
    for rel in killed:
        assert (wiki / rel).is_file(), rel
    assert tree_digest(wiki) == _fresh_digest(url, tmp_path / "fresh")


@pytest.mark.parametrize("link", ["symlink", "hardlink"])
def test_a_linked_state_file_is_replaced_never_written_through(tmp_path, link):
    """The state file is rewritten in place on every ruling: a symlink or a hard link
    put there to reach a file outside the wiki is replaced, and that file keeps its
    bytes."""
    url = f"sqlite:///{tmp_path}/etki.db"
    repo = CaseFileRepository(url)
    _fill(repo)
    settings = _settings(url, tmp_path)
    wiki = settings.wiki_path("demo")
    projector = WikiProjector(repo, settings)
    projector.rebuild("demo")
    outside = tmp_path / "outside.txt"
    outside.write_bytes((wiki / MARK_NAME).read_bytes())  # looks like a state file
    (wiki / MARK_NAME).unlink()
    if link == "symlink":
        (wiki / MARK_NAME).symlink_to(outside)
    else:
        os.link(outside, wiki / MARK_NAME)
    before = outside.read_bytes()
    repo.record_ruling("req-demo-0001", "approve", "ayse", "")
    projector.project_case("req-demo-0001")
    projector.flush()
    assert outside.read_bytes() == before
    assert not (wiki / MARK_NAME).is_symlink() and os.stat(wiki / MARK_NAME).st_nlink == 1
    assert tree_digest(wiki) == _fresh_digest(url, tmp_path)
    repo.dispose()


def test_the_desk_says_when_the_wiki_cannot_catch_up(tui_world, tmp_path):
    """A wiki folder the catch-up must refuse (a symlink to another folder): the desk
    opens, shows the queue and says what is wrong; the other folder is untouched."""
    from tests.test_tui_pilot import Recorder, make_app, settle

    other = tmp_path / "elsewhere"
    tui_world.wiki.rename(other)
    tui_world.wiki.symlink_to(other, target_is_directory=True)
    before = tree_digest(other)
    tui_world.repo.record_ruling(FIRST, "approve", "ayse", "")  # the wiki lacks it

    async def run() -> None:
        seen = Recorder()
        app = make_app(tui_world)
        async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
            await settle(pilot)
            assert seen.of(QueueLoaded)
            [done] = seen.of(WikiCaughtUp)
            assert done.wiki_report is None and "symlink" in done.wiki_error
            assert any(
                n.startswith("Wiki of demo not caught up with the database:") and "symlink" in n
                for n in seen.notes()
            )

    asyncio.run(run())
    assert tree_digest(other) == before
