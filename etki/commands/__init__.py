"""The ``etki`` subcommands, one module per command group, every one through the desk.

Each module has ``register(subparsers)``, which adds its parsers and sets
``handler=fn(args, settings) -> int`` on them with ``set_defaults``; :mod:`etki.cli`
builds the parser from :data:`MODULES` and runs the handler. A handler opens the store
through :class:`etki.services.Desk` (read-only for the commands that only read) or
calls a function of :mod:`etki.services`; it never uses the repository or the approval
service itself.

Modules are imported when the parser is built, so they import only what ``etki --help``
needs at their top (argparse, :mod:`etki.console`, :mod:`etki.errors`); everything else
is imported inside the handlers.
"""

from __future__ import annotations

READ_ONLY_COMMANDS = frozenset({"queue", "projects", "triage", "show"})
"""Commands that only read the store: it is opened read-only (never created, migrated
or written; a missing store is exit 2). ``init`` creates the store; ``rule`` writes to
an existing one (README, "Read-only commands"). Here, not in
:mod:`etki.commands.cases` (which re-exports it), so :mod:`etki.cli` reads it without
importing that module for every other command (issue 32 item 1: ~17 ms of CPU a run
when bytecode is not written)."""

MODULES: tuple[str, ...] = (
    "etki.commands.cases",
    "etki.commands.disputes",
    "etki.commands.remit",
    "etki.commands.retrieval",
    "etki.commands.store",
    "etki.commands.index",
    "etki.commands.wiki",
    "etki.commands.cr",
    "etki.commands.estimates",
    "etki.commands.reports",
    "etki.commands.preanalysis",
    "etki.commands.projects",
)
"""The command-group modules, in the order their commands appear in ``etki --help``."""

COMMANDS: dict[str, str] = {
    **dict.fromkeys(
        (
            "init",
            "queue",
            "rule",
            "add",
            "import",
            "note",
            "claim",
            "assign",
            "show",
            "triage",
            "projects",
        ),
        "etki.commands.cases",
    ),
    "dispute": "etki.commands.disputes",
    "remit": "etki.commands.remit",
    "mcp": "etki.commands.retrieval",
    "eval": "etki.commands.retrieval",
    "erase": "etki.commands.store",
    "db": "etki.commands.store",
    "index": "etki.commands.index",
    "wiki": "etki.commands.wiki",
    "cr": "etki.commands.cr",
    "estimate": "etki.commands.estimates",
    "report": "etki.commands.reports",
    "preanalyse": "etki.commands.preanalysis",
    "project": "etki.commands.projects",
}
"""Which module of :data:`MODULES` registers each top-level command. ``etki CMD ...``
builds the parsers of that one module only: building all 47 parsers costs ~20 ms of CPU
(most of it argparse's gettext look-ups of its own help strings), which a usage error must
not pay (issue 32 item 2: <= 3x ``python -c pass``). ``etki --help`` and an unknown command
still build every module. ``tests/test_cli_lazy.py`` checks this table against what the
modules register."""
