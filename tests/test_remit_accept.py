"""The remit, proposed at setup (issue 29 item 5): ``etki remit propose | accept | list |
revoke``. The contract's own exclusion and client-duty sentences are numbered as
candidate ``scope: out`` statements; accepted ones are kept in the store
(``remit_statements``, audited in ``project_audit``), go into the project's clauses and
knowledge index (its hash changes with them) and are read by triage as declared ``out``
statements.

Real SQLite files, PostgreSQL where it answers, the real engagements of
``../shared/realdata``, one real ``etki`` subprocess; nothing of ours mocked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from etki.config import Settings
from etki.domain import is_accepted_remit
from etki.services import Desk, init_project
from etki.store import CaseFileRepository
from tests.cli_support import run_etki
from tests.pg import fresh_schema

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_project"
REALDATA = (
    Path(os.environ["ETKI_REALDATA_DIR"])
    if os.environ.get("ETKI_REALDATA_DIR")
    else next(
        (a / "shared" / "realdata" for a in ROOT.parents if (a / "shared" / "realdata").is_dir()),
        None,
    )
)
HOSTING = "ACF, not the contractor, will be responsible for hosting the deployed system"
ASK_HOSTING = "Please host the deployed system for us and obtain the Authority to Operate (ATO)."

needs_realdata = pytest.mark.skipif(
    REALDATA is None or not (REALDATA / "tdrs").is_dir(), reason="no ../shared/realdata"
)


def _at() -> datetime:
    return datetime(2027, 1, 10, 9, 30, tzinfo=UTC)


@dataclass
class World:
    url: str
    tmp: Path
    repo: CaseFileRepository

    def desk(self, reviewer: str = "reviewer") -> Desk:
        return Desk(Settings(db_url=self.url, wiki_dir=None, reviewer=reviewer), self.repo)

    def env(self, reviewer: str = "reviewer") -> dict[str, str]:
        return {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(self.tmp),
            "ETKI_DB_URL": self.url,
            "ETKI_WIKI_DIR": "",
            "ETKI_REVIEWER": reviewer,
        }

    def load(self, folder: Path) -> None:
        init_project(folder, self.repo, Settings(db_url=self.url, wiki_dir=None))


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def world(request, tmp_path) -> Iterator[World]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path}/etki.db"
        w = World(url, tmp_path, CaseFileRepository(url, clock=_at))
        yield w
        w.repo.dispose()
        return
    with fresh_schema("etki_remit") as pg:
        w = World(pg.url, tmp_path, CaseFileRepository(pg.url, clock=_at))
        try:
            yield w
        finally:
            w.repo.dispose()


def _number_of(desk: Desk, project_id: str, starts: str) -> int:
    return next(
        r.proposal.number
        for r in desk.remit_proposals(project_id)
        if r.proposal.text.startswith(starts)
    )


# --- propose ------------------------------------------------------------------------


@needs_realdata
def test_propose_numbers_the_contracts_own_sentences_in_contract_order(tmp_path) -> None:
    """A real ``etki`` subprocess: ``propose --json`` lists every exclusion and
    client-duty sentence of tdrs with its clause ref, rule and text, numbered 1..n in
    contract order; the plain listing says the same, the sentence as written."""
    assert REALDATA is not None
    env = {**os.environ, "ETKI_DB_URL": f"sqlite:///{tmp_path}/etki.db", "ETKI_WIKI_DIR": ""}
    etki = [sys.executable, "-m", "etki.cli"]
    subprocess.run(
        [*etki, "init", str(REALDATA / "tdrs")], env=env, check=True, capture_output=True
    )
    done = subprocess.run(
        [*etki, "remit", "propose", "--project", "tdrs", "--json"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert [r["number"] for r in rows] == list(range(1, len(rows) + 1))
    assert {r["role"] for r in rows} <= {"exclusion", "client"}
    hosting = next(r for r in rows if r["text"].startswith(HOSTING))
    assert hosting["ref"] == "tdrs-rfq#2.2"
    assert hosting["role"] == "client"
    assert hosting["rule"] == "duty of another party"
    assert hosting["accepted"] is None
    refs = [r["ref"] for r in rows]
    assert refs.index("tdrs-rfq#2.1") < refs.index("tdrs-rfq#2.2") < refs.index("tdrs-rfq#5.5")
    plain = subprocess.run(
        [*etki, "remit", "propose", "--project", "tdrs"], env=env, capture_output=True, text=True
    )
    assert plain.returncode == 0
    assert f"{hosting['number']:>2}  tdrs-rfq#2.2  client: {HOSTING}" in plain.stdout


@needs_realdata
def test_propose_leaves_out_a_lead_in_whose_items_are_listed(tmp_path) -> None:
    """talentmap's "The Contractor will not be responsible to perform the following:"
    names nothing itself: its list items are the candidates."""
    assert REALDATA is not None
    w = World(
        f"sqlite:///{tmp_path}/etki.db",
        tmp_path,
        CaseFileRepository(f"sqlite:///{tmp_path}/etki.db"),
    )
    try:
        w.load(REALDATA / "talentmap")
        texts = [r.proposal.text for r in w.desk().remit_proposals("talentmap")]
    finally:
        w.repo.dispose()
    assert "Hosting of the of the system" in texts
    assert not any(t.endswith("the following:") for t in texts)


@needs_realdata
def test_propose_on_eqip_lists_the_hosting_sentence(tmp_path) -> None:
    assert REALDATA is not None
    url = f"sqlite:///{tmp_path}/etki.db"
    w = World(url, tmp_path, CaseFileRepository(url))
    try:
        w.load(REALDATA / "eqip")
        rows = w.desk().remit_proposals("eqip")
    finally:
        w.repo.dispose()
    assert any(r.proposal.text == "Provide hosting of the e-QIP prototype" for r in rows)


# --- accept, list, revoke -----------------------------------------------------------


@needs_realdata
def test_accept_list_revoke_round_trip_with_audit_and_index_hash(world: World) -> None:
    assert REALDATA is not None
    world.load(REALDATA / "tdrs")
    desk = world.desk("Ayşe")
    first = world.repo.index_hash("tdrs")
    before = desk.triage_text("tdrs", "req-tdrs-probe", ASK_HOSTING)
    n_host = _number_of(desk, "tdrs", HOSTING)
    n_repo = _number_of(desk, "tdrs", "OFA will be responsible for creating and managing this")

    change = desk.remit_accept("tdrs", [str(n_host), str(n_repo)])
    assert [s.ref for s in change.accepted] == ["etki.yaml#accepted-1", "etki.yaml#accepted-2"]
    assert change.hash_before == first != change.hash_after == world.repo.index_hash("tdrs")

    listed = desk.remit_accepted("tdrs")
    assert [(s.number, s.source_ref, s.accepted_by, s.accepted_at) for s in listed] == [
        (1, "tdrs-rfq#2.2", "Ayşe", "2027-01-10T09:30:00Z"),
        (2, "tdrs-rfq#5.5", "Ayşe", "2027-01-10T09:30:00Z"),
    ]
    marked = {r.proposal.number: r.accepted for r in desk.remit_proposals("tdrs")}
    assert marked[n_host] is not None and marked[n_host].ref == "etki.yaml#accepted-1"
    # the stored clauses and the index hold them as declared-remit exclusions
    clauses = {c.ref: c for c in world.repo.clauses("tdrs")}
    accepted = clauses["etki.yaml#accepted-1"]
    assert is_accepted_remit(accepted) and accepted.kind == "exclusion"
    assert accepted.text.startswith(HOSTING) and accepted.source == "tdrs-rfq#2.2"
    assert desk.knowledge_index("tdrs").node("clause:etki.yaml#accepted-1") is not None

    # triage reads it: the request asking for exactly that duty is rejected by an
    # exclusion rule, with the accepted statement cited, under the new index hash
    after = desk.triage_text("tdrs", "req-tdrs-probe", ASK_HOSTING)
    assert after.verdict == "REJECT"
    assert "etki.yaml#accepted-1" in after.cited_clauses
    classify = next(s for s in after.evidence if s.step == "classify")
    # the sentence names the ask (engine 3.0.0): the named-exclusion rule decides, sure
    assert classify.detail.startswith("rule named_exclusion -> REJECT")
    assert after.sure and after.evidence_kind == "exclusion"
    assert before.index_freshness == first and after.index_freshness == change.hash_after

    audit = [e for e in world.repo.project_audit("tdrs") if e.action == "remit"]
    assert [(e.outcome, e.reviewer, len(e.remit_before), len(e.remit_after)) for e in audit] == [
        ("accepted", "Ayşe", 0, 2)
    ]
    assert audit[0].remit_after[0][:2] == ("etki.yaml#accepted-1", "tdrs-rfq#2.2")
    assert audit[0].os_user and audit[0].pid > 0

    # loading the folder again keeps the accepted remit (the store is the source)
    world.load(REALDATA / "tdrs")
    assert world.repo.index_hash("tdrs") == change.hash_after
    assert len(desk.remit_accepted("tdrs")) == 2

    gone = desk.remit_revoke("tdrs", ["2"], "the repository is ours after all")
    assert [s.ref for s in gone.revoked] == ["etki.yaml#accepted-2"]
    assert [s.number for s in desk.remit_accepted("tdrs")] == [1]
    last = [e for e in world.repo.project_audit("tdrs") if e.action == "remit"][-1]
    assert (last.outcome, last.reason, len(last.remit_before), len(last.remit_after)) == (
        "revoked",
        "the repository is ours after all",
        2,
        1,
    )
    desk.remit_revoke("tdrs", ["1"], "back to the contract alone")
    assert world.repo.index_hash("tdrs") == first  # no remit: the index as loaded
    assert not any(is_accepted_remit(c) for c in world.repo.clauses("tdrs"))
    # a number is never reused: accepting again gives accepted-3
    again = desk.remit_accept("tdrs", [str(n_host)])
    assert [s.ref for s in again.accepted] == ["etki.yaml#accepted-3"]


def test_cases_triaged_before_keep_their_frozen_decisions(world: World) -> None:
    world.load(SAMPLE)
    desk = world.desk()
    cases = {c.case_id: c.decision.to_json() for c in world.repo.cases("demo")}
    old = world.repo.index_hash("demo")
    change = desk.remit_accept("demo", every=True)
    assert change.accepted and change.hash_after != old
    assert {c.case_id: c.decision.to_json() for c in world.repo.cases("demo")} == cases
    assert all(c.decision.index_freshness == old for c in world.repo.cases("demo"))
    # --all again: nothing left to accept, nothing written
    assert desk.remit_accept("demo", every=True).accepted == ()
    assert world.repo.index_hash("demo") == change.hash_after


# --- refusals -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "reviewer", "says"),
    [
        (["accept", "--project", "demo", "999"], "reviewer", "no proposal 999 in project 'demo'"),
        (["accept", "--project", "demo", "2", "2"], "reviewer", "proposal 2 is given twice"),
        (
            ["accept", "--project", "demo", "two"],
            "reviewer",
            "'two' is not the number of a proposal",
        ),
        (["accept", "--project", "nope", "1"], "reviewer", "no project 'nope' in the store"),
        (["accept", "--project", "demo"], "reviewer", "name the proposals to accept"),
        (
            ["accept", "--project", "demo", "1"],
            "İlker Işık",
            "reviewer 'İlker Işık' is not an approver of project 'demo'",
        ),
        (
            ["revoke", "--project", "demo", "7", "--reason", "x"],
            "reviewer",
            "no accepted remit statement 7 in project 'demo'",
        ),
    ],
)
def test_bad_input_is_one_line_exit_2_and_nothing_stored(
    world: World, args: list[str], reviewer: str, says: str
) -> None:
    world.load(SAMPLE)
    before = world.repo.index_hash("demo")
    done = run_etki(["remit", *args], env=world.env(reviewer), cwd=world.tmp)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and says in lines[0], done.stderr
    assert world.repo.accepted_remit("demo") == []
    assert world.repo.index_hash("demo") == before
    denied = [e for e in world.repo.project_audit("demo") if e.action == "remit"]
    if reviewer != "reviewer":  # a refused approver check is audited, nothing else is
        assert [(e.outcome, e.reviewer, e.reason) for e in denied] == [
            ("denied", "İlker Işık", "accept 1")
        ]
    else:
        assert denied == []


def test_an_accepted_proposal_cannot_be_accepted_twice(world: World) -> None:
    world.load(SAMPLE)
    ok = run_etki(["remit", "accept", "--project", "demo", "2"], env=world.env(), cwd=world.tmp)
    assert ok.returncode == 0, ok.stderr
    assert "accepted etki.yaml#accepted-1 (from " in ok.stdout
    hash_now = world.repo.index_hash("demo")
    again = run_etki(["remit", "accept", "--project", "demo", "2"], env=world.env(), cwd=world.tmp)
    assert again.returncode == 2
    assert "proposal 2 is already accepted (etki.yaml#accepted-1)" in again.stderr
    assert len(world.repo.accepted_remit("demo")) == 1
    assert world.repo.index_hash("demo") == hash_now
    listing = run_etki(["remit", "list", "--project", "demo"], env=world.env(), cwd=world.tmp)
    assert listing.stdout.startswith("1  etki.yaml#accepted-1  from ")
    assert "accepted by reviewer at " in listing.stdout


def test_contract_text_is_printed_literally(world: World, tmp_path: Path) -> None:
    """Contract text is client text: markup stays text, control characters are shown
    as placeholders, ``--json`` escapes them."""
    folder = tmp_path / "odd"
    (folder / "contracts").mkdir(parents=True)
    (folder / "etki.yaml").write_text("id: odd\nname: Odd\n", encoding="utf-8")
    (folder / "contracts" / "sow.md").write_text(
        "# SOW\n\n## 1 Scope\n\nThe contractor shall build the portal.\n\n"
        "## 2 Out of scope\n\n[red]Hosting[/red] of the portal \x1b[2J is not included.\n",
        encoding="utf-8",
    )
    world.load(folder)
    done = run_etki(["remit", "propose", "--project", "odd"], env=world.env(), cwd=world.tmp)
    assert done.returncode == 0, done.stderr
    assert "[red]Hosting[/red] of the portal ␛[2J is not included." in done.stdout
    raw = run_etki(
        ["remit", "propose", "--project", "odd", "--json"], env=world.env(), cwd=world.tmp
    )
    assert "\\u001b[2J" in raw.stdout and "\x1b" not in raw.stdout


# --- evaluation ---------------------------------------------------------------------


def test_eval_copy_with_every_proposal_accepted() -> None:
    from etki.evaluation.triage import resolve_sources, with_every_proposal
    from etki.triage.remit import proposals

    def stored(project_id: str):
        raise AssertionError("folders only")

    [eng] = resolve_sources(
        [str(SAMPLE)], project=None, all_realdata=False, realdata_dir=None, stored=stored
    )
    every = with_every_proposal(eng)
    n = len(proposals(eng.project.clauses))
    assert n > 0
    added = [c for c in every.project.clauses if is_accepted_remit(c)]
    assert [c.ref for c in added] == [f"etki.yaml#accepted-{k}" for k in range(1, n + 1)]
    assert len(every.index.nodes_of("clause")) == len(eng.index.nodes_of("clause")) + n
    assert every.index.hash != eng.index.hash
    assert not any(is_accepted_remit(c) for c in eng.project.clauses)  # a copy
    # a copy that proposes the same again: accepted ones are never proposed
    assert len(proposals(every.project.clauses)) == n
