"""The client-facing change request (issue 35 item 1) and the desk's estimate form
(item 2).

Real stores (the sample project on SQLite, and PostgreSQL where it answers), real
files and the real CLI: a case the engine proposed IN_SCOPE is converted to CR with
the reviewer's reason, estimated and given terms (``etki cr edit``) in Turkish and
German, some of it typed decomposed (NFD); each format is read back (the .docx with
python-docx) and checked against the stored values: the request text, the reason, the
cited clause's text, the price, the terms, the approval block, and none of the engine's
deliberation (its verdict, BM25 scores, "already asks"). The desk's ``X`` writes the
same document, ``E`` records an estimate through the same service; both driven with
Textual's Pilot, waiting for states only."""

from __future__ import annotations

import html as htmllib
import os
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest
from docx import Document
from docx.table import Table
from docx.text.paragraph import Paragraph
from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, RadioButton, RadioSet, TextArea

from etki.config import Settings
from etki.domain import CaseRecord
from etki.errors import InputError
from etki.mdtext.plain import markdown_plain
from etki.services import Desk, approval_service, init_project
from etki.store import CaseFileRepository
from etki.wiki.clientcr import NO_CLAUSE_CITED
from etki_tui.app import EtkiApp
from etki_tui.hafiza.reader import PageReader
from etki_tui.screens.cr_export import CrExportForm
from etki_tui.screens.estimate import EstimateForm
from etki_tui.screens.export import OverwriteConfirm
from etki_tui.screens.new_request import DiscardTyped
from tests.cli_support import run_etki
from tests.conftest import TuiWorld
from tests.factories import frozen_clock
from tests.test_tui_pilot import (
    Recorder,
    current,
    fill,
    opened,
    press,
    settle,
    settled_app,
    shown,
    sync,
    until,
)

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_project"
REVIEWER = "Ayşe Yılmaz"  # an approver of sample_project/etki.yaml
REASON = (
    "Die Umstellung des İ/ı-Abgleichs auf ICU ist eine neue Anforderung; "
    "Straße & Müller <b>bestätigt</b>."
)
NFD_ASSUMPTION = unicodedata.normalize("NFD", "Prüfung durch Günther Weiß, çalışma günü")
EXCLUSION = "Keine Änderungen am e-Devlet-Anschluss <script>alert(1)</script>"
ENGINE_WORDS = ("bm25", "already asks", "confidence", "classify", "engine", "IN_SCOPE")


def docx_text(data: bytes | Path) -> str:
    """The text of a .docx in reading order, read with python-docx: each paragraph a
    line, each table row ``cell | cell``."""
    import io

    doc = Document(str(data) if isinstance(data, Path) else io.BytesIO(data))
    lines: list[str] = []
    for block in doc.iter_inner_content():
        if isinstance(block, Paragraph):
            lines.append(block.text)
        elif isinstance(block, Table):
            lines += [" | ".join(c.text for c in row.cells) for row in block.rows]
    return "\n".join(lines)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def desk(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Desk]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path}/etki.db"
    else:
        url = request.getfixturevalue("pg_schema").url  # dropped after this fixture
    repo = CaseFileRepository(url, clock=frozen_clock)
    settings = Settings(db_url=url, reviewer=REVIEWER)
    init_project(SAMPLE, repo, settings, related_context=False)
    yield Desk(settings, repo)
    repo.dispose()


def _overridden(desk: Desk) -> CaseRecord:
    """The Turkish SSO case the engine proposes IN_SCOPE, converted to CR with
    :data:`REASON`."""
    case = next(c for c in desk.repo.cases("demo", status="pending") if c.request_id == "DEMO-005")
    assert case.decision.verdict == "IN_SCOPE" and case.decision.cited_clauses
    desk.rule(case.case_id, "convert_to_cr", reason=REASON)
    return desk.case(case.case_id)


