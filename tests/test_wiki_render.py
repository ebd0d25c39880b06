"""The pure wiki renderers: names (B12, B14), frontmatter (B06, B08), literal client text,
determinism."""

from __future__ import annotations

import html
import posixpath
import random
import re
import unicodedata
from dataclasses import replace

import pytest
from markdown_it import MarkdownIt

from etki.domain import ACTIONS, VERDICTS, CaseBrief, CaseRecord, RulingRecord
from etki.frontmatter import split_frontmatter
from etki.memory import clause_memory, disputed_clauses
from etki.wiki.markdown import md_block, md_inline
from etki.wiki.model import WikiModel
from etki.wiki.pages import render_case_pages, render_changed, render_model, render_wiki
from etki.wiki.paths import (
    NAME_MAX_BYTES,
    contract_path,
    decision_path,
    entity_name,
    module_path,
    precedent_path,
)
from etki.wiki.writer import validate_relpath
from tests.wiki_support import (
    COLON_TITLE,
    LONG_TITLE,
    NFC_TITLE,
    NFD_TITLE,
    build_world,
    decision,
    project,
)


def _case(
    case_id: str,
    title: str,
    *,
    ruled_at: str = "2026-11-29T12:00:00Z",
    ruling: str = "IN_SCOPE",
    text: str = "text",
) -> CaseRecord:
    d = decision(case_id)
    return CaseRecord(
        case_id=case_id,
        project_id="demo",
        request_id="R",
        title=title,
        text=text,
        submitted_by=None,
        submitted_at=None,
        created_at="2026-11-01T00:00:00Z",
        version=2,
        decision=d,
        ruling=RulingRecord(case_id, ruling, "approve", "ayse", "", ruled_at, d.verdict),  # type: ignore[arg-type]
    )


def _name(path: str) -> str:
    return path.rsplit("/", 1)[1]


# --- names --------------------------------------------------------------------------------


def test_nfc_and_nfd_titles_give_one_nfc_name():  # B12
    assert NFC_TITLE != NFD_TITLE
    a = decision_path(_case("req-demo-1", NFC_TITLE))
    b = decision_path(_case("req-demo-1", NFD_TITLE))
    assert a == b == "decisions/DEC-20261129-iade-sureci--req-demo-1.md"
    assert unicodedata.normalize("NFC", a) == a
    assert not any(unicodedata.combining(ch) for ch in a)
    german = decision_path(_case("req-demo-2", unicodedata.normalize("NFD", "Größe Prüfung")))
    assert german == "decisions/DEC-20261129-grosse-prufung--req-demo-2.md"


@pytest.mark.parametrize(
    "title",
    [
        LONG_TITLE,  # B14: 347 characters, 401 bytes
        "Подключение единого входа " * 20,  # Cyrillic: 2 bytes per letter
        "東京オフィスのシングルサインオン障害" * 12,  # CJK: 3 bytes per letter, no spaces
        "x" * 1000,
    ],
)
def test_long_titles_fit_255_bytes_and_stay_unique(title):  # B14
    assert len(LONG_TITLE) == 347 and len(LONG_TITLE.encode("utf-8")) == 401
    names = set()
    for case_id in ("req-demo-1a2b3c4d", "req-demo-1a2b3c4e", "REQ/ODD id " * 20):
        for path in (decision_path(_case(case_id, title)), precedent_path(_case(case_id, title))):
            name = _name(path)
            raw = name.encode("utf-8")
            assert len(raw) <= NAME_MAX_BYTES
            assert raw.decode("utf-8") == name  # cut on a character boundary
            assert "/" not in name and "\\" not in name and "\x00" not in name
            assert unicodedata.normalize("NFC", name) == name
            validate_relpath(path)
            names.add(path)
    assert len(names) == 6  # unique per case


def test_long_title_name_keeps_the_start_of_the_title():
    name = _name(decision_path(_case("req-demo-1", LONG_TITLE)))
    assert name.startswith("DEC-20261129-sirket-ici-sso-girisi-")
    assert name.endswith("--req-demo-1.md")


def test_same_title_different_cases_never_collide():
    paths = {decision_path(_case(f"req-demo-{i}", "Same title")) for i in range(50)}
    assert len(paths) == 50
    odd = {decision_path(_case(cid, "t")) for cid in ("A_b", "a-b", "a b", "A-B", "a.b")}
    assert len(odd) == 5


