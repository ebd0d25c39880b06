"""A reviewer's effort estimate (issue 35 item 2): ``etki estimate CASE --days N
[--price ...] --reason``, stored as an ``estimate`` case event with an audit row at the
store's time, in the case's history and ``etki show --json``, used by the
change-request document and the effort report, on SQLite and PostgreSQL; the wiki after
an estimate is what a rebuild gives, byte for byte."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from etki.config import Settings
from etki.domain import Effort, ReviewerEstimate, parse_estimate
from etki.errors import InputError, NotFoundError, PermissionDeniedError
from etki.services import Desk
from etki.store import CaseFileRepository
from tests.cli_support import run_etki
from tests.factories import Clock, audit_trail, make_decision, make_project, make_request
from tests.test_store import repo as backend_repo  # noqa: F401  (fixture: SQLite, PostgreSQL)

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_project"
UNKNOWN = Effort(None, None, ())


def _seed(repo: CaseFileRepository) -> None:
    """Two cases: req-demo-1 with the engine's range 1–3, req-demo-2 (a CR proposal)
    whose effort is unknown, as on tdrs and talentmap."""
    repo.save_project(make_project(), "sha256:abc", b"{}\n")
    unknown = replace(make_decision("req-demo-2", "CHANGE_REQUEST"), effort=UNKNOWN)
    repo.add_cases(
        "demo",
        [
            (make_request("R1"), make_decision("req-demo-1")),
            (make_request("R2", "Bitte Exportknopf für Übersichtsseite"), unknown),
        ],
    )


# --- input ------------------------------------------------------------------------------


def test_parse_estimate_reads_days_price_and_currency() -> None:
    got = parse_estimate("2,50", "  Two screens and a report.  ", "12500.00 eur")
    assert got == ReviewerEstimate(
        days="2.5", reason="Two screens and a report.", price="12500", currency="EUR"
    )
    assert parse_estimate("1", "r").days_words() == "1 day"
    assert parse_estimate("3", "r", "900", "try").price_words() == "900 TRY"


def test_the_figures_read_plain_and_grouped() -> None:
    """``etki estimate``'s confirmation (issue 35 trial): the days as typed, never a
    binary float's noise, thousands grouped with a comma whatever the client's
    locale, the price with its currency's decimals."""
    assert parse_estimate("4,50", "r", "86500 TRY").figures() == "4.5 days, 86,500.00 TRY"
    assert parse_estimate("0.1", "r").figures() == "0.1 days"
    assert parse_estimate("1250", "r", "1000000", "JPY").figures() == "1,250 days, 1,000,000 JPY"
    assert parse_estimate("1", "r").figures() == "1 day"


_PLAIN = "write it plainly, digits with no thousands separator and a decimal point or comma"
_TR_DE = "or as Turkish and German write it, a dot between thousands and a comma before decimals"


def test_a_refused_prices_advice_and_example_are_taken() -> None:
    """A PMO trial of issue 35: "86.500 TRY" was told "without a thousands separator
    ... e.g. 12.500,00". Every figure the refusal suggests is one the parser takes."""
    for typed, plain, tr_de in (
        ("86.500", "86500", "86.500,00"),
        ("12,500.50", "12500.50", "12.500,50"),
        ("1,250,000", "1250000", "1.250.000,00"),
    ):
        with pytest.raises(InputError) as refused:
            parse_estimate("2", "r", f"{typed} TRY")
        said = str(refused.value)
        assert f"{_PLAIN}: {plain}" in said and said.endswith(f"{_TR_DE}: {tr_de}")
        assert "without a thousands separator" not in said and "e.g." not in said
        taken = {parse_estimate("2", "r", f"{form} TRY").price for form in (plain, tr_de)}
        assert len(taken) == 1  # both forms taken, as the same amount


