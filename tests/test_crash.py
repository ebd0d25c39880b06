"""Crash safety of the wiki (issue 6, item 3): a process is SIGKILLed mid-rebuild and
mid-projection at random (seeded) points; afterwards no wiki page is partial (each one
is, byte for byte, what some committed state of the database renders), ``verify``
reports exactly the drift, ``rebuild`` restores a tree identical to a clean one, and no
committed ruling is lost.

The processes are forked from one warm worker (tests/crash_worker.py) so a kill costs a
fork, not an interpreter start. ``ETKI_CRASH_SEED`` picks another seed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import random
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from etki.config import Settings
from etki.domain import Request
from etki.store import CaseFileRepository
from etki.wiki.pages import render_wiki
from etki.wiki.projection import LOCK_NAME, MARK_NAME, WikiProjector, wiki_mark
from etki.wiki.writer import sync_tree
from tests.wiki_support import CASES as HOSTILE_CASES
from tests.wiki_support import decision, project, tree_digest

pytestmark = pytest.mark.slow  # kill loops on real processes (pytest -m "not slow" leaves it out)

WORKER = Path(__file__).with_name("crash_worker.py")
SEED = int(os.environ.get("ETKI_CRASH_SEED", "20261129"))
KILLS = 20  # kills that land mid-operation, per mode
MAX_TRIES = 120
N_CASES, N_RULED_FIRST = 60, 20
VERDICTS = ("IN_SCOPE", "CHANGE_REQUEST", "REJECT")
ACTIONS = ("approve", "convert_to_cr", "reject", "approve")
CLAUSES = (("MSA#3.2",), ("MSA#4.1",), ("MSA#9.1",), ("MSA#3.2", "MSA#4.1"))
MODULES = (("auth.sso",), ("payments",), ("src/legacy billing",), ())
TITLES = [t for _, t, *_ in HOSTILE_CASES if t] + [
    "İade süreci hatası",
    "Größe der Straßenkarte",
    "SSO for contractors: phase 2",
    "Ödeme sayfası çöküyor",
    "no",
    "Build a native app",
    "👩‍💻 Geliştirici talebi",
]


def _cases() -> list[tuple[str, str, str, tuple[str, ...], tuple[str, ...]]]:
    return [
        (
            f"req-demo-{i:04d}",
            f"{TITLES[i % len(TITLES)]} #{i}",
            VERDICTS[i % 3],
            CLAUSES[i % 4],
            MODULES[i % 4],
        )
        for i in range(N_CASES)
    ]


def _rulings() -> list[tuple[str, str]]:
    return [(cid, ACTIONS[i % 4]) for i, (cid, *_rest) in enumerate(_cases())]


class World:
    """Two SQLite files: ``pristine`` (the first 20 cases ruled) and ``full`` (all 60),
    and the trees they render."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.pristine = tmp / "pristine.db"
        repo = CaseFileRepository(f"sqlite:///{self.pristine}")
        repo.save_project(project(), "sha256:abc", b"{}\n")
        repo.add_cases(
            "demo",
            [
                (
                    Request(id=f"R{i}", title=title, text=f"{title}\n\nBody of case {i}: Kübra."),
                    decision(cid, verdict, cited, modules),
                )
                for i, (cid, title, verdict, cited, modules) in enumerate(_cases())
            ],
        )
        rulings = _rulings()
        for cid, action in rulings[:N_RULED_FIRST]:
            repo.record_ruling(cid, action, "ayse", f"crash test: {action}")
        self.pristine_tree = render_wiki(repo.load_project("demo"), repo.cases("demo"))
        repo.compact()
        repo.dispose()
        self.full = tmp / "full.db"
        shutil.copyfile(self.pristine, self.full)
        repo = CaseFileRepository(f"sqlite:///{self.full}")
        for cid, action in rulings[N_RULED_FIRST:]:
            repo.record_ruling(cid, action, "ayse", f"crash test: {action}")
        self.full_tree = render_wiki(repo.load_project("demo"), repo.cases("demo"))
        repo.compact()
        repo.dispose()
        self.to_rule = rulings[N_RULED_FIRST:]


