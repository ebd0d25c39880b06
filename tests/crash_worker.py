"""A process for the crash tests (tests/test_crash.py) to SIGKILL mid-write.

It imports Etki once, then forks one child per job read from stdin, so each kill costs
a fork instead of an interpreter start. The parent process never opens a database or a
file of the wiki; each child does its job from scratch and ends with ``os._exit``.

Jobs (one JSON object per stdin line)::

    {"mode": "rebuild", "db": URL, "wiki": TEMPLATE}
        WikiProjector.rebuild("demo")
    {"mode": "rule", "db": URL, "wiki": TEMPLATE, "rulings": [[CASE_ID, ACTION], ...]}
        ApprovalService.rule(...) for each, in order (each commits, then projects)

With ``"linger": true`` a child that finished its job waits to be killed instead of
exiting, so the test's SIGKILL always reaches this child and never a reused pid.

With ``"die_before_projection": true`` (rule mode) the child's ApprovalService gets a
hook of this script instead of the wiki projector: after each ruling's DB commit it says
``held PID CASE_ID`` and waits to be killed, so the test's SIGKILL lands exactly between
the commit and the projection (tests/test_wiki_catchup.py).

Lines written to stdout, each whole in one ``write``::

    zygote ready                      once, after the imports
    child PID                         a job was started
    ready PID                         the child opened the DB and is about to work
    committed PID CASE_ID             a ruling committed (rule mode; before its projection)
    held PID CASE_ID                  committed, projection not started (die_before_projection)
    done PID SECONDS                  the child finished its job
    exit PID STATUS                   the child is gone (STATUS: -9 when killed)
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from etki.config import Settings  # noqa: E402
from etki.services import approval_service  # noqa: E402
from etki.store import CaseFileRepository  # noqa: E402
from etki.wiki.projection import WikiProjector  # noqa: E402


def _say(line: str) -> None:
    os.write(1, (line + "\n").encode("utf-8"))


def _child(job: dict) -> None:
    me = os.getpid()
    settings = Settings(db_url=job["db"], wiki_dir=job["wiki"], reviewer="ayse")
    repo = CaseFileRepository(settings.db_url)
    _say(f"ready {me}")
    started = time.perf_counter()
    if job["mode"] == "rebuild":
        WikiProjector(repo, settings).rebuild("demo")
    else:
        hook = None
        if job.get("die_before_projection"):

            def hook(case_id: str) -> None:  # the commit is done; the kill comes now
                _say(f"held {me} {case_id}")
                time.sleep(120)

        service = approval_service(repo, settings, hook=hook)
        for case_id, action in job["rulings"]:
            outcome = service.rule(case_id, action, reason=f"crash test: {action}")
            _say(f"committed {me} {case_id}")
            if outcome.wiki_error:
                _say(f"wiki-error {me} {outcome.wiki_error}")
    _say(f"done {me} {time.perf_counter() - started:.6f}")
    if job.get("linger"):  # wait for the kill, so its pid can never be another process's
        time.sleep(120)


def main() -> None:
    _say("zygote ready")
    for line in sys.stdin:
        job = json.loads(line)
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                _child(job)
            except BaseException as exc:  # reported, never hidden
                _say(f"error {os.getpid()} {type(exc).__name__}: {exc}")
                code = 1
            os._exit(code)
        _say(f"child {pid}")
        _, status = os.waitpid(pid, 0)
        code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        _say(f"exit {pid} {code}")


if __name__ == "__main__":
    main()
