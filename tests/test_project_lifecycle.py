"""The end of an engagement (issue 35 item 6): ``etki project archive|unarchive|delete``.

The store part runs on a real SQLite file and on the real PostgreSQL (skipped cleanly
when absent): the archived state is derived from ``project_audit`` and read the same by
the repository and by the lean read path, and the desk's seat says a project is
archived; a deletion is refused to a non-approver and without a reason (each refusal
audited), removes the cases and keeps the audit history. The CLI part runs ``etki`` (in process, and one real subprocess) on the sample project with its
wiki: an archived project leaves ``etki projects`` and the desk's project list, refuses
new requests, and keeps its report, wiki search and cases readable; a deleted one keeps
its wiki folder, and ``etki erase`` of one of its cases still removes that case from it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from etki.config import Settings
from etki.domain import Request
from etki.errors import InputError, NotFoundError, PermissionDeniedError
from etki.services import Desk
from etki.store import CaseFileRepository
from etki.store.lean import open_store
from tests.cli_support import run_etki
from tests.factories import make_decision, make_project

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_project"
APPROVER = "Ayşe Yılmaz"  # sample_project/etki.yaml
VIEWER = "İlker Işık"
SSO_CASE = "req-demo-8e1fd54c"  # DEMO-005 "SSO ile girişte İ harfi sorunu"
KVKK_CASE = "req-demo-bbb766ae"  # DEMO-039, ruled too: it must stay


def _at() -> datetime:
    return datetime(2027, 1, 10, 9, 30, tzinfo=UTC)


@dataclass
class World:
    url: str
    repo: CaseFileRepository

    def lean_archived(self) -> list[str]:
        store = open_store(self.url)
        try:
            return store.archived_ids()
        finally:
            store.close()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def world(request, tmp_path) -> Iterator[World]:
    """The factory project ``demo`` (approvers ayse and jurgen, viewer viewer-vera) with
    two cases, one ruled, on SQLite or on a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path}/etki.db"
    else:
        url = request.getfixturevalue("pg_schema").url  # dropped after this fixture
    repo = CaseFileRepository(url, clock=_at)
    try:
        repo.save_project(make_project(), "sha256:abc", b"{}\n")
        repo.add_cases(
            "demo",
            [
                (
                    Request(id="R1", title="SSO fails", text="SSO fails for Çiğdem"),
                    make_decision("c1"),
                ),
                (Request(id="R2", title="Export", text="Export to Excel"), make_decision("c2")),
            ],
        )
        repo.record_ruling("c1", "approve", "ayse", "in the contract")
        yield World(url, repo)
    finally:
        repo.dispose()


def test_archive_state_comes_from_the_audit_and_reads_the_same_on_both_paths(world) -> None:
    repo = world.repo
    assert repo.archived_project_ids() == [] and world.lean_archived() == []
    assert repo.set_archived("demo", True, "ayse", "engagement ended") is True
    assert repo.archived_project_ids() == ["demo"] and world.lean_archived() == ["demo"]
    assert repo.set_archived("demo", True, "jurgen") is False  # already: nothing written
    with pytest.raises(PermissionDeniedError, match="not an approver of project 'demo'"):
        repo.set_archived("demo", False, "viewer-vera", "Tschüß")
    assert repo.archived_project_ids() == ["demo"]
    assert repo.set_archived("demo", False, "jurgen", "") is True
    assert repo.archived_project_ids() == [] and world.lean_archived() == []
    rows = [(e.action, e.outcome, e.reviewer, e.reason) for e in repo.project_audit("demo")]
    assert rows[1:] == [
        ("archive", "archived", "ayse", "engagement ended"),
        ("archive", "denied", "viewer-vera", "Tschüß"),
        ("archive", "unarchived", "jurgen", ""),
    ]
    with pytest.raises(NotFoundError):
        repo.set_archived("nope", True, "ayse")


