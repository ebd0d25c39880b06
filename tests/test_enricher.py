"""The link enricher (issue 4 item 8): fuzzy keyword matching with an explicit processor
(B20, every row, any letter case), suggestions with scores and matched words, and
``--accept`` writing the project's edges file, nothing applied silently."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from etki.errors import InputError
from etki.knowledge import build_index, load_project
from etki.knowledge.enricher import accept, module_keywords, suggest_links, suggestion_id
from etki.knowledge.matching import WordSet, keyword_match

B20 = Path(__file__).resolve().parents[2] / "shared" / "cases" / "B20-fuzzy-keywords.txt"


def b20_rows() -> list[tuple[str, str, bool]]:
    rows = []
    for line in B20.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        keyword, text, expected = line.split("\t")
        rows.append((keyword, text, expected.startswith("match")))
    return rows


@pytest.mark.skipif(not B20.is_file(), reason="../shared/cases is absent")
def test_b20_every_row_in_every_letter_case() -> None:
    rows = b20_rows()
    assert len(rows) == 8 and sum(expected for *_, expected in rows) == 4
    for keyword, text, expected in rows:
        # as written, all upper, all lower, swapped: str.upper/lower make Turkish İ/ı odd
        variants = {
            (keyword, text),
            (keyword.upper(), text.upper()),
            (keyword.lower(), text.lower()),
            (keyword.upper(), text.lower()),
            (keyword.lower(), text.upper()),
            (keyword.swapcase(), text.swapcase()),
        }
        for k, t in variants:
            hit = keyword_match(k, t)
            assert (hit is not None) is expected, (k, t)
            if hit is not None:
                assert hit.score == 100.0


def test_fuzzy_matches_inflections_but_not_other_words() -> None:
    words = WordSet("Card payments, calendars and constraints; files.")
    assert words.match("payment").word == "payments"  # type: ignore[union-attr]
    assert words.match("calendar").score == 94.1  # type: ignore[union-attr]
    assert words.match("file").word == "files"  # type: ignore[union-attr]
    assert words.match("constants") is None  # ratio 90, but another word
    assert words.match("pay") is None  # 3 letters: only the word itself
    assert words.match("and") is None  # a stopword is never a keyword


def write(root: Path) -> Path:
    (root / "contracts").mkdir(parents=True)
    (root / "etki.yaml").write_text("id: e\nname: E\n", encoding="utf-8")
    (root / "modules.yaml").write_text(
        "- id: payments.gateway\n  path: services/payments/gateway/\n"
        "  summary: Card payments through the bank's virtual POS\n"
        "- id: payments.receipts\n  path: services/payments/receipts/\n"
        "  summary: PDF receipts by e-mail\n"
        "- id: integration.ad\n  path: services/integration/ad/\n"
        "  summary: Active Directory lookups over LDAP\n"
        "- id: notify.sms\n  path: services/notify/sms/\n  summary: SMS texts\n",
        encoding="utf-8",
    )
    (root / "contracts" / "msa.md").write_text(
        "---\nid: MSA\n---\n# MSA\n\nIntro.\n\n## 4 Payments\n\n"
        "### 4.1 Card payment\n\nCard payments use the payment gateway of the bank.\n\n"
        "### 4.2 Receipts\n\nA PDF receipt is sent for each payment [[module:payments.receipts]].\n\n"
        "## 5 Staff\n\nStaff sign in through the directory integration.\n\n"
        "## 9 Out of scope\n\n### 9.1 Texts\n\nSMS notify features are not included.\n",
        encoding="utf-8",
    )
    return root


def test_keywords_drop_words_common_to_many_modules(tmp_path: Path) -> None:
    index = build_index(load_project(write(tmp_path / "p")))
    keywords = module_keywords(index.in_order("module"))
    assert keywords["module:payments.gateway"][0] == ("payments", "gateway")
    assert keywords["module:integration.ad"][0] == ("integration",)  # "ad": 2 letters
    assert "services" not in {w for names, keys in keywords.values() for w in names + keys}


def test_suggestions_with_scores_words_and_types(tmp_path: Path) -> None:
    index = build_index(load_project(write(tmp_path / "p")))
    got = [(s.source, s.target, s.type, s.score, s.words) for s in suggest_links(index)]
    assert got == [
        (
            "clause:MSA#4.1",
            "module:payments.gateway",
            "maps_to",
            100.0,
            # the title is "Payments › Card payment": the first spelling found is shown
            ("payments~Payments", "gateway~gateway", "Card~Card", "bank~bank"),
        ),
        (
            "clause:MSA#9.1",
            "module:notify.sms",
            "excludes",
            100.0,
            ("notify~notify", "sms~SMS", "texts~Texts"),
        ),
    ]
    # 4.2 already links payments.receipts; 5 names only one word of integration.ad and
    # too few of its keywords; every suggestion id is stable
    first = suggest_links(index)[0]
    assert first.id == suggestion_id("clause:MSA#4.1", "module:payments.gateway", "maps_to")
    assert first.id.startswith("s-") and len(first.id) == 10


def test_accept_writes_the_edges_file_and_only_then_the_index_changes(tmp_path: Path) -> None:
    root = write(tmp_path / "p")
    index = build_index(load_project(root))
    suggestions = suggest_links(index)
    assert not (root / "edges.yaml").exists()  # listing writes nothing
    with pytest.raises(InputError, match="s-00000000"):
        accept(root, suggestions, ["s-00000000", suggestions[0].id])
    assert not (root / "edges.yaml").exists()  # a bad id writes nothing at all
    added, already = accept(root, suggestions, [suggestions[0].id])
    assert [s.id for s in added] == [suggestions[0].id] and already == []
    data = yaml.safe_load((root / "edges.yaml").read_text(encoding="utf-8"))
    assert data == {
        "edges": [
            {
                "source": "clause:MSA#4.1",
                "target": "module:payments.gateway",
                "type": "maps_to",
                "suggestion": suggestions[0].id,
                "score": 100.0,
                "words": ["payments", "gateway", "Card", "bank"],
            }
        ]
    }
    after = build_index(load_project(root))
    [edge] = [e for e in after.edges if e.provenance == "mapped"]
    assert (edge.source, edge.target, edge.type, edge.weight, edge.location) == (
        "clause:MSA#4.1",
        "module:payments.gateway",
        "maps_to",
        0.8,
        "edges.yaml:4",
    )
    assert [s.target for s in suggest_links(after)] == ["module:notify.sms"]
    again, already = accept(root, suggest_links(after), [suggestions[0].id])
    assert again == [] and already == [suggestions[0].id]
