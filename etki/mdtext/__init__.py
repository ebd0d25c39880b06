"""The markdown-to-text kernel (issue 31): how Etki reads markdown it did not write (a
contract's clauses) and writes markdown from text it must not trust (client text), in
one place below :mod:`etki.domain`. It imports nothing of Etki but the helpers
:mod:`etki.text` and :mod:`etki.lazy` (an import-linter contract keeps it so).

* :mod:`~etki.mdtext.parser`: the one parser (:func:`markdown_parser`, markdown-it-py)
  and what both readings share: wikilink words, stray ``**``, the one list of HTML
  block tags;
* :mod:`~etki.mdtext.plain`: the plain reading for scoring, one line per block, no
  markup (:func:`markdown_plain`, ``ScopeClause.plain``);
* :mod:`~etki.mdtext.display`: the display reading of a clause, clean markdown for
  readers (:func:`clause_markdown`, the wiki's contract pages and the desk);
* :mod:`~etki.mdtext.literal`: untrusted text as literal markdown (:func:`md_inline`,
  :func:`md_block`, ...).

The names are re-exported here and imported on first use (PEP 562), so importing
:mod:`etki.mdtext.literal` does not load markdown-it-py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from etki.lazy import lazy_exports

if TYPE_CHECKING:
    from etki.mdtext.display import CELL_JOIN, clause_markdown
    from etki.mdtext.literal import md_block, md_code, md_inline, md_paragraphs, md_table
    from etki.mdtext.parser import BLOCK_TAGS, markdown_parser
    from etki.mdtext.plain import CELL_SEPARATOR, markdown_plain

_LAZY = {
    "CELL_JOIN": "etki.mdtext.display",
    "clause_markdown": "etki.mdtext.display",
    "md_block": "etki.mdtext.literal",
    "md_code": "etki.mdtext.literal",
    "md_inline": "etki.mdtext.literal",
    "md_paragraphs": "etki.mdtext.literal",
    "md_table": "etki.mdtext.literal",
    "BLOCK_TAGS": "etki.mdtext.parser",
    "markdown_parser": "etki.mdtext.parser",
    "CELL_SEPARATOR": "etki.mdtext.plain",
    "markdown_plain": "etki.mdtext.plain",
}
"""Re-exported name -> the module defining it, imported on first use."""


__getattr__ = lazy_exports(__name__, _LAZY)


__all__ = [
    "BLOCK_TAGS",
    "CELL_JOIN",
    "CELL_SEPARATOR",
    "clause_markdown",
    "markdown_parser",
    "markdown_plain",
    "md_block",
    "md_code",
    "md_inline",
    "md_paragraphs",
    "md_table",
]