@pytest.mark.parametrize(
    ("days", "reason", "price", "currency", "field"),
    [
        ("0", "r", None, None, "'days' is 0: must be positive"),
        ("0.00", "r", None, None, "'days' is 0.00: must be positive"),
        ("-2", "r", None, None, "'days' is -2: must be positive"),
        ("-2,5", "r", None, None, "'days' is -2,5: must be positive"),
        ("three", "r", None, None, "'days' is 'three': not a number"),
        ("1.234", "r", None, None, "'days' is '1.234': not a number"),
        ("2001", "r", None, None, "'days' is 2001: at most 2000"),
        ("nan", "r", None, None, "'days' is 'nan'"),
        ("2", "   ", None, None, "'reason' is empty"),
        ("2", "r", "12500", None, "'currency' is missing"),
        ("2", "r", None, "EUR", "'currency' is given without a price"),
        ("2", "r", "12500", "EURO", "'currency' is 'EURO'"),
        ("2", "r", "12500", "XYZ", "'currency' is 'XYZ': not the ISO 4217 code of a currency"),
        ("2", "r", "12500", "DEM", "'currency' is 'DEM': not the ISO 4217 code"),  # withdrawn
        ("2", "r", "12500 XYZ", None, "'currency' is 'XYZ'"),
        ("2", "r", "0", "EUR", "'price' is 0: must be positive"),
        ("2", "r", "-100", "EUR", "'price' is -100: must be positive"),
        ("2", "r", "abc", "EUR", "'price' is 'abc': not a number"),
        # read two ways (12500 in Turkish and German, 12.5 in English), or English
        # grouping: the plain way to write it and the Turkish/German one, never a guess
        (
            "2",
            "r",
            "12,500.50",
            "USD",
            f"'price' is '12,500.50': {_PLAIN}: 12500.50; {_TR_DE}: 12.500,50",
        ),
        ("2", "r", "12.500", "EUR", f"'price' is '12.500': {_PLAIN}: 12500 "),  # or 12.5?
        ("2", "r", "1.500", "EUR", f"'price' is '1.500': {_PLAIN}: 1500 .*; {_TR_DE}: 1.500,00"),
        ("2", "r", "1,500", "EUR", f"'price' is '1,500': {_PLAIN}: 1500 .*; {_TR_DE}: 1.500,00"),
        ("2", "r", "86 500,00 EUR TRY", None, "'price' is '86 500,00 EUR TRY': write the"),
        ("2", "r", "12500 EUR", "TRY", "'price' is '12500 EUR'"),
    ],
)
def test_parse_estimate_refuses_naming_the_field(days, reason, price, currency, field) -> None:
    pattern = field.replace(".", r"\.").replace(r"\.*", ".*")
    with pytest.raises(InputError, match="estimate: field " + pattern):
        parse_estimate(days, reason, price, currency)


@pytest.mark.parametrize(
    ("price", "currency", "amount"),
    [
        ("86.500,00 TRY", None, "86500"),  # as a PMO trial of issue 35 typed it
        ("86 500,00 TRY", None, "86500"),
        ("86\u00a0500,50", "TRY", "86500.5"),  # a no-break space, as a spreadsheet copies it
        ("12.500,5", "EUR", "12500.5"),
        ("1.250.000", "EUR", "1250000"),  # two groups: no decimal point reads so
        ("1.250.000,75 EUR", None, "1250000.75"),
        ("86 500", "TRY", "86500"),  # a space is never a decimal mark
        ("1.500,00", "EUR", "1500"),
    ],
)
def test_parse_estimate_reads_turkish_and_german_amounts(price, currency, amount) -> None:
    got = parse_estimate("2", "r", price, currency)
    assert (got.price, got.currency) == (amount, currency or price.split()[-1])


@pytest.mark.parametrize("code", ["EUR", "TRY", "USD", "CHF", "GBP", "JPY", "chf"])
def test_parse_estimate_takes_current_iso_4217_codes(code) -> None:
    got = parse_estimate("2", "r", "12500,5", code)
    assert (got.price, got.currency) == ("12500.5", code.upper())
    assert got.to_dict()["price"] == "12500.5"  # money as an exact decimal string


# --- the store, SQLite and PostgreSQL -------------------------------------------------------


