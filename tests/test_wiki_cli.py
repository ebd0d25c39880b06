"""``python -m etki.wiki`` and ``etki wiki`` with ETKI_DB_URL / ETKI_WIKI_DIR: each
form once as a real subprocess, the rest through the same ``main`` in this process
(:func:`tests.cli_support.run_etki`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from etki.wiki.paths import decision_path
from tests.cli_support import run_etki
from tests.wiki_support import build_world, tree_digest


@pytest.fixture
def world(tmp_path):
    w = build_world(tmp_path)
    yield w
    w.repo.dispose()


def _run(
    world,
    *args: str,
    wiki: str | None = None,
    module: tuple[str, ...] = ("etki.wiki",),
    process: bool = False,
) -> subprocess.CompletedProcess:
    """``python -m MODULE ARGS`` on the world's store and wiki: in this process, or as a
    real subprocess when ``process``."""
    env = dict(os.environ)
    env["ETKI_DB_URL"] = world.db_url
    env["ETKI_WIKI_DIR"] = str(world.tmp / "wiki-{project}") if wiki is None else wiki
    env["PYTHONIOENCODING"] = "utf-8"
    if not process:
        if module == ("etki.wiki",):
            return run_etki(args, env=env, cwd=world.tmp, program="etki.wiki")
        assert module[0] == "etki.cli", module
        return run_etki([*module[1:], *args], env=env, cwd=world.tmp)
    return subprocess.run(
        [sys.executable, "-m", *module, *args],
        env=env,
        cwd=world.tmp,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )


def _no_traceback(done: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) <= 1


def test_rebuild_then_delete_and_rebuild(world):
    done = _run(world, "rebuild", process=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("demo: ") and "written" in done.stdout
    first = tree_digest(world.wiki)
    assert any(p.startswith("decisions/DEC-20261129-") for p in first)
    shutil.rmtree(world.wiki)
    assert _run(world, "rebuild", "--project", "demo").returncode == 0
    assert tree_digest(world.wiki) == first
    done = _run(world, "verify")
    assert done.returncode == 0 and "ok" in done.stdout


def test_search_prints_path_then_snippet(world):
    _run(world, "rebuild")
    done = _run(world, "search", "SSO")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines
    paths = [line.split("\t", 1)[0] for line in lines]
    assert decision_path(world.repo.case("req-demo-0003")) in paths
    # a page, or a contract page's clause section (path#anchor) on a page
    assert all((world.wiki / p.partition("#")[0]).is_file() for p in paths)
    assert all(len(line.split("\t", 1)) == 2 for line in lines)
    python_only = _run(world, "search", "SSO", "--no-rg", "--project", "demo")
    assert python_only.stdout == done.stdout
    turkish = _run(world, "search", "İADE", "ılık")
    assert decision_path(world.repo.case("req-demo-0004")) in turkish.stdout


def test_search_without_hits_says_so_on_stderr(world):
    _run(world, "rebuild")
    done = _run(world, "search", "zzqqxx")
    assert done.returncode == 0 and done.stdout == ""
    assert "no results" in done.stderr
    _no_traceback(done)


def test_show_by_page_id_and_case_id(world):
    _run(world, "rebuild")
    path = decision_path(world.repo.case("req-demo-0001"))
    page_id = path.split("/")[1].removesuffix(".md")
    expected = (world.wiki / path).read_text("utf-8")
    for ref in (page_id, page_id + ".md", path, "req-demo-0001", page_id[:24]):
        done = _run(world, "show", ref, "--project", "demo")
        assert done.returncode == 0, (ref, done.stderr)
        assert done.stdout == expected
    assert _run(world, "show", "req-demo-0001").stdout == expected  # project from the case
    assert _run(world, "show", "index").stdout.startswith("---\n")
    assert "# Disputed clauses" in _run(world, "show", "disputed.md").stdout


def test_show_prints_client_text_without_control_characters(world):
    _run(world, "rebuild")
    done = _run(world, "show", "req-demo-0001")
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    assert "[bold]x[/bold]" in done.stdout and "<script>" in done.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("show", "DEC-nope", "--project", "demo"),
        ("show", "req-demo-0006"),  # pending: no decision page yet
        ("show", "../etki.db", "--project", "demo"),
        ("show", "req-unknown"),
        ("rebuild", "--project", "nope"),
        ("search", "x", "--limit", "0", "--project", "demo"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(world, args):
    _run(world, "rebuild")
    done = _run(world, *args)
    assert done.returncode == 2, (args, done.stdout, done.stderr)
    assert done.stderr.startswith("python -m etki.wiki: error: ")
    _no_traceback(done)


def test_verify_exits_1_on_a_hand_edit(world):
    _run(world, "rebuild")
    (world.wiki / "index.md").write_text("edited\n", encoding="utf-8")
    done = _run(world, "verify", "--project", "demo")
    assert done.returncode == 1 and "index.md" in done.stdout


def test_wiki_off(world):
    done = _run(world, "rebuild", wiki="")
    assert done.returncode == 0 and "wiki off" in done.stdout
    assert not world.wiki.exists()
    done = _run(world, "search", "SSO", wiki="")
    assert done.returncode == 2 and "wiki is off" in done.stderr
    _no_traceback(done)


ETKI_WIKI = ("etki.cli", "wiki")


def test_etki_wiki_is_the_same_command(world):
    """``etki wiki COMMAND`` prints what ``python -m etki.wiki COMMAND`` prints, with the
    same exit codes; its errors and hints name ``etki``."""
    rebuilt = _run(world, "rebuild", module=ETKI_WIKI, process=True)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert rebuilt.stdout.startswith("demo: ") and "written" in rebuilt.stdout
    digest = tree_digest(world.wiki)
    again = _run(world, "rebuild")
    assert again.returncode == 0 and tree_digest(world.wiki) == digest
    for args in (
        ("verify",),
        ("search", "SSO"),
        ("search", "SSO", "-n", "--no-rg"),
        ("show", "req-demo-0001"),
        ("show", "index", "--project", "demo"),
    ):
        standalone, grouped = _run(world, *args), _run(world, *args, module=ETKI_WIKI)
        assert standalone.returncode == grouped.returncode == 0, (args, grouped.stderr)
        assert grouped.stdout == standalone.stdout and grouped.stdout, args
    (world.wiki / "index.md").write_text("edited\n", encoding="utf-8")
    drift = _run(world, "verify", "--project", "demo", module=ETKI_WIKI)
    assert drift.returncode == 1 and "changed: index.md" in drift.stdout
    assert "run `etki wiki rebuild` to restore" in drift.stdout
    bad = _run(world, "show", "DEC-nope", "--project", "demo", module=ETKI_WIKI)
    assert bad.returncode == 2 and bad.stderr.startswith("etki: error: no wiki page")
    assert "(try `etki wiki search`)" in bad.stderr
    _no_traceback(bad)
    off = _run(world, "search", "SSO", wiki="", module=ETKI_WIKI)
    assert off.returncode == 2 and "wiki is off" in off.stderr