@pytest.mark.parametrize(
    "entity",
    [
        "../../etc/passwd",
        "a/b",
        "..",
        ".hidden",
        "",
        "a\\b",
        "CON",
        "x" * 400,
        "src/legacy billing",
        "ünïcode/mod",
    ],
)
def test_entity_names_are_safe(entity):
    for path in (contract_path(entity), module_path(entity)):
        validate_relpath(path)
        name = _name(path)
        assert path.count("/") == 2 and not name.startswith(".")
        assert len(name.encode("utf-8")) <= NAME_MAX_BYTES


def test_dotted_module_ids_are_kept_readable():
    assert module_path("auth.sso") == "entities/modules/auth.sso.md"
    assert contract_path("MSA-2024-01") == "entities/contracts/MSA-2024-01.md"
    assert entity_name("a/b") != entity_name("a-b")


def test_pending_case_has_no_decision_path():
    case = replace(_case("req-demo-1", "t"), ruling=None)
    with pytest.raises(ValueError, match="pending"):
        decision_path(case)


# --- whole tree --------------------------------------------------------------------------


def test_render_is_deterministic_and_order_independent(tmp_path):
    world = build_world(tmp_path)
    cases = world.repo.cases("demo")
    first = render_wiki(project(), cases)
    again = render_wiki(project(), list(cases))
    shuffled = list(cases)
    random.Random(3).shuffle(shuffled)
    assert first == again == render_wiki(project(), list(reversed(cases)))
    assert first == render_wiki(project(), shuffled)
    assert list(first) == sorted(first)
    for path, data in first.items():
        validate_relpath(path)
        text = data.decode("utf-8")
        assert "\r" not in text and "\x1b" not in text and "\x07" not in text
        assert text.endswith("\n") and not text.endswith("\n\n")
        assert text.startswith("---\n")
        assert "/nonexistent" not in text  # no machine-specific path
    world.repo.dispose()


def test_the_tree_has_every_page_kind(tmp_path):
    world = build_world(tmp_path)
    files = render_wiki(project(), world.repo.cases("demo"))
    kinds = {p.split("/")[0] for p in files}
    assert kinds == {
        "index.md",
        "disputed.md",
        "decisions",
        "precedents",
        "change-requests",
        "entities",
    }
    assert sum(p.startswith("decisions/") for p in files) == 5  # the pending case has none
    crs = [c for c in world.repo.cases("demo") if c.ruling and c.ruling.ruling == "CHANGE_REQUEST"]
    assert crs  # one page per case ruled CHANGE_REQUEST, named like its decision page
    assert sorted(p for p in files if p.startswith("change-requests/")) == sorted(
        "change-requests/CR-" + decision_path(c).split("/DEC-", 1)[1] for c in crs
    )
    assert sorted(p for p in files if p.startswith("precedents/")) == [
        "precedents/PRE-build-a-native-app--req-demo-0002.md",
        "precedents/PRE-sso-for-contractors--req-demo-0003.md",
    ]
    assert "entities/contracts/MSA.md" in files
    assert {p for p in files if p.startswith("entities/modules/")} == {
        "entities/modules/auth.sso.md",
        "entities/modules/payments.md",
        module_path("src/legacy billing"),
    }
    world.repo.dispose()


def test_case_pages_are_the_same_bytes_as_the_full_render(tmp_path):
    world = build_world(tmp_path)
    cases = world.repo.cases("demo")
    full = render_wiki(project(), cases)
    for case in cases:
        part = render_case_pages(project(), cases, case.case_id)
        assert {"index.md", "disputed.md"} <= set(part)
        for path, data in part.items():
            assert full[path] == data, path
    part = render_case_pages(project(), cases, "req-demo-0004")
    assert module_path("src/legacy billing") in part and "entities/contracts/MSA.md" in part
    world.repo.dispose()


# --- frontmatter ------------------------------------------------------------------------------


def test_decision_frontmatter_loads_back(tmp_path):  # B06, B08
    world = build_world(tmp_path)
    case = world.repo.case("req-demo-0001")
    path = decision_path(case)
    meta, body = split_frontmatter(
        render_wiki(project(), world.repo.cases("demo"))[path].decode("utf-8"), path
    )
    assert meta["title"] == COLON_TITLE  # ': ' and a trailing 'no' come back unchanged
    assert meta["case_id"] == "req-demo-0001" and meta["project"] == "demo"
    assert meta["verdict"] == meta["ruling"] == "IN_SCOPE"
    assert meta["reviewer"] == "ayse" and meta["ruled_at"] == "2026-11-29T12:00:00Z"
    assert meta["override"] is False and meta["confidence"] == 0.8
    assert meta["cited_clauses"] == ["MSA#3.2"] and meta["impacted_modules"] == ["auth.sso"]
    assert meta["engine_version"] == "test-1" and meta["index_freshness"] == "sha256:abc"
    assert body.startswith("# SSO hatası: giriş no\n")
    world.repo.dispose()


