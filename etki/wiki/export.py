"""A change request as a document: the client-facing one ``etki cr export`` writes
(:func:`client_cr`, issue 35 item 1: :mod:`etki.wiki.clientcr`, :mod:`etki.wiki.crdocx`)
and the wiki page's own export (issue 14 item 5).

The wiki page's export has two forms, both pure functions of the stored project and case (no clock, no file
system; the wiki need not be on):

* **md** (:func:`cr_markdown`): the wiki's change-request page
  (:func:`etki.wiki.pages.render_cr_page`), frontmatter and all, with every link to
  another wiki page written as its words only. Inside the wiki those links are
  relative paths (``../decisions/DEC-….md``, ``../entities/contracts/MSA.md``); in a
  file sent to a client they would point at nothing, so the sent copy keeps the
  names (the decision page's id, the clause and module labels) and drops the
  targets. Apart from that it is the page byte for byte: the same client text,
  escaped the same way.
* **html** (:func:`cr_html`): a standalone HTML5 document of that markdown's body
  rendered by markdown-it-py (CommonMark, raw HTML off, so every ``<`` of client text
  arrives as ``&lt;``; :func:`etki.mdtext.literal.md_inline` has already escaped every
  link, autolink and emphasis character), with a minimal inline style sheet, no
  script, no external resource, and a Content-Security-Policy that allows none.
"""

from __future__ import annotations

import html
from functools import lru_cache

from markdown_it import MarkdownIt

from etki.domain import CaseRecord, Project
from etki.frontmatter import split_frontmatter
from etki.text import printable
from etki.wiki.pages import render_cr_page
from etki.wiki.paths import cr_id, cr_number

__all__ = ["CSS", "CLIENT_FORMATS", "FORMATS", "client_cr", "cr_filename", "cr_html", "cr_markdown"]

FORMATS: tuple[str, ...] = ("md", "html")
"""The formats of the wiki page's export (:func:`cr_markdown`, :func:`cr_html`)."""

CLIENT_FORMATS: tuple[str, ...] = ("md", "html", "docx")
"""The formats of ``etki cr export --format``: the client-facing change request
(:mod:`etki.wiki.clientcr`) as Markdown, print-ready HTML or Word."""

CSS = (
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;line-height:1.5;"
    "max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}"
    "h1{font-size:1.6rem}h2{font-size:1.25rem;border-bottom:1px solid #ddd;"
    "padding-bottom:.2rem;margin-top:2rem}h3{font-size:1.1rem}h4{font-size:1rem}"
    "pre{background:#f5f5f5;padding:.75rem;white-space:pre-wrap;overflow-wrap:anywhere}"
    "code{font-family:ui-monospace,monospace}"
    "@media print{body{margin:0;max-width:none}}"
)
"""The document's whole style sheet (inline: the file stands alone)."""

_CSP = "default-src 'none'; style-src 'unsafe-inline'"


@lru_cache(maxsize=1)
def _renderer() -> MarkdownIt:
    # CommonMark with raw HTML off: client text can never become a tag
    return MarkdownIt("commonmark", {"html": False, "linkify": False})


def cr_filename(case: CaseRecord, fmt: str) -> str:
    """The file name an export is written under by default: the client's number,
    ``CR-{yyyymmdd}-{tail}.md``, ``.html`` or ``.docx``
    (:func:`etki.wiki.paths.cr_number`: the file goes to the client with the document).
    Raises ``ValueError`` for a case not ruled CHANGE_REQUEST or an unknown format."""
    if fmt not in CLIENT_FORMATS:
        raise ValueError(f"unknown format {fmt!r}; one of {', '.join(CLIENT_FORMATS)}")
    return f"{cr_number(case)}.{fmt}"


def client_cr(project: Project, case: CaseRecord, fmt: str, *, internal: bool = False) -> bytes:
    """The client-facing change request of ``case`` (ruled CHANGE_REQUEST) as ``fmt``
    (one of :data:`CLIENT_FORMATS`), with the internal appendix of the engine's
    deliberation only when ``internal`` (:func:`etki.wiki.clientcr.build_client_cr`).
    Raises ``ValueError`` for a case not ruled CHANGE_REQUEST or an unknown format."""
    from etki.wiki.clientcr import build_client_cr, client_html, client_markdown

    if fmt not in CLIENT_FORMATS:
        raise ValueError(f"unknown format {fmt!r}; one of {', '.join(CLIENT_FORMATS)}")
    doc = build_client_cr(project, case, internal=internal)
    if fmt == "md":
        return client_markdown(doc)
    if fmt == "html":
        return client_html(doc)
    from etki.wiki.crdocx import client_docx  # python-docx only when Word is asked for

    return client_docx(doc)


def cr_markdown(project: Project, case: CaseRecord) -> bytes:
    """The md export: the change-request page without wiki-internal links (see the
    module docstring). Raises ``ValueError`` for a case not ruled CHANGE_REQUEST."""
    return render_cr_page(project, case, links=False)


def cr_html(project: Project, case: CaseRecord) -> bytes:
    """The html export: a standalone UTF-8 HTML5 document of :func:`cr_markdown`'s body
    (see the module docstring). Raises ``ValueError`` for a case not ruled
    CHANGE_REQUEST."""
    text = cr_markdown(project, case).decode("utf-8")
    _, body = split_frontmatter(text, "change request")
    title = printable(case.title or case.case_id, multiline=False)
    head = html.escape(f"{cr_id(case)} — {title}", quote=True)
    doc = (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n'
        "<head>\n"
        '<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="etki cr export">\n'
        f"<title>{head}</title>\n"
        f"<style>{CSS}</style>\n"
        "</head>\n"
        "<body>\n"
        "<article>\n"
        f"{_renderer().render(body).rstrip()}\n"
        "</article>\n"
        "</body>\n"
        "</html>\n"
    )
    return doc.encode("utf-8")
