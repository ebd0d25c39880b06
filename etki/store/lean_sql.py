"""The pieces of the lean read path (:mod:`etki.store.lean`) that its helper modules
share without importing it: the case order, the ``IN (...)`` chunk size, the ruled rows'
query and shape, and :class:`Fallback`. :mod:`etki.store.lean` re-exports them; a helper
such as :mod:`etki.store.lean_disputes` imports them from here, so no two modules of the
store import each other (tests/test_layers.py)."""

from __future__ import annotations

__all__ = ["ARRIVAL", "CHUNK", "RULED_ROWS", "Fallback", "RuledRow"]

RuledRow = tuple[str, str, str, str, str, tuple[str, ...], str | None]
"""What :meth:`etki.store.lean.LeanStore.ruled_rows` gives per ruled case;
:data:`etki.memory.RuledRow` (the store imports nothing above it, so the shape is
written out here too)."""

ARRIVAL = "c.created_at, c.seq, c.id"
"""The order cases are listed in, as :data:`etki.store.repository.rows.ARRIVAL`."""
CHUNK = 500
"""Case ids per ``IN (...)`` list (SQLite's default limit is 32,766 variables)."""


class Fallback(Exception):
    """The lean path cannot answer this store exactly as the ORM path would; the caller
    runs the ORM path (nothing has been printed). The message says why (for tests and
    ``ETKI_DEBUG``; never shown to the user)."""


RULED_ROWS = (
    # what `etki dispute list` needs of each ruled case: the ruling's columns and the
    # summary of its decision kept on the ruling's row (migration 0008)
    "SELECT c.id, r.ruling, r.reviewer, r.ruled_at, r.reason, r.cited_refs, r.deciding_ref "
    "FROM cases c JOIN rulings r ON r.case_id = c.id "
    "WHERE c.project_id = ? AND c.status = 'ruled'"
)
"""Per ruled case of a project (any order): id, ruling, reviewer, ruled at, reason, the
decision's cited refs (a JSON array; NULL only in a row no writer of this schema made)
and its deciding ref (NULL: none), :meth:`etki.store.lean.LeanStore.ruled_rows`. No decision is read."""
