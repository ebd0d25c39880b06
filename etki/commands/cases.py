"""``etki init | add | import | queue | rule | note | claim | assign | show | triage |
projects``:
the cases of a project.

    etki init PROJECT_DIR [--no-context] [--update-reviewers] [--no-preanalysis]
                                               load, index, triage every new request
    etki add --project ID [--title T] [--submitted-by NAME] [--no-preanalysis] TEXT|-
                                               triage and store one new request
                                               (``-``: the text from stdin)
    etki import --project ID FILE [--format jsonl|csv|github] [--no-preanalysis]
                                               triage and store a file of requests
                                               (new request ids only; README "Intake")

With ``ETKI_LLM_BASE_URL``/``ETKI_LLM_MODEL`` set, ``init``, ``add`` and ``import`` ask
the model for a developer pre-analysis of each new case once the cases are stored
(:func:`etki.services.preanalyse_cases`: best-effort, never failing the intake; a run
stops asking once the endpoint refuses, times out or fails three times in a row, and
says how many were not asked); ``--no-preanalysis`` skips it.
    etki queue [--project ID] [--all] [--json] the pending cases (all with --all)
    etki queue ... --output FILE [--format csv|xlsx]  the listed cases into a file
    etki queue ... --format csv                 the listed cases as CSV on stdout
    etki queue ... [--mine] [--module ID] [--submitter NAME] [--sure|--unsure]
                                               only my cases (claimed by or assigned to
                                               me), by impacted module, by submitter
                                               (ayse finds Ayşe), by the engine's sureness
    etki queue ... --overdue                   only pending cases whose 24h PMO look is
                                               overdue (etki report's overdue_looks)
    etki rule CASE_ID approve|cr|reject [--reason TEXT] [--amend] [--expected-version N]
                                               rule (--amend: change a ruling)
    etki note CASE_ID TEXT|-                   add a note (history, wiki page)
    etki claim CASE_ID [--minutes N] [--release]
                                               mark a case as being looked at by you
    etki assign CASE_ID --to NAME | --clear    hand a case to an approver (audited;
                                               theirs in `etki queue --mine`)
    etki show CASE_ID [--json]                 a case, its ruling and its whole history
                                               (imported, triaged, viewed, ruled, amended,
                                               refused attempts, erased)
    etki triage --project ID TEXT [--json]     triage a text without storing it
                                               (with similar rulings and memory verdict)
    etki projects                              the stored projects

Every handler opens the store through :meth:`etki.services.Desk.open`: read-only for
:data:`READ_ONLY_COMMANDS`, created by ``init``, an existing one for ``rule``. Exit codes
and output as described in :mod:`etki.cli`.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from etki.commands import READ_ONLY_COMMANDS  # re-exported (etki.cli reads it there)
from etki.commands.queuefile import delimiter_option, force_option, pick_options
from etki.commands.verdicts import rule_action_of
from etki.console import echo, echo_lines, emit_json
from etki.errors import InputError
from etki.text import plural, printable

if TYPE_CHECKING:
    from etki.config import Settings
    from etki.domain import (
        CaseEvent,
        Decision,
        ReviewerEstimate,
    )
    from etki.domain.caseview import CaseView
    from etki.services import Desk

__all__ = ["READ_ONLY_COMMANDS", "RULE_ACTIONS", "register"]

RULE_ACTIONS = {"approve": "approve", "cr": "convert_to_cr", "reject": "reject"}


def _desk(args: argparse.Namespace, settings: Settings) -> Desk:
    """The desk of a case command, its ``case_id`` argument, when it is the short id the
    desk's queue shows (``9f639c5f``), made the whole id (:meth:`Desk.case_id_for`)."""
    from etki.services import Desk

    desk = Desk.open(
        settings, read_only=args.command in READ_ONLY_COMMANDS, create=args.command == "init"
    )
    if isinstance(getattr(args, "case_id", None), str):
        args.case_id = desk.case_id_for(args.case_id)
    return desk


def _one_line(text: str, width: int) -> str:
    text = printable(text, multiline=False)
    return text if len(text) <= width else text[: width - 1] + "…"


