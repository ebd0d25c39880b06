"""A case's history (issue 14 item 3): ``CaseFileRepository.case_history`` merges the
audit log and ``case_events`` into :class:`etki.domain.CaseEvent` values, oldest first,
on real SQLite files and PostgreSQL; ``etki show CASE [--json]`` prints it; intake writes
the ``imported`` event, the desk's views are written at most once an hour, and erasure
leaves only its tombstone of the history (the events go with the case, issue 30)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from etki.config import Settings
from etki.errors import ConflictError, InputError, NotFoundError, PermissionDeniedError
from etki.services import Desk, approval_service
from etki.store import CaseFileRepository
from tests.cli_support import run_etki
from tests.factories import Clock, make_decision, make_project, make_request
from tests.test_store import repo as backend_repo  # noqa: F401  (fixture: SQLite, PostgreSQL)

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_project"


def test_history_lists_every_event_oldest_first(backend_repo, tmp_path):  # noqa: F811
    repo = backend_repo
    clock = Clock()
    repo.clock = clock
    repo.save_project(make_project(), "sha256:abc", b"{}\n")
    repo.store_new_cases(
        "demo",
        [(make_request("R1", "SSO login fails"), make_decision("req-demo-1"))],
        source="requests.jsonl (etki init)",
        actor="ayse",
    )
    svc = approval_service(repo, Settings(db_url="unused", reviewer="ayse", wiki_dir=None))
    clock.later(minutes=1)
    assert repo.record_view("req-demo-1", "jurgen") is True
    clock.later(minutes=10)
    assert repo.record_view("req-demo-1", "jurgen") is False  # within the hour
    with pytest.raises(PermissionDeniedError):
        svc.rule("req-demo-1", "reject", reason="no", reviewer="viewer-vera")
    clock.later(minutes=1)
    svc.rule("req-demo-1", "reject", reason="Contractors are not staff.", reviewer="ayse")
    with pytest.raises(ConflictError):
        svc.rule("req-demo-1", "approve", reviewer="jurgen", expected_version=1)
    clock.later(hours=2)
    assert repo.record_view("req-demo-1", "jurgen") is True  # an hour later: again
    svc.rule("req-demo-1", "approve", reason="3.2 covers them.", reviewer="jurgen", amend=True)
    got = [
        (e.at, e.kind, e.actor, e.text, e.before, e.after) for e in repo.case_history("req-demo-1")
    ]
    assert got == [
        ("2026-11-29T12:00:00Z", "imported", "ayse", "requests.jsonl (etki init)", "", ""),
        ("2026-11-29T12:00:00Z", "triaged", "", "engine test: IN_SCOPE (confidence 0.80)", "", ""),
        ("2026-11-29T12:01:00Z", "viewed", "jurgen", "", "", ""),
        ("2026-11-29T12:11:00Z", "denied", "viewer-vera", "no", "pending", "pending"),
        (
            "2026-11-29T12:12:00Z",
            "ruled",
            "ayse",
            "Contractors are not staff.",
            "pending",
            "REJECT",
        ),
        ("2026-11-29T12:12:00Z", "conflict", "jurgen", "", "REJECT", "REJECT"),
        ("2026-11-29T14:12:00Z", "amended", "jurgen", "3.2 covers them.", "REJECT", "IN_SCOPE"),
        ("2026-11-29T14:12:00Z", "viewed", "jurgen", "", "", ""),
    ]
    summaries = [e.summary() for e in repo.case_history("req-demo-1")]
    assert summaries[4] == "ruled REJECT (reject) by ayse"
    assert summaries[6] == "amended REJECT → IN_SCOPE (approve) by jurgen"
    assert summaries[3].startswith("refused, not an approver: reject by viewer-vera")
    assert summaries[5].startswith("conflict, the case had changed")


def test_a_case_stored_before_events_has_its_creation_as_imported(tmp_path):
    repo = CaseFileRepository(f"sqlite:///{tmp_path}/etki.db")
    repo.save_project(make_project(), "sha256:abc", b"{}\n")
    repo.add_cases("demo", [(make_request("R1"), make_decision("req-demo-1"))])  # no source
    history = repo.case_history("req-demo-1")
    assert [e.kind for e in history] == ["imported", "triaged"]
    assert history[0].actor == "" and history[0].text == ""
    with pytest.raises(NotFoundError):
        repo.case_history("req-demo-nope")
    with pytest.raises(NotFoundError):
        repo.record_view("req-demo-nope", "ayse")


def _etki(tmp: Path, *args: str, reviewer: str = "reviewer"):  # noqa: ANN202
    env = {
        **os.environ,
        "ETKI_DB_URL": f"sqlite:///{tmp}/etki.db",
        "ETKI_WIKI_DIR": str(tmp / "wiki-{project}"),
        "ETKI_REVIEWER": reviewer,
    }
    return run_etki(args, env=env, cwd=tmp)


def test_etki_show_prints_the_history_and_json_carries_it(tmp_path):
    assert _etki(tmp_path, "init", str(SAMPLE)).returncode == 0
    added = _etki(
        tmp_path, "add", "--project", "demo", "--json", "Please add SSO for \x1b[31mcontractors"
    )
    cid = json.loads(added.stdout)["case_id"]
    assert (
        _etki(tmp_path, "rule", cid, "reject", "--reason", "not ours [bold]x[/bold]").returncode
        == 0
    )
    assert _etki(tmp_path, "rule", cid, "cr", "--amend", "--reason", "a CR").returncode == 0
    out = _etki(tmp_path, "show", cid)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    start = lines.index("history (oldest first)")
    history = lines[start + 1 :]
    assert "imported by reviewer — etki add" in history[0]
    assert "triaged — engine" in history[1]
    assert "ruled REJECT (reject) by reviewer — reason: not ours [bold]x[/bold]" in history[2]
    assert (
        "amended REJECT → CHANGE_REQUEST (convert_to_cr) by reviewer — reason: a CR" in history[3]
    )
    assert "\x1b" not in out.stdout  # client text printed literally, never as escapes
    doc = json.loads(_etki(tmp_path, "show", cid, "--json").stdout)
    assert [e["kind"] for e in doc["history"]] == ["imported", "triaged", "ruled", "amended"]
    assert doc["case"]["version"] == 3
    assert [r["ruling"] for r in doc["case"]["ruling_history"]] == ["REJECT", "CHANGE_REQUEST"]
    # init and import write their own imported events
    first = json.loads(_etki(tmp_path, "queue", "--project", "demo", "--json").stdout)[0]
    shown = json.loads(_etki(tmp_path, "show", first["case_id"], "--json").stdout)
    assert shown["history"][0]["text"] == "requests.jsonl (etki init)"
    assert shown["history"][0]["actor"] == "reviewer"
    csv = tmp_path / "more.csv"
    csv.write_text("id,text\nC-1,Citizens want a dark mode\n", encoding="utf-8")
    assert _etki(tmp_path, "import", "--project", "demo", str(csv)).returncode == 0
    rows = json.loads(_etki(tmp_path, "queue", "--project", "demo", "--json").stdout)
    imported = next(r for r in rows if r["request_id"] == "C-1")
    shown = json.loads(_etki(tmp_path, "show", imported["case_id"], "--json").stdout)
    assert shown["history"][0]["text"] == "more.csv (etki import, csv)"
    missing = _etki(tmp_path, "show", "req-demo-00000000")
    assert missing.returncode == 2 and "no case" in missing.stderr


def test_erasure_leaves_only_the_tombstone_of_the_events(tmp_path):
    assert _etki(tmp_path, "init", str(SAMPLE)).returncode == 0
    added = _etki(tmp_path, "add", "--project", "demo", "--json", "Zebraquux portal request")
    cid = json.loads(added.stdout)["case_id"]
    settings = Settings(db_url=f"sqlite:///{tmp_path}/etki.db", reviewer="reviewer", wiki_dir=None)
    repo = CaseFileRepository(settings.db_url)
    repo.add_case_event(cid, "imported", "reviewer", "Zebraquux-source-file.csv")
    repo.dispose()
    erased = _etki(tmp_path, "erase", cid, "--reason", "KVKK request 7")
    assert erased.returncode == 0, erased.stdout + erased.stderr
    doc = json.loads(_etki(tmp_path, "show", cid, "--json").stdout)
    assert doc["case"] is None
    kinds = [e["kind"] for e in doc["history"]]
    # the events are tied to the case (issue 30 item 1, migration 0007): they go with
    # it, and the audit's tombstone is what is left of the history
    assert kinds == ["erased"]
    raw = (tmp_path / "etki.db").read_bytes()
    assert b"Zebraquux" not in raw
    desk = Desk(settings)
    assert desk.case_history(cid)[-1].kind == "erased"
    desk.close()


# --- notes and claims (issue 14 item 4) ----------------------------------------------------


def test_notes_are_in_the_history_and_on_the_wiki_page(tmp_path):
    from etki.wiki.projection import WikiProjector
    from tests.wiki_support import tree_digest

    db_url = f"sqlite:///{tmp_path}/etki.db"
    clock = Clock()
    repo = CaseFileRepository(db_url, clock=clock)
    repo.save_project(make_project(), "sha256:abc", b"{}\n")
    repo.add_cases("demo", [(make_request("R1"), make_decision("req-demo-1"))])
    settings = Settings(db_url=db_url, reviewer="ayse", wiki_dir=str(tmp_path / "wiki-{project}"))
    desk = Desk(settings, repo)
    clock.later(minutes=1)
    note, error = desk.add_note("req-demo-1", "Pending: asked the client for a screenshot.")
    assert error is None and note.actor == "ayse"
    clock.later(minutes=1)
    desk.rule("req-demo-1", "approve")
    clock.later(minutes=1)
    _, error = desk.add_note("req-demo-1", "Fixed in 2.3; <b>[link]</b> `x`")
    assert error is None
    assert desk.approvals.projector is not None
    desk.approvals.projector.flush()
    [page] = (tmp_path / "wiki-demo" / "decisions").glob("*.md")
    text = page.read_text(encoding="utf-8")
    notes = text.split("## Notes", 1)[1].split("## Engine decision", 1)[0]
    assert "- ayse, 2026-" in notes and "asked the client for a screenshot." in notes
    assert "Fixed in 2.3; \\<b>\\[link\\]\\</b> \\`x\\`" in notes  # literal, never markup

    def fresh(name: str) -> dict[str, str]:
        other = Settings(db_url=db_url, wiki_dir=str(tmp_path / f"{name}-{{project}}"))
        WikiProjector(CaseFileRepository(db_url), other).rebuild("demo")
        return tree_digest(tmp_path / f"{name}-demo")

    assert tree_digest(tmp_path / "wiki-demo") == fresh("a")
    # a note written by another process (no wiki there) is caught up by the desk
    Desk(Settings(db_url=db_url, reviewer="jurgen", wiki_dir=None)).add_note(
        "req-demo-1", "Second opinion: agreed."
    )
    assert WikiProjector(repo, settings).verify("demo") != []
    desk.catch_up_wiki("demo")
    desk.approvals.projector.flush()
    assert tree_digest(tmp_path / "wiki-demo") == fresh("b")
    kinds = [e.kind for e in repo.case_history("req-demo-1")]
    assert kinds == ["imported", "triaged", "note", "ruled", "note", "note"]
    with pytest.raises(InputError, match="empty"):
        desk.add_note("req-demo-1", "   ")
    outsider = Desk(Settings(db_url=db_url, reviewer="mallory", wiki_dir=None))
    with pytest.raises(PermissionDeniedError):
        outsider.add_note("req-demo-1", "hi")


def test_claims_expire_release_and_refuse_a_second_claimer(backend_repo):  # noqa: F811
    repo = backend_repo
    clock = Clock()
    repo.clock = clock
    repo.save_project(make_project(), "sha256:abc", b"{}\n")
    repo.add_cases(
        "demo",
        [
            (make_request("R1"), make_decision("req-demo-1")),
            (make_request("R2", "Pay tax"), make_decision("req-demo-2")),
        ],
    )
    held = repo.claim("req-demo-1", "ayse", 30)
    assert held.until == "2026-11-29T12:30:00Z"
    with pytest.raises(InputError, match="claimed by ayse until 2026-11-29T12:30:00Z"):
        repo.claim("req-demo-1", "jurgen", 10)
    with pytest.raises(InputError, match="no claim to release"):
        repo.release("req-demo-1", "jurgen")
    repo.claim("req-demo-2", "jurgen", 5)
    assert {k: v.actor for k, v in repo.live_claims("demo").items()} == {
        "req-demo-1": "ayse",
        "req-demo-2": "jurgen",
    }
    clock.later(minutes=10)  # jurgen's claim expired: nothing shows, anyone may claim
    assert set(repo.live_claims("demo")) == {"req-demo-1"}
    repo.release("req-demo-1", "ayse")
    assert repo.live_claims("demo") == {}
    repo.claim("req-demo-1", "jurgen", 15)
    assert repo.live_claims("demo")["req-demo-1"].actor == "jurgen"
    kinds = [e.kind for e in repo.case_history("req-demo-1")]
    assert kinds == ["imported", "triaged", "claim", "release", "claim"]
    with pytest.raises(InputError, match="a claim lasts 1 to 480 minutes"):
        repo.claim("req-demo-2", "ayse", 0)
    # once ruled, a claim has nothing to guard (second trial): it no longer shows, and
    # a ruled case cannot be claimed
    repo.record_ruling("req-demo-1", "approve", "ayse", "")
    assert "req-demo-1" not in repo.live_claims("demo")
    with pytest.raises(InputError, match="already ruled: there is nothing to claim"):
        repo.claim("req-demo-1", "jurgen", 15)


def test_etki_note_and_claim(tmp_path):
    assert _etki(tmp_path, "init", str(SAMPLE)).returncode == 0
    cid = json.loads(_etki(tmp_path, "queue", "--project", "demo", "--json").stdout)[0]["case_id"]
    noted = _etki(tmp_path, "note", cid, "Zebraquux note text")
    assert noted.returncode == 0 and "note by reviewer" in noted.stdout
    claimed = _etki(tmp_path, "claim", cid, "--minutes", "20")
    assert claimed.returncode == 0 and "claimed by reviewer until" in claimed.stdout
    rows = json.loads(_etki(tmp_path, "queue", "--project", "demo", "--json").stdout)
    row = next(r for r in rows if r["case_id"] == cid)
    assert row["claimed_by"] == "reviewer" and row["claimed_until"]
    assert "claimed by reviewer" in _etki(tmp_path, "queue", "--project", "demo").stdout
    assert _etki(tmp_path, "claim", cid, "--release").returncode == 0
    row = next(
        r
        for r in json.loads(_etki(tmp_path, "queue", "--project", "demo", "--json").stdout)
        if r["case_id"] == cid
    )
    assert row["claimed_by"] is None
    # erasure: the note's text goes with the case
    assert _etki(tmp_path, "erase", cid, "--reason", "KVKK 9").returncode == 0
    assert b"Zebraquux" not in (tmp_path / "etki.db").read_bytes()


def test_ruling_a_case_someone_else_claimed_says_so(tmp_path):
    """A claim is a courtesy, not a lock: the ruling is recorded, and the CLI says whose
    claim it crossed; the claimer's own ruling says nothing."""
    assert _etki(tmp_path, "init", str(SAMPLE)).returncode == 0
    rows = json.loads(_etki(tmp_path, "queue", "--project", "demo", "--json").stdout)
    first, second = (r["case_id"] for r in rows[:2])
    claimed = _etki(tmp_path, "claim", first, reviewer="Ayşe Yılmaz")
    assert claimed.returncode == 0
    until = json.loads(_etki(tmp_path, "queue", "--project", "demo", "--json").stdout)[0][
        "claimed_until"
    ]
    crossed = _etki(tmp_path, "rule", first, "reject", "--reason", "out", reviewer="Jürgen Weiß")
    assert crossed.returncode == 0
    assert f"note: Ayşe Yılmaz had claimed {first} until {until}" in crossed.stderr
    assert _etki(tmp_path, "claim", second, reviewer="Ayşe Yılmaz").returncode == 0
    own = _etki(tmp_path, "rule", second, "reject", "--reason", "out", reviewer="Ayşe Yılmaz")
    assert own.returncode == 0 and "had claimed" not in own.stderr
