"""``etki remit``: the remit, proposed at setup (issue 29 item 5).

    etki remit propose [--project ID] [--json]
                             the contract's own exclusion, client/government-duty and
                             "not responsible for" sentences, numbered in contract
                             order, as candidate ``scope: out`` statements; already
                             accepted ones stay in the list (numbers never shift) and
                             are marked ``*`` with the statement they became
    etki remit accept [--project ID] (N ... | --all)
                             accept proposals (approvers only; audited): triage reads
                             them from then on as declared ``out`` statements
    etki remit list [--project ID] [--json]
                             the accepted statements in force, with who and when
    etki remit revoke [--project ID] N ... --reason TEXT
                             revoke accepted statements (N of ``etki.yaml#accepted-N``,
                             as ``list`` shows them; approvers only; audited)

The accepted remit is kept in the store (table ``remit_statements``, each change in
``project_audit``), not in ``etki.yaml``; it is cited like a clause
(``etki.yaml#accepted-N``) and goes into the project's knowledge index, so its hash
(the index freshness a decision records) changes with it. Decisions already made stay
frozen. Contract text is printed literally (control and bidi characters as visible
placeholders; ``--json`` escapes them). Exit codes as every ``etki`` command: 0 ok, 2 bad
input (an unknown project or number, a number given twice, a proposal already accepted,
a reviewer who is not an approver: nothing stored), 1 internal error.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from etki.console import echo, emit_json

if TYPE_CHECKING:
    from etki.config import Settings
    from etki.services import Desk

__all__ = ["register"]


def _open(settings: Settings, *, write: bool) -> Desk:
    from etki.services import Desk

    return Desk.open(settings, read_only=not write, create=False)


def _propose(args: argparse.Namespace, settings: Settings) -> int:
    desk = _open(settings, write=False)
    try:
        project_id = desk.chosen_project(args.project)
        rows = desk.remit_proposals(project_id)
    finally:
        desk.close()
    if args.json:
        emit_json(
            [
                {
                    "number": r.proposal.number,
                    "ref": r.proposal.ref,
                    "role": r.proposal.role,
                    "rule": r.proposal.rule,
                    "text": r.proposal.text,
                    "accepted": None
                    if r.accepted is None
                    else {
                        "ref": r.accepted.ref,
                        "by": r.accepted.accepted_by,
                        "at": r.accepted.accepted_at,
                    },
                }
                for r in rows
            ],
            indent=1,
        )
        return 0
    if not rows:
        echo(
            f"{project_id}: the contract has no exclusion, client-duty or "
            "'not responsible' sentence to propose",
            multiline=False,
        )
        return 0
    done = sum(1 for r in rows if r.accepted is not None)
    echo(
        f"{project_id}: {len(rows)} proposed remit statements (scope: out), contract order"
        + (f"; {done} accepted (*)" if done else ""),
        multiline=False,
    )
    width = len(str(len(rows)))
    for r in rows:
        p = r.proposal
        mark = "*" if r.accepted is not None else " "
        echo(f"{p.number:>{width}}{mark} {p.ref}  {p.role}: {p.text}", multiline=False)
        if r.accepted is not None:
            echo(
                f"{'':>{width}}  accepted as {r.accepted.ref} by {r.accepted.accepted_by} "
                f"at {r.accepted.accepted_at}",
                multiline=False,
            )
    echo(f"accept with: etki remit accept --project {project_id} N ... (or --all)")
    return 0


def _changed(project_id: str, change, verb: str) -> None:
    items = change.accepted or change.revoked
    for s in items:
        echo(f"{verb} {s.ref} (from {s.source_ref}): {s.text}", multiline=False)
    echo(
        f"{project_id}: index {change.hash_before} -> {change.hash_after}; triage uses the "
        "remit from now on (decisions already made stay as they are)",
        multiline=False,
    )


def _accept(args: argparse.Namespace, settings: Settings) -> int:
    desk = _open(settings, write=True)
    try:
        project_id = desk.chosen_project(args.project)
        change = desk.remit_accept(project_id, args.numbers, every=args.all)
    finally:
        desk.close()
    if not change.accepted:
        echo(f"{project_id}: nothing to accept: every proposal is accepted already")
        return 0
    _changed(project_id, change, "accepted")
    return 0


def _revoke(args: argparse.Namespace, settings: Settings) -> int:
    desk = _open(settings, write=True)
    try:
        project_id = desk.chosen_project(args.project)
        change = desk.remit_revoke(project_id, args.numbers, args.reason)
    finally:
        desk.close()
    _changed(project_id, change, "revoked")
    return 0


def _list(args: argparse.Namespace, settings: Settings) -> int:
    desk = _open(settings, write=False)
    try:
        project_id = desk.chosen_project(args.project)
        statements = desk.remit_accepted(project_id)
    finally:
        desk.close()
    if args.json:
        emit_json(
            [
                {
                    "number": s.number,
                    "ref": s.ref,
                    "source": s.source_ref,
                    "role": s.role,
                    "text": s.text,
                    "accepted_by": s.accepted_by,
                    "accepted_at": s.accepted_at,
                }
                for s in statements
            ],
            indent=1,
        )
        return 0
    if not statements:
        echo(f"{project_id}: no accepted remit (see `etki remit propose`)", multiline=False)
    for s in statements:
        echo(
            f"{s.number}  {s.ref}  from {s.source_ref} ({s.role}), accepted by "
            f"{s.accepted_by} at {s.accepted_at}: {s.text}",
            multiline=False,
        )
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``etki remit propose|accept|list|revoke``."""
    remit = subparsers.add_parser(
        "remit", help="the contract's own out-of-remit sentences, proposed and accepted"
    )
    sub = remit.add_subparsers(dest="remit_command", required=True)
    propose = sub.add_parser(
        "propose",
        help="number the contract's exclusion, client-duty and 'not responsible' "
        "sentences as candidate scope: out statements (contract order; accepted ones "
        "stay listed, marked *)",
    )
    propose.add_argument("--project", help="project id (default: the only project)")
    propose.add_argument("--json", action="store_true")
    propose.set_defaults(handler=_propose)
    accept = sub.add_parser(
        "accept", help="accept proposals by number, or --all (approvers only; audited)"
    )
    accept.add_argument("--project", help="project id (default: the only project)")
    accept.add_argument("numbers", nargs="*", metavar="N", help="proposal numbers (propose)")
    accept.add_argument("--all", action="store_true", help="every proposal not accepted yet")
    accept.set_defaults(handler=_accept)
    listing = sub.add_parser("list", help="the accepted remit in force, with who and when")
    listing.add_argument("--project", help="project id (default: the only project)")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(handler=_list)
    revoke = sub.add_parser("revoke", help="revoke accepted statements (approvers only; audited)")
    revoke.add_argument("--project", help="project id (default: the only project)")
    revoke.add_argument(
        "numbers", nargs="+", metavar="N", help="N of etki.yaml#accepted-N (remit list)"
    )
    revoke.add_argument("--reason", required=True, help="why it is in the remit after all")
    revoke.set_defaults(handler=_revoke)
