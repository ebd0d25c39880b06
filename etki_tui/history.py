"""Back/forward history of the Hafıza reader (pure; frogmouth's model).

A page that is *opened* (Enter on an entry, a followed link, the palette) is pinned in
the history. Pages merely previewed while the cursor moves through the list replace each
other (an unpinned entry), so Back goes to what you read, not to every row you passed.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class History:
    """A browser-like stack of wiki-relative page paths."""

    entries: list[tuple[str, bool]] = field(default_factory=list)
    """(path, pinned), oldest first."""
    index: int = -1

    @property
    def current(self) -> str | None:
        """The page shown now, or None."""
        return self.entries[self.index][0] if 0 <= self.index < len(self.entries) else None

    @property
    def can_back(self) -> bool:
        return self.index > 0

    @property
    def can_forward(self) -> bool:
        return self.index < len(self.entries) - 1

    def visit(self, path: str, *, pin: bool) -> None:
        """Show ``path``: a preview (``pin=False``) replaces an unpinned current entry;
        otherwise the forward history is dropped and ``path`` is added."""
        if self.current == path:
            if pin:
                self.entries[self.index] = (path, True)
            return
        if not pin and 0 <= self.index < len(self.entries) and not self.entries[self.index][1]:
            self.entries[self.index] = (path, False)
            del self.entries[self.index + 1 :]
            return
        del self.entries[self.index + 1 :]
        self.entries.append((path, pin))
        self.index = len(self.entries) - 1

    def back(self) -> str | None:
        """Move back; the page to show, or None at the start."""
        if not self.can_back:
            return None
        self.index -= 1
        return self.current

    def forward(self) -> str | None:
        """Move forward; the page to show, or None at the end."""
        if not self.can_forward:
            return None
        self.index += 1
        return self.current

    def position(self) -> str:
        """``2/3`` (or ``""`` when empty)."""
        return f"{self.index + 1}/{len(self.entries)}" if self.entries else ""

    def label(self) -> str:
        """The position in words, for the reader's bar: ``history 2 of 3`` (the page
        shown is the 2nd of the 3 in the back/forward history), or ``""`` when empty."""
        return f"history {self.index + 1} of {len(self.entries)}" if self.entries else ""

    def clear(self) -> None:
        """Forget everything."""
        self.entries.clear()
        self.index = -1
