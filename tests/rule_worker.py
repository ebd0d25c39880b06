"""A reviewer process for the concurrency tests: waits for a start time, then tries to
rule every given case through the real ApprovalService and prints a JSON tally.

usage: python tests/rule_worker.py DB_URL REVIEWER ACTION START_EPOCH CASE_ID...
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from etki.approval import ApprovalService  # noqa: E402
from etki.config import Settings  # noqa: E402
from etki.errors import ConflictError  # noqa: E402
from etki.store import CaseFileRepository  # noqa: E402


def main() -> None:
    url, reviewer, action, start, *case_ids = sys.argv[1:]
    repo = CaseFileRepository(url)
    service = ApprovalService(repo, Settings(db_url=url, reviewer=reviewer, wiki_dir=None))
    tally = {"committed": 0, "conflict": 0, "errors": []}
    while time.time() < float(start):
        time.sleep(0.001)
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
