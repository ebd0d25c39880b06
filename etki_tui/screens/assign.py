"""``t`` on the queue (issue 35 item 5): pick the approver a case is assigned to. Only
the project's approvers are offered (a viewer cannot rule: nothing is theirs to rule);
the one who has it now is marked, and "Nobody" ends the assignment."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList
from textual.widgets.option_list import Option

from etki.identity import reviewer_name
from etki.text import printable
from etki_tui.actions import bindings
from etki_tui.live import part
from etki_tui.toggles import MarkedOptionList

NOBODY = "\0nobody"
"""The option id of "Nobody" (no reviewer name holds a NUL)."""


class AssignPicker(ModalScreen[str | None]):
    """Pick an approver for ``case_id``: dismisses with the chosen name (as stored in
    the project's reviewer list), :data:`NOBODY` to end the assignment, or None.
    ``names``: the approvers in the listed order; ``current``: who has it now (or
    None); ``me``: the acting reviewer (marked "you")."""

    BINDINGS = bindings("help.close", "help")

    def __init__(
        self, case_id: str, names: Sequence[str], current: str | None, me: str | None
    ) -> None:
        super().__init__()
        self.case_id = case_id
        self.names = list(names)
        self.current = current
        self.me = me

    def compose(self) -> ComposeResult:
        """One option per approver, then Nobody when the case is assigned."""
        with Vertical(id="assign-dialog") as dialog:
            dialog.border_title = printable(f"Assign {self.case_id} to", multiline=False)
            dialog.border_subtitle = "Enter assigns · Esc closes"
            options = []
            for name in self.names:
                prompt = Text(printable(name, multiline=False), style="bold")
                marks = []
                if self.current is not None and reviewer_name(name) == self.current:
                    marks.append("assigned now")
                if self.me is not None and reviewer_name(name) == reviewer_name(self.me):
                    marks.append("you")
                if marks:
                    prompt.append(f"  ({', '.join(marks)})", style="dim")
                options.append(Option(prompt, id=name))
            if self.current is not None:
                options.append(Option(Text("Nobody: end the assignment", style="italic"), NOBODY))
            yield MarkedOptionList(*options, id="assign-list", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        """The first approver is highlighted (none when the desk closes meanwhile)."""
        names = part(self, OptionList)
        if names is None:
            return
        names.highlighted = 0
        names.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_close(self) -> None:
        """Close without assigning."""
        self.dismiss(None)