def _print_decision(
    d: Decision, now: dict[str, Any] | None = None, estimate: ReviewerEstimate | None = None
) -> None:
    """The decision's lines of ``etki add``/``triage``/``show``. ``now``: the case's
    ``now`` of :func:`etki.services.views.case_view` (``etki show``): its risk line is
    then the risk the queue shows (:func:`etki.memory.current_risk`, the one function
    both read), with the level at triage beside it when a clause disputed since raised
    it; without ``now`` the decision's own risk (a fresh triage: the two are one).
    ``estimate``: the reviewer's estimate in force (``etki show``; issue 35 trial: it
    was invisible behind "effort unknown"): the effort line states it (days, price, who,
    when; its reason on the next line) with the engine's frozen range beside it as the
    "engine estimate", and the engine's "Effort is unknown" assumption is marked as
    answered by it."""
    from etki.domain import memory_sentence, sureness_line

    lines = [
        f"verdict     {d.verdict}  (confidence {d.confidence:.2f})",
        f"sureness    {sureness_line(d)}",
        f"clauses     {', '.join(d.cited_clauses) or '-'}",
        f"modules     {', '.join(d.impacted_modules) or '-'}",
    ]
    if estimate is None:
        lines.append(f"effort      {d.effort.shown()}")
    else:
        lines += [
            f"effort      {printable(estimate.in_force(), multiline=False)}",
            f"            engine estimate: {d.effort.shown()}",
            f"            reason: {printable(estimate.reason, multiline=False)}",
        ]
    level, look, signals, raised = d.risk.level, d.risk.pmo_look_24h, d.risk.signals, ""
    if now and now["risk_raised_by"]:  # a trial: show said "risk low", the queue HIGH
        level, look, signals = now["risk"], now["pmo_look_24h"], tuple(now["risk_signals"])
        raised = (
            f"  (raised now: {', '.join(now['risk_raised_by'])} disputed; {d.risk.level} at triage)"
        )
    look_words = "  24h PMO look" if look else ""
    lines.append(f"risk        {level}{look_words}  {', '.join(signals)}".rstrip() + raised)
    echo_lines(lines)
    echo(f"reasoning   {d.reasoning}")
    for a in d.assumptions:
        if estimate is not None and not d.effort.known and a.startswith("Effort is unknown"):
            a += " (the engine's, at triage; the reviewer's estimate above is in force)"
        echo(f"assumes     {a}")
    if d.similar_rulings:
        memory = memory_sentence(d.similar_rulings, d.memory_verdict)
        echo(f"memory      {memory} (beside the verdict, not part of it)", multiline=False)
        echo_lines(
            f"  similar   {s.case_id}  {s.ruling}  {s.similarity:.4f}" for s in d.similar_rulings
        )


def _print_evidence(d: Decision) -> None:
    """The engine's evidence chain, one ``why`` line per step in the order it ran
    (``normalise``, ``score_clauses``, …, ``risk``): its sentence, which names the
    scores that decided (``--json`` has every score)."""
    for number, step in enumerate(d.evidence, 1):
        echo(f"why {number:<2}      {step.step}: {step.detail}", multiline=False)


def _init(args: argparse.Namespace, settings: Settings) -> int:
    desk = _desk(args, settings)
    summary = desk.init_project(
        args.project_dir,
        related_context=args.context,
        update_reviewers=args.update_reviewers,
        preanalyse=args.preanalyse,
    )
    echo_lines(summary.lines())
    if settings.embed_backend:
        _embed_nodes(desk, summary.project_id, settings)
    for message in summary.refused:  # the other rows are stored
        echo(f"etki: error: {message}", file=sys.stderr, multiline=False)
    return 2 if summary.refused else 0


