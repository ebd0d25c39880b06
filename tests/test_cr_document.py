"""The change-request document (issue 14 item 5): a case converted to CR gets
``change-requests/CR-{yyyymmdd}-{slug}.md`` in the wiki, a projection like every page
(rebuilt bit-identically, checked by verify, gone when the case is erased or its ruling
stops being CR), and ``etki cr export`` writes it as md or html for sending.

Real stores: the sample project loaded and triaged on SQLite and, where the server
answers, PostgreSQL; rulings through the desk (its approval service and HITL hook). The
page is checked against values read from the store and the frozen decision, not against
the renderer's own output."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import text

from etki.config import Settings
from etki.domain import CaseRecord
from etki.errors import NotAChangeRequestError
from etki.services import Desk, approval_service, init_project
from etki.store import CaseFileRepository
from etki.wiki.clauses import clause_markdown
from etki.wiki.markdown import md_block, md_inline
from etki.wiki.paths import cr_id, cr_number, decision_path
from etki.wiki.projection import WikiProjector
from etki_tui.hafiza.reader import PageReader
from etki_tui.queue.bars import CaseDetail
from etki_tui.queue.pane import QueuePane
from tests.cli_support import run_etki
from tests.conftest import TuiWorld
from tests.factories import frozen_clock
from tests.test_tui_pilot import Recorder, current, make_app, press, settle, shown, sync, until

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_project"
REVIEWER = "Ayşe Yılmaz"  # an approver of sample_project/etki.yaml
HOSTILE_TITLE = "<script>alert(1)</script> [x](javascript:alert(2)) **now**"


@dataclass
class Store:
    """The sample project stored on one backend, with its wiki folder."""

    backend: str
    repo: CaseFileRepository
    settings: Settings
    desk: Desk
    url: str

    @property
    def wiki(self) -> Path:
        root = self.settings.wiki_path("demo")
        assert root is not None
        return root


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    wiki = str(tmp_path / "wiki-{project}")
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path}/etki.db"
        repo = CaseFileRepository(url, clock=frozen_clock)
    else:
        url = request.getfixturevalue("pg_schema").url  # dropped after this fixture
        repo = CaseFileRepository(url, clock=frozen_clock)
    settings = Settings(db_url=url, wiki_dir=wiki, reviewer=REVIEWER)
    init_project(SAMPLE, repo, settings, related_context=False)
    desk = Desk(settings, repo)
    desk.wiki_rebuild("demo")
    yield Store(request.param, repo, settings, desk, url)
    repo.dispose()


def _engine_cr(store: Store, *, effort: bool = True) -> CaseRecord:
    """The first pending case the engine proposed as CHANGE_REQUEST (with an effort
    range resting on work items when ``effort``)."""
    for case in store.repo.cases("demo", status="pending"):
        d = case.decision
        if d.verdict == "CHANGE_REQUEST" and bool(d.effort.known and d.effort.basis) == effort:
            return case
    raise AssertionError("the sample project has no such CHANGE_REQUEST case")


def _cr_page_path(case: CaseRecord) -> str:
    """``change-requests/CR-{yyyymmdd}-{slug}.md``: the decision page's date and slug."""
    dec = decision_path(case)
    assert dec.startswith("decisions/DEC-")
    return "change-requests/CR-" + dec.removeprefix("decisions/DEC-")


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*.md"))
        if p.is_file()
    }


