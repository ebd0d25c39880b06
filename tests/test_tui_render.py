"""Pure parts of the desk: one-line cells cut on grapheme boundaries (B05), client text
made literal and terminal-safe (B01, B03), single-width verdict glyphs, and one
definition per action (bindings with ids)."""

from __future__ import annotations

import unicodedata

import pytest
from rich.cells import cell_len
from rich.text import Text

from etki_tui.actions import ACTIONS, bindings
from etki_tui.queue.detail import clauses_cell
from etki_tui.render import VERDICT_GLYPH, cell, fit, graphemes, verdict_text

WIDE = [
    "👍 Onaylandı",
    "🇹🇷 Türkiye ofisi",
    "👩\u200d💻 Geliştirici talebi",
    "Größe prüfen (e + combining: e\u0301)",
    "東京オフィス SSO",
    "Şirket içi SSO girişi",
]


@pytest.mark.parametrize("text", WIDE)
@pytest.mark.parametrize("width", range(1, 24))
def test_fit_never_splits_a_grapheme(text: str, width: int) -> None:
    cut = fit(text, width)
    assert cell_len(cut) <= width
    body = cut.removesuffix("…")
    clusters = [g for g, _ in graphemes(text)]
    rebuilt = ""
    for cluster in clusters:  # the kept part is a whole-grapheme prefix
        if len(rebuilt) >= len(body):
            break
        rebuilt += cluster
    assert rebuilt == body
    if cell_len(text) <= width:
        assert cut == text


def test_flags_and_zwj_sequences_are_one_grapheme() -> None:
    assert [g for g, _ in graphemes("🇹🇷x")] == ["🇹🇷", "x"]
    assert [g for g, _ in graphemes("👩\u200d💻!")] == ["👩\u200d💻", "!"]
    assert [g for g, _ in graphemes("e\u0301")] == ["e\u0301"]


def test_cells_are_literal_one_line_and_safe() -> None:
    text = "[bold]x[/bold] [@click=app.quit]q[/]\n\x1b[31mred\x1b[0m\x07\u202e"
    shown = cell(text, 200)
    assert isinstance(shown, Text) and not shown.spans
    assert shown.plain.startswith("[bold]x[/bold] [@click=app.quit]q[/]")
    assert "\n" not in shown.plain and "\x1b" not in shown.plain and "\x07" not in shown.plain
    assert "\u202e" not in shown.plain


def test_verdict_glyphs_are_single_width_and_carry_the_word() -> None:
    for verdict, glyph in VERDICT_GLYPH.items():
        assert cell_len(glyph) == 1
        assert unicodedata.east_asian_width(glyph) in {"N", "Na"}  # never ambiguous/wide
        assert verdict_text(verdict).plain == f"{glyph} {verdict}"


def test_clause_cell_shows_a_count_of_what_does_not_fit() -> None:
    refs = ("MSA#4.1", "MSA#4.3", "MSA#10.2")
    assert clauses_cell(refs, 9).plain == "4.1,4.3+1"
    assert clauses_cell(refs, 20).plain == "4.1,4.3,10.2"
    assert clauses_cell((), 9).plain == "—"


def test_every_action_is_defined_once_with_an_id() -> None:
    assert len({a.id for a in ACTIONS.values()}) == len(ACTIONS)
    for binding in bindings(*ACTIONS):
        assert binding.id and binding.tooltip and binding.description
        assert not binding.key.startswith(("ctrl+s", "ctrl+j", "ctrl+h", "ctrl+enter"))
    assert {ACTIONS[i].key for i in ("approve", "convert", "reject")} == {"a", "c", "r"}


# --- search matches mapped back to the original text (item 8) ----------------------------

from datetime import UTC, datetime, timedelta  # noqa: E402
from pathlib import Path  # noqa: E402

from etki.wiki.search import query_tokens  # noqa: E402
from etki_tui.render import around_match, highlight, match_spans  # noqa: E402


