"""The core never imports Textual (DESIGN.md: etki/ has no Textual import anywhere)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

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


def _imported_by(argv: list[str], env: dict[str, str] | None = None) -> set[str]:
    """Top-level package names a fresh ``etki ARGV`` process imported (its exit status
    is not checked: only what it loaded on the way)."""
    import os

    code = (
        "import sys\n"
        "from etki.cli import main\n"
        f"sys.argv = ['etki', *{argv!r}]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('MODULES=' + ','.join(sorted({m.split('.')[0] for m in sys.modules})),"
        " file=sys.__stderr__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
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
    loaded = _imported_by(["queue", "--project", "demo"], {"ETKI_DB_URL": url, "ETKI_WIKI_DIR": ""})
    assert "sqlalchemy" in loaded  # it did read the store
    assert not loaded & {"alembic", "mako", "textual"}, loaded
