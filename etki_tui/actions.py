"""Every user-facing action of the desk, defined once.

An :class:`ActionDef` carries what the key binding, the footer, the help text and (later)
the command palette need: a stable ``id`` (``App.set_keymap`` remaps by it), the default
key, the action string, a short footer label, a tooltip and a help sentence. Widgets take
their ``BINDINGS`` from :func:`bindings`; nothing else declares a key.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True)
class ActionDef:
    """One action: ``id`` (binding id, keymap name), ``key`` (default key),
    ``action`` (Textual action string, run in the namespace of the widget that binds it),
    ``label`` (footer), ``tooltip`` (footer tooltip) and ``help`` (help screen text)."""

    id: str
    key: str
    action: str
    label: str
    tooltip: str
    help: str
    show: bool = True
    key_display: str | None = None
    group: Binding.Group | None = None

    def binding(self) -> Binding:
        """The Textual binding for this action."""
        return Binding(self.key, self.action, self.label, show=self.show,
                       key_display=self.key_display, tooltip=self.tooltip, id=self.id,
                       group=self.group)


_TABS = Binding.Group("Tabs")

ACTIONS: dict[str, ActionDef] = {a.id: a for a in (
    ActionDef("approve", "a", "approve", "Approve",
              "Rule the highlighted case IN_SCOPE (asks to confirm)",
              "Approve the highlighted case: the ruling becomes IN_SCOPE. A confirmation "
              "opens first; a reason is required when this overrides the verdict."),
    ActionDef("convert", "c", "convert", "Convert to CR",
              "Rule the highlighted case a CHANGE_REQUEST (asks to confirm)",
              "Convert the highlighted case to a change request (CHANGE_REQUEST). A "
              "confirmation opens first; a reason is required on an override."),
    ActionDef("reject", "r", "reject", "Reject",
              "Rule the highlighted case REJECT (asks to confirm)",
              "Reject the highlighted case (REJECT). A confirmation opens first; a "
              "reason is required on an override."),
    ActionDef("read", "enter", "read", "Read",
              "Show the highlighted case full-screen (Escape returns)",
              "Toggle the case detail full-screen for reading; Escape returns to the "
              "queue. The ruling keys work there too.", key_display="⏎"),
    ActionDef("tab.queue", "1", "show_tab('queue')", "Queue", "Show the review queue",
              "Switch to the Queue tab.", group=_TABS),
    ActionDef("tab.hafiza", "2", "show_tab('hafiza')", "Hafıza",
              "Show Hafıza: wiki search, precedents, disputed clauses, decision files",
              "Switch to the Hafıza (memory) tab.", group=_TABS),
    ActionDef("tab.raporlar", "3", "show_tab('raporlar')", "Raporlar",
              "Show Raporlar: counts from the database",
              "Switch to the Raporlar (reports) tab.", group=_TABS),
    ActionDef("reload", "ctrl+r", "reload", "Reload",
              "Reload the queue, memory and reports from the database",
              "Reload everything from the database (another reviewer may have ruled)."),
    ActionDef("search", "slash", "focus_search", "Search", "Search the wiki",
              "Put the cursor in the Hafıza search box.", key_display="/", show=False),
    ActionDef("modal.cancel", "escape", "cancel", "Cancel", "Close without ruling",
              "Close the confirmation; nothing is recorded."),
)}


def bindings(*ids: str) -> list[Binding]:
    """The bindings for ``ids``, in that order."""
    return [ACTIONS[i].binding() for i in ids]