class Zygote:
    """The warm worker process and a line reader with a timeout."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(WORKER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._buf = b""
        assert self.line() == "zygote ready"

    def line(self, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(left, 0))
            if not ready:
                raise TimeoutError("the crash worker did not answer")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise EOFError(self.proc.stderr.read().decode(errors="replace"))
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return line.decode("utf-8")

    def run(self, job: dict, delay: float | None) -> tuple[list[str], int]:
        """Start ``job`` in a child; SIGKILL it ``delay`` seconds after it said ready
        (None: let it finish). Returns the child's lines and its exit status."""
        job = {**job, "linger": delay is not None}
        self.proc.stdin.write((json.dumps(job) + "\n").encode())
        self.proc.stdin.flush()
        lines: list[str] = []
        pid = None
        while pid is None:
            line = self.line()
            lines.append(line)
            if line.startswith("ready "):
                pid = int(line.split()[1])
            assert not line.startswith("error "), line
        if delay is not None:
            time.sleep(delay)
            os.kill(pid, signal.SIGKILL)  # the child is alive: its parent has not reaped it
        while True:
            line = self.line()
            lines.append(line)
            assert not line.startswith(("error ", "wiki-error ")), line
            if line.startswith(f"exit {pid} "):
                return lines, int(line.split()[2])

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


class States:
    """The trees the database rendered after each committed step, newest first, rendered
    only as far as needed: ``states[0]`` is the database as it is now."""

    def __init__(self, renders) -> None:
        self._renders = iter(renders)
        self._done: list[dict[str, bytes]] = []

    def __getitem__(self, i: int) -> dict[str, bytes]:
        while len(self._done) <= i:
            self._done.append(next(self._renders))
        return self._done[i]

    def whole(self, rel: str, data: bytes) -> bool:
        """True when some state rendered exactly ``data`` at ``rel``."""
        i = 0
        while True:
            try:
                state = self[i]
            except StopIteration:
                return False
            if state.get(rel) == data:
                return True
            i += 1


