"""``etki cr export --output`` writes by the wiki writer's rules (issue 30 item 8): never
through a symlink planted under the predictable file name, a temporary file renamed into
place, nothing half-written when the disk refuses the bytes.

Real files, the sample project in a real SQLite store, the real ``etki`` entry point; the
full disk is the kernel's own refusal of a write past the process's file-size limit
(``RLIMIT_FSIZE``, ``EFBIG``, with ``SIGXFSZ`` ignored as a shell's ``ulimit -f`` leaves
it), in a real subprocess."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from etki.config import Settings
from etki.services import Desk, init_project
from etki.store import CaseFileRepository
from tests.cli_support import run_etki
from tests.factories import frozen_clock

SAMPLE = Path(__file__).resolve().parents[1] / "sample_project"
REVIEWER = "Ayşe Yılmaz"


@dataclass
class Ruled:
    case_id: str
    name: str  # the document's own file name, CR-{yyyymmdd}-{slug}.md
    md: bytes
    env: dict[str, str]


@pytest.fixture()
def ruled(tmp_path: Path) -> Iterator[Ruled]:
    url = f"sqlite:///{tmp_path}/etki.db"
    repo = CaseFileRepository(url, clock=frozen_clock)
    settings = Settings(db_url=url, wiki_dir=None, reviewer=REVIEWER)
    init_project(SAMPLE, repo, settings, related_context=False)
    desk = Desk(settings, repo)
    case = next(
        c for c in repo.cases("demo", status="pending") if c.decision.verdict == "CHANGE_REQUEST"
    )
    desk.rule(case.case_id, "convert_to_cr")
    name, md = desk.cr_document(case.case_id, "md")
    repo.dispose()
    # a rollback journal rather than WAL: a reader then needs no 32 KiB shared-memory
    # file, which the file-size limit of the full-disk test would refuse before the export
    with contextlib.closing(sqlite3.connect(tmp_path / "etki.db")) as conn:
        assert conn.execute("PRAGMA journal_mode=DELETE").fetchone() == ("delete",)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "ETKI_DB_URL": url,
        "ETKI_WIKI_DIR": "",
        "ETKI_REVIEWER": REVIEWER,
    }
    yield Ruled(case.case_id, name, md, env)


def test_a_symlink_planted_under_the_file_name_is_replaced_not_written_through(
    ruled: Ruled, tmp_path: Path
) -> None:
    out = tmp_path / "shared-out"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"someone else's file\n")
    planted = out / ruled.name
    planted.symlink_to(victim)
    args = ["cr", "export", ruled.case_id, "--output", str(out) + "/"]
    kept = run_etki(args, env=ruled.env, cwd=tmp_path)  # something is there: not unasked
    assert kept.returncode == 2 and f"{planted} already exists" in kept.stderr
    assert planted.is_symlink() and victim.read_bytes() == b"someone else's file\n"
    done = run_etki([*args, "--force"], env=ruled.env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert victim.read_bytes() == b"someone else's file\n"
    assert not planted.is_symlink() and planted.read_bytes() == ruled.md
    assert sorted(p.name for p in out.iterdir()) == [ruled.name]  # no temporary file left


def _limit_file_size(limit: int) -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails: EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


@pytest.mark.parametrize("existing", [False, True])
def test_a_refused_write_leaves_no_cut_off_document(
    ruled: Ruled, tmp_path: Path, existing: bool
) -> None:
    limit = 512
    assert len(ruled.md) > 2 * limit
    out = tmp_path / "out"
    out.mkdir()
    target = out / ruled.name
    if existing:  # an earlier export stays whole
        target.write_bytes(b"the earlier export\n")
    done = subprocess.run(
        [sys.executable, "-m", "etki.cli", "cr", "export", ruled.case_id, "--output", str(out)],
        env={
            **ruled.env,
            **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"},
            "PYTHONDONTWRITEBYTECODE": "1",
        },
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: _limit_file_size(limit),
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "change request not written" in done.stderr
    if existing:
        assert target.read_bytes() == b"the earlier export\n"
        assert sorted(p.name for p in out.iterdir()) == [ruled.name]
    else:
        assert list(out.iterdir()) == []


def test_an_existing_document_is_replaced_only_with_force(ruled: Ruled, tmp_path: Path) -> None:
    """Issue 35 leftovers: ``etki cr export --output`` wrote over an existing file
    without a word. It is refused (exit 2, the file named, the way to replace it said)
    and the file kept; ``--force`` replaces it."""
    target = tmp_path / "Müşteri teklifi.md"
    target.write_text("Ayşe'nin taslağı\n", encoding="utf-8")
    args = ["cr", "export", ruled.case_id, "--output", str(target)]
    refused = run_etki(args, env=ruled.env, cwd=tmp_path)
    assert refused.returncode == 2
    assert (
        f"change request not written: {target} already exists; add --force to replace it"
        in refused.stderr
    )
    assert target.read_text(encoding="utf-8") == "Ayşe'nin taslağı\n"
    done = run_etki([*args, "--force"], env=ruled.env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert target.read_bytes() == ruled.md
    helped = run_etki(["cr", "export", "--help"], env=ruled.env, cwd=tmp_path)
    help_text = " ".join(helped.stdout.split())
    assert "replace the --output file when it exists" in help_text