@pytest.mark.parametrize(
    ("text", "query", "marked"),
    [
        ("İADE SÜRECİ başladı", "iade sureci", ["İADE", "SÜRECİ"]),
        ("KAYIT ılık Işık", "kayit ilik isik", ["KAYIT", "ılık", "Işık"]),
        ("Die Größe der Straße", "grosse strasse", ["Größe", "Straße"]),
        ("Ödeme sayfası çöküyor", "odeme", ["Ödeme"]),
        ("SSO-Anmeldung für Staff", "sso", ["SSO"]),
        ("e\u0301te\u0301 café", "ete", ["e\u0301te\u0301"]),
    ],
)
def test_matches_map_back_to_the_original_spelling(
    text: str, query: str, marked: list[str]
) -> None:
    import unicodedata

    nfc = unicodedata.normalize("NFC", text)
    spans = match_spans(text, query_tokens(query))
    assert [nfc[a:b] for a, b in spans] == [unicodedata.normalize("NFC", m) for m in marked]


def test_highlight_styles_only_the_matches() -> None:
    shown = highlight(Text("Fatura itirazı: İTİRAZ edildi"), query_tokens("itiraz"))
    styled = [shown.plain[s.start : s.end] for s in shown.spans]
    assert styled == ["itiraz", "İTİRAZ"]  # 'itirazı' matches on its first six letters
    assert all("reverse" in str(s.style) for s in shown.spans)  # not by colour alone


def test_around_match_keeps_the_match_in_a_narrow_cell() -> None:
    snippet = "…" + "x" * 60 + " the contractor accounts need SSO"
    cell_text = around_match(snippet, query_tokens("contractor"), 24)
    assert "contractor" in cell_text.plain and cell_len(cell_text.plain) <= 24
    assert cell_text.plain.startswith("…")


# --- filters and sort (item 6) ---------------------------------------------------------------

from etki.domain import ClauseMemory  # noqa: E402
from etki_tui.queue.filters import QueueFilter, age_label, cycle, is_disputed, order  # noqa: E402
from tests.conftest import PENDING, TUI_FROZEN, tui_clock  # noqa: E402


def _pending_cases():  # noqa: ANN202
    from etki.domain import CaseRecord

    out = []
    for i, (request, decision) in enumerate(PENDING):
        out.append(
            CaseRecord(
                decision.case_id,
                "demo",
                request.id,
                request.title or "",
                request.text,
                request.submitted_by,
                request.submitted_at,
                (TUI_FROZEN - timedelta(days=i)).isoformat(),
                1,
                decision,
            )
        )
    return out


def test_filters_match_and_describe() -> None:
    cases = _pending_cases()
    memory = {"MSA-2024-01#3.2": ClauseMemory("MSA-2024-01#3.2", 1, None, True, ())}
    now = tui_clock()

    def ids(flt: QueueFilter) -> list[str]:
        return [c.case_id[-8:] for c in cases if flt.matches(c, memory, now)]

    assert len(ids(QueueFilter())) == 6 and not QueueFilter().active
    assert ids(QueueFilter(verdict="REJECT")) == ["1b7e9d02"]
    assert ids(QueueFilter(risk="24h")) == ["0a1f3c21"]
    assert ids(QueueFilter(risk="low")) == [
        "1b7e9d02",
        "2c4a8e13",
        "3d5b0f24",
        "4e6c1a35",
        "5f7d2b46",
    ]
    assert ids(QueueFilter(disputed_only=True)) == ["0a1f3c21", "4e6c1a35"]
    assert ids(QueueFilter(band="low")) == ["3d5b0f24"]
    assert ids(QueueFilter(band="high")) == ["0a1f3c21", "1b7e9d02"]
    assert ids(QueueFilter(age="7d")) == ["0a1f3c21"]  # submitted 2026-11-20
    # the others have no submission date: their age counts from created_at (0..5 days ago)
    assert ids(QueueFilter(age="1d")) == [
        "0a1f3c21",
        "1b7e9d02",
        "2c4a8e13",
        "3d5b0f24",
        "4e6c1a35",
        "5f7d2b46",
    ]
    assert ids(QueueFilter(text="İADE")) == []
    assert ids(QueueFilter(text="sso staff")) == ["0a1f3c21"]
    assert ids(QueueFilter(text="10.2")) == ["2c4a8e13"]  # a cited clause number
    assert ids(QueueFilter(text="ACIL")) == ["3d5b0f24"]  # 'ACİL' folded
    flt = QueueFilter(verdict="IN_SCOPE", disputed_only=True, band="high", text="sso")
    assert flt.describe() == ["IN_SCOPE", "! disputed", "conf ≥ 0.80", "“sso”"]
    assert flt.cleared() == QueueFilter() and flt.with_(sort="risk").cleared().sort == "risk"
    assert is_disputed(cases[0], memory) and not is_disputed(cases[1], memory)