def _embed_nodes(desk: Desk, project_id: str, settings: Settings) -> None:
    """With ``ETKI_EMBED`` set, embed the project's graph nodes into its vector cache
    now (``Desk.embed_nodes``), so the desk's and the MCP server's first find_k does
    not stop for a minute without a word; a progress bar on stderr when it is a terminal
    (:mod:`etki.progress`).
    A model fault is a warning (the store is complete; retrieval falls back to
    lexical scoring and says so)."""
    import time

    from etki.endpoints import EndpointError
    from etki.progress import task
    from etki.semantic import VectorCache
    from etki.services import vector_cache_path

    started = time.perf_counter()
    path = vector_cache_path(settings, project_id)

    def on_file() -> int:
        if not path.exists():
            return 0
        cache = VectorCache(path)
        try:
            return len(cache)
        finally:
            cache.close()

    before = on_file()

    echo(
        f"  semantic retrieval ({settings.embed_backend}): embedding the graph's nodes "
        "(once: new texts only)",
        file=sys.stderr,
    )
    try:
        with task("embedding graph nodes") as advance:  # a bar on a terminal only
            seen = [0]  # nodes done at the last call: embed_nodes reports running totals

            def progress(done: int, total: int) -> None:
                advance(done - seen[0], total=total)
                seen[0] = done

            count = desk.embed_nodes(project_id, progress)
    except EndpointError as exc:
        echo(
            f"etki: warning: graph nodes not embedded ({exc}); find_k/expand rank "
            "lexically until they are",
            file=sys.stderr,
            multiline=False,
        )
        return
    fresh = max(0, on_file() - before)
    echo(
        f"  semantic retrieval: {count} graph nodes, {fresh} embedded now "
        f"({count - min(fresh, count)} already on file) in "
        f"{time.perf_counter() - started:.1f} s; vectors in {path}",
        multiline=False,
    )


def _projects(args: argparse.Namespace, settings: Settings) -> int:
    """``etki projects [--all]``: the stored project ids, one a line; archived ones only
    with ``--all``, as ``ID (archived)``."""
    from etki.store.lean import Fallback, lean_call

    try:  # the lean read path (issue 32 item 1); the desk's when it cannot answer
        listed = lean_call(settings.db_url, "project_list")
    except Fallback:
        listed = _desk(args, settings).project_list()
    # an archived project (issue 35 item 6) only with --all, marked
    echo_lines(
        [f"{pid} (archived)" if gone else pid for pid, gone in listed if args.all or not gone]
    )
    return 0


_Read = tuple[list, dict[str, Any], dict[str, Any], list[tuple[str, int]]]


def _queue_read(args: argparse.Namespace, settings: Settings) -> _Read:
    """The rows ``etki queue`` prints, each ``(case, clause memory)``, the live claims
    (case id -> claim) and the assignments in force (case id -> assignment): read by :mod:`etki.store.lean` (plain SQL, no SQLAlchemy,
    only the printed rows and the ruled cases citing their clauses), or by the desk when
    that path cannot answer as it would (:class:`etki.store.lean.Fallback`; e.g. a store
    that needs a migration, which the desk refuses as before)."""
    from etki.store.lean import Fallback, lean_call

    try:
        read = lean_call(settings.db_url, "queue", args.project, every=args.all)
    except Fallback:
        return _queue_read_desk(args, settings)
    from etki.memory import disputes_counted

    rows = []
    for part in read.parts:
        # the disputed clauses the rows cite (clause_memory's rule, from the counts kept
        # at ruling time): all the queue reads of the memory is whether a dispute is open
        counted = disputes_counted(part.counts, part.ruled, part.resolutions)
        memory: dict[str, Any] = {d.ref: d for d in counted}
        rows += [(c, memory) for c in part.shown]
    return rows, read.claims, read.assignments, read.archived


def _queue_read_desk(args: argparse.Namespace, settings: Settings) -> _Read:
    """:func:`_queue_read` through the desk (the ORM path)."""
    from etki.errors import ProjectArchivedError

    desk = _desk(args, settings)
    projects = [args.project] if args.project else desk.active_project_ids()
    if args.project:
        desk.project_name(args.project)  # a clear error for an unknown id
        if args.project in desk.archived_project_ids():
            raise ProjectArchivedError(args.project, "has no queue")
    rows: list[tuple[Any, Any]] = []
    claims: dict[str, Any] = {}
    assignments: dict[str, Any] = {}
    for pid in projects:
        # the light rows (no evidence chains), as the desk's queue: the clause memory and
        # every listed field come from them (a 10k store: 1.2 s of full records before)
        every = desk.queue_summaries(pid, status=None)
        memory = desk.clause_memory_of([c for c in every if c.ruling is not None], pid)
        rows += [(c, memory) for c in every if args.all or c.status == "pending"]
        claims.update(desk.claims(pid))
        assignments.update(desk.assignments(pid))
    held = [] if args.project else desk.archived_project_ids()
    counts = [(pid, len(desk.queue_summaries(pid, status="pending"))) for pid in sorted(held)]
    return rows, claims, assignments, [(pid, n) for pid, n in counts if n]


