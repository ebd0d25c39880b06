"""``etki`` subcommands of the store (registered through :data:`etki.cli.COMMAND_MODULES`).

    etki erase CASE_ID --reason TEXT   KVKK/GDPR erasure of one case (approvers only)
    etki db upgrade [--revision REV]   bring the database schema to the newest migration
    etki db current                    the schema revision the database is at

Exit codes as for every ``etki`` command: 0 ok, 2 bad input (unknown case, not an
approver, empty reason), 1 internal error; ``erase`` also exits 1 when the case was
erased from the database but the wiki could not be rebuilt (the message says how to
finish).
"""

from __future__ import annotations

import argparse
import sys

from etki.config import Settings
from etki.console import echo
from etki.errors import EtkiError

__all__ = ["register"]


class WikiNotRebuilt(EtkiError):
    """The case is erased from the database but its wiki could not be rebuilt."""

    exit_code = 1


def _erase(args: argparse.Namespace, settings: Settings) -> int:
    from etki.erasure import erase_case
    from etki.store import CaseFileRepository

    repo = CaseFileRepository(settings.db_url)
    outcome = erase_case(repo, settings, args.case_id, args.reason)
    e = outcome.erasure
    echo(f"{e.case_id}: erased from project {e.project_id} (was {e.before}); "
         f"the audit log keeps a tombstone", multiline=False)
    if outcome.wiki_summary is not None:
        echo(f"wiki rebuilt: {outcome.wiki_summary}", multiline=False)
    echo(f"note: remove the request from project {e.project_id}'s requests.jsonl too; "
         "`etki init` will not store it again", multiline=False, file=sys.stderr)
    if outcome.wiki_error:
        raise WikiNotRebuilt(f"{e.case_id} is erased from the database, but the wiki was "
                             f"not rebuilt ({outcome.wiki_error}); run `python -m etki.wiki "
                             f"rebuild --project {e.project_id}` until it succeeds")
    return 0


def _db_upgrade(args: argparse.Namespace, settings: Settings) -> int:
    from etki.store.db import make_engine
    from etki.store.migrate import upgrade

    engine = make_engine(settings.db_url)
    try:
        before, after = upgrade(engine, args.revision)
    finally:
        engine.dispose()
    if before == after:
        echo(f"database schema already at {after}", multiline=False)
    else:
        echo(f"database schema upgraded from {before or 'empty'} to {after}", multiline=False)
    return 0


def _db_current(_args: argparse.Namespace, settings: Settings) -> int:
    from etki.store.db import make_engine
    from etki.store.migrate import current_revision, head_revision

    engine = make_engine(settings.db_url)
    try:
        current = current_revision(engine)
    finally:
        engine.dispose()
    state = "head" if current == head_revision() else f"head is {head_revision()}"
    echo(f"{current or 'not stamped'} ({state})", multiline=False)
    return 0


def register(subparsers) -> None:
    """Add ``erase`` and ``db`` to the ``etki`` parser."""
    erase = subparsers.add_parser(
        "erase", help="erase a case for KVKK/GDPR (approvers only)",
        description="Remove a case, its decision, ruling and context from the database, "
                    "keep a tombstone without the request text in the audit log, and "
                    "rebuild the project's wiki.")
    erase.add_argument("case_id")
    erase.add_argument("--reason", required=True,
                       help="why (e.g. the erasure request's reference); kept in the audit")
    erase.set_defaults(handler=_erase)

    db = subparsers.add_parser("db", help="database schema migrations")
    db_sub = db.add_subparsers(dest="db_command", required=True)
    up = db_sub.add_parser("upgrade", help="bring the schema to the newest migration")
    up.add_argument("--revision", default="head", help="target revision (default: head)")
    up.set_defaults(handler=_db_upgrade)
    cur = db_sub.add_parser("current", help="print the schema revision of the database")
    cur.set_defaults(handler=_db_current)
