"""The queue pane's layout (issue 34 item 1): the detail beside the list from
:attr:`QueueLayout.BESIDE_FROM` columns, folded to a two-line peek under
:attr:`QueueLayout.LIST_BELOW` rows, ``z`` to choose, ``j``/``k`` to step cases in the list
and in the full-screen read, and the way back from that read. A base of
:class:`~etki_tui.queue.pane.QueuePane`, which adds the keys that act on cases."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import TabbedContent

from etki_tui.live import part
from etki_tui.queue.bars import CaseDetail
from etki_tui.queue.shown import QueueShown
from etki_tui.queue.table import QueueTable


class QueueLayout(QueueShown):
    """Where the list and the detail sit, and what ``z``, ``j`` and ``k`` do."""

    BESIDE_FROM = 110
    """From this many columns the detail sits beside the list, not under it."""

    LIST_BELOW = 30
    """Under this many rows (and not beside) the desk starts with the detail folded to
    a two-line peek, so the list has the height (15 rows at 80x24); ``z`` unfolds it,
    and then the detail has the height (the list 3 rows: class ``-short``, etki.tcss), so
    that its first window holds the verdict and a deciding sentence of up to 8 lines
    (issue 34 item 2: at 80x24 a disputed tdrs case showed 4 of its 8)."""

    detail_wanted: bool | None = None
    """The reviewer's choice of ``z`` (shown / hidden), or None: by the terminal size.
    It holds until a resize changes the layout the size gives (:meth:`fit_to`)."""

    _fitted_for: tuple[bool, bool] | None = None
    """(beside, shown by default) of the size the pane was last laid out for."""

    _reading_from_list = False

    _footer_shown: bool | None = None
    """Whether the list was cut short (:meth:`_list_short`) when the footer last named
    ``z`` (:meth:`_footer_follows`)."""

    def footer_label(self, binding: Binding) -> str | None:
        """What the footer calls ``z`` (:func:`etki_tui.footer.footer_label`): "List"
        while the detail is unfolded under the list on a short terminal (class
        ``-short``: the list then has 3 rows at 80x24, folded 15), so the footer says
        that z gives the list its rows back (issue 34: a reviewer who unfolded it saw 3
        rows and "z Detail"); else None, its own "Detail" (folded, or beside the list,
        where z is only the detail's toggle)."""
        if binding.action != "toggle_detail" or not self._list_short():
            return None
        return "List"

    def _list_short(self) -> bool:
        """Whether the list is cut to its 3 rows by the unfolded detail under it."""
        return self.has_class("-short") and self.detail_shown

    def _footer_follows(self) -> None:
        """Have the footer name ``z`` anew when the list was cut short or given its
        rows back since it last did (only then: the footer recomposes on a bindings
        refresh)."""
        short = self._list_short()
        if self._footer_shown is not None and self._footer_shown != short:
            self.refresh_bindings()
        self._footer_shown = short

    def on_resize(self) -> None:
        """The terminal's size decides the layout (:meth:`fit_to`)."""
        self.fit_to(self.app.size.width, self.app.size.height)

    def fit_to(self, width: int, height: int) -> None:
        """Lay the pane out for a ``width`` x ``height`` terminal: the detail beside
        the list from :attr:`BESIDE_FROM` columns; folded under :attr:`LIST_BELOW` rows
        (when not beside) unless the reviewer chose with ``z``. A resize that changes
        that layout (beside or under, folded or not by default) drops the choice, so the
        new size gets its default (a trial: folded at 80x24, then widened to 120x40, the
        list had the whole width and 13 empty rows until ``z``)."""
        beside = width >= self.BESIDE_FROM
        self.set_class(beside, "-beside")
        self.set_class(not beside and height < self.LIST_BELOW, "-short")
        default = beside or height >= self.LIST_BELOW
        if self._fitted_for is not None and self._fitted_for != (beside, default):
            self.detail_wanted = None
        self._fitted_for = (beside, default)
        shown = default if self.detail_wanted is None else self.detail_wanted
        if self.screen.maximized is None:
            self.set_class(not shown, "-list")
            self._cursor_into_view()
            self._footer_follows()
        self._reading_from_list = not shown

    def _cursor_into_view(self) -> None:
        """Once the table has its new height (after the next refresh), scroll it so the
        highlighted row is on screen (a trial: after the full-screen read, where the
        hidden table had no height to scroll by, the list started below the selected
        row, and ``z`` did not bring it back)."""
        table = part(self, QueueTable)
        if table is not None and table.row_count:
            table.call_after_refresh(lambda: table.move_cursor(row=table.cursor_row))

    @property
    def detail_shown(self) -> bool:
        """Whether the detail pane is on screen beside or under the list."""
        return not self.has_class("-list")

    def action_toggle_detail(self) -> None:
        """Fold the case detail to its peek (the list then has the height) or unfold
        it; the choice holds for this session, whatever the size."""
        self.detail_wanted = not self.detail_shown
        self.set_class(not self.detail_wanted, "-list")
        self._reading_from_list = not self.detail_wanted
        self._cursor_into_view()
        if not self.detail_wanted and self.screen.focused is part(self, CaseDetail):
            self.table.focus()
        self._footer_follows()
        self.app.notify(
            "Detail unfolded (z folds it: more room for the list)."
            if self.detail_wanted
            else "Detail folded: Enter reads a case, z unfolds it.",
            markup=False,
            timeout=3,
        )

    def action_cursor_down(self) -> None:
        """The next case (``j``: in the list, and in the full-screen read too)."""
        self.table.action_cursor_down()

    def action_cursor_up(self) -> None:
        """The previous case (``k``: in the list, and in the full-screen read too)."""
        self.table.action_cursor_up()

    def _maximized_changed(self, before: object, after: object) -> None:
        """Leaving the full-screen read (Escape, Enter, a tab key): the focus goes back
        to the queue, where it was before Enter, unless something else took it, and the
        pane back to its top, where the disputed strip and the verdict are (a trial: it
        kept the reader's scroll, the strip out of sight until the row changed)."""
        detail, table = part(self, CaseDetail), part(self, QueueTable)
        if detail is None or table is None:
            return  # the pane is being removed
        if before is detail and after is None:
            self.set_class(self._reading_from_list, "-list")  # hidden again, if it was
            self._footer_follows()
            detail.scroll_home(animate=False)
            self._cursor_into_view()
            if self.screen.focused in (detail, None):
                # once the key that left the read has done its work: a tab key (2, 3,
                # or one on the contract screen opened from the read) has shown another
                # tab by then, and focusing the hidden list would show the queue again
                # (a loaded run of the contract's 2 ended on the Queue)
                self.app.call_later(self._focus_list_if_shown)

    def _focus_list_if_shown(self) -> None:
        """Focus the list, unless another tab is shown or something took the focus."""
        detail, table = part(self, CaseDetail), part(self, QueueTable)
        tabs = next((a for a in self.ancestors if isinstance(a, TabbedContent)), None)
        if table is None or (tabs is not None and tabs.active != "queue"):
            return
        if self.screen.focused in (detail, None):
            table.focus()