def test_show_json_tells_a_deleted_case_from_an_erased_one(world) -> None:
    """``etki show --json`` (:func:`etki.services.views.case_view`) of a case the store
    no longer holds says how it went in ``removed``: erased (KVKK, a live project's
    case) or deleted with its project (who, when, why); a case that is there has
    ``removed: null``. A case erased after its project was deleted reads erased."""
    from etki.services.views import case_view

    desk = Desk(Settings(db_url=world.url, wiki_dir=None, reviewer="ayse"), world.repo)
    assert case_view(desk, "c1").to_json()["removed"] is None
    desk.erase("c2", "KVKK Art. 7, Çiğdem", wait_s=5)
    erased = case_view(desk, "c2").to_json()
    assert erased["case"] is None and erased["removed"] == {"how": "erased"}
    desk.delete_project("demo", "Sözleşme bitti")
    deleted = case_view(desk, "c1").to_json()
    assert deleted["case"] is None and deleted["history"]
    assert deleted["removed"] == {
        "how": "project_deleted",
        "project_id": "demo",
        "by": "ayse",
        "at": deleted["removed"]["at"],
        "reason": "Sözleşme bitti",
    }
    assert deleted["removed"]["at"].startswith("2027-01-10")
    assert case_view(desk, "c2").to_json()["removed"] == {"how": "erased"}  # still erased


def test_the_seat_of_an_archived_project_may_not_rule(world) -> None:
    """The desk's seat (read by etki-tui on every queue load) says the project is
    archived and that nobody may rule on it, the approver included, until it is
    unarchived."""

    def seat(who: str):  # noqa: ANN202
        settings = Settings(db_url=world.url, wiki_dir=None, reviewer=who)
        return Desk(settings, world.repo).seat("demo")

    assert (seat("ayse").may_rule, seat("ayse").archived) == (True, False)
    world.repo.set_archived("demo", True, "ayse", "Sözleşme bitti")
    for who, role in (("ayse", "approver"), ("viewer-vera", "viewer"), ("mallory", "not listed")):
        assert (seat(who).role, seat(who).may_rule, seat(who).archived) == (role, False, True)
    world.repo.set_archived("demo", False, "jurgen")
    assert (seat("ayse").may_rule, seat("ayse").archived) == (True, False)


def test_delete_needs_an_approver_and_a_reason_and_keeps_the_audit(world) -> None:
    repo = world.repo
    audit_before = len(repo.audit_log("c1"))
    assert audit_before >= 1
    with pytest.raises(InputError, match="give a reason"):
        repo.delete_project("demo", "ayse", "  ")
    with pytest.raises(InputError, match="NUL character"):
        repo.delete_project("demo", "jurgen", "Tschüß\x00")
    with pytest.raises(PermissionDeniedError, match="may not delete it"):
        repo.delete_project("demo", "viewer-vera", "")  # who is asked first
    with pytest.raises(PermissionDeniedError, match="may not delete it"):
        repo.delete_project("demo", "viewer-vera", "closing")
    with pytest.raises(NotFoundError):
        repo.delete_project("nope", "ayse", "")
    assert repo.project_ids() == ["demo"] and repo.case("c1").case_id == "c1"
    gone = repo.delete_project("demo", "ayse", "contract ended")
    assert (gone.project_id, gone.case_ids, gone.reason) == ("demo", ("c1", "c2"), "contract ended")
    assert repo.project_ids() == []
    for case_id in ("c1", "c2"):
        with pytest.raises(NotFoundError):
            repo.case(case_id)
    assert len(repo.audit_log("c1")) == audit_before  # the audit history stays
    audit = [(e.action, e.outcome, e.reviewer, e.reason) for e in repo.project_audit("demo")]
    assert audit[-5:] == [  # every refusal audited: a PMO sees each attempt
        ("delete", "refused", "ayse", ""),
        ("delete", "refused", "jurgen", "Tschüß\ufffd"),
        ("delete", "denied", "viewer-vera", ""),
        ("delete", "denied", "viewer-vera", "closing"),
        ("delete", "deleted", "ayse", "contract ended"),
    ]
    assert repo.deleted_project_of("c2").project_id == "demo"
    assert {r.name for r in repo.deleted_project_of("c2").reviewers} == {
        "ayse",
        "jurgen",
        "viewer-vera",
    }


# --- the CLI on the sample project, wiki on -----------------------------------------


@pytest.fixture(scope="module")
def _sample_template(tmp_path_factory) -> Path:
    """The sample project stored and two of its cases ruled (SQLite file + wiki
    folder), built once for this module."""
    tmp = tmp_path_factory.mktemp("lifecycle")
    env = _env(tmp, APPROVER)
    assert run_etki(["init", str(SAMPLE)], env=env, cwd=tmp).returncode == 0
    for case_id, ruling in ((SSO_CASE, "approve"), (KVKK_CASE, "reject")):
        done = run_etki(["rule", case_id, ruling, "--reason", "ok"], env=env, cwd=tmp)
        assert done.returncode == 0, done.stderr
    return tmp


