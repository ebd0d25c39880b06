"""``etki dispute list`` on the lean read path (issue 32 item 1): the columns it reads
(:meth:`etki.store.lean.LeanStore.ruled_rows`: the ruling, the cut-out cited clauses and
deciding sentence) give, through :func:`etki.memory.disputes_of`, exactly the disputed
clauses :func:`etki.memory.clause_memory` computes from the full records, on SQLite and
PostgreSQL. The store is seeded at random: rulings whose reasons name clauses (by ref, by
number, in Turkish and German) or none, decisive clauses cited or not, rulings in the
same second, resolutions that stand or are overridden, and decisions stored in a
non-canonical JSON form (read whole)."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import inspect, text

from etki import memory
from etki.domain import DisputedClause
from etki.store import CaseFileRepository, lean
from tests.factories import make_decision, make_project, make_request
from tests.test_memory import _deciding

REFS = ("MSA#3.2", "MSA#4.1", "MSA#9.1")
REASONS = (
    "",
    "",
    "",
    "4.1 covers it",
    "see MSA#3.2 and §9.1",
    "Kapsam dışı: sözleşmenin 9.1 maddesi hariç tutuyor",
    "İade süreci 3.2'de var; 14.1 değil",  # 14.1 names no clause
    "Das ist ein Fehler (Straße, Größe), keine neue Anforderung",
    "msa#4.1 in lower case",
)
ACTIONS = ("approve", "convert_to_cr", "reject")


def _clock(start: datetime):  # noqa: ANN202
    """Seconds that advance by 0 or 1 at random: some rulings share a second."""
    rng = random.Random(7)
    now = [start]

    def tick() -> datetime:
        now[0] += timedelta(seconds=rng.choice((0, 1, 1)))
        return now[0]

    return tick


def _fill(repo: CaseFileRepository, seed: int) -> None:
    rng = random.Random(seed)
    repo.save_project(make_project(), "sha256:abc", b"{}\n")
    items = []
    for n in range(40):
        cited = tuple(rng.sample(REFS, rng.randint(1, 3)))
        case_id = f"req-demo-{n}"
        verdict = rng.choice(("IN_SCOPE", "CHANGE_REQUEST", "REJECT"))
        if rng.random() < 0.6:  # a decisive clause, now and then one not cited
            decision = _deciding(case_id, verdict, cited, rng.choice((*cited, "MSA#7.7")))
        else:
            decision = make_decision(case_id, verdict, cited)
        items.append((make_request(f"R{n}"), decision))
    repo.add_cases("demo", items)
    order = list(range(40))
    rng.shuffle(order)
    for k, n in enumerate(order[:34]):  # six stay pending
        repo.record_ruling(f"req-demo-{n}", rng.choice(ACTIONS), "ayse", rng.choice(REASONS))
        if k in (10, 20):
            ref = rng.choice(REFS)
            repo.record_resolution("demo", ref, rng.choice(("IN_SCOPE", "REJECT")), "PMO", "ayse")
    with repo.engine.begin() as conn:  # two decisions not in the canonical form
        for case_id in ("req-demo-1", "req-demo-2"):
            stored = conn.execute(
                text("SELECT decision_json FROM decisions WHERE case_id = :c"), {"c": case_id}
            ).scalar_one()
            loose = json.dumps(json.loads(stored), indent=2, ensure_ascii=True)
            conn.execute(
                text("UPDATE decisions SET decision_json = :j WHERE case_id = :c"),
                {"j": loose, "c": case_id},
            )


def _from_memory(repo: CaseFileRepository) -> list[DisputedClause]:
    """The disputed clauses as :func:`etki.memory.clause_memory` says, of full records."""
    mem = memory.clause_memory(repo.cases("demo", status="ruled"), repo.clause_resolutions("demo"))
    return [
        DisputedClause(m.ref, m.history, m.resolution, m.overridden_by, m.disputing)
        for m in mem.values()
        if m.disputed
    ]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("store", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_the_lean_rows_dispute_as_the_clause_memory_does(request, tmp_path, store, seed):
    start = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
    if store == "sqlite":
        url = f"sqlite:///{tmp_path}/etki.db"
    else:
        url = request.getfixturevalue("pg_schema").url
    repo = CaseFileRepository(url, clock=_clock(start))
    try:
        _fill(repo, seed)
        expected = _from_memory(repo)
        assert memory.disputed_clauses(repo.cases("demo"), repo.clause_resolutions("demo")) == (
            expected
        )
    finally:
        repo.dispose()
    project_id, rows, resolutions = lean.lean_call(url, "disputes", None)
    assert project_id == "demo" and len(rows) == 34
    assert memory.disputes_of(rows, resolutions) == expected
    assert memory.disputes_of(reversed(rows), resolutions) == expected  # any order
    assert expected  # the seeds do dispute clauses


@pytest.mark.parametrize("store", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_an_erased_case_leaves_no_summary_and_no_dispute(request, tmp_path, store):
    """KVKK erasure (:func:`etki.erasure.erase_case`) of a ruled case removes its
    ruling's row, and with it the summary of its decision the list reads
    (``rulings.cited_refs``, ``rulings.deciding_ref``, migration 0008): the lean rows no
    longer hold the case, no table holds its id beside the tombstone, and the list is
    still the clause memory's of the cases left."""
    from etki.config import Settings
    from etki.erasure import erase_case

    start = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
    if store == "sqlite":
        url = f"sqlite:///{tmp_path}/etki.db"
    else:
        url = request.getfixturevalue("pg_schema").url
    repo = CaseFileRepository(url, clock=_clock(start))
    try:
        _fill(repo, 2)
        _, rows, _ = lean.lean_call(url, "disputes", None)
        victim = next(r[0] for r in rows if len(r[5]) > 1)  # one citing several clauses
        settings = Settings(db_url=url, wiki_dir=None, reviewer="ayse")
        assert erase_case(repo, settings, victim, "KVKK 11/e").complete
        with repo.engine.connect() as conn:
            left = conn.execute(
                text("SELECT count(*) FROM rulings WHERE case_id = :c"), {"c": victim}
            ).scalar_one()
        assert left == 0
        expected = _from_memory(repo)
    finally:
        repo.dispose()
    project_id, rows, resolutions = lean.lean_call(url, "disputes", None)
    assert victim not in {r[0] for r in rows} and len(rows) == 33
    assert memory.disputes_of(rows, resolutions) == expected


