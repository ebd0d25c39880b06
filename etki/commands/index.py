"""``etki index``: build, show, lint and enrich a project's knowledge index.

    etki index build   PROJECT_DIR_OR_ID [--strict] [--output PATH]
    etki index show    PROJECT_DIR_OR_ID [--json] [--sentences]
    etki index lint    PROJECT_DIR_OR_ID [--strict]
    etki index suggest PROJECT_DIR_OR_ID [--accept ID ...] [--min-score N]

``PROJECT_DIR_OR_ID`` is a project folder (loaded and indexed now) or the id of a
project stored by ``etki init``: ``show``, ``lint`` and ``suggest`` then read the index
stored with it; ``build`` and ``suggest --accept`` need the folder and use the one the
project was loaded from.

* ``build`` writes the index (default ``.etki/index-{project}.json``, only when its bytes
  change) and prints what it holds; with ``--strict`` lint warnings fail the build and
  nothing is written. Candidate edges are checked by the model of ``ETKI_LLM_*`` when
  set, else lexically.
* ``show`` prints the summary and, per clause, how many sentences the triage engine
  reads in each role (obligation, exclusion, client duty, future, admin, context);
  ``--sentences`` lists each sentence with its role and the rule that assigned it
  (``--json``: the index itself).
* ``lint`` prints problems (:mod:`etki.knowledge.lint`); exit 2 with ``--strict`` when
  there are warnings.
* ``suggest`` lists likely missing clause -> module links with scores and matched
  words (:mod:`etki.knowledge.enricher`); ``--accept ID ...`` writes those to the
  project's ``edges.yaml``. Nothing is ever applied without ``--accept``.

Exit codes: 0 ok, 2 bad input (unknown project, malformed folder, unknown suggestion id,
``--strict`` with warnings). Titles and texts are printed through
:func:`etki.text.printable`.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from etki.console import echo, echo_lines, emit_json_text
from etki.errors import InputError, NotFoundError, StoreMissingError
from etki.text import plural, printable

if TYPE_CHECKING:
    from etki.config import Settings
    from etki.domain import Project
    from etki.knowledge.index import KnowledgeIndex

__all__ = ["register"]

DEFAULT_OUTPUT = ".etki/index-{project}.json"


class _Target(NamedTuple):
    """What a PROJECT_DIR_OR_ID names: the index, and the folder when there is one (a
    named tuple, not a dataclass: ``etki --help`` imports this module and must not pay
    for :mod:`dataclasses`, issue 32 item 2)."""

    knowledge: KnowledgeIndex
    root: Path | None
    project: Project | None


def _looks_like_path(text: str) -> bool:
    return "/" in text or "\\" in text or text.startswith(".") or Path(text).exists()


def _from_folder(folder: Path, settings: Settings) -> _Target:
    from etki.knowledge import build_index, load_project
    from etki.knowledge.gate import validator_from_settings

    project = load_project(folder)
    return _Target(
        build_index(project, validator=validator_from_settings(settings)), folder, project
    )


def _target(value: str, settings: Settings, *, need_folder: bool = False) -> _Target:
    """Resolve PROJECT_DIR_OR_ID (see the module docstring). Raises NotFoundError for an
    unknown id or a missing folder."""
    path = Path(value)
    if path.is_dir():
        return _from_folder(path, settings)
    if _looks_like_path(value):
        raise NotFoundError(f"{value}: no such project folder")
    from etki.knowledge.index import KnowledgeIndex
    from etki.services import Desk

    try:
        desk = Desk.open(settings, read_only=True)
    except StoreMissingError as exc:  # neither a folder nor a stored project
        raise NotFoundError(f"no project {value!r} (not a folder, and {exc})") from exc
    data = desk.index_bytes(value)  # NotFoundError names the known projects
    root = desk.project(value).root
    if need_folder:
        if not (root / "etki.yaml").is_file():
            raise NotFoundError(
                f"project {value!r} was loaded from {root}, which is no "
                "project folder any more; pass the folder instead"
            )
        return _from_folder(root, settings)
    try:
        index = KnowledgeIndex.from_bytes(data)
    except ValueError as exc:
        raise InputError(
            f"the index stored for {value!r} cannot be read ({exc}); run "
            f"`etki init` on its folder again"
        ) from exc
    return _Target(index, root if (root / "etki.yaml").is_file() else None, None)


# --- printing ---------------------------------------------------------------------------


def _metrics(metrics: Any) -> str:
    return ", ".join(f"{k} {v:g}" for k, v in metrics)


def summary_lines(index: KnowledgeIndex) -> list[str]:
    """The human summary of an index: strategy and metrics per document, node counts,
    the declared remit's statements (``in``/``out`` counts, when ``etki.yaml`` has a
    ``scope``), edges by provenance and type, aliases, unresolved links and gate results."""
    from etki.domain import REMIT_CONTRACT_ID

    counts = Counter(n.type for n in index.nodes)
    by_prov = Counter(e.provenance for e in index.edges)
    by_type = Counter(e.type for e in index.edges)
    out = [f"project {index.project_id}  index {index.hash}"]
    out.append(
        f"  {counts['clause']} clauses, {counts['chunk']} chunks, "
        f"{counts['module']} modules, {counts['workitem']} work items"
    )
    for c in index.contracts:
        if c.id == REMIT_CONTRACT_ID:
            continue
        out.append(f"  contract {c.id} ({c.source}): {c.chunking}, {c.clauses} clauses")
        out.append(f"    metrics: {_metrics(c.metrics)}")
        out.extend(f"    warning: {printable(f, multiline=False)}" for f in c.warnings())
    remit = Counter(
        n.get("kind") for n in index.nodes_of("clause") if n.get("contract") == REMIT_CONTRACT_ID
    )
    if remit:
        out.append(
            f"  declared remit ({REMIT_CONTRACT_ID} scope): {remit['inclusion']} in, "
            f"{remit['exclusion']} out (refs {REMIT_CONTRACT_ID}#in-N, #out-N)"
        )
    out.append(
        f"  edges: {len(index.edges)} ("
        + ", ".join(f"{p} {by_prov[p]}" for p in ("explicit", "mapped", "inherited", "derived"))
        + ")"
    )
    out.append(
        "  edge types: " + (", ".join(f"{t} {n}" for t, n in sorted(by_type.items())) or "none")
    )
    if index.aliases:
        out.append("  aliases: " + ", ".join(f"{a} -> {t}" for a, t in index.aliases))
    out.append(f"  unresolved links: {len(index.unresolved)}")
    for u in index.unresolved:
        out.append(f"    {u.location}  {printable(u.text or u.target, multiline=False)}")
    verdicts = Counter(c.verdict for c in index.candidates)
    out.append(
        f"  candidates checked: {len(index.candidates)} ("
        + ", ".join(f"{v} {verdicts[v]}" for v in ("admitted", "rejected", "unresolved"))
        + ")"
    )
    return out


# --- handlers ---------------------------------------------------------------------------


def _lint_or_fail(index: KnowledgeIndex, strict: bool) -> int:
    from etki.knowledge.lint import LintFailedError, lint

    problems = lint(index)
    for problem in problems:
        echo(problem.line(), multiline=False)
    warnings = sum(1 for p in problems if p.severity == "warning")
    notes = len(problems) - warnings
    echo(f"{warnings} {plural(warnings, 'warning')}, {notes} {plural(notes, 'note')}")
    if strict and warnings:
        raise LintFailedError(
            f"{warnings} lint {plural(warnings, 'warning')} in the index of {index.project_id} (--strict)"
        )
    return 0


def _build(args: argparse.Namespace, settings: Settings) -> int:
    target = _target(args.project, settings, need_folder=True)
    index = target.knowledge
    if args.strict:
        _lint_or_fail(index, True)
    out = Path(args.output or DEFAULT_OUTPUT.replace("{project}", index.project_id))
    written = index.write(out)
    echo_lines(summary_lines(index))
    echo(f"  written to {out}" if written else f"  {out} is up to date", multiline=False)
    return 0


def sentence_role_lines(index: KnowledgeIndex, *, every: bool) -> list[str]:
    """How the triage engine reads each clause: per clause ``ref  role  N obligation,
    M exclusion, ...``; with ``every`` also each sentence as ``  role  [rule]  text``
    (text clipped to 100 characters, through :func:`etki.text.printable`)."""
    from etki.triage.contract import SENTENCE_ROLES, analyse
    from etki.triage.graph import read_graph

    out = ["sentence roles (how triage reads each clause; rule names in brackets):"]
    for info in analyse(read_graph(index).clauses):
        counts = Counter(s.role for s in info.sentences)
        parts = [f"{counts[r]} {r}" for r in SENTENCE_ROLES if counts[r]]
        out.append(
            f"  {printable(info.clause.ref, multiline=False)}  [{info.role}]  "
            + (", ".join(parts) or "no sentence")
        )
        if every:
            for s in info.sentences:
                text = printable(" ".join(s.text.split()), multiline=False)
                text = text if len(text) <= 100 else text[:99] + "…"
                out.append(f"      {s.role:<10} [{s.rule}]  {text}")
    return out


def _show(args: argparse.Namespace, settings: Settings) -> int:
    index = _target(args.project, settings).knowledge
    if args.json:
        emit_json_text(index.to_bytes().decode("utf-8"))  # the index file's own text
    else:
        echo_lines(summary_lines(index))
        echo_lines(sentence_role_lines(index, every=args.sentences))
    return 0


def _lint(args: argparse.Namespace, settings: Settings) -> int:
    return _lint_or_fail(_target(args.project, settings).knowledge, args.strict)


def _suggest(args: argparse.Namespace, settings: Settings) -> int:
    from etki.knowledge.enricher import accept, suggest_links

    target = _target(args.project, settings, need_folder=bool(args.accept))
    suggestions = suggest_links(target.knowledge, min_score=args.min_score)
    if args.accept:
        assert target.root is not None
        added, already = accept(target.root, suggestions, args.accept)
        path = target.root / "edges.yaml"
        for s in added:
            echo(f"accepted {s.id}: {s.source} -[{s.type}]-> {s.target}", multiline=False)
        echo(
            f"{len(added)} {plural(len(added), 'link')} written to {path}"
            + (f"; already there: {', '.join(already)}" if already else ""),
            multiline=False,
        )
        return 0
    if not suggestions:
        echo("no suggestions: every likely clause -> module link is there")
        return 0
    for s in suggestions:
        title = printable(s.clause_title, multiline=False)[:60]
        echo(
            f"{s.id}  {s.score:5.1f}  {s.source} ({title}) -[{s.type}]-> {s.target}",
            multiline=False,
        )
        echo(
            f"            words: {', '.join(s.words)}; "
            f"support: {s.support} summary {plural(s.support, 'keyword')} beyond the module's name",
            multiline=False,
        )
    echo(
        f"{len(suggestions)} {plural(len(suggestions), 'suggestion')}; accept with `etki index suggest "
        f"{args.project} --accept ID ...`",
        multiline=False,
    )
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``etki index build|show|lint|suggest`` to the ``etki`` command."""
    from etki.defaults import SUGGEST_MIN_SCORE as MIN_SCORE

    index = subparsers.add_parser("index", help="build, show, lint or enrich a knowledge index")
    actions = index.add_subparsers(dest="index_command", required=True)
    build = actions.add_parser("build", help="build and write the knowledge index")
    build.add_argument("project", metavar="PROJECT_DIR_OR_ID")
    build.add_argument("--strict", action="store_true", help="fail on lint warnings")
    build.add_argument("--output", help=f"where to write it (default {DEFAULT_OUTPUT})")
    build.set_defaults(handler=_build)
    show = actions.add_parser("show", help="summarise the knowledge index")
    show.add_argument("project", metavar="PROJECT_DIR_OR_ID")
    show.add_argument("--json", action="store_true", help="print the index itself")
    show.add_argument(
        "--sentences",
        action="store_true",
        help="list every clause sentence with its triage role and the rule",
    )
    show.set_defaults(handler=_show)
    lint = actions.add_parser("lint", help="report problems of the knowledge index")
    lint.add_argument("project", metavar="PROJECT_DIR_OR_ID")
    lint.add_argument("--strict", action="store_true", help="exit 2 on warnings")
    lint.set_defaults(handler=_lint)
    suggest = actions.add_parser("suggest", help="propose missing clause -> module links")
    suggest.add_argument("project", metavar="PROJECT_DIR_OR_ID")
    suggest.add_argument(
        "--accept",
        nargs="+",
        metavar="ID",
        default=[],
        help="write these suggestions to the project's edges.yaml",
    )
    suggest.add_argument(
        "--min-score",
        type=float,
        default=MIN_SCORE,
        help=f"least score to list (default {MIN_SCORE:g})",
    )
    suggest.set_defaults(handler=_suggest)
