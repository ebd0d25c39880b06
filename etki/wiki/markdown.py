"""Untrusted text as literal markdown: re-exported from :mod:`etki.mdtext.literal`, the
markdown-to-text kernel's escaping part (issue 31), so the old import path keeps
working."""

from __future__ import annotations

from etki.mdtext.literal import md_block, md_code, md_inline, md_paragraphs, md_table

__all__ = ["md_block", "md_code", "md_inline", "md_paragraphs", "md_table"]
