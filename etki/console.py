"""The one way Etki's commands write to a terminal (``etki``, ``python -m etki.wiki``,
``etki-tui`` before and after the desk).

Everything a command prints can carry text from a client or a config file (project names
from ``etki.yaml``, module, clause and case ids, titles, reviewer names from
``ETKI_REVIEWER``, file paths, exception messages), so every line goes through
:func:`etki.text.printable`, the same path as the TUI: no C0/C1 control, ESC/CSI/OSC, BEL,
bare CR or bidi control reaches the terminal.

* :func:`echo` prints text (each part through ``printable``); :func:`echo_lines` prints
  one line per item, a newline inside an item shown as ``⏎`` so no item forges a line.
* :func:`emit_json` prints JSON whose strings escape every control and bidi character
  (``\\u009b``, ``\\u202e``, ``\\u2066``, ``\\u200f``, ``\\u2028``, lone surrogates):
  ``json.dumps(..., ensure_ascii=False)`` alone leaves them raw. The text parses back to
  the very same strings.
* :func:`report_internal_error` prints an unexpected exception as one line: its type and a
  summary made only of safe parts (:func:`error_summary`: for a database error the
  driver's error class, SQLSTATE, constraint and table names; never the SQL statement, its
  parameters or the message, which can quote client text); ``ETKI_DEBUG=1`` prints the
  traceback too (still terminal-safe). No log file is written: a traceback can hold a
  request's text, and an erased request must not survive in a log.
* :class:`SafeFormatter` / :func:`configure_logging` make log records and warnings
  terminal-safe; :class:`SafeArgumentParser` does the same for argparse's usage, help and
  error messages (``invalid choice: '...'`` echoes the argument).

Only the standard library, :mod:`etki.text` and :mod:`etki.errors` are imported (CLI
start-up stays light).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import re
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TextIO

from etki.errors import clip, database_parts, is_database_error, where_raised
from etki.text import printable

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

__all__ = [
    "SafeArgumentParser",
    "SafeFormatter",
    "configure_logging",
    "configure_streams",
    "debug_enabled",
    "echo",
    "echo_lines",
    "emit_json",
    "emit_json_text",
    "error_summary",
    "json_safe",
    "report_internal_error",
]

# Characters json.dumps(ensure_ascii=False) leaves raw that a terminal or a reader acts on:
# DEL and C1 (U+0080-U+009F, among them CSI U+009B and NEL U+0085), the Arabic letter mark,
# LRM/RLM, the line and paragraph separators, bidi embeddings/overrides (U+202A-U+202E)
# and isolates (U+2066-U+2069), lone surrogates. json.dumps already escapes C0 (U+0000-
# U+001F) inside strings, and outside strings JSON text is ASCII, so each match is inside a
# string and its \\uXXXX escape decodes back to the same character.
_JSON_UNSAFE = re.compile(
    "[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def _stream(file: TextIO | None) -> TextIO:
    return sys.stdout if file is None else file


def echo(
    *parts: object,
    sep: str = " ",
    end: str = "\n",
    file: TextIO | None = None,
    multiline: bool = True,
) -> None:
    """Print ``parts`` like :func:`print`, each through :func:`etki.text.printable`
    (``str()`` first). ``sep`` and ``end`` are Etki's own and written as given (so a
    ``"\\t"`` separator survives, while a tab inside a part becomes a space). With
    ``multiline=False`` a newline inside a part is shown as ``⏎``. ``file`` defaults to
    ``sys.stdout``."""
    text = sep.join(printable(str(p), multiline=multiline) for p in parts)
    _stream(file).write(text + end)


def echo_lines(lines: Iterable[object], *, file: TextIO | None = None) -> None:
    """Print each item of ``lines`` as exactly one terminal-safe line (a newline inside an
    item shown as ``⏎``)."""
    out = _stream(file)
    for line in lines:
        out.write(printable(str(line), multiline=False) + "\n")


def json_safe(text: str) -> str:
    """``text`` (JSON text) with every character of :data:`_JSON_UNSAFE` written as a
    ``\\uXXXX`` escape. Valid JSON in, valid JSON out, decoding to the same values."""
    if text.isascii() and "\x7f" not in text:  # the others escaped are above U+007F
        return text
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def emit_json(
    data: Any, *, indent: int | None = 1, sort_keys: bool = False, file: TextIO | None = None
) -> None:
    """Print ``data`` as JSON (UTF-8 text, non-ASCII letters kept, every control and bidi
    character escaped, see :func:`json_safe`) followed by a newline. Raises ``TypeError``
    for a value JSON cannot hold."""
    if indent is not None and not sort_keys:  # the same text, ~10x faster (issue 32)
        from etki.jsontext import dumps_indented

        text = dumps_indented(data, indent)
    else:
        text = json.dumps(data, ensure_ascii=False, indent=indent, sort_keys=sort_keys)
    _stream(file).write(json_safe(text) + "\n")


def emit_json_text(text: str, *, file: TextIO | None = None) -> None:
    """Print ``text``, which is already JSON (a stored index file's own text), with every
    control and bidi character ``\\u``-escaped (:func:`json_safe`); a newline is added
    only when ``text`` does not end with one."""
    _stream(file).write(json_safe(text) + ("" if text.endswith("\n") else "\n"))


# --- internal errors -----------------------------------------------------------------------


def error_summary(exc: BaseException) -> str:
    """A one-line description of an unexpected exception that holds no client text and no
    SQL: the type name, then in brackets only parts known to be safe.

    * database errors (SQLAlchemy, sqlite3, psycopg): the driver's error class, SQLSTATE,
      the SQLite error name, constraint and table names, and the driver's message only
      when it is a known fixed wording (``database is locked``, ``UNIQUE constraint
      failed: projects.id``); never the statement or its parameters;
    * ``OSError``: the errno name, the system's message and the file name (a path);
    * ``UnicodeError``: the codec and its reason;
    * anything else: where it was raised (``etki/x.py:123 in func``), not its message.

    >>> error_summary(KeyError("a client's words")).startswith("KeyError")
    True
    """
    name = type(exc).__name__
    if is_database_error(exc):
        parts = database_parts(exc)
    elif isinstance(exc, OSError):
        import errno

        parts = [errno.errorcode.get(exc.errno, str(exc.errno))] if exc.errno else []
        if exc.strerror:
            parts.append(str(exc.strerror))
        if exc.filename is not None:
            parts.append(clip(os.fsdecode(exc.filename)))
    elif isinstance(exc, UnicodeError):
        parts = [str(getattr(exc, "encoding", "")), str(getattr(exc, "reason", ""))]
        parts = [p for p in parts if p]
    else:
        where = where_raised(exc)
        parts = [f"raised at {where}"] if where else []
    text = f"{name} ({'; '.join(parts)})" if parts else name
    return printable(text, multiline=False)


def debug_enabled(environ: dict[str, str] | None = None) -> bool:
    """Whether ``ETKI_DEBUG`` asks for tracebacks (``1``, ``true``, ``yes``, ``on``)."""
    value = (os.environ if environ is None else environ).get("ETKI_DEBUG", "")
    return value.strip().lower() in {"1", "true", "yes", "on"}


def report_internal_error(prog: str, exc: BaseException, *, file: TextIO | None = None) -> None:
    """Print ``{prog}: internal error: {error_summary(exc)}`` and how to see more to
    ``file`` (default ``sys.stderr``); with ``ETKI_DEBUG=1`` the traceback first
    (through :func:`etki.text.printable`; it may quote SQL and client text, which is why
    it is shown only on request)."""
    out = sys.stderr if file is None else file
    if debug_enabled():
        import traceback

        tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        out.write(printable(tb))
        hint = "the traceback is above"
    else:
        hint = "run it again with ETKI_DEBUG=1 to see the traceback"
    out.write(f"{printable(prog, multiline=False)}: internal error: {error_summary(exc)}; {hint}\n")


# --- logging, argparse, streams -------------------------------------------------------------


class SafeFormatter(logging.Formatter):
    """A :class:`logging.Formatter` whose output is terminal-safe: the message line goes
    through :func:`etki.text.printable` with newlines shown as ``⏎``, tracebacks and
    stack traces through ``printable`` keeping their lines. A database exception passed
    as an argument (``log.warning("wiki rebuild failed: %s", exc)``) is shown as its
    :func:`error_summary`, so no SQL or parameters reach the log (all of it with
    ``ETKI_DEBUG=1``)."""

    def format(self, record: logging.LogRecord) -> str:
        args = record.args
        if (
            isinstance(args, tuple)
            and not debug_enabled()
            and any(isinstance(a, BaseException) and is_database_error(a) for a in args)
        ):
            record = logging.makeLogRecord(record.__dict__)  # other handlers see the original
            record.args = tuple(
                error_summary(a) if isinstance(a, BaseException) and is_database_error(a) else a
                for a in args
            )
        return super().format(record)

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 (logging API)
        return printable(super().formatMessage(record), multiline=False)

    def formatException(self, ei: Any) -> str:  # noqa: N802 (logging API)
        return printable(super().formatException(ei))

    def formatStack(self, stack_info: str) -> str:  # noqa: N802 (logging API)
        return printable(super().formatStack(stack_info))


def configure_logging(prog: str, level: int = logging.WARNING) -> None:
    """Send log records and :mod:`warnings` to stderr as ``{prog}: LEVEL: message``
    through :class:`SafeFormatter`, on the root logger (so Python's last-resort handler,
    which prints raw, is never used). A handler added by an earlier call is replaced;
    handlers somebody else added stay."""
    handler = _SafeStderrHandler(sys.stderr)
    handler.setFormatter(SafeFormatter(f"{prog}: %(levelname)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [h for h in root.handlers if not isinstance(h, _SafeStderrHandler)]
    root.addHandler(handler)
    root.setLevel(level)
    logging.captureWarnings(True)


class _SafeStderrHandler(logging.StreamHandler):
    """The handler :func:`configure_logging` installs (a type of its own so a second call
    finds and replaces it)."""


def configure_streams() -> None:
    """Make stdout and stderr replace what their encoding cannot hold (a ``C``/ASCII
    locale) instead of failing on the control pictures ``printable`` writes."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="replace")


class SafeArgumentParser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose usage, help and error messages go through
    :func:`etki.text.printable` (``invalid choice: '...'`` quotes the argument). Its
    subparsers are of the same class."""

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        if message:
            # as argparse does: without a usable stream there is nothing to say
            with contextlib.suppress(AttributeError, OSError):
                (file or sys.stderr).write(printable(message))
