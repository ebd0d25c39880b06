"""The desk's state and the helpers every flow uses (the base of the flow chain).

Each flow is a class in the chain ``FlowBase -> QueueFeedFlow -> HafizaFlow -> RulingFlow
-> BulkFlow -> IntakeFlow -> EtkiApp``; every one derives from Textual's ``App`` (so from
``MessagePump``), whose metaclass registers its ``@on`` handlers: a handler in a plain
mixin would silently never be called (tests/test_tui_flows.py checks this).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, TypeVar

from textual.app import App
from textual.message import Message
from textual.notifications import Notification
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input, Static, TabbedContent

from etki.services import Desk, InitSummary, Seat
from etki.text import printable
from etki_tui.actions import ACTIONS
from etki_tui.config import TuiConfig
from etki_tui.errors import advice, one_line
from etki_tui.header import DeskHeader, archived_text, read_only_banner, short_store
from etki_tui.heap import IdleCollector
from etki_tui.live import gone, part
from etki_tui.messages import (
    DeskFailed,
)
from etki_tui.queue.pane import QueueCase
from etki_tui.screens.notice import TooSmallScreen
from etki_tui.typeahead import TypeAhead

_W = TypeVar("_W", bound=Widget)


VIEW_EVERY_S = 3600
"""This desk writes a reviewer's view of a case at most once per this many seconds (the
store refuses a second one within the hour too: ``CaseFileRepository.record_view``)."""


def _utc_now() -> datetime:
    return datetime.now(UTC)


def could_not_load(what: str) -> Callable[..., DeskFailed]:
    """A worker's ``failed``: the error as :class:`DeskFailed` for ``what`` (a toast
    that says what could not be loaded and what to do)."""

    def failed(exc: Exception, *_args: object) -> DeskFailed:
        return DeskFailed(what, one_line(exc), advice(exc))

    return failed


def _driver_class() -> type | None:
    if os.name != "posix":
        return None
    from etki_tui.terminal import EtkiDriver

    return EtkiDriver


BANNER_FROM = 30
"""From this many rows the read-only banner has its own two lines under the header;
under it (where the queue is folded to give the list 15 rows at 80x24) the header says
READ-ONLY and the status line why (:meth:`FlowBase._show_who`)."""


class FlowBase(App[None]):
    """The desk's state and the helpers every flow uses (the base of the flow chain);
    the constructor's switches are described on :class:`etki_tui.app.EtkiApp`."""

    read_only_in_header = False
    """The header starts with READ-ONLY (a read-only desk under :data:`BANNER_FROM`
    rows, where the banner is hidden)."""
    _read_only_said: object = None

    def __init__(
        self,
        desk: Desk,
        project_id: str,
        *,
        init_summary: InitSummary | None = None,
        cursor_blink: bool = True,
        search_delay: float = 0.0,
        config: TuiConfig | None = None,
        poll_seconds: float | None = None,
        clock: Callable[[], datetime] | None = None,
        color_system: str | None = None,
        preview_delay: float = 0.15,
        view_delay: float = 0.8,
    ) -> None:
        # NO_COLOR: plain terminal colours with every hue stripped (Textual's NoColor
        # filter) rather than grey levels by luminance, where red text goes dark.
        self.no_color = "NO_COLOR" in os.environ
        super().__init__(driver_class=_driver_class(), ansi_color=True if self.no_color else None)
        self.desk = desk
        self.project_id = project_id
        self.init_summary = init_summary
        self.cursor_blink = cursor_blink
        self.steady = not cursor_blink
        self.search_delay = search_delay
        self.preview_delay = preview_delay
        self.view_delay = view_delay
        """How long the detail pane rests on a case before it counts as opened (the
        reviewer's view is written, the history read); 0: at once (tests)."""
        self._claims: dict = {}
        self._assignments: dict = {}
        """The assignments in force as last loaded (compared by the live refresh too)."""
        self._resolutions = -1
        """How many dispute resolutions the last load saw (-1: none yet)."""
        self._preanalyses = -1
        """The newest pre-analysis id the last load saw (-1: none yet)."""
        """The live claims as last loaded (the live refresh compares them too)."""
        self._viewed: dict[str, datetime] = {}
        """case id -> when this desk last wrote the reviewer's view of it."""
        self.config = config or TuiConfig()
        self.keymap: dict[str, str] = dict(self.config.keymap)
        self.poll_seconds = self.config.refresh_seconds if poll_seconds is None else poll_seconds
        self.clock = clock or _utc_now
        self.color_system = color_system
        self.projects: list[tuple[str, str]] = []
        self.case_index: list[QueueCase] = []
        """Every case of the project as last loaded (the palette's case list), with
        this desk's own rulings since (:meth:`_ruled_here`)."""
        self.last_converted: str | None = None
        """The case this desk last ruled (or amended to) CHANGE_REQUEST: ``D`` opens its
        change request when no case ruled CR is highlighted (``c`` takes a case out of
        the queue)."""
        self._versions: dict[str, int] = {}
        self._ruled_before: set[str] = set()
        """The cases ruled at the last queue read: a newer version of one is an amendment
        (the "Amended meanwhile" status)."""
        self._reads = [0, 0]
        """Queue reads [started (in their threads), answered (handled or failed)]: the
        live refresh waits while they differ (:meth:`_poll_tick`)."""
        self._reads_lock = threading.Lock()
        self._search_timer: Timer | None = None
        self._pending_search: str | None = None
        self._search_seq = 0  # numbers each search; only the newest one's answer shows
        self._tab_focus: str | None = None  # where Hafıza's activation puts the focus once
        self._page_seq = 0  # numbers each page request; only the newest one is shown
        self._stale: set[str] = {"hafiza", "raporlar"}
        self._in_flight: set[str] = set()  # case ids whose ruling is being recorded
        self._select_added: str | None = None  # a case added here: selected once loaded
        self._refresh_failing = False
        self._too_small: TooSmallScreen | None = None
        self._projecting = threading.Lock()  # one wiki projection at a time
        self._catch_up_due: str | None = None  # project whose wiki catch-up is to start
        self._collector = IdleCollector()  # full GC collections between events
        self._typeahead = TypeAhead(ACTIONS)  # keys held while a form opens
        self._toasts_shown: list[Notification] = []  # warnings and errors toasted
        self.seat: Seat | None = None
        """Who acts on the project shown and whether they may rule (read with the queue)."""
        self._drafts: dict[tuple[str, str], str] = {}
        """(case id, action) -> the reason typed in a confirm dialog closed without
        ruling: given back only to a dialog of the same ruling on the same case (a reason
        written for a CR never pre-fills a Reject, where two Enters would record it)."""
        self.project_name = ""
        self.store = short_store(desk.store_label())
        """Where the store lives, for the header (no user name, no password)."""
        self.sub_title = printable(project_id, multiline=False)

    def _warm_search(self, project_id: str, _answer: Message) -> None:
        """After a projection answered: re-read the pages it wrote into the search
        index, off the keys (the next keystroke finds the index warm)."""
        self.desk.warm_wiki_search(project_id)

    @property
    def archived(self) -> bool:
        """Whether the project is archived (it takes no writes from anyone); False
        before the seat is read."""
        return self.seat is not None and self.seat.archived

    def refused_archived(self, what: str) -> bool:
        """On an archived project, say that ``what`` (``an import``) was not recorded
        (the toast of a refused write key) and return True: the caller opens nothing (a
        trial found ``i`` opened the import form, refused only on submit). False
        otherwise."""
        if not self.archived:
            return False
        self.notify(
            printable(archived_text(self.project_id, what), multiline=False),
            title="Archived project",
            severity="warning",
            markup=False,
            timeout=8,
        )
        return True

    @property
    def read_only(self) -> bool:
        """Whether the acting reviewer may not rule on this project (it is archived, or
        a viewer, or not listed by a project that lists reviewers); False before the
        seat is read."""
        return self.seat is not None and not self.seat.may_rule

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity="information",  # noqa: ANN001
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """A toast; with ``cursor_blink=False`` (tests) it stays until dismissed, so a
        screenshot never races its timeout."""
        if self.steady:
            timeout = 3600
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def desk_part(
        self, selector: str | type[_W], message: Message | str, expect_type: type[_W] | None = None
    ) -> _W | None:
        """The desk's widget ``selector`` (on the default screen, also under a modal),
        or None when it cannot take ``message``: the desk is closing (Textual removes
        its widgets, children first, while answers already queued are still handled)
        or the widget is gone. The drop is logged (``textual console``) with its reason;
        what the message carried is in the database for the next load. A pane that is
        there but not composed yet is returned: it keeps what it is given and draws it
        on mount."""
        found = part(self, selector, expect_type)
        if found is None:
            what = message if isinstance(message, str) else type(message).__name__
            name = selector if isinstance(selector, str) else selector.__name__
            why = "the desk is closing" if gone(self) else "it is not on the desk"
            self.log.warning(f"{what} dropped: no {name} to show it in ({why})")
        return found

    def _show_who(self, height: int | None = None) -> None:
        """Header and read-only banner after the seat, the project or the terminal's
        ``height`` (rows; None: the app's) changed."""
        header = part(self, DeskHeader)
        banner = part(self, "#readonly-banner", Static)
        if banner is None:  # not composed yet (on_mount's first load shows it), or closing
            if header is not None:
                header.update_title()
            return
        self.refresh_bindings()  # the ruling keys leave the footer on a read-only desk
        text = (
            read_only_banner(self.seat, self.project_id) if self.seat and self.read_only else None
        )
        if text is not None:
            banner.update(text)
        # under BANNER_FROM rows the banner's two lines would cut the folded list to 13
        # rows (a trial): the header then starts with READ-ONLY and the status line says
        # why (kept in the messages view, and said again by a refused ruling key)
        rows = self.size.height if height is None else height
        short = 0 < rows < BANNER_FROM
        banner.display = self.read_only and not short
        self.read_only_in_header = self.read_only and short
        if header is not None:
            header.update_title()
        said = (self.seat, self.project_id) if self.read_only_in_header else None
        status = getattr(self, "status_line", None)
        if said is not None and said != self._read_only_said and status is not None:
            why = text.plain.removeprefix(" READ-ONLY ").strip() if text is not None else ""
            status.say("READ-ONLY", why, standing=True)
            status.keep("", "warning", "READ-ONLY", why)
        self._read_only_said = said

    if TYPE_CHECKING:
        # provided further down the chain (the Hafiza flow, the shell): declared here
        # for the checker only, so the flows above them may call them
        def _refresh_tab(self, pane_id: str) -> None: ...
        def _search_now(self, query: str) -> None: ...
        def action_show_tab(self, tab: str) -> None: ...
        def goto_case(self, case_id: str) -> None: ...

    def _mark_stale(self, *, search: bool = True) -> None:
        self._stale.update({"hafiza", "raporlar"})
        tabs = self.desk_part(TabbedContent, "a refresh of the shown tab")
        box = self.desk_part("#memory-search", "a refresh of the search", Input)
        if tabs is None or box is None:
            return  # stale: read again when a tab is shown
        self._refresh_tab(tabs.active)
        if search and box.value.strip():
            self._search_now(box.value)

    def _wiki_failed(self, text: str, error: str) -> None:
        if not error.lower().startswith("wiki"):
            error = f"wiki not updated: {error}"
        self.notify(
            printable(
                f"{text} The ruling is saved; {error}. Once that is fixed, "
                "`python -m etki.wiki rebuild` regenerates the wiki.",
                multiline=False,
            ),
            title="Ruling saved — wiki error",
            severity="warning",
            markup=False,
            timeout=10,
        )
