"""The assignment and saved-view flows (issue 35 item 5).

* ``t`` on the queue: the approvers of the project are read in a worker
  (:meth:`etki.services.Desk.assignable`, with the case's assignee now), picked in
  :class:`etki_tui.screens.assign.AssignPicker`, and the case is assigned (or its
  assignment ended) in a worker (:meth:`~etki.services.Desk.assign`,
  :meth:`~etki.services.Desk.unassign`: audited, in the case's history); a toast says
  so and the queue is read again.
* ``M``: only my cases (claimed by me or assigned to me): the ids are read in a worker
  (:meth:`~etki.services.Desk.mine`) when the filter is turned on and after every read
  of the queue while it is on, so a claim or an assignment made meanwhile shows.
* ``V``: the saved views (:mod:`etki_tui.queue.views`): recall one, save the current
  filter under a name, delete one; the views live in the desk's config file beside the
  keymap. The file is read again each time the list opens, and a save or a delete
  changes only that one view in the file as it is then (:func:`etki_tui.config.save_view`:
  locked, atomic), so views another desk or a hand added meanwhile are kept.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from textual import on
from textual.message import Message

from etki.domain import CaseEvent
from etki.text import printable
from etki_tui.config import config_path, load_config, save_view
from etki_tui.errors import advice, one_line
from etki_tui.flows.intake import IntakeFlow
from etki_tui.messages import QueueLoaded
from etki_tui.queue.pane import QueuePane
from etki_tui.queue.views import ViewsScreen, filter_of, problems, view_of
from etki_tui.screens.assign import NOBODY, AssignPicker
from etki_tui.workers import desk_worker


class AssignChoices(Message):
    """The approvers ``case_id`` may be assigned to and who has it now (or ``error``)."""

    def __init__(
        self,
        case_id: str,
        names: list[str],
        current: str | None,
        error: str = "",
        advice: str = "",
    ) -> None:
        super().__init__()
        self.case_id = case_id
        self.names = names
        self.current = current
        self.error = error
        self.advice = advice


class AssignDone(Message):
    """``case_id`` was assigned (``event.kind`` ``assign``) or its assignment ended
    (``unassign``), or ``error`` says why not."""

    def __init__(
        self, case_id: str, event: CaseEvent | None, error: str = "", advice: str = ""
    ) -> None:
        super().__init__()
        self.case_id = case_id
        self.event = event
        self.error = error
        self.advice = advice


class MineRead(Message):
    """The case ids of ``project_id`` that are the acting reviewer's."""

    def __init__(self, project_id: str, ids: frozenset[str]) -> None:
        super().__init__()
        self.project_id = project_id
        self.ids = ids


def _choices_failed(exc: Exception, _project_id: str, case_id: str) -> AssignChoices:
    return AssignChoices(case_id, [], None, error=one_line(exc), advice=advice(exc))


def _assign_failed(exc: Exception, _project_id: str, case_id: str, _name: str) -> AssignDone:
    return AssignDone(case_id, None, error=one_line(exc), advice=advice(exc))


