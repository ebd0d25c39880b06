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
from etki_tui.config import VIEW_NAME_MAX, shown_value
from etki_tui.live import part
from etki_tui.queue.filters import AGES, BANDS, RISKS, SORTS, SURENESS, VERDICTS, QueueFilter
from etki_tui.toggles import MarkedOptionList

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


FIELDS = (*FLAGS, *CHOICES, "text")
"""Every field a view may have."""


def _problem(name: str, value: object) -> str | None:
    """What is wrong with the field ``name`` of a view set to ``value``, or None."""
    if name in FLAGS:
        return (
            None if isinstance(value, bool) else f"{name} {shown_value(value)} is not true or false"
        )
    if name in CHOICES:
        if value is None or value in CHOICES[name]:
            return None
        words = ", ".join(str(c) for c in CHOICES[name] if c)
        return f"{name} {shown_value(value)} is not one of {words}"
    if name == "text":
        return (
            None
            if value is None or isinstance(value, str)
            else f"text {shown_value(value)} is not text"
        )
    return f"{printable(name, multiline=False)} is not a queue filter (known: {', '.join(FIELDS)})"


def problems(fields: Mapping[str, object]) -> list[str]:
    """What is wrong with a saved view's ``fields``, one phrase per field that names it
    and its value (``verdict 'MAYBE' is not one of IN_SCOPE, CHANGE_REQUEST, REJECT``,
    ``sort 12 is not one of queue, oldest, …``); empty when each is a filter the queue
    offers (:data:`etki_tui.config.ViewCheck`, for the start-up warning)."""
    return [p for name, value in fields.items() if (p := _problem(name, value)) is not None]


def filter_of(fields: Mapping[str, object]) -> tuple[QueueFilter, list[str]]:
    """The queue filter a saved view's ``fields`` describe, and a warning for each
    field or value left out (:func:`problems`: an unknown name, a word the queue does
    not offer, a flag that is not true/false)."""
    changes: dict[str, object] = {}
    warnings: list[str] = []
    for name, value in fields.items():
        problem = _problem(name, value)
        if problem is not None:
            warnings.append(problem)
        elif name in FLAGS:
            changes[FLAGS[name]] = value
        elif name in CHOICES:
            changes[name] = value if name != "sort" or value else "queue"
        else:
            changes["text"] = value or ""
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
    """The saved views. The box at the top has the focus: a name typed and Enter saves
    the current filter under it, Enter with nothing typed recalls the highlighted view;
    Down moves to the list, where Enter recalls and Delete removes the highlighted one.
    Dismisses with ``("recall" | "delete" | "save", name)``, or None."""

    BINDINGS = [
        *bindings("help.close", "help"),
        Binding("delete", "delete", "Delete view", show=True),
        Binding("down", "app.focus_next", show=False),
        Binding("up", "app.focus_previous", show=False),
    ]

    def __init__(
        self,
        views: Mapping[str, Mapping[str, object]],
        current: QueueFilter,
        *,
        cursor_blink: bool = True,
    ) -> None:
        super().__init__()
        self._cursor_blink = cursor_blink
        self.views = {
            name: dict(fields)
            for name, fields in sorted(views.items(), key=lambda v: sort_key(v[0]))
        }
        self.current = current

    def compose(self) -> ComposeResult:
        """The name box, what it would save, then one option per saved view."""
        with Vertical(id="views-dialog") as dialog:
            dialog.border_title = "Saved views"
            dialog.border_subtitle = "↓ list · Enter recalls · Del deletes · Esc closes"
            box = Input(
                placeholder="type a name, Enter: save the current filter",
                max_length=VIEW_NAME_MAX,
                id="views-name",
            )
            box.cursor_blink = self._cursor_blink  # off in tests: a steady screenshot
            yield box
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
            yield MarkedOptionList(*options, id="views-list", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        """The name box has the focus (what is typed is the name to save), the first
        view highlighted in the list below it."""
        views = part(self, OptionList)
        box = part(self, Input)
        if views is None or box is None:
            return
        if self.views:
            views.highlighted = 0
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in the name box: save under the name typed; with nothing typed,
        recall the highlighted view (``V`` then Enter recalls the first one)."""
        event.stop()
        name = event.value.strip()
        if name:
            self.dismiss(("save", name))
            return
        views = part(self, OptionList)
        if views is not None and views.highlighted is not None:
            option = views.get_option_at_index(views.highlighted)
            if option.id:
                self.dismiss(("recall", option.id))

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
