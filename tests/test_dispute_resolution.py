"""Disputes resolved by a person (issue 14 item 6), on real stores: sample_project loaded
into SQLite and, where the server is there, PostgreSQL (127.0.0.1:5432, database
``test``, a schema per test), a real wiki folder, the real CLI and the real TUI.

Clause MSA-2024-01#4.8 (the reporting dashboard) is made disputed by ruling two cases
that cite it differently; the PMO resolves it ("clause 4.8 covers breakdowns by
district: rule IN_SCOPE"); memory, the wiki pages and the risk follow; a later ruling
that agrees keeps it resolved, one that disagrees makes it disputed again. Every wiki
state is compared byte for byte with a fresh rebuild of the same DB.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from etki.config import Settings
from etki.errors import InputError, PermissionDeniedError
from etki.memory import current_risk, open_disputed_refs
from etki.services import Desk, init_project
from etki.store import CaseFileRepository
from etki.wiki.projection import MARK_NAME, WikiProjector, wiki_mark
from tests.cli_support import run_etki
from tests.conftest import REPO_ROOT
from tests.pg import fresh_schema
from tests.wiki_support import tree_digest

SAMPLE = REPO_ROOT / "sample_project"
REF = "MSA-2024-01#4.8"
FIRST = "req-demo-e8c73130"  # cites 4.8 first; engine IN_SCOPE
SECOND = "req-demo-f76448de"  # "no breakdown by neighbourhood"; engine IN_SCOPE
REASON = "clause 4.8 covers breakdowns by district [bold]x[/bold] *y* <b>"
T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


class Clock:
    """A clock the test moves: the store stamps rulings and resolutions with it."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now

    def at(self, minutes: int) -> None:
        self.now = T0 + timedelta(minutes=minutes)


@dataclass
class World:
    url: str
    settings: Settings
    repo: CaseFileRepository
    desk: Desk
    clock: Clock
    tmp: Path

    @property
    def wiki(self) -> Path:
        path = self.settings.wiki_path("demo")
        assert path is not None
        return path

    def citing(self) -> list[str]:
        """Pending cases citing 4.8 other than FIRST and SECOND, in queue order."""
        return [
            c.case_id
            for c in self.repo.cases("demo", status="pending")
            if REF in c.decision.cited_clauses and c.case_id not in (FIRST, SECOND)
        ]


def _world(url: str, tmp: Path) -> World:
    settings = Settings(
        db_url=url, wiki_dir=str(tmp / "wiki-{project}"), reviewer="reviewer", related_context=False
    )
    clock = Clock()
    repo = CaseFileRepository(url, clock=clock)
    init_project(SAMPLE, repo, settings, related_context=False)
    return World(url, settings, repo, Desk(settings, repo), clock, tmp)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def world(request, tmp_path) -> Iterator[World]:
    if request.param == "sqlite":
        w = _world(f"sqlite:///{tmp_path}/etki.db", tmp_path)
        yield w
        w.repo.dispose()
        return
    with fresh_schema() as pg:
        # other processes reach the same schema through libpq's options parameter
        w = _world(pg.url, tmp_path)
        try:
            yield w
        finally:
            w.repo.dispose()


def _fresh(world: World, name: str) -> dict[str, str]:
    """tree_digest of a fresh rebuild of the DB into a new folder."""
    settings = Settings(db_url=world.url, wiki_dir=str(world.tmp / f"{name}-{{project}}"))
    repo = CaseFileRepository(world.url)
    try:
        WikiProjector(repo, settings).rebuild("demo")
    finally:
        repo.dispose()
    return tree_digest(world.tmp / f"{name}-demo")


def _same_as_rebuild(world: World, name: str) -> None:
    projector = world.desk.approvals.projector
    assert projector is not None
    projector.flush()
    assert tree_digest(world.wiki) == _fresh(world, name)
    assert (world.wiki / MARK_NAME).read_bytes() == wiki_mark(world.repo, "demo")
    assert world.desk.wiki_drift("demo").paths() == []


def _page(world: World, rel: str) -> str:
    return (world.wiki / rel).read_text(encoding="utf-8")


def _section(page: str, heading: str) -> str:
    """The ``## heading`` section of a page (to the next ``## ``)."""
    start = page.index(heading)
    end = page.find("\n## ", start + 1)
    return page[start : end if end != -1 else len(page)]


