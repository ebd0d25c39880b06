"""Text boxes whose editing keys act in the order they were typed.

Textual inserts a printable key in the focused :class:`~textual.widgets.Input` as soon
as the box handles the key, but runs the box's key *bindings* (Backspace, Delete, the
arrows, Home/End, Enter ...) only when the key has bubbled up to the app. When keys
arrive faster than the desk handles them — a filter or a search runs on every keystroke
— a binding key is overtaken by the letters typed after it: ``x y Backspace z`` would
run as ``x y z Backspace`` and leave ``xy``, though the terminal sent the bytes in order.
:class:`TypingInput` runs its own editing bindings when it handles the key, in order.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual import events
from textual.binding import Binding
from textual.geometry import Region
from textual.widgets import Input

__all__ = ["TypingInput"]


def _editing_actions() -> dict[str, str]:
    """Key -> action of :class:`~textual.widgets.Input`'s own bindings (its class
    ``BINDINGS``: Binding objects or ``(key, action, description)`` tuples)."""
    actions: dict[str, str] = {}
    for item in Input.BINDINGS:
        binding = item if isinstance(item, Binding) else Binding(*item)
        for key in binding.key.split(","):
            actions[key.strip()] = binding.action
    return actions


class TypingInput(Input):
    """An :class:`~textual.widgets.Input` that runs its editing bindings (the keys of
    :data:`EDITING`) as it handles each key, so they keep their place among the letters.
    Everything else (printable keys, Escape, Tab, the desk's keys) is as in ``Input``.

    A box that loses the focus shows the start of what it holds, and the cursor again
    when it gets it back: at 80 columns the Hafıza search box is 30 cells wide, and a
    long query read as its last words only (a trial) while the results were read."""

    EDITING: dict[str, str] = _editing_actions()
    """Input's key -> action, read from Textual's own ``Input.BINDINGS``."""

    async def on_key(self, event: events.Key) -> None:
        action = self.EDITING.get(event.key)
        if action is None or event.is_printable:
            return
        event.stop()
        event.prevent_default()
        await self.run_action(action)

    def on_blur(self, event: events.Blur) -> None:
        self.scroll_to(0, 0, animate=False, immediate=True)

    def on_focus(self, event: events.Focus) -> None:
        cursor = cell_len(self.value[: self.cursor_position])
        self.scroll_to_region(Region(cursor, 0, width=1, height=1), force=True, animate=False)
