"""Leaving cleanly when the terminal goes away (an SSH session dropped, a tmux pane
killed, the input closed).

Textual's Linux driver, as pinned in pyproject (textual==8.2.8), keeps polling a closed
stdin forever (``read`` returns nothing and the loop goes round again) and lets SIGHUP
kill the process without restoring anything. :class:`EtkiDriver` adds two things:

* SIGHUP and SIGTERM become a :class:`etki_tui.messages.TerminalClosed` message, so the
  app exits through its normal path (workers cancelled, terminal modes restored,
  exit code 0);
* end of input (``read`` returns no bytes, or fails with EIO after a hang-up) does the
  same instead of spinning;
* output to a terminal that is gone is dropped (:class:`HangupSafeFile`) instead of
  killing the writer thread the app would then wait for on its way out.

Everything else is the stock driver.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
from codecs import getincrementaldecoder
from collections.abc import Callable
from typing import Any, TextIO

from textual._parser import ParseError
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

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


class EtkiDriver(LinuxDriver):
    """The Linux driver, plus a clean exit on hang-up, SIGTERM and end of input."""

    _closing = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._file = HangupSafeFile(self._file, lambda: self._closed("terminal gone"))

    def start_application_mode(self) -> None:
        super().start_application_mode()
        for sig in _SIGNALS:  # not the main thread, or no signals here: the default stays
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                self._loop.add_signal_handler(sig, self._closed, sig.name)

    def stop_application_mode(self) -> None:
        for sig in _SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                self._loop.remove_signal_handler(sig)
        super().stop_application_mode()

    def _closed(self, why: str) -> None:
        """Ask the app to leave (once)."""
        if self._closing:
            return
        self._closing = True
        self.send_message(TerminalClosed(why))

    def run_input_thread(self) -> None:
        """The stock input loop, except that end of input ends it (and the app)."""
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        parser = XTermParser(self._debug)
        decode = getincrementaldecoder("utf-8")(errors="replace").decode
        try:
            while not self.exit_event.is_set():
                for _key, mask in selector.select(0.1):
                    if not mask & selectors.EVENT_READ:
                        continue
                    try:
                        data = os.read(self.fileno, 4096)
                    except OSError:  # EIO: the terminal hung up
                        data = b""
                    if not data:
                        self._closed("end of input")
                        return
                    for event in parser.feed(decode(data)):
                        self.process_message(event)
                for event in parser.tick():
                    self.process_message(event)
        finally:
            selector.close()
            try:
                for _event in parser.feed(""):
                    pass
            except (EOFError, ParseError):
                pass
