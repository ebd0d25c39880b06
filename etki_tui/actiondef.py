"""One user-facing action of the desk (:class:`ActionDef`): what its key binding, the
footer, the help screen and the command palette need. The actions themselves are in
:mod:`etki_tui.actions_queue` (the queue) and :mod:`etki_tui.actions_app` (Hafıza,
Raporlar, everywhere and the modals); :mod:`etki_tui.actions` joins them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True)
class ActionDef:
    """One action.

    ``id``: binding id and keymap name. ``key``: default key(s), comma-separated.
    ``action``: Textual action string, run in the namespace of the widget that binds it
    (``context`` names it). ``label``: footer text. ``tooltip``: footer tooltip and
    palette help. ``help``: the help screen sentence. ``palette``: offered in the command
    palette. ``show``: shown in the footer. ``priority``: run when the app receives the
    key, before the keys typed after it are handed to the focused widget — for keys that
    move the cursor into a text box (``/``), so the letters typed right after land in it;
    such an action's ``check_action`` refuses it while a text box has the focus (the
    box then gets the key as a character). ``opens``: the action opens a form or
    dialog (or asks the app for one); its binding is a priority one, and the keys
    typed right after it are held until the form is up, then typed into it
    (:mod:`etki_tui.typeahead`)."""

    id: str
    key: str
    action: str
    label: str
    tooltip: str
    help: str
    context: str = "app"
    show: bool = True
    key_display: str | None = None
    group: Binding.Group | None = None
    priority: bool = False
    palette: bool = True
    opens: bool = False

    def binding(self) -> Binding:
        """The Textual binding for this action."""
        return Binding(
            self.key,
            self.action,
            self.label,
            show=self.show,
            key_display=self.key_display,
            tooltip=self.tooltip,
            id=self.id,
            group=self.group,
            priority=self.priority or self.opens,
        )

    def keys(self, keymap: Mapping[str, str] | None = None) -> list[str]:
        """The keys this action is bound to, after ``keymap``."""
        raw = (keymap or {}).get(self.id) or self.key
        return [k.strip() for k in raw.split(",") if k.strip()]


TABS = Binding.Group("Tabs")
"""The footer group of the tab keys."""
