"""The desk's footer: Textual's :class:`~textual.widgets.Footer`, which leaves out the
keys of lower value while the keys it shows would not fit the terminal's width
(issue 34, a later trial: at 80 columns the queue's footer ran under the palette key,
"? Help" cut to "?" and "q Quit" gone).

Textual's footer lays its keys out left to right and docks the palette key over the
right end: whatever does not fit is hidden under it or past the edge. :class:`DeskFooter`
measures the keys as the footer draws them (:func:`key_width`) and, while they overflow,
drops the ones named in :data:`SPARE`, in that order; the keys themselves still work.

It also recomposes only when what it shows changed. Textual's footer removes every key
and mounts them again on each change of the screen's bindings (a focus change, a screen
pushed), also when the keys are the same. At start-up that happened three or four times
in a row (a probe of ``App._prune``: at 70x20, 16 of 24 footer keys removed while
Textual's ``run_test`` waited for the first screen; at 80x24, 36 during the first
settle). The app awaits each removal in its own message loop, and
``Pilot._wait_for_screen`` waits for the app among the rest: the likely cause of a test
that timed out there once after 30 s on a loaded machine (issue 34; not reproduced in 30
loaded runs). ``tests/test_tui_startup.py`` checks start-up removes no widget.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator

from rich.cells import cell_len
from textual import events
from textual.binding import Binding
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer

SPARE: tuple[str, ...] = ("filters", "find", "dispute.resolve_case", "detail.toggle", "leave")
"""Binding ids the footer leaves out first, in this order, where its keys would not fit:
the queue's ``f`` (filters) and ``/`` (find), which the queue's filter line names
already ("All 30 pending · f filter · / find"); then ``R`` (it acts only on a case citing
a disputed clause, whose mark in the detail names it), then ``z`` (the layout, not the
case) and ``q``, so that the reader's ``j``/``k`` show at 80 columns. What a reviewer
rules with and ``?`` stay. A UI choice from the fresh-reviewer trials of issue 34, not a
measure."""


KEY_PADDING = 3
"""Cells a footer key takes besides its key and its description, in Textual 8's Footer
(non-compact): one each side of the key (``.footer-key--key { padding: 0 1 }``) and one
after the description (``.footer-key--description { padding: 0 1 0 0 }``)."""


PALETTE_EDGE = 2
"""Cells the palette key takes besides :data:`KEY_PADDING`: its left border
(``border-left: vkey``) and its right padding (``FooterKey.-command-palette``)."""


def key_width(key_display: str, description: str) -> int:
    """Cells the footer draws one key in: ``key_display``, ``description`` and
    :data:`KEY_PADDING` (a key without a description is its key alone)."""
    if not description:
        return cell_len(key_display)
    return cell_len(key_display) + cell_len(description) + KEY_PADDING


def footer_label(node: object, binding: Binding) -> str:
    """The word the footer shows for ``binding`` of ``node`` (the widget whose
    bindings it is): what the node's ``footer_label(binding)`` says, when it has one
    and says something, else the binding's description. A key whose effect depends on
    the state it toggles names what it gives now (the queue's ``z``: "Detail" while the
    detail is folded, "List" while the detail has the height)."""
    relabel = getattr(node, "footer_label", None)
    said = relabel(binding) if callable(relabel) else None
    return said if isinstance(said, str) and said else binding.description


def spare_to_drop(widths: Iterable[tuple[str | None, int]], room: int) -> frozenset[str]:
    """The ids of :data:`SPARE` to leave out so that keys of ``widths`` ((binding id,
    cells) in footer order) fit in ``room`` cells: none when they fit, else the first
    spare ones, one by one, until they do (or every spare one is out)."""
    shown = list(widths)
    total = sum(w for _, w in shown)
    dropped: set[str] = set()
    for spare in SPARE:
        if total <= room:
            break
        cut = sum(w for key, w in shown if key == spare)
        if cut:
            dropped.add(spare)
            total -= cut
    return frozenset(dropped)


class DeskFooter(Footer):
    """The footer, leaving out the :data:`SPARE` keys its width has no room for, and
    recomposed only when the keys it would show changed (module docstring)."""

    _dropped: frozenset[str] = frozenset()
    _shown: Hashable = None
    _keys_ready = False
    """Whether the screen has told the footer its bindings (:meth:`bindings_changed`);
    Textual's footer shows no key before that."""

    def bindings_changed(self, screen: Screen) -> None:
        """Textual's handler of the screen's bindings signal, noting that they are told."""
        self._keys_ready = True
        super().bindings_changed(screen)

    def _keys_shown(self) -> Hashable:
        """Everything :meth:`compose` reads: whether the bindings are ready, the footer's
        switches, each shown binding with its display, state and tooltip, and the spare
        keys left out at this width."""
        keys = tuple(
            (
                binding,
                self.app.get_key_display(binding),
                enabled,
                tooltip,
                footer_label(node, binding),
            )
            for node, binding, enabled, tooltip in self.screen.active_bindings.values()
            if binding.show or binding.key == self.app.COMMAND_PALETTE_BINDING
        )
        dropped = self._fitting() if self._keys_ready else frozenset()
        return (self._keys_ready, self.compact, self.show_command_palette, keys, dropped)

    def _fitting(self) -> frozenset[str]:
        """The spare binding ids to leave out at the terminal's width now."""
        app = self.app
        widths: list[tuple[str | None, int]] = []
        actions: set[str] = set()
        for node, binding, _enabled, _tooltip in self.screen.active_bindings.values():
            if not binding.show or binding.action in actions:
                continue  # Textual's footer shows one key per action
            actions.add(binding.action)
            label = footer_label(node, binding)
            widths.append((binding.id, key_width(app.get_key_display(binding), label)))
        room = app.size.width
        palette = self._palette_binding()
        if palette is not None:
            room -= key_width(app.get_key_display(palette), palette.description) + PALETTE_EDGE
        return spare_to_drop(widths, room)

    def _palette_binding(self) -> Binding | None:
        """The palette's binding when the footer shows its key, else None."""
        if not (self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE):
            return None
        found = self.screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
        return found[1] if found is not None else None

    def compose(self) -> Iterator[Widget]:
        """Textual's keys, less the spare ones that do not fit (:meth:`_fitting`),
        each named as its node says now (:func:`footer_label`)."""
        self._shown = self._keys_shown()
        self._dropped = self._fitting() if self._keys_ready else frozenset()
        active = self.screen.active_bindings.values()
        leave_out = {b.action for _n, b, _e, _t in active if b.id in self._dropped}
        relabel = {
            b.action: footer_label(n, b)
            for n, b, _e, _t in active
            if footer_label(n, b) != b.description
        }
        for widget in super().compose():
            # a key of Textual's footer carries its binding's action and the word it
            # draws (FooterKey.action, .description; the class itself is not public API)
            action = getattr(widget, "action", None)
            if action in leave_out:
                continue
            if action in relabel:
                widget.description = relabel[action]  # type: ignore[attr-defined]
            yield widget

    def on_resize(self, event: events.Resize) -> None:
        """Another width: the keys again, if it changes which spare ones fit."""
        if self._keys_ready and self._fitting() != self._dropped:
            self.call_after_refresh(self.recompose)

    async def recompose(self) -> None:
        """Textual's recompose, unless the keys shown would be the same."""
        if self.is_attached and self._shown is not None and self._keys_shown() == self._shown:
            return
        await super().recompose()
