"""Glyphs the desk draws in its grid, chosen to be one cell wide in every terminal."""

WARN = "!"
"""The warning glyph of the desk's marks (DISPUTED, RULED, ALREADY RULED, TOO SMALL).
ASCII on purpose: U+26A0 ⚠ is one cell to Rich and Textual but two cells in tmux 3.3a
(it pads it like an emoji), so a row holding it was drawn one cell wider than laid out
and lost its last character ("high 24" for "high 24h" at 80 columns, seen in a fresh
reviewer's tmux session)."""
