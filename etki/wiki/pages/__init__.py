"""The wiki's pages: rows in, bytes out (DESIGN.md, "Wiki").

The wiki is a projection of the database: every page is a pure function of the stored
:class:`~etki.domain.Project` and :class:`~etki.domain.CaseRecord` values. No clock, no
randomness, no absolute paths; lists are sorted; frontmatter is written by
:func:`etki.frontmatter.dump_frontmatter` (``yaml.safe_dump``, sorted keys, through its
memo :func:`etki.frontmatter.frontmatter_bytes`), never by string formatting; text is
UTF-8 with LF line endings and exactly one trailing newline. The same rows in any order
give the same bytes. Page paths come from :mod:`etki.wiki.paths`; client text is a YAML
*value* in frontmatter and literal markdown in the body (:mod:`etki.mdtext.literal`).

Page dependencies are kept narrow on purpose so a ruling only changes the pages
:func:`render_case_pages` returns: a decision or precedent page depends only on its own
case and the project's clause titles; a contract page on the cases citing its clauses; a
module page on the cases impacting it; ``index.md`` and ``disputed.md`` on everything.

The shared pages are rendered from a :class:`~etki.wiki.model.WikiModel`, their
fragments (table rows per case, sections per clause, lists, frontmatter entries) kept in
its :class:`~etki.wiki.model.PageCache`. The HITL hook keeps one model alive between
rulings and re-renders only what a change touches (:func:`render_changed`); a full
render builds one from scratch (:func:`render_wiki`, :func:`render_model`). Both give the
same bytes (``tests/test_wiki_render.py`` checks it over random sequences of changes).

The renderers are one module per page kind (issue 31), this package re-exporting the
names other modules import:

* :mod:`~etki.wiki.pages.shared`: ``index.md``, ``disputed.md`` and the helpers every
  page uses (page frame, frontmatter values, ruling rows, risk and effort sections);
* :mod:`~etki.wiki.pages.decision`: a ruled case's decision page and its saved
  pre-analysis section;
* :mod:`~etki.wiki.pages.precedent`: an override's precedent page;
* :mod:`~etki.wiki.pages.cr`: the draft change-request page (:func:`render_cr_page`);
* :mod:`~etki.wiki.pages.entities`: contract and module pages;
* :mod:`~etki.wiki.pages.tree`: the whole tree, the render after a change and the
  render cache's page keys.
"""

from __future__ import annotations

from etki.wiki.pages.cr import CR_DEFAULT_ASSUMPTIONS, DECIDING_STEPS, render_cr_page
from etki.wiki.pages.decision import NO_PREANALYSIS, PREANALYSIS_HEADING, preanalysis_lines
from etki.wiki.pages.shared import LAST_RULINGS, effort_basis_markdown
from etki.wiki.pages.tree import (
    case_page_paths,
    page_keys,
    render_case_pages,
    render_changed,
    render_model,
    render_wiki,
    stale_case_pages,
)

__all__ = [
    "CR_DEFAULT_ASSUMPTIONS",
    "DECIDING_STEPS",
    "LAST_RULINGS",
    "NO_PREANALYSIS",
    "PREANALYSIS_HEADING",
    "case_page_paths",
    "effort_basis_markdown",
    "page_keys",
    "preanalysis_lines",
    "render_case_pages",
    "render_changed",
    "render_cr_page",
    "render_model",
    "render_wiki",
    "stale_case_pages",
]