def test_the_client_document_in_three_formats(desk: Desk) -> None:
    case = _overridden(desk)
    cid = case.case_id
    # no estimate and no terms yet: said plainly
    _, md = desk.cr_document(cid, "md")
    assert "Not estimated yet: the effort and the price are to be agreed." in md.decode()
    assert "No validity date is set." in md.decode()

    desk.add_estimate(cid, "4,5", "İki geliştirici; Jürgen Weiß prüft.", "86500 TRY")
    terms, _ = desk.set_cr_terms(
        cid,
        assumptions=["Müşteri test ortamını sağlar (İstanbul).", NFD_ASSUMPTION],
        exclusions=[EXCLUSION],
        valid_until="2027-01-31",
        clauses=[case.decision.cited_clauses[0]],  # the PMO cites the SSO clause
    )
    assert terms.assumptions[1] == unicodedata.normalize("NFC", NFD_ASSUMPTION)
    case = desk.case(cid)
    clause = desk.clauses("demo")[case.decision.cited_clauses[0]]
    clause_words = markdown_plain(clause.text).split("\n")[0]
    nfc = unicodedata.normalize("NFC", NFD_ASSUMPTION)

    name, data = desk.cr_document(cid, "docx")
    assert name.endswith(".docx") and data[:2] == b"PK"
    import io

    props = Document(io.BytesIO(data)).core_properties
    assert props.title == f"Change request {name.removesuffix('.docx')}: {case.title}"
    assert (props.author, props.language) == (REVIEWER, "en")
    word = docx_text(data)
    for must in (
        case.text,  # the request as received, literal
        REASON,  # the scope gap in the reviewer's words, literal (no tag taken)
        clause_words,  # the cited clause's text
        "Price | 86,500.00 TRY",  # grouped, two decimals (Babel, PRICE_LOCALE)
        "Effort | 4.5 days (person-days)",
        "Valid until | 2027-01-31",
        nfc,  # composed: ü and ß and ç as one character each
        EXCLUSION,
        "For the client",
        "Signature: ____",
        "Murat Şen (Bilgi İşlem Müdürlüğü)",
    ):
        assert must in word, must
    assert NFD_ASSUMPTION not in word
    for engine in ENGINE_WORDS:
        assert engine.lower() not in word.lower(), engine
    assert "İki geliştirici" not in word  # the estimate's basis is internal

    _, page = desk.cr_document(cid, "html")
    doc = page.decode("utf-8")
    assert doc.startswith("<!DOCTYPE html>\n") and "<script" not in doc.lower()
    assert "<b>" not in doc and htmllib.escape(REASON) in doc
    assert htmllib.escape(case.text) in doc and htmllib.escape(EXCLUSION) in doc
    assert "<dt>Price</dt><dd>86,500.00 TRY</dd>" in doc and nfc in doc
    assert "@page{size:A4" in doc and "http://" not in doc and "https://" not in doc
    for engine in ENGINE_WORDS:
        assert engine.lower() not in doc.lower(), engine

    _, md = desk.cr_document(cid, "md")
    text_md = md.decode("utf-8")
    assert "Straße & Müller \\<b>bestätigt\\</b>." in text_md and nfc in text_md
    assert "- **Price:** 86,500.00 TRY" in text_md
    for engine in ENGINE_WORDS:
        assert engine.lower() not in text_md.lower(), engine

    # the internal appendix only when asked for: the engine's verdict and lines
    _, internal = desk.cr_document(cid, "docx", internal=True)
    inside = docx_text(internal)
    assert "Internal appendix (not for the client)" in inside
    assert "Engine verdict | IN_SCOPE" in inside and "İki geliştirici" in inside


def test_terms_are_audited_in_the_history_and_validated(desk: Desk) -> None:
    case = _overridden(desk)
    cid = case.case_id
    desk.set_cr_terms(cid, assumptions=["A"], valid_until="2027-01-31")
    done, _ = desk.set_cr_terms(cid, exclusions=["B"])  # the rest stays
    assert (done.assumptions, done.exclusions, done.valid_until) == (("A",), ("B",), "2027-01-31")
    done, _ = desk.set_cr_terms(cid, assumptions=[], valid_until="")
    assert (done.assumptions, done.valid_until) == ((), None)
    history = desk.repo.case_history(cid)
    terms = [e for e in history if e.kind == "cr_terms"]
    assert [e.text for e in terms] == [
        "1 assumption, 0 exclusions, valid until 2027-01-31",
        "1 assumption, 1 exclusion, valid until 2027-01-31",
        "0 assumptions, 1 exclusion, no validity date",
    ]
    assert all(e.actor == REVIEWER for e in terms)
    for bad, field in (
        ({"valid_until": "31.01.2027"}, "valid-until"),
        ({"assumptions": ["  "]}, "assumption"),
        ({"exclusions": ["x" * 601]}, "exclusion"),
        ({}, "nothing to change"),
    ):
        with pytest.raises(InputError, match=field):
            desk.set_cr_terms(cid, **bad)  # type: ignore[arg-type]