def test_sort_orders_keep_queue_order_on_ties() -> None:
    cases = _pending_cases()
    now = tui_clock()
    short = [c.case_id[-8:] for c in order(cases, "confidence", now)]
    assert short == ["3d5b0f24", "2c4a8e13", "4e6c1a35", "5f7d2b46", "0a1f3c21", "1b7e9d02"]
    assert [c.case_id[-8:] for c in order(cases, "risk", now)][0] == "0a1f3c21"
    oldest = [c.case_id[-8:] for c in order(cases, "oldest", now)]
    assert oldest[0] == "0a1f3c21" and oldest == list(
        reversed([c.case_id[-8:] for c in order(cases, "newest", now)])
    )
    assert [c.case_id for c in order(cases, "queue", now)] == [c.case_id for c in cases]
    assert cycle(None, (None, "a", "b")) == "a" and cycle("b", (None, "a", "b")) is None
    assert age_label(9.2) == "9d" and age_label(0.5) == "12h" and age_label(None) == ""


# --- the config file and the keymap (item 4) --------------------------------------------

from etki_tui.actions import (  # noqa: E402
    CONTEXTS,
    FORBIDDEN_KEYS,
    forbidden,
    key_label,
    keys_label,
)
from etki_tui.config import DEFAULT_REFRESH_SECONDS, config_path, load_config  # noqa: E402


def test_config_path_is_xdg_unless_etki_config_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert config_path(None) == (tmp_path / "etki" / "config.yaml", False)
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", "/home/ayse")
    assert config_path(None)[0] == Path("/home/ayse/.config/etki/config.yaml")
    assert config_path("/etc/etki.yaml") == (Path("/etc/etki.yaml"), True)
    assert config_path("~/etki.yaml") == (Path("/home/ayse/etki.yaml"), True)


def test_config_keymap_and_warnings(tmp_path: Path) -> None:
    cfg = tmp_path / "config.yaml"
    cfg.write_text(
        "keymap:\n  approve: A\n  reject: [R, ctrl+x]\n  filters: ctrl+j\n"
        "  bogus: q\n  copy: 3\nrefresh_seconds: 0.5\ntheme: dark\n",
        encoding="utf-8",
    )
    config = load_config(str(cfg))
    assert config.keymap == {"approve": "A", "reject": "R,ctrl+x"}
    text = " ".join(config.warnings)
    assert "unknown binding id bogus" in text
    assert "'filters' not remapped: ctrl+j" in text
    assert "'copy' needs a key name" in text
    assert "refresh_seconds" in text and config.refresh_seconds == DEFAULT_REFRESH_SECONDS
    assert "unknown setting theme" in text
    # A is the queue's Amend already: said, naming the file and the key
    clashes = [w for w in config.warnings if "already uses" in w]
    assert all(str(cfg) in w for w in clashes) and len(clashes) == 2
    assert any("'approve' to A" in w and "'amend'" in w for w in clashes)
    assert any("'reject' to R" in w and "'dispute.resolve_case'" in w for w in clashes)


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ("keymap: [unclosed\n", "not valid YAML (line"),
        ("- a\n- b\n", "expected a mapping"),
        ("keymap: A\n", "'keymap' must map binding ids"),
    ],
)
def test_a_broken_config_is_a_warning_not_a_crash(tmp_path: Path, body: str, needle: str) -> None:
    cfg = tmp_path / "config.yaml"
    cfg.write_text(body, encoding="utf-8")
    config = load_config(str(cfg))
    assert config.keymap == {} and any(needle in w for w in config.warnings)


