"""etki.knowledge.links: wikilinks from the token stream (B18)."""

from __future__ import annotations

from pathlib import Path

import pytest

from etki.knowledge.links import extract_wikilinks, split_typed_target

CASES = Path(__file__).resolve().parents[2] / "shared" / "cases"


@pytest.mark.skipif(not CASES.is_dir(), reason="../shared/cases is absent")
def test_b18_exactly_four_links() -> None:
    text = (CASES / "B18-wikilinks.md").read_text(encoding="utf-8")
    assert extract_wikilinks(text) == [
        ("Şirket içi SSO girişi", None, "SSO sayfası"),
        ("fatura-itirazi", "Madde 3", "3. madde"),
        ("Sözleşme", "Fesih", "fesih maddesi"),
        ("VAKA-0042", None, None),
    ]


@pytest.mark.parametrize(
    "markdown, expected",
    [
        ("see [[MSA#3.2|SSO clause]] now", [("MSA", "3.2", "SSO clause")]),
        ("[[module:auth]] and [[module:auth]]", [("module:auth", None, None)] * 2),
        ("[[#Fesih]]", [("", "Fesih", None)]),
        ("[[ spaced target | alias ]]", [("spaced target", None, "alias")]),
        ("**bold [[x]]** and *[[y|z]]*", [("x", None, None), ("y", None, "z")]),
        ("`[[code]]` and ``[[more code]]``", []),
        ("\\[\\[escaped\\]\\] and \\[[half]]", []),
        ("    [[indented code]]\n", []),
        ("```\n[[fenced]]\n```\n\n~~~toml\n[[outputs.influxdb]]\n~~~\n", []),
        ("<div>\n[[html block]]\n</div>\n", []),
        ("[[]] and [[|alias]] and [[a\nb]]", []),
        (
            "| a | b |\n|---|---|\n| [[page\\|alias]] | [[x#h\\|y]] |\n",
            [("page", None, "alias"), ("x", "h", "y")],
        ),
        (
            "- item [[in list]]\n\n> quote [[in quote]]\n",
            [("in list", None, None), ("in quote", None, None)],
        ),
        ("# Heading [[in heading]]\n", [("in heading", None, None)]),
    ],
)
def test_links(markdown: str, expected: list[tuple[str, str | None, str | None]]) -> None:
    assert extract_wikilinks(markdown) == expected


def test_frontmatter_is_not_read_for_links() -> None:
    text = "---\ntags: [[a, b]]\n---\nbody [[x]]\n"
    assert extract_wikilinks(text) == [("x", None, None)]


def test_typed_targets() -> None:
    [(target, heading, alias)] = extract_wikilinks("[[depends_on::module:auth|Auth]]")
    assert (heading, alias) == (None, "Auth")
    assert split_typed_target(target) == ("depends_on", "module:auth")
    assert split_typed_target("module:auth") == (None, "module:auth")
    assert split_typed_target("Şirket içi SSO") == (None, "Şirket içi SSO")