# --- the per-clause counts kept at ruling time (migration 0013) -------------------------

TALLIES = text("SELECT project_id, ref, ruling, cited, about FROM clause_tallies")


def _recount(repo: CaseFileRepository) -> list[tuple]:
    """``clause_tallies`` as the current rulings' full records say it: per project, clause
    and ruling word, the history lines (a cited ref each) and those the ruling is about
    (:func:`etki.memory.ruled_about`, via :func:`etki.memory.ruled_row`)."""
    counts: dict[tuple[str, str, str], list[int]] = {}
    for project_id in repo.project_ids():
        for case in repo.cases(project_id, status="ruled"):
            _c, ruling, _w, _t, reason, cited, deciding = memory.ruled_row(case)
            about = memory.ruled_about(cited, reason, deciding)
            for ref in cited:
                held = counts.setdefault((project_id, ref, ruling), [0, 0])
                held[0] += 1
                held[1] += ref in about
    return sorted((*k, c, a) for k, (c, a) in counts.items())


def _kept_tallies(repo: CaseFileRepository) -> list[tuple]:
    with repo.engine.connect() as conn:
        return sorted(tuple(r) for r in conn.execute(TALLIES))


def _counted(url: str) -> list[tuple]:
    """``etki dispute list``'s lean read (text), as comparable tuples."""
    from etki.store.lean_disputes import disputes_read

    project_id, read = lean.lean_call(url, disputes_read, None)
    assert project_id == "demo"
    return [
        (d.ref, d.rulings, d.ruled, d.resolution, d.overridden_by)
        for d in memory.disputes_counted(read.counts, read.ruled, read.resolutions)
    ]


