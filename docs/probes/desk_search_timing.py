"""Desk live-search timing (issue 33, helper mem33): Hafıza's per-keystroke search
before (``etki.wiki.fts.top``, FTS5 bm25 over whole pages) and after
(``etki.wiki.live.top``, the ranked search of ``etki wiki search``), warm index, median
of 5 calls per query, limit 50. The wiki: the label-ruled tdrs wiki with its decision
pages copied 340 times (10,295 pages). Before runs with main's package first on the path:

    PYTHONPATH=/work/main python docs/probes/desk_search_timing.py old WIKI
    python docs/probes/desk_search_timing.py new WIKI
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

QUERIES = [
    "login",
    "property tax",
    "hosting system",
    "ik",
    "data migrate",
    "sftp upload old system",
]


def main() -> None:
    """Print each query's median time, hit count and how the index synced."""
    mode, root = sys.argv[1], Path(sys.argv[2])

    def top(query: str) -> Any:
        if mode == "old":
            from etki.wiki import fts

            return fts.top(root, query, 50, lambda: False)  # type: ignore[attr-defined]
        from etki.wiki import live

        return live.top(root, query, 50, lambda: False)

    top("warm")
    for query in QUERIES:
        times = []
        for _ in range(5):
            start = time.perf_counter()
            got = top(query)
            times.append(time.perf_counter() - start)
        ms = statistics.median(times) * 1000
        print(f"{mode} {query!r:28} {ms:7.1f} ms  total {got.total} {got.synced}")


if __name__ == "__main__":
    main()