def test_config_toml_missing_and_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    toml = tmp_path / "config.toml"
    toml.write_text('refresh_seconds = 10\n[keymap]\nsort = "O"\n', encoding="utf-8")
    config = load_config(str(toml))
    assert config.keymap == {"sort": "O"} and config.refresh_seconds == 10
    missing = load_config(str(tmp_path / "nope.yaml"))
    assert missing.warnings and "not found" in missing.warnings[0]
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # no config.yaml there: no config
    assert load_config(None).warnings == ()


def test_no_main_verb_on_a_key_terminals_swallow() -> None:
    for action in ACTIONS.values():
        assert not forbidden(action.keys()), action.id
    assert {"ctrl+s", "ctrl+j", "ctrl+h", "ctrl+enter"} <= FORBIDDEN_KEYS
    assert key_label("ctrl+r") == "Ctrl+R" and key_label("question_mark") == "?"
    assert keys_label(ACTIONS["help"]) == "? / F1"
    assert keys_label(ACTIONS["approve"], {"approve": "A,ctrl+a"}) == "A / Ctrl+A"


def test_every_action_is_bound_by_one_widget_and_documented() -> None:
    """One definition per action: each id is in exactly the BINDINGS of the widget of its
    context, with a help sentence, and every context has a help section."""
    from etki_tui.app import EtkiApp
    from etki_tui.hafiza.pane import MemoryPane
    from etki_tui.queue.filter_screen import FilterPanel
    from etki_tui.queue.pane import QueuePane, QueueTable
    from etki_tui.raporlar.pane import ReportsPane
    from etki_tui.screens.bulk import BulkConfirm
    from etki_tui.screens.confirm import ConfirmRuling
    from etki_tui.screens.contract import ContractScreen
    from etki_tui.screens.cr_export import CrExportForm
    from etki_tui.screens.estimate import EstimateForm
    from etki_tui.screens.help import HelpScreen
    from etki_tui.screens.import_file import ImportForm
    from etki_tui.screens.new_request import NewRequestForm
    from etki_tui.screens.note import NoteForm
    from etki_tui.screens.notice import NoticeModal, TooSmallScreen
    from etki_tui.screens.resolve import ResolveDisputeForm

    owners = {
        "app": [EtkiApp],
        "queue": [QueuePane],
        "hafiza": [MemoryPane],
        "confirm": [ConfirmRuling],
        "bulk": [BulkConfirm],
        "filters": [FilterPanel],
        "intake": [NewRequestForm],
        "resolve": [ResolveDisputeForm],
        "note": [NoteForm],
        "estimate": [EstimateForm],
        "raporlar": [ReportsPane],
        "help": [HelpScreen],
        "notice": [NoticeModal],
        "contract": [ContractScreen],
        "import": [ImportForm],
        "crexport": [CrExportForm],
    }
    for action in ACTIONS.values():
        assert action.help and action.context in {*CONTEXTS, "help", "notice"}
        bound = [
            cls
            for cls in (
                EtkiApp,
                QueuePane,
                QueueTable,
                MemoryPane,
                ReportsPane,
                ConfirmRuling,
                BulkConfirm,
                FilterPanel,
                NewRequestForm,
                ResolveDisputeForm,
                NoteForm,
                EstimateForm,
                ImportForm,
                CrExportForm,
                HelpScreen,
                NoticeModal,
                TooSmallScreen,
                ContractScreen,
            )
            if any(getattr(b, "id", None) == action.id for b in cls.BINDINGS)
        ]
        # Home/End (queue.first/last) belong to the table itself: bound on its pane, the
        # table's own Home/End would win while it has the focus; j/k (queue.down/up) to
        # the pane, so they step cases in the full-screen read too (issue 34 item 1)
        owner = (
            [QueueTable] if action.id in ("queue.first", "queue.last") else owners[action.context]
        )
        assert set(owner) <= set(bound), action.id
        assert len(bound) == 1 or action.context == "app", (action.id, bound)


