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