def _archived_note(archived: list[tuple[str, int]]) -> list[str]:
    """One line per archived project holding pending cases (``(id, count)``), for a queue
    that shows none of them: a PMO trial read "no cases waiting for a ruling" (and ``[]``)
    over an archived project's 44 pending cases."""
    return [
        f"project {pid} is archived: its {n} pending case{'s' if n != 1 else ''} "
        f"{'are' if n != 1 else 'is'} not offered; etki project unarchive {pid}"
        for pid, n in archived
    ]


def _queue(args: argparse.Namespace, settings: Settings) -> int:
    from etki.commands.queuefile import (
        check_module,
        overdue_only,
        queue_file,
        queue_format,
        queue_pick,
    )
    from etki.picks import mine_ids
    from etki.tablefile import queue_row

    fmt = queue_format(args)
    from etki.domain import is_sure
    from etki.memory import current_risk

    escalate = settings.disputed_escalation
    pick = queue_pick(args)
    rows, claims, assignments, archived = _queue_read(args, settings)
    if pick.module:  # an id no project declares is a typo, not an empty queue
        check_module(pick.module, args.project, settings)
    if pick:
        mine = mine_ids(settings.reviewer, claims, assignments)
        rows = [(c, memory) for c, memory in rows if pick.keeps(c, mine)]
    if args.overdue:
        rows = overdue_only(rows, escalate)
    # shown when nothing is: stderr beside JSON or a file, so stdout stays what it was
    note = _archived_note(archived) if not rows else []
    if args.json or fmt is not None:
        out = []
        for c, memory in rows:
            row = queue_row(c, memory, escalate)
            held = claims.get(c.case_id)
            row["claimed_by"] = held.actor if held else None
            row["claimed_until"] = held.until if held else None
            given = assignments.get(c.case_id)
            row["assigned_to"] = given.after if given else None
            out.append(row)
        if fmt is not None:
            queue_file(out, args, fmt, settings.csv_delimiter)
        else:
            emit_json(out, indent=1)
        for line in note:
            echo(f"note: {line}", file=sys.stderr, multiline=False)
        return 0
    picked = [*pick.words(), *(["24h look overdue"] if args.overdue else [])]
    if not rows and picked:
        echo(f"no case matches ({'; '.join(picked)})", multiline=False)
    elif not rows and not note:
        echo("no cases waiting for a ruling")
    for line in note:
        echo(line, multiline=False)
    from datetime import UTC, datetime

    from etki.reports import overdue_looks

    now = datetime.now(UTC)  # as etki report and --overdue measure the wait
    for c, memory in rows:
        d = c.decision
        risk, raised = current_risk(d, memory, escalate)
        look = " 24h" if risk.pmo_look_24h else ""
        late = overdue_looks([c], now, memory, escalate) if risk.pmo_look_24h else ()
        mark = " " if is_sure(d) else "?"  # as the desk's row: ? needs a careful look
        ruled = f"  ruled {c.ruling.ruling}" if c.ruling else ""
        disputed = f"  DISPUTED {', '.join(raised)}" if raised else ""
        held = claims.get(c.case_id)
        claimed = f"  claimed by {held.actor} until {held.until}" if held else ""
        given = assignments.get(c.case_id)
        claimed += f"  assigned to {given.after}" if given else ""
        echo(
            f"{c.case_id}  {d.verdict:<14} {d.confidence:4.2f} {mark}  {risk.level:<6}{look:<4} "
            f"{_one_line(c.title, 40)}{ruled}{disputed}{claimed}"
            # days and hours past a day (a trial read "overdue 53h")
            + (f"  look overdue, waiting {late[0].waiting}" if late else ""),
            multiline=False,
        )
    return 0