def test_estimates_are_stored_audited_and_the_newest_is_in_force(backend_repo) -> None:  # noqa: F811
    repo = backend_repo
    _seed(repo)
    first = repo.add_estimate("req-demo-2", "ayşe", parse_estimate("4", "Zwei Masken, ein Bericht"))
    assert (first.actor, first.days) == ("ayşe", "4")
    assert first.at == repo.case_history("req-demo-2")[-1].at  # the store's time
    second = repo.add_estimate(
        "req-demo-2", "jurgen", parse_estimate("6.5", "İki ekran daha", "12500.50", "EUR")
    )
    case = repo.case("req-demo-2")
    assert case.estimate == second
    assert case.decision.effort == UNKNOWN  # the engine's range stays what it was
    assert [c.estimate for c in repo.cases("demo")] == [None, second]
    assert repo.cases_by_id(["req-demo-2"])[0].estimate == second
    history = [(e.kind, e.actor, e.text) for e in repo.case_history("req-demo-2")]
    assert history[-2:] == [
        ("estimate", "ayşe", "4 days: Zwei Masken, ein Bericht"),
        # the price as everywhere else (a PMO trial read "12500.5 EUR" here)
        ("estimate", "jurgen", "6.5 days, 12,500.50 EUR: İki ekran daha"),
    ]
    assert repo.case_history("req-demo-2")[-1].summary() == "effort estimated by jurgen"
    assert audit_trail(repo, "req-demo-2") == [
        ("ayşe", "estimate", "estimated", "4 days"),
        ("jurgen", "estimate", "estimated", "6.5 days, 12500.5 EUR"),  # as stored
    ]
    with pytest.raises(NotFoundError):
        repo.add_estimate("req-demo-nope", "ayse", parse_estimate("1", "r"))
    with pytest.raises(InputError, match="NUL"):
        repo.add_estimate("req-demo-1", "ayse", parse_estimate("1", "bad\x00"))


# --- the CR document, the report, the wiki ---------------------------------------------------