def _check_tree(wiki: Path, states: States) -> int:
    """Every page under ``wiki`` is whole: its bytes are what some state rendered for
    that path. Returns how many leftover temp files an interrupted write left."""
    leftovers = 0
    for path in sorted(wiki.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(wiki).as_posix()
        if path.name == LOCK_NAME:
            continue
        if path.name == MARK_NAME:  # whole too: one JSON object naming the project
            assert json.loads(path.read_bytes())["project"] == "demo"
            continue
        if path.name.startswith(".etki-") and path.name.endswith(".tmp"):
            leftovers += 1
            continue
        assert states.whole(rel, path.read_bytes()), f"partial or foreign page: {rel}"
    return leftovers


def _digest(files: dict[str, bytes], db: Path) -> dict[str, str]:
    """What :func:`tree_digest` gives for a clean rebuild of ``files`` (plus the lock and
    the mark of the DB at ``db``, what the wiki reflects)."""
    repo = CaseFileRepository(f"sqlite:///{db}")
    mark = wiki_mark(repo, "demo")
    repo.dispose()
    out = {rel: hashlib.sha256(data).hexdigest() for rel, data in files.items()}
    return {
        **out,
        LOCK_NAME: hashlib.sha256(b"").hexdigest(),
        MARK_NAME: hashlib.sha256(mark).hexdigest(),
    }


def _expected_drift(wiki: Path, files: dict[str, bytes]) -> tuple[set, set, set]:
    present = {
        p.relative_to(wiki).as_posix(): p.read_bytes()
        for p in wiki.rglob("*")
        if p.is_file() and p.name not in (LOCK_NAME, MARK_NAME)
    }
    missing = {rel for rel in files if rel not in present}
    changed = {rel for rel in files if rel in present and present[rel] != files[rel]}
    stale = set(present) - set(files)
    return missing, changed, stale


def _verify_cli(db: Path, wiki_template: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "ETKI_DB_URL": f"sqlite:///{db}", "ETKI_WIKI_DIR": wiki_template}
    return subprocess.run(
        [sys.executable, "-m", "etki.wiki", "verify", "--project", "demo"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> World:
    return World(tmp_path_factory.mktemp("crash"))


@pytest.fixture
def zygote():
    z = Zygote()
    yield z
    z.close()


def _after_kill(db: Path, wiki_template: str, states: States, tally: dict[str, int]) -> None:
    """The checks after one kill (see the module docstring); ``states[0]`` is the
    render of the database as the kill left it."""
    settings = Settings(db_url=f"sqlite:///{db}", wiki_dir=wiki_template, reviewer="ayse")
    repo = CaseFileRepository(settings.db_url)
    projector = WikiProjector(repo, settings)
    wiki = settings.wiki_path("demo")
    tally["temp_leftovers"] += _check_tree(wiki, states)
    drift = projector.drift("demo")
    assert (set(drift.missing), set(drift.changed), set(drift.stale)) == _expected_drift(
        wiki, states[0]
    )
    if drift:
        tally["drifted"] += 1
        if tally["drifted"] == 1:  # the command itself, as a user runs it
            done = _verify_cli(db, wiki_template)
            assert done.returncode == 1, done.stderr
            assert set(done.stdout.splitlines()[:-1]) == {f"demo: {line}" for line in drift.lines()}
            assert "run `python -m etki.wiki rebuild` to restore" in done.stdout
    projector.rebuild("demo")
    assert tree_digest(wiki) == _digest(states[0], db)  # identical to a clean rebuild
    repo.dispose()


def _clean_tree(db: Path, where: Path) -> Path:
    settings = Settings(db_url=f"sqlite:///{db}", wiki_dir=str(where), reviewer="ayse")
    repo = CaseFileRepository(settings.db_url)
    WikiProjector(repo, settings).rebuild("demo")
    repo.dispose()
    return where / "demo"


def _calibrate(zygote: Zygote, job: dict, reset) -> float:
    """The shortest of two uninterrupted runs of ``job``, in seconds."""
    took = []
    for _ in range(2):
        reset()
        lines, status = zygote.run(job, None)
        assert status == 0, lines
        took.append(float(next(x for x in lines if x.startswith("done ")).split()[2]))
    return min(took)


def test_sigkill_mid_rebuild(world, zygote, tmp_path):
    rng = random.Random(SEED)
    template = str(tmp_path / "wiki-{project}")
    wiki = tmp_path / "wiki-demo"
    stale = "decisions/DEC-20200101-gone--req-demo-9999.md"
    old = {**world.pristine_tree, stale: b"---\ntitle: gone\n---\n# gone\n"}
    states = States([world.full_tree, old])
    clean = _clean_tree(world.full, tmp_path / "clean")
    assert tree_digest(clean) == _digest(world.full_tree, world.full)
    job = {"mode": "rebuild", "db": f"sqlite:///{world.full}", "wiki": template}

    def reset() -> None:
        shutil.rmtree(wiki, ignore_errors=True)
        sync_tree(wiki, old, prune=True)

    took = _calibrate(zygote, job, reset)
    tally = {"tries": 0, "kills": 0, "drifted": 0, "temp_leftovers": 0}
    # go on until enough kills landed mid-operation *and* enough of them left drift to
    # repair (a fast operation leaves a short window; more tries, same bar)
    while (tally["kills"] < KILLS or tally["drifted"] < KILLS // 2) and tally["tries"] < MAX_TRIES:
        tally["tries"] += 1
        reset()
        lines, status = zygote.run(job, rng.uniform(0, took))
        assert status == -signal.SIGKILL
        done = [float(x.split()[2]) for x in lines if x.startswith("done ")]
        if done:  # it finished first: aim earlier (a busy machine calibrates slow)
            took = min(took, done[0])
        else:
            tally["kills"] += 1
        _after_kill(world.full, template, states, tally)
    print(f"\ncrash figures (rebuild, seed {SEED}, {took * 1000:.0f} ms per rebuild): {tally}")
    assert tally["kills"] >= KILLS
    assert tally["drifted"] >= KILLS // 2  # most kills really left work undone


def test_sigkill_mid_projection(world, zygote, tmp_path):
    rng = random.Random(SEED + 1)
    template = str(tmp_path / "wiki-{project}")
    wiki = tmp_path / "wiki-demo"
    db = tmp_path / "etki.db"
    job = {
        "mode": "rule",
        "db": f"sqlite:///{db}",
        "wiki": template,
        "rulings": [list(r) for r in world.to_rule],
    }
    order = [cid for cid, _ in world.to_rule]

    def reset() -> None:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(world.pristine, db)
        shutil.rmtree(wiki, ignore_errors=True)
        sync_tree(wiki, world.pristine_tree, prune=True)

    took = _calibrate(zygote, job, reset)
    tally = {
        "tries": 0,
        "kills": 0,
        "drifted": 0,
        "temp_leftovers": 0,
        "rulings_committed": 0,
        "rulings_lost": 0,
    }
    # go on until enough kills landed mid-operation *and* enough of them left drift to
    # repair (a fast operation leaves a short window; more tries, same bar)
    while (tally["kills"] < KILLS or tally["drifted"] < KILLS // 2) and tally["tries"] < MAX_TRIES:
        tally["tries"] += 1
        reset()
        lines, status = zygote.run(job, rng.uniform(0, took))
        assert status == -signal.SIGKILL
        done = [float(x.split()[2]) for x in lines if x.startswith("done ")]
        if done:  # it finished first: aim earlier (a busy machine calibrates slow)
            took = min(took, done[0])
        else:
            tally["kills"] += 1
        said = [x.split()[2] for x in lines if x.startswith("committed ")]
        # the database: intact, every ruling the worker saw commit is there, in order
        conn = sqlite3.connect(db)
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        conn.close()
        repo = CaseFileRepository(f"sqlite:///{db}")
        cases = repo.cases("demo")
        ruled = {c.case_id for c in cases if c.ruling is not None}
        k = sum(1 for cid in order if cid in ruled)
        assert ruled >= set(said) and set(order[:k]) <= ruled and k in (len(said), len(said) + 1)
        tally["rulings_lost"] += len(set(said) - ruled)
        tally["rulings_committed"] += k
        audit = repo.audit_log()
        assert sum(1 for row in audit if row[-1] == "committed") == N_RULED_FIRST + k
        # every page is what the DB rendered after some number j <= k of these rulings
        project_ = repo.load_project("demo")
        repo.dispose()

        def renders(k=k, cases=cases, project_=project_):
            for j in range(k, -1, -1):
                later = set(order[j:])
                yield render_wiki(
                    project_,
                    [
                        dataclasses.replace(c, ruling=None, version=1) if c.case_id in later else c
                        for c in cases
                    ],
                )

        _after_kill(db, template, States(renders()), tally)
    print(
        f"\ncrash figures (projection, seed {SEED + 1}, {took * 1000:.0f} ms for "
        f"{len(order)} rulings): {tally}"
    )
    assert tally["kills"] >= KILLS and tally["rulings_lost"] == 0
    assert tally["drifted"] >= KILLS // 2


def test_a_temp_file_left_at_the_top_is_stale_and_pruned(world, tmp_path):
    """A kill while ``index.md`` or ``disputed.md`` is written leaves its temp file at the
    top of the wiki, not in a page folder: ``verify`` reports it and ``rebuild`` removes
    it."""
    template = str(tmp_path / "wiki-{project}")
    wiki = tmp_path / "wiki-demo"
    sync_tree(wiki, world.full_tree, prune=True)
    leftover = wiki / ".etki-k1ll3d.tmp"
    leftover.write_bytes(world.full_tree["index.md"][:100])
    settings = Settings(db_url=f"sqlite:///{world.full}", wiki_dir=template, reviewer="ayse")
    repo = CaseFileRepository(settings.db_url)
    projector = WikiProjector(repo, settings)
    assert projector.drift("demo").stale == (".etki-k1ll3d.tmp",)
    assert projector.rebuild("demo")["demo"].removed == (".etki-k1ll3d.tmp",)
    assert not leftover.exists() and projector.verify("demo") == []
    repo.dispose()
