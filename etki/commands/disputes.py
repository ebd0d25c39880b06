"""``etki dispute``: disputed clauses and a person's resolution of one (issue 14 item 6).

    etki dispute list [--project ID] [--json]
                             the disputed clauses: rulings, the resolution in force
                             (disputed-resolved) or the case that overrode it
    etki dispute resolve [--project ID] CLAUSE_REF --verdict in_scope|cr|reject --reason TEXT
                             record the PMO's resolution of a disputed clause
                             (approvers only; a refusal is audited)

``CLAUSE_REF`` is the clause's ref (``MSA-2024-01#4.8``) or, when only one disputed
clause has it, its number (``4.8``). A resolution is kept with the clause (append-only:
the newest is in force) and shown on ``disputed.md``, the contract page, Hafıza's card
and the detail pane; a resolved clause no longer raises the 24h PMO look, until a ruling
made after the resolution disagrees with it (then it is disputed again). Exit codes as
for every ``etki`` command: 0 ok, 2 bad input (unknown project, clause not disputed,
empty reason, not an approver), 1 internal error; the wiki is best-effort (a warning on
stderr, exit 0).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from etki.commands.verdicts import verdict_of
from etki.console import echo, emit_json_text

if TYPE_CHECKING:
    from etki.config import Settings
    from etki.domain import ClauseResolution, DisputedClause
    from etki.domain.disputes import DisputeCount

__all__ = ["VERDICT_WORDS", "register"]

VERDICT_WORDS = ("in_scope", "cr", "reject")
"""The ``--verdict`` words (:data:`etki.domain.RESOLUTION_VERDICTS`)."""


def _state(item: DisputedClause | DisputeCount) -> str:
    if item.resolved:
        return "disputed-resolved"
    return "disputed again" if item.resolution is not None else "disputed"


def _row(item: DisputedClause) -> dict:
    """One clause of ``etki dispute list --json``."""
    res = item.resolution
    return {
        "ref": item.ref,
        "state": _state(item),
        "rulings": list(item.rulings),
        "history": [
            {"case_id": c, "ruling": r, "reviewer": who, "ruled_at": at}
            for c, r, who, at in item.history
        ],
        "resolution": None
        if res is None
        else {
            "verdict": res.verdict,
            "reason": res.reason,
            "reviewer": res.reviewer,
            "at": res.at,
        },
        "overridden_by": item.overridden_by,
    }


# the indentation of each level of `etki dispute list --json` (indent=1)
_L1, _L2, _L3, _L4 = ("\n" + " " * n for n in (1, 2, 3, 4))
_ENTRY = (
    f'{_L3}{{{_L4}"case_id": %s,{_L4}"ruling": %s,{_L4}"reviewer": %s,{_L4}"ruled_at": %s{_L3}}}'
)
"""One history entry of the JSON list, its four strings filled in with ``%``."""


def _json_text(disputed: list[DisputedClause]) -> str:
    """``json.dumps([_row(d) for d in disputed], ensure_ascii=False, indent=1)``, the
    same text, written field by field (issue 32 item 1: 145k lines on the 10k bench
    store, whose history entries are most of them; json's indenting encoder is pure
    Python). A value that is not a string where a string stands (``encode_basestring``
    raises ``TypeError``) leaves the whole list to :func:`etki.jsontext.dumps_indented`
    of the rows, which writes what ``json`` does."""
    from json.encoder import encode_basestring as enc

    def strings(values: tuple[str, ...]) -> str:
        return "[" + _L3 + ("," + _L3).join(map(enc, values)) + _L2 + "]" if values else "[]"

    def history(entries: tuple[tuple[str, str, str, str], ...]) -> str:
        if not entries:
            return "[]"
        return (
            "["
            + ",".join([_ENTRY % (enc(c), enc(r), enc(w), enc(a)) for c, r, w, a in entries])
            + _L2
            + "]"
        )

    def resolution(res: ClauseResolution | None) -> str:
        if res is None:
            return "null"
        parts = (
            ("verdict", res.verdict),
            ("reason", res.reason),
            ("reviewer", res.reviewer),
            ("at", res.at),
        )
        return "{" + _L3 + ("," + _L3).join(f'"{k}": {enc(v)}' for k, v in parts) + _L2 + "}"

    try:
        items = [
            "{"
            + _L2
            + ("," + _L2).join(
                (
                    '"ref": ' + enc(item.ref),
                    '"state": ' + enc(_state(item)),
                    '"rulings": ' + strings(item.rulings),
                    '"history": ' + history(item.history),
                    '"resolution": ' + resolution(item.resolution),
                    '"overridden_by": '
                    + ("null" if item.overridden_by is None else enc(item.overridden_by)),
                )
            )
            + _L1
            + "}"
            for item in disputed
        ]
    except TypeError:  # a value of another type: json's own rules
        from etki.jsontext import dumps_indented

        return dumps_indented([_row(d) for d in disputed], 1)
    return "[" + _L1 + ("," + _L1).join(items) + "\n]" if items else "[]"


def _disputed(args: argparse.Namespace, settings: Settings) -> tuple[str, list]:
    """The chosen project and its disputed clauses: read by :mod:`etki.store.lean`
    (plain SQL, no SQLAlchemy; issue 32 item 1), or by the desk when that path cannot
    answer as it would (:class:`etki.store.lean.Fallback`)."""
    from etki.store.lean import Fallback, lean_call

    try:
        project_id, ruled, resolutions = lean_call(settings.db_url, "disputes", args.project)
    except Fallback:
        from etki.services import Desk

        desk = Desk.open(settings, read_only=True)
        try:
            project_id = desk.chosen_project(args.project)  # a clear error for an unknown id
            return project_id, desk.disputed(project_id)
        finally:
            desk.close()
    from etki.memory import disputes_of

    return project_id, disputes_of(ruled, resolutions)


def _counted(args: argparse.Namespace, settings: Settings) -> tuple[str, list]:
    """The chosen project and its disputed clauses without their history
    (:class:`etki.domain.disputes.DisputeCount`), from the per-clause counts kept at
    ruling time (:func:`etki.store.lean_disputes.disputes_read`, migration 0013: no row
    per ruled case); :func:`_disputed` when the lean path cannot answer."""
    from etki.store.lean import Fallback, lean_call
    from etki.store.lean_disputes import disputes_read

    try:
        project_id, read = lean_call(settings.db_url, disputes_read, args.project)
    except Fallback:
        return _disputed(args, settings)
    from etki.memory import disputes_counted

    return project_id, disputes_counted(read.counts, read.ruled, read.resolutions)


def _list(args: argparse.Namespace, settings: Settings) -> int:
    if args.json:  # every disputed clause's whole history: a row per ruling read
        emit_json_text(_json_text(_disputed(args, settings)[1]))  # == emit_json(rows, indent=1)
        return 0
    from etki.domain.disputes import DisputeCount

    project_id, disputed = _counted(args, settings)
    if not disputed:
        echo(f"no disputed clauses in {project_id}", multiline=False)
    for item in disputed:
        echo(
            f"{item.ref}  {_state(item).upper()}  rulings {' / '.join(item.rulings)}  "
            f"({item.ruled if isinstance(item, DisputeCount) else len(item.history)} ruled)",
            multiline=False,
        )
        res = item.resolution
        if res is not None:
            echo(
                f"  PMO: rule {res.verdict} — “{res.reason}” ({res.reviewer}, {res.at})",
                multiline=False,
            )
        if item.overridden_by is not None:
            echo(f"  overridden by {item.overridden_by} (ruled after it)", multiline=False)
    return 0


def _resolve(args: argparse.Namespace, settings: Settings) -> int:
    from etki.services import Desk

    desk = Desk.open(settings, create=False)  # no store: nothing is disputed
    try:
        project_id = desk.chosen_project(args.project)
        outcome = desk.resolve_dispute(project_id, args.clause_ref, args.verdict, args.reason)
    finally:
        desk.close()
    res = outcome.resolution
    echo(
        f"{res.ref}: DISPUTED-RESOLVED · PMO: rule {res.verdict} — “{res.reason}” "
        f"({res.reviewer}, {res.at})",
        multiline=False,
    )
    if outcome.wiki_error:
        echo(f"warning: {outcome.wiki_error}", file=sys.stderr, multiline=False)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``etki dispute list`` and ``etki dispute resolve``."""
    dispute = subparsers.add_parser(
        "dispute", help="disputed clauses and their resolution by a person"
    )
    sub = dispute.add_subparsers(dest="dispute_command", required=True)
    listing = sub.add_parser("list", help="the disputed clauses of a project")
    listing.add_argument("--project", help="project id (default: the only project)")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(handler=_list)
    resolve = sub.add_parser(
        "resolve", help="record the PMO's resolution of a disputed clause (approvers only)"
    )
    resolve.add_argument("--project", help="project id (default: the only project)")
    resolve.add_argument("clause_ref", help="the clause's ref, or its number when unique")
    resolve.add_argument(
        "--verdict",
        required=True,
        type=verdict_of,
        metavar="in_scope|cr|reject",
        help="the clause's verdict; approve/in-scope/IN_SCOPE, change_request/CR, reject "
        "(the same words as `etki rule`)",
    )
    resolve.add_argument("--reason", required=True, help="what the clause covers, and why")
    resolve.set_defaults(handler=_resolve)
