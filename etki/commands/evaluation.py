"""``etki eval triage`` (registered by :mod:`etki.commands.retrieval` under ``etki eval``).

    etki eval triage [FILE_OR_PROJECT_DIR ...] [--all-realdata] [--project ID]
                     [--exclude-borderline] [--json] [--seed N] [--resamples N]
                     [--loeo] [--per-request] [--replay] [--remit all]
                     [--brief] [--calibration] [--pairs FILE]

A project folder (it has ``etki.yaml``), or a ``.jsonl`` file inside one, is loaded
directly (no database). Any other labelled file needs ``--project``: a project stored by
``etki init`` (``ETKI_DB_URL``), or a project folder. ``--all-realdata`` adds every
project folder under ``ETKI_REALDATA_DIR`` (default: the nearest ``shared/realdata``
above the repository) and ``sample_project/``. See :mod:`etki.evaluation.triage` for
the figures and :mod:`etki.evaluation.confidence` for the confidence block (printed
always, with a reliability table per engagement and pooled, ``--brief`` the pooled one only; ``--calibration`` the
per-kind calibration table). With ``ETKI_EMBED`` set, the engines use that model (as ``etki init`` does).
``--replay`` runs :func:`etki.replay.replay` on each engagement instead (the engine and
the memory beside it, side by side): one engagement prints its report as before (JSON:
one object), several print one report each (JSON: an object keyed by engagement id).
``--pairs FILE`` triages each request of a pair file beside its translation and prints
how often the verdict and the sureness agree (:mod:`etki.evaluation.pairs`) instead of
the figures. ``--remit all`` evaluates each engagement with every remit proposal of its contract
accepted (``etki remit propose``; :func:`etki.evaluation.triage.with_every_proposal`).
Exit codes as ``etki``: 0 ok, 2 bad input (the message names file:line).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from etki.defaults import BOOTSTRAP_RESAMPLES

if TYPE_CHECKING:
    from etki.config import Settings
from etki.console import echo, echo_lines, emit_json

__all__ = ["add_parser", "run_eval_triage"]

REMIT_ALL_LINE = "remit: every proposal of each contract accepted (--remit all; etki remit propose)"
"""The first line of a report made with ``--remit all``, so it never reads as a plain one."""


def add_parser(sub: Any) -> None:
    """Add ``triage`` to the ``etki eval`` subparsers."""
    tri = sub.add_parser(
        "triage",
        help="triage quality per engagement and pooled (accuracy, macro-F1 with "
        "bootstrap intervals, clause and module recall, --loeo)",
    )
    tri.add_argument(
        "inputs",
        nargs="*",
        metavar="FILE_OR_PROJECT_DIR",
        help="project folders, or labelled .jsonl files (inside a project "
        "folder, or with --project)",
    )
    tri.add_argument(
        "--all-realdata",
        action="store_true",
        help="every project folder under ETKI_REALDATA_DIR (default: the "
        "nearest shared/realdata above the repository) and "
        "sample_project/",
    )
    tri.add_argument(
        "--project",
        help="stored project id (or a project folder) for labelled files outside a project folder",
    )
    tri.add_argument(
        "--exclude-borderline",
        action="store_true",
        help="drop borderline rows before anything (also the --loeo choice)",
    )
    tri.add_argument("--json", action="store_true", help="everything as JSON (sorted keys)")
    tri.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    tri.add_argument(
        "--resamples",
        type=int,
        default=BOOTSTRAP_RESAMPLES,
        help=f"bootstrap resamples (default {BOOTSTRAP_RESAMPLES})",
    )
    tri.add_argument(
        "--loeo",
        action="store_true",
        help="leave-one-engagement-out over the pre-registered settings grid",
    )
    tri.add_argument(
        "--per-request",
        action="store_true",
        help="list every request: label, verdict, rule, cited, hit or miss",
    )
    tri.add_argument(
        "--replay",
        action="store_true",
        help="rule each request with its label after triaging it, in file "
        "order, and print the engine's and the memory's figures",
    )
    tri.add_argument(
        "--remit",
        choices=["all"],
        help="all: every remit proposal of each contract accepted (etki remit propose)",
    )
    tri.add_argument(
        "--brief",
        action="store_true",
        help="the reliability table (confidence bins against accuracy) pooled only, "
        "not also per engagement",
    )
    tri.add_argument(
        "--calibration",
        action="store_true",
        help="per kind of deciding evidence: n, correct, smoothed accuracy over "
        "all engagements and with each engagement held out",
    )
    tri.add_argument(
        "--pairs",
        metavar="FILE",
        help="a pair file (JSON lines: engagement, id, lang, text): does each request "
        "get the verdict and sureness of its translation?",
    )
    tri.set_defaults(handler=run_eval_triage)


def run_eval_triage(args: argparse.Namespace, settings: Settings) -> int:
    """``etki eval triage``: resolve the inputs, evaluate, print. Raises
    :class:`~etki.errors.InputError` (exit 2) for bad input."""
    from etki.evaluation.report import text_lines
    from etki.evaluation.triage import evaluate, resolve_sources

    desks: list[Any] = []

    def stored(project_id: str) -> tuple[Any, Any, Any]:
        from etki.services import Desk

        desk = Desk.open(settings, read_only=True)
        desks.append(desk)
        project = desk.project(project_id)
        index = desk.knowledge_index(project_id)
        return project, index, desk.clause_memory(project_id)

    try:
        engagements = resolve_sources(
            args.inputs,
            project=args.project,
            all_realdata=args.all_realdata,
            realdata_dir=settings.realdata_dir,
            stored=stored,
        )
    finally:
        for desk in desks:
            desk.close()
    from etki.services import embedder_for

    if args.remit == "all":
        from etki.evaluation.triage import with_every_proposal

        engagements = [with_every_proposal(eng) for eng in engagements]
    for eng in engagements:
        eng.embedder = embedder_for(settings, eng.id)
    if args.replay:
        return _replay(args, settings, engagements)
    if args.pairs:
        return _pairs(args, engagements, settings)
    ev = evaluate(
        engagements,
        resamples=args.resamples,
        seed=args.seed,
        exclude_borderline=args.exclude_borderline,
        loeo=args.loeo,
        disputed_escalation=settings.disputed_escalation,
    )
    if args.json:
        from etki.evaluation.confidence import confidence_report

        # beside ev.to_dict(), not inside it: confidence reads the Evaluation, one way only
        data = {**ev.to_dict(), "confidence": confidence_report(ev).to_dict()}
        data["remit"] = args.remit or "as stored"
        emit_json(data, indent=1, sort_keys=True)
    else:
        if args.remit == "all":
            echo(REMIT_ALL_LINE)
        echo_lines(
            text_lines(
                ev,
                per_request=args.per_request,
                reliability=not args.brief,
                calibration=args.calibration,
            )
        )
    return 0


def _pairs(args: argparse.Namespace, engagements: list[Any], settings: Settings) -> int:
    """The ``--pairs`` branch (see the module docstring)."""
    from etki.evaluation.pairs import load_pairs, pair_lines, pairs_dict, run_pairs

    outcomes = run_pairs(engagements, load_pairs(args.pairs))
    engines = {e.embedder.name for e in engagements if e.embedder is not None}
    model = f"by meaning with {', '.join(sorted(engines))}" if engines else "lexical only"
    if args.json:
        emit_json({**pairs_dict(outcomes), "model": model}, indent=1, sort_keys=True)
    else:
        if args.remit == "all":
            echo(REMIT_ALL_LINE)
        echo(f"engine read: {model}")
        echo_lines(pair_lines(outcomes, per_pair=args.per_request))
    return 0


def _replay(args: argparse.Namespace, settings: Settings, engagements: list[Any]) -> int:
    """The ``--replay`` branch (see the module docstring)."""
    from etki.replay import replay

    reports = []
    for eng in engagements:
        rows = [r for r in eng.rows if not (args.exclude_borderline and r.borderline)]
        reports.append(replay(eng.project, eng.index, rows, settings=settings))
    if args.json:
        data: Any = (
            reports[0].to_dict()
            if len(reports) == 1
            else {r.project_id: r.to_dict() for r in reports}
        )
        emit_json(data, indent=1, sort_keys=True)
    else:
        for i, r in enumerate(reports):
            if i:
                echo("")
            echo_lines(r.lines())
    return 0
