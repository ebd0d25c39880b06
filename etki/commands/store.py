"""``etki erase`` and ``etki db``: erasure and schema migrations of the store.

    etki erase CASE_ID --reason TEXT   KVKK/GDPR erasure of one case (approvers only)
    etki erase --finish CASE_ID        complete an erasure the proof found unfinished
    etki db upgrade [--revision REV]   bring the database schema to the newest migration
    etki db current                    the schema revision the database is at

Exit codes as for every ``etki`` command: 0 ok, 2 bad input (unknown case, not an
approver, empty reason), 1 internal error; ``erase`` also exits 1 when the case was
erased from the database but its proof found the data still held somewhere (another
connection kept the database from being compacted within ``--wait`` seconds) or the wiki
could not be rebuilt (the message says what holds it and how to finish).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from etki.console import echo
from etki.errors import EtkiError
from etki.text import printable

if TYPE_CHECKING:
    from etki.config import Settings

__all__ = ["register"]


EXPORTS_NOTE = (
    "Files exported before the erasure (change-request documents, queue and report "
    "exports) are outside the store and may still hold the erased text: delete them by hand."
)
"""The last line ``etki erase`` prints (a PMO trial of issue 35 found a CR document
exported before the erasure still holding the request, and nothing said so): no file
an export wrote is known to the store, so none is searched or removed."""


class WikiNotRebuilt(EtkiError):
    """The case is erased from the database but its wiki could not be rebuilt."""

    exit_code = 1


class ErasureIncomplete(EtkiError):
    """The case's rows are deleted, but its proof found the erased data still held
    somewhere (a database file another connection keeps from being compacted, a dead
    row version an older snapshot still sees, a wiki page): the message names each
    place, what holds it and what to run."""

    exit_code = 1


def _erase(args: argparse.Namespace, settings: Settings) -> int:
    from etki.errors import InputError
    from etki.services import Desk
    from etki.store.proof import DEFAULT_WAIT_S

    if args.wait is None:
        args.wait = DEFAULT_WAIT_S
    if args.wait < 0:
        raise InputError(f"erase --wait: {args.wait:g} is negative; give seconds, e.g. 10")
    if not args.finish and args.reason is None:
        raise InputError(
            "erase: give the legal reason (--reason), e.g. the request's "
            "reference; or --finish to complete an earlier erasure"
        )

    def notify(message: str) -> None:
        echo(f"erase: {message}", multiline=False, file=sys.stderr)
        sys.stderr.flush()

    desk = Desk.open(settings, create=False)  # no store: nothing to erase
    try:
        # read before the erasure, which deletes the case's import source
        request_id = None if args.finish else desk.folder_request_id(args.case_id)
        if args.finish:
            outcome = desk.finish_erasure(args.case_id, wait_s=args.wait, notify=notify)
        else:
            outcome = desk.erase(args.case_id, args.reason, wait_s=args.wait, notify=notify)
    finally:
        desk.close()
    e = outcome.erasure
    case_id, project = args.case_id, e.project_id if e is not None else None
    if e is not None:
        echo(
            f"{e.case_id}: erased from project {e.project_id} (was {e.before}); "
            f"the audit log keeps a tombstone",
            multiline=False,
        )
    if outcome.wiki_summary is not None:
        echo(f"wiki rebuilt: {outcome.wiki_summary}", multiline=False)
    words = (
        f"{outcome.words} erased words searched"
        if e is not None
        else "the erased words are not known any more"
    )
    echo(f"checked ({words}):", multiline=False)
    for place in outcome.places:
        echo(f"  {place.line()}", multiline=False)
    if e is not None and request_id is not None:  # etki add/import: no file of the folder holds it
        # a trial read "remove ... too; init will not store it again" as a contradiction:
        # Etki needs nothing more, but the client's text is still in the file
        echo(
            f"note: project {e.project_id}'s requests.jsonl still holds the client's text of "
            f"this request (id {printable(request_id, multiline=False)}); `etki init` will "
            "not store the erased request again, so Etki needs nothing more, but the text "
            "stays on disk until you edit the file by hand and delete that row",
            multiline=False,
            file=sys.stderr,
        )
    if outcome.held or outcome.blocker:
        echo(EXPORTS_NOTE, multiline=False)  # the rows are gone: the files still hold it
        where = "; ".join(f"{p.what} ({p.detail})" for p in outcome.held if not p.step)
        why = f": {outcome.blocker}" if outcome.blocker else ""
        store_held = outcome.blocker is not None or any(
            not p.what.startswith("wiki") for p in outcome.held
        )
        if store_held:  # another connection keeps the store from being compacted
            todo = (
                "Close the other program (other etki processes: an open etki-tui "
                f"desk, `etki mcp`) and run `etki erase --finish {case_id}`"
            )
        else:  # only the wiki: it could not be written (disk full, a refused folder)
            failed = f" ({outcome.wiki_error})" if outcome.wiki_error else ""
            todo = (
                f"The wiki could not be rebuilt{failed}: fix that (free disk space, "
                f"or the folder it names), then run `etki erase --finish {case_id}`"
            )
        raise ErasureIncomplete(
            printable(
                f"{case_id} is not erased everywhere yet: still held by "
                f"{where or 'the store'}{why}. {todo}",
                multiline=False,
            )
        )
    if outcome.wiki_error:
        echo(EXPORTS_NOTE, multiline=False)
        rebuild = f" --project {project}" if project else ""
        raise WikiNotRebuilt(
            printable(
                f"{case_id} is erased from the database, but the wiki was not rebuilt "
                f"({outcome.wiki_error}); run `python -m etki.wiki rebuild{rebuild}` until it "
                f"succeeds (then `etki erase --finish {case_id}` checks every place again)",
                multiline=False,
            )
        )
    what = "erasure finished" if e is None else "erasure proven"
    echo(f"{case_id}: {what}: no checked place holds it", multiline=False)
    echo(EXPORTS_NOTE, multiline=False)
    return 0


def _db_upgrade(args: argparse.Namespace, settings: Settings) -> int:
    from etki.services import schema_upgrade

    before, after = schema_upgrade(settings, args.revision)
    if before == after:
        echo(f"database schema already at {after}", multiline=False)
    else:
        echo(f"database schema upgraded from {before or 'empty'} to {after}", multiline=False)
    return 0


def _db_current(_args: argparse.Namespace, settings: Settings) -> int:
    from etki.store.lean import HEAD_REVISION, Fallback, lean_call

    current: str | None = HEAD_REVISION
    head = HEAD_REVISION
    try:  # a store at the head answers without SQLAlchemy or Alembic (issue 32 item 1)
        lean_call(settings.db_url, "check_revision")
    except Fallback:
        from etki.services import schema_revision

        current, head = schema_revision(settings)  # reads: creates nothing
    state = "head" if current == head else f"head is {head}"
    echo(f"{current or 'not stamped'} ({state})", multiline=False)
    return 0


def register(subparsers) -> None:
    """Add ``erase`` and ``db`` to the ``etki`` parser."""
    erase = subparsers.add_parser(
        "erase",
        help="erase a case for KVKK/GDPR (approvers only)",
        description="Remove a case, its decision, ruling and context from the database, "
        "keep a tombstone without the request text in the audit log, "
        "remove its wiki pages and rebuild the project's wiki, compact the "
        "database, then search every file that could still hold the text "
        "and list each place checked.",
    )
    erase.add_argument("case_id")
    erase.add_argument(
        "--reason", help="why (e.g. the erasure request's reference); kept in the audit"
    )
    erase.add_argument(
        "--finish",
        action="store_true",
        help="complete an earlier erasure that could not be proven (another "
        "connection held the database): compact and check again",
    )
    erase.add_argument(
        "--wait",
        type=float,
        default=None,
        metavar="SECONDS",
        help="how long to wait for another connection that holds the "
        "database (default 10: etki.store.proof.DEFAULT_WAIT_S)",
    )
    erase.set_defaults(handler=_erase)

    db = subparsers.add_parser("db", help="database schema migrations")
    db_sub = db.add_subparsers(dest="db_command", required=True)
    up = db_sub.add_parser("upgrade", help="bring the schema to the newest migration")
    up.add_argument("--revision", default="head", help="target revision (default: head)")
    up.set_defaults(handler=_db_upgrade)
    cur = db_sub.add_parser("current", help="print the schema revision of the database")
    cur.set_defaults(handler=_db_current)