def _rule(args: argparse.Namespace, settings: Settings) -> int:
    if args.amend and not args.reason.strip():  # said before the store is opened
        raise InputError(
            f"amending the ruling of {args.case_id} needs a reason (--reason): "
            "the earlier ruling stays on record"
        )
    from etki.errors import ConflictError

    desk = _desk(args, settings)
    held = _claimed_by_another(desk, args.case_id)
    try:
        outcome = desk.rule(
            args.case_id,
            RULE_ACTIONS[args.action],
            reason=args.reason,
            expected_version=args.expected_version,
            amend=args.amend,
        )
    except ConflictError as exc:  # the desk's "reload the queue" means nothing here
        if exc.already_ruled and not args.amend:
            raise exc.told(
                f"to change its ruling, amend it: `etki rule {args.case_id} {args.action} "
                "--amend --reason TEXT` (the earlier ruling stays on record)"
            ) from None
        raise exc.told(
            f"look at it again (`etki show {args.case_id}`) and give the version you saw "
            "with --expected-version"
        ) from None
    r = outcome.ruling
    tag = " (override: precedent)" if r.is_override else ""
    if args.amend:
        earlier = desk.case(r.case_id).earlier_rulings
        was = f" (amended from {earlier[-1].ruling})" if earlier else " (amended)"
        tag = was + tag
    echo(f"{r.case_id}: {r.ruling} by {r.reviewer} at {r.ruled_at}{tag}", multiline=False)
    if held is not None:  # a claim is a courtesy, not a lock: say it was crossed
        echo(
            f"note: {held.actor} had claimed {r.case_id} until {held.until}; tell them it is ruled",
            file=sys.stderr,
            multiline=False,
        )
    if outcome.wiki_error:
        echo(f"warning: {outcome.wiki_error}", file=sys.stderr, multiline=False)
    return 0


def _claimed_by_another(desk, case_id: str):  # noqa: ANN001, ANN202
    """The live claim of ``case_id`` by someone other than the acting reviewer
    (:meth:`etki.services.Desk.claims`), or None (also when it cannot be read: a claim
    never keeps a ruling from being made)."""
    from etki.identity import reviewer_name

    try:
        held = desk.claims(desk.case(case_id).project_id).get(case_id)
    except Exception:  # noqa: BLE001 - the ruling below reports an unknown case itself
        return None
    if held is None or held.actor == reviewer_name(desk.settings.reviewer):
        return None
    return held


def event_line(e: CaseEvent) -> str:
    """One line of a case's history as ``etki show`` prints it: the time, what happened
    and, after `` — ``, its text (source, engine, reason or note; client text, printed
    literally by the caller)."""
    line = f"{e.at}  {e.summary()}"
    if e.text:
        label = dict.fromkeys(("ruled", "amended", "denied", "conflict"), "reason: ")
        line += f" — {label.get(e.kind, '')}{e.text}"
    return line


def _show_read(args: argparse.Namespace, settings: Settings) -> CaseView:
    """The :class:`~etki.domain.caseview.CaseView` ``etki show`` prints: read by
    :mod:`etki.store.lean_case` (plain SQL, no SQLAlchemy; the clause memory of the
    case's cited clauses only), or by the desk (:func:`etki.services.views.case_view`)
    when that path cannot answer as it would (:class:`etki.store.lean.Fallback`)."""
    from etki.store.lean import Fallback, lean_call
    from etki.store.lean_case import show_read

    try:
        read = lean_call(settings.db_url, show_read, args.case_id)
    except Fallback:
        from etki.services.views import case_view

        return case_view(_desk(args, settings), args.case_id)
    args.case_id = read.case_id  # the whole id, as the desk makes it (a short one given)
    from etki.domain.caseview import CaseView, gone_of
    from etki.memory import case_now, clause_memory

    if read.case is None:
        gone, removed = gone_of(read.erased, read.deletion)
        return CaseView(read.case_id, None, {}, tuple(read.history), gone, removed)
    memory = clause_memory(read.ruled, read.resolutions)
    now = case_now(read.case.decision, memory, settings.disputed_escalation)
    return CaseView(read.case_id, read.case, now, tuple(read.history))


