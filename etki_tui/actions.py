"""Every user-facing action of the desk, defined once.

An :class:`ActionDef` carries everything the key binding, the footer, the help screen and
the command palette need: a stable ``id`` (the binding id; a ``keymap:`` section in the
config file remaps by it through ``App.set_keymap``), the default key(s), the Textual
action string, a short footer label, a tooltip and a help sentence, and the *context*
(the screen or pane whose help lists it and whose widget runs it from the palette).

Widgets take their ``BINDINGS`` from :func:`bindings`; nothing else declares a key. The
help screen (:mod:`etki_tui.screens.help`) and the palette provider
(:mod:`etki_tui.providers`) read the same table, with the keys the keymap gave them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from textual.binding import Binding, BindingType

from etki_tui.helptext import CONTEXTS as CONTEXTS
from etki_tui.helptext import WIDGET_KEYS as WIDGET_KEYS

FORBIDDEN_KEYS: frozenset[str] = frozenset(
    {
        "ctrl+s",
        "ctrl+j",
        "ctrl+h",
        "ctrl+m",
        "ctrl+i",
        "ctrl+enter",
    }
)
"""Keys a main verb is never bound to: over SSH and in many terminals Ctrl+S is XOFF
(freezes output), Ctrl+J/Ctrl+M are Enter, Ctrl+H is Backspace, Ctrl+I is Tab and
Ctrl+Enter is not sent at all. The keymap refuses them too."""


@dataclass(frozen=True)
class ActionDef:
    """One action.

    ``id``: binding id and keymap name. ``key``: default key(s), comma-separated.
    ``action``: Textual action string, run in the namespace of the widget that binds it
    (``context`` names it). ``label``: footer text. ``tooltip``: footer tooltip and
    palette help. ``help``: the help screen sentence. ``palette``: offered in the command
    palette. ``show``: shown in the footer. ``priority``: run when the app receives the
    key, before the keys typed after it are handed to the focused widget — for keys that
    move the cursor into a text box (``/``), so the letters typed right after land in it;
    such an action's ``check_action`` refuses it while a text box has the focus (the
    box then gets the key as a character)."""

    id: str
    key: str
    action: str
    label: str
    tooltip: str
    help: str
    context: str = "app"
    show: bool = True
    key_display: str | None = None
    group: Binding.Group | None = None
    priority: bool = False
    palette: bool = True

    def binding(self) -> Binding:
        """The Textual binding for this action."""
        return Binding(
            self.key,
            self.action,
            self.label,
            show=self.show,
            key_display=self.key_display,
            tooltip=self.tooltip,
            id=self.id,
            group=self.group,
            priority=self.priority,
        )

    def keys(self, keymap: Mapping[str, str] | None = None) -> list[str]:
        """The keys this action is bound to, after ``keymap``."""
        raw = (keymap or {}).get(self.id) or self.key
        return [k.strip() for k in raw.split(",") if k.strip()]


_TABS = Binding.Group("Tabs")


ACTIONS: dict[str, ActionDef] = {
    a.id: a
    for a in (
        # --- queue ---------------------------------------------------------------------------
        ActionDef(
            "approve",
            "a",
            "approve",
            "Approve",
            "Rule the highlighted case IN_SCOPE (asks to confirm)",
            "Approve the highlighted case: the ruling becomes IN_SCOPE. A confirmation "
            "opens first; a reason is required when this overrides the verdict.",
            context="queue",
        ),
        ActionDef(
            "convert",
            "c",
            "convert",
            "Convert to CR",
            "Rule the highlighted case a CHANGE_REQUEST (asks to confirm)",
            "Convert the highlighted case to a change request (CHANGE_REQUEST). A "
            "confirmation opens first; a reason is required on an override.",
            context="queue",
        ),
        ActionDef(
            "reject",
            "r",
            "reject",
            "Reject",
            "Rule the highlighted case REJECT (asks to confirm)",
            "Reject the highlighted case (REJECT). A confirmation opens first; a "
            "reason is required on an override.",
            context="queue",
        ),
        ActionDef(
            "mark",
            "space",
            "toggle_mark",
            "Mark",
            "Mark or unmark the highlighted case for a bulk ruling (then the next case)",
            "Mark the highlighted case (or unmark it) and move to the next one: marked "
            "rows show * before their id and the filter line counts them. B then rules "
            "every marked case the engine is sure of as it said, after one confirmation.",
            context="queue",
            key_display="Space",
            show=False,
        ),
        ActionDef(
            "bulk_approve",
            "B",
            "bulk_approve",
            "Rule marked",
            "Rule every marked case the engine is sure of as it said (one confirmation)",
            "Rule every marked case the engine is sure of as its engine verdict (approve "
            "an IN_SCOPE, convert a CHANGE_REQUEST, reject a REJECT) after one "
            "confirmation listing them; each is its own ruling and audit row. A marked "
            "case the engine is not sure of (? after its confidence) is never ruled in "
            "bulk: it stays marked for a careful look. Overrides are never made in bulk: "
            "they need a reason each (a, c or r on the case).",
            context="queue",
            show=False,
        ),
        ActionDef(
            "amend",
            "A",
            "amend",
            "Amend",
            "Amend a ruling: pick a ruled case, then its new ruling (a reason is required)",
            "Amend a ruling (approvers): on a case ruled elsewhere it amends that one, "
            "else it lists the project's ruled cases, newest ruling first; pick one, then "
            "its new ruling. The confirmation needs a reason; the earlier ruling stays in "
            "the case's history and the audit.",
            context="queue",
            show=False,
        ),
        ActionDef(
            "note",
            "m",
            "note",
            "Note",
            "Add a note to the highlighted case (its history and wiki page)",
            "Add a note to the highlighted case: one line, kept in the case's history "
            "and shown on its wiki page once it is ruled.",
            context="queue",
            show=False,
        ),
        ActionDef(
            "claim",
            "x",
            "claim",
            "Claim",
            "Claim the highlighted case for 30 minutes, or release your claim (toggle)",
            'Claim the highlighted case: the other reviewers see "claimed by" you in '
            "their queue for 30 minutes, so two people do not work on one case; x again "
            "releases it. Someone else's live claim is shown in the title column.",
            context="queue",
            show=False,
        ),
        ActionDef(
            "read",
            "enter",
            "read",
            "Read",
            "Show the highlighted case full-screen (Escape returns)",
            "Read the case detail full-screen; Escape (or Enter) returns to the queue. "
            "The ruling keys work there too.",
            context="queue",
            key_display="⏎",
            show=False,
        ),
        ActionDef(
            "detail.toggle",
            "z",
            "toggle_detail",
            "Detail",
            "Fold or unfold the case detail (more rows for the queue)",
            "Fold the case detail to a two-line peek under the list, so the queue has the "
            "height (15 rows at 80x24; the default under 30 rows), or unfold it; beside "
            "the list (from 110 columns) folding it gives the list the whole width. Enter "
            "still reads the highlighted case full-screen.",
            context="queue",
        ),
        ActionDef(
            "find",
            "slash",
            "find",
            "Find",
            "Filter the queue as you type (id, title, text, clause number)",
            "Filter the queue live: every word must appear in the case id, title, "
            "submitter or request text; a clause number (4.4, 3.1.2, MSA#4.4, #4) keeps "
            "the cases citing that clause or one of its sub-clauses (4.4 also finds "
            "4.4.1, never 4.40 or 14.4). Enter keeps the filter, Escape clears it.",
            context="queue",
            key_display="/",
            priority=True,
        ),
        ActionDef(
            "new_request",
            "n",
            "new_request",
            "New",
            "Add a new request: triaged and stored, then in the queue",
            "Open the new-request form (title, the client's text, who sent it); Add "
            "triages and stores it as etki add does and the case joins the queue.",
            context="queue",
            show=False,
        ),
        ActionDef(
            "preanalyse",
            "p",
            "preanalyse",
            "Pre-analyse",
            "Ask the chat model (ETKI_LLM_*) for a new developer pre-analysis of this case",
            "Ask the configured chat model for a new developer pre-analysis of the "
            "highlighted case (affected modules, approach, open questions, effort, each "
            "claim naming its context node); it is saved and shown below, never an input "
            "to the verdict. Without ETKI_LLM_BASE_URL and ETKI_LLM_MODEL nothing is asked.",
            context="queue",
            show=False,
        ),
        ActionDef(
            "filters",
            "f",
            "filters",
            "Filter",
            "Filter and sort: verdict, risk, disputed, confidence, sureness, age",
            "Open the filter and sort panel: verdict, risk, disputed clauses only, "
            "confidence band, sureness (engine sure / needs a careful look), age and "
            "sort order.",
            context="queue",
        ),
        ActionDef(
            "filter.verdict",
            "v",
            "cycle_verdict",
            "Verdict",
            "Show only one verdict (cycles all → IN_SCOPE → CR → REJECT)",
            "Cycle the verdict filter: all, IN_SCOPE, CHANGE_REQUEST, REJECT.",
            context="queue",
            show=False,
        ),
        ActionDef(
            "filter.disputed",
            "d",
            "toggle_disputed",
            "Disputed only",
            "Show only cases citing a disputed clause (toggle)",
            "Toggle disputed-only: show only cases that cite a clause whose past rulings disagree.",
            context="queue",
            show=False,
        ),
        ActionDef(
            "sort",
            "o",
            "cycle_sort",
            "Sort",
            "Change the sort order (queue, oldest, newest, confidence, risk, sureness)",
            "Cycle the sort order: queue order, oldest first, newest first, lowest "
            "confidence first, highest risk first, needs a careful look first, engine "
            "sure first.",
            context="queue",
            show=False,
        ),
        ActionDef(
            "similar",
            "s",
            "similar",
            "Similar rulings",
            "Open a ruled case that reads like this one (the ≈ line of clause memory)",
            "List the ruled cases whose requests read like the highlighted one (the ≈ "
            "line of the clause-memory strip: beside the verdict, never part of it); "
            "Enter opens the chosen case's decision page in Hafıza.",
            context="queue",
            show=False,
        ),
        ActionDef(
            "cr_document",
            "D",
            "cr_document",
            "CR document",
            "Open the change-request document of a case ruled CR in the reader",
            "Open the draft change request (change-requests/CR-….md) of the highlighted "
            "case, when its ruling is CHANGE_REQUEST, in Hafıza's reader; on any other "
            "case the one this desk converted last (c takes a case out of the queue). "
            "`etki cr export CASE --format md|html` writes it for sending.",
            context="queue",
            show=False,
        ),
        ActionDef(
            "queue.down",
            "j",
            "cursor_down",
            "Down",
            "Next case (like ↓; in the full-screen read too)",
            "Move to the next case (like ↓); in the full-screen read (Enter) it shows the "
            "next case there, so Escape, j, Enter is not needed.",
            context="queue",
            show=False,
            palette=False,
        ),
        ActionDef(
            "queue.up",
            "k",
            "cursor_up",
            "Up",
            "Previous case (like ↑; in the full-screen read too)",
            "Move to the previous case (like ↑), in the full-screen read too.",
            context="queue",
            show=False,
            palette=False,
        ),
        ActionDef(
            "queue.first",
            "home,g",
            "first_case",
            "First",
            "First case of the queue",
            "Go to the first case of the queue.",
            context="queue",
            show=False,
            palette=False,
            key_display="Home",
        ),
        ActionDef(
            "queue.last",
            "end,G",
            "last_case",
            "Last",
            "Last case of the queue",
            "Go to the last case of the queue.",
            context="queue",
            show=False,
            palette=False,
            key_display="End",
        ),
        ActionDef(
            "filter.clear",
            "escape",
            "clear_filters",
            "Clear filters",
            "Show every pending case again",
            "Clear every filter (the sort stays).",
            context="queue",
            show=False,
            key_display="Esc",
        ),
        ActionDef(
            "dispute.resolve_case",
            "R",
            "resolve_dispute",
            "Resolve",
            "Record the PMO's resolution of a disputed clause the highlighted case cites",
            "When the detail pane's strip shows a disputed clause (resolved or not): "
            "record the PMO's resolution of it (the first one the case cites), as R on "
            "its card in Hafıza does. Approvers only; a read-only desk refuses.",
            context="queue",
            show=False,
        ),
        ActionDef(
            "export.queue",
            "e",
            "app.export_queue",
            "Export queue…",
            "Export the cases listed now (with the filters and order) to a .xlsx or .csv file",
            "Write the cases listed now (filters, order) to a file; .xlsx or .csv picks the format.",
            context="queue",
            show=False,
        ),
        # --- Hafıza ---------------------------------------------------------------------------
        ActionDef(
            "page.open",
            "enter",
            "open_entry",
            "Open",
            "Open the highlighted entry in the reader (full-screen)",
            "Open the highlighted page (or a precedent's page) in the reader, "
            "full-screen with its table of contents; Escape returns to the list.",
            context="hafiza",
            key_display="⏎",
        ),
        ActionDef(
            "page.back",
            "b",
            "page_back",
            "Back",
            "Previous page in the reader's history",
            "Go back to the previous page you read.",
            context="hafiza",
        ),
        ActionDef(
            "page.forward",
            "F",
            "page_forward",
            "Next",
            "Next page in the reader's history",
            "Go forward again in the reader's history.",
            context="hafiza",
        ),
        ActionDef(
            "page.toc",
            "t",
            "toggle_toc",
            "Contents",
            "Show or hide the table of contents",
            "Show or hide the page's table of contents.",
            context="hafiza",
        ),
        ActionDef(
            "page.links",
            "l",
            "page_links",
            "Links",
            "Follow a link of the page from the keyboard",
            "List the links of the page shown; Enter follows one (inside the wiki only).",
            context="hafiza",
        ),
        ActionDef(
            "page.cr_document",
            "D",
            "cr_document",
            "CR document",
            "Open the change request of the case whose decision page is shown",
            "On a decision page (or the entry) of a case ruled CR: open its change "
            "request (change-requests/CR-….md) in the reader; elsewhere the change "
            "request this desk converted last, if any.",
            context="hafiza",
            show=False,
        ),
        ActionDef(
            "dispute.resolve",
            "R",
            "resolve_dispute",
            "Resolve",
            "Record the PMO's resolution of the highlighted disputed clause",
            "On a disputed clause's card: record the PMO's resolution (the ruling the "
            "clause calls for and why); the card, disputed.md and the detail pane show "
            "it. Approvers only; a read-only desk refuses.",
            context="hafiza",
            show=False,  # the disputed card says so; the footer keeps its room
        ),
        ActionDef(
            "export.report",
            "e",
            "app.export_report",
            "Export report…",
            "Export the report shown to a .xlsx (a sheet per report) or .csv file",
            "Write every report to a file: .xlsx (a sheet each) or .csv (a section each).",
            context="raporlar",
        ),
        # --- everywhere -----------------------------------------------------------------------
        ActionDef(
            "tab.queue",
            "1",
            "show_tab('queue')",
            "Queue",
            "Show the review queue",
            "Switch to the Queue tab.",
            group=_TABS,
            show=False,
        ),
        ActionDef(
            "tab.hafiza",
            "2",
            "show_tab('hafiza')",
            "Hafıza",
            "Show Hafıza: wiki search, precedents, disputed clauses, pages",
            "Switch to the Hafıza (memory) tab.",
            group=_TABS,
            show=False,
        ),
        ActionDef(
            "tab.raporlar",
            "3",
            "show_tab('raporlar')",
            "Raporlar",
            "Show Raporlar: charts from the database",
            "Switch to the Raporlar (reports) tab.",
            group=_TABS,
            show=False,
        ),
        ActionDef(
            "search",
            "slash",
            "focus_search",
            "Search",
            "Search the wiki",
            "On the Hafıza and Raporlar tabs: put the cursor in Hafıza's search box. "
            "On the Queue tab the same key is Find (filter the queue).",
            key_display="/",
            priority=True,
        ),
        ActionDef(
            "copy",
            "y",
            "copy",
            "Copy",
            "Copy the case id or page path to the clipboard (OSC 52, works over SSH)",
            "Copy the highlighted case id (Queue) or the page path / case id shown "
            "(Hafıza) to your clipboard with OSC 52, which also works over SSH when "
            "the terminal allows it.",
            show=False,
        ),
        ActionDef(
            "messages",
            "M",
            "app.messages",
            "Messages",
            "Every message of this session in full (the status line shows one line)",
            "List every message of this session, newest first, each in full: the status "
            "line at the bottom shows routine confirmations on one line (cut with … when "
            "long) and toasts are kept for what needs attention.",
            show=False,
        ),
        ActionDef(
            "reload",
            "ctrl+r",
            "reload",
            "Reload",
            "Triage new requests.jsonl rows, reload from the database",
            "Triage the rows added to the project folder's requests.jsonl, then reload "
            "everything from the database (the queue also refreshes by itself every few "
            "seconds).",
            show=False,
        ),
        ActionDef(
            "help",
            "question_mark,f1",
            "app.help",
            "Help",
            "Keys and what they do on this screen",
            "Open this help.",
            key_display="?",
        ),
        ActionDef(
            "palette",
            "ctrl+p",
            "app.command_palette",
            "Palette",
            "Jump to a case, run any action, switch project",
            "Open the command palette: jump to a case by id or title words, run any "
            "action, switch project.",
            priority=True,
            palette=False,
            show=False,
        ),
        ActionDef(
            "quit",
            "ctrl+q",
            "app.quit",
            "Quit",
            "Leave the desk",
            "Quit the desk (rulings are already saved).",
            priority=True,
            show=False,
        ),
        # --- modals ---------------------------------------------------------------------------
        ActionDef(
            "intake.cancel",
            "escape",
            "cancel",
            "Cancel",
            "Close the form; nothing is stored",
            "Close the new-request form; nothing is stored.",
            context="intake",
            palette=False,
            key_display="Esc",
        ),
        ActionDef(
            "resolve.cancel",
            "escape",
            "cancel",
            "Cancel",
            "Close the form; nothing is recorded",
            "Close the resolution form; nothing is recorded.",
            context="resolve",
            palette=False,
            key_display="Esc",
        ),
        ActionDef(
            "note.cancel",
            "escape",
            "cancel",
            "Cancel",
            "Close the form; nothing is stored",
            "Close the note form; nothing is stored.",
            context="note",
            palette=False,
            key_display="Esc",
        ),
        ActionDef(
            "modal.cancel",
            "escape",
            "cancel",
            "Cancel",
            "Close without ruling",
            "Close the confirmation; nothing is recorded.",
            context="confirm",
            palette=False,
            key_display="Esc",
        ),
        ActionDef(
            "modal.confirm",
            "y",
            "confirm",
            "Confirm",
            "Rule now (only a ruling that agrees with the engine)",
            "Record a ruling that agrees with the engine's verdict in one key (outside "
            "the reason box). On an override it does nothing but say that a reason and "
            "the ruling button are needed.",
            context="confirm",
            palette=False,
            show=False,
        ),
        ActionDef(
            "bulk.cancel",
            "escape",
            "cancel",
            "Cancel",
            "Close without ruling",
            "Close the confirmation; nothing is recorded.",
            context="bulk",
            palette=False,
            key_display="Esc",
        ),
        ActionDef(
            "bulk.confirm",
            "y",
            "confirm",
            "Rule all",
            "Rule every listed case as the engine said",
            "Rule every listed case as its engine verdict (also the ruling button).",
            context="bulk",
            palette=False,
        ),
        ActionDef(
            "filters.reset",
            "x",
            "reset",
            "Reset",
            "Clear every filter",
            "Clear every filter (the sort stays).",
            context="filters",
            palette=False,
        ),
        ActionDef(
            "filters.close",
            "escape",
            "close",
            "Close",
            "Close the panel",
            "Close the panel; the filters stay.",
            context="filters",
            palette=False,
            key_display="Esc",
        ),
        ActionDef(
            "help.close",
            "escape,q",
            "close",
            "Close",
            "Close the help",
            "Close the help.",
            context="help",
            palette=False,
            key_display="Esc",
        ),
        ActionDef(
            "notice.close",
            "escape,enter",
            "close",
            "OK",
            "Close this message",
            "Close this message.",
            context="notice",
            palette=False,
            key_display="Esc",
        ),
    )
}


_KEY_NAMES = {
    "enter": "Enter",
    "escape": "Esc",
    "slash": "/",
    "question_mark": "?",
    "space": "Space",
    "tab": "Tab",
    "backspace": "Backspace",
    "delete": "Del",
    "left": "←",
    "right": "→",
    "up": "↑",
    "down": "↓",
    "home": "Home",
    "end": "End",
}


def key_label(key: str) -> str:
    """A key as people write it: ``ctrl+r`` -> ``Ctrl+R``, ``slash`` -> ``/``,
    ``f1`` -> ``F1``, ``a`` -> ``a``."""
    *mods, name = key.strip().split("+")
    name = _KEY_NAMES.get(name, name.upper() if len(name) > 1 or mods else name)
    return "+".join([*(m.capitalize() for m in mods), name])


def keys_label(action: ActionDef, keymap: Mapping[str, str] | None = None) -> str:
    """All keys of ``action`` after ``keymap``, e.g. ``? / F1``."""
    return " / ".join(key_label(k) for k in action.keys(keymap))


def bindings(*ids: str) -> list[BindingType]:
    """The bindings for ``ids``, in that order: each a :class:`Binding`, the list typed as
    Textual types a class's ``BINDINGS``."""
    return [ACTIONS[i].binding() for i in ids]


