"""Saved queue views in the desk's config file (issue 35 item 5; the PMO trial's data
loss): a save reads the file as it is now, changes only that one view and keeps every
other line as written (comments, other settings, hand-written views, views another desk
saved, and the invalid ones the desk warned about), writes atomically under a file
lock, and never rewrites a file it cannot read. Real files, and real processes for the
lock and a race; the start-up warning of an invalid view names the field and value."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from etki_tui.config import load_config, save_view, view_edit
from etki_tui.queue.views import problems

HAND = """\
# Ayşe's desk: hand-written, keep the comments
keymap:
  approve: Y   # capital
views:
  # the four views the PMO wrote by hand
  benim işlerim:
    mine: true
  Jörg's CRs:   # payments
    verdict: CHANGE_REQUEST
    text: "module:payments by:jörg"
  riskli:
    risk: high
    sort: risk
  'no':
    sureness: unsure
  bozuk:
    verdict: MAYBE
    sort: 12
refresh_seconds: 5  # seconds
"""
"""A config file as a PMO writes it: comments, a keymap, four good views (one named
``no``, a YAML 1.1 boolean word), the trial's invalid one, a setting after the views."""
GOOD = {
    "benim işlerim": {"mine": True},
    "Jörg's CRs": {"verdict": "CHANGE_REQUEST", "text": "module:payments by:jörg"},
    "riskli": {"risk": "high", "sort": "risk"},
    "no": {"sureness": "unsure"},
}


def _views(path: Path) -> dict[str, dict[str, object]]:
    config = load_config(str(path), view_check=problems)
    return config.views


