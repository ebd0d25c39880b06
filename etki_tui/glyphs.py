"""Glyphs the desk draws in its grid, chosen to be one cell wide in every terminal."""

WARN = "!"
"""The warning glyph of the desk's marks (DISPUTED, RULED, ALREADY RULED, TOO SMALL).
ASCII on purpose: U+26A0 ⚠ is one cell to Rich and Textual but two cells in tmux 3.3a
(it pads it like an emoji), so a row holding it was drawn one cell wider than laid out
and lost its last character ("high 24" for "high 24h" at 80 columns, seen in a fresh
reviewer's tmux session)."""


UNSURE_MARK = "?"
"""Drawn after the confidence of a case the engine is not sure of (ASCII, one cell: it
reads without colour, NO_COLOR or a text capture)."""


CURSOR_MARK = "▸"
"""Drawn in the first cell of the highlighted row when NO_COLOR is set, so the row
reads as selected even where reverse video is lost (a text capture, a terminal that
drops attributes): meaning never rides on a style alone."""


CLAIM_MARK = "@"
"""Drawn before the id of a case another reviewer claimed: one cell, so a claim takes
two cells (the mark and a space) from the queue's titles, not four (``@AY `` did, a later
trial of issue 34 at 80x24); the detail's first line and title name the claimant in full
(``@ claimed by Ayşe Yılmaz``). ASCII: it reads with NO_COLOR too."""


ASSIGNED_MARK = ">"
"""Drawn before the id of a pending case assigned to another reviewer (``etki assign``,
``g``), where no claim mark is (a later trial of issue 34: at 80x24 nothing in the queue
said a case was someone else's): one ASCII cell like :data:`CLAIM_MARK`, in the same
place; the detail's first line names the assignee (``> assigned to Jürgen Weiß``)."""

TICKED = "X"
"""Inside the box of a ticked entry of a list to tick (the change request's clauses):
Textual's SelectionList draws ``X`` in every box and tells ticked from not by colour
alone, which NO_COLOR and a text capture lose (a PMO trial of issue 35). ASCII, one
cell."""

UNTICKED = " "
"""Inside the box of an entry not ticked (:data:`TICKED`): blank, one cell."""

RADIO_ON = "●"
"""Inside the button of the chosen radio button; :data:`RADIO_OFF` in the others.
Textual draws ``●`` in every one and tells the chosen one by colour alone, which NO_COLOR
and a text capture lose (a PMO trial of issue 35: the CR form's format). One cell, as
Textual's own ``●``."""

RADIO_OFF = "○"
"""Inside the button of a radio button not chosen (:data:`RADIO_ON`): one cell."""