# --- history, links, charts, palette scoring, advice ------------------------------------------

from etki.errors import ConflictError, NotFoundError, PermissionDeniedError  # noqa: E402
from etki_tui.errors import advice  # noqa: E402
from etki_tui.hafiza.reader import resolve_link  # noqa: E402
from etki_tui.history import History  # noqa: E402
from etki_tui.providers import case_score  # noqa: E402
from etki_tui.raporlar.charts import fill_days, rulings_over_time, spark  # noqa: E402


def test_history_pins_opened_pages_and_replaces_previews() -> None:
    h = History()
    h.visit("a.md", pin=False)
    h.visit("b.md", pin=False)  # browsing the list: b replaces a
    assert h.entries == [("b.md", False)]
    h.visit("b.md", pin=True)  # opened
    h.visit("c.md", pin=True)  # a link followed
    assert h.position() == "2/2" and h.back() == "b.md" and not h.can_back
    h.visit("d.md", pin=False)  # a preview after going back drops the forward history
    assert h.entries == [("b.md", True), ("d.md", False)] and not h.can_forward
    assert h.back() == "b.md" and h.forward() == "d.md" and h.forward() is None


@pytest.mark.parametrize(
    ("href", "expected"),
    [
        ("../precedents/PRE-x.md", ("precedents/PRE-x.md", "")),
        ("DEC-y.md#ruling", ("decisions/DEC-y.md", "ruling")),
        ("#reason", ("decisions/DEC-x.md", "reason")),
        ("../../etc/passwd.md", (None, "")),
        ("/etc/hosts.md", (None, "")),
        ("https://evil.example/x.md", (None, "")),
        ("../index.txt", (None, "")),
    ],
)
def test_links_resolve_inside_the_wiki_only(href: str, expected: tuple) -> None:
    assert resolve_link("decisions/DEC-x.md", href) == expected


def test_day_chart_has_numbers_legend_and_calendar_days() -> None:
    from rich.console import Console

    rows = (("2026-11-20", 2, 0), ("2026-11-23", 4, 2), ("2026-11-24", 1, 1))
    assert [d for d, _, _ in fill_days(rows)] == [
        "2026-11-20",
        "2026-11-21",
        "2026-11-22",
        "2026-11-23",
        "2026-11-24",
    ]
    console = Console(width=60, record=True, color_system=None)
    console.print(rulings_over_time(rows, 60))
    text = console.export_text()
    assert "▒" in text and "█" in text  # two glyphs, not two hues
    assert "agreed" in text and "overridden" in text and "11-20" in text
    assert "7 rulings over 5 days, 3 overridden (43%)" in text
    assert spark(None) == " " and spark(0.0) == "▁" and spark(1.0) == "█"


def test_palette_finds_cases_by_id_or_title_words() -> None:
    case = _pending_cases()[0]  # req-demo-0a1f3c21 "SSO login fails for staff accounts"
    assert case_score(case, "req-demo-0a1f3c21") == 1.0 == case_score(case, "0a1f3c21")
    assert case_score(case, "0a1f") == 0.9
    assert 0.7 <= case_score(case, "staff SSO") <= 0.9
    assert case_score(case, "mobile") == 0.0


def test_advice_says_what_to_do_next() -> None:
    from sqlalchemy.exc import OperationalError

    assert "approver" in advice(PermissionDeniedError("no"))
    assert "Ctrl+R" in advice(NotFoundError("gone"))
    assert "reloaded" in advice(ConflictError("c"))
    assert "ETKI_DB_URL" in advice(OperationalError("x", {}, Exception("locked")))
    assert advice(RuntimeError("boom"))
    _ = datetime.now(UTC)


def test_the_desk_marks_use_a_glyph_one_cell_wide_in_every_terminal() -> None:
    """The marks' glyph is ASCII: U+26A0 is one cell to Rich but two in tmux 3.3a (a
    fresh reviewer's disputed rows lost their last character at 80 columns)."""
    from etki_tui.glyphs import WARN
    from etki_tui.render import DISPUTED

    assert WARN.isascii() and len(WARN) == 1 and DISPUTED.startswith(WARN + " ")