@pytest.fixture
def sample(_sample_template, tmp_path) -> Path:
    # every file: the store with its WAL, the wiki and the caches beside it
    shutil.copytree(_sample_template, tmp_path, dirs_exist_ok=True)
    return tmp_path


def _env(tmp: Path, reviewer: str) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp),
        "ETKI_DB_URL": f"sqlite:///{tmp}/etki.db",
        "ETKI_WIKI_DIR": str(tmp / "wiki-{project}"),
        "ETKI_REVIEWER": reviewer,
    }


def _etki(tmp: Path, *args: str, reviewer: str = APPROVER) -> subprocess.CompletedProcess[str]:
    return run_etki(list(args), env=_env(tmp, reviewer), cwd=tmp)


def test_an_archived_project_is_not_offered_but_stays_readable(sample) -> None:
    # a real subprocess: the console command as a PMO runs it
    done = subprocess.run(
        [sys.executable, "-m", "etki.cli", "project", "archive", "demo", "--reason", "bitti"],
        env={**os.environ, **_env(sample, APPROVER)},
        cwd=sample,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, "project demo is now archived\n"), done.stderr
    assert _etki(sample, "projects").stdout == ""
    assert _etki(sample, "projects", "--all").stdout == "demo (archived)\n"
    settings = Settings(db_url=f"sqlite:///{sample}/etki.db", wiki_dir=None, reviewer=APPROVER)
    desk = Desk.open(settings, read_only=True)
    try:
        assert desk.active_project_ids() == []  # the desk's project list (palette)
        assert desk.project_list() == [("demo", True)]
    finally:
        desk.close()
    refusal = "project 'demo' is archived and takes no new requests"
    added = _etki(sample, "add", "--project", "demo", "Bitte SSO für Straße")
    assert added.returncode == 2 and refusal in added.stderr
    assert refusal in _etki(sample, "add", "Bitte SSO").stderr  # the only project, unnamed
    requests = sample / "new.jsonl"
    requests.write_text('{"id": "N1", "text": "Bitte SSO"}\n', encoding="utf-8")
    imported = _etki(sample, "import", "--project", "demo", str(requests))
    assert imported.returncode == 2 and "is archived and takes no imports" in imported.stderr
    # etki init of the folder again: refused too, nothing stored (a trial found it adding)
    folder = sample / "folder"
    shutil.copytree(SAMPLE, folder)
    with (folder / "requests.jsonl").open("a", encoding="utf-8") as f:
        f.write('{"id": "NEW-1", "title": "Yeni", "text": "Bitte SSO für Straße"}\n')
    again = _etki(sample, "init", "--no-preanalysis", str(folder))
    assert again.returncode == 2 and refusal in again.stderr, again.stderr
    assert "`etki project unarchive demo`" in again.stderr
    repo = CaseFileRepository(f"sqlite:///{sample}/etki.db")
    try:
        assert "NEW-1" not in {c.request_id for c in repo.cases("demo")}
    finally:
        repo.dispose()
    queue = _etki(sample, "queue", "--project", "demo")
    assert queue.returncode == 2 and "`etki project unarchive demo`" in queue.stderr
    # reads go on
    report = _etki(sample, "report", "--project", "demo")
    assert report.returncode == 0 and "cases" in report.stdout
    found = _etki(sample, "wiki", "search", "harfi", "--project", "demo")
    assert found.returncode == 0 and "SSO ile girişte İ harfi sorunu" in found.stdout
    shown = _etki(sample, "show", SSO_CASE)
    assert shown.returncode == 0 and "SSO ile girişte İ harfi sorunu" in shown.stdout
    # and back
    assert _etki(sample, "project", "unarchive", "demo").returncode == 0
    assert _etki(sample, "projects").stdout == "demo\n"
    assert _etki(sample, "add", "Bitte SSO für Straße").returncode == 0


