"""Markdown -> plain text for scoring: re-exported from :mod:`etki.mdtext.plain`, the
markdown-to-text kernel's plain reading (issue 31), so the old import path keeps
working."""

from __future__ import annotations

from etki.mdtext.plain import CELL_SEPARATOR, markdown_plain

__all__ = ["CELL_SEPARATOR", "markdown_plain"]