def in_context(context: str) -> list[ActionDef]:
    """The actions of one context, in definition order."""
    return [a for a in ACTIONS.values() if a.context == context]


def forbidden(keys: Iterable[str]) -> list[str]:
    """The keys of ``keys`` that no action may use (see :data:`FORBIDDEN_KEYS`)."""
    return [k for k in keys if k.strip().lower() in FORBIDDEN_KEYS]


TAB_CONTEXTS = ("queue", "hafiza", "raporlar")
"""The tab contexts: each one's keys work together with the ``app`` context's."""


def _scope(context: str) -> frozenset[str]:
    """The contexts whose keys are live together with ``context``'s."""
    if context == "app":
        return frozenset((*TAB_CONTEXTS, "app"))
    if context in TAB_CONTEXTS:
        return frozenset((context, "app"))
    return frozenset((context,))


def _clashing(keymap: Mapping[str, str] | None) -> set[tuple[str, str, str]]:
    pairs: set[tuple[str, str, str]] = set()
    for a in ACTIONS.values():
        keys_a = {k.lower() if len(k) > 1 else k for k in a.keys(keymap)}
        for b in ACTIONS.values():
            if b.id <= a.id or b.context not in _scope(a.context):
                continue
            keys_b = {k.lower() if len(k) > 1 else k for k in b.keys(keymap)}
            for key in keys_a & keys_b:
                pairs.add((key, a.id, b.id))
    return pairs


def keymap_clashes(keymap: Mapping[str, str]) -> list[tuple[str, str, str]]:
    """The keys ``keymap`` binds to an action that another action live at the same time
    (same tab or dialog, or everywhere) already uses: ``(key, remapped id, other id)``
    tuples, sorted. A key two actions share by default (``/``: the queue's find and
    the wiki search, one per tab) is not a clash of the keymap's making."""
    default = _clashing(None)
    out: list[tuple[str, str, str]] = []
    for key, a, b in sorted(_clashing(keymap) - default):
        if a in keymap:
            out.append((key, a, b))
        elif b in keymap:
            out.append((key, b, a))
    return out