def test_yaml_lookalike_titles_stay_strings():  # B06
    for title in (
        "no",
        "NO",
        "on",
        "off",
        "yes",
        "y",
        "n",
        "2024-01-01",
        "010",
        "null",
        "~",
        "- item",
        "key: value",
        "#hash",
        "'quoted'",
        '"dq"',
        "[a, b]",
        "{a: 1}",
        "true",
        "1.5",
        ".inf",
        "multi\nline",
    ):
        case = _case("req-demo-1", title)
        path = decision_path(case)
        files = render_wiki(project(), [case])
        meta, _ = split_frontmatter(files[path].decode("utf-8"), path)
        expected = title.replace("\n", " \u23ce ")
        assert meta["title"] == expected, title


def test_override_frontmatter_and_precedent(tmp_path):
    world = build_world(tmp_path)
    files = render_wiki(project(), world.repo.cases("demo"))
    case = world.repo.case("req-demo-0003")
    meta, body = split_frontmatter(files[decision_path(case)].decode("utf-8"), "d")
    assert meta["override"] is True and meta["verdict"] == "IN_SCOPE"
    assert meta["ruling"] == "CHANGE_REQUEST" and meta["precedent"] == precedent_path(case)
    assert "../" + precedent_path(case) in body
    pre, pre_body = split_frontmatter(files[precedent_path(case)].decode("utf-8"), "p")
    assert pre["kind"] == "precedent" and pre["reason"] == "Contractors are not staff; CR: no"
    assert pre["decision"] == decision_path(case)
    assert "../" + decision_path(case) in pre_body
    world.repo.dispose()


# --- client text stays literal -----------------------------------------------------------------


def _html(markdown: str) -> str:
    return MarkdownIt("gfm-like").render(markdown)


def test_request_text_renders_literally(tmp_path):
    world = build_world(tmp_path)
    case = world.repo.case("req-demo-0001")
    page = render_wiki(project(), world.repo.cases("demo"))[decision_path(case)].decode()
    _, body = split_frontmatter(page, "d")
    out = _html(body)
    assert "<script>" not in out and "<b>" not in out and 'href="http://evil' not in out
    code = re.search(r'<pre><code class="language-text">(.*?)</code></pre>', out, re.S)
    assert code is not None
    shown = html.unescape(code.group(1))
    assert "[bold]x[/bold]" in shown and "<script>alert(1)</script>" in shown
    assert "``` not a fence ```" in shown and "`tick`" in shown
    assert "\x1b" not in shown and "\u241b[31mred" in shown  # ESC made visible
    assert "[a link](http://evil.example)" in shown


@pytest.mark.parametrize(
    "text",
    [
        "[x](http://evil.example)",
        "<script>alert(1)</script>",
        "**bold** _em_ `code`",
        "![img](http://x/y.png)",
        "see evil.example or www.evil.example",
        "a@b.example",
        "https://evil.example/x",
        "&amp; &lt;",
        "| a | b |",
        "# not a heading",
        "- not a list",
        "1. not a list",
        "> not a quote",
        "[bold]x[/bold] [@click=app.quit]q[/]",
        "<http://auto.link>",
        "~~strike~~",
        "\\*escaped\\*",
        "3.2 and e.g. MSA#3.2",
        "visit evil.com or kentpark.bel.tr",
        "user@evil.com",
        "mailto:a@b.example",
        "# heading #",
        "_under_ and __strong__",
        "&#x27; &copy;",
        "+ plus",
        "2) item",
        "=== x",
    ],
)
def test_inline_text_renders_literally(text):
    for prefix in ("", "- ", "# ", "| a | "):
        out = _html(prefix + md_inline(text) + (" |\n|---|---|" if prefix.startswith("|") else ""))
        assert "<a " not in out and "<img" not in out and "<script" not in out
        assert "<strong>" not in out and "<em>" not in out and "<code>" not in out
        assert "<s>" not in out and "<del>" not in out
    plain = html.unescape(re.sub(r"<[^>]+>", "", _html("x " + md_inline(text)))).strip()
    assert plain == "x " + text