def _show(args: argparse.Namespace, settings: Settings) -> int:
    """``etki show``: one case (request, decision, ruling and its history) and every
    event of it, oldest first (:meth:`Desk.case_history`); an erased case shows its
    history alone."""
    view = _show_read(args, settings)
    case, now, history = view.case, view.now, view.history
    if args.json:
        emit_json(view.to_json(), indent=1)
        return 0
    if case is None:
        echo(f"{args.case_id}: {view.gone}", multiline=False)
    else:
        d = case.decision
        echo(f"{case.case_id}  {_one_line(case.title, 100)}", multiline=False)
        echo(
            f"project {case.project_id} · request {case.request_id} · {case.status} "
            f"(version {case.version})",
            multiline=False,
        )
        _print_decision(d, now, case.estimate)
        terms = case.cr_terms
        if terms is not None and terms.modules is not None:  # the PMO's choice (cr edit)
            chosen = ", ".join(terms.modules) or "none"
            echo(
                f"CR document modules: {chosen} (chosen by {terms.actor} at {terms.at})",
                multiline=False,
            )
        for item in now["disputed_clauses"]:
            mark = "DISPUTED-RESOLVED" if item["resolved"] else "DISPUTED"
            said = " / ".join(item["rulings"])
            said = (  # one kind of ruling: they contradict the PMO's resolution
                f"rulings disagree: {said}" if len(item["rulings"]) > 1 else f"rulings: {said}"
            )
            echo(f"now         {mark} {item['ref']} · {said}", multiline=False)
        if now["disputed_clauses"] or now["risk_raised_by"]:  # a trial read "why 8 … low"
            echo("why         as reasoned at triage (frozen; the now lines are what changed)")
        _print_evidence(d)
        if case.ruling is not None:
            r = case.ruling
            amended = f", amended {len(case.earlier_rulings)}x" if case.earlier_rulings else ""
            echo(
                f"ruling      {r.ruling} ({r.action}) by {r.reviewer} at {r.ruled_at}{amended}",
                multiline=False,
            )
    echo("")
    echo("history (oldest first)")
    echo_lines("  " + event_line(e) for e in history)
    return 0


def _given_text(arg: str, command: str) -> str:
    """The text argument of ``etki add`` / ``etki note`` (``-``: standard input), refused
    when it holds nothing but white space — before the store or the engine is loaded.

    Raises :class:`InputError` naming the field ``text``."""
    text = sys.stdin.read() if arg == "-" else arg
    if not text.strip():
        where = "standard input" if arg == "-" else "the text argument"
        raise InputError(f"{command}: field 'text' is empty ({where})")
    return text


def _note(args: argparse.Namespace, settings: Settings) -> int:
    """``etki note``: a reviewer's note on a case (shown in its history and on its wiki
    page)."""
    text = _given_text(args.text, "note")
    note, wiki_error = _desk(args, settings).add_note(args.case_id, text)
    echo(f"{args.case_id}: note by {note.actor} at {note.at}", multiline=False)
    if wiki_error:
        echo(f"warning: {wiki_error}", file=sys.stderr, multiline=False)
    return 0


def _claim(args: argparse.Namespace, settings: Settings) -> int:
    """``etki claim``: mark a case as being looked at (others see it in the queue until
    it expires), or ``--release`` it."""
    desk = _desk(args, settings)
    if args.release:
        done = desk.release_claim(args.case_id)
        echo(f"{args.case_id}: claim released by {done.actor} at {done.at}", multiline=False)
        return 0
    claim = desk.claim(args.case_id, args.minutes)
    echo(f"{args.case_id}: claimed by {claim.actor} until {claim.until}", multiline=False)
    return 0


def _assign(args: argparse.Namespace, settings: Settings) -> int:
    """``etki assign CASE --to NAME``: hand a pending case to one of the project's
    approvers (``ayse`` finds ``Ayşe Yılmaz``; audited, in the case's history, in the
    assignee's ``etki queue --mine``), or ``--clear`` the assignment."""
    if args.to is None and not args.clear:
        raise InputError(f"assign {args.case_id}: say to whom with --to NAME (or --clear)")
    if args.to is not None and not args.to.strip():
        raise InputError("--to: the name is empty; give an approver's name")
    desk = _desk(args, settings)
    case_id = args.case_id
    if args.clear:
        done = desk.unassign(case_id)
        echo(f"{case_id}: assignment to {done.after} ended by {done.actor}", multiline=False)
        return 0
    done = desk.assign(case_id, args.to)
    echo(f"{case_id}: assigned to {done.after} by {done.actor} at {done.at}", multiline=False)
    return 0


