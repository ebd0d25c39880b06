"""``etki-tui``: the reviewer's desk in the terminal.

The app talks to the core only through :class:`etki.services.Desk`. Every desk call runs
in a thread worker (:func:`etki_tui.workers.desk_worker`) and reports back with a typed
message from :mod:`etki_tui.messages`; errors reach the reviewer as a toast or a modal
that says what to do next, never as a traceback. The queue refreshes itself from the
database while it is open (a cheap version poll in a worker), so several reviewers can
work at once. The command line that starts it is :mod:`etki_tui.__main__`.

This module is the shell: layout, tabs, palette, copy, size and reload. What happens
between a key and the desk's answer (the queue feed, Hafıza, rulings, bulk rulings,
intake) is in :mod:`etki_tui.flows`, one class per flow in a chain that ends in
:class:`EtkiApp`; each tab's widgets are in its folder (``queue/``, ``hafiza/``,
``raporlar/``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from textual import events, on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.command import CommandPalette
from textual.notifications import Notify
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Static, TabbedContent, TabPane, TextArea

from etki.services import Seat
from etki.text import plural, printable
from etki_tui.actions import ACTIONS, bindings, key_label
from etki_tui.config import config_path
from etki_tui.flows.assign import AssignFlow
from etki_tui.flows.base import could_not_load
from etki_tui.footer import DeskFooter
from etki_tui.hafiza.contents import PageContents
from etki_tui.hafiza.pane import MemoryPane
from etki_tui.header import DeskHeader, StatusLine
from etki_tui.heap import IdleCollector, release_loaded
from etki_tui.live import gone, part
from etki_tui.messages import (
    CaseWanted,
    Copied,
    ProjectSwitched,
    ReportLoaded,
    TerminalClosed,
)
from etki_tui.providers import DeskCommands
from etki_tui.queue.filter_screen import FilterPanel
from etki_tui.queue.pane import QueuePane
from etki_tui.raporlar.pane import ReportsPane
from etki_tui.screens.bulk import BulkConfirm
from etki_tui.screens.confirm import ConfirmRuling
from etki_tui.screens.contract import ContractScreen
from etki_tui.screens.help import HelpScreen
from etki_tui.screens.new_request import NewRequestForm
from etki_tui.screens.note import NoteForm
from etki_tui.screens.notice import MIN_SIZE, MessagesScreen, NoticeModal, TooSmallScreen
from etki_tui.typeahead import HOLD_AT_MOST_S, TypedAhead
from etki_tui.workers import desk_worker

TABS: dict[str, str] = {"queue": "Queue", "hafiza": "Hafıza", "raporlar": "Raporlar"}
"""Tab pane id -> tab label."""


def say_config_warnings(status: StatusLine | None, warnings: Sequence[str], now: datetime) -> None:
    """The config file's ``warnings`` (a keymap clash, an unknown id, …) said at ``now``:
    each kept whole in the messages view (``L``, severity warning) and the first on the
    ``status`` line, where it stays until the next message — not a toast (a fresh trial
    of issue 34: the keymap-clash toast covered 9 list rows for ~8 s at 80x24; item 6,
    toasts only for what needs attention, short)."""
    said = [printable(w, multiline=False) for w in warnings]
    if not said or status is None:
        return
    stamp = now.strftime("%H:%M:%S")
    for warning in said:
        status.keep(stamp, "warning", "Config", warning)
    more = f" (+{len(said) - 1} more)" if len(said) > 1 else ""
    status.say("Config", said[0] + more)


class EtkiApp(AssignFlow):
    """The desk for one project of a :class:`Desk` (others are a palette away).

    Switches for tests and slow links: ``cursor_blink=False`` also stops the other
    moving parts (button flash, animations) and keeps toasts until dismissed, so
    screenshots are stable; ``search_delay`` is the debounce before a live search
    (default none: a keystroke searches at once, or right after the search running);
    ``preview_delay`` how long the Hafıza list rests on a page before its preview loads;
    ``poll_seconds`` the live-refresh period (0 = off; default from the config file);
    ``clock`` gives "now" for request ages; ``color_system`` (``standard`` for a
    16-colour terminal) picks the ANSI theme. ``config`` is the parsed config file
    (keymap and refresh); its warnings are shown as toasts on start."""

    CSS_PATH = "etki.tcss"
    TITLE = "Etki"
    BINDINGS = bindings(
        "tab.queue",
        "tab.hafiza",
        "tab.raporlar",
        "search",
        "copy",
        "reload",
        "messages",
        "help",
        "palette",
        "quit",
        "leave",
        # Tab and Shift+Tab move the focus as the app receives them (priority), before
        # the keys typed after them are handed to the focused box: in one burst
        # ("Title" Tab "body", an SSH packet, tmux send-keys) the body lands in the box
        # Tab moved to, not in the title (Textual's own Tab binding runs only once the
        # key has bubbled back up from the box, after the later keys were handed out).
        "focus.next",
        "focus.previous",
    )
    COMMANDS = App.COMMANDS | {DeskCommands}
    AUTO_FOCUS = "#queue-table"
    status_line: StatusLine | None = None
    _tab_before: str | None = None  # the tab shown before the one activated last
    """The one-line status area over the footer (on the desk's own screen)."""
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-medium"), (150, "-wide")]

    # --- layout ---------------------------------------------------------------------------

    def _tab_label(self, tab: str) -> str:
        keys = ACTIONS[f"tab.{tab}"].keys(self.keymap)
        return f"{key_label(keys[0])} {TABS[tab]}" if keys else TABS[tab]

    def compose(self) -> ComposeResult:
        """Header, the read-only banner (shown only to a reviewer who may not rule),
        the three tabs and the footer."""
        yield DeskHeader()
        banner = Static("", id="readonly-banner", markup=False)
        banner.display = False
        yield banner
        with TabbedContent(initial="queue", id="tabs"):
            with TabPane(self._tab_label("queue"), id="queue"):
                queue = QueuePane(clock=self.clock, cursor_blink=self.cursor_blink, id="queue-pane")
                queue.view_delay = self.view_delay
                yield queue
            with TabPane(self._tab_label("hafiza"), id="hafiza"):
                yield MemoryPane(
                    cursor_blink=self.cursor_blink,
                    preview_delay=self.preview_delay,
                    id="memory-pane",
                )
            with TabPane(self._tab_label("raporlar"), id="raporlar"):
                yield ReportsPane(id="reports-pane")
        status = StatusLine(id="status-line")
        keys = ACTIONS["messages"].keys(self.keymap)
        status.more_key = key_label(keys[0]) if keys else "palette: Messages"
        self.status_line = status
        yield status
        yield DeskFooter()

    def on_unmount(self) -> None:
        """The desk is closing: what it froze out of the collector's walks is given
        back, and full collections to CPython (:mod:`etki_tui.heap`)."""
        self._collector.stop()
        release_loaded()

    async def on_event(self, event: events.Event) -> None:
        """Input events note their time for the idle collector
        (:class:`etki_tui.heap.IdleCollector`); Textual then handles every event. A key
        that opens a form (:attr:`ActionDef.opens`) holds the keys after it until the
        form is up, then they are typed into it (:mod:`etki_tui.typeahead`)."""
        if isinstance(event, events.InputEvent):
            self._collector.input_seen()
        if isinstance(event, events.Key) and self.status_line is not None:
            self.status_line.lapse(self.clock().timestamp())  # a passing message's time up
        if not isinstance(event, events.Key) or event.is_forwarded:
            await super().on_event(event)
            return
        if self._typeahead.keep(event):
            return
        screen = self.screen
        opener = self._typeahead.opening(screen, event.key, self.keymap)
        await super().on_event(event)
        if opener is not None:
            done = TypedAhead(self._typeahead.hold(screen, event.key))
            # after the request the action posted, the same way up (or straight here)
            if not (opener.is_attached and opener.post_message(done)):
                self.post_message(done)
            late = TypedAhead(done.token)
            self.set_timer(HOLD_AT_MOST_S, lambda: self.post_message(late))

    @on(TypedAhead)
    async def _typed_ahead(self, message: TypedAhead) -> None:
        """The opening key's request was answered: once the form it opened is mounted,
        type the held keys into it (after the focus calls its mounting queued here)."""
        message.stop()
        token, ahead = message.token, self._typeahead
        if not await ahead.settle(self.screen, token):
            return

        def dropped(key: str, count: int) -> None:
            if self.status_line is not None and self.status_line.is_attached:
                self.status_line.say(
                    "Keys not used",
                    f"{count} {plural(count, 'key')} typed after {key_label(key)} went nowhere: no form opened.",
                )

        async def type_held() -> None:
            await ahead.type_held(token, self.screen, self.on_event, dropped)

        self.call_later(type_held)

    def on_mount(self) -> None:
        """Keymap, theme, what ``etki-tui PROJECT_DIR`` loaded, then the queue."""
        self.screen_change_signal.subscribe(self, self._screen_changed)
        if self.keymap:
            self.set_keymap(self.keymap)
        system = self.color_system or (None if self.is_headless else self.console.color_system)
        if system in ("standard", "windows") or self.no_color:
            self.theme = "ansi-dark"
        if self.steady:
            self.animation_level = "none"
        self.query_one("#queue-table").focus()
        if self.init_summary is not None:
            s = self.init_summary
            msg = (
                f"Loaded {s.project_id}: {s.requests} {plural(s.requests, 'request')}, "
                f"{s.new_cases} new {plural(s.new_cases, 'case')} triaged."
            )
            if s.refused:  # rows that cannot be stored; the first one named
                msg += f" {len(s.refused)} request {plural(len(s.refused), 'row')} refused: {s.refused[0]}"
            if s.wiki_error:
                msg += (
                    f" Wiki not updated: {s.wiki_error} — run `python -m etki.wiki "
                    "rebuild` to regenerate it."
                )
            self.notify(
                printable(msg, multiline=False),
                title="Project loaded",
                markup=False,
                severity="warning" if s.wiki_error or s.refused else "information",
            )
        # after the messages posted above, so they do not push it off the status line
        self.call_later(say_config_warnings, self.status_line, self.config.warnings, self.clock())
        self.load_queue()
        self._catch_up_due = self.project_id  # once the queue is shown (_queue_loaded)
        self._collector.start()
        self.set_interval(IdleCollector.TICK_S, self._collector.tick, name="idle-gc")
        if self.poll_seconds > 0:
            self.set_interval(self.poll_seconds, self._poll_tick, name="live-refresh")
        self._check_size(self.size.width, self.size.height)

    def header_parts(self) -> tuple[str, str, Seat | None, str]:
        """What the header shows besides the title: (project name, project id, seat,
        store); :class:`etki_tui.header.DeskHeader` fits it to its width."""
        return self.project_name, self.project_id, self.seat, self.store

    def get_key_display(self, binding: Binding) -> str:
        """How the footer names ``binding``'s key: Textual's way, except that a key
        shown as a character the focused text box takes as text (``?`` for Help, bound
        to F1 too) is named by the key that works there (``F1``): typing ``?`` in a
        reason writes a question mark, it does not open the help."""
        shown = super().get_key_display(binding)
        focused = self.focused
        if (
            len(shown) == 1
            and shown.isprintable()
            and binding.key != shown
            and isinstance(focused, Input | TextArea)
            and focused.check_consume_key(binding.key, shown)
        ):
            return key_label(binding.key)
        return shown

    def get_system_commands(self, screen: Screen) -> Sequence[SystemCommand]:
        """Textual's commands minus its key panel (the desk has its own help) and its
        screenshot (it writes a file into the working directory)."""
        return [
            c for c in super().get_system_commands(screen) if c.title not in ("Keys", "Screenshot")
        ]

    # --- workers: every desk call runs in a thread and answers with a message -------------
    # (etki_tui.workers: each body returns its answer; ``failed`` answers its errors)

    @desk_worker("report", coalesce=True, failed=could_not_load("Raporlar"))
    def load_report(self, project_id: str) -> ReportLoaded:
        """Compute the Raporlar counts (pending ages measured at the desk's clock)."""
        return ReportLoaded(self.desk.report(project_id, now=self.clock()), project_id=project_id)

    # --- message handlers (on the event loop) -----------------------------------------------

    @on(ReportLoaded)
    def _report_loaded(self, message: ReportLoaded) -> None:
        if message.project_id and message.project_id != self.project_id:
            return
        pane = self.desk_part(ReportsPane, message)
        if pane is not None:
            pane.show(message.report)

    @on(Notify)
    def _routine_to_status(self, message: Notify) -> None:
        """Every message is kept for the messages view (``M``); a routine one
        (severity ``information``) goes to the one-line status area instead of a toast,
        which would cover the work: toasts are for warnings and errors (noted, so a
        modal form opening over them takes them off: :meth:`_screen_changed`)."""
        note = message.notification
        status = self.status_line
        if status is None or not status.is_attached:
            return  # closing, or not composed yet: Textual's toast as it was
        status.keep(self.clock().strftime("%H:%M:%S"), note.severity, note.title, note.message)
        if note.severity == "information":
            message.prevent_default()
            # a confirmation passes as its toast did: gone once the reviewer moves on
            status.say(note.title, note.message, lasts=note.timeout, now=self.clock().timestamp())
        else:
            self._toasts_shown.append(note)

    def _screen_changed(self, screen: Screen) -> None:
        """A modal form (any modal screen but the command palette) opened over toasts
        still shown: they leave the screen, so none covers the form's buttons (a trial
        saw the Config warning over the X form's Export); the newest is said on the
        status line as a passing message (it lapses as a confirmation does, never comes back
        later over newer ones), and every one stays whole in the messages view (``L``).
        A toast raised while the form is open is shown over it as usual: that one is news."""
        if not isinstance(screen, ModalScreen) or isinstance(screen, CommandPalette):
            return
        live = [n for n in self._toasts_shown if not n.has_expired]
        self._toasts_shown.clear()
        if not live:
            return
        status = self.status_line
        if status is not None and status.is_attached:
            # passing, as the toast was: once the reviewer moves on it leaves the line
            # (said as standing, a later tab switch brought it back over newer messages)
            newest = live[-1]
            status.say(
                newest.title, newest.message, lasts=newest.timeout, now=self.clock().timestamp()
            )
        self.clear_notifications()

    @on(TerminalClosed)
    def _terminal_closed(self, message: TerminalClosed) -> None:
        self.exit(return_code=0)

    @on(CommandPalette.Opened)
    def _palette_opened(self) -> None:
        if self.steady:
            self.call_after_refresh(self._steady_inputs)

    def _steady_inputs(self) -> None:
        if gone(self):  # a callback: the screens may be gone by now
            return
        for field in self.screen.query(Input):
            field.cursor_blink = False

    # --- UI events ----------------------------------------------------------------------------

    @on(CaseWanted)
    def _case_wanted(self, message: CaseWanted) -> None:
        message.stop()
        self.goto_case(message.case_id)

    @on(TabbedContent.TabActivated, "#tabs")
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        pane_id = event.pane.id or ""
        if pane_id != "hafiza":
            self._forget_search()
        if self._tab_before not in (None, pane_id) and self.status_line is not None:
            self.status_line.lapse()  # another tab: the last tab's confirmation is done
        self._tab_before = pane_id
        self._refresh_tab(pane_id)
        self._focus_tab(pane_id)

    def _forget_search(self) -> None:
        """Leaving Hafıza clears its search (issue 34 item 8: a query typed for one
        question was still filtering the list when the reviewer came back for
        another); the empty box shows the memory list again at once."""
        box = part(self, "#memory-search", Input)
        if box is not None and box.value:
            box.value = ""

    def _refresh_tab(self, pane_id: str) -> None:
        if pane_id == "hafiza" and "hafiza" in self._stale:
            self._stale.discard("hafiza")
            self.load_memory()
        elif pane_id == "raporlar":
            self._stale.discard("raporlar")
            self.load_report()

    def _focus_tab(self, pane_id: str) -> None:
        target = {
            "queue": "#queue-table",
            "hafiza": "#memory-list",
            "raporlar": "#reports-pane",
        }.get(pane_id)
        if pane_id == "hafiza" and self._tab_focus is not None:
            target, self._tab_focus = self._tab_focus, None  # asked for by focus_search
        tabs = self.desk_part(TabbedContent, f"focus on {pane_id}")
        if tabs is None or tabs.active != pane_id:
            # a later key chose another tab before this activation was handled: focusing
            # a widget of this tab would switch back to it (quick 2 3 1 ended on Raporlar)
            return
        pane = part(self, f"#{pane_id}")
        focused = self.screen.focused
        if pane is not None and focused is not None and pane in focused.ancestors_with_self:
            return  # the focus is in this tab already (letters typed in the search box)
        widget = self.desk_part(target, f"focus on {pane_id}") if target else None
        if widget is not None:
            widget.focus()

    def on_resize(self, event: events.Resize) -> None:
        """Cover the desk with a notice while the terminal is too small; the read-only
        banner or the header's READ-ONLY by the height (:meth:`_show_who`)."""
        self._check_size(event.size.width, event.size.height)
        self._show_who(event.size.height)

    def _check_size(self, width: int, height: int) -> None:
        small = width < MIN_SIZE[0] or height < MIN_SIZE[1]
        notice = self._too_small
        if small and notice is None:
            self._too_small = TooSmallScreen(width, height)
            self.push_screen(self._too_small)
        elif small and notice is not None:
            notice.show_size(width, height)
        elif not small and notice is not None:
            self._too_small = None
            if self.screen is notice:
                self.pop_screen()
            else:  # something opened on top meanwhile: leave when it comes back up
                notice.leave_when_resumed = True

    # --- where things are ---------------------------------------------------------------------

    def current_context(self) -> str:
        """The help context of what is on screen: a modal's, or the active tab's."""
        screen = self.screen
        if isinstance(screen, ConfirmRuling):
            return "confirm"
        if isinstance(screen, BulkConfirm):
            return "bulk"
        if isinstance(screen, FilterPanel):
            return "filters"
        if isinstance(screen, NewRequestForm):
            return "intake"
        if isinstance(screen, NoteForm):
            return "note"
        if isinstance(screen, NoticeModal | TooSmallScreen):
            return "app"
        if isinstance(screen, ContractScreen):
            return "contract"
        try:
            return self.query_one(TabbedContent).active or "queue"
        except Exception:
            return "queue"

    # --- actions ------------------------------------------------------------------------------

    def action_show_tab(self, tab: str) -> None:
        """Switch to the tab ``tab`` (queue | hafiza | raporlar)."""
        if self.screen.maximized is not None:
            self.screen.minimize()
        tabs = self.query_one(TabbedContent)
        if tabs.active == tab:
            self._focus_tab(tab)
        else:
            tabs.active = tab

    def action_focus_search(self) -> None:
        """Go to Hafıza and put the cursor in the search box (and keep it there: the
        tab's activation, handled after this, focuses the box rather than the list, so
        the letters typed right after ``/`` all land in the box)."""
        self._tab_focus = "#memory-search"
        self.action_show_tab("hafiza")
        # at once (a priority key, see etki_tui.actions): the letters typed right after
        # the / are handed to the box, not to the widget that had the focus
        self.screen.set_focus(self.query_one("#memory-search", Input))

    @property
    def escape_to_minimize(self) -> bool:
        """Textual's Esc-leaves-full-screen, except in the reader's open contents: there
        Esc closes the contents (:class:`PageContents`) and the page stays full-screen."""
        focused = self.screen.focused
        if focused is not None and any(isinstance(n, PageContents) for n in focused.ancestors):
            return False
        return super().escape_to_minimize

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``q`` quits only from the desk itself (or the whole contract, a page of it
        shown as a modal screen) with no text box focused (a letter in
        a box, nothing on a dialog; hidden from the footer there). ``/`` (a priority key)
        goes to the wiki search only from the desk itself and
        outside the queue: in a text box it is a character, on a dialog it is nothing,
        and in the queue it is the queue's own find (Textual asks the app's priority
        bindings before the focused pane's). Import and assign (the queue's keys run
        here) are left out on an archived project, as its other writes are."""
        if action in ("import_requests", "assign_case"):
            return not self.archived
        if action == "leave":
            screen = self.screen
            page = not isinstance(screen, ModalScreen) or isinstance(screen, ContractScreen)
            return page and not isinstance(screen.focused, Input | TextArea)
        if action == "focus_search":
            focused = self.screen.focused
            queue = part(self, QueuePane)
            in_queue = (
                queue is not None and focused is not None and queue in focused.ancestors_with_self
            )
            return (
                not isinstance(focused, Input)
                and not in_queue
                and not isinstance(self.screen, ModalScreen)
            )
        return True

    def action_leave(self) -> None:
        """``q`` on the desk itself with no text box focused (:meth:`check_action`):
        quit, as Ctrl+Q does (every ruling is already stored)."""
        self.exit()

    def action_reload(self) -> None:
        """Triage the project folder's new ``requests.jsonl`` rows, then reload the
        queue, memory and reports from the database, and the whole cases of the detail
        pane (what another desk saved without a new version, a pre-analysis, shows
        then); the toast follows the answer (:meth:`_say_reloaded`)."""
        pane = self.desk_part(QueuePane, "reload")
        if pane is not None:
            pane.forget_details()
        self.load_queue("reread")
        self._mark_stale()

    def action_help(self) -> None:
        """Help for the current screen (pressed again, or Escape, closes it)."""
        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss(None)
            return
        context = self.current_context()
        contexts = (
            [context]
            if context in ("confirm", "filters", "intake", "note", "app", "contract")
            else [context, "app"]
        )
        path = self.config.path or config_path(self.desk.settings.config_file)[0]
        self.push_screen(HelpScreen(contexts, self.keymap, path))

    def action_messages(self) -> None:
        """Every message of this session in full (what the status line cut, and the
        toasts); pressed again, or Escape, closes it."""
        if isinstance(self.screen, MessagesScreen):
            self.screen.dismiss(None)
            return
        status = self.status_line
        self.push_screen(MessagesScreen(list(status.entries) if status is not None else []))

    def action_command_palette(self) -> None:
        """The command palette, except while the too-small notice is up."""
        if self._too_small is not None:
            return
        super().action_command_palette()

    def action_copy(self) -> None:
        """Copy the highlighted case id (Queue) or the page path / card id (Hafıza) to
        the clipboard with OSC 52, which works over SSH."""
        tab = self.query_one(TabbedContent).active
        target: tuple[str, str] | None = None
        if tab == "queue":
            case_id = self.query_one(QueuePane).current_case_id()
            target = ("case id", case_id) if case_id else None
        elif tab == "hafiza":
            target = self.query_one(MemoryPane).copy_target()
        if target is None:
            self.notify(
                "Nothing to copy here: highlight a case (Queue) or open a page (Hafıza).",
                markup=False,
                timeout=4,
            )
            return
        what, text = target
        self.copy_to_clipboard(text)
        self.post_message(Copied(text, what))
        self.notify(
            f"{printable(text, multiline=False)} (OSC 52; in tmux it needs "
            "set -g set-clipboard on)",
            title=f"Copied {what}",
            markup=False,
            timeout=4,
        )

    # --- palette commands ---------------------------------------------------------------------

    def palette_runner(self, action_id: str) -> Callable[[], None]:
        """A palette command that runs the action ``action_id`` where it belongs."""

        def run() -> None:
            self.run_defined(action_id)

        return run

    def run_defined(self, action_id: str) -> None:
        """Run the action ``action_id`` in its context (switching tab first)."""
        action = ACTIONS[action_id]
        target: object = self
        if action.context == "queue":
            self.action_show_tab("queue")
            target = self.query_one(QueuePane)
        elif action.context == "hafiza":
            self.action_show_tab("hafiza")
            target = self.query_one(MemoryPane)
        self.call_later(self.run_action, action.action, target)

    def case_jumper(self, case_id: str) -> Callable[[], None]:
        """A palette command that goes to ``case_id``."""

        def run() -> None:
            self.goto_case(case_id)

        return run

    def goto_case(self, case_id: str) -> None:
        """Highlight a pending case in the queue (clearing filters that hide it), or
        open a ruled case's decision page in Hafıza."""
        pane = self.desk_part(QueuePane, f"a jump to {case_id}")
        if pane is None:
            return
        if case_id in pane.cases:
            self.action_show_tab("queue")
            if case_id not in pane.table.row_keys():
                pane.set_filter(pane.filter.cleared())
                self.notify(f"Filters cleared to show {case_id}.", markup=False, timeout=4)
            pane.table.move_cursor(row=pane.table.get_row_index(case_id), animate=False)
            pane.table.focus()
            return
        self.open_case_page(case_id)

    def project_switcher(self, project_id: str) -> Callable[[], None]:
        """A palette command that opens ``project_id``."""

        def run() -> None:
            self.switch_project(project_id)

        return run

    def switch_project(self, project_id: str) -> None:
        """Show another stored project (late answers for the old one are ignored)."""
        if project_id == self.project_id:
            return
        self.project_id = project_id
        self._versions = {}
        self.case_index = []
        self.last_converted = None
        self._stale = {"hafiza", "raporlar"}
        self._refresh_failing = False
        self.seat = None
        self.project_name = ""
        self.sub_title = printable(project_id, multiline=False)
        self._show_who()
        self.query_one(QueuePane).reset()
        self.query_one(MemoryPane).reset()
        self.query_one(ReportsPane).reset()
        self.action_show_tab("queue")
        self.load_queue()
        self._catch_up_due = project_id
        self.post_message(ProjectSwitched(project_id))
        self.notify(f"Opened project {project_id}.", markup=False, timeout=3)
