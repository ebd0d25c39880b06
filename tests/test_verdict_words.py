"""``etki rule`` and ``etki dispute resolve`` take the same verdict spellings (issue 34's
trial: ``--verdict in_scope`` was accepted by one and refused by the other), and an
unknown word is refused naming every spelling."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import pytest

from etki.commands.verdicts import verdict_of
from tests.cli_support import run_etki

SAMPLE = Path(__file__).resolve().parents[1] / "sample_project"


@pytest.mark.parametrize(
    ("said", "verdict"),
    [
        ("in_scope", "in_scope"),
        ("in-scope", "in_scope"),
        ("IN_SCOPE", "in_scope"),
        ("approve", "in_scope"),
        ("cr", "cr"),
        ("CR", "cr"),
        ("change_request", "cr"),
        ("Change-Request", "cr"),
        ("reject", "reject"),
        ("REJECT", "reject"),
    ],
)
def test_every_spelling_names_its_verdict(said: str, verdict: str) -> None:
    assert verdict_of(said) == verdict


def test_an_unknown_word_names_the_spellings() -> None:
    with pytest.raises(argparse.ArgumentTypeError) as err:
        verdict_of("inscop")
    text = str(err.value)
    assert "'inscop'" in text
    for spelling in ("approve", "in_scope", "in-scope", "IN_SCOPE", "change_request", "reject"):
        assert spelling in text


def test_rule_and_dispute_resolve_take_the_same_words(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "ETKI_DB_URL": f"sqlite:///{tmp_path}/etki.db",
        "ETKI_WIKI_DIR": str(tmp_path / "wiki-{project}"),
        "ETKI_REVIEWER": "reviewer",
    }
    assert run_etki(["init", str(SAMPLE)], env=env, cwd=tmp_path).returncode == 0
    queue = json.loads(run_etki(["queue", "--json"], env=env, cwd=tmp_path).stdout)
    one, two = queue[0]["case_id"], queue[1]["case_id"]
    ruled = run_etki(["rule", one, "in-scope", "--reason", "x"], env=env, cwd=tmp_path)
    assert ruled.returncode == 0, ruled.stderr
    assert f"{one}: IN_SCOPE by reviewer" in ruled.stdout
    cr = run_etki(["rule", two, "CHANGE_REQUEST", "--reason", "x"], env=env, cwd=tmp_path)
    assert cr.returncode == 0 and f"{two}: CHANGE_REQUEST by reviewer" in cr.stdout
    for args in (["rule", two, "maybe"], ["dispute", "resolve", "4.8", "--verdict", "maybe"]):
        bad = run_etki([*args, "--reason", "x"], env=env, cwd=tmp_path)
        assert bad.returncode == 2
        assert "unknown verdict 'maybe'" in bad.stderr and "in-scope" in bad.stderr
