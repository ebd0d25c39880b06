"""Leaving cleanly when the terminal goes away (an SSH session dropped, a tmux pane
killed, the input closed).

Textual's Linux driver (8.2) keeps polling a closed stdin forever (``read`` returns
nothing and the loop goes round again) and lets SIGHUP kill the process without
restoring anything. :class:`EtkiDriver` adds three things:

* SIGHUP and SIGTERM become a :class:`etki_tui.messages.TerminalClosed` message, so the
  app exits through its normal path (workers cancelled, terminal modes restored,
  exit code 0);
* end of input (``read`` returns no bytes, or fails with EIO after a hang-up) does the
  same instead of spinning;
* output to a terminal that is gone is dropped (:class:`HangupSafeFile`) instead of
  killing the writer thread the app would then wait for on its way out;
* Escape followed at once by a key is two keys. Textual's parser (8.2.8,
  ``_xterm_parser``) reads ``"\x1b" + "j"`` arriving within its escape delay (one SSH
  packet, a fast typist over a slow link) as one key, ``alt+j``; ``"\x1b/"`` as a
  bare ``/`` (the Escape lost) and ``"\x1bb"`` as Ctrl+←. The relay writes such an
  Escape as the unambiguous kitty-protocol Escape, ``"\x1b[27u"``
  (:func:`separate_escapes`), and an ``alt+`` key the parser still makes (the Escape
  and the key read apart, inside the delay) is handed on as Escape, then the key
  (:func:`split_escape`). The desk binds no Alt key.

Everything else is the stock driver.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any, TextIO

from textual import events
from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message

from etki_tui.messages import TerminalClosed

_SIGNALS = (signal.SIGHUP, signal.SIGTERM)


class HangupSafeFile:
    """The terminal output, where a write to a hung-up terminal (EIO, EPIPE) is dropped
    instead of killing Textual's writer thread — which would leave the app waiting for
    it forever on the way out. ``on_gone`` is called once, at the first failure."""

    def __init__(self, file: TextIO, on_gone: Callable[[], None]) -> None:
        self._file = file
        self._on_gone = on_gone
        self.gone = False

    def _failed(self) -> None:
        if not self.gone:
            self.gone = True
            self._on_gone()

    def write(self, text: str) -> int:
        if self.gone:
            return len(text)
        try:
            return self._file.write(text)
        except (OSError, ValueError):
            self._failed()
            return len(text)

    def flush(self) -> None:
        if self.gone:
            return
        try:
            self._file.flush()
        except (OSError, ValueError):
            self._failed()

    def fileno(self) -> int:
        return self._file.fileno()

    def isatty(self) -> bool:
        return not self.gone and self._file.isatty()

    def __getattr__(self, name: str) -> object:
        return getattr(self._file, name)


KITTY_ESCAPE = b"\x1b[27u"
"""The Escape key in the kitty keyboard protocol (CSI 27 u), which Textual parses as
Escape whatever follows it."""

_INTRODUCERS = frozenset(b"[O]P_^\\X\x1b")
"""Bytes that, after an Escape, begin a sequence (CSI, SS3, OSC, DCS, APC, PM, ST, SOS)
or another Escape: such an Escape is left alone."""


def separate_escapes(data: bytes) -> bytes:
    """``data`` (bytes read from the terminal) with every Escape that is directly
    followed by a printable character (not a sequence introducer, see
    :data:`_INTRODUCERS`) written as :data:`KITTY_ESCAPE`: ``b"\x1bj"`` ->
    ``b"\x1b[27uj"``, read as Escape then ``j``. An Escape at the end of ``data`` is
    left alone (the parser's delay decides it)."""
    if b"\x1b" not in data:
        return data
    out = bytearray()
    last = len(data) - 1
    for i, byte in enumerate(data):
        if byte == 0x1B and i < last:
            nxt = data[i + 1]
            if nxt >= 0x20 and nxt != 0x7F and nxt not in _INTRODUCERS:
                out += KITTY_ESCAPE
                continue
        out.append(byte)
    return bytes(out)


def split_escape(event: events.Key) -> tuple[events.Key, events.Key] | None:
    """``(Escape, key)`` for a key event Textual's parser made of an Escape and one
    printable character read together (``alt+j`` from ``"\x1bj"``, ``alt+shift+a``
    from ``"\x1bA"``); None for any other key. Textual names such a key ``alt+`` +
    the character's key name (``shift+`` before it for a capital) and keeps the
    character itself as ``event.character``."""
    name = event.key
    char = event.character
    if not name.startswith("alt+") or char is None or len(char) != 1 or not char.isprintable():
        return None
    rest = name.removeprefix("alt+").removeprefix("shift+")
    if "+" in rest and rest != "+":  # another modifier (alt+ctrl+…): a real chord
        return None
    plain = events.Key(char if char.isalnum() else rest, char)
    return events.Key("escape", "\x1b"), plain


class EtkiDriver(LinuxDriver):
    """The Linux driver, plus a clean exit on hang-up, SIGTERM and end of input.

    Built on the stock driver's public surface: its output file is the one it takes
    from ``sys.__stderr__`` (wrapped while the driver is made), and its input loop
    (:meth:`run_input_thread`) reads :attr:`fileno`, which for the loop's lifetime is a
    pipe fed by a relay thread that watches the terminal for end of input."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._leaving = False
        terminal = sys.__stderr__
        if terminal is not None:  # the stock driver writes to the file found there
            safe = HangupSafeFile(terminal, lambda: self._leave("terminal gone"))
            sys.__stderr__ = safe  # type: ignore[misc,assignment]
        try:
            super().__init__(*args, **kwargs)
        finally:
            sys.__stderr__ = terminal  # type: ignore[misc]

    def process_message(self, message: Message) -> None:
        """The stock processing, with an Escape read together with the next key handed
        on as two keys (:func:`split_escape`), in order."""
        if isinstance(message, events.Key) and (pair := split_escape(message)) is not None:
            for key in pair:
                super().process_message(key)
            return
        super().process_message(message)

    def start_application_mode(self) -> None:
        """The stock start, then SIGHUP and SIGTERM handled on the app's loop."""
        super().start_application_mode()
        loop = asyncio.get_running_loop()
        for sig in _SIGNALS:  # not the main thread, or no signals here: the default stays
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, self._leave, sig.name)

    def stop_application_mode(self) -> None:
        """The signal handlers removed, then the stock stop."""
        with contextlib.suppress(RuntimeError):  # no running loop: none were added
            loop = asyncio.get_running_loop()
            for sig in _SIGNALS:
                with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                    loop.remove_signal_handler(sig)
        super().stop_application_mode()

    def _leave(self, why: str) -> None:
        """Ask the app to leave (once)."""
        if self._leaving:
            return
        self._leaving = True
        self.send_message(TerminalClosed(why))

    def run_input_thread(self) -> None:
        """The stock input loop, reading a pipe that :meth:`_relay` fills from the
        terminal: the stock loop would spin on a closed input (``read`` returning no
        bytes) and die on EIO after a hang-up; the relay ends the app instead."""
        terminal = self.fileno
        pipe_out, pipe_in = os.pipe()
        stop = threading.Event()
        relay = threading.Thread(
            target=self._relay, args=(terminal, pipe_in, stop), name="etki-input-relay", daemon=True
        )
        relay.start()
        self.fileno = pipe_out  # read once, when the stock loop starts (and at its end)
        try:
            super().run_input_thread()
        finally:
            self.fileno = terminal  # the stock stop restores the terminal's modes on it
            stop.set()
            os.close(pipe_out)  # a relay blocked on a full pipe gets EPIPE
            relay.join()
            os.close(pipe_in)

    def _relay(self, terminal: int, pipe_in: int, stop: threading.Event) -> None:
        """Copy the terminal's bytes into the pipe until ``stop``; at end of input
        (no bytes, or EIO) ask the app to leave and copy nothing more (the pipe stays
        open, so the stock loop waits instead of seeing end of input)."""
        while not stop.is_set():
            ready, _, _ = select.select([terminal], [], [], 0.1)
            if not ready:
                continue
            try:
                data = os.read(terminal, 4096)
            except OSError:  # EIO: the terminal hung up
                data = b""
            if not data:
                self._leave("end of input")
                return
            data = separate_escapes(data)
            try:
                while data:
                    data = data[os.write(pipe_in, data) :]
            except OSError:  # the stock loop has ended
                return
