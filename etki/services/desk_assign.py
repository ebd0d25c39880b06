"""The desk's assignments (issue 35 item 5): assign a case to one of the project's
reviewers, end an assignment, read the live ones and the cases that are the acting
reviewer's (claimed by or assigned to them). :class:`DeskAssign` is a part of
:class:`etki.services.Desk` (it derives from it)."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from etki.errors import InputError, NoApproversError, clip

if TYPE_CHECKING:
    from etki.config import Settings
    from etki.domain import CaseEvent, Reviewer
    from etki.store import CaseFileRepository


class _Desk(Protocol):
    """What the assignment methods read of the desk they are part of."""

    repo: CaseFileRepository
    settings: Settings

    def _require_reviewer(self, case_id: str, action: str, writes: str) -> str: ...
    def claims(self, project_id: str) -> dict[str, CaseEvent]: ...
    def assignments(self, project_id: str) -> dict[str, CaseEvent]: ...


def pick_reviewer(
    typed: str, reviewers: list[Reviewer], viewers: Sequence[Reviewer] = ()
) -> Reviewer:
    """The one reviewer of ``reviewers`` that ``typed`` names: the one whose name is
    ``typed`` (compared folded: ``ayse`` is ``Ayşe``), else the only one with every
    typed word as a whole word of the name (``ayse`` is Ayşe Yılmaz, not Ayşegül Kaya),
    else the only one :func:`etki.text.names_person` matches (``yil`` names ``Ayşe
    Yılmaz``). Raises
    :class:`InputError` listing the reviewers when none or several match."""
    from etki.text import fold, names_person

    listed = ", ".join(clip(r.name) for r in reviewers) or "none"
    typed_words = fold(typed).split()
    exact = [r for r in reviewers if fold(r.name).split() == typed_words]
    whole = [r for r in reviewers if typed_words and set(typed_words) <= set(fold(r.name).split())]
    found = exact or whole or [r for r in reviewers if names_person(typed, r.name)]
    if len(found) == 1:
        return found[0]
    if not found:
        seen = [v.name for v in viewers if names_person(typed, v.name)]
        if seen:
            raise InputError(
                f"--to {clip(typed)}: {', '.join(clip(n) for n in seen)} can only view this "
                f"project, not rule a case; approvers: {listed}"
            )
        raise InputError(
            f"--to {clip(typed)}: no approver of this project has that name; approvers: {listed}"
        )
    raise InputError(
        f"--to {clip(typed)} names more than one approver: "
        + ", ".join(clip(r.name) for r in found)
        + "; type more of the name"
    )


def no_approvers(root: str) -> NoApproversError:
    """The refusal of an assignment in a project whose ``etki.yaml`` (in the folder
    ``root``) lists no approvers: it says so plainly and names the field to fill and
    the command, as it runs (``etki init`` takes the folder), that loads it. The real
    engagements (tdrs, talentmap) ship no reviewers; a later trial of issue 34 found
    that the desk said only "the project lists no approvers in etki.yaml"."""
    folder = shlex.quote(root)
    return NoApproversError(
        "assign: nobody can be assigned a case: the project lists no approvers. Add "
        f"them under `reviewers:` in {root}/etki.yaml (one `- name: …` with "
        f"`role: approver` each), then run `etki init {folder} --update-reviewers`"
    )


class DeskAssign:
    """The assignment methods of :class:`etki.services.Desk` (``self`` is the desk)."""

    def assignable(self: _Desk, project_id: str) -> list[Reviewer]:
        """The reviewers a case of ``project_id`` may be assigned to: the approvers of
        its stored reviewer list (``etki.yaml``), in the listed order. A viewer cannot
        rule, so nothing is theirs to rule. Raises :class:`~etki.errors.NoApproversError`
        (:func:`no_approvers`) when it lists none, ``NotFoundError``."""
        approvers = [
            r for r in self.repo.project_config(project_id).reviewers if r.role == "approver"
        ]
        if not approvers:
            raise no_approvers(self.repo.project_root(project_id))
        return approvers

    def assign(self: _Desk, case_id: str, to: str) -> CaseEvent:
        """Assign the pending case ``case_id`` to the approver ``to`` names
        (:func:`pick_reviewer`: ``ayse`` finds ``Ayşe Yılmaz``), as the acting reviewer
        (``etki assign CASE --to NAME``, ``g`` on the desk): a ``case_events`` row and
        an audit row (:meth:`etki.store.CaseFileRepository.assign`), shown in the case's
        history; the assignee finds it under ``etki queue --mine``. Returns the event
        (``after``: the assignee's stored name). Raises ``PermissionDeniedError`` when
        the acting reviewer is not listed, :class:`~etki.errors.NoApproversError` when
        the project lists no approver, ``InputError`` for a name that is not one
        approver or a ruled case, ``NotFoundError`` for an unknown case."""
        who = self._require_reviewer(case_id, "assign a case", "assignments")
        project_id = self.repo.case_project_id(case_id)
        listed = self.repo.project_config(project_id).reviewers
        approvers = [r for r in listed if r.role == "approver"]
        if not approvers:
            raise no_approvers(self.repo.project_root(project_id))
        from etki.identity import reviewer_name

        viewers = [r for r in listed if r.role != "approver"]
        chosen = pick_reviewer(to, approvers, viewers)
        return self.repo.assign(case_id, who, reviewer_name(chosen.name))

    def unassign(self: _Desk, case_id: str) -> CaseEvent:
        """End the assignment of ``case_id`` as the acting reviewer (``etki assign CASE
        --clear``); ``after`` names who had it. Raises ``InputError`` when nobody has it,
        ``PermissionDeniedError``, ``NotFoundError``."""
        who = self._require_reviewer(case_id, "assign a case", "assignments")
        return self.repo.unassign(case_id, who)

    def assignments(self: _Desk, project_id: str) -> dict[str, CaseEvent]:
        """case id -> the assignment in force of every assigned pending case of the
        project (``after``: the assignee)."""
        return self.repo.live_assignments(project_id)

    def mine(self: _Desk, project_id: str) -> frozenset[str]:
        """The pending case ids of ``project_id`` that are the acting reviewer's: claimed
        by them (live) or assigned to them (:func:`etki.picks.mine_ids`)."""
        from etki.picks import mine_ids

        return mine_ids(
            self.settings.reviewer, self.claims(project_id), self.assignments(project_id)
        )