def _listed(disputed: list[DisputedClause]) -> list[tuple]:
    return [(d.ref, d.rulings, len(d.history), d.resolution, d.overridden_by) for d in disputed]


def _queue_open(url: str) -> dict[str, bool]:
    """ref -> open dispute, of the clauses the pending cases cite, as ``etki queue``
    reads it (:meth:`etki.store.lean.LeanStore.queue`)."""
    read = lean.lean_call(url, "queue", None, every=False)
    (part,) = read.parts
    mem = {d.ref: d for d in memory.disputes_counted(part.counts, part.ruled, part.resolutions)}
    return {
        ref: ref in memory.open_disputed_refs([ref], mem)
        for c in part.shown
        for ref in c.decision.cited_clauses
    }


def _open_by_memory(repo: CaseFileRepository) -> dict[str, bool]:
    mem = memory.clause_memory(repo.cases("demo", status="ruled"), repo.clause_resolutions("demo"))
    return {
        ref: ref in memory.open_disputed_refs([ref], mem)
        for c in repo.cases("demo", status="pending")
        for ref in c.decision.cited_clauses
    }


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("store", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_the_kept_counts_dispute_as_the_clause_memory_does(request, tmp_path, store, seed):
    """``clause_tallies`` equals a recount of the full records after rulings,
    amendments (a reason added, removed, the word changed), a KVKK erasure of a ruled
    case and a project delete; the list read from it (``etki dispute list``'s text) and
    the queue's open disputes equal what the clause memory says, resolutions standing
    and overridden included; migration 0013 fills the same counts from the rulings."""
    from etki.config import Settings
    from etki.erasure import erase_case
    from etki.store.migrate import head_revision, upgrade
    from tests.test_migrations import _downgrade

    start = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
    url = f"sqlite:///{tmp_path}/etki.db" if store == "sqlite" else None
    url = url or request.getfixturevalue("pg_schema").url
    repo = CaseFileRepository(url, clock=_clock(start))
    rng = random.Random(seed)
    try:
        _fill(repo, seed)
        ruled = [c.case_id for c in repo.cases("demo", status="ruled")]
        for case_id in rng.sample(ruled, 6):
            action, reason = rng.choice(ACTIONS), rng.choice(REASONS)
            repo.record_ruling(case_id, action, "jürgen", reason, amend=True)
        assert _kept_tallies(repo) == _recount(repo)
        expected = _listed(
            memory.disputed_clauses(repo.cases("demo"), repo.clause_resolutions("demo"))
        )
        assert expected and any(d[3] is not None for d in expected)  # resolutions too
        assert _counted(url) == expected
        assert _queue_open(url) == _open_by_memory(repo)
        kept = _kept_tallies(repo)
        _downgrade(repo.engine, "0012")
        assert "clause_tallies" not in inspect(repo.engine).get_table_names()
        assert upgrade(repo.engine) == ("0012", head_revision())
        assert _kept_tallies(repo) == kept  # the migration's fill == the writers'
        settings = Settings(db_url=url, wiki_dir=None, reviewer="ayse")
        victim = rng.choice([c.case_id for c in repo.cases("demo", status="ruled")])
        assert erase_case(repo, settings, victim, "KVKK 11/e").complete
        assert _kept_tallies(repo) == _recount(repo)
        expected = _listed(
            memory.disputed_clauses(repo.cases("demo"), repo.clause_resolutions("demo"))
        )
        assert _counted(url) == expected
        assert _queue_open(url) == _open_by_memory(repo)
        repo.delete_project("demo", "ayse", "contract ended")
        assert _kept_tallies(repo) == []
    finally:
        repo.dispose()