def test_converting_to_cr_writes_the_change_request_page(store: Store) -> None:
    pick = _engine_cr(store)
    store.desk.rule(pick.case_id, "convert_to_cr")
    case = store.repo.case(pick.case_id)  # as stored: the ruling's date and reviewer
    assert case.ruling is not None and case.ruling.ruling == "CHANGE_REQUEST"
    rel = _cr_page_path(case)
    assert rel == (
        f"change-requests/CR-{case.ruling.ruled_at[:10].replace('-', '')}-"
        f"{decision_path(case).split('/DEC-', 1)[1][9:]}"
    )
    page = (store.wiki / rel).read_text(encoding="utf-8")
    project = store.desk.project("demo")
    d = case.decision

    # frontmatter like the other pages, the CR id, the case, the back link
    cr = rel.rsplit("/", 1)[1].removesuffix(".md")
    assert page.startswith("---\n") and "\nkind: change-request\n" in page
    assert f"\ncr_id: {cr}\n" in page and f"\ncase_id: {case.case_id}\n" in page
    assert f"# Change request: {md_inline(case.title)}\n" in page
    assert f"- **CR id:** {md_inline(cr)}\n" in page
    dec = decision_path(case)
    assert f"](../{dec})" in page
    assert f"- **Converted to CR** by {REVIEWER}, {case.ruling.ruled_at}\n" in page
    # the request, literally, and the reason (the engine's verdict agreed: none given)
    assert md_block(case.text) in page
    assert "No reason given" in page and "agreed with the engine's verdict CHANGE_REQUEST" in page
    # why: the reasoning, the deciding evidence lines and every cited clause's text
    why = page.split("## Why the contract does not cover it", 1)[1].split("## Impacted", 1)[0]
    deciding = [e for e in d.evidence if e.step in ("exclusion_check", "classify")]
    assert any(e.step == "classify" for e in deciding)
    for e in deciding:
        assert f"- **{e.step}** — {md_inline(e.detail)}" in why
    assert "score_clauses" not in why  # the scores stay on the decision page
    clauses = {c.ref: c for c in project.clauses}
    for ref in d.cited_clauses:
        clause = clauses[ref]
        assert f"{ref} — {md_inline(clause.title)}" in why
        assert clause_markdown(clause.text) in why
    # modules, effort with its work items (titles, days, dates), risk, assumptions
    for mod in d.impacted_modules:
        assert f"- [{md_inline(mod)}](../entities/modules/" in page
    items = {w.id: w for w in store.repo.workitems("demo")}
    effort = page.split("## Effort", 1)[1].split("## Risk", 1)[0]
    low, high = d.effort.low, d.effort.high
    # a range, or one figure when both ends are equal (EffortRange.shown: "9 person-days")
    one = f"{low:g} person-day{'' if low == 1 else 's'}"
    shown = f"{low:g}–{high:g} person-days" if low != high else one
    assert f"**{shown}**" in effort
    assert len(d.effort.basis) >= 1
    for wid in d.effort.basis:
        w = items[wid]
        assert w.effort_days is not None
        days = "1 person-day" if w.effort_days == 1 else f"{w.effort_days:g} person-days"
        line = f"- {wid} {md_inline(w.title)} · {days} · {w.date}"
        assert line in effort.splitlines()
    assert f"Level {d.risk.level}; signals: " in page
    for assumption in d.assumptions:
        assert f"- {md_inline(assumption)}\n" in page
    assert "Engine version: " + d.engine_version in page

    # linked from its decision page and from index.md
    decision_page = (store.wiki / dec).read_text(encoding="utf-8")
    assert f"[{md_inline(cr)}](../{rel})" in decision_page
    index = (store.wiki / "index.md").read_text(encoding="utf-8")
    assert "## Change requests" in index and f"]({rel})" in index
    assert "\nchange_requests: 1\n" in index


def test_the_cr_page_is_a_projection(store: Store, tmp_path: Path) -> None:
    first = _engine_cr(store)
    store.desk.rule(first.case_id, "convert_to_cr")
    projector = WikiProjector(store.repo, store.settings)
    assert _tree(store.wiki) == projector.render("demo")  # the hook wrote what a render gives
    assert projector.verify("demo") == []

    # a ruling made by another process (no hook): the next catch-up writes its CR page
    other_settings = Settings(db_url=store.url, wiki_dir=None, reviewer=REVIEWER)
    other = Desk(other_settings, CaseFileRepository(store.url, clock=frozen_clock))
    try:
        pending = [
            c for c in store.repo.cases("demo", status="pending") if c.case_id != first.case_id
        ]
        second = pending[0]
        other.rule(second.case_id, "convert_to_cr", reason="Billed separately, agreed by phone.")
    finally:
        other.close()
    second = store.repo.case(second.case_id)
    assert not (store.wiki / _cr_page_path(second)).exists()
    report, error = store.desk.catch_up_wiki("demo")
    assert error is None, error
    page = (store.wiki / _cr_page_path(second)).read_text(encoding="utf-8")
    assert md_block("Billed separately, agreed by phone.") in page
    if second.decision.verdict != "CHANGE_REQUEST":  # an override says so
        assert f"overrides the engine's verdict **{second.decision.verdict}**" in page
    assert _tree(store.wiki) == projector.render("demo")

    # deleted and rebuilt: bit-identical
    before = _tree(store.wiki)
    shutil.rmtree(store.wiki)
    store.desk.wiki_rebuild("demo")
    assert _tree(store.wiki) == before
    assert projector.verify("demo") == []
    # a hand edit is drift
    (store.wiki / _cr_page_path(second)).write_text("edited\n", encoding="utf-8")
    assert projector.verify("demo") == [_cr_page_path(second)]
    store.desk.wiki_rebuild("demo")
    assert projector.verify("demo") == []


