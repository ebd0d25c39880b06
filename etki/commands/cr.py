"""``etki cr``: change requests as documents to send (issue 14 item 5, issue 35 item 1).

    etki cr export CASE [--format md|html|docx] [--internal] [--output FILE]
    etki cr edit CASE [--assumption TEXT]... [--exclusion TEXT]... [--valid-until DATE]
                      [--clause REF]... [--clear-assumptions] [--clear-exclusions]
                      [--clear-valid-until] [--default-clauses]
                      [--module ID]... [--no-modules] [--default-modules]

``export`` writes the client-facing change request of a case ruled CHANGE_REQUEST,
rendered from the database (the wiki need not be on; :meth:`etki.services.Desk.cr_document`,
:mod:`etki.wiki.clientcr`): the request as received, the scope gap in the reviewer's
words, the cited clauses' text, the impacted modules, effort and price (the reviewer's
estimate, ``etki estimate``; "not estimated yet" without one), the PMO's assumptions,
exclusions and validity date (``etki cr edit``) and an approval block. The engine's
deliberation (verdict, confidence, reasoning, evidence scores) stays out; ``--internal``
adds it as an appendix headed "not for the client". Formats: ``md`` (the default),
``html`` (standalone and print-ready: inline CSS, no script, every piece of client text
escaped) and ``docx`` (Word, python-docx; it needs ``--output``: binary is never
written to a terminal). Without ``--format`` the ending of the ``--output`` file gives it
(``.md``, ``.html``, ``.docx``); a ``--format`` that contradicts the ending is refused. The wiki's own ``change-requests/CR-….md`` page stays the
internal record.

``edit`` writes the terms of the change request (any ruling state: terms written ahead
of a conversion wait for it): each ``--assumption``/``--exclusion`` given (repeatable)
replaces that whole list, ``--clear-…`` empties it, ``--valid-until YYYY-MM-DD`` sets
the date; ``--clause REF`` (repeatable; the whole ref or a number unique in the
contract) chooses the clauses the document cites; ``--default-clauses`` (also
``--engine-clauses``) goes back to the default: the clauses the decision cites, or
none when the engine proposed IN_SCOPE (it read them as covering the work: a CR
citing them would hand the client the argument that the work is free,
:attr:`etki.domain.CaseRecord.cr_clauses`); ``--module ID`` (repeatable; a module id
of the project, an unknown one refused naming the nearest ids) chooses the impacted
modules the document names, ``--no-modules`` names none, ``--default-modules`` goes
back to the decision's (:attr:`etki.domain.CaseRecord.cr_modules`); what is not given stays. Written with an audit row and in the case's history
(``etki show``); the project's reviewers may write them. On a case that is not a change
request (ruled otherwise, or pending with another proposal) a warning on stderr says so
(the terms are written, waiting for a conversion); a ``--valid-until`` before today
(the store's day, UTC) is refused. Exit 0 written, 2 for bad
input (the field named), an unknown or erased case, or a reviewer the project does not
list.

Without ``--output`` the document goes to stdout; with it, to ``FILE`` (``-`` is
stdout; an existing folder, or a path ending with ``/`` (a folder, created when
missing), gets the page's own name, ``CR-{yyyymmdd}-{slug}.md``/``.html``, inside it;
missing parent folders are created), and one line on stderr names the file written; a
file already there is not replaced without ``--force`` (exit 2, the file named). The
file is written as the wiki writes a page (:func:`etki.wiki.writer.write_file`): a
temporary file renamed over the target, so a symlink planted under the predictable name
is replaced, never written through, and a failed write (a full disk) leaves no cut-off
document. The store is opened read-only. When the document has no estimate or no
validity date, or cites the clauses of a REJECT proposal the reviewer overrode (no
``--clause`` chosen), a warning on stderr says so (the document still is written); when
it cites none because the engine read its clauses as covering the work, a hint on
stderr names them and how to cite one (``etki cr edit CASE --clause REF``). Exit codes:
0 ok; 2 for an unknown case or a case that is not ruled CHANGE_REQUEST (pending,
approved, rejected: the message says which); 1 on an internal error.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from etki.commands.queuefile import force_option
from etki.console import echo
from etki.domain.crterms import CR_FORMATS
from etki.errors import InputError, os_error_message

if TYPE_CHECKING:
    from etki.config import Settings

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


CR_SUFFIXES = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".docx": "docx"}
"""The format ``--output FILE`` implies when ``--format`` is not given (issue 35 trial:
``--output y.html`` wrote Markdown)."""


def _format(args: argparse.Namespace) -> str:
    """The format to write, checked before the store is opened: ``--format``, else the
    ending of the ``--output`` file (:data:`CR_SUFFIXES`; a folder, stdout or a name
    without an ending: ``md``). A ``--format`` contradicting the file's ending is
    refused (:func:`etki.tablefile.output_format`), as is docx to the terminal."""
    from etki.tablefile import output_format

    output = args.output
    seps = (os.sep, os.altsep) if os.altsep else (os.sep,)
    if output not in (None, "-") and (output.endswith(seps) or Path(output).is_dir()):
        output = None  # a folder: the page's own name, in the format asked for
    fmt = output_format(output, args.format, CR_SUFFIXES, "md", bare="md") or "md"
    if fmt == "docx" and args.output in (None, "-"):
        raise InputError("--format docx writes a Word file: give --output FILE (or a folder)")
    return fmt


def _export(args: argparse.Namespace, settings: Settings) -> int:
    from etki.services import Desk

    fmt = _format(args)
    from etki.wiki.paths import cr_case_ref

    desk = Desk.open(settings, read_only=True)
    try:  # a case id, a short one, or a CR number (the client's or the wiki page's)
        case_id = desk.case_id_for(cr_case_ref(args.case_id))
        name, data = desk.cr_document(case_id, fmt, internal=args.internal)
        case = desk.case(case_id)
    finally:
        desk.close()
    missing = case.cr_gaps()
    if missing:
        echo(f"warning: {case_id}: " + "; ".join(missing), multiline=False, file=sys.stderr)
    hint = case.cr_clause_hint()
    if hint:  # the engine's clauses argue the work is in scope: not cited unless chosen
        echo(f"hint: {case_id}: {hint}", multiline=False, file=sys.stderr)
    if args.output in (None, "-"):
        # through the console like every other write (the renderers already made the
        # client text safe; this keeps it so whatever a renderer does later)
        text = data.decode("utf-8")
        echo(text, end="" if text.endswith("\n") else "\n")
        return 0
    from etki.tablefile import refuse_existing
    from etki.wiki.writer import write_file

    target = _target(args.output, name)
    if not args.force:  # an existing document is kept unless --force (issue 35 leftovers)
        refuse_existing(target, "change request")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_file(target, data)
    except OSError as exc:  # a file where the folder should be, no permission, disk full
        raise InputError(f"change request not written: {os_error_message(exc)}") from exc
    echo(f"{case_id}: change request written to {target}", multiline=False, file=sys.stderr)
    return 0


def _edit(args: argparse.Namespace, settings: Settings) -> int:
    """``etki cr edit``: write the change request's terms; prints them."""
    from etki.services import Desk

    for given, clear, name, flag in (
        (args.assumption, args.clear_assumptions, "--assumption", "--clear-assumptions"),
        (args.exclusion, args.clear_exclusions, "--exclusion", "--clear-exclusions"),
        (args.valid_until, args.clear_valid_until, "--valid-until", "--clear-valid-until"),
        (args.clause, args.engine_clauses, "--clause", "--default-clauses"),
        (args.module, args.no_modules, "--module", "--no-modules"),
        (args.module, args.default_modules, "--module", "--default-modules"),
        (args.no_modules or None, args.default_modules, "--no-modules", "--default-modules"),
    ):
        if given is not None and clear:
            raise InputError(f"cr edit: {name} and {flag} together: give one or the other")
    assumptions = [] if args.clear_assumptions else args.assumption
    exclusions = [] if args.clear_exclusions else args.exclusion
    valid_until = "" if args.clear_valid_until else args.valid_until
    clauses = [] if args.engine_clauses else args.clause
    modules = [] if args.no_modules else args.module
    from etki.wiki.paths import cr_case_ref

    desk = Desk.open(settings)
    case_id = desk.case_id_for(cr_case_ref(args.case_id))  # a CR number names its case
    done, wiki_error = desk.set_cr_terms(
        case_id,
        assumptions=assumptions,
        exclusions=exclusions,
        valid_until=valid_until,
        clauses=clauses,
        modules=modules,
        default_modules=args.default_modules,
    )
    echo(f"{case_id}: change-request terms by {done.actor} at {done.at}", multiline=False)
    for word, items in (("assumption", done.assumptions), ("exclusion", done.exclusions)):
        for item in items:
            echo(f"  {word}: {item}", multiline=False)
    echo(f"  valid until: {done.valid_until or 'not set'}", multiline=False)
    case = desk.case(case_id)
    cites = ", ".join(case.cr_clauses) or "none"
    if done.clauses is None:
        cites += " (the default: " + (
            "the engine read its clauses as covering the work; cite one with --clause REF)"
            if case.engine_read_covering and case.decision.cited_clauses
            else "the decision's)"
        )
    echo(f"  clauses cited: {cites}", multiline=False)
    named = ", ".join(case.cr_modules) or "none"
    if done.modules is None:
        named += " (the default: the decision's)"
    echo(f"  impacted modules: {named}", multiline=False)
    if case.ruling is not None and case.ruling.ruling != "CHANGE_REQUEST":
        said = f"it is ruled {case.ruling.ruling}"
    elif case.ruling is None and case.decision.verdict != "CHANGE_REQUEST":
        said = f"it is pending and the engine proposed {case.decision.verdict}"
    else:
        said = ""
    if said:  # a trial wrote terms on an approved case and saw no word of it
        echo(
            f"warning: {case_id} is not a change request ({said}): the terms are kept "
            f"and go into its document only once it is ruled CR "
            f"(etki rule {case_id} cr{' --amend' if case.ruling else ''} --reason ...)",
            file=sys.stderr,
            multiline=False,
        )
    if wiki_error:
        echo(f"warning: {wiki_error}", file=sys.stderr, multiline=False)
    return 0


