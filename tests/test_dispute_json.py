"""``etki dispute list --json`` writes its text field by field (issue 32 item 1:
``etki.commands.disputes._json_text``, and :func:`etki.jsontext.dumps_indented` for the
other ``--json`` commands) instead of ``json.dumps(..., indent=1)``'s pure-Python
encoder: the bytes must stay those ``json.dumps`` wrote. On a store with disputes in every
state (disputed, disputed-resolved, disputed again), an erased ruling and hostile text,
SQLite and PostgreSQL, the command prints, on the lean path and on the ORM path, exactly
what the stdlib encoder makes of the desk's disputed clauses; the emitters equal
``json.dumps`` value kind by value kind."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from enum import IntEnum
from pathlib import Path

import pytest

from etki.commands.disputes import _json_text, _row
from etki.console import json_safe
from etki.domain import ClauseResolution, DisputedClause
from etki.jsontext import dumps_indented
from etki.services import Desk
from etki.store import CaseFileRepository
from tests.cli_support import run_etki
from tests.test_lean_report import HOSTILE, REVIEWER, SECOND, _fill, _settings

GONE = "req-demo-3fe9892e"  # pending in _fill, cites MSA-2024-01#4.8, engine IN_SCOPE


def _disputes_everywhere(url: str) -> None:
    """``tests.test_lean_report._fill`` (4.8 disputed and resolved CHANGE_REQUEST, an
    erased ruling, hostile text), then 4.8 ruled IN_SCOPE after its resolution
    (disputed again), and a second clause disputed by two pending cases and resolved
    with a hostile reason (disputed-resolved)."""
    _fill(url)
    # the store's clock a day on, a second per reading: each ruling below is later than
    # the resolution _fill made (times are whole seconds), and they follow each other
    moment = [datetime.now(UTC) + timedelta(days=1)]

    def tick() -> datetime:
        moment[0] += timedelta(seconds=1)
        return moment[0]

    repo = CaseFileRepository(url, clock=tick)
    try:
        desk = Desk(_settings(url), repo)
        other = Desk(_settings(url, SECOND), repo)
        desk.rule(GONE, "approve", reason="4.8 covers it")
        citing: dict[str, list[str]] = {}
        for case in repo.cases("demo", status="pending"):
            for ref in case.decision.cited_clauses:
                citing.setdefault(ref, []).append(case.case_id)
        ref, (one, two, *_) = next(
            (r, ids)
            for r, ids in sorted(citing.items())
            if len(ids) >= 2 and not r.endswith("#4.8")
        )
        desk.rule(one, "approve", reason=f"{ref} covers it")
        other.rule(two, "reject", reason=f"{ref}: not ours \x7f {HOSTILE}")
        desk.resolve_dispute("demo", ref, "REJECT", "\x7f" + HOSTILE + " \u2066x\u2069")
    finally:
        repo.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request, tmp_path) -> Iterator[str]:
    url = (
        f"sqlite:///{tmp_path}/etki.db"
        if request.param == "sqlite"
        else request.getfixturevalue("pg_schema").url
    )
    _disputes_everywhere(url)
    yield url


def _stdlib(url: str) -> str:
    """What the command printed before issue 32's emitter: the stdlib encoder's text of
    the desk's (ORM) disputed clauses, escaped by :func:`json_safe`."""
    repo = CaseFileRepository(url)
    try:
        disputed = Desk(_settings(url), repo).disputed("demo")
    finally:
        repo.dispose()
    states = {_row(d)["state"] for d in disputed}
    assert states == {"disputed-resolved", "disputed again"}, states
    text = json.dumps([_row(d) for d in disputed], ensure_ascii=False, indent=1)
    return json_safe(text) + "\n"


