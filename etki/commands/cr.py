"""``etki cr``: change requests as documents to send (issue 14 item 5).

    etki cr export CASE [--format md|html] [--output FILE]

Writes the change-request document of a case ruled CHANGE_REQUEST, rendered from the
database (the wiki need not be on; :meth:`etki.services.Desk.cr_document`):

* ``md`` (the default): the wiki's ``change-requests/CR-….md`` page with its
  wiki-internal links written as their words only (a relative link to the decision
  page or a contract page would be dead in a file sent to a client);
* ``html``: a standalone HTML document of the same text (inline CSS, no script, every
  piece of client text escaped).

Without ``--output`` the document goes to stdout; with it, to ``FILE`` (``-`` is
stdout; an existing folder, or a path ending with ``/`` (a folder, created when
missing), gets the page's own name, ``CR-{yyyymmdd}-{slug}.md``/``.html``, inside it;
missing parent folders are created), and one line on stderr names the file written. The
file is written as the wiki writes a page (:func:`etki.wiki.writer.write_file`): a
temporary file renamed over the target, so a symlink planted under the predictable name
is replaced, never written through, and a failed write (a full disk) leaves no cut-off
document. The store is opened read-only. Exit codes:
0 ok; 2 for an unknown case or a case that is not ruled CHANGE_REQUEST (pending,
approved, rejected: the message says which); 1 on an internal error.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from etki.config import Settings
from etki.console import echo
from etki.errors import InputError, os_error_message

__all__ = ["register"]


def _target(output: str, name: str) -> Path:
    """Where ``--output OUTPUT`` writes the document named ``name``: inside ``OUTPUT``
    when it is an existing folder or ends with a path separator (a folder to create,
    ``/tmp/out/``), else the file ``OUTPUT`` itself."""
    seps = (os.sep, os.altsep) if os.altsep else (os.sep,)
    target = Path(output)
    if output.endswith(seps) or target.is_dir():
        return target / name
    return target


def _export(args: argparse.Namespace, settings: Settings) -> int:
    from etki.services import Desk

    desk = Desk.open(settings, read_only=True)
    try:
        name, data = desk.cr_document(desk.case_id_for(args.case_id), args.format)
    finally:
        desk.close()
    if args.output in (None, "-"):
        # through the console like every other write (the renderers already made the
        # client text safe; this keeps it so whatever a renderer does later)
        text = data.decode("utf-8")
        echo(text, end="" if text.endswith("\n") else "\n")
        return 0
    from etki.wiki.writer import write_file

    target = _target(args.output, name)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_file(target, data)
    except OSError as exc:  # a file where the folder should be, no permission, disk full
        raise InputError(f"change request not written: {os_error_message(exc)}") from exc
    echo(f"{args.case_id}: change request written to {target}", multiline=False, file=sys.stderr)
    return 0


def register(subparsers) -> None:
    """Add ``cr`` to the ``etki`` parser."""
    cr = subparsers.add_parser(
        "cr",
        help="change-request documents (export a case ruled CR for sending)",
        description="Change requests: the draft document of a case converted to CR.",
    )
    cr_sub = cr.add_subparsers(dest="cr_command", required=True)
    export = cr_sub.add_parser(
        "export",
        help="write a case's change-request document (md or html)",
        description="Write the change-request document of a case ruled CHANGE_REQUEST, "
        "from the database: md is the wiki page with its wiki-internal links written as "
        "their words; html a standalone document (inline CSS, no script).",
    )
    export.add_argument("case_id", metavar="CASE")
    export.add_argument("--format", choices=("md", "html"), default="md")
    export.add_argument(
        "--output",
        metavar="FILE",
        help="write here (a folder, or a path ending with /: the page's own file name "
        "inside it, created when missing; - or none: stdout)",
    )
    export.set_defaults(handler=_export)
