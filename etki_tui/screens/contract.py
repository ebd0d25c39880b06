"""The whole contract in the desk (issue 34 item 3): every clause of one contract as
stored with the project, in contract order, opened scrolled to the clause asked for.

Hafıza's wiki contract page lists only the clauses cited by ruled cases (it is a
projection of the rulings); this screen reads the clauses the desk already holds (the
store's, :meth:`etki.services.Desk.clauses`) and shows each one as the detail pane does
(:func:`etki_tui.render.clause_block`: number, title, kind, ref and the text, literal).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from etki.domain import ScopeClause
from etki.text import printable
from etki_tui.actions import ACTIONS, bindings
from etki_tui.live import part
from etki_tui.render import clause_block, clause_label, fit


def contract_clauses(clauses: Mapping[str, ScopeClause], contract_id: str) -> list[ScopeClause]:
    """The clauses of ``contract_id`` among ``clauses`` (ref -> clause, in the project's
    order, which is contract order), in that order."""
    return [c for c in clauses.values() if c.contract_id == contract_id]


def clause_choices(
    refs: Iterable[str], clauses: Mapping[str, ScopeClause]
) -> list[tuple[str, str]]:
    """(label, ref) of each of ``refs`` the project holds, each once, in the order given:
    ``4.2 Online payments``, an unnumbered clause by its title alone
    (:func:`~etki_tui.render.clause_label`; the list the ``l`` keys offer)."""
    out: list[tuple[str, str]] = []
    for ref in dict.fromkeys(refs):
        clause = clauses.get(ref)
        if clause is not None:
            out.append((clause_label(clause.number, clause.title), ref))
    return out


TAB_KEYS = ("tab.queue", "tab.hafiza", "tab.raporlar")
"""The desk's tab keys, which the contract screen carries (with ``leave``, ``q``: the
``contract`` entry of :data:`etki_tui.actions.SHARED_KEYS`, which its help lists)."""


class ContractScreen(ModalScreen[None]):
    """One contract, every clause in order, scrolled to ``ref`` (the clause asked for,
    framed). :attr:`landed` is the ref scrolled to once the screen is laid out (tests
    wait for it). Until then the clauses are laid out unseen and the contract's line
    says which clause is being opened: a trial saw its top for 0.5-0.8 s before the jump to the
    clause (issue 34 item 3). ``l`` jumps to another clause, Escape closes.

    It is a page of the desk, not a dialog: the desk's tab keys close it and show their
    tab, and ``q`` quits as it does on the tabs (:data:`TAB_KEYS`; the footer shows them, as the desk's does). A modal screen, so that the keys of the
    screen under it (the queue's a/c/r) stay asleep."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *bindings("contract.close", "contract.clauses"),
        # the tab keys are hidden in the desk's footer (the tabs name them); here no tab
        # is in sight, so the footer names them (one group: "1 2 3 Tabs")
        *(replace(ACTIONS[i], show=True).binding() for i in TAB_KEYS),
        *bindings("help", "leave"),  # "? Help  q Quit", as the desk's footer ends
    ]

    def __init__(self, clauses: Mapping[str, ScopeClause], ref: str) -> None:
        super().__init__()
        target = clauses.get(ref)
        self.contract_id = target.contract_id if target is not None else ref.split("#", 1)[0]
        self.clauses = contract_clauses(clauses, self.contract_id)
        self.ref = ref
        self.landed: str | None = None

    def compose(self) -> ComposeResult:
        """The contract's line, then one block per clause in a scrolling column."""
        yield Static("", id="contract-bar", markup=False)
        scroll = VerticalScroll(id="contract-scroll", can_focus=True)
        # drawn blank (laid out, so measured) until the clause stands at the top
        # (_unveil); a hidden or invisible widget has no region to measure by
        scroll.styles.opacity = 0.0
        with scroll:
            for i, clause in enumerate(self.clauses):
                block = Static(clause_block(clause.ref, clause), id=f"clause-{i}", markup=False)
                block.add_class("contract-clause")
                if clause.ref == self.ref:
                    block.add_class("-target")
                yield block
            if not self.clauses:
                yield Static(
                    Text(
                        f"No clause of {printable(self.contract_id, multiline=False)} is stored.",
                        style="dim",
                    ),
                    markup=False,
                )
        yield Footer()

    def on_mount(self) -> None:
        """Say what is shown; scroll to the clause once laid out."""
        self._show_bar()
        scroll = part(self, "#contract-scroll", VerticalScroll)
        if scroll is not None:
            scroll.focus()
        self.call_after_refresh(self.go_to, self.ref)

    def on_resize(self) -> None:
        self._show_bar()

    def _show_bar(self) -> None:
        bar = part(self, "#contract-bar", Static)
        if bar is None:
            return
        position = next((i for i, c in enumerate(self.clauses) if c.ref == self.ref), None)
        text = (
            f"Contract {printable(self.contract_id, multiline=False)} · {len(self.clauses)} clauses"
        )
        width = bar.content_region.width or self.app.size.width
        if position is not None and self.landed is None:  # laid out unseen meanwhile
            number = printable(self.clauses[position].number, multiline=False)
            opening = f"Opening the contract at {number}…"
            bar.update(Text(fit(opening, max(width, 1)), style="dim italic"))
            return
        if position is not None:
            text += f" · at {printable(self.clauses[position].number, multiline=False)} ({position + 1} of {len(self.clauses)})"
        # the keys are in the footer too: said here only where the line has room (a
        # trial: at 80 columns they cut the line to "… l goes to a clause · E…")
        hint = " · l goes to a clause · Esc back"
        if cell_len(text + hint) <= width:
            text += hint
        bar.update(Text(fit(text, max(width, 1)), style="bold"))

    def go_to(self, ref: str) -> None:
        """Scroll so that clause ``ref`` starts at the top (as far as the scroll goes) and
        frame it; :attr:`landed` says so."""
        index = next((i for i, c in enumerate(self.clauses) if c.ref == ref), None)
        scroll = part(self, "#contract-scroll", VerticalScroll)
        if index is None or scroll is None:
            return
        for block in self.query(".contract-clause"):
            block.set_class(block.id == f"clause-{index}", "-target")
        self.ref = ref
        self._show_bar()
        block = self.query_one(f"#clause-{index}")
        scroll.scroll_to_widget(block, animate=False, top=True, immediate=True)
        self.call_after_refresh(self._unveil, ref)

    def _unveil(self, ref: str, tries: int = 20, still: int = 0) -> None:
        """Uncover the contract once clause ``ref``'s block has started on the scroll's
        first row (or the scroll stood at its end) two refreshes in a row, or after
        ``tries`` refreshes; :attr:`landed` says ``ref``. Two: the scrollbar appears
        after the first layout and the clauses above rewrap a little narrower (a test
        saw 2.2 move 6 rows down once uncovered)."""
        index = next((i for i, c in enumerate(self.clauses) if c.ref == ref), None)
        scroll = part(self, "#contract-scroll", VerticalScroll)
        if index is None or scroll is None or self.ref != ref:
            return
        top = self.query_one(f"#clause-{index}").virtual_region.y
        there = abs(scroll.scroll_y - top) <= 1 or scroll.scroll_y >= scroll.max_scroll_y
        if (not there or not still) and tries > 0:
            if not there:
                scroll.scroll_to(y=top, animate=False, immediate=True)
            self.call_after_refresh(self._unveil, ref, tries - 1, int(there))
            return
        scroll.styles.opacity = 1.0
        self.landed = ref
        self._show_bar()

    def action_clauses(self) -> None:
        """Choose a clause of the contract and scroll to it."""
        from etki_tui.screens.links import LinksScreen

        links = [(clause_label(c.number, c.title), c.ref) for c in self.clauses]
        if not links:
            return

        def chosen(ref: str | None) -> None:
            if ref is not None:
                self.call_after_refresh(self.go_to, ref)

        self.app.push_screen(
            LinksScreen(
                links,
                title="Go to which clause?",
                details=[r for _, r in links],
                current=self.ref,
                hang=True,
            ),
            chosen,
        )

    def action_show_tab(self, tab: str) -> None:
        """A tab key: close the contract, then show tab ``tab`` (leaving the case
        reader it was opened from, as the key does there). ``dismiss`` takes this screen
        off the stack at once and posts the desk's screen its resume; the switch is
        queued on that screen behind it, so it runs on the desk, after the resume's
        auto-focus (which, run last, focused the queue's list and so showed the queue
        again). A callback left on this screen would never run: its message pump closes
        with it (issue 34: the contract closed and the tab never came)."""
        app = self.app
        self.dismiss(None)
        app.screen.call_later(app.run_action, f"show_tab({tab!r})")

    def action_close(self) -> None:
        """Back to where the contract was opened from."""
        self.dismiss(None)
