"""``etki estimate``: a reviewer's effort estimate of a case (issue 35 item 2).

    etki estimate CASE --days N [--price AMOUNT [--currency CODE]] --reason TEXT

Records the acting reviewer's estimate (``ETKI_REVIEWER`` or the OS user; the project's
reviewers, viewers included, as for notes) through
:meth:`etki.services.Desk.add_estimate`: the days (person-days, a decimal above 0 and at
most 2000, at most two decimals; ``2,5`` reads as 2.5), an optional price above 0 with
the ISO 4217 code of a currency in use (``--price 12500 --currency EUR``, or ``--price
"12500 EUR"``; ``12.500,50`` is refused with the plain ``12500.50`` to type) and a
reason (required; ``-`` reads it from stdin). It is written to the audit log and the
case's history (``etki show``), and the change-request document and ``etki report``
use it; the newest estimate of a case is the one in force, the earlier ones stay in its
history. The engine's effort range of the decision is not changed.

The arguments are checked before the store is opened; a bad one gets an error naming
the field. Exit codes: 0 recorded; 2 for bad input, an unknown or erased case, or a
reviewer the project does not list; 1 on an internal error.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from etki.console import echo

if TYPE_CHECKING:
    from etki.config import Settings

__all__ = ["register"]


def _estimate(args: argparse.Namespace, settings: Settings) -> int:
    """``etki estimate``: validate, then record through the desk; prints one line."""
    from etki.domain import parse_estimate
    from etki.services import Desk

    reason = sys.stdin.read() if args.reason == "-" else args.reason
    parse_estimate(args.days, reason, args.price, args.currency)  # before the store opens
    desk = Desk.open(settings)
    case_id = desk.case_id_for(args.case_id)
    done, wiki_error = desk.add_estimate(case_id, args.days, reason, args.price, args.currency)
    # the figures as people read them (4.5 days, 86,500.00 TRY), as `etki show` states them
    echo(f"{case_id}: estimate {done.figures()} by {done.actor} at {done.at}", multiline=False)
    if wiki_error:
        echo(f"warning: {wiki_error}", file=sys.stderr, multiline=False)
    return 0


def register(subparsers) -> None:
    """Add ``estimate`` to the ``etki`` parser."""
    p = subparsers.add_parser(
        "estimate",
        help="record your effort estimate of a case (days, optional price, reason)",
        description="Record a reviewer's effort estimate of a case: used by the "
        "change-request document and the reports, in the audit log and the case's "
        "history; the engine's effort range stays as it was.",
    )
    p.add_argument("case_id", metavar="CASE")
    p.add_argument("--days", required=True, help="person-days, a decimal above 0 (e.g. 3.5)")
    p.add_argument(
        "--price",
        help="optional price above 0: a plain amount (12500.50 or 12500,50) or one "
        "written as Turkish and German do (12.500,50), with --currency, or '12500 EUR'",
    )
    p.add_argument("--currency", help="ISO 4217 code of --price (EUR, TRY, USD, CHF)")
    p.add_argument(
        "--reason", required=True, help="what the estimate rests on (- reads it from stdin)"
    )
    p.set_defaults(handler=_estimate)
