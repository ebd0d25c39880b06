"""Saved queue views (issue 35 item 5): a queue filter a PMO names, saves in the desk's
config file beside the keymap (``views:``, :func:`etki_tui.config.save_views`) and
recalls with ``V`` on the queue or from the palette.

A view is written as the fields of its :class:`~etki_tui.queue.filters.QueueFilter`
that differ from the default (``mine``, ``verdict``, ``risk``, ``disputed``, ``band``,
``age``, ``sureness``, ``text``, ``sort``), so a hand-written one reads plainly::

    views:
      my unsure:
        mine: true
        sureness: unsure

:func:`filter_of` reads one back, leaving out (with a warning) a field or value the
queue does not know. :class:`ViewsScreen` lists the saved views, recalls one, saves
the current filter under a name, or deletes one.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from etki.text import printable, sort_key
from etki_tui.actions import bindings
from etki_tui.config import VIEW_NAME_MAX
from etki_tui.live import part
from etki_tui.queue.filters import AGES, BANDS, RISKS, SORTS, SURENESS, VERDICTS, QueueFilter

CHOICES: dict[str, tuple[object, ...]] = {
    "verdict": VERDICTS,
    "risk": RISKS,
    "band": (None, *BANDS),
    "age": (None, *AGES),
    "sureness": SURENESS,
    "sort": tuple(SORTS),
}
"""The fields of a view that take one of a few words, and those words."""
FLAGS = {"mine": "mine", "disputed": "disputed_only"}
"""The yes/no fields of a view -> the :class:`QueueFilter` field."""


def view_of(flt: QueueFilter) -> dict[str, object]:
    """The fields of ``flt`` a saved view keeps: those that differ from the default
    (``mine`` and ``disputed`` as true, ``text`` stripped, ``sort`` unless queue order);
    the reviewer's ids of the moment are not kept (they are read again on recall)."""
    out: dict[str, object] = {}
    if flt.mine:
        out["mine"] = True
    for name in ("verdict", "risk", "band", "age", "sureness"):
        value = getattr(flt, name)
        if value:
            out[name] = value
    if flt.disputed_only:
        out["disputed"] = True
    if flt.text.strip():
        out["text"] = flt.text.strip()
    if flt.sort != "queue":
        out["sort"] = flt.sort
    return out


def filter_of(fields: Mapping[str, object]) -> tuple[QueueFilter, list[str]]:
    """The queue filter a saved view's ``fields`` describe, and a warning for each
    field or value left out (an unknown name, a word the queue does not offer, a flag
    that is not true/false)."""
    changes: dict[str, object] = {}
    warnings: list[str] = []
    for name, value in fields.items():
        if name in FLAGS:
            if isinstance(value, bool):
                changes[FLAGS[name]] = value
            else:
                warnings.append(f"'{name}' must be true or false")
        elif name in CHOICES:
            if value is None or value in CHOICES[name]:
                changes[name] = value if name != "sort" or value else "queue"
            else:
                words = ", ".join(str(c) for c in CHOICES[name] if c)
                warnings.append(f"'{name}' is one of {words}")
        elif name == "text":
            changes["text"] = value if isinstance(value, str) else ""
        else:
            warnings.append(f"'{name}' is not a queue filter")
    return QueueFilter().with_(**changes), warnings


def describe(fields: Mapping[str, object]) -> str:
    """One line for a saved view: its filters as the queue's filter line says them,
    then its sort (``mine · needs a careful look · sort: highest risk``)."""
    flt, _ = filter_of(fields)
    parts = flt.describe()
    if flt.sort != "queue":
        parts.append(f"sort: {SORTS[flt.sort]}")
    return " · ".join(parts) or "every pending case"


class ViewsScreen(ModalScreen[tuple[str, str] | None]):
    """The saved views: Enter recalls the highlighted one, Delete removes it; the box
    at the top saves the current filter under the name typed (Enter). Dismisses with
    ``("recall" | "delete" | "save", name)``, or None."""

    BINDINGS = [
        *bindings("help.close", "help"),
        Binding("delete", "delete", "Delete view", show=True),
        Binding("down", "app.focus_next", show=False),
        Binding("up", "app.focus_previous", show=False),
    ]

    def __init__(self, views: Mapping[str, Mapping[str, object]], current: QueueFilter) -> None:
        super().__init__()
        self.views = {
            name: dict(fields)
            for name, fields in sorted(views.items(), key=lambda v: sort_key(v[0]))
        }
        self.current = current

    def compose(self) -> ComposeResult:
        """The name box, what it would save, then one option per saved view."""
        with Vertical(id="views-dialog") as dialog:
            dialog.border_title = "Saved views"
            dialog.border_subtitle = "Enter recalls · Del deletes · Esc closes"
            yield Input(
                placeholder="name, then Enter: save the current filter",
                max_length=VIEW_NAME_MAX,
                id="views-name",
            )
            now = describe(view_of(self.current))
            yield Static(
                Text(f"current: {printable(now, multiline=False)}", style="dim"),
                id="views-current",
                markup=False,
            )
            options = []
            for name, fields in self.views.items():
                prompt = Text(printable(name, multiline=False), style="bold")
                prompt.append("\n  " + printable(describe(fields), multiline=False), style="dim")
                options.append(Option(prompt, id=name))
            if not options:
                options.append(Option(Text("no saved view yet", style="dim"), disabled=True))
            yield OptionList(*options, id="views-list", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        """The list has the focus when it holds a view, else the name box."""
        views = part(self, OptionList)
        box = part(self, Input)
        if views is None or box is None:
            return
        if self.views:
            views.highlighted = 0
            views.focus()
        else:
            box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        name = event.value.strip()
        if name:
            self.dismiss(("save", name))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.dismiss(("recall", event.option.id))

    def action_delete(self) -> None:
        """Delete the highlighted view (asks nothing: it is one line of the config)."""
        views = part(self, OptionList)
        if views is None or views.highlighted is None or not views.has_focus:
            return
        option = views.get_option_at_index(views.highlighted)
        if option.id:
            self.dismiss(("delete", option.id))

    def action_close(self) -> None:
        """Close without changing anything."""
        self.dismiss(None)