def test_the_pmo_chooses_the_clauses_the_document_cites(desk: Desk) -> None:
    # a trial: the CR of a converted in-scope case cited the warranty clause 6.1
    # ("Defects ... are corrected under warranty"), the engine's evidence that the work
    # is free; the PMO chooses what the client reads
    case = _overridden(desk)
    cid = case.case_id
    assert case.decision.cited_clauses == ("MSA-2024-01#3.2", "MSA-2024-01#6.1", "ANNEX-A#10.2")
    warranty = "corrected under warranty"
    assert warranty not in desk.cr_document(cid, "md")[1].decode()  # none cited by default

    done, _ = desk.set_cr_terms(cid, clauses=["3.2", "ANNEX-A#10.2", "MSA-2024-01#3.2"])
    assert done.clauses == ("MSA-2024-01#3.2", "ANNEX-A#10.2")  # a bare number resolved, once
    text = docx_text(desk.cr_document(cid, "docx")[1])
    sso = markdown_plain(desk.clauses("demo")["MSA-2024-01#3.2"].text).split("\n")[0]
    assert sso in text and warranty not in text
    assert [e.text for e in desk.repo.case_history(cid) if e.kind == "cr_terms"] == [
        "0 assumptions, 0 exclusions, no validity date, cites 2 clauses chosen"
    ]
    desk.set_cr_terms(cid, valid_until="2099-01-31")  # the choice stays
    assert desk.case(cid).cr_terms.clauses == ("MSA-2024-01#3.2", "ANNEX-A#10.2")  # type: ignore[union-attr]
    for bad, said in (
        (["9.99"], "the contract has no clause '9.99'"),
        (["3.21"], r"no clause '3.21'; did you mean 3.2"),  # a bare number: numbers offered
        (["MSA-2024-01#3.21"], "did you mean"),
    ):
        with pytest.raises(InputError, match=said):
            desk.set_cr_terms(cid, clauses=bad)
    done, _ = desk.set_cr_terms(cid, clauses=[])  # back to the default: none of the engine's
    text = desk.cr_document(cid, "md")[1].decode()
    assert done.clauses is None and warranty not in text and NO_CLAUSE_CITED in text


def _clause_text(desk: Desk, ref: str) -> str:
    """The first line of the clause ``ref`` as the client document quotes it."""
    return markdown_plain(desk.clauses("demo")[ref].text).split("\n")[0]


def _three_formats(desk: Desk, case_id: str) -> dict[str, str]:
    """The client document of ``case_id`` as text in each format: the Markdown, the
    HTML unescaped, the .docx read with python-docx."""
    return {
        "md": desk.cr_document(case_id, "md")[1].decode("utf-8"),
        "html": htmllib.unescape(desk.cr_document(case_id, "html")[1].decode("utf-8")),
        "docx": docx_text(desk.cr_document(case_id, "docx")[1]),
    }


def test_an_overridden_in_scope_cr_cites_no_engine_clause_by_default(desk: Desk) -> None:
    """A trial (issue 35): converting an IN_SCOPE proposal to CR sent the client the
    clauses the engine read as covering the work (the warranty clause 6.1 among them):
    the vendor's own argument that the work is free. By default such a CR now cites no
    engine clause and says so in one plain line, in every format; the clauses the PMO
    chooses are cited. An agreed CR (the engine proposed CR) cites the engine's clauses
    as before."""
    case = _overridden(desk)
    cid = case.case_id
    engine = case.decision.cited_clauses
    assert engine == ("MSA-2024-01#3.2", "MSA-2024-01#6.1", "ANNEX-A#10.2")
    assert case.cr_clauses == () and case.cr_clause_hint().startswith("it cites no clause")
    for fmt, text in _three_formats(desk, cid).items():
        assert NO_CLAUSE_CITED in text, fmt
        assert text.count(NO_CLAUSE_CITED) == 1, fmt
        for ref in engine:
            assert _clause_text(desk, ref) not in text, (fmt, ref)
            assert ref not in text, (fmt, ref)
        for engine_word in ("covering", "engine", "IN_SCOPE", "already asks"):
            assert engine_word not in text, (fmt, engine_word)

    # the PMO cites one of the engine's clauses: that one alone, no "cites no clause"
    desk.set_cr_terms(cid, clauses=["ANNEX-A#10.2"])
    assert desk.case(cid).cr_clause_hint() == ""
    for fmt, text in _three_formats(desk, cid).items():
        assert _clause_text(desk, "ANNEX-A#10.2") in text, fmt
        assert _clause_text(desk, "MSA-2024-01#6.1") not in text, fmt
        assert NO_CLAUSE_CITED not in text, fmt

    # agreed: the engine proposed CR and the reviewer agreed; its clauses are cited
    agreed = next(
        c for c in desk.repo.cases("demo", status="pending") if c.request_id == "DEMO-020"
    )
    assert agreed.decision.verdict == "CHANGE_REQUEST"
    desk.rule(agreed.case_id, "convert_to_cr")
    ruled = desk.case(agreed.case_id)
    assert not ruled.ruling.is_override  # type: ignore[union-attr]
    assert ruled.cr_clauses == agreed.decision.cited_clauses and ruled.cr_clause_hint() == ""
    assert not [g for g in ruled.cr_gaps() if "clause" in g]
    for fmt, text in _three_formats(desk, agreed.case_id).items():
        assert NO_CLAUSE_CITED not in text, fmt
        for ref in agreed.decision.cited_clauses:
            assert _clause_text(desk, ref) in text, (fmt, ref)