def test_plain_text_stays_readable():
    for text in (
        "snake_case_name",
        "MSA#3.2",
        "1.0.0",
        "portal.auth.edevlet",
        "x -> y",
        "e.g. this",
        "İade süreci: giriş",
        "AT&T",
    ):
        assert md_inline(text) == text


def test_fenced_block_survives_any_backtick_run():
    text = "a ```` b\n`````\n```text\nend"
    block = md_block(text)
    fence = block.split("\n", 1)[0].removesuffix("text")
    assert set(fence) == {"`"} and len(fence) == 6
    out = _html(block)
    assert html.unescape(re.search(r"<code[^>]*>(.*?)</code>", out, re.S).group(1)) == text + "\n"


# --- the incremental model (issue 7) ------------------------------------------------------------


def _random_case(rng: random.Random, i: int, *, ruled: bool) -> CaseRecord:
    refs = ["MSA#3.2", "MSA#4.1", "MSA#9.1", "OLD#1.1"]  # OLD#1.1: not in the project
    mods = ["auth.sso", "payments", "src/legacy billing", "gone.module"]
    cited = tuple(rng.choice(refs) for _ in range(rng.randint(0, 3)))  # repeats too
    impacted = tuple(rng.choice(mods) for _ in range(rng.randint(0, 2)))
    verdict = rng.choice(VERDICTS)
    cid = f"req-demo-{i:04d}"
    ruling = None
    if ruled:
        action = rng.choice(sorted(ACTIONS))
        ruling = RulingRecord(
            case_id=cid,
            ruling=ACTIONS[action],
            action=action,  # type: ignore[arg-type]
            reviewer=rng.choice(["ayse", "jürgen", "a|b"]),
            reason=rng.choice(["", "see *9.1*"]),
            ruled_at=f"2026-11-{rng.randint(1, 3):02d}T09:00:00Z",
            verdict=verdict,
            version=2,
        )  # type: ignore[arg-type]
    return CaseRecord(
        case_id=cid,
        project_id="demo",
        request_id=f"R{i}",
        title=rng.choice(["SSO", "Größe [x]", f"case {i}", ""]) or f"t{i}",
        text="text",
        submitted_by=None,
        submitted_at=None,
        created_at="2026-11-01T00:00:00Z",
        version=2 if ruled else 1,
        decision=decision(cid, verdict, cited, impacted),
        ruling=ruling,
    )


@pytest.mark.parametrize("seed", range(6))
def test_incremental_model_renders_what_a_fresh_render_gives(seed):
    """Put, re-put and remove cases in a random order on one long-lived model (with its
    memoised fragments): after every step, every page it renders equals the same page
    of a render from scratch, and the pages ``render_changed`` returns are exactly the
    pages of the full render that the change can touch."""
    rng = random.Random(seed)
    model = WikiModel(project())
    held: dict[str, CaseRecord] = {}
    for step in range(60):
        i = rng.randint(1, 14)
        cid = f"req-demo-{i:04d}"
        old = model.cases.get(cid)
        if cid in held and rng.random() < 0.2:
            del held[cid]
            model.remove(cid)
            new = None
        else:
            rec = _random_case(rng, i, ruled=rng.random() < 0.8)
            held[cid] = rec
            model.put(CaseBrief.of(rec))
            new = CaseBrief.of(rec)
        cases = list(held.values())
        fresh = render_wiki(project(), cases)
        assert render_model(model, cases) == fresh, step
        changed = render_changed(
            model, [held[cid]] if cid in held else [], [b for b in (old, new) if b is not None]
        )
        for path, data in changed.items():
            assert fresh[path] == data, (step, path)
        if new is not None and new.ruling is not None:
            assert decision_path(held[cid]) in changed
        ruled = [c for c in cases if c.ruling is not None]
        assert model.disputed == {d.ref for d in disputed_clauses(ruled)}
        memory = clause_memory(ruled)
        for ref in model.history:
            assert model.memory(ref)[:2] == (memory[ref].precedent_count, memory[ref].disputed)


