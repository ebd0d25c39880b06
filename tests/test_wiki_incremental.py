"""Issue 32 item 5: the HITL projection keeps a model and its shared pages' parts alive
between rulings and applies a ruling from the decision in hand; after any sequence of
rulings, amendments, notes, new cases and resolutions of disputed clauses the wiki it
wrote is, file for file, what a full rebuild from the database writes. Seeded random
sequences through :class:`~etki.approval.ApprovalService` (the desk's path), on SQLite
and on PostgreSQL (127.0.0.1:5432, skipped when absent)."""

from __future__ import annotations

import contextlib
import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from etki.approval import ApprovalService, resolve_dispute
from etki.config import Settings
from etki.domain import Request
from etki.errors import InputError
from etki.memory import clause_memory
from etki.store.repository import CaseFileRepository
from etki.wiki.projection import WikiProjector
from tests.wiki_support import decision, project, tree_digest

ACTIONS = {"approve": "IN_SCOPE", "convert_to_cr": "CHANGE_REQUEST", "reject": "REJECT"}
REFS = (("MSA#3.2",), ("MSA#4.1", "MSA#3.2"), ("MSA#9.1",), ("MSA#4.1",), ())
MODS = (("auth.sso",), ("payments",), (), ("src/legacy billing", "auth.sso"))


def _clock():
    start = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
    moments = (start + timedelta(seconds=7 * k) for k in range(100_000))
    return lambda: next(moments)


def _add_cases(repo: CaseFileRepository, first: int, n: int) -> None:
    verdicts = tuple(ACTIONS.values())
    repo.add_cases(
        "demo",
        [
            (
                Request(id=f"X{i}", text=f"request {i}", title=f"Request {i} — Größe ılık"),
                decision(f"req-demo-{i:04d}", verdicts[i % 3], REFS[i % 5], MODS[i % 4]),
            )
            for i in range(first, first + n)
        ],
    )


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request, tmp_path):
    """(repository, settings) on a fresh store of the wiki tests' project."""
    settings = Settings(db_url="", wiki_dir=str(tmp_path / "w-{project}"))
    if request.param == "sqlite":
        repo = CaseFileRepository(f"sqlite:///{tmp_path}/etki.db", clock=_clock())
    else:  # a fresh schema, dropped after this fixture
        repo = CaseFileRepository(request.getfixturevalue("pg_schema").url, clock=_clock())
    repo.save_project(project(), "sha256:abc", b"{}\n")
    yield repo, settings
    repo.dispose()


def _fresh_render_matches(repo: CaseFileRepository, settings: Settings) -> None:
    """A brand-new projector renders from the DB exactly the tree on disk."""
    assert WikiProjector(repo, settings).verify("demo") == []


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_incremental_pages_equal_a_full_rebuild_after_any_sequence(store, seed):
    repo, settings = store
    rng = random.Random(seed)
    _add_cases(repo, 1, 12)
    projector = WikiProjector(repo, settings)
    svc = ApprovalService(repo, settings, hook=projector.project_case, projector=projector)
    projector.rebuild("demo")
    next_id = 13
    for step in range(30):
        pending = [c.case_id for c in repo.cases("demo", status="pending")]
        ruled = [c.case_id for c in repo.cases("demo", status="ruled")]
        kind = rng.choice(["rule", "rule", "rule", "amend", "note", "cases", "resolve"])
        if kind == "rule" and pending:
            action = rng.choice(list(ACTIONS))
            out = svc.rule(rng.choice(pending), action, reviewer="ayse", reason=f"step {step}")
            assert out.wiki_error is None
        elif kind == "amend" and ruled:
            action = rng.choice(list(ACTIONS))
            out = svc.rule(
                rng.choice(ruled), action, reviewer="jurgen", reason=f"amended {step}", amend=True
            )
            assert out.wiki_error is None
        elif kind == "note" and ruled:
            repo.add_note(rng.choice(ruled), "ayse", f"note {step}: İade süreci")
            projector.catch_up("demo")
        elif kind == "cases":
            _add_cases(repo, next_id, 2)
            next_id += 2
            projector.catch_up("demo")
        elif kind == "resolve":
            memory = clause_memory(repo.cases("demo", status="ruled"))
            disputed = sorted(r for r, m in memory.items() if m.disputed)
            if disputed:
                ref = rng.choice(disputed)
                verdict = rng.choice(["in_scope", "cr", "reject"])
                with contextlib.suppress(InputError):  # (not disputed by the memory's rule)
                    resolve_dispute(repo, settings, "demo", ref, verdict, "PMO: ß", reviewer="ayse")
                projector.catch_up("demo")
        _fresh_render_matches(repo, settings)
    projector.flush()
    digest = tree_digest(settings.wiki_path("demo"))
    WikiProjector(repo, settings).rebuild("demo")
    assert tree_digest(settings.wiki_path("demo")) == digest
    projector.close()


def test_the_decision_in_hand_is_applied_without_reading_the_case_again(store):
    """A first ruling's record in hand is what the page is made from (a title changed
    in the hand shows on the page: proof that the case was not read again); with a
    note saved between the read and the ruling it is not used (the DB's is)."""
    repo, settings = store
    _add_cases(repo, 1, 4)
    projector = WikiProjector(repo, settings)
    projector.rebuild("demo")
    wiki = settings.wiki_path("demo")
    assert wiki is not None
    for cid, noted in (("req-demo-0001", False), ("req-demo-0002", True)):
        case = repo.case(cid)
        if noted:
            repo.add_note(cid, "ayse", "said between the read and the ruling")
        ruling = repo.record_ruling(cid, "approve", "ayse", "why")
        in_hand = replace(case, ruling=ruling, version=ruling.version, title="From the hand")
        projector.project_case(cid, in_hand)
        (path,) = (wiki / "decisions").glob(f"*--{cid}.md")  # (the slug is the title's)
        page = path.read_text("utf-8")
        assert ("From the hand" in page) is not noted
        assert ("said between the read and the ruling" in page) is noted
    projector.close()