def test_the_list_prints_what_json_dumps_wrote(store_url, tmp_path: Path) -> None:
    expected = _stdlib(store_url)
    assert "\\u007f" in expected and "\\u2066" in expected and "İSTANBUL" in expected
    env = {"ETKI_DB_URL": store_url, "ETKI_WIKI_DIR": "", "ETKI_REVIEWER": REVIEWER}
    args = ["dispute", "list", "--json"]
    lean = run_etki(args, env=env, cwd=tmp_path)
    orm = run_etki(args, env={**env, "ETKI_LEAN_READ": "0"}, cwd=tmp_path)
    assert (lean.returncode, lean.stdout, lean.stderr) == (0, expected, "")
    assert (orm.returncode, orm.stdout, orm.stderr) == (0, expected, "")
    text_args = ["dispute", "list"]
    lean_text = run_etki(text_args, env=env, cwd=tmp_path)
    orm_text = run_etki(text_args, env={**env, "ETKI_LEAN_READ": "0"}, cwd=tmp_path)
    assert lean_text.stdout == orm_text.stdout and "DISPUTED AGAIN" in lean_text.stdout


RESOLUTION = ClauseResolution(1, "p", "X#1", "REJECT", 'no "quote" \\ \x00 \x1f', "Jürgen", "t")


@pytest.mark.parametrize(
    "disputed",
    [
        [],
        [DisputedClause("A#1", ())],
        [DisputedClause("A#1", (("c1", "approve", "ı", "2026"),), RESOLUTION, "c1")],
        [
            DisputedClause("A#1", (("c", "approve", "r", "t"), ("d", "reject", "r", "t"))),
            DisputedClause("B\u202e#2", (("c", "approve", "r", "t"),), RESOLUTION),
        ],
        # not strings where strings stand: json's own rules (the fallback)
        [DisputedClause("A#1", (("c", "approve", "r", 5),))],
        [DisputedClause("A#1", (("c", "approve", None, 1.5),))],
    ],
)
def test_the_list_text_equals_json_dumps(disputed: list[DisputedClause]) -> None:
    rows = [_row(d) for d in disputed]
    assert _json_text(disputed) == json.dumps(rows, ensure_ascii=False, indent=1)


class Level(IntEnum):
    HIGH = 3


class Word(str):
    pass


VALUES = [
    None,
    True,
    False,
    0,
    -7,
    10**30,
    1.5,
    -0.0,
    1e300,
    math.inf,
    -math.inf,
    "",
    "plain",
    'q"uote\\ \n\t\x00\x1f\x7f \u2028 İı ß é\u0301 😀 \ud800',
    [],
    {},
    (),
    [[]],
    [{}],
    {"a": []},
    {"a": {}},
    [1, "a", None, [2, [3, {"k": "v"}]], {"x": {"y": [True, 1.25]}}],
    ("t", ("u",)),
    {"k": (1, 2), "empty": {}, "list": [{}, []]},
    {3: "int key", 2.5: "float key", False: "bool", None: "none"},
    {"nested": {1: "int key inside"}},
    Level.HIGH,
    [Level.HIGH],
    Word("sub"),
    {"w": Word("sub"), Word("key"): 1},
    {"a": 1, "b": "2", "c": [1.0, 2.5e-10]},
]


@pytest.mark.parametrize("indent", [0, 1, 2, 4, "\t", "--"])
@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_dumps_indented_equals_json_dumps(value, indent) -> None:
    assert dumps_indented(value, indent) == json.dumps(value, ensure_ascii=False, indent=indent)


def test_dumps_indented_refuses_what_json_refuses() -> None:
    with pytest.raises(TypeError):
        dumps_indented({"a": object()}, 1)
    with pytest.raises(TypeError):
        dumps_indented({"a": {1, 2}}, 1)


def test_json_safe_escapes_del_in_ascii_text() -> None:
    assert json_safe('["a\x7fb"]') == '["a\\u007fb"]'
    assert json_safe('["plain"]') == '["plain"]'
    assert json_safe('["\u202e\x85"]') == '["\\u202e\\u0085"]'