def test_frontmatter_wraps_under_its_own_value_and_stays_literal():
    """Issue 12 trial: a long frontmatter value (a title, a reviewer's reason) wrapped
    back to column 0 in the reader. Each line now hangs under its value, after its
    indent, ``- `` and ``key: ``; markup in the page stays text."""
    from rich.console import Console

    from etki_tui.hafiza.reader import FrontmatterLines

    meta = (
        "case_id: req-demo-0001\n"
        "title: [bold red]Größe[/] der Änderung übersteigt den vereinbarten Umfang\n"
        "cited_clauses:\n"
        "- MSA-2024-01#4.4 and a list item long enough to wrap\n"
        "ruling:\n"
        "  reason: İade süreci için yeni bir ekran gerekiyor, ek iş\n"
    )
    console = Console(width=32, color_system=None, legacy_windows=False)
    with console.capture() as captured:
        console.print(FrontmatterLines(meta))
    lines = [line.rstrip() for line in captured.get().splitlines()]
    assert lines == [
        "case_id: req-demo-0001",
        "title: [bold red]Größe[/] der",
        "       Änderung übersteigt den",
        "       vereinbarten Umfang",
        "cited_clauses:",
        "- MSA-2024-01#4.4 and a list",
        "  item long enough to wrap",
        "ruling:",
        "  reason: İade süreci için yeni",
        "          bir ekran gerekiyor,",
        "          ek iş",
        "",
    ]


def test_a_typed_digraph_highlights_the_umlaut_it_stands_for():
    """``groesse`` finds ``Größe`` in the wiki (etki.text.spellings); the hit's snippet
    marks the word it found, and the queue's find keeps the case that says it."""
    from dataclasses import replace

    from etki_tui.render import match_spans

    text = "Die Größe der Groesse-Tabelle"
    assert [text[a:b] for a, b in match_spans(text, ["groesse"])] == ["Größe", "Groesse"]
    assert match_spans("Grosse", ["groesse"]) == [(0, 6)]
    assert match_spans("Grose", ["groesse"]) == []
    case = replace(_pending_cases()[0], title="Größe der Tabelle")
    now = tui_clock()
    assert QueueFilter(text="GROESSE tabelle").matches(case, {}, now)
    assert QueueFilter(text="grosse").matches(case, {}, now)
    assert not QueueFilter(text="groesse stuhl").matches(case, {}, now)


def test_a_hit_whose_title_says_its_kind_is_not_labelled_twice() -> None:
    from etki_tui.hafiza.cards import hit_prompt

    def first_line(title: str, path: str) -> str:
        return hit_prompt(title, path, "login fails", ["login"], 60).plain.split("\n")[0]

    assert first_line("Precedent: Login fails", "precedents/req-1.md") == "Precedent: Login fails"
    assert first_line("Change request: SSO", "change-requests/cr-1.md") == "Change request: SSO"
    assert first_line("Disputed clauses", "disputed.md") == "Disputed clauses"
    assert first_line("Login fails", "decisions/req-1.md") == "Login fails decision"
    # case does not matter (the fold)
    assert first_line("PRECEDENT: İade", "precedents/req-2.md") == "PRECEDENT: İade"