def _files(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (pages, search index, render cache) and its bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_delete_keeps_the_wiki_and_audit_and_erase_still_clears_a_case(sample) -> None:
    wiki = sample / "wiki-demo"
    pages = sorted(p.relative_to(wiki).as_posix() for p in wiki.rglob("*.md"))
    sso_page = next(p for p in pages if p.endswith(f"--{SSO_CASE}.md"))
    kvkk_page = next(p for p in pages if p.endswith(f"--{KVKK_CASE}.md"))
    viewer = _etki(sample, "project", "delete", "demo", "--reason", "x", "--yes", reviewer=VIEWER)
    assert viewer.returncode == 2 and "is not an approver of project 'demo'" in viewer.stderr
    no_reason = _etki(sample, "project", "delete", "demo", "--yes")
    assert no_reason.returncode == 2 and "give a reason (--reason)" in no_reason.stderr
    assert _etki(sample, "projects").stdout == "demo\n"  # nothing changed
    note = "Çiğdem aradı: İ harfi, Straße"
    assert _etki(sample, "note", SSO_CASE, note).returncode == 0
    history = _etki(sample, "show", SSO_CASE).stdout.split("history (oldest first)\n")[1]
    assert f"by {APPROVER} — {note}" in history and "— engine " in history
    kept = _files(wiki)
    assert note.encode() in kept[sso_page]  # the page shows the note, as show does
    deleted = _etki(sample, "project", "delete", "demo", "--reason", "Sözleşme bitti", "--yes")
    assert deleted.returncode == 0, deleted.stderr
    assert deleted.stdout.startswith("deleted project demo: 40 cases")
    assert _etki(sample, "projects", "--all").stdout == ""
    assert sorted(p.relative_to(wiki).as_posix() for p in wiki.rglob("*.md")) == pages
    # the wiki stays byte for byte what it was, also through a rebuild (not rebuilt)
    assert _files(wiki) == kept
    rebuilt = _etki(sample, "wiki", "rebuild")
    assert rebuilt.returncode == 0 and "nothing to rebuild" in rebuilt.stderr
    assert _files(wiki) == kept
    repo = CaseFileRepository(f"sqlite:///{sample}/etki.db")
    try:
        assert [(e[1], e[6]) for e in repo.audit_log(SSO_CASE)] == [
            (APPROVER, "committed"),
            (APPROVER, "noted"),
        ]
        with pytest.raises(NotFoundError):
            repo.case(SSO_CASE)
    finally:
        repo.dispose()
    # etki show of one of its cases says it went with its project, not "erased"
    shown = _etki(sample, "show", SSO_CASE)
    assert shown.returncode == 0, shown.stderr
    first = shown.stdout.splitlines()[0]
    assert first.startswith(f"{SSO_CASE}: deleted with its project demo by {APPROVER} at ")
    assert first.endswith("(its history is kept)") and "erased" not in first
    assert shown.stdout.split("history (oldest first)\n")[1] == history  # as before
    # --json tells the deletion from an erasure with a field, not a sentence to parse
    body = json.loads(_etki(sample, "show", SSO_CASE, "--json").stdout)
    assert body["case"] is None
    assert body["removed"]["how"] == "project_deleted"
    assert (body["removed"]["project_id"], body["removed"]["by"]) == ("demo", APPROVER)
    assert body["removed"]["reason"] == "Sözleşme bitti" and body["removed"]["at"]
    kept = _etki(sample, "wiki", "search", "harfi", "--project", "demo")  # still readable
    assert kept.returncode == 0 and "SSO ile girişte İ harfi sorunu" in kept.stdout
    # KVKK: a case of the deleted project is still erased everywhere
    refused = _etki(sample, "erase", SSO_CASE, "--reason", "KVKK 7", reviewer=VIEWER)
    assert refused.returncode == 2 and "was not an approver" in refused.stderr
    erased = _etki(sample, "erase", SSO_CASE, "--reason", "KVKK 7")
    assert erased.returncode == 0, erased.stdout + erased.stderr
    assert "erasure proven" in erased.stdout
    left = {p.relative_to(wiki).as_posix(): p.read_bytes() for p in wiki.rglob("*.md")}
    assert sso_page not in left and kvkk_page in left
    for name, data in left.items():
        assert SSO_CASE.encode() not in data, name
        assert b"harfi" not in data, name
    assert "Act as our KVKK data controller" in left["index.md"].decode("utf-8")
    searched = _etki(sample, "wiki", "search", "harfi", "--project", "demo")
    assert "harfi" not in searched.stdout
    found = _etki(sample, "wiki", "search", "kvkk", "--project", "demo")
    assert "Act as our KVKK data controller representative" in found.stdout
    again = _etki(sample, "erase", SSO_CASE, "--reason", "KVKK 7")
    assert again.returncode == 2 and "already erased" in again.stderr
    # erased since: the erasure is what show says now
    shown = _etki(sample, "show", SSO_CASE).stdout.splitlines()[0]
    assert shown == f"{SSO_CASE}: erased (only its audit trail is kept)"
    body = json.loads(_etki(sample, "show", SSO_CASE, "--json").stdout)
    assert body["case"] is None and body["removed"] == {"how": "erased"}
    assert body["history"]  # the audit trail outlives it


def test_the_desks_project_list_skips_an_archived_project(tui_world) -> None:
    """What the desk's project picker and palette offer (:meth:`EtkiApp._load` with
    ``projects``, the read the queue worker posts): an archived project leaves it and
    comes back when unarchived; the project open stays readable."""
    from tests.test_tui_pilot import make_app

    repo = tui_world.repo
    repo.save_project(make_project("zz-old"), "sha256:old", b"{}\n")
    app = make_app(tui_world)

    def offered() -> list[str]:
        return [pid for pid, _name in app._load("demo", "load", projects=True).projects]

    assert offered() == ["demo", "zz-old"]
    assert repo.set_archived("zz-old", True, "ayse", "ended")
    assert offered() == ["demo"]
    assert repo.set_archived("demo", True, "ayse")
    assert offered() == []
    assert app._load("demo", "load", projects=False).cases  # still readable
    assert repo.set_archived("zz-old", False, "ayse")
    assert offered() == ["zz-old"]


def test_erasing_a_case_of_a_deleted_project_leaves_a_tombstone(world) -> None:
    """With the wiki off: the approver list the deletion kept decides, the case's audit
    reasons become ``[erased]`` beside a tombstone, and a second erasure is refused."""
    from etki.erasure import erase_case

    repo = world.repo
    repo.delete_project("demo", "jurgen", "closed")
    with pytest.raises(PermissionDeniedError, match="was not an approver"):
        erase_case(
            repo, Settings(db_url=world.url, wiki_dir=None), "c1", "KVKK 3", reviewer="viewer-vera"
        )
    done = erase_case(
        repo, Settings(db_url=world.url, wiki_dir=None), "c1", "KVKK 3", reviewer="ayse"
    )
    assert done.erasure is not None
    assert (done.erasure.case_id, done.erasure.project_id, done.erasure.before) == (
        "c1",
        "demo",
        "deleted",
    )
    assert repo.erased_case_ids() == {"c1"}
    assert [(r[2], r[6]) for r in repo.audit_log("c1")] == [
        ("approve", "committed"),
        ("erase", "denied"),
        ("erase", "erased"),
    ]
    with pytest.raises(NotFoundError, match="already erased"):
        erase_case(repo, Settings(db_url=world.url, wiki_dir=None), "c1", "KVKK 3", reviewer="ayse")


def test_an_archived_project_takes_no_rulings_notes_or_estimates(sample) -> None:
    """A fresh-user trial ruled and noted a case of an archived project: every write on
    its cases is refused now (CLI and desk alike), naming the project and the way back,
    and nothing is written; reading stays allowed, and unarchived it takes them again."""
    assert _etki(sample, "project", "archive", "demo", "--reason", "bitti").returncode == 0
    pending = "req-demo-eb879f38"
    before = _etki(sample, "show", pending).stdout
    way_back = "To work on it again: `etki project unarchive demo`"
    for args, what in (
        (("rule", pending, "approve", "--reason", "ok"), "takes no rulings"),
        (("rule", SSO_CASE, "reject", "--amend", "--reason", "Straße"), "takes no rulings"),
        (("note", pending, "Größe prüfen"), "takes no notes"),
        (("claim", pending), "takes no claims"),
        (("estimate", pending, "--days", "3", "--reason", "ok"), "takes no estimates"),
    ):
        done = _etki(sample, *args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert f"error: project 'demo' is archived and {what};" in done.stderr, done.stderr
        assert way_back in done.stderr
    resolved = _etki(
        sample, "dispute", "resolve", "4.1", "--project", "demo", "--verdict", "cr", "--reason", "x"
    )
    assert resolved.returncode == 2 and "is archived and takes no resolutions" in resolved.stderr
    assert _etki(sample, "show", pending).stdout == before  # nothing was written
    settings = Settings(db_url=f"sqlite:///{sample}/etki.db", wiki_dir=None, reviewer=APPROVER)
    desk = Desk.open(settings)
    try:  # the desk's ruling (its worker calls rule_first) and note keys
        with pytest.raises(InputError, match="archived and takes no rulings"):
            desk.rule_first(pending, "approve", reason="ok")
        with pytest.raises(InputError, match="archived and takes no notes"):
            desk.add_note(pending, "ok")
        assert desk.case(pending).ruling is None
    finally:
        desk.close()
    assert _etki(sample, "project", "unarchive", "demo").returncode == 0
    assert _etki(sample, "note", pending, "Größe prüfen").returncode == 0
    assert _etki(sample, "rule", pending, "approve", "--reason", "ok").returncode == 0


def test_every_refused_write_on_a_case_reads_as_english(sample) -> None:
    """The trial's ``etki cr edit`` on an archived project printed "takes no edit the
    change request ofs" (a verb pluralised); each write's refusal is whole English, on
    an archived project and for a reviewer the project does not list."""
    pending = "req-demo-eb879f38"
    writes = (
        (("note", pending, "Größe prüfen"), "notes", "add a note"),
        (("claim", pending), "claims", "claim a case"),
        (("estimate", pending, "--days", "3", "--reason", "ok"), "estimates", "estimate a case"),
        (("assign", pending, "--to", "ayse"), "assignments", "assign a case"),
        (
            ("cr", "edit", SSO_CASE, "--assumption", "Straße"),
            "change-request terms",
            "write the terms of a change request",
        ),
    )
    for args, _plural, action in writes:
        done = _etki(sample, *args, reviewer="Zoë Nobody")
        assert done.returncode == 2, (args, done.stderr)
        assert (
            f"error: {action}: reviewer 'Zoë Nobody' is not a reviewer of this project;"
            in done.stderr
        ), done.stderr
    assert _etki(sample, "project", "archive", "demo", "--reason", "bitti").returncode == 0
    for args, plural, _action in writes:
        done = _etki(sample, *args)
        assert done.returncode == 2, (args, done.stderr)
        assert f"error: project 'demo' is archived and takes no {plural}; " in done.stderr


def _delete_on_a_terminal(tmp: Path, typed: str) -> subprocess.CompletedProcess[str]:
    """``etki project delete demo --reason …`` as a PMO runs it at a terminal: a real
    subprocess whose standard input is a pseudo-terminal, ``typed`` (and Enter) already
    in its input queue, so the command reads it when it asks (no timing involved)."""
    import pty

    leader, follower = pty.openpty()
    try:
        os.write(leader, typed.encode("utf-8") + b"\n")
        return subprocess.run(
            [sys.executable, "-m", "etki.cli", "project", "delete", "demo", "--reason", "bitti"],
            env={**os.environ, **_env(tmp, APPROVER)},
            cwd=tmp,
            stdin=follower,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
    finally:
        os.close(follower)
        os.close(leader)


def test_delete_asks_for_the_project_id_on_a_terminal_and_refuses_a_pipe(sample) -> None:
    """Issue 35 leftovers: ``etki project delete`` asked nothing. On a terminal the id
    must be typed back; ``--yes`` is for scripts; a pipe without ``--yes`` is refused
    with a message saying so. A refusal deletes nothing (the project still listed)."""
    piped = _etki(sample, "project", "delete", "demo", "--reason", "bitti")
    assert piped.returncode == 2
    assert "standard input is not a terminal" in piped.stderr
    assert "add --yes to delete without asking" in piped.stderr
    wrong = _delete_on_a_terminal(sample, "dem")
    assert wrong.returncode == 2, wrong.stderr
    # the count said before the question (a trial learned it only after deleting)
    assert (
        "This removes project demo from the store: its 40 cases and its knowledge (its "
        "audit history and wiki stay). Type the project id (demo) to delete it:"
    ) in wrong.stderr
    assert "you typed 'dem', not demo. Nothing was deleted" in wrong.stderr
    assert _etki(sample, "projects").stdout == "demo\n"
    repo = CaseFileRepository(f"sqlite:///{sample}/etki.db")
    try:  # a refused confirmation changed nothing, so nothing was audited either
        assert [e.action for e in repo.project_audit("demo")] == ["reviewers"]
    finally:
        repo.dispose()
    done = _delete_on_a_terminal(sample, "  demo ")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("deleted project demo: 40 cases and its knowledge")
    assert _etki(sample, "projects", "--all").stdout == ""
    repo = CaseFileRepository(f"sqlite:///{sample}/etki.db")
    try:
        assert [(e.action, e.outcome) for e in repo.project_audit("demo")][-1] == (
            "delete",
            "deleted",
        )
    finally:
        repo.dispose()
