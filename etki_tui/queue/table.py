"""The queue's table: one line per case, drawn with Textual's Line API.

:class:`QueueTable` is a :class:`~textual.scroll_view.ScrollView` that keeps its rows as
lists of one-line ``Text`` cells (one per column) and draws only the lines on screen
(:meth:`QueueTable.render_line`). It measures its columns itself, as the rows arrive:
a column is as wide as its widest cell or label, and widths only grow until
:meth:`QueueTable.clear`. 10,000 rows are added in one call in a few milliseconds; a
cursor move redraws two lines.

Rows can also come as keys alone (:meth:`QueueTable.add_rows_later`): their cells are
made by :attr:`QueueTable.cell_source` when a row is first drawn or read, so a first fill
of 10,000 rows makes a screenful of cells, not 60,000 (measured on bench tui's pending
10k store: making every row's cells was 0.22 s of the first queue's main-thread time).

It looks like Textual's ``DataTable`` with a row cursor and zebra stripes (its
component classes are the same with a ``queue-table--`` prefix), and speaks in row keys
(the queue's case ids) and row positions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size, Spacing
from textual.message import Message
from textual.renderables.styled import Styled
from textual.scroll_view import ScrollView
from textual.strip import Strip

from etki_tui.actions import bindings
from etki_tui.glyphs import CURSOR_MARK

__all__ = ["CURSOR_MARK", "QueueColumn", "QueueTable"]


HEADER = -1
"""The row index of the header line (as in the ``row`` meta of its segments)."""


@dataclass
class QueueColumn:
    """One column: its key, its header label and its width in cells without the
    padding (the widest of the label and every cell shown since the last clear);
    ``hidden``: left out of the drawn line (its cells are kept, so a narrow layout that
    drops it and a wide one that shows it again need no new rows)."""

    key: str
    label: Text
    content_width: int
    hidden: bool = False


class QueueTable(ScrollView, can_focus=True):
    """Rows of one-line cells under a header line, with a row cursor; row keys are case
    ids. Up/Down (and ``j``/``k``), Page Up/Down, Home/End (and ``g``/``G``, Ctrl+Home,
    Ctrl+End) move the cursor (action ids ``queue.*`` in :mod:`etki_tui.actions`,
    remappable); Enter or a click on the highlighted row selects it.

    Posts :class:`QueueTable.RowHighlighted` when the row under the cursor changes and
    :class:`QueueTable.RowSelected` when it is selected."""

    DEFAULT_CSS = """
    QueueTable {
        background: $surface;
        color: $foreground;
        height: auto;
        max-height: 100%;
        &:focus {
            background-tint: $foreground 5%;
            & > .queue-table--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
            & > .queue-table--header {
                background-tint: $foreground 5%;
            }
        }
        &:dark > .queue-table--even-row {
            background: $surface-darken-1 40%;
        }
        & > .queue-table--header {
            text-style: bold;
            background: $panel;
            color: $foreground;
        }
        &:ansi > .queue-table--header {
            background: ansi_bright_blue;
            color: ansi_default;
        }
        & > .queue-table--even-row {
            background: $surface-lighten-1 50%;
        }
        & > .queue-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        & > .queue-table--hover {
            background: $block-hover-background;
        }
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "queue-table--header",
        "queue-table--cursor",
        "queue-table--even-row",
        "queue-table--odd-row",
        "queue-table--hover",
    }

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Select", show=False),
        Binding("up", "cursor_up", "Cursor up", show=False),
        Binding("down", "cursor_down", "Cursor down", show=False),
        Binding("right", "scroll_right", "Scroll right", show=False),
        Binding("left", "scroll_left", "Scroll left", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("ctrl+home", "first_case", "Top", show=False),
        Binding("ctrl+end", "last_case", "Bottom", show=False),
        *bindings("queue.first", "queue.last"),
    ]

    cell_padding = 1
    """Cells of padding on each side of every cell."""

    class RowHighlighted(Message):
        """The cursor is on another row (``cursor_row``, key ``row_key``)."""

        def __init__(self, table: QueueTable, cursor_row: int, row_key: str) -> None:
            super().__init__()
            self.table = table
            self.cursor_row = cursor_row
            self.row_key = row_key

        @property
        def control(self) -> QueueTable:
            """The table (what ``@on(..., "#id")`` matches)."""
            return self.table

    class RowSelected(RowHighlighted):
        """The highlighted row was selected (Enter, or a click on it)."""

    def __init__(
        self,
        *,
        on_width: Callable[[int], None] | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """``on_width`` is called with the table's new width on every resize, at once
        (the compositor's region may not be updated yet when a later callback runs)."""
        super().__init__(id=id, classes=classes)
        self._on_width = on_width
        self._columns: list[QueueColumn] = []
        self._keys: list[str] = []
        """Row keys in display order."""
        self._positions: dict[str, int] = {}
        """Row key -> its index in :attr:`_keys`."""
        self._cells: dict[str, list[Text] | None] = {}
        """Row key -> its cells; None for a row added by :meth:`add_rows_later` whose
        cells :attr:`cell_source` has not made yet."""
        self.cell_source: Callable[[str], Sequence[Text]] | None = None
        """Makes the cells of a row added by :meth:`add_rows_later`, from its key, when
        the row is first drawn or read (and again after :meth:`forget_cells`)."""
        self._cursor = 0
        self._hover: int | None = None
        """The row under the mouse pointer, shown until a key is pressed or it leaves."""
        self._highlighted: tuple[int, str] | None = None
        """The (row, key) last announced with RowHighlighted."""
        self._lines: LRUCache[tuple[object, ...], Strip] = LRUCache(256)
        """Drawn lines by what they show; emptied whenever a row or a width changes."""

    # --- columns and rows -----------------------------------------------------------

    @property
    def ordered_columns(self) -> list[QueueColumn]:
        """The columns, left to right."""
        return list(self._columns)

    @property
    def row_count(self) -> int:
        """How many rows there are."""
        return len(self._keys)

    @property
    def rows_made(self) -> int:
        """How many rows have their cells made (every row added with its cells; of the
        rows added by :meth:`add_rows_later`, those drawn or read so far)."""
        return sum(1 for cells in self._cells.values() if cells is not None)

    @property
    def cursor_row(self) -> int:
        """The index of the highlighted row (0 when there are no rows)."""
        return self._cursor

    @property
    def cursor_key(self) -> str | None:
        """The key of the highlighted row, or None when there are no rows."""
        return self._keys[self._cursor] if self._keys else None

    def add_column(self, label: str | Text, *, key: str) -> None:
        """Add a column at the right, headed ``label`` (plain text, no markup)."""
        text = Text(label) if isinstance(label, str) else label
        self._columns.append(QueueColumn(key, text, text.cell_len))
        self._changed()

    def show_columns(self, hidden: Iterable[str]) -> bool:
        """Draw every column but those keyed in ``hidden`` (unknown keys are ignored);
        True when that changed what is drawn."""
        gone = set(hidden)
        changed = False
        for column in self._columns:
            if column.hidden != (column.key in gone):
                column.hidden = column.key in gone
                changed = True
        if changed:
            self._changed()
        return changed

    def row_keys(self) -> list[str]:
        """Row keys in display order."""
        return list(self._keys)

    def get_row_index(self, key: str) -> int:
        """The display index of row ``key``. Raises ``KeyError`` when there is none."""
        return self._positions[key]

    def get_row(self, key: str) -> list[Text]:
        """The cells of row ``key``, left to right. Raises ``KeyError``."""
        return list(self._row_cells(key))

    def get_cell(self, key: str, column: str) -> Text:
        """The cell of row ``key`` in column ``column``. Raises ``KeyError``."""
        cells = self._row_cells(key)
        for index, col in enumerate(self._columns):
            if col.key == column:
                return cells[index] if index < len(cells) else Text()
        raise KeyError(column)

    def add_rows_at_once(self, rows: Sequence[tuple[str, Sequence[Text]]]) -> None:
        """Append rows ``(key, cells)`` at the bottom, the columns widened to fit them.
        Cells are one-line ``Text`` (a missing trailing cell is blank). Raises
        ``ValueError`` for a key that is already there or more cells than columns."""
        if not rows:
            return
        columns = self._columns
        for key, cells in rows:
            if key in self._cells:
                raise ValueError(f"The row key {key!r} already exists.")
            if len(cells) > len(columns):
                raise ValueError("More values provided than there are columns.")
        start = len(self._keys)
        for offset, (key, cells) in enumerate(rows):
            self._keys.append(key)
            self._positions[key] = start + offset
            self._cells[key] = list(cells)
        for index, column in enumerate(columns):
            widest = max(
                (cell_len(cells[index].plain) for _key, cells in rows if index < len(cells)),
                default=0,
            )
            column.content_width = max(column.content_width, widest)
        self._changed()

    def add_rows_later(self, keys: Sequence[str], widths: Mapping[str, int]) -> None:
        """Append rows ``keys`` at the bottom without their cells: :attr:`cell_source`
        makes a row's cells when it is first drawn or read. ``widths`` (column key ->
        cells, padding not counted) widens each column to the widest cell those rows can
        have as the caller lays them out, so the columns do not move as rows scroll into
        view; a made cell wider still widens its column then. Raises ``ValueError`` for
        a key that is already there and ``RuntimeError`` without a cell source."""
        if not keys:
            return
        if self.cell_source is None:
            raise RuntimeError("add_rows_later needs a cell_source to make the cells")
        for key in keys:
            if key in self._cells:
                raise ValueError(f"The row key {key!r} already exists.")
        start = len(self._keys)
        self._keys.extend(keys)
        for offset, key in enumerate(keys, start):
            self._positions[key] = offset
            self._cells[key] = None
        for column in self._columns:
            column.content_width = max(column.content_width, widths.get(column.key, 0))
        self._changed()

    def forget_cells(self, keys: Iterable[str]) -> None:
        """Drop the made cells of rows ``keys`` (unknown keys are ignored): what they
        show has changed, and :attr:`cell_source` makes them again when they are next
        drawn or read. Raises ``RuntimeError`` without a cell source."""
        known = [k for k in keys if k in self._cells]
        if not known:
            return
        if self.cell_source is None:
            raise RuntimeError("forget_cells needs a cell_source to make the cells again")
        for key in known:
            self._cells[key] = None
        self._changed()

    def _row_cells(self, key: str) -> list[Text]:
        """The cells of row ``key``, made now if they were left for later (their
        columns widened to fit). Raises ``KeyError`` for an unknown row."""
        cells = self._cells[key]
        if cells is not None:
            return cells
        assert self.cell_source is not None  # add_rows_later and forget_cells need one
        made = list(self.cell_source(key))
        if len(made) > len(self._columns):
            raise ValueError("More values provided than there are columns.")
        self._cells[key] = made
        widened = False
        for column, value in zip(self._columns, made, strict=False):
            width = cell_len(value.plain)
            if width > column.content_width:
                column.content_width, widened = width, True
        if widened:
            self._changed()
        return made

    def update_cell(
        self, key: str, column: str, value: Text, *, update_width: bool = False
    ) -> None:
        """Replace one cell; with ``update_width`` its column widens to fit it.
        Raises ``KeyError`` for an unknown row or column."""
        cells = self._row_cells(key)
        index = next((i for i, c in enumerate(self._columns) if c.key == column), None)
        if index is None:
            raise KeyError(column)
        while len(cells) <= index:
            cells.append(Text())
        cells[index] = value
        if update_width:
            col = self._columns[index]
            col.content_width = max(col.content_width, cell_len(value.plain))
        self._changed()

    def remove_rows(self, keys: Iterable[str]) -> None:
        """Take the rows ``keys`` out (unknown keys are ignored); the cursor keeps its
        index, within the rows left."""
        gone = {k for k in keys if k in self._cells}
        if not gone:
            return
        for key in gone:
            del self._cells[key]
        self._keys = [k for k in self._keys if k not in gone]
        self._positions = {k: i for i, k in enumerate(self._keys)}
        self._changed()

    def reorder(self, keys: Sequence[str]) -> None:
        """Show the rows in the order of ``keys``, the same keys as :meth:`row_keys`.
        Raises ``ValueError`` when they are not."""
        if len(keys) != len(self._keys) or set(keys) != self._cells.keys():
            raise ValueError("reorder needs every row key, once each")
        self._keys = list(keys)
        self._positions = {k: i for i, k in enumerate(self._keys)}
        self._changed()

    def clear(self) -> None:
        """Remove every row (the columns stay, their widths back to their labels)."""
        self._keys = []
        self._positions = {}
        self._cells = {}
        for column in self._columns:
            column.content_width = column.label.cell_len
        self._changed()

    def _changed(self) -> None:
        """After a change of rows or widths: the size, the cursor, a redraw."""
        self._lines.clear()
        width = sum(c.content_width + 2 * self.cell_padding for c in self._columns if not c.hidden)
        self.virtual_size = Size(width, len(self._keys) + 1)
        self._cursor = min(self._cursor, max(0, len(self._keys) - 1))
        self.refresh()
        self.call_after_refresh(self._sync_scrollbar)
        self._announce()

    def _sync_scrollbar(self) -> None:
        """The vertical scrollbar's thumb where the view is. Textual moves the thumb
        with ``scroll_y`` only while the bar is shown, so a scroll made in the same
        turn as the rows that bring the bar back (a find cleared with the cursor far
        down) left the thumb at the top until the next scroll."""
        if self.show_vertical_scrollbar:
            self.vertical_scrollbar.position = self.scroll_y

    def on_resize(self, event: events.Resize) -> None:
        """Tell ``on_width`` the new width; the highlighted row kept in view (a banner
        over the table, shown when another reviewer rules the case, takes its room)."""
        if self._on_width is not None:
            self._on_width(event.size.width)
        self.call_after_refresh(lambda: self.move_cursor(row=self.cursor_row))

    # --- the cursor -----------------------------------------------------------------

    def move_cursor(self, *, row: int, animate: bool = False, scroll: bool = True) -> None:
        """Highlight row ``row`` (clamped to the rows there are) and, with ``scroll``,
        scroll it into view."""
        before = self._cursor
        self._cursor = max(0, min(row, len(self._keys) - 1))
        if self._cursor != before:
            self.refresh_lines(before + 1)
            self.refresh_lines(self._cursor + 1)
        if scroll and self._keys:
            self.scroll_to_region(
                Region(int(self.scroll_x), self._cursor + 1, self.virtual_size.width, 1),
                spacing=Spacing(1, 0, 0, 0),
                animate=animate,
                force=True,
            )
        self._announce()

    # Called with the cursor's own row after a live update that moved rows around it
    # and on a resize (the ruled-elsewhere banner takes the table's room): it scrolls
    # the least that shows the row (a fresh trial of issue 34: the selection ended up
    # off-screen once a case was ruled at another desk).

    def _announce(self) -> None:
        """Post RowHighlighted when the row under the cursor is another one."""
        key = self.cursor_key
        if key is None:
            self._highlighted = None
        elif (self._cursor, key) != self._highlighted:
            self._highlighted = (self._cursor, key)
            self.post_message(self.RowHighlighted(self, self._cursor, key))

    def _set_hover(self, row: int | None) -> None:
        if row != self._hover:
            for line in (self._hover, row):
                if line is not None:
                    self.refresh_lines(line + 1)
            self._hover = row

    def on_mouse_move(self, event: events.MouseMove) -> None:
        """The row under the pointer is shown hovered."""
        row = event.y - 1 + int(self.scroll_y)
        self._set_hover(row if event.y >= 1 and 0 <= row < len(self._keys) else None)

    def on_leave(self, event: events.Leave) -> None:
        """The pointer left: no row is hovered."""
        self._set_hover(None)

    def on_key(self, event: events.Key) -> None:
        """A key hides the hover (the pointer has not moved)."""
        self._set_hover(None)

    def action_cursor_down(self) -> None:
        """The cursor one row down."""
        self.move_cursor(row=self._cursor + 1)

    def action_cursor_up(self) -> None:
        """The cursor one row up."""
        self.move_cursor(row=self._cursor - 1)

    def _page_height(self) -> int:
        return max(0, self.scrollable_content_region.height - 1)

    def action_page_down(self) -> None:
        """The view and the cursor one page down."""
        height = self._page_height()
        self.scroll_relative(y=height, animate=False, force=True)
        self.move_cursor(row=self._cursor + height, scroll=False)

    def action_page_up(self) -> None:
        """The view and the cursor one page up."""
        height = self._page_height()
        self.scroll_relative(y=-height, animate=False)
        self.move_cursor(row=self._cursor - height, scroll=False)

    def action_first_case(self) -> None:
        """The cursor to the first row (and the view to the top)."""
        if self._keys:
            self.move_cursor(row=0)

    def action_last_case(self) -> None:
        """The cursor to the last row (and the view to the bottom)."""
        if self._keys:
            self.move_cursor(row=len(self._keys) - 1)

    def action_select_cursor(self) -> None:
        """Select the highlighted row."""
        key = self.cursor_key
        if key is not None:
            self.post_message(self.RowSelected(self, self._cursor, key))

    def on_click(self, event: events.Click) -> None:
        """A click on a row highlights it; on the highlighted row, selects it."""
        row = event.y - 1 + int(self.scroll_y)
        if event.y < 1 or not 0 <= row < len(self._keys):
            return
        event.stop()
        if row == self._cursor:
            self.action_select_cursor()
        else:
            self.move_cursor(row=row, animate=True)

    # --- drawing --------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        """Screen line ``y``: the header at 0, then the rows from the scroll offset."""
        width = self.size.width
        base = self.rich_style
        row = HEADER if y == 0 else y - 1 + int(self.scroll_y)
        if row >= len(self._keys):
            return Strip.blank(width, base)
        if row == HEADER:
            row_style = self.get_component_styles("queue-table--header").rich_style
        else:
            parity = "queue-table--odd-row" if row % 2 else "queue-table--even-row"
            row_style = self.get_component_styles(parity).rich_style
        cursor = row == self._cursor
        cursor_style = Style()
        if row == self._hover:
            cursor_style += self.get_component_rich_style("queue-table--hover")
        if cursor:
            cursor_style += self.get_component_rich_style("queue-table--cursor")
        scroll_x = int(self.scroll_x)
        key = (
            row,
            self._keys[row] if row >= 0 else None,
            width,
            scroll_x,
            base,
            row_style,
            cursor_style,
            self.app.no_color,
        )
        line = self._lines.get(key)
        if line is None:
            line = self._draw_line(row, width, scroll_x, base, row_style, cursor, cursor_style)
            self._lines[key] = line
        return line

    def _draw_line(
        self,
        row: int,
        width: int,
        scroll_x: int,
        base: Style,
        row_style: Style,
        cursor: bool,
        cursor_style: Style,
    ) -> Strip:
        """Render one line: every cell padded to its column's width, then the rest of
        the width in the row's style. The segments carry ``row``/``column`` meta."""
        cells = (
            [c.label for c in self._columns] if row == HEADER else self._row_cells(self._keys[row])
        )
        post = Style.from_color(cursor_style.color) + Style.from_color(bgcolor=cursor_style.bgcolor)
        console = self.app.console
        segments: list[Segment] = []
        total = 0
        leading = True  # the first column drawn
        for index, column in enumerate(self._columns):
            if column.hidden:
                continue
            cell_width = column.content_width + 2 * self.cell_padding
            total += cell_width
            cell = cells[index] if index < len(cells) else Text()
            options = self.app.console_options.update_dimensions(cell_width, 1).update(no_wrap=True)
            pre = row_style + Style.from_meta({"row": row, "column": index}) + cursor_style
            lines = console.render_lines(
                Styled(Padding(cell, (0, self.cell_padding)), pre_style=pre, post_style=Style()),
                options,
            )
            # the row's colours over the cell's, except on a mark that brings its own
            # background (the red DISPUTED): under the cursor it stays white on red
            drawn = [
                seg
                if seg.style is not None and seg.style.bgcolor not in (None, pre.bgcolor)
                else Segment(seg.text, (seg.style or Style()) + post, seg.control)
                for seg in lines[0]
            ]
            if leading and cursor and self.app.no_color and drawn and drawn[0].text.startswith(" "):
                first = drawn[0]
                drawn = [
                    Segment(CURSOR_MARK + first.text[1:], first.style, first.control),
                    *drawn[1:],
                ]
            segments.extend(drawn)
            leading = False
        rest = (
            row_style
            + cursor_style
            + Style.from_meta({"row": row, "column": 0, "out_of_bounds": True})
        )
        segments.append(Segment(" " * max(0, width - total), rest))
        return (
            Strip(segments)
            .crop(scroll_x, scroll_x + width)
            .adjust_cell_length(width, base)
            .simplify()
        )
