"""The queue's actions (:class:`~etki_tui.actiondef.ActionDef`), in the order the help
lists them: the rulings, marks and bulk rulings, reading, claims, assignment and picks,
filters and exports. Joined with the others in :mod:`etki_tui.actions`."""

from __future__ import annotations

from etki.domain.crterms import CR_FORMATS
from etki_tui.actiondef import ActionDef

QUEUE_ACTIONS: tuple[ActionDef, ...] = (
    ActionDef(
        "approve",
        "a",
        "approve",
        "Approve",
        "Rule the highlighted case IN_SCOPE (asks to confirm)",
        "Approve the highlighted case: the ruling becomes IN_SCOPE. A confirmation "
        "opens first; a reason is required when this overrides the verdict.",
        context="queue",
        opens=True,
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
        opens=True,
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
        opens=True,
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
        opens=True,
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
        opens=True,
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
        opens=True,
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
        "still reads the highlighted case full-screen. Unfolded under the list "
        "on a short terminal the detail leaves the list 3 rows (at 80x24), and the "
        "footer then says z List: z gives the list its rows back.",
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
        "4.4.1, never 4.40 or 14.4); look:overdue keeps the cases whose 24h PMO look "
        "is overdue (marked !24h in the Look column), module:ID and by:NAME pick by "
        "module and submitter. Enter keeps the filter, Escape clears it.",
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
        opens=True,
    ),
    ActionDef(
        "import",
        "i",
        "app.import_requests",
        "Import…",
        "Import a file of requests (.csv, .jsonl, .json): each triaged and stored",
        "Import a file of requests from a path you type (~ is your home folder), as "
        "etki import does: CSV with a comma, semicolon or tab, in UTF-8, cp1254 or "
        "cp1252; JSON Lines; a GitHub issues export. Each request is triaged and "
        "stored; a row that cannot be read is refused alone. The result lists the new "
        "cases with their verdicts and each refused row with its line and why.",
        context="queue",
        show=False,
        opens=True,
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
        opens=True,
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
        opens=True,
    ),
    ActionDef(
        "clauses.whole",
        "w",
        "toggle_whole_clauses",
        "Whole clauses",
        "Show the cited clauses whole, or folded to the part around the quoted sentences",
        "The detail pane folds a long cited clause to the paragraph around the "
        "sentences its evidence quotes (marked); w shows every cited clause whole, "
        "w again folds them.",
        context="queue",
        show=False,
    ),
    ActionDef(
        "clause.open",
        "l",
        "open_clause",
        "Clause",
        "Read a cited clause in the whole contract, scrolled to it",
        "List the clauses the highlighted case cites and quotes (the deciding one "
        "first); Enter opens the whole contract from the store, every clause in order, "
        "scrolled to the chosen one.",
        context="queue",
        show=False,
        opens=True,
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
        f"`etki cr export CASE --format {'|'.join(CR_FORMATS)}` writes it for sending.",
        context="queue",
        show=False,
    ),
    ActionDef(
        "cr_export",
        "X",
        "cr_export",
        "Export CR…",
        "Write the client-facing change request of a case ruled CR (.docx, .html or .md)",
        "Write the change request to send of the highlighted case ruled CR (else the "
        "one this desk converted last): the request, the reviewer's reason, the cited "
        "clauses, effort and price, the PMO's terms and an approval block, without "
        "the engine's deliberation. The name's ending picks Word, HTML or Markdown.",
        context="queue",
        show=False,
        opens=True,
    ),
    ActionDef(
        "estimate",
        "E",
        "estimate",
        "Estimate…",
        "Record your effort estimate of the highlighted case (days, price, reason)",
        "Record an effort estimate of the highlighted case, as `etki estimate` does: "
        "person-days, an optional price with its currency (12500 EUR) and a reason. "
        "Audited and in the case's history; the change request and the reports use it.",
        context="queue",
        show=False,
        opens=True,
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
        opens=True,
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
        opens=True,
    ),
    # the queue's assignment, mine filter and saved views (issue 35 item 5)
    ActionDef(
        "assign",
        "T",
        "app.assign_case",
        "Assign…",
        "Assign the highlighted case to one of the project's approvers (or end it)",
        "Assign the highlighted case to an approver of the project (etki.yaml), picked from a list: it becomes theirs (M, etki queue --mine) until it is ruled or handed on; the case's history says who assigned it to whom.",
        context="queue",
        show=False,
    ),
    ActionDef(
        "filter.mine",
        "M",
        "app.toggle_mine",
        "Mine",
        "Show only my cases: claimed by me or assigned to me (toggle)",
        "Toggle the mine filter: only the cases you claimed (x) or that were assigned to you (T). In the find box, module:ID and by:NAME pick by impacted module and by submitter (by:ayse finds Ayşe), look:overdue the cases whose 24h PMO look is overdue (look:24h: every look asked).",
        context="queue",
        show=False,
    ),
    ActionDef(
        "views",
        "V",
        "app.saved_views",
        "Views…",
        "Saved views: recall one, or save the current filter under a name",
        "List the saved queue views (the config file's views: section, beside the keymap): Enter recalls one, Delete removes it; type a name in the box at the top to save the current filter and sort.",
        context="queue",
        show=False,
        opens=True,
    ),
)