def _triage(args: argparse.Namespace, settings: Settings) -> int:
    desk = _desk(args, settings)  # a missing store is said first
    if not args.text.strip():
        raise InputError("triage: the request text is empty")
    from etki.triage import case_id_for

    decision = desk.triage_text(
        args.project, case_id_for(args.project, "adhoc\0" + args.text), args.text
    )
    if args.json:
        emit_json(decision.to_dict(), indent=1, sort_keys=True)
    else:
        _print_decision(decision)
    return 0


def _add(args: argparse.Namespace, settings: Settings) -> int:
    """``etki add``: one request triaged and stored (:meth:`Desk.add_request`); prints
    the new case id and its decision."""
    from etki.commands.preanalysis import preanalysis_dict, preanalysis_lines

    text = _given_text(args.text, "add")
    desk = _desk(args, settings)
    case = desk.add_request(
        desk.chosen_project(args.project),
        text,
        title=args.title,
        submitted_by=args.submitted_by,
        preanalyse=args.preanalyse,
    )
    if args.json:
        emit_json(
            {
                "case_id": case.case_id,
                "request_id": case.request_id,
                "decision": case.decision.to_dict(),
                "preanalysis": preanalysis_dict(case.preanalysis),
            },
            indent=1,
            sort_keys=True,
        )
    else:
        echo(f"added {case.case_id} (request {case.request_id})", multiline=False)
        _print_decision(case.decision)
        if case.preanalysis is not None:
            echo_lines(preanalysis_lines(case.preanalysis))
    return 0


def _import(args: argparse.Namespace, settings: Settings) -> int:
    """``etki import``: a file of requests triaged and stored (:meth:`Desk.import_requests`);
    one line of counts, a note when the file was not UTF-8, a line per new case (case
    id, request id, verdict, sureness, title), each refused record on stderr (exit 2
    when there is one)."""
    desk = _desk(args, settings)
    done = desk.import_requests(
        desk.chosen_project(args.project), args.file, args.format, preanalyse=args.preanalyse
    )
    line = f"imported {len(done.stored)} new {plural(len(done.stored), 'request')}"
    if done.already:
        line += f"; {done.already} already stored (left as they are)"
    if done.erased:
        line += f"; {done.erased} of erased cases (not stored again)"
    if done.refused:
        line += f"; {len(done.refused)} refused (listed on stderr)"
    echo(line, multiline=False)
    for note in done.notes:
        echo(f"note: {note}", multiline=False)
    # each new case with its verdict, as `etki add` names the case it stored
    for case in desk.cases(list(done.stored)):
        d = case.decision
        echo(
            f"  {case.case_id}  {case.request_id}  {d.verdict:<14} "
            f"{'sure  ' if d.sure else 'unsure'}  {case.title}",
            multiline=False,
        )
    if done.preanalysis is not None:
        echo(done.preanalysis.line(), multiline=False)
    for message in done.refused:
        echo(f"etki: error: {message}", file=sys.stderr, multiline=False)
    return 2 if done.refused else 0


def _no_preanalysis(parser: Any) -> None:
    """``--no-preanalysis``: store the new cases without asking the chat model for their
    developer pre-analyses (asked by default when ``ETKI_LLM_*`` is set)."""
    parser.add_argument(
        "--no-preanalysis",
        dest="preanalyse",
        action="store_false",
        default=None,
        help="do not ask the chat model (ETKI_LLM_*) for pre-analyses of the new cases "
        "(`etki preanalyse` asks later)",
    )


