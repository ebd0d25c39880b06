"""The one answer to "may this desk rule this case now?" (issue 31).

Three things stop a ruling before its dialog opens, checked in this order:

* ``read_only``: the acting reviewer may not rule on the project (it is archived, or
  they are a viewer, or not listed by a project that lists reviewers:
  :attr:`etki.services.Seat.may_rule`);
* ``ruled_elsewhere``: the live refresh saw another reviewer rule the case (the queue
  pane keeps it in ``ruled_elsewhere`` while it is highlighted);
* ``in_flight``: this desk is still recording a ruling on the case.

:func:`refusal` is pure (no Textual, no desk): the ruling, amend and bulk flows ask it
and show what it returns. The store checks the ruling again (optimistic locking), so
this guard only spares the reviewer a dialog whose answer cannot be recorded.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from etki.domain import CaseRecord, CaseSummary, RulingRecord
from etki.text import printable
from etki_tui.errors import UPDATE_REVIEWERS
from etki_tui.header import archived_text

if TYPE_CHECKING:
    from etki.services import Seat

Why = Literal["read_only", "ruled_elsewhere", "in_flight"]


@dataclass(frozen=True)
class Refusal:
    """Why this desk may not rule now. ``text``: the toast (one line, client text made
    printable); ``title``, ``timeout`` (seconds): the toast's; ``ruling``: for
    ``ruled_elsewhere``, the other reviewer's ruling (the flow shows it as a conflict
    instead of a toast)."""

    why: Why
    text: str
    title: str = ""
    timeout: float = 3
    ruling: RulingRecord | None = None


def refusal(
    seat: Seat | None,
    project_id: str,
    what: str,
    *,
    case_id: str | None = None,
    in_flight: Set[str] = frozenset(),
    ruled_elsewhere: Mapping[str, CaseRecord | CaseSummary] | None = None,
    amend: bool = False,
) -> Refusal | None:
    """Why this desk may not rule ``what`` (a case id, or words such as "the 3 marked
    case(s)") on ``project_id`` now, or None when it may.

    ``seat``: who acts (None: not read yet, or not checked: then anyone may, and the
    store decides). ``case_id``: the case, for the ``ruled_elsewhere`` and ``in_flight``
    checks (None: the read-only check alone). ``in_flight``: case ids whose ruling this
    desk is recording. ``ruled_elsewhere``: the queue pane's cases seen ruled by someone
    else (None: not checked, as for an amendment, which is of a ruled case).
    ``amend``: the read-only words say amending, not ruling."""
    if seat is not None and seat.archived:
        doing = "an amendment" if amend else "a ruling"
        return Refusal(
            "read_only",
            printable(archived_text(project_id, f"{doing} of {what}"), multiline=False),
            title="Archived project",
            timeout=8,
        )
    if seat is not None and not seat.may_rule:
        if amend:
            text = (
                f"Read-only desk: {seat.reviewer} may not amend rulings on "
                f"{project_id} ({seat.role}); nothing was recorded for {what}."
            )
        else:
            text = (
                f"Read-only desk: {seat.reviewer} may not rule on "
                f"{project_id} ({seat.role}); nothing was recorded "
                f"for {what}. To rule, an approver lists you as "
                f"approver in etki.yaml and runs `{UPDATE_REVIEWERS}`, "
                "then Ctrl+R here; or set "
                "ETKI_REVIEWER to your approver name."
            )
        return Refusal(
            "read_only", printable(text, multiline=False), title="Not an approver", timeout=8
        )
    if case_id is None:
        return None
    seen = ruled_elsewhere.get(case_id) if ruled_elsewhere is not None else None
    if seen is not None and seen.ruling is not None:
        return Refusal(
            "ruled_elsewhere", "already ruled (seen by the live refresh)", ruling=seen.ruling
        )
    if case_id in in_flight:
        return Refusal("in_flight", f"The ruling on {case_id} is still being recorded.")
    return None
