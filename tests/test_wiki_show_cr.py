"""``etki wiki show`` takes a change request's short number (issue 35 leftovers).

The client's document carries ``CR-{yyyymmdd}-{tail}`` (:func:`etki.wiki.paths.
cr_number`); ``etki cr export`` took it, ``etki wiki show`` said "no wiki page". It now
resolves it with the same resolver (:func:`etki.wiki.paths.cr_case_ref`, then
:meth:`etki.services.Desk.case_id_for`) and prints the case's change-request page, in
any letter case, without ``--project`` when several projects are stored. The sample
project on a real SQLite file and on the real PostgreSQL (skipped cleanly when absent),
its wiki on disk; ``etki`` in process and once as a real subprocess.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from etki.config import Settings
from etki.domain import CaseRecord
from etki.services import Desk, init_project
from etki.store import CaseFileRepository
from tests.cli_support import run_etki
from tests.conftest import REPO_ROOT
from tests.factories import frozen_clock, make_project

SAMPLE = REPO_ROOT / "sample_project"
REVIEWER = "Ayşe Yılmaz"  # an approver of sample_project/etki.yaml
REASON = "Yeni iş: İ/ı eşlemesi ICU'ya taşınıyor; Straße & Müller"


@dataclass
class World:
    url: str
    tmp: Path
    desk: Desk
    cr: CaseRecord  # DEMO-005, converted to CR
    other: CaseRecord  # DEMO-039, approved: no CR page

    def env(self) -> dict[str, str]:
        return {
            "HOME": str(self.tmp),
            "ETKI_DB_URL": self.url,
            "ETKI_WIKI_DIR": str(self.tmp / "wiki-{project}"),
            "ETKI_REVIEWER": REVIEWER,
        }

    def etki(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run_etki(list(args), env=self.env(), cwd=self.tmp)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[World]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path}/etki.db"
    else:
        url = request.getfixturevalue("pg_schema").url  # dropped after this fixture
    repo = CaseFileRepository(url, clock=frozen_clock)
    settings = Settings(db_url=url, reviewer=REVIEWER, wiki_dir=str(tmp_path / "wiki-{project}"))
    try:
        init_project(SAMPLE, repo, settings, related_context=False, preanalyse=False)
        desk = Desk(settings, repo)
        pending = {c.request_id: c for c in repo.cases("demo", status="pending")}
        desk.rule(pending["DEMO-005"].case_id, "convert_to_cr", reason=REASON)
        desk.rule(pending["DEMO-039"].case_id, "approve", reason="in the contract")
        cr, other = (desk.case(pending[r].case_id) for r in ("DEMO-005", "DEMO-039"))
        yield World(url, tmp_path, desk, cr, other)
    finally:
        repo.dispose()


def test_wiki_show_prints_the_cr_page_for_the_short_number(world: World) -> None:
    from etki.wiki.paths import cr_id, cr_number, cr_path

    short, long = cr_number(world.cr), cr_id(world.cr)
    tail = world.cr.case_id.rsplit("-", 1)[1]
    assert short == f"CR-20261129-{tail}"  # the document's number (frozen_clock's day)
    page = (world.tmp / "wiki-demo" / cr_path(world.cr)).read_text(encoding="utf-8")
    assert page.startswith(f"---\ncase_id: {world.cr.case_id}\n") and f"cr_id: {long}\n" in page
    assert REASON in page
    for given in (short, short.lower(), f"{short}.md", long, f"{long}.md"):
        done = world.etki("wiki", "show", given)
        assert (done.returncode, done.stderr) == (0, ""), given
        assert done.stdout == page, given
    # a real process, as a PMO types it
    done = subprocess.run(
        [sys.executable, "-m", "etki.cli", "wiki", "show", short],
        env={**os.environ, **world.env()},
        cwd=world.tmp,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (0, page), done.stderr
    # with a second project stored, the number still names its project's page
    world.desk.repo.save_project(make_project("zz-other"), "sha256:abc", b"{}\n")
    assert world.etki("wiki", "show", short).stdout == page
    assert world.etki("wiki", "show", short, "--project", "demo").stdout == page
    elsewhere = world.etki("wiki", "show", short, "--project", "zz-other")
    assert elsewhere.returncode == 2
    assert f"case {world.cr.case_id} belongs to project demo, not zz-other" in elsewhere.stderr


def test_a_short_number_of_a_case_that_is_no_cr_is_refused_by_name(world: World) -> None:
    tail = world.other.case_id.rsplit("-", 1)[1]
    done = world.etki("wiki", "show", f"CR-20261129-{tail}")
    assert done.returncode == 2 and done.stdout == ""
    assert (
        f"case {world.other.case_id} is ruled IN_SCOPE, not CHANGE_REQUEST: it has no "
        f"change-request page (`etki wiki show {world.other.case_id}` prints its decision "
        "page)"
    ) in done.stderr
    unknown = world.etki("wiki", "show", "CR-20261129-0badcafe")
    assert unknown.returncode == 2 and "no wiki page 'CR-20261129-0badcafe'" in unknown.stderr
    # a prefix of a page name is still looked up by name
    from etki.wiki.paths import cr_id

    prefix = cr_id(world.cr)[: len("CR-20261129-") + 6]
    assert world.etki("wiki", "show", prefix).returncode == 0
