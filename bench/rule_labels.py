"""Rule every stored case of a project as its request's label says (a "ruled store" for
``etki eval retrieval``, issue 33 item 6, and for the MCP tests).

``labels.verdict`` IN_SCOPE -> approve, CHANGE_REQUEST -> convert to CR, REJECT ->
reject; the reason is the request's ``rationale`` (cut to 300 characters) or "as
labelled". Where the engine proposed the same verdict the ruling agrees; elsewhere it is
an override (a precedent). A case without a label stays pending. The wiki is rebuilt
afterwards when it is on.

    python -m bench.rule_labels PROJECT_DIR [--reviewer NAME]   (ETKI_DB_URL, ETKI_WIKI_DIR)
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

ACTIONS = {"IN_SCOPE": "approve", "CHANGE_REQUEST": "convert_to_cr", "REJECT": "reject"}


def rule_by_labels(repo, settings, project_dir: Path, reviewer: str = "ayse") -> tuple[int, int]:  # noqa: ANN001
    """Rule the pending cases of the project in ``project_dir`` (stored in ``repo``) by
    their labels; returns (ruled, overrides)."""
    from etki.knowledge.loader import load_project
    from etki.services import Desk

    project = load_project(project_dir)
    rows = {}
    for line in (project_dir / "requests.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            rows[str(row["id"])] = row
    ruled = overrides = 0
    for case in repo.cases(project.config.id, status="pending"):
        row = rows.get(case.request_id) or {}
        verdict = (row.get("labels") or {}).get("verdict")
        if verdict not in ACTIONS:
            continue
        reason = str(row.get("rationale") or "as labelled")[:300]
        repo.record_ruling(case.case_id, ACTIONS[verdict], reviewer, reason)
        ruled += 1
        overrides += int(verdict != case.decision.verdict)
    if settings.wiki_dir:
        Desk(settings, repo).wiki_rebuild(project.config.id)
    return ruled, overrides


def main() -> None:
    from etki.config import Settings
    from etki.store import CaseFileRepository

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("project_dir", type=Path)
    p.add_argument("--reviewer", default="ayse")
    args = p.parse_args()
    settings = Settings.from_env()
    repo = CaseFileRepository(settings.db_url)
    ruled, overrides = rule_by_labels(repo, settings, args.project_dir, args.reviewer)
    print(f"ruled {ruled} cases ({overrides} overrides)")


if __name__ == "__main__":
    main()
