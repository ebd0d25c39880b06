"""The impacted modules of the client-facing change request (a PMO trial of issue 35:
the engine's module guess went into the document and ``etki cr edit`` could not change
it). ``--module ID`` (repeatable) chooses them, checked against the project's modules,
``--no-modules`` names none, ``--default-modules`` goes back to the decision's; written
as the other terms are (a ``cr_terms`` event with its audit row). Real stores (SQLite,
PostgreSQL where it answers), the real CLI."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from etki.errors import InputError
from etki.services import Desk
from tests.cli_support import run_etki
from tests.test_cr_client import REVIEWER, _overridden, desk, docx_text

__all__ = ["desk"]  # the fixture, imported for pytest


def _section(md: str, head: str) -> str:
    """The section ``head`` of a Markdown document, its escapes (``integration\\.ad``)
    undone."""
    return md.split(f"## {head}", 1)[1].split("\n## ", 1)[0].replace("\\", "")


def test_the_pmo_chooses_the_impacted_modules(desk: Desk) -> None:
    case = _overridden(desk)
    cid = case.case_id
    engine = case.decision.impacted_modules
    assert engine and "payments.water" not in engine
    md = desk.cr_document(cid, "md")[1].decode()
    assert all(m in _section(md, "Impacted modules") for m in engine)  # the default

    done, _ = desk.set_cr_terms(cid, modules=["payments.water", "Core.I18N", "payments.water"])
    assert done.modules == ("payments.water", "core.i18n")  # folded to the id, once
    md = desk.cr_document(cid, "md")[1].decode()
    part = _section(md, "Impacted modules")
    assert "payments.water" in part and "core.i18n" in part
    assert not [m for m in engine if m not in ("payments.water", "core.i18n") and m in part]
    assert "payments.water" in docx_text(desk.cr_document(cid, "docx")[1])
    desk.set_cr_terms(cid, valid_until="2099-01-31")  # the choice stays
    assert desk.case(cid).cr_modules == ("payments.water", "core.i18n")

    with pytest.raises(
        InputError, match=r"no module 'payments.watr' in project demo; did you mean payments.water"
    ):
        desk.set_cr_terms(cid, modules=["payments.watr"])
    assert desk.case(cid).cr_modules == ("payments.water", "core.i18n")  # nothing written

    done, _ = desk.set_cr_terms(cid, modules=[])
    assert done.modules == () and desk.case(cid).cr_modules == ()
    assert "None named." in _section(desk.cr_document(cid, "md")[1].decode(), "Impacted modules")
    done, _ = desk.set_cr_terms(cid, default_modules=True)
    assert done.modules is None and desk.case(cid).cr_modules == tuple(engine)

    history = [e.text for e in desk.repo.case_history(cid) if e.kind == "cr_terms"]
    assert history == [
        "0 assumptions, 0 exclusions, no validity date, names modules payments.water, core.i18n",
        (
            "0 assumptions, 0 exclusions, valid until 2099-01-31, "
            "names modules payments.water, core.i18n"
        ),
        "0 assumptions, 0 exclusions, valid until 2099-01-31, names no modules",
        "0 assumptions, 0 exclusions, valid until 2099-01-31",
    ]
    audit = [r for r in desk.repo.audit_log(cid) if r[2] == "cr_terms"]
    assert len(audit) == 4


def test_cr_edit_module_options(desk: Desk, tmp_path: Path) -> None:
    if desk.settings.db_url.startswith("postgresql"):
        pytest.skip("the command is the desk's; its backends are covered above")
    case = _overridden(desk)
    env = {**os.environ, "ETKI_DB_URL": desk.settings.db_url, "ETKI_REVIEWER": REVIEWER}
    env.pop("ETKI_WIKI_DIR", None)

    def etki(*args: str):  # noqa: ANN202 - a CompletedProcess
        return run_etki(["cr", "edit", case.case_id, *args], env=env, cwd=tmp_path)

    done = etki("--module", "payments.water", "--module", "core.i18n")
    assert done.returncode == 0, done.stderr
    assert "  impacted modules: payments.water, core.i18n\n" in done.stdout
    done = etki("--module", "nosuch")
    assert done.returncode == 2
    assert "no module 'nosuch' in project demo" in done.stderr
    done = etki("--module", "x", "--no-modules")
    assert done.returncode == 2 and "--module and --no-modules together" in done.stderr
    shown = run_etki(["show", case.case_id], env=env, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    chosen = [ln for ln in lines if ln.startswith("CR document modules: ")]
    assert len(chosen) == 1
    assert chosen[0].startswith(
        f"CR document modules: payments.water, core.i18n (chosen by {REVIEWER} at "
    )
    assert any(ln.endswith("names modules payments.water, core.i18n") for ln in lines)
    done = etki("--no-modules")
    assert done.returncode == 0 and "  impacted modules: none\n" in done.stdout
    shown = run_etki(["show", case.case_id], env=env, cwd=tmp_path)
    lines = shown.stdout.splitlines()
    assert [ln for ln in lines if ln.startswith("CR document modules: ")] == [
        next(ln for ln in lines if ln.startswith("CR document modules: none (chosen by "))
    ]
    assert lines[-1].endswith(", names no modules")
    done = etki("--default-modules")
    want = ", ".join(case.decision.impacted_modules)
    assert f"  impacted modules: {want} (the default: the decision's)\n" in done.stdout
    out = run_etki(["cr", "export", case.case_id], env=env, cwd=tmp_path)
    assert out.returncode == 0
    part = _section(out.stdout, "Impacted modules")
    assert all(m in part for m in case.decision.impacted_modules)
