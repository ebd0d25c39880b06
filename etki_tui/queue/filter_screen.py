"""The filter and sort panel (``f`` on the queue): one row per dimension, changed with
← → or Space, applied to the queue at once. The chosen value is shown in brackets and
reverse video, so the state reads without colour."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Footer, Static

from etki_tui.actions import bindings
from etki_tui.glyphs import WARN
from etki_tui.live import part
from etki_tui.queue.filters import (
    AGES,
    BANDS,
    RISKS,
    SORT_SHORT,
    SORTS,
    SURENESS,
    SURENESS_LABEL,
    VERDICTS,
    QueueFilter,
)

ROWS: tuple[tuple[str, str, tuple[tuple[object, str], ...]], ...] = (
    ("verdict", "Verdict", tuple((v, v or "all") for v in VERDICTS)),
    (
        "risk",
        "Risk",
        tuple(
            (r, {"24h": "24h look", "overdue": "look overdue"}.get(r or "", r or "all"))
            for r in RISKS
        ),
    ),
    ("disputed_only", "Disputed", ((False, "all"), (True, f"{WARN} disputed only"))),
    (
        "band",
        "Confidence",
        (
            (None, "all"),
            *((b, {"low": "< 0.60", "medium": "0.60–0.79", "high": "≥ 0.80"}[b]) for b in BANDS),
        ),
    ),
    (
        "age",
        "Age",
        ((None, "all"), *((a, f"> {a[:-1]} day{'s' if a != '1d' else ''}") for a in AGES)),
    ),
    (
        "sureness",
        "Sureness",
        tuple((s, SURENESS_LABEL[s] if s else "all") for s in SURENESS),
    ),
    ("sort", "Sort", tuple((k, SORT_SHORT[k]) for k in SORTS)),
)
"""Field of :class:`QueueFilter`, row label, (value, label) choices."""


class ChoiceRow(Widget, can_focus=True):
    """A label and a row of choices; ← → and Space change the choice."""

    BINDINGS = [
        Binding("left", "move(-1)", "Previous", show=False),
        Binding("right,space", "move(1)", "Next", show=False),
    ]
    DEFAULT_CSS = """
    ChoiceRow { height: 1; width: 1fr; }
    ChoiceRow:focus { background: $boost; text-style: bold; }
    """

    index: reactive[int] = reactive(0)

    class Changed(Message):
        """The choice of ``field`` is now ``value``."""

        def __init__(self, field: str, value: object) -> None:
            super().__init__()
            self.field = field
            self.value = value

    def __init__(
        self, field: str, label: str, choices: Sequence[tuple[object, str]], value: object
    ) -> None:
        super().__init__(id=f"choice-{field}")
        self.field = field
        self.label = label
        self.choices = list(choices)
        values = [v for v, _ in self.choices]
        self.set_reactive(ChoiceRow.index, values.index(value) if value in values else 0)

    @property
    def value(self) -> object:
        """The chosen value."""
        return self.choices[self.index][0]

    def render(self) -> Text:
        """``Label      all  [IN_SCOPE]  CHANGE_REQUEST ...``. When the choices are
        wider than the row, the first ones give way to ``…`` until the chosen one shows
        (the sort row has seven choices: the last ones were cut at 80 columns)."""
        head = ("▸ " if self.has_focus else "  ") + f"{self.label:<11}"
        first = 0
        room = self.size.width
        if room > 0:
            wide = [len(label) + 3 for _, label in self.choices]  # " label " or "[label]", " "
            while (
                first < self.index
                and len(head) + (2 if first else 0) + sum(wide[first : self.index + 1]) > room
            ):
                first += 1
        out = Text(no_wrap=True, overflow="ellipsis")
        out.append(head)
        if first:
            out.append("… ", style="dim")
        for i, (_, label) in enumerate(self.choices[first:], first):
            if i == self.index:
                out.append(f"[{label}]", style="bold reverse")
            else:
                out.append(f" {label} ", style="dim")
            out.append(" ")
        if room > 0 and out.cell_len > room + 1:  # later choices cut: "…" says there are more
            out.truncate(room, overflow="ellipsis")
        return out

    def action_move(self, step: int) -> None:
        """Next or previous choice (wrapping)."""
        self.index = (self.index + step) % len(self.choices)
        self.post_message(self.Changed(self.field, self.value))

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()


class FilterPanel(ModalScreen[None]):
    """Filter and sort the queue; every change is applied at once through ``apply``."""

    BINDINGS = [
        *bindings("filters.close", "filters.reset", "help"),
        Binding("enter", "close", "Close", show=False),
        Binding("down", "app.focus_next", show=False),
        Binding("up", "app.focus_previous", show=False),
    ]

    def __init__(self, current: QueueFilter, apply: Callable[[QueueFilter], None]) -> None:
        super().__init__()
        self.current = current
        self.apply = apply

    def compose(self) -> ComposeResult:
        """Seven rows and a hint."""
        with Vertical(id="filters-dialog") as dialog:
            dialog.border_title = "Filter and sort the queue"
            for field, label, choices in ROWS:
                yield ChoiceRow(field, label, choices, getattr(self.current, field))
            yield Static(
                Text("↑↓ row · ←→/Space change · x reset · Enter/Esc close", style="dim"),
                id="filters-hint",
                markup=False,
            )
        yield Footer()

    def on_mount(self) -> None:
        """Focus the first row (none when the desk closes while the panel is built)."""
        row = part(self, ChoiceRow)
        if row is not None:
            row.focus()

    def on_choice_row_changed(self, message: ChoiceRow.Changed) -> None:
        """Apply the change to the queue now."""
        self.current = self.current.with_(**{message.field: message.value})
        self.apply(self.current)

    def action_reset(self) -> None:
        """Clear every filter (the sort stays)."""
        self.current = self.current.cleared()
        for row in self.query(ChoiceRow):
            values = [v for v, _ in row.choices]
            row.index = values.index(getattr(self.current, row.field))
        self.apply(self.current)

    def action_close(self) -> None:
        """Close; the filters stay."""
        self.dismiss(None)
