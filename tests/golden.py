"""The frozen golden set: the full decision JSON of every request in ``sample_project``
(three verdicts, English, Turkish and German), one file per request under
``snapshots/golden/``.

Regenerate only with an engine version bump, stated in the commit:

    .venv/bin/python tests/golden.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "snapshots" / "golden"
SAMPLE = ROOT / "sample_project"
sys.path.insert(0, str(ROOT))


def decisions() -> dict[str, bytes]:
    """file name -> canonical decision bytes (``Decision.to_json()`` + LF)."""
    from etki.knowledge import build_index, load_project
    from etki.triage import TriageEngine, case_id_for

    project = load_project(SAMPLE)
    engine = TriageEngine(project, build_index(project).hash)
    out = {}
    for request in project.requests:
        decision = engine.triage(case_id_for(project.id, request.id), request.text, request.title)
        out[f"{request.id}.json"] = (decision.to_json() + "\n").encode("utf-8")
    return out


def main() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    fresh = decisions()
    for stale in GOLDEN.glob("*.json"):
        if stale.name not in fresh:
            stale.unlink()
    for name, data in fresh.items():
        (GOLDEN / name).write_bytes(data)
    print(f"wrote {len(fresh)} golden decisions to {GOLDEN.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