def test_the_risk_line_quotes_the_words_that_raised_it() -> None:
    """The desk's Risk field names the client's own words that raised a signal, as the
    engine's ``risk`` step quotes them (`etki show` prints that step): a trial saw only
    "signals: security" on the desk and had to open the CLI to learn why."""
    import io

    from rich.console import Console

    from etki.domain import CaseRecord, risk_wording
    from etki.knowledge.loader import load_project
    from etki.triage.engine import TriageEngine
    from etki_tui.queue.detail import case_detail

    project = load_project(Path(__file__).parent.parent / "sample_project")
    engine = TriageEngine(project, "sha256:test")
    text = "Yetkisiz erişim: şifre sıfırlama ekranı [bold]herkese[/] açık."
    decision = engine.triage("req-demo-risk", text)
    assert decision.risk.pmo_look_24h
    words = risk_wording(decision.evidence)
    assert "Yetkisiz" in words  # as written, not the fold "yetkisiz"
    assert all(w in text for w in words)
    case = CaseRecord(
        "req-demo-risk", "demo", "R9", "t", text, None, None, "2026-11-20", 1, decision
    )
    clauses = {c.ref: c for c in project.clauses}
    console = Console(width=120, file=io.StringIO(), record=True, color_system=None)
    console.print(case_detail(case, clauses, {}))
    risk_line = next(line for line in console.export_text().splitlines() if line.startswith("Risk"))
    assert "“Yetkisiz”" in risk_line and "signals: security" in risk_line
    # a clause disputed since: its signal follows the quoted words, which it did not raise
    import dataclasses

    from etki.domain import ClauseMemory

    ref = "MSA-2024-01#3.2"
    cited = dataclasses.replace(decision, cited_clauses=(ref,))
    case = dataclasses.replace(case, decision=cited)
    console = Console(width=200, file=io.StringIO(), record=True, color_system=None)
    console.print(
        case_detail(case, clauses, {ref: ClauseMemory(ref, disputed=True)}, escalate=True)
    )
    risk_line = next(line for line in console.export_text().splitlines() if line.startswith("Risk"))
    assert "”), disputed_clause" in risk_line, risk_line
    quiet = engine.triage("req-demo-low", "Please change the footer colour on the tax page.")
    assert risk_wording(quiet.evidence) == ()


@pytest.mark.parametrize("width", [24, 30, 36, 44, 60, 100])
def test_long_module_ids_break_between_ids_then_after_a_dot(width: int) -> None:
    """The detail pane's Modules value: a trial at 80 columns saw tdrs's dotted module
    ids (up to 72 characters) broken anywhere in a word."""
    import io

    from rich.console import Console

    from etki_tui.render import IdList

    ids = [
        "tdpservice.users.management.commands.reset_cypress_profile_editing_users",
        "tdpservice.data_files",
        "frontend/src/components/Header",
    ]
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    console.print(IdList(ids))
    lines = [line.rstrip() for line in console.export_text().splitlines()]
    assert all(cell_len(line) <= width for line in lines)
    assert "".join(lines).replace(" ", "") == ",".join(ids)  # nothing lost or added
    for line in lines:  # every line ends at an id's end or at one of its breaks
        assert line.endswith((",", ".", "/", "_")) or line == lines[-1]
    for ident in ids:  # an id that fits a line is never broken
        if cell_len(ident) + 1 <= width:
            assert any(ident in line for line in lines)


def test_a_risk_already_high_at_triage_is_not_said_to_be_raised_by_a_dispute() -> None:
    """A trial read "(raised now: 3.1.2 disputed; HIGH at triage)" on a case that was
    HIGH before any ruling: the dispute adds its signal, it raises nothing."""
    import io

    from rich.console import Console

    from etki.domain import CaseRecord, ClauseMemory, Risk
    from etki_tui.queue.detail import case_detail
    from tests.conftest import tui_decision

    ref = "MSA-2024-01#3.2"
    memory = {ref: ClauseMemory(ref, disputed=True)}

    def risk_line(stored: Risk) -> str:
        d = tui_decision("req-demo-a1", "IN_SCOPE", (ref,), confidence=0.7, risk=stored)
        case = CaseRecord("req-demo-a1", "demo", "R1", "t", "x", None, None, "2026-11-20", 1, d)
        console = Console(width=160, file=io.StringIO(), record=True, color_system=None)
        console.print(case_detail(case, {}, memory, escalate=True))
        return next(x for x in console.export_text().splitlines() if x.startswith("Risk"))

    high = risk_line(Risk("high", ("security", "personal_data"), True))
    assert "(now also: 3.2 disputed; HIGH at triage)" in high and "raised" not in high
    low = risk_line(Risk())
    assert "(raised now: 3.2 disputed; LOW at triage)" in low
