"""Keys typed right after a key that opens a form land in the form (issue 34 item 5).

Textual hands each key the app receives to the focused widget at once, and runs a
widget's (non-priority) key binding only when the key has come back up from that
widget. A burst (tmux ``send-keys``, one SSH packet: ``n`` and a title) was therefore
handed to the queue's table whole before ``n`` asked for the new-request form, and the
title's letters ran as queue commands (``i`` opened the import form). And a form is
pushed by the app once the pane's request message reaches it, then composed, then
focused: keys arriving meanwhile reached no box.

So the queue's keys that open a form or dialog (:attr:`ActionDef.opens`) are priority
bindings: they run as the app receives them, before the keys after them are handed
out. From then the app *holds* the keys it receives (:meth:`TypeAhead.keep`) until the
request has been answered: the pane's action posts its request, then the app posts
:class:`TypedAhead` from the same pane, so it reaches the app after the request, by the
same way up. By then the form is pushed (:meth:`TypeAhead.settle` waits for it to be
mounted); the held keys are then typed, in order, into what has the focus on it — the
form's first box — as if they had just arrived (:meth:`TypeAhead.type_held`). When no
form opened (nothing highlighted, the case ruled meanwhile: a toast said why) the held
keys were meant for a form that is not there: they are dropped, and the status line
says so, rather than run as queue commands. Only Textual's public API is used
(``Screen.active_bindings``, ``AwaitMount``, ``App.on_event``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field

from textual import events
from textual.dom import DOMNode
from textual.message import Message
from textual.screen import Screen
from textual.widget import AwaitMount

from etki_tui.actiondef import ActionDef

HOLD_AT_MOST_S = 10.0
"""A hold ends by itself after this long (its answer never came: the pane that asked
was removed meanwhile), so a desk never stays deaf. The answer takes a few
milliseconds idle; the bound is wide because a hold that ends before its form is up
drops the keys, and on a loaded two-core machine the desk has been seen to stall for
seconds (issue 34's trials, load 15)."""


class TypedAhead(Message):
    """The answer to an opening key's request has reached the app (posted after it
    from the node whose binding ran, so it arrives after the request): the held keys
    can be typed into the form it opened."""

    def __init__(self, token: int) -> None:
        super().__init__()
        self.token = token


@dataclass
class TypeAhead:
    """The keys held since an opening key ran, and where they go once its form is up.
    ``actions``: every action definition (the ones with ``opens`` count)."""

    actions: Mapping[str, ActionDef]
    held: list[events.Key] = field(default_factory=list)
    below: Screen | None = None
    """The screen the opening key was pressed on (None: not holding)."""
    token: int = 0
    opener: str = ""
    """The opening key, as the status line names it when keys are dropped."""

    @property
    def holding(self) -> bool:
        return self.below is not None

    def opening(self, screen: Screen, key: str, keymap: Mapping[str, str]) -> DOMNode | None:
        """The node whose priority binding of an opening action ``key`` runs on
        ``screen`` now (enabled: its ``check_action`` allows it), or None."""
        ids = {a.id for a in self.actions.values() if a.opens and key in a.keys(keymap)}
        if not ids:
            return None
        active = screen.active_bindings.get(key)
        if active is None or not active.enabled or not active.binding.priority:
            return None
        return active.node if active.binding.id in ids else None

    def hold(self, screen: Screen, key: str) -> int:
        """Start holding keys: ``key`` opened (or asked for) a form over ``screen``."""
        self.token += 1
        self.below, self.opener = screen, key
        return self.token

    def keep(self, event: events.Key) -> bool:
        """Hold ``event`` when a hold is on (True), else leave it to the app."""
        if self.below is None:
            return False
        self.held.append(event)
        return True

    async def settle(self, screen: Screen, token: int) -> bool:
        """The answer of hold ``token`` came: wait until the form it opened (the app's
        ``screen`` now) is mounted, so its first box has the focus. False when the
        hold is no longer that one."""
        if token != self.token or self.below is None:
            return False
        if screen is not self.below and not screen.is_mounted:
            await AwaitMount(screen, [screen])
        return True

    async def type_held(
        self,
        token: int,
        screen: Screen,
        handle: Callable[[events.Key], Awaitable[None]],
        dropped: Callable[[str, int], None],
    ) -> None:
        """End hold ``token``: hand its keys to ``handle`` in order (the app's own way
        in, so a key that opens another form holds the rest again) when a form opened
        over the screen the key was pressed on, else drop them (``dropped(key, n)``)."""
        if token != self.token or self.below is None:
            return
        keys, below, opener = self.held, self.below, self.opener
        self.held, self.below = [], None
        if screen is below:
            if keys:
                dropped(opener, len(keys))
            return
        for key in keys:
            if self.keep(key):  # a key typed into the form opened another one
                continue
            await handle(key)