def test_cr_edit_and_export_commands(desk: Desk, tmp_path: Path) -> None:
    if desk.settings.db_url.startswith("postgresql"):
        pytest.skip("the commands are the desk's; its backends are covered above")
    case = _overridden(desk)
    env = {**os.environ, "ETKI_DB_URL": desk.settings.db_url, "ETKI_REVIEWER": REVIEWER}
    done = run_etki(["cr", "export", case.case_id, "--format", "docx"], env=env, cwd=tmp_path)
    assert done.returncode == 2 and "give --output" in done.stderr
    done = run_etki(
        ["cr", "edit", case.case_id, "--assumption", NFD_ASSUMPTION, "--valid-until", "2099-02-28"],
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "valid until: 2099-02-28" in done.stdout
    done = run_etki(
        ["cr", "edit", case.case_id, "--valid-until", "2027-13-01"], env=env, cwd=tmp_path
    )
    assert done.returncode == 2 and "'valid-until'" in done.stderr
    done = run_etki(
        ["cr", "edit", case.case_id, "--exclusion", "x", "--clear-exclusions"],
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 2 and "--exclusion and --clear-exclusions together" in done.stderr
    out = tmp_path / "out" / "cr.docx"
    done = run_etki(
        ["cr", "export", case.case_id, "--format", "docx", "--output", str(out)],
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "warning:" in done.stderr and "no effort estimate" in done.stderr
    assert "cites the clauses the engine read" not in done.stderr  # it cites none of them
    assert (
        f"hint: {case.case_id}: it cites no clause: the engine read "
        "MSA-2024-01#3.2, MSA-2024-01#6.1, ANNEX-A#10.2 as covering the work; to cite one: "
        f"etki cr edit {case.case_id} --clause REF"
    ) in done.stderr
    word = docx_text(out)
    assert unicodedata.normalize("NFC", NFD_ASSUMPTION) in word
    assert "Valid until | 2099-02-28" in word and REASON in word
    assert not [p for p in out.parent.iterdir() if p.name != "cr.docx"]  # no temp left
    done = run_etki(["cr", "edit", case.case_id, "--clause", "3.2"], env=env, cwd=tmp_path)
    assert done.returncode == 0 and "clauses cited: MSA-2024-01#3.2" in done.stdout
    done = run_etki(["cr", "export", case.case_id, "--output", "-"], env=env, cwd=tmp_path)
    assert done.returncode == 0 and "cites the clauses" not in done.stderr
    assert "hint:" not in done.stderr  # a clause chosen: nothing to hint
    assert "corrected under warranty" not in done.stdout
    done = run_etki(["cr", "edit", case.case_id, "--default-clauses"], env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (
        "clauses cited: none (the default: the engine read its clauses as covering the "
        "work; cite one with --clause REF)"
    ) in done.stdout


# --- the desk -----------------------------------------------------------------------------


async def _convert(pilot: Pilot, app: EtkiApp, world: TuiWorld, case_id: str) -> None:
    """Another approver (``ayse``) rules ``case_id`` CR with :data:`REASON` through the
    service, and the desk has read it (a poll, then settled)."""
    approval_service(world.repo, world.settings).rule(
        case_id, "convert_to_cr", reason=REASON, reviewer="ayse"
    )
    app.poll_queue()
    await settle(pilot)


async def _convert_highlighted(pilot: Pilot, app: EtkiApp, world: TuiWorld) -> str:
    """The case the settled desk's queue highlights (:func:`settled_app`), ruled CR as
    :func:`_convert` does; its id."""
    case_id = current(app)
    assert case_id is not None
    await _convert(pilot, app, world, case_id)
    return case_id


@sync
async def test_x_writes_the_change_request_and_e_records_an_estimate(
    tui_world: TuiWorld, tmp_path: Path
) -> None:
    """E on the highlighted case opens the form; a bad figure is named and the form
    stays; a good one is recorded as etki estimate records it (audited, in the
    history). X on a pending case writes nothing and says why; once the case is ruled
    CR, X asks for a path (a .docx by default) and writes the same document as
    ``etki cr export``, also from Hafıza's reader on its decision page."""
    seen = Recorder()
    async with settled_app(tui_world, (120, 40), message_hook=seen) as (app, pilot):
        case_id = current(app)
        assert case_id is not None
        form = await opened(pilot, "E", EstimateForm)
        await fill(pilot, "#estimate-days", "zwei")
        await fill(pilot, "#estimate-reason", "İki geliştirici, Jürgen Weiß")
        await press(pilot, "enter")
        assert app.screen is form  # refused, still open
        assert "field 'days'" in str(form.query_one("#estimate-error").render())
        await fill(pilot, "#estimate-days", "2,5")
        await fill(pilot, "#estimate-price", "12500 EUR")
        await fill(pilot, "#estimate-reason", "İki geliştirici, Jürgen Weiß")
        await press(pilot, "enter")
        await until(pilot, lambda: tui_world.repo.case(case_id).estimate is not None, "stored")
        est = tui_world.repo.case(case_id).estimate
        assert est is not None
        assert (est.days, est.price, est.currency, est.reason) == (
            "2.5",
            "12500",
            "EUR",
            "İki geliştirici, Jürgen Weiß",
        )
        assert any(e.kind == "estimate" for e in tui_world.repo.case_history(case_id))
        toast = f"Estimate of {case_id} recorded (2.5 days, 12,500.00 EUR: İki geliştirici, Jürgen Weiß)"
        await until(pilot, lambda: any(toast in n for n in seen.notes()), "the toast")

        await press(pilot, "X")
        assert not isinstance(app.screen, CrExportForm)
        assert any(f"{case_id} is pending" in n for n in seen.notes())
        await _convert(pilot, app, tui_world, case_id)
        await press(pilot, "X")
        export = app.screen
        assert isinstance(export, CrExportForm) and export.default.endswith(".docx")
        assert export.chosen_format() == ("docx", ".docx")
        target = tmp_path / "sent" / "cr.docx"
        await fill(pilot, "#crx-path", str(target.with_suffix(".pdf")))
        await press(pilot, "enter")
        assert app.screen is export  # a .pdf is refused by the form
        assert ".docx, .html or .md" in str(export.query_one("#crx-error").render())
        await fill(pilot, "#crx-path", str(target))
        await press(pilot, "enter")
        await until(pilot, target.exists, "the change request written")
        _, expected = tui_world.desk.cr_document(case_id, "docx")
        assert docx_text(target) == docx_text(expected)
        word = docx_text(target)
        assert REASON in word and "Price | 12,500.00 EUR" in word and "bm25" not in word.lower()
        # the terms left as they were: nothing recorded
        assert not any(e.kind == "cr_terms" for e in tui_world.repo.case_history(case_id))

        # a second X to the same path asks before replacing it (as every export); Esc keeps it
        target.write_bytes(b"kept")
        await press(pilot, "X")
        await fill(pilot, "#crx-path", str(target))
        await press(pilot, "enter")
        await until(pilot, lambda: isinstance(app.screen, OverwriteConfirm), "the question")
        await press(pilot, "escape")
        await until(pilot, lambda: not isinstance(app.screen, OverwriteConfirm), "kept")
        assert target.read_bytes() == b"kept"

        # from Hafıza: the reader on the decision page, X writes its change request
        await press(pilot, "D")
        reader = app.query_one(PageReader)
        await until(pilot, lambda: reader.path is not None, "the reader")
        export = await opened(pilot, "X", CrExportForm)
        html_target = tmp_path / "sent" / "cr.html"
        await fill(pilot, "#crx-path", str(html_target))
        await press(pilot, "enter")  # .html while Word is chosen: said, nothing written
        assert app.screen is export
        assert "ends .html but Word is chosen" in str(export.query_one("#crx-error").render())
        export.query_one("#crx-format", RadioSet).query(RadioButton)[1].value = True  # HTML
        await settle(pilot)
        assert export.chosen_format() == ("html", ".html")
        await fill(pilot, "#crx-path", str(html_target))
        await press(pilot, "enter")
        await until(pilot, html_target.exists, "the html written")
        assert "<script" not in html_target.read_text(encoding="utf-8").lower()


@sync
async def test_x_asks_for_the_terms_format_and_appendix_before_writing(
    tui_world: TuiWorld, tmp_path: Path
) -> None:
    """At 80x24: X on a case ruled CR opens the form with the terms in force; the terms
    typed (Turkish and German, an assumption typed decomposed, a blank line between)
    are checked as etki cr edit checks them (a validity date before the desk's day is
    refused on the form, nothing recorded), then recorded through the same service
    (in the case's history) and the Markdown document with the internal appendix is
    the one etki cr export --internal writes. Esc with the terms edited asks first."""
    seen = Recorder()
    async with settled_app(tui_world, (80, 24), message_hook=seen) as (app, pilot):
        case_id = await _convert_highlighted(pilot, app, tui_world)
        await press(pilot, "X")
        form = app.screen
        assert isinstance(form, CrExportForm) and form.terms.assumptions == ()
        form.query_one("#crx-assumptions", TextArea).text = f"{NFD_ASSUMPTION}\n\n  Zwei  Termine "
        form.query_one("#crx-exclusions", TextArea).text = EXCLUSION
        form.query_one("#crx-format", RadioSet).query(RadioButton)[2].value = True  # Markdown
        await settle(pilot)
        assert form.query_one("#crx-path", Input).value.endswith(".md")  # the ending follows
        await fill(pilot, "#crx-valid", "2020-01-31")
        await press(pilot, "enter")
        assert app.screen is form
        assert "in the past" in str(form.query_one("#crx-error").render())
        assert tui_world.repo.case(case_id).cr_terms is None  # nothing recorded
        await fill(pilot, "#crx-valid", "2099-12-31")
        form.query_one("#crx-internal", Checkbox).value = True
        target = tmp_path / "out" / "teklif.md"
        await fill(pilot, "#crx-path", str(target))
        await press(pilot, "enter")
        await until(pilot, target.exists, "the document written")
        terms = tui_world.repo.case(case_id).cr_terms
        assert terms is not None
        assert terms.assumptions == (unicodedata.normalize("NFC", NFD_ASSUMPTION), "Zwei Termine")
        assert (terms.exclusions, terms.valid_until) == ((EXCLUSION,), "2099-12-31")
        assert [e.kind for e in tui_world.repo.case_history(case_id)].count("cr_terms") == 1
        _, expected = tui_world.desk.cr_document(case_id, "md", internal=True)
        assert target.read_bytes() == expected
        assert b"Internal appendix (not for the client)" in expected
        toast = "terms recorded (2 assumptions, 1 exclusion, valid until 2099-12-31)"
        await until(pilot, lambda: any(toast in n for n in seen.notes()), "the toast")

        # the terms in force fill the form next time; edited, Esc asks before losing them
        await press(pilot, "X")
        again = app.screen
        assert isinstance(again, CrExportForm) and again.terms == terms
        assert not again.edited()
        again.query_one("#crx-exclusions", TextArea).text = "Keine Schulung"
        await press(pilot, "escape")
        assert isinstance(app.screen, DiscardTyped)
        await press(pilot, "d")
        await until(pilot, lambda: not isinstance(app.screen, CrExportForm), "closed")
        assert tui_world.repo.case(case_id).cr_terms == terms  # nothing recorded


def test_terms_refuse_a_past_validity_date_and_warn_off_a_cr(desk: Desk, tmp_path: Path) -> None:
    """A trial set --valid-until in the past and wrote terms on an approved case without
    a word: a date before the store's day is refused (naming today), terms on a case
    that is not a change request are written with a warning naming its state."""
    case = _overridden(desk)
    cid = case.case_id  # the store's clock: frozen_clock, 2026-11-29
    with pytest.raises(InputError, match=r"'valid-until' is 2026-11-28: in the past \(today is"):
        desk.set_cr_terms(cid, valid_until="2026-11-28")
    assert desk.case(cid).cr_terms is None  # nothing written
    done, _ = desk.set_cr_terms(cid, valid_until="2026-11-29")  # today is still valid
    assert done.valid_until == "2026-11-29"
    if desk.settings.db_url.startswith("postgresql"):
        return  # the command's words are the desk's: SQLite covers them
    env = {**os.environ, "ETKI_DB_URL": desk.settings.db_url, "ETKI_REVIEWER": REVIEWER}
    approved = next(c for c in desk.repo.cases("demo", status="pending"))
    desk.rule(approved.case_id, "approve", reason="in the contract")
    edit = run_etki(["cr", "edit", approved.case_id, "--assumption", "Ä"], env=env, cwd=tmp_path)
    assert edit.returncode == 0, edit.stderr
    assert (
        f"warning: {approved.case_id} is not a change request (it is ruled IN_SCOPE): the terms "
        "are kept and go into its document only once it is ruled CR (etki rule "
        f"{approved.case_id} cr --amend --reason ...)"
    ) in edit.stderr, edit.stderr
    ok = run_etki(["cr", "edit", cid, "--assumption", "Ä"], env=env, cwd=tmp_path)
    assert ok.returncode == 0 and "warning" not in ok.stderr
    past = run_etki(["cr", "edit", cid, "--valid-until", "2001-01-01"], env=env, cwd=tmp_path)
    assert past.returncode == 2 and "'valid-until' is 2001-01-01: in the past" in past.stderr


def test_a_long_title_goes_into_the_docx_properties_whole() -> None:
    """python-docx refuses a core property over 255 characters: a request's long title
    is written whole (not cut, no crash), with the author and the language."""
    import io

    from etki.wiki.clientcr import ClientCr
    from etki.wiki.crdocx import client_docx

    title = "Şehir içi ulaşım kartı başvurusu için yeni ekran — Größe der Übersicht " * 5
    cr = ClientCr("CR-20261129-x", title, (), (), author="Jürgen Weiß")
    props = Document(io.BytesIO(client_docx(cr))).core_properties
    assert props.title == f"Change request CR-20261129-x: {title}" and len(props.title) > 255
    assert (props.author, props.language) == ("Jürgen Weiß", "en")


@sync
async def test_e_in_hafiza_estimates_the_case_whose_page_is_shown(tui_world: TuiWorld) -> None:
    """A PMO trial: after ``c`` the case leaves the queue, so E could not estimate the
    change request just converted and X wrote "Not estimated yet". On its page in
    Hafıza's reader (D opens it), E opens the estimate form for that case and records
    the estimate through the same service."""
    seen = Recorder()
    async with settled_app(tui_world, (80, 24), message_hook=seen) as (app, pilot):
        case_id = await _convert_highlighted(pilot, app, tui_world)
        await press(pilot, "D")  # the change request's page, in Hafıza's reader
        reader = app.query_one(PageReader)
        await until(pilot, lambda: reader.path is not None, "the reader")
        await press(pilot, "E")
        form = app.screen
        assert isinstance(form, EstimateForm) and form.case_id == case_id
        await fill(pilot, "#estimate-days", "3")
        await fill(pilot, "#estimate-reason", "Gözden geçirme: Jürgen Weiß")
        await press(pilot, "enter")
        await until(pilot, lambda: tui_world.repo.case(case_id).estimate is not None, "stored")
        est = tui_world.repo.case(case_id).estimate
        assert est is not None and (est.days, est.reason) == ("3", "Gözden geçirme: Jürgen Weiß")
        # a second PMO trial: E again from the page said "No estimate yet." (the form read
        # the estimate in force from the queue's highlighted case alone, and a converted
        # case has left the queue), so an estimate was replaced without the PMO knowing
        await until(pilot, lambda: not isinstance(app.screen, EstimateForm), "form closed")
        await press(pilot, "E")
        again = app.screen
        assert isinstance(again, EstimateForm) and again.case_id == case_id
        said = shown(again.query_one("#estimate-current"))
        assert said.startswith("In force: 3 ") and "Jürgen Weiß" in said, said


@sync
async def test_x_into_a_folder_names_the_file_and_says_what_is_missing(
    tui_world: TuiWorld, tmp_path: Path
) -> None:
    """A PMO trial: X with a folder typed ("real/" refused as "real/.md", "real"
    written as real.docx beside it) and no word of a missing estimate or of the
    engine's in-scope clauses, which etki cr export warned of. A folder now gets the
    document's own name inside it, and the toast says what to check before sending
    (no longer the engine's in-scope clauses: the document does not cite them)."""
    seen = Recorder()
    async with settled_app(tui_world, (120, 40), message_hook=seen) as (app, pilot):
        case_id = await _convert_highlighted(pilot, app, tui_world)
        for typed, folder in (
            (str(tmp_path / "real"), tmp_path / "real"),
            (f"{tmp_path}/new/", None),
        ):
            if folder is not None:
                folder.mkdir()
            form = await opened(pilot, "X", CrExportForm)
            target = (folder or Path(typed)) / (Path(form.default).stem + ".docx")
            await fill(pilot, "#crx-path", typed)
            await press(pilot, "enter")
            await until(pilot, target.exists, f"written into {typed}")
        assert not (tmp_path / "real.docx").exists()
        toast = next(n for n in seen.notes() if "written to" in n)
        assert "Check before sending: no effort estimate" in toast
        # the engine proposed IN_SCOPE: its clauses are not cited, so nothing to warn of
        assert tui_world.repo.case(case_id).decision.verdict == "IN_SCOPE"
        assert "cites the clauses the engine read" not in toast


@pytest.mark.parametrize(
    ("submitted", "shown"),
    [
        ("2024-11-18T07:42:00Z", "2024-11-18"),
        ("2024-11-18T23:30:00-05:00", "2024-11-18"),  # the day as the client wrote it
        ("2024-11-18", "2024-11-18"),
        ("18.11.2024 vormittags", "18.11.2024 vormittags"),  # not ISO: as given
    ],
)
def test_the_request_date_reads_as_a_day_in_every_format(
    desk: Desk, submitted: str, shown: str
) -> None:
    """A PMO trial of issue 35 read "Requested on 2024-11-18T07:42:00Z" in the client
    document: the day a client reads, in .md, .html and .docx alike."""
    from dataclasses import replace

    from etki.wiki.export import client_cr

    case = replace(_overridden(desk), submitted_at=submitted)
    project = desk.project("demo")
    md = client_cr(project, case, "md").decode("utf-8")
    page = client_cr(project, case, "html").decode("utf-8")
    word = docx_text(client_cr(project, case, "docx"))
    assert f"- **Requested on:** {shown}\n" in md, md[:600]
    assert f"<dt>Requested on</dt><dd>{htmllib.escape(shown)}</dd>" in page
    assert f"Requested on | {shown}" in word
    if shown != submitted:
        assert submitted not in md + page + word


def test_the_client_document_has_a_short_cr_number(desk: Desk, tmp_path: Path) -> None:
    """Issue 35 leftovers: the document carried the wiki page's name as its number
    (``CR-yyyymmdd-{title slug}--req-demo-…``). Now it reads ``CR-{yyyymmdd}-{digest}``
    in every format and file name; the long id stays the wiki page's (internal, named
    in the appendix) and both numbers, like the case id, are taken by ``etki cr``."""
    from etki.wiki.paths import cr_id, cr_number

    case = _overridden(desk)
    tail = case.case_id.rsplit("-", 1)[1]
    ruled_on = case.ruling.ruled_at[:10].replace("-", "") if case.ruling else ""
    short, long = cr_number(case), cr_id(case)
    assert short == f"CR-{ruled_on}-{tail}" and len(tail) == 8
    assert long.endswith(f"--{case.case_id}") and len(long) > len(short) + 10
    name, md = desk.cr_document(case.case_id, "md")
    assert name == f"{short}.md"
    text = md.decode("utf-8")
    assert text.startswith(f"# Change request {short}: ") and long not in text
    assert f"- **Change request:** {short}\n" in text
    _, page = desk.cr_document(case.case_id, "html")
    assert f"<title>Change request {short}: " in page.decode() and long not in page.decode()
    name, word = desk.cr_document(case.case_id, "docx")
    assert name == f"{short}.docx" and f"Change request | {short}" in docx_text(word)
    assert long not in docx_text(word)
    _, inside = desk.cr_document(case.case_id, "md", internal=True)
    assert f"- **Internal id:** {long}\n" in inside.decode("utf-8")
    # etki cr takes the case id, the client's number and the wiki page's alike
    env = {**os.environ, "ETKI_DB_URL": desk.settings.db_url, "ETKI_REVIEWER": REVIEWER}
    env["ETKI_WIKI_DIR"] = ""
    for given in (case.case_id, short, long, short.lower()):
        done = run_etki(["cr", "export", given], env=env, cwd=tmp_path)
        assert done.returncode == 0, (given, done.stderr)
        assert done.stdout.encode("utf-8") == md, given
    edited = run_etki(["cr", "edit", short, "--valid-until", "2099-01-31"], env=env, cwd=tmp_path)
    assert edited.returncode == 0, edited.stderr
    assert edited.stdout.startswith(f"{case.case_id}: change-request terms by {REVIEWER}")
    unknown = run_etki(["cr", "export", f"CR-{ruled_on}-0badcafe"], env=env, cwd=tmp_path)
    assert unknown.returncode == 2 and "no case '0badcafe'" in unknown.stderr