class AssignFlow(IntakeFlow):
    """The actions ``app.assign_case``, ``app.toggle_mine`` and ``app.saved_views``."""

    # --- assign ------------------------------------------------------------------------

    def action_assign_case(self) -> None:
        """Offer the project's approvers for the highlighted case (nothing on an
        archived project)."""
        if self.refused_archived("an assignment"):
            return
        pane = self.desk_part(QueuePane, "assign")
        case_id = pane.current_case_id() if pane is not None else None
        if case_id is None:
            self.notify("No case is highlighted.", title="Assign", markup=False, timeout=4)
            return
        self.read_assignees(case_id)

    @desk_worker("assign", failed=_choices_failed)
    def read_assignees(self, project_id: str, case_id: str) -> AssignChoices:
        """The approvers of the project and the case's assignee now."""
        names = [r.name for r in self.desk.assignable(project_id)]
        held = self.desk.assignments(project_id).get(case_id)
        return AssignChoices(case_id, names, held.after if held is not None else None)

    @on(AssignChoices)
    def _assign_choices(self, message: AssignChoices) -> None:
        if message.error or not message.names:
            # the service refuses an empty list with the field and the command to fill
            # it (etki.services.desk_assign.no_approvers); this is only a fallback
            why = message.error or "the project lists no approvers in etki.yaml"
            self.notify(
                printable(f"{why}. {message.advice}".strip(), multiline=False),
                title="Nothing to assign to",
                severity="error",
                markup=False,
                timeout=8,
            )
            return
        me = self.seat.reviewer if self.seat is not None else None
        picker = AssignPicker(message.case_id, message.names, message.current, me)

        def chosen(name: str | None) -> None:
            if name is not None:
                self.assign_to(message.case_id, name)

        self.push_screen(picker, chosen)

    @desk_worker("assign", exclusive=False, failed=_assign_failed)
    def assign_to(self, project_id: str, case_id: str, name: str) -> AssignDone:
        """Assign ``case_id`` to ``name`` (:data:`NOBODY`: end its assignment)."""
        if name == NOBODY:
            return AssignDone(case_id, self.desk.unassign(case_id))
        return AssignDone(case_id, self.desk.assign(case_id, name))

    @on(AssignDone)
    def _assign_done(self, message: AssignDone) -> None:
        if message.error or message.event is None:
            self.notify(
                printable(f"{message.error}. {message.advice}".strip(), multiline=False),
                title="Not assigned",
                severity="error",
                markup=False,
                timeout=8,
            )
            return
        who = printable(message.event.after, multiline=False)
        if message.event.kind == "unassign":
            text = f"{message.case_id} is no longer assigned to {who}."
        else:
            text = f"{message.case_id} is assigned to {who}: it is in their mine view (M)."
        self.notify(text, title="Assigned", markup=False, timeout=6)
        self.load_queue("reload")  # its history, and the mine view

    # --- mine ----------------------------------------------------------------------------

    def action_toggle_mine(self) -> None:
        """Show only my cases, or every case again."""
        pane = self.desk_part(QueuePane, "mine")
        if pane is None:
            return
        mine = not pane.filter.mine
        pane.set_filter(pane.filter.with_(mine=mine))
        if mine:
            self.read_mine()

    @desk_worker("mine", coalesce=True)
    def read_mine(self, project_id: str) -> MineRead:
        """The acting reviewer's case ids of the project."""
        return MineRead(project_id, self.desk.mine(project_id))

    @on(MineRead)
    def _mine_read(self, message: MineRead) -> None:
        pane = self.desk_part(QueuePane, message)
        if pane is None or message.project_id != self.project_id or not pane.filter.mine:
            return
        pane.set_filter(pane.filter.with_(mine_ids=message.ids))

    @on(QueueLoaded)
    def _mine_again(self, message: QueueLoaded) -> None:
        pane = self.desk_part(QueuePane, message)
        if pane is not None and pane.filter.mine and message.project_id == self.project_id:
            self.read_mine()

    # --- saved views ---------------------------------------------------------------------

    def _config_file(self) -> Path:
        """The config file the views are saved in: the one read at start, else where
        the desk's settings put it (it may not exist yet)."""
        return self.config.path or config_path(self.desk.settings.config_file)[0]

    def _read_views(self) -> dict[str, dict[str, object]]:
        """The saved views as the config file holds them now (another desk, or a hand,
        may have changed it since the start); a problem not warned about at start is
        said once (a file that does not read holds no views then: saving says why)."""
        path = self._config_file()
        if not path.exists():
            self.config = replace(self.config, views={})
            return {}
        fresh = load_config(str(path), view_check=problems)
        new = [w for w in fresh.warnings if w not in self.config.warnings]
        for warning in new:
            self.notify(
                printable(warning, multiline=False),
                title="Config",
                severity="warning",
                markup=False,
                timeout=12,
            )
        warnings = (*self.config.warnings, *new)
        self.config = replace(self.config, path=path, views=fresh.views, warnings=warnings)
        return self.config.views

    def action_saved_views(self) -> None:
        """List the saved views, as the config file holds them now. A problem read
        just now is toasted first and the list opens after it, so the toast leaves the
        screen as for any form opening over one (said on the status line, kept in
        ``L``) instead of covering the list's buttons."""
        pane = self.desk_part(QueuePane, "saved views")
        if pane is None:
            return
        warned = len(self.config.warnings)
        views = ViewsScreen(self._read_views(), pane.filter, cursor_blink=self.cursor_blink)
        if len(self.config.warnings) > warned:  # after the toast's Notify is handled
            self.call_later(self.push_screen, views, self._view_chosen)
        else:
            self.push_screen(views, self._view_chosen)

    def _view_chosen(self, choice: tuple[str, str] | None) -> None:
        pane = self.desk_part(QueuePane, "saved views")
        if choice is None or pane is None:
            return
        what, name = choice
        shown = printable(name, multiline=False)
        if what == "recall":
            flt, warnings = filter_of(self.config.views.get(name, {}))
            pane.set_filter(flt.with_(mine_ids=pane.filter.mine_ids))
            if flt.mine:
                self.read_mine()
            said = f" ({'; '.join(warnings)}: left out)" if warnings else ""
            self.notify(f"View “{shown}”{said}", title="View", markup=False, timeout=4)
            return
        path = self._config_file()
        try:  # the file as it is now, only this view changed (other desks' views kept)
            save_view(path, name, view_of(pane.filter) if what == "save" else None)
        except (OSError, ValueError) as exc:
            self.notify(
                printable(one_line(exc), multiline=False),
                title="View not saved",
                severity="error",
                markup=False,
                timeout=10,
            )
            return
        self._read_views()
        done = "saved" if what == "save" else "deleted"
        where = printable(str(path), multiline=False)
        self.notify(f"View “{shown}” {done} in {where}", title="View", markup=False, timeout=4)
