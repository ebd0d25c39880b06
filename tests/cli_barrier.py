"""Run the real ``etki`` command line in a process that starts together with others.

usage: python tests/cli_barrier.py BARRIER_DIR NAME ETKI_ARG...

Imports Etki's CLI and services, writes ``BARRIER_DIR/ready-NAME``, waits until ``BARRIER_DIR/go``
exists (the test creates it once every process is ready: a state, not a delay), then
runs ``etki ETKI_ARG...`` through :func:`etki.cli.main` and exits with its code.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import etki.services  # noqa: E402, F401 - imported before the start, not after it
from etki import cli  # noqa: E402


def main() -> None:
    barrier, name, *args = sys.argv[1:]
    folder = Path(barrier)
    (folder / f"ready-{name}").touch()
    while not (folder / "go").exists():
        time.sleep(0.001)
    cli.main(args)


if __name__ == "__main__":
    main()
