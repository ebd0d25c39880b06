"""Issue 34 trial: a long link in a Hafıza page wrapped mid-word at 80 columns
("…not-only-c" / "urrent--req-…"). A spaceless link label wider than the page is shown
as ``…`` and its end, refitted when the reader's width changes, and still followed on a
click; the page's frontmatter and the links list (``l``) break a path after ``/`` and
``-``, never inside a word.

Driven with Textual's Pilot at 80x24 on the TUI fixture project (real SQLite file, real
wiki written by the ruling service); every step waits for a state, never for time.
"""

from __future__ import annotations

import io

from rich.console import Console

from etki_tui.hafiza.frontmatter import FrontmatterLines, split_frontmatter
from etki_tui.hafiza.pane import MemoryPane
from etki_tui.hafiza.widgets import MemoryList
from etki_tui.screens.links import link_prompt
from tests.conftest import TuiWorld
from tests.test_tui_hafiza_toc import screen_lines
from tests.test_tui_pilot import press, settled_app, sync, until

CASE = "req-demo-9b0f4d68"  # ruled against the engine in the fixture: a precedent
SLUG = f"PRE-sso-for-contractor-accounts--{CASE}"
DECISION = f"decisions/DEC-20261129-sso-for-contractor-accounts--{CASE}.md"
PRECEDENT = f"precedents/{SLUG}.md"


def _where(app, text: str) -> tuple[int, int] | None:  # noqa: ANN001
    """(column, row) of ``text`` on the screen as drawn, or None."""
    for row, line in enumerate(screen_lines(app)):
        if text in line:
            return line.index(text), row
    return None


@sync
async def test_a_long_slug_link_is_shortened_to_its_end_and_still_followed(
    tui_world: TuiWorld,
) -> None:
    async with settled_app(tui_world, (80, 24)) as (app, pilot):
        await press(pilot, "2")
        pane = app.query_one(MemoryPane)
        entries = pane.query_one(MemoryList)
        await until(pilot, lambda: entries.get_option(f"page:{DECISION}"), "the decision file")
        ids = [entries.get_option_at_index(i).id for i in range(entries.option_count)]
        entries.highlighted = ids.index(f"page:{DECISION}")
        # the preview (44 columns): the 50-cell slug is "…" and its end, on one line
        await until(pilot, lambda: _where(app, f"accounts--{CASE}"), "the shortened label")
        lines = screen_lines(app)
        assert not any(SLUG in x for x in lines), lines
        assert any(f"…accounts--{CASE}" in x for x in lines), lines
        assert not any(x.rstrip(" │┃").endswith("PRE-sso-for-con") for x in lines), lines
        # read full-screen: the same page has room for the slug whole (refitted on resize)
        pane.open_page(DECISION)
        await until(pilot, lambda: _where(app, SLUG), "the whole label at 80 columns")
        assert pane.reader.path == DECISION
        # a click on it follows the link: the href was never shortened
        column, row = _where(app, SLUG) or (0, 0)
        await pilot.click(offset=(column + 3, row))
        await until(pilot, lambda: pane.reader.path == PRECEDENT, "the precedent page")


def _lines(renderable: object, width: int) -> list[str]:  # noqa: ANN001
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(renderable)
    return [x.rstrip() for x in console.export_text().splitlines()]


def test_the_frontmatter_and_links_list_break_a_path_at_slash_and_hyphen(
    tui_world: TuiWorld,
) -> None:
    """The decision page's ``precedent:`` value (the real page's frontmatter) at 40
    cells hangs under its key in parts ending at ``/`` or ``-``; the links list's target
    line does the same at 36 cells: joined, the path is whole."""
    meta, _ = split_frontmatter((tui_world.wiki / DECISION).read_text(encoding="utf-8"))
    got = _lines(FrontmatterLines(meta), 40)
    start = next(i for i, x in enumerate(got) if x.startswith("precedent: "))
    value = [got[start][len("precedent: ") :]]
    value += [x.strip() for x in got[start + 1 :] if x.startswith(" " * 11) and x.strip()]
    value = value[: next(n for n in range(1, len(value) + 1) if "".join(value[:n]) == PRECEDENT)]
    assert len(value) > 1 and all(v.endswith(("/", "-")) for v in value[:-1]), got
    assert _lines(link_prompt(SLUG, PRECEDENT), 36) == [
        "PRE-sso-for-contractor-accounts--",
        "req-demo-9b0f4d68",
        "  precedents/PRE-sso-for-contractor-",
        "  accounts--req-demo-9b0f4d68.md",
    ]


def test_id_tail_keeps_the_end_of_the_trials_slug() -> None:
    """The trial's slug (95 characters) in 40 cells: ``…`` and its end cut at a hyphen,
    the case id whole; an id that fits is unchanged."""
    from etki_tui.render import id_tail

    slug = (
        "PRE-bidders-want-to-search-and-filter-projected-vacancies-not-only-"
        "cur--req-talentmap-6cee39a2"
    )
    assert id_tail(slug, 40) == "…not-only-cur--req-talentmap-6cee39a2"
    assert id_tail("req-demo-9b0f4d68", 40) == "req-demo-9b0f4d68"