def test_a_ruling_that_stops_being_cr_loses_its_page(store: Store) -> None:
    """The page follows the current ruling only, whoever changed it: here another
    writer changes the stored ruling row in place (a new ruling, a new case version, an
    audit row; the desk's amendment is the next test), and the incremental projection
    of a projector that did not make the change removes the page without a rebuild."""
    case = _engine_cr(store)
    store.desk.rule(case.case_id, "convert_to_cr")
    rel = _cr_page_path(store.repo.case(case.case_id))
    assert (store.wiki / rel).is_file()
    projector = WikiProjector(store.repo, store.settings)
    projector.catch_up("demo")  # a projector that already holds the CR case
    with store.repo.engine.begin() as conn:
        conn.execute(
            text(
                "UPDATE rulings SET ruling = 'REJECT', action = 'reject', "
                "version = version + 1 WHERE case_id = :c"
            ),
            {"c": case.case_id},
        )
        conn.execute(
            text("UPDATE cases SET version = version + 1 WHERE id = :c"), {"c": case.case_id}
        )
        conn.execute(
            text(
                "INSERT INTO audit_log (case_id, reviewer, action, ruling, reason, at, version, "
                "outcome, before, after) VALUES (:c, :r, 'reject', 'REJECT', 'amended', "
                "'2026-11-30T12:00:00Z', 3, 'committed', 'CHANGE_REQUEST', 'REJECT')"
            ),
            {"c": case.case_id, "r": REVIEWER},
        )
    report = projector.catch_up("demo")
    assert rel in report.removed
    assert not (store.wiki / rel).exists()
    assert not (store.wiki / "change-requests").exists()  # left empty: removed too
    assert projector.verify("demo") == []
    decision_page = (store.wiki / decision_path(store.repo.case(case.case_id))).read_text()
    assert "change-requests/" not in decision_page
    assert "change-requests/" not in (store.wiki / "index.md").read_text()
    with pytest.raises(NotAChangeRequestError, match="is ruled REJECT, not CHANGE_REQUEST"):
        store.desk.cr_document(case.case_id, "md")


def test_amendments_move_the_cr_page_with_the_current_ruling(store: Store) -> None:
    """Through the real amendment: CR amended to IN_SCOPE loses its page at once (the
    desk's hook), amended back to CR gets it again, named by the new ruling's date and
    holding the new reason; the wiki equals a fresh render after each step, also for a
    fresh projector catching up."""
    case = _engine_cr(store)
    desk = store.desk
    desk.rule(case.case_id, "convert_to_cr")
    first = _cr_page_path(store.repo.case(case.case_id))
    assert (store.wiki / first).is_file()
    desk.rule(case.case_id, "approve", reason="On second reading 4.2 covers it.", amend=True)
    assert not (store.wiki / first).exists()
    assert not list((store.wiki).glob("change-requests/*.md"))
    projector = WikiProjector(store.repo, store.settings)
    assert _tree(store.wiki) == projector.render("demo")
    desk.rule(case.case_id, "convert_to_cr", reason="The client wants more than 4.2.", amend=True)
    now = store.repo.case(case.case_id)
    assert now.ruling is not None and now.ruling.ruling == "CHANGE_REQUEST"
    page = (store.wiki / _cr_page_path(now)).read_text(encoding="utf-8")
    assert md_block("The client wants more than 4.2.") in page
    assert f"- **Converted to CR** by {REVIEWER}, {now.ruling.ruled_at}\n" in page
    assert _tree(store.wiki) == projector.render("demo")
    assert projector.catch_up("demo").removed == ()
    assert projector.verify("demo") == []