def _dispute(world: World) -> None:
    """Rule FIRST IN_SCOPE and SECOND CHANGE_REQUEST: 4.8 is disputed."""
    world.clock.at(0)
    assert world.desk.rule(FIRST, "approve").wiki_error is None
    world.clock.at(1)
    outcome = world.desk.rule(SECOND, "convert_to_cr", reason="district breakdowns are new work")
    assert outcome.wiki_error is None


def test_a_resolution_holds_until_a_later_ruling_disagrees(world: World) -> None:
    desk = world.desk
    _dispute(world)
    mem = desk.clause_memory("demo")[REF]
    assert mem.disputed and mem.open_dispute and mem.resolution is None
    third, fourth, *_ = world.citing()
    pending = world.repo.case(third).decision
    risk, raised = current_risk(pending, desk.clause_memory("demo"), True)
    assert raised == (REF,) and risk.pmo_look_24h and "disputed_clause" in risk.signals
    # a new request citing 4.8 is escalated by the risk layer while the dispute is open
    before = desk.triage_text("demo", "req-demo-probe", world.repo.case(third).text)
    assert REF in before.cited_clauses and "disputed_clause" in before.risk.signals

    world.clock.at(10)
    outcome = desk.resolve_dispute("demo", "4.8", "in_scope", REASON)
    assert outcome.wiki_error is None and outcome.wiki_report is not None
    res = outcome.resolution
    assert (res.ref, res.verdict, res.reason, res.reviewer) == (REF, "IN_SCOPE", REASON, "reviewer")
    assert res.at == "2026-12-01T09:10:00Z"
    mem = desk.clause_memory("demo")[REF]
    assert mem.resolved and not mem.open_dispute and mem.resolution == res
    assert mem.overridden_by is None
    # no longer the 24h PMO look: not on the desk, not for a new request
    assert current_risk(pending, desk.clause_memory("demo"), True) == (pending.risk, ())
    after = desk.triage_text("demo", "req-demo-probe", world.repo.case(third).text)
    assert "disputed_clause" not in after.risk.signals
    assert any("resolved by the PMO (rule IN_SCOPE" in s.detail for s in after.evidence)
    assert (after.verdict, after.confidence) == (before.verdict, before.confidence)
    # the stored decisions never change
    assert world.repo.case(third).decision == pending
    [item] = desk.disputed("demo")
    assert item.ref == REF and item.resolved and item.resolution == res

    # the wiki: disputed.md and the contract page's section, the reason escaped
    disputed = _page(world, "disputed.md")
    assert "resolved:\n- MSA-2024-01#4.8\n" in disputed.split("---\n")[1]
    section = _section(disputed, f"## {REF}")
    assert "**DISPUTED-RESOLVED**." in section
    escaped = r"clause 4.8 covers breakdowns by district \[bold\]x\[/bold\] \*y\* \<b>"
    assert f"PMO resolution: rule **IN_SCOPE** — “{escaped}” (reviewer, 2026-12-01T09:10:00Z)." in (
        section
    )
    assert "[bold]x" not in disputed and " <b>" not in disputed
    contract = _section(_page(world, "entities/contracts/MSA-2024-01.md"), f"## {REF}")
    assert "precedents 1; **DISPUTED-RESOLVED**." in contract
    assert f"PMO resolution: rule **IN_SCOPE** — “{escaped}”" in contract
    _same_as_rebuild(world, "fresh1")

    # a later ruling that agrees keeps it resolved
    world.clock.at(20)
    desk.rule(third, "approve")
    mem = desk.clause_memory("demo")[REF]
    assert mem.resolved and mem.overridden_by is None
    assert "**DISPUTED-RESOLVED**." in _section(_page(world, "disputed.md"), f"## {REF}")
    _same_as_rebuild(world, "fresh2")

    # a later ruling that disagrees makes it disputed again, naming the case
    world.clock.at(30)
    desk.rule(fourth, "reject", reason="outside the remit of 4.8")  # about 4.8
    mem = desk.clause_memory("demo")[REF]
    assert mem.disputed and mem.open_dispute and not mem.resolved
    assert mem.resolution == res and mem.overridden_by == fourth
    assert open_disputed_refs(pending.cited_clauses, desk.clause_memory("demo")) == (REF,)
    assert current_risk(pending, desk.clause_memory("demo"), True)[1] == (REF,)
    again = desk.triage_text("demo", "req-demo-probe", world.repo.case(third).text)
    assert "disputed_clause" in again.risk.signals
    [item] = desk.disputed("demo")
    assert not item.resolved and item.overridden_by == fourth
    disputed = _page(world, "disputed.md")
    assert "resolved:" not in disputed.split("---\n")[1]
    section = _section(disputed, f"## {REF}")
    assert "**DISPUTED**." in section and "DISPUTED-RESOLVED" not in section
    assert f"Disputed again: the resolution was overridden by case [{fourth}](decisions/" in section
    assert "ruled **REJECT** after it." in section
    contract = _section(_page(world, "entities/contracts/MSA-2024-01.md"), f"## {REF}")
    assert "**DISPUTED**." in contract and f"overridden by case [{fourth}](../../decisions/" in (
        contract
    )
    _same_as_rebuild(world, "fresh3")

    # a new resolution is in force from then on (the newest wins; both are kept)
    world.clock.at(40)
    newer = desk.resolve_dispute("demo", REF, "cr", "breakdowns by district are a CR").resolution
    mem = desk.clause_memory("demo")[REF]
    assert mem.resolved and mem.resolution == newer and newer.verdict == "CHANGE_REQUEST"
    assert [r.id for r in desk.resolutions("demo")] == [res.id, newer.id]
    _same_as_rebuild(world, "fresh4")


