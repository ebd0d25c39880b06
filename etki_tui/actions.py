"""Every user-facing action of the desk, defined once.

An :class:`ActionDef` carries everything the key binding, the footer, the help screen and
the command palette need: a stable ``id`` (the binding id; a ``keymap:`` section in the
config file remaps by it through ``App.set_keymap``), the default key(s), the Textual
action string, a short footer label, a tooltip and a help sentence, and the *context*
(the screen or pane whose help lists it and whose widget runs it from the palette).

Widgets take their ``BINDINGS`` from :func:`bindings`; nothing else declares a key. The
help screen (:mod:`etki_tui.screens.help`) and the palette provider
(:mod:`etki_tui.providers`) read the same table, with the keys the keymap gave them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from textual.binding import BindingType

from etki_tui.actiondef import ActionDef as ActionDef
from etki_tui.actions_app import APP_ACTIONS
from etki_tui.actions_queue import QUEUE_ACTIONS
from etki_tui.helptext import CONTEXTS as CONTEXTS
from etki_tui.helptext import SHARED_KEYS as SHARED_KEYS
from etki_tui.helptext import WIDGET_KEYS as WIDGET_KEYS

FORBIDDEN_KEYS: frozenset[str] = frozenset(
    {
        "ctrl+s",
        "ctrl+j",
        "ctrl+h",
        "ctrl+m",
        "ctrl+i",
        "ctrl+enter",
    }
)
"""Keys a main verb is never bound to: over SSH and in many terminals Ctrl+S is XOFF
(freezes output), Ctrl+J/Ctrl+M are Enter, Ctrl+H is Backspace, Ctrl+I is Tab and
Ctrl+Enter is not sent at all. The keymap refuses them too."""


ACTIONS: dict[str, ActionDef] = {a.id: a for a in (*QUEUE_ACTIONS, *APP_ACTIONS)}
"""Every action by id: the queue's, then Hafıza's, Raporlar's, the whole desk's and the
modals'."""


ARCHIVED_HIDDEN: frozenset[str] = frozenset(
    {
        *("approve", "convert", "reject", "bulk_approve", "amend"),
        *("note", "claim", "estimate", "page.estimate", "new_request", "import", "assign"),
        *("dispute.resolve_case", "dispute.resolve", "preanalyse"),
    }
)
"""The ids of the actions that write to the project (rulings, notes, claims, estimates,
requests, imports, assignments, resolutions, pre-analyses): the command palette leaves
them out on an archived project, which takes none (a trial found it offering Approve and
Import…, a second one Pre-analyse)."""

_KEY_NAMES = {
    "enter": "Enter",
    "escape": "Esc",
    "slash": "/",
    "question_mark": "?",
    "space": "Space",
    "tab": "Tab",
    "backspace": "Backspace",
    "delete": "Del",
    "left": "←",
    "right": "→",
    "up": "↑",
    "down": "↓",
    "home": "Home",
    "end": "End",
}


def key_label(key: str) -> str:
    """A key as people write it: ``ctrl+r`` -> ``Ctrl+R``, ``slash`` -> ``/``,
    ``f1`` -> ``F1``, ``a`` -> ``a``."""
    *mods, name = key.strip().split("+")
    name = _KEY_NAMES.get(name, name.upper() if len(name) > 1 or mods else name)
    return "+".join([*(m.capitalize() for m in mods), name])


def keys_label(action: ActionDef, keymap: Mapping[str, str] | None = None) -> str:
    """All keys of ``action`` after ``keymap``, e.g. ``? / F1``."""
    return " / ".join(key_label(k) for k in action.keys(keymap))


def bindings(*ids: str) -> list[BindingType]:
    """The bindings for ``ids``, in that order: each a :class:`Binding`, the list typed as
    Textual types a class's ``BINDINGS``."""
    return [ACTIONS[i].binding() for i in ids]


def in_context(context: str) -> list[ActionDef]:
    """The actions of one context, in definition order."""
    return [a for a in ACTIONS.values() if a.context == context]


def live_in(context: str) -> list[ActionDef]:
    """The actions whose keys work on the screen of ``context``: its own, then the
    desk-wide ones it shares (:data:`SHARED_KEYS`), in that order."""
    return [*in_context(context), *(ACTIONS[i] for i in SHARED_KEYS.get(context, ()))]


def forbidden(keys: Iterable[str]) -> list[str]:
    """The keys of ``keys`` that no action may use (see :data:`FORBIDDEN_KEYS`)."""
    return [k for k in keys if k.strip().lower() in FORBIDDEN_KEYS]


TAB_CONTEXTS = ("queue", "hafiza", "raporlar")
"""The tab contexts: each one's keys work together with the ``app`` context's."""


def _scope(context: str) -> frozenset[str]:
    """The contexts whose keys are live together with ``context``'s."""
    if context == "app":
        return frozenset((*TAB_CONTEXTS, "app"))
    if context in TAB_CONTEXTS:
        return frozenset((context, "app"))
    return frozenset((context,))


def _live_together(a: ActionDef, b: ActionDef) -> bool:
    """Whether the keys of ``a`` and ``b`` work on one screen at one time: their
    contexts' scopes meet, or one's screen shares the other (:data:`SHARED_KEYS`)."""
    return (
        b.context in _scope(a.context)
        or b.id in SHARED_KEYS.get(a.context, ())
        or a.id in SHARED_KEYS.get(b.context, ())
    )


def _clashing(keymap: Mapping[str, str] | None) -> set[tuple[str, str, str]]:
    pairs: set[tuple[str, str, str]] = set()
    for a in ACTIONS.values():
        keys_a = {k.lower() if len(k) > 1 else k for k in a.keys(keymap)}
        for b in ACTIONS.values():
            if b.id <= a.id or not _live_together(a, b):
                continue
            keys_b = {k.lower() if len(k) > 1 else k for k in b.keys(keymap)}
            for key in keys_a & keys_b:
                pairs.add((key, a.id, b.id))
    return pairs


def keymap_clashes(keymap: Mapping[str, str]) -> list[tuple[str, str, str]]:
    """The keys ``keymap`` binds to an action that another action live at the same time
    (same tab or dialog, or everywhere) already uses: ``(key, remapped id, other id)``
    tuples, sorted. A key two actions share by default (``/``: the queue's find and
    the wiki search, one per tab) is not a clash of the keymap's making."""
    default = _clashing(None)
    out: list[tuple[str, str, str]] = []
    for key, a, b in sorted(_clashing(keymap) - default):
        if a in keymap:
            out.append((key, a, b))
        elif b in keymap:
            out.append((key, b, a))
    return out