def test_erasing_the_case_removes_its_cr_page(store: Store) -> None:
    case = _engine_cr(store)
    store.desk.rule(case.case_id, "convert_to_cr")
    rel = _cr_page_path(store.repo.case(case.case_id))
    assert (store.wiki / rel).is_file()
    outcome = store.desk.erase(case.case_id, "KVKK başvurusu 2026/18", wait_s=5)
    assert not (store.wiki / rel).exists()
    assert not any(store.wiki.rglob(f"*{case.case_id}*"))
    assert case.case_id.encode() not in (store.wiki / "index.md").read_bytes()
    wiki_places = [p for p in outcome.places if p.what.startswith("wiki")]
    assert wiki_places and not [p for p in wiki_places if p.held], wiki_places
    assert WikiProjector(store.repo, store.settings).verify("demo") == []


def test_export_md_and_html(store: Store, tmp_path: Path) -> None:
    desk = store.desk
    added = desk.add_request(
        "demo", "Please add a chatbot to the portal start page.", title=HOSTILE_TITLE
    )
    reason = "A new capability <b>billed</b> separately; see [the offer](javascript:alert(3))."
    desk.rule(added.case_id, "convert_to_cr", reason=reason)
    case = desk.case(added.case_id)
    rel = _cr_page_path(case)
    page = (store.wiki / rel).read_text(encoding="utf-8")

    assert md_block(reason) in page
    assumptions = page.split("## Assumptions", 1)[1].split("## Provenance", 1)[0]
    if case.ruling is not None and case.ruling.is_override:
        # the engine's assumptions belong to the verdict overridden: kept for the record,
        # and the defaults are what this change request assumes
        assert f"engine's verdict {case.decision.verdict}, which this ruling overrides" in page
        assert "For this change request the engine's defaults apply:" in assumptions
        assert "The request text is complete as sent" in assumptions
        assert "the engine read the contract otherwise" in page
    for a in case.decision.assumptions:
        assert md_inline(a) in assumptions

    # the export is the client-facing document (issue 35 item 1), not the wiki page:
    # the reviewer's reason escaped, none of the engine's deliberation
    name, md = desk.cr_document(case.case_id, "md")
    # named by the client's short number (issue 35 leftovers), not the wiki page's name
    short = cr_number(desk.case(case.case_id))
    assert name == f"{short}.md" and rel.startswith(f"change-requests/{short[:11]}-")
    text = md.decode("utf-8")
    assert "](../" not in text and "\\<script>" in text  # escaped in the title line
    assert "> A new capability \\<b>billed\\</b> separately" in text
    assert "already asks" not in text and "engine" not in text.lower()

    name, html = desk.cr_document(case.case_id, "html")
    assert name == f"{short}.html"
    doc = html.decode("utf-8")
    assert doc.startswith("<!DOCTYPE html>\n") and doc.endswith("</html>\n")
    assert "<script" not in doc.lower()
    assert "<b>" not in doc and "&lt;b&gt;billed&lt;/b&gt;" in doc
    assert "href=" not in doc and "javascript:" in doc  # shown as text, never a link
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in doc
    assert "<title>" in doc and "<style>" in doc and "Content-Security-Policy" in doc
    assert "http://" not in doc and "https://" not in doc  # nothing loaded from outside
    assert "classify" not in doc  # the engine's deciding lines stay out
    _, internal = desk.cr_document(case.case_id, "html", internal=True)
    for e in case.decision.evidence:
        if e.step == "classify":
            assert "classify" in internal.decode("utf-8")


