"""The help screen's prose of the desk (:mod:`etki_tui.screens.help`), beside the actions
of :mod:`etki_tui.actions` (which re-exports both tables): what each context is for, and
the keys widgets handle themselves."""

from __future__ import annotations

CONTEXTS: dict[str, tuple[str, str]] = {
    "queue": (
        "Queue",
        (
            "Pending cases in queue order: the order they were loaded in "
            "(each etki init adds its new requests in the order of requests.jsonl), not "
            "by date; o sorts oldest or newest first. The engine's decision for the "
            "highlighted one is below the list (beside it from 110 columns); on a short "
            "terminal (under 30 rows) it folds to a two-line peek under the list: z "
            "unfolds or folds it, Enter reads the case full-screen and j/k step to the next or "
            "previous case there. @ before an id: another reviewer "
            "claimed it; > before an id: it is assigned to another reviewer (the detail "
            "names them). Every ruling asks "
            "to confirm; an override (a ruling other than the engine's verdict) needs a "
            "reason. The filter line above the table always says what is shown."
        ),
    ),
    "hafiza": (
        "Hafıza",
        (
            "Memory: search the decision wiki (all words must appear; "
            "İ/ı/i and accents match alike), read precedents and disputed clauses "
            "straight from the database, and read wiki pages with a table of contents "
            "and back/forward history."
        ),
    ),
    "raporlar": (
        "Raporlar",
        (
            "Reports computed from the database: verdict distribution, "
            "rulings and override rate over time, clauses with the most corrections, "
            "pending cases by age, rulings per reviewer and change-request effort per "
            "month. etki report prints the same figures as text, CSV or JSON."
        ),
    ),
    "confirm": (
        "Confirm ruling",
        (
            "Nothing is recorded until you confirm. A ruling "
            "that agrees with the engine starts on its ruling button: Enter or y "
            "rules. An override never rules by default: focus starts in the reason "
            "box, a reason is required and y does not rule."
        ),
    ),
    "bulk": (
        "Confirm rulings",
        (
            "Several marked cases, each to be ruled as the engine said (its verdict): "
            "every one is a ruling of its own, with its own audit row. Nothing is "
            "recorded until you confirm; focus starts on Cancel. A case someone else "
            "ruled meanwhile is reported and the others are still ruled."
        ),
    ),
    "filters": ("Filter and sort", "Changes apply to the queue at once."),
    "intake": (
        "New request",
        (
            "A request that reached you outside the project folder: Add triages and "
            "stores it as etki add does, and it joins the queue. Nothing is stored until "
            "Add; Escape closes the form."
        ),
    ),
    "import": (
        "Import requests",
        (
            "A file of requests as etki import reads it (CSV, JSON Lines or a GitHub "
            "export), from a path you type: each request is triaged and stored, a row "
            "that cannot be read is refused alone, and the result lists both. Nothing "
            "is read until Import; Escape closes the form."
        ),
    ),
    "crexport": (
        "Change request to send",
        (
            "The terms the document states (assumptions and exclusions, one a line, and "
            "the date the offer is valid until), recorded as etki cr edit records them "
            "(audited, in the case's history) when you changed them; the format; and "
            "whether to add the internal appendix (the engine's deliberation, not for "
            "the client). Nothing is recorded or written until Export; Escape closes."
        ),
    ),
    "resolve": (
        "Resolve a disputed clause",
        (
            "The PMO's word on a disputed clause: the ruling it calls for and why. "
            "Save records it (approvers only) and the clause reads DISPUTED-RESOLVED "
            "until a later ruling disagrees; it no longer asks for the 24h PMO look. "
            "Nothing is recorded until Save; Escape closes the form."
        ),
    ),
    "note": (
        "Note on a case",
        (
            "A note is kept with the case: its history lists it and its wiki page "
            "shows it once the case is ruled. Nothing is stored until Add; Escape "
            "closes the form."
        ),
    ),
    "estimate": (
        "Effort estimate of a case",
        (
            "The person-days the case's work will take, an optional price with its "
            "currency and the reason, as etki estimate records them: audited, in the "
            "case's history, used by the change request and the reports (the engine's "
            "range stays as it was). Nothing is stored until Save; Escape closes the form."
        ),
    ),
    "contract": (
        "Contract",
        (
            "The whole contract as stored with the project, every clause in order (not "
            "only the cited ones), opened scrolled to the clause asked for; the clause "
            "it was opened at is framed. Read-only; Escape goes back to where it was "
            "opened from, a tab key closes it and shows that tab, q quits the desk as "
            "on the tabs."
        ),
    ),
    "app": (
        "Everywhere",
        (
            "These keys work on every tab; while a text box has the focus (search, find, "
            "a reason) a letter or digit is typed into it: Escape leaves the box first. "
            "Routine confirmations appear on the status line over the footer (L lists "
            "every message in full); a toast is kept for what needs attention."
        ),
    ),
}
"""Context id -> (help section title, one paragraph of what the screen is for)."""

SHARED_KEYS: dict[str, tuple[str, ...]] = {
    "contract": ("tab.queue", "tab.hafiza", "tab.raporlar", "leave"),
}
"""Context id -> ids of actions of the whole desk (context ``app``) that also work on
that screen, though it is modal: its bindings carry them (Textual's modal screen hides
the app's own bindings), its footer shows them and its help lists them. The contract
screen is a page of the desk, not a dialog (issue 34: 1/2/q did nothing on it while the
desk's footer promised q Quit)."""

# Not actions: keys that widgets handle themselves, listed in help for completeness.
WIDGET_KEYS: dict[str, tuple[tuple[str, str], ...]] = {
    "queue": (("↑ ↓ PgUp PgDn", "Move between cases"),),
    "hafiza": (
        ("Tab", "Search box → list → reader"),
        ("↑ ↓", "Move in the list"),
        ("Enter (search)", "Search now and go to the results"),
    ),
    "confirm": (
        ("Tab / Shift+Tab", "Next / previous field"),
        (
            "Enter",
            (
                "Press the focused button (Enter in the reason box goes to "
                "the ruling button, it never rules by itself)"
            ),
        ),
    ),
    "bulk": (
        ("Tab / Shift+Tab", "Cancel ↔ the ruling button"),
        ("Enter", "Press the focused button (Cancel first)"),
    ),
    "resolve": (
        ("↑ ↓", "Choose the ruling"),
        ("Tab / Shift+Tab", "Next / previous field"),
        ("Enter", "In the reason box or on Save: save it"),
    ),
    "intake": (
        ("Tab / Shift+Tab", "Next / previous field (Tab leaves the text box too)"),
        ("Enter", "In the title: to the text; in the submitter box or on Add: add it"),
    ),
    "import": (("Enter", "In the path or on Import: read the file"),),
    "crexport": (
        ("Tab / Shift+Tab", "Next / previous field (Tab leaves a text box too)"),
        ("← → / Space", "On the formats: choose one; on the appendix: toggle it"),
        ("Enter", "In the valid-until or file box, or on Export: record and write"),
    ),
    "estimate": (
        ("Tab / Shift+Tab", "Next / previous field"),
        ("Enter", "In days or price: the next field; in the reason or on Save: store it"),
    ),
    "contract": (("↑ ↓ PgUp PgDn Home End", "Scroll the contract"),),
    "filters": (
        ("↑ ↓ / Tab", "Move between rows"),
        ("← → / Space", "Change the value"),
        ("Enter", "Close"),
    ),
}