def test_cr_document_report_and_wiki_use_the_estimate(tmp_path) -> None:
    from etki.wiki.projection import WikiProjector
    from tests.wiki_support import tree_digest

    db_url = f"sqlite:///{tmp_path}/etki.db"
    clock = Clock()
    repo = CaseFileRepository(db_url, clock=clock)
    _seed(repo)
    settings = Settings(db_url=db_url, reviewer="ayse", wiki_dir=str(tmp_path / "wiki-{project}"))
    desk = Desk(settings, repo)
    desk.rule("req-demo-2", "convert_to_cr", reason="New export screen.")
    _, md = desk.cr_document("req-demo-2")
    # the client-facing change request says plainly that nothing is estimated yet
    assert "Not estimated yet: the effort and the price are to be agreed." in md.decode()
    assert desk.report("demo").cr_effort_by_month[0].estimated == 0

    clock.later(minutes=5)
    done, error = desk.add_estimate(
        "req-demo-2", "2,5", "Two *screens* [and] a report", "12500 EUR"
    )
    assert error is None and done.actor == "ayse" and done.at == "2026-11-29T12:05:00Z"
    _, md = desk.cr_document("req-demo-2")
    text = md.decode()
    effort = text.split("## Effort and price\n", 1)[1].split("## ", 1)[0]
    assert effort == (
        "\n- **Effort:** 2.5 days (person-days)\n"
        "- **Price:** 12,500.00 EUR\n"  # grouped, the currency's two decimals
        "- **Estimated by:** ayse on 2026-11-29\n\n"
    )
    assert "Not estimated yet" not in text
    assert "screens" not in text  # the estimate's basis is the PMO's: internal only
    _, internal = desk.cr_document("req-demo-2", "md", internal=True)
    assert "> Two \\*screens\\* \\[and\\] a report" in internal.decode()
    _, html = desk.cr_document("req-demo-2", "html")
    assert "<dt>Price</dt><dd>12,500.00 EUR</dd>" in html.decode()
    [month] = desk.report("demo").cr_effort_by_month
    assert (month.crs, month.estimated, month.low, month.high, month.reviewer) == (
        1,
        1,
        2.5,
        2.5,
        1,
    )
    from etki.reports import report_tables

    [table] = [t for t in report_tables(desk.report("demo")) if t.name == "cr_effort_by_month"]
    assert table.columns[-1] == "reviewer_estimates"
    assert table.rows == (("2026-11", 1, 1, 0, 2.5, 2.5, 1),)

    # the live projection wrote the CR page with it; a rebuild gives the same bytes
    assert desk.approvals.projector is not None
    desk.approvals.projector.flush()
    [page] = (tmp_path / "wiki-demo" / "change-requests").glob("*.md")
    assert "**Effort: 2.5 days**" in page.read_text(encoding="utf-8")
    # the price as the desk and the client document show it (was "12500 EUR")
    assert "**Price:** 12,500.00 EUR\n" in page.read_text(encoding="utf-8")
    # the frontmatter says what the body says: the estimate in force, price and reason
    meta = _frontmatter(page)
    assert {k: v for k, v in meta.items() if "effort" in k or "estimate" in k} == {
        "effort": "2.5 days",
        "engine_effort": "unknown",
        "effort_basis": [],
        "reviewer_estimate_days": "2.5",
        "reviewer_estimate_price": "12500",
        "reviewer_estimate_currency": "EUR",
        "reviewer_estimate_reason": "Two *screens* [and] a report",
        "reviewer_estimate_by": "ayse",
        "reviewer_estimate_at": "2026-11-29T12:05:00Z",
    }

    def fresh(name: str) -> dict[str, str]:
        other = Settings(db_url=db_url, wiki_dir=str(tmp_path / f"{name}-{{project}}"))
        WikiProjector(CaseFileRepository(db_url), other).rebuild("demo")
        return tree_digest(tmp_path / f"{name}-demo")

    assert tree_digest(tmp_path / "wiki-demo") == fresh("a")
    # a newer estimate replaces the figure; the page follows, still a rebuild's bytes
    clock.later(minutes=5)
    desk.add_estimate("req-demo-2", "3", "Client added a filter")
    desk.approvals.projector.flush()
    body = page.read_text(encoding="utf-8")
    assert "**Effort: 3 days** (reviewer's estimate by ayse on 2026-11-29: Client added" in body
    assert "**Price:**" not in body
    meta = _frontmatter(page)
    assert (meta["effort"], meta["reviewer_estimate_reason"]) == ("3 days", "Client added a filter")
    assert "reviewer_estimate_price" not in meta and "reviewer_estimate_currency" not in meta
    assert tree_digest(tmp_path / "wiki-demo") == fresh("b")

    outsider = Desk(Settings(db_url=db_url, reviewer="mallory", wiki_dir=None))
    with pytest.raises(PermissionDeniedError):
        outsider.add_estimate("req-demo-2", "1", "r")
    outsider.close()


def _frontmatter(page: Path) -> dict:
    """The YAML frontmatter of a wiki page, read with PyYAML (as another tool would)."""
    import yaml

    return yaml.safe_load(page.read_text(encoding="utf-8").split("---\n", 2)[1])


# --- the command line ------------------------------------------------------------------------


def _env(tmp: Path, reviewer: str = "reviewer") -> dict[str, str]:
    return {
        **os.environ,
        "ETKI_DB_URL": f"sqlite:///{tmp}/etki.db",
        "ETKI_WIKI_DIR": str(tmp / "wiki-{project}"),
        "ETKI_REVIEWER": reviewer,
    }


