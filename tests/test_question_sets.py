"""The reviewer question sets of ``docs/questions`` (issue 33 item 6: 10+ natural
questions per engagement, written from the contract, each with the clause(s) that answer
it). Realdata engagements are read from ``../shared/realdata`` and skipped when absent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from etki.knowledge.contracts import parse_contract

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT / "docs" / "questions"
REALDATA = ROOT.parent / "shared" / "realdata"
ENGAGEMENTS = {
    "demo": ROOT / "sample_project",
    "tdrs": REALDATA / "tdrs",
    "talentmap": REALDATA / "talentmap",
    "eqip": REALDATA / "eqip",
}


def _number(number: str) -> str:
    parts = [p for p in number.strip().strip(".").split(".") if p]
    while len(parts) > 1 and parts[-1] == "0":
        parts.pop()
    return ".".join(parts)


@pytest.mark.parametrize("engagement", sorted(ENGAGEMENTS))
def test_every_engagement_has_ten_labelled_questions(engagement: str) -> None:
    """Each engagement's set has at least 10 questions with distinct ids, and every
    labelled clause is a clause of that engagement's contracts (by number, ``5.0`` =
    ``5``), so ``etki eval retrieval`` drops no label."""
    folder = ENGAGEMENTS[engagement]
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent")
    rows = [
        json.loads(line)
        for line in (QUESTIONS / f"{engagement}.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    assert len(rows) >= 10
    assert len({r["id"] for r in rows}) == len(rows)
    numbers = {
        _number(c.number)
        for path in sorted((folder / "contracts").iterdir())
        if path.suffix == ".md"
        for c in parse_contract(path).clauses
    }
    for row in rows:
        assert row["query"].strip()
        labels = row["labels"]["clauses"]
        assert labels, row["id"]
        missing = [x for x in labels if _number(x) not in numbers]
        assert not missing, (row["id"], missing)
