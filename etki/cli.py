"""The ``etki`` command: ``init``, ``add``, ``import``, ``queue``, ``rule``, ``triage`` and
``projects`` (their usage in :mod:`etki.commands.cases`) and the groups of
:data:`etki.commands.MODULES` (``index``, ``erase``, ``db``, ``mcp``, ``eval``, ``wiki``,
``preanalyse``):
one module per group under :mod:`etki.commands`, each going through
:class:`etki.services.Desk`.

Exit codes: 0 ok, 2 bad input (including a conflict with another reviewer's ruling,
and ``etki init`` refusing a request row it cannot store: the other rows are stored),
1 internal error. Settings come from ``ETKI_*`` variables
(:mod:`etki.config`). Every line is printed through :mod:`etki.console`
(:func:`etki.text.printable`; ``--json`` escapes control and bidi characters), so client
or config text cannot drive the terminal. An internal error is one line naming the
exception's type and only safe facts (never SQL, its parameters or client text);
``ETKI_DEBUG=1`` adds the traceback. Log records go to stderr at the level of
``ETKI_LOG_LEVEL`` (``WARNING`` when unset) or ``-v``/``-vv``; long work shows a
progress bar on a terminal (:mod:`etki.progress`).

``etki init`` stores a related-context block beside each new decision (pre-analysis,
:mod:`etki.retrieval.context`; context only, never a decision input). ``--no-context``
skips it, as does ``ETKI_RELATED_CONTEXT=0`` (also ``off``, ``false``, ``no``) in the
environment; ``--context`` turns it on whatever the variable says. Re-loading a stored
project whose ``etki.yaml`` lists other reviewers exits 2 and says what would change;
``--update-reviewers`` applies the change when ``ETKI_REVIEWER`` is an approver of the
stored project (audited with the OS user, host and process).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from etki.commands import READ_ONLY_COMMANDS
from etki.console import (
    SafeArgumentParser,
    configure_logging,
    configure_streams,
    echo,
    report_internal_error,
)
from etki.errors import EtkiError, clip_values, os_error_message

if TYPE_CHECKING:
    pass

__all__ = ["READ_ONLY_COMMANDS", "main", "run"]


def _command_of(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names: its first word that is not an option (the top-level
    options, ``-v``, ``--version`` and ``-h``, take no value), or None."""
    return next((a for a in argv if not a.startswith("-")), None)


def _parser(command: str | None = None, *, version_only: bool = False) -> argparse.ArgumentParser:
    """The ``etki`` parser; with a known ``command``, only the parsers of the module that
    registers it (:data:`etki.commands.COMMANDS`), with ``version_only`` none (``etki
    --version`` prints and exits before a command is asked for), else every module's."""
    from etki import __version__
    from etki.commands import COMMANDS, MODULES

    p = SafeArgumentParser(prog="etki", description="Scope triage with a decision memory.")
    p.add_argument("--version", action="version", version=f"etki {__version__}")
    p.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0,
        help="log more on stderr: -v info, -vv debug (also ETKI_LOG_LEVEL)",
    )
    # every command in the usage line, whichever modules are built (COMMANDS' order is
    # the registration order, so this is argparse's own default for the full parser)
    sub = p.add_subparsers(dest="command", required=True, metavar="{" + ",".join(COMMANDS) + "}")
    if version_only:
        modules: Sequence[str] = ()
    elif command in COMMANDS:
        modules = (COMMANDS[command],)
    else:
        modules = MODULES
    for name in modules:
        importlib.import_module(name).register(sub)
    return p


def run(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (see the module docstring)."""
    words = sys.argv[1:] if argv is None else list(argv)
    command = _command_of(words)
    version_only = command is None and "--version" in words and not {"-h", "--help"} & set(words)
    args = _parser(command, version_only=version_only).parse_args(words)
    from etki import progress
    from etki.identity import set_program

    root = logging.getLogger()
    if args.verbose:
        root.setLevel(progress.log_level(verbose=args.verbose))
    logging.getLogger("etki.cli").debug(
        "etki %s: log level %s", args.command, logging.getLevelName(root.level)
    )
    # a bar on a terminal only: nothing in a pipe or with --json (etki.progress)
    progress.enable(json=bool(getattr(args, "json", False)))

    set_program(f"etki {args.command}")  # the audit's program column
    from etki.config import Settings

    return args.handler(args, Settings.from_env())


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point: maps errors to exit codes, never a traceback for an
    :class:`EtkiError`."""
    configure_streams()
    configure_logging("etki")
    try:
        from etki.progress import log_level

        logging.getLogger().setLevel(log_level())  # ETKI_LOG_LEVEL; a bad one exits 2
        code = run(argv)
    except EtkiError as exc:
        echo(f"etki: error: {clip_values(str(exc))}", file=sys.stderr)
        code = exc.exit_code
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:  # `etki queue | head`: the reader left, nothing is wrong
        sys.stderr.close()
        code = 0
    except OSError as exc:  # a file Etki writes or reads: say which and what happened
        echo(f"etki: error: {os_error_message(exc)}", file=sys.stderr, multiline=False)
        code = 1
    except Exception as exc:  # internal failure: one line without SQL or client text, exit 1
        report_internal_error("etki", exc)
        code = 1
    sys.exit(code)


if __name__ == "__main__":
    main()