def test_a_ruling_in_the_same_second_as_the_resolution_counts_as_seen(world: World) -> None:
    _dispute(world)
    world.clock.at(5)
    world.desk.resolve_dispute("demo", REF, "in_scope", "covers it")
    third = world.citing()[0]
    world.desk.rule(third, "reject", reason="same second")  # clock not moved
    assert world.desk.clause_memory("demo")[REF].resolved


def test_a_resolution_by_another_process_reaches_the_wiki(world: World) -> None:
    """``etki dispute resolve`` in a separate process with the wiki off writes only the
    DB; the desk's long-lived projector (its model warm) sees the new resolution at its
    next projection, and the wiki equals a fresh rebuild."""
    _dispute(world)
    projector = world.desk.approvals.projector
    assert projector is not None and projector.catch_up("demo").written == ()
    done = subprocess.run(
        [sys.executable, "-m", "etki.cli", "dispute", "resolve", "--project", "demo", "4.8"]
        + ["--verdict", "in_scope", "--reason", "covers it, said in another shell"],
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "ETKI_DB_URL": world.url,
            "ETKI_WIKI_DIR": "",
            "ETKI_REVIEWER": "reviewer",
        },
        cwd=REPO_ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "DISPUTED-RESOLVED" in done.stdout
    assert "DISPUTED-RESOLVED" not in _page(world, "disputed.md")  # not projected yet
    assert world.desk.wiki_drift("demo").paths()  # ... and verify says so
    world.clock.at(20)
    world.desk.rule(world.citing()[0], "approve")  # the next ruling's projection
    assert "covers it, said in another shell" in _page(world, "disputed.md")
    _same_as_rebuild(world, "fresh")


def test_only_an_approver_resolves_and_a_refusal_is_audited(world: World) -> None:
    _dispute(world)
    viewer = Desk(
        Settings(db_url=world.url, wiki_dir=None, reviewer="İlker Işık"), world.repo
    )  # a viewer of sample_project
    with pytest.raises(PermissionDeniedError, match="not an approver of project 'demo'"):
        viewer.resolve_dispute("demo", REF, "in_scope", "I think so")
    with pytest.raises(PermissionDeniedError):
        Desk(
            Settings(db_url=world.url, wiki_dir=None, reviewer="mallory"), world.repo
        ).resolve_dispute("demo", REF, "reject", "no")
    assert world.repo.clause_resolutions("demo") == []
    denied = [e for e in world.repo.project_audit("demo") if e.action == "dispute"]
    assert [(e.outcome, e.reviewer) for e in denied] == [
        ("denied", "İlker Işık"),
        ("denied", "mallory"),
    ]
    assert all(e.before == e.after and e.pid == os.getpid() for e in denied)
    # an approver, but what is asked cannot be resolved
    with pytest.raises(InputError, match="not disputed now"):
        world.desk.resolve_dispute("demo", "MSA-2024-01#3.2", "in_scope", "covers SSO")
    with pytest.raises(InputError, match="needs a reason"):
        world.desk.resolve_dispute("demo", REF, "in_scope", "   ")
    with pytest.raises(InputError, match="unknown verdict"):
        world.desk.resolve_dispute("demo", REF, "approve", "covers it")
    with pytest.raises(InputError, match="NUL"):
        world.desk.resolve_dispute("demo", REF, "in_scope", "covers\x00it")
    assert world.repo.clause_resolutions("demo") == []
    assert "DISPUTED-RESOLVED" not in _page(world, "disputed.md")