def test_etki_estimate_on_the_command_line(tmp_path) -> None:
    env = _env(tmp_path)
    assert run_etki(("init", str(SAMPLE)), env=env, cwd=tmp_path).returncode == 0
    added = run_etki(
        ("add", "--project", "demo", "--json", "Please build a mobile app for field staff"),
        env=env,
        cwd=tmp_path,
    )
    cid = json.loads(added.stdout)["case_id"]
    # a real process, as a PMO runs it
    done = subprocess.run(
        [sys.executable, "-m", "etki.cli", "estimate", cid, "--days", "12.5"]
        + ["--price", "48000", "--currency", "EUR", "--reason", "Üç ekran, iki rapor"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # the figures as people read them: grouped, the currency's two decimals
    assert done.stdout.startswith(f"{cid}: estimate 12.5 days, 48,000.00 EUR by reviewer at ")
    shown = run_etki(("show", cid), env=env, cwd=tmp_path)
    assert "effort estimated by reviewer — 12.5 days, 48,000.00 EUR: Üç ekran, iki rapor" in (
        shown.stdout
    )
    doc = json.loads(run_etki(("show", cid, "--json"), env=env, cwd=tmp_path).stdout)
    est = doc["case"]["reviewer_estimate"]
    assert (est["days"], est["price"], est["currency"], est["reason"], est["by"]) == (
        12.5,
        "48000",  # an exact decimal string: money is never a binary float
        "EUR",
        "Üç ekran, iki rapor",
        "reviewer",
    )
    assert doc["history"][-1]["kind"] == "estimate"
    # a price as Turkish and German write it (a PMO trial of issue 35), dots or spaces
    for typed, shown_price in (
        (["--price", "86.500,00 TRY"], "86,500.00 TRY"),
        (["--price", "86 500,50", "--currency", "try"], "86,500.50 TRY"),
    ):
        done = run_etki(  # the number formats are the point here, not the process
            ("estimate", cid, "--days", "4,5", *typed, "--reason", "İki geliştirici"),
            env=env,
            cwd=tmp_path,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(f"{cid}: estimate 4.5 days, {shown_price} by reviewer")
    doc = json.loads(run_etki(("show", cid, "--json"), env=env, cwd=tmp_path).stdout)
    est = doc["case"]["reviewer_estimate"]
    assert (est["days"], est["price"], est["currency"]) == (4.5, "86500.5", "TRY")

    def refused(*args: str) -> str:
        got = run_etki(("estimate", *args), env=env, cwd=tmp_path)
        assert got.returncode == 2, got.stdout + got.stderr
        return got.stderr

    assert "field 'reason' is empty" in refused(cid, "--days", "2", "--reason", " ")
    assert "field 'days' is 0: must be positive" in refused(cid, "--days", "0", "--reason", "r")
    assert "field 'days' is -1: must be positive" in refused(cid, "--days=-1", "--reason", "r")
    price = ("--days", "2", "--reason", "r", "--price")
    assert "'price' is 0: must be positive" in refused(cid, *price, "0", "--currency", "EUR")
    assert "'price' is -5: must be positive" in refused(cid, *price, "-5", "--currency", "EUR")
    assert "'currency' is 'XYZ'" in refused(cid, *price, "100", "--currency", "XYZ")
    assert "12500.50" in refused(cid, *price, "12,500.50", "--currency", "USD")
    ambiguous = refused(cid, *price, "1.500", "--currency", "TRY")
    assert "1500 (1.5 if a decimal was meant)" in ambiguous and ambiguous.endswith(": 1.500,00\n")
    assert "1500 (1.5 if a decimal was meant)" in refused(cid, *price, "1,500 EUR")
    assert "field 'days' is 'ten'" in refused(cid, "--days", "ten", "--reason", "r")
    assert "--reason" in refused(cid, "--days", "2")  # argparse: required
    assert "req-demo-nope" in refused("req-demo-nope", "--days", "2", "--reason", "r")
    viewer = run_etki(
        ("estimate", cid, "--days", "2", "--reason", "r"),
        env=_env(tmp_path, "mallory"),
        cwd=tmp_path,
    )
    assert viewer.returncode == 2 and "not a reviewer of this project" in viewer.stderr
    erased = run_etki(("erase", cid, "--reason", "KVKK request 7"), env=env, cwd=tmp_path)
    assert erased.returncode == 0, erased.stderr
    assert refused(cid, "--days", "2", "--reason", "r")
    doc = json.loads(run_etki(("show", cid, "--json"), env=env, cwd=tmp_path).stdout)
    assert [e["kind"] for e in doc["history"]] == ["erased"]  # the estimate went with it
    assert "Üç ekran".encode() not in (tmp_path / "etki.db").read_bytes()


def test_the_estimate_in_force_shows_in_the_desks_detail_beside_the_engines(
    backend_repo,  # noqa: F811
) -> None:
    """The trial's desk read "Effort unknown" after a reviewer's estimate: the detail
    pane's Effort line states the estimate in force (days, price, who, when) and keeps
    the engine's range beside it as the "engine estimate"."""
    import io

    from rich.console import Console

    from etki_tui.queue.detail import case_detail

    repo = backend_repo
    _seed(repo)

    def effort_line(case_id: str) -> str:
        console = Console(width=200, file=io.StringIO(), record=True, color_system=None)
        console.print(case_detail(repo.case(case_id), {}, {}))
        return next(x for x in console.export_text().splitlines() if x.startswith("Effort"))

    assert effort_line("req-demo-2").split() == ["Effort", "unknown"]
    done = repo.add_estimate(
        "req-demo-2", "Jürgen Groß", parse_estimate("6.5", "İki ekran", "12500", "EUR")
    )
    line = effort_line("req-demo-2")
    assert (
        f"6.5 days, 12,500.00 EUR (reviewer's estimate by Jürgen Groß at {done.at})"
        " · engine estimate: unknown"
    ) in line, line
    # a case the engine did estimate keeps its range beside the reviewer's figure
    repo.add_estimate("req-demo-1", "ayşe", parse_estimate("2", "[bold]eine[/] Maske"))
    line = effort_line("req-demo-1")
    engine = repo.case("req-demo-1").decision.effort.shown()
    assert "2 days (reviewer's estimate by ayşe at " in line
    assert line.endswith(f" · engine estimate: {engine}"), line


def test_etki_show_states_the_estimate_in_force(tmp_path) -> None:
    """``etki show`` printed "effort unknown" and the engine's "Effort is unknown"
    assumption with a reviewer's estimate recorded: it states the estimate (days,
    price, who, when, reason) with the engine's range as the "engine estimate", and the
    engine's assumption is marked as answered."""
    env = _env(tmp_path, "Ayşe Yılmaz")
    assert (
        run_etki(("init", "--no-preanalysis", str(SAMPLE)), env=env, cwd=tmp_path).returncode == 0
    )
    cid = "req-demo-4e56910a"  # DEMO-008: no comparable work item records effort
    before = run_etki(("show", cid), env=env, cwd=tmp_path).stdout
    assert "effort      unknown\n" in before
    done = run_etki(
        ("estimate", cid, "--days", "3", "--price", "12500.5", "--currency", "TRY")
        + ("--reason", "İki ekran, Straße"),
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    at = json.loads(run_etki(("show", cid, "--json"), env=env, cwd=tmp_path).stdout)["case"][
        "reviewer_estimate"
    ]["at"]
    shown = run_etki(("show", cid), env=env, cwd=tmp_path).stdout
    assert (
        f"effort      3 days, 12,500.50 TRY (reviewer's estimate by Ayşe Yılmaz at {at})\n"
        "            engine estimate: unknown\n"
        "            reason: İki ekran, Straße\n"
    ) in shown, shown
    assert (
        "assumes     Effort is unknown: no comparable past work item records effort. "
        "(the engine's, at triage; the reviewer's estimate above is in force)"
    ) in shown


@pytest.mark.parametrize(
    ("price", "currency", "shown"),
    [
        ("12500", "EUR", "12,500.00 EUR"),
        ("86500.5", "TRY", "86,500.50 TRY"),
        ("1250000", "JPY", "1,250,000 JPY"),  # no minor unit
        ("0.25", "KWD", "0.250 KWD"),  # three decimals
        ("999", "CHF", "999.00 CHF"),
    ],
)
def test_prices_are_shown_grouped_with_the_currencys_minor_units(price, currency, shown) -> None:
    from etki.domain import price_shown

    assert price_shown(price, currency) == shown
    est = parse_estimate("2", "r", price, currency)
    assert est.price_shown() == shown and est.price == price  # stored as given
    assert est.shown() == f"2 days, {shown}: r"