def register(sub: Any) -> None:
    """Add ``init``, ``add``, ``import``, ``queue``, ``rule``, ``show``, ``triage`` and
    ``projects`` to the ``etki`` parser."""
    init = sub.add_parser("init", help="load a project folder, index it, triage its requests")
    init.add_argument("project_dir")
    init.add_argument(
        "--no-context",
        dest="context",
        action="store_false",
        default=None,
        help="do not store related-context blocks (also ETKI_RELATED_CONTEXT=0)",
    )
    init.add_argument(
        "--context",
        dest="context",
        action="store_true",
        help="store related-context blocks even if ETKI_RELATED_CONTEXT=0",
    )
    init.add_argument(
        "--update-reviewers",
        action="store_true",
        help="let etki.yaml change the reviewers of an already stored "
        "project (an approver only; audited)",
    )
    _no_preanalysis(init)
    init.set_defaults(handler=_init)
    queue = sub.add_parser("queue", help="list cases waiting for a ruling")
    queue.add_argument("--project")
    queue.add_argument("--all", action="store_true", help="ruled cases too")
    queue.add_argument("--json", action="store_true")
    queue.add_argument(
        "--format",
        choices=("text", "csv", "xlsx"),
        help="csv (to --output FILE, else stdout) or xlsx (needs --output); default: "
        "from the --output suffix (.csv or .xlsx), else text",
    )
    queue.add_argument(
        "--output",
        metavar="FILE",
        help="write the listed cases to FILE (-: stdout); an existing FILE is not replaced "
        "without --force",
    )
    force_option(queue)
    delimiter_option(queue)
    pick_options(queue)
    queue.set_defaults(handler=_queue)
    rule = sub.add_parser("rule", help="rule on a case")
    rule.add_argument("case_id")
    rule.add_argument("action", type=rule_action_of, metavar="approve|cr|reject")
    rule.add_argument("--reason", default="")
    rule.add_argument(
        "--amend",
        action="store_true",
        help="replace the ruling of a ruled case (approvers; a reason is required; "
        "the earlier ruling stays in the audit and the case's history)",
    )
    rule.add_argument(
        "--expected-version",
        dest="expected_version",
        type=int,
        metavar="N",
        help="the case version you looked at (etki show): refused as a conflict if "
        "someone ruled or amended it since",
    )
    rule.set_defaults(handler=_rule)
    add = sub.add_parser("add", help="triage and store one new request")
    add.add_argument("--project", help="the project (may be left out with one stored)")
    add.add_argument("--title")
    add.add_argument("--submitted-by", dest="submitted_by", help="default: ETKI_REVIEWER")
    add.add_argument("text", help="the client's text, or - to read it from stdin")
    add.add_argument("--json", action="store_true", help="the stored case's decision as JSON")
    _no_preanalysis(add)
    add.set_defaults(handler=_add)
    imp = sub.add_parser("import", help="triage and store a file of requests")
    imp.add_argument("--project", help="the project (may be left out with one stored)")
    imp.add_argument("file")
    imp.add_argument(
        "--format",
        choices=("jsonl", "csv", "github"),
        help="default: from the suffix (.jsonl, .csv, .json = GitHub export)",
    )
    _no_preanalysis(imp)
    imp.set_defaults(handler=_import)
    note = sub.add_parser("note", help="add a note to a case (its history, its wiki page)")
    note.add_argument("case_id")
    note.add_argument("text", help="the note, or - to read it from stdin")
    note.set_defaults(handler=_note)
    claim = sub.add_parser("claim", help="mark a case as being looked at by you")
    claim.add_argument("case_id")
    claim.add_argument("--minutes", type=int, default=30, help="how long (default 30)")
    claim.add_argument("--release", action="store_true", help="end your claim now")
    claim.set_defaults(handler=_claim)
    assign = sub.add_parser("assign", help="assign a case to one of the project's approvers")
    assign.add_argument("case_id")
    who = assign.add_mutually_exclusive_group()
    who.add_argument("--to", metavar="NAME", help="the approver (ayse finds Ayşe Yılmaz)")
    who.add_argument("--clear", action="store_true", help="end the case's assignment")
    assign.set_defaults(handler=_assign)
    show = sub.add_parser("show", help="a case with its ruling and its whole history")
    show.add_argument("case_id")
    show.add_argument("--json", action="store_true", help="the case and its history as JSON")
    show.set_defaults(handler=_show)
    triage = sub.add_parser("triage", help="triage a text without storing it")
    triage.add_argument("--project", required=True)
    triage.add_argument("text")
    triage.add_argument("--json", action="store_true")
    triage.set_defaults(handler=_triage)
    projects = sub.add_parser("projects", help="list stored projects")
    projects.add_argument(
        "--all", action="store_true", help="archived projects too, marked (archived)"
    )
    projects.set_defaults(handler=_projects)
