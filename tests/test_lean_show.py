"""``etki show`` on the lean read path (issue 32 item 1, :mod:`etki.store.lean_case`)
prints byte for byte what the ORM path prints (``ETKI_LEAN_READ=0``), text and
``--json``, by whole and short id, on SQLite and PostgreSQL: a pending case, a ruling
that agrees with the engine, an override amended since, a change request with an estimate
and terms, a case with a note and hostile text, an erased case and a case gone with its
deleted project."""

from __future__ import annotations

from pathlib import Path

import pytest

from etki.config import Settings
from etki.services import Desk, init_project
from etki.store import CaseFileRepository
from tests.cli_support import run_etki
from tests.conftest import REPO_ROOT

SAMPLE = REPO_ROOT / "sample_project"
REVIEWER = "Ayşe Yılmaz"
HOSTILE = "[bold red]x[/] \x1b[2J ‮İSTANBUL ıi ß Straße\nline two\t<script>"


def _both(args: list[str], url: str, cwd: Path) -> None:
    env = {"ETKI_DB_URL": url, "ETKI_WIKI_DIR": "", "ETKI_REVIEWER": REVIEWER}
    lean = run_etki(args, env=env, cwd=cwd)
    orm = run_etki(args, env={**env, "ETKI_LEAN_READ": "0"}, cwd=cwd)
    assert (lean.returncode, lean.stdout, lean.stderr) == (
        orm.returncode,
        orm.stdout,
        orm.stderr,
    ), args


def _compare(ids: list[str], url: str, cwd: Path) -> None:
    for case_id in ids:
        for short in (case_id, case_id.rsplit("-", 1)[-1]):
            _both(["show", short], url, cwd)
            _both(["show", short, "--json"], url, cwd)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/etki.db"
    return request.getfixturevalue("pg_schema").url


def test_show_prints_what_the_orm_path_prints(store_url, tmp_path) -> None:
    settings = Settings(db_url=store_url, wiki_dir=None, reviewer=REVIEWER, related_context=False)
    repo = CaseFileRepository(store_url)
    try:
        init_project(SAMPLE, repo, settings, related_context=False, preanalyse=False)
        desk = Desk(settings, repo)
        ids = [c.case_id for c in repo.cases("demo")]
        agreed, overridden, cr, noted, erased, pending = ids[:6]
        verdicts = {c.case_id: c.decision.verdict for c in repo.cases("demo")}
        desk.rule(
            agreed,
            {"IN_SCOPE": "approve", "CHANGE_REQUEST": "convert_to_cr"}.get(
                verdicts[agreed], "reject"
            ),
            reason="as the engine says",
        )
        desk.rule(
            overridden,
            "reject" if verdicts[overridden] != "OUT_OF_SCOPE" else "approve",
            reason=HOSTILE,
        )
        desk.rule(overridden, "convert_to_cr", reason="amended: new work", amend=True)
        desk.rule(cr, "convert_to_cr", reason="district breakdowns are new work")
        desk.add_estimate(cr, "12.5", "two screens " + HOSTILE, price="12500 EUR")
        desk.set_cr_terms(cr, assumptions=["data from the client"], exclusions=[HOSTILE])
        desk.add_note(noted, HOSTILE)
        desk.claim(pending, minutes=60)
        hostile = desk.add_request("demo", HOSTILE, title=HOSTILE, submitted_by=HOSTILE)
        desk.rule(erased, "reject", reason="to be erased")
        _compare([*ids[:6], hostile.case_id, ids[-1]], store_url, tmp_path)
        _both(["show", "nope"], store_url, tmp_path)
        _both(["show", "req-demo-00000000"], store_url, tmp_path)
        _both(["show", ids[0][-3:]], store_url, tmp_path)
        desk.erase(erased, "KVKK request", wait_s=5)
        _compare([erased], store_url, tmp_path)
        desk.delete_project("demo", "the engagement ended")
        _compare([erased, agreed, cr, pending], store_url, tmp_path)
    finally:
        repo.dispose()
