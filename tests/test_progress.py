"""Progress of long work and the log level (issue 32 item 6, :mod:`etki.progress`): a bar
on a terminal (a real pseudo-terminal), nothing in a pipe, ``ETKI_LOG_LEVEL`` and ``-v``."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from etki import progress
from etki.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_project"
BAR = "━"  # rich's bar character


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("ETKI_") and k not in ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE")
    }
    env.update(
        ETKI_DB_URL=f"sqlite:///{tmp_path / 'etki.db'}",
        ETKI_WIKI_DIR=str(tmp_path / "wiki-{project}"),
        PYTHONIOENCODING="utf-8",
        TERM="xterm-256color",
        COLUMNS="100",
    )
    env.update(extra)
    return env


def _etki(tmp_path: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "etki.cli", *args],
        env=_env(tmp_path, **extra),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=600,
        check=False,
    )


def test_log_level_from_the_environment_and_verbose():
    assert progress.log_level({}) == logging.WARNING
    assert progress.log_level({"ETKI_LOG_LEVEL": ""}) == logging.WARNING
    assert progress.log_level({"ETKI_LOG_LEVEL": "debug"}) == logging.DEBUG
    assert progress.log_level({"ETKI_LOG_LEVEL": " Info "}) == logging.INFO
    assert progress.log_level({"ETKI_LOG_LEVEL": "ERROR"}) == logging.ERROR
    assert progress.log_level({}, verbose=1) == logging.INFO
    assert progress.log_level({}, verbose=2) == logging.DEBUG
    assert progress.log_level({"ETKI_LOG_LEVEL": "ERROR"}, verbose=1) == logging.INFO
    assert progress.log_level({"ETKI_LOG_LEVEL": "DEBUG"}, verbose=1) == logging.DEBUG
    for bad in ("LOUD", "10", "warn", "İNFO"):
        with pytest.raises(InputError, match=r"ETKI_LOG_LEVEL=.* is not a log level; use one of"):
            progress.log_level({"ETKI_LOG_LEVEL": bad})


def test_a_task_is_silent_and_counts_nothing_when_off(capsys):
    was = progress.enabled()
    try:
        assert progress.enable(False) is False
        with progress.task("work", 3) as advance:
            advance()
            advance(2, total=4)
        assert list(progress.track([1, 2, 3], "items")) == [1, 2, 3]
        assert progress.enable(True, json=True) is False  # --json: never a bar
    finally:
        progress.enable(was)
    assert capsys.readouterr() == ("", "")


@pytest.mark.slow
def test_in_a_pipe_init_and_rebuild_print_no_bar_and_no_escape_code(tmp_path):
    done = _etki(tmp_path, "init", str(SAMPLE))
    assert done.returncode == 0, done.stderr
    assert "new cases triaged: 40" in done.stdout
    rebuilt = _etki(tmp_path, "wiki", "rebuild")
    assert rebuilt.returncode == 0, rebuilt.stderr
    for out in (done.stdout, done.stderr, rebuilt.stdout, rebuilt.stderr):
        assert "\x1b" not in out and BAR not in out and "\r" not in out


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="needs a pseudo-terminal")
def test_on_a_terminal_init_draws_a_bar_on_stderr(tmp_path):
    import pty

    master, slave = pty.openpty()
    chunks: list[bytes] = []

    def read() -> None:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the other end is closed
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "etki.cli", "init", str(SAMPLE)],
            env=_env(tmp_path),
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=slave,
            timeout=600,
            check=False,
        )
    finally:
        os.close(slave)
    reader.join(timeout=60)
    os.close(master)
    shown = b"".join(chunks).decode("utf-8", errors="replace")
    assert done.returncode == 0, shown
    assert "demo: triaging new requests" in shown
    assert BAR in shown and "\x1b[" in shown
    assert b"\x1b" not in done.stdout  # stdout (a pipe here) keeps its plain lines
    assert b"new cases triaged: 40" in done.stdout


def test_a_bad_log_level_is_one_line_and_exit_2(tmp_path):
    done = _etki(tmp_path, "projects", ETKI_LOG_LEVEL="LOUD")
    assert done.returncode == 2
    assert done.stderr == (
        "etki: error: ETKI_LOG_LEVEL='LOUD' is not a log level; use one of "
        "DEBUG, INFO, WARNING, ERROR, CRITICAL\n"
    )


def test_debug_lines_go_to_stderr_with_the_level_or_vv(tmp_path):
    quiet = _etki(tmp_path, "projects")
    assert "DEBUG" not in quiet.stderr
    for args, extra in (((), {"ETKI_LOG_LEVEL": "DEBUG"}), (("-vv",), {})):
        done = _etki(tmp_path, *args, "projects", **extra)
        assert "etki: DEBUG: etki projects: log level DEBUG\n" in done.stderr, done.stderr
        assert "DEBUG" not in done.stdout
