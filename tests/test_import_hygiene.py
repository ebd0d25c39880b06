"""The core never imports Textual (DESIGN.md: etki/ has no Textual import anywhere)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import pytest

import etki


def test_etki_never_imports_textual():
    modules = sorted(m.name for m in pkgutil.walk_packages(etki.__path__, "etki."))
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    if name.endswith('__main__'): continue\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"etki imported textual: {out.stdout}"
    assert len(modules) > 5


def _imported_by(argv: list[str], env: dict[str, str] | None = None, stdin: str = "") -> set[str]:
    """Top-level package names, and the ``etki`` modules by their full names, a fresh
    ``etki ARGV`` process imported (its exit status is not checked: only what it loaded
    on the way)."""
    import os

    code = (
        "import sys\n"
        "from etki.cli import main\n"
        f"sys.argv = ['etki', *{argv!r}]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "names = {m.split('.')[0] for m in sys.modules}"
        " | {m for m in sys.modules if m.startswith('etki.')}\n"
        "print('MODULES=' + ','.join(sorted(names)),"
        " file=sys.__stderr__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        input=stdin,
        env={**os.environ, **(env or {})},
    )
    line = next(x for x in done.stderr.splitlines() if x.startswith("MODULES="))
    return set(line.removeprefix("MODULES=").split(","))


def test_etki_help_imports_no_database_migration_or_ui_library():
    """Issue 15: ``etki --help`` starts in a blink — it builds the parser without
    SQLAlchemy, Alembic (and through it Mako and Pygments), Textual or numpy (the
    triage engine's scoring arrays)."""
    loaded = _imported_by(["--help"])
    assert not loaded & {"sqlalchemy", "alembic", "mako", "pygments", "textual", "numpy"}, loaded


def test_a_command_on_a_store_at_the_head_revision_never_imports_alembic(tmp_path):
    """Opening a store that is already at the newest revision compares one row with
    ``HEAD_REVISION``; Alembic is imported only to migrate."""
    from etki.config import Settings
    from etki.services import init_project
    from etki.store import CaseFileRepository
    from tests.conftest import REPO_ROOT

    url = f"sqlite:///{tmp_path}/etki.db"
    repo = CaseFileRepository(url)
    init_project(REPO_ROOT / "sample_project", repo, Settings(db_url=url, wiki_dir=None))
    repo.dispose()
    env = {"ETKI_DB_URL": url, "ETKI_WIKI_DIR": "", "ETKI_LEAN_READ": "0"}  # the ORM path
    loaded = _imported_by(["queue", "--project", "demo"], env)
    assert "sqlalchemy" in loaded  # it did read the store
    assert not loaded & {"alembic", "mako", "textual"}, loaded


@pytest.mark.parametrize(
    "argv",
    [
        ["queue"],
        ["queue", "--json"],
        ["queue", "--all"],
        ["queue", "--project", "demo"],
        ["queue", "--project", "nope"],  # refused without loading the engagement
        ["projects"],
        ["dispute", "list"],
        ["db", "current"],
        ["report"],
        ["report", "--format", "json", "--until", "2030-01-01"],
        ["report", "--format", "csv", "--reviewer", "nobody"],  # refused
        ["report", "--project", "nope"],  # refused
    ],
)
def test_read_commands_take_the_lean_path_without_sqlalchemy(demo_store_url, argv):
    """Issue 32 item 1: the read commands read the store with plain SQL
    (:mod:`etki.store.lean`): no SQLAlchemy (so neither ``sqlalchemy.orm``), no ORM, no
    Textual, no knowledge of the project; ``etki report`` included
    (:mod:`etki.store.lean_report`)."""
    loaded = _imported_by(argv, {"ETKI_DB_URL": demo_store_url, "ETKI_WIKI_DIR": ""})
    assert "etki.store.lean" in loaded
    assert not loaded & (HEAVY | {"etki.services", "etki.store.repository"}), sorted(
        loaded & (HEAVY | {"etki.services", "etki.store.repository"})
    )


def test_dispute_list_loads_only_the_parts_of_the_domain_it_prints(demo_store_url):
    """Issue 32 item 1: ``etki dispute list`` needs a disputed clause, a resolution and
    the evidence format's markers; importing the whole domain (41 frozen dataclasses)
    was a fifth of its CPU on the 10k store. ``etki.domain`` loads its parts on first
    use, so the command imports :mod:`etki.domain.disputes`,
    :mod:`etki.domain.evidence` and :mod:`etki.domain.corrections` (what a ruling is
    about, :func:`etki.memory.ruled_about`) alone."""
    loaded = _imported_by(["dispute", "list"], {"ETKI_DB_URL": demo_store_url, "ETKI_WIKI_DIR": ""})
    assert {"etki.domain.disputes", "etki.memory"} <= loaded
    assert {m for m in loaded if m.startswith("etki.domain.")} <= {
        "etki.domain.corrections",
        "etki.domain.disputes",
        "etki.domain.evidence",
    }, sorted(m for m in loaded if m.startswith("etki.domain."))


@pytest.fixture(scope="module")
def demo_store_url(tmp_path_factory):
    """The sample project stored in a SQLite file (once for the module)."""
    from etki.config import Settings
    from etki.services import init_project
    from etki.store import CaseFileRepository
    from tests.conftest import REPO_ROOT

    url = f"sqlite:///{tmp_path_factory.mktemp('lean')}/etki.db"
    repo = CaseFileRepository(url)
    init_project(REPO_ROOT / "sample_project", repo, Settings(db_url=url, wiki_dir=None))
    repo.dispose()
    return url


HEAVY = {"sqlalchemy", "alembic", "mako", "pygments", "textual", "numpy", "yaml", "markdown_it"}
"""Libraries a command needs only once it reads a store, a project or the screen."""


@pytest.mark.parametrize(
    "argv, stdin",
    [
        (["--version"], ""),
        (["queue", "--help"], ""),
        (["rule", "X", "cr", "--amend"], ""),  # an amendment without a reason
        (["rule", "X", "maybe"], ""),  # not an action
        (["add", "-"], ""),  # empty standard input
        (["add", "   "], ""),
        (["note", "X", " "], ""),
        (["claim"], ""),  # a missing argument
    ],
)
def test_usage_and_validation_errors_load_nothing_heavy(argv, stdin):
    """Issue 32 item 2: arguments and input are checked before the store, the engine or
    a parser library is imported, so a mistyped command answers at once."""
    loaded = _imported_by(argv, stdin=stdin)
    assert not loaded & HEAVY, sorted(loaded & HEAVY)
    assert "etki.services" not in loaded and "etki.domain" not in loaded


def test_etki_tui_help_loads_neither_the_store_nor_textual():
    """Issue 32 item 2: ``etki-tui --help`` parses its arguments before the desk."""
    code = (
        "import sys\n"
        "from etki_tui.__main__ import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('MODULES=' + ','.join(sorted(sys.modules)), file=sys.__stderr__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "usage: etki-tui" in done.stdout
    line = next(x for x in done.stderr.splitlines() if x.startswith("MODULES="))
    loaded = set(line.removeprefix("MODULES=").split(","))
    assert not {m.split(".")[0] for m in loaded} & HEAVY
    assert "etki.services" not in loaded and "etki_tui.app" not in loaded