def test_decision_page_effort_reads_one_figure_and_names_its_work_items():
    """Issue 12 item 7 on the page too: equal ends read as one figure (the frozen
    ``13–13`` stays in the evidence chain and the frontmatter), and the basis lists each
    work item with its title, days and date, as the desk's detail pane does; an id the
    project no longer has says so."""
    from etki.domain import Effort, WorkItem

    items = (
        WorkItem("WI-1", "SSO login", date="2024-01-01", effort_days=13.0),
        WorkItem("WI-2", "Card payments", date="2024-02-01", effort_days=13.0),
    )
    proj = replace(project(), workitems=items)
    base = _case("req-demo-0100", "Effort page")
    d = replace(base.decision, effort=Effort(13.0, 13.0, ("WI-1", "WI-2", "WI-9")))
    case = replace(base, decision=d)
    page = render_wiki(proj, [case])[decision_path(case)].decode("utf-8")
    meta, body = split_frontmatter(page, decision_path(case))
    section = body.split("## Effort\n", 1)[1].split("\n## ", 1)[0]
    assert section.strip().splitlines() == [
        "13 person-days, from 3 comparable past work items:",
        "",
        "- WI-1 SSO login · 13 person-days · 2024-01-01",
        "- WI-2 Card payments · 13 person-days · 2024-02-01",
        "- WI-9 (not among the project's work items)",
    ]
    assert meta["effort"] == "13–13 person-days"  # the machine-readable range, as frozen


def test_rulings_on_contract_module_and_index_pages_are_short_list_items(tmp_path):
    """A contract's clause, a module and index.md list their rulings as list items of
    lines a terminal shows whole at 80 columns (a six-column table was unreadable there,
    as disputed.md's was): ruling, reviewer, time and the engine's verdict; the title;
    the case linked to its decision page."""
    world = build_world(tmp_path)
    cases = world.repo.cases("demo")
    full = render_wiki(project(), cases)
    ruled = [c for c in cases if c.ruling is not None]
    for path in ("entities/contracts/MSA.md", "entities/modules/payments.md", "index.md"):
        text = full[path].decode("utf-8")
        assert "| ruled at |" not in text and "engine verdict |" not in text, path
        items = [
            line for line in text.splitlines() if line.startswith("- **") and "(engine " in line
        ]
        assert items, path
        for line in items:
            assert line.endswith(":") and " by " in line
    case = ruled[0]
    r = case.ruling
    index = full["index.md"].decode("utf-8")
    head = f"- **{r.ruling}** by {r.reviewer}, {r.ruled_at} (engine {case.decision.verdict}):"
    assert head in index
    assert f"  (case [{case.case_id}]({decision_path(case)}))" in index
    world.repo.dispose()


_HREF = re.compile(r"\]\(([^)\s#]+)#([^)\s]+)\)")


def test_contract_page_holds_the_whole_contract_and_clause_links_land_on_their_clause(
    tmp_path,
):
    """Issue 33 / 34 item 3: the contract page has every clause of the contract in
    document order (ref, title, text; a clause no ruling cites says so), before any case
    is ruled too, and every link with a fragment on any page lands on an anchor of the
    page it names."""
    unruled = render_wiki(project(), [])
    assert sorted(unruled) == ["disputed.md", "entities/contracts/MSA.md", "index.md"]
    world = build_world(tmp_path)
    files = render_wiki(project(), world.repo.cases("demo"))
    for tree in (unruled, files):
        page = tree["entities/contracts/MSA.md"].decode()
        at = [
            page.index(f'## {ref} — {title} <a id="{anchor}"></a>\n\n')
            for ref, title, anchor in (
                ("MSA#3.2", "Single sign-on", "MSA%233.2"),
                ("MSA#4.1", "Payments", "MSA%234.1"),
                ("MSA#9.1", "Exclusions", "MSA%239.1"),
            )
        ]
        assert at == sorted(at)
        for text in (
            "Staff sign in with SSO.",
            "Citizens pay tax online.",
            "No native mobile apps.",
        ):
            assert text in page
    page = unruled["entities/contracts/MSA.md"].decode()
    assert page.count("no ruled case cites it.") == 3 and "clauses: 3\n" in page
    ruled = files["entities/contracts/MSA.md"].decode()  # the world cites all three
    assert "no ruled case cites it." not in ruled and "cited_clauses:\n- MSA#3.2\n" in ruled
    links = 0
    for path, data in files.items():
        for target, frag in _HREF.findall(data.decode()):
            if target.startswith("http"):
                continue
            dest = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
            assert f'<a id="{frag}"></a>' in files[dest].decode(), (path, target, frag)
            links += 1
    assert links > 0
    world.repo.dispose()
