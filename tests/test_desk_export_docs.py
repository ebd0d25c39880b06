"""What the README and the desk's help say of the desk's exports (a PMO trial of issue
35): the export key ``e`` (the filtered queue, the reports shown) was documented only in
the desk's ``?`` help, and ``D``'s help named ``etki cr export --format md|html``
without docx. Read from the action table the desk binds its keys from."""

from __future__ import annotations

from pathlib import Path

from etki.domain.crterms import CR_FORMATS
from etki_tui.actions import ACTIONS
from tests.cli_support import run_etki

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_names_the_desks_export_key() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    assert ACTIONS["export.queue"].key == "e" and ACTIONS["export.report"].key == "e"
    keys = readme.split("## Using it", 1)[1].split("\n## ", 1)[0]  # the desk's keys
    assert "`e` exports\nwhat is shown to a file" in keys
    assert "on the queue the cases listed now" in keys and "on Raporlar every report" in keys
    reports = readme.split("## Reports", 1)[1].split("\n## ", 1)[0]
    assert "`e` on Raporlar\nexports the reports" in reports


def test_the_cr_document_help_names_every_export_format(tmp_path: Path) -> None:
    import os

    usage = run_etki(["cr", "export", "--help"], env=dict(os.environ), cwd=tmp_path)
    assert "--format {md,html,docx}" in usage.stdout  # what the command accepts
    assert CR_FORMATS == ("md", "html", "docx")  # the one list both read
    assert "`etki cr export CASE --format md|html|docx` writes it" in ACTIONS["cr_document"].help
