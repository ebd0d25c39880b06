"""Ctrl+R reads the project folder's requests.jsonl again (issue 14 item 1): rows added
since the launch are triaged and stored and join the queue; a bad row is refused alone
with its line; nothing already stored changes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.test_tui_keys import SAMPLE, _engagement_desk, desk_app
from tests.test_tui_pilot import Recorder, press, queue_ids, settle, sync, until


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    shutil.copytree(SAMPLE, folder)
    return folder


def _append(path: Path, *rows: str) -> None:
    with path.open("a", encoding="utf-8") as out:
        for row in rows:
            out.write(row + "\n")


@sync
async def test_ctrl_r_triages_the_rows_added_to_requests_jsonl(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    desk = _engagement_desk(folder, tmp_path)
    project = desk.repo.project_ids()[0]
    before = {c.case_id: c.version for c in desk.repo.cases(project)}
    requests = folder / "requests.jsonl"
    lines = requests.read_text(encoding="utf-8").rstrip("\n").count("\n") + 1
    seen = Recorder()
    app = desk_app(desk, project)
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await settle(pilot)
        assert len(queue_ids(app)) == len([c for c in before if c])
        _append(
            requests,
            json.dumps({"id": "late-1", "text": "Add a CSV export of the monthly report."}),
            json.dumps({"id": "late-2", "text": "bad\u0000row"}),
        )
        await press(pilot, "ctrl+r")
        await until(pilot, lambda: len(queue_ids(app)) == len(before) + 1, "the new row queued")
        await settle(pilot)
        said = " ".join(seen.notes())
        listed = queue_ids(app)
    try:
        stored = {c.request_id: c for c in desk.repo.cases(project)}
        assert "late-1" in stored and "late-2" not in stored
        new_case = stored["late-1"]
        assert new_case.case_id in listed
        assert new_case.decision.verdict in {"IN_SCOPE", "CR", "REJECT"}
        # what was stored before is untouched
        assert {
            c.case_id: c.version for c in desk.repo.cases(project) if c.request_id != "late-1"
        } == before
        assert "1 new request from requests.jsonl triaged" in said
        assert f"requests.jsonl:{lines + 2}: field 'text' holds a NUL" in said
    finally:
        desk.repo.dispose()


@sync
async def test_ctrl_r_with_nothing_new_stores_nothing(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    desk = _engagement_desk(folder, tmp_path)
    project = desk.repo.project_ids()[0]
    before = {c.case_id: c.version for c in desk.repo.cases(project)}
    seen = Recorder()
    app = desk_app(desk, project)
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        await press(pilot, "ctrl+r")
        await until(pilot, lambda: "Reloaded from the database." in seen.notes(), "the toast")
    try:
        assert {c.case_id: c.version for c in desk.repo.cases(project)} == before
    finally:
        desk.repo.dispose()


@sync
async def test_ctrl_r_after_the_folder_is_gone_still_reloads(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    desk = _engagement_desk(folder, tmp_path)
    project = desk.repo.project_ids()[0]
    shutil.rmtree(folder)
    seen = Recorder()
    app = desk_app(desk, project)
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await settle(pilot)
        count = len(queue_ids(app))
        await press(pilot, "ctrl+r")
        await until(pilot, lambda: "Reloaded from the database." in seen.notes(), "the toast")
        assert len(queue_ids(app)) == count
    desk.repo.dispose()
