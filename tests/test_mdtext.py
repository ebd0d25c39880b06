"""The markdown-to-text kernel :mod:`etki.mdtext` (issue 31): one parser and one list of
HTML block tags under the plain reading (scoring text), the display reading (clause
markdown) and the literal writer (escaping), which replaced the two copies in
``etki/knowledge/plaintext.py`` and ``etki/wiki/clauses.py``.

The expected values are what the two copies gave before the move (computed with them,
and compared over 35,000 texts: every contract, test string and hostile case of the
repository, and random mixes of hostile pieces), so the move changed no byte of the
scoring text or the wiki's clause markdown. Hostile inputs: HTML blocks (tables,
scripts, comments), unclosed fences, Turkish and German text (İ/ı, ş, ß, NFD), markup
brackets and terminal controls, and ``../shared/cases`` B18/B19 where present.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from etki.mdtext import BLOCK_TAGS, clause_markdown, markdown_plain

CASES = Path(__file__).resolve().parents[2] / "shared" / "cases"
needs_cases = pytest.mark.skipif(not CASES.is_dir(), reason="../shared/cases is absent")

# name: (markdown, plain reading, display reading)
PINNED = {
    "html table with bold, italic and an entity": (
        (
            "<table>\n<thead><tr><th>Hizmet</th><th>Süre</th></tr></thead>\n<tbody>\n"
            "<tr><td>Kurulum <b>dahil</b></td><td>5 iş günü</td></tr>\n"
            "<tr><td>Eğitim &amp; destek</td><td><i>ücretli</i></td></tr>\n</tbody>\n</table>\n"
        ),
        "Hizmet | Süre\nKurulum dahil | 5 iş günü\nEğitim & destek | ücretli",
        "Hizmet · Süre\n\n- Kurulum **dahil** · 5 iş günü\n- Eğitim & destek · *ücretli*",
    ),
    "html block with a script, a comment, a span and a list": (
        (
            '<div>\n<p>Kapsam: <span class="underline">Google Form</span> entegrasyonu.</p>\n'
            '<script>alert("x")</script>\n<!-- gizli not -->\n'
            '<ul><li>birinci</li><li>ikinci <a href="https://x.org">bağlantı</a></li></ul>\n'
            "</div>\n"
        ),
        "Kapsam: Google Form entegrasyonu.\nbirinci\nikinci bağlantı",
        "Kapsam: Google Form entegrasyonu.\n\n- birinci\n- ikinci bağlantı",
    ),
    "unclosed fence runs to the end": (
        "Giriş paragrafı.\n\n```yaml\nkey: value\n# yorum\n\nsürüyor",
        "Giriş paragrafı.\nkey: value\n# yorum\nsürüyor",
        "Giriş paragrafı.\n\n```text\nkey: value\n# yorum\n\nsürüyor\n```",
    ),
    "unclosed tilde fence holding backticks": (
        "- madde bir\n- madde iki\n\n~~~\n`tick` ```\n",
        "madde bir\nmadde iki\n`tick` ```",
        "- madde bir\n- madde iki\n\n````text\n`tick` ```\n````",
    ),
    "turkish, hard-wrapped, with a wikilink and a quoted list": (
        (
            "İŞLETME, **yüklenicinin** sunduğu\nhizmetleri *ıslak imzalı* onay\nolmadan kabul "
            "etmez; ŞARTNAME [[Sözleşme#Fesih|fesih maddesi]] saklıdır.\n\n"
            "> - alıntı içinde liste: ğüşöçı\n"
        ),
        (
            "İŞLETME, yüklenicinin sunduğu hizmetleri ıslak imzalı onay olmadan kabul etmez; "
            "ŞARTNAME fesih maddesi saklıdır.\nalıntı içinde liste: ğüşöçı"
        ),
        (
            "İŞLETME, **yüklenicinin** sunduğu hizmetleri *ıslak imzalı* onay olmadan kabul "
            "etmez; ŞARTNAME fesih maddesi saklıdır.\n\n- alıntı içinde liste: ğüşöçı"
        ),
    ),
    "german with NFD umlauts and web addresses": (
        (
            "Die Gebu\u0308hr fu\u0308r Straße und MASSE wird **nicht** erstattet.\n"
            "Siehe <https://example.de/agb> und www.example.de.\n"
        ),
        "Die Gebu\u0308hr fu\u0308r Straße und MASSE wird nicht erstattet. Siehe und .",
        (  # NFC here (md_inline), where the plain reading keeps the source's NFD
            "Die Gebühr für Straße und MASSE wird **nicht** erstattet. Siehe "
            "https\\://example\\.de/agb und www\\.example\\.de."
        ),
    ),
    "stray bold marks, typed and blank-alias wikilinks, escapes, code": (
        (
            "**(**QASP) kapsamı [[depends_on::module:auth]] ve [[x|  ]] ile "
            "\\[\\[kaçış\\]\\] ve `[[kod]]`."
        ),
        "(QASP) kapsamı module:auth ve x ile [[kaçış]] ve kod.",
        "(QASP) kapsamı module:auth ve x ile \\[\\[kaçış\\]\\] ve `[[kod]]`.",
    ),
    "markup brackets and terminal controls": (
        (
            "[bold]kalın[/bold] [@click=quit]tıkla[/] \x1b[31mkırmızı\x1b[0m "
            "\u202egizli\u202c <br/> son"
        ),
        "[bold]kalın[/bold] [@click=quit]tıkla[/] \x1b[31mkırmızı\x1b[0m \u202egizli\u202c son",
        (
            "\\[bold\\]kalın\\[/bold\\] \\[\\@click=quit\\]tıkla\\[/\\] ␛\\[31mkırmızı␛\\[0m "
            "\ufffdgizli\ufffd son"
        ),
    ),
    "headings, a markdown table, a rule and a setext heading": (
        (
            "# Başlık\n\nMetin.\n\n| Kalem | Tutar |\n|---|---:|\n| Lisans | 10 TL |\n"
            "| `kod` | ~~5~~ |\n\n---\n\nSetext başlık\n-------------\n"
        ),
        "Başlık\nMetin.\nKalem | Tutar\nLisans | 10 TL\nkod | 5\nSetext başlık",
        (
            "**Başlık**\n\nMetin.\n\nKalem · Tutar\n\n- Lisans · 10 TL\n- `kod` · ~~5~~\n\n"
            "**Setext başlık**"
        ),
    ),
    "nested and loose lists": (
        "1. bir\n   - alt *a*\n   - alt b\n\n     devam paragrafı\n2. iki\n",
        "bir\nalt a\nalt b\ndevam paragrafı\niki",
        "1. bir\n   - alt *a*\n\n   - alt b\n\n     devam paragrafı\n\n2. iki",
    ),
    "no words": (" \n\n\t", "", ""),
}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_both_readings_of_hostile_markdown_are_pinned(name):
    markdown, plain, display = PINNED[name]
    assert markdown_plain(markdown) == plain
    assert clause_markdown(markdown) == display


@needs_cases
def test_b18_wikilinks_in_tables_code_and_escapes():
    text = (CASES / "B18-wikilinks.md").read_text(encoding="utf-8")
    assert markdown_plain(text) == (
        'case_id: VAKA-0040 title: "Bağlantılar"\nBağlantılar\nKonu | Bağlantı\n'
        "SSO | SSO sayfası\nFatura | 3. madde\nMetin içinde fesih maddesi ve VAKA-0042.\n"
        'Satır içi kod: değil-link\nif [[ -n "$x" ]]; then echo ok; fi\n'
        "[[outputs.influxdb]]\nKaçışlı: [[bu da değil]]"
    )
    assert clause_markdown(text) == (
        '**case_id: VAKA-0040 title: "Bağlantılar"**\n\n**Bağlantılar**\n\n'
        "Konu · Bağlantı\n\n- SSO · SSO sayfası\n- Fatura · 3\\. madde\n\n"
        "Metin içinde fesih maddesi ve VAKA-0042.\n\nSatır içi kod: `[[değil-link]]`\n\n"
        '```text\nif [[ -n "$x" ]]; then echo ok; fi\n```\n\n'
        "```text\n[[outputs.influxdb]]\n```\n\nKaçışlı: \\[\\[bu da değil\\]\\]"
    )


@needs_cases
def test_b19_headings_in_code_and_setext_headings():
    text = (CASES / "B19-contract-headings.md").read_text(encoding="utf-8")
    assert markdown_plain(text) == (
        "Hizmet Sözleşmesi\nGiriş metni.\nMadde 1 – Kapsam\nKapsam metni.\n"
        "# Bu bir yorum, başlık değil\nx = 1\nMadde 2 – Ücret\nÜcret metni.\n"
        "#1 numaralı ek başlık değildir\nMadde 3 – Fesih\nFesih metni.\n"
        "# girintili kod, başlık değil\n## Bu da kod içinde"
    )
    assert clause_markdown(text) == (
        "**Hizmet Sözleşmesi**\n\nGiriş metni.\n\n**Madde 1 – Kapsam**\n\nKapsam metni.\n\n"
        "```text\n# Bu bir yorum, başlık değil\nx = 1\n```\n\n**Madde 2 – Ücret**\n\n"
        "Ücret metni.\n\n\\#1 numaralı ek başlık değildir\n\n**Madde 3 – Fesih**\n\n"
        "Fesih metni.\n\n```text\n# girintili kod, başlık değil\n```\n\n"
        "```text\n## Bu da kod içinde\n```"
    )


@pytest.mark.parametrize("tag", sorted(BLOCK_TAGS))
def test_one_block_tag_list_means_the_same_in_both_readings(tag):
    """Every tag of the one list ends a line of the plain reading and a paragraph of
    the display reading; an inline tag does neither."""
    html = f"<div>\n<{tag}>eins</{tag}><{tag}>zwei</{tag}>\n</div>\n"
    assert markdown_plain(html) == "eins\nzwei"
    assert clause_markdown(html) == "eins\n\nzwei"


@pytest.mark.parametrize("tag", ["span", "a", "u"])
def test_inline_html_tags_keep_their_text_on_the_line(tag):
    html = f"<div>\n<{tag}>eins</{tag}><{tag}>zwei</{tag}>\n</div>\n"
    assert markdown_plain(html) == clause_markdown(html) == "einszwei"


def test_old_import_paths_are_the_kernel():
    import etki.knowledge.links as links
    import etki.knowledge.plaintext as plaintext
    import etki.mdtext.display as display
    import etki.mdtext.literal as literal
    import etki.mdtext.parser as parser
    import etki.mdtext.plain as plain
    import etki.wiki.clauses as clauses
    import etki.wiki.markdown as markdown

    assert plaintext.markdown_plain is plain.markdown_plain
    assert plaintext.CELL_SEPARATOR is plain.CELL_SEPARATOR
    assert clauses.clause_markdown is display.clause_markdown
    assert clauses.CELL_JOIN is display.CELL_JOIN
    assert links.markdown_parser is parser.markdown_parser
    for name in ("md_block", "md_code", "md_inline", "md_paragraphs", "md_table"):
        assert getattr(markdown, name) is getattr(literal, name)


def test_the_literal_part_loads_no_markdown_parser():
    """Escaping client text (the wiki's pages, the CR export) needs no parser: importing
    :mod:`etki.mdtext.literal` leaves markdown-it-py unloaded (issue 32's light start)."""
    code = (
        "import sys\nimport etki.mdtext.literal\n"
        "print(any(m.split('.')[0] == 'markdown_it' for m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
