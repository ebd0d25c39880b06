"""Identity under attack (issue 11, item 9), with real ``etki`` processes on real stores
(a set-up step, and a call whose audit pid is not read, runs in the test's process).

* The audit keeps the asserted ``ETKI_REVIEWER`` and, beside it, the OS user, host, pid
  and program of the process that wrote the row, also when ``$USER``/``$LOGNAME`` lie.
* A non-approver's refusal names no approver.
* A second ``etki init`` of a copied folder with one more approver exits 2 and changes
  nothing; ``--update-reviewers`` by an approver changes the list and is audited (old and
  new lists, actor, OS user, host, pid); by a non-approver it is refused and audited.
* ``projects.root`` is stored absolute, whatever path ``etki init`` was given.
* An NFD spelling of an approver's name rules; case is not folded.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import socket
import subprocess
import sys
import unicodedata
from contextlib import ExitStack
from pathlib import Path

import pytest

from etki.domain import Reviewer
from etki.store import CaseFileRepository
from tests.cli_support import run_etki
from tests.pg import fresh_schema

pytestmark = (
    pytest.mark.slow
)  # real processes: the audit records their pids (pytest -m "not slow" leaves it out)

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_project"
APPROVERS = ("Ayşe Yılmaz", "Jürgen Weiß", "Çağrı Öztürk")  # sample_project/etki.yaml
USER_VARS = ("LOGNAME", "USER", "LNAME", "USERNAME")  # what getpass.getuser() reads first


@functools.cache
def _real_os_user() -> str:
    """``getpass.getuser()`` as a process with no user variable in its environment gets
    it: the password-database name of the real uid (what the audit must record)."""
    env = {k: v for k, v in os.environ.items() if k not in USER_VARS}
    out = subprocess.run(
        [sys.executable, "-c", "import getpass; print(getpass.getuser())"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    return out.stdout.strip()


class _Store:
    """A real store for the CLI: a SQLite file, or a fresh PostgreSQL schema."""

    def __init__(self, kind: str, tmp: Path) -> None:
        self._pg = ExitStack()  # the PostgreSQL schema, dropped by close()
        if kind == "sqlite":
            self.url = f"sqlite:///{tmp}/etki.db"
            return
        self.url = self._pg.enter_context(fresh_schema("etki_id")).url

    def repo(self) -> CaseFileRepository:
        return CaseFileRepository(self.url)

    def close(self) -> None:
        self._pg.close()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request, tmp_path):
    s = _Store(request.param, tmp_path)
    yield s
    s.close()


def _run(
    store: _Store,
    tmp: Path,
    *args: str,
    reviewer: str | None = "reviewer",
    extra_env: dict[str, str] | None = None,
    process: bool = True,
) -> tuple[subprocess.CompletedProcess, int]:
    """Run ``python -m etki.cli ARGS`` and return its result and its pid; with
    ``process=False``, run it in this process (:func:`tests.cli_support.run_etki`, pid
    0): for a set-up step or a call whose audit row's pid the test does not read (a
    process start costs about a second of CPU, ``etki init`` three)."""
    env = {
        **os.environ,
        "ETKI_DB_URL": store.url,
        "ETKI_WIKI_DIR": str(tmp / "wiki-{project}"),
        **(extra_env or {}),
    }
    env.pop("ETKI_REVIEWER", None)
    if reviewer is not None:
        env["ETKI_REVIEWER"] = reviewer
    if not process:
        return run_etki(args, env=env, cwd=tmp), 0
    proc = subprocess.Popen(
        [sys.executable, "-m", "etki.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp,
    )
    out, err = proc.communicate(timeout=300)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), proc.pid


def _first_case(store: _Store) -> str:
    repo = store.repo()
    try:
        return repo.cases("demo", status="pending")[0].case_id
    finally:
        repo.dispose()


def test_a_refusal_names_no_approver_and_every_audit_row_says_who_ran_it(store, tmp_path):
    init, _ = _run(store, tmp_path, "init", str(SAMPLE), "--no-context", process=False)
    assert init.returncode == 0, init.stderr
    case_id = _first_case(store)
    os_user, host = _real_os_user(), socket.gethostname()
    liar = {"USER": "ayse", "LOGNAME": "ayse"}  # the environment lies about the OS user

    denied, denied_pid = _run(
        store,
        tmp_path,
        "rule",
        case_id,
        "approve",
        "--reason",
        "x",
        reviewer="mallory",
        extra_env=liar,
    )
    assert denied.returncode == 2 and "Traceback" not in denied.stderr
    assert "not an approver" in denied.stderr and "ask a project approver" in denied.stderr
    for name in APPROVERS:  # no approver's name is handed to whoever asks
        assert name not in denied.stderr
    assert "approvers:" not in denied.stderr

    ruled, ruled_pid = _run(
        store, tmp_path, "rule", case_id, "approve", "--reason", "ok", extra_env=liar
    )
    assert ruled.returncode == 0, ruled.stderr
    late, late_pid = _run(store, tmp_path, "rule", case_id, "reject", "--reason", "late")
    assert late.returncode == 2 and "already ruled" in late.stderr
    erased, erase_pid = _run(store, tmp_path, "erase", case_id, "--reason", "KVKK 2026/1")
    assert erased.returncode == 0, erased.stderr

    repo = store.repo()
    rows = repo.audit_entries(case_id)
    repo.dispose()
    assert [(r.reviewer, r.outcome, r.os_user, r.host, r.pid, r.program) for r in rows] == [
        ("mallory", "denied", os_user, host, denied_pid, "etki rule"),
        ("reviewer", "committed", os_user, host, ruled_pid, "etki rule"),
        ("reviewer", "conflict", os_user, host, late_pid, "etki rule"),
        ("reviewer", "erased", os_user, host, erase_pid, "etki erase"),
    ]
    assert len({denied_pid, ruled_pid, late_pid, erase_pid}) == 4


def test_a_copied_folder_cannot_add_an_approver_without_update_reviewers(store, tmp_path):
    rel = Path("engagement")  # a relative path: the store must keep it absolute
    shutil.copytree(SAMPLE, tmp_path / rel)
    first, _ = _run(store, tmp_path, "init", str(rel), "--no-context")
    assert first.returncode == 0, first.stderr
    original = (tmp_path / rel).resolve()
    repo = store.repo()
    reviewers = repo.project_config("demo").reviewers
    assert repo.load_project("demo").root == original and original.is_absolute()
    loaded_at = repo._project_row("demo").loaded_at
    repo.dispose()

    copy = tmp_path / "elsewhere" / "engagement"
    shutil.copytree(SAMPLE, copy)
    yaml_text = (copy / "etki.yaml").read_text(encoding="utf-8")
    (copy / "etki.yaml").write_text(
        yaml_text.replace("reviewers:\n", "reviewers:\n  - name: Mallory\n    role: approver\n", 1),
        encoding="utf-8",
    )
    case_id = _first_case(store)

    # 1. the attack: re-init from the copy, no flag -> exit 2, nothing changed
    again, again_pid = _run(store, tmp_path, "init", str(copy), "--no-context", reviewer="Mallory")
    assert again.returncode == 2, again.stdout + again.stderr
    assert "add approver 'Mallory'" in again.stderr and "--update-reviewers" in again.stderr
    assert "Traceback" not in again.stderr
    repo = store.repo()
    assert repo.project_config("demo").reviewers == reviewers
    assert repo.load_project("demo").root == original
    assert repo._project_row("demo").loaded_at == loaded_at  # nothing was stored
    repo.dispose()
    mallory, _ = _run(
        store,
        tmp_path,
        *("rule", case_id, "approve", "--reason", "x"),
        reviewer="Mallory",
        process=False,
    )
    assert mallory.returncode == 2 and "not an approver" in mallory.stderr

    # 2. the flag alone is not enough: the actor must be an approver already
    self_made, self_pid = _run(
        store, tmp_path, "init", str(copy), "--no-context", "--update-reviewers", reviewer="Mallory"
    )
    assert self_made.returncode == 2 and "ask a project approver" in self_made.stderr
    for name in APPROVERS:
        assert name not in self_made.stderr
    repo = store.repo()
    assert repo.project_config("demo").reviewers == reviewers
    repo.dispose()

    # 3. an approver applies it explicitly: changed and audited
    done, done_pid = _run(
        store,
        tmp_path,
        "init",
        str(copy),
        "--no-context",
        "--update-reviewers",
        reviewer="Jürgen Weiß",
    )
    assert done.returncode == 0, done.stderr
    assert "reviewers: add approver 'Mallory' (audited)" in done.stdout
    repo = store.repo()
    after = repo.project_config("demo").reviewers
    assert Reviewer("Mallory", "approver") in after and set(reviewers) < set(after)
    assert repo.load_project("demo").root == copy.resolve()
    audit = repo.project_audit("demo")
    repo.dispose()
    os_user, host = _real_os_user(), socket.gethostname()
    assert [(a.outcome, a.reviewer, a.root) for a in audit] == [
        ("created", "reviewer", str(original)),
        ("refused", "Mallory", str(copy.resolve())),
        ("denied", "Mallory", str(copy.resolve())),
        ("changed", "Jürgen Weiß", str(copy.resolve())),
    ]
    old = tuple(sorted(reviewers, key=lambda r: (r.name, r.role)))
    assert audit[0].before == () and audit[0].after == old
    for row in audit[1:]:
        assert row.before == old
        assert set(row.after) == set(old) | {Reviewer("Mallory", "approver")}
    assert [(a.os_user, a.host, a.program) for a in audit] == [(os_user, host, "etki init")] * 4
    assert [a.pid for a in audit[1:]] == [again_pid, self_pid, done_pid]

    # now, and only now, Mallory is an approver
    ruled, _ = _run(
        store,
        tmp_path,
        *("rule", case_id, "approve", "--reason", "x"),
        reviewer="Mallory",
        process=False,
    )
    assert ruled.returncode == 0, ruled.stderr


def test_an_nfd_reviewer_name_rules_as_its_nfc_twin(tmp_path):
    store = _Store("sqlite", tmp_path)
    init, _ = _run(store, tmp_path, "init", str(SAMPLE), "--no-context", process=False)
    assert init.returncode == 0, init.stderr
    repo = store.repo()
    cases = [c.case_id for c in repo.cases("demo", status="pending")[:3]]
    repo.dispose()
    nfd = unicodedata.normalize("NFD", "Jürgen Weiß")
    assert nfd == "Ju\u0308rgen Weiß" and nfd != "Jürgen Weiß"

    ruled, _ = _run(
        store, tmp_path, "rule", cases[0], "approve", "--reason", "ok", reviewer=f"  {nfd} "
    )
    assert ruled.returncode == 0, ruled.stderr
    assert "by Jürgen Weiß at" in ruled.stdout
    # case is not folded: a different spelling is a different name (documented)
    lower, _ = _run(
        store, tmp_path, "rule", cases[1], "approve", "--reason", "ok", reviewer="jürgen weiß"
    )
    assert lower.returncode == 2 and "not an approver" in lower.stderr
    repo = store.repo()
    assert repo.case(cases[0]).ruling.reviewer == "Jürgen Weiß"  # stored in NFC
    assert [r.reviewer for r in repo.audit_entries(cases[0])] == ["Jürgen Weiß"]
    repo.dispose()

    # and the other way round: etki.yaml spells the approver in NFD, the reviewer in NFC
    other = tmp_path / "nfd-project"
    shutil.copytree(SAMPLE, other)
    yaml_text = (other / "etki.yaml").read_text(encoding="utf-8")
    yaml_text = yaml_text.replace("id: demo", "id: nfd").replace(
        "Çağrı Öztürk", unicodedata.normalize("NFD", "Çağrı Öztürk")
    )
    assert unicodedata.normalize("NFD", "Çağrı Öztürk") in yaml_text
    (other / "etki.yaml").write_text(yaml_text, encoding="utf-8")
    init, _ = _run(store, tmp_path, "init", str(other), "--no-context", process=False)
    assert init.returncode == 0, init.stderr
    repo = store.repo()
    assert Reviewer("Çağrı Öztürk", "approver") in repo.project_config("nfd").reviewers
    nfd_case = repo.cases("nfd", status="pending")[0].case_id
    repo.dispose()
    ruled, _ = _run(
        store, tmp_path, "rule", nfd_case, "approve", "--reason", "ok", reviewer="Çağrı Öztürk"
    )
    assert ruled.returncode == 0, ruled.stderr


def test_reordering_reviewers_or_respelling_them_in_nfd_is_no_change(tmp_path):
    store = _Store("sqlite", tmp_path)
    folder = tmp_path / "engagement"
    shutil.copytree(SAMPLE, folder)
    first, _ = _run(store, tmp_path, "init", str(folder), "--no-context", process=False)
    assert first.returncode == 0, first.stderr
    yaml_text = (folder / "etki.yaml").read_text(encoding="utf-8")
    ayse = (
        "  - name: Ayşe Yılmaz        # PMO lead, Kentpark Municipality IT Directorate\n"
        "    role: approver\n"
    )
    assert ayse in yaml_text
    moved = yaml_text.replace(ayse, "").replace(
        "Jürgen Weiß", unicodedata.normalize("NFD", "Jürgen Weiß")
    )
    moved = moved.replace("  - name: reviewer ", ayse + "  - name: reviewer ")
    (folder / "etki.yaml").write_text(moved, encoding="utf-8")
    again, _ = _run(store, tmp_path, "init", str(folder), "--no-context", process=False)
    assert again.returncode == 0, again.stderr
    assert "reviewers:" not in again.stdout
    repo = store.repo()
    assert [a.outcome for a in repo.project_audit("demo")] == ["created"]
    stored = json.loads(repo._project_row("demo").config_json)["reviewers"]
    assert {"name": "Jürgen Weiß", "role": "approver"} in stored  # NFC in the store
    repo.dispose()


@pytest.mark.skipif(sys.platform != "linux", reason="needs a Linux pty")
def test_a_ruling_in_the_desk_is_audited_as_etki_tui(tui_world):
    """``etki-tui`` on a real pseudo-terminal rules the first case (a, then Enter: the
    ruling agrees with the engine, so Approve has the focus): its audit row names the program ``etki-tui`` and the desk's own pid."""
    import pty
    import signal
    import time

    from tests.test_tui_terminal import CMD, READY, _env, _read_until, _reap, _winsize

    first = "req-demo-0a1f3c21"  # tests/conftest.py PENDING[0], IN_SCOPE
    pid, fd = pty.fork()
    if pid == 0:  # the child: the desk on the pty
        try:
            os.execve(sys.executable, CMD, _env(tui_world))
        finally:
            os._exit(127)
    try:
        _winsize(fd)
        seen = bytearray()
        assert _read_until(fd, READY, seen, time.monotonic() + 60), bytes(seen[-2000:])
        os.write(fd, b"a")
        assert _read_until(fd, b"Cancel", seen, time.monotonic() + 60), bytes(seen[-2000:])
        os.write(fd, b"\r")
        deadline = time.monotonic() + 60
        while tui_world.repo.case(first).ruling is None:  # wait for the state
            assert time.monotonic() < deadline, bytes(seen[-2000:])
            _read_until(fd, b"\x00never", seen, time.monotonic() + 0.3)
        os.kill(pid, signal.SIGTERM)
        _read_until(fd, b"", seen, time.monotonic() + 20)
    finally:
        _reap(pid)
        os.close(fd)
    row = tui_world.repo.audit_entries(first)[-1]
    assert (row.reviewer, row.outcome, row.program, row.pid) == (
        "reviewer",
        "committed",
        "etki-tui",
        pid,
    )
    assert (row.os_user, row.host) == (_real_os_user(), socket.gethostname())
