"""A clause's display form: re-exported from :mod:`etki.mdtext.display`, the
markdown-to-text kernel's display reading (issue 31), so the old import path (the desk's
detail pane, the wiki's contract pages) keeps working."""

from __future__ import annotations

from etki.mdtext.display import CELL_JOIN, clause_markdown

__all__ = ["CELL_JOIN", "clause_markdown"]