def test_the_cli_lists_and_resolves(tmp_path: Path) -> None:
    w = _world(f"sqlite:///{tmp_path}/etki.db", tmp_path)
    try:
        _dispute(w)
    finally:
        w.repo.dispose()
    env = {
        "ETKI_DB_URL": w.url,
        "ETKI_WIKI_DIR": str(tmp_path / "wiki-{project}"),
        "ETKI_REVIEWER": "reviewer",
        "PATH": os.environ.get("PATH", ""),
    }
    listed = run_etki(["dispute", "list", "--project", "demo"], env=env, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout == f"{REF}  DISPUTED  rulings CHANGE_REQUEST / IN_SCOPE  (2 ruled)\n"
    refused = run_etki(
        ["dispute", "resolve", "--project", "demo", "4.8", "--verdict", "in_scope"]
        + ["--reason", "x"],
        env={**env, "ETKI_REVIEWER": "Bärbel Müller-Şahin"},
        cwd=tmp_path,
    )
    assert refused.returncode == 2 and "not an approver" in refused.stderr
    missing = run_etki(
        ["dispute", "resolve", "--project", "demo", "4.8", "--verdict", "in_scope"],
        env=env,
        cwd=tmp_path,
    )
    assert missing.returncode == 2 and "--reason" in missing.stderr
    done = run_etki(  # the spelling `etki rule` takes too (issue 34's trial)
        ["dispute", "resolve", "--project", "demo", "4.8", "--verdict", "approve"]
        + ["--reason", "covers it \x1b[31mred\x1b[0m"],
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{REF}: DISPUTED-RESOLVED · PMO: rule IN_SCOPE — “covers it ")
    assert "\x1b" not in done.stdout
    as_json = run_etki(["dispute", "list", "--project", "demo", "--json"], env=env, cwd=tmp_path)
    import json

    [row] = json.loads(as_json.stdout)
    assert row["state"] == "disputed-resolved" and row["overridden_by"] is None
    assert row["resolution"]["verdict"] == "IN_SCOPE"
    assert row["resolution"]["reason"] == "covers it \x1b[31mred\x1b[0m"  # stored as given
    assert [h["case_id"] for h in row["history"]] == [FIRST, SECOND]
    unknown = run_etki(["dispute", "list", "--project", "nope"], env=env, cwd=tmp_path)
    assert unknown.returncode == 2 and "no project 'nope'" in unknown.stderr
    verify = run_etki(["wiki", "verify", "--project", "demo"], env=env, cwd=tmp_path)
    assert verify.returncode == 0, verify.stdout + verify.stderr


# --- the TUI: r on a disputed card in Hafıza ------------------------------------------------

TUI_REF = "MSA-2024-01#3.2"  # disputed in the TUI fixture (tests/conftest.py RULED)
TUI_FIRST = "req-demo-0a1f3c21"  # pending, cites 3.2
TUI_REASON = "3.2 covers [bold]contractors[/bold] too: rule IN_SCOPE"


async def _on_disputed_card(pilot, ref: str) -> None:  # noqa: ANN001
    """Hafıza, the list focused, the disputed entry of ``ref`` highlighted."""
    from textual.widgets import OptionList

    from etki_tui.hafiza.pane import MemoryPane
    from tests.test_tui_pilot import press, settle, until

    app = pilot.app
    await press(pilot, "2")
    pane = app.query_one(MemoryPane)
    await until(pilot, lambda: pane.loaded and pane.disputed, "Hafıza's disputed cards")
    entries = pane.query_one("#memory-list", OptionList)
    entries.focus()
    entries.highlighted = entries.get_option_index(f"dis:{ref}")
    await settle(pilot)


def _card(app) -> str:  # noqa: ANN001
    from etki_tui.hafiza.pane import MemoryPane
    from tests.test_tui_pilot import shown

    card = app.query_one(MemoryPane).query_one("#memory-card")
    return " ".join(shown(card, 100, 40).split())


def test_the_form_on_a_disputed_card_records_a_resolution(tui_world) -> None:  # noqa: ANN001
    import asyncio

    from textual.widgets import Button, Input, Label, RadioButton

    from etki_tui.hafiza.pane import MemoryPane
    from etki_tui.messages import DisputeResolved
    from etki_tui.queue.bars import CaseDetail
    from etki_tui.screens.resolve import ResolveDisputeForm
    from tests.test_tui_pilot import Recorder, fill, goto, make_app, press, settle, shown, until

    async def run() -> None:
        seen = Recorder()
        app = make_app(tui_world)
        async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
            await settle(pilot)
            await goto(pilot, TUI_FIRST)
            body = app.query_one(CaseDetail).query_one("#detail-body")
            before = " ".join(shown(body).split())
            assert "! DISPUTED 3.2 Single sign-on · rulings disagree: IN_SCOPE / REJECT" in before
            assert "disputed after triage (MEDIUM then" in before  # the open dispute raises it
            await _on_disputed_card(pilot, TUI_REF)
            assert "No resolution yet: R records the PMO's resolution." in _card(app)
            await press(pilot, "R")
            form = app.screen
            assert isinstance(form, ResolveDisputeForm) and form.item.ref == TUI_REF
            # Save without a verdict, then without a reason: refused, the form stays
            await press(pilot, "tab", "tab", "tab")  # the verdict, reason, Cancel, Save
            assert app.focused is form.query_one("#resolve-save", Button)
            await press(pilot, "enter")
            assert app.screen is form
            assert "Choose the ruling" in str(form.query_one("#resolve-error", Label).render())
            form.query_one("#resolve-IN_SCOPE", RadioButton).value = True
            await settle(pilot)
            await fill(pilot, "#resolve-reason", "   ")
            await press(pilot, "enter")
            assert app.screen is form
            assert "reason is empty" in str(form.query_one("#resolve-error", Label).render())
            await fill(pilot, "#resolve-reason", TUI_REASON)
            assert form.query_one("#resolve-reason", Input).value == TUI_REASON
            await press(pilot, "enter")
            await until(pilot, lambda: seen.of(DisputeResolved), "the resolution recorded")
            await settle(pilot)
            assert not isinstance(app.screen, ResolveDisputeForm)
            pane = app.query_one(MemoryPane)
            await until(pilot, lambda: pane.disputed and pane.disputed[0].resolved, "the card")
            card = _card(app)
            assert "DISPUTED-RESOLVED MSA-2024-01#3.2" in card
            assert "rule ✓ IN_SCOPE · reviewer · 2026-11-29 12:00Z" in card
            assert f"“{TUI_REASON}”" in card  # literal: the markup is text, not style
            assert "Stands: no ruling after it disagrees." in card
            # the detail pane's strip on a case citing the clause
            await press(pilot, "1")
            await goto(pilot, TUI_FIRST)
            await settle(pilot)
            body = app.query_one(CaseDetail).query_one("#detail-body")
            strip = " ".join(shown(body).split())
            assert "DISPUTED-RESOLVED 3.2 Single sign-on · PMO: rule IN_SCOPE —" in strip
            assert (
                "“3.2 covers [bold]contractors[/bold] too: rule IN_SCOPE” (reviewer, 2026-11-29)"
                in strip
            )
            assert "disputed after triage" not in strip  # resolved: the dispute raises nothing
        [res] = tui_world.repo.clause_resolutions("demo")
        assert (res.ref, res.verdict, res.reason, res.reviewer) == (
            TUI_REF,
            "IN_SCOPE",
            TUI_REASON,
            "reviewer",
        )
        projector = tui_world.desk.approvals.projector
        assert projector is not None
        projector.flush()
        assert tui_world.desk.wiki_drift("demo").paths() == []
        assert "**DISPUTED-RESOLVED**." in (tui_world.wiki / "disputed.md").read_text("utf-8")

    asyncio.run(run())


def test_escape_records_nothing_and_a_read_only_desk_refuses(tui_world) -> None:  # noqa: ANN001
    import asyncio

    from etki_tui.screens.resolve import ResolveDisputeForm
    from tests.test_tui_pilot import Recorder, make_app, press, settle

    async def run() -> None:
        seen = Recorder()
        app = make_app(tui_world)
        async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
            await settle(pilot)
            await _on_disputed_card(pilot, TUI_REF)
            await press(pilot, "R")
            assert isinstance(app.screen, ResolveDisputeForm)
            await press(pilot, "escape")
            assert not isinstance(app.screen, ResolveDisputeForm)
            assert f"Nothing recorded for {TUI_REF}." in seen.notes()
        assert tui_world.repo.clause_resolutions("demo") == []

        vera = Desk(
            Settings(
                db_url=tui_world.settings.db_url,
                wiki_dir=tui_world.settings.wiki_dir,
                reviewer="vera",  # a viewer of the fixture project
            ),
            tui_world.repo,
        )
        from dataclasses import replace

        app = make_app(replace(tui_world, desk=vera))
        seen.clear()
        async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
            await settle(pilot)
            await _on_disputed_card(pilot, TUI_REF)
            await press(pilot, "R")
            assert not isinstance(app.screen, ResolveDisputeForm)
            assert any(n.startswith("Read-only desk: vera may not resolve") for n in seen.notes())
        assert tui_world.repo.clause_resolutions("demo") == []
        assert tui_world.repo.project_audit("demo")[-1].action != "dispute"  # nothing tried

    asyncio.run(run())


def test_escape_with_a_reason_typed_asks_before_discarding(tui_world) -> None:  # noqa: ANN001
    """Issue 34: R threw a typed reason away on Esc; like the new-request form it asks."""
    import asyncio

    from textual.widgets import Input

    from etki_tui.screens.new_request import DiscardTyped
    from etki_tui.screens.resolve import ResolveDisputeForm
    from tests.test_tui_pilot import fill, make_app, press, settle

    async def run() -> None:
        app = make_app(tui_world)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await _on_disputed_card(pilot, TUI_REF)
            await press(pilot, "R")
            form = app.screen
            assert isinstance(form, ResolveDisputeForm)
            await fill(pilot, "#resolve-reason", "Abschnitt 4.8 deckt Auswertungen ab")
            await press(pilot, "escape")
            assert isinstance(app.screen, DiscardTyped)
            await press(pilot, "escape")  # keep editing: the reason is still there
            assert app.screen is form
            assert form.query_one("#resolve-reason", Input).value == (
                "Abschnitt 4.8 deckt Auswertungen ab"
            )
            await press(pilot, "escape")
            assert isinstance(app.screen, DiscardTyped)
            await press(pilot, "d")
            assert not isinstance(app.screen, (ResolveDisputeForm, DiscardTyped))
        assert tui_world.repo.clause_resolutions("demo") == []

    asyncio.run(run())


def test_a_resolution_recorded_meanwhile_is_a_conflict(world: World) -> None:
    from etki.errors import ResolutionConflictError

    _dispute(world)
    other = Desk(Settings(db_url=world.url, wiki_dir=None, reviewer="Jürgen Weiß"), world.repo)
    world.clock.at(5)
    first = other.resolve_dispute("demo", REF, "cr", "a CR, says Jürgen", expected_id=0).resolution
    world.clock.at(6)
    with pytest.raises(
        ResolutionConflictError, match="resolved meanwhile .rule CHANGE_REQUEST. by Jürgen Weiß"
    ):
        world.desk.resolve_dispute("demo", REF, "in_scope", "in scope", expected_id=0)
    assert [r.id for r in world.repo.clause_resolutions("demo")] == [first.id]
    newer = world.desk.resolve_dispute("demo", REF, "in_scope", "in scope", expected_id=first.id)
    assert world.desk.clause_memory("demo")[REF].resolution == newer.resolution
    _same_as_rebuild(world, "fresh")


def test_the_form_says_when_another_pmo_resolved_first(tui_world) -> None:  # noqa: ANN001
    import asyncio

    from textual.widgets import RadioButton

    from etki_tui.hafiza.pane import MemoryPane
    from etki_tui.messages import DisputeNotResolved
    from etki_tui.screens.resolve import ResolveDisputeForm
    from tests.test_tui_pilot import Recorder, fill, make_app, press, settle, until

    async def run() -> None:
        seen = Recorder()
        app = make_app(tui_world)
        async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
            await settle(pilot)
            await _on_disputed_card(pilot, TUI_REF)
            await press(pilot, "R")
            form = app.screen
            assert isinstance(form, ResolveDisputeForm)
            # meanwhile, another approver at another desk
            Desk(
                Settings(db_url=tui_world.settings.db_url, wiki_dir=None, reviewer="ayse"),
                tui_world.repo,
            ).resolve_dispute("demo", TUI_REF, "reject", "contractors are out, says ayse")
            form.query_one("#resolve-IN_SCOPE", RadioButton).value = True
            await fill(pilot, "#resolve-reason", "in scope, says reviewer")
            await press(pilot, "enter")
            await until(pilot, lambda: seen.of(DisputeNotResolved), "the conflict")
            await settle(pilot)
            assert any("was resolved meanwhile (rule REJECT) by ayse" in n for n in seen.notes())
            pane = app.query_one(MemoryPane)
            await until(pilot, lambda: pane.disputed[0].resolution is not None, "the card")
            assert "“contractors are out, says ayse”" in _card(app)
        [res] = tui_world.repo.clause_resolutions("demo")
        assert res.reviewer == "ayse"

    asyncio.run(run())


def test_d_in_the_queue_opens_the_form_for_the_strips_clause(tui_world) -> None:  # noqa: ANN001
    import asyncio

    from etki_tui.screens.resolve import ResolveDisputeForm
    from tests.test_tui_pilot import Recorder, goto, make_app, press, settle, shown

    async def run() -> None:
        seen = Recorder()
        app = make_app(tui_world)
        async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
            await settle(pilot)
            await goto(pilot, "req-demo-1b7e9d02")  # cites 9.1 only: nothing disputed
            await press(pilot, "R")
            assert not isinstance(app.screen, ResolveDisputeForm)
            assert "The highlighted case cites no disputed clause: nothing to resolve." in (
                seen.notes()
            )
        app = make_app(tui_world)
        async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
            await settle(pilot)
            await goto(pilot, TUI_FIRST)
            await press(pilot, "R")
            form = app.screen
            assert isinstance(form, ResolveDisputeForm) and form.item.ref == TUI_REF
            head = " ".join(shown(form.query_one("#resolve-clause"), 60, 2).split())
            assert head == "MSA-2024-01#3.2 3.2 Single sign-on rulings disagree: IN_SCOPE / REJECT"
            await press(pilot, "escape")
        assert tui_world.repo.clause_resolutions("demo") == []

    asyncio.run(run())


def test_the_live_refresh_shows_a_resolution_recorded_at_another_desk(tui_world) -> None:  # noqa: ANN001
    """A resolution changes no case version; the desk's poll also compares the number of
    resolutions, so another PMO's resolution reaches the queue's memory (and the strip
    and risk column that read it) without Ctrl+R."""
    import asyncio

    from etki_tui.messages import QueueLoaded
    from etki_tui.queue.pane import QueuePane
    from tests.test_tui_pilot import Recorder, make_app, settle, until

    async def run() -> None:
        seen = Recorder()
        app = make_app(tui_world)
        async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
            await settle(pilot)
            pane = app.query_one(QueuePane)
            assert pane.memory[TUI_REF].open_dispute
            app.poll_queue()  # nothing changed yet: no reload
            await settle(pilot)
            assert not [m for m in seen.of(QueueLoaded) if m.source == "poll"]
            Desk(
                Settings(db_url=tui_world.settings.db_url, wiki_dir=None, reviewer="ayse"),
                tui_world.repo,
            ).resolve_dispute("demo", TUI_REF, "reject", "contractors are out, says ayse")
            app.poll_queue()
            await until(
                pilot, lambda: [m for m in seen.of(QueueLoaded) if m.source == "poll"], "a poll"
            )
            await settle(pilot)
            mem = pane.memory[TUI_REF]
            assert mem.resolved and not mem.open_dispute
            assert mem.resolution is not None and mem.resolution.reviewer == "ayse"

    asyncio.run(run())


def test_an_amendment_that_contradicts_the_resolution_disputes_the_clause_again(
    world: World,
) -> None:
    """Second trial: amending the only dissenting ruling left every ruling agreeing with
    each other but not with the PMO's resolution, and the clause (and the resolution)
    vanished from disputed.md. A ruling after the resolution that disagrees with it
    disputes the clause again, whatever the other rulings say, and names the case."""
    desk = world.desk
    _dispute(world)  # FIRST IN_SCOPE, SECOND CHANGE_REQUEST
    world.clock.at(10)
    res = desk.resolve_dispute("demo", REF, "reject", "4.8 excludes district exports").resolution
    assert desk.clause_memory("demo")[REF].resolved
    world.clock.at(20)
    desk.rule(SECOND, "approve", reason="it is in scope after all", amend=True)
    rulings = {c.ruling.ruling for c in world.repo.cases("demo") if c.ruling is not None}
    assert {world.repo.case(c).ruling.ruling for c in (FIRST, SECOND)} == {"IN_SCOPE"}
    assert "IN_SCOPE" in rulings
    mem = desk.clause_memory("demo")[REF]
    assert mem.disputed and mem.open_dispute and not mem.resolved
    assert mem.resolution == res and mem.overridden_by == SECOND
    [item] = [d for d in desk.disputed("demo") if d.ref == REF]
    assert item.overridden_by == SECOND
    section = _section(_page(world, "disputed.md"), f"## {REF}")
    assert "**DISPUTED**." in section
    assert f"Disputed again: the resolution was overridden by case [{SECOND}](decisions/" in section
    _same_as_rebuild(world, "fresh-amended")


def test_the_form_names_the_resolution_in_force_and_chooses_nothing(tui_world) -> None:  # noqa: ANN001
    """With a resolution in force, r opens the form with it named above the choice and
    no verdict chosen: Save with a reason but no choice is refused (it used to
    preselect the resolution in force, so Save re-recorded it unchosen)."""
    import asyncio

    from textual.widgets import RadioButton, Static

    from etki_tui.screens.resolve import ResolveDisputeForm
    from tests.test_tui_pilot import fill, make_app, press, settle, shown

    Desk(
        Settings(db_url=tui_world.settings.db_url, wiki_dir=None, reviewer="ayse"),
        tui_world.repo,
    ).resolve_dispute("demo", TUI_REF, "reject", "contractors are [red]out[/red]")

    async def run() -> None:
        app = make_app(tui_world)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await _on_disputed_card(pilot, TUI_REF)
            await press(pilot, "R")
            form = app.screen
            assert isinstance(form, ResolveDisputeForm)
            head = " ".join(shown(form.query_one("#resolve-clause", Static), 100, 6).split())
            assert "resolution in force: REJECT by ayse," in head
            assert "contractors are [red]out[/red]" in head  # literal, not markup
            assert not any(b.value for b in form.query(RadioButton))
            await fill(pilot, "#resolve-reason", "a reason but no choice")
            await press(pilot, "enter")
            assert app.screen is form
        assert len(tui_world.repo.clause_resolutions("demo")) == 1

    asyncio.run(run())


def test_a_resolution_stays_shown_when_the_rulings_agree_again(world: World) -> None:
    """Issue 34 item 4: amending the dissenting ruling to agree with the PMO's resolution
    left every ruling agreeing, and the resolution vanished everywhere (memory, the
    dispute list, disputed.md, the contract page). It is what the next reviewer of the
    clause needs: the clause stays disputed-resolved (raising no risk), on every page,
    and the wiki stays the projection of the DB."""
    desk = world.desk
    _dispute(world)  # FIRST IN_SCOPE, SECOND CHANGE_REQUEST
    world.clock.at(10)
    res = desk.resolve_dispute("demo", REF, "in_scope", REASON).resolution
    world.clock.at(20)
    desk.rule(SECOND, "approve", reason="in scope per the PMO", amend=True)
    assert {world.repo.case(c).ruling.ruling for c in (FIRST, SECOND)} == {"IN_SCOPE"}
    mem = desk.clause_memory("demo")[REF]
    assert mem.disputed and mem.resolved and not mem.open_dispute
    assert mem.resolution == res and mem.overridden_by is None
    pending = world.repo.case(world.citing()[0]).decision
    assert current_risk(pending, desk.clause_memory("demo"), True) == (pending.risk, ())
    [item] = [d for d in desk.disputed("demo") if d.ref == REF]
    assert item.resolved and item.resolution == res
    disputed = _page(world, "disputed.md")
    assert "resolved:\n- MSA-2024-01#4.8\n" in disputed.split("---\n")[1]
    section = _section(disputed, f"## {REF}")
    assert "**DISPUTED-RESOLVED**." in section and "PMO resolution: rule **IN_SCOPE**" in section
    contract = _section(_page(world, "entities/contracts/MSA-2024-01.md"), f"## {REF}")
    assert "**DISPUTED-RESOLVED**." in contract and "PMO resolution: rule **IN_SCOPE**" in contract
    _same_as_rebuild(world, "fresh-agreed")
    env = {
        "ETKI_DB_URL": world.url,
        "ETKI_WIKI_DIR": str(world.tmp / "wiki-{project}"),
        "ETKI_REVIEWER": "reviewer",
        "PATH": os.environ.get("PATH", ""),
    }
    listed = run_etki(["dispute", "list", "--project", "demo"], env=env, cwd=world.tmp)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith(f"{REF}  DISPUTED-RESOLVED  rulings IN_SCOPE  (2 ruled)\n")
    assert "  PMO: rule IN_SCOPE — “clause 4.8 covers" in listed.stdout