def test_the_invalid_view_is_named_with_its_fields_and_values(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(HAND, encoding="utf-8")
    config = load_config(str(path), view_check=problems)
    assert config.views == GOOD and config.keymap == {"approve": "Y"}
    assert config.warnings == (
        (
            "views: 'bozuk': verdict 'MAYBE' is not one of IN_SCOPE, CHANGE_REQUEST, REJECT; "
            "sort 12 is not one of queue, oldest, newest, confidence, risk, unsure, sure; "
            f"view ignored (it stays in {path})."
        ),
    )
    # without the queue's vocabulary (a caller below the queue): the type alone
    assert load_config(str(path)).warnings == (
        f"views: 'bozuk': sort 12 is not a word or true/false; view ignored (it stays in {path}).",
    )
    odd = tmp_path / "odd.yaml"
    odd.write_text(
        "views:\n  x: [1]\n  '': {mine: true}\n  k: {colour: red, mine: 'yes'}\n", encoding="utf-8"
    )
    assert load_config(str(odd), view_check=problems).warnings == (
        f"views: 'x' must map filter fields to values (got [1]); view ignored (it stays in {odd}).",
        f"views: the name '' is not 1-40 characters of text; view ignored (it stays in {odd}).",
        (
            "views: 'k': colour is not a queue filter (known: mine, disputed, verdict, risk, "
            "band, age, sureness, sort, text); mine 'yes' is not true or false; view ignored "
            f"(it stays in {odd})."
        ),
    )


def test_a_save_changes_only_its_view_and_keeps_every_other_line(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(HAND, encoding="utf-8")
    save_view(path, "Çiğdem'in işleri", {"mine": True, "sureness": "unsure"})
    text = path.read_text(encoding="utf-8")
    added = "  Çiğdem'in işleri:\n    mine: true\n    sureness: unsure\n"
    assert text == HAND.replace("refresh_seconds:", added + "refresh_seconds:")
    assert _views(path) == {**GOOD, "Çiğdem'in işleri": {"mine": True, "sureness": "unsure"}}
    # replaced in place: its lines only (with the comment on its key line)
    save_view(path, "Jörg's CRs", {"verdict": "REJECT"})
    text = path.read_text(encoding="utf-8")
    assert "  Jörg's CRs:\n    verdict: REJECT\n  riskli:" in text
    assert text.replace("  Jörg's CRs:\n    verdict: REJECT\n", "") == HAND.replace(
        '  Jörg\'s CRs:   # payments\n    verdict: CHANGE_REQUEST\n    text: "module:payments by:jörg"\n',
        "",
    ).replace("refresh_seconds:", added + "refresh_seconds:")
    # deleted: its lines go, the invalid view and every comment stay
    save_view(path, "Jörg's CRs", None)
    save_view(path, "Çiğdem'in işleri", None)
    assert path.read_text(encoding="utf-8") == HAND.replace(
        '  Jörg\'s CRs:   # payments\n    verdict: CHANGE_REQUEST\n    text: "module:payments by:jörg"\n',
        "",
    )
    # the same fields again, or deleting what is not there: the file is not touched
    before = path.stat().st_mtime_ns
    save_view(path, "riskli", {"risk": "high", "sort": "risk"})
    save_view(path, "nothing here", None)
    assert path.stat().st_mtime_ns == before


def test_a_desk_that_started_before_the_file_keeps_what_others_wrote(tmp_path: Path) -> None:
    """The trial: a desk started with no config file saves its view after the PMO
    wrote four views by hand and another desk saved one: all six stay."""
    path = tmp_path / "etki" / "config.yaml"
    at_start = load_config(str(path), view_check=problems)
    assert at_start.views == {}  # the desk's view of the file: nothing
    path.parent.mkdir()
    path.write_text(HAND, encoding="utf-8")  # by hand, while the desk runs
    save_view(path, "other desk", {"verdict": "REJECT"})  # another desk
    save_view(path, "mine", {"mine": True})  # this desk
    assert _views(path) == {**GOOD, "other desk": {"verdict": "REJECT"}, "mine": {"mine": True}}
    assert "bozuk:\n    verdict: MAYBE\n    sort: 12\n" in path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("views:\n  a: {mine: true\n", "is not valid YAML (line 3)"),
        ("keymap: &k {approve: Y}\nviews: *k\n", "is not valid YAML (line 1)"),
        ("- a\n- b\n", "does not hold a mapping of settings"),
        ("{keymap: {approve: Y}}\n", "is written in flow style"),
        ("views: [a, b]\n", "has a 'views:' that is not a mapping"),
        ("views:\n  a: {mine: true}\nviews:\n  b: {}\n", "is not valid YAML"),
    ],
)
def test_a_file_it_cannot_read_is_never_rewritten(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "config.yaml"
    path.write_bytes(text.encode("utf-8"))
    with pytest.raises(ValueError, match="the view was not saved and the file is unchanged") as e:
        save_view(path, "mine", {"mine": True})
    assert why in str(e.value)
    assert path.read_bytes() == text.encode("utf-8")
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_empty_and_flow_sections_crlf_and_a_symlinked_file(tmp_path: Path) -> None:
    # an empty views: (or one in flow style) is written as a block, its entries kept
    assert view_edit(tmp_path / "c.yaml", "views:\nx: 1\n", "a", {"mine": True}) == (
        "views:\n  a:\n    mine: true\nx: 1\n"
    )
    assert view_edit(tmp_path / "c.yaml", "views: {b: {colour: red}}  # mine\n", "a", {}) == (
        "views:\n  b:\n    colour: red\n  a: {}\n"
    )
    # the last view deleted: the section goes, the rest stays
    assert view_edit(tmp_path / "c.yaml", "k: 1\nviews:\n  a: {}\nz: 2\n", "a", None) == (
        "k: 1\nz: 2\n"
    )
    # a file without a final line break, and a Windows one: kept as they are written
    assert view_edit(tmp_path / "c.yaml", "refresh_seconds: 5", "a", {}) == (
        "refresh_seconds: 5\nviews:\n  a: {}\n"
    )
    crlf = "keymap:\r\n  approve: Y\r\nviews:\r\n  b:\r\n    mine: true\r\n"
    assert view_edit(tmp_path / "c.yaml", crlf, "a", {"risk": "24h"}) == (
        crlf + "  a:\r\n    risk: 24h\r\n"
    )
    # a dotfiles link: the file it points to changes, the link stays, its mode too
    real = tmp_path / "dotfiles" / "etki.yaml"
    real.parent.mkdir()
    real.write_text(HAND, encoding="utf-8")
    real.chmod(0o640)
    link = tmp_path / "config.yaml"
    link.symlink_to(real)
    save_view(link, "mine", {"mine": True})
    assert link.is_symlink() and _views(real)["mine"] == {"mine": True}
    assert real.stat().st_mode & 0o777 == 0o640


_HOLD = textwrap.dedent(
    """
    import sys
    from filelock import FileLock
    lock = FileLock(sys.argv[1])
    lock.acquire()
    print("held", flush=True)
    sys.stdin.read()
    """
)


def test_a_save_waits_for_the_lock_and_gives_up_saying_so(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(HAND, encoding="utf-8")
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(tmp_path / ".config.yaml.lock")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(TimeoutError, match="being saved by another desk"):
            save_view(path, "mine", {"mine": True}, timeout=0.2)
        assert path.read_text(encoding="utf-8") == HAND
    finally:
        holder.communicate("")
    save_view(path, "mine", {"mine": True}, timeout=0.2)  # free again
    assert _views(path)["mine"] == {"mine": True}


_SAVER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from etki_tui.config import save_view
    for i in range(int(sys.argv[3])):
        save_view(Path(sys.argv[1]), f"{sys.argv[2]} {i}", {"text": f"görev {i}"})
    """
)


@pytest.mark.slow
def test_two_desks_saving_at_once_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(HAND, encoding="utf-8")
    runs = [
        subprocess.Popen([sys.executable, "-c", _SAVER, str(path), who, "25"])
        for who in ("Ayşe", "Jörg")
    ]
    assert [run.wait(timeout=120) for run in runs] == [0, 0]
    views = _views(path)
    for who in ("Ayşe", "Jörg"):
        assert {views[f"{who} {i}"]["text"] for i in range(25)} == {f"görev {i}" for i in range(25)}
    assert {k: views[k] for k in GOOD} == GOOD