def test_cr_export_command(store: Store, tmp_path: Path) -> None:
    if store.backend != "sqlite":
        pytest.skip("the command is the desk's; its backends are covered above")
    case = _engine_cr(store)
    store.desk.rule(case.case_id, "convert_to_cr")
    env = {
        **os.environ,
        "ETKI_DB_URL": store.url,
        "ETKI_WIKI_DIR": str(store.wiki.parent / "wiki-{project}"),
        "ETKI_REVIEWER": REVIEWER,
    }
    name, md = store.desk.cr_document(case.case_id, "md")
    _, html = store.desk.cr_document(case.case_id, "html")
    out = tmp_path / "out"
    out.mkdir()
    done = run_etki(["cr", "export", case.case_id], env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == md.decode("utf-8")
    done = run_etki(
        ["cr", "export", case.case_id, "--format", "html", "--output", str(out)],
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    written = out / name.replace(".md", ".html")
    assert written.read_bytes() == html
    assert str(written) in done.stderr
    target = tmp_path / "cr.md"
    done = run_etki(["cr", "export", case.case_id, "--output", str(target)], env=env, cwd=tmp_path)
    assert done.returncode == 0 and target.read_bytes() == md

    # a pending case and an approved one have none: exit 2, one line saying why
    pending = next(
        c for c in store.repo.cases("demo", status="pending") if c.case_id != case.case_id
    )
    done = run_etki(["cr", "export", pending.case_id], env=env, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert f"case {pending.case_id} is pending, not CHANGE_REQUEST" in done.stderr
    store.desk.rule(pending.case_id, "approve", reason="Covered by the contract.")
    done = run_etki(["cr", "export", pending.case_id, "--format", "html"], env=env, cwd=tmp_path)
    assert done.returncode == 2
    assert f"case {pending.case_id} is ruled IN_SCOPE, not CHANGE_REQUEST" in done.stderr
    done = run_etki(["cr", "export", "req-demo-nothere"], env=env, cwd=tmp_path)
    assert done.returncode == 2 and "no case 'req-demo-nothere'" in done.stderr
    # the wiki shows its own (internal) page by the CR id too
    page = cr_id(store.desk.case(case.case_id))  # the internal id: the page's own name
    done = run_etki(["wiki", "show", page], env=env, cwd=tmp_path)
    assert done.returncode == 0 and "# Change request: " in done.stdout


def test_an_estimate_without_effort_says_so(store: Store) -> None:
    """A CR whose decision has no effort range says it is unknown, and shows no work
    items; the decision's own assumptions are stated."""
    try:
        case = _engine_cr(store, effort=False)
    except AssertionError:
        pending = store.repo.cases("demo", status="pending")
        case = next(c for c in pending if not c.decision.effort.known)
        store.desk.rule(case.case_id, "convert_to_cr", reason="A new capability.")
    else:
        store.desk.rule(case.case_id, "convert_to_cr")
    case = store.repo.case(case.case_id)
    page = (store.wiki / _cr_page_path(case)).read_text(encoding="utf-8")
    effort = page.split("## Effort", 1)[1].split("## Risk", 1)[0]
    if case.decision.effort.known:
        assert f"{case.decision.effort.low:g}–" in effort
    else:
        assert "**Unknown**: no comparable past work item records effort" in effort
    assumptions = page.split("## Assumptions", 1)[1].split("## Provenance", 1)[0]
    for a in case.decision.assumptions:
        assert md_inline(a) in assumptions


# --- the desk: D opens the document in the reader ----------------------------------------


@sync
async def test_d_opens_the_cr_document_in_the_reader(tui_world: TuiWorld) -> None:
    """On a pending case D opens nothing and says why; once the highlighted case is
    converted to CR (here by another reviewer: the row stays, with its banner) the
    detail pane names its change-request page and D shows that page in Hafıza's
    reader."""
    seen = Recorder()
    app = make_app(tui_world)
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await settle(pilot)
        case_id = current(app)
        assert case_id is not None
        await press(pilot, "D")
        assert app.query_one("#tabs").active == "queue"
        assert any(f"{case_id} is pending" in n for n in seen.notes())
        approval_service(tui_world.repo, tui_world.settings).rule(
            case_id, "convert_to_cr", reason="A new capability, billed separately.", reviewer="ayse"
        )
        app.poll_queue()
        await settle(pilot)
        assert case_id in app.query_one(QueuePane).ruled_elsewhere
        record = tui_world.repo.case(case_id)
        rel = _cr_page_path(record)
        body = app.query_one(CaseDetail).query_one("#detail-body")
        await until(
            pilot,
            lambda: "D opens it" in " ".join(shown(body).split()),
            "the detail pane's change-request line",
        )
        detail = "".join(shown(body).split())  # the page name may wrap: compare unspaced
        assert "Changerequest" + rel + "·Dopensitinthereader" in detail
        await press(pilot, "D")
        reader = app.query_one(PageReader)
        await until(pilot, lambda: reader.path == rel, "the reader on the CR page")
        assert app.query_one("#tabs").active == "hafiza"
        assert reader.text == (tui_world.wiki / rel).read_text(encoding="utf-8")
        assert "# Change request: " in reader.text
