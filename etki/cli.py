"""The ``etki`` command.

    etki init PROJECT_DIR [--no-context] [--update-reviewers]
                                               load, index, triage every new request
    etki queue [--project ID] [--all] [--json] the pending cases (all with --all)
    etki rule CASE_ID approve|cr|reject [--reason TEXT]
    etki triage --project ID TEXT [--json]     triage a text without storing it
                                               (with similar rulings and memory verdict)
    etki projects                              the stored projects

Exit codes: 0 ok, 2 bad input (including a conflict with another reviewer's ruling,
and ``etki init`` refusing a request row longer than ``ETKI_MAX_REQUEST_CHARS``: the
other rows are stored), 1 internal error. Settings come from ``ETKI_*`` variables
(:mod:`etki.config`). Every line is printed through :mod:`etki.console`
(:func:`etki.text.printable`; ``--json`` escapes control and bidi characters), so client
or config text cannot drive the terminal. An internal error is one line naming the
exception's type and only safe facts (never SQL, its parameters or client text);
``ETKI_DEBUG=1`` adds the traceback.

``etki init`` stores a related-context block beside each new decision (pre-analysis,
:mod:`etki.retrieval.context`; context only, never a decision input). ``--no-context``
skips it, as does ``ETKI_RELATED_CONTEXT=0`` (also ``off``, ``false``, ``no``) in the
environment; ``--context`` turns it on whatever the variable says. Re-loading a stored
project whose ``etki.yaml`` lists other reviewers exits 2 and says what would change;
``--update-reviewers`` applies the change when ``ETKI_REVIEWER`` is an approver of the
stored project (audited with the OS user, host and process).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Mapping, Sequence

from etki.config import Settings
from etki.console import (
    SafeArgumentParser,
    configure_logging,
    configure_streams,
    echo,
    echo_lines,
    emit_json,
    report_internal_error,
)
from etki.domain import CaseRecord, ClauseMemory, Decision, memory_sentence
from etki.errors import EtkiError, InputError, os_error_message
from etki.memory import current_risk
from etki.text import printable

RULE_ACTIONS = {"approve": "approve", "cr": "convert_to_cr", "reject": "reject"}

READ_ONLY_COMMANDS = frozenset({"queue", "projects", "triage"})
"""Commands that only read the store: it is opened read-only (never created, migrated
or written; a missing store is exit 2). ``init`` creates the store; ``rule`` writes to
an existing one (README, "Read-only commands")."""

COMMAND_MODULES: tuple[str, ...] = ("etki.retrieval.cli", "etki.store.cli", "etki.knowledge.cli")
"""Modules that add subcommands: each has ``register(subparsers)`` which adds its parsers
and sets ``handler=fn(args, settings) -> int`` on them with ``set_defaults``."""


def _parser() -> argparse.ArgumentParser:
    p = SafeArgumentParser(prog="etki", description="Scope triage with a decision memory.")
    sub = p.add_subparsers(dest="command", required=True)
    init = sub.add_parser("init", help="load a project folder, index it, triage its requests")
    init.add_argument("project_dir")
    init.add_argument("--no-context", dest="context", action="store_false", default=None,
                      help="do not store related-context blocks (also ETKI_RELATED_CONTEXT=0)")
    init.add_argument("--context", dest="context", action="store_true",
                      help="store related-context blocks even if ETKI_RELATED_CONTEXT=0")
    init.add_argument("--update-reviewers", action="store_true",
                      help="let etki.yaml change the reviewers of an already stored "
                           "project (an approver only; audited)")
    queue = sub.add_parser("queue", help="list cases waiting for a ruling")
    queue.add_argument("--project")
    queue.add_argument("--all", action="store_true", help="ruled cases too")
    queue.add_argument("--json", action="store_true")
    rule = sub.add_parser("rule", help="rule on a case")
    rule.add_argument("case_id")
    rule.add_argument("action", choices=sorted(RULE_ACTIONS))
    rule.add_argument("--reason", default="")
    triage = sub.add_parser("triage", help="triage a text without storing it")
    triage.add_argument("--project", required=True)
    triage.add_argument("text")
    triage.add_argument("--json", action="store_true")
    sub.add_parser("projects", help="list stored projects")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return p


def _one_line(text: str, width: int) -> str:
    text = printable(text, multiline=False)
    return text if len(text) <= width else text[: width - 1] + "…"


def _queue_row(c: CaseRecord, memory: Mapping[str, ClauseMemory], escalate: bool) -> dict:
    """One case of ``etki queue --json``. ``risk`` and ``pmo_look_24h`` are the risk as
    the desk shows it now (:func:`etki.memory.current_risk`: a cited clause disputed
    since the triage raises it when ``ETKI_DISPUTED_ESCALATION`` is on); ``risk_raised_by``
    names the clauses that raised it (empty: the stored decision's risk)."""
    d = c.decision
    risk, raised = current_risk(d, memory, escalate)
    return {
        "case_id": c.case_id, "project_id": c.project_id, "request_id": c.request_id,
        "title": c.title, "verdict": d.verdict, "confidence": d.confidence,
        "cited_clauses": list(d.cited_clauses), "risk": risk.level,
        "pmo_look_24h": risk.pmo_look_24h, "risk_raised_by": list(raised),
        "status": c.status, "version": c.version, "created_at": c.created_at,
        "ruling": c.ruling.ruling if c.ruling else None,
    }


def _print_decision(d: Decision) -> None:
    lines = [
        f"verdict     {d.verdict}  (confidence {d.confidence:.2f})",
        f"clauses     {', '.join(d.cited_clauses) or '-'}",
        f"modules     {', '.join(d.impacted_modules) or '-'}",
        f"effort      {d.effort.label()}",
    ]
    look = "  24h PMO look" if d.risk.pmo_look_24h else ""
    lines.append(f"risk        {d.risk.level}{look}  {', '.join(d.risk.signals)}".rstrip())
    echo_lines(lines)
    echo(f"reasoning   {d.reasoning}")
    for a in d.assumptions:
        echo(f"assumes     {a}")
    if d.similar_rulings:
        memory = memory_sentence(d.similar_rulings, d.memory_verdict)
        echo(f"memory      {memory} (beside the verdict, not part of it)", multiline=False)
        echo_lines(f"  similar   {s.case_id}  {s.ruling}  {s.similarity:.4f}"
                   for s in d.similar_rulings)


def run(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (see the module docstring)."""
    args = _parser().parse_args(argv)
    from etki.identity import set_program

    set_program(f"etki {args.command}")  # the audit's program column
    settings = Settings.from_env()
    if getattr(args, "handler", None) is not None:
        return args.handler(args, settings)
    from etki.store import CaseFileRepository

    repo = CaseFileRepository(settings.db_url, read_only=args.command in READ_ONLY_COMMANDS,
                              create=args.command == "init")
    if args.command == "init":
        from etki.services import init_project

        summary = init_project(args.project_dir, repo, settings,
                               related_context=args.context,
                               update_reviewers=args.update_reviewers)
        echo_lines(summary.lines())
        for message in summary.refused:  # issue 11 item 6: the other rows are stored
            echo(f"etki: error: {message}", file=sys.stderr, multiline=False)
        return 2 if summary.refused else 0
    if args.command == "projects":
        echo_lines(repo.project_ids())
        return 0
    if args.command == "queue":
        projects = [args.project] if args.project else repo.project_ids()
        if args.project:
            repo.load_project(args.project)  # a clear error for an unknown id
        from etki.memory import clause_memory

        escalate = settings.disputed_escalation
        rows = []
        for pid in projects:
            every = repo.cases(pid, status=None)
            memory = clause_memory(c for c in every if c.ruling is not None)
            rows += [(c, memory) for c in every if args.all or c.status == "pending"]
        if args.json:
            emit_json([_queue_row(c, memory, escalate) for c, memory in rows], indent=1)
            return 0
        if not rows:
            echo("no cases waiting for a ruling")
        for c, memory in rows:
            d = c.decision
            risk, raised = current_risk(d, memory, escalate)
            look = " 24h" if risk.pmo_look_24h else ""
            ruled = f"  ruled {c.ruling.ruling}" if c.ruling else ""
            disputed = f"  DISPUTED {', '.join(raised)}" if raised else ""
            echo(f"{c.case_id}  {d.verdict:<14} {d.confidence:4.2f}  {risk.level:<6}{look:<4} "
                 f"{_one_line(c.title, 40)}{ruled}{disputed}", multiline=False)
        return 0
    if args.command == "rule":
        from etki.approval import ApprovalService

        outcome = ApprovalService(repo, settings).rule(
            args.case_id, RULE_ACTIONS[args.action], reason=args.reason)
        r = outcome.ruling
        tag = " (override: precedent)" if r.is_override else ""
        echo(f"{r.case_id}: {r.ruling} by {r.reviewer} at {r.ruled_at}{tag}", multiline=False)
        if outcome.wiki_error:
            echo(f"warning: {outcome.wiki_error}", file=sys.stderr, multiline=False)
        return 0
    if args.command == "triage":
        if not args.text.strip():
            raise InputError("triage: the request text is empty")
        from etki.services import stored_triage
        from etki.triage import case_id_for

        decision = stored_triage(repo, args.project, settings,
                                 case_id_for(args.project, "adhoc\0" + args.text), args.text)
        if args.json:
            emit_json(decision.to_dict(), indent=1, sort_keys=True)
        else:
            _print_decision(decision)
        return 0
    raise AssertionError(args.command)  # argparse keeps us from getting here


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point: maps errors to exit codes, never a traceback for an
    :class:`EtkiError`."""
    configure_streams()
    configure_logging("etki")
    try:
        code = run(argv)
    except EtkiError as exc:
        echo(f"etki: error: {exc}", file=sys.stderr)
        code = exc.exit_code
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:  # `etki queue | head`: the reader left, nothing is wrong
        sys.stderr.close()
        code = 0
    except OSError as exc:  # a file Etki writes or reads: say which and what happened
        echo(f"etki: error: {os_error_message(exc)}", file=sys.stderr, multiline=False)
        code = 1
    except Exception as exc:  # internal failure: one line without SQL or client text, exit 1
        report_internal_error("etki", exc)
        code = 1
    sys.exit(code)


if __name__ == "__main__":
    main()