def register(subparsers) -> None:
    """Add ``cr`` to the ``etki`` parser."""
    cr = subparsers.add_parser(
        "cr",
        help="change-request documents (export a case ruled CR for sending)",
        description="Change requests: the client-facing document of a case converted to "
        "CR, and its terms (assumptions, exclusions, validity date).",
    )
    cr_sub = cr.add_subparsers(dest="cr_command", required=True)
    export = cr_sub.add_parser(
        "export",
        help="write a case's client-facing change request (md, html or docx)",
        description="Write the client-facing change request of a case ruled "
        "CHANGE_REQUEST, from the database: the request, the scope gap in the reviewer's "
        "words, the cited clauses, effort and price, assumptions, exclusions, validity "
        "and an approval block; the engine's deliberation only with --internal.",
    )
    export.add_argument(
        "case_id",
        metavar="CASE",
        help="a case id (or its short id), or a change request's number: the client's "
        "(CR-20261207-148197aa) or the wiki page's",
    )
    export.add_argument(
        "--format",
        choices=CR_FORMATS,
        help="default: from the --output ending (.md, .html, .docx), else md; one that "
        "contradicts the ending is refused",
    )
    export.add_argument(
        "--internal",
        action="store_true",
        help="add the internal appendix (the engine's verdict, reasoning and evidence): "
        "not for the client",
    )
    export.add_argument(
        "--output",
        metavar="FILE",
        help="write here (a folder, or a path ending with /: the page's own file name "
        "inside it, created when missing; - or none: stdout); an existing file is not "
        "replaced without --force",
    )
    force_option(export)
    export.set_defaults(handler=_export)
    edit = cr_sub.add_parser(
        "edit",
        help="write a change request's assumptions, exclusions and validity date",
        description="Write the PMO's terms of a case's change request: each list given "
        "replaces the one in force, what is not given stays. Audited, in the history.",
    )
    edit.add_argument("case_id", metavar="CASE")
    edit.add_argument(
        "--assumption", action="append", help="an assumption (repeat for more; replaces the list)"
    )
    edit.add_argument(
        "--exclusion", action="append", help="an exclusion (repeat for more; replaces the list)"
    )
    edit.add_argument("--valid-until", metavar="YYYY-MM-DD", help="the offer's validity date")
    edit.add_argument("--clear-assumptions", action="store_true", help="remove every assumption")
    edit.add_argument("--clear-exclusions", action="store_true", help="remove every exclusion")
    edit.add_argument("--clear-valid-until", action="store_true", help="remove the date")
    edit.add_argument(
        "--clause",
        action="append",
        metavar="REF",
        help="a clause the document cites (repeat for more; replaces the list; the whole "
        "ref or a number unique in the contract)",
    )
    edit.add_argument(
        "--default-clauses",
        "--engine-clauses",
        dest="engine_clauses",
        action="store_true",
        help="back to the default: the clauses the decision cites, or none when the engine "
        "proposed IN_SCOPE (it read them as covering the work)",
    )
    edit.add_argument(
        "--module",
        action="append",
        metavar="ID",
        help="an impacted module the document names (repeat for more; replaces the list; "
        "a module id of the project)",
    )
    edit.add_argument(
        "--no-modules", action="store_true", help="the document names no impacted module"
    )
    edit.add_argument(
        "--default-modules",
        action="store_true",
        help="back to the default: the modules the decision names as impacted",
    )
    edit.set_defaults(handler=_edit)
