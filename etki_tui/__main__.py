"""``etki-tui [PROJECT_DIR] [--project ID]`` (also ``python -m etki_tui``): the command
line of the reviewer's desk. It picks the project to open (loading a project folder
first when given), then runs :class:`etki_tui.app.EtkiApp` with log records and warnings
kept off the screen.
"""

from __future__ import annotations

import argparse
import logging
import sys
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from etki.config import Settings
from etki.console import (
    SafeArgumentParser,
    configure_logging,
    configure_streams,
    echo,
    report_internal_error,
)
from etki.errors import EtkiError, InputError, StoreMissingError
from etki.identity import set_program
from etki_tui.errors import one_line

if TYPE_CHECKING:  # the store, the engine and Textual load after the arguments are read
    from etki.services import Desk, InitSummary


class _Parser(SafeArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One line, exit 2, no usage dump."""
        raise InputError(message)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="etki-tui",
        description="Etki reviewer desk: triage queue, Hafıza "
        "(memory) and Raporlar (reports) for one project. Press ? or F1 in the desk "
        "for the keys; a keymap: section in $XDG_CONFIG_HOME/etki/config.yaml (or "
        "ETKI_CONFIG_FILE) remaps them.",
    )
    p.add_argument(
        "project_dir",
        nargs="?",
        metavar="PROJECT_DIR",
        help="project folder to load (only new requests are triaged), then open",
    )
    p.add_argument("--project", metavar="ID", help="id of a stored project to open")
    return p


def choose_project(
    desk: Desk, project_dir: str | None, project: str | None
) -> tuple[str, InitSummary | None]:
    """Which project to open, loading ``project_dir`` first when given (idempotent:
    only requests not stored yet are triaged). Raises :class:`InputError` with a
    message that says what to do."""
    if project_dir:
        folder = Path(project_dir)
        if not folder.is_dir():
            raise InputError(f"no such project folder: {project_dir}")
        summary = desk.init_project(folder)
        if project and project != summary.project_id:
            raise InputError(
                f"--project {project} does not match the folder's id '{summary.project_id}'"
            )
        return summary.project_id, summary
    ids = desk.project_ids()
    if project:
        if project not in ids:
            known = ", ".join(ids) or "none"
            raise InputError(
                f"no project '{project}' in the store (known: {known}); "
                "load it with: etki-tui PROJECT_DIR"
            )
        return project, None
    ids = desk.active_project_ids() or ids  # an archived project only when named (issue 35)
    if not ids:
        raise InputError(
            "no project in the store yet. Start with: etki-tui PROJECT_DIR "
            "(for example: etki-tui sample_project), or etki init PROJECT_DIR"
        )
    return ids[0], None


@contextmanager
def quiet_logging() -> Iterator[None]:
    """While the desk runs, route log records and warnings (from any thread, any
    library) away from the terminal — they would tear the screen — to ``textual
    console`` when it runs. Restores the previous setup afterwards."""
    from textual.logging import TextualHandler

    handler = TextualHandler(stderr=False, stdout=False)
    saved: list[tuple[logging.Logger, list[logging.Handler], int, bool]] = []
    for name in ("", "etki", "py.warnings"):
        logger = logging.getLogger(name)
        saved.append((logger, logger.handlers[:], logger.level, logger.propagate))
        logger.handlers[:] = [handler]
        logger.setLevel(logging.WARNING)
        logger.propagate = False
    captured = logging.captureWarnings
    with warnings.catch_warnings():
        captured(True)
        try:
            yield
        finally:
            captured(False)
            for logger, handlers, level, propagate in saved:
                logger.handlers[:] = handlers
                logger.setLevel(level)
                logger.propagate = propagate


def main(argv: Sequence[str] | None = None) -> int:
    """``etki-tui [PROJECT_DIR] [--project ID]``. Exit codes: 0 ok (also after a hang-up
    or end of input), 2 bad input, 1 internal error; errors are one line on stderr."""
    set_program("etki-tui")  # the audit's program column
    configure_streams()
    configure_logging("etki-tui")  # until the desk runs (it routes logs away then)
    try:
        args = _parser().parse_args(argv)
        # `--help` and a usage error end above without loading the store or Textual
        from etki.services import Desk
        from etki_tui.config import load_config
        from etki_tui.queue.views import problems

        settings = Settings.from_env()
        config = load_config(settings.config_file, view_check=problems)
        if args.project_dir and not Path(args.project_dir).is_dir():
            raise InputError(f"no such project folder: {args.project_dir}")
        folder = bool(args.project_dir)
        # only a project folder to load makes a store; `--project ID` alone with no store
        # is refused, not answered with a new empty one (a trial found /tmp/.etki made)
        try:
            desk = Desk.open(settings, create=folder)
        except StoreMissingError as exc:  # a new user's first `etki-tui`: say how to start
            raise StoreMissingError(
                exc.location,
                f"{exc}; start with: etki-tui PROJECT_DIR (for example: etki-tui sample_project)",
            ) from exc
        if folder:  # errors stay one line
            echo(f"etki-tui: loading {args.project_dir} …", multiline=False)
            sys.stdout.flush()
        project_id, summary = choose_project(desk, args.project_dir, args.project)
    except EtkiError as exc:
        echo(f"etki-tui: {one_line(exc)}", file=sys.stderr, multiline=False)
        return 2 if isinstance(exc, InputError) else exc.exit_code
    except Exception as exc:  # never a traceback, never SQL or client text
        report_internal_error("etki-tui", exc)
        return 1
    from etki_tui.app import EtkiApp

    app = EtkiApp(desk, project_id, init_summary=summary, config=config)
    with quiet_logging():
        app.run()
    return app.return_code or 0


if __name__ == "__main__":
    raise SystemExit(main())
