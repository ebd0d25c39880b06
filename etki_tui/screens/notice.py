"""Screens that tell the reviewer something: a modal message that must be acknowledged
(a ruling conflict, a refused ruling) and the "terminal too small" notice."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Center, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from etki_tui.actions import bindings
from etki_tui.glyphs import WARN
from etki_tui.live import part

MIN_SIZE = (80, 24)
"""The smallest terminal the desk lays out for (columns, rows)."""


class NoticeModal(ModalScreen[None]):
    """A message with what happened and what to do next; Enter or Escape closes it.
    ``severity`` (``error`` | ``warning``) sets the frame; the title carries the words."""

    BINDINGS = bindings("notice.close", "help")

    def __init__(
        self, title: str, body: RenderableType, *, severity: str = "error", id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.title_text = title
        self.body = body
        self.severity = severity

    def compose(self) -> ComposeResult:
        """Title, body, OK."""
        with Vertical(id="notice-dialog", classes=f"-{self.severity}") as dialog:
            dialog.border_title = self.title_text
            yield Static(self.body, id="notice-body", markup=False)
            with Center(id="notice-buttons"):
                yield Button("OK", id="notice-ok", variant="primary")
        # its own keys at the bottom: the queue's footer under it offered a/c/r and not
        # q (a fresh trial of issue 34 read it as the queue's footer losing "q Quit")
        yield Footer()

    def on_mount(self) -> None:
        """OK focused (unless the desk closes while the notice is being built)."""
        ok = part(self, "#notice-ok", Button)
        if ok is not None:
            ok.focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def action_close(self) -> None:
        """Close the message."""
        self.dismiss(None)


def too_small_text(width: int, height: int) -> RenderableType:
    """What the too-small notice says."""
    need_w, need_h = MIN_SIZE
    lines = [
        Text(f"{WARN} TERMINAL TOO SMALL", style="bold reverse"),
        Text(""),
        Text(f"This terminal is {width}×{height}; the desk needs at least {need_w}×{need_h}."),
        Text("Make the window larger or the font smaller; the desk comes back as it was."),
        Text(""),
        Text("Ctrl+Q quits. Nothing is lost: every ruling is already saved.", style="dim"),
    ]
    return Group(*lines)


class TooSmallScreen(ModalScreen[None]):
    """Covers everything while the terminal is smaller than :data:`MIN_SIZE`; keys do
    nothing here (so nothing is ruled blind) except Ctrl+Q."""

    BINDINGS = bindings("quit")

    def __init__(self, width: int, height: int) -> None:
        super().__init__(id="too-small")
        self.size_seen = (width, height)
        self.leave_when_resumed = False

    def on_screen_resume(self) -> None:
        """The terminal grew while another screen was on top: leave now."""
        if self.leave_when_resumed:
            self.dismiss(None)

    def compose(self) -> ComposeResult:
        yield Static(too_small_text(*self.size_seen), id="too-small-body", markup=False)

    def show_size(self, width: int, height: int) -> None:
        """Update the numbers after another resize (two resizes can come before the
        notice is composed: it is composed with the last size seen)."""
        self.size_seen = (width, height)
        body = part(self, "#too-small-body", Static)
        if body is not None:
            body.update(too_small_text(width, height))


class MessagesScreen(ModalScreen[None]):
    """Every message of this session, newest first, each in full (``M``): what the
    one-line status area cut, and the toasts that have gone. ``entries`` are
    (time ``HH:MM:SS``, severity, title, message) as :class:`etki_tui.header.StatusLine`
    kept them; the text is untrusted (shown literally)."""

    BINDINGS = bindings("help.close")

    def __init__(self, entries: list[tuple[str, str, str, str]]) -> None:
        super().__init__(id="messages")
        self.entries = entries

    def compose(self) -> ComposeResult:
        """A scrolling list of the messages, or a line saying there are none."""
        with VerticalScroll(id="messages-dialog") as box:
            box.border_title = "Messages (newest first) · Esc closes"
            if not self.entries:
                yield Static(Text("No messages yet.", style="dim"), markup=False)
            for stamp, severity, title, message in reversed(self.entries):
                head = Text(f"{stamp} ", style="dim")
                if severity != "information":
                    head.append(f"{WARN} {severity} ", style="bold")
                if title:
                    head.append(title, style="bold")
                yield Static(Group(head, Text(message)), classes="message-entry", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        """The list has the focus, so the arrows scroll it."""
        box = part(self, "#messages-dialog", VerticalScroll)
        if box is not None:
            box.focus()

    def action_close(self) -> None:
        """Close the list."""
        self.dismiss(None)
