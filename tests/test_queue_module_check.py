"""``etki queue --module ID`` with an id no project declares (a PMO trial of issue 35
read ``no case matches (module nosuch)``, exit 0): refused, exit 2, naming the id and
the nearest known ids. A module id or a prefix of ids is accepted. Real SQLite store of
the sample project, the real CLI."""

from __future__ import annotations

import os
from pathlib import Path

from etki.config import Settings
from etki.services import init_project
from etki.store import CaseFileRepository
from tests.cli_support import run_etki

SAMPLE = Path(__file__).resolve().parents[1] / "sample_project"


def test_an_unknown_module_is_refused_naming_the_nearest(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/etki.db"
    repo = CaseFileRepository(url)
    init_project(SAMPLE, repo, Settings(db_url=url, reviewer="x"), related_context=False)
    repo.dispose()
    env = {**os.environ, "ETKI_DB_URL": url, "ETKI_REVIEWER": "x"}
    env.pop("ETKI_WIKI_DIR", None)

    def queue(*args: str):  # noqa: ANN202 - a CompletedProcess
        return run_etki(["queue", *args], env=env, cwd=tmp_path)

    done = queue("--module", "nosuch")
    assert done.returncode == 2 and done.stdout == ""
    assert "--module: no module 'nosuch' in the projects stored" in done.stderr
    done = queue("--module", "payments.watr", "--project", "demo")
    assert done.returncode == 2
    assert "no module 'payments.watr' in project demo; did you mean payments.water" in done.stderr
    for known in ("payments.water", "payments", "PAYMENTS.Water"):  # an id, a prefix, folded
        done = queue("--module", known, "--all")
        assert done.returncode == 0, (known, done.stderr)
        assert "no module" not in done.stderr
    done = queue("--module", "payments.water", "--json")
    assert done.returncode == 0 and done.stdout.startswith("[")
