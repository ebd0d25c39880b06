"""``etki project``: the end of an engagement (issue 35 item 6).

    etki project archive ID [--reason TEXT]
                             stop offering the project: ``etki projects`` lists it only
                             with ``--all``, the desk's project list skips it, ``etki
                             add``/``import``/``queue`` refuse it; its wiki, search,
                             reports and cases stay readable (approvers; audited)
    etki project unarchive ID [--reason TEXT]
                             offer it again (approvers; audited)
    etki project delete ID --reason TEXT [--yes]
                             remove its cases and knowledge from the store (approvers
                             only, a reason required; audited). The audit history stays,
                             and so does the wiki folder: the readable projection of that
                             history, no longer rebuilt. ``etki erase CASE`` still removes
                             one of its cases from that wiki. On a terminal it asks first:
                             the project id must be typed back; ``--yes`` deletes without
                             asking (scripts); without a terminal (a pipe, cron, CI) and
                             without ``--yes`` it is refused, nothing deleted.

Exit codes as every ``etki`` command: 0 ok, 2 bad input (an unknown project, no reason,
a reviewer who is not an approver: nothing changed), 1 internal error.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TextIO

from etki.console import echo
from etki.errors import InputError

if TYPE_CHECKING:
    from etki.config import Settings

__all__ = ["register"]


def _archive(args: argparse.Namespace, settings: Settings) -> int:
    from etki.services import Desk

    archived = args.project_command == "archive"
    desk = Desk.open(settings, create=False)
    try:
        changed = desk.archive_project(args.project_id, args.reason or "", archived=archived)
    finally:
        desk.close()
    state = "archived" if archived else "not archived"
    if changed:
        echo(f"project {args.project_id} is now {state}", multiline=False)
    else:
        echo(f"project {args.project_id} was already {state}; nothing changed", multiline=False)
    return 0


def _cases(count: int) -> str:
    """``1 case``, ``40 cases``."""
    return f"{count} case{'' if count == 1 else 's'}"


def project_case_count(settings: Settings, project_id: str) -> int:
    """How many cases project ``project_id`` holds (read by :mod:`etki.store.lean`,
    else by the desk), for the delete prompt to say before it asks. Raises
    :class:`~etki.errors.NotFoundError` for an unknown project (naming the stored ids)."""
    from etki.store.lean import Fallback, LeanStore, lean_call

    def count(store: LeanStore, pid: str) -> int:
        store.require_project(pid)
        found = store.rows("SELECT COUNT(*) FROM cases WHERE project_id = ?", [pid])
        return int(found[0][0]) if found else 0

    try:
        return int(lean_call(settings.db_url, count, project_id))
    except Fallback:
        from etki.services import Desk

        desk = Desk.open(settings, read_only=True)
        try:
            desk.project_name(project_id)  # a clear error for an unknown id
            return len(desk.queue_summaries(project_id, status=None))
        finally:
            desk.close()


def confirm_delete(project_id: str, stdin: TextIO, stderr: TextIO, cases: int = -1) -> None:
    """Ask on the terminal before ``etki project delete`` removes ``project_id`` (issue
    35 leftovers: it asked nothing): the prompt on ``stderr``, the project id typed
    back on ``stdin`` (exactly, around white space); ``cases`` (the project's case
    count, :func:`project_case_count`; negative: not known) is said in the prompt, so
    the PMO knows what goes before typing (a trial of issue 35 learned it only after).
    Raises :class:`InputError` (exit
    2, nothing deleted) when ``stdin`` is not a terminal (a script must say ``--yes``),
    or when what was typed is not the id (an empty line or end of input included)."""
    if not stdin.isatty():
        raise InputError(
            f"project delete {project_id}: standard input is not a terminal, so nobody can "
            "confirm; add --yes to delete without asking (scripts). Nothing was deleted"
        )
    what = f"its {_cases(cases)}" if cases >= 0 else "its cases"
    echo(
        f"This removes project {project_id} from the store: {what} and its knowledge "
        f"(its audit history and wiki stay). Type the project id ({project_id}) to "
        "delete it:",
        end=" ",
        file=stderr,
    )
    stderr.flush()
    typed = stdin.readline().strip()
    if typed != project_id:
        said = f"'{typed}'" if typed else "nothing"
        raise InputError(
            f"project delete {project_id}: you typed {said}, not {project_id}. Nothing was deleted"
        )


def _delete(args: argparse.Namespace, settings: Settings) -> int:
    from etki.services import Desk

    if not args.yes:
        if not sys.stdin.isatty():
            confirm_delete(args.project_id, sys.stdin, sys.stderr)  # refused: no terminal
        count = project_case_count(settings, args.project_id)
        confirm_delete(args.project_id, sys.stdin, sys.stderr, count)
    desk = Desk.open(settings, create=False)
    try:
        gone = desk.delete_project(args.project_id, args.reason or "")
        wiki = settings.wiki_path(gone.project_id)
    finally:
        desk.close()
    kept = "its audit history stays"
    if wiki is not None and wiki.is_dir():
        kept += f", and its wiki stays readable in {wiki}"
    echo(
        f"deleted project {gone.project_id}: {_cases(len(gone.case_ids))} and its knowledge "
        f"removed from the store; {kept}",
        multiline=False,
    )
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``etki project archive|unarchive|delete``."""
    project = subparsers.add_parser(
        "project", help="archive, unarchive or delete a project (approvers; audited)"
    )
    sub = project.add_subparsers(dest="project_command", required=True)
    for name, text in (
        ("archive", "stop offering a project; its wiki, search and reports stay readable"),
        ("unarchive", "offer an archived project again"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("project_id", metavar="ID")
        p.add_argument("--reason", help="why (optional; kept in the audit)")
        p.set_defaults(handler=_archive)
    delete = sub.add_parser(
        "delete",
        help="remove a project's cases and knowledge (approvers only; audited); its "
        "audit history and wiki stay",
    )
    delete.add_argument("project_id", metavar="ID")
    delete.add_argument("--reason", help="why (required; kept in the audit)")
    delete.add_argument(
        "--yes",
        action="store_true",
        help="delete without asking (scripts); on a terminal it otherwise asks for the "
        "project id typed back, and without a terminal it refuses",
    )
    delete.set_defaults(handler=_delete)
