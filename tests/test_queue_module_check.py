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
from tests.conftest import TuiWorld
from tests.test_tui_pilot import fill, make_app, press, queue_ids, settle, sync

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


@sync
async def test_the_desks_module_filter_names_an_unknown_module(tui_world: TuiWorld) -> None:
    """The find box's ``module:`` token that names no module of the project: the empty
    queue's detail says so with the nearest ids, as ``etki queue --module`` does."""
    from etki_tui.queue.bars import CaseDetail

    app = make_app(tui_world)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "slash")
        await fill(pilot, "#queue-find", "module:payments.watr")
        await settle(pilot)
        assert queue_ids(app) == []
        detail = app.query_one(CaseDetail)
        said = str(getattr(detail, "_shown", ""))
        assert "No module 'payments.watr' in project demo; did you mean payments?" in said
        await fill(pilot, "#queue-find", "module:payments nosuchword")  # a known module
        await settle(pilot)
        assert queue_ids(app) == []
        assert "No module" not in str(getattr(detail, "_shown", ""))
