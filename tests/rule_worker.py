"""A reviewer process for the concurrency tests: once ready (Etki imported, the store
opened) it says so on stdout and waits for one line on stdin — the start, sent to every
worker when all of them are ready, so they contend however slowly a loaded machine
starts them — then tries to rule every given case through the real ApprovalService and
prints a JSON tally.

usage: python tests/rule_worker.py DB_URL REVIEWER ACTION CASE_ID...
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from etki.approval import ApprovalService  # noqa: E402
from etki.config import Settings  # noqa: E402
from etki.errors import ConflictError  # noqa: E402
from etki.store import CaseFileRepository  # noqa: E402


def main() -> None:
    url, reviewer, action, *case_ids = sys.argv[1:]
    repo = CaseFileRepository(url)
    service = ApprovalService(repo, Settings(db_url=url, reviewer=reviewer, wiki_dir=None))
    tally = {"committed": 0, "conflict": 0, "errors": []}
    print("ready", flush=True)
    sys.stdin.readline()  # the start: every worker is ready
    for case_id in case_ids:
        try:
            service.rule(case_id, action, reason=f"{reviewer} rules")
            tally["committed"] += 1
        except ConflictError:
            tally["conflict"] += 1
        except Exception as exc:  # any other error is a failure the test reports
            tally["errors"].append(f"{type(exc).__name__}: {exc}")
    print(json.dumps(tally))


if __name__ == "__main__":
    main()
