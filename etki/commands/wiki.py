"""``etki wiki`` and ``python -m etki.wiki``: rebuild, search, show and verify the wiki.

Commands (settings from ``ETKI_DB_URL`` and ``ETKI_WIKI_DIR``, see :mod:`etki.config`;
``etki wiki COMMAND`` takes the same arguments)::

    python -m etki.wiki rebuild [--project ID]        re-derive every page from the DB
    python -m etki.wiki search QUERY [--project ID]   one hit per line: path, TAB, snippet;
                                                      the 20 best pages (``--limit N``,
                                                      ``--all``), ranked inside SQLite
    python -m etki.wiki show PAGE [--project ID]      print a page (DEC-..., PRE-..., CR-...,
                                                      a CR's short number CR-yyyymmdd-TAIL,
                                                      a case id, index, disputed, a path;
                                                      path#anchor: that clause section)
    python -m etki.wiki verify [--project ID]         list files that differ from the DB:
                                                      ``missing:``, ``changed:`` (hand
                                                      edits) and ``stale:`` lines

Exit codes: 0 ok (also a search without hits: "no results" goes to stderr), 1 when
``verify`` finds a difference or on an internal error, 2 for bad input (unknown project,
case or page; the wiki off for ``search``/``show``). Errors are one line on stderr, never
a traceback. Page text and snippets are client text and are printed through
:func:`etki.text.printable`. Every command reads the database through
:class:`etki.services.Desk`, opened read-only (``rebuild`` writes the wiki, and records a
new wiki folder in the store for erasure on a writable connection of its own: a store
that may not be written rebuilds only the folders it knows, else exit 2).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from etki.console import (
    SafeArgumentParser,
    configure_logging,
    configure_streams,
    echo,
    report_internal_error,
)
from etki.errors import EtkiError, InputError, NotFoundError, os_error_message

if TYPE_CHECKING:
    from etki.config import Settings
    from etki.domain import CaseRecord

__all__ = ["add_commands", "build_parser", "main", "register", "resolve_page"]

PROG = "python -m etki.wiki"
"""The program name of the standalone command; ``etki wiki`` names itself ``etki wiki``
in its hints (``run `etki wiki rebuild```)."""


class _Context:
    """Settings, the program name used in hints, and a desk opened read-only on first
    use (``search`` with ``--project`` never touches the database)."""

    def __init__(self, settings: Settings, prog: str = PROG) -> None:
        self.settings = settings
        self.prog = prog
        self._desk = None

    @property
    def desk(self):  # -> etki.services.Desk
        if self._desk is None:
            from etki.services import Desk

            # every wiki command only reads the database (rebuild writes the wiki)
            self._desk = Desk.open(self.settings, read_only=True)
        return self._desk

    def project(self, given: str | None) -> str:
        """``given`` when it is stored, or the only project in the store. Raises
        InputError otherwise (``NotFoundError`` naming the known ids for an unknown one)."""
        if given:
            root = self.settings.wiki_path(given)
            if root is None or not root.is_dir():  # no wiki folder: is it a stored project?
                self.desk.project(given)  # "no project 'x' in the store; known: ..."
            return given
        return self.desk.chosen_project(None)

    def wiki_root(self, project_id: str) -> Path:
        root = self.settings.wiki_path(project_id)
        if root is None:
            raise InputError("the wiki is off (ETKI_WIKI_DIR is empty)")
        return root


def _print(text: str, *, stream=None) -> None:
    echo(text, file=stream or sys.stdout, multiline=False)


def _cmd_rebuild(ctx: _Context, args: argparse.Namespace) -> int:
    reports = ctx.desk.wiki_rebuild(args.project or None)
    if not reports:
        _print("no project in the store yet; nothing to rebuild", stream=sys.stderr)
    for pid, report in reports.items():
        where = f" -> {report.root}" if report.root is not None else ""
        _print(f"{pid}: {report.summary()}{where}")
    return 0


def _cmd_verify(ctx: _Context, args: argparse.Namespace) -> int:
    ids = [args.project] if args.project else ctx.desk.project_ids()
    bad = 0
    for pid in ids:
        if ctx.settings.wiki_path(pid) is None:
            _print(f"{pid}: wiki off (ETKI_WIKI_DIR is empty); nothing to verify")
            continue
        drift = ctx.desk.wiki_drift(pid)
        for line in drift.lines():
            _print(f"{pid}: {line}")
        if drift:
            _print(
                f"{pid}: {len(drift.missing)} missing, {len(drift.changed)} changed, "
                f"{len(drift.stale)} stale; run `{ctx.prog} rebuild` to restore"
            )
        else:
            _print(f"{pid}: ok, the wiki matches the database")
        bad += len(drift.paths())
    return 1 if bad else 0


def _cmd_search(ctx: _Context, args: argparse.Namespace) -> int:
    query = " ".join(args.query)
    if not query.strip():
        raise InputError("empty query: give at least one word")
    if args.limit is not None and args.limit < 1:
        raise InputError("--limit must be at least 1")
    pid = ctx.project(args.project)
    root = ctx.wiki_root(pid)
    if not root.is_dir():
        raise InputError(f"no wiki at {root}; run `{ctx.prog} rebuild --project {pid}`")
    from etki.wiki.search import DEFAULT_LIMIT, ranked_search

    use_rg = False if args.no_rg else None
    limit = None if args.all else (args.limit or DEFAULT_LIMIT)
    found = ranked_search(root, query, limit=limit, use_rg=use_rg, backend=args.backend)
    for hit in found.hits:
        where = f"{hit.path}:{hit.line}" if args.line_number else hit.path
        echo(where, hit.snippet, sep="\t", multiline=False)
    if not found.hits:
        _print(f"no results for {query!r}", stream=sys.stderr)
    elif found.total > len(found.hits):
        _print(
            f"{len(found.hits)} of {found.total} hits shown, best first; "
            "--limit N or --all for more",
            stream=sys.stderr,
        )
    return 0


def resolve_page(root: Path, page: str) -> str | None:
    """The wiki-relative path of the page named ``page`` under ``root``, or None.

    Accepted: a relative path (``decisions/DEC-....md``), a page id with or without
    ``.md`` (``DEC-...``, ``PRE-...``, ``CR-...``, ``index``, ``disputed``, a contract or
    module id), or a unique prefix of a decision, precedent or change-request page id. Raises InputError for a path
    that would leave the wiki."""
    from etki.wiki.paths import CR_DIR, DISPUTED, INDEX
    from etki.wiki.writer import UnsafeWikiPath, validate_relpath

    page = page.strip()
    name = page if page.endswith(".md") else page + ".md"
    if "/" in page or "\\" in page:
        try:
            rel = validate_relpath(name)
        except UnsafeWikiPath as exc:
            raise InputError(str(exc)) from exc
        return rel.as_posix() if (root / rel).is_file() else None
    try:
        validate_relpath(name)
    except UnsafeWikiPath as exc:
        raise InputError(str(exc)) from exc
    if name in (INDEX, DISPUTED):
        return name if (root / name).is_file() else None
    folders = ["decisions", "precedents", CR_DIR, "entities/contracts", "entities/modules"]
    if page.startswith("DEC-"):
        folders = ["decisions"]
    elif page.startswith("PRE-"):
        folders = ["precedents"]
    elif page.startswith("CR-"):
        folders = [CR_DIR]
    for folder in folders:
        if (root / folder / name).is_file():
            return f"{folder}/{name}"
    if page.startswith(("DEC-", "PRE-", "CR-")):
        folder = folders[0]
        stem = page.removesuffix(".md")
        matches = (
            sorted(p.name for p in (root / folder).glob("*.md") if p.name.startswith(stem))
            if (root / folder).is_dir()
            else []
        )
        if len(matches) == 1:
            return f"{folder}/{matches[0]}"
        if len(matches) > 1:
            raise InputError(f"'{page}' matches {len(matches)} pages; give more of the name")
    return None


def _cr_case(ctx: _Context, page: str) -> CaseRecord | None:
    """The stored case a change-request number names (``CR-20261207-148197aa``, the
    client's short number, or ``CR-20261207-some-title--req-demo-148197aa``, the wiki
    page's long id; any case), resolved as ``etki cr export`` resolves it
    (:func:`etki.wiki.paths.cr_case_ref`, then :meth:`etki.services.Desk.case_id_for`),
    or None when ``page`` is no CR number or names no stored case (a page-name prefix,
    say: the caller then looks for the page by name). Raises ``InputError`` when the
    number's tail is short for more than one case."""
    from etki.wiki.paths import cr_case_ref

    stem = page.removesuffix(".md")
    ref = cr_case_ref(stem)
    if "/" in page or ref == stem:  # a path, or not a CR number
        return None
    try:
        return ctx.desk.case(ctx.desk.case_id_for(ref))
    except NotFoundError:
        return None


def _cr_page(ctx: _Context, case: CaseRecord, pid: str, root: Path) -> str:
    """The wiki-relative path of ``case``'s change-request page in project ``pid``'s
    wiki at ``root`` (:func:`etki.wiki.paths.cr_path`). Raises ``InputError`` for a case
    of another project or one not ruled CHANGE_REQUEST now, ``NotFoundError`` when the
    page is missing from the wiki."""
    from etki.wiki.paths import cr_path, has_cr_page

    if case.project_id != pid:
        raise InputError(f"case {case.case_id} belongs to project {case.project_id}, not {pid}")
    if not has_cr_page(case):
        now = "pending" if case.ruling is None else f"ruled {case.ruling.ruling}"
        raise InputError(
            f"case {case.case_id} is {now}, not CHANGE_REQUEST: it has no change-request "
            f"page (`{ctx.prog} show {case.case_id}` prints its decision page)"
        )
    rel = cr_path(case)
    if not (root / rel).is_file():
        raise NotFoundError(
            f"{rel} is missing from {root}; run `{ctx.prog} rebuild --project {pid}`"
        )
    return rel


def _cmd_show(ctx: _Context, args: argparse.Namespace) -> int:
    from etki.wiki.paths import decision_path
    from etki.wiki.writer import UnsafeWikiPath, read_page

    page, _, anchor = args.page.strip().partition("#")  # path#anchor: one clause section
    if not page:
        raise InputError("empty page name")
    looks_like_page = (
        page.startswith(("DEC-", "PRE-", "CR-")) or "/" in page or page.endswith(".md")
    )
    pid = args.project
    cr_case = _cr_case(ctx, page)  # a CR number, short or long: its case's CR page
    if cr_case is not None and not pid:
        pid = cr_case.project_id
    case = None
    if not looks_like_page and not pid:
        try:
            case = ctx.desk.case(page)
            pid = case.project_id
        except NotFoundError:
            case = None
    pid = ctx.project(pid)
    root = ctx.wiki_root(pid)
    rel = _cr_page(ctx, cr_case, pid, root) if cr_case is not None else resolve_page(root, page)
    if rel is None and not looks_like_page:
        if case is None:
            try:
                case = ctx.desk.case(page)
            except NotFoundError:
                case = None
        if case is not None:
            if case.project_id != pid:
                raise InputError(f"case {page} belongs to project {case.project_id}, not {pid}")
            if case.ruling is None:
                raise InputError(f"case {page} is pending: it has no decision page yet")
            rel = decision_path(case)
            if not (root / rel).is_file():
                raise NotFoundError(
                    f"{rel} is missing from {root}; run `{ctx.prog} rebuild --project {pid}`"
                )
    if rel is None:
        raise NotFoundError(f"no wiki page '{page}' in {root} (try `{ctx.prog} search`)")
    try:
        data = read_page(root, rel)
    except UnsafeWikiPath as exc:
        raise InputError(str(exc)) from exc
    if data is None:
        raise NotFoundError(
            f"{rel} is not a regular page in {root}; run `{ctx.prog} rebuild --project {pid}`"
        )
    text = data.decode("utf-8", errors="replace")
    if anchor:
        from etki.wiki.sections import find_section

        section = find_section(rel, text, anchor)
        if section is None:
            raise NotFoundError(f"no clause section '#{anchor}' on {rel}")
        text = section.text
    echo(text, end="" if text.endswith("\n") else "\n")
    return 0


def add_commands(sub: Any) -> None:
    """Add ``rebuild``, ``search``, ``show`` and ``verify`` to ``sub`` (the subparsers of
    ``python -m etki.wiki`` or of ``etki wiki``); each sets ``func=fn(ctx, args) -> int``."""
    p = sub.add_parser("rebuild", help="re-derive the wiki from the database")
    p.add_argument("--project", help="project id (default: every project)")
    p.set_defaults(func=_cmd_rebuild)

    p = sub.add_parser("search", help="token-AND search of the wiki")
    p.add_argument("query", nargs="+", help="words; every one must occur in a page")
    p.add_argument("--project", help="project id (default: the only project)")
    p.add_argument(
        "--no-rg",
        action="store_true",
        help="do not use ripgrep; a wiki of 200+ pages is then searched "
        "through its SQLite FTS5 index (built beside the wiki on first use)",
    )
    p.add_argument(
        "--backend",
        choices=("rg", "fts", "python"),
        default=None,
        help="choose the search backend (all give the same hits)",
    )
    many = p.add_mutually_exclusive_group()
    many.add_argument(
        "--limit",
        type=int,
        default=None,
        metavar="N",
        help="print the N best hits (default: 20; a contract page's hits are its clauses)",
    )
    many.add_argument("--all", action="store_true", help="print every hit")
    p.add_argument(
        "-n", "--line-number", action="store_true", help="print path:line before the snippet"
    )
    p.set_defaults(func=_cmd_search)

    p = sub.add_parser("show", help="print a page")
    p.add_argument(
        "page",
        help="DEC-..., PRE-..., CR-... (also a CR's short number CR-yyyymmdd-TAIL), index, "
        "disputed, a case id, a path or path#anchor",
    )
    p.add_argument("--project", help="project id (default: the case's or the only one)")
    p.set_defaults(func=_cmd_show)

    p = sub.add_parser("verify", help="list files that differ from a fresh render")
    p.add_argument("--project", help="project id (default: every project)")
    p.set_defaults(func=_cmd_verify)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m etki.wiki`` (exposed for tests and ``--help``)."""
    parser = SafeArgumentParser(
        prog=PROG, description="Etki's decision wiki: a projection of the database."
    )
    add_commands(parser.add_subparsers(dest="command", required=True, metavar="COMMAND"))
    return parser


def _run_in_etki(args: argparse.Namespace, settings: Settings) -> int:
    """The handler of ``etki wiki COMMAND``: errors go to :func:`etki.cli.main`."""
    return int(args.func(_Context(settings, "etki wiki"), args))


def register(subparsers: Any) -> None:
    """Add ``etki wiki rebuild|search|show|verify`` to the ``etki`` parser (the same
    commands, arguments, output and exit codes as ``python -m etki.wiki``)."""
    wiki = subparsers.add_parser(
        "wiki",
        help="rebuild, search, show or verify the wiki",
        description="Etki's decision wiki: a projection of the database.",
    )
    add_commands(wiki.add_subparsers(dest="wiki_command", required=True, metavar="COMMAND"))
    wiki.set_defaults(handler=_run_in_etki)


def _error(message: str) -> None:
    echo(f"{PROG}: error: {message}", file=sys.stderr, multiline=False)


def main(argv: Sequence[str] | None = None, settings: Settings | None = None) -> int:
    """Run the CLI; returns the exit code (see the module docstring)."""
    configure_streams()
    configure_logging(PROG)
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        from etki import progress

        logging.getLogger().setLevel(progress.log_level())  # ETKI_LOG_LEVEL; bad: exit 2
        progress.enable()  # a bar for `rebuild` on a terminal; nothing in a pipe
        from etki.config import Settings

        ctx = _Context(settings or Settings.from_env())
        return int(args.func(ctx, args))
    except EtkiError as exc:
        _error(str(exc))
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `... | head`: the reader left; not an error
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        _error(os_error_message(exc))
        return 1
    except Exception as exc:  # noqa: BLE001 - the CLI never shows a traceback
        report_internal_error(PROG, exc)  # no SQL, no client text; ETKI_DEBUG=1 for more
        return 1
