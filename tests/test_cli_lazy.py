"""``etki CMD`` builds only the parsers of the module that registers CMD
(:data:`etki.commands.COMMANDS`, issue 32 item 2): the table must name every command of
every module, and a lazily built parser must say what the full one says."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io

import pytest

from etki import __version__, cli
from etki.commands import COMMANDS, MODULES


def _registered() -> dict[str, str]:
    """Command -> module, in registration order, as the modules themselves register."""
    found: dict[str, str] = {}
    for name in MODULES:
        sub = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(name).register(sub)
        found.update(dict.fromkeys(sub.choices, name))
    return found


def test_the_table_names_every_registered_command_in_order() -> None:
    assert list(COMMANDS.items()) == list(_registered().items())


def _said(argv: list[str], parser: argparse.ArgumentParser) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        pytest.raises(SystemExit) as exited,
    ):
        parser.parse_args(argv)
    return int(exited.value.code or 0), out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    "argv",
    [
        ["queue", "--help"],
        ["queue", "--bogus"],
        ["rule", "--help"],
        ["wiki", "search", "--help"],
        ["eval", "triage", "--help"],
        ["project", "archive"],
        ["-v", "report", "--format", "nope"],
    ],
)
def test_a_command_parser_says_what_the_full_parser_says(argv: list[str]) -> None:
    command = cli._command_of(argv)
    assert command in COMMANDS
    assert _said(argv, cli._parser(command)) == _said(argv, cli._parser())


def test_version_needs_no_command_module() -> None:
    code, out, _ = _said(["--version"], cli._parser(None, version_only=True))
    assert (code, out) == (0, f"etki {__version__}\n")
    assert _said(["--version"], cli._parser()) == (0, out, "")


def test_top_level_help_lists_every_command() -> None:
    code, out, _ = _said(["--help"], cli._parser())
    assert code == 0
    for command in COMMANDS:
        assert f"\n    {command} " in out
